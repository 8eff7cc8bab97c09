# SPDX-License-Identifier: MIT
# Helpers of the end-to-end tests of exFAT partitions that sdimg builds (exfat_build.sh,
# exfat_sdformat.sh; sourced, not a test itself), over the outside readers of
# lib/exfat_oracles.sh: exfatprogs checks the structures, exfat-fuse (an independent
# implementation) reads every file back. 7-Zip reads FAT but not exFAT: no oracle here.
. "$TOP/tests/e2e/lib/exfat_oracles.sh"

# exfat_need: the tools (a skip without them)
exfat_need() {
    need fsck.exfat dump.exfat exfatlabel mount.exfat-fuse losetup sfdisk jq sha256sum
}

# exfat_part IMG N VOL: partition N of IMG (from its own table) as the file VOL, holes kept
exfat_part() {
    extract "$1" "$(part_start "$1" "$2")" "$(part_size "$1" "$2")" "$3"
}

# exfat_same VOL SRC: exfat-fuse reads back exactly the tree SRC (names, folders, every
# byte) from the volume file VOL
exfat_same() {
    fuse_mount "$1" fuse.mnt
    diff -r "$2" fuse.mnt >diff.out 2>&1 || { fuse_umount; fail "exfat-fuse reads another tree from $1 than $2: $(head -20 diff.out)"; }
    fuse_umount
}

# seed_serial SEED NAME: the exFAT volume serial derived from SEED for partition NAME
# (LAYOUT.md, "Derived ids": the first 4 bytes of SHA-256("SEED\nexfat-volume-id/NAME"),
# little-endian), as 0x%08x
seed_serial() {
    h=$(printf '%s\n%s' "$1" "exfat-volume-id/$2" | sha256sum | cut -c1-8)
    printf '0x%s%s%s%s\n' "$(echo "$h" | cut -c7-8)" "$(echo "$h" | cut -c5-6)" \
        "$(echo "$h" | cut -c3-4)" "$(echo "$h" | cut -c1-2)"
}
