#!/bin/sh
# SPDX-License-Identifier: MIT
# uboot-env { }: U-Boot environments as U-Boot stores them, checked with the tools of U-Boot's
# own world: mkenvimage (u-boot-tools) of the same text gives the same bytes, a single copy
# and both copies of a redundant one (-r); fw_printenv (libubootenv-tool), pointed at the
# image file and at a loop device by its config file, prints exactly the variables, before
# and after personalize and flash --card-values; two personalized cards differ only inside
# the environment's copies; the MAC counter gives no two cards one address; bad inputs are
# one line each and exit 1; two builds in other conditions give the same bytes.
. "$TOP/tests/e2e/lib/flash.sh"
need cmp mkenvimage fw_printenv jq sha256sum

K=1024
# mkenvimage's text: comments, blank lines, a value that goes on over a line break, U-Boot's
# own ${variables} kept as they are
cat >env.txt <<'EOT'
# the board's defaults
bootdelay=3

bootcmd=run findfdt; \
run mmcboot
fdtfile=imx8mm-evk.dtb
mmcargs=setenv bootargs console=${console} root=${mmcroot}
#nothing=here
EOT

cat >env.layout <<'EOT'
image { size = 8M seed = "uboot-env" align = 1M }
raw single { offset = 1M uboot-env { size = 16K vars = "env.txt" } }
raw env {
    offset = 4M
    uboot-env {
        size = 16K
        redundant = true
        vars = "env.txt"
        var "serial#" { value = "\${CARD_SERIAL}" per-card = true }
        var ethaddr { value = "\${MAC}" per-card = true }
        var board_rev { value = "B2" }
    }
}
raw apart { offset = 6M uboot-env { size = 8K redundant = true offset-redund = 7M pad-byte = 0 vars = "env.txt" } }
partition data { start = 5M size = 512K fill = true }
EOT
expect_status 0 "$SDIMG" build -q --bmap -o env.img env.layout

# copy FILE OFFSET SIZE OUT: SIZE bytes of FILE at OFFSET into OUT
copy() { dd if="$1" of="$4" bs=1024 skip=$(($2 / K)) count=$(($3 / K)) status=none; }

# --- mkenvimage of the same text gives the same bytes
mkenvimage -s 16384 -o m-single.bin env.txt
copy env.img $((1024 * K)) $((16 * K)) single.bin
cmp single.bin m-single.bin || fail "single: not mkenvimage's bytes"
cp env.txt full.txt
printf 'serial#=${CARD_SERIAL}\nethaddr=${MAC}\nboard_rev=B2\n' >>full.txt
mkenvimage -r -s 16384 -o m-redund.bin full.txt
copy env.img $((4096 * K)) $((16 * K)) c1.bin
copy env.img $((4096 * K + 16 * K)) $((16 * K)) c2.bin
cmp c1.bin m-redund.bin || fail "redundant: the first copy is not mkenvimage -r's"
# the second copy: the same but its flags byte, obsolete (0) where the first is active (1)
[ "$(od -An -tx1 -j4 -N1 c1.bin | tr -d ' ')" = 01 ] || fail "first copy's flags"
[ "$(od -An -tx1 -j4 -N1 c2.bin | tr -d ' ')" = 00 ] || fail "second copy's flags"
cmp -l c2.bin m-redund.bin >flags.txt || true
[ "$(cat flags.txt | tr -s ' ')" = " 5 0 1" ] || fail "second copy differs beyond its flags: $(head -3 flags.txt)"
mkenvimage -r -p 0 -s 8192 -o m-apart.bin env.txt
copy env.img $((6144 * K)) $((8 * K)) a1.bin
copy env.img $((7168 * K)) $((8 * K)) a2.bin
cmp a1.bin m-apart.bin || fail "offset-redund: first copy"
cmp -l a2.bin m-apart.bin | tr -s ' ' >flags.txt || true
[ "$(cat flags.txt)" = " 5 0 1" ] || fail "offset-redund: second copy"

# --- fw_printenv reads what the image holds
want_vars() { # the variables fw_printenv prints (in name order), and the card's values
    cat <<EOT
board_rev=B2
bootcmd=run findfdt; 
run mmcboot
bootdelay=3
ethaddr=$2
fdtfile=imx8mm-evk.dtb
mmcargs=setenv bootargs console=\${console} root=\${mmcroot}
serial#=$1
EOT
}
printenv_of() { # printenv_of FILE OFFSET [OFFSET2]: fw_printenv of a 16K environment there
    printf '%s %s 0x4000\n' "$1" "$2" >fw.cfg
    [ $# -lt 3 ] || printf '%s %s 0x4000\n' "$1" "$3" >>fw.cfg
    fw_printenv -c fw.cfg >printed.txt 2>fw.err || fail "fw_printenv $1: $(cat fw.err)"
}
printenv_of "$PWD/env.img" 0x100000
grep -v '^#' env.txt | grep -v '^$' | sed 's/\\$//' | sort >want.txt
sort printed.txt >got.txt
cmp want.txt got.txt || fail "fw_printenv single: $(cat printed.txt)"
printenv_of "$PWD/env.img" 0x400000 0x404000
want_vars '${CARD_SERIAL}' '${MAC}' >want.txt
cmp want.txt printed.txt || fail "fw_printenv redundant: $(cat printed.txt)"

# --- personalize: each card its own values, both copies with their CRCs, nothing else changed
expect_status 0 "$SDIMG" personalize env.img --set CARD_SERIAL=SN0001 --set MAC=02:00:00:00:00:01 -o p1.img
expect_status 0 "$SDIMG" personalize env.img --set CARD_SERIAL=SN0002 --set MAC=02:00:00:00:00:02 -o p2.img
printenv_of "$PWD/p1.img" 0x400000 0x404000
want_vars SN0001 02:00:00:00:00:01 >want.txt
cmp want.txt printed.txt || fail "fw_printenv after personalize: $(cat printed.txt)"
copy p1.img $((4096 * K)) $((16 * K)) c1.bin
copy p1.img $((4096 * K + 16 * K)) $((16 * K)) c2.bin
sed 's/${CARD_SERIAL}/SN0001/; s/${MAC}/02:00:00:00:00:01/' full.txt >card1.txt
mkenvimage -r -s 16384 -o m-card1.bin card1.txt
cmp c1.bin m-card1.bin || fail "personalized first copy is not mkenvimage's"
[ "$(cmp -l c2.bin m-card1.bin | tr -s ' ')" = " 5 0 1" ] || fail "personalized second copy"
# the second copy alone (the first damaged) is read too: its CRC was recomputed
cp p1.img p1-bad.img
printf 'X' | dd of=p1-bad.img bs=1 seek=$((4096 * K + 100)) conv=notrunc status=none
printenv_of "$PWD/p1-bad.img" 0x400000 0x404000
cmp want.txt printed.txt || fail "fw_printenv of the second copy: $(cat printed.txt)"
jq -r '."uboot-envs"[] | .size as $s | .copies[] | "\(.) \(. + $s)"' env.img.cards.json >ranges.txt
[ "$(wc -l <ranges.txt)" -eq 2 ] || fail "the manifest lists $(cat ranges.txt)"
differs_only_in ranges.txt p1.img p2.img
# inspect --uboot-env: the damaged first copy said so, the second the one U-Boot reads
expect_status 0 "$SDIMG" inspect p1-bad.img --uboot-env 4M
grep -q "copy 1 at byte 4194304: CRC BAD" out.txt || fail "inspect: $(cat out.txt)"
grep -q "copy 2 at byte 4210688: CRC ok (0x[0-9a-f]*), flags 0, active" out.txt || fail "inspect: $(cat out.txt)"
grep -q "^    serial#=SN0001$" out.txt || fail "inspect: $(cat out.txt)"
# cat --uboot-env: the variables fw_printenv prints (its in name order, cat's in stored order)
expect_status 0 "$SDIMG" cat p1.img --uboot-env 4M,16K
sort out.txt >cat.txt
sort want.txt >want-sorted.txt
cmp cat.txt want-sorted.txt || fail "cat --uboot-env: $(cat out.txt)"
expect_status 0 "$SDIMG" cat env.img --uboot-env 6M,8K,7M
grep -q "^fdtfile=imx8mm-evk.dtb$" out.txt || fail "cat offset-redund: $(cat out.txt)"
expect_status 1 "$SDIMG" cat env.img --uboot-env 2M
expect_stderr "env.img: no U-Boot environment at byte 2097152"
expect_status 1 "$SDIMG" cat env.img --uboot-env 8184K,16K
expect_stderr "ends past its 8388608 bytes"
expect_status 2 "$SDIMG" cat env.img --uboot-env 4M,x
# hex as U-Boot's configuration writes it; an empty or overlapping field, or a place past
# the end, said so
expect_status 0 "$SDIMG" cat env.img --uboot-env 0x600000,0x2000,0x700000
grep -q "^fdtfile=imx8mm-evk.dtb$" out.txt || fail "cat in hex: $(cat out.txt)"
expect_status 2 "$SDIMG" cat env.img --uboot-env 6M,,7M
grep -q "'6M,,7M' is not OFFSET\[,SIZE\[,OFFSET2\]\]" err.txt || fail "empty SIZE: $(cat err.txt)"
expect_status 2 "$SDIMG" inspect env.img --uboot-env 4M,16K,4100K
grep -q "the second copy at byte 4198400 overlaps the first" err.txt || fail "overlap: $(cat err.txt)"
expect_status 1 "$SDIMG" cat env.img --uboot-env 100G
expect_stderr "env.img: byte 107374182400 is past its 8388608 bytes"
differs_only_in ranges.txt env.img p1.img
# a manifest that does not say what the image holds is refused, by the region's name
jq '."uboot-envs"[0].vars[0].value = "9"' env.img.cards.json >edited.json
expect_status 1 "$SDIMG" personalize env.img --cards edited.json --set CARD_SERIAL=x --set MAC=y -o bad.img
expect_stderr "edited.json: uboot-envs (raw 'env'): the image's copy at byte 4194304 holds other bytes"
jq '."uboot-envs"[0].copies[1] = 4194305' env.img.cards.json >edited.json
expect_status 1 "$SDIMG" personalize env.img --cards edited.json --set CARD_SERIAL=x --set MAC=y -o bad.img
expect_stderr "copies: the second starts inside the first"
[ ! -e bad.img ] || fail "a refused manifest left bad.img"

# --- flash --card-values: a counter of serial numbers and MAC addresses, onto loop devices
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null 2>&1 &&
    dev=$(losetup -f --show env.img 2>/dev/null); then
    losetup -d "$dev"
    flash_trap
    a=$(ee_loop a 8388608)
    b=$(ee_loop b 8388608)
    expect_status 0 "$SDIMG" flash env.img "$a" "$b" --allow-fixed -q --first-index 255 \
        --card-values 'CARD_SERIAL=SN{index:04}' --card-values 'MAC=02:00:00:{index:mac3}'
    printenv_of "$a" 0x400000 0x404000
    want_vars SN0255 02:00:00:00:00:ff >want.txt
    cmp want.txt printed.txt || fail "fw_printenv of $a: $(cat printed.txt)"
    printenv_of "$b" 0x400000 0x404000
    want_vars SN0256 02:00:00:00:01:00 >want.txt
    cmp want.txt printed.txt || fail "fw_printenv of $b: $(cat printed.txt)"
    # the last address a 3-byte counter has, then none: no card gets an address twice
    expect_status 1 "$SDIMG" flash env.img "$a" --allow-fixed -q --first-index 16777216 \
        --card-values 'CARD_SERIAL=x' --card-values 'MAC=02:00:00:{index:mac3}'
    expect_stderr "card 16777216 does not fit {index:mac3}: the card would get the value of an earlier one"
    # a 6-byte counter from a zero first byte: card 0 would get 00:00:00:00:00:00
    expect_status 1 "$SDIMG" flash env.img "$a" --allow-fixed -q --first-index 0 \
        --card-values 'CARD_SERIAL=x' --card-values 'MAC={index:mac6}'
    expect_stderr "card 0 would get 00:00:00:00:00:00"
else
    echo "uboot_env: no loop device here, flash --card-values not run" >&2
fi

# --- MAC counters U-Boot would misread, or that give group addresses: usage errors, before
# any card (string_to_enetaddr() reads six fields of two hex digits; is_valid_ethaddr()
# refuses bit 0 of the first byte)
for p in 'MAC=02:00:00:{index:mac4}' 'MAC=02:00:00:{index:hex6}' 'MAC=02:00:{index:mac3}'; do
    expect_status 2 "$SDIMG" flash env.img /dev/null --card-values "$p"
    expect_stderr "not a MAC address of six hex pairs"
done
expect_status 2 "$SDIMG" flash env.img /dev/null --card-values 'MAC=01:00:00:{index:mac3}'
expect_stderr "01:00:00:00:00:00, a multicast address"
expect_status 2 "$SDIMG" flash env.img /dev/null --card-values 'MAC=02:00:00:{index:mac7}'
expect_stderr "1 to 6 bytes ({index:mac6})"
# a CSV's MAC addresses: one per card, none a group address (exit 1, its line named)
printf 'CARD_SERIAL,MAC\nSN1,02:00:00:00:00:01\n\nSN2,02:00:00:00:00:01\n' >dup.csv
expect_status 1 "$SDIMG" flash env.img /dev/null --card-values dup.csv
expect_stderr "dup.csv:4: MAC: 02:00:00:00:00:01 is on line 2 too: two cards would get one address"
printf 'CARD_SERIAL,MAC\nSN1,ff:ff:ff:ff:ff:ff\n' >dup.csv
expect_status 1 "$SDIMG" flash env.img /dev/null --card-values dup.csv
expect_stderr "dup.csv:2: MAC: ff:ff:ff:ff:ff:ff is a multicast address"

# --- the example i.MX8M eMMC card: its environment where U-Boot's configuration says,
# read by fw_printenv with the fw_env.config its comment gives, after personalize
sh "$TOP/examples/make-inputs.sh" imx8m-emmc in-ex
expect_status 0 "$SDIMG" build -q -I in-ex -o ex.img "$TOP/examples/imx8m-emmc/card.layout"
expect_status 0 "$SDIMG" personalize ex.img --set CARD_SERIAL=IMX0007 --set MAC=02:00:00:00:00:07 -o ex7.img
printf '%s 0x400000 0x1000\n%s 0x401000 0x1000\n' "$PWD/ex7.img" "$PWD/ex7.img" >fw.cfg
fw_printenv -c fw.cfg >printed.txt 2>fw.err || fail "fw_printenv example: $(cat fw.err)"
{ cat in-ex/env.txt; printf 'serial#=IMX0007\nethaddr=02:00:00:00:00:07\n'; } | sort >want.txt
cmp want.txt printed.txt || fail "example: fw_printenv: $(cat printed.txt)"
rm -f ex.img ex7.img in-ex/rootfs.ext4

# --- bad inputs: one line each, naming the place, exit 1
bad_env() { # bad_env TEXT: env.layout's first region with vars = "bad.txt" is refused
    printf 'image { size = 2M table = none }\nraw e { offset = 0 uboot-env { size = 1K vars = "bad.txt" } }\n' |
        build_refused bad "$1"
}
printf 'a=1\nnoequal\n' >bad.txt
bad_env "bad.txt:2: 'noequal' is not name=value"
printf 'a=1\r\nb=2\r\n' >bad.txt
bad_env "bad.txt:1: a carriage return"
printf 'a=1\n=2\n' >bad.txt
bad_env "bad.txt:2: the variable's name is empty"
printf 'a=1\nb=2\na=3\n' >bad.txt
bad_env "bad.txt:3: 'a' is set twice (line 1 and line 3)"
head -c 1100 /dev/zero | tr '\0' x | sed 's/^/big=/' >bad.txt
bad_env "bad.layout:2: raw 'e': uboot-env: the variables take 1106 bytes, more than the 1024 of a copy less its 4-byte header"
rm bad.txt
bad_env "bad.layout:2: raw 'e': ./bad.txt: No such file or directory"
build_refused badval "badval.layout:1: raw 'e': uboot-env: var 'a': value: holds a newline" <<'EOT'
raw e { offset = 0 uboot-env { size = 1K var a { value = "x\ny" } } }
EOT
build_refused badname "badname.layout:1: raw 'e': uboot-env: var 'a=b': the variable's name holds '='" <<'EOT'
raw e { offset = 0 uboot-env { size = 1K var "a=b" { value = "x" } } }
EOT
build_refused badredund "offset-redund: 1024 is inside the first copy" <<'EOT'
raw e { offset = 0 uboot-env { size = 2K redundant = true offset-redund = 1K } }
EOT
build_refused badfrom "a region holding a uboot-env { } is written by it alone" <<'EOT'
raw e { offset = 0 from = "env.txt" uboot-env { size = 2K } }
EOT

# the region's own size: exactly that of its copies is taken, another named
cat >sz.layout <<'EOT'
image { size = 8M table = none }
raw e { offset = 1M size = 8K uboot-env { size = 4K redundant = true var a { value = "1" } } }
EOT
expect_status 0 "$SDIMG" build -q -o sz.img sz.layout
sed 's/size = 8K/size = 12K/' sz.layout >sz2.layout
expect_status 1 "$SDIMG" build -q -o sz2.img sz2.layout
expect_stderr "sz2.layout:2: raw 'e': size: 12288 is not the 8192 bytes of the environment's copies"
[ ! -e sz2.img ] || fail "a refused size left sz2.img"

# per-card values and pieces of a sparse image: refused, nothing written
expect_status 1 "$SDIMG" build -q -o pc.simg --simg-max-size 1M env.layout
expect_stderr "env.layout: the layout has per-card values, which pieces of a sparse image cannot take"
[ -z "$(ls pc.* 2>/dev/null)" ] || fail "a refused split left: $(ls pc.*)"

# the vars file is an input: no output may replace it
expect_status 2 "$SDIMG" build -q -o env.txt env.layout
grep -q "env.txt" err.txt || fail "output over vars: $(cat err.txt)"
cmp -s env.txt full.txt && fail "env.txt was replaced"
head -1 env.txt | grep -q '^# the board' || fail "env.txt changed"

# --- reproducible: other umask, time zone, locale and mtimes give the same bytes
mkdir other
cp env.layout other/
cp -p env.txt other/
touch -d 2001-01-01 other/env.txt
(cd other && umask 077 && TZ=Asia/Tokyo LANG=C.UTF-8 "$SDIMG" build -q -o env.img env.layout) ||
    fail "second build"
[ "$(sha256sum <env.img)" = "$(sha256sum <other/env.img)" ] || fail "not reproducible"
cmp env.img.cards.json other/env.img.cards.json || fail "manifest not reproducible"
exit 0
