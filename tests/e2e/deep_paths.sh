#!/bin/sh
# SPDX-License-Identifier: MIT
# One limit for every source: a path in a partition has at most 64 names and 4095 bytes.
# Deeper or longer paths from a layout, a host folder or an archive are one error line that
# names the source, at once and in little memory (a 100 KB tar once took gigabytes).
. "$TOP/tests/e2e-lib.sh"
need bsdtar tar mdir /usr/bin/time

# deep N: "n/" N times
deep() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "n/" }'; }

# refused LAYOUT TEXT: the build fails with one line holding TEXT, quickly and in < 100 MB
refused() {
    expect_status 1 /usr/bin/time -o rss.txt -f %M "$SDIMG" build -o x.img "$1"
    expect_stderr "$2"
    [ "$(tail -1 rss.txt)" -lt 102400 ] || fail "$1: $(tail -1 rss.txt) KiB"
    [ ! -e x.img ] || fail "$1 left x.img"
}

# 64 names build (63 folders and a file), 65 do not: from a layout
printf 'image { table = none }\npartition p { type = fat size = 8M file "/%sf" { content = "x" } }\n' \
    "$(deep 63)" >ok.layout
expect_status 0 "$SDIMG" build -q -o ok.img ok.layout
mdir -i ok.img "::/$(deep 63)f" >/dev/null || fail "mtools does not find the 64-name path"
printf 'image { table = none }\npartition p { type = fat size = 8M dir "/%sx" {} }\n' "$(deep 1050)" >dir.layout
refused dir.layout "a path 1051 names deep in the partition; sdimg takes at most 64"

# from a host folder
mkdir -p "h/$(deep 70)" && echo x >"h/$(deep 70)f"
printf 'image { table = none }\npartition p { type = fat size = 8M tree "/" { from = "h" } }\n' >host.layout
refused host.layout "a path 65 names deep in the partition; sdimg takes at most 64"

# from archives: 70 levels, and a 100 KB path of 50,000 levels (renamed by GNU tar)
bsdtar -cf deep.tar h
printf 'image { table = none }\npartition p { type = fat size = 8M tree "/" { from = "deep.tar" } }\n' >tar.layout
refused tar.layout "a path 65 names deep in the partition; sdimg takes at most 64"
echo x >f && tar --format=pax --transform "s,^f\$,$(deep 50000)f," -cf long.tar f
printf 'image { table = none }\npartition p { type = fat size = 8M tree "/" { from = "long.tar" } }\n' >long.layout
refused long.layout "a path of 100002 bytes in the partition; sdimg takes at most 4095"
