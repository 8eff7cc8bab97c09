# SPDX-License-Identifier: MIT
# Shared helpers of the ext4_*.sh end-to-end tests (sourced; not a test itself): an ext4
# partition read out and checked (e2fsck, debugfs), and the kernel's view of it, mounted
# read-only over a loop device, against the tree it was built from.
. "$TOP/tests/e2e-lib.sh"

# ext4_clean IMG N VOL: partition N of IMG (where sfdisk places it) read out into VOL, which
# e2fsck -fn finds clean (extract: only the stretches IMG holds as data are copied, so an
# 8 GiB volume of a few files takes no time)
ext4_clean() {
    extract "$1" "$(part_start "$1" "$2")" "$(part_size "$1" "$2")" "$3"
    e2fsck -fn "$3" >e2fsck.out 2>&1 || fail "e2fsck -fn of partition $2 of $1 (exit $?): $(cat e2fsck.out)"
}

# stat_of PATH: what debugfs's stat says of PATH in the volume p.img
stat_of() { debugfs -R "stat $1" p.img 2>/dev/null; }

# ext4_mount IMG N: the ext4 volume of partition N of IMG mounted read-only at mnt/ over a
# loop device (ext4_unmount lets both go; so does the end of the test). Where root, a loop
# device or the kernel's ext4 is missing, the test ends here with a pass (the rest passed)
# and a last line that says so.
ext4_mount() {
    if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null ||
        ! EXT4_LOOP=$(losetup -f --show -r -o "$(part_start "$1" "$2")" \
            --sizelimit "$(part_size "$1" "$2")" "$1" 2>/dev/null); then
        echo "the mount check needs root and a loop device: skipped; the rest passed"
        exit 0
    fi
    trap 'rc=$?; ext4_unmount; exit $rc' EXIT
    mkdir -p mnt
    if ! mount -t ext4 -o ro "$EXT4_LOOP" mnt 2>/dev/null; then
        ext4_unmount
        echo "the kernel did not mount ext4 here: the mount check skipped; the rest passed"
        exit 0
    fi
}

# ext4_unmount: mnt/ unmounted and its loop device detached
ext4_unmount() {
    ! mountpoint -q mnt || umount mnt
    [ -z "${EXT4_LOOP:-}" ] || losetup -d "$EXT4_LOOP"
    EXT4_LOOP=
}

# walk DIR FORMAT: every entry below DIR but lost+found, as find -printf FORMAT prints it
# (paths from DIR), sorted
walk() {
    (cd "$1" && find . ! -name lost+found ! -path './lost+found/*' -printf "$2" | LC_ALL=C sort)
}

# same_walk WANT GOT FORMAT: the walks (walk) of the folders WANT and GOT are the same; the
# difference on stderr
same_walk() {
    walk "$1" "$3" >walk.want
    walk "$2" "$3" >walk.got
    diff walk.want walk.got >&2 || fail "the walk of $2 differs from $1's (above: < only in $1, > only in $2)"
}

# ext4_fsck IMG [N]: the ext4 volume IMG, or partition N of the image IMG, is clean for
# e2fsck -fn (the check every ext4 build of the e2e scripts ends with); the copy it reads out
# is removed again
ext4_fsck() {
    if [ $# -ge 2 ]; then
        ext4_clean "$1" "$2" fsck.vol
        rm -f fsck.vol
    else
        e2fsck -fn "$1" >e2fsck.out 2>&1 || fail "e2fsck -fn of $1 (exit $?): $(cat e2fsck.out)"
    fi
}

# tree_facts DIR [LEAVE]: one line per entry of DIR (lost+found at its top left out), sorted
# by path, for a diff of a source tree with the kernel's mount of what was built from it:
#   path type mode owner:group size mtime nlink rdev link-target digest xattrs link-group
# A folder's size and link count are the file system's own and show as '-'; mtime is in
# nanoseconds; digest is a file's XXH128 (xxh128sum, package xxhash: a sum of every byte at
# memory speed, for trees of large sparse files); xattrs are every name=hex value getfattr
# lists (so ACLs and capabilities);
# link-group is the first path of a file's hard-link group ('-' for a file with one name).
# LEAVE names facts a source format cannot carry, and those show as '-': any of owner,
# xattrs, links (nlink and link-group), ns (mtime in whole seconds), root (no line for the
# top folder), sockets (no line for a socket), specials (none for devices, fifos and sockets).
# Paths must not hold tabs or newlines.
tree_facts() {
    tree_scan "$1" facts
    facts_from facts "${2:-}" "${3:-facts.out}"
    rm -f facts.find facts.rdev facts.sum facts.xattr
}

# tree_scan DIR SCAN: what tree_facts reads of DIR, in the files SCAN.{find,rdev,sum,xattr}
# (facts_from SCAN LEAVE OUT then gives tree_facts DIR LEAVE OUT, for any LEAVE, without
# reading DIR again)
tree_scan() {
    (cd "$1" && find . ! -path ./lost+found ! -path './lost+found/*' \
        -printf '%p\t%y\t%m\t%U:%G\t%s\t%T@\t%n\t%i\t%l\n') >"$2.find"
    (cd "$1" && find . \( -type b -o -type c \) -exec stat -c '%n	%t:%T' {} +) >"$2.rdev"
    command -v xxh128sum >/dev/null || { echo "xxh128sum is not installed (package xxhash)"; exit 77; }
    (cd "$1" && find . ! -path './lost+found/*' -type f -exec xxh128sum {} +) >"$2.sum" ||
        fail "xxh128sum could not read every file of $1"
    (cd "$1" && getfattr -R -P -h -d -m - -e hex . 2>/dev/null) >"$2.xattr" || true
}

# facts_from SCAN LEAVE OUT: the facts (tree_facts) of the folder that tree_scan saw as SCAN;
# a file without a digest fails the test
facts_from() {
    LC_ALL=C awk -F '\t' -v leave=" ${2:-} " -v scan="$1" -v nodigest="$3.nodigest" '
        function left(what) { return index(leave, " " what " ") > 0 }
        # a name as sums print it after a line that starts with a backslash: \\ and \n undone
        function unescaped(s,   out, c, k) {
            for (k = 1; k <= length(s); k++) {
                c = substr(s, k, 1)
                if (c == "\\" && k < length(s)) { k++; c = substr(s, k, 1); if (c == "n") c = "\n" }
                out = out c
            }
            return out
        }
        FILENAME == scan ".rdev" { rdev[$1] = $2; next }
        FILENAME == scan ".sum" {
            s = $0; esc = substr(s, 1, 1) == "\\"
            if (esc) s = substr(s, 2)
            i = index(s, "  "); p = substr(s, i + 2)
            sum[esc ? unescaped(p) : p] = substr(s, 1, i - 1)
            next
        }
        FILENAME == scan ".xattr" {
            if ($0 ~ /^# file: /) { cur = substr($0, 9); if (cur != ".") cur = "./" cur; next }
            if ($0 != "" && !left("xattrs")) xa[cur] = xa[cur] " " $0
            next
        }
        {
            n++; path[n] = $1; line[n] = $0
            if ($2 == "f" && $7 > 1) { if (!($8 in first) || $1 < first[$8]) first[$8] = $1 }
        }
        END {
            for (i = 1; i <= n; i++) {
                split(line[i], f, "\t")
                if (f[1] == "." && left("root")) continue
                if (f[2] == "s" && left("sockets")) continue
                if (f[2] ~ /^[bcps]$/ && left("specials")) continue
                size = f[5]; nl = f[7]; grp = "-"
                if (f[2] == "d") { size = "-"; nl = "-" }
                if (f[2] == "f" && f[7] > 1) grp = first[f[8]]
                if (left("links")) { nl = "-"; grp = "-" }
                t = f[6]; if (left("ns")) sub(/\..*/, "", t); else sub(/0$/, "", t)
                own = left("owner") ? "-" : f[4]
                x = (f[1] in xa) ? substr(xa[f[1]], 2) : "-"
                r = (f[1] in rdev) ? rdev[f[1]] : "-"
                s = (f[1] in sum) ? sum[f[1]] : "-"
                if (f[2] == "f" && s == "-") print f[1] >nodigest
                l = f[9] == "" ? "-" : f[9]
                print f[1] "\t" f[2] "\t" f[3] "\t" own "\t" size "\t" t "\t" nl "\t" r "\t" l "\t" s "\t" x "\t" grp
            }
        }' "$1.rdev" "$1.sum" "$1.xattr" "$1.find" | LC_ALL=C sort >"$3"
    [ ! -s "$3.nodigest" ] || fail "no digest for $(wc -l <"$3.nodigest") file(s) of $1, as $(head -1 "$3.nodigest")"
    rm -f "$3.nodigest"
}

# facts_agree FACTS GOT WANT [LEAVE]: the facts of the folder GOT (tree_facts GOT LEAVE) are
# FACTS, those of the folder WANT (facts_from its scan); the first differences on stderr, all
# of them in facts.diff
facts_agree() {
    tree_facts "$2" "${4:-}" facts.got
    diff "$1" facts.got >facts.diff || {
        head -40 facts.diff | cut -c1-300 >&2
        fail "$(grep -c '^>' facts.diff) entries of $2 differ from $3's ($(wc -l <"$1") entries; < $3, > $2)"
    }
}
