/* The SEQ's console through the seeds' stdio TX ring (tpb_tx_puts: its DMA's
   TX ring, drained by the host), beside SIMCALL's (tpb_printf). C on the SEQ
   stores bytes to its DRAM, which lives in the top behind BAR0: the core
   merges them into words (main's value shows it). */
#include "tpb_fw.h"

static volatile uint32_t word;

int main(void)
{
    tpb_tx_puts("hello from the SEQ, over the stdio TX ring");
    tpb_tx_puts("a second line, longer than one 64-byte chunk of the ring, so it takes two descriptors");
    tpb_printf("and one over SIMCALL\n");
    volatile unsigned char *b = (volatile unsigned char *)&word;
    b[1] = 0x22;
    b[3] = 0x44;
    b[0] = 0x11;
    b[2] = 0x33;
    return (int)word;                   /* 0x44332211 */
}
