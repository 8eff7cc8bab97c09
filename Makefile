# SPDX-License-Identifier: MIT
# sdimg: one plain Makefile. `make` builds build/sdimg; `make check` runs every test.
# Flags live in config.mk (the project's own in SDIMG_CPPFLAGS, SDIMG_CFLAGS, SDIMG_LDFLAGS and
# SDIMG_LDLIBS, the user's CPPFLAGS, CFLAGS, LDFLAGS and LDLIBS after them); objects depend on
# their headers through -MMD.
include config.mk

BUILD   ?= build

# One static library per module, each exporting only names with its own prefix (checked by
# tests/check-exports): the program (mkimage/: cli_, cmd_) over its rooms flash/ (flash_),
# importer/ (import_), builder/ (build_), contents/ (content_) and reader/ (reader_), over plan/ (plan_), exfat/ (exfat_), fat/ (fat_),
# ext4/ (ext4_), layouts/ (layout_) and common/ (each file's own name).
common_SRC   := $(wildcard common/*.c)
layouts_SRC  := $(wildcard layouts/*.c)
plan_SRC     := $(wildcard plan/*.c)
fat_SRC      := $(wildcard fat/*.c)
exfat_SRC    := $(wildcard exfat/*.c)
ext4_SRC     := $(wildcard ext4/*.c)
contents_SRC := $(wildcard mkimage/contents/*.c)
builder_SRC  := $(wildcard mkimage/builder/*.c)
reader_SRC   := $(wildcard mkimage/reader/*.c)
flash_SRC    := $(wildcard mkimage/flash/*.c)
importer_SRC := $(wildcard mkimage/importer/*.c)
cli_SRC      := $(filter-out mkimage/main.c,$(wildcard mkimage/*.c))
mkimage_SRC  := $(cli_SRC) $(importer_SRC) $(flash_SRC) $(builder_SRC) $(contents_SRC) $(reader_SRC)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
PRODUCT_SRC := mkimage/main.c $(mkimage_SRC) $(common_SRC) $(layouts_SRC) $(plan_SRC) $(exfat_SRC) $(fat_SRC) $(ext4_SRC)
$(call obj,$(PRODUCT_SRC)): SDIMG_CFLAGS += $(SDIMG_PRODUCT_CFLAGS)
MODULES := cli importer flash builder contents reader plan exfat fat ext4 layouts common
LIBS := $(patsubst %,$(BUILD)/lib%.a,$(MODULES))

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
# Fuzz targets (tests/fuzz/fuzz_NAME.c): `make fuzz` runs them under libFuzzer; `make unit`
# replays their saved corpus (tests/fuzz/corpus/NAME/) through a plain main().
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAYS := $(patsubst %,$(BUILD)/tests/replay_%,$(FUZZ_NAMES))
# Their objects are kept (not removed as intermediate files): make check compiles the tests
# in one make and runs them in another, which must not compile them again.
.SECONDARY: $(patsubst $(BUILD)/tests/%,$(BUILD)/tests/unit/%.o,$(UNIT_TESTS)) \
            $(patsubst %,$(BUILD)/tests/fuzz/fuzz_%.o,$(FUZZ_NAMES)) $(BUILD)/tests/fuzz/replay.o
FUZZ_SECONDS ?= 60
# Inputs up to 64 KiB: room for deep paths, many archive entries and whole small images.
FUZZ_MAX_LEN ?= 65536
# Small programs the end-to-end tests drive (tests/tools/NAME.c -> build/tests/tools/NAME).
TEST_TOOLS := $(patsubst %.c,$(BUILD)/%,$(wildcard tests/tools/*.c))
# faultycard is a FUSE file system (libfuse3); without libfuse3 it is not built and the
# tests that need it skip.
ifeq ($(shell $(PKG_CONFIG) --exists fuse3 2>/dev/null && echo yes),yes)
$(BUILD)/tests/tools/faultycard.o: SDIMG_CFLAGS += $(shell $(PKG_CONFIG) --cflags fuse3)
$(BUILD)/tests/tools/faultycard: SDIMG_LDLIBS += $(shell $(PKG_CONFIG) --libs fuse3)
else
TEST_TOOLS := $(filter-out %/faultycard,$(TEST_TOOLS))
endif

.PHONY: all clang dist spdx analyze deps check-deps demo check exports loops loops-v format-check unit unit-san e2e e2e-san e2e-sanitized test-programs san-test-programs examples fuzz fuzz-ext4 bench install uninstall clean
.DEFAULT_GOAL := all

all: $(BUILD)/sdimg

# The sanitizer build's sdimg gets its options' defaults for where the environment cannot be
# read (tests/san/defaults.c).
SAN_DEFAULTS := $(if $(filter 1,$(SANITIZE)),$(BUILD)/tests/san/defaults.o)
$(BUILD)/sdimg: $(call obj,mkimage/main.c) $(LIBS) $(SAN_DEFAULTS)
	$(CC) $(SDIMG_LDFLAGS) $(LDFLAGS) -o $@ $^ $(SDIMG_LDLIBS) $(LDLIBS)

# `sdimg --version` names the release and the commit (VERSION, GIT_DESCRIBE, config.mk): main.o
# is compiled again when either changes, which $(BUILD)/git-describe records.
$(call obj,mkimage/main.c): SDIMG_CPPFLAGS += -DSDIMG_GIT_DESCRIBE=\"$(GIT_DESCRIBE)\"
$(call obj,mkimage/main.c): $(BUILD)/git-describe
$(BUILD)/git-describe: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION) $(GIT_DESCRIBE)' >$@.new && if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
FORCE:

$(BUILD)/libcommon.a:  $(call obj,$(common_SRC))
$(BUILD)/liblayouts.a: $(call obj,$(layouts_SRC))
$(BUILD)/libplan.a:    $(call obj,$(plan_SRC))
$(BUILD)/libexfat.a:   $(call obj,$(exfat_SRC))
$(BUILD)/libfat.a:     $(call obj,$(fat_SRC))
$(BUILD)/libext4.a:    $(call obj,$(ext4_SRC))
$(BUILD)/libcontents.a: $(call obj,$(contents_SRC))
$(BUILD)/libbuilder.a: $(call obj,$(builder_SRC))
$(BUILD)/libreader.a:  $(call obj,$(reader_SRC))
$(BUILD)/libflash.a:   $(call obj,$(flash_SRC))
$(BUILD)/libimporter.a: $(call obj,$(importer_SRC))
$(BUILD)/libcli.a:     $(call obj,$(cli_SRC))
$(BUILD)/lib%.a:
	@mkdir -p $(dir $@)
	@rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/tests/unit/%.o: SDIMG_CPPFLAGS += -Itests/unit
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(SDIMG_CPPFLAGS) $(CPPFLAGS) $(SDIMG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBS)
	$(CC) $(SDIMG_LDFLAGS) $(LDFLAGS) -o $@ $^ $(SDIMG_LDLIBS) $(LDLIBS) $(TEST_LDLIBS)

$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIBS)
	$(CC) $(SDIMG_LDFLAGS) $(LDFLAGS) -o $@ $^ $(SDIMG_LDLIBS) $(LDLIBS)

$(BUILD)/tests/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $(LIBS)
	$(CC) $(SDIMG_LDFLAGS) $(LDFLAGS) -o $@ $^ $(SDIMG_LDLIBS) $(LDLIBS)

# libFuzzer needs clang; the sources are compiled straight into each target.
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 $(SDIMG_CPPFLAGS) $(CPPFLAGS)
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(common_SRC) $(layouts_SRC) $(plan_SRC) $(exfat_SRC) $(fat_SRC) $(ext4_SRC) $(mkimage_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ $^ $(SDIMG_LDLIBS) $(LDLIBS)

# Neither fuzz nor bench installs anything: a missing package is named (make deps installs it).
fuzz:
	@DEB_PACKAGES="clang" tests/install-deps --check
	@$(MAKE) -s $(patsubst %,build/fuzz/fuzz_%,$(FUZZ_NAMES))
	@for n in $(FUZZ_NAMES); do \
	    mkdir -p build/fuzz/corpus-$$n && \
	    build/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) \
	        -dict=tests/fuzz/$$n.dict \
	        build/fuzz/corpus-$$n tests/fuzz/corpus/$$n >build/fuzz/$$n.log 2>&1; \
	    rc=$$?; tail -3 build/fuzz/$$n.log; [ $$rc -eq 0 ] || exit 1; \
	done

# The release tarball DISTDIR/sdimg-VERSION.tar.gz of the last commit (git archive HEAD), with
# the version.mk that lets it build without git: the same bytes on every machine and whatever
# the packer's git settings (names sorted, owner and group 0, every mtime the commit's, modes
# 644 and 755, gzip -n, no end-of-line conversion, a 12-digit commit name). It is written
# beside its destination and renamed, from a work folder beside it too whose name is known
# before it is made (so a stop at any moment removes it), and nothing is left when make dist
# is stopped; it prints the path and the sha256 line of a Buildroot .hash file. A checkout with uncommitted changes
# is warned about: the tarball holds the last commit, not them.
DISTDIR ?= .
dist:
	@command -v git >/dev/null 2>&1 && [ -e .git ] || { echo "dist: needs a git checkout and git" >&2; exit 1; }
	@[ -z "$$(git status --porcelain --untracked-files=no)" ] || echo "dist: warning: the checkout has" \
	    "uncommitted changes; the tarball holds the last commit ($$(git rev-parse --short=12 HEAD)), not them" >&2
	@set -e; n=sdimg-$(VERSION); out="$(DISTDIR)/$$n.tar.gz"; tmp="$$out.tmp$$$$"; d="$$out.d$$$$"; \
	    trap 'rm -rf "$$d" "$$tmp"' EXIT; trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM; \
	    mkdir -m 700 "$$d"; t=$$(git log -1 --format=%ct HEAD); \
	    mkdir "$$d/$$n"; git -c core.autocrlf=false -c core.eol=lf archive HEAD | tar -C "$$d/$$n" -xf -; \
	    printf '%s\n' '# SPDX-License-Identifier: MIT' \
	        '# Written by make dist: the release and the commit it was made from.' \
	        'VERSION ?= $(VERSION)' "GIT_DESCRIBE ?= $$(git describe --tags --always --abbrev=12 HEAD)" \
	        >"$$d/$$n/version.mk"; \
	    LC_ALL=C tar -C "$$d" --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
	        --mtime="@$$t" --mode=u+rw,go=u-w -cf - "$$n" | gzip -9 -n >"$$tmp"; \
	    mv -f "$$tmp" "$$out"; echo "$$out"; \
	    printf 'sha256  %s  %s\n' "$$(sha256sum <"$$out" | cut -d' ' -f1)" "$$n.tar.gz"

# Debian packages and locales the build and the tests need; a no-op when all are present.
deps:
	@DEB_PACKAGES="$(DEB_PACKAGES)" DEB_LOCALES="$(DEB_LOCALES)" tests/install-deps

# What `make check` does about them: installs them only as root with apt-get and without
# NO_INSTALL=1 (a distribution's package build runs `make check` unprivileged and offline);
# otherwise it names the missing ones and goes on (the tests that need one skip).
check-deps:
	@DEB_PACKAGES="$(DEB_PACKAGES)" DEB_LOCALES="$(DEB_LOCALES)" NO_INSTALL="$(NO_INSTALL)" \
	    tests/install-deps --if-possible

# The ext4 differential fuzzer (tests/e2e/ext4_fuzz.sh) for FUZZ_SECONDS from seed FUZZ_SEED
# (1): random trees built as ext4 and compared; failing seeds go to tests/fuzz/corpus/ext4tree/
FUZZ_SEED ?= 1
fuzz-ext4: all $(BUILD)/tests/tools/randtree
	@d=$$(mktemp -d) && cd $$d && SDIMG=$(abspath $(BUILD)/sdimg) BUILD=$(abspath $(BUILD)) \
	    TOP=$(CURDIR) EXT4_FUZZ_SECONDS=$(FUZZ_SECONDS) EXT4_FUZZ_SEED=$(FUZZ_SEED) \
	    sh $(CURDIR)/tests/e2e/ext4_fuzz.sh; rc=$$?; rm -rf $$d; exit $$rc

examples: all
	@$(MAKE) -s -C examples SDIMG=$(abspath $(BUILD)/sdimg)

demo: deps
	@$(MAKE) -s all
	@$(MAKE) -s -C examples SDIMG=$(abspath $(BUILD)/sdimg) demo

unit: $(UNIT_TESTS) $(FUZZ_REPLAYS)
	@tests/run-unit $(abspath $(UNIT_TESTS))
	@for n in $(FUZZ_NAMES); do $(BUILD)/tests/replay_$$n tests/fuzz/corpus/$$n/* || exit 1; done

# The unit tests again, under AddressSanitizer and UndefinedBehaviorSanitizer, built by
# clang where there is one (SAN_CC), in $(SAN_BUILD): that build is then also the check that
# the program and its tests compile with clang (warnings as errors under WERROR=1) and pass,
# so `make check` does not build them a third time (make clang: a plain clang build).
SAN_CC    ?= $(if $(shell command -v clang 2>/dev/null),clang,$(CC))
SAN_BUILD ?= build/san-$(notdir $(firstword $(SAN_CC)))
unit-san:
	@$(MAKE) -s BUILD=$(SAN_BUILD) SANITIZE=1 CC=$(SAN_CC) unit

# E2E_BESIDE: a command line that run-e2e runs at nice 19 beside the scripts (--beside)
e2e: all $(TEST_TOOLS)
	@tests/run-e2e $(if $(E2E_BESIDE),--beside '$(E2E_BESIDE)') $(abspath $(BUILD)/sdimg)

# The end-to-end scripts of the image reader, the build and the archives again, against
# sdimg and the test tools built with AddressSanitizer and UndefinedBehaviorSanitizer
# ($(SAN_BUILD), as unit-san): a hostile image or input that the release build survives by chance fails
# here (tests/run-e2e --sanitized: any sanitizer report fails its script).
# The subset fits the time of `make check` (about 6 minutes on 2 cores): left out are the
# slowest (build_examples, archive_formats, build_repro, build_zeros), those that spend their
# time waiting for signals and injected delays, and build_outputs, whose runs with /proc
# hidden get the sanitizer runtime's warnings on stderr.
E2E_SAN := inspect* read_* fat_reader ext4_tree archive_bad ext4_archive build_failures \
           build_edges build_input_dirs build_placement build_raw_inputs build_raw_fill \
           build_tree_filters build_type_words build_disk_full layout_hostile build_tree_links
e2e-san:
	@$(MAKE) -s BUILD=$(SAN_BUILD) SANITIZE=1 CC=$(SAN_CC) e2e-sanitized
e2e-sanitized: all $(TEST_TOOLS)
	@tests/run-e2e --sanitized $(abspath $(BUILD)/sdimg) $(foreach p,$(E2E_SAN),'$(p)')
# every program the tests run, built (the program, the test tools, the unit tests and the
# fuzz replays); san-test-programs: those of unit-san and e2e-san
test-programs: all $(TEST_TOOLS) $(UNIT_TESTS) $(FUZZ_REPLAYS)
san-test-programs:
	@$(MAKE) -s BUILD=$(SAN_BUILD) SANITIZE=1 CC=$(SAN_CC) test-programs

# The program built again from scratch (make -B) under clang's static analyzer (scan-build,
# Debian: clang-tools): any report fails, and its HTML pages stay in $(BUILD)/analyze. Only
# the program's sources are analysed (not the tests); the objects are the ones gcc compiles
# beside the analysis (`make check` analyses a build of its own, $(BUILD)/analyzed, beside
# the e2e scripts). Without scan-build the
# program is built unanalysed, with a line saying so, unless SDIMG_REQUIRE_TOOLS=1 (.ci/run).
ANALYZE_JOBS ?= 2
analyze:
	@if command -v scan-build >/dev/null 2>&1; then \
	    scan-build --status-bugs --use-cc=$(CC) -o $(BUILD)/analyze \
	        $(MAKE) -B -j$(ANALYZE_JOBS) BUILD=$(BUILD) all; \
	elif [ "$$SDIMG_REQUIRE_TOOLS" = 1 ]; then \
	    echo "analyze: scan-build not found, and SDIMG_REQUIRE_TOOLS=1 requires it" >&2; exit 1; \
	else \
	    echo "analyze: scan-build not found (clang-tools): the build is not analysed"; \
	    $(MAKE) BUILD=$(BUILD) all; \
	fi

# Each library exports only names with its own prefix.
exports: $(LIBS)
	@tests/check-exports $(BUILD)

# Every source file names its licence (an SPDX-License-Identifier line at its top).
spdx:
	@tests/check-spdx

# No folder has a loop of more than 3 files calling into each other (loops-v: each
# folder's largest).
loops: $(LIBS)
	@tests/check-loops $(BUILD)
loops-v: $(LIBS)
	@tests/check-loops -v $(BUILD)

# The C files against the style of .clang-format: what clang-format would change, named by
# file and line, fails.
FORMAT_FILES = $(shell find . \( -path ./.git -o -path './build*' \) -prune -o -name '*.[ch]' -print | sort)
# Without clang-format it says so and checks nothing, unless SDIMG_REQUIRE_TOOLS=1 (.ci/run).
format-check:
	@if command -v clang-format >/dev/null 2>&1; then \
	    clang-format --dry-run --Werror $(FORMAT_FILES); \
	elif [ "$$SDIMG_REQUIRE_TOOLS" = 1 ]; then \
	    echo "format-check: clang-format not found, and SDIMG_REQUIRE_TOOLS=1 requires it" >&2; exit 1; \
	else \
	    echo "format-check: clang-format not found: the layout of the C files is not checked"; \
	fi

# The program and the unit tests built again with clang (in $(BUILD)/clang) and run: a
# distribution may build with either compiler. Without clang it says so and builds nothing,
# unless SDIMG_REQUIRE_TOOLS=1 (.ci/run).
clang:
	@if command -v clang >/dev/null 2>&1; then \
	    $(MAKE) -s CC=clang BUILD=$(BUILD)/clang all unit; \
	elif [ "$$SDIMG_REQUIRE_TOOLS" = 1 ]; then \
	    echo "clang: clang not found, and SDIMG_REQUIRE_TOOLS=1 requires it" >&2; exit 1; \
	else \
	    echo "clang: clang not found: the build with clang is not tried"; \
	fi

# The project's own builds treat warnings as errors (WERROR=0 turns that off). Each step
# compiles with as many jobs as there are CPUs (JOBS), unless make was given its own -j
# (analyze: ANALYZE_JOBS).
# The compiler checks are two builds: gcc's (all, the program that e2e tests; analyze) and
# clang's under the sanitizers (unit-san, e2e-san; SAN_CC).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# The compiles of the unit tests and of the sanitizer build (clang's, of everything unit-san
# and e2e-san run) use the CPU that the e2e scripts leave idle while they wait (on throttled
# loop devices, sleeps, signals): they run beside them, at nice 19 (at nice 0 once the scripts
# have ended, as root: run-e2e --beside). They only compile: the
# unit tests, one of which makes a loop device, run after the e2e scripts.
# So does the static analysis (scan-build, make analyze), of a build of its own
# ($(BUILD)/analyzed): the e2e scripts test gcc's plain build, made first. So do the checks
# of the sources and libraries (exports, loops, format-check, spdx), which need nothing but
# that build and would otherwise hold the scripts back by half a minute. The analysed build
# compiles at -O0 (about 35 CPU seconds less): its objects are never run, the warnings of the
# optimised build are the first step's, and the analyser follows every path of the
# program's own code at any level (without __OPTIMIZE__, the C library's headers leave out
# the inline bodies they give a few of their functions, such as putchar() and atoi(): the
# analyser sees calls to them there). (The e2e step has
# no -j: the command beside gets its own, not a jobserver it would have to reset.)
CHECK_BESIDE = $(MAKE) -s exports loops format-check spdx && \
    $(MAKE) -s -j$(JOBS) WERROR=$(or $(WERROR),1) test-programs san-test-programs && \
    $(MAKE) -s WERROR=$(or $(WERROR),1) ANALYZE_JOBS=$(JOBS) BUILD=$(BUILD)/analyzed CFLAGS=-O0 analyze
CHECK_MAKE = $(MAKE) -s $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS)) WERROR=$(or $(WERROR),1)
check: check-deps
	@$(CHECK_MAKE) all
	@if [ "$(notdir $(firstword $(SAN_CC)))" != clang ]; then \
	    if [ "$$SDIMG_REQUIRE_TOOLS" = 1 ]; then \
	        echo "check: the sanitizer build's compiler is $(SAN_CC), not clang (SAN_CC; clang not found?), and SDIMG_REQUIRE_TOOLS=1 requires clang" >&2; exit 1; \
	    fi; \
	    echo "check: the sanitizer build's compiler is $(SAN_CC), not clang (SAN_CC; clang not found?): no build tries clang"; \
	fi
	@$(MAKE) -s WERROR=$(or $(WERROR),1) E2E_BESIDE='$(CHECK_BESIDE)' e2e
	@$(CHECK_MAKE) unit
	@$(CHECK_MAKE) unit-san
	@$(CHECK_MAKE) e2e-san

# A measurement against mkfs.fat + mcopy and genimage, not a test.
bench: all $(BUILD)/tests/tools/mktree
	@DEB_PACKAGES="genimage time dosfstools mtools libarchive-tools bmap-tools zstd xz-utils e2fsprogs" tests/install-deps --check
	@tests/bench/run $(abspath $(BUILD)/sdimg) $(abspath $(BUILD)/tests/tools/mktree)

# PREFIX (/usr/local), BINDIR, DATADIR, MANDIR, DOCDIR, BASH_COMPLETION_DIR and ZSH_COMPLETION_DIR
# are in config.mk; DESTDIR goes in front of each.
# The documents go to DOCDIR ($(DATADIR)/doc/sdimg), which the installed manual page names.
DOC_FILES := README.md CHANGELOG.md LICENSE docs/LAYOUT.md docs/DISTROS.md
install: all
	install -D -m 0755 $(BUILD)/sdimg $(DESTDIR)$(BINDIR)/sdimg
	@mkdir -p $(DESTDIR)$(MANDIR)/man1
	sed -e 's|/usr/local/share/doc/sdimg|$(DOCDIR)|g' \
	    -e '/^\.TH /s|"sdimg [^"]*"|"sdimg $(VERSION)"|' docs/sdimg.1 >$(DESTDIR)$(MANDIR)/man1/sdimg.1
	chmod 0644 $(DESTDIR)$(MANDIR)/man1/sdimg.1
	install -D -m 0644 completions/sdimg.bash $(DESTDIR)$(BASH_COMPLETION_DIR)/sdimg
	install -D -m 0644 completions/sdimg.zsh $(DESTDIR)$(ZSH_COMPLETION_DIR)/_sdimg
	install -d $(DESTDIR)$(DOCDIR)
	install -m 0644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sdimg $(DESTDIR)$(MANDIR)/man1/sdimg.1 \
	      $(DESTDIR)$(BASH_COMPLETION_DIR)/sdimg $(DESTDIR)$(ZSH_COMPLETION_DIR)/_sdimg \
	      $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_FILES)))
	@# the folders install made, those that are now empty (their parents are left)
	@for d in $(DESTDIR)$(DOCDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BINDIR) \
	        $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR); do \
	    [ ! -d "$$d" ] || rmdir "$$d" 2>/dev/null || true; done

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
