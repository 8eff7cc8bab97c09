# SPDX-License-Identifier: MIT
# An ext4 partition from a tar.zst, built as an unprivileged user: a root-owned Debian-like
# tree with a setuid binary, device nodes, a hard link and a capability read back (debugfs)
# with root ownership, the setuid bit, the devices and the attribute; the same tree as a
# folder gives the same image where owners agree; and (as root, with loop devices) a walk of
# the mount equals the archive's listing.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck debugfs sfdisk jq tar zstd setpriv setcap getfattr python3 setfacl getfacl bsdtar cpio
[ "$(id -u)" -eq 0 ] || { echo "making a root-owned tree with device nodes needs root: skipped"; exit 77; }

mkdir -p root/etc root/bin root/dev root/usr/lib root/var/empty
printf 'board\n' >root/etc/hostname
head -c 200000 /dev/urandom >root/bin/ping
ln -s ../etc/hostname root/bin/hn
ln root/etc/hostname root/usr/lib/hostname
mknod root/dev/null c 1 3
mknod root/dev/mmcblk0 b 179 0
mknod root/dev/big c 300 70000
mkfifo root/dev/initctl
chown -R 0:0 root
chmod 4755 root/bin/ping
chmod 1777 root/var/empty
tar --sort=name -C root -cf - . | zstd -q >plain.tar.zst
setcap cap_net_raw+ep root/bin/ping
chmod 4755 root/bin/ping
chown 33:44 root/usr/lib
tar --sort=name --xattrs --xattrs-include='*' -C root -cf - . | zstd -q >rootfs.tar.zst
chmod -R a+rX . && chmod 777 .

layout() {
    cat >"$1.layout" <<LAYOUT
image { table = gpt seed = "ext4-archive" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 32M tree "/" { from = "$1" } }
LAYOUT
}
layout rootfs.tar.zst
setpriv --reuid=nobody --regid=nogroup --clear-groups "$SDIMG" build rootfs.tar.zst.layout -o tar.img >out.txt 2>err.txt ||
    { cat err.txt >&2; fail "the build as nobody failed"; }
ext4_clean tar.img 1 p.img
stat_of /bin/ping | grep -q 'Mode:  04755' || fail "/bin/ping lost its setuid bit"
stat_of /bin/ping | grep -q 'User:     0   Group:     0' || fail "/bin/ping is not root's"
debugfs -R 'ea_list /bin/ping' p.img 2>/dev/null | grep -q 'security.capability (20) = 01 00 00 02 00 20' ||
    fail "/bin/ping lost its capability"
stat_of /dev/null | grep -q 'Device major/minor number: 01:03' || fail "/dev/null is not 1:3"
stat_of /dev/mmcblk0 | grep -q 'Type: block special' || fail "/dev/mmcblk0 is not a block device"
stat_of /dev/big | grep -q 'Device major/minor number: 300:70000' || fail "/dev/big is not 300:70000"
stat_of /dev/initctl | grep -q 'Type: FIFO' || fail "/dev/initctl is not a fifo"
stat_of /usr/lib | grep -q 'User:    33   Group:    44' || fail "/usr/lib is not 33:44"
stat_of /etc/hostname | grep -q 'Links: 2' || fail "/etc/hostname has not 2 links"
stat_of /var/empty | grep -q 'Mode:  01777' || fail "/var/empty lost its sticky bit"

# the archive of the tree before setcap and chown, and the tree unpacked: one image
mkdir unpacked
zstd -dcq plain.tar.zst | tar -C unpacked -xf -
layout plain.tar.zst
layout unpacked
expect_status 0 "$SDIMG" build plain.tar.zst.layout -o a.img
expect_status 0 "$SDIMG" build unpacked.layout -o b.img
ext4_fsck a.img 1
cmp -s a.img b.img || fail "the image from the archive differs from the one from its folder"

# strip: the same tree one folder down in the archive, stripped, gives the same image; a strip
# that leaves nothing warns; a folder takes no strip
mkdir -p nested && cp -a unpacked nested/rootfs
tar --sort=name -C nested -cf - . | zstd -q >nested.tar.zst
sed 's/from = "plain.tar.zst"/from = "nested.tar.zst" strip = 1/' plain.tar.zst.layout >nested.layout
expect_status 0 "$SDIMG" build nested.layout -o c.img
cmp -s a.img c.img || fail "strip = 1 of ./rootfs/ gives another image"
sed 's/strip = 1/strip = 9/' nested.layout >gone.layout
expect_status 0 "$SDIMG" build gone.layout -o d.img
ext4_fsck d.img 1
grep -q "strip = 9 leaves nothing of" err.txt || fail "no warning when strip leaves nothing"
sed 's/from = "plain.tar.zst"/from = "unpacked" strip = 1/' plain.tar.zst.layout >dirstrip.layout
expect_status 1 "$SDIMG" build dirstrip.layout -o e.img
expect_stderr "is a folder, and strip applies to archive entries"

# names normalised as on FAT (they were refused): '/abs', 'a//b', './a/./c'
python3 - <<'PY'
import io, tarfile
with tarfile.open('names.tar', 'w', format=tarfile.PAX_FORMAT) as t:
    for name, data in (('/abs', b'A'), ('a//b', b'B'), ('./a/./c', b'C')):
        i = tarfile.TarInfo(name)
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
PY
layout names.tar
expect_status 0 "$SDIMG" build names.tar.layout -o n.img
ext4_clean n.img 1 p.img
[ "$(debugfs -R 'cat /abs' p.img 2>/dev/null)$(debugfs -R 'cat /a/b' p.img 2>/dev/null)$(debugfs -R 'cat /a/c' p.img 2>/dev/null)" = ABC ] ||
    fail "'/abs', 'a//b', './a/./c' are not /abs, /a/b, /a/c"

# ACLs as GNU tar and bsdtar store them (libarchive gives ACL entries, not attributes): the
# access ACL of a file, whose mask is not its owning group's entry, and a folder's default
# ACL, as system.posix_acl_access and _default (they were dropped); compared with getfacl
# through the kernel below
mkdir -p acl/d && echo x >acl/f
if setfacl -m u:1000:rwx,g::r--,m::rwx acl/f 2>/dev/null && setfacl -d -m u:1000:r-x,g:44:rwx acl/d; then
    tar --acls -C acl -cf gnu-acl.tar .
    bsdtar --acls -C acl -cf bsd-acl.tar .
    for a in gnu-acl bsd-acl; do
        layout $a.tar
        expect_status 0 "$SDIMG" build $a.tar.layout -o $a.img
        ext4_clean $a.img 1 p.img
        debugfs -R 'ea_list /f' p.img 2>/dev/null | grep -q 'system.posix_acl_access' ||
            fail "$a.tar: /f has no ACL"
    done
    (cd acl && getfacl -R f d) >acl.want
else
    echo "this folder takes no ACLs: the ACL check skipped"
    rm -f acl.want
fi

# attribute names Linux cannot use on ext4 are refused, naming the entry
python3 - <<'PY'
import io, tarfile
for n, name in ((1, 'foo.bar'), (2, 'user.')):
    with tarfile.open('bad%d.tar' % n, 'w', format=tarfile.PAX_FORMAT) as t:
        i = tarfile.TarInfo('etc/x')
        i.pax_headers = {'SCHILY.xattr.' + name: 'v'}
        t.addfile(i, io.BytesIO(b''))
PY
layout bad1.tar
build_refused bad1 "./bad1.tar: etc/x: extended attribute 'foo.bar': not a name Linux can use on ext4" <bad1.tar.layout
layout bad2.tar
build_refused bad2 "./bad2.tar: etc/x: extended attribute 'user.': not a name Linux can use on ext4" <bad2.tar.layout

# attributes the kernel would not show or allow where the entry is are refused, naming the
# layout's line, the entry and why (they were stored and read back as "No such attribute"):
# user.* beside a symbolic link or a device, a capability beside a symbolic link, a default
# ACL beside a file; and an ACL's value the kernel cannot read, saying what is wrong with it
python3 - <<'PY2'
import io, tarfile
obj = b'\x01\x00\x07\x00\x00\x00\x00\x00\x04\x00\x05\x00\x00\x00\x00\x00\x20\x00\x05\x00\x00\x00\x00\x00'
def tar(path, name, type, attr, value):
    with tarfile.open(path, 'w', format=tarfile.PAX_FORMAT) as t:
        i = tarfile.TarInfo(name)
        i.type = type
        i.linkname = 'f' if type == tarfile.SYMTYPE else ''
        i.pax_headers = {'SCHILY.xattr.' + attr: value.decode('utf-8', 'surrogateescape')}
        t.addfile(i, io.BytesIO(b''))
tar('xsym.tar', 'l', tarfile.SYMTYPE, 'user.a', b'v')
tar('xchr.tar', 'c', tarfile.CHRTYPE, 'user.a', b'v')
tar('xcap.tar', 'l', tarfile.SYMTYPE, 'security.capability', b'\x01\x00\x00\x02' + b'\x00' * 16)
tar('xdef.tar', 'f', tarfile.REGTYPE, 'system.posix_acl_default', b'\x02\x00\x00\x00' + obj)
tar('xver.tar', 'f', tarfile.REGTYPE, 'system.posix_acl_access', b'\x01\x00\x00\x00' + obj)
tar('xlen.tar', 'f', tarfile.REGTYPE, 'system.posix_acl_access', b'\x02\x00\x00\x00' + obj[:20])
tar('xord.tar', 'f', tarfile.REGTYPE, 'system.posix_acl_access', b'\x02\x00\x00\x00' + obj[8:16] + obj[:8] + obj[16:])
PY2
for x in xsym:l:"user.a: user.* attributes are only for files and folders (xattr(7))" \
         xchr:c:"user.a: user.* attributes are only for files and folders (xattr(7))" \
         xcap:l:"security.capability: capabilities are only for files" \
         xdef:f:"system.posix_acl_default: only folders have default ACLs" \
         xver:f:"system.posix_acl_access: not a POSIX ACL the kernel reads (version 1, not 2)" \
         xlen:f:"system.posix_acl_access: not a POSIX ACL the kernel reads (24 bytes, not a 4-byte version and 8-byte entries)" \
         xord:f:"system.posix_acl_access: not a POSIX ACL the kernel reads (entry 2 is out of the order"; do
    a=${x%%:*} rest=${x#*:}
    layout $a.tar
    build_refused $a "$a.layout:2: tree '/': ./$a.tar: ${rest%%:*}: attribute ${rest#*:}" <$a.tar.layout
done

# hard links: a name linked to itself says so; a link to a file of another tree says links
# reach only within one archive (both read "which is not a file before it")
python3 - <<'PY2'
import io, tarfile
with tarfile.open('self.tar', 'w', format=tarfile.PAX_FORMAT) as t:
    i = tarfile.TarInfo('f')
    i.size = 1
    t.addfile(i, io.BytesIO(b'x'))
    i = tarfile.TarInfo('f')
    i.type, i.linkname = tarfile.LNKTYPE, 'f'
    t.addfile(i)
with tarfile.open('first.tar', 'w', format=tarfile.PAX_FORMAT) as t:
    t.addfile(tarfile.TarInfo('g'))
with tarfile.open('other.tar', 'w', format=tarfile.PAX_FORMAT) as t:
    i = tarfile.TarInfo('h')
    i.type, i.linkname = tarfile.LNKTYPE, 'g'
    t.addfile(i)
PY2
layout self.tar
build_refused self "self.layout:2: tree '/': ./self.tar: 'f' is a hard link to itself (the same path twice)" <self.tar.layout
cat >two.in <<LAYOUT
image { table = gpt seed = "ext4-archive" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 32M
    tree "/" { from = "first.tar" }
    tree "/" { from = "other.tar" }
}
LAYOUT
build_refused two "two.layout:4: tree '/': ./other.tar: 'h' is a hard link to 'g', which is not in this archive (hard links reach only within one tree)" <two.in

# a folder listed twice: cpio calls the second a hard link to the first (same inode), tar a
# folder again; both build, to one image, on ext4 and on FAT (cpio was refused on both)
mkdir -p twice/dir && echo hi >twice/dir/f
(cd twice && printf 'dir\ndir/f\ndir\n' | cpio -o -H newc --quiet >../twice.cpio &&
    tar --no-recursion -cf ../twice.tar dir dir/f dir)
for a in twice.cpio twice.tar; do
    layout $a
    expect_status 0 "$SDIMG" build $a.layout -o $a.img
    sed 's/type = ext4 size = 32M/type = fat32 size = 64M/' $a.layout >$a.fat.layout
    expect_status 0 "$SDIMG" build $a.fat.layout -o $a.fat.img
done
ext4_fsck twice.cpio.img 1
cmp -s twice.cpio.img twice.tar.img || fail "ext4: a folder twice in cpio gives another image than in tar"
cmp -s twice.cpio.fat.img twice.tar.fat.img || fail "FAT: a folder twice in cpio gives another image than in tar"

# one set of limits for every file system: a path 71 names deep in an archive is refused
# on ext4 with FAT's message, unless exclude leaves it out
deep=deep/skip
for i in $(seq 1 69); do deep=$deep/d; done
mkdir -p "$deep" && echo x >"$deep/f" && echo ok >deep/ok
tar -C deep -cf deep.tar ok skip
layout deep.tar
expect_status 1 "$SDIMG" build deep.tar.layout -o deep.img
expect_stderr "deep.tar: skip/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/: a path 65 names deep in the partition; sdimg takes at most 64"
sed 's|from = "deep.tar"|from = "deep.tar" exclude = "skip"|' deep.tar.layout >deepx.layout
expect_status 0 "$SDIMG" build deepx.layout -o deepx.img

# a path that two entries give (tar -r): FAT keeps the later, ext4 refuses, naming both
mkdir dup && echo first >dup/a && tar -C dup -cf dup.tar a && echo second >dup/a && tar -C dup -rf dup.tar a
layout dup.tar
expect_status 1 "$SDIMG" build dup.tar.layout -o dup.img
expect_stderr "dup.tar.layout:2: tree '/': ./dup.tar: 'a' is in the archive twice, and ext4 takes one entry a path"

# the kernel's view of the first image against the archive's listing
ext4_mount tar.img 1
same_walk root mnt '%U %G %m %y %s %p %l\n'
getfattr -h -d -m - mnt/bin/ping 2>/dev/null | grep -q 'security.capability=0sAQAAAgAgAAAAAAAAAAAAAAAAAAA=' ||
    fail "the mount lost the capability"
[ "$(stat -c '%t:%T' mnt/dev/null)" = "1:3" ] || fail "the mount's /dev/null is $(stat -c '%t:%T' mnt/dev/null)"
ext4_unmount
if [ -e acl.want ]; then
    for a in gnu-acl bsd-acl; do
        ext4_mount $a.img 1
        (cd mnt && getfacl -R f d) >acl.got
        diff acl.want acl.got >&2 || fail "$a.tar: the mount's ACLs differ from the folder's (above)"
        [ "$(stat -c %A mnt/f)" = "$(stat -c %A acl/f)" ] ||
            fail "$a.tar: /f is $(stat -c %A mnt/f), not $(stat -c %A acl/f) (the mask is the group bits)"
        ext4_unmount
    done
fi
exit 0
