#!/bin/sh
# SPDX-License-Identifier: MIT
# Every command reads its options through one parser, and says a bad command line one way:
# exit 2, nothing on stdout, one line naming the problem and the hint to the command's
# --help. For each command `sdimg --help` lists: an unknown long and short option, an option
# that wants an argument given none, an option that takes none given one, no argument at
# all; -h and --help exit 0 with the usage on stdout. Options go before or after the
# arguments, as --opt=VALUE or --opt VALUE, and "--" ends them.
. "$TOP/tests/e2e-lib.sh"

# refused WANT COMMAND ARGS...: `sdimg COMMAND ARGS` exits 2 with "sdimg: WANT" and the
# hint to `sdimg COMMAND --help` (only "sdimg --help" for sdimg's own options: COMMAND "")
refused() {
    msg=$1 cmd=$2
    shift 2
    expect_status 2 "$SDIMG" ${cmd:+"$cmd"} "$@"
    hint="Try 'sdimg${cmd:+ $cmd} --help'."
    [ "$(wc -l <err.txt)" -eq 2 ] || fail "sdimg $cmd $*: $(wc -l <err.txt) lines: $(cat err.txt)"
    [ "$(head -1 err.txt)" = "sdimg: $msg" ] ||
        fail "sdimg $cmd $*: '$(head -1 err.txt)', expected 'sdimg: $msg'"
    [ "$(tail -1 err.txt)" = "$hint" ] || fail "sdimg $cmd $*: no hint: $(cat err.txt)"
    [ ! -s out.txt ] || fail "sdimg $cmd $*: prints on stdout: $(cat out.txt)"
}

# usage_refused COMMAND ARGS...: as refused, whatever the line says
usage_refused() {
    cmd=$1
    shift
    expect_status 2 "$SDIMG" "$cmd" "$@"
    [ "$(wc -l <err.txt)" -eq 2 ] || fail "sdimg $cmd $*: $(wc -l <err.txt) lines: $(cat err.txt)"
    [ "$(tail -1 err.txt)" = "Try 'sdimg $cmd --help'." ] || fail "sdimg $cmd $*: no hint: $(cat err.txt)"
    [ ! -s out.txt ] || fail "sdimg $cmd $*: prints on stdout: $(cat out.txt)"
}

"$SDIMG" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 } on { print $1 }' >commands.txt
[ "$(wc -l <commands.txt)" -ge 7 ] || fail "sdimg --help lists $(wc -l <commands.txt) commands"

for c in $(cat commands.txt); do
    for h in -h --help; do
        expect_status 0 "$SDIMG" "$c" "$h"
        head -1 out.txt | grep -q "^Usage: sdimg $c " || fail "sdimg $c $h: $(head -1 out.txt)"
        [ ! -s err.txt ] || fail "sdimg $c $h: $(cat err.txt)"
    done
    "$SDIMG" "$c" --help >help.txt
    refused "unknown option '--no-such-option'" "$c" --no-such-option x.img
    refused "unknown option '--no-such-option'" "$c" x.img --no-such-option=1
    refused "unknown option '-Z'" "$c" -Z x.img
    # an option of its --help that wants an argument ("--set VAR=VALUE"), given none
    takes=$(grep -o -- '--[a-z][a-z0-9-]* [A-Z]' help.txt | head -1 | cut -d' ' -f1)
    if [ -n "$takes" ]; then
        refused "option '$takes' needs an argument" "$c" x.img "$takes"
    fi
    # an option of its --help that takes none ("--json", "--long"), given one
    flag=$(grep -o -- '^ *\(-[a-zA-Z], \)\?--[a-z][a-z0-9-]*\(  \|$\)' help.txt | grep -v -- '--help' |
        head -1 | sed 's/.*\(--[a-z0-9-]*\).*/\1/')
    if [ -n "$flag" ]; then
        refused "option '$flag' takes no argument" "$c" "$flag=1" x.img
    fi
    usage_refused "$c"
    echo "$c: -h, --help; unknown options, ${takes:-no option with an argument}, ${flag:-no flag}, no argument"
done

# a short option refused inside a group is named alone, whatever came before it; a long one
# by its name, without its =VALUE; an abbreviation that fits two options is said to
refused "unknown option '-x'" ls -lx x.img
refused "unknown option '-x'" ls --long -xl x.img
refused "unknown option '--no-such'" ls --recursive --no-such=a/b x.img
refused "option '--c' is ambiguous" flash --c x.img
refused "option '--output' needs an argument" build card.layout --outp
refused "option '-o' needs an argument" personalize x.img --set A=1 -o

# sdimg's own options, before the command
refused "unknown option '--no-such-option'" "" --no-such-option build
refused "unknown option '-Z'" "" -Z
refused "no command given" ""
expect_status 0 "$SDIMG" --version
grep -q '^sdimg ' out.txt || fail "sdimg --version: $(cat out.txt)"

# options before and after the arguments, --opt=VALUE and --opt VALUE, and "--"
printf 'image { size = 16M }\npartition boot { type = fat size = 8M }\n' >card.layout
expect_status 0 "$SDIMG" plan card.layout --json
grep -q '"regions"' out.txt || fail "plan LAYOUT --json: $(cat out.txt)"
expect_status 0 "$SDIMG" plan --set=A=1 --json -I . card.layout
expect_status 0 "$SDIMG" build -q card.layout --output=card.img
expect_status 0 "$SDIMG" inspect card.img --erase-block 4M
expect_status 0 "$SDIMG" inspect --erase-block=4M card.img
cp card.img ./-l.img
expect_status 0 "$SDIMG" ls -- -l.img:1
expect_status 0 "$SDIMG" ls -l -- -l.img:1
expect_status 0 "$SDIMG" ls card.img:1 -l -R
refused "option '--erase-block' needs an argument" inspect card.img --erase-block
# "--" ends the options: what follows is an argument, whatever it looks like
expect_status 1 "$SDIMG" cat -- -missing.img:1/a
expect_stderr "-missing.img:1/a: no such image"
echo "options before and after arguments, both forms of an argument, and -- pass"

# POSIXLY_CORRECT in the environment changes nothing: options after the arguments are still
# options (flash's --dry-run after the targets must not write them)
POSIXLY_CORRECT=1 expect_status 0 "$SDIMG" plan card.layout --json
grep -q '"regions"' out.txt || fail "POSIXLY_CORRECT: plan LAYOUT --json: $(cat out.txt)"
rm -f posix.img
POSIXLY_CORRECT=1 expect_status 0 "$SDIMG" build card.layout -q -o posix.img
[ -f posix.img ] && [ ! -s out.txt ] || fail "POSIXLY_CORRECT: build LAYOUT -q -o IMAGE: $(cat out.txt err.txt)"
POSIXLY_CORRECT=1 expect_status 1 "$SDIMG" flash card.img /dev/null --dry-run --json
grep -q '"dry_run": true' out.txt || fail "POSIXLY_CORRECT: flash ... --dry-run --json: $(cat out.txt err.txt)"
grep -q -- '--dry-run' err.txt && fail "POSIXLY_CORRECT: --dry-run taken as a target: $(cat err.txt)"
echo "options after the arguments with POSIXLY_CORRECT set pass"

# a value that looks like an option is a forgotten value, not a name: refused unless given
# as --opt=VALUE; nothing is written
refused "option '--report' needs a name, not '--dry-run' (a name that starts with '-' is written --report=--dry-run)" \
    flash --report --dry-run card.img /dev/null
[ ! -e ./--dry-run ] || fail "flash --report --dry-run: wrote a report named --dry-run"
refused "option '--output' needs a name, not '--' (a name that starts with '-' is written --output=--)" \
    build --output -- card.layout
refused "option '-o' needs a name, not '-q' (a name that starts with '-' is written --output=-q)" \
    build card.layout -o -q
refused "option '--bmap' needs a name, not '--no-verify' (a name that starts with '-' is written --bmap=--no-verify)" \
    flash --bmap --no-verify card.img /dev/null
refused "option '--cards' needs a name, not '-o' (a name that starts with '-' is written --cards=-o)" \
    personalize card.img --cards -o x.img --set A=1
expect_status 0 "$SDIMG" build -q card.layout --output=-dash.img
[ -f ./-dash.img ] || fail "build --output=-dash.img wrote no -dash.img"
echo "a value that looks like an option is refused, --opt=VALUE taken: pass"

# flash's safety overrides only in full; other options may still be shortened
refused "option '--a': write '--allow-fixed' in full (it turns a safety check off)" flash --a card.img /dev/null
refused "option '--no': write '--no-verify' in full (it turns a safety check off)" flash card.img /dev/null --no
refused "option '--allow-fix': write '--allow-fixed' in full (it turns a safety check off)" \
    flash --allow-fix --watch --match sdx card.img
expect_status 1 "$SDIMG" flash --dry --js card.img /dev/null
grep -q '"dry_run": true' out.txt || fail "flash --dry --js: $(cat out.txt err.txt)"
echo "safety overrides only in full: pass"

# a usage error is one line, whatever bytes the command line holds
refused "unknown option '--foo\\nbar'" build "--foo
bar" card.layout
refused "unknown option '--\\x1B[31mred'" "" "$(printf '%s' '--'; printf '\033'; printf '[31mred')"
refused "unknown option '--\\xFF\\xFE'" build "$(printf '%s\377\376' --)" card.layout
refused "unknown option '-é'" build -é card.layout
refused "--set wants VAR=VALUE, not 'A\\nB'" build --set "A
B" card.layout
refused "unknown command 'x\\ty'" "" "$(printf 'x\ty')"
expect_status 1 "$SDIMG" ls "$(printf 'x\ny')"
[ "$(cat err.txt)" = 'sdimg: x\ny: no such image (write IMAGE[:PART][/PATH])' ] || fail "ls 'x<newline>y': $(cat err.txt)"
echo "usage errors on one line: pass"

# a variable given twice, or a name no layout can use, is refused by every command
refused "--set 'A' given twice" build -q --set A=1 --set A=2 card.layout
refused "--set 'A' given twice" plan --set A=1 card.layout --set=A=1
refused "--set 'CARD_ID' given twice" personalize card.img --set CARD_ID=1 --set CARD_ID=2 -o x.img
refused "--card-values 'CARD_ID' given twice" \
    flash --card-values 'CARD_ID=A{index}' --card-values 'CARD_ID=B{index}' card.img /dev/null
refused "--set '\\n' is not a variable name (letters, digits, _, not starting with a digit)" \
    build --set "
=1" card.layout
refused "--set '1A' is not a variable name (letters, digits, _, not starting with a digit)" plan --set 1A=x card.layout
echo "variables given twice or misnamed refused alike: pass"

# an empty long name is no abbreviation; of -V and -h the first wins
refused "unknown option '--=x'" "" --=x
refused "unknown option '--=x'" cat --=x
refused "unknown option '--=x'" build --=x card.layout
expect_status 0 "$SDIMG" -V -h
grep -q '^sdimg ' out.txt && [ "$(wc -l <out.txt)" -eq 1 ] || fail "sdimg -V -h: $(cat out.txt)"
expect_status 0 "$SDIMG" -h -V
head -1 out.txt | grep -q '^Usage: sdimg ' || fail "sdimg -h -V: $(cat out.txt)"
echo "--=x, -V -h: pass"

# --help and --version that cannot be written are failures, said on stderr
for args in "--help" "--version" "build --help" "flash -h"; do
    # shellcheck disable=SC2086 # the words of $args are meant apart
    if [ -w /dev/full ]; then
        rc=0
        "$SDIMG" $args >/dev/full 2>err.txt || rc=$?
        [ $rc -eq 1 ] || fail "sdimg $args >/dev/full: exit $rc"
        [ "$(cat err.txt)" = "sdimg: cannot write the standard output: No space left on device" ] ||
            fail "sdimg $args >/dev/full: $(cat err.txt)"
    fi
    rc=0
    "$SDIMG" $args >&- 2>err.txt || rc=$?
    [ $rc -eq 1 ] || fail "sdimg $args >&-: exit $rc"
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "sdimg $args >&-: $(cat err.txt)"
done
echo "--help and --version onto a full or closed stdout: pass"

# so is a command's own output: a plan, as a table or JSON (one of 20 kB, written while it is
# made), a report of inspect; a build's summary is a warning
{ printf 'partition "'; head -c 20000 /dev/zero | tr '\0' x; printf '" { size = 1M }\n'; } >full.layout
"$SDIMG" build -q -o full.img full.layout || fail "build full.layout"
if [ -w /dev/full ]; then
    for args in "plan full.layout" "plan --json full.layout" "inspect full.img" "inspect --json full.img"; do
        rc=0
        # shellcheck disable=SC2086 # the words of $args are meant apart
        "$SDIMG" $args >/dev/full 2>err.txt || rc=$?
        [ $rc -eq 1 ] || fail "sdimg $args >/dev/full: exit $rc"
        [ "$(cat err.txt)" = "sdimg: cannot write the standard output: No space left on device" ] ||
            fail "sdimg $args >/dev/full: $(cat err.txt)"
    done
    # a build's outputs are in place before its summary is printed, and a failed build
    # leaves none: a summary lost is a warning
    rm -f full.img
    "$SDIMG" build -o full.img --sha256 full.layout >/dev/full 2>err.txt || fail "build >/dev/full: exit $?"
    [ "$(cat err.txt)" = "sdimg: warning: full.layout: built, but the standard output did not take its report: No space left on device" ] ||
        fail "build >/dev/full: $(cat err.txt)"
    sha256sum -c --status full.img.sha256 || fail "build >/dev/full: its outputs"
    echo "plan, inspect and build onto a full stdout: pass"
fi

# the manual page names every option each command's --help names, long and short
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$TOP/docs/sdimg.1" >man.txt
for c in "" $(cat commands.txt); do
    "$SDIMG" $c --help | grep -o -- '\(^\| \|\[\|,\)--*[a-zA-Z][a-z0-9-]*' | sed 's/^[ [,]*//' | sort -u >named.txt
    for o in $(cat named.txt); do
        grep -q -- "\\(^\\|[^a-z-]\\)$o\\([^a-z0-9-]\\|\$\\)" man.txt || fail "sdimg.1 does not name $o (sdimg $c --help does)"
    done
done
echo "the manual names every option of every --help: pass"

# the damage POSIXLY_CORRECT did: `flash --allow-fixed IMAGE DEV --dry-run` wrote DEV. On a
# loop device over a file of zeros of this folder (detached on exit), it must write nothing.
. "$TOP/tests/e2e/lib/card.sh"
trap 'rc=$?; loop_cleanup; exit $rc' EXIT
trap 'exit 1' INT TERM HUP
truncate -s 32M disk.bin
dev=$( [ "$(id -u)" = 0 ] && loop_try disk.bin)
if [ -n "$dev" ]; then
    POSIXLY_CORRECT=1 expect_status 0 "$SDIMG" flash -q --allow-fixed card.img "$dev" --dry-run
    loop_detach "$dev"
    cmp -s disk.bin /dev/zero -n 33554432 || fail "POSIXLY_CORRECT: flash ... --dry-run wrote the device"
    echo "POSIXLY_CORRECT: flash --dry-run after the target writes nothing: pass"
else
    echo "no loop device here (root: $(id -u); $(cat loop.err 2>/dev/null)): the check of flash --dry-run on a device is left out"
fi
