################################################################################
#
# sdimg
#
################################################################################

# SPDX-License-Identifier: MIT

SDIMG_VERSION = 0.1.0
# Built from the sdimg checkout that holds this tree, copied afresh (rsync) on every build or
# rebuild: no download, no hash, no cached tarball. A package in Buildroot's own tree instead
# downloads the release tarball (SDIMG_SOURCE = sdimg-$(SDIMG_VERSION).tar.gz, SDIMG_SITE =
# its folder) and lists its sha256 in sdimg.hash.
SDIMG_SITE = $(BR2_EXTERNAL_SDIMG_PATH)/../..
SDIMG_SITE_METHOD = local
# the checkout's build output folders and tarballs are not sources
HOST_SDIMG_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = \
	--exclude /build --exclude '/build-*' --exclude '/sdimg-*.tar.gz'
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
