#!/bin/sh
# SPDX-License-Identifier: MIT
# The real Linux vfat and exfat drivers (a Debian kernel in qemu, through
# tests/oracle/kernel-fat-list), all in one boot of the oracle's guest (kernel-fat-list -l:
# each boot costs seconds under emulation):
#  - vfat reads our FAT12, FAT16 and FAT32 volumes, placed at an offset in a larger file,
#    and the FAT partitions of a card sdimg builds, mounted read-write on a throw-away
#    snapshot: no warning, every name (emoji included), size and SHA-256 as written. Then
#    the oracle is shown to see damage: a zeroed sector size, a broken cluster chain, a bad
#    FSInfo signature and a dirty flag.
#  - exfat reads one rich exFAT volume the writer made, placed 1 MiB into a file with its
#    cluster heap aligned from the file's start: no word from the kernel, and every name (of
#    every Unicode plane, of 255 UTF-16 units), size (0, 1, cluster - 1, cluster, cluster + 1,
#    4 GiB + 1) and SHA-256 as written, in 10,000 files of one folder and 40 nested folders.
#    The sparse file of 4 GiB + 1 is read from a seek to its last MiB (-b: all of it takes
#    minutes under emulation): its size and its end past 4 GiB.
# Skipped where the oracle cannot run (no qemu and no root to install it, no apt, not amd64).
. "$TOP/tests/e2e/lib/fatcheck.sh"
. "$TOP/tests/e2e/lib/exfat_oracles.sh"
need_tools sha256sum awk sort grep jq sfdisk
need_exfat_tools seq truncate dd paste xargs
KFL=$TOP/tests/oracle/kernel-fat-list

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

# The volumes below go to the oracle in one list, one boot of the guest for all (each boot
# costs seconds under emulation); each is then checked against what it should give.
: >oracle.list
# volume NAME [-w] IMAGE OFFSET SIZE: one more volume for the oracle, its results NAME.{out,err,rc}
volume() {
    echo "$*" >>oracle.list
}
# oracle NAME WANT_RC: the oracle's output on NAME in got.txt, its messages in err.txt;
# fails unless it exited WANT_RC on it
oracle() {
    cp "$1.out" got.txt && cp "$1.err" err.txt || fail "the oracle left no results for $1"
    rc=$(cat "$1.rc")
    [ "$rc" -eq "$2" ] || fail "kernel-fat-list on $1 ($(grep "^$1 " oracle.list)): exit $rc, expected $2: $(cat got.txt err.txt)"
}
same_tree() {   # same_tree WHAT: the kernel saw exactly src/
    diff want.txt got.txt >diff.txt || fail "$1: the kernel sees another tree: $(cat diff.txt)"
}

# volumes the FAT library writes, at 1 MiB into a file
off=1048576
for type in 12 16 32; do
    "$FATWRITE" -s -t $type -c 1024 -o $off -a 65536 -l KERNEL k$type.img auto src >geom.txt ||
        fail "fatwrite FAT$type"
    volume fat$type k$type.img $off $(($(stat -c %s k$type.img) - off))
done

# a card sdimg builds: its FAT16 and FAT32 partitions, mounted read-write (a snapshot: the
# kernel then also checks the dirty flags and writes FSInfo back); `type = fat` makes the
# small boot partition FAT16 with 2K clusters
cat >card.layout <<'LAYOUT'
image { size = 96M seed = "kernel" }
partition boot { type = fat size = 16M fat { label = "BOOT" } tree "/" { from = "src" } }
partition data { type = fat32 size = grow fat { cluster-size = 512 } tree "/" { from = "src" } }
LAYOUT
"$SDIMG" build -q -o card.img card.layout || fail "sdimg build card.layout"
for n in 1 2; do
    start=$(part_json card.img $n start) size=$(part_json card.img $n size)
    volume card$n -w card.img $((start * 512)) $((size * 512))
done

# And the oracle sees damage, so that its silence above means something.
fat_start() {   # fat_start IMG VOLOFF: byte offset of the first FAT
    echo $(($2 + $(le "$1" $(($2 + 14)) 2) * $(le "$1" $(($2 + 11)) 2)))
}
# a boot sector with 0 bytes per sector: the kernel refuses the volume
cp k16.img bad.img
printf '\000\000' | dd of=bad.img bs=1 seek=$((off + 11)) conv=notrunc status=none
volume sector0 bad.img $off $(($(stat -c %s bad.img) - off))

# random.bin's chain cut after its first cluster (its FAT entry marked free)
for type in 16 32; do
    cp k$type.img cut$type.img
    e=$(grep -abo 'RANDOM  BIN' cut$type.img | head -1 | cut -d: -f1)
    [ -n "$e" ] || fail "FAT$type: no directory entry RANDOM.BIN"
    cl=$(le cut$type.img $((e + 26)) 2)
    [ $type -eq 16 ] || cl=$((cl + $(le cut$type.img $((e + 20)) 2) * 65536))
    w=$((type / 8))
    head -c $w /dev/zero | dd of=cut$type.img bs=1 seek=$(($(fat_start cut$type.img $off) + cl * w)) conv=notrunc status=none
    volume cut$type cut$type.img $off $(($(stat -c %s cut$type.img) - off))
done

# FAT32's FSInfo sector without its lead signature, and the volume marked dirty in its boot
# sector, mounted read-write
cp k32.img fsinfo.img
fsinfo=$(le fsinfo.img $((off + 48)) 2)
printf 'XXXX' | dd of=fsinfo.img bs=1 seek=$((off + fsinfo * 512)) conv=notrunc status=none
printf '\001' | dd of=fsinfo.img bs=1 seek=$((off + 65)) conv=notrunc status=none
cp fsinfo.img fsinfo.before
volume fsinfo -w fsinfo.img $off $(($(stat -c %s fsinfo.img) - off))

# the exFAT volume, and what the oracle prints of its tree xsrc/: files over BIG by the hash
# of their end (as -b reads it); the others hashed by one sha256sum (no name of the tree
# holds a newline or a tab)
BIG=1048576
rich_tree xsrc
(cd xsrc && find . -type f -size -$((BIG + 1))c) >small.txt
(cd xsrc && tr '\n' '\0' <../small.txt | xargs -0 stat -c '%s') >sizes.txt
(cd xsrc && tr '\n' '\0' <../small.txt | xargs -0 sha256sum | cut -d' ' -f1) >sums.txt
paste -d'\t' sums.txt sizes.txt small.txt | awk -F'\t' '{ sub(/^\./, "", $3); print $3 "\t" $1 "  " $2 "  " $3 }' >lines.txt
(cd xsrc && find . -type f -size +${BIG}c) | while IFS= read -r f; do
    s=$(stat -c %s "xsrc/$f")
    at=$(((s - BIG) / 4096 * 4096))
    h=$(dd if="xsrc/$f" bs=4096 skip=$((at / 4096)) 2>/dev/null | sha256sum | cut -d' ' -f1)
    printf '%s\ttail@%s:%s  %s  %s\n' "${f#.}" $at "$h" "$s" "${f#.}"
done >>lines.txt
LC_ALL=C sort -t "$(printf '\t')" -k1,1 lines.txt | cut -f2- >xwant.txt   # by path, as the oracle
printf 'dirs %s files %s\n' "$(cd xsrc && find . -mindepth 1 -type d | wc -l)" \
    "$(cd xsrc && find . -type f | wc -l)" >>xwant.txt
"$EXFATWRITE" -s -c 4096 -o $off -a 4194304 -l KERNEL -T 1700000000 x.img auto xsrc >xgeom.txt ||
    fail "exfatwrite"
volume exfat -f exfat -b $BIG x.img $off $(($(stat -c %s x.img) - off))

set +e
"$KFL" -t 900 -l oracle.list >run.out 2>run.err
rc=$?
set -e
if [ $rc -eq 3 ]; then
    cat run.err
    echo "skipped: the kernel oracle $(tail -1 run.err | sed 's/^kernel-fat-list: //')"
    exit 77
fi
[ $rc -eq 0 ] || fail "kernel-fat-list -l: exit $rc: $(cat run.out run.err)"

for type in 12 16 32; do
    oracle fat$type 0
    same_tree "FAT$type"
    echo "FAT$type: the Linux vfat driver agrees"
done
for n in 1 2; do
    oracle card$n 0
    same_tree "card partition $n"
    echo "card partition $n: the Linux vfat driver agrees (read-write mount)"
done

oracle sector0 1
grep -q "bogus logical sector size 0" err.txt || fail "zeroed sector size: $(cat err.txt)"
echo "a zeroed sector size: refused"

# the cut chain: a read error on that file and the kernel's complaint; every other file
# still reads
for type in 16 32; do
    oracle cut$type 2
    grep -q "READ-ERROR  200000  /sub/deeper/random.bin" got.txt || fail "FAT$type cut chain: $(cat got.txt)"
    [ "$(grep -c READ-ERROR got.txt)" -eq 1 ] || fail "FAT$type cut chain: other files fail too: $(cat got.txt)"
    grep -q "^kernel: FAT-fs (vd[a-z]*): error, fat_get_cluster: invalid cluster chain" err.txt ||
        fail "FAT$type cut chain: no kernel error: $(cat err.txt)"
    grep -v random.bin want.txt >want.rest
    grep -v random.bin got.txt | diff want.rest - >diff.txt || fail "FAT$type cut chain: $(cat diff.txt)"
    echo "FAT$type: a cut cluster chain: a read error and the kernel's word"
done

# the broken FSInfo and the dirty flag: mounted, with the kernel's two warnings
oracle fsinfo 2
same_tree "FAT32 without FSInfo signature"
grep -q "^kernel: FAT-fs (vd[a-z]*): Invalid FSINFO signature" err.txt || fail "bad FSInfo: $(cat err.txt)"
grep -q "^kernel: FAT-fs (vd[a-z]*): Volume was not properly unmounted" err.txt || fail "dirty flag: $(cat err.txt)"
cmp -s fsinfo.img fsinfo.before || fail "a read-write run of the oracle changed its image"
echo "FAT32: a broken FSInfo signature and the dirty flag: the kernel's warnings"

# the exFAT volume: every file as written, and no word from the kernel
oracle exfat 0
diff xwant.txt got.txt >diff.txt || fail "exFAT: the kernel sees another tree: $(head -20 diff.txt)"
echo "exFAT: the Linux exfat driver reads every file as written, and says nothing"
