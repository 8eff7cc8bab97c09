# SPDX-License-Identifier: MIT
# include and exclude on an ext4 tree, from a folder and from the same tree as a tar: debugfs
# (rdump, stat, dump) reads back exactly the paths the patterns keep (names at any depth,
# paths from the top, a trailing '/' for folders, a folder that holds something kept with its
# own mode, folders left empty by exclude kept and by include dropped), symbolic links kept as
# links and judged by their own path, a hard link kept whose first name is left out still a
# file with its bytes; e2fsck -fn finds both volumes clean and they are the same bytes; a
# pattern that matches nothing is a warning naming the layout line, also for a folder an
# archive only implies; a newc cpio's file of two names keeps the bytes its last name carries.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck debugfs sfdisk jq tar sha256sum

mkdir -p src/etc/ssl/certs src/etc/empty src/usr/include/sys src/usr/lib/static \
    src/usr/share/doc src/opt/vendor/lib src/opt/vendor/share/deep
echo board >src/etc/hostname
echo cert >src/etc/ssl/certs/ca.pem
head -c 70000 /dev/urandom >src/etc/blob.a
ln src/etc/blob.a src/usr/lib/libblob.so
ln src/etc/blob.a src/usr/lib/libblob.so.1
echo '#pragma once' >src/usr/include/stdio.h
echo '#pragma once' >src/usr/include/sys/types.h
head -c 9000 /dev/urandom >src/usr/lib/libc.so.6
echo archive >src/usr/lib/libc.a
ln -s libc.so.6 src/usr/lib/libc.so
ln -s libc.a src/usr/lib/libold.so
echo archive >src/usr/lib/static/libm.a
echo doc >src/usr/share/doc/README
echo x >src/opt/vendor/lib/libx.so.1
echo data >src/opt/vendor/share/data.txt
echo deep >src/opt/vendor/share/deep/x.txt
echo top >src/top.txt
chmod 0700 src/opt/vendor
chmod 0750 src/etc/empty
tar --sort=name --owner=0 --group=0 --numeric-owner -C src -cf src.tar .

layout() { # layout NAME FROM KEYS: a layout with one ext4 partition whose tree has KEYS
    cat >"$1.layout" <<LAYOUT
image { table = gpt seed = "ext4-filters" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 16M
    tree "/" {
        from = "$2" $3 }
}
LAYOUT
}

# volume IMG: the ext4 volume of IMG's first partition into p.img, which e2fsck -fn finds clean
volume() { ext4_clean "$1" 1 p.img; }

# expect_paths IMG WANT WHAT: the paths of IMG's volume as debugfs writes them out (d folder,
# f file, l link; lost+found left out) are exactly WANT
expect_paths() {
    volume "$1"
    rm -rf dump && mkdir dump
    debugfs -R "rdump / dump" p.img >/dev/null 2>&1
    (cd dump && find . -mindepth 1 ! -path './lost+found*' -printf '%y %P\n' | LC_ALL=C sort) >got.txt
    printf '%s\n' "$2" | LC_ALL=C sort >want.txt
    diff want.txt got.txt >diff.txt || fail "$3: $(cat diff.txt)"
}

keys='include = "etc/, usr/, *.so*" exclude = "*.a, usr/include/, README"'
kept='d etc
d etc/empty
f etc/hostname
d etc/ssl
d etc/ssl/certs
f etc/ssl/certs/ca.pem
d opt
d opt/vendor
d opt/vendor/lib
f opt/vendor/lib/libx.so.1
d usr
d usr/lib
f usr/lib/libblob.so
f usr/lib/libblob.so.1
l usr/lib/libc.so
f usr/lib/libc.so.6
l usr/lib/libold.so
d usr/lib/static
d usr/share
d usr/share/doc'
layout dir src "$keys"
expect_status 0 "$SDIMG" build -q dir.layout -o dir.img
[ ! -s err.txt ] || fail "unexpected messages: $(cat err.txt)"
expect_paths dir.img "$kept" "the folder with include and exclude"
stat_of() { debugfs -R "stat $1" p.img 2>/dev/null; }
stat_of /opt/vendor | grep -q 'Mode:  0700' || fail "/opt/vendor, kept for what it holds, lost its mode"
stat_of /etc/empty | grep -q 'Mode:  0750' || fail "/etc/empty lost its mode"
stat_of /usr/lib/libblob.so | grep -q 'Links: 2' || fail "libblob.so and libblob.so.1 are not one inode"
debugfs -R 'dump /usr/lib/libblob.so blob.out' p.img >/dev/null 2>&1
cmp -s blob.out src/etc/blob.a || fail "libblob.so, whose first name is left out, lost its bytes"
stat_of /usr/lib/libold.so | grep -q 'Fast link dest: "libc.a"' ||
    fail "libold.so does not point at libc.a (left out: a link is not followed)"

# the same tree as a tar: the same volume, byte for byte
layout tar src.tar "$keys"
expect_status 0 "$SDIMG" build -q tar.layout -o tar.img
[ ! -s err.txt ] || fail "unexpected messages: $(cat err.txt)"
expect_paths tar.img "$kept" "the tar with include and exclude"
[ "$(sha256sum <dir.img)" = "$(sha256sum <tar.img)" ] || fail "the tar gives another image than its folder"
expect_status 0 "$SDIMG" build -q dir.layout -o again.img
cmp -s dir.img again.img || fail "two builds differ"

# exclude alone keeps every folder, even one it leaves empty: all the first layout kept, and more
layout ex src 'exclude = "*.a, opt/vendor/share/*, sys/"'
expect_status 0 "$SDIMG" build -q ex.layout -o ex.img
expect_paths ex.img "$kept
d opt/vendor/share
f top.txt
d usr/include
f usr/include/stdio.h
f usr/share/doc/README" "exclude alone"

# patterns that match nothing: one warning each with the layout line, from a folder and from
# an archive; a folder pattern that matches a folder an archive only implies (no entry of its
# own) matches
layout typo src 'include = "*.so, *.sp" exclude = "*.b"'
expect_status 0 "$SDIMG" build -q typo.layout -o typo.img
ext4_fsck typo.img 1
grep -qF "warning: typo.layout:3: partition 'rootfs': tree '/': include pattern '*.sp' matches nothing in src" err.txt ||
    fail "no warning for '*.sp': $(cat err.txt)"
grep -qF "warning: typo.layout:3: partition 'rootfs': tree '/': exclude pattern '*.b' matches nothing in src" err.txt ||
    fail "no warning for '*.b': $(cat err.txt)"
[ "$(wc -l <err.txt)" -eq 2 ] || fail "not two warnings: $(cat err.txt)"
(cd src && find . ! -type d | LC_ALL=C sort) >files.txt
tar --owner=0 --group=0 --numeric-owner -C src --no-recursion -cf files.tar -T files.txt
layout implied files.tar 'include = "ssl/, *.sp"'
sed -i 's/size = 16M/size = auto/' implied.layout # measured in trials: still one warning
expect_status 0 "$SDIMG" build -q implied.layout -o implied.img
expect_stderr "warning: implied.layout:3: partition 'rootfs': tree '/': include pattern '*.sp' matches nothing in files.tar"
expect_paths implied.img 'd etc
d etc/ssl
d etc/ssl/certs
f etc/ssl/certs/ca.pem' "an archive without folder entries, include = ssl/"

# a listed folder keeps its own owner and mode when what stays lies below a folder the
# archive only implies (a/ listed, a/b/ not, a/b/c kept)
mkdir -p own/a/b && echo c >own/a/b/c && echo o >own/a/o && chmod 0700 own/a
tar --owner=1000 --group=1000 --numeric-owner -C own --no-recursion -cf own.tar a a/o a/b/c
layout own own.tar 'include = "c"'
expect_status 0 "$SDIMG" build -q own.layout -o own.img
expect_paths own.img 'd a
d a/b
f a/b/c' "include = c below an implied folder"
stat_of /a | grep -q 'Mode:  0700' || fail "/a, kept for what lies below a/b, lost its mode: $(stat_of /a | grep Mode)"
stat_of /a | grep -q 'User:  1000' || fail "/a, kept for what lies below a/b, lost its owner"

# cpio's newc format gives a file of two names its bytes at the last name only: the name that
# stays has them, whichever is left out (the one the other links to, or the one with the bytes)
if command -v bsdtar >/dev/null; then
    mkdir -p pair && head -c 5000 /dev/urandom >pair/a && ln pair/a pair/b
    bsdtar --format newc -cf pair.cpio -C pair a b
    for keys in '' 'exclude = "a"' 'exclude = "b"'; do
        layout cpio pair.cpio "$keys"
        expect_status 0 "$SDIMG" build -q cpio.layout -o cpio.img
        volume cpio.img
        for name in a b; do
            case $keys in *\"$name\"*) continue ;; esac
            rm -f got.bin && debugfs -R "dump /$name got.bin" p.img >/dev/null 2>&1
            cmp -s got.bin pair/a || fail "/$name of a newc cpio with '$keys' lost its bytes"
        done
    done
fi
exit 0
