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

{
    echo 'image { table = gpt align = 4K seed = "type-words" }'
    n=0
    while IFS='|' read -r word name; do
        n=$((n + 1))
        echo "partition p$n { size = 4K gpt-type = $word }"
    done <words.txt
} >gpt.layout
expect_status 0 "$SDIMG" build -v -o gpt.img gpt.layout
cp out.txt build.txt
sfdisk --json gpt.img >t.json
n=0
while IFS='|' read -r word name; do
    n=$((n + 1))
    want=$(awk -v name="$name" 'substr($0, 39) == name { print $1 }' types.txt)
    [ -n "$want" ] || fail "sfdisk -T lists no type '$name'"
    got=$(jq -r ".partitiontable.partitions[$((n - 1))].type" t.json)
    [ "$got" = "$want" ] || fail "gpt-type = $word: sfdisk reads $got, $name is $want"
done <words.txt

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
