#!/bin/sh
# SPDX-License-Identifier: MIT
# -o X.simg alone reads the bytes of raw regions and raw partitions from their files, not
# from a copy of them in the scratch image: the build writes each of those bytes once (into
# the sparse file), counted with strace (it used to write them twice: into the scratch
# image, then the sparse file). simg2img of every sparse file is the raw build's image (cmp):
# a boot region at 0 with the MBR's bytes as a hole, a loader with skip and fill, a raw
# partition with holes and zero blocks in its file, one with sparse = false, a FAT
# partition beside them; blocks of 4K, 64K (a block that holds bytes of a file and of the
# scratch image) and 512, with --simg-crc, split by --simg-max-size, and with --sha256 (the
# planned pass). A file changed after it was measured and before the sparse file is written
# (the build held there by strace) is an error naming it, exit 1, no sparse file left, also
# when the modification time is set back after the change (the change time tells).
. "$TOP/tests/e2e-lib.sh"
need strace simg2img cmp truncate fallocate
REAL=${SDIMG_REAL:-$SDIMG}

head -c 512 /dev/urandom >boot.bin
head -c 300001 /dev/urandom >loader.bin
# data.bin: random bytes, a MiB of zeros written, a MiB hole, random bytes again
{ head -c 1500000 /dev/urandom; head -c 1048576 /dev/zero; } >data.bin
truncate -s $((1500000 + 2 * 1048576)) data.bin
head -c 700000 /dev/urandom >>data.bin
head -c 2000000 /dev/urandom >dense.bin
head -c 100000 /dev/zero >>dense.bin
mkdir -p tree && echo hello >tree/a.txt
cat >card.layout <<'EOF'
image { size = 64M table = mbr seed = "direct" }
raw boot   { offset = 0 from = "boot.bin" holes = "440-512" }
raw loader { offset = 32K from = "loader.bin" skip = 1000 size = 400K fill = true fill-byte = 0xff }
partition data  { from = "data.bin" size = 8M holes = "100K-200K" }
partition dense { from = "dense.bin" size = 4M sparse = false }
partition files { type = fat size = 16M tree "/" { from = "tree" } }
EOF
"$SDIMG" build -q -o raw.img card.layout || fail "build raw.img"

# back SIMG...: simg2img of the files (a split's all together) is raw.img
back() {
    rm -f back.img
    simg2img "$@" back.img 2>s2i.err || fail "simg2img $*: $(cat s2i.err)"
    cmp -s raw.img back.img || fail "simg2img $* is not raw.img: $(cmp raw.img back.img 2>&1 | head -1)"
}
for args in "" "--simg-block-size 65536" "--simg-block-size 512" "--simg-crc" "--sha256"; do
    rm -f a.simg a.sha256
    # shellcheck disable=SC2086
    "$SDIMG" build -q -o a.simg $args card.layout || fail "build -o a.simg $args"
    back a.simg
done
(cd . && sha256sum -c --quiet a.sha256) || fail "--sha256 of a.simg"
"$SDIMG" build -q -o s.simg --simg-max-size 1M card.layout || fail "build --simg-max-size 1M"
# shellcheck disable=SC2046
back $(ls s.*.simg | sort -t. -k2 -n)
echo "-o X.simg (4K, 64K, 512-byte blocks, CRC, --sha256, split): simg2img gives raw.img"

# the bytes written: a raw partition of 48 MiB of random bytes goes out once
head -c $((48 * 1048576)) /dev/urandom >big.bin
printf 'image { size = 1G table = mbr }\npartition big { from = "big.bin" size = 64M }\n' >big.layout
strace -f -qq -e trace=write,pwrite64,pwritev,pwritev2,copy_file_range -o trace.txt \
    "$REAL" build -q -o big.simg big.layout || fail "build big.simg under strace"
written=$(awk '{ n = $NF; if (n ~ /^[0-9]+$/) s += n } END { printf "%.0f\n", s }' trace.txt)
simg=$(stat -c %s big.simg)
echo "48 MiB raw partition into a sparse file of $simg bytes: $written bytes written in all"
[ "$written" -le $((simg + 1048576)) ] || fail "$written bytes written for a sparse file of $simg"

# held CHANGE: builds big.simg while CHANGE runs, the build held right after it recorded
# big.bin (its descriptor kept: the third fcntl); status in rc.txt, stderr in err.txt
held() {
    rm -f big.simg
    (rc=0; strace -f -o /dev/null -e inject=fcntl:delay_exit=2000000:when=3 "$REAL" build -q \
        -o big.simg big.layout 2>err.txt || rc=$?; echo $rc >rc.txt) &
    sleep 1
    sh -c "$1"
    wait
    [ "$(cat rc.txt)" -eq 1 ] || fail "$2: exit $(cat rc.txt) ($(cat err.txt))"
    [ ! -e big.simg ] || fail "$2: big.simg was left"
    grep -q "big.bin" err.txt || fail "$2: the message does not name big.bin: $(cat err.txt)"
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "$2: more than one line: $(cat err.txt)"
    echo "$2: $(cat err.txt)"
}
held 'truncate -s 10M big.bin' "big.bin cut short"
head -c $((48 * 1048576)) /dev/urandom >big.bin
held 'printf x | dd of=big.bin bs=1 seek=5 conv=notrunc status=none' "a byte of big.bin rewritten"
head -c $((48 * 1048576)) /dev/urandom >big.bin
held 'm=$(stat -c %y big.bin); printf x | dd of=big.bin bs=1 seek=5 conv=notrunc status=none; touch -d "$m" big.bin' \
    "a byte of big.bin rewritten, its modification time set back"
ls -a | grep -v -e '^\.\.*$' | grep '^\.' && fail "a hidden file was left"
echo "a file changed while the build held it: one line naming it, exit 1, nothing left"
