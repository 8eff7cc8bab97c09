# SPDX-License-Identifier: MIT
# libarchive and libcrypto are not linked: sdimg loads them (dlopen) only when a tree is an
# archive, and when an image's bytes are hashed (a build with --bmap, --sha256 or per-card
# values, flash, personalize: ids and seeds take a built-in SHA-256), and names them for packagers in its
# ".note.dlopen" ELF notes (owner FDO, type 0x407c0c0a, JSON), each with the soname of the
# system's library. ls, cat, inspect and plan never load libarchive; ls, cat and inspect never
# load libcrypto; a build from a .tar loads libarchive, and gives the folder's image; flash
# loads it for a bzip2 (or lz4) image, not for a raw or zstd one. When one
# cannot be loaded (a mount namespace puts an empty file over it: root and unshare only),
# a build with an archive tree is one line naming the tree's FILE:LINE and libarchive's
# soname, such a build or a personalize without libcrypto one line naming its soname, exit 1,
# nothing left; a build from a folder still works without libarchive, a build that hashes
# no image without libcrypto, ls, cat and inspect without either.
. "$TOP/tests/e2e-lib.sh"
need readelf objcopy bsdtar sha256sum zstd bzip2
export LC_ALL=C.UTF-8 TZ=UTC
real=${SDIMG_REAL:-$SDIMG}

# no DT_NEEDED entry for libarchive or libcrypto
readelf -d "$real" >dynamic.txt || fail "readelf -d $real"
grep -q 'NEEDED.*libc\.so' dynamic.txt || fail "readelf -d lists no NEEDED libc: $(cat dynamic.txt)"
! grep 'NEEDED.*libarchive' dynamic.txt || fail "sdimg is linked against libarchive"
! grep 'NEEDED.*libcrypto' dynamic.txt || fail "sdimg is linked against libcrypto"

# the notes: type 0x407c0c0a owned by FDO, each JSON naming a feature and a soname
readelf -n "$real" >notes.txt || true # binutils 2.40 exits 1 after a note type it does not know
grep -q 'FDO.*0x407c0c0a' notes.txt || fail "readelf -n shows no FDO note 0x407c0c0a"
objcopy -O binary --only-section=.note.dlopen "$real" note.bin || fail "objcopy .note.dlopen"
tr -d '\000' <note.bin | grep -ao '\[{[^]]*\]}\]' >notes.json || fail "no JSON in .note.dlopen"
# note_soname FEATURE PRIORITY LIB: the soname the note of FEATURE names, which must be the
# one of the system's LIB.so (the one compiled against, else the one installed)
note_soname() {
    json=$(grep -F "\"feature\":\"$1\"" notes.json) || fail "no note names the feature $1: $(cat notes.json)"
    [ "$(printf '%s\n' "$json" | wc -l)" -eq 1 ] || fail "more than one note names $1: $json"
    case $json in
    *"\"priority\":\"$2\""*) ;;
    *) fail "the note of $1 is not $2: $json" ;;
    esac
    soname=$(printf '%s\n' "$json" | sed -n 's/.*"soname":\["\([^"]*\)"\].*/\1/p')
    [ -n "$soname" ] || fail "the note names no soname: $json"
    so=$(${CC:-cc} -print-file-name="$3.so" 2>/dev/null || true)
    case $so in
    /*) ;;
    *) so=$(/sbin/ldconfig -p | awk -v n="$3" 'index($1, n ".so.") == 1 { print $NF; exit }') ;;
    esac
    [ -n "$so" ] && [ -e "$so" ] || fail "no $3.so found on this system"
    system=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$soname" = "$system" ] || fail "the note of $1 names $soname, $so is $system"
    echo "the note of $1 ($2) names $soname, as $so does" >&2
    printf '%s\n' "$soname"
}
soname=$(note_soname archive recommended libarchive) || exit 1
crypto=$(note_soname sha256 required libcrypto) || exit 1

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

# read_args CMD: the arguments of sdimg ls, cat or inspect on tar.img
read_args() {
    case $1 in
    ls) echo ls tar.img:/d ;;
    cat) echo cat tar.img:/f ;;
    *) echo inspect tar.img ;;
    esac
}

# loaded LIB COMMAND...: LD_DEBUG=files of sdimg COMMAND... names LIB (0) or not (1)
loaded() {
    lib_=$1
    shift
    LD_DEBUG=files "$real" "$@" >/dev/null 2>ld.txt || { cat ld.txt >&2; fail "sdimg $*"; }
    grep -q "file=$lib_" ld.txt
}
loaded libarchive build -q -o dir.img dir.layout && fail "a build from a folder loads libarchive"
loaded libarchive build -q -o tar.img tar.layout || fail "a build from a .tar does not load libarchive"
[ "$(sha256sum <tar.img)" = "$(sha256sum <dir.img)" ] || fail "the .tar gives another image than the folder"
for cmd in "ls tar.img:/d" "cat tar.img:/f" "inspect tar.img" "plan tar.layout" "plan dir.layout"; do
    # shellcheck disable=SC2086 # the words of cmd
    ! loaded libarchive $cmd || fail "sdimg $cmd loads libarchive"
done
# flash decompresses zstd, xz and gzip itself, bzip2 and lz4 through libarchive: it is loaded
# for those alone (the image is read before the target, /dev/null, is refused)
head -c 65536 /dev/urandom >r.img
zstd -q -c r.img >r.img.zst && bzip2 -c r.img >r.img.bz2 || fail "zstd or bzip2"
for image in r.img r.img.zst r.img.bz2; do
    LD_DEBUG=files "$real" flash "$image" /dev/null --dry-run >/dev/null 2>ld.txt || true
    grep -q "$image: no bmap found" ld.txt || { cat ld.txt >&2; fail "sdimg flash $image did not read it"; }
    if grep -q "file=libarchive" ld.txt; then
        [ $image = r.img.bz2 ] || fail "sdimg flash $image loads libarchive"
    else
        [ $image != r.img.bz2 ] || fail "sdimg flash r.img.bz2 does not load libarchive"
    fi
done
echo "libarchive is loaded by a build from a .tar only, which gives the folder's image, and by a flash of a bzip2 image"
loaded libcrypto build -q -o bmap.img --bmap dir.layout || fail "a build with --bmap does not load libcrypto"
loaded libcrypto build -q -o sum.img --sha256 dir.layout || fail "a build with --sha256 does not load libcrypto"
rm -f bmap.img* sum.img*
for cmd in "--version" "build -q -o dir.img dir.layout" "ls tar.img:/d" "cat tar.img:/f" "inspect tar.img"; do
    # shellcheck disable=SC2086 # the words of cmd
    ! loaded libcrypto $cmd || fail "sdimg $cmd loads libcrypto"
done
for cmd in ls cat inspect; do # what they say with libcrypto, for the namespace below
    # shellcheck disable=SC2046 # the words of the command
    "$real" $(read_args $cmd) >with.$cmd.out 2>&1 || fail "sdimg $cmd"
done
echo "libcrypto is loaded by a build that hashes the image (--bmap, --sha256), never by a build that does not (its ids and seeds take the built-in SHA-256), ls, cat or inspect"

# libarchive that cannot be loaded: an empty file over it, in a mount namespace of its own
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
    echo "not root or no unshare: a libarchive or libcrypto that cannot be loaded is not tried"
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

# libcrypto that cannot be loaded: a build with --bmap --sha256 (stopped before it reads
# anything), a build with per-card files (its manifest holds the digest of the image's
# bytes) and a personalize (the card's ids) are one line each, exit 1, nothing left; a
# build that hashes no image gives the same image as with it (its ids and seeds take the
# built-in SHA-256); ls, cat and inspect say what they said with it
lib=$(/sbin/ldconfig -p | awk -v n="$crypto" '$1 == n { print $NF; exit }')
[ -n "$lib" ] && lib=$(readlink -f "$lib") && [ -f "$lib" ] || fail "ldconfig -p finds no $crypto"
sed 's/ seed = "s"//' dir.layout >noseed.layout
grep -q seed noseed.layout && fail "noseed.layout has a seed"
cat >card.layout <<'LAYOUT'
image { table = gpt seed = "s" }
partition p {
 type = fat
 size = 8M
 file "/serial" { content = "\${SERIAL}" per-card = true reserve = 16 }
}
LAYOUT
"$real" build -q -o card.img card.layout || fail "sdimg build card.layout"
[ -f card.img.cards.json ] || fail "card.layout gives no per-card manifest"
cat >crypto.sh <<'SCRIPT'
set -u
mount --bind "$PWD/empty.so" "$1" || exit 3
for l in dir noseed tar; do
    TMPDIR=$PWD/spool "$2" build -q -o out/$l.img --bmap --sha256 $l.layout >$l.out 2>$l.err
    echo $? >$l.status
done
TMPDIR=$PWD/spool "$2" build -q -o out/cardb.img cardb.layout >cardb.out 2>cardb.err
echo $? >cardb.status
TMPDIR=$PWD/spool "$2" build -q -o out/plain.img dir.layout >plain.out 2>plain.err
echo $? >plain.status
TMPDIR=$PWD/spool "$2" build -q -o out/plainnoseed.img noseed.layout >plainnoseed.out 2>plainnoseed.err
echo $? >plainnoseed.status
TMPDIR=$PWD/spool "$2" personalize card.img --set SERIAL=1 -o out/card.img >card.out 2>card.err
echo $? >card.status
"$2" ls tar.img:/d >without.ls.out 2>&1 || echo ls >>failed
"$2" cat tar.img:/f >without.cat.out 2>&1 || echo cat >>failed
"$2" inspect tar.img >without.inspect.out 2>&1 || echo inspect >>failed
SCRIPT
cp card.layout cardb.layout
rm -f failed out/dir.img
unshare -m --propagation private sh crypto.sh "$lib" "$real" ||
    fail "unshare -m: cannot bind an empty file over $lib (exit $?)"
[ "$(cat plain.status)" -eq 0 ] || { cat plain.err >&2; fail "a build of dir.layout without libcrypto: exit $(cat plain.status)"; }
[ "$(sha256sum <out/plain.img)" = "$(sha256sum <dir.img)" ] || fail "without libcrypto, dir.layout gives another image"
rm -f out/plain.img
[ "$(cat plainnoseed.status)" -eq 0 ] || { cat plainnoseed.err >&2; fail "a build of noseed.layout without libcrypto: exit $(cat plainnoseed.status)"; }
"$real" build -q -o noseed.img noseed.layout || fail "sdimg build noseed.layout"
[ "$(sha256sum <out/plainnoseed.img)" = "$(sha256sum <noseed.img)" ] || fail "without libcrypto, noseed.layout gives another image"
rm -f out/plainnoseed.img
for l in dir noseed tar card cardb; do
    [ "$(cat $l.status)" -eq 1 ] || { cat $l.err >&2; fail "$l without libcrypto: exit $(cat $l.status)"; }
    [ "$(wc -l <$l.err)" -eq 1 ] || { cat $l.err >&2; fail "$l without libcrypto: more than one line"; }
    grep -qF "sdimg: SHA-256 digests need $crypto, which cannot be loaded: " $l.err ||
        fail "$l without libcrypto: $(cat $l.err)"
done
[ -z "$(ls -A out)" ] || fail "left in out/ without libcrypto: $(ls -A out | tr '\n' ' ')"
[ -z "$(ls -A spool)" ] || fail "left in \$TMPDIR without libcrypto: $(ls -A spool | tr '\n' ' ')"
[ ! -e failed ] || fail "without libcrypto, sdimg $(cat failed | tr '\n' ' ')fails"
for cmd in ls cat inspect; do
    cmp -s with.$cmd.out without.$cmd.out || fail "without libcrypto, sdimg $cmd says: $(cat without.$cmd.out)"
done
! grep -q "$lib" /proc/self/mountinfo || fail "the bind mount over $lib leaked out of its namespace"
echo "without libcrypto: $(cat dir.err)"
echo "libcrypto is loaded when an image's bytes are hashed; ids, seeds, ls, cat and inspect need none"
