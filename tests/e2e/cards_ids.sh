#!/bin/sh
# SPDX-License-Identifier: MIT
# disk-id = per-card and volume-id = per-card: `sdimg personalize` gives each card its own MBR
# disk signature (or GPT disk GUID and partition GUIDs, both headers and arrays with their
# CRCs: sgdisk -v) and FAT volume serial, derived from the card's values; a per-card file
# names them (${DISK_ID}, ${PARTUUID_NAME}, ${VOLUME_ID_NAME}); a file that is not per-card
# holding a per-card id's image value is refused at build time.
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk fsck.fat mtype minfo jq cmp

vol_of() { echo $(($(part_json "$1" 1 start) * 512)); }

for table in mbr gpt; do
    cat >id.layout <<EOT
image { table = $table disk-id = per-card seed = "cards" }
partition boot {
    type = fat
    size = 40M
    fat { volume-id = per-card }
    file "/cmdline.txt" { content = "root=PARTUUID=\\\${PARTUUID_root} disk=\\\${DISK_ID} vol=\\\${VOLUME_ID_boot}\n" per-card = true reserve = 512 }
    file "/plain.txt" { content = "the same on every card\n" }
}
partition root { type = raw size = 8M }
EOT
    expect_status 0 "$SDIMG" build id.layout -o id.img -q
    expect_status 0 "$SDIMG" personalize id.img --set SN=1 -o a.img
    expect_status 0 "$SDIMG" personalize id.img --set SN=2 -o b.img
    expect_status 0 "$SDIMG" personalize id.img --set SN=1 -o a2.img
    cmp -s a.img a2.img || fail "$table: the same values give another card"
    for c in a b; do
        off=$(vol_of $c.img)
        dd if=$c.img of=vol.img bs=1M iflag=skip_bytes skip="$off" count=40 status=none
        fsck_clean vol.img
        if [ $table = gpt ]; then
            sgdisk -v $c.img >sg.txt 2>&1 || fail "$table: sgdisk -v $c.img: $(cat sg.txt)"
            grep -q "No problems found" sg.txt || fail "$table: sgdisk -v $c.img: $(cat sg.txt)"
            disk=$(sfdisk --json $c.img | jq -r .partitiontable.id | tr A-F a-f)
            puuid=$(part_json $c.img 2 uuid | tr A-F a-f)
        else
            disk=$(sfdisk --json $c.img | jq -r .partitiontable.id | sed 's/^0x//')
            puuid=$disk-02
        fi
        serial=$(minfo -i "$c.img@@$off" :: | sed -n 's/.*serial number: \(....\)\(....\).*/\1-\2/p')
        want="root=PARTUUID=$puuid disk=$disk vol=$serial"
        got=$(mtype -i "$c.img@@$off" ::/cmdline.txt)
        [ "$got" = "$want" ] || fail "$table: card $c: '$got', its ids say '$want'"
        eval "disk_$c=\$disk vol_$c=\$serial"
    done
    [ "$disk_a" != "$disk_b" ] || fail "$table: two cards share the disk id $disk_a"
    [ "$vol_a" != "$vol_b" ] || fail "$table: two cards share the volume id $vol_a"
    [ "$(mtype -i "b.img@@$(vol_of b.img)" ::/plain.txt)" = "the same on every card" ] ||
        fail "$table: plain.txt"
    expect_status 1 "$SDIMG" personalize id.img -o c.img
    expect_stderr "its ids are per-card, and derive from the card's values"

    # two value sets never give two cards the same ids: names and values go into the ids
    # length-prefixed, so a newline in a value cannot pass for the start of another
    expect_status 0 "$SDIMG" personalize id.img --set "$(printf 'CARD_SERIAL=X\nHOST=y')" --set HOST=z -o a.img
    expect_status 0 "$SDIMG" personalize id.img --set CARD_SERIAL=X --set "$(printf 'HOST=y\nHOST=z')" -o b.img
    [ "$(sfdisk --json a.img | jq -r .partitiontable.id)" != "$(sfdisk --json b.img | jq -r .partitiontable.id)" ] ||
        fail "$table: two value sets that differ give one disk id"
    # a name given twice, a name of an id the card derives, a name with a control character
    expect_status 2 "$SDIMG" personalize id.img --set SN=1 --set SN=2 -o c.img
    grep -qF -- "--set 'SN' given twice" err.txt || fail "$table: --set twice: $(cat err.txt)"
    expect_status 2 "$SDIMG" personalize id.img --set SN=1 --set PARTUUID_root=x -o c.img
    grep -qF "names an id each card derives" err.txt || fail "$table: --set PARTUUID_root: $(cat err.txt)"
    expect_status 2 "$SDIMG" personalize id.img --set "$(printf 'S\tN=1')" -o c.img
    grep -qF "is not a variable name" err.txt || fail "$table: --set with a tab: $(cat err.txt)"
    [ ! -e c.img ] || fail "$table: a refused personalize left c.img"

    # the image's own id, verbatim in a file that is not per-card: refused
    if [ $table = gpt ]; then id=$(part_json id.img 2 uuid | tr A-F a-f)
    else id=$(sfdisk --json id.img | jq -r .partitiontable.id | sed 's/^0x//')-02; fi
    sed "s|/plain.txt\" { content = \"[^\"]*\"|/plain.txt\" { content = \"root=PARTUUID=$id\"|" \
        id.layout >bad.layout
    grep -q "$id" bad.layout || fail "the test's layout"
    expect_status 1 "$SDIMG" build bad.layout -o bad.img
    expect_stderr "an id that is per-card"
    [ ! -e bad.img ] || fail "a refused build left bad.img"
    # in a host file too, in upper case, past its first MiB
    { head -c 1500000 /dev/zero; echo "root=PARTUUID=$id" | tr a-f A-F; } >ext.conf
    sed 's|file "/plain.txt"|file "/ext.conf" { from = "ext.conf" }\n    file "/plain.txt"|' \
        id.layout >bad.layout
    expect_status 1 "$SDIMG" build bad.layout -o bad.img
    expect_stderr "/ext.conf holds"
    rm -f a.img a2.img b.img id.img*
done

# a per-card file may name only the ids a card gets anew: any other would have no value on
# every card, so the build refuses it, naming the file's line (and builds what a card gets)
for case in 'DISK_ID:' 'VOLUME_ID_boot:' 'VOLUME_ID_data:' 'VOLUME_ID_nope:' 'PARTUUID_boot:' \
    'DISK_ID:disk-id = per-card' 'PARTUUID_boot:disk-id = per-card' \
    'VOLUME_ID_boot:fat { volume-id = per-card }'; do
    name=${case%%:*} key=${case#*:}
    image_key=
    boot_key=
    case $key in disk-id*) image_key=$key ;; fat*) boot_key=$key ;; esac
    printf 'image { table = mbr seed = "d" %s }
partition boot { type = fat size = 8M %s
 file "/c.txt" { content = "x=\\${%s} s=\\${SN}" per-card = true reserve = 300 } }
partition data { type = exfat size = 8M }
' \
        "$image_key" "$boot_key" "$name" >pc.layout
    if [ -z "$key" ]; then
        expect_status 1 "$SDIMG" build -q pc.layout -o pc.img
        expect_stderr "pc.layout:3: partition 'boot': file '/c.txt': \${$name} is no id a card gets anew"
        [ "$(wc -l <err.txt)" -eq 1 ] || fail "per-card \${$name}: $(cat err.txt)"
        [ ! -e pc.img ] || fail "a refused build left pc.img"
    else
        expect_status 0 "$SDIMG" build -q pc.layout -o pc.img
        expect_status 0 "$SDIMG" personalize pc.img --set SN=7 -o pcp.img
        rm -f pc.img* pcp.img*
    fi
done
echo "cards_ids: ok"
