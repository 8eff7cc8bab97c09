# SPDX-License-Identifier: MIT
# Symbolic links in a FAT tree's host folder. `links = inside`, the default whoever builds,
# follows the links that lead inside the tree (relative, absolute, through "..", chains,
# folders) and refuses, naming the link and its target, those that lead out of it (a link to a
# file only root reads used to be copied into the image when root built it); `links = follow`
# takes every link that resolves; `links = refuse` takes none, from folders and archives
# alike. ext4 keeps links as links: `links` there is an error.
. "$TOP/tests/e2e-lib.sh"
export LC_ALL=C.UTF-8

work=$PWD
# fat_layout NAME FROM KEYS: NAME.layout, one FAT partition whose tree comes from FROM
fat_layout() {
    printf 'image { table = none }\npartition p { type = fat tree "/" { from = "%s" %s } }\n' \
        "$2" "$3" >"$1.layout"
}
# holds IMG PATH TEXT: the file PATH of IMG holds the line TEXT
holds() {
    got=$("$SDIMG" cat "$1:$2") || fail "$1: no $2"
    [ "$got" = "$3" ] || fail "$1: $2 holds '$got', not '$3'"
}
# refused NAME FROM KEYS TEXT: the tree FROM with KEYS does not build, one line holding TEXT
refused() {
    fat_layout "$1.text" "$2" "$3"
    build_refused "$1" "$4" <"$1.text.layout"
}

echo secret >secret && chmod 600 secret # only root reads it
mkdir -p outdir && echo od >outdir/o

# links that leave the tree: refused by default (the build runs as root in CI), naming the
# link and what it names; the image is not written
outside="outside the tree"
mkdir o1 && ln -s "$work/secret" o1/key
refused o1 o1 '' "./o1/key: a symbolic link to $work/secret, $outside ./o1 (links = inside, the default"

# links that stay inside, however they get there
mkdir -p t/sub/deep && echo in >t/f && echo deep >t/sub/deep/g
ln -s ../f t/sub/rel                # relative
ln -s "$work/t/f" t/abs             # absolute
ln -s sub/../f t/dots               # through ".." of a real folder
ln -s ../t/f t/back                 # out of the tree and back in by name
ln -s c1 t/c0 && ln -s c2 t/c1 && ln -s sub/rel t/c2 # a chain, through a link in a folder
ln -s sub t/dirlink                 # a folder
ln -s dirlink/deep/../deep/g t/through # through the link to a folder, and ".." after it
ln -s "$work/tlink/f" t/viatop      # through a link to the tree's own folder
ln -s t tlink
for keys in '' 'links = inside'; do
    fat_layout in t "$keys"
    expect_status 0 "$SDIMG" build -q -o in.img in.layout
    for p in f sub/rel abs dots back c0 c1 c2 viatop; do holds in.img "/$p" in; done
    holds in.img /dirlink/deep/g deep
    holds in.img /through deep
    rm in.img
done
# the tree given through a link: inside is where the link leads
fat_layout top tlink ''
expect_status 0 "$SDIMG" build -q -o top.img top.layout
holds top.img /viatop in

# more links that leave, each way they can
refused o1i o1 'links = inside' "./o1/key: a symbolic link to $work/secret, $outside ./o1"
mkdir -p o2/sub && ln -s ../../secret o2/sub/key
refused o2 o2 '' "./o2/sub/key: a symbolic link to ../../secret, $outside ./o2"
mkdir o3 && ln -s ../o3/../secret o3/zz
refused o3 o3 '' "./o3/zz: a symbolic link to ../o3/../secret, $outside ./o3"
# a chain whose second link leaves: both are refused
mkdir o4 && ln -s key2 o4/key && ln -s ../secret o4/key2
fat_layout o4 o4 ''
expect_status 1 "$SDIMG" build -q -o o4.img o4.layout
grep -qF "./o4/key: a symbolic link to key2, $outside ./o4" err.txt || fail "a chain that leaves: $(cat err.txt)"
grep -qF "./o4/key2: a symbolic link to ../secret, $outside ./o4" err.txt || fail "$(cat err.txt)"
[ ! -e o4.img ] || fail "o4: an image was left behind"
mkdir o5 && ln -s ../outdir o5/d
refused o5 o5 '' "./o5/d: a symbolic link to ../outdir, $outside ./o5"
mkdir o6 && ln -s / o6/root
refused o6 o6 '' "./o6/root: a symbolic link to /, $outside ./o6"
# one dangling link that 85 paths of folder links reach is one mistake: one line
mkdir -p b3/d0 && ln -s nothere b3/d0/r
for i in 1 2 3; do
    mkdir b3/d$i
    for j in a b c d; do ln -s ../d$((i - 1)) b3/d$i/$j; done
done
refused b3 b3 '' "./b3/d0/r: dangling symbolic link (and 84 more paths to it through folder links)"
# the bound on copies (4 times the tree's own entries, plus 10,000) is judged on the whole
# tree, whatever the links' names: a link to a folder of 10,500 files is one copy of it
# whether it is listed before the folder or after it; six such links are too many
mkdir -p lt/z && (cd lt/z && seq 1 10500 | xargs touch) && ln -s z lt/a
fat_layout lt lt ''
expect_status 0 "$SDIMG" build -q -o lt.img lt.layout
mv lt/a lt/zz && expect_status 0 "$SDIMG" build -q -o lt.img lt.layout && rm lt.img
for l in l1 l2 l3 l4 l5; do ln -s z lt/$l; done
refused lt6 lt '' "./lt: its symbolic links copy more than 52028 entries (4 times the 10507 it holds, plus 10000)"
rm -r lt
# a link out of the tree to a device: where it leads is the fault, not what it is
mkdir o7 && ln -s /dev/null o7/null
refused o7 o7 '' "./o7/null: a symbolic link to /dev/null, $outside ./o7"
refused o7f o7 'links = follow' "./o7/null: a device node cannot go on a FAT file system"

# the same default for an ordinary user: a file they may read is still outside the tree
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 755 "$work" && mkdir pub && chmod 777 pub && echo public >pub.txt
mkdir pub/t && ln -s ../../pub.txt pub/t/p && fat_layout pub/u t ''
if [ "$(id -u)" -ne 0 ]; then
    as_nobody() { "$@"; }
elif ! command -v setpriv >/dev/null || ! as_nobody test -x "$SDIMG" -a -r pub.txt; then
    as_nobody() { echo "(setpriv is missing, or nobody cannot run $SDIMG: tried as root)"; "$@"; }
fi
(cd pub && expect_status 1 as_nobody "$SDIMG" build -q -o u.img u.layout &&
    expect_stderr "./t/p: a symbolic link to ../../pub.txt, $outside ./t")
[ ! -e pub/u.img ] || fail "as nobody: an image was left behind"

# links = follow: every link that resolves is a copy of what it names (what root can read)
fat_layout f1 o1 'links = follow'
expect_status 0 "$SDIMG" build -q -o f1.img f1.layout
holds f1.img /key secret
fat_layout f5 o5 'links = follow'
expect_status 0 "$SDIMG" build -q -o f5.img f5.layout
holds f5.img /d/o od

# dangling links and loops are errors whatever `links` says
mkdir d1 && ln -s nowhere d1/gone
for keys in '' 'links = follow'; do
    refused d1 d1 "$keys" "./d1/gone: dangling symbolic link"
done
mkdir l1 && ln -s b l1/a && ln -s a l1/b
fat_layout l1 l1 ''
expect_status 1 "$SDIMG" build -q -o l1.img l1.layout
grep -qF "./l1/a: Too many levels of symbolic links" err.txt || fail "a loop of links: $(cat err.txt)"
mkdir -p l2/sub && ln -s .. l2/sub/up
refused l2 l2 '' "./l2/sub/up: symbolic link loop (it leads back to a folder that contains it)"

# links = refuse: any link is an error, in a folder or an archive; a tree without links builds
refused r1 t/sub 'links = refuse' "./t/sub/rel: a symbolic link (to ../f), and links = refuse takes none"
mkdir plain && echo p >plain/p
fat_layout r2 plain 'links = refuse'
expect_status 0 "$SDIMG" build -q -o r2.img r2.layout
(cd t/sub && tar -cf "$work/sub.tar" rel deep)
refused r3 sub.tar 'links = refuse' "./sub.tar: rel: a symbolic link (to ../f), and links = refuse takes none"
(cd t && tar -cf "$work/in.tar" f sub)
fat_layout r4 in.tar ''
expect_status 0 "$SDIMG" build -q -o r4.img r4.layout
holds r4.img /sub/rel in

# ext4 keeps links as links and follows none: the key would mean nothing there
build_refused e1 "links: an ext4 partition keeps symbolic links as links and follows none" <<EOF
image { table = none }
partition p { type = ext4 size = 8M tree "/" { from = "t" links = inside } }
EOF
build_refused e2 "links: 'copy' is not one of inside, follow or refuse" <<EOF
image { table = none }
partition p { type = fat tree "/" { from = "t" links = copy } }
EOF
echo "links: inside, outside, chains, folders, dangling and loops as documented"
