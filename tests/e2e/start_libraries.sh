# libarchive is not linked: sdimg loads it (dlopen) only when a tree is an archive, and names
# it for packagers in its ".note.dlopen" ELF note (owner FDO, type 0x407c0c0a, JSON). ls, cat,
# inspect and plan never load it; a build from a .tar does, and gives the folder's image. When
# it cannot be loaded (a mount namespace puts an empty file over it: root and unshare only),
# a build with an archive tree is one line naming the tree's FILE:LINE and the soname, exit 1,
# nothing left; a build from a folder still works.
. "$TOP/tests/e2e-lib.sh"
need readelf objcopy bsdtar sha256sum
export LC_ALL=C.UTF-8 TZ=UTC
real=${SDIMG_REAL:-$SDIMG}

# no DT_NEEDED entry for libarchive
readelf -d "$real" >dynamic.txt || fail "readelf -d $real"
grep -q 'NEEDED.*libc\.so' dynamic.txt || fail "readelf -d lists no NEEDED libc: $(cat dynamic.txt)"
! grep 'NEEDED.*libarchive' dynamic.txt || fail "sdimg is linked against libarchive"

# the note: type 0x407c0c0a owned by FDO, whose JSON names the feature and a soname
readelf -n "$real" >notes.txt || true # binutils 2.40 exits 1 after a note type it does not know
grep -q 'FDO.*0x407c0c0a' notes.txt || fail "readelf -n shows no FDO note 0x407c0c0a"
objcopy -O binary --only-section=.note.dlopen "$real" note.bin || fail "objcopy .note.dlopen"
json=$(tr -d '\000' <note.bin | grep -ao '\[{.*}\]') || fail "no JSON in .note.dlopen"
case $json in
*'"feature":"archive"'*'"priority":"recommended"'*) ;;
*) fail "the note's JSON lacks the archive feature: $json" ;;
esac
soname=$(printf '%s\n' "$json" | sed -n 's/.*"soname":\["\([^"]*\)"\].*/\1/p')
[ -n "$soname" ] || fail "the note names no soname: $json"

# ... the soname of the system's libarchive (the one compiled against, else the one installed)
so=$(${CC:-cc} -print-file-name=libarchive.so 2>/dev/null || true)
case $so in
/*) ;;
*) so=$(/sbin/ldconfig -p | awk '/libarchive\.so\.[0-9]+ / { print $NF; exit }') ;;
esac
[ -n "$so" ] && [ -e "$so" ] || fail "no libarchive.so found on this system"
system=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "$system" ] || fail "the note names $soname, $so is $system"
echo "the note names $soname, as $so does"

# images from a folder and from the same folder as a tar
mkdir -p src/d && echo hello >src/f && seq 1 1000 >src/d/n.txt
find src -exec touch -h -d @1600000000 {} +
(cd src && bsdtar -cf ../t.tar .) || fail "bsdtar -cf t.tar"
layout() { # layout NAME FROM
    printf 'image { table = none seed = "s" }\npartition p { type = fat\n tree "/" { from = "%s" } }\n' \
        "$2" >"$1.layout"
}
layout dir src
layout tar t.tar

# loaded: LD_DEBUG=files of COMMAND... names libarchive (0) or not (1)
loaded() {
    LD_DEBUG=files "$real" "$@" >/dev/null 2>ld.txt || { cat ld.txt >&2; fail "sdimg $*"; }
    grep -q 'file=libarchive' ld.txt
}
loaded build -q -o dir.img dir.layout && fail "a build from a folder loads libarchive"
loaded build -q -o tar.img tar.layout || fail "a build from a .tar does not load libarchive"
[ "$(sha256sum <tar.img)" = "$(sha256sum <dir.img)" ] || fail "the .tar gives another image than the folder"
for cmd in "ls tar.img:/d" "cat tar.img:/f" "inspect tar.img" "plan tar.layout" "plan dir.layout"; do
    # shellcheck disable=SC2086 # the words of cmd
    ! loaded $cmd || fail "sdimg $cmd loads libarchive"
done
echo "libarchive is loaded by a build from a .tar only, which gives the folder's image"

# libarchive that cannot be loaded: an empty file over it, in a mount namespace of its own
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
    echo "not root or no unshare: a libarchive that cannot be loaded is not tried"
    exit 77
fi
lib=$(/sbin/ldconfig -p | awk -v n="$soname" '$1 == n { print $NF; exit }')
[ -n "$lib" ] && lib=$(readlink -f "$lib") && [ -f "$lib" ] || fail "ldconfig -p finds no $soname"
cat >ext4.layout <<'LAYOUT'
image { table = gpt seed = "s" }
partition r {
 type = ext4
 size = 8M
 tree "/" { from = "t.tar" }
}
LAYOUT
mkdir -p out spool
: >empty.so
cat >namespace.sh <<'SCRIPT'
set -u
mount --bind "$PWD/empty.so" "$1" || exit 3
for l in tar ext4; do
    TMPDIR=$PWD/spool "$2" build -q -o out/$l.img $l.layout >$l.out 2>$l.err
    echo $? >$l.status
done
"$2" build -q -o out/dir.img dir.layout >dir.out 2>dir.err
echo $? >dir.status
SCRIPT
trap 'rm -rf out spool' EXIT INT TERM
unshare -m --propagation private sh namespace.sh "$lib" "$real" ||
    fail "unshare -m: cannot bind an empty file over $lib (exit $?)"
for l in "tar:3: partition 'p'" "ext4:5"; do
    name=${l%%:*} line=${l#*:}
    [ "$(cat $name.status)" -eq 1 ] || { cat $name.err >&2; fail "$name.layout without libarchive: exit $(cat $name.status)"; }
    [ "$(wc -l <$name.err)" -eq 1 ] || { cat $name.err >&2; fail "$name.layout: more than one line"; }
    grep -qF "$name.layout:$line: tree '/': archive trees need $soname, which cannot be loaded: " $name.err ||
        fail "$name.layout: $(cat $name.err)"
done
[ "$(cat dir.status)" -eq 0 ] || { cat dir.err >&2; fail "a build from a folder without libarchive"; }
[ "$(sha256sum <out/dir.img)" = "$(sha256sum <dir.img)" ] || fail "without libarchive, the folder gives another image"
[ "$(ls -A out)" = dir.img ] || fail "left in out/: $(ls -A out | tr '\n' ' ')"
[ -z "$(ls -A spool)" ] || fail "left in \$TMPDIR: $(ls -A spool | tr '\n' ' ')"
! grep -q "$lib" /proc/self/mountinfo || fail "the bind mount over $lib leaked out of its namespace"
echo "without libarchive: $(cat tar.err)"
echo "libarchive is loaded when an archive is read, and only then"
