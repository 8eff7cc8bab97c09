# SPDX-License-Identifier: MIT
# An ext4 partition from a host folder, a file and a dir: e2fsck -fn finds it clean, debugfs
# shows owners, modes, times and links as the layout says (0:0 from a folder, owner and group
# where set), two builds are one image, and (as root, with loop devices) the kernel mounts it
# and a walk of the mount equals the folder's.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck debugfs sfdisk jq sha256sum mkfifo setpriv setcap getcap setfattr getfattr setfacl getfacl

mkdir -p root/etc root/bin root/usr/share/doc root/empty
printf 'board\n' >root/etc/hostname
head -c 300000 /dev/urandom >root/bin/prog
chmod 4755 root/bin/prog
ln -s ../etc/hostname root/bin/link
ln root/etc/hostname root/etc/hostname2
mkfifo root/fifo
truncate -s 1M root/sparse
i=0
while [ $i -lt 300 ]; do echo $i >root/usr/share/doc/f$i; i=$((i + 1)); done
chmod 0750 root/empty

cat >card.layout <<'LAYOUT'
image { table = gpt seed = "ext4" timestamp = 1700000000 }
partition boot { type = fat size = 8M }
partition rootfs {
    type = ext4
    size = 64M
    tree "/" { from = "root" }
    file "/etc/motd" { content = "hello" owner = 7 }
    dir "/home/user" { owner = 1000 group = 100 }
    ext4 { label = "rootfs" }
}
LAYOUT
expect_status 0 "$SDIMG" build card.layout -o a.img
ext4_clean a.img 2 p.img

stat_of /bin/prog | grep -q 'Mode:  04755' || fail "/bin/prog lost its setuid bit"
stat_of /bin/prog | grep -q 'User:     0   Group:     0' || fail "/bin/prog is not 0:0"
stat_of /bin/prog | grep -q 'mtime: 0x6553f100' || fail "/bin/prog's mtime is not the timestamp"
stat_of /etc/motd | grep -q 'User:     7   Group:     0' || fail "/etc/motd is not 7:0"
stat_of /home/user | grep -q 'User:  1000   Group:   100' || fail "/home/user is not 1000:100"
stat_of /etc/hostname | grep -q 'Links: 2' || fail "/etc/hostname has not 2 links"
stat_of /fifo | grep -q 'Type: FIFO' || fail "/fifo is not a fifo"
stat_of /empty | grep -q 'Mode:  0750' || fail "/empty lost its mode"
debugfs -R 'stat /bin/link' p.img 2>/dev/null | grep -q 'Fast link dest: "../etc/hostname"' ||
    fail "/bin/link does not point at ../etc/hostname"
debugfs -R 'dump /bin/prog prog.out' p.img >/dev/null 2>&1
cmp -s prog.out root/bin/prog || fail "/bin/prog's bytes differ"
uuid=$(printf '%s\n%s' ext4 ext4-uuid/rootfs | sha256sum | cut -c1-32)
dumpe2fs -h p.img 2>/dev/null | tr -d - | grep -qi "UUID: *$(echo "$uuid" | cut -c1-12)" ||
    fail "the UUID does not come from the seed"

# the bmap covers every block the volume uses: copied by bmaptool onto a card full of 0xff,
# the volume is still clean
if command -v bmaptool >/dev/null; then
    expect_status 0 "$SDIMG" build card.layout -o bm.img --bmap
    head -c "$(stat -c %s bm.img)" /dev/zero | tr '\0' '\377' >card.bin
    bmaptool -q copy --bmap bm.img.bmap bm.img card.bin
    ext4_clean card.bin 2 pc.img
    rm -f card.bin pc.img bm.img bm.img.bmap
fi

# sdimg ls and cat read it back as debugfs did
expect_status 0 "$SDIMG" ls -l a.img:rootfs/bin
grep -q '^-rwsr-xr-x     0     0     300000 2023-11-14 22:13:20  prog$' out.txt || fail "ls -l /bin: $(cat out.txt)"
grep -q '^lrwxrwxrwx .* link -> ../etc/hostname$' out.txt || fail "ls -l /bin lacks the link"
expect_status 0 "$SDIMG" ls -R a.img:2
[ "$(grep -c '^f[0-9]*$' out.txt)" -eq 300 ] || fail "ls -R does not list the 300 files"
"$SDIMG" cat a.img:2/bin/prog | cmp -s - root/bin/prog || fail "sdimg cat /bin/prog differs"
expect_status 1 "$SDIMG" cat a.img:2/etc/missing
expect_stderr "a.img:2/etc/missing: no such file or folder"
# and a volume mke2fs made from the folder (no table: the image is the volume)
if mke2fs -q -t ext4 -d root -F m.img 16M >/dev/null 2>&1; then
    expect_status 0 "$SDIMG" ls -l m.img:/bin
    grep -q ' prog$' out.txt || fail "ls of mke2fs's volume: $(cat out.txt)"
    "$SDIMG" cat m.img:/bin/prog | cmp -s - root/bin/prog || fail "cat of mke2fs's volume differs"
fi

# the same inputs at another time, with other mtimes: the same image
sleep 1
touch root/etc/hostname
expect_status 0 "$SDIMG" build card.layout -o b.img
[ "$(sha256sum <a.img)" = "$(sha256sum <b.img)" ] || fail "two builds differ"

# size = auto: the smallest size in whole MiB (the align) that holds the files; one MiB less
# does not, and extra adds to it
cat >auto.layout <<'LAYOUT'
image { table = gpt seed = "ext4" timestamp = 1700000000 align = 1M }
partition rootfs { type = ext4 size = auto tree "/" { from = "root" } ext4 { journal = false } }
LAYOUT
expect_status 0 "$SDIMG" build auto.layout -o auto.img
auto=$(part_size auto.img 1)
ext4_clean auto.img 1 pa.img
sed "s/size = auto/size = $((auto / 1048576 - 1))M/" auto.layout >small.layout
expect_status 1 "$SDIMG" build small.layout -o small.img
# what ran out, and the size it needs, in one line that names the layout line: a set size
# has one inode per 16 KiB (auto's count is the tree's and a quarter more), so it may need
# more than auto's size, and that size builds
expect_stderr "small.layout:2: small.img: ext4: adding ./root/"
need=$(sed -n "s/.*inodes are used (ext4 { inodes }): partition 'rootfs' needs size = \([0-9]*\)M or more (or size = auto)$/\1/p" err.txt)
[ -n "$need" ] && [ "$need" -ge $((auto / 1048576)) ] ||
    fail "the message does not say the size needed: $(cat err.txt)"
sed "s/size = auto/size = ${need}M/" auto.layout >need.layout
expect_status 0 "$SDIMG" build need.layout -o need.img
rm -f need.img
# 4 MiB of 4 KiB blocks hold no journal: the keys that make one fit are named
cat >journal.layout <<'LAYOUT'
image { table = gpt seed = "ext4" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 4M }
LAYOUT
expect_status 1 "$SDIMG" build journal.layout -o journal.img
expect_stderr "journal.layout:2: journal.img: ext4: 1024 blocks of 4096 bytes are too few for a journal (2048 or more): journal = false, or block-size = 1K: partition 'rootfs' needs size = 8M or more"
# a walk that fails is the one error: the files it listed are not read after it
mkdir -p locked/d && printf x >locked/a && chmod 000 locked/a locked/d && chmod 777 .
sed 's/from = "root"/from = "locked"/; s/size = auto/size = 8M/' auto.layout >locked.layout
setpriv --reuid=nobody --regid=nogroup --clear-groups "$SDIMG" build locked.layout -o locked.img \
    >out.txt 2>err.txt && fail "a folder that cannot be read was built"
expect_stderr "locked.layout:2: ./locked/d: Permission denied"
sed "s/size = auto/size = auto extra = 3M/" auto.layout >extra.layout
expect_status 0 "$SDIMG" build extra.layout -o extra.img
ext4_fsck extra.img 1
[ "$(part_size extra.img 1)" -eq $((auto + 3 * 1048576)) ] || fail "extra = 3M did not add 3 MiB"

# a sparse host file's holes are found (SEEK_DATA), not read: 1 GiB of them was read in full
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
    mkdir -p sparse && truncate -s 1G sparse/big && printf data >>sparse/big
    sed 's/from = "root"/from = "sparse"/; s/size = auto/size = 16M/' auto.layout >sparse.layout
    strace -f -o trace.txt -e trace=read,pread64 "$SDIMG_REAL" build -q -o sparse.img sparse.layout ||
        fail "the build of a sparse file failed"
    bytes=$(awk '/= [0-9]+$/ { n += $NF } END { printf "%d", n }' trace.txt)
    [ "$bytes" -lt 16777216 ] || fail "a 1 GiB sparse file: the build read $bytes bytes"
    ext4_clean sparse.img 1 p.img
    stat_of /big | grep -q 'Size: 1073741828' || fail "/big is not 1 GiB and 4 bytes"
    # one block of data, the last, and holes before it
    phys=$(debugfs -R 'ex /big' p.img 2>/dev/null | awk '/ 262144 - 262144 / { print $8 }')
    [ -n "$phys" ] && [ "$(debugfs -R 'ex /big' p.img 2>/dev/null | grep -c ' - ')" -eq 1 ] ||
        fail "/big is not one block of data after its holes: $(debugfs -R 'ex /big' p.img 2>&1)"
    [ "$(dd if=p.img bs=4096 skip="$phys" count=1 status=none | head -c 4)" = data ] ||
        fail "/big's last block is not its data"
else
    echo "strace cannot trace here: the sparse read check skipped"
fi

# every ext4 { } key as dumpe2fs reads it back, on an MBR (type 0x83)
cat >keys.layout <<'LAYOUT'
image { table = mbr seed = "ext4" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 32M tree "/" { from = "root" }
    ext4 { label = "r" block-size = 1K inode-size = 128 inodes = 1000 reserved = 5 journal = false
           uuid = 01234567-89ab-cdef-0123-456789abcdef } }
LAYOUT
expect_status 0 "$SDIMG" build keys.layout -o keys.img
[ "$(part_json keys.img 1 type)" = 83 ] || fail "the MBR type is not 0x83"
ext4_clean keys.img 1 pk.img
dumpe2fs -h pk.img 2>/dev/null >keys.txt
for want in 'volume name: *r$' 'UUID: *01234567-89ab-cdef-0123-456789abcdef' 'Block size: *1024' \
    'Inode size:.*128' 'Inode count: *1024' 'Reserved block count: *1638' 'Block count: *32768'; do
    grep -q "$want" keys.txt || fail "dumpe2fs lacks '$want': $(cat keys.txt)"
done
grep -q has_journal keys.txt && fail "journal = false left a journal"

# features: the older checksums without 64bit, for old kernels and boot loaders; a wrong name
sed 's/ext4 { journal = false }/ext4 { features = "^metadata_csum,uninit_bg,^64bit" }/' auto.layout >old.layout
expect_status 0 "$SDIMG" build old.layout -o old.img
ext4_clean old.img 1 po.img
feat=$(dumpe2fs -h po.img 2>/dev/null | grep '^Filesystem features:')
case $feat in *uninit_bg*) ;; *) fail "no uninit_bg: $feat" ;; esac
case $feat in *64bit*|*metadata_csum*) fail "64bit or metadata_csum left: $feat" ;; esac
sed 's/ext4 { journal = false }/ext4 { features = "^bogus" }/' auto.layout >bad.layout
expect_status 1 "$SDIMG" build bad.layout -o bad.img
expect_stderr "bad.layout:2: partition 'rootfs': ext4: features: '^bogus' is not one of"

# a host folder's owners and extended attributes (they were made 0:0 and dropped): built as
# root without an owners key, its entries keep their owners (a setgid file of group 42 stays
# setgid 42), a capability, a user attribute and an ACL; owners = root makes them root's; as
# another user they are root's, with one warning that counts the entries of other owners
mkdir -p own/home/user own/bin
printf x >own/bin/chage && chown 0:42 own/bin/chage && chmod 2755 own/bin/chage
head -c 1000 /dev/urandom >own/bin/ping && setcap cap_net_raw+ep own/bin/ping
chown 1000:1000 own/home/user
printf y >own/note && setfattr -n user.origin -v board own/note && setfacl -m u:1000:rw own/note
printf z >own/flag && setfattr -n user.flag own/flag # an empty value is a value, alone too
chmod -R a+rX own && chmod 777 .
cat >own.layout <<'LAYOUT'
image { table = gpt seed = "ext4" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 16M tree "/" { from = "own" } }
LAYOUT
expect_status 0 "$SDIMG" build own.layout -o own.img
ext4_clean own.img 1 p.img
stat_of /bin/chage | grep -q 'Mode:  02755' || fail "/bin/chage lost its setgid bit"
stat_of /bin/chage | grep -q 'User:     0   Group:    42' || fail "/bin/chage is not 0:42"
stat_of /home/user | grep -q 'User:  1000   Group:  1000' || fail "/home/user is not 1000:1000"
debugfs -R 'ea_list /bin/ping' p.img 2>/dev/null | grep -q 'security.capability (20)' ||
    fail "/bin/ping lost its capability"
debugfs -R 'ea_list /note' p.img 2>/dev/null | grep -q 'user.origin (5) = "board"' ||
    fail "/note lost user.origin"
debugfs -R 'ea_list /flag' p.img 2>/dev/null | grep -q 'user.flag (0)' || fail "/flag lost its empty user.flag"
debugfs -R 'ea_list /note' p.img 2>/dev/null | grep -q 'system.posix_acl_access' ||
    fail "/note lost its ACL"
sed 's/from = "own"/from = "own" owners = root/' own.layout >own-root.layout
expect_status 0 "$SDIMG" build own-root.layout -o own-root.img
ext4_clean own-root.img 1 p.img
stat_of /home/user | grep -q 'User:     0   Group:     0' || fail "owners = root: /home/user is not 0:0"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$SDIMG" build own.layout -o own-nobody.img \
    >out.txt 2>err.txt || { cat err.txt >&2; fail "the build as nobody failed"; }
grep -qF "warning: own.layout:2: tree '/': 2 entries of ./own belong to other users or groups than root and you: their owner and group are made root's" err.txt ||
    { cat err.txt >&2; fail "as nobody, no warning of the owners made root's"; }
grep -qF "warning: own.layout:2: tree '/': ./own has extended attributes, and its trusted.*" err.txt ||
    { cat err.txt >&2; fail "as nobody, no warning of the trusted.* attributes"; }
cmp -s own-root.img own-nobody.img || fail "as nobody, the image is not the one owners = root gives"

# the kernel's view: a walk of the mount equals the folder's (owners 0:0, times the timestamp)
mkdir -p root/home/user && chmod 755 root/home root/home/user
printf hello >root/etc/motd
ext4_mount a.img 2
same_walk root mnt '%m %y %s %p %l\n'
(cd root && find . -type f -exec sha256sum {} + | LC_ALL=C sort) >sums.root
(cd mnt && find . -type f -exec sha256sum {} + | LC_ALL=C sort) >sums.mnt
diff sums.root sums.mnt >&2 || fail "the mount's files differ from the folder's"
find mnt -printf '%U %G %T@\n' | sort -u >owners.txt
grep -v '^0 0 1700000000' owners.txt | grep -v '^1000 100 1700000000' | grep -v '^7 0 1700000000' |
    grep -q . && fail "owners or times in the mount: $(cat owners.txt)"
ext4_unmount

# and of the host folder's owners, attributes and ACL
ext4_mount own.img 1
same_walk own mnt '%U %G %m %y %s %p %l\n'
for f in bin/ping note home/user bin/chage; do
    [ "$(cd own && getfattr -h -d -m - $f 2>&1)" = "$(cd mnt && getfattr -h -d -m - $f 2>&1)" ] ||
        fail "the mount's attributes of $f differ from the folder's"
done
[ "$(cd mnt && getfacl -n note)" = "$(cd own && getfacl -n note)" ] || fail "the mount's ACL of /note differs"
[ "$(getcap mnt/bin/ping | cut -d' ' -f2-)" = "cap_net_raw=ep" ] || fail "the mount's /bin/ping: $(getcap mnt/bin/ping)"
ext4_unmount
exit 0
