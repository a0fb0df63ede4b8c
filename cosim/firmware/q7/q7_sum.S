# Q7 kernel for the bring-up scenario (assembled by the project's assembler;
# TPB_RESET_JUMP (tpb.inc) is the generation's Q7 reset jump target, DIGEST §1).
# Sums 1..n with n = DRAM[0] + PRID (each core a different n), stores the
# sum in DRAM[1] and the done marker TPB_SUM_DONE in DRAM[2], then halts.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "q7_reset.S"
main:
    load32 a2, TPB_DRAM_BASE        # a2 = DRAM
    l32i    a3, a2, 0           # n from the HAL's DRAM image
    rsr.prid a7
    add     a3, a3, a7
    movi    a4, 0               # sum
    movi    a5, 1               # i
loop:
    add     a4, a4, a5
    addi    a5, a5, 1
    bge     a3, a5, loop        # while n >= i
    s32i    a4, a2, 4
    movi    a6, TPB_SUM_DONE >> 4
    slli    a6, a6, 4
    addi    a6, a6, TPB_SUM_DONE & 0xf
    s32i    a6, a2, 8
    memw
    halt    0
