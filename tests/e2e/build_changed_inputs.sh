#!/bin/sh
# SPDX-License-Identifier: MIT
# Inputs that change between the moment they are listed or measured and the moment their
# bytes are copied are an error naming the input, never other bytes in the image: a tree's
# folder swapped for a symbolic link to another folder (files of the same size), a raw
# region's file cut short or replaced, a link re-pointed out of its tree.
# strace's fault injection holds the build after it has listed its inputs (at the ftruncate
# that sizes the image), while the test changes them.
. "$TOP/tests/e2e-lib.sh"
need strace
strace -f -o /dev/null true 2>/dev/null || { echo "strace cannot trace here (ptrace not allowed)"; exit 77; }

# the program itself: the timing must not include the plan check of tests/e2e-lib.sh
REAL=${SDIMG_REAL:-$SDIMG}

# hold INJECT [STRACE OPTIONS] COMMAND...: COMMAND in the background under strace, held by
# the fault injection INJECT (SYSCALL:delay_exit=2000000[:when=N]), its stderr to err.txt and
# its status to rc.txt; back as soon as the call is held (strace writes the call's line,
# marked DELAYED, as the delay begins): the change is made in the 2 s the call is held,
# whatever the load of the machine
hold() {
    inject=$1
    shift
    rm -f trace.txt
    (rc=0; strace -f -o trace.txt -e trace="${inject%%:*}" -e inject="$inject" "$@" 2>err.txt || rc=$?
        echo $rc >rc.txt) &
    wait_for 30 grep -q DELAYED trace.txt || fail "'$*' was not held at ${inject%%:*} in 30 s: $(cat err.txt)"
}

# held CHANGE LAYOUT: builds LAYOUT into x.img, running the shell command CHANGE while the
# build waits after listing; the build's stderr goes to err.txt, its status to rc.txt
held() {
    hold ftruncate:delay_exit=2000000 "$REAL" build -q -o x.img "$2"
    sh -c "$1"
    wait
}

mkdir -p t/a other && echo AAAA >t/a/f && echo BBBB >other/f
printf 'image { table = none }\npartition p { type = fat size = 8M tree "/" { from = "t" } }\n' >tree.layout
held 'mv t/a t/a.old && ln -s ../other t/a' tree.layout
[ "$(cat rc.txt)" -eq 1 ] || fail "a swapped folder: exit $(cat rc.txt)"
expect_stderr "./t/a/f: changed while the image was built (it is not the file of 5 bytes that was listed)"
[ ! -e x.img ] || fail "a failed build left x.img"
rm t/a && mv t/a.old t/a

# a folder swapped for a symbolic link while the walk is in a folder beside it: the walk goes
# on through the folder descriptors it listed and refuses what is now a link where it listed
# a folder (it used to follow the link and take the other folder's files, exit 0). The walk is
# held at the third getdents64 (two a folder): the listing of t/a, after the walk's listing of
# t (the one walk reads each folder once).
mkdir -p t/b && echo BBBB >t/b/f && echo OOOO >other/f
hold getdents64:delay_exit=2000000:when=3 "$REAL" build -q -o x.img tree.layout
mv t/b t/b.old && ln -s ../other t/b
wait
[ "$(cat rc.txt)" -eq 1 ] || fail "a folder swapped mid-walk: exit $(cat rc.txt)"
expect_stderr "./t/b: changed while it was read (now a symbolic link)"
[ ! -e x.img ] || fail "a failed build left x.img"
rm t/b && mv t/b.old t/b

# a link found to lead inside the tree (links = inside), re-pointed out of it while it is
# followed name by name: what it leads to is no longer what was listed, an error (the build
# is held at the first readlinkat, where the walk reads the link's target)
mkdir -p t3 && echo LLLL >t3/f && echo SSSS >secret && ln -s f t3/l
printf 'image { table = none }\npartition p { type = fat size = 8M tree "/" { from = "t3" } }\n' >link.layout
hold readlinkat:delay_exit=2000000:when=1 "$REAL" build -q -o x.img link.layout
ln -sfn ../secret t3/l
wait
[ "$(cat rc.txt)" -eq 1 ] || fail "a link re-pointed while it was followed: exit $(cat rc.txt)"
expect_stderr "./t3/l: changed while it was read (the symbolic link leads elsewhere)"
[ ! -e x.img ] || fail "a failed build left x.img"

# a raw region's file cut short (it was written as its first part plus zeros), or rewritten
# with other bytes of the same size
head -c 1048576 /dev/urandom >r.bin
printf 'image { table = none }\nraw r { offset = 1M from = "r.bin" }\n' >raw.layout
held 'truncate -s 524288 r.bin' raw.layout
[ "$(cat rc.txt)" -eq 1 ] || fail "a cut raw input: exit $(cat rc.txt)"
expect_stderr "./r.bin: changed while the image was built (it is not the file of 1048576 bytes that was measured)"
[ ! -e x.img ] || fail "a failed build left x.img"
head -c 1048576 /dev/urandom >r.bin
held 'head -c 1048576 /dev/urandom >r.new && touch -d @1 r.new && mv r.new r.bin' raw.layout
[ "$(cat rc.txt)" -eq 1 ] || fail "a replaced raw input: exit $(cat rc.txt)"
expect_stderr "./r.bin: changed while the image was built"

# ext4: a folder's file grown, replaced by other bytes of the same size, or written to while
# it is read, after the walk listed it (it was cut to its listed size, or its new bytes taken
# silently). The build is held at its first read of a.f (strace -P), after a.f was opened
# and checked; b.f is opened and checked after that.
mkdir -p e && printf AAAA >e/a.f && printf BBBB >e/b.f
printf 'image { table = none }\npartition p { type = ext4 size = 8M tree "/" { from = "e" } }\n' >ext4.layout
ext4_held() {
    hold pread64:delay_exit=2000000:when=1 -P "$PWD/e/a.f" "$REAL" build -q -o x.img ext4.layout
    sh -c "$1"
    wait
}
ext4_held 'printf BBBBBBBB >e/b.f'
[ "$(cat rc.txt)" -eq 1 ] || fail "ext4: a grown file: exit $(cat rc.txt)"
expect_stderr "./e/b.f: changed while the image was built (it is not the file of 4 bytes that was listed)"
[ ! -e x.img ] || fail "a failed build left x.img"
printf BBBB >e/b.f
ext4_held 'printf CCCC >e/b.f.new && touch -d @1 e/b.f.new && mv e/b.f.new e/b.f'
[ "$(cat rc.txt)" -eq 1 ] || fail "ext4: a replaced file: exit $(cat rc.txt)"
expect_stderr "./e/b.f: changed while the image was built (it is not the file of 4 bytes that was listed)"
[ ! -e x.img ] || fail "a failed build left x.img"
ext4_held 'printf DDDD >>e/a.f'
[ "$(cat rc.txt)" -eq 1 ] || fail "ext4: a file written to while it was read: exit $(cat rc.txt)"
expect_stderr "./e/a.f: changed while the image was built (it is not the file of 4 bytes that was listed)"
[ ! -e x.img ] || fail "a failed build left x.img"
# cut shorter after the walk listed it: found as it is read (the build checks a file once, after
# reading it), with the same message
printf AAAA >e/a.f
ext4_held 'printf B >e/b.f'
[ "$(cat rc.txt)" -eq 1 ] || fail "ext4: a file cut shorter: exit $(cat rc.txt)"
expect_stderr "./e/b.f: changed while the image was built (it is not the file of 4 bytes that was listed)"
[ ! -e x.img ] || fail "a failed build left x.img"
# another kind of file put at its name, which open(2), read(2) or lseek(2) refuse (a FIFO,
# a folder, a socket, a symbolic link: O_NOFOLLOW), the file small (read whole) or large (its
# data found with lseek(SEEK_DATA)): a change, with the same message, where ext4 said what the
# call said ("Illegal seek", "Is a directory", "Too many levels of symbolic links")
need python3
bind="python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])'"
for kind in "fifo 4" "fifo 100000" "folder 4" "socket 100000" "link 4"; do
    set -- $kind
    case $1 in
        fifo) put='mkfifo e/b.f' ;;
        folder) put='mkdir e/b.f' ;;
        socket) put="$bind e/b.f" ;;
        link) put='ln -s a.f e/b.f' ;;
    esac
    head -c "$2" /dev/zero | tr '\0' B >e/b.f
    ext4_held "rm e/b.f && $put"
    [ "$(cat rc.txt)" -eq 1 ] || fail "ext4: a $1 in place of a file of $2 bytes: exit $(cat rc.txt)"
    expect_stderr "./e/b.f: changed while the image was built (it is not the file of $2 bytes that was listed)"
    [ ! -e x.img ] || fail "a failed build left x.img"
    rm -rf e/b.f
done
# FAT: a socket, which open(2) refuses (ENXIO), said so as well
held "rm t/a/f && $bind t/a/f" tree.layout
[ "$(cat rc.txt)" -eq 1 ] || fail "FAT: a socket in place of a file: exit $(cat rc.txt)"
expect_stderr "./t/a/f: changed while the image was built (it is not the file of 5 bytes that was listed)"
[ ! -e x.img ] || fail "a failed build left x.img"
