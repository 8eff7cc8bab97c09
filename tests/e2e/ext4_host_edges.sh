# SPDX-License-Identifier: MIT
# Edges of ext4 partitions from host sources: a file entry from a fifo is refused at once
# (it hung in open()), hard links join the names of one tree entry only (the same folder in
# two trees gave one inode of four names), and as another user than root the warnings say
# what happens: which part of the owners is made root's, and that trusted.* attributes
# cannot be read. A file too large for an ext4 file is refused at once; a low limit of open
# files builds the same volume.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck debugfs sfdisk jq mkfifo setpriv setfattr timeout

# a fifo as a file's source: one line naming the layout line and the source, at once
mkfifo ff.fifo
cat >fifo.layout <<'LAYOUT'
image { table = gpt }
partition r { type = ext4 size = 16M file "/x" { from = "ff.fifo" } }
LAYOUT
expect_status 1 timeout 20 "$SDIMG" build -q -o fifo.img fifo.layout # 124: it hangs
expect_stderr "fifo.layout:2: file '/x': ./ff.fifo: a fifo, not a regular file"
[ ! -e fifo.img ] || fail "fifo: an image was left behind"
build_refused zero "zero.layout:2: file '/x': /dev/zero: a device node, not a regular file" <<'LAYOUT'
image { table = gpt }
partition r { type = ext4 size = 16M file "/x" { from = "/dev/zero" } }
LAYOUT

# one host folder in two trees: two link groups, one per tree
mkdir -p hl/in
echo data >hl/in/a
ln hl/in/a hl/in/b
cat >hl.layout <<'LAYOUT'
image { table = gpt seed = "ext4" timestamp = 1700000000 }
partition r { type = ext4 size = 16M tree "/" { from = "hl/in" } tree "/sub" { from = "hl/in" } }
LAYOUT
expect_status 0 "$SDIMG" build hl.layout -o hl.img
ext4_clean hl.img 1 p.img
ino() { stat_of "$1" | sed -n 's/^Inode: *\([0-9]*\).*/\1/p'; }
[ "$(ino /a)" = "$(ino /b)" ] || fail "/a and /b are not one file"
[ "$(ino /sub/a)" = "$(ino /sub/b)" ] || fail "/sub/a and /sub/b are not one file"
[ "$(ino /a)" != "$(ino /sub/a)" ] || fail "/a and /sub/a are one file across two trees"
stat_of /a | grep -q 'Links: 2' || fail "/a has not 2 links: $(stat_of /a | grep Links)"
stat_of /sub/a | grep -q 'Links: 2' || fail "/sub/a has not 2 links"

# as another user: the owner set by the layout, only groups are made root's, and said so
mkdir -p own/d
printf x >own/f && printf y >own/d/g
chown -R 5:42 own && chmod -R a+rX own && chmod 777 .
cat >own.layout <<'LAYOUT'
image { table = gpt seed = "ext4" timestamp = 1700000000 }
partition r { type = ext4 size = 16M tree "/" { from = "own" owner = 5 } }
LAYOUT
setpriv --reuid=65533 --regid=65533 --clear-groups "$SDIMG" build own.layout -o own.img \
    >out.txt 2>err.txt || { cat err.txt >&2; fail "the build as another user failed"; }
expect_stderr "own.layout:2: tree '/': 4 entries of ./own belong to other groups than root's and yours: their group is made root's"
ext4_clean own.img 1 p.img
stat_of /d/g | grep -q 'User:     5   Group:     0' || fail "/d/g is not 5:0"

# and trusted.* cannot be read there: said once for a tree that has attributes
setfattr -n user.origin -v board own/f
setpriv --reuid=65533 --regid=65533 --clear-groups "$SDIMG" build own.layout -o own2.img \
    >out.txt 2>err.txt || { cat err.txt >&2; fail "the build as another user failed"; }
grep -qF "own.layout:2: tree '/': ./own has extended attributes, and its trusted.* ones, if any, cannot be read without CAP_SYS_ADMIN (root): they are not carried over" err.txt ||
    { cat err.txt >&2; fail "no warning that trusted.* attributes cannot be read"; }
[ "$(wc -l <err.txt)" -eq 2 ] || { cat err.txt >&2; fail "not two warnings"; }
expect_status 0 "$SDIMG" build own.layout -o own3.img
[ ! -s err.txt ] || { cat err.txt >&2; fail "as root, a warning"; }

# a file larger than an ext4 file of 1 KiB blocks can be (2^32 - 1 blocks: an extent's first
# block is 32 bits): refused at once, naming it, not read for minutes and then cut (where
# the host's file system holds so large a sparse file)
mkdir -p huge
if truncate -s $(((1 << 32) * 1024 - 1024 + 1)) huge/big 2>/dev/null; then
    build_refused huge "huge.layout:2: ./huge/big: 4398046510081 bytes, more than a file of an ext4 volume with 1024-byte blocks can hold (4398046510080)" <<'LAYOUT'
image { table = gpt }
partition r { type = ext4 size = 16M ext4 { block-size = 1024 } tree "/" { from = "huge" } }
LAYOUT
fi
rm -rf huge

# a low limit of open files (ulimit -n 20): the files read and not yet closed give way to
# the next, and the build is the one without the limit
mkdir -p many
i=0
while [ $i -lt 600 ]; do
    printf '%s\n' "$i" >many/f$i
    i=$((i + 1))
done
cat >many.layout <<'LAYOUT'
image { table = gpt seed = "ext4" timestamp = 1700000000 }
partition r { type = ext4 size = 16M tree "/" { from = "many" } }
LAYOUT
(ulimit -n 20 && exec "$SDIMG" build -q -o few.img many.layout) || fail "ulimit -n 20: the build failed"
"$SDIMG" build -q -o all.img many.layout || fail "many.layout: build failed"
cmp -s few.img all.img || fail "ulimit -n 20: another image"
