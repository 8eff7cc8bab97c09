################################################################################
#
# sdimg
#
################################################################################

SDIMG_VERSION = 0.1.0
SDIMG_SITE = $(BR2_EXTERNAL_SDIMG_PATH)/../..
SDIMG_SITE_METHOD = local
HOST_SDIMG_DEPENDENCIES = \
	host-jansson \
	host-libarchive \
	host-openssl \
	host-pkgconf \
	host-util-linux \
	host-xz \
	host-zlib \
	host-zstd

define HOST_SDIMG_BUILD_CMDS
	$(HOST_MAKE_ENV) $(HOST_CONFIGURE_OPTS) \
		$(MAKE) -C $(@D) VERSION=$(SDIMG_VERSION) all
endef

define HOST_SDIMG_INSTALL_CMDS
	$(HOST_MAKE_ENV) $(HOST_CONFIGURE_OPTS) \
		$(MAKE) -C $(@D) VERSION=$(SDIMG_VERSION) PREFIX=$(HOST_DIR) install
endef

$(eval $(host-generic-package))
