# SPDX-License-Identifier: MIT
# e2e-long: builds and unit-tests the release tarball from scratch
# `make dist`: sdimg-VERSION.tar.gz of the last commit is the same bytes whatever the umask,
# TZ, LANG and the packer's git settings (core.autocrlf, core.abbrev) (names sorted, owner and
# group 0, every mtime the commit's, gzip -n), and make dist prints its sha256 line; stopped,
# it leaves nothing behind. Unpacked in a folder without git it builds, its sdimg names the
# version and the commit it was made from, its licence headers check (a file that loses its
# line is named, wherever it is), its unit tests and a handful of e2e scripts pass. From a
# checkout, sdimg --version names the commit as git describe does.
. "$TOP/tests/e2e-lib.sh"
need git tar gzip make
[ -e "$TOP/.git" ] || { echo "not a git checkout: make dist has no commit to pack"; exit 77; }
version=$(make -s -C "$TOP" -f - <<'MK'
include config.mk
v: ; @echo $(VERSION)
MK
)
[ -n "$version" ] || fail "config.mk gives no VERSION"
name=sdimg-$version
unset MAKEFLAGS MAKELEVEL MFLAGS BUILD

# from a checkout: the version and git describe's name of the commit
expect_status 0 "$SDIMG" --version
# (the commit it was built from: git describe's words, a tag, -N-g and the short hash)
grep -q "^sdimg $version (git [^ ]*)\$" out.txt || { cat out.txt; fail "--version does not say 'sdimg $version (git DESCRIBE)'"; }
hash=$(sed 's/.*(git \(.*\))$/\1/; s/-dirty$//; s/.*-g\([0-9a-f]*\)$/\1/' out.txt)
git -C "$TOP" rev-parse -q --verify "$hash^{commit}" >/dev/null ||
    { cat out.txt; fail "--version names no commit of the checkout"; }

mkdir a b
(umask 077 && TZ=Asia/Tokyo LANG=C make -s -C "$TOP" DISTDIR="$PWD/a" dist) >make.log 2>&1 ||
    { cat make.log; fail "make dist"; }
(umask 022 && TZ=America/Denver LANG=de_DE.UTF-8 GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=core.autocrlf \
    GIT_CONFIG_VALUE_0=true GIT_CONFIG_KEY_1=core.abbrev GIT_CONFIG_VALUE_1=5 \
    make -s -C "$TOP" DISTDIR="$PWD/b" dist) >make.log 2>&1 || { cat make.log; fail "make dist (again)"; }
grep -qx "sha256  $(sha256sum <"b/$name.tar.gz" | cut -d' ' -f1)  $name.tar.gz" make.log ||
    { cat make.log; fail "make dist does not print the tarball's sha256 line"; }
[ -f "a/$name.tar.gz" ] || fail "make dist wrote no $name.tar.gz"
cmp -s "a/$name.tar.gz" "b/$name.tar.gz" || fail "two make dist give two tarballs"
[ "$(ls -A b)" = "$name.tar.gz" ] || fail "make dist left other files beside the tarball"

# stopped (SIGTERM to its process group) at a few points: no work folder, no partial tarball
mkdir c tmp
for t in 0.2 0.5 1; do
    TMPDIR=$PWD/tmp setsid make -s -C "$TOP" DISTDIR="$PWD/c" dist >/dev/null 2>&1 &
    p=$!
    sleep "$t"
    kill -TERM "-$p" 2>/dev/null || true
    wait "$p" || true
    [ -z "$(ls -A tmp)" ] || { ls -lA tmp; fail "make dist stopped after $t s left its work folder"; }
    case $(ls -A c) in "" | "$name.tar.gz") ;; *) ls -A c; fail "make dist stopped after $t s left its work folder or a partial tarball" ;; esac
    [ ! -e "c/$name.tar.gz" ] || cmp -s "a/$name.tar.gz" "c/$name.tar.gz" || fail "a stopped make dist wrote a partial $name.tar.gz"
done

# gzip -n: no name (FLG.FNAME, RFC 1952 section 2.3.1) and MTIME 0
[ "$(od -An -tu1 -j3 -N1 "a/$name.tar.gz" | tr -d ' ')" = 0 ] || fail "the gzip header has flags (a name?)"
[ "$(od -An -tu4 -j4 -N4 "a/$name.tar.gz" | tr -d ' ')" = 0 ] || fail "the gzip header has an mtime"
# every entry under NAME/, sorted, root's, dated by the last commit, no file writable by others
t=$(git -C "$TOP" log -1 --format=%ct HEAD)
LC_ALL=C tar -tvzf "a/$name.tar.gz" --full-time --numeric-owner >list.txt
LC_ALL=C tar -tzf "a/$name.tar.gz" | grep -v "^$name/" && fail "entries outside $name/"
awk '$2 != "0/0" { print; bad = 1 } END { exit bad }' list.txt || fail "entries not owned by 0/0"
awk '$1 ~ /^.....w|^........w/ { print; bad = 1 } END { exit bad }' list.txt || fail "entries writable by group or others"
when=$(TZ=UTC0 date -d "@$t" '+%Y-%m-%d %H:%M:%S')
TZ=UTC0 tar -tvzf "a/$name.tar.gz" --full-time | awk -v w="$when" '$4 " " $5 != w { print; bad = 1 } END { exit bad }' ||
    fail "entries not dated $when (the last commit)"
git -C "$TOP" ls-files | sed "s|^|$name/|" | LC_ALL=C sort >want.txt
LC_ALL=C tar -tzf "a/$name.tar.gz" | grep -v '/$' | LC_ALL=C sort >got.txt
printf '%s\n' "$name/version.mk" | LC_ALL=C sort -m - want.txt >want2.txt
diff want2.txt got.txt || fail "the tarball holds other files than the commit's and version.mk"
# at its top only what a release has there: no stray files
LC_ALL=C tar -tzf "a/$name.tar.gz" | sed -n "s|^$name/\([^/][^/]*\)\$|\1|p" |
    grep -vxE 'CHANGELOG\.md|LICENSE|Makefile|README\.md|SECURITY\.md|config\.mk|version\.mk|\.clang-format|\.gitignore' &&
    fail "the tarball has unknown files at its top (above)"

# unpacked where no git checkout is: builds, tells its version, checks, passes its unit tests.
# It is built with -O0 (DIST_CFLAGS): what this checks is that the tarball builds and works
# without git, and -O0 compiles in about half the CPU time of the default -O2. The tarball
# holds the commit's files and version.mk only (checked above), so the warnings of -O2 on
# these sources are those of the checkout's own -O2 build (make check's first step).
DIST_CFLAGS=${DIST_CFLAGS:--O0}
mkdir clean && tar -C clean -xzf "a/$name.tar.gz"
src=$PWD/clean/$name
[ ! -e "$src/.git" ] || fail "the tarball holds .git"
env GIT_CEILING_DIRECTORIES="$PWD/clean" make -s -C "$src" -j2 BUILD=build WERROR=1 CFLAGS="$DIST_CFLAGS" all >make.log 2>&1 ||
    { tail -20 make.log; fail "the tarball does not build"; }
"$src/build/sdimg" --version >out.txt
[ "$(cat out.txt)" = "sdimg $version (git $(git -C "$TOP" describe --tags --always --abbrev=12 HEAD))" ] ||
    { cat out.txt; fail "the tarball's sdimg names another version or commit"; }
make -s -C "$src" spdx >make.log 2>&1 || { cat make.log; fail "make spdx in the tarball"; }
# a file that loses its line is named, in folders whose names start with "build" too
for f in mkimage/builder/builder.h examples/buildroot/package/sdimg/sdimg.mk tests/e2e/build_edges.sh; do
    cp "$src/$f" spdx.keep
    sed -i '/SPDX-License-Identifier/d' "$src/$f"
    make -s -C "$src" spdx >make.log 2>&1 && fail "make spdx in the tarball misses $f without its SPDX line"
    grep -q "$f" make.log || { cat make.log; fail "make spdx does not name $f"; }
    cp spdx.keep "$src/$f"
done
if [ "${SDIMG_DIST_UNIT:-1}" = 1 ]; then
    env GIT_CEILING_DIRECTORIES="$PWD/clean" make -s -C "$src" -j2 BUILD=build WERROR=1 CFLAGS="$DIST_CFLAGS" unit >make.log 2>&1 ||
        { tail -30 make.log; fail "the tarball's unit tests"; }
fi
# a handful of e2e scripts from the tarball (the whole check is CI's), with its own sdimg
if [ -n "${SDIMG_DIST_E2E-cli_options build_outputs}" ]; then
    # shellcheck disable=SC2086
    env GIT_CEILING_DIRECTORIES="$PWD/clean" "$src/tests/run-e2e" "$src/build/sdimg" \
        ${SDIMG_DIST_E2E-cli_options build_outputs} >e2e.log 2>&1 ||
        { tail -30 e2e.log; fail "the tarball's e2e scripts"; }
fi
