# TOP_SP firmware for the mesh scenario (behind nx_trampoline.S): the NCFW mesh event-tape stepper
# (DIGEST §7). The tape is algo_configs' mesh array of 80-byte events in this
# core's DRAM (at DRAM + ALGO_CONFIGS + MESH_OFFSET); the runtime context is
# one u16 event_index at algo_ctx + 0x204. Per event:
#   wait_event (+0x4f):  WAIT until the u64 event_wait_sema (+0x40) >= wait_val (+0x48);
#   dma_trigger (+0x4d): fire both dma_apb_bcast legs (+0x00, +0x14): a
#                        non-zero m2s/s2m tail pointer is a this-die BAR0
#                        address (low word) that gets a tail increment of 1 [D];
#   direct_trigger (+0x4e): SIGNAL each non-zero direct_trigger_sema (+0x28, 3 x u64);
#   event_index++.
# Semaphore addresses are SoC addresses (u64), reached through the SoC
# port, which routes them by the die/chip bits. The primitives are the
# seeds' memw-fenced WAIT (memw; l32i.n; bgeu) and SIGNAL (memw; s32i.n; memw).
# With WAIT_IRQ = 1 [D] a WAIT sleeps instead of spinning: the TOP_SP's
# EVT_SEM changes raise its intr_info (bit 2) and, with intr_ctrl.enable, its
# interrupt line; the WAIT reads the semaphore and, short of the count,
# WAITIs; the handler (the user vector) clears intr_info and returns to
# read again. A change between the read and the WAITI leaves the line high,
# so the WAITI ends at once: nothing is missed.
# Constants: ENTER_RUN; EVENTS (tape length), TAPE (core address of event 0),
# CTX_200 (core address of algo_ctx + 0x200), SIGNAL_VALUE (1 << sema_shift_offset),
# SOC_PORT_HI/_LO, SYSTEM_WINDOW_HI; WAIT_IRQ, INTR_CTRL, INTR_INFO (the
# TOP_SP NX bundle's, through the system window), USER_VECTOR, TAPE_DONE.
# tape_fire.S is appended.
# DRAM out [D]: algo_ctx + TAPE_DONE_AT = TAPE_DONE when the tape completed.
.include "tpb_macros.inc"

main:
    load32 a10, SOC_PORT        # a10 = SoC port
    load32 a12, TAPE            # a12 = event
    load32 a13, CTX_200         # a13 = algo_ctx + 0x200
    movi a15, 0                 # event_index
    movi a4, SIGNAL_VALUE
    movi a14, WAIT_IRQ          # a14: WAITs sleep
    beqz a14, event
    movi a3, 1
    wsr.intenable a3            # interrupt line 0
    load32 a5, INTR_CTRL
    memw
    s32i a3, a5, 0              # intr_ctrl.enable = 1
    memw
    movi a3, 0x20
    wsr.ps a3                   # PS.UM = 1, INTLEVEL = 0
    rsync
event:
    movi a7, EVENTS
    bltu a15, a7, step
    j tape_done
step:
    l8ui a6, a12, 0x4f          # wait_event
    beqz a6, no_wait
    l32i a6, a12, 0x40
    s32i a6, a10, 0
    l32i a6, a12, 0x44
    s32i a6, a10, 4             # SoC address of event_wait_sema
    l32i a3, a12, 0x48
    addi a3, a3, -1             # a3 = wait_val - 1
    bnez a14, wait_irq
wait:
    memw
    l32i a2, a10, 8
    bgeu a3, a2, wait           # WAIT: until sema >= wait_val
no_wait:
    l8ui a6, a12, 0x4d          # dma_trigger
    beqz a6, no_dma
    movi a9, 1
    l32i a6, a12, 0x00          # leg 0 m2s
    call0 fire
    l32i a6, a12, 0x08          # leg 0 s2m
    call0 fire
    l32i a6, a12, 0x14          # leg 1 m2s
    call0 fire
    l32i a6, a12, 0x1c          # leg 1 s2m
    call0 fire
no_dma:
    l8ui a6, a12, 0x4e          # direct_trigger
    beqz a6, next
    addi a11, a12, 0x28
    movi a8, 3
signal_loop:
    l32i a6, a11, 0
    l32i a7, a11, 4
    or a5, a6, a7
    beqz a5, signal_next
    s32i a6, a10, 0
    s32i a7, a10, 4
    memw
    s32i a4, a10, 8             # SIGNAL
    memw
signal_next:
    addi a11, a11, 8
    addi a8, a8, -1
    bnez a8, signal_loop
next:
    tape_next_event
tape_done:
    load32 a6, TAPE_DONE
    s32i a6, a13, TAPE_DONE_AT - CTX_200_AT
    memw
    halt 0
# The sleeping WAIT (WAIT_IRQ): read; short of the count, WAITI until an
# EVT_SEM change interrupts, then read again.
wait_irq:
    memw
    l32i a2, a10, 8
    bgeu a3, a2, sleep
    j no_wait
sleep:
    waiti 0
    j wait_irq
    .org USER_VECTOR
# Level-1 interrupt: clear what intr_info holds (write 1 to clear), return.
handler:
    load32 a1, INTR_INFO
    l32i a0, a1, 0
    memw
    s32i a0, a1, 0
    memw
    rfe
