#!/bin/sh
# SPDX-License-Identifier: MIT
# The FAT type and cluster size `type = fat` picks, read back by mtools (minfo) and checked by
# fsck.fat: FAT16 for small partitions (not the SD table's FAT12), FAT32 first for an EFI
# system partition, FAT12 only when asked or below FAT16's minimum, the SD layout with
# sd-format, the count deciding with a cluster-size set by hand; the root directory sized to
# its files; errors that name the real limit; a warning for an mbr-type that names another
# FAT type than the volume has.
. "$TOP/tests/e2e-lib.sh"
need minfo mdir fsck.fat sfdisk jq

M=1048576
mkdir -p tree
printf 'boot\n' >tree/boot.scr
printf 'kernel\n' >tree/Image

# vol IMG N: partition N of IMG into vol.img
vol() {
    dd if="$1" of=vol.img bs=1M iflag=skip_bytes,count_bytes skip=$(part_start "$1" "$2") \
        count=$(part_size "$1" "$2") status=none
}
# expect_fat IMG N FATBITS SECTORS_PER_CLUSTER [MBR_TYPE]: what mtools reads and fsck.fat says
expect_fat() {
    vol "$1" "$2"
    fsck_clean vol.img
    minfo -i vol.img :: >minfo.txt || fail "minfo $1 partition $2"
    grep -q "disk type=\"FAT$3 " minfo.txt ||
        fail "$1 partition $2: $(grep 'disk type' minfo.txt), expected FAT$3"
    grep -q "^cluster size: $4 sectors" minfo.txt ||
        fail "$1 partition $2: $(grep 'cluster size' minfo.txt), expected $4 sectors"
    if [ -n "${5:-}" ]; then
        t=$(part_json "$1" "$2" type)
        [ "$t" = "$5" ] || fail "$1 partition $2: MBR type $t, expected $5"
    fi
    echo "$1 partition $2: FAT$3, $4 sectors per cluster ${5:-}"
}

# small boot partitions: FAT16, the largest cluster size at or below the SD table's (16K)
# that gives FAT16 a safe count (the data area starts 4M into each: data-align = align)
cat >small.layout <<'LAYOUT'
image { size = 256M seed = "defaults" }
partition p8  { type = fat size = 8M  tree "/" { from = "tree" } }
partition p32 { type = fat size = 32M tree "/" { from = "tree" } }
partition p64 { type = fat size = 64M tree "/" { from = "tree" } }
partition p12 { type = fat12 size = 64M tree "/" { from = "tree" } }
LAYOUT
expect_status 0 "$SDIMG" build -q -o small.img small.layout
expect_fat small.img 1 16 1 e
expect_fat small.img 2 16 8 e
expect_fat small.img 3 16 16 e
expect_fat small.img 4 12 32 1
mtools_same "small.img@@$(part_start small.img 3)" tree

# below FAT16's minimum (about 2 MiB) only FAT12 exists
printf 'image { align = 512 }\npartition tiny { type = fat size = 1M fat { data-align = 512 } }\n' >tiny.layout
expect_status 0 "$SDIMG" build -q -o tiny.img tiny.layout
expect_fat tiny.img 1 12 16 1

# sd-format keeps the SD Association's layout exactly: FAT12 with 16K clusters on 32 MiB
printf 'image { size = 32M }\npartition card { type = fat size = grow fat { sd-format = true } }\n' >sd.layout
expect_status 0 "$SDIMG" build -q -o sd.img sd.layout
expect_fat sd.img 1 12 32 1

# cluster-size by hand: the count decides the type (16K on 16M: FAT12; 512 on 64M: FAT32)
printf 'image { size = 128M }\npartition a { type = fat size = 16M fat { cluster-size = 16K } }\npartition b { type = fat size = 64M fat { cluster-size = 512 } }\n' >cs.layout
expect_status 0 "$SDIMG" build -q -o cs.img cs.layout
expect_fat cs.img 1 12 32 1
expect_fat cs.img 2 32 1 c

# an EFI system partition: FAT32 where it can exist (gpt-type = esp or mbr-type = 0xef),
# else FAT16; size = auto gives the smallest FAT32 (about 33 MiB, rounded up to align)
cat >esp.layout <<'LAYOUT'
image { table = gpt size = 256M seed = "esp" }
partition esp { type = fat size = 64M gpt-type = esp tree "/" { from = "tree" } }
partition small { type = fat size = 16M gpt-type = esp }
partition auto { type = fat gpt-type = esp tree "/" { from = "tree" } }
partition data { type = fat size = 64M }
LAYOUT
expect_status 0 "$SDIMG" build -q -o esp.img esp.layout
expect_fat esp.img 1 32 1
expect_fat esp.img 2 16 4
expect_fat esp.img 3 32 1
[ "$(part_size esp.img 3)" -eq $((40 * M)) ] || fail "auto ESP: $(part_size esp.img 3) bytes, expected 40M"
expect_fat esp.img 4 16 16
printf 'image { size = 128M }\npartition esp { type = fat size = 64M mbr-type = 0xef }\n' >efmbr.layout
expect_status 0 "$SDIMG" build -q -o efmbr.img efmbr.layout
expect_fat efmbr.img 1 32 1 ef

# a FAT16 root directory with 280 long names (4 entries each): sized to 1120 entries
mkdir -p many
i=0
while [ $i -lt 280 ]; do
    printf 'y' >"many/a rather long file name number $((1000 + i)).txt"
    i=$((i + 1))
done
printf 'image { size = 128M }\npartition boot { type = fat16 size = 64M tree "/" { from = "many" } }\n' >root.layout
expect_status 0 "$SDIMG" build -q -o root.img root.layout
vol root.img 1
fsck_clean vol.img
minfo -i vol.img :: | grep -q "max available root directory slots: 1120" || fail "root: $(minfo -i vol.img :: | grep root)"
[ "$(mdir -b -i vol.img ::/ | wc -l)" -eq 280 ] || fail "root: $(mdir -b -i vol.img ::/ | wc -l) files"
echo "280 long names in a FAT16 root: 1120 entries"
# root-entries by hand below that: the entries needed (was: "no FAT volume up to 2T ...")
printf 'partition boot { type = fat16\n fat { root-entries = 512 }\n tree "/" { from = "many" } }\n' |
    build_refused root512 "root512.layout:1: partition 'boot': the root directory needs 1120 entries (a long name takes one more for each 13 characters) but root-entries is 512; raise it to 1120 or leave it unset"
# the same with type = fat on 64M: the root is the cause, not FAT32 (where root-entries has
# no meaning)
printf 'partition boot { type = fat size = 64M\n fat { root-entries = 512 }\n tree "/" { from = "many" } }\n' |
    build_refused rootfat "rootfat.layout:1: partition 'boot': the root directory needs 1120 entries"

# errors name the real limit
printf 'x' >one
# 64M data-align: more than 65535 reserved sectors (was: "its contents need (with these FAT
# settings) 384.09 GiB"); set by hand it stays an error; a fixed size takes the largest
# alignment that works, with a note, and so does size = auto (was: an error), by the same rule
printf 'image { align = 64M }\npartition boot { type = fat size = 128M file "/a" { from = "one" } fat { data-align = 64M } }\n' |
    build_refused a64 "a64.layout:2: partition 'boot': data-align 64M would need 130992 reserved sectors before the data area, more than the 65535 a FAT boot sector counts; use data-align = 32M or less"
sed 's/ size = 128M//; s/ fat { data-align = 64M }//' a64.layout >a64auto.layout
expect_status 0 "$SDIMG" build -o a64auto.img a64auto.layout
expect_stderr "its data area starts on a multiple of 32M instead"
expect_status 0 "$SDIMG" inspect --json a64auto.img
jq -e '.partitions[0].fat.data_offset % 33554432 == 0' out.txt >/dev/null ||
    fail "a64auto: data area off 32M: $(jq -c '.partitions[0]' out.txt)"
rm -f a64auto.img
sed 's/ fat { data-align = 64M }//' a64.layout >a64fixed.layout
expect_status 0 "$SDIMG" build -o a64fixed.img a64fixed.layout
expect_stderr "its data area starts on a multiple of 32M instead"
# an empty 4M FAT: the padding to 4M fills it (was: "contents need 4.00 MiB, the partition
# has 4 MiB"); with data-align set, both ways out work; without, the alignment is lowered
printf 'partition boot { type = fat size = 4M fat { data-align = 4M } }\n' |
    build_refused e4 "e4.layout:1: partition 'boot': data-align 4M pads the reserved sectors to 8156, which leaves no room for clusters in this 4M volume; size = 5M or more works, or data-align = 2M or less"
printf 'partition boot { type = fat size = 4M }\n' >e4low.layout
expect_status 0 "$SDIMG" build -o e4low.img e4low.layout
expect_stderr "its data area starts on a multiple of 2M instead"
printf 'partition boot { type = fat size = 5M }\n' >e5.layout
expect_status 0 "$SDIMG" build -q -o e5.img e5.layout
printf 'partition boot { type = fat size = 4M fat { data-align = 2M } }\n' >e4a.layout
expect_status 0 "$SDIMG" build -q -o e4a.img e4a.layout
# FAT32 on 256M with 4K clusters: too few clusters (was: "contents need 260.02 MiB")
printf 'image { size = 512M }\npartition boot { type = fat32 size = 256M fat { cluster-size = 4K } }\n' |
    build_refused f32 "f32.layout:2: partition 'boot': FAT32 needs at least 65541 clusters (65525 and a margin of 16); 256M with cluster-size 4K gives 64512; use cluster-size = 2K or less, or a larger volume (size = 261M or more works)"
sed 's/cluster-size = 4K/cluster-size = 2K/' f32.layout >f32a.layout
expect_status 0 "$SDIMG" build -q -o f32a.img f32a.layout
sed 's/size = 256M/size = 261M/' f32.layout >f32b.layout
expect_status 0 "$SDIMG" build -q -o f32b.img f32b.layout
expect_fat f32b.img 1 32 8 c
# too many clusters for a forced type
printf 'image { size = 128M }\npartition boot { type = fat16 size = 64M fat { cluster-size = 512 } }\n' |
    build_refused f16 "f16.layout:2: partition 'boot': FAT16 holds at most 65509 clusters (65525 less a margin of 16); 64M with cluster-size 512 gives"
grep -qF "use cluster-size = 1K or more, or size = 35M or less" err.txt || fail "f16: $(cat err.txt)"

# mbr-type that names another FAT type than the volume has: one warning naming the key's
# line; 0x0c on a FAT16 that sdimg chose (type = fat: every genimage boot partition says
# 0x0c) only a note, on a FAT16 asked for (type = fat16) a warning
cat >mbr.layout <<'LAYOUT'
image { size = 256M }
partition a { type = fat size = 16M
    mbr-type = 0x0c }
partition b { type = fat32 size = 64M fat { cluster-size = 512 }
    mbr-type = 0x0e }
partition c { type = fat12 size = 8M
    mbr-type = 0x0c }
partition d { type = fat16 size = 16M
    mbr-type = 0x01 }
partition e { type = fat16 size = 16M
    mbr-type = 0x0c }
LAYOUT
expect_status 0 "$SDIMG" build -o mbr.img mbr.layout
[ "$(wc -l <err.txt)" -eq 5 ] || fail "mbr-type warnings: $(cat err.txt)"
[ "$(grep -c ': warning: ' err.txt)" -eq 4 ] || fail "mbr-type warnings: $(cat err.txt)"
grep -qF "note: mbr.layout:3: partition 'a': mbr-type 0x0c says FAT32, but the volume sdimg chose is FAT16, whose type byte is 0x0e; the byte is written as given" err.txt || fail "mbr-type a: $(cat err.txt)"
grep -qF "warning: mbr.layout:11: partition 'e': mbr-type 0x0c says FAT32, but the volume is FAT16, whose type byte is 0x0e" err.txt || fail "mbr-type e: $(cat err.txt)"
grep -qF "warning: mbr.layout:5: partition 'b': mbr-type 0x0e says FAT16, but the volume is FAT32, whose type byte is 0x0c" err.txt || fail "mbr-type b: $(cat err.txt)"
grep -qF "warning: mbr.layout:7: partition 'c': mbr-type 0x0c says FAT32, but the volume is FAT12, whose type byte is 0x01" err.txt || fail "mbr-type c: $(cat err.txt)"
grep -qF "warning: mbr.layout:9: partition 'd': mbr-type 0x01 says FAT12, but the volume is FAT16, whose type byte is 0x0e" err.txt || fail "mbr-type d: $(cat err.txt)"
[ "$(part_json mbr.img 1 type)" = c ] || fail "mbr-type a was not written as given"
# bytes that agree, or say nothing of the FAT type: no warning
cat >mbrok.layout <<'LAYOUT'
image { size = 256M }
partition a { type = fat size = 16M mbr-type = 0x06 }
partition b { type = fat32 size = 64M fat { cluster-size = 512 } mbr-type = 0x1c }
partition c { type = fat size = 8M mbr-type = 0xef }
partition d { type = fat16 size = 16M mbr-type = 0xda }
LAYOUT
expect_status 0 "$SDIMG" build -q -o mbrok.img mbrok.layout
[ ! -s err.txt ] || fail "mbr-type that agrees: $(cat err.txt)"
echo "mbr-type: warnings where the byte names another FAT type"
