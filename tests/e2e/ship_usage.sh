#!/bin/sh
# Bad --compress requests are usage errors: exit 2, before any work, with one line that
# names the problem (followed by the hint every usage error of sdimg prints), nothing on
# stdout and nothing written: an unknown kind, a level out of range or not a number, and
# an -o whose suffix names another compression than --compress.
. "$TOP/tests/e2e-lib.sh"

mkdir -p tree out && echo hi >tree/hello.txt
printf 'image { size = 64M }\npartition boot { type = fat size = 32M tree "/" { from = "tree" } }\n' >card.layout

# usage MESSAGE ARGS...: `sdimg build ARGS card.layout` (in out/) is a usage error
usage() {
    msg=$1
    shift
    (cd out && expect_status 2 "$SDIMG" build "$@" ../card.layout && cp err.txt out.txt ../) ||
        fail "sdimg build $*"
    [ "$(wc -l <err.txt)" -eq 2 ] || fail "build $*: $(wc -l <err.txt) lines: $(cat err.txt)"
    [ "$(head -1 err.txt)" = "sdimg: $msg" ] || fail "build $*: '$(head -1 err.txt)', expected 'sdimg: $msg'"
    [ "$(tail -1 err.txt)" = "Try 'sdimg build --help'." ] || fail "build $*: no hint: $(cat err.txt)"
    [ ! -s out.txt ] || fail "build $*: prints on stdout: $(cat out.txt)"
    [ "$(ls -A out | tr '\n' ' ')" = "err.txt out.txt " ] || fail "build $*: wrote $(ls -A out | tr '\n' ' ')"
    rm -f out/err.txt out/out.txt
    echo "build $*: exit 2, $(head -1 err.txt)"
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
