#!/bin/sh
# SPDX-License-Identifier: MIT
# BR2_ROOTFS_POST_IMAGE_SCRIPT for the Raspberry Pi 4: output/images/sdcard.img and
# sdcard.img.bmap from card.layout (in place of genimage and genimage-raspberrypi4-64.cfg).
# Buildroot runs it with BINARIES_DIR as its first argument. The kernel is the file the
# kernel= line of rpi-firmware/config.txt names (Image when there is none), as Buildroot's
# own board/raspberrypi/post-image.sh takes it.
set -eu
BOARD_DIR="$(dirname "$0")"
SDIMG_SH="${BR2_EXTERNAL_SDIMG_PATH:-$BOARD_DIR/../..}/support/scripts/sdimg.sh"
images="${1:-${BINARIES_DIR:-}}"
kernel=$(sed -n 's/^kernel=//p' "$images/rpi-firmware/config.txt" 2>/dev/null | tail -n 1)
exec "$SDIMG_SH" -c "$BOARD_DIR/card.layout" --set "KERNEL=${kernel:-Image}" "$@"
