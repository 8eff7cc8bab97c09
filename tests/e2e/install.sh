# SPDX-License-Identifier: MIT
# `make install` and `make uninstall`: the binary, the manual page and the bash and zsh
# completions land where PREFIX, DESTDIR and the *DIR variables say; the completions know
# every command and every option that `sdimg COMMAND --help` lists.
. "$TOP/tests/e2e-lib.sh"
need make bash

make -s -C "$TOP" BUILD="$BUILD" DESTDIR="$PWD/root" PREFIX=/usr install >make.log 2>&1 ||
    { cat make.log; fail "make install"; }
for f in usr/bin/sdimg usr/share/man/man1/sdimg.1 usr/share/bash-completion/completions/sdimg \
    usr/share/zsh/site-functions/_sdimg; do
    [ -f "root/$f" ] || { find root; fail "make install did not install /$f"; }
done
[ -x root/usr/bin/sdimg ] || fail "the installed sdimg is not executable"
expect_status 0 root/usr/bin/sdimg --version
grep -q '^sdimg [0-9]' out.txt || fail "the installed sdimg prints no version"
cmp -s "$TOP/completions/sdimg.bash" root/usr/share/bash-completion/completions/sdimg ||
    fail "the bash completion is not completions/sdimg.bash"
# the documents in DOCDIR, which the installed manual page names
for f in LAYOUT.md DISTROS.md LICENSE CHANGELOG.md README.md; do
    [ -f "root/usr/share/doc/sdimg/$f" ] || { find root; fail "make install did not install $f in /usr/share/doc/sdimg"; }
done
cmp -s "$TOP/docs/LAYOUT.md" root/usr/share/doc/sdimg/LAYOUT.md || fail "the installed LAYOUT.md is not docs/LAYOUT.md"
grep -q '/usr/share/doc/sdimg/LAYOUT\.md' root/usr/share/man/man1/sdimg.1 ||
    fail "the installed manual page does not name /usr/share/doc/sdimg/LAYOUT.md"
! grep -q '/usr/local/' root/usr/share/man/man1/sdimg.1 || fail "the installed manual page names /usr/local"

# every directory variable on its own
make -s -C "$TOP" BUILD="$BUILD" DESTDIR="$PWD/r2" PREFIX=/opt/sd BINDIR=/opt/bin MANDIR=/opt/man \
    DATADIR=/opt/data ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions install >make.log 2>&1 ||
    { cat make.log; fail "make install with directories"; }
(cd r2 && find . -type f | sort) >got.txt
printf '%s\n' ./opt/bin/sdimg ./opt/data/bash-completion/completions/sdimg ./opt/man/man1/sdimg.1 \
    ./usr/share/zsh/vendor-completions/_sdimg ./opt/data/doc/sdimg/CHANGELOG.md \
    ./opt/data/doc/sdimg/DISTROS.md ./opt/data/doc/sdimg/LAYOUT.md ./opt/data/doc/sdimg/LICENSE \
    ./opt/data/doc/sdimg/README.md | sort >want.txt
diff want.txt got.txt || fail "make install put files elsewhere than its variables say"

# uninstall takes away every file install put there
make -s -C "$TOP" BUILD="$BUILD" DESTDIR="$PWD/root" PREFIX=/usr uninstall >make.log 2>&1 ||
    { cat make.log; fail "make uninstall"; }
[ -z "$(find root -type f)" ] || { find root -type f; fail "make uninstall left files"; }
for d in usr/share/doc/sdimg usr/share/man/man1 usr/bin; do
    [ ! -e "root/$d" ] || fail "make uninstall left the empty folder $d it made"
done

# -Werror only where asked for (WERROR=1; make check asks), and a library pkg-config
# cannot find stops the build, named (a fresh build folder, so that make shows each command)
env -u WERROR -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -n -C "$TOP" BUILD="$PWD/fresh" all >make.log 2>&1 || { cat make.log; fail "make -n all"; }
grep -q -- ' -Wall ' make.log || fail "make -n all shows no compile command"
! grep -q -- '-Werror' make.log || fail "a plain build treats warnings as errors"
make -n -C "$TOP" BUILD="$PWD/fresh" WERROR=1 all >make.log 2>&1 || { cat make.log; fail "make -n all WERROR=1"; }
grep -q -- '-Werror' make.log || fail "WERROR=1 does not treat warnings as errors"
make -n -C "$TOP" BUILD="$PWD/fresh-check" check >make.log 2>&1 || { cat make.log; fail "make -n check"; }
grep -qE 'WERROR=1( [A-Z_]+=[^ ]*)* all$' make.log || fail "make check does not build with WERROR=1"
grep -qE 'WERROR=1( [A-Z_]+=[^ ]*)* analyze' make.log || fail "make check does not analyse with WERROR=1"
expect_status 2 make -s -C "$TOP" BUILD="$PWD/fresh" PKGS="zlib sdimg-no-such-lib" all
grep -q 'pkg-config finds no sdimg-no-such-lib: ' err.txt || { cat err.txt; fail "the missing library is not named"; }
[ ! -e fresh ] || fail "a build without its libraries started"

# the manual page: .TH with the version of config.mk and a date mandoc parses, a SEE ALSO
# section, and nothing mandoc -T lint finds (lines over 80 columns included)
version=$(make -s -C "$TOP" -f - <<'MK'
include config.mk
v: ; @echo $(VERSION)
MK
)
grep -q "^\.TH SDIMG 1 [0-9]\{4\}-[0-9][0-9]-[0-9][0-9] \"sdimg $version\" " "$TOP/docs/sdimg.1" ||
    { grep '^\.TH' "$TOP/docs/sdimg.1"; fail "the manual page's .TH does not carry a date and 'sdimg $version'"; }
grep -q '^\.SH SEE ALSO$' "$TOP/docs/sdimg.1" || fail "the manual page has no SEE ALSO"
# the installed page carries the VERSION the build is given (Buildroot and Yocto pass theirs):
# install's commands, run here on the page alone
make -n -C "$TOP" BUILD="$BUILD" DESTDIR="$PWD/vroot" PREFIX=/usr VERSION=9.9.9 install >make.log 2>&1 ||
    { cat make.log; fail "make -n install VERSION=9.9.9"; }
mkdir -p vroot/usr/share/man/man1
sed -n "/^sed /,/docs\/sdimg.1 >/p" make.log | sed "s|docs/sdimg.1|$TOP/docs/sdimg.1|" >man-install.sh
[ -s man-install.sh ] || { cat make.log; fail "make install writes the manual page with no sed"; }
sh man-install.sh || fail "install's sed of the manual page"
grep -q '^\.TH SDIMG 1 [0-9-]* "sdimg 9\.9\.9" ' vroot/usr/share/man/man1/sdimg.1 ||
    { grep '^\.TH' vroot/usr/share/man/man1/sdimg.1; fail "the installed manual page does not carry VERSION=9.9.9"; }
if command -v mandoc >/dev/null 2>&1; then
    mandoc -T lint -W style "$TOP/docs/sdimg.1" >lint.txt 2>&1 || true
    [ ! -s lint.txt ] || { cat lint.txt; fail "mandoc -T lint finds something in the manual page"; }
elif [ "${SDIMG_REQUIRE_TOOLS:-}" = 1 ]; then
    fail "mandoc is not installed"
fi

# the manual page renders without a warning
if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
    MANWIDTH=80 man --warnings -l "$TOP/docs/sdimg.1" >man.txt 2>man.err || fail "man -l docs/sdimg.1"
    [ ! -s man.err ] || { cat man.err; fail "the manual page has warnings"; }
    awk 'length > 80 { print; bad = 1 } END { exit bad }' man.txt || fail "the manual page has lines over 80 columns"
    tr -s ' ' <man.txt >man1.txt
    for c in build plan flash inspect ls cat; do
        grep -q "sdimg $c" man1.txt || fail "the manual page does not show 'sdimg $c'"
    done
fi

# What the completion offers: offered WORD... (the last word is the one completed).
cat >complete.bash <<'SCRIPT'
. "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
_sdimg
printf '%s\n' "${COMPREPLY[@]}"
SCRIPT
here=$PWD
offered() {
    bash "$here/complete.bash" "$TOP/completions/sdimg.bash" sdimg "$@" | sort
}

# the commands: those that `sdimg --help` lists
"$SDIMG" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 } on { print $1 }' | sort >want.txt
[ "$(wc -l <want.txt)" -ge 6 ] || fail "sdimg --help lists no commands"
offered "" | grep -v '^-' >got.txt
diff want.txt got.txt || fail "bash completion's commands differ from sdimg --help"

# each command's options: every one its --help names (and -h, --help, which give it)
helped_options() {
    { printf '%s\n' -h --help; "$SDIMG" "$1" --help; } | grep -o -- '\(^\| \|\[\|(\|,\)--*[a-zA-Z][a-z0-9-]*' | sed 's/^[ [(,]*//' | sort -u
}
for c in $(cat want.txt); do
    helped_options "$c" >opts.txt
    offered "$c" - >got.txt
    for o in $(cat opts.txt); do
        grep -qx -- "$o=\{0,1\}" got.txt || fail "bash: 'sdimg $c -<TAB>' does not offer $o"
        awk -v c="$c" '$1 == c ")" { on = 1 } on && /;;/ { on = 0 } on' "$TOP/completions/sdimg.zsh" |
            grep -q -- "$o\b" || fail "zsh: 'sdimg $c' does not know $o"
    done
    for o in $(grep -- '^-' got.txt | sed 's/=$//'); do
        grep -qx -- "$o" opts.txt || fail "bash offers $o, which sdimg $c --help does not name"
    done
done

# A sysfs and procfs of disks (SDIMG_SYSFS, SDIMG_PROCFS): flash is offered only the disks
# it would write: not sda (it holds /; nor mmcblk0 when / is a btrfs on it), sdc (fixed), mmcblk1 (eMMC), sdd (no medium), sde
# (read-only), sdf (held by device-mapper), sdg (swap), sdh (mounted), loop0; with
# --allow-fixed also sdc and mmcblk1. inspect is offered every disk.
fake=$PWD/fake
# disk PATH MAJ:MIN REMOVABLE SIZE RO: a whole disk at SYS/devices/PATH (its last word the name)
disk() {
    mkdir -p "$fake/sys/devices/$1" "$fake/sys/block" "$fake/sys/dev/block" "$fake/sys/class/block"
    echo "$2" >"$fake/sys/devices/$1/dev"; echo "$3" >"$fake/sys/devices/$1/removable"
    echo "$4" >"$fake/sys/devices/$1/size"; echo "$5" >"$fake/sys/devices/$1/ro"
    ln -s "../devices/$1" "$fake/sys/block/${1##*/}"
    ln -s "../../devices/$1" "$fake/sys/dev/block/$2"
    ln -s "../../devices/$1" "$fake/sys/class/block/${1##*/}"
}
# part DISKPATH NAME MAJ:MIN: a partition of it
part() {
    mkdir -p "$fake/sys/devices/$1/$2/holders" && echo "$3" >"$fake/sys/devices/$1/$2/dev"
    echo 1 >"$fake/sys/devices/$1/$2/partition"
    ln -s "../../devices/$1/$2" "$fake/sys/dev/block/$3"
    ln -s "../../devices/$1/$2" "$fake/sys/class/block/$2"
}
disk pci0/ata1/block/sda 8:0 0 1000 0 && part pci0/ata1/block/sda sda1 8:1
disk pci0/usb1/1-1/block/sdb 8:16 0 1000 0
disk pci0/ata2/block/sdc 8:32 0 1000 0
disk pci0/usb1/1-2/block/sdd 8:48 1 0 0
disk pci0/usb1/1-3/block/sde 8:64 1 1000 1
disk pci0/usb1/1-4/block/sdf 8:80 1 1000 0 && part pci0/usb1/1-4/block/sdf sdf1 8:81
: >"$fake/sys/devices/pci0/usb1/1-4/block/sdf/sdf1/holders/dm-0"
disk pci0/usb1/1-5/block/sdg 8:96 1 1000 0 && part pci0/usb1/1-5/block/sdg sdg2 8:98
disk pci0/usb1/1-6/block/sdh 8:112 1 1000 0 && part pci0/usb1/1-6/block/sdh sdh1 8:113
disk pci0/usb1/1-7/block/sdi 8:128 1 1000 0
disk mmc0/mmc0:0001/block/mmcblk0 179:0 0 1000 0 && part mmc0/mmc0:0001/block/mmcblk0 mmcblk0p2 179:2
echo SD >"$fake/sys/devices/mmc0/mmc0:0001/type"; ln -s ../.. "$fake/sys/devices/mmc0/mmc0:0001/block/mmcblk0/device"
disk mmc1/mmc1:0001/block/mmcblk1 179:8 0 1000 0
echo MMC >"$fake/sys/devices/mmc1/mmc1:0001/type"; ln -s ../.. "$fake/sys/devices/mmc1/mmc1:0001/block/mmcblk1/device"
disk virtual/block/loop0 7:0 0 1000 0
mkdir -p "$fake/proc/self"
printf '%s\n' '21 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw' '22 21 0:5 / /proc rw - proc proc rw' \
    '23 21 8:113 / /media/card rw - vfat /dev/sdh1 rw' >"$fake/proc/self/mountinfo"
printf 'Filename\tType\tSize\tUsed\tPriority\n/dev/sdg2 partition 1000 0 -2\n' >"$fake/proc/swaps"
printf '%s\n' /dev/mmcblk0 /dev/sdb /dev/sdi >flash-disks.txt
printf '%s\n' /dev/mmcblk0 /dev/mmcblk1 /dev/sdb /dev/sdc /dev/sdi >fixed-disks.txt
printf '/dev/%s\n' mmcblk0 mmcblk1 sda sdb sdc sdd sde sdf sdg sdh sdi >all-disks.txt
SDIMG_SYSFS=$fake/sys SDIMG_PROCFS=$fake/proc offered flash x.img "" | diff flash-disks.txt - ||
    fail "bash: 'sdimg flash IMAGE <TAB>' offers other disks than flash would write"
SDIMG_SYSFS=$fake/sys SDIMG_PROCFS=$fake/proc offered flash --allow-fixed x.img "" | diff fixed-disks.txt - ||
    fail "bash: 'sdimg flash --allow-fixed IMAGE <TAB>' offers other disks"
SDIMG_SYSFS=$fake/sys SDIMG_PROCFS=$fake/proc offered inspect "" | grep '^/dev/' | diff all-disks.txt - ||
    fail "bash: 'sdimg inspect <TAB>' does not offer every disk"
# / on btrfs (or ZFS, overlay): mountinfo gives an anonymous 0:N; the disk is found by the
# mount's source, or by SYS/fs/btrfs/*/devices/ as sdimg flash finds it
cp "$fake/proc/self/mountinfo" mountinfo.keep
printf '%s\n' /dev/sdb /dev/sdi >btrfs-disks.txt
mkdir -p "$fake/sys/fs/btrfs/0123-uuid/devices"
ln -s ../../../../devices/mmc0/mmc0:0001/block/mmcblk0/mmcblk0p2 "$fake/sys/fs/btrfs/0123-uuid/devices/mmcblk0p2"
for src in /dev/mmcblk0p2 none; do
    sed "1s|.*|21 1 0:33 /@ / rw,relatime - btrfs $src rw|" mountinfo.keep >"$fake/proc/self/mountinfo"
    SDIMG_SYSFS=$fake/sys SDIMG_PROCFS=$fake/proc offered flash x.img "" | diff btrfs-disks.txt - ||
        fail "bash: 'sdimg flash IMAGE <TAB>' offers the disk of a btrfs / (source $src)"
    if command -v zsh >/dev/null 2>&1; then
        SDIMG_SYSFS=$fake/sys SDIMG_PROCFS=$fake/proc zsh -f -c 'source <(sed "\$d" "$1")
            _describe() { print -l -- ${(@P)4}; }; words=(sdimg flash x.img ""); _sdimg_disks flash' \
            sh "$TOP/completions/sdimg.zsh" | diff btrfs-disks.txt - ||
            fail "zsh: 'sdimg flash IMAGE <TAB>' offers the disk of a btrfs / (source $src)"
    fi
done
rm -r "$fake/sys/fs"
cp mountinfo.keep "$fake/proc/self/mountinfo"
# this machine's disk of / is never offered to flash
root_src=$(findmnt -n -o SOURCE / 2>/dev/null || true)
case $root_src in
/dev/*)
    root_disk=$(lsblk -ndo PKNAME "$root_src" 2>/dev/null || true)
    root_disk=/dev/${root_disk:-${root_src#/dev/}}
    offered flash x.img "" | grep -qx -- "$root_disk" && fail "bash offers $root_disk, which holds /, to flash"
    ;;
esac
# the user's shell keeps its options: no extglob turned on
bash -c '. "$1"; shopt -u extglob; COMP_WORDS=(sdimg build -o ""); COMP_CWORD=3; _sdimg; shopt -q extglob && exit 1; exit 0' \
    sh "$TOP/completions/sdimg.bash" || fail "the bash completion turns on extglob"
! grep -q 'shopt -s' "$TOP/completions/sdimg.bash" || fail "the bash completion sets a shell option"

# values: layouts for build and plan, images and then block devices for flash
mkdir values && cd values
mkdir -p sub && : >a.layout && : >b.img && : >c.txt
offered build "" >got.txt
printf '%s\n' a.layout sub >want.txt
diff want.txt got.txt || fail "'sdimg build <TAB>' does not offer the layout files and folders"
offered plan -I "" >got.txt
printf 'sub\n' | diff - got.txt || fail "'sdimg plan -I <TAB>' does not offer folders"
offered flash "" >got.txt
printf '%s\n' b.img sub >want.txt
diff want.txt got.txt || fail "'sdimg flash <TAB>' does not offer the images"
offered flash --gaps "" >got.txt
printf '%s\n' discard keep zero | diff - got.txt || fail "'sdimg flash --gaps <TAB>'"
export SDIMG_SYSFS="$fake/sys" SDIMG_PROCFS="$fake/proc"
offered flash b.img "" >got.txt
diff "$here/flash-disks.txt" got.txt || fail "'sdimg flash IMAGE <TAB>' does not offer the disks"
offered flash b.img /dev/x "" | diff "$here/flash-disks.txt" - || fail "a second flash target is not a disk too"
# an option's value is no argument: after each option that --help shows with a VALUE (and
# its value), the command wants what it wants without it
for c in build plan flash personalize inspect ls cat; do
    offered "$c" "" >bare.txt
    for o in $("$SDIMG" "$c" --help | grep -o -- '--[a-z][a-z0-9-]* [A-Z][A-Za-z.|=]*' | cut -d' ' -f1 | sort -u); do
        offered "$c" "$o" v "" | diff bare.txt - >/dev/null ||
            fail "bash: 'sdimg $c $o VALUE <TAB>' takes VALUE for an argument"
    done
done
offered flash --watch --match sdb "" >got.txt
printf '%s\n' b.img sub | diff - got.txt || fail "'sdimg flash --watch --match sdb <TAB>' does not offer the images"
offered flash -- -x.img "" | diff "$here/flash-disks.txt" - || fail "'sdimg flash -- -x.img <TAB>' does not offer the disks"
offered ls -- - | grep -q -- '^-' && fail "'sdimg ls -- -<TAB>' offers options"

cd "$here"

# zsh: what its completion system offers, captured in a pseudo-terminal (zsh/zpty) by a
# compadd that prints each match, for the same words as above (where zsh and a pseudo-terminal
# are at hand)
if command -v zsh >/dev/null 2>&1 && zsh -f -c 'zmodload zsh/zpty && zpty t true' 2>/dev/null; then
    zsh -n "$TOP/completions/sdimg.zsh" || fail "zsh -n completions/sdimg.zsh"
    mkdir -p zfunc && cp "$TOP/completions/sdimg.zsh" zfunc/_sdimg
    cat >capture.zsh <<'SCRIPT'
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1=''; fpath=($2 \$fpath); autoload -U compinit; compinit -u -d $3"
zpty -w z "compadd () { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi; typeset -a hits; builtin compadd -A hits \"\$@\"; print -l -- 'MATCH:'\${^hits}; builtin compadd \"\$@\"; }"
zpty -w z "comppostfuncs=(exit)"
zpty -w z "$1"$'\t'
while zpty -r z line; do print -r -- "$line"; done
SCRIPT
    zoffered() {
        (cd "$here/values" && HOME=$here timeout 20 zsh -f "$here/capture.zsh" "sdimg $*" "$here/zfunc" "$here/zcompdump") |
            tr -d '\r' | sed -n 's/.*MATCH:\([^ ]*\)$/\1/p' | sort -u
    }
    "$SDIMG" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 } on { print $1 }' | sort >want.txt
    zoffered "" | diff want.txt - || fail "zsh: the commands differ from sdimg --help"
    for c in $(cat want.txt); do
        helped_options "$c" >opts.txt
        zoffered "$c -" >got.txt
        for o in $(cat opts.txt); do
            grep -qx -- "$o=\{0,1\}" got.txt || fail "zsh: 'sdimg $c -<TAB>' does not offer $o"
        done
    done
    zoffered build "" >got.txt
    printf '%s\n' a.layout sub | diff - got.txt || fail "zsh: 'sdimg build <TAB>' does not offer the layout files and folders"
    zoffered flash --gaps "" >got.txt
    printf '%s\n' discard keep zero | diff - got.txt || fail "zsh: 'sdimg flash --gaps <TAB>'"
    zoffered flash b.img "" >got.txt
    diff flash-disks.txt got.txt || fail "zsh: 'sdimg flash IMAGE <TAB>' offers other disks than flash would write"
    zoffered flash --allow-fixed b.img "" >got.txt
    diff fixed-disks.txt got.txt || fail "zsh: 'sdimg flash --allow-fixed IMAGE <TAB>' offers other disks"
    unset SDIMG_SYSFS SDIMG_PROCFS
    grep -q "FAT, exFAT or ext4" "$TOP/completions/sdimg.zsh" || fail "zsh does not describe ls and cat as FAT, exFAT and ext4"
fi
echo "install: ok"
