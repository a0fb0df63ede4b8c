# The assembly twin of q7_checksum.c, for our assembler (tpb asm, or the
# asm key of a [firmware] table): each Q7 core sums (i + 1) * (id + 1) for
# i < 256, stores the sum in the first word of its DRAM, arrives on the
# POOL engine's semaphore 11 and waits for all eight, then halts.
    .include "tpb.inc"          # the generation's names (generated from its map)
    .include "tpb_sem.inc"      # our macros, beside this file

    .org 0
    j main                      # the reset vector
    .org TPB_RESET_JUMP         # where this generation's Q7 reset jump lands
main:
    rsr.prid a7                 # the core's id
    addi a8, a7, 1
    movi a2, 0                  # the sum
    movi a3, 256                # i + 1, from 256 down
loop:
    mull a4, a3, a8
    add a2, a2, a4
    addi a3, a3, -1
    bnez a3, loop
    load32 a5, TPB_DRAM_BASE
    s32i a2, a5, 0              # DRAM word 0: the result the file checks
    sem_inc TPB_SEM_POOL, 11
    sem_wait_ge TPB_SEM_POOL, 11, 8
    halt 0
