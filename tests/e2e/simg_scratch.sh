# SPDX-License-Identifier: MIT
# What an image costs to make durable, counted with strace -y: a build fsyncs each output
# once, when it is put in place, and no other file (libfdisk fsynced the image once more
# right after writing an MBR); with -o X.simg the scratch image that only feeds the sparse
# file is never fsynced, and it is let go (closed, its pages freed) before the sparse file's
# fsync, not after; with --simg beside the raw image both are fsynced once. simg2img of
# every sparse file gives back the raw image (cmp).
. "$TOP/tests/e2e-lib.sh"
need strace simg2img cmp
here=$(pwd -P)
head -c 3000000 /dev/urandom >data.bin
printf 'image { size = 64M table = mbr }\npartition data { from = "data.bin" size = 8M }\n' >card.layout
"$SDIMG" build -q -o raw.img card.layout || fail "build raw.img"

# traced ARGS...: the build of ARGS under strace (-y: each descriptor with its file)
traced() {
    strace -f -qq -y -e trace=openat,fsync,fdatasync,close -o trace.txt \
        "${SDIMG_REAL:-$SDIMG}" build -q "$@" card.layout || fail "build $* under strace"
}
# synced_files: the fsync()s of files, not of the folder the names are put in
synced_files() {
    awk -v dir="$here" '/ (fsync|fdatasync)\(/ { p = $0; sub(/^[^<]*</, "", p); sub(/>\)? *=.*$/, "", p)
        if (p != dir) n++ } END { print n + 0 }' trace.txt
}
# back SIMG: simg2img of SIMG is raw.img
back() {
    rm -f back.img
    simg2img "$1" back.img || fail "simg2img $1"
    cmp -s raw.img back.img || fail "simg2img $1 is not raw.img"
}

traced -o a.img
cmp -s raw.img a.img || fail "a.img is not raw.img"
[ "$(synced_files)" = 1 ] || fail "-o a.img fsynced $(synced_files) times, not once: $(grep fsync trace.txt)"

traced -o b.simg
back b.simg
[ "$(synced_files)" = 1 ] || fail "-o b.simg fsynced $(synced_files) files, not only the sparse one: $(grep fsync trace.txt)"
# the scratch image: the first file made without a name (O_TMPFILE), or failing that the
# first hidden name; the sparse file: the second
files=$(awk '/openat\(.*(O_TMPFILE|"\.sdimg\.)/ { p = $0; sub(/^.*= [0-9]+</, "", p); sub(/>.*$/, "", p); print p }' trace.txt)
scratch=$(echo "$files" | sed -n 1p) sparse=$(echo "$files" | sed -n 2p)
[ -n "$scratch" ] && [ -n "$sparse" ] && [ "$scratch" != "$sparse" ] ||
    fail "-o b.simg: no scratch and sparse file found under strace: $files"
grep -q "fsync([0-9]*<$scratch>" trace.txt && fail "-o b.simg fsynced its scratch image"
closed=$(grep -n "close([0-9]*<$scratch>" trace.txt | head -1 | cut -d: -f1)
synced=$(grep -n "fsync([0-9]*<$sparse>" trace.txt | head -1 | cut -d: -f1)
[ -n "$closed" ] && [ -n "$synced" ] && [ "$closed" -lt "$synced" ] ||
    fail "-o b.simg: the scratch image was let go after the sparse file's fsync (lines $closed, $synced)"

traced --simg -o c.img
cmp -s raw.img c.img || fail "c.img (beside its .simg) is not raw.img"
back c.img.simg
[ "$(synced_files)" = 2 ] || fail "--simg -o c.img fsynced $(synced_files) files, not 2: $(grep fsync trace.txt)"
echo "each output fsynced once, nothing else; -o X.simg lets its scratch go before the sparse file's fsync"
