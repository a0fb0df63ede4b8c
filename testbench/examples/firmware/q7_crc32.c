/* Each Q7 core computes the CRC-32 (IEEE 802.3: reflected, polynomial
 * 0xEDB88320, initial and final XOR 0xFFFFFFFF) of its own input, which the
 * host writes into the core's DRAM after the install and before it releases
 * the cores (q7_crc32.toml: [[firmware.q7.data]]). main's return value is
 * the CRC, and the core prints it. */
#include "tpb_fw.h"

/* input.bytes: how many bytes of input.words count; the host writes both. */
struct input {
    uint32_t bytes;
    uint32_t words[64];
};
TPB_HOST_INPUT struct input input;

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xffffffffu;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1u));
    }
    return ~crc;
}

int main(void)
{
    uint32_t n = input.bytes;
    if (n > sizeof input.words) {
        tpb_printf("core %u: input of %u bytes is longer than %u\n", (unsigned)tpb_core_id(), (unsigned)n, (unsigned)sizeof input.words);
        return 0;
    }
    uint32_t crc = crc32((const uint8_t *)input.words, n);
    tpb_printf("core %u: crc32 of %u bytes = 0x%08x\n", (unsigned)tpb_core_id(), (unsigned)n, (unsigned)crc);
    return (int)crc;
}
