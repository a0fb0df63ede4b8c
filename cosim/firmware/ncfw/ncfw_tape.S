# NCFW firmware for the NCFW management core (an LX core; DIGEST §7): the
# mesh event-tape stepper behind the seeds' dispatch spine. Loaded at 0 (no
# NX trampoline: this is not an NX sequencer). It first dispatches on the
# algorithm (seed 003 §9.3): the algo_type of the TOP_SP's first CTRL SPAD
# cc_op entry indexes the 12-entry table (one word per enc_alg_type) at
# DRAM +0xb0 (const16 a2,0xb0; addx4 a2,a3,a2; l32i.n a5,a2,0), which the
# firmware's DRAM image holds (tpb_cosim::firmware::ncfw_algo_table): the
# five mesh algo_types reach the tape stepper; the others, which this
# firmware does not run (the ring and hierarchical programs are
# ring_channels.S), store their algo_type at CTX_200 + 12 and the marker
# ALGO_BAD.
# The tape and its context are mesh_tape.S's: algo_configs' mesh array of
# 80-byte events at TAPE, event_index at CTX_200 + 4, the done marker at
# CTX_200 + 8. Per event the stepper reads event_type (+0x4c) and jumps
# through its event table ([D]); each handler is a wait variant and then
# the event's DMA legs and SIGNALs, as the event's flags say. The WAIT is
# one of ncfw_wait.S's spin-polls, called with call4 (so the core runs
# windowed: PS.WOE, a stack in a1):
#   h_step      EVT_SYNC and types 1..3           wait_gt_a (the seeds' WAIT-GE bytes)
#   h_barrier   FUNCTION_BARRIER_FIRST/LAST_COLL  wait_ge_a, then the atomic 64-bit timestamp snapshot
#   h_handshake EVT_REDUCE_LOCAL_HNDSHK           wait_ge_b on this TOP_SP's own semaphore
#   h_bcast     the broadcast events (7, 11..13)  wait_gt_b, SIGNALs
#   h_reduce    EVT_REDUCE_COPY/_2/WRITE (8..10)  wait_gt_a, DMA legs, SIGNALs
# Each releases when the semaphore reaches wait_val (gt forms: target
# wait_val - 1).
# An event_type past the table stops the tape (marker TAPE_BAD). Each event
# leaves a log record at LOG + 16 x index: handler id, timestamp lo, hi.
# When the tape is done the core idles as the seeds' firmware does:
# waiti 15; j back. The handler bodies and ids are [D].
# Constants: EVENTS, TAPE, CTX_200, LOG, SIGNAL_VALUE, SOC_PORT, SYSTEM_WINDOW,
# TS (system-window address of timestamp_ctrl), TAPE_DONE, TAPE_BAD, STACK
# (the top of the core's DRAM), CTRL_SPAD (the TOP_SP's CTRL SPAD), DRAM
# (the core's DRAM base; its low half is 0, as the spine's one const16
# needs), ALGOS (12), ALGO_BAD. tape_fire.S and ncfw_wait.S are appended.
.include "tpb_macros.inc"

    j start
# The event types' handlers ([D]: the seeds do not give the per-event
# dispatch), indexed by event_type.
    .align 4
events:
    .word h_step        # 0 EVT_SYNC
    .word h_step        # 1
    .word h_step        # 2
    .word h_step        # 3
    .word h_barrier     # 4 EVT_FUNCTION_BARRIER_FIRST_COLL
    .word h_barrier     # 5 EVT_FUNCTION_BARRIER_LAST_COLL
    .word h_handshake   # 6 EVT_REDUCE_LOCAL_HNDSHK
    .word h_bcast       # 7 EVT_INTRA_GRP_BRDCST
    .word h_reduce      # 8 EVT_REDUCE_COPY
    .word h_reduce      # 9 EVT_REDUCE_COPY_2
    .word h_reduce      # 10 EVT_REDUCE_WRITE
    .word h_bcast       # 11 EVT_INTER_GRP_BRDCST_2
    .word h_bcast       # 12 EVT_LOCAL_AND_POD_GRP_BRDCST
    .word h_bcast       # 13 EVT_LOCAL_AND_POD_GRP_BRDCST_2
    .align 4
start:
    load32 a1, STACK
    movi a6, 4
    slli a6, a6, 16
    wsr.ps a6                   # PS.WOE, EXCM and INTLEVEL clear: windowed calls
    rsync
    load32 a10, SOC_PORT        # a10 = SoC port
    load32 a12, TAPE            # a12 = event
    load32 a13, CTX_200         # a13 = algo_ctx + 0x200
    load32 a11, TS              # a11 = timestamp_ctrl (+8 lo, +0xc hi)
    movi a6, 1
    memw
    s32i a6, a11, 0             # the timestamp runs
    memw
    # The algorithm dispatch (seed 003 §9.3): algo_type, bits [3:0] of
    # byte 1 of the TOP_SP's first CTRL SPAD cc_op entry, indexes the
    # 12-entry table (enc_alg_type) the firmware's DRAM image holds at +0xb0.
    load32 a2, CTRL_SPAD
    memw
    l8ui a3, a2, 1
    movi a7, 15
    and a3, a3, a7
    movi a7, ALGOS
    bgeu a3, a7, algo_other
    const16 a2, DRAM_HI
    const16 a2, 0xb0            # the seeds' spine: const16 a2,0xb0; addx4; l32i.n
    addx4 a2, a3, a2
    l32i.n a5, a2, 0
    jx a5
algo_other:
    s32i a3, a13, 12            # the algo_type this stepper does not run
    load32 a6, ALGO_BAD
    j stop
algo_mesh:
    movi a15, 0                 # event_index
    movi a4, SIGNAL_VALUE
event:
    movi a7, EVENTS
    bltu a15, a7, dispatch
    load32 a6, TAPE_DONE
    j stop
dispatch:
    load32 a14, LOG
    slli a6, a15, 4
    add a14, a14, a6            # a14 = this event's log record
    movi a6, 0
    s32i a6, a14, 4
    s32i a6, a14, 8
    l8ui a3, a12, 0x4c          # event_type
    movi a7, 14
    bltu a3, a7, spine
    movi a6, 0xee
    s32i a6, a14, 0
    load32 a6, TAPE_BAD
    j stop
spine:
    load32_value a2, events
    addx4 a2, a3, a2
    l32i.n a5, a2, 0
    jx a5
h_step:
    movi a6, 1
    s32i a6, a14, 0
    movi a9, 0
    call0 wait
    j actions
h_barrier:
    movi a6, 2
    s32i a6, a14, 0
    movi a9, 1
    call0 wait
    memw
    l32i a6, a11, 8             # the atomic 64-bit snapshot: lo latches hi
    memw
    l32i a7, a11, 12
    s32i a6, a14, 4
    s32i a7, a14, 8
    j actions
h_handshake:
    movi a6, 3
    s32i a6, a14, 0
    movi a9, 2
    call0 wait
    j actions
h_bcast:
    movi a6, 4
    s32i a6, a14, 0
    movi a9, 3
    call0 wait
    j actions
h_reduce:
    movi a6, 5
    s32i a6, a14, 0
    movi a9, 0
    call0 wait
actions:
    l8ui a6, a12, 0x4d          # dma_trigger
    beqz a6, no_dma
    movi a9, 1
    l32i a6, a12, 0x00
    call0 fire
    l32i a6, a12, 0x08
    call0 fire
    l32i a6, a12, 0x14
    call0 fire
    l32i a6, a12, 0x1c
    call0 fire
no_dma:
    l8ui a6, a12, 0x4e          # direct_trigger
    beqz a6, next
    addi a8, a12, 0x28
    movi a7, 3
signal_loop:
    l32i a5, a8, 0
    l32i a6, a8, 4
    or a2, a5, a6
    beqz a2, signal_next
    s32i a5, a10, 0
    s32i a6, a10, 4
    memw
    s32i a4, a10, 8             # SIGNAL
    memw
signal_next:
    addi a8, a8, 8
    addi a7, a7, -1
    bnez a7, signal_loop
next:
    tape_next_event
stop:
    s32i a6, a13, TAPE_DONE_AT - CTX_200_AT   # the marker: TAPE_DONE or TAPE_BAD
    memw
idle:
    waiti 15
    j idle
    .align 4
# WAIT, if the event has one: until the u64 event_wait_sema reaches wait_val,
# by the primitive a9 selects (0 wait_gt_a, 1 wait_ge_a, 2 wait_ge_b,
# 3 wait_gt_b) on the SoC port's READ word. The call4 takes a4..a9 and a14:
# a3 keeps the log record, a4 gets SIGNAL_VALUE back.
wait:
    l8ui a6, a12, 0x4f          # wait_event
    beqz a6, wait_ret
    l32i a6, a12, 0x40
    s32i a6, a10, 0
    l32i a6, a12, 0x44
    s32i a6, a10, 4
    l32i a7, a12, 0x48          # wait_val
    addi a6, a10, 8             # the CSR: the port's READ word
    or a3, a14, a14
    beqz a9, w_gt_a
    addi a9, a9, -1
    beqz a9, w_ge_a
    addi a9, a9, -1
    beqz a9, w_ge_b
    addi a8, a7, -1
    call4 wait_gt_b
    j wait_done
w_ge_b:
    or a8, a7, a7
    call4 wait_ge_b
    j wait_done
w_ge_a:
    call4 wait_ge_a
    j wait_done
w_gt_a:
    addi a7, a7, -1
    call4 wait_gt_a
wait_done:
    or a14, a3, a3
    movi a4, SIGNAL_VALUE
wait_ret:
    ret
