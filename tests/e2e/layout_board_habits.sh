# Habits of the board definitions `sdimg import` translates, which a layout takes as they
# are: a kickstart's unquoted size with a variable (`${BOOT_SPACE:-40}M`).
. "$TOP/tests/e2e-lib.sh"
need sfdisk jq

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
