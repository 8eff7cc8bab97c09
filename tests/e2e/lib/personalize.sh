# SPDX-License-Identifier: MIT
# Shared helper of the cards_personalize_*.sh end-to-end tests (sourced; not a test itself).

# serial_card SEED MIB: card.img (built from card.layout), an MBR card with a FAT partition
# holding one per-card file, /serial.txt ("serial=${CARD_SERIAL}"), and a raw partition of
# MIB MiB of random bytes (blob.bin), which make a copy of it take time
serial_card() {
    head -c "$2M" /dev/urandom >blob.bin
    cat >card.layout <<EOT
image { table = mbr seed = "$1" }
partition boot {
    type = fat
    size = 8M
    file "/serial.txt" { content = "serial=\\\${CARD_SERIAL}\n" per-card = true reserve = 64 }
}
partition data { from = "blob.bin" }
EOT
    "$SDIMG" build -q -o card.img card.layout
}
