#!/bin/sh
# SPDX-License-Identifier: MIT
# Per-card files: a build places them with room for `reserve` bytes and writes IMAGE.cards.json;
# `sdimg personalize` gives each card its own content. On FAT12, FAT16 and FAT32 each card's
# volume is clean (fsck.fat: chain, size and FSInfo free count agree), mtools reads the card's
# own content, and the two cards differ only inside the ranges the manifest names.
. "$TOP/tests/e2e-lib.sh"
need sfdisk fsck.fat mtype mdir jq cmp

# allowed_ranges MANIFEST: "START END" byte ranges (0-based, END excluded) a card may change
allowed_ranges() {
    jq -r '.fields[] | . as $f
        | ([.data, .data + .reserve] | @tsv),
          ([.entry, .entry + 32] | @tsv),
          (.fats[] | [. + (($f["first-cluster"] * $f["fat-type"] / 8) | floor) - 2,
                      . + ((($f["first-cluster"] + $f.clusters) * $f["fat-type"] / 8) | floor) + 2] | @tsv),
          ((.fsinfo // [])[] | [., . + 512] | @tsv)' "$1"
}

# only_in_ranges A B MANIFEST: every byte where A and B differ lies in an allowed range
only_in_ranges() {
    allowed_ranges "$3" >ranges.txt
    differs_only_in ranges.txt "$1" "$2"
}

# card_file IMG PATH: the file's content through mtools, from the volume of partition 1
card_file() {
    mtype -i "$1@@$(($(part_json "$1" 1 start) * 512))" "::$2"
}

# volume_clean IMG: partition 1 read out, fsck.fat -n finds nothing to fix
volume_clean() {
    off=$(($(part_json "$1" 1 start) * 512)) size=$(($(part_json "$1" 1 size) * 512))
    dd if="$1" of=vol.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$size" status=none
    fsck_clean vol.img
}

for fat in fat12 fat16 fat32; do
    case $fat in
        fat12) size=2M cs="cluster-size = 1K data-align = 64K" ;;
        fat16) size=32M cs="" ;;
        fat32) size=80M cs="cluster-size = 512" ;;
    esac
    cat >card.layout <<EOT
image { table = mbr }
partition boot {
    type = $fat
    size = $size
    fat { $cs }
    file "/hello.txt" { content = "hello\n" }
    file "/etc-id/serial.txt" { content = "serial=\\\${CARD_SERIAL}\n" per-card = true reserve = 3000 }
    file "/etc-id/host" { content = "\\\${HOST}" per-card = true reserve = 64 }
    file "/after.txt" { content = "after\n" }
}
EOT
    expect_status 0 "$SDIMG" build card.layout -o card.img -q
    [ -f card.img.cards.json ] || fail "$fat: no card.img.cards.json beside the image"
    [ "$(jq -r .format card.img.cards.json)" = "sdimg-cards 2" ] || fail "$fat: manifest format"
    [ "$(jq '.fields | length' card.img.cards.json)" -eq 2 ] || fail "$fat: two per-card files"
    volume_clean card.img
    [ "$(card_file card.img /etc-id/serial.txt)" = 'serial=${CARD_SERIAL}' ] ||
        fail "$fat: the image holds the template"

    long=$(head -c 2990 /dev/zero | tr '\0' x)
    expect_status 0 "$SDIMG" personalize card.img --set CARD_SERIAL=SN000001 --set HOST=a -o a.img
    expect_status 0 "$SDIMG" personalize card.img --set "CARD_SERIAL=$long" --set HOST= -o b.img
    for c in a b; do volume_clean $c.img; done
    [ "$(card_file a.img /etc-id/serial.txt)" = "serial=SN000001" ] || fail "$fat: card a serial"
    [ "$(card_file b.img /etc-id/serial.txt)" = "serial=$long" ] || fail "$fat: card b serial"
    [ "$(card_file a.img /etc-id/host)" = "a" ] || fail "$fat: card a host"
    [ -z "$(card_file b.img /etc-id/host)" ] || fail "$fat: card b host is empty"
    [ "$(card_file b.img /after.txt)" = "after" ] || fail "$fat: the file after is intact"
    only_in_ranges a.img b.img card.img.cards.json
    only_in_ranges card.img a.img card.img.cards.json
    cmp -s card.img b.img && fail "$fat: personalize changed nothing"
    rm -f a.img b.img
done

# a value past its reserve, a variable without a value: one line each, no output left
expect_status 1 "$SDIMG" personalize card.img --set "CARD_SERIAL=${long}xxxx" --set HOST=a -o c.img
expect_stderr "boot:/etc-id/serial.txt: the card's content takes 3002 bytes, more than its reserve of 3000"
expect_status 1 "$SDIMG" personalize card.img --set HOST=a -o c.img
expect_stderr 'boot:/etc-id/serial.txt: no value for ${CARD_SERIAL}'
[ ! -e c.img ] || fail "a failed personalize left c.img"
[ -z "$(ls c.img.* 2>/dev/null)" ] || fail "a failed personalize left a temporary file"
expect_status 1 "$SDIMG" personalize card.img --set HOST=a -o card.img
# nor over its manifest, an input as the image is; an empty -o is a usage error
cp card.img.cards.json manifest.json
expect_status 1 "$SDIMG" personalize card.img --set CARD_SERIAL=1 --set HOST=a -o card.img.cards.json
expect_stderr "card.img.cards.json: is the image's per-card manifest; write the card's copy elsewhere"
cmp -s card.img.cards.json manifest.json || fail "personalize -o IMAGE.cards.json changed the manifest"
expect_status 2 "$SDIMG" personalize card.img --set CARD_SERIAL=1 --set HOST=a -o ''
expect_status 1 "$SDIMG" personalize card.layout --set HOST=a -o c.img

# -o that is not a regular file (a FIFO, a folder, a symlink, a device node) is refused as a
# build refuses it, and left as it was; a new copy is 0666 less the umask, a replaced one
# keeps the older file's mode (a card's copy may hold its keys)
mkfifo fifo
mkdir folder
ln -s victim.img link
others="fifo folder link"
mknod node c 1 3 2>/dev/null && others="$others node"
for o in $others; do
    expect_status 1 "$SDIMG" personalize card.img --set CARD_SERIAL=1 --set HOST=a -o $o
    expect_stderr "$o: exists and is not a regular file; sdimg writes image files only"
done
[ -p fifo ] && [ -d folder ] && [ -L link ] && [ ! -e victim.img ] || fail "a refused -o changed"
[ ! -e node ] || [ -c node ] || fail "personalize -o replaced a device node"
(umask 027 && "$SDIMG" personalize card.img --set CARD_SERIAL=1 --set HOST=a -o new.img)
[ "$(stat -c %a new.img)" = 640 ] || fail "a new copy under umask 027 is $(stat -c %a new.img)"
echo "older keys" >keys.img
chmod 600 keys.img
"$SDIMG" personalize card.img --set CARD_SERIAL=1 --set HOST=a -o keys.img
[ "$(stat -c %a keys.img)" = 600 ] || fail "a replaced 0600 file became $(stat -c %a keys.img)"
cmp -s keys.img new.img || fail "the replaced file does not hold the card's copy"
[ "$(ls -A | grep -c '^\.sdimg')" = 0 ] || fail "personalize left a hidden name"
rm -f new.img keys.img

# an image that is not a regular file (a FIFO, a pipe, a folder) is refused in one line at
# once: nothing waits for a writer (timeout: a waiting sdimg fails rather than hangs)
for i in fifo /dev/stdin folder; do
    case $i in
        folder) why="folder: Is a directory" ;;
        *) why="$i: not a regular file (a FIFO, a socket or a device)" ;;
    esac
    cat card.img | expect_status 1 timeout -k 2 10 "$SDIMG" personalize $i --cards card.img.cards.json \
        --set CARD_SERIAL=1 --set HOST=a -o c.img
    expect_stderr "$why"
    [ ! -e c.img ] || fail "personalize $i left c.img"
done

# the manifest is bound to its image and checked against it before anything is written: a
# manifest of another build of the same size, of an older sdimg, or edited by hand (a field
# over a GPT header, the MBR, a boot sector's code, or another field) is refused in one
# line naming it, and no output is left
cat >g.layout <<'EOT'
image { table = gpt size = 48M }
partition boot {
    type = fat32
    size = 40M
    fat { cluster-size = 512 volume-id = per-card }
    file "/plain.txt" { content = "one\n" }
    file "/etc-id/serial.txt" { content = "serial=\${CARD_SERIAL}\n" per-card = true reserve = 3000 }
    file "/host" { content = "\${HOST}" per-card = true reserve = 64 }
}
EOT
sed 's/"one\\n"/"two\\n"/' g.layout >g2.layout
expect_status 0 "$SDIMG" build g.layout -o g.img -q
expect_status 0 "$SDIMG" build g2.layout -o g2.img -q
[ "$(stat -c %s g.img)" = "$(stat -c %s g2.img)" ] || fail "two builds of one size"
cmp -s g.img g2.img && fail "two builds that differ"
manifest_refused() { # manifest_refused IMAGE MANIFEST MESSAGE
    expect_status 1 "$SDIMG" personalize "$1" --cards "$2" --set CARD_SERIAL=1 --set HOST=h -o c.img
    expect_stderr "$3"
    [ ! -e c.img ] && [ -z "$(ls c.img.* 2>/dev/null)" ] || fail "a refused manifest left c.img"
}
edited() { # edited IMAGE JQ MESSAGE: IMAGE's manifest edited by JQ is refused with MESSAGE
    jq "$2" "$1.cards.json" >bad.json
    manifest_refused "$1" bad.json "$3"
}
manifest_refused g.img g2.img.cards.json "g.img: its per-card manifest g2.img.cards.json belongs to another image"
edited g.img '.format = "sdimg-cards 1"' 'bad.json: a per-card manifest of an older sdimg ("sdimg-cards 1"), which does not say which image it belongs to: build the image again'
edited g.img '.fields[0].data = 512' "bad.json: boot:/etc-id/serial.txt: its data at byte 512 is not where cluster"
edited g.img '.fields[0].entry = 446' "bad.json: boot:/etc-id/serial.txt: its directory entry at byte 446 is in no directory of the volume"
edited g.img '.ids.volumes[0]["volume-id"][0] = .ids.volumes[0].volume + 100' "bad.json: boot: volume-id: byte $(jq ".ids.volumes[0].volume + 100" g.img.cards.json) is not the BS_VolID"
edited g.img '.fields[1].entry = .fields[0].entry' "bad.json: boot:/host: the directory entry at byte"
edited g.img '.fields[1].data = .fields[0].data | .fields[1]["first-cluster"] = .fields[0]["first-cluster"]' \
    "bad.json: boot:/host: the image does not hold its template"
edited g.img '.fields[1] = .fields[0]' "bad.json: boot:/etc-id/serial.txt: bytes $(jq '.fields[0].data' g.img.cards.json)-"
grep -qF "overlap those of boot:/etc-id/serial.txt" err.txt || fail "two fields in one place: $(cat err.txt)"
edited g.img '.fields[0].fats[0] += 512' "bad.json: boot:/etc-id/serial.txt: FAT 1 is not at byte"
edited g.img '.fields[0].volume = 0' "bad.json: boot:/etc-id/serial.txt: no partition of the image starts at byte 0"
edited g.img '.image.mapped = [[0, 4096]]' "g.img: its per-card manifest bad.json belongs to another image"
# the manifest's seed is the image's (the image holds the ids it derives); a key the format
# does not have is named
edited g.img '.seed = "other"' "bad.json: boot: volume-id: its seed is not the image's"
edited g.img '.fields[0].evil = 1' 'bad.json: an unknown key "evil"'
edited g.img '.ids.volumes[0].evil = 1' 'bad.json: an unknown key "evil"'
# a value of the wrong kind or out of its range is named by its place: the key and, in a
# field, its index and path (one key edited at a time; KEY;JQ;MESSAGE)
f='bad.json: a damaged per-card manifest: fields[0] (boot:/etc-id/serial.txt)'
while IFS=';' read -r key edit message; do
    edited g.img "$edit" "$message"
done <<EOT
entry;.fields[0].entry = -1;$f: entry: -1, but it must be a whole number from 0 to
entry;.fields[0].entry = 8370000.5;$f: entry: 8370000.5, but it must be a whole number
reserve;.fields[0].reserve = 0;$f: reserve: 0, but it must be a whole number from 1 to
template;.fields[0].template = ("x" * 3001);$f: template: 3001 bytes, more than its reserve of 3000
cluster-size;.fields[0]["cluster-size"] = 0;$f: cluster-size: 0, but it must be a whole number from 1 to
first-cluster;.fields[0]["first-cluster"] = 0;$f: first-cluster: 0, but it must be a whole number from 2 to
fat-type;.fields[0]["fat-type"] = 13;$f: fat-type: 13, but it must be 12, 16 or 32
clusters;.fields[0].clusters = 1;$f: clusters: 1 of 512 bytes hold less than its reserve of 3000 bytes
fats;.fields[0].fats = [];$f: fats: [], but it must list one or two byte offsets
fsinfo;.fields[0].fsinfo = [1e15];$f: fsinfo: [1000000000000000], but each must be a byte offset from 0 to
free-base;del(.fields[0]["free-base"]);$f: free-base: missing, but it must be a whole number
path;.fields[1].path = 7;bad.json: a damaged per-card manifest: fields[1]: path: 7, but it must be a string
kind;.fields[1].kind = "ext4-file";bad.json: a damaged per-card manifest: fields[1]: kind: must be "fat-file"
mapped;.image.mapped = [[100, 50]];bad.json: a damaged per-card manifest: image: mapped[0]: [100,50], but a range must be [START, END] with START < END
sha256;.image.sha256 = "00";bad.json: a damaged per-card manifest: image: sha256: must be 64 hexadecimal digits
image-size;.["image-size"] = 5;bad.json: a damaged per-card manifest: image-size: 5, but it must be a whole number from 512 to
number;.ids.partitions = [{"name": "boot", "number": 0, "per-card-uuid": false}];bad.json: a damaged per-card manifest: ids: partitions[0]: number: 0, but it must be a whole number from 1 to 128
volume-id;.ids.volumes[0]["volume-id"] = [-5];bad.json: a damaged per-card manifest: ids: volumes[0]: volume-id: [-5], but each must be a byte offset
gpt-headers;.ids["gpt-headers"] = [513];bad.json: a damaged per-card manifest: ids: gpt-headers: byte 513 does not start a sector
seed;del(.seed);bad.json: a damaged per-card manifest: seed: missing, but it must be a string
fields;.fields[0] as \$f | .fields = [range(32769) | \$f];bad.json: a damaged per-card manifest: fields: 32769, more than the 32768 per-card files a manifest holds
partitions;.ids.partitions = [range(129) | {}];bad.json: a damaged per-card manifest: ids: partitions: 129, more than the 128 partitions a table holds
volumes;.ids.volumes[0] as \$v | .ids.volumes = [range(129) | \$v];bad.json: a damaged per-card manifest: ids: volumes: 129, more than the 128 partitions a table holds
EOT
# a manifest over 16 MiB is refused by its size, before it is read (here a sparse one)
jq . g.img.cards.json >bad.json
truncate -s +16M bad.json
manifest_refused g.img bad.json "bad.json: over 16 MiB, more than a per-card manifest holds"

expect_status 0 "$SDIMG" personalize g.img --set CARD_SERIAL=1 --set HOST=h -o c.img
volume_clean c.img
rm -f c.img g2.img*

# the ids a card gets anew are of the image's own table and seed: a manifest edited to give a
# GPT image's card an MBR signature (over its protective MBR) or an MBR image's GPT headers,
# one GPT header of two (the backup would be left corrupt), partition numbers swapped or
# given twice (root=PARTUUID= would name another partition), or another seed is refused
for table in gpt mbr; do
    cat >ids.layout <<EOT
image { table = $table disk-id = per-card }
partition boot {
    type = fat
    size = 8M
    fat { volume-id = per-card }
    file "/cmdline.txt" { content = "root=PARTUUID=\\\${PARTUUID_root} \\\${CARD_SERIAL}" per-card = true reserve = 512 }
}
partition root { type = raw size = 4M }
EOT
    expect_status 0 "$SDIMG" build ids.layout -o ids.img -q
    edited ids.img '.seed = "other"' "bad.json: seed: its seed is not the image's"
    edited ids.img '.ids.partitions[1].number = 1' "bad.json: ids: partition 1 is listed twice (boot and root)"
    if [ $table = gpt ]; then
        edited ids.img '.ids["mbr-disk-id"] = 440' "bad.json: ids: mbr-disk-id, but the image's table is gpt"
        edited ids.img '.ids["gpt-headers"] = [512]' "bad.json: ids: gpt-headers must list both GPT headers"
        edited ids.img '.ids.partitions[0].number = 2 | .ids.partitions[1].number = 1' \
            "bad.json: ids: partition 2 is not 'boot' (its GUID"
    else
        edited ids.img '.ids["gpt-headers"] = [512]' "bad.json: ids: gpt-headers, but the image's table is mbr"
        edited ids.img '.ids.partitions[0].number = 2 | .ids.partitions[1].number = 1' \
            "bad.json: ids: partition 2 is not 'boot' (its volumes start elsewhere)"
    fi
    expect_status 0 "$SDIMG" personalize ids.img --set CARD_SERIAL=1 -o c.img
    rm -f c.img
done

# the layout's own checks
printf 'partition p { type = fat size = 8M file "/a" { content = "x" per-card = true } }\n' | build_refused bad "needs 'reserve'"
printf 'partition p { type = fat size = 8M file "/a" { from = "bad.layout" per-card = true reserve = 1K } }\n' | build_refused bad "needs 'content'"
printf 'partition p { type = fat size = 8M file "/a" { content = "x" reserve = 1K } }\n' | build_refused bad "reserve: needs per-card = true"
printf 'partition p { type = fat size = 8M file "/a" { content = "0123456789" per-card = true reserve = 4 } }\n' | build_refused bad "the template alone takes 10 bytes, more than 4"
# a plain ${NAME} is the build's variable: unset, the message says how to leave it to the card
printf 'partition p { type = fat size = 8M file "/a" { content = "${CARD_SERIAL}" per-card = true reserve = 1K } }\n' | build_refused bad 'a per-card file leaves it to each card with \${CARD_SERIAL}'
# a layout without per-card files has no manifest
printf 'partition p { type = fat size = 8M file "/a" { content = "x" } }\n' >plain.layout
expect_status 0 "$SDIMG" build plain.layout -o plain.img -q
[ ! -e plain.img.cards.json ] || fail "a manifest for a layout without per-card files"
# and a build of it over an image that had one takes the old manifest away with it
expect_status 0 "$SDIMG" build plain.layout -o card.img -q
[ ! -e card.img.cards.json ] || fail "an earlier image's manifest stayed beside the new image"
echo "cards_personalize: ok"
