# SPDX-License-Identifier: MIT
# `make check` installs nothing when it may not: a distribution's package build runs it as an
# ordinary user, offline. tests/install-deps --if-possible (what `make check` runs first)
# names missing packages and goes on unless it runs as root with apt-get and without
# NO_INSTALL=1; and the build, run as an unprivileged user with every package present,
# invokes no apt-get, apt, sudo, dpkg or locale-gen. Shims first in PATH log any such call;
# they are first shown to log one made as that user, run directly and through make.
. "$TOP/tests/e2e-lib.sh"
need make tar dpkg-query

work=$PWD
mkdir shims
for t in apt-get apt aptitude sudo dpkg locale-gen localedef; do
    printf '#!/bin/sh\necho "%s $*" >>%s/invoked.log\nexit ${SHIM_STATUS:-1}\n' "$t" "$work" >shims/$t
    chmod 755 shims/$t
done
: >invoked.log
chmod 755 "$work"
chmod 666 invoked.log
if [ "$(id -u)" -eq 0 ]; then
    need setpriv
    # nobody's ids: an ordinary user with no home and no groups
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$work" "$@"; }
else
    as_user() { "$@"; }
fi
nothing_invoked() {
    [ ! -s invoked.log ] || { cat invoked.log; fail "$1 invoked a package tool"; }
}
pkgs="dpkg sdimg-no-such-package"
# the script from a copy the ordinary user can reach (a checkout in /root, mode 0700, is not)
cp "$TOP/tests/install-deps" install-deps
chmod 755 install-deps

# the shims catch the ordinary user's calls (else "nothing invoked" below would prove nothing)
as_user env PATH="$work/shims:$PATH" sh -c 'apt-get -v; sudo -n true; dpkg -l; localedef --help' >/dev/null 2>&1 || true
[ "$(cat invoked.log)" = "$(printf 'apt-get -v\nsudo -n true\ndpkg -l\nlocaledef --help')" ] ||
    { cat invoked.log; fail "the shims did not log the ordinary user's calls"; }
: >invoked.log

# an ordinary user: the missing package and locale are named, nothing runs, the status is 0
as_user env PATH="$work/shims:$PATH" DEB_PACKAGES="$pkgs" DEB_LOCALES="sdimg_NO.UTF-8" \
    "$work/install-deps" --if-possible \
    >out.txt 2>&1 || { cat out.txt; fail "install-deps --if-possible failed as an ordinary user"; }
grep -q 'not installing (not root): missing Debian packages: sdimg-no-such-package' out.txt ||
    { cat out.txt; fail "install-deps does not name the missing package"; }
grep -q 'not making locales (not root): missing locales: sdimg_NO.UTF-8' out.txt ||
    { cat out.txt; fail "install-deps does not name the missing locale"; }
nothing_invoked "install-deps as an ordinary user"

if [ "$(id -u)" -eq 0 ]; then
    # root who says no, and root under fakeroot (a package's binary target)
    PATH="$work/shims:$PATH" DEB_PACKAGES="$pkgs" NO_INSTALL=1 "$work/install-deps" --if-possible \
        >out.txt 2>&1 || { cat out.txt; fail "install-deps with NO_INSTALL=1 failed"; }
    grep -q 'not installing (NO_INSTALL=1)' out.txt || { cat out.txt; fail "NO_INSTALL=1 is not named"; }
    nothing_invoked "install-deps with NO_INSTALL=1"
    PATH="$work/shims:$PATH" DEB_PACKAGES="$pkgs" FAKEROOTKEY=1 "$work/install-deps" --if-possible \
        >out.txt 2>&1 || { cat out.txt; fail "install-deps under fakeroot failed"; }
    grep -q 'not installing (under fakeroot)' out.txt || { cat out.txt; fail "fakeroot is not named"; }
    nothing_invoked "install-deps under fakeroot"
    # root with apt-get: it installs (the shims answer), which shows they catch a call
    PATH="$work/shims:$PATH" DEB_PACKAGES="$pkgs" SHIM_STATUS=0 "$work/install-deps" --if-possible \
        >out.txt 2>&1 || { cat out.txt; fail "install-deps as root failed"; }
    grep -q '^apt-get -q -y install --no-install-recommends sdimg-no-such-package$' invoked.log ||
        { cat invoked.log; fail "install-deps as root did not call apt-get install"; }
    : >invoked.log
fi

# The build as an ordinary user, in a copy of the tree and of the build folder (up to date:
# one file is touched so that something compiles): check-deps, a compile and link, the
# exports check and the example cards, with no package tool called.
mkdir -p src/build
tar -C "$TOP" --exclude=./.git --exclude=./build --exclude=./examples/out -cf - . | tar -C src -xf -
tar -C "$BUILD" --exclude=./san --exclude=./fuzz -cf - . | tar -C src/build -xf -
touch src/mkimage/main.c
[ "$(id -u)" -ne 0 ] || chown -R 65534:65534 src
# the shims catch a call made through make: `make deps` with a missing package asks sudo
as_user env PATH="$work/shims:$PATH" make -s -C src DEB_PACKAGES=sdimg-no-such-package deps \
    >make.log 2>&1 && { cat make.log; fail "make deps installed a package that does not exist"; }
grep -qx 'sudo apt-get -q update' invoked.log ||
    { cat make.log invoked.log; fail "the shims did not log make deps' call of sudo"; }
: >invoked.log
as_user env PATH="$work/shims:$PATH" make -s -C src BUILD=build WERROR=1 check-deps all exports examples \
    >make.log 2>&1 || { tail -30 make.log; fail "the build as an ordinary user failed"; }
nothing_invoked "make check-deps all exports examples as an ordinary user"
! grep -Eq '^(installing|making locales)' make.log || { cat make.log; fail "make check-deps wanted to install"; }
[ -s src/examples/out/raspberrypi4.img ] || fail "the examples were not built"
[ src/build/sdimg -nt src/mkimage/main.c ] || fail "sdimg was not relinked"
echo "check_unprivileged: ok"
