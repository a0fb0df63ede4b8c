# NX sequencer firmware (the POOL SEQ), behind nx_trampoline.S: the enter_run
# loop. The HAL installs it as the SEQ IRAM image (ucode_seq_init); the core
# fetches it through BAR0.
#
# Parameters (.equ; cosim/src/firmware/ nx_boot, or a file's
# [firmware.seq] set = { ... }):
#   RELEASE_Q7         1: this SEQ releases the Q7 cores (SUNDA, DIGEST §2.9 step 6)
#
# SEQ DRAM mailbox [D] (DRAM at 0x10000000, the SEQ DRAM of BAR0):
#   +0 mark (TPB_SEQ_MARK, written here), +4 stop request (the host writes non-zero),
#   +8 polls made before the stop (written here)
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "nx_trampoline.S"
main:
    seq_enter_run poll_init          # a2 = DRAM; DRAM[0] = TPB_SEQ_MARK; the Q7 release
poll_init:
    movi a7, 0
poll:
    addi a7, a7, 1
    memw
    l32i a6, a2, 4              # stop request
    beqz a6, poll
    s32i a7, a2, 8
    memw
    halt 0
