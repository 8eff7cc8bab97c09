#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad --compress requests are usage errors: exit 2, before any work, with one line that
# names the problem (followed by the hint every usage error of sdimg prints), nothing on
# stdout and nothing written: an unknown kind, a level out of range or not a number, and
# an -o whose suffix names another compression than --compress. So are outputs at one name,
# the per-card manifest's (IMAGE.cards.json) included, and an output at the name of a file
# the build reads: the layout, an included layout, a `from` input; and an output at or
# under the folder a tree copies (through links and ..), on FAT and on ext4.
. "$TOP/tests/e2e-lib.sh"

mkdir -p tree out && echo hi >tree/hello.txt
printf 'image { size = 64M }\npartition boot { type = fat size = 32M tree "/" { from = "tree" } }\n' >card.layout

# usage_of LAYOUT MESSAGE ARGS...: `sdimg build ARGS ../LAYOUT` (in out/) is a usage error
usage_of() {
    layout=$1 msg=$2
    shift 2
    (cd out && expect_status 2 "$SDIMG" build "$@" "../$layout" && cp err.txt out.txt ../) ||
        fail "sdimg build $*"
    [ "$(wc -l <err.txt)" -eq 2 ] || fail "build $*: $(wc -l <err.txt) lines: $(cat err.txt)"
    [ "$(head -1 err.txt)" = "sdimg: $msg" ] || fail "build $*: '$(head -1 err.txt)', expected 'sdimg: $msg'"
    [ "$(tail -1 err.txt)" = "Try 'sdimg build --help'." ] || fail "build $*: no hint: $(cat err.txt)"
    [ ! -s out.txt ] || fail "build $*: prints on stdout: $(cat out.txt)"
    [ "$(ls -A out | tr '\n' ' ')" = "err.txt out.txt " ] || fail "build $*: wrote $(ls -A out | tr '\n' ' ')"
    rm -f out/err.txt out/out.txt
    echo "build $*: exit 2, $(head -1 err.txt)"
}

# usage MESSAGE ARGS...: `sdimg build ARGS card.layout` (in out/) is a usage error
usage() {
    usage_of card.layout "$@"
}

usage "--compress: 'bogus' is not zst, xz or gz" --compress bogus
usage "--compress: 'ZST' is not zst, xz or gz" --compress ZST
usage "--compress: '' is not zst, xz or gz" --compress :3
usage "--compress zst: the level is a number from 1 to 19" --compress zst:99
usage "--compress zst: the level is a number from 1 to 19" --compress zst:0
usage "--compress zst: the level is a number from 1 to 19" --compress zst:
usage "--compress zst: the level is a number from 1 to 19" --compress zst:3x
usage "--compress xz: the level is a number from 0 to 9" --compress xz:10
usage "--compress xz: the level is a number from 0 to 9" --compress xz:-1
usage "--compress gz: the level is a number from 1 to 9" --compress gz:0
usage "-o x.img.zst ends in .zst but --compress asks for xz" -o x.img.zst --compress xz
usage "-o x.img.xz ends in .xz but --compress asks for gz" -o x.img.xz --compress gz:1
usage "-o x.img.gz ends in .gz but --compress asks for zst" -o x.img.gz --compress zst --bmap --sha256
# two outputs at one name: one of them would be lost
usage "the image and the bmap would both be c.img" -o c.img --bmap=c.img
usage "the compressed image and the checksum file would both be c.img.zst" -o c.img --compress zst --sha256=c.img.zst
usage "the bmap and the checksum file would both be x" --bmap=x --sha256=x
usage "the layout and the image would both be ../card.layout" -o ../card.layout
usage "-o needs a file name" -o ''
usage "--bmap= needs a file name" --bmap=
# IMAGE.cards.json is an output too (written with per-card values, removed without them)
usage "the bmap and the per-card manifest would both be c.img.cards.json" -o c.img --bmap=c.img.cards.json
usage "the checksum file and the per-card manifest would both be x.img.cards.json" -o x.img.zst --sha256=./x.img.cards.json
cp card.layout c.img.cards.json
usage_of c.img.cards.json "the layout and the per-card manifest would both be ../c.img.cards.json" -o ../c.img

# files the build reads: an included layout, the `from` of a raw region, a raw partition,
# a file and a tree's archive; they keep their bytes
head -c 3000 /dev/urandom >spl.bin
head -c 4000 /dev/urandom >part.bin
echo note >n.img.cards.json
tar -cf files.tar -C tree hello.txt
printf 'raw spl { offset = 8K from = "spl.bin" }\n' >inc.layout
cat >reads.layout <<'LAYOUT'
image { size = 64M }
include("inc.layout")
partition raw1 { type = raw size = 1M from = "part.bin" }
partition boot {
    type = fat size = 32M
    file "/note.txt" { from = "n.img.cards.json" }
    tree "/t" { from = "files.tar" }
}
LAYOUT
sha256sum inc.layout spl.bin part.bin n.img.cards.json files.tar >inputs.sums
usage_of reads.layout "an included layout and the image would both be ../inc.layout" -o ../inc.layout
usage_of reads.layout "the input at ../inc.layout:1 and the image would both be ../spl.bin" -o ../spl.bin
usage_of reads.layout "the input at ../reads.layout:3 and the image would both be ../part.bin" -o ../part.bin --compress xz
usage_of reads.layout "the input at ../reads.layout:6 and the per-card manifest would both be ../n.img.cards.json" -o ../n.img
usage_of reads.layout "the input at ../reads.layout:7 and the bmap would both be ../files.tar" -o c.img --bmap=../files.tar
usage_of reads.layout "the input at ../reads.layout:7 and the checksum file would both be ../files.tar" -o ../files.tar.img.zst --sha256=../files.tar
sha256sum --quiet -c inputs.sums || fail "an input of the layout changed"
(cd out && "$SDIMG" build -q ../reads.layout) || fail "reads.layout does not build"

# outputs inside a tree's folder (the next build would copy them in), however named; the
# folder keeps what it holds
rm -f out/reads.img
mkdir -p tree/sub && ln -s tree treelink
printf 'image { table = mbr seed = "r" }\npartition r {\n type = ext4 size = 16M\n tree "/" { from = "treelink/sub" } }\n' >ext.layout
ls -AR tree >tree.list
usage "the input at ../card.layout:2, the folder ../tree, would hold the compressed image ../tree/o.img.zst" -o ../tree/o.img.zst --sha256
usage "the input at ../card.layout:2, the folder ../tree, would hold the image ../treelink/sub/../c.img" -o ../treelink/sub/../c.img
usage "the input at ../card.layout:2, the folder ../tree, would hold the bmap ../treelink/sub/c.bmap" -o c.img --bmap=../treelink/sub/c.bmap
usage "the input at ../card.layout:2, the folder ../tree, would hold the checksum file ../out/../tree/c.sha256" -o c.img --sha256=../out/../tree/c.sha256
usage_of ext.layout "the input at ../ext.layout:4, the folder ../treelink/sub, would hold the image ../tree/sub/c.img" -o ../tree/sub/c.img
[ "$(ls -AR tree)" = "$(cat tree.list)" ] || fail "a refused build wrote into the tree's folder: $(ls -AR tree)"
(cd out && "$SDIMG" build -q -o ../tree.img ../ext.layout) || fail "ext.layout does not build beside its tree"
