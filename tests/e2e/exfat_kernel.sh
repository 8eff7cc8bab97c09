#!/bin/sh
# SPDX-License-Identifier: MIT
# The real Linux exfat driver (a Debian kernel in qemu, through tests/oracle/kernel-fat-list
# -f exfat) reads one rich exFAT volume the writer made, placed 1 MiB into a file with its
# cluster heap aligned from the file's start: no word from the kernel, and every name (of
# every Unicode plane, of 255 UTF-16 units), size (0, 1, cluster - 1, cluster, cluster + 1,
# 4 GiB + 1) and SHA-256 as written, in 10,000 files of one folder and 40 nested folders.
# One boot for the whole script. The sparse file of 4 GiB + 1 is read from a seek to its last
# MiB (-b: all of it takes minutes under emulation): its size and its end past 4 GiB.
# Skipped where the oracle cannot run (no qemu and no root to install it, no apt, not amd64).
. "$TOP/tests/e2e/lib/exfat_oracles.sh"
need_exfat_tools sha256sum awk sort seq truncate dd paste xargs
KFL=$TOP/tests/oracle/kernel-fat-list
BIG=1048576

rich_tree src

# what the oracle prints of src/: files over BIG by the hash of their end (as -b reads it);
# the others hashed by one sha256sum (no name of the tree holds a newline or a tab)
(cd src && find . -type f -size -$((BIG + 1))c) >small.txt
(cd src && tr '\n' '\0' <../small.txt | xargs -0 stat -c '%s') >sizes.txt
(cd src && tr '\n' '\0' <../small.txt | xargs -0 sha256sum | cut -d' ' -f1) >sums.txt
paste -d'\t' sums.txt sizes.txt small.txt | awk -F'\t' '{ sub(/^\./, "", $3); print $3 "\t" $1 "  " $2 "  " $3 }' >lines.txt
(cd src && find . -type f -size +${BIG}c) | while IFS= read -r f; do
    s=$(stat -c %s "src/$f")
    at=$(((s - BIG) / 4096 * 4096))
    h=$(dd if="src/$f" bs=4096 skip=$((at / 4096)) 2>/dev/null | sha256sum | cut -d' ' -f1)
    printf '%s\ttail@%s:%s  %s  %s\n' "${f#.}" $at "$h" "$s" "${f#.}"
done >>lines.txt
LC_ALL=C sort -t "$(printf '\t')" -k1,1 lines.txt | cut -f2- >want.txt   # by path, as the oracle
printf 'dirs %s files %s\n' "$(cd src && find . -mindepth 1 -type d | wc -l)" \
    "$(cd src && find . -type f | wc -l)" >>want.txt

off=1048576
"$EXFATWRITE" -s -c 4096 -o $off -a 4194304 -l KERNEL -T 1700000000 k.img auto src >geom.txt ||
    fail "exfatwrite"

set +e
"$KFL" -f exfat -b $BIG -t 600 k.img $off $(($(stat -c %s k.img) - off)) >got.txt 2>err.txt
rc=$?
set -e
if [ $rc -eq 3 ]; then
    cat err.txt
    echo "skipped: the kernel oracle $(tail -1 err.txt | sed 's/^kernel-fat-list: //')"
    exit 77
fi
[ $rc -eq 0 ] || fail "kernel-fat-list -f exfat: exit $rc: $(head -20 err.txt)"
diff want.txt got.txt >diff.txt || fail "the kernel sees another tree: $(head -20 diff.txt)"
echo "the Linux exfat driver reads every file as written, and says nothing"
