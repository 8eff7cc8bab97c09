# SPDX-License-Identifier: MIT
# e2e-long: runs make on the project many times
# What a distribution's package build asks of the Makefile: the packager's CPPFLAGS, CFLAGS
# and LDFLAGS, from the environment or the command line, come after the project's own and
# keep them (the include folders, the C standard, the defines); PKG_CONFIG is the one asked,
# for the test tools too; `make fuzz` and `make bench` never install packages; `make check`
# as root on a machine whose package archive cannot be reached (apt-get update exits 0 there,
# the packages cannot be fetched) names what it does not install and goes on, where the tests
# that need it skip; a new VERSION compiles main.o again; without their locales the
# reproducibility tests skip.
. "$TOP/tests/e2e-lib.sh"
need make cc
unset MAKEFLAGS MAKELEVEL MFLAGS BUILD

# the command line's flags: after the project's, which stay; no -O2 of the project's left
make -n -C "$TOP" BUILD="$PWD/b" CFLAGS="-O0 -DUSER_CFLAG" CPPFLAGS="-DUSER_CPPFLAG" \
    LDFLAGS="-Wl,-O1 -Wl,--as-needed" all >make.log 2>&1 || { cat make.log; fail "make -n with flags"; }
grep -- ' -c -o .*/common/units.o common/units.c' make.log >cc.txt || { cat make.log; fail "no compile command"; }
for f in -I. -std=c11 -Wall -D_GNU_SOURCE -DSDIMG_LIBARCHIVE_SONAME -DUSER_CPPFLAG -DUSER_CFLAG -O0; do
    grep -q -- " $f" cc.txt || { cat cc.txt; fail "the compile command lacks $f"; }
done
! grep -q -- ' -O2' cc.txt || { cat cc.txt; fail "the project's -O2 is on the command line beside the user's CFLAGS"; }
# the user's after the project's: CPPFLAGS after -I., CFLAGS after -Wall
awk '{ for (i = 1; i <= NF; i++) p[$i] = i }
     END { exit !(p["-I."] < p["-DUSER_CPPFLAG"] && p["-Wall"] < p["-DUSER_CFLAG"] && p["-std=c11"] < p["-O0"]) }' cc.txt ||
    { cat cc.txt; fail "the user's flags do not come after the project's"; }
grep -- '-o .*/b/sdimg ' make.log | grep -q -- '-Wl,--as-needed' || fail "LDFLAGS do not reach the link"
# the same from the environment
env CFLAGS="-O1 -DENV_CFLAG" CPPFLAGS="-DENV_CPPFLAG" make -n -C "$TOP" BUILD="$PWD/b" all >make.log 2>&1 ||
    { cat make.log; fail "make -n with flags from the environment"; }
grep -- ' -c -o .*/common/units.o' make.log | grep -- '-I\. .*-DENV_CPPFLAG.*-Wall.*-DENV_CFLAG' >/dev/null ||
    { grep units.o make.log; fail "the environment's flags are not where they belong"; }
# and really compiled that way: one object, with the command line's CPPFLAGS and CFLAGS
make -s -C "$TOP" BUILD="$PWD/b" CFLAGS=-O0 CPPFLAGS=-DUSER_CPPFLAG "$PWD/b/common/units.o" >make.log 2>&1 ||
    { cat make.log; fail "make CFLAGS=-O0 CPPFLAGS=... does not compile"; }

# PKG_CONFIG is the one asked, the test tools' fuse3 too
mkdir bin
cat >bin/my-pkg-config <<'SH'
#!/bin/sh
echo "$*" >>"${PKG_LOG:?}"
exec pkg-config "$@"
SH
chmod +x bin/my-pkg-config
PKG_LOG=$PWD/pkg.log make -n -C "$TOP" BUILD="$PWD/b" PKG_CONFIG="$PWD/bin/my-pkg-config" all >make.log 2>&1 ||
    { cat make.log; fail "make -n with PKG_CONFIG"; }
grep -q 'fdisk' pkg.log || fail "PKG_CONFIG was not asked for the libraries"
grep -q 'fuse3' pkg.log || fail "PKG_CONFIG was not asked for fuse3"

# make fuzz and make bench: no apt-get, no sudo, no install
make -n -C "$TOP" BUILD="$PWD/b" fuzz bench >make.log 2>&1 || true
! grep -E 'apt-get|sudo' make.log || fail "make fuzz or bench would install packages"
grep 'install-deps' make.log | grep -qv -- '--check' && fail "make fuzz or bench calls install-deps to install"

# offline as root: apt-get behaves as apt 2.6 does without network (update warns and exits
# 0 with the old lists, install cannot fetch and exits 100); check-deps names the missing
# and goes on, without installing anything
if [ "$(id -u)" -eq 0 ] && [ -z "${FAKEROOTKEY:-}" ]; then
    cat >bin/apt-get <<'SH'
#!/bin/sh
echo "apt-get $*" >>"${APT_LOG:?}"
case " $* " in
*" update "*)
    echo "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'" >&2
    echo "W: Some index files failed to download. They have been ignored, or old ones used instead." >&2
    exit 0 ;;
*" install "*)
    echo "E: Failed to fetch http://deb.debian.org/debian/pool/main/x.deb  Temporary failure resolving 'deb.debian.org'" >&2
    echo "E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?" >&2
    exit 100 ;;
esac
exit 0
SH
    chmod +x bin/apt-get
    APT_LOG=$PWD/apt.log PATH="$PWD/bin:$PATH" DEB_PACKAGES="sdimg-no-such-package make" DEB_LOCALES="" \
        expect_status 0 "$TOP/tests/install-deps" --if-possible
    grep -q 'not installing (.*sdimg-no-such-package' out.txt ||
        { cat out.txt err.txt; fail "offline check-deps does not say what it did not install"; }
    ! grep 'apt-get .*install' apt.log | grep -qv -- --download-only || fail "offline check-deps ran apt-get install"
    # --check (fuzz, bench): names the missing, asks no apt-get
    rm -f apt.log
    APT_LOG=$PWD/apt.log PATH="$PWD/bin:$PATH" DEB_PACKAGES="sdimg-no-such-package" \
        expect_status 1 "$TOP/tests/install-deps" --check
    grep -q 'missing Debian packages: sdimg-no-such-package' err.txt || { cat err.txt; fail "--check does not name the missing"; }
    [ ! -e apt.log ] || fail "--check called apt-get"
fi

# a new VERSION (or commit) compiles main.o again: sdimg --version says the one given
make -s -C "$TOP" BUILD="$PWD/v" VERSION=1.0.0 "$PWD/v/mkimage/main.o" >make.log 2>&1 ||
    { cat make.log; fail "make main.o"; }
make -C "$TOP" BUILD="$PWD/v" VERSION=1.0.0 "$PWD/v/mkimage/main.o" >make.log 2>&1 || { cat make.log; fail "make main.o (again)"; }
! grep -q 'main\.c' make.log || { cat make.log; fail "main.o is compiled again with the same VERSION"; }
make -C "$TOP" BUILD="$PWD/v" VERSION=9.9.9 "$PWD/v/mkimage/main.o" >make.log 2>&1 || { cat make.log; fail "make main.o VERSION=9.9.9"; }
grep 'main\.c' make.log | grep -q 'SDIMG_VERSION=\\"9\.9\.9\\"' || { cat make.log; fail "make VERSION=9.9.9 does not compile main.o again"; }

# a build chroot has only the C locales: the reproducibility tests skip, naming the missing one
# (they fail with SDIMG_REQUIRE_TOOLS=1, as CI runs them)
mkdir -p fakelocale
printf '#!/bin/sh\n[ "$1" = -a ] && { printf "C\\nC.utf8\\nPOSIX\\n"; exit 0; }\nexec %s "$@"\n' "$(command -v locale)" >fakelocale/locale
chmod +x fakelocale/locale
env -u E2E_ALLOWED_SKIPS -u SDIMG_REQUIRE_TOOLS PATH="$PWD/fakelocale:$PATH" \
    "$TOP/tests/run-e2e" "$SDIMG" build_repro ship_repro >repro.log 2>&1 || { cat repro.log; fail "the reproducibility tests fail without their locales"; }
grep -q 'SKIP build_repro: the locale de_DE.UTF-8 is missing' repro.log &&
    grep -q 'SKIP ship_repro: the locale de_DE.UTF-8 is missing' repro.log || { cat repro.log; fail "the reproducibility tests do not skip, named, without their locales"; }
env -u E2E_ALLOWED_SKIPS SDIMG_REQUIRE_TOOLS=1 PATH="$PWD/fakelocale:$PATH" \
    "$TOP/tests/run-e2e" "$SDIMG" ship_repro >repro.log 2>&1 && { cat repro.log; fail "SDIMG_REQUIRE_TOOLS=1: ship_repro passes without its locale"; }
grep -q 'FAIL: the locale de_DE.UTF-8 is missing' repro.log || { cat repro.log; fail "SDIMG_REQUIRE_TOOLS=1: ship_repro does not fail on its locale"; }
