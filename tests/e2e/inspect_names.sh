# SPDX-License-Identifier: MIT
# Names from a hostile image (a GPT partition name, a FAT long name) holding ESC, BEL and a
# newline: ls and inspect print them escaped (\x1b, \x07, \n), never raw to the terminal;
# inspect --json keeps them exact. The images are crafted: sdimg refuses such names.
. "$TOP/tests/e2e-lib.sh"
need jq sgdisk sfdisk mkfs.fat mcopy mke2fs

# no_raw_controls FILE: FILE holds no ESC, BEL or other control byte but newlines
no_raw_controls() {
    [ "$(LC_ALL=C tr -d '\000-\011\013-\037\177' <"$1" | wc -c)" -eq "$(wc -c <"$1")" ] ||
        fail "raw control characters in the output: $(od -c "$1" | head -20)"
}

# inspect_shows IMG ESCAPED FIELD EXACT: `sdimg inspect IMG` prints ESCAPED and no raw control
# byte; in `sdimg inspect --json IMG` the field FIELD (a jq path) is EXACT, byte for byte
inspect_shows() {
    expect_status 0 "$SDIMG" inspect "$1"
    no_raw_controls out.txt
    grep -aqF -- "$2" out.txt || fail "$1: inspect does not print $2: $(cat -v out.txt | head -20)"
    expect_status 0 "$SDIMG" inspect --json "$1"
    [ "$(jq -r "$3" out.txt)" = "$4" ] || fail "$1: in inspect --json, $3 is not exact: $(jq -c "$3" out.txt)"
}

# a GPT partition name that would clear the screen
truncate -s 32M g.img
sgdisk -o -n 1:2048:+8M -t 1:0700 g.img >/dev/null
sgdisk -c 1:"$(printf 'a\033[2Jb\007c\nd')" g.img >/dev/null 2>&1 || fail "sgdisk -c"
inspect_shows g.img 'name a\x1b[2Jb\x07c\nd' '.partitions[0].name' "$(printf 'a\033[2Jb\007c\nd')"

# a FAT long name: mtools writes "ab cd ef.txt" (one LFN entry before its short entry); its
# UTF-16 characters 2, 3 and 6 become newline, ESC and BEL
mkfs.fat -F 12 -C f.img 4096 >/dev/null
printf 'hostile\n' >"ab cd ef.txt"
mcopy -i f.img "ab cd ef.txt" ::/ || fail "mcopy"
root=$(( ($(le f.img 14 2) + $(le f.img 16 1) * $(le f.img 22 2)) * 512 ))
[ "$(le f.img $((root + 11)) 1)" -eq 15 ] || fail "no LFN entry first in the root directory"
[ "$(le f.img $((root + 3)) 1)" -eq 98 ] || fail "the LFN entry does not hold 'ab cd'"
printf '\n' | dd of=f.img bs=1 seek=$((root + 3)) conv=notrunc status=none
printf '\033' | dd of=f.img bs=1 seek=$((root + 5)) conv=notrunc status=none
printf '\007' | dd of=f.img bs=1 seek=$((root + 14)) conv=notrunc status=none
expect_status 0 "$SDIMG" ls f.img
no_raw_controls out.txt
[ "$(cat out.txt)" = 'a\n\x1bcd\x07ef.txt' ] || fail "ls: $(od -c out.txt)"
expect_status 0 "$SDIMG" ls -l f.img
no_raw_controls out.txt
grep -qF ' a\n\x1bcd\x07ef.txt' out.txt || fail "ls -l: $(od -c out.txt)"
# the name still reaches the file, byte for byte
expect_status 0 "$SDIMG" cat "f.img:/$(printf 'a\n\033cd\007ef.txt')"
[ "$(cat out.txt)" = hostile ] || fail "cat by the hostile name: $(cat out.txt)"

# an ext4 label with ESC and a byte that is no UTF-8: escaped in text; in JSON the label is
# still there (U+FFFD for the stray byte), where jansson would drop the key
truncate -s 8M e4.img
mke2fs -q -F -t ext4 -L "$(printf 'e\033x\377t')" e4.img >/dev/null 2>&1 || fail "mke2fs -L"
truncate -s 16M c.img
echo 'start=8192, type=83' | sfdisk -q c.img
dd if=e4.img of=c.img bs=1M seek=4 conv=notrunc status=none
inspect_shows c.img '"e\x1bx' '.partitions[0].ext.label' "$(printf 'e\033x\357\277\275t')"
