# SPDX-License-Identifier: MIT
# Partition type words: every GPT type alias (the Discoverable Partitions Specification's
# root and /usr types of each architecture, and the rest) and the one-letter shortcuts of
# sfdisk and genimage, written into a GPT and read back by sfdisk and sgdisk, whose own
# type lists are the oracle; the MBR shortcuts read back by sfdisk.
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk jq

# ALIAS|libfdisk's name of the type it stands for
cat >words.txt <<'WORDS'
esp|EFI System
msdata|Microsoft basic data
linux|Linux filesystem
swap|Linux swap
linux-home|Linux home
linux-srv|Linux server data
linux-var|Linux variable data
linux-var-tmp|Linux temporary data
xbootldr|Linux extended boot
raid|Linux RAID
lvm|Linux LVM
linux-root-alpha|Linux root (Alpha)
linux-root-arc|Linux root (ARC)
linux-root-arm|Linux root (ARM)
linux-root-arm64|Linux root (ARM-64)
linux-root-ia64|Linux root (IA-64)
linux-root-loongarch64|Linux root (LoongArch-64)
linux-root-mips-le|Linux root (MIPS-32 LE)
linux-root-mips64-le|Linux root (MIPS-64 LE)
linux-root-ppc|Linux root (PPC)
linux-root-ppc64|Linux root (PPC64)
linux-root-ppc64-le|Linux root (PPC64LE)
linux-root-riscv32|Linux root (RISC-V-32)
linux-root-riscv64|Linux root (RISC-V-64)
linux-root-s390|Linux root (S390)
linux-root-s390x|Linux root (S390X)
linux-root-tilegx|Linux root (TILE-Gx)
linux-root-x86|Linux root (x86)
linux-root-x86-64|Linux root (x86-64)
linux-usr-alpha|Linux /usr (Alpha)
linux-usr-arc|Linux /usr (ARC)
linux-usr-arm|Linux /usr (ARM)
linux-usr-arm64|Linux /usr (ARM-64)
linux-usr-ia64|Linux /usr (IA-64)
linux-usr-loongarch64|Linux /usr (LoongArch-64)
linux-usr-mips-le|Linux /usr (MIPS-32 LE)
linux-usr-mips64-le|Linux /usr (MIPS-64 LE)
linux-usr-ppc|Linux /usr (PPC)
linux-usr-ppc64|Linux /usr (PPC64)
linux-usr-ppc64-le|Linux /usr (PPC64LE)
linux-usr-riscv32|Linux /usr (RISC-V-32)
linux-usr-riscv64|Linux /usr (RISC-V-64)
linux-usr-s390|Linux /usr (S390)
linux-usr-s390x|Linux /usr (S390X)
linux-usr-tilegx|Linux /usr (TILE-Gx)
linux-usr-x86|Linux /usr (x86)
linux-usr-x86-64|Linux /usr (x86-64)
linux-root-mipsel|Linux root (MIPS-32 LE)
linux-root-mips64el|Linux root (MIPS-64 LE)
linux-root-ppc64le|Linux root (PPC64LE)
linux-usr-mipsel|Linux /usr (MIPS-32 LE)
linux-usr-mips64el|Linux /usr (MIPS-64 LE)
linux-usr-ppc64le|Linux /usr (PPC64LE)
U|EFI System
L|Linux filesystem
S|Linux swap
H|Linux home
R|Linux RAID
V|Linux LVM
F|Microsoft basic data
WORDS
sfdisk -T --label gpt >types.txt
# libfdisk 2.38 does not know HPPA/PARISC yet: these two come from the specification's table
printf '1AACDB3B-5444-4138-BD9E-E5C2239B2346  Linux root (PARISC)\n' >>types.txt
printf 'DC4A4480-6917-4262-A4EC-DB9384949F25  Linux /usr (PARISC)\n' >>types.txt
printf 'linux-root-parisc|Linux root (PARISC)\nlinux-usr-parisc|Linux /usr (PARISC)\n' >>words.txt

# gpt_words WORDS NAME: NAME.img with a partition of each ALIAS of WORDS, whose types sfdisk
# must read as the GUIDs types.txt gives their names
gpt_words() {
    {
        echo 'image { table = gpt align = 4K seed = "type-words" }'
        n=0
        while IFS='|' read -r word name; do
            n=$((n + 1))
            echo "partition p$n { size = 4K gpt-type = $word }"
        done <"$1"
    } >"$2.layout"
    expect_status 0 "$SDIMG" build -v -o "$2.img" "$2.layout"
    sfdisk --json "$2.img" | jq -r '.partitiontable.partitions[].type' >got.txt
    # WORD|NAME|GUID sfdisk read, each NAME's GUID looked up in types.txt
    paste -d '|' "$1" got.txt | awk -F '|' '
        NR == FNR { types[substr($0, 39)] = substr($0, 1, 36); next }
        !($2 in types) { print "sfdisk -T lists no type \x27" $2 "\x27"; exit 1 }
        types[$2] != $3 { print "gpt-type = " $1 ": sfdisk reads " $3 ", " $2 " is " types[$2]; exit 1 }' \
        types.txt - >bad.txt ||
        fail "$(cat bad.txt)"
    [ "$(wc -l <got.txt)" -eq "$(wc -l <"$1")" ] || fail "$2.img: $(wc -l <got.txt) partitions read"
}
gpt_words words.txt gpt
cp out.txt build.txt

# sgdisk -i agrees for the shortcuts, and build -v names each type by its alias
n=0
while IFS='|' read -r word name; do
    n=$((n + 1))
    case $word in U|L|S|H|R|V|F) ;; *) continue ;; esac
    want=$(awk -v name="$name" 'substr($0, 39) == name { print $1 }' types.txt)
    sgdisk -i "$n" gpt.img | grep -q "^Partition GUID code: $want " ||
        fail "sgdisk -i $n: $(sgdisk -i "$n" gpt.img | head -1), expected $want for $word"
done <words.txt
grep -q "^  p1 .*type esp$" build.txt || fail "build -v: $(grep '^  p1 ' build.txt)"
grep -q "^  p28 .*type linux-root-x86$" build.txt || fail "build -v: $(grep '^  p28 ' build.txt)"
grep -q "^  p54 .*type esp$" build.txt || fail "build -v names U by its alias: $(grep '^  p54 ' build.txt)"

# a word that is no alias: one line, with the nearest alias
printf 'image { table = gpt }\npartition p {\n gpt-type = linux-root-x68\n}\n' >bad.layout
expect_status 1 "$SDIMG" plan bad.layout
expect_stderr "bad.layout:3: partition 'p': gpt-type: 'linux-root-x68' is neither a GUID nor a type alias"
grep -qF "did you mean 'linux-root-x86'?" err.txt || fail "no suggestion: $(cat err.txt)"

# genimage's words for partition-type-uuid where they are not sdimg's: its own names, the
# specification's root-ARCH and usr-ARCH as it writes them; then the specification's
# dm-verity partitions of root and /usr (data and signature) of every architecture, the
# big-endian MIPS ones and the per-user home; barebox's and U-Boot's partitions
cat >words2.txt <<'WORDS'
home|Linux home
uefi|EFI System
fat32|Microsoft basic data
linux-generic|Linux filesystem
srv|Linux server data
var|Linux variable data
tmp|Linux temporary data
user-home|Linux user's home
linux-user-home|Linux user's home
root-x86-64|Linux root (x86-64)
root-arm64|Linux root (ARM-64)
root-loongarch64|Linux root (LoongArch-64)
usr-riscv64|Linux /usr (RISC-V-64)
root-mips-le|Linux root (MIPS-32 LE)
root-x86-64-verity-sig|Linux root verity sign. (x86-64)
linux-root-mips|Linux root (MIPS-32 BE)
linux-root-mips64|Linux root (MIPS-64 BE)
linux-usr-mips|Linux /usr (MIPS-32 BE)
root-mips64|Linux root (MIPS-64 BE)
barebox-state|barebox state
barebox-env|barebox environment
u-boot-env|U-Boot environment
WORDS
# ARCH in sdimg's words|in libfdisk's
for arch in alpha\|Alpha arc\|ARC arm\|ARM arm64\|ARM-64 ia64\|IA-64 loongarch64\|LoongArch-64 \
    mips\|MIPS-32\ BE mips64\|MIPS-64\ BE mips-le\|MIPS-32\ LE mips64-le\|MIPS-64\ LE \
    parisc\|PARISC ppc\|PPC ppc64\|PPC64 ppc64-le\|PPC64LE riscv32\|RISC-V-32 \
    riscv64\|RISC-V-64 s390\|S390 s390x\|S390X tilegx\|TILE-Gx x86\|x86 x86-64\|x86-64; do
    ours=${arch%%|*} theirs=${arch#*|}
    for part in root\|root usr\|/usr; do
        echo "linux-${part%%|*}-$ours-verity|Linux ${part#*|} verity ($theirs)"
        echo "linux-${part%%|*}-$ours-verity-sig|Linux ${part#*|} verity sign. ($theirs)"
    done
done >>words2.txt
# what libfdisk 2.38 does not know yet: from the specification's table, barebox's
# documentation (state.html) and U-Boot's include/part_efi.h
cat >>types.txt <<'TYPES'
E9434544-6E2C-47CC-BAE2-12D6DEAFB44C  Linux root (MIPS-32 BE)
D113AF76-80EF-41B4-BDB6-0CFF4D3D4A25  Linux root (MIPS-64 BE)
773B2ABC-2A99-4398-8BF5-03BAAC40D02B  Linux /usr (MIPS-32 BE)
7A430799-F711-4C7E-8E5B-1D685BD48607  Linux root verity (MIPS-32 BE)
579536F8-6A33-4055-A95A-DF2D5E2C42A8  Linux root verity (MIPS-64 BE)
6E5A1BC8-D223-49B7-BCA8-37A5FCCEB996  Linux /usr verity (MIPS-32 BE)
81CF9D90-7458-4DF4-8DCF-C8A3A404F09B  Linux /usr verity (MIPS-64 BE)
BBA210A2-9C5D-45EE-9E87-FF2CCBD002D0  Linux root verity sign. (MIPS-32 BE)
43CE94D4-0F3D-4999-8250-B9DEAFD98E6E  Linux root verity sign. (MIPS-64 BE)
97AE158D-F216-497B-8057-F7F905770F54  Linux /usr verity sign. (MIPS-32 BE)
05816CE2-DD40-4AC6-A61D-37D32DC1BA7D  Linux /usr verity sign. (MIPS-64 BE)
D212A430-FBC5-49F9-A983-A7FEEF2B8D0E  Linux root verity (PARISC)
5843D618-EC37-48D7-9F12-CEA8E08768B2  Linux /usr verity (PARISC)
15DE6170-65D3-431C-916E-B0DCD8393F25  Linux root verity sign. (PARISC)
450DD7D1-3224-45EC-9CF2-A43A346D71EE  Linux /usr verity sign. (PARISC)
4778ED65-BF42-45FA-9C5B-287A1DC4AAB1  barebox state
6C3737F2-07F8-45D1-AD45-15D260AAB24D  barebox environment
3DE21764-95BD-54BD-A5C3-4ABE786F38A8  U-Boot environment
TYPES
[ "$(wc -l <words2.txt)" -le 128 ] || fail "words2.txt: more partitions than a GPT holds"
gpt_words words2.txt genimage
grep -q "^  p9 .*type linux-user-home$" out.txt || fail "build -v: $(grep '^  p9 ' out.txt)"

# a near miss of genimage's words: the nearest, as genimage writes it
printf 'image { table = gpt }\npartition p {\n gpt-type = root-x86_64\n}\n' >bad.layout
expect_status 1 "$SDIMG" plan bad.layout
expect_stderr "bad.layout:3: partition 'p': gpt-type: 'root-x86_64' is neither a GUID nor a type alias"
grep -qF "did you mean 'root-x86-64'?" err.txt || fail "no suggestion: $(cat err.txt)"
printf 'image { table = gpt }\npartition p {\n gpt-type = Barebox-State\n}\n' >bad.layout
expect_status 1 "$SDIMG" plan bad.layout
grep -qF "did you mean 'barebox-state'?" err.txt || fail "no suggestion: $(cat err.txt)"

# MBR: sfdisk's shortcuts and aliases with their MBR meaning
cat >mbr.layout <<'LAYOUT'
image { align = 4K }
partition l { size = 4K mbr-type = L }
partition s { size = 4K mbr-type = S }
partition u { size = 4K mbr-type = U }
partition r { size = 4K mbr-type = R }
partition v { size = 4K mbr-type = V }
partition w { size = 4K mbr-type = lvm }
LAYOUT
expect_status 0 "$SDIMG" build -q -o mbr.img mbr.layout
sfdisk --json mbr.img >m.json
got=$(jq -r '[.partitiontable.partitions[].type] | join(" ")' m.json)
[ "$got" = "83 82 ef f fd 8e 8e" ] || fail "MBR types (the fourth entry is the extended partition): $got"
for word in E Ex X; do
    printf 'partition p {\n size = 4K\n mbr-type = %s\n}\n' "$word" >bad.layout
    expect_status 1 "$SDIMG" plan bad.layout
    expect_stderr "bad.layout:3: partition 'p': mbr-type: 0x"
    grep -qF "is an extended partition type" err.txt || fail "mbr-type = $word: $(cat err.txt)"
done
printf 'partition p {\n size = 4K\n mbr-type = F\n}\n' >bad.layout
expect_status 1 "$SDIMG" plan bad.layout
expect_stderr "bad.layout:3: partition 'p': mbr-type: 'F' is not an MBR type"
