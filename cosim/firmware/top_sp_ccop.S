# TOP_SP firmware: the SPAD cc_op walker (DIGEST §5, §6). Behind
# nx_trampoline.S: waits for the host_trigger doorbell (a SET of its EVT_SEM
# semaphore, DIGEST §3 choice (a)), then walks the CTRL SPAD entries and
# their SLOT SPAD words:
#   STEP {repeat, m2s, s2m}: per repeat, m2s DMA tail-pointer increments on
#     the SEQ RX ring and s2m on the TX ring (the per-step doorbells), then
#     wait GE on the step semaphore the descriptors complete into;
#   CONTINUE: next CTRL entry;
#   END {count, sema_bits, count addresses}: if the entry's reporter bit is
#     set, post completion: INC each completion address through the SoC port.
# An inactive CTRL entry ends the program.
#
# Constants (cosim/src/firmware.rs): ENTER_RUN; TRIGGER_READ/_DEC (the
# host_trigger semaphore's read and dec windows); CTRL, SLOT (the SPADs);
# RX_TAIL_INC, TX_TAIL_INC (SEQ ring tail_inc registers); STEP_READ (the
# step semaphore's read window); SOC_PORT. All as _HI/_LO halves.
# DRAM out [D]: [0] entries walked, [1] descriptors waited for, [2] 0xd0e
# when the program ended, 0xbad with [3] = the unknown word kind.
main:
    const16 a2, TRIGGER_READ_HI
    const16 a2, TRIGGER_READ_LO
wait_trigger:
    memw
    l32i a3, a2, 0
    beqz a3, wait_trigger
    const16 a2, TRIGGER_DEC_HI
    const16 a2, TRIGGER_DEC_LO
    memw
    s32i a3, a2, 0              # consume the trigger
    memw
    const16 a4, CTRL_HI
    const16 a4, CTRL_LO         # a4 = CTRL entry
    const16 a5, SLOT_HI
    const16 a5, SLOT_LO         # a5 = SLOT word
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
    const16 a11, RX_TAIL_INC_HI
    const16 a11, RX_TAIL_INC_LO
    memw
    s32i a9, a11, 0             # tail-pointer doorbell, RX ring
    memw
    add a12, a12, a9
no_m2s:
    beqz a10, no_s2m
    const16 a11, TX_TAIL_INC_HI
    const16 a11, TX_TAIL_INC_LO
    memw
    s32i a10, a11, 0            # tail-pointer doorbell, TX ring
    memw
    add a12, a12, a10
no_s2m:
    const16 a11, STEP_READ_HI
    const16 a11, STEP_READ_LO
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
    const16 a11, SOC_PORT_HI
    const16 a11, SOC_PORT_LO
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
    const16 a2, 0x1000
    const16 a2, 0
    s32i a13, a2, 0
    s32i a12, a2, 4
    const16 a6, 0
    const16 a6, 0xd0e
    s32i a6, a2, 8
    memw
    halt 0
bad:
    const16 a2, 0x1000
    const16 a2, 0
    s32i a6, a2, 12
    const16 a6, 0
    const16 a6, 0xbad
    s32i a6, a2, 8
    memw
    halt 0
