# Q7 kernel for the halt-start scenario (assembled by the project's
# assembler; TPB_RESET_JUMP (tpb.inc) is the generation's Q7 reset jump
# target, DIGEST §1). Each entry stores its number in DRAM[0] and counts itself in
# DRAM[1], then executes HALT; the host restarts chosen cores at `restart`
# through the Q7 bundle's start_addr/start_ctrl.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "q7_reset.S"
main:
    movi a9, 1
    j record
    .align 4
restart:
    movi a9, 2
record:
    record_entry
    memw
    halt 0
