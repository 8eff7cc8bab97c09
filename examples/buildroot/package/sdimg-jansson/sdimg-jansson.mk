################################################################################
#
# sdimg-jansson
#
################################################################################

# SPDX-License-Identifier: MIT

# jansson for the host, which Buildroot builds for the target only: a package of its own
# (host-sdimg-jansson), so that no file of Buildroot's tree needs a change. It installs
# into HOST_DIR like any host library, where host-sdimg's pkg-config finds it.
SDIMG_JANSSON_VERSION = 2.15.0
SDIMG_JANSSON_SOURCE = jansson-$(SDIMG_JANSSON_VERSION).tar.bz2
SDIMG_JANSSON_SITE = \
	https://github.com/akheron/jansson/releases/download/v$(SDIMG_JANSSON_VERSION)
SDIMG_JANSSON_LICENSE = MIT
SDIMG_JANSSON_LICENSE_FILES = LICENSE
HOST_SDIMG_JANSSON_CONF_ENV = LIBS="-lm"

$(eval $(host-autotools-package))
