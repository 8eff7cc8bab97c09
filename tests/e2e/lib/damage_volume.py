# SPDX-License-Identifier: MIT
# damage_volume.py IMG MODE [N]: damages the FAT or exFAT volume at 16 MiB into IMG, in place,
# field by field as the specifications place them (Microsoft FAT32 File System
# Specification, the BPB; Microsoft exFAT File System Specification, 3.1 and 7.1):
#   exFAT  ones      the allocation bitmap all ones
#          zero      the allocation bitmap all zeros
#          nolength  the bitmap entry's DataLength zero
#   FAT    bad       entries 2..7001 the bad-cluster mark 0xFFF7 (FAT16)
#          garbage   every FAT random bytes (seed 1)
#          zero      entries 2..7001 free (FAT16)
#          lost N    N entries from 1000 on marked end of chain
# every FAT copy alike.
import random
import struct
import sys

PART = 16 << 20
img, mode = sys.argv[1], sys.argv[2]
with open(img, 'r+b') as f:
    f.seek(PART)
    bs = f.read(512)
    if bs[3:11] == b'EXFAT   ':
        heap, _, root = struct.unpack_from('<III', bs, 88)
        cs = 512 << bs[109]
        def at(c):
            return PART + heap * 512 + (c - 2) * cs
        f.seek(at(root))
        rd = f.read(cs)
        i = next(i for i in range(0, cs, 32) if rd[i] == 0x81)
        first, length = struct.unpack_from('<IQ', rd, i + 20)
        if mode == 'nolength':
            f.seek(at(root) + i + 24)
            f.write(bytes(8))
        else:
            f.seek(at(first))
            f.write((b'\xff' if mode == 'ones' else b'\0') * length)
        sys.exit(0)
    bps, _, res, nf = struct.unpack_from('<HBHB', bs, 11)
    fsz16 = struct.unpack_from('<H', bs, 22)[0]
    fsz = fsz16 or struct.unpack_from('<I', bs, 36)[0]
    width = 2 if fsz16 else 4
    fat = bytearray(fsz * bps)
    f.seek(PART + res * bps)
    f.readinto(fat)
    if mode == 'bad':
        for c in range(2, 7002):
            struct.pack_into('<H', fat, c * 2, 0xFFF7)
    elif mode == 'garbage':
        random.seed(1)
        fat = random.randbytes(len(fat))
    elif mode == 'zero':
        for c in range(2, 7002):
            struct.pack_into('<H', fat, c * 2, 0)
    else:
        for c in range(1000, 1000 + int(sys.argv[3])):
            struct.pack_into('<I' if width == 4 else '<H', fat, c * width,
                             0x0FFFFFFF if width == 4 else 0xFFFF)
    for n in range(nf):
        f.seek(PART + (res + n * fsz) * bps)
        f.write(fat)
