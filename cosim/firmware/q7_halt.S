# Q7 kernel for the halt-start scenario (assembled by the project's
# assembler; RESET_JUMP (.equ) is the generation's Q7 reset jump target,
# DIGEST §1). Each entry stores its number in DRAM[0] and counts itself in
# DRAM[1], then executes HALT; the host restarts chosen cores at `restart`
# through the Q7 bundle's start_addr/start_ctrl.
    .org 0
    j main
    .org RESET_JUMP
main:
    movi a9, 1
    j record
    .align 4
restart:
    movi a9, 2
record:
    const16 a2, 0x1000          # a2 = DRAM base 0x10000000
    const16 a2, 0
    l32i a3, a2, 4
    addi a3, a3, 1
    s32i a3, a2, 4              # entries taken (DRAM is kept across a start)
    s32i a9, a2, 0              # this entry
    memw
    halt 0
