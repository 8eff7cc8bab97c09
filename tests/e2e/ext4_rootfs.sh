# SPDX-License-Identifier: MIT
# e2e-long: a Debian root file system built from five sources and walked each time
# A real root file system as ext4: about 50 Debian packages fetched at test time (apt-get
# download, kept in $BUILD/deb-cache for the next run) and unpacked with dpkg-deb -x (some 8,000
# entries: setgid-shadow binaries, man pages and terminfo names that are symbolic links, hard
# links), plus what a package's scripts or a running system add: a file capability (ping's
# postinst would setcap it), devices, a fifo, a socket, non-root owners, user and SELinux
# xattrs, ACLs, nanosecond times. Built by sdimg from the folder, from GNU tar (default
# unsorted order, --xattrs, --acls, --numeric-owner), from a bsdtar pax archive, from cpio newc
# (names as find gives them) and from a zip; each volume passes e2fsck -fn and its read-only
# mount agrees with the folder, entry by entry (tree_facts: type, mode, owner, size, mtime,
# links, rdev, link target, digest, xattrs, hard-link groups), but for what its format cannot
# carry (said below, per format). Needs root (device nodes, owners) and apt-get's packages.
. "$TOP/tests/e2e/lib/ext4.sh"
need apt-get dpkg-deb e2fsck debugfs sfdisk jq xxh128sum getfattr setfattr setfacl setcap \
    mknod perl tar bsdtar cpio zip
[ "$(id -u)" -eq 0 ] || { echo "device nodes and owners of the tree need root: skipped"; exit 77; }
unset SOURCE_DATE_EPOCH

PACKAGES="base-files base-passwd bash coreutils dash debianutils diffutils findutils grep gzip
    hostname iputils-ping less libacl1 libattr1 libaudit-common libaudit1 libblkid1 libbz2-1.0
    libc-bin libc6 libcap2 libcap2-bin libcrypt1 liblzma5 libmd0 libmount1 libncursesw6 libpam-modules
    libpam-modules-bin libpam-runtime libpam0g libpcre2-8-0 libreadline8 libselinux1
    libsmartcols1 libtinfo6 libuuid1 libzstd1 login mount ncurses-base ncurses-bin ncurses-term
    passwd perl-base procps readline-common sed sysvinit-utils tar tzdata util-linux zlib1g"

# the packages: those the cache lacks fetched (the cache is the first place for a rerun)
cache=${SDIMG_DEB_CACHE:-$BUILD/deb-cache}
mkdir -p "$cache"
missing=""
for p in $PACKAGES; do
    [ -n "$(find "$cache" -name "${p}_*.deb")" ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086
    (cd "$cache" && apt-get -q download $missing) >apt.out 2>&1 || {
        tail -3 apt.out
        echo "apt-get download could not fetch$missing (offline, no Debian sources, or a release without one of them): skipped"
        exit 77
    }
fi
mkdir root
for p in $PACKAGES; do
    deb=$(find "$cache" -name "${p}_*.deb" | LC_ALL=C sort | tail -1)
    dpkg-deb -x "$deb" root || fail "dpkg-deb -x $deb"
done

# what a system adds to the packages' files
setcap cap_net_raw+ep root/bin/ping
mkdir -p root/dev root/run root/home/user/.config root/srv/shared/default
mknod root/dev/null c 1 3
mknod root/dev/tty0 c 4 0
mknod root/dev/mmcblk0p2 b 179 2
mknod root/dev/loop7 b 7 7
mkfifo root/run/initctl
perl -MSocket -e 'socket(S, PF_UNIX, SOCK_STREAM, 0) && bind(S, pack_sockaddr_un($ARGV[0])) or die "$!"' \
    root/run/daemon.sock || fail "no unix socket made"
printf 'user\n' >root/home/user/.profile
printf '[ui]\n' >root/home/user/.config/app.conf
chown -R 1000:1000 root/home/user
chown 1000:100 root/home/user/.config/app.conf
chown 0:42 root/srv/shared && chmod 2770 root/srv/shared
mkdir -p root/usr/local/bin
ln root/bin/bash root/usr/local/bin/sh-login
ln root/bin/bash root/srv/bash-copy
setfattr -n user.comment -v "a root file system" root/etc/issue
setfattr -n user.empty root/etc/issue.net
setfattr -n security.selinux -v "system_u:object_r:shell_exec_t:s0" root/bin/bash 2>/dev/null || true
setfattr -h -n security.selinux -v "system_u:object_r:bin_t:s0" root/bin/sh 2>/dev/null || true
setfacl -m u:1000:r,g:100:rw root/srv/shared/default
setfacl -d -m u:1000:rwx root/srv/shared
touch -d @1700000000.123456789 root/etc/issue
touch -h -d @1600000000.987654321 root/usr/share/man/man1/zfgrep.1.gz
touch -d @1500000000.5 root/home/user root/srv/shared

# the sources, each made from root/ as its own tool makes it: tar and cpio in the order the
# folders' names come (unsorted), zip without special files (zip would read a device)
tar --xattrs --xattrs-include='*' --acls --numeric-owner -C root -cf gnu.tar . 2>tar.err ||
    fail "tar: $(cat tar.err)"
bsdtar --format=pax --xattrs --acls --numeric-owner -C root -cf pax.tar . 2>bsdtar.err ||
    fail "bsdtar: $(cat bsdtar.err)"
(cd root && find . | cpio -o -H newc --quiet) >rootfs.cpio || fail "cpio -o"
(cd root && find . ! -type b ! -type c ! -type p ! -type s | zip -q -y -@ ../rootfs.zip) || fail "zip"

# check SOURCE LEAVE: an image built from SOURCE holds a clean volume whose mount agrees with
# root/ but for LEAVE (tree_facts); it runs in a subshell, so that every source is tried.
# root/ is read once (tree_scan), its facts for each LEAVE made from that scan.
tree_scan root root.scan
failed=""
check() {
    cat >"$1.layout" <<LAYOUT
image { table = gpt seed = "rootfs" mtime = source }
partition rootfs { type = ext4 size = 320M tree "/" { from = "$1" } }
LAYOUT
    if ! (expect_status 0 "$SDIMG" build "$1.layout" -o "$1.img"); then
        echo "FAIL above: the build from $1" >&2
        failed="$failed $1"
        return 0
    fi
    # e2fsck and the mount are both looked at, whatever the other says
    bad=""
    if ! (ext4_clean "$1.img" 1 p.img); then
        echo "FAIL above: e2fsck -fn of the ext4 built from $1" >&2
        bad=1
    fi
    rm -f p.img
    if ! (ext4_mount "$1.img" 1 && facts_from root.scan "$2" facts.want &&
        facts_agree facts.want mnt root "$2"); then
        echo "FAIL above: the mount of the ext4 built from $1" >&2
        bad=1
    fi
    [ -z "$bad" ] || failed="$failed $1"
    rm -f "$1.img"
}
# a folder: everything
check root ""
# GNU tar and pax keep no sockets (tar says "socket ignored")
check gnu.tar "sockets"
check pax.tar "sockets"
# cpio newc: no xattrs (so no capability, no ACL) and times in whole seconds
check rootfs.cpio "xattrs ns"
# zip: no owners, xattrs, devices, fifos or sockets, hard links as separate files, whole
# seconds (its extended timestamp), and no entry for the top folder
check rootfs.zip "owner xattrs links ns root specials"
[ -z "$failed" ] || fail "the ext4 built from$failed differs from the tree (above)"
exit 0
