# SPDX-License-Identifier: MIT
# The layout language under attack (LAYOUT.md, "Syntax details" and "Limits"): a FIFO for a
# layout, an include or a file of per-card values is refused at once, never waited on; a
# byte order mark opens a layout; a default may hold a variable; includes nest 16 deep and
# no more; an include bomb, a huge layout and a huge variable fail at once with one line that
# names the limit; SOURCE_DATE_EPOCH is decimal digits or an error that says what is wrong
# (empty is unset); a message shows control bytes and bytes that are no UTF-8 escaped.
# Every command runs under `timeout`, so that a program that waits on a FIFO fails the test
# instead of hanging it.
. "$TOP/tests/e2e-lib.sh"

# refused TEXT COMMAND...: COMMAND exits 1 within 20 s with one line on stderr holding TEXT
refused() {
    refused_text=$1
    shift
    expect_status 1 timeout -k 2 20 "$@"
    expect_stderr "$refused_text"
}

printf 'image { size = 16M table = mbr }\npartition boot { type = fat size = 8M\n file "/serial.txt" { content = "serial=\\${CARD_SERIAL}\\n" per-card = true reserve = 64 } }\n' >card.layout
"$SDIMG" build -q --bmap -o card.img card.layout || fail "the plain layout does not build"

# FIFOs: the layout, an include, --card-values, personalize --cards
mkfifo fifo
msg="fifo: not a regular file (a FIFO, a socket or a device)"
refused "$msg: a layout is read only from a file" "$SDIMG" plan fifo
refused "$msg: a layout is read only from a file" "$SDIMG" build -o fifo.img fifo
[ ! -e fifo.img ] || fail "an image was left behind"
printf 'image { size = 16M }\ninclude("fifo")\n' >inc.layout
refused "inc.layout:2: include(\"fifo\"): ./$msg" "$SDIMG" plan inc.layout
printf 'image { size = 16M }\ninclude("/dev/null")\n' >dev.layout
refused "dev.layout:2: include(\"/dev/null\"): /dev/null: not a regular file" "$SDIMG" plan dev.layout
truncate -s 16M target.img
expect_status 1 timeout -k 2 20 "$SDIMG" flash --dry-run --card-values fifo card.img target.img
grep -qF "$msg: the card values are read only from a file" err.txt || { cat err.txt >&2; fail "--card-values fifo"; }
refused "$msg: a per-card manifest is read only from a file" \
    "$SDIMG" personalize card.img --set CARD_SERIAL=1 -o one.img --cards fifo
[ ! -e one.img ] || fail "personalize left an image behind"
# a card image given as --card-values by mistake: refused by its size before it is read
# into memory (under a 256 MiB address-space limit a whole read could not even be tried;
# the sanitizers' shadow memory needs more address space than that)
truncate -s 1G big.csv
as_limit=262144
[ "${SDIMG_SANITIZED:-0}" != 1 ] || as_limit=unlimited
expect_status 1 timeout -k 2 20 sh -c 'ulimit -v "$0"; exec "$@"' "$as_limit" \
    "$SDIMG" flash --dry-run --card-values big.csv card.img target.img
grep -qF "big.csv: over 64 MiB: not a card-values file" err.txt || { cat err.txt >&2; fail "--card-values 1G"; }

# a UTF-8 byte order mark at the start of the layout and of an included file
printf '\357\273\277image { size = 16M table = mbr }\ninclude("part.layout")\n' >bom.layout
printf '\357\273\277partition boot { type = fat size = 8M }\n' >part.layout
expect_status 0 timeout 20 "$SDIMG" build -q -o bom.img bom.layout

# a default holding a variable: ${NOPE:-${B}} is B's value
printf 'image { size = 16M table = mbr }\npartition boot { type = fat size = 8M\n file "/b.txt" { content = "${NOPE:-<${B}>}" } }\n' >nested.layout
expect_status 0 timeout 20 "$SDIMG" build -q -o nested.img --set B=bee nested.layout
[ "$("$SDIMG" cat nested.img:1/b.txt)" = "<bee>" ] || fail "\${NOPE:-\${B}} is not B's value"

# includes nested 16 deep (d0 includes d1, ..., d15 includes d16): accepted; a 17th:
# refused where it is named
mkdir deep
for i in $(seq 0 15); do printf 'include("d%d.layout")\n' $((i + 1)) >deep/d$i.layout; done
printf 'image { size = 16M }\n' >deep/d16.layout
expect_status 0 timeout 20 "$SDIMG" plan deep/d0.layout
printf 'include("d17.layout")\n' >deep/d16.layout
printf 'image { size = 16M }\n' >deep/d17.layout
refused "deep/d16.layout:1: include(\"d17.layout\"): includes nested more than 16 deep" \
    "$SDIMG" plan deep/d0.layout

# an include bomb: each of 7 files includes the next 3 times (3^7 includes)
mkdir bomb
for i in 1 2 3 4 5 6; do
    printf 'include("b%d.layout")\n' $((i + 1)) $((i + 1)) $((i + 1)) >bomb/b$i.layout
done
echo "# leaf" >bomb/b7.layout
refused "more than 256 includes in one layout" "$SDIMG" plan bomb/b1.layout

# a layout over the limit, alone or through its includes, and a variable over its own
head -c 1100000 /dev/zero | tr '\0' '#' >big.layout
refused "big.layout: too large: a layout with its includes and its variables' values holds at most 1 MiB of text" \
    "$SDIMG" plan big.layout
head -c 600000 /dev/zero | tr '\0' '#' >half.layout
printf 'include("half.layout")\ninclude("half.layout")\n' >twice.layout
refused "twice.layout:2: include(\"half.layout\"): ./half.layout: too large: a layout with its includes and its variables' values holds at most 1 MiB of text" \
    "$SDIMG" plan twice.layout
printf 'image { size = 16M }\npartition a { from = ${V} }\n' >var.layout
refused "var.layout:2: \${V} is 70000 bytes long: a variable's value holds at most 64 KiB" \
    "$SDIMG" plan --set "V=$(head -c 70000 /dev/zero | tr '\0' v)" var.layout

# SOURCE_DATE_EPOCH: what date +%s prints, nothing else
for v in 0x10 010 +5 " 5"; do
    refused "SOURCE_DATE_EPOCH: '$v' is not a whole number of seconds as date +%s prints it" \
        env SOURCE_DATE_EPOCH="$v" "$SDIMG" plan card.layout
done
# bytes that are no printable text show escaped, and the message stays one line
refused "SOURCE_DATE_EPOCH: '5\\n' is not a whole number" env SOURCE_DATE_EPOCH="5
" "$SDIMG" plan card.layout
refused "SOURCE_DATE_EPOCH: '\\xFF\\t<U+FEFF>' is not a whole number" \
    env SOURCE_DATE_EPOCH="$(printf '\377\t\357\273\277')" "$SDIMG" plan card.layout
printf '\357\273image { size = 16M }\n' >cutbom.layout
refused "cutbom.layout:1: unknown section '\\xEF\\xBBimage'" "$SDIMG" plan cutbom.layout
printf '\357\273\277\357\273\277image { size = 16M }\n' >twobom.layout
refused "twobom.layout:1: unknown section '<U+FEFF>image'" "$SDIMG" plan twobom.layout
printf 'image { size = 16M }\npartition "a\033[2Jb" { size = 1M\n sise = 1 }\n' >esc.layout
refused "esc.layout:3: unknown key 'sise' in partition 'a\\x1B[2Jb'" "$SDIMG" plan esc.layout
printf 'image { size = 16M }\npartition boot { type = fat size = 8M fat { label = "A\\033B" } }\n' >label.layout
refused "label.layout:2: partition 'boot': fat: label: 'A\\x1BB': '?' cannot stand" "$SDIMG" plan label.layout
refused "SOURCE_DATE_EPOCH: '99999999999999999999999' is too large (at most 4354819199)" \
    env SOURCE_DATE_EPOCH=99999999999999999999999 "$SDIMG" plan card.layout
# an empty SOURCE_DATE_EPOCH is no value: the image is the one built without it
env SOURCE_DATE_EPOCH= "$SDIMG" build -q -o empty-epoch.img card.layout ||
    fail "an empty SOURCE_DATE_EPOCH is refused"
(unset SOURCE_DATE_EPOCH; "$SDIMG" build -q -o no-epoch.img card.layout) ||
    fail "the build without SOURCE_DATE_EPOCH failed"
cmp -s empty-epoch.img no-epoch.img || fail "an empty SOURCE_DATE_EPOCH changed the image"
SOURCE_DATE_EPOCH=1000000000 "$SDIMG" build -q -o epoch.img card.layout || fail "SOURCE_DATE_EPOCH=1000000000"
! cmp -s epoch.img no-epoch.img || fail "SOURCE_DATE_EPOCH=1000000000 left the image unchanged"
echo "ok"
