# SPDX-License-Identifier: MIT
# Byte-exact: the same layout and inputs give the same image whatever the order in which
# the host lists directories, the inputs' mtimes (mtime = fixed), umask, TZ and LANG. And a
# golden image: its hash, and the MBR, boot sectors, FSInfo and first FAT sectors of it and of
# a FAT12 volume as hex dumps (tests/e2e/golden/), which show a change field by field.
. "$TOP/tests/e2e-lib.sh"
. "$TOP/tests/e2e/lib/repro.sh"
need sha256sum python3 mdir
need_locales de_DE.UTF-8 fr_FR.UTF-8

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
# both copies on a tmpfs, made in opposite orders: their folders list in other orders,
# which is what the test is about
orders_folder
make_tree "$orders_dir/1" forward
make_tree "$orders_dir/2" backward
ln -s "$orders_dir/1" tree1
ln -s "$orders_dir/2" tree2
chmod 0700 tree2/sub
orders_differ tree1/ tree2/

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

# a zip entry with only an MS-DOS time (no zone, no extra field) under mtime = source: the
# same image in every zone, with the very wall-clock time the zip holds
python3 - <<'PY'
import zipfile
with zipfile.ZipFile("dos.zip", "w") as z:
    z.writestr(zipfile.ZipInfo("noon.txt", date_time=(2024, 6, 1, 12, 0, 0)), "noon\n")
PY
printf 'image { table = none  mtime = source }\npartition p { type = fat16 size = 8M\n tree "/" { from = "dos.zip" } }\n' >zip.layout
for tz in UTC Asia/Kathmandu America/St_Johns; do
    TZ=$tz "$SDIMG" build -q -o "zip-${tz#*/}.img" zip.layout || fail "zip build in $tz failed"
done
z=$(sha256sum <zip-UTC.img)
[ "$(sha256sum <zip-Kathmandu.img)" = "$z" ] && [ "$(sha256sum <zip-St_Johns.img)" = "$z" ] ||
    fail "a zip's MS-DOS times give another image in another time zone"
mdir -i zip-St_Johns.img :: | grep -q '^noon  *txt  *5 2024-06-01  12:00' ||
    { mdir -i zip-St_Johns.img :: >&2; fail "the zip's 12:00 is not 12:00 on FAT"; }
echo "a zip's MS-DOS times: one image in three zones, 12:00 stays 12:00"

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
# and a small bare FAT12 volume
"$BUILD/tests/tools/mktree" golden12 12 4 12
cat >golden12.layout <<'LAYOUT'
image { table = none seed = "golden12" timestamp = 1700000000 }
partition vol { type = fat12 size = 1M fat { label = "GOLDEN12" cluster-size = 1K data-align = 4K }
    tree "/" { from = "golden12" } file "/README.TXT" { content = "a FAT12 golden volume" } }
LAYOUT
"$SDIMG" build -q -o golden12.img golden12.layout || fail "golden12 build"

# Their key sectors, as xxd hex dumps kept in tests/e2e/golden/NAME.xxd (addresses from the
# sector's start, so they are the fields' offsets): when a change moves a field, the diff
# shows which bytes moved. GOLDEN_UPDATE=1 writes the new dumps there instead of comparing,
# for a change that is meant (commit them with the new hash below, and say why).
hexdump_xxd() {   # stdin as `xxd` prints it (od and awk where xxd is missing)
    if command -v xxd >/dev/null; then
        xxd
    else
        od -An -v -tu1 | awk 'BEGIN { for (i = 32; i < 127; i++) ch[i] = sprintf("%c", i) }
            { for (i = 1; i <= NF; i++) b[n++] = $i }
            END { for (o = 0; o < n; o += 16) {
                      line = sprintf("%08x:", o); text = ""
                      for (j = 0; j < 16 && o + j < n; j++) {
                          if (j % 2 == 0) line = line " "
                          line = line sprintf("%02x", b[o + j])
                          text = text (b[o + j] >= 32 && b[o + j] < 127 ? ch[b[o + j]] : ".")
                      }
                      print line "  " text } }'
    fi
}
golden_dir=$TOP/tests/e2e/golden
golden_diff=""
golden_sector() {   # golden_sector NAME IMG BYTE_OFFSET
    dd if="$2" bs=512 iflag=skip_bytes skip="$3" count=1 status=none | hexdump_xxd >"$1.xxd"
    [ "$(wc -l <"$1.xxd")" -eq 32 ] || fail "$1: no sector at byte $3 of $2"
    if [ -n "${GOLDEN_UPDATE:-}" ]; then
        mkdir -p "$golden_dir" && cp "$1.xxd" "$golden_dir/$1.xxd"
        echo "wrote $golden_dir/$1.xxd"
    elif ! diff -u -L "tests/e2e/golden/$1.xxd" -L "$1.xxd (this build)" "$golden_dir/$1.xxd" "$1.xxd" >&2; then
        golden_diff="$golden_diff $1"
    fi
}
fat_sectors() {   # fat_sectors NAME IMG VOLUME_OFFSET: boot sector, FSInfo (FAT32), first FAT
    golden_sector "$1.bootsect" "$2" "$3"
    [ "$(le "$2" $(($3 + 22)) 2)" -ne 0 ] || golden_sector "$1.fsinfo" "$2" $(($3 + $(le "$2" $(($3 + 48)) 2) * 512))
    golden_sector "$1.fat" "$2" $(($3 + $(le "$2" $(($3 + 14)) 2) * 512))
}
golden_sector golden.mbr golden.img 0
fat_sectors golden.boot golden.img $(($(le golden.img $((446 + 8)) 4) * 512))
fat_sectors golden.data golden.img $(($(le golden.img $((462 + 8)) 4) * 512))
fat_sectors golden12 golden12.img 0
[ -z "$golden_diff" ] ||
    fail "golden sectors differ:$golden_diff (diffs above: - expected, + got; GOLDEN_UPDATE=1 rewrites them)"

got=$(sha256sum <golden.img | cut -d' ' -f1)
want=ea52fd269f6a51b658b471072b2f842dde9c18b4b3f5095bebb930783d2ca186
[ "$got" = "$want" ] || fail "golden image: sha256 $got, expected $want"
