#!/bin/sh
# SPDX-License-Identifier: MIT
# The bmap names its image in an XML comment: whatever the image's name, the bmap stays
# well-formed XML that bmaptool reads: a name holding "--" (not allowed inside a comment), a
# byte that is not UTF-8, a control character, UTF-8 text, and a name of 200 characters (no
# line of the header may be cut short).
. "$TOP/tests/e2e/lib/ship.sh"
need bmaptool python3 sha256sum

head -c 5000 /dev/urandom >a.bin
printf 'image { size = 8M table = none }\nraw a { offset = 4K from = "a.bin" }\n' >t.layout
long=$(printf 'n%.0s' $(seq 1 196)).img
for name in "./my--card.img" "./---.img" "$(printf './caf\351.img')" "$(printf './x\001y.img')" \
            "./karte-ü—2.img" "./$long"; do
    "$SDIMG" build -q --bmap -o "$name" t.layout || fail "build -o $name"
    python3 -c '
import sys, xml.etree.ElementTree as E
E.parse(sys.argv[1])' "$name.bmap" 2>parse.err || fail "$name.bmap is not well-formed XML: $(cat parse.err)"
    bmaptool copy "$name" out.bin >copy.log 2>&1 || fail "bmaptool copy $name: $(cat copy.log)"
    check_sums out.bin "$name.bmap"
    echo "$(sed -n 2p "$name.bmap" | cut -c1-60)...: bmaptool reads it"
done
