# Compiler and library flags for sdimg (read by the Makefile).
PREFIX  ?= /usr/local
VERSION ?= 0.1.0
CC      ?= cc
PKGS    := fdisk libarchive libcrypto jansson zlib libzstd liblzma ext2fs com_err
PKG_CONFIG ?= pkg-config
READELF ?= readelf

# Where `make install` puts things (DESTDIR in front of each).
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR  ?= $(DATADIR)/man
BASH_COMPLETION_DIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETION_DIR  ?= $(DATADIR)/zsh/site-functions

CPPFLAGS += -D_GNU_SOURCE -I. -DSDIMG_VERSION=\"$(VERSION)\"
CFLAGS   += -std=c11 -Wall -Wextra -O2 -g -MMD -MP
# Warnings are errors only in the project's own builds (.ci/run and `make check` set
# WERROR=1): a distribution's newer compiler may warn where ours does not.
ifeq ($(WERROR),1)
CFLAGS   += -Werror
endif
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
CFLAGS   += $(PKG_CFLAGS)
# libarchive is compiled against but not linked: mkimage/contents/archive_lib.c loads it with
# dlopen when a tree is an archive, by the soname of the one compiled against (below).
LINKED_PKGS := $(filter-out libarchive,$(PKGS))
LDLIBS   += $(shell $(PKG_CONFIG) --libs $(LINKED_PKGS) 2>/dev/null)

# A goal that compiles needs every library of PKGS: one that pkg-config cannot find stops
# the build, named. The goals that install them, or call a make that checks, need none.
NO_PKG_GOALS := deps check-deps demo check unit-san clean uninstall
ifneq ($(filter-out $(NO_PKG_GOALS),$(or $(MAKECMDGOALS),all)),)
PKG_MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),,$(p))))
ifneq ($(PKG_MISSING),)
$(error $(PKG_CONFIG) finds no $(PKG_MISSING): install their development files (Debian: make deps) or set PKG_CONFIG_PATH)
endif
# The soname of the libarchive.so linking would take: in pkg-config's -L folders (with its
# sysroot), else where the compiler finds it.
ARCHIVE_SO := $(firstword $(wildcard \
    $(patsubst -L%,%/libarchive.so,$(filter -L%,$(shell $(PKG_CONFIG) --libs-only-L libarchive))) \
    $(shell $(CC) -print-file-name=libarchive.so)))
LIBARCHIVE_SONAME := $(shell $(READELF) -d $(ARCHIVE_SO) 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
ifeq ($(LIBARCHIVE_SONAME),)
$(error $(READELF) -d reads no soname from libarchive.so ($(or $(ARCHIVE_SO),not found)): install libarchive's development files and binutils, or set READELF)
endif
CPPFLAGS += -DSDIMG_LIBARCHIVE_SONAME=\"$(LIBARCHIVE_SONAME)\"
# dlopen is in glibc's libc since 2.34; before, in libdl.
LDLIBS   += $(shell printf '\043include <dlfcn.h>\nint main(void) { return !dlopen; }\n' | \
                    $(CC) -x c -o /dev/null - 2>/dev/null || echo -ldl)
endif
TEST_LDLIBS := -lcmocka

ifeq ($(SANITIZE),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# Everything `make deps` installs: the build, the unit tests and the end-to-end oracles.
DEB_PACKAGES := gcc make pkg-config libfdisk-dev libarchive-dev libssl-dev \
                libjansson-dev zlib1g-dev libzstd-dev liblzma-dev libext2fs-dev comerr-dev libcmocka-dev dosfstools mtools fdisk gdisk bmap-tools \
                p7zip-full libarchive-tools e2fsprogs jq time zstd xz-utils xxd qemu-system-x86 fuse3 libfuse3-dev strace \
                zsh genimage attr libcap2-bin
