# NX sequencer firmware for the halt-start scenario (the POOL SEQ, behind
# nx_trampoline.S): each entry records itself in the SEQ DRAM, then halts the
# way the seeds say the device does (DIGEST §2.8): it writes its own
# instr_halt_ctrl.halt and spins; the hardware holds the core from then on.
# The host restarts it through start_ctrl at `restart`.
#
# Parameter (.equ; cosim/src/firmware/ nx_halt, or a file's
# [firmware.seq] set = { ... }):
#   RELEASE_Q7         1: this SEQ releases the Q7 cores (SUNDA, DIGEST §2.9 step 6)
#
# SEQ DRAM record [D] (DRAM at 0x10000000, the SEQ DRAM of BAR0):
#   +0 the last entry taken (1 main, 2 restart), +4 entries taken so far,
#   +8 spins after the halt write (the core is held: a few at most)
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "nx_trampoline.S"
main:
    movi a9, 1
    seq_release_q7 record
    j record
    .align 4
restart:                        # start_addr of the host's start_ctrl
    movi a9, 2
record:
    record_entry
    movi a7, 0
    s32i a7, a2, 8
    memw
    load32 a4, TPB_POOL_NX_INSTR_HALT_CTRL_ADDR
    movi a5, 1
    s32i a5, a4, 0              # instr_halt_ctrl.halt <- 1: held from here
    memw
spin:
    addi a7, a7, 1
    s32i a7, a2, 8
    j spin
