/* gpt: the GPT header's CRCs (see gpt.h). */
#include "common/gpt.h"

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return crc;
}

uint32_t gpt_crc32(const void *data, size_t len)
{
	return ~crc32_update(0xffffffffu, data, len);
}

uint32_t gpt_header_crc(const uint8_t *hdr, uint32_t size)
{
	static const uint8_t zero[4];
	uint32_t crc = crc32_update(0xffffffffu, hdr, GPT_HDR_CRC);

	crc = crc32_update(crc, zero, sizeof(zero));
	crc = crc32_update(crc, hdr + GPT_HDR_CRC + 4, size - (GPT_HDR_CRC + 4));
	return ~crc;
}
