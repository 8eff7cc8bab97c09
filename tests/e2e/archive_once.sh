# SPDX-License-Identifier: MIT
# A compressed archive is decompressed once: the listing pass keeps the decompressed stream in
# a spool in $TMPDIR, which the data pass reads; the archive file itself is read about once
# (counted with strace: the bytes read() from it), where gzip was read three times and every
# other filter twice. zstd and lz4, which decompress about as fast as a spool is written and
# read, are still read twice. Without room for the spool (no $TMPDIR, or one that is too
# small) the build decompresses the archive again and gives the same image; the spool leaves
# nothing. An ext4 tree reads its archive the same way, and its sparse entries keep their holes.
. "$TOP/tests/e2e/lib/ext4.sh"
need bsdtar strace sha256sum debugfs e2fsck python3 mtype
export LC_ALL=C.UTF-8 TZ=UTC

mkdir -p src/d && head -c 600000 /dev/urandom >src/d/r.bin && seq 1 100000 >src/n.txt
ln src/n.txt src/d/hard.txt && ln -s ../n.txt src/d/sym.txt && truncate -s 2M src/holes.bin
find src -exec touch -h -d @1600000000 {} +

build() { # build NAME FROM: NAME.img from a layout with one FAT partition
    printf 'image { table = none seed = "s" }\npartition p { type = fat\n tree "/" { from = "%s" } }\n' \
        "$2" >"$1.layout"
    "$SDIMG" build -q -o "$1.img" "$1.layout" || fail "build from $2"
}
build dir src
want=$(sha256sum <dir.img)

# read_bytes ARCHIVE: the bytes a build from ARCHIVE reads from it (the program itself, not
# the plan check of tests/e2e-lib.sh, which reads its inputs once more)
read_bytes() {
    printf 'image { table = none seed = "s" }\npartition p { type = fat\n tree "/" { from = "%s" } }\n' \
        "$1" >count.layout
    strace -f -qq -s 0 -e trace=openat,read,pread64,close -o trace.txt \
        "${SDIMG_REAL:-$SDIMG}" build -q -o count.img count.layout || fail "build from $1 under strace"
    [ "$(sha256sum <count.img)" = "$want" ] || fail "$1: the image differs from the folder's"
    awk -v name="$1" '
        /openat\(/ && (index($0, "\"" name "\"") || index($0, "/" name "\"")) { split($0, p, "= "); fd[p[2] + 0] = 1 }
        /(read|pread64)\(/ { split($0, a, "("); split(a[2], b, ","); f = b[1] + 0
            if (f in fd) { split($0, p, "= "); if (p[2] + 0 > 0) n += p[2] } }
        /close\(/ { split($0, a, "("); split(a[2], b, ")"); delete fd[b[1] + 0] }
        END { printf "%d\n", n }' trace.txt
}

for z in gzip xz bzip2 zstd; do
    (cd src && bsdtar --$z -cf ../t.$z .) || fail "bsdtar --$z"
    size=$(stat -c %s t.$z)
    got=$(read_bytes t.$z)
    times=1
    [ $z != zstd ] || times=2
    # once (or twice), and a little more: the first bytes are looked at to tell the filter
    [ "$got" -le $((times * size + size / 10 + 131072)) ] ||
        fail "t.$z: $got bytes read from a $size-byte archive (decompressed more than $times times)"
    [ "$got" -ge $((times * size)) ] || fail "t.$z: only $got bytes read from a $size-byte archive"
    echo "t.$z: $got bytes read from $size"
done

# no spool: $TMPDIR that does not exist, then one too small to hold the stream
for z in gzip xz; do
    build none-$z t.$z
    TMPDIR=$PWD/none "$SDIMG" build -q -o none-$z.img none-$z.layout || fail "t.$z without a spool"
    [ "$(sha256sum <none-$z.img)" = "$want" ] || fail "t.$z without a spool: another image"
done
if mkdir small && mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
    TMPDIR=$PWD/small "$SDIMG" build -q -o small.img none-xz.layout && st=0 || st=$?
    left=$(ls -A small | wc -l)
    umount small
    [ "$st" -eq 0 ] || fail "t.xz with a spool too small: exit $st"
    [ "$(sha256sum <small.img)" = "$want" ] || fail "t.xz with a spool too small: another image"
    [ "$left" -eq 0 ] || fail "the spool left files in \$TMPDIR"
    echo "a spool that does not fit: the archive is decompressed again, same image"
else
    echo "(cannot mount a small tmpfs: the spool that does not fit is not tried)"
fi

# an ext4 tree reads its archive the same way: once, from the spool for the data pass, and a
# gzip stream is checked to its CRC-32 (damage inside stored bytes inflates without error)
ext4_layout() { # ext4_layout NAME FROM
    printf 'image { table = none seed = "s" }\npartition p { type = ext4 size = 16M\n tree "/" { from = "%s" } }\n' \
        "$2" >"$1.layout"
}
(cd src && bsdtar -cf ../t.tar .) || fail "bsdtar"
ext4_layout e4tar t.tar
"$SDIMG" build -q -o e4tar.img e4tar.layout || fail "ext4 build from t.tar"
ext4_fsck e4tar.img
for f in holes.bin d/r.bin n.txt; do # a sparse entry whose hole runs to its end, and data
    debugfs -R "dump /$f got.bin" e4tar.img >/dev/null 2>&1 || fail "debugfs cannot dump /$f"
    cmp -s got.bin "src/$f" || fail "ext4 from t.tar: /$f is not the file archived"
done
for z in gzip xz; do
    ext4_layout e4$z t.$z
    size=$(stat -c %s t.$z)
    strace -f -qq -s 0 -e trace=openat,read,pread64,close -o trace.txt \
        "${SDIMG_REAL:-$SDIMG}" build -q -o e4$z.img e4$z.layout || fail "ext4 build from t.$z under strace"
    cmp -s e4tar.img e4$z.img || fail "ext4 from t.$z: the image differs from the plain tar's"
    got=$(awk -v name="t.$z" '
        /openat\(/ && (index($0, "\"" name "\"") || index($0, "/" name "\"")) { split($0, p, "= "); fd[p[2] + 0] = 1 }
        /(read|pread64)\(/ { split($0, a, "("); split(a[2], b, ","); f = b[1] + 0
            if (f in fd) { split($0, p, "= "); if (p[2] + 0 > 0) n += p[2] } }
        /close\(/ { split($0, a, "("); split(a[2], b, ")"); delete fd[b[1] + 0] }
        END { printf "%d\n", n }' trace.txt)
    [ "$got" -le $((size + size / 10 + 131072)) ] ||
        fail "ext4 from t.$z: $got bytes read from a $size-byte archive (decompressed more than once)"
    echo "ext4 from t.$z: $got bytes read from $size"
done
# the trailer's CRC-32 changed: every byte inflates, only the check can tell
cp t.gzip corrupt.tgz && printf XXXX | dd of=corrupt.tgz bs=1 seek=$(($(stat -c %s t.gzip) - 8)) conv=notrunc status=none
ext4_layout e4bad corrupt.tgz
expect_status 1 "$SDIMG" build -q -o e4bad.img e4bad.layout
expect_stderr "corrupt.tgz: a damaged gzip stream: incorrect data check"
[ ! -e e4bad.img ] || fail "a damaged gzip stream left an ext4 image"

# a zip whose directory does not list every entry, gzipped: the data pass reads the spool as
# the listing read the stream, entry by entry (read by its directory, the second pass met
# other entries than the first: ext4 files got another file's bytes)
python3 - <<'PY'
import zipfile
z = zipfile.ZipFile("hidden.zip", "w")
for name, text in (("x", "xx"), ("y", "yy"), ("z", "zz")):
    z.writestr(name, text * 3000)
z.writestr("d/", "")
z.filelist = [i for i in z.filelist if i.filename != "y"]
z.close()
PY
gzip -n hidden.zip
ext4_layout hid4 hidden.zip.gz
"$SDIMG" build -q -o hid4.img hid4.layout || fail "ext4 from a zip with an entry its directory does not list"
ext4_fsck hid4.img
printf 'image { table = none seed = "s" }\npartition p { type = fat size = 8M\n tree "/" { from = "hidden.zip.gz" } }\n' >hidf.layout
"$SDIMG" build -q -o hidf.img hidf.layout || fail "FAT from a zip with an entry its directory does not list"
for f in x y z; do
    debugfs -R "dump /$f got.bin" hid4.img >/dev/null 2>&1 || fail "ext4: no /$f"
    [ "$(head -c 6 got.bin)" = "$f$f$f$f$f$f" ] || fail "ext4: /$f holds $(head -c 6 got.bin)..."
    [ "$(mtype -i hidf.img "::/$f" | head -c 6)" = "$f$f$f$f$f$f" ] || fail "FAT: /$f is not its own"
done
echo "a zip with an entry its directory does not list: both passes read the same entries"
echo "a compressed archive is decompressed once, or twice without room for its spool"
