#!/bin/sh
# SPDX-License-Identifier: MIT
# What ships beside an image checks out with the standard tools: `sha256sum -c` passes on
# IMAGE.sha256 (one line per image file written: the raw image, the compressed one, or
# only the compressed one with -o X.img.zst|.xz|.gz), and zstd -d, xz -d and gzip -d give
# back the raw image byte for byte, at the default and at other levels; a name holding a
# backslash, a newline or a carriage return is escaped as sha256sum escapes it. The .gz carries no
# name and no time. bmaptool copy finds IMAGE.bmap beside IMAGE.xz and IMAGE.gz too.
. "$TOP/tests/e2e/lib/ship.sh"
need sha256sum zstd xz gzip cmp bmaptool mke2fs sfdisk jq
make_inputs
# a small card (xz -9 and zstd -19 take their time on random bytes, so the 3 MB kernel is
# cut to 300 KB: its size proves nothing here): the boot loader and the FAT partition
head -c 300000 /dev/urandom >tree/boot/kernel.img
cat >card.layout <<'LAYOUT'
image { size = 20M seed = "small" }
raw spl { offset = 8K from = "spl.bin" size = 1000K }
partition boot { type = fat16 size = 12M fat { cluster-size = 1K } tree "/" { from = "tree" } }
LAYOUT

# build DIR ARGS...: sdimg build into DIR (fresh), quietly
build() {
    dir=$1
    shift
    rm -rf "$dir" && mkdir -p "$dir"
    "$SDIMG" build -q "$@" card.layout >build.log 2>&1 || fail "build $*: $(cat build.log)"
}

# only DIR NAMES...: DIR holds exactly these files
only() {
    dir=$1
    shift
    [ "$(ls -A "$dir" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ] ||
        fail "$dir holds: $(ls -A "$dir" | tr '\n' ' '), expected: $*"
}

# sums_ok DIR SUMS NAMES...: SUMS names exactly NAMES, in order, and sha256sum -c passes in DIR
sums_ok() {
    dir=$1 sums=$2
    shift 2
    [ "$(awk '{ print $2 }' "$sums" | tr '\n' ' ')" = "$* " ] || fail "$sums names: $(cat "$sums")"
    grep -qvE '^[0-9a-f]{64}  [^ /]+$' "$sums" && fail "$sums is not in sha256sum's format: $(cat "$sums")"
    (cd "$dir" && sha256sum --strict -c "$(cd - >/dev/null && realpath "$sums")") >sumcheck.log 2>&1 ||
        fail "sha256sum -c $sums: $(cat sumcheck.log)"
}

# decompresses_to FILE RAW: the standard tool gives RAW back exactly
decompresses_to() {
    case $1 in
        *.zst) zstd -q -t "$1" && zstd -q -d -c "$1" >back.img ;;
        *.xz) xz -t "$1" && xz -d -c "$1" >back.img ;;
        *.gz) gzip -t "$1" && gzip -d -c "$1" >back.img ;;
    esac || fail "decompressing $1"
    cmp -s back.img "$2" || fail "$1 does not decompress to $2"
    rm -f back.img
}

# the raw image and its sum, alone
build plain -o plain/card.img --sha256
only plain card.img card.img.sha256
sums_ok plain plain/card.img.sha256 card.img
[ "$(cut -d' ' -f1 plain/card.img.sha256)" = "$(sha256sum <plain/card.img | cut -d' ' -f1)" ] ||
    fail "the image's sum"
raw=plain/card.img
echo "card.img.sha256: sha256sum -c passes"

for kind in zst xz gz; do
    # the raw image and a compressed copy: two lines
    build $kind -o $kind/card.img --compress $kind --sha256 --bmap
    only $kind card.img card.img.$kind card.img.sha256 card.img.bmap
    cmp -s $kind/card.img $raw || fail "--compress $kind: another raw image"
    sums_ok $kind $kind/card.img.sha256 card.img card.img.$kind
    decompresses_to $kind/card.img.$kind $raw
    # only the compressed image (-o X.img.KIND): one line, no raw image
    build only-$kind -o only-$kind/card.img.$kind --sha256 --bmap
    only only-$kind card.img.$kind card.img.sha256 card.img.bmap
    sums_ok only-$kind only-$kind/card.img.sha256 card.img.$kind
    decompresses_to only-$kind/card.img.$kind $raw
    cmp -s only-$kind/card.img.$kind $kind/card.img.$kind || fail "-o card.img.$kind and --compress $kind differ"
    cmp -s only-$kind/card.img.bmap $kind/card.img.bmap || fail "-o card.img.$kind: another bmap"
    # bmaptool reads it, with the bmap beside it
    bmaptool copy only-$kind/card.img.$kind target.bin >copy.log 2>&1 || fail "bmaptool copy card.img.$kind: $(cat copy.log)"
    grep -q "discovered bmap file 'only-$kind/card.img.bmap'" copy.log || fail "bmaptool did not find card.img.bmap: $(cat copy.log)"
    check_sums target.bin only-$kind/card.img.bmap
    echo "$kind: sha256sum -c passes (raw + compressed, compressed alone), the tools decompress it to the image, bmaptool copies it"
done

# the .gz header: no file name (FLG 0) and no time (MTIME 0), OS 3 (Unix)
[ "$(od -An -tu1 -j3 -N1 gz/card.img.gz | tr -d ' ')" = 0 ] || fail ".gz: header flags are not 0"
[ "$(le gz/card.img.gz 4 4)" = 0 ] || fail ".gz: a time in the header"
[ "$(od -An -tu1 -j9 -N1 gz/card.img.gz | tr -d ' ')" = 3 ] || fail ".gz: OS is not 3"

# other levels
for kl in zst:1 zst:19 xz:0 xz:9 gz:1 gz:9; do
    kind=${kl%:*}
    rm -rf lv && mkdir lv
    build lv -o lv/card.img --compress "$kl" --sha256
    cmp -s lv/card.img $raw || fail "--compress $kl: another raw image"
    sums_ok lv lv/card.img.sha256 card.img card.img.$kind
    decompresses_to lv/card.img.$kind $raw
    # -o card.img.KIND with --compress KIND:LEVEL: that one file, at that level
    rm -rf lvo && mkdir lvo
    build lvo -o lvo/card.img.$kind --compress "$kl"
    [ "$(ls lvo)" = "card.img.$kind" ] || fail "-o card.img.$kind --compress $kl wrote $(ls lvo | tr '\n' ' ')"
    cmp -s lvo/card.img.$kind lv/card.img.$kind || fail "-o card.img.$kind --compress $kl: another file"
done
echo "levels zst 1, 19, xz 0, 9, gz 1, 9: decompress to the image, sha256sum -c passes"

# --sha256=FILE and --bmap=FILE elsewhere: the sums still name the image files beside the image
mkdir -p sums maps
build named -o named/card.img --compress zst --sha256=sums/card.sums --bmap=maps/card.map
only named card.img card.img.zst
only sums card.sums
only maps card.map
sums_ok named sums/card.sums card.img card.img.zst
cmp -s maps/card.map zst/card.img.bmap || fail "--bmap=FILE: another bmap"
echo "--sha256=FILE, --bmap=FILE: written where asked"

# names with a backslash, a newline or a carriage return: escaped as sha256sum escapes them
# (a leading backslash on the line), so that sha256sum -c finds each file
for name in 'back\slash.img' "$(printf 'new\nline.img')" "$(printf 'cr\rin.img')" "$(printf 'end.img\r')"; do
    rm -rf odd && mkdir odd
    "$SDIMG" build -q -o "odd/$name" --compress gz --sha256 card.layout >build.log 2>&1 ||
        fail "build -o $name: $(cat build.log)"
    # byte for byte what sha256sum writes (a carriage return it escapes since coreutils 9)
    (cd odd && sha256sum "$name" "$name.gz") >want.sha256
    case $name in
        *"$(printf '
')"*) grep -q '\\r' want.sha256 || cp "odd/$name.sha256" want.sha256 ;;
    esac
    cmp -s want.sha256 "odd/$name.sha256" || fail "$name.sha256 is not what sha256sum writes: $(od -c "odd/$name.sha256" | head -5)"
    (cd odd && sha256sum --strict -c "$name.sha256") >sumcheck.log 2>&1 ||
        fail "sha256sum -c $name.sha256: $(cat sumcheck.log)"
    cmp -s "odd/$name" $raw || fail "-o $name: another image"
done
echo "names with a backslash, a newline, a carriage return: sha256sum -c passes"
