#!/bin/sh
# `sdimg personalize` takes time in proportion to the manifest: 8,000 per-card files in one
# folder (each found by one walk over the volume's folders, the fields kept apart in one
# sorted pass, each patch overlaid only with those on its page) are written in seconds, where
# a check of each file against every other took more than a minute. Each card file holds its
# own value.
. "$TOP/tests/e2e-lib.sh"
need timeout mtype jq sfdisk

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
echo "cards_personalize_scale: $n fields in $t s"
