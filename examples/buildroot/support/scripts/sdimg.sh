#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sdimg.sh -c LAYOUT [-o NAME] [-c LAYOUT [-o NAME]]... [--set VAR=VALUE]... [--no-bmap]
#          [BINARIES_DIR]
#
# Builds the card images layouts describe, from a board's post-image script, the way
# support/scripts/genimage.sh does with genimage configurations: the inputs are looked up
# in BINARIES_DIR (then in each layout's own folder), and each image is written into
# BINARIES_DIR, with its block map NAME.bmap unless --no-bmap. Each -c builds one image:
# the -o after it names it (sdcard.img for a lone layout; the layout's name with .img, as
# board.img for board.layout, when there are several). BINARIES_DIR is the first argument
# that is not an option (a post-image script's first argument), else the environment's.
# The layouts see BINARIES_DIR, TARGET_DIR, HOST_DIR, BUILD_DIR and BR2_CONFIG as ${VAR};
# TZ is UTC, and SOURCE_DATE_EPOCH, which Buildroot exports, dates the files as it says.
# sdimg is HOST_DIR/bin/sdimg (host-sdimg), or the one on PATH when HOST_DIR is not set.
set -eu

usage='-c LAYOUT [-o NAME] [-c LAYOUT [-o NAME]]... [--set VAR=VALUE]... [--no-bmap] [BINARIES_DIR]'
# die MESSAGE: an error of what the call names (a file, a folder, the build); exit 1
die() {
	printf 'sdimg.sh: %s\n' "$*" >&2
	exit 1
}
# die_usage MESSAGE: a call that is wrong in itself, then the usage; exit 1
die_usage() {
	printf 'sdimg.sh: %s\n' "$*" >&2
	printf 'Usage: %s %s\n' "${0##*/}" "$usage" >&2
	exit 1
}

layouts=()
names=()
binaries=""
sets=()
bmap=(--bmap)
while [ $# -gt 0 ]; do
	case "$1" in
	-c|-o|--set)
		[ $# -ge 2 ] || die_usage "option '$1' needs a value"
		case "$1" in
		-c) layouts+=("$2"); names+=("") ;;
		-o)
			[ ${#layouts[@]} -gt 0 ] || die_usage "-o $2 before any -c LAYOUT"
			names[${#names[@]}-1]="$2" ;;
		--set) sets+=(--set "$2") ;;
		esac
		shift 2 ;;
	--set=*)
		sets+=(--set "${1#--set=}")
		shift ;;
	--no-bmap)
		bmap=()
		shift ;;
	--)
		shift ;;
	-*)
		die_usage "unknown option '$1'" ;;
	*)
		# a post-image script's first argument; the others are its own
		[ -n "$binaries" ] || binaries="$1"
		shift ;;
	esac
done

[ ${#layouts[@]} -gt 0 ] || die_usage "no layout (-c LAYOUT)"
for layout in "${layouts[@]}"; do
	[ -f "$layout" ] || die "no layout file '$layout'"
done
BINARIES_DIR="${binaries:-${BINARIES_DIR:-}}"
[ -n "$BINARIES_DIR" ] || die "BINARIES_DIR is not set (run from a post-image script)"
[ -d "$BINARIES_DIR" ] || die "BINARIES_DIR '$BINARIES_DIR' is no folder"
if [ -n "${HOST_DIR:-}" ]; then
	sdimg="$HOST_DIR/bin/sdimg"
	[ -x "$sdimg" ] || die "$sdimg is not built: enable BR2_PACKAGE_HOST_SDIMG"
else
	sdimg=$(command -v sdimg) || die "HOST_DIR is not set and no sdimg is on PATH"
fi

export BINARIES_DIR
export HOST_DIR="${HOST_DIR:-}" BR2_CONFIG="${BR2_CONFIG:-}"
export TARGET_DIR="${TARGET_DIR:-}" BUILD_DIR="${BUILD_DIR:-}"
export TZ=UTC

# the outputs' names, checked all before the first build: no two alike
outputs=()
for i in "${!layouts[@]}"; do
	name="${names[$i]}"
	if [ -z "$name" ]; then
		if [ ${#layouts[@]} -eq 1 ]; then
			name="sdcard.img"
		else
			name="$(basename "${layouts[$i]}" .layout).img"
		fi
	fi
	case "$name" in
	/*) output="$name" ;;
	*) output="$BINARIES_DIR/$name" ;;
	esac
	for o in ${outputs[@]+"${outputs[@]}"}; do
		[ "$o" != "$output" ] || die_usage "two layouts write $output (name them with -o)"
	done
	outputs+=("$output")
done

# Each image is written in a folder of its own outside BINARIES_DIR, then moved there with
# its block map: a layout may take a tree from BINARIES_DIR itself (include = "/*.dtb"),
# which sdimg refuses while the folder would hold the image it writes.
work=$(mktemp -d "${BUILD_DIR:-${TMPDIR:-/tmp}}/sdimg.XXXXXX")
trap 'rm -rf "$work"' EXIT
for i in "${!layouts[@]}"; do
	layout="${layouts[$i]}"
	output="${outputs[$i]}"
	name="${output##*/}"
	"$sdimg" build -q -I "$BINARIES_DIR" -I "$(dirname "$layout")" \
		-o "$work/$name" ${bmap[@]+"${bmap[@]}"} ${sets[@]+"${sets[@]}"} "$layout"
	if [ ${#bmap[@]} -gt 0 ]; then
		mv -f "$work/$name.bmap" "$output.bmap"
	else
		rm -f "$output.bmap"
	fi
	mv -f "$work/$name" "$output"
done
