# SPDX-License-Identifier: MIT
# The words of genimage's configuration and of wic's kickstart options, met where a layout
# has another word: one error line naming FILE:LINE and what to write instead; nothing built.
. "$TOP/tests/e2e-lib.sh"

# word_hint TEXT-BEFORE LINE-WITH-THE-WORD TEXT-AFTER EXPECTED-MESSAGE: build and plan both
# fail with one line naming the line of the word
word_hint() {
    printf '%s\n%s\n%s\n' "$1" "$2" "$3" >card.layout
    line=$(($(printf '%s\n' "$1" | wc -l) + 1))
    expect_status 1 "$SDIMG" build -o card.img card.layout
    expect_stderr "card.layout:$line: $4"
    [ ! -e card.img ] || fail "an image was written for: $2"
    expect_status 1 "$SDIMG" plan card.layout
    expect_stderr "card.layout:$line: $4"
}

P='image { size = 64M }
partition root {'
p() { word_hint "$P" " $1 = $2" ' size = 8M }' "unknown key '$1' in partition 'root' (did you mean $3?)"; }
# genimage
p offset 8M "'start'"
p image rootfs.ext4 "'from'"
p partition-type 0x83 "'mbr-type'"
p partition-type-uuid L "'gpt-type'"
p partition-uuid 11111111-2222-4333-8444-555555555555 "'uuid'"
p in-partition-table false "'in-table'"
p autoresize true "'size = grow'"
p forced-primary true "'primary'"
p imageoffset 4K "'skip'"
# wic
p fstype vfat "'type'"
p source rawcopy "'from'"
p part-name rootfs "'label'"
p part-type 0FC63DAF-8483-4772-8E79-3D69D8477DE4 "'gpt-type'"
p system-id 0x83 "'mbr-type'"
p active true "'bootable'"
p extra-space 8M "'extra'"
p fsuuid 0x1234 "fat { volume-id }"

# genimage's hdimage keys in image { }, its image key in a raw region and in entries
word_hint 'image {' ' partition-table-type = gpt' '}' \
    "unknown key 'partition-table-type' in image (did you mean 'table'?)"
word_hint 'image {' ' disk-signature = 0x12345678' '}' \
    "unknown key 'disk-signature' in image (did you mean 'disk-id'?)"
word_hint 'raw spl {' ' image = "spl.bin" offset = 8K' '}' \
    "unknown key 'image' in raw 'spl' (did you mean 'from'?)"
word_hint 'raw spl {' ' imageoffset = 1K from = "spl.bin" offset = 8K' '}' \
    "unknown key 'imageoffset' in raw 'spl' (did you mean 'skip'?)"
word_hint 'image {' ' fill = true' '}' \
    "unknown key 'fill' in image (did you mean no key: the image file always has all of its size?)"
word_hint 'partition boot { type = fat size = 8M' ' file "/zImage" { image = "zImage" }' '}' \
    "unknown key 'image' in partition 'boot': file '/zImage' (did you mean 'from'?)"
word_hint 'partition boot { type = fat size = 8M fat {' ' files = "zImage" }' '}' \
    "unknown key 'files' in partition 'boot': fat (did you mean tree and file sections in the partition?)"
word_hint '' 'hdimage {' ' table = gpt }' "unknown section 'hdimage' (did you mean 'image'?)"
# a near miss of a word sdimg has is still told the nearest word
word_hint 'partition root {' ' stat = 8M' '}' "unknown key 'stat' in partition 'root' (did you mean 'start'?)"

# label on a partition of an MBR: it names GPT partitions; a FAT volume's label is fat { label }
word_hint 'partition boot { type = fat size = 8M' ' label = "BOOT"' '}' \
    "partition 'boot': label: it names a GPT partition, and only a gpt table has names; a FAT volume's label is fat { label = \"...\" }"
word_hint 'image { table = none }
partition boot { type = fat size = 8M' ' label = "BOOT"' '}' \
    "partition 'boot': label: it names a GPT partition"
