#!/bin/sh
# SPDX-License-Identifier: MIT
# BR2_ROOTFS_POST_IMAGE_SCRIPT for the Raspberry Pi 4: output/images/sdcard.img and
# sdcard.img.bmap from card.layout (in place of genimage and genimage-raspberrypi4-64.cfg).
# Buildroot runs it with BINARIES_DIR as its first argument.
set -eu
BOARD_DIR="$(dirname "$0")"
SDIMG_SH="${BR2_EXTERNAL_SDIMG_PATH:-$BOARD_DIR/../..}/support/scripts/sdimg.sh"
exec "$SDIMG_SH" -c "$BOARD_DIR/card.layout" "$@"
