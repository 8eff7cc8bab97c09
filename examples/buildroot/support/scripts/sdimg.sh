#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sdimg.sh -c LAYOUT [-o NAME] [--set VAR=VALUE]... [BINARIES_DIR]
#
# Builds the card image a layout describes, from a board's post-image script, the way
# support/scripts/genimage.sh does with a genimage configuration: the inputs are looked up
# in BINARIES_DIR (then in the layout's own folder), and BINARIES_DIR/NAME (sdcard.img)
# is written with its block map NAME.bmap. BINARIES_DIR is the first argument that is not
# an option (a post-image script's first argument), else the environment's. The layout
# sees BINARIES_DIR, TARGET_DIR, HOST_DIR, BUILD_DIR and BR2_CONFIG as ${VAR}; TZ is UTC,
# and SOURCE_DATE_EPOCH counts only with BR2_REPRODUCIBLE=y.
set -eu

die() {
	printf 'sdimg.sh: %s\n' "$*" >&2
	printf 'Usage: %s -c LAYOUT [-o NAME] [--set VAR=VALUE]... [BINARIES_DIR]\n' "${0##*/}" >&2
	exit 1
}

layout=""
name="sdcard.img"
binaries=""
sets=()
while [ $# -gt 0 ]; do
	case "$1" in
	-c|-o|--set)
		[ $# -ge 2 ] || die "option '$1' needs a value"
		case "$1" in
		-c) layout="$2" ;;
		-o) name="$2" ;;
		--set) sets+=(--set "$2") ;;
		esac
		shift 2 ;;
	--set=*)
		sets+=(--set "${1#--set=}")
		shift ;;
	--)
		shift ;;
	-*)
		die "unknown option '$1'" ;;
	*)
		# a post-image script's first argument; the others are its own
		[ -n "$binaries" ] || binaries="$1"
		shift ;;
	esac
done

[ -n "$layout" ] || die "no layout (-c LAYOUT)"
[ -f "$layout" ] || die "no layout file '$layout'"
BINARIES_DIR="${binaries:-${BINARIES_DIR:-}}"
[ -n "$BINARIES_DIR" ] || die "BINARIES_DIR is not set (run from a post-image script)"
[ -d "$BINARIES_DIR" ] || die "BINARIES_DIR '$BINARIES_DIR' is no folder"
[ -n "${HOST_DIR:-}" ] || die "HOST_DIR is not set (run from a post-image script)"
[ -f "${BR2_CONFIG:-}" ] || die "BR2_CONFIG is not set or no file"
sdimg="$HOST_DIR/bin/sdimg"
[ -x "$sdimg" ] || die "$sdimg is not built: enable BR2_PACKAGE_HOST_SDIMG"

export BINARIES_DIR HOST_DIR BR2_CONFIG
export TARGET_DIR="${TARGET_DIR:-}" BUILD_DIR="${BUILD_DIR:-}"
export TZ=UTC
if grep -q '^BR2_REPRODUCIBLE=y$' "$BR2_CONFIG"; then
	[ -n "${SOURCE_DATE_EPOCH:-}" ] || die "BR2_REPRODUCIBLE=y but SOURCE_DATE_EPOCH is not set"
	export SOURCE_DATE_EPOCH
else
	unset SOURCE_DATE_EPOCH
fi

case "$name" in
/*) output="$name" ;;
*) output="$BINARIES_DIR/$name" ;;
esac

exec "$sdimg" build -I "$BINARIES_DIR" -I "$(dirname "$layout")" \
	-o "$output" --bmap ${sets[@]+"${sets[@]}"} "$layout"
