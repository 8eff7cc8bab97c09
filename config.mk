# SPDX-License-Identifier: MIT
# Compiler and library flags for sdimg (read by the Makefile).
PREFIX  ?= /usr/local
# The release (CHANGELOG.md). A release tarball holds version.mk, which `make dist` writes:
# the version and the commit it was made from. From a checkout, the commit is what
# `git describe` says (in `sdimg --version`); elsewhere (a tarball, a copy) git is not asked.
-include version.mk
VERSION ?= 0.1.0
ifeq ($(origin GIT_DESCRIBE),undefined)
GIT_DESCRIBE := $(if $(wildcard .git),$(shell git describe --tags --always --abbrev=12 --dirty 2>/dev/null))
endif
CC      ?= cc
PKGS    := fdisk libarchive libcrypto jansson zlib libzstd liblzma ext2fs com_err
PKG_CONFIG ?= pkg-config
READELF ?= readelf

# Where `make install` puts things (DESTDIR in front of each).
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR  ?= $(DATADIR)/man
DOCDIR  ?= $(DATADIR)/doc/sdimg
BASH_COMPLETION_DIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETION_DIR  ?= $(DATADIR)/zsh/site-functions

# What the build needs is in the SDIMG_ variables (the defines, the include folders, the C
# standard, the warnings, the dependency files, the libraries); CPPFLAGS, CFLAGS, LDFLAGS and
# LDLIBS are the user's (environment or command line) and come after them on each command
# line, so `make CFLAGS=-O0` changes the optimisation and keeps the rest.
SDIMG_CPPFLAGS = -D_GNU_SOURCE -I. -DSDIMG_VERSION=\"$(VERSION)\"
# -pthread: build --bmap hashes the ranges on a thread of its own (mkimage/builder/finish.c)
SDIMG_CFLAGS   = -std=c11 -Wall -Wextra -MMD -MP -pthread
SDIMG_LDFLAGS  = -pthread
SDIMG_LDLIBS   =
# The program's own objects (not the tests, their tools and fuzzers) are also held to
# -Wsign-conversion: a size or count that changes sign on the way silently wraps.
SDIMG_PRODUCT_CFLAGS = -Wsign-conversion
# Warnings are errors only in the project's own builds (.ci/run and `make check` set
# WERROR=1): a distribution's newer compiler may warn where ours does not.
ifeq ($(WERROR),1)
SDIMG_CFLAGS   += -Werror
endif
# (each outside question asked once, as the makefiles are read (:=), not again on every
# command line that uses its answer)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
SDIMG_CPPFLAGS += $(PKG_CFLAGS)
# libarchive and libcrypto are compiled against but not linked: mkimage/contents/archive_lib.c
# loads libarchive with dlopen when a tree is an archive, common/sha256.c loads libcrypto when
# an image's bytes are hashed, each by the soname of the one compiled against (below).
DLOPEN_PKGS := libarchive libcrypto
LINKED_PKGS := $(filter-out $(DLOPEN_PKGS),$(PKGS))
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(LINKED_PKGS) 2>/dev/null)
SDIMG_LDLIBS   += $(PKG_LIBS)
# floor() (mkimage/importer/wks_place.c): gcc inlines it at -O2, clang and -O0 call libm
SDIMG_LDLIBS   += -lm

# A goal that compiles needs every library of PKGS: one that pkg-config cannot find stops
# the build, named. The goals that install them, or call a make that checks, need none.
NO_PKG_GOALS := clang dist spdx deps check-deps demo check unit-san e2e-san format-check clean uninstall
ifneq ($(filter-out $(NO_PKG_GOALS),$(or $(MAKECMDGOALS),all)),)
PKG_MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),,$(p))))
ifneq ($(PKG_MISSING),)
$(error $(PKG_CONFIG) finds no $(PKG_MISSING): install their development files (Debian: make deps) or set PKG_CONFIG_PATH)
endif
# $(call so_file,PKG): the PKG.so (libarchive.so, libcrypto.so) linking would take: in
# pkg-config's -L folders (with its sysroot), else where the compiler finds it.
so_file = $(firstword $(wildcard \
    $(patsubst -L%,%/$(1).so,$(filter -L%,$(shell $(PKG_CONFIG) --libs-only-L $(1)))) \
    $(shell $(CC) $(LDFLAGS) -print-file-name=$(1).so)))
# $(call soname,PKG): the soname written in it, which the program passes to dlopen; none
# stops the build. A packager may set LIBARCHIVE_SONAME and LIBCRYPTO_SONAME instead.
soname = $(or $(shell $(READELF) -d $(call so_file,$(1)) 2>/dev/null | \
                      sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'), \
              $(error $(READELF) -d reads no soname from $(1).so ($(or $(call so_file,$(1)),not found)): install $(1)'s development files and binutils, or set READELF))
ifeq ($(origin LIBARCHIVE_SONAME),undefined)
LIBARCHIVE_SONAME := $(call soname,libarchive)
endif
ifeq ($(origin LIBCRYPTO_SONAME),undefined)
LIBCRYPTO_SONAME  := $(call soname,libcrypto)
endif
SDIMG_CPPFLAGS += -DSDIMG_LIBARCHIVE_SONAME=\"$(LIBARCHIVE_SONAME)\" \
                  -DSDIMG_LIBCRYPTO_SONAME=\"$(LIBCRYPTO_SONAME)\"
# dlopen is in glibc's libc since 2.34; before, in libdl.
DL_LIBS := $(shell printf '\043include <dlfcn.h>\nint main(void) { return !dlopen; }\n' | \
                     $(CC) $(LDFLAGS) -x c -o /dev/null - 2>/dev/null || echo -ldl)
SDIMG_LDLIBS   += $(DL_LIBS)
endif
TEST_LDLIBS := -lcmocka

# The user's optimisation and debugging flags where none are given: -O2 -g, and -O1 -g
# under the sanitizers (SANITIZE=1).
ifeq ($(SANITIZE),1)
CFLAGS ?= -O1 -g
SDIMG_CFLAGS   += -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SDIMG_LDFLAGS  += -fsanitize=address,undefined
else
CFLAGS ?= -O2 -g
endif

# Everything `make deps` installs: the build, the unit tests and the end-to-end oracles.
DEB_PACKAGES := gcc make pkg-config libfdisk-dev libarchive-dev libssl-dev \
                libjansson-dev zlib1g-dev libzstd-dev liblzma-dev libext2fs-dev comerr-dev libcmocka-dev dosfstools mtools fdisk gdisk bmap-tools \
                p7zip-full libarchive-tools e2fsprogs jq time zstd xz-utils bzip2 lz4 xxd qemu-system-x86 fuse3 libfuse3-dev strace \
                zsh genimage attr libcap2-bin acl cpio zip valgrind python3 locales clang clang-tools clang-format \
                exfatprogs android-sdk-libsparse-utils libubootenv-tool u-boot-tools \
                exfat-fuse mandoc xxhash
# The locales the reproducibility tests build in (tests/e2e/build_repro.sh, ship_repro.sh):
# `make deps` makes them with locale-gen; a test whose locale is missing fails.
DEB_LOCALES := de_DE.UTF-8 fr_FR.UTF-8
