# Q7 kernel for the halt-start scenario (assembled by the project's
# assembler; TPB_RESET_JUMP (tpb.inc) is the generation's Q7 reset jump
# target, DIGEST §1). Each entry stores its number in DRAM[0] and counts itself in
# DRAM[1], then executes HALT; the host restarts chosen cores at `restart`
# through the Q7 bundle's start_addr/start_ctrl.
    .include "tpb.inc"
    .org 0
    j main
    .org TPB_RESET_JUMP
main:
    movi a9, 1
    j record
    .align 4
restart:
    movi a9, 2
record:
    const16 a2, TPB_DRAM_BASE_HI
    const16 a2, TPB_DRAM_BASE_LO    # a2 = DRAM
    l32i a3, a2, 4
    addi a3, a3, 1
    s32i a3, a2, 4              # entries taken (DRAM is kept across a start)
    s32i a9, a2, 0              # this entry
    memw
    halt 0
