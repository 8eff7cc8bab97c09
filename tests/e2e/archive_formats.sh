# SPDX-License-Identifier: MIT
# tree "/PATH" { from = ARCHIVE }: every archive format and compression filter that libarchive
# reads (chosen by content, not by name) gives the very image the folder it was made from
# gives, byte for byte; fsck.fat, mtools and 7z read the partition back as the extracted
# archive; strip, hard links, symbolic links inside the archive, sparse entries and
# mtime = source work as they do for folders.
. "$TOP/tests/e2e-lib.sh"
need bsdtar tar zip 7z fsck.fat mcopy mdir mtype sha256sum
export LC_ALL=C.UTF-8 TZ=UTC

# the tree: nested and empty folders, an empty file, long and mixed-case names, random bytes,
# a hard link, symbolic links to a file, to a folder and through it, and a sparse file
mkdir -p src/Sub/deeper src/empty
echo hello >src/a.txt
echo world >src/Sub/b.TXT
head -c 300000 /dev/urandom >src/Sub/deeper/random.bin
: >src/zero.len
echo "long name" >"src/A long file name.text"
ln src/a.txt src/Sub/hard.txt
ln -s ../a.txt src/Sub/sym.txt
ln -s Sub/deeper src/deeplink
ln -s deeplink/random.bin src/through.bin
truncate -s 8M src/sparse.bin
echo tail >>src/sparse.bin
stamp() { find "$1" -exec touch -h -d @1600000000 {} +; }
stamp src

# build NAME FROM [MTIME] [TOP] [STRIP]: NAME.img from a layout with one FAT partition
build() {
    printf 'image { table = none seed = "s" mtime = %s }\npartition p { type = fat\n tree "%s" { from = "%s" %s } }\n' \
        "${3:-fixed}" "${4:-/}" "$2" "${5:+strip = $5}" >"$1.layout"
    "$SDIMG" build -q -o "$1.img" "$1.layout" || fail "build from $2"
}
build dir src
check_fat dir.img 0 "$(stat -c %s dir.img)" src
want=$(sha256sum <dir.img)

# same NAME ARCHIVE: the image from ARCHIVE is the folder's, byte for byte
same() {
    build "$1" "$2"
    [ "$(sha256sum <"$1.img")" = "$want" ] || fail "$2: the image differs from the folder's"
    rm -f "$1.img"
}
for f in pax ustar gnutar newc odc iso9660 zip 7zip; do
    (cd src && bsdtar --format $f -cf ../fmt.$f .) || fail "bsdtar --format $f"
    same fmt-$f fmt.$f
done
for z in gzip bzip2 xz zstd lz4 lzma; do
    (cd src && bsdtar --$z -cf ../tar.$z .) || fail "bsdtar --$z"
    same tar-$z tar.$z
    (cd src && bsdtar --format newc --$z -cf ../cpio.$z .) || fail "bsdtar newc --$z"
    same cpio-$z cpio.$z
done
# the usual tools' own archives, named misleadingly: content decides, not the name
(cd src && tar --sparse -czf ../gnu.zip .) && same gnu gnu.zip
(cd src && zip -qry ../info.tar .) && same zip info.tar
(cd src && 7z a -snl ../seven.7z . >/dev/null) && same seven seven.7z

# ar holds only flat files
mkdir flat && cp src/a.txt src/Sub/deeper/random.bin flat/ && stamp flat
build flat flat
(cd flat && bsdtar --format ar -cf ../flat.a a.txt random.bin) && same2=$(sha256sum <flat.img)
build ar flat.a
[ "$(sha256sum <ar.img)" = "$same2" ] || fail "flat.a: the image differs from the folder's"

# names outside ASCII, also when the caller's locale is "C" (zip and 7z store UTF-8)
mkdir utf && echo x >"utf/café.txt" && echo y >"utf/Ωmega.TXT" && stamp utf
(cd utf && bsdtar -cf ../utf.tar . && bsdtar --format zip -cf ../utf.zip . && 7z a ../utf.7z . >/dev/null)
build utfdir utf
for a in utf.tar utf.zip utf.7z; do
    LC_ALL=C build utfa "$a"
    cmp -s utfdir.img utfa.img || fail "$a: names outside ASCII differ from the folder's"
done

# read back against the extracted archive (not the source folder)
for a in tar.zstd fmt.zip seven.7z flat.a; do
    rm -rf x && mkdir x && bsdtar -xf "$a" -C x || fail "bsdtar -xf $a"
    build rb "$a"
    check_fat rb.img 0 "$(stat -c %s rb.img)" x
done

# sparse entries keep their holes: the 8 MiB file costs the image (almost) nothing
build sp gnu.zip
[ "$(du -k sp.img | cut -f1)" -lt 2048 ] || fail "the sparse entry was written out: $(du -k sp.img)"

# strip and a tree below the root, against the same folder under /boot
mkdir -p pkg && cp -a src pkg/firmware-1.0 && stamp pkg
(cd pkg && bsdtar --zstd -cf ../pkg.tar.zst firmware-1.0)
build strip pkg.tar.zst fixed /boot 1
build bootdir src fixed /boot
cmp -s strip.img bootdir.img || fail "strip = 1 under /boot differs from the folder"
# strip = 2 drops a.txt: the hard link Sub/hard.txt still has its bytes, but the symbolic
# link Sub/sym.txt (to ../a.txt) now leaves the tree: an error naming it
printf 'image { table = none }\npartition p { type = fat tree "/" { from = "pkg.tar.zst" strip = 2 } }\n' >s2.layout
expect_status 1 "$SDIMG" build -o s2.img s2.layout
expect_stderr "pkg.tar.zst: firmware-1.0/Sub/sym.txt: a symbolic link to ../a.txt, outside the tree"
[ ! -e s2.img ] || fail "a failed build left s2.img"
rm pkg/firmware-1.0/Sub/sym.txt && (cd pkg && bsdtar --zstd -cf ../pkg2.tar.zst firmware-1.0)
build strip2 pkg2.tar.zst fixed /boot 2
mdir -i strip2.img ::/boot/deeper >/dev/null || fail "strip = 2 does not give /boot/deeper"
mdir -i strip2.img ::/boot/a.txt >/dev/null 2>&1 && fail "strip = 2 kept a.txt (one level up)"
[ "$(mtype -i strip2.img ::/boot/hard.txt)" = hello ] || fail "strip = 2: hard.txt lost a.txt's bytes"

# a strip that leaves nothing builds, with a warning
printf 'image { table = none }\npartition p { type = fat\n dir "/d" {}\n tree "/" { from = "pkg2.tar.zst" strip = 9 } }\n' >s9.layout
expect_status 0 "$SDIMG" build -q -o s9.img s9.layout
expect_stderr "pkg2.tar.zst: strip = 9 leaves nothing of its"

# mtime = source: each file's own time, from a tar that keeps times (as for folders)
touch -d @1500000000 src/a.txt src/Sub/hard.txt
touch -d @1400000000 src/Sub/deeper
touch -d @1300000000 src
(cd src && tar -cf ../times.tar .)
build tdir src source /t
build ttar times.tar source /t
cmp -s tdir.img ttar.img || fail "mtime = source: the tar's image differs from the folder's"
mdir -i ttar.img ::/t/a.txt | grep -q 2017-07-14 || fail "a.txt lost its time: $(mdir -i ttar.img ::/t)"

# a name given twice to GNU tar: the second entry is a hard link to itself, refused as the
# ext4 build refuses it (it was told as a loop of symbolic links)
mkdir -p twice/d && echo hello >twice/d/f && echo other >twice/d/g
(cd twice && tar -cf ../twice.tar d/f d/g d/f)
build_refused twice "'d/f' is a hard link to itself" <<'EOF'
image { size = 40M }
partition p { type = fat size = 32M tree "/" { from = "twice.tar" } }
EOF
echo "every format and filter: the folder's image, byte for byte"
