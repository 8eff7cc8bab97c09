# SPDX-License-Identifier: MIT
# tree filters judge before the walk looks: on FAT, an entry that include or exclude leaves
# out is never followed nor checked, so an excluded dangling link, link loop, link out of the
# tree, fifo or device node does not stop the build; what stays is still checked as before,
# and the patterns count what they match as before (a pattern that matches nothing warns).
. "$TOP/tests/e2e-lib.sh"
need mdir mtype mkfifo tar

mkdir -p fw/sub fw/logs
echo kernel >fw/kernel.img
echo dtb >fw/sub/a.dtb
ln -s /nowhere/at/all fw/dangling.tmp
ln -s loop fw/loop
ln -s ../.. fw/sub/up
ln -s ../outside.txt fw/outside
echo out >outside.txt
mkfifo fw/logs/pipe
mkfifo fw/sub/pipe

from=fw
fat_layout() {
    cat >"$1.layout" <<LAYOUT
image { size = 64M }
partition boot { type = fat size = 32M
    tree "/" { from = "$from" $2 }
}
LAYOUT
}
listing() { mdir -/ -b -i "$1@@4194304" ::/ | sed 's|^::||' | sort; }

# exclude: the links and fifos it names are never looked at
fat_layout ex 'exclude = "*.tmp, loop, up, outside, logs/, pipe"'
expect_status 0 "$SDIMG" build -q -o ex.img ex.layout
[ ! -s err.txt ] || fail "unexpected messages: $(cat err.txt)"
listing ex.img >got.txt
printf '%s\n' /kernel.img /sub/ /sub/a.dtb | sort >want.txt
diff want.txt got.txt >diff.txt || fail "exclude: $(cat diff.txt)"

# include alone: a fifo it does not name is left out unchecked; a symbolic link it does
# not name may lead to a folder holding what it names, so it is followed and checked
fat_layout inc 'include = "*.dtb, kernel.img" exclude = "*.tmp, loop, up, outside"'
expect_status 0 "$SDIMG" build -q -o inc.img inc.layout
listing inc.img >got.txt
diff want.txt got.txt >diff.txt || fail "include: $(cat diff.txt)"
fat_layout inc2 'include = "*.dtb" exclude = "loop, up, outside, pipe"'
expect_status 1 "$SDIMG" build -q -o inc2.img inc2.layout
expect_stderr "inc2.layout:3: partition 'boot': tree '/': ./fw/dangling.tmp: dangling symbolic link"

# what stays is checked as before: a link that is not excluded, and a fifo
fat_layout kept 'exclude = "*.tmp, loop, up, outside"'
expect_status 1 "$SDIMG" build -q -o kept.img kept.layout
grep -qF "./fw/logs/pipe: a fifo cannot go on a FAT file system" err.txt ||
    fail "a kept fifo was not refused: $(cat err.txt)"
[ "$(wc -l <err.txt)" -eq 2 ] || fail "expected two refusals: $(cat err.txt)"

# the patterns count what they leave out unexamined: no warning for them, one for a typo
fat_layout typo 'exclude = "*.tmp, loop, up, outside, logs/, pipe, *.tpm"'
expect_status 0 "$SDIMG" build -q -o typo.img typo.layout
expect_stderr "warning: typo.layout:3: partition 'boot': tree '/': exclude pattern '*.tpm' matches nothing in fw"
# a folder that exclude matches is never opened: one that cannot be read, and one deeper
# than any partition may hold, left out by exclude, do not stop the build
mkdir -p fw/locked && echo secret >fw/locked/key && chmod 000 fw/locked
deep=fw/cache
for i in $(seq 1 70); do deep=$deep/d; done
mkdir -p "$deep" && echo x >"$deep/f"
fat_layout pruned 'exclude = "*.tmp, loop, up, outside, logs/, pipe, locked, cache"'
expect_status 0 "$SDIMG" build -q -o pruned.img pruned.layout
[ ! -s err.txt ] || fail "an excluded folder was opened: $(cat err.txt)"
listing pruned.img >got.txt
diff want.txt got.txt >diff.txt || fail "pruned: $(cat diff.txt)"
chmod 755 fw/locked
# with links = follow too, a link exclude names is never walked (this one leads out of the
# tree to a fifo FAT would refuse), and an excluded device node is never checked
mkdir -p elsewhere && mkfifo elsewhere/fifo && ln -s ../elsewhere fw/etc
mknod fw/null c 1 3 2>/dev/null || echo "(not root: no device node to leave out)"
fat_layout follow 'links = follow exclude = "*.tmp, loop, up, outside, logs/, pipe, locked, cache, etc, null"'
expect_status 0 "$SDIMG" build -q -o follow.img follow.layout
[ ! -s err.txt ] || fail "an excluded link or device was examined: $(cat err.txt)"
listing follow.img >got.txt
diff want.txt got.txt >diff.txt || fail "links = follow: $(cat diff.txt)"
fat_layout walked 'links = follow exclude = "*.tmp, loop, up, outside, logs/, pipe, locked, cache, null"'
expect_status 1 "$SDIMG" build -q -o walked.img walked.layout
expect_stderr "./fw/etc/fifo: a fifo cannot go on a FAT file system"

# an archive is judged as a folder: what exclude drops (by its own path or a folder above)
# and a file or device include does not take are never examined (a link out of the tree or
# in a loop, a device node, a path too deep for any partition, two names FAT sees as equal);
# a hard or symbolic link that stays still takes the bytes of a file, or is a copy of a
# folder, the filter dropped (as a folder's walk follows a link into what it leaves out)
mkdir -p arc/sub arc/skip
echo kernel >arc/kernel.img
echo dtb >arc/sub/a.dtb
echo hidden >arc/hidden.bin
ln arc/hidden.bin arc/hard
ln -s hidden.bin arc/soft
mkdir arc/fw && echo fw >arc/fw/x && ln -s fw arc/fwl
ln -s /etc/passwd arc/localtime
ln -s loop arc/skip/loop
echo a >arc/skip/README && echo b >arc/skip/readme
deep=arc/skip
for i in $(seq 1 70); do deep=$deep/d; done
mkdir -p "$deep" && echo x >"$deep/f"
mknod arc/null c 1 3 2>/dev/null || mkfifo arc/null
tar -C arc -cf arc.tar hidden.bin hard soft fw fwl kernel.img sub localtime skip null
from=arc.tar
fat_layout arcex 'exclude = "hidden.bin, fw, localtime, skip, null"'
expect_status 0 "$SDIMG" build -q -o arcex.img arcex.layout
[ ! -s err.txt ] || fail "an excluded archive entry was examined: $(cat err.txt)"
listing arcex.img >got.txt
printf '%s\n' /fwl/ /fwl/x /hard /kernel.img /soft /sub/ /sub/a.dtb | sort >want.txt
diff want.txt got.txt >diff.txt || fail "archive exclude: $(cat diff.txt)"
for f in hard soft; do
    [ "$(mtype -i arcex.img@@4194304 ::/$f)" = hidden ] || fail "$f lost the bytes of hidden.bin"
done
fat_layout arcinc 'include = "kernel.img, sub/, *.tpm" exclude = "localtime, skip/"'
expect_status 0 "$SDIMG" build -q -o arcinc.img arcinc.layout
expect_stderr "warning: arcinc.layout:3: partition 'boot': tree '/': include pattern '*.tpm' matches nothing in arc.tar"
listing arcinc.img >got.txt
printf '%s\n' /kernel.img /sub/ /sub/a.dtb | sort >want.txt
diff want.txt got.txt >diff.txt || fail "archive include: $(cat diff.txt)"
exit 0
