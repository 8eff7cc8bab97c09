#!/bin/sh
# SPDX-License-Identifier: MIT
# A file of a tree under a write lease that another process holds (fcntl(2) F_SETLEASE, as a
# file server's oplock or delegation): the build's open waits until the holder gives the
# lease back, as any open does, and builds (ext4 at a fixed size and size = auto, whose
# count reads the file, FAT32, exFAT). A tree's files are opened without waiting for a
# FIFO's writer (O_NONBLOCK), which fails at once on a leased file instead: the open is
# made again without it. The holder gives the lease back a second after the break is asked.
# The file's bytes are read back by debugfs (ext4) and mtype (FAT); the exFAT volume is
# checked by fsck.exfat.
. "$TOP/tests/e2e-lib.sh"
need python3 cmp debugfs mtype fsck.exfat
[ "$(id -u)" -eq 0 ] || { echo "a lease on a file of another owner needs root (CAP_LEASE): skipped"; exit 77; }

mkdir -p tree/d
head -c 100000 /dev/urandom >tree/d/leased
head -c 3000 /dev/urandom >tree/other

# hold FILE: a process holding a write lease on FILE until a second after its break is asked
hold() {
    python3 - "$1" <<'EOF' 2>hold.err &
import fcntl, os, signal, sys, time
F_SETLEASE = 1024
fd = os.open(sys.argv[1], os.O_RDONLY)
def give_back(signum, frame):
    time.sleep(1)
    fcntl.fcntl(fd, F_SETLEASE, fcntl.F_UNLCK)
    sys.exit(0)
signal.signal(signal.SIGIO, give_back)
fcntl.fcntl(fd, F_SETLEASE, fcntl.F_WRLCK)
open("held", "w").close()
time.sleep(30)
sys.exit(1)
EOF
    holder=$!
    i=0
    while [ ! -e held ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ -e held ] || {
        cat hold.err
        kill $holder 2>/dev/null
        echo "no lease could be taken here: skipped"
        exit 77
    }
}

for kind in "ext4 size = 16M" "ext4 size = auto" "fat32 size = 40M" "exfat size = 16M"; do
    printf 'image { table = gpt seed = "lease" }\npartition p { type = %s tree "/" { from = "tree" } }\n' \
        "$kind" >card.layout
    rm -f held card.img
    hold tree/d/leased
    "$SDIMG" build -q -o card.img card.layout 2>build.err ||
        fail "$kind: the build failed on a leased file: $(cat build.err)"
    wait $holder || fail "$kind: the lease was not asked back (the holder timed out)"
    dd if=card.img of=p.img bs=512 skip=$(($(part_start card.img 1) / 512)) status=none
    case $kind in
        ext4*) debugfs -R "dump /d/leased got" p.img 2>/dev/null ;;
        fat*) mtype -i p.img ::/d/leased >got 2>/dev/null ;;
        exfat*)
            fsck.exfat -n p.img >fsck.out 2>&1 || fail "$kind: fsck.exfat: $(tail -1 fsck.out)"
            cp tree/d/leased got
            ;;
    esac
    cmp -s got tree/d/leased || fail "$kind: the leased file's bytes differ in the image"
    rm -f got p.img
done
