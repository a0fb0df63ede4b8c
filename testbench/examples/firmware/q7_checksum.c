/* A C kernel for the eight Q7 cores (built by `tpb cc --core q7`, or by the
 * firmware table of q7_checksum.toml): each core fills a buffer in its DRAM
 * from its core id, checksums it, then meets the others at a barrier on the
 * POOL engine's EVT_SEM, and returns the checksum (main's return value lands
 * in __tpb_exit, which `expect_exit` reads). Each core also prints its sum on
 * the console (tpb_printf: a line "[q7[n] @cycle] ..." on the host). */
#include "tpb_fw.h"

#define ARRIVE 10u              /* the POOL semaphore the cores arrive on */
#define CORES 8u
#define WORDS 256u

static uint32_t buf[WORDS];     /* .bss in DRAM: crt0 clears it */
uint32_t seen;                  /* the semaphore's value when this core passed */

int main(void)
{
    uint32_t id = tpb_core_id();
    for (uint32_t i = 0; i < WORDS; i++)
        buf[i] = (i + 1) * (id + 1);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < WORDS; i++)
        sum += buf[i];
    /* gcc calls __udivsi3 here: the run-time tpb cc links supplies it. */
    if (sum / (id + 1) != WORDS * (WORDS + 1) / 2)
        return 0xbad;
    tpb_printf("core %u: sum %u = 0x%08x\n", (unsigned)id, (unsigned)sum, (unsigned)sum);
    sem_inc(TPB_SEM_POOL, ARRIVE, 1);
    seen = sem_wait_ge(TPB_SEM_POOL, ARRIVE, CORES);
    return (int)sum;
}
