# SPDX-License-Identifier: MIT
# a leading '/' anchors an include or exclude pattern at the tree's top: "/*.dtb" takes the
# device trees of the top folder, not those below it, "/boot" the top's boot folder and not
# a deeper one; a pattern without '/' still matches a name at any depth. The same on FAT and
# ext4, from a folder and from its archive alike.
. "$TOP/tests/e2e-lib.sh"
need tar

mkdir -p src/sub/boot src/boot
echo a >src/a.dtb
echo b >src/sub/b.dtb
echo k >src/boot/kernel
echo n >src/sub/boot/not
echo r >src/readme
tar --sort=name -C src -cf src.tar .

cat >t.layout <<'LAYOUT'
image { size = 64M }
partition boot { type = fat size = 16M
    tree "/dir" { from = "src" include = "/*.dtb, /boot" }
    tree "/tar" { from = "src.tar" include = "/*.dtb, /boot" }
    tree "/ex" { from = "src" exclude = "/*.dtb, /boot" }
    tree "/any" { from = "src" include = "*.dtb" }
}
partition root { type = ext4 size = 8M
    tree "/dir" { from = "src" include = "/*.dtb, /boot" }
    tree "/tar" { from = "src.tar" include = "/*.dtb, /boot" }
    tree "/ex" { from = "src" exclude = "/*.dtb, /boot" }
    tree "/any" { from = "src" include = "*.dtb" }
}
LAYOUT
expect_status 0 "$SDIMG" build -q -o t.img t.layout
[ ! -s err.txt ] || fail "unexpected messages: $(cat err.txt)"
for part in 1 2; do
    for top in dir tar; do
        expect_status 0 "$SDIMG" ls -R "t.img:$part/$top"
        printf '%s\n' a.dtb boot/ '' "/$top/boot:" kernel >want.txt
        diff want.txt out.txt >diff.txt || fail "partition $part, /$top: $(cat diff.txt)"
    done
    expect_status 0 "$SDIMG" ls -R "t.img:$part/ex"
    printf '%s\n' readme sub/ '' /ex/sub: b.dtb boot/ '' /ex/sub/boot: not >want.txt
    diff want.txt out.txt >diff.txt || fail "partition $part, /ex: $(cat diff.txt)"
    expect_status 0 "$SDIMG" ls -R "t.img:$part/any"
    printf '%s\n' a.dtb sub/ '' /any/sub: b.dtb >want.txt
    diff want.txt out.txt >diff.txt || fail "partition $part, /any: $(cat diff.txt)"
done
exit 0
