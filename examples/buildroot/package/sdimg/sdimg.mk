################################################################################
#
# sdimg
#
################################################################################

# SPDX-License-Identifier: MIT

SDIMG_VERSION = 0.1.0
SDIMG_SITE = $(BR2_EXTERNAL_SDIMG_PATH)/../..
SDIMG_SITE_METHOD = local
HOST_SDIMG_DEPENDENCIES = \
	host-e2fsprogs \
	host-jansson \
	host-libarchive \
	host-openssl \
	host-pkgconf \
	host-util-linux \
	host-xz \
	host-zlib \
	host-zstd

# a build folder of its own: the local site method also copies a developer's build/
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
