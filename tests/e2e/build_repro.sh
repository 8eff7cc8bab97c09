# Byte-exact: the same layout and inputs give the same image whatever the order in which
# the host lists directories, the inputs' mtimes (mtime = fixed), umask, TZ and LANG.
. "$TOP/tests/e2e-lib.sh"
need sha256sum

cat >card.layout <<'LAYOUT'
image { size = 256M seed = "repro" }
raw spl { offset = 8K from = "spl.bin" }
partition boot {
    type = fat
    size = auto
    extra = 1M
    fat { label = "BOOT" }
    tree "/" { from = "${TREE}" }
    file "/cmdline.txt" { content = "root=/dev/mmcblk0p2 rootwait" }
}
partition data { type = fat32 size = grow
    tree "/" { from = "${TREE}" }
    dir "/logs" {}
}
LAYOUT
head -c 30000 /dev/urandom >spl.bin

# make_tree DIR ORDER: the same files, created in ORDER (forward|backward), with mtimes and
# modes that differ between the two copies
make_tree() {
    dir=$1
    mkdir -p "$dir"
    list="a.txt B.TXT long-name-with-spaces\ and\ more.data sub/x.bin sub/deeper/y Ünïcödé.txt z"
    if [ "$2" = backward ]; then
        list="z Ünïcödé.txt sub/deeper/y sub/x.bin long-name-with-spaces\ and\ more.data B.TXT a.txt"
    fi
    eval "set -- $list"
    for f in "$@"; do
        mkdir -p "$dir/$(dirname "$f")"
        printf 'content of %s\n' "$f" >"$dir/$f"
        touch -d "@$(( $(date +%s) - $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') * 1000 ))" "$dir/$f"
    done
    head -c 100000 /dev/zero | tr '\0' 'q' >"$dir/sub/x.bin"
}
make_tree tree1 forward
# the second copy on tmpfs where there is one: its folders list in another order (tmpfs
# lists newest first, ext4 by name hash), which is what the test is about
shm=$(mktemp -d /dev/shm/sdimg-repro.XXXXXX 2>/dev/null || mktemp -d "$PWD/tree2.XXXXXX")
trap 'rm -rf "$shm"' EXIT
make_tree "$shm/t" backward
ln -s "$shm/t" tree2
chmod 0700 tree2/sub
if [ "$(ls -f tree1 | tr '\n' ' ')" = "$(ls -f tree2/ | tr '\n' ' ')" ]; then
    echo "(both copies list in the same order on this machine)"
else
    echo "the two copies list their files in different orders"
fi

build() { # build OUTPUT TREE TZ LANG UMASK
    (umask "$5" && TREE=$2 TZ=$3 LANG=$4 LC_ALL=$4 "$SDIMG" build -q -o "$1" card.layout) ||
        fail "build of $1 failed"
}
build one.img tree1 UTC C 022
build two.img tree2 Asia/Kathmandu de_DE.UTF-8 077
build three.img tree1 America/St_Johns fr_FR.UTF-8 002
a=$(sha256sum <one.img) b=$(sha256sum <two.img) c=$(sha256sum <three.img)
[ "$a" = "$b" ] || fail "different trees, TZ, LANG, umask: different images"
[ "$a" = "$c" ] || fail "a rebuild differs"
echo "three builds: $(echo "$a" | cut -c1-16)..."

# the seed is the only source of ids: another seed, other ids, same files
sed 's/seed = "repro"/seed = "other"/' card.layout >other.layout
TREE=tree1 "$SDIMG" build -q -o other.img other.layout || fail "build with another seed"
[ "$(sha256sum <other.img)" != "$a" ] || fail "the seed changes nothing"

# a golden image: these bytes are what this layout and these inputs make. When a change to
# sdimg changes them on purpose, the new hash goes here (and the change says why).
"$BUILD/tests/tools/mktree" golden 300 60 7
printf 'spl\n' >golden-spl.bin
cat >golden.layout <<'LAYOUT'
image { size = 96M seed = "golden" timestamp = 1700000000 }
raw spl { offset = 8K from = "golden-spl.bin" }
partition boot { type = fat16 size = 32M bootable = true fat { label = "GOLDEN" }
    tree "/" { from = "golden" } file "/MLO" { content = "mlo" first = true } }
partition data { type = fat32 size = grow tree "/" { from = "golden" } }
LAYOUT
"$SDIMG" build -q -o golden.img golden.layout || fail "golden build"
got=$(sha256sum <golden.img | cut -d' ' -f1)
want=ea52fd269f6a51b658b471072b2f842dde9c18b4b3f5095bebb930783d2ca186
[ "$got" = "$want" ] || fail "golden image: sha256 $got, expected $want"
