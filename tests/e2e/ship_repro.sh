#!/bin/sh
# SPDX-License-Identifier: MIT
# Everything a build ships is reproducible: two builds from two copies of the inputs made in
# opposite orders on a tmpfs (so that each folder lists in other orders) with different mtimes
# and modes, under other umask, TZ and LANG, give one SHA-256 for every output file:
# card.img, card.img.zst, .xz, .gz, card.img.bmap and card.img.sha256. The compressed files
# are the same made on one CPU (taskset -c 0) as on all of them.
. "$TOP/tests/e2e/lib/ship.sh"
. "$TOP/tests/e2e/lib/repro.sh"
need sha256sum taskset mke2fs
need_locales de_DE.UTF-8
make_inputs
write_layout mbr
sed 's|from = "tree"|from = "${TREE}"|' card.layout >repro.layout

# two copies of the tree on a tmpfs, each folder's entries made in byte order in the first
# and in the reverse in the second, which has other mtimes and modes too
orders_folder
copy_in_order tree "$orders_dir/1" forward
copy_in_order tree "$orders_dir/2" backward
find "$orders_dir/2" -type f | while IFS= read -r f; do
    touch -d "@$((1500000000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') * 1000))" "$f"
done
chmod -R go-rwx "$orders_dir/2/many"
ln -s "$orders_dir/1" tree1
ln -s "$orders_dir/2" tree2
orders_differ tree1/ tree2/

# build DIR TREE TZ LANG UMASK KIND [taskset ARGS]: card.img, card.img.KIND, .bmap, .sha256
build() {
    dir=$1 tree=$2 tz=$3 lang=$4 mask=$5 kind=$6
    shift 6
    mkdir -p "$dir"
    (umask "$mask" && TREE=$tree TZ=$tz LANG=$lang LC_ALL=$lang \
        "$@" "$SDIMG" build -q -o "$dir/card.img" --compress "$kind" --bmap --sha256 repro.layout) \
        >build.log 2>&1 || fail "build into $dir: $(cat build.log)"
}

sum() { sha256sum <"$1" | cut -d' ' -f1; }

for kind in zst xz gz; do
    build one-$kind tree1 UTC C 022 $kind
    build two-$kind tree2 Asia/Kathmandu de_DE.UTF-8 077 $kind
    for f in card.img card.img.$kind card.img.bmap card.img.sha256; do
        [ "$(sum one-$kind/$f)" = "$(sum two-$kind/$f)" ] ||
            fail "$f differs between the two builds (--compress $kind)"
    done
    # the raw image and the bmap do not depend on the compression
    [ "$(sum one-$kind/card.img)" = "$(sum one-zst/card.img)" ] || fail "card.img depends on --compress"
    [ "$(sum one-$kind/card.img.bmap)" = "$(sum one-zst/card.img.bmap)" ] || fail "the bmap depends on --compress"
    echo "--compress $kind: card.img $(sum one-$kind/card.img | cut -c1-12)..., card.img.$kind $(sum one-$kind/card.img.$kind | cut -c1-12)..., bmap $(sum one-$kind/card.img.bmap | cut -c1-12)..., sha256 $(sum one-$kind/card.img.sha256 | cut -c1-12)...: the same from both builds"
done

# one CPU against all of them (the two builds above ran on all)
cpus=$(nproc)
[ "$cpus" -gt 1 ] || echo "(this machine gives one CPU: taskset -c 0 is all of them)"
for kind in zst xz gz; do
    mkdir -p one-cpu
    (TREE=tree taskset -c 0 "$SDIMG" build -q -o one-cpu/card.img.$kind repro.layout) >build.log 2>&1 ||
        fail "taskset -c 0 build: $(cat build.log)"
    [ "$(sum one-cpu/card.img.$kind)" = "$(sum one-$kind/card.img.$kind)" ] ||
        fail "card.img.$kind made on one CPU differs from the one made on $cpus"
done
echo "card.img.zst, .xz, .gz: the same on one CPU as on $cpus"
