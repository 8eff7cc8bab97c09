# SPDX-License-Identifier: MIT
# Where partitions go: an automatic start skips past the boot loaders at fixed offsets
# (Rockchip: idbloader at 32K, u-boot.itb at 8M), a partition's own align, and a GPT whose
# first usable LBA keeps a partitioning tool off the loader (i.MX8M: flash.bin at 33K),
# checked with sfdisk, sgdisk and the bytes of the image.
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk jq fsck.fat mcopy 7z cmp
M=1048576
K=1024

# region_json FILE NAME FIELD: a field of the region NAME in plan --json output FILE
region_json() {
    jq -r --arg n "$2" ".regions[] | select(.name == \$n) | .$3" "$1"
}

# --- an automatic start runs past a raw region it would overlap (was: "raw 'r' overlaps
# partition 'p'")
head -c 100000 /dev/urandom >small.bin
cat >rk.layout <<'LAYOUT'
image { table = mbr }
raw r { offset = 8M from = "small.bin" size = 30M }
partition p { size = 60M }
LAYOUT
expect_status 0 "$SDIMG" plan --json rk.layout
[ "$(region_json out.txt p start)" = $((40 * M)) ] || fail "plan: p starts at $(region_json out.txt p start), not 40M"
expect_status 0 "$SDIMG" build -q -o rk.img rk.layout
[ "$(part_start rk.img 1)" = $((40 * M)) ] || fail "sfdisk: p starts at $(part_start rk.img 1), not 40M"
[ "$(part_size rk.img 1)" = $((60 * M)) ] || fail "sfdisk: p size"
same_bytes rk.img $((8 * M)) small.bin

# Rock 4SE / RK3399 on GPT: idbloader.img at 32K (sector 64), u-boot.itb at 8M (sector
# 16384), then a FAT boot partition (size = auto) and the root file system
mkdir -p tree && head -c 3000000 /dev/urandom >tree/Image && printf 'label l\n' >tree/extlinux.conf
head -c 150000 /dev/urandom >idbloader.img
head -c 1100000 /dev/urandom >u-boot.itb
head -c 5000000 /dev/urandom >root.img
cat >rock.layout <<'LAYOUT'
image { table = gpt size = 64M }
raw idbloader { offset = 32K from = "idbloader.img" }
raw uboot { offset = 8M from = "u-boot.itb" size = 4M }
partition boot { type = fat tree "/" { from = "tree" } }
partition root { from = "root.img" size = grow }
LAYOUT
expect_status 0 "$SDIMG" build -v -o rock.img rock.layout
sgdisk -v rock.img >sgdisk.txt 2>&1 && grep -q "No problems found" sgdisk.txt || { cat sgdisk.txt; fail "sgdisk -v rock.img"; }
[ "$(part_start rock.img 1)" = $((12 * M)) ] || fail "boot starts at $(part_start rock.img 1), not after u-boot.itb (12M)"
rs=$(part_start rock.img 2)
[ "$rs" -ge $((12 * M + $(part_size rock.img 1))) ] && [ $((rs % (4 * M))) -eq 0 ] || fail "root at $rs"
same_bytes rock.img $((32 * K)) idbloader.img
same_bytes rock.img $((8 * M)) u-boot.itb
same_bytes rock.img "$rs" root.img
check_fat rock.img $((12 * M)) "$(part_size rock.img 1)" tree $((4 * M))
# the plan cannot know the boot start before its contents are measured ... (u-boot.itb lies
# ahead of where it would start, and its size decides whether it fits there)
expect_status 0 "$SDIMG" plan --json rock.layout
[ "$(region_json out.txt boot start)" = null ] || fail "plan: boot start should be pending"
[ "$(region_json out.txt uboot size)" = $((4 * M)) ] || fail "plan: uboot size"
[ "$(region_json out.txt idbloader size)" = 150000 ] || fail "plan: idbloader size from its file"

# a FAT volume too large for the gap before a loader moves past it; a small one stays
head -c $((5 * M)) /dev/urandom >tree/big.bin
expect_status 0 "$SDIMG" build -q -o rock2.img rock.layout
[ "$(part_start rock2.img 1)" = $((12 * M)) ] || fail "a 8M volume starts at $(part_start rock2.img 1)"
rm tree/big.bin
mkdir -p small && printf 'x\n' >small/a.txt
cat >gap.layout <<'LAYOUT'
image { table = gpt size = 64M }
raw uboot { offset = 16M from = "u-boot.itb" size = 4M }
partition boot { type = fat fat { cluster-size = 512 } tree "/" { from = "small" } }
LAYOUT
expect_status 0 "$SDIMG" build -q -o gap.img gap.layout
[ "$(part_start gap.img 1)" = $((4 * M)) ] || fail "a small volume before the loader starts at $(part_start gap.img 1)"
same_bytes gap.img $((16 * M)) u-boot.itb

# --- GPT: the first usable LBA lies past the boot loader (i.MX8M Mini: flash.bin at 33K),
# so that sgdisk -n 0:0:+1M on the card puts a new partition after it
head -c 1500000 /dev/urandom >flash.bin
cat >imx.layout <<'LAYOUT'
image { table = gpt size = 64M }
raw flash { offset = 33K from = "flash.bin" }
partition boot { start = 8M size = 16M type = fat }
LAYOUT
expect_status 0 "$SDIMG" build -q -o imx.img imx.layout
end=$((33 * K + 1500000))
first=$(((end + 511) / 512))
[ "$(le imx.img $((512 + 40)) 8)" -eq "$first" ] || fail "FirstUsableLBA $(le imx.img $((512 + 40)) 8), not $first"
[ "$(sfdisk --json imx.img | jq -r .partitiontable.firstlba)" -eq "$first" ] || fail "sfdisk first-lba"
sgdisk -v imx.img >sgdisk.txt 2>&1 && grep -q "No problems found" sgdisk.txt || { cat sgdisk.txt; fail "sgdisk -v imx.img"; }
cp imx.img added.img
sgdisk -n 0:0:+1M added.img >sgdisk.txt 2>&1 || { cat sgdisk.txt; fail "sgdisk -n"; }
new=$(sgdisk -i 2 added.img | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
[ -n "$new" ] && [ $((new * 512)) -ge "$end" ] || fail "sgdisk put the new partition at sector $new, on flash.bin (ends at byte $end)"
sgdisk -v added.img >sgdisk.txt 2>&1 && grep -q "No problems found" sgdisk.txt || { cat sgdisk.txt; fail "sgdisk -v added.img"; }
same_bytes added.img $((33 * K)) flash.bin
# the example card too: flash.bin fills 33K up to the first partition at 4M
sh "$TOP/examples/make-inputs.sh" imx8m in-imx8m
expect_status 0 "$SDIMG" build -q -I in-imx8m -o ex.img "$TOP/examples/imx8m/card.layout"
[ "$(le ex.img $((512 + 40)) 8)" -eq 8192 ] || fail "imx8m example: FirstUsableLBA $(le ex.img $((512 + 40)) 8)"
sgdisk -v ex.img >sgdisk.txt 2>&1 && grep -q "No problems found" sgdisk.txt || { cat sgdisk.txt; fail "sgdisk -v ex.img"; }
# an out-of-table partition before the first one counts too; a raw region after it does not
cat >oot.layout <<'LAYOUT'
image { table = gpt size = 64M }
partition uboot { start = 1M size = 3500K in-table = false }
partition boot { size = 8M }
raw late { offset = 40M from = "flash.bin" }
LAYOUT
expect_status 0 "$SDIMG" build -q -o oot.img oot.layout
[ "$(le oot.img $((512 + 40)) 8)" -eq $(((M + 3500 * K) / 512)) ] || fail "out-of-table: FirstUsableLBA $(le oot.img $((512 + 40)) 8)"
[ "$(part_start oot.img 1)" = $((8 * M)) ] || fail "boot after the out-of-table partition: $(part_start oot.img 1)"
sgdisk -v oot.img >sgdisk.txt 2>&1 && grep -q "No problems found" sgdisk.txt || { cat sgdisk.txt; fail "sgdisk -v oot.img"; }

# --- align in a partition: its own grid for its start, its auto size, its FAT data area
head -c 300000 /dev/urandom >env.bin
cat >align.layout <<'LAYOUT'
image { size = 64M }
partition boot { type = fat12 align = 1M tree "/" { from = "small" } }
partition env { from = "env.bin" align = 512K }
partition data { size = 8M }
LAYOUT
expect_status 0 "$SDIMG" build -q -o align.img align.layout
[ "$(part_start align.img 1)" = $((1 * M)) ] || fail "boot (align 1M) starts at $(part_start align.img 1)"
bz=$(part_size align.img 1)
[ $((bz % M)) -eq 0 ] && [ "$bz" -lt $((4 * M)) ] || fail "boot's auto size $bz is not a multiple of 1M below 4M"
[ "$(part_start align.img 2)" = $((M + bz)) ] || fail "env starts at $(part_start align.img 2)"
[ "$(part_size align.img 2)" = $((512 * K)) ] || fail "env's auto size $(part_size align.img 2), not 300000 rounded up to 512K"
[ "$(part_start align.img 3)" = $((4 * M)) ] || fail "data (the image's 4M align) starts at $(part_start align.img 3)"
check_fat align.img $M "$bz" small $M
same_bytes align.img "$(part_start align.img 2)" env.bin
sfdisk --verify align.img >verify.txt 2>&1 || { cat verify.txt; fail "sfdisk --verify align.img"; }
expect_status 0 "$SDIMG" plan --json align.layout
[ "$(region_json out.txt env size)" = $((512 * K)) ] || fail "plan: env size"
[ "$(region_json out.txt boot start)" = $M ] || fail "plan: boot start"
