# SPDX-License-Identifier: MIT
# e2e-long: three random trees of up to 5,758 entries, each built from a folder and a tar, checked and mounted
# The ext4 differential fuzzer: random trees (tests/tools/randtree: folders of 0 to 5,000
# names, symbolic links of 1 to 4,095 bytes, hard-link groups, devices, fifos, user xattrs,
# sparse files, any mode, owner and time in ns) built as ext4 by sdimg from the folder and from
# a tar of its entries in a shuffled order (tar -T), each volume checked by e2fsck -fn, by
# debugfs (rdump: every file's bytes, every link's target, every name and type) and by the
# kernel (a read-only mount walked against the tree with tree_facts: every fact).
# As a test it runs a few seeds and replays the saved cases of tests/fuzz/corpus/ext4tree/
# (each a file of one line "SEED ENTRIES"). With EXT4_FUZZ_SECONDS set (make fuzz-ext4) it
# tries seeds from EXT4_FUZZ_SEED (default 1) on until that many seconds have passed, saves
# each failing case to the corpus, and fails if any did. EXT4_FUZZ_FROM ("folder tar") picks
# the sources tried.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck debugfs sfdisk jq tar shuf getfattr xxh128sum
RANDTREE=$BUILD/tests/tools/randtree
[ -x "$RANDTREE" ] || { echo "missing $RANDTREE (make build/tests/tools/randtree)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "the devices and owners of the trees and the mount need root: skipped"; exit 77; }
unset SOURCE_DATE_EPOCH
CORPUS=$TOP/tests/fuzz/corpus/ext4tree

# same_by_debugfs VOL: debugfs's rdump of the volume VOL gives t/'s names, types, sizes,
# bytes and link targets (rdump keeps no owners, xattrs, hard links or special files)
# (t/'s facts from its scan t.scan: the tree is read once a case, not by every check)
same_by_debugfs() {
    rm -rf rd && mkdir rd
    debugfs -R "rdump / rd" "$1" >rdump.out 2>&1 || fail "debugfs rdump: $(tail -3 rdump.out)"
    facts_from t.scan "specials root" facts.t
    tree_facts rd "specials root" facts.rd
    cut -f1,2,5,9,10 facts.t >facts.want
    cut -f1,2,5,9,10 facts.rd >facts.got
    rm -rf rd facts.t facts.rd
    diff facts.want facts.got >facts.diff || {
        head -20 facts.diff >&2
        fail "debugfs reads $(grep -c '^>' facts.diff) entries otherwise than the tree has them"
    }
}

# one_source SRC LEAVE: SRC (t or t.tar) built as ext4 passes e2fsck, debugfs and the mount
# walk (but for LEAVE); one failure ends it
one_source() {
    cat >"$1.layout" <<LAYOUT
image { table = gpt seed = "fuzz" mtime = source }
partition rootfs { type = ext4 size = ${size}M tree "/" { from = "$1" } ext4 { inodes = $inodes } }
LAYOUT
    expect_status 0 "$SDIMG" build "$1.layout" -o "$1.img"
    ext4_clean "$1.img" 1 p.img
    same_by_debugfs p.img
    rm -f p.img
    ext4_mount "$1.img" 1
    facts_from t.scan "$2" facts.t
    facts_agree facts.t mnt t "$2"
    ext4_unmount
    rm -f "$1.img"
}

# one_case SEED ENTRIES: the tree of SEED (randtree t SEED ENTRIES) passes from the folder and
# from a tar in shuffled order; says which failed, and returns 1 if one did
one_case() {
    rm -rf t t.tar
    "$RANDTREE" t "$1" "$2" || fail "randtree t $1 $2"
    tree_scan t t.scan
    yes "$1" | head -c 1000000 >order.seed
    (cd t && find . -mindepth 1 -printf '%P\n') | shuf --random-source=order.seed >order.list
    tar --no-recursion --sparse --xattrs --xattrs-include='*' --numeric-owner -C t -cf t.tar \
        -T order.list 2>tar.err || fail "tar: $(cat tar.err)"
    # room for the data and metadata, and an inode for every name
    size=$(( ($(du -sk t | cut -f1) * 3 / 2 + $(find t | wc -l) * 8) / 1024 + 48 ))
    inodes=$(( $(find t | wc -l) + 2048 ))
    rc=0
    case " ${EXT4_FUZZ_FROM:-folder tar} " in *" folder "*)
        (one_source t "") || { echo "FAIL above: seed $1 ($2 entries) from the folder" >&2; rc=1; } ;;
    esac
    # the archive has no entry for the top folder
    case " ${EXT4_FUZZ_FROM:-folder tar} " in *" tar "*)
        (one_source t.tar "root") || { echo "FAIL above: seed $1 ($2 entries) from tar in shuffled order" >&2; rc=1; } ;;
    esac
    return $rc
}

failed=""
if [ -z "${EXT4_FUZZ_SECONDS:-}" ]; then
    for c in "11 400" "29 1500"; do
        # shellcheck disable=SC2086
        one_case $c || failed="$failed seed $c;"
    done
    for f in "$CORPUS"/*; do
        [ -f "$f" ] || continue
        # shellcheck disable=SC2046
        one_case $(cat "$f") || failed="$failed $(basename "$f");"
    done
else
    seed=${EXT4_FUZZ_SEED:-1}
    end=$(($(date +%s) + EXT4_FUZZ_SECONDS))
    tried=0
    while [ "$(date +%s)" -lt "$end" ]; do
        entries=$(( (seed * 7919) % 6000 + 1 ))
        if ! one_case "$seed" "$entries"; then
            mkdir -p "$CORPUS"
            echo "$seed $entries" >"$CORPUS/seed-$seed"
            failed="$failed seed $seed $entries;"
        fi
        tried=$((tried + 1))
        seed=$((seed + 1))
    done
    echo "ext4 fuzz: $tried trees in $EXT4_FUZZ_SECONDS s, failing:${failed:- none}"
fi
[ -z "$failed" ] || fail "ext4 built from random trees differs from them:$failed"
exit 0
