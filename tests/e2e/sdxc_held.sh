# SPDX-License-Identifier: MIT
# inspect judges a FAT data area or exFAT cluster heap by the clusters its tree holds, counted
# from the chains and extents: a per-card file's reserve (from IMAGE.cards.json) counts, so a
# default build whose reserve made the builder lower the grid inspects clean (the FAT builder
# lowers its data-align for a reserve as for a file that size); a FAT or bitmap
# that marks fewer clusters than the files hold gets the clusters-unmarked warning and is
# judged by the files, not by the damage; folders whose entries were deleted are no lost
# clusters; lost clusters are counted exactly, and the line's counts read right.
. "$TOP/tests/e2e-lib.sh"
need jq python3 mdel

problems() { jq -c '[.findings[] | select(.severity != "info")]' out.txt; }
finding() { jq -r "[.findings[] | select(.code == \"$1\") | .message][0] // \"\"" out.txt; }
grid1() { jq -r '.partitions[0].grid' out.txt; }

# clean NAME LAYOUT GRID: a default build of LAYOUT inspects without problems, partition 1
# judged against GRID bytes
clean() {
    expect_status 0 "$SDIMG" build -q -o "$1.img" "$2"
    expect_status 0 "$SDIMG" inspect --json "$1.img"
    [ "$(problems)" = "[]" ] || fail "$1: a default build has findings: $(problems)"
    [ "$(grid1)" = "$3" ] || fail "$1: partition 1 judged against $(grid1), not $3"
}

# per-card reserves: the builder lowers the grid for them; inspect counts them (manifest)
serial='file "/serial.txt" { content = "serial=\${CARD_SERIAL}\n" per-card = true'
printf 'image { size = 64G }\npartition b { type = exfat size = 64M\n %s reserve = 60M } }\npartition f { type = exfat size = grow }\n' "$serial" >r60.layout
clean r60 r60.layout 2097152
printf 'image { size = 16G }\npartition b { type = exfat size = 64M\n %s reserve = 62M } }\n' "$serial" >r16.layout
clean r16 r16.layout 1048576
mkdir r40 && truncate -s 40M r40/big
printf 'image { size = 64G }\npartition b { type = exfat size = 64M tree "/" { from = "r40/" }\n %s reserve = 10M } }\npartition f { type = exfat size = grow }\n' "$serial" >r10.layout
clean r10 r10.layout 8388608
# FAT: the builder lowers its data-align for a reserve as for a file of that size
printf 'image { size = 64G }\npartition b { type = fat size = 64M\n %s reserve = 50M } }\npartition f { type = exfat size = grow }\n' "$serial" >f50.layout
clean f50 f50.layout 8388608
rm -f r60.img r16.img r10.img f50.img

# damage IMG MODE [N]: tests/e2e/lib/damage_volume.py on the volume at 16 MiB of IMG
damage() { python3 "$TOP/tests/e2e/lib/damage_volume.py" "$@"; }

# a bitmap / FAT that marks fewer clusters than the files hold: said, and judged by the files
mkdir zx zf && truncate -s 134201345 zx/f && truncate -s 50331649 zf/f
printf 'image { size = 64G }\npartition p { type = exfat size = 144M tree "/" { from = "zx/" } }\npartition q { type = exfat size = grow }\n' >zx.layout
clean zx zx.layout 8388608
damage zx.img zero
expect_status 0 "$SDIMG" inspect --json zx.img
[ "$(grid1)" = 8388608 ] || fail "zx: a cleared bitmap judged against $(grid1)"
[ "$(finding clusters-unmarked)" = "the allocation bitmap marks 0 clusters in use besides its own and the up-case table's, 32766 fewer than the 32766 clusters its 1 file and 0 folders hold (a damaged bitmap: a write may reuse a file's clusters); its cluster heap is judged by the clusters they hold" ] ||
    fail "zx: $(jq -c .findings out.txt)"
[ "$(finding heap-misaligned)" = "" ] || fail "zx: judged by the damage: $(finding heap-misaligned)"
printf 'image { size = 64G }\npartition p { type = fat16 size = 64M tree "/" { from = "zf/" } }\npartition q { type = exfat size = grow }\n' >zf.layout
clean zf zf.layout 8388608
damage zf.img zero
expect_status 0 "$SDIMG" inspect --json zf.img
[ "$(grid1)" = 8388608 ] || fail "zf: a cleared FAT judged against $(grid1)"
case $(finding clusters-unmarked) in "the FAT marks 0 clusters in use, 6145 fewer than the 6145 clusters its 1 file and 0 folders hold (a damaged FAT"*) ;;
    *) fail "zf: $(jq -c .findings out.txt)" ;; esac
[ "$(finding data-misaligned)" = "" ] || fail "zf: judged by the damage: $(finding data-misaligned)"
rm -f zx.img zf.img

# folders whose entries were deleted keep their clusters: no lost clusters
mkdir -p many/d
i=0
while [ $i -lt 1500 ]; do : >"many/d/a_rather_long_file_name_number_$i.txt"; i=$((i + 1)); done
for t in fat12:16M fat16:64M fat32:64M; do
    printf 'image { size = 64G }\npartition b { type = %s size = %s tree "/" { from = "many/" } }\npartition f { type = exfat size = grow }\n' "${t%:*}" "${t#*:}" >md.layout
    expect_status 0 "$SDIMG" build -q -o md.img md.layout
    mdel -i md.img@@16777216 '::/d/*' || fail "mdel on ${t%:*}"
    expect_status 0 "$SDIMG" inspect --json md.img
    [ "$(finding clusters-unheld)" = "" ] || fail "${t%:*}: deleted entries said lost: $(finding clusters-unheld)"
    "$SDIMG" inspect md.img >out.txt
    grep -q ", 0 files in 1 folder$" out.txt || fail "${t%:*}: $(grep 'files\? in' out.txt)"
done
rm -f md.img
mv many/d root && rmdir many
printf 'image { size = 64G }\npartition b { type = exfat size = 64M tree "/" { from = "root/" } }\npartition f { type = exfat size = grow }\n' >mx.layout
expect_status 0 "$SDIMG" build -q -o mx.img mx.layout
python3 - mx.img <<'PY'
import struct, sys
P = 16777216
with open(sys.argv[1], 'r+b') as f:
    f.seek(P); bs = f.read(512)
    fo, fl, ho, cc, rc = struct.unpack_from('<IIIII', bs, 80); cs = 512 << bs[109]
    co = lambda c: P + ho * 512 + (c - 2) * cs
    c, n, left = rc, 0, 0
    while 2 <= c < 0xFFFFFFF7:  # every file's entry set but the first two marked deleted
        f.seek(co(c)); d = bytearray(f.read(cs))
        for i in range(0, cs, 32):
            if d[i] == 0x85:
                n += 1; left = d[i + 1] + 1 if n > 2 else 0
            if left and d[i] in (0x85, 0xC0, 0xC1):
                d[i] &= 0x7F; left -= 1
        f.seek(co(c)); f.write(d)
        f.seek(P + fo * 512 + c * 4); c = struct.unpack('<I', f.read(4))[0]
PY
expect_status 0 "$SDIMG" inspect --json mx.img
[ "$(jq '.partitions[0].exfat.files' out.txt)" = 2 ] || fail "mx: $(jq -c '.partitions[0].exfat' out.txt)"
[ "$(finding clusters-unheld)" = "" ] || fail "exfat root: deleted entries said lost: $(finding clusters-unheld)"
rm -f mx.img

# lost clusters are counted exactly, however few
printf 'image { size = 64G }\npartition b { type = fat32 size = 64M }\npartition f { type = exfat size = grow }\n' >lost.layout
expect_status 0 "$SDIMG" build -q -o lost.img lost.layout
damage lost.img lost 1
expect_status 0 "$SDIMG" inspect --json lost.img
[ "$(finding clusters-unheld)" = "the FAT marks 2 clusters in use, 1 more than the 1 cluster its 0 files and 0 folders hold (clusters lost, or a damaged FAT); its data area is judged by the clusters they hold" ] ||
    fail "lost: $(jq -c .findings out.txt)"
rm -f lost.img
