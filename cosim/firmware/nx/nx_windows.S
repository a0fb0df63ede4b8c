# NX sequencer firmware for the windows scenario (the POOL SEQ, behind
# nx_trampoline.S): plain stores in the translated aperture reach the SoC
# through the top's address translation (POOL's window bundle, mem_window2).
# On SUNDA it first releases the Q7 cores (through the POOL control window).
#
# Parameters (.equ; cosim/src/firmware/ nx_windows, or a file's
# [firmware.seq] set = { ... }): RELEASE_Q7 as nx_boot.S; W0 (the address
# window 0 translates for the SEQ), MW2 (mem_window2's aperture), STORES
# (stores through window 0).
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "nx_trampoline.S"
main:
    seq_release_q7 go
go:
    load32 a4, W0
    movi a5, 1
    movi a6, STORES
again:
    s32i a5, a4, 0              # through window 0: an INC of the TOP_SP semaphore it names
    memw
    addi a6, a6, -1
    bnez a6, again
    load32 a4, MW2
    s32i a5, a4, 0              # through mem_window2
    memw
    halt 0
