    .include "tpb.inc"
    .macro load32 reg, value
    const16 \reg, (\value >> 16)
    const16 \reg, (\value & 0xffff)
    .endm
    .macro twice op, a=1
    \op a2, a2, \a
    \op a2, a2, \a\()
    .endm
    .org 0
    j main
    .org TPB_RESET_JUMP
main:
    load32 a5, TPB_DRAM_BASE
    twice addi, 3

    l32i a2, a5, 0
    beqz a2, main
    .word 0x12345678
    .byte 1, 2
    .align 4
    halt 0
