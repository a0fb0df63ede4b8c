# TOP_SP firmware: the SPAD cc_op walker (DIGEST §5, §6). Behind
# nx_trampoline.S: waits for the host_trigger doorbell (tpb.inc's
# HOST_TRIGGER_READ/_MASK/_ACK: on CAYMAN and MARIANA a SET of its EVT_SEM
# semaphore, DIGEST §3 choice (a); on SUNDA the host_trigger register's
# latched bit in its intr_info), then walks the CTRL SPAD entries and
# their SLOT SPAD words:
#   STEP {repeat, m2s, s2m}: per repeat, m2s DMA tail-pointer increments on
#     the SEQ RX ring and s2m on the TX ring (the per-step doorbells), then
#     wait GE on the step semaphore the descriptors complete into;
#   CONTINUE: next CTRL entry;
#   END {count, sema_bits, count addresses}: if the entry's reporter bit is
#     set, post completion: INC each completion address through the SoC port.
# An inactive CTRL entry ends the program.
#
# Parameter (.equ; cosim/src/firmware/ top_sp_ccop, or a file's
# [firmware.top_sp] set = { ... }): STEP, the TOP_SP semaphore the
# descriptors complete into. The rest is tpb.inc's: the host_trigger
# doorbell, the SPADs, the SEQ rings' tail_inc registers, the SoC port.
# DRAM out [D]: [0] entries walked, [1] descriptors waited for, [2]
# TPB_CCOP_DONE when the program ended, TPB_CCOP_BAD with [3] = the
# unknown word kind.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "nx_trampoline.S"
    .equ STEP_READ, TPB_SEM_TOP_SP + STEP * TPB_SEM_STRIDE
main:
    load32 a2, TPB_HOST_TRIGGER_READ
    load32 a6, TPB_HOST_TRIGGER_MASK
wait_trigger:
    memw
    l32i a3, a2, 0
    and a3, a3, a6
    beqz a3, wait_trigger
    load32 a2, TPB_HOST_TRIGGER_ACK
    memw
    s32i a3, a2, 0              # consume the trigger
    memw
    load32 a4, TPB_REGION_TOP_SP_CTRL_SPAD         # a4 = CTRL entry
    load32 a5, TPB_REGION_TOP_SP_SLOT_SPAD         # a5 = SLOT word
    movi a12, 0                 # descriptors to wait for (cumulative)
    movi a13, 0                 # entries walked
entry:
    l8ui a6, a4, 0
    movi a7, 1
    and a6, a6, a7
    beqz a6, finish             # cc_op not active: end of program
    addi a13, a13, 1
slot:
    l8ui a6, a5, 0              # word kind
    movi a7, 1
    beq a6, a7, step
    movi a7, 2
    bne a6, a7, not_continue
    j next_entry_8
not_continue:
    movi a7, 3
    bne a6, a7, not_end
    j end_mark
not_end:
    j bad
step:
    l8ui a8, a5, 1              # repeat (0 = once)
    l16ui a9, a5, 2             # m2s
    l16ui a10, a5, 4            # s2m
    bnez a8, repeat
    movi a8, 1
repeat:
    beqz a9, no_m2s
    load32 a11, TPB_POOL_NX_DMA_RX_RING_TAIL_INC_ADDR
    memw
    s32i a9, a11, 0             # tail-pointer doorbell, RX ring
    memw
    add a12, a12, a9
no_m2s:
    beqz a10, no_s2m
    load32 a11, TPB_POOL_NX_DMA_TX_RING_TAIL_INC_ADDR
    memw
    s32i a10, a11, 0            # tail-pointer doorbell, TX ring
    memw
    add a12, a12, a10
no_s2m:
    load32_value a11, STEP_READ
    addi a3, a12, -1
wait_step:
    memw
    l32i a14, a11, 0
    bgeu a3, a14, wait_step     # wait GE: step semaphore >= a12
    addi a8, a8, -1
    bnez a8, repeat
    addi a5, a5, 8
    j slot
end_mark:
    l8ui a8, a5, 1              # completion addresses
    l8ui a6, a4, 2
    movi a7, 1
    and a6, a6, a7
    beqz a6, skip_end           # not the reporter
    addi a10, a5, 8
    load32 a11, TPB_SOC_PORT
post:
    l32i a14, a10, 0
    s32i a14, a11, 0
    l32i a14, a10, 4
    s32i a14, a11, 4
    movi a14, 1
    memw
    s32i a14, a11, 8            # INC at the completion address
    memw
    addi a10, a10, 8
    addi a8, a8, -1
    bnez a8, post
skip_end:
    l8ui a8, a5, 1
    slli a8, a8, 3
    add a5, a5, a8
next_entry_8:
    addi a5, a5, 8
    addi a4, a4, 8
    j entry
finish:
    load32 a2, TPB_DRAM_BASE
    s32i a13, a2, 0
    s32i a12, a2, 4
    load32 a6, TPB_CCOP_DONE
    s32i a6, a2, 8
    memw
    halt 0
bad:
    load32 a2, TPB_DRAM_BASE
    s32i a6, a2, 12
    load32 a6, TPB_CCOP_BAD
    s32i a6, a2, 8
    memw
    halt 0
