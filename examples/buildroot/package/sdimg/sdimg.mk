################################################################################
#
# sdimg
#
################################################################################

# SPDX-License-Identifier: MIT

SDIMG_VERSION = 0.1.0
# The release tarball that `make dist` writes into the top of the sdimg checkout that holds
# this tree (run it there first); to build from a published release, point SDIMG_SITE at
# its folder and put its sha256 into sdimg.hash.
SDIMG_SOURCE = sdimg-$(SDIMG_VERSION).tar.gz
SDIMG_SITE = file://$(BR2_EXTERNAL_SDIMG_PATH)/../..
SDIMG_LICENSE = MIT
SDIMG_LICENSE_FILES = LICENSE
# libfdisk (host-util-linux; Buildroot builds it for the host only with the whole of host
# util-linux), jansson (host-sdimg-jansson of this tree), libarchive and libcrypto
# (headers only: both are loaded with dlopen), zlib, zstd, liblzma, libext2fs
HOST_SDIMG_DEPENDENCIES = \
	host-e2fsprogs \
	host-libarchive \
	host-openssl \
	host-pkgconf \
	host-sdimg-jansson \
	host-util-linux \
	host-xz \
	host-zlib \
	host-zstd

HOST_SDIMG_MAKE_OPTS = VERSION=$(SDIMG_VERSION) BUILD=build-host

define HOST_SDIMG_BUILD_CMDS
	$(HOST_MAKE_ENV) $(HOST_CONFIGURE_OPTS) \
		$(MAKE) -C $(@D) $(HOST_SDIMG_MAKE_OPTS) all
endef

define HOST_SDIMG_INSTALL_CMDS
	$(HOST_MAKE_ENV) $(HOST_CONFIGURE_OPTS) \
		$(MAKE) -C $(@D) $(HOST_SDIMG_MAKE_OPTS) PREFIX=$(HOST_DIR) install
endef

$(eval $(host-generic-package))
