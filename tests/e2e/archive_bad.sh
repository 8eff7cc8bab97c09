# SPDX-License-Identifier: MIT
# Bad archives as `tree` sources: each gives one clear line naming the archive (and the
# entry), exit 1 and no image; none crashes or takes much memory.
. "$TOP/tests/e2e-lib.sh"
need bsdtar tar /usr/bin/time python3 gzip
export LC_ALL=C.UTF-8 TZ=UTC

mkdir t && echo hi >t/a && head -c 100000 /dev/urandom >t/r
(cd t && bsdtar -cf ../ok.tar . && bsdtar --zstd -cf ../ok.tar.zst . && bsdtar --xz -cf ../ok.tar.xz . &&
    bsdtar --gzip -cf ../ok.tgz .)

# bad ARCHIVE TEXT: building a partition from ARCHIVE fails with one line holding TEXT
bad() {
    printf 'image { table = none }\npartition p { type = fat tree "/" { from = "%s" } }\n' "$1" >bad.layout
    expect_status 1 "$SDIMG" build -o bad.img bad.layout
    expect_stderr "$2"
    [ ! -e bad.img ] || fail "$1: a failed build left bad.img"
}

head -c 50000 ok.tar >trunc.tar
bad trunc.tar "trunc.tar: Truncated input file"
head -c 30000 ok.tar.zst >trunc.tar.zst
bad trunc.tar.zst "trunc.tar.zst: cannot be read as an archive: Truncated zstd input"
cp ok.tar.xz corrupt.tar.xz && printf XXXXXXXX | dd of=corrupt.tar.xz bs=1 seek=5000 conv=notrunc status=none
bad corrupt.tar.xz "corrupt.tar.xz: cannot be read as an archive: Lzma library error: Corrupted input data"
# libarchive does not check gzip's CRC-32: damage inside stored (random) bytes is found anyway
cp ok.tgz corrupt.tgz && printf XXXXXXXX | dd of=corrupt.tgz bs=1 seek=5000 conv=notrunc status=none
bad corrupt.tgz "corrupt.tgz: a damaged gzip stream: incorrect data check"
head -c 50000 ok.tgz >trunc.tgz
bad trunc.tgz "trunc.tgz: a damaged gzip stream: the gzip stream is truncated"
# a stream cut short after the archive's end (its check, index or footer gone): the rest of
# the stream is read and checked, for every compression (zeros after the tar, as tape
# blocking leaves them, put its end marker long before the stream's end)
(cd t && tar -cf ../pad.tar .) && head -c 1048576 /dev/zero >>pad.tar
for c in xz bzip2 zstd lz4; do
    command -v $c >/dev/null || { echo "no $c: its cut-off stream not tried"; continue; }
    $c -q -c pad.tar >pad.tar.$c && head -c -4 pad.tar.$c >cut.tar.$c
    bad cut.tar.$c "cut.tar.$c: the compressed stream is truncated"
    printf 'image { table = none }\npartition p { type = fat tree "/" { from = "%s" } }\n' pad.tar.$c >pad.layout
    "$SDIMG" build -q -o pad.img pad.layout || fail "pad.tar.$c: the whole stream was refused"
    rm -f pad.img
done
# two members, and zeros after the last (as tape blocking leaves them): both fine
cat ok.tgz ok.tgz >two.tgz && head -c 4096 /dev/zero >>two.tgz
printf 'image { table = none }\npartition p { type = fat tree "/" { from = "two.tgz" } }\n' >two.layout
"$SDIMG" build -q -o two.img two.layout || fail "two gzip members and padding"

# a 4 GiB entry (sparse, so cheap to make and to list)
mkdir big && truncate -s 4G big/huge && (cd big && tar --sparse -cf ../big.tar huge)
bad big.tar "big.tar: huge: 4294967296 bytes; a FAT file must be smaller than 4 GiB"

mkdir names && echo x >'names/a:b' && (cd names && bsdtar -cf ../names.tar .)
bad names.tar 'names.tar: ./a:b: the name contains one of'
mkdir dots && echo x >dots/end. && (cd dots && bsdtar -cf ../dots.zip --format zip .)
bad dots.zip 'dots.zip: ./end.: '

(cd t && bsdtar -s ',^a$,../../etc/passwd,' -cf ../escape.tar a)
bad escape.tar "escape.tar: ../../etc/passwd: the entry's path leaves the partition"
ln -s /etc/shadow shadow && bsdtar -cf shadow.tar shadow
bad shadow.tar "shadow.tar: shadow: a symbolic link to /etc/shadow, outside the archive"
mkfifo fifo && bsdtar -cf fifo.tar fifo
bad fifo.tar "fifo.tar: fifo: a fifo cannot go on a FAT file system"

bsdtar -cf empty.tar --files-from /dev/null
bad empty.tar "empty.tar: an empty archive (no entries)"
echo "just some text" >notes.txt
bad notes.txt "notes.txt: cannot be read as an archive: Unrecognized archive format"

# an mtree listing names host files: never a source (it would put /etc/hostname in the image),
# and neither is a one-word text file that libarchive would read as one; the message says
# mtree, compressed or not, on FAT and ext4, and no file the listing names is opened (a fifo
# would hang the build)
mtree="reads as an mtree listing, which names files of the building machine instead of holding them"
printf '#mtree\n./x type=file contents=/etc/hostname\n' >host.mtree
bad host.mtree "host.mtree: $mtree"
echo hostname >word.txt
bad word.txt "word.txt: $mtree"
bsdtar --format=mtree -cf made.mtree t && gzip -k made.mtree
bad made.mtree "made.mtree: $mtree"
bad made.mtree.gz "made.mtree.gz: $mtree"
mkfifo wait.fifo && printf '#mtree\n./x type=file contents=wait.fifo\n' >fifo.mtree
printf 'image { table = none }\npartition p { type = ext4 size = 16M tree "/" { from = "fifo.mtree" } }\n' >bad.layout
expect_status 1 timeout 20 "$SDIMG" build -o bad.img bad.layout
expect_stderr "fifo.mtree: $mtree"
[ ! -e bad.img ] || fail "fifo.mtree on ext4: a failed build left bad.img"

# folders FAT sees as one (README/a and readme/b), and a later entry a over the folder a/
mkdir -p cs/README cs/readme && echo a >cs/README/a && echo b >cs/readme/b
(cd cs && bsdtar -cf ../case.tar README/a readme/b)
bad case.tar "case.tar: readme/b: /readme and /README (of ./case.tar: README/a): FAT sees the two names as equal"
mkdir -p fa/a fb && echo 1 >fa/a/x && echo f >fb/a
(cd fa && bsdtar -cf ../over.tar a a/x) && (cd fb && bsdtar -rf ../over.tar a)
bad over.tar "over.tar: a/ and ./over.tar: a: a folder and a file at one path"

# links that multiply: dK/a and dK/b both name d(K-1), 2^16 copies from a 30 KB tar; refused
# at once (FAT has no links: each followed link is a copy), not after minutes and gigabytes
mkdir -p bomb/d0 && echo x >bomb/d0/f
k=1
while [ $k -le 16 ]; do
    mkdir bomb/d$k && ln -s ../d$((k - 1)) bomb/d$k/a && ln -s ../d$((k - 1)) bomb/d$k/b
    k=$((k + 1))
done
(cd bomb && bsdtar -cf ../bomb.tar .)
bad bomb.tar "bomb.tar: its symbolic links copy more than 10204 entries (4 times the 51 it holds, plus 10000)"
# the same as a folder (its own entries counted in full before the walk)
bad bomb "./bomb: its symbolic links copy more than 10200 entries (4 times the 50 it holds, plus 10000)"

# a zip written to a pipe (its sizes only in data descriptors), gzipped: read as a stream it
# does not say how large its files are, and FAT and ext4 both refuse it (ext4 made them empty)
python3 - <<'PY' | gzip -n >stream.zip.gz
import sys, zipfile
with zipfile.ZipFile(sys.stdout.buffer, "w") as z:
    z.writestr("f.txt", "x" * 80)
PY
bad stream.zip.gz "stream.zip.gz: f.txt: the archive does not say how large it is"
printf 'image { table = none }\npartition p { type = ext4 size = 16M tree "/" { from = "stream.zip.gz" } }\n' >bad.layout
expect_status 1 "$SDIMG" build -o bad.img bad.layout
expect_stderr "stream.zip.gz: f.txt: the archive does not say how large it is"
[ ! -e bad.img ] || fail "stream.zip.gz on ext4: a failed build left bad.img"

# 100,000 empty files in one folder: more than a FAT directory holds; memory stays modest
mkdir -p many/d && (cd many/d && seq -f 'f%06g' 100000 | xargs touch) && bsdtar -C many -czf many.tgz .
printf 'image { table = none }\npartition p { type = fat tree "/" { from = "many.tgz" } }\n' >bad.layout
expect_status 1 /usr/bin/time -o rss.txt -f %M "$SDIMG" build -o bad.img bad.layout
expect_stderr "many.tgz: ./d/: 100002 directory entries (long names included); a FAT directory holds at most 65536"
[ ! -e bad.img ] || fail "many.tgz: a failed build left bad.img"
rss=$(tail -1 rss.txt)
if [ "${SDIMG_SANITIZED:-0}" = 1 ]; then
    echo "100,000 entries: $rss KiB peak (the sanitizer build's memory: not checked)"
else
    [ "$rss" -lt 204800 ] || fail "100,000 entries took $rss KiB"
    echo "100,000 entries: $rss KiB peak"
fi
