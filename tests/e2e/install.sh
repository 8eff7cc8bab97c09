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

# every directory variable on its own
make -s -C "$TOP" BUILD="$BUILD" DESTDIR="$PWD/r2" PREFIX=/opt/sd BINDIR=/opt/bin MANDIR=/opt/man \
    DATADIR=/opt/data ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions install >make.log 2>&1 ||
    { cat make.log; fail "make install with directories"; }
(cd r2 && find . -type f | sort) >got.txt
printf '%s\n' ./opt/bin/sdimg ./opt/data/bash-completion/completions/sdimg ./opt/man/man1/sdimg.1 \
    ./usr/share/zsh/vendor-completions/_sdimg >want.txt
diff want.txt got.txt || fail "make install put files elsewhere than its variables say"

# uninstall takes away every file install put there
make -s -C "$TOP" BUILD="$BUILD" DESTDIR="$PWD/root" PREFIX=/usr uninstall >make.log 2>&1 ||
    { cat make.log; fail "make uninstall"; }
[ -z "$(find root -type f)" ] || { find root -type f; fail "make uninstall left files"; }

# -Werror only where asked for (WERROR=1; make check asks), and a library pkg-config
# cannot find stops the build, named (a fresh build folder, so that make shows each command)
env -u WERROR -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -n -C "$TOP" BUILD="$PWD/fresh" all >make.log 2>&1 || { cat make.log; fail "make -n all"; }
grep -q -- ' -Wall ' make.log || fail "make -n all shows no compile command"
! grep -q -- '-Werror' make.log || fail "a plain build treats warnings as errors"
make -n -C "$TOP" BUILD="$PWD/fresh" WERROR=1 all >make.log 2>&1 || { cat make.log; fail "make -n all WERROR=1"; }
grep -q -- '-Werror' make.log || fail "WERROR=1 does not treat warnings as errors"
make -n -C "$TOP" BUILD="$PWD/fresh-check" check >make.log 2>&1 || { cat make.log; fail "make -n check"; }
grep -q 'WERROR=1 analyze' make.log || fail "make check does not build with WERROR=1"
expect_status 2 make -s -C "$TOP" BUILD="$PWD/fresh" PKGS="zlib sdimg-no-such-lib" all
grep -q 'pkg-config finds no sdimg-no-such-lib: ' err.txt || { cat err.txt; fail "the missing library is not named"; }
[ ! -e fresh ] || fail "a build without its libraries started"

# the manual page renders without a warning
if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
    MANWIDTH=80 man --warnings -l "$TOP/docs/sdimg.1" >man.txt 2>man.err || fail "man -l docs/sdimg.1"
    [ ! -s man.err ] || { cat man.err; fail "the manual page has warnings"; }
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
offered flash b.img "" >got.txt
for d in /sys/block/*; do
    n=${d##*/}
    case $n in loop*|ram*|zram*|dm-*|md*|sr*|nbd*|'*') ;; *) echo "/dev/$n" ;; esac
done | sort >"$here/disks.txt"
diff "$here/disks.txt" got.txt || fail "'sdimg flash IMAGE <TAB>' does not offer the disks"
offered flash b.img /dev/x "" | diff "$here/disks.txt" - || fail "a second flash target is not a disk too"
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
offered flash -- -x.img "" | diff "$here/disks.txt" - || fail "'sdimg flash -- -x.img <TAB>' does not offer the disks"
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
    diff disks.txt got.txt || fail "zsh: 'sdimg flash IMAGE <TAB>' does not offer the disks"
fi
echo "install: ok"
