# Q7 kernel for the barrier scenario (DIGEST §3 barrier lowering: arrive =
# INC, wait = GE on the read window, then DEC), on the POOL engine's EVT_SEM
# reached through the system window; TPB_RESET_JUMP as in q7_sum.S.
#
# Parameters (.equ; cosim/src/firmware/ q7_barrier, or a file's
# [firmware.q7] set = { ... }): ARRIVE and DEPART (semaphores A and B of the
# POOL EVT_SEM), CORES (how many arrive).
# DRAM in: [0] work units (core k spins units * (k + 1) loops first, so the
# cores arrive at different times). DRAM out: [1] A's value when this core
# passed, [2] done marker TPB_BARRIER_DONE.
# Every core: INC A; wait A >= CORES; INC B. Core 0 (the leader) then waits
# B >= CORES (every core has passed) and DECs both by CORES: the barrier
# ends at 0 and can be used again. (A core DECing A as it leaves could make a
# slower core miss A >= CORES for ever.)
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .equ ARRIVE_READ, TPB_SEM_POOL + ARRIVE * TPB_SEM_STRIDE
    .equ DEPART_READ, TPB_SEM_POOL + DEPART * TPB_SEM_STRIDE
    .equ ARRIVE_INC, ARRIVE_READ + TPB_SEM_INC_OFF
    .equ DEPART_INC, DEPART_READ + TPB_SEM_INC_OFF
    .equ ARRIVE_DEC, ARRIVE_READ + TPB_SEM_DEC_OFF
    .equ DEPART_DEC, DEPART_READ + TPB_SEM_DEC_OFF
    .include "q7_reset.S"
main:
    load32 a2, TPB_DRAM_BASE        # a2 = DRAM
    rsr.prid a7
    l32i a3, a2, 0
    addi a8, a7, 1
    movi a9, 0
scale:
    add a9, a9, a3              # a9 = units * (prid + 1)
    addi a8, a8, -1
    bnez a8, scale
work:
    addi a9, a9, -1
    bgez a9, work
    movi a5, 1
    load32_value a4, ARRIVE_INC
    memw
    s32i a5, a4, 0              # arrive
    memw
    load32_value a10, ARRIVE_READ
    movi a3, CORES - 1
wait:
    memw
    l32i a6, a10, 0
    bgeu a3, a6, wait           # wait until A >= CORES
    s32i a6, a2, 4
    load32_value a4, DEPART_INC
    memw
    s32i a5, a4, 0              # depart
    memw
    bnez a7, done
    load32_value a10, DEPART_READ
leader:
    memw
    l32i a6, a10, 0
    bgeu a3, a6, leader         # wait until B >= CORES
    movi a5, CORES
    load32_value a4, ARRIVE_DEC
    memw
    s32i a5, a4, 0
    load32_value a4, DEPART_DEC
    s32i a5, a4, 0
    memw
done:
    load32 a6, TPB_BARRIER_DONE
    s32i a6, a2, 8
    memw
    halt 0
