# Compiler and library flags for sdimg (read by the Makefile).
PREFIX  ?= /usr/local
VERSION ?= 0.1.0
CC      ?= cc
PKGS    := fdisk libarchive libcrypto jansson zlib libzstd liblzma

CPPFLAGS += -D_GNU_SOURCE -I. -DSDIMG_VERSION=\"$(VERSION)\"
CFLAGS   += -std=c11 -Wall -Wextra -Werror -O2 -g -MMD -MP
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS   += $(PKG_CFLAGS)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_LDLIBS := -lcmocka

ifeq ($(SANITIZE),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# Everything `make deps` installs: the build, the unit tests and the end-to-end oracles.
DEB_PACKAGES := gcc make pkg-config libfdisk-dev libarchive-dev libssl-dev \
                libjansson-dev zlib1g-dev libzstd-dev liblzma-dev libcmocka-dev dosfstools mtools fdisk gdisk bmap-tools \
                p7zip-full libarchive-tools e2fsprogs jq time zstd xz-utils xxd qemu-system-x86 fuse3 libfuse3-dev strace
