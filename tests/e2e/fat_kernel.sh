#!/bin/sh
# The real Linux vfat driver (in qemu, through ../shared/tools/kernel-fat-list) reads our
# FAT12, FAT16 and FAT32 volumes, placed at an offset in a larger file, without a warning and
# sees every file with its name (emoji included), size and SHA-256. Skipped when the oracle
# cannot run here.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools sha256sum awk sort
KFL=${KFL:-$TOP/../shared/tools/kernel-fat-list}
[ -x "$KFL" ] || { echo "no kernel-fat-list oracle"; exit 77; }

mkdir -p src/names "src/emoji/🎉" src/sub/deeper
for n in "Ünïcödé ñame.txt" "日本語ファイル.txt" "MiXeD.TxT" "lower.txt" "UPPER.TXT" "Makefile" \
         "a+b,c;d=e[f].txt" ".hidden" "x.tar.gz" "noext" "longfilename1.txt" "longfilename2.txt" \
         "longfilename3.txt" "longfilename4.txt" "longfilename5.txt" "longfilename6.txt"; do
    printf '%s\n' "$n" >"src/names/$n"
done
printf 'party\n' >"src/emoji/🎉/🎂 cake.txt"
head -c 200000 /dev/urandom >src/sub/deeper/random.bin
: >src/sub/empty

(cd src && find . -type f | LC_ALL=C sort | while IFS= read -r f; do
    printf '%s  %s  %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$(wc -c <"$f" | tr -d ' ')" "${f#.}"
done) >want.txt
printf 'dirs %s files %s\n' "$(cd src && find . -mindepth 1 -type d | wc -l)" \
    "$(cd src && find . -type f | wc -l)" >>want.txt

off=1048576
for type in 12 16 32; do
    "$FATWRITE" -s -t $type -c 1024 -o $off -a 65536 -l KERNEL k.img auto src >geom.txt || fail "fatwrite FAT$type"
    size=$(($(stat -c %s k.img) - off))
    "$KFL" k.img $off $size >got.txt 2>err.txt
    rc=$?
    [ $rc -ne 3 ] || { cat err.txt; echo "kernel-fat-list cannot run here"; exit 77; }
    [ $rc -eq 0 ] || fail "FAT$type: kernel-fat-list exit $rc: $(cat got.txt err.txt)"
    diff want.txt got.txt >diff.txt || fail "FAT$type: the kernel sees another tree: $(cat diff.txt)"
    echo "FAT$type: the Linux vfat driver agrees"
done
