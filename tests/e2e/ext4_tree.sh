# An ext4 partition from a host folder, a file and a dir: e2fsck -fn finds it clean, debugfs
# shows owners, modes, times and links as the layout says (0:0 from a folder, owner and group
# where set), two builds are one image, and (as root, with loop devices) the kernel mounts it
# and a walk of the mount equals the folder's.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck debugfs sfdisk jq sha256sum mkfifo

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
expect_stderr "Could not allocate"
sed "s/size = auto/size = auto extra = 3M/" auto.layout >extra.layout
expect_status 0 "$SDIMG" build extra.layout -o extra.img
ext4_fsck extra.img 1
[ "$(part_size extra.img 1)" -eq $((auto + 3 * 1048576)) ] || fail "extra = 3M did not add 3 MiB"

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
exit 0
