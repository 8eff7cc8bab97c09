# SPDX-License-Identifier: MIT
# The GPT's protective MBR entry ends at the CHS address of the image's last LBA (UEFI 2.10,
# §5.2.3: EndingCHS, with 255 heads and 63 sectors a track) where cylinder 1023 still holds
# it, and at 0xFFFFFF past that; with gpt-backup = false too, whose entry is shortened after
# libfdisk wrote it. Bytes 0x1C3-0x1C5 of sector 0.
. "$TOP/tests/e2e-lib.sh"

# end_chs IMG: the protective entry's end CHS as three hex bytes
end_chs() {
    od -An -tx1 -j 451 -N 3 "$1" | tr -d ' \n'
}

# chs LBA: head, sector | cylinder bits 8-9, cylinder low byte, as hex
chs() {
    c=$(($1 / (255 * 63))) h=$(($1 / 63 % 255)) s=$(($1 % 63 + 1))
    printf '%02x%02x%02x' $h $((s | (c >> 2 & 0xc0))) $((c & 0xff))
}

# protective SIZE WANT [KEYS]: a GPT image of SIZE bytes ends its 0xEE entry at CHS WANT
protective() {
    printf 'image { size = %s table = gpt seed = "chs" %s }\npartition a { size = 1M }\n' \
        "$1" "${3:-}" >chs.layout
    expect_status 0 "$SDIMG" build -q -o chs.img chs.layout
    [ "$(le chs.img 450 1)" -eq 238 ] || fail "size $1: MBR entry 1 is not the 0xEE entry"
    [ "$(end_chs chs.img)" = "$2" ] || fail "size $1 ${3:-}: end CHS $(end_chs chs.img), want $2"
    rm -f chs.img
}

protective 8M 050401                           # LBA 16383: 1/5/4
protective 100M "$(chs 204799)"                # 12/190/50
protective 8M 050401 "gpt-backup = false"       # shortened after libfdisk wrote it
protective 8422686720 feffff                   # LBA 16450559: 1023/254/63, the last one
protective 8422687232 ffffff                   # one sector more: not representable
protective 16G ffffff
