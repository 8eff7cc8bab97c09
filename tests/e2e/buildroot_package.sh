# SPDX-License-Identifier: MIT
# examples/buildroot/package/sdimg follows the rules of Buildroot's utils/check-package
# that apply to it (the manual's "Adding new packages" chapter): the .mk file's header block,
# variables named after the package only, tabs in define blocks, no trailing white space, no
# two empty lines, no empty last line, no $(HOST_DIR)/usr, the host-generic-package call
# last; Config.in.host's attributes in order and its help text indented and at most 72
# columns wide; the hash file's lines of three fields two spaces apart, the licence's sum
# the one of LICENSE. The external needs no change to Buildroot's tree: no patches, and
# every host package it depends on is Buildroot's or its own (host-sdimg-jansson, whose .mk
# follows the same rules). The rules are checked on broken copies too.
. "$TOP/tests/e2e-lib.sh"
need awk

PKG=$TOP/examples/buildroot/package/sdimg

# check_mk FILE NAME: the rules for package NAME's .mk file; prints each broken one
check_mk() {
    awk -v name="$2" '
    function bad(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg; errors++ }
    BEGIN { upper = toupper(name); gsub(/-/, "_", upper)
            rule = "################################################################################" }
    { line[FNR] = $0 }
    /[ \t]+$/ { bad("trailing white space") }
    /^$/ { if (prev_empty) bad("consecutive empty lines"); prev_empty = 1; next }
    { prev_empty = 0 }
    /^define / { in_define = 1; next }
    /^endef/ { in_define = 0; next }
    in_define && !/^\t/ { bad("a line of a define block not indented with a tab") }
    /\$\(HOST_DIR\)\/usr/ { bad("$(HOST_DIR)/usr: use $(HOST_DIR)") }
    /^[A-Z0-9_]+[ \t]*(\+|\?|:)?=/ {
        v = $0; sub(/[ \t]*(\+|\?|:)?=.*/, "", v)
        if (index(v, upper "_") != 1 && index(v, "HOST_" upper "_") != 1)
            bad("variable " v " is not named " upper "_* or HOST_" upper "_*")
        if ($0 !~ /^[A-Z0-9_]+ (\+|\?|:)?= /) bad("an assignment takes one space each side")
        seen[v] = 1
    }
    /\\$/ { cont = 1; next }
    { cont = 0 }
    END {
        if (line[1] != rule || line[2] != "#" || line[3] != "# " name || line[4] != "#" ||
            line[5] != rule || line[6] != "")
            bad("the header is not the 80-# rule, #, # " name ", #, rule, empty line")
        if (!seen[upper "_VERSION"]) bad(upper "_VERSION is not set")
        if (line[FNR] == "") bad("an empty last line")
        if (line[FNR] !~ /^\$\(eval \$\((host-)?(generic|autotools|cmake|meson)-package\)\)$/)
            bad("the last line is not the package infrastructure call")
        if (cont) bad("a trailing backslash on the last line")
        exit errors > 0
    }' "$1"
}

# check_config FILE: Kconfig attributes in order; help text tab + 2 spaces, 72 columns
check_config() {
    awk '
    function bad(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg; errors++ }
    BEGIN { order["bool"] = 1; order["default"] = 2; order["depends"] = 3; order["select"] = 4; order["help"] = 5 }
    /[ \t]+$/ { bad("trailing white space") }
    /^config / { in_help = 0; last = 0; next }
    in_help && /^$/ { next }
    in_help && /^\t  / {
        text = $0; sub(/^\t/, "", text)
        if (8 + length(text) > 72) bad("help text over 72 columns")
        next }
    in_help && /^\t/ { bad("help text not indented with a tab and two spaces"); next }
    /^\t[a-z]/ {
        word = $1
        if (!(word in order)) next
        if (order[word] < last) bad(word " after a later attribute (bool, default, depends on, select, help)")
        last = order[word]
        if (word == "help") in_help = 1
        next }
    /^ / { bad("indented with spaces") }
    END { exit errors > 0 }' "$1"
}

# check_hash FILE: comments, empty lines, or "TYPE  HASH  FILE" with two spaces
check_hash() {
    awk '
    function bad(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg; errors++ }
    /^#/ || /^$/ { next }
    {
        n = split($0, f, "  ")
        if (n != 3) { bad("not three fields two spaces apart"); next }
        want = f[1] == "sha256" ? 64 : f[1] == "sha512" ? 128 : f[1] == "sha1" ? 40 : f[1] == "md5" ? 32 : 0
        if (!want) bad("unknown hash type " f[1])
        else if (length(f[2]) != want || f[2] ~ /[^0-9a-f]/) bad("not a " f[1] " in lower-case hex")
    }
    END { exit errors > 0 }' "$1"
}

# check_patch FILE: a git format-patch file with a subject and a Signed-off-by
check_patch() {
    head -1 "$1" | grep -q '^From [0-9a-f]\{40\} ' || { echo "$1: not git format-patch output"; return 1; }
    grep -q '^Subject: \[PATCH[^]]*\] package/[a-z0-9-]*: ' "$1" || { echo "$1: no 'package/NAME: ' subject"; return 1; }
    grep -q '^Signed-off-by: .* <.*>$' "$1" || { echo "$1: no Signed-off-by"; return 1; }
    grep -q '^diff --git a/package/' "$1" || { echo "$1: changes nothing under package/"; return 1; }
}

check_mk "$PKG/sdimg.mk" sdimg >out.txt || { cat out.txt; fail "sdimg.mk breaks a rule"; }
grep -q '^\$(eval \$(host-generic-package))$' "$PKG/sdimg.mk" || fail "sdimg.mk is not a host-generic-package"
grep -q '^config BR2_PACKAGE_HOST_SDIMG$' "$PKG/Config.in.host" || fail "Config.in.host defines no BR2_PACKAGE_HOST_SDIMG"
grep -q '^	bool "host sdimg"$' "$PKG/Config.in.host" || fail "the prompt is not \"host sdimg\""
check_config "$PKG/Config.in.host" >out.txt || { cat out.txt; fail "Config.in.host breaks a rule"; }
check_hash "$PKG/sdimg.hash" >out.txt || { cat out.txt; fail "sdimg.hash breaks a rule"; }
[ ! -e "$TOP/examples/buildroot/patches" ] || fail "the external still ships patches to Buildroot"
grep -q '^SDIMG_LICENSE = MIT$' "$PKG/sdimg.mk" || fail "sdimg.mk does not say MIT"
grep -q '^SDIMG_LICENSE_FILES = LICENSE$' "$PKG/sdimg.mk" || fail "sdimg.mk names no LICENSE"
sum=$(sha256sum "$TOP/LICENSE" | cut -d' ' -f1)
grep -q "^sha256  $sum  LICENSE\$" "$PKG/sdimg.hash" || fail "sdimg.hash lacks LICENSE's sha256 ($sum)"
# built from the checkout that holds the tree (Buildroot's local site method): no download,
# so no tarball hash and no stale cached tarball; the checkout's build folders are not copied
grep -q '^SDIMG_SITE_METHOD = local$' "$PKG/sdimg.mk" || fail "sdimg.mk does not build from the checkout (SITE_METHOD local)"
site=$(sed -n 's/^SDIMG_SITE = //p' "$PKG/sdimg.mk" | sed "s|\$(BR2_EXTERNAL_SDIMG_PATH)|$TOP/examples/buildroot|")
[ -f "$site/Makefile" ] && [ -f "$site/config.mk" ] && [ -f "$site/mkimage/main.c" ] ||
    fail "SDIMG_SITE ($site) is not the top of the sdimg checkout"
excl=$(sed -n '/^HOST_SDIMG_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = /,/[^\\]$/p' "$PKG/sdimg.mk")
for e in "--exclude /build " "--exclude '/build-\*'"; do
    echo "$excl" | grep -q -- "$e" || fail "host-sdimg copies the checkout's build folders ($e missing)"
done
JPKG=$TOP/examples/buildroot/package/sdimg-jansson
check_mk "$JPKG/sdimg-jansson.mk" sdimg-jansson >out.txt || { cat out.txt; fail "sdimg-jansson.mk breaks a rule"; }
grep -q '^\$(eval \$(host-autotools-package))$' "$JPKG/sdimg-jansson.mk" || fail "sdimg-jansson.mk is not a host-autotools-package"
check_hash "$JPKG/sdimg-jansson.hash" >out.txt || { cat out.txt; fail "sdimg-jansson.hash breaks a rule"; }
v=$(sed -n 's/^SDIMG_JANSSON_VERSION = //p' "$JPKG/sdimg-jansson.mk")
grep -q "  jansson-$v.tar.bz2\$" "$JPKG/sdimg-jansson.hash" || fail "sdimg-jansson.hash has no line for jansson-$v.tar.bz2"
# every host package sdimg.mk depends on is one Buildroot has, or one of this tree
for dep in $(sed -n '/^HOST_SDIMG_DEPENDENCIES/,/^$/p' "$PKG/sdimg.mk" | grep -o 'host-[a-z0-9-]*'); do
    case $dep in
        host-e2fsprogs|host-libarchive|host-openssl|host-pkgconf|host-util-linux|host-xz|host-zlib|host-zstd) ;;
        host-sdimg-jansson) ;;
        *) fail "sdimg.mk depends on $dep, which neither Buildroot nor this tree has" ;;
    esac
done

# the checks catch what they are for: broken copies fail
sed 's/^SDIMG_SITE /SDMG_SITE /' "$PKG/sdimg.mk" >t.mk
! check_mk t.mk sdimg >out.txt || fail "a misnamed variable passes"
grep -q 'SDMG_SITE is not named' out.txt || { cat out.txt; fail "the misnamed variable is not named"; }
sed 's/^SDIMG_VERSION = .*/& /' "$PKG/sdimg.mk" >t.mk
! check_mk t.mk sdimg >/dev/null || fail "trailing white space passes"
sed '3s/.*/# sdimage/' "$PKG/sdimg.mk" >t.mk
! check_mk t.mk sdimg >/dev/null || fail "a wrong header passes"
{ cat "$PKG/sdimg.mk"; echo; } >t.mk
! check_mk t.mk sdimg >/dev/null || fail "an empty last line passes"
sed 's/^\t\$(HOST_MAKE_ENV)/    $(HOST_MAKE_ENV)/' "$PKG/sdimg.mk" >t.mk
! check_mk t.mk sdimg >/dev/null || fail "a define block indented with spaces passes"
sed 's/PREFIX=\$(HOST_DIR)/PREFIX=$(HOST_DIR)\/usr/' "$PKG/sdimg.mk" >t.mk
! check_mk t.mk sdimg >/dev/null || fail "\$(HOST_DIR)/usr passes"
awk '{ print } /^\tselect / { print "\tdepends on BR2_USE_MMU" }' "$PKG/Config.in.host" >t.in
! check_config t.in >/dev/null || fail "select before depends on passes"
sed 's/^\t  sdimg builds.*/\t  sdimg builds byte-exact SD card images from a declarative layout file, too long/' \
    "$PKG/Config.in.host" >t.in
! check_config t.in >/dev/null || fail "a help line over 72 columns passes"
printf 'sha256 %064d  sdimg-0.1.0.tar.gz\n' 0 >t.hash
! check_hash t.hash >/dev/null || fail "a hash line with one space passes"
printf 'sha256  %064d  sdimg-0.1.0.tar.gz\n' 0 >t.hash
check_hash t.hash >out.txt || { cat out.txt; fail "a good hash line fails"; }
echo "buildroot_package: ok"
