# SPDX-License-Identifier: MIT
# -I repeated: every relative `from` (raw regions, raw partitions, tree and file sources) is
# looked up in each -I folder in order, the first that holds it wins; an include in the
# including file's folder first, then in each -I folder. A `from` found nowhere is one
# line naming FILE:LINE, the path and every folder searched. Read back with mtools, cmp.
. "$TOP/tests/e2e-lib.sh"
need mtype mdir jq

M=1048576
mkdir -p layouts deploy machine/firmware/overlays
head -c 3000 /dev/urandom >machine/u-boot.bin
head -c $((2 * M)) /dev/urandom >deploy/rootfs.ext4
printf 'from deploy\n' >deploy/both.bin
printf 'from machine\n' >machine/both.bin
printf 'console=ttyS0\n' >deploy/cmdline.txt
printf 'dtb\n' >machine/firmware/board.dtb
printf 'overlay\n' >machine/firmware/overlays/x.dtbo
# an include found only in an -I folder, and one in both: the layout's folder wins
printf 'image { size = 64M seed = "inputs" }\n' >machine/common.layout
printf 'raw both { offset = 16K from = "both.bin" size = 4K }\n' >layouts/local.layout
printf 'raw both { offset = 16K from = "nothere.bin" size = 4K }\n' >machine/local.layout
cat >layouts/card.layout <<'LAYOUT'
include("common.layout")
include("local.layout")
raw spl { offset = 8K from = "u-boot.bin" }
partition boot {
    type = fat
    size = 16M
    tree "/" { from = "firmware" }
    file "/cmdline.txt" { from = "cmdline.txt" }
}
partition root { from = "rootfs.ext4" }
LAYOUT

# plan finds the include only with -I
expect_status 1 "$SDIMG" plan layouts/card.layout
expect_stderr "layouts/card.layout:1: include(\"common.layout\"): layouts/common.layout: No such file or directory"
expect_status 0 "$SDIMG" plan --json -I deploy -I machine layouts/card.layout
[ "$(jq -r .image.size out.txt)" -eq $((64 * M)) ] || fail "plan -I: the included image section"

expect_status 0 "$SDIMG" build -q -I deploy --input machine -o card.img layouts/card.layout
same_bytes card.img 8192 machine/u-boot.bin
same_bytes card.img 16384 deploy/both.bin
jq_start() { jq -r ".regions[] | select(.name == \"$1\") | .start" plan.json; }
"$SDIMG" plan --json -I deploy -I machine layouts/card.layout >plan.json
same_bytes card.img "$(jq_start root)" deploy/rootfs.ext4
boot=$(jq_start boot)
[ "$(mtype -i "card.img@@$boot" ::/cmdline.txt)" = console=ttyS0 ] || fail "cmdline.txt from deploy"
[ "$(mtype -i "card.img@@$boot" ::/board.dtb)" = dtb ] || fail "board.dtb from machine/firmware"
[ "$(mtype -i "card.img@@$boot" ::/overlays/x.dtbo)" = overlay ] || fail "overlays from machine/firmware"

# the order decides: machine first, and its both.bin wins
expect_status 0 "$SDIMG" build -q -I machine -I deploy -o card2.img layouts/card.layout
same_bytes card2.img 16384 machine/both.bin

# a `from` found in no folder: one line with the layout line, the path and the folders
cat >layouts/missing.layout <<'LAYOUT'
image { size = 64M }
raw spl { offset = 8K from = "u-boot.bin" }
raw env {
    offset = 16K from = "env.bin" size = 4K }
LAYOUT
expect_status 1 "$SDIMG" build -I deploy -I machine -o card3.img layouts/missing.layout
expect_stderr "layouts/missing.layout:3: raw 'env': env.bin: in none of the input folders: deploy, machine"
[ ! -e card3.img ] || fail "an image was left behind"
cat >layouts/missing.layout <<'LAYOUT'
image { size = 64M }
partition boot { type = fat size = 16M
    tree "/boot" { from = "firmwares" } }
LAYOUT
expect_status 1 "$SDIMG" build -I deploy -I machine -o card3.img layouts/missing.layout
expect_stderr "layouts/missing.layout:3: partition 'boot': tree '/boot': firmwares: in none of the input folders: deploy, machine"
cat >layouts/missing.layout <<'LAYOUT'
image { size = 64M }
partition root { size = 8M
    from = "root.img" }
LAYOUT
expect_status 1 "$SDIMG" build -I deploy -I machine -o card3.img layouts/missing.layout
expect_stderr "layouts/missing.layout:2: partition 'root': root.img: in none of the input folders: deploy, machine"
# an include found nowhere names every folder searched, the including file's first
printf 'image { size = 64M }\ninclude("board.layout")\n' >layouts/missing.layout
expect_status 1 "$SDIMG" plan -I deploy -I machine layouts/missing.layout
expect_stderr "layouts/missing.layout:2: include(\"board.layout\"): in none of the folders layouts, deploy, machine"

# an absolute `from` is taken as it is
printf 'image { size = 64M }\nraw spl { offset = 8K from = "%s/machine/u-boot.bin" }\n' "$PWD" >abs.layout
expect_status 0 "$SDIMG" build -q -I deploy -I layouts -o card4.img abs.layout
same_bytes card4.img 8192 machine/u-boot.bin
# an empty -I is a usage error
expect_status 2 "$SDIMG" build -I '' layouts/card.layout
