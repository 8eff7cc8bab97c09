#!/bin/sh
# SPDX-License-Identifier: MIT
# `sdimg personalize` takes time in proportion to the manifest: 8,000 per-card files in one
# folder (each found by one walk over the volume's folders, the fields kept apart in one
# sorted pass, each patch overlaid only with those on its page) are written in seconds, where
# a check of each file against every other took more than a minute. Each card file holds its
# own value; on FAT12, where two files' FAT entries share bytes, 400 files whose chains all
# grow leave a clean volume.
# e2e-alone: it bounds wall-clock time
. "$TOP/tests/e2e-lib.sh"
need timeout mtype jq sfdisk fsck.fat

n=8000
awk -v n=$n 'BEGIN {
    print "image { table = mbr seed = \"scale\" }"
    print "partition boot {"
    print "    type = fat32"
    print "    size = auto"
    print "    fat { cluster-size = 512 }"
    for (i = 0; i < n; i++)
        printf "    file \"/cards/f%d\" { content = \"%d=\\${V}\\n\" per-card = true reserve = 16 }\n", i, i
    print "}"
}' >many.layout
"$SDIMG" build -q -o many.img many.layout
[ "$(jq '.fields | length' many.img.cards.json)" -eq $n ] || fail "the manifest does not hold $n fields"

# the generous bound: 20 s on a loaded machine (a few seconds alone)
t0=$(date +%s)
set +e
timeout 30 "$SDIMG" personalize many.img --set V=card -o card.img 2>err.txt
rc=$?
set -e
t=$(($(date +%s) - t0))
[ $rc -ne 124 ] || fail "personalize of $n fields did not end in 30 s"
[ $rc -eq 0 ] || fail "personalize of $n fields failed (exit $rc): $(cat err.txt)"
[ $t -le 20 ] || fail "personalize of $n fields took $t s"
off=$(($(part_json card.img 1 start) * 512))
for i in 0 4321 $((n - 1)); do
    [ "$(mtype -i "card.img@@$off" "::/cards/f$i")" = "$i=card" ] || fail "/cards/f$i does not hold its value"
done

# FAT12: each file's chain grows from one cluster to two, next to its neighbours' (the bytes
# between two files' entries take both files' changes)
awk 'BEGIN {
    print "image { table = mbr seed = \"fat12\" }"
    print "partition boot {"
    print "    type = fat12"
    print "    size = 2M"
    print "    fat { cluster-size = 1K data-align = 64K }"
    for (i = 0; i < 400; i++)
        printf "    file \"/f%d\" { content = \"\\${V}\" per-card = true reserve = 2K }\n", i
    print "}"
}' >fat12.layout
"$SDIMG" build -q -o fat12.img fat12.layout
value=$(head -c 1500 /dev/zero | tr '\0' v)
"$SDIMG" personalize fat12.img --set "V=$value" -o card12.img
off=$(($(part_json card12.img 1 start) * 512)) size=$(($(part_json card12.img 1 size) * 512))
dd if=card12.img of=vol.img bs=64K iflag=skip_bytes,count_bytes skip="$off" count="$size" status=none
fsck_clean vol.img
for i in 0 1 2 199 398 399; do
    [ "$(mtype -i vol.img "::/f$i")" = "$value" ] || fail "FAT12: /f$i does not hold its value"
done
echo "cards_personalize_scale: $n fields in $t s; 400 FAT12 chains grown side by side"
