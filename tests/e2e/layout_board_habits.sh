# SPDX-License-Identifier: MIT
# Habits of the board definitions `sdimg import` translates, which a layout takes as they
# are: a kickstart's unquoted size with a variable (`${BOOT_SPACE:-40}M`); a kernel command
# line naming the image's own ids (root=PARTUUID=..., `ids = true`).
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk jq mtype debugfs

# ${VAR:-default} right before its unit is one value, set or not
cat >habit.layout <<'L'
image { size = 64M }
partition boot { type = fat size = ${BOOT_SPACE:-40}M }
partition data { size = ${DATA_SPACE}M }
L
DATA_SPACE=8 expect_status 0 "$SDIMG" build -q -o habit.img habit.layout
[ "$(part_size habit.img 1)" -eq $((40 << 20)) ] || fail "boot is not 40M"
[ "$(part_size habit.img 2)" -eq $((8 << 20)) ] || fail "data is not 8M"
BOOT_SPACE=16 DATA_SPACE=4 expect_status 0 "$SDIMG" build -q -o habit.img habit.layout
[ "$(part_size habit.img 1)" -eq $((16 << 20)) ] || fail "boot is not 16M with BOOT_SPACE=16"
rm -f habit.img

# ids = true: the image's own ids in a file's content, as the table and the volume have them,
# on FAT (a size = auto volume measured with them) and on ext4; other ${...} stay as written
cat >ids.layout <<'L'
image { size = 64M seed = "habits" }
partition boot { type = fat size = auto
  file "/cmdline.txt" { content = "root=PARTUUID=\${PARTUUID_root} boot=\${VOLUME_ID_boot} \${bootargs}\n" ids = true }
}
partition root { type = ext4 size = 8M
  file "/etc/fstab" { content = 'PARTUUID=${PARTUUID_root} / ext4 defaults 0 1' ids = true }
}
L
expect_status 0 "$SDIMG" build -q -o ids.img ids.layout
disk=$(sfdisk -d ids.img | sed -n 's/^label-id: 0x//p')
boot=$(part_start ids.img 1) root=$(part_start ids.img 2)
dd if=ids.img of=boot.vol bs=512 iflag=skip_bytes skip="$boot" count=$(($(part_size ids.img 1) / 512)) status=none
serial=$(printf '%04X-%04X' $(($(le boot.vol 39 4) >> 16)) $(($(le boot.vol 39 4) & 65535)))
printf 'root=PARTUUID=%s-02 boot=%s ${bootargs}\n' "$disk" "$serial" >want.txt
mtype -i "ids.img@@$boot" ::cmdline.txt >got.txt
cmp -s want.txt got.txt || { cat got.txt >&2; fail "cmdline.txt does not name the image's ids"; }
dd if=ids.img of=root.vol bs=1M iflag=skip_bytes,count_bytes skip="$root" count=$((8 << 20)) status=none
[ "$(debugfs -R 'cat /etc/fstab' root.vol 2>/dev/null)" = "PARTUUID=$disk-02 / ext4 defaults 0 1" ] ||
    fail "/etc/fstab does not name the image's PARTUUID"
expect_status 0 "$SDIMG" build -q -o ids2.img ids.layout
cmp -s ids.img ids2.img || fail "two builds of ids.layout differ"

# on gpt the GUIDs, in lower case; an id the image has not is one error naming the file
cat >gpt.layout <<'L'
image { size = 64M table = gpt seed = "habits" }
partition boot { type = fat size = 8M
  file "/x" { content = "\${DISK_ID} \${PARTUUID_root}" ids = true }
}
partition root { size = 8M }
L
expect_status 0 "$SDIMG" build -q -o gpt.img gpt.layout
disk=$(sgdisk -p gpt.img | sed -n 's/^Disk identifier (GUID): //p' | tr 'A-F' 'a-f')
root=$(sgdisk -i 2 gpt.img | sed -n 's/^Partition unique GUID: //p' | tr 'A-F' 'a-f')
[ "$(mtype -i "gpt.img@@$(part_start gpt.img 1)" ::x)" = "$disk $root" ] ||
    fail "/x does not name the GPT's GUIDs"
build_refused typo "typo.layout:3: partition 'boot': file '/x': \${PARTUUID_rot} is no id of this image" <<'L'
image { size = 64M }
partition boot { type = fat size = 8M
  file "/x" { content = "root=PARTUUID=\${PARTUUID_rot}" ids = true }
}
partition root { size = 8M }
L
build_refused host "host.layout:1: partition 'boot': file '/x': ids: needs 'content'" <<'L'
partition boot { type = fat size = 8M file "/x" { from = "x" ids = true } }
L
rm -f ids.img ids2.img gpt.img boot.vol root.vol

# off-grid: a start the boot ROM wants (a loader at 32K) is said once in the layout, and
# build and plan say nothing of it; without the key both warn
head -c 5000 /dev/urandom >loader.bin
cat >rom.layout <<'L'
image { size = 64M }
partition loader { start = 32K from = "loader.bin" in-table = false off-grid = "the boot ROM reads sector 64" }
partition root { size = 8M }
L
expect_status 0 "$SDIMG" build -q -o rom.img rom.layout
[ ! -s err.txt ] || { cat err.txt >&2; fail "build warned about an acknowledged start"; }
expect_status 0 "$SDIMG" plan rom.layout
[ ! -s err.txt ] || { cat err.txt >&2; fail "plan warned about an acknowledged start"; }
sed 's/ off-grid = "[^"]*"//' rom.layout >warn.layout
expect_status 0 "$SDIMG" build -q -o rom.img warn.layout
expect_stderr "warn.layout:2: partition 'loader': start 32768 is off the 4194304-byte alignment grid"
build_refused bare "bare.layout:1: partition 'p': off-grid: needs 'start'" <<'L'
partition p { size = 8M off-grid = "the boot ROM" }
L

# sdimg import writes it where the source gives a partition of the table an offset off the
# grid (a board's fixed place); its layouts build without a word of it
cat >rom.cfg <<'C'
image rom.img {
	hdimage { partition-table-type = "mbr" }
	partition loader { image = "loader.bin" partition-type = 0xda offset = 32K }
	partition root { image = "loader.bin" partition-type = 0x83 offset = 4M }
}
C
expect_status 0 "$SDIMG" import rom.cfg -o rom.cfg.layout
grep -q "^    off-grid = \"genimage's fixed offset\"" rom.cfg.layout ||
    { cat rom.cfg.layout >&2; fail "import: no off-grid for the loader at 32K"; }
[ "$(grep -c off-grid rom.cfg.layout)" -eq 1 ] || fail "import: off-grid on a start on the grid"
printf 'part --source rawcopy --sourceparams="file=loader.bin" --offset 32K\npart --fstype=none --size 8M --offset 4M\n' >rom.wks
expect_status 0 "$SDIMG" import rom.wks -o rom.wks.layout
[ "$(grep -c "^    off-grid = \"wic's fixed --offset\"" rom.wks.layout)" -eq 1 ] ||
    { cat rom.wks.layout >&2; fail "import: off-grid of wic's --offset 32K"; }
sed -i '/align = /d' rom.cfg.layout # on the default grid: the fixed start alone is off it
expect_status 0 "$SDIMG" build -q -o rom.img rom.cfg.layout
[ ! -s err.txt ] || { cat err.txt >&2; fail "the imported layout warned"; }
rm -f rom.img loader.bin
