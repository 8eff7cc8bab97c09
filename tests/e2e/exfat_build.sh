#!/bin/sh
# SPDX-License-Identifier: MIT
# e2e-long: many exFAT volumes built and read back by fsck.exfat, exfat-fuse and dump.exfat
# exFAT partitions (type = exfat) built from a host tree with include/exclude, an archive (a tar
# in no sorted order), file and dir entries, an overlay and `first`, read back by other people's
# exFAT code: fsck.exfat -n clean, exfat-fuse (through a read-only loop device) gives back
# exactly the expected tree (names of many scripts, a 255-unit name, sizes around a cluster),
# exfatlabel reads the label and the serial derived from the seed, dump.exfat the geometry
# (cluster heap on the 4 MiB grid), sfdisk the type bytes (0x07, GPT basic data). size = auto
# and grow; a name exFAT folds together with another (é, É) from one source, a volume too
# small, a bad key, exfat { sd-format } on an SDHC card and fat { sd-format } on an SDXC one
# each fail in one line naming FILE:LINE; and two builds from trees made in other orders, with
# other mtimes, umask, TZ and LANG give one sha256 for the image, the bmap and the .zst.
. "$TOP/tests/e2e/lib/exfatcheck.sh"
. "$TOP/tests/e2e/lib/repro.sh"
exfat_need
need tar
need_locales de_DE.UTF-8 fr_FR.UTF-8

# ---- the sources
mkdir -p src/dir/deeper/deepest "src/Ünïcödé 日本語" "src/emoji 🎉" src/empty
printf 'hello\n' >src/hello.txt
printf 'old\n' >src/dir/over.txt          # a file entry replaces it
printf 'log\n' >src/dir/skip.log          # exclude drops it
: >src/dir/zero
head -c 4095 /dev/urandom >src/dir/cluster-1.bin   # 4K clusters (a volume under 256 MiB)
head -c 4096 /dev/urandom >src/dir/cluster.bin
head -c 4097 /dev/urandom >src/dir/cluster+1.bin
head -c 3000000 /dev/urandom >src/dir/deeper/deepest/big.bin
printf 'party\n' >"src/emoji 🎉/🎂 cake.txt"
printf 'ñ\n' >"src/Ünïcödé 日本語/ÀÉÎÕÜ ñ.txt"
printf '𝄞\n' >"src/Ünïcödé 日本語/𝄞 music (plane 1).txt"
long=$(printf '%0251d' 0 | tr 0 L).txt      # 255 UTF-16 units, exFAT's longest name
printf 'long\n' >"src/$long"

mkdir -p arcsrc/b arcsrc/a
printf 'one\n' >arcsrc/a/1.txt
printf 'two\n' >arcsrc/b/2.txt
head -c 70000 /dev/urandom >arcsrc/zz.bin
(cd arcsrc && tar --no-recursion -cf ../arc.tar zz.bin b/2.txt a/1.txt b a) || fail "tar"

# what the partition must hold
cp -r src want
rm want/dir/skip.log
printf 'new' >want/dir/over.txt
mkdir -p want/arc want/made/empty
tar -xf arc.tar -C want/arc
printf 'first' >want/zz-first.txt
want_serial=$(seed_serial exfat-e2e data)
# ${VOLUME_ID_data}: the serial as Linux's UUID= names an exFAT volume (ABCD-1234)
printf '%s' "$(echo "$want_serial" | cut -c3-6 | tr a-f A-F)-$(echo "$want_serial" | cut -c7-10 | tr a-f A-F)" >want/id.txt

cat >card.layout <<'LAYOUT'
image { size = 256M seed = "exfat-e2e" }
partition data {
    type = exfat
    size = auto
    exfat { label = "Données" }
    tree "/" { from = "src" exclude = "*.log" }
    tree "/arc" { from = "arc.tar" }
    file "/dir/over.txt" { content = "new" }
    file "/zz-first.txt" { content = "first" first = true }
    file "/id.txt" { content = "\${VOLUME_ID_data}" ids = true }
    dir "/made/empty" {}
}
partition rest { type = exfat size = grow }
LAYOUT
expect_status 0 "$SDIMG" build -v -o card.img card.layout
grep -q "data .*exFAT, 4 KiB clusters" out.txt || fail "build -v does not name exFAT and its clusters: $(cat out.txt)"
[ "$(part_json card.img 1 type)" = 7 ] || fail "partition 1: MBR type $(part_json card.img 1 type), not 7"
[ "$(part_json card.img 2 type)" = 7 ] || fail "partition 2: MBR type $(part_json card.img 2 type), not 7"

exfat_part card.img 1 vol1.img
exfat_clean vol1.img
exfat_same vol1.img want
exfatlabel vol1.img 2>/dev/null | grep -qx 'label: Données' || fail "exfatlabel: $(exfatlabel vol1.img 2>&1)"
exfatlabel -i vol1.img 2>/dev/null | grep -qx "volume serial : $want_serial" ||
    fail "exfatlabel -i: $(exfatlabel -i vol1.img 2>&1), want $want_serial from the seed"
heap=$(( $(part_start card.img 1) + $(dump_field vol1.img 'Cluster Heap Offset') * 512 ))
[ $((heap % 4194304)) -eq 0 ] || fail "the cluster heap starts at byte $heap, off the 4 MiB grid"
# `first` goes first in its folder: exfat-fuse lists a folder in its on-disk order
fuse_mount vol1.img fuse.mnt
first=$(ls -fA fuse.mnt | head -1)
fuse_umount
[ "$first" = zz-first.txt ] || fail "the first entry of / is $first, not zz-first.txt"
echo "auto: $(part_size card.img 1) bytes, serial $want_serial, heap at byte $heap, first: $first"

# grow: to the end of the image, an empty volume
exfat_part card.img 2 vol2.img
[ $(( $(part_start card.img 2) + $(part_size card.img 2) )) -eq 268435456 ] || fail "grow does not end the image"
exfat_clean vol2.img
mkdir -p nothing
exfat_same vol2.img nothing
rm -f vol1.img vol2.img card.img

# gpt: Microsoft basic data; cluster-size and volume-id as the layout says
cat >gpt.layout <<'LAYOUT'
image { size = 64M table = gpt seed = "exfat-gpt" }
partition store { type = exfat size = grow
    exfat { cluster-size = 32K volume-id = 0x12345678 }
    tree "/" { from = "src" exclude = "*.log" }
    tree "/arc" { from = "arc.tar" }
    file "/dir/over.txt" { content = "new" }
    file "/zz-first.txt" { content = "first" }
    file "/id.txt" { from = "want/id.txt" }
    dir "/made/empty" {}
}
LAYOUT
expect_status 0 "$SDIMG" build -q -o gpt.img gpt.layout
t=$(part_json gpt.img 1 type)
[ "$t" = EBD0A0A2-B9E5-4433-87C0-68B6B72699C7 ] || fail "GPT type $t, not Microsoft basic data"
exfat_part gpt.img 1 gvol.img
exfat_clean gvol.img
exfat_same gvol.img want
[ "$(dump_field gvol.img 'Sector per Cluster bits')" = 6 ] || fail "cluster-size = 32K: $(dump.exfat gvol.img 2>&1 | grep -i cluster)"
[ "$(dump_field gvol.img 'Volume Serial')" = 0x12345678 ] || fail "volume-id: $(dump_field gvol.img 'Volume Serial')"
echo "gpt: basic data, 32K clusters, serial 0x12345678"
rm -f gpt.img gvol.img

# guid: a Volume GUID entry (§7.5) in the root directory, the GUID in Microsoft's byte order
# (its first three fields little-endian); fsck.exfat takes it (exfat-fuse 1.3 refuses every
# entry type it does not know, this benign one too: it reads the volume without it above)
printf 'image { size = 64M }\npartition g { type = exfat size = grow\n exfat { guid = "00112233-4455-6677-8899-aabbccddeeff" } }\n' >guid.layout
expect_status 0 "$SDIMG" build -q -o guid.img guid.layout
exfat_part guid.img 1 guid.vol
exfat_clean guid.vol
python3 - guid.vol <<'PY' || fail "no Volume GUID entry with the layout's GUID"
import re, sys
data = open(sys.argv[1], "rb").read()
guid = bytes.fromhex("33221100554477668899aabbccddeeff")
sets = [m.start() for m in re.finditer(re.escape(guid), data) if m.start() >= 6]
sys.exit(0 if any(data[s - 6] == 0xA0 and data[s - 5] == 0 and s % 32 == 6 for s in sets) else 1)
PY
echo "guid: a Volume GUID entry, fsck.exfat clean"
rm -f guid.img guid.vol

# ---- errors: one line each, naming the layout's FILE:LINE
# Armenian ա and Ա: one name to exFAT's up-case table, two to FAT's (whose table stops
# before Armenian): the model compares as exFAT does, so an overlay replaces and two names
# from one source clash at the tree's line
mkdir -p clash
printf 'a\n' >clash/ա.txt
printf 'b\n' >clash/Ա.txt
build_refused clash 'exFAT sees the two names as equal' <<'LAYOUT'
image { size = 64M }
partition p { type = exfat size = grow
    tree "/" { from = "clash" } }
LAYOUT
grep -q 'clash.layout:3' err.txt || fail "the clash does not name clash.layout:3: $(cat err.txt)"
rm clash/Ա.txt
printf 'image { size = 64M }\npartition p { type = exfat size = grow\n tree "/" { from = "clash" }\n file "/Ա.TXT" { content = "over" } }\n' >over.layout
expect_status 0 "$SDIMG" build -q -o over.img over.layout
exfat_part over.img 1 over.vol
exfat_clean over.vol
mkdir -p overwant && printf over >overwant/Ա.TXT
exfat_same over.vol overwant
rm -f over.img over.vol
build_refused small 'small.layout:3' <<'LAYOUT'
image { size = 64M }
partition p { type = exfat
    size = 1M
    tree "/" { from = "src" } }
LAYOUT
# what does not fit is the files, whatever the default alignment: that is what is said
grep -q 'the files and folders need .* the smallest volume that holds them is' err.txt ||
    fail "the too-small message does not name what the files need: $(cat err.txt)"
# a default alignment that leaves too little room is lowered, with a note naming the key
head -c 3000000 /dev/urandom >lower.bin
printf 'image { size = 16M }\npartition p { type = exfat size = 5M\n file "/big.bin" { from = "lower.bin" } }\n' >lower.layout
expect_status 0 "$SDIMG" build -o lower.img lower.layout
expect_stderr "lower.layout:2: partition 'p': data-align 4M (the partition's align) leaves too little room in this 5M volume; its cluster heap starts on a multiple of 2M instead (exfat { data-align } sets it)"
exfat_part lower.img 1 lower.vol
exfat_clean lower.vol
rm -f lower.img lower.vol lower.bin
build_refused badkey "badkey.layout:3: unknown key 'fats'" <<'LAYOUT'
image { size = 64M }
partition p { type = exfat size = grow
    exfat { fats = 2 } }
LAYOUT
build_refused sdhc 'sdhc.layout:3: partition '"'p'"': sd-format: a card of 8 GiB is not SDXC' <<'LAYOUT'
image { size = 8G }
partition p { type = exfat size = grow
    exfat { sd-format = true } }
LAYOUT
grep -q 'writes FAT32 there' err.txt || fail "the SDHC refusal does not say FAT32: $(cat err.txt)"
build_refused fatsdxc 'type = exfat with exfat { sd-format = true }, or sd-format = false' <<'LAYOUT'
image { size = 64G }
partition p { type = fat size = grow
    fat { sd-format = true } }
LAYOUT
grep -q 'fatsdxc.layout:' err.txt || fail "no FILE:LINE: $(cat err.txt)"
# a name ending in a dot: the Linux driver and Windows drop the dot when they look it up,
# so the file could not be opened (a trailing space is kept by both)
mkdir -p dots && printf 'd\n' >"dots/trail." && printf 's\n' >"dots/trail "
build_refused dots 'dots/trail.: the name ends with a dot' <<'LAYOUT'
image { size = 64M }
partition p { type = exfat size = grow
    tree "/" { from = "dots" } }
LAYOUT
# mbr-type against exFAT's 0x07: sd-format fixes the byte (an error), else a warning
build_refused mbrsd "mbrsd.layout:2: partition 'p': mbr-type 0x0c, but exfat { sd-format = true } writes the type byte 0x07" <<'LAYOUT'
image { size = 64G }
partition p { type = exfat size = grow mbr-type = 0x0c
    exfat { sd-format = true } }
LAYOUT
printf 'image { size = 64M }\npartition p { type = exfat size = grow\n mbr-type = 0x0b }\n' >mbr.layout
expect_status 0 "$SDIMG" build -q -o mbr.img mbr.layout
expect_stderr "warning: mbr.layout:3: partition 'p': mbr-type 0x0b on an exFAT volume, whose type byte is 0x07"
rm -f mbr.img
echo "errors: one line each"

# ---- reproducible: other listing orders, mtimes, umask, TZ, LANG; one sha256 for each output
orders_folder
copy_in_order src "$orders_dir/1" forward
copy_in_order src "$orders_dir/2" backward
find "$orders_dir/2" -exec touch -h -d '2001-02-03 04:05:06' {} +
orders_differ "$orders_dir/1/" "$orders_dir/2/"
build() { # build DIR SRC TZ LANG UMASK
    mkdir -p "$1" && rm -rf src && ln -s "$2" src
    (umask "$5" && TZ=$3 LANG=$4 LC_ALL=$4 "$SDIMG" build -q -o "$1/card.img" --bmap --compress zst card.layout) ||
        fail "build into $1"
}
build one "$orders_dir/1" UTC C 022
build two "$orders_dir/2" Asia/Kathmandu de_DE.UTF-8 077
for f in card.img card.img.bmap card.img.zst; do
    [ "$(sha256sum <one/$f)" = "$(sha256sum <two/$f)" ] || fail "$f differs between the two builds"
done
echo "reproducible: card.img $(sha256sum <one/card.img | cut -c1-16)..., bmap and zst the same"
