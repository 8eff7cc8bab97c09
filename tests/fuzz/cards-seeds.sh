#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the seeds of the per-card fuzz targets: into tests/fuzz/corpus/cards/ the manifests
# our build writes for the images of tests/fuzz/cards_fixture.h (their layouts printed from
# it, built with build/sdimg), into tests/fuzz/corpus/personalize/ card values for each image
# (byte 0 the image, then NAME=VALUE with a NUL between two). Run from the top of the tree
# after `make all`; the output is the same on every run.
set -eu
SDIMG=${SDIMG:-build/sdimg}
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p tests/fuzz/corpus/cards tests/fuzz/corpus/personalize

cat >"$tmp/print.c" <<'EOT'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
EOT
sed -n '/^static const char \*const fixture_layouts/,/^};/p' tests/fuzz/cards_fixture.h \
	>>"$tmp/print.c"
cat >>"$tmp/print.c" <<'EOT'
int main(int argc, char **argv)
{
	for (size_t i = 0; argc == 2 && i < sizeof(fixture_layouts) / sizeof(fixture_layouts[0]); i++)
		if (!strcmp(argv[1], fixture_layouts[i][0]))
			return fputs(fixture_layouts[i][1], stdout) < 0;
	return 1;
}
EOT
$CC -I. -o "$tmp/print" "$tmp/print.c"
i=0
for name in mbr gpt; do
	"$tmp/print" $name >"$tmp/$name.layout"
	"$SDIMG" build -q -o "$tmp/$name" "$tmp/$name.layout"
	cp "$tmp/$name.cards.json" tests/fuzz/corpus/cards/seed-$name
	byte=$(printf '\\%03o' $i)
	printf "${byte}SERIAL=SN-0042\\000HOST=card" >tests/fuzz/corpus/personalize/seed-$name
	printf "${byte}SERIAL=\\000HOST=\$\\173SERIAL}\\000Z_9=\\377\\n" \
		>tests/fuzz/corpus/personalize/seed-$name-odd
	i=$((i + 1))
done
# a manifest of exfat-file fields (parsed, then refused: it is no fixture image's)
cat >"$tmp/exfat.layout" <<'EOT'
image { table = mbr size = 12M seed = "cards-exfat" }
partition data {
    type = exfat
    size = 6M
    exfat { cluster-size = 512 }
    file "/id/serial.txt" { content = "sn=\${SERIAL}\n" per-card = true reserve = 1K }
    file "/note.txt" { content = "\${HOST}" per-card = true reserve = 100 }
}
EOT
"$SDIMG" build -q -o "$tmp/exfat" "$tmp/exfat.layout"
cp "$tmp/exfat.cards.json" tests/fuzz/corpus/cards/seed-exfat
ls -l tests/fuzz/corpus/cards tests/fuzz/corpus/personalize
