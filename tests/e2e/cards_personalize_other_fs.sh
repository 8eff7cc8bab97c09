#!/bin/sh
# SPDX-License-Identifier: MIT
# `sdimg personalize` to another file system than its image's (a tmpfs mounted for the test):
# the copy is made beside its output and copied across (copy_file_range cannot cross file
# systems: the bytes go through a buffer), both ways, a replaced file keeping its mode.
. "$TOP/tests/e2e-lib.sh"
. "$TOP/tests/e2e/lib/personalize.sh"
need mount umount

mkdir other
mount -t tmpfs -o size=64M sdimg-test other 2>/dev/null ||
    { echo "a tmpfs cannot be mounted here (not root?)"; exit 77; }
trap 'umount other 2>/dev/null || true' EXIT
trap 'exit 1' INT TERM HUP
[ "$(stat -c %d .)" != "$(stat -c %d other)" ] || fail "other/ is on the same file system"

serial_card other-fs 3
"$SDIMG" personalize card.img --set CARD_SERIAL=7 -o here.img

expect_status 0 "$SDIMG" personalize card.img --set CARD_SERIAL=7 -o other/c.img
cmp -s other/c.img here.img || fail "the copy on the other file system is not the card's"
echo "older" >other/keys.img
chmod 600 other/keys.img
expect_status 0 "$SDIMG" personalize card.img --set CARD_SERIAL=7 -o other/keys.img
cmp -s other/keys.img here.img || fail "the replaced copy on the other file system is not the card's"
[ "$(stat -c %a other/keys.img)" = 600 ] || fail "the replaced 0600 file became $(stat -c %a other/keys.img)"
[ "$(ls -A other | tr '\n' ' ')" = "c.img keys.img " ] || fail "other/ holds $(ls -A other | tr '\n' ' ')"

# and the image on the other file system, the copy here
cp card.img card.img.cards.json other/
expect_status 0 "$SDIMG" personalize other/card.img --set CARD_SERIAL=7 -o back.img
cmp -s back.img here.img || fail "the copy from the other file system is not the card's"
echo "cards_personalize_other_fs: ok"
