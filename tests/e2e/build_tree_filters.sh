# SPDX-License-Identifier: MIT
# tree filters: include and exclude patterns on folders and archives alike, read back with
# mtools (mdir, mtype). Patterns without '/' match base names at any depth, with '/' the
# path from the tree's top (after strip); a matching folder brings (include) or drops
# (exclude) everything in it; folders that hold nothing kept go unless included.
. "$TOP/tests/e2e-lib.sh"
need mdir mtype tar

mkdir -p fw/overlays fw/empty fw/deep/er fw/logs
echo dtb-a >fw/a.dtb
echo map >fw/b.map
echo dtbo >fw/overlays/x.dtbo
echo readme >fw/overlays/README
echo dtb-z >fw/deep/er/z.dtb
echo elf >fw/start4.elf
echo log >fw/logs/boot.map
echo cfg >config.txt

# fat_image NAME ENTRIES: NAME.img built from NAME.layout, a 64M image whose one 32M FAT
# partition holds ENTRIES (layout text: tree and file entries)
fat_image() {
    cat >"$1.layout" <<LAYOUT
image { size = 64M }
partition boot { type = fat size = 32M
    $2
}
LAYOUT
    expect_status 0 "$SDIMG" build -q -o "$1.img" "$1.layout"
}

# listing IMG: every path of the FAT volume at 4M, sorted
listing() { mdir -/ -b -i "$1@@4194304" ::/ | sed 's|^::||' | sort; }
expect_listing() {
    listing "$1" >got.txt
    printf '%s\n' "$2" | sort >want.txt
    diff want.txt got.txt >diff.txt || fail "$3: $(cat diff.txt)"
}

# Raspberry Pi style: only the device trees and the overlays folder; dropped folders stay out
fat_image rpi 'tree "/" { from = "fw" include = "*.dtb, overlays/" exclude = "README" }'
[ ! -s err.txt ] || fail "unexpected messages: $(cat err.txt)"
expect_listing rpi.img '/a.dtb
/deep/
/deep/er/
/deep/er/z.dtb
/overlays/
/overlays/x.dtbo' "include *.dtb and overlays/"
[ "$(mtype -i rpi.img@@4194304 ::/deep/er/z.dtb)" = dtb-z ] || fail "z.dtb's bytes"

# exclude alone: everything else, folders kept even when left empty; a path pattern
fat_image ex 'tree "/" { from = "fw" exclude = "*.map, deep/er/*.dtb" }'
expect_listing ex.img '/a.dtb
/deep/
/deep/er/
/empty/
/logs/
/overlays/
/overlays/README
/overlays/x.dtbo
/start4.elf' "exclude *.map and deep/er/*.dtb"

# the same tree from an archive, after strip: the same entries
tar -cf fw.tar fw
fat_image tar 'tree "/" { from = "fw.tar" strip = 1 include = "*.dtb, overlays/" exclude = "README" }'
listing rpi.img >rpi.txt
listing tar.img >tar.txt
diff rpi.txt tar.txt >diff.txt || fail "archive and folder differ: $(cat diff.txt)"

# a link in the archive whose target is left out is still a copy of it; an excluded
# folder takes what is inside it; a left-out entry never replaces an earlier one
mkdir -p arc/cfg
echo kernel-6.1 >arc/vmlinuz-6.1
ln -s vmlinuz-6.1 arc/vmlinuz
echo from-archive >arc/config.txt
echo secret >arc/cfg/key
tar -czf arc.tar.gz arc
fat_image arc 'file "/config.txt" { from = "config.txt" }
    tree "/" { from = "arc.tar.gz" strip = 1 exclude = "vmlinuz-*, config.txt, cfg" }'
expect_listing arc.img '/config.txt
/vmlinuz' "an archive with exclude"
[ "$(mtype -i arc.img@@4194304 ::/vmlinuz)" = kernel-6.1 ] || fail "the link's bytes"
[ "$(mtype -i arc.img@@4194304 ::/config.txt)" = cfg ] || fail "config.txt replaced by a left-out one"

# a tree under a folder: patterns count from the tree's top
fat_image sub 'tree "/fw" { from = "fw" include = "overlays/*.dtbo" }'
expect_listing sub.img '/fw/
/fw/overlays/
/fw/overlays/x.dtbo' "a path pattern under /fw"

# a pattern that matches nothing is a warning with the layout line (a typo, most likely)
fat_image typo 'tree "/" {
        from = "fw" include = "*.dtb, *.dbt" }'
expect_stderr "warning: typo.layout:3: partition 'boot': tree '/': include pattern '*.dbt' matches nothing in fw"

# an empty pattern is an error naming the key's line; filters are keys of tree only
printf 'image { size = 64M }\npartition boot { type = fat size = 32M\n tree "/" { from = "fw"\n include = "*.dtb,,x" } }\n' >bad.layout
expect_status 1 "$SDIMG" build -o bad.img bad.layout
expect_stderr "bad.layout:4: partition 'boot': tree '/': include: '*.dtb,,x' holds an empty pattern"
[ ! -e bad.img ] || fail "an image was left behind"
printf 'image { size = 64M }\npartition boot { type = fat size = 32M\n file "/a" { from = "config.txt"\n exclude = "x" } }\n' >bad.layout
expect_status 1 "$SDIMG" plan bad.layout
expect_stderr "bad.layout:4: unknown key 'exclude' in partition 'boot': file '/a'"
