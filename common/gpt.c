/* SPDX-License-Identifier: MIT */
/* gpt: the GPT header's CRCs (see gpt.h). */
#include "common/gpt.h"

#include <zlib.h>

/* The UEFI specification's CRC32 (section 5.3.2) is the one of ISO 3309 that zlib computes. */
uint32_t gpt_crc32(const void *data, size_t len)
{
	return (uint32_t)crc32_z(0, data, len);
}

uint32_t gpt_header_crc(const uint8_t *hdr, uint32_t size)
{
	static const uint8_t zero[4];
	uLong crc = crc32_z(0, hdr, GPT_HDR_CRC);

	crc = crc32_z(crc, zero, sizeof(zero));
	crc = crc32_z(crc, hdr + GPT_HDR_CRC + 4, size - (GPT_HDR_CRC + 4));
	return (uint32_t)crc;
}
