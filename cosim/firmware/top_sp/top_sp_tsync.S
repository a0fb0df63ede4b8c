# TOP_SP firmware for the tsync scenario (behind nx_trampoline.S): the
# one-time init handshake and the time sync (DIGEST §2.7; seed 001 §8).
# Semaphore byte offsets in the windows (4 x index): INIT_AT, TSYNC_AT, SYNC_AT,
# DELAY_REQ_AT, DELAY_RESP_AT, T1_AT (lo; hi at +4), T4_AT (same).
# The protocol and every number below are [D] (cosim/src/scenario/tsync.rs
# tells them): the seeds give the doorbells, the function names and that
# the firmware reads and aligns the TPB timestamp.
#   1. WAIT for init_signal (semaphore INIT_SEM >= 1); read the config block
#      (CONFIG: +0 this die, +4 dies, +8/+0xc the SoC address of the
#      acknowledgement, +0x10 + 4d the SoC high word of die d's TOP_SP);
#      start the timestamp; INC the acknowledgement through the SoC port.
#   2. WAIT for tsync_signal (TSYNC_SEM >= 1).
#   3. Die 0 (the leader), for each die d > 0 in turn: snapshot t1, INC d's
#      SYNC_SEM; WAIT for its own DELAY_REQ_SEM >= d; snapshot t4; SET d's
#      T1 and T4 pairs, INC d's DELAY_RESP_SEM. (The pairs go after t4: the
#      leader must be polling when DELAY_REQ lands, or t4 - t3 grows by
#      the time it spent sending them.)
#      Any other die: WAIT for SYNC_SEM, snapshot t2, snapshot t3, INC the
#      leader's DELAY_REQ_SEM, WAIT for DELAY_RESP_SEM, read t1 and t4 from
#      its own semaphores, and add -((t2 - t1) - (t4 - t3)) / 2 to its
#      timestamp (timestamp_adjust).
# A snapshot is the seeds' atomic 64-bit read: timestamp_lo, then the high
# word that read latched. DRAM out (OUT, each offset the parameter OUT_<x>):
# t1..t4 (lo, hi each), the adjustment (lo, hi), then TSYNC_DONE.
.include "tpb_macros.inc"

# a5 = the SoC address of semaphore byte offset `at` in the window whose
# low address is `win` (SOC_INC0 or SOC_SET0); the high word is a6. Uses a8.
.macro soc_sem win, at
    load32 a5, \win
    movi a8, \at
    add a5, a5, a8
.endm

# lo:hi = the 64-bit result at a13 + `a` minus the one at a13 + `b`.
# Uses a2..a5 and sub64.
.macro sub_results a, b, lo, hi
    l32i a2, a13, \a
    l32i a3, a13, \a + 4
    l32i a4, a13, \b
    l32i a5, a13, \b + 4
    call0 sub64
    or \lo, a2, a2
    or \hi, a3, a3
.endm

# SET the pair of semaphores at `at` (lo; hi at +4) of the die in a6 to
# the 64-bit value at a13 + `off`. Uses a5, a7, a8.
.macro soc_set_pair at, off
    soc_sem SOC_SET0, \at
    l32i a7, a13, \off
    call0 soc_store
    addi a5, a5, 4
    l32i a7, a13, \off + 4
    call0 soc_store
.endm

main:
    load32 a9, CONFIG           # a9 = config block (system window)
    load32 a10, SOC_PORT        # a10 = SoC port
    load32 a11, TS              # a11 = timestamp_ctrl; +4 inc, +8 lo, +0xc hi, +0x10/+0x14 adjust
    load32 a12, SEM_READ        # a12 = this TOP_SP's semaphore READ window
    load32 a13, OUT             # a13 = results in core-local DRAM
    # 1. init
    movi a4, INIT_AT
    add a4, a4, a12
    movi a3, 0
    call0 wait
    movi a6, 1
    memw
    s32i a6, a11, 0             # timestamp_ctrl.run = 1
    memw
    l32i a5, a9, 8
    l32i a6, a9, 12
    call0 soc_store1            # INC the acknowledgement
    # 2. tsync
    movi a4, TSYNC_AT
    add a4, a4, a12
    movi a3, 0
    call0 wait
    l32i a14, a9, 0             # this die
    l32i a15, a9, 4             # dies
    beqz a14, leader
    j follower
leader:
    # 3. leader
    movi a14, 1
leader_next:
    bltu a14, a15, leader_one
    j finish
leader_one:
    addx4 a8, a14, a9
    l32i a6, a8, 16             # die d's SoC high word
    call0 snap                  # t1
    s32i a2, a13, OUT_T1
    s32i a3, a13, OUT_T1 + 4
    soc_sem SOC_INC0, SYNC_AT
    call0 soc_store1            # INC d's SYNC
    movi a4, DELAY_REQ_AT
    add a4, a4, a12
    addi a3, a14, -1
    call0 wait                  # d's DELAY_REQ arrived
    call0 snap                  # t4
    s32i a2, a13, OUT_T4
    s32i a3, a13, OUT_T4 + 4
    soc_set_pair T1_AT, OUT_T1  # SET d's T1 (lo, hi)
    soc_set_pair T4_AT, OUT_T4  # SET d's T4 (lo, hi)
    soc_sem SOC_INC0, DELAY_RESP_AT
    call0 soc_store1            # INC d's DELAY_RESP
    addi a14, a14, 1
    j leader_next
follower:
    movi a4, SYNC_AT
    add a4, a4, a12
    movi a3, 0
    call0 wait
    call0 snap                  # t2
    s32i a2, a13, OUT_T2
    s32i a3, a13, OUT_T2 + 4
    call0 snap                  # t3
    s32i a2, a13, OUT_T3
    s32i a3, a13, OUT_T3 + 4
    l32i a6, a9, 16             # the leader's SoC high word
    soc_sem SOC_INC0, DELAY_REQ_AT
    call0 soc_store1            # INC the leader's DELAY_REQ
    movi a4, DELAY_RESP_AT
    add a4, a4, a12
    movi a3, 0
    call0 wait
    memw
    l32i a2, a12, T1_AT
    l32i a3, a12, T1_AT + 4
    s32i a2, a13, OUT_T1
    s32i a3, a13, OUT_T1 + 4    # t1
    l32i a2, a12, T4_AT
    l32i a3, a12, T4_AT + 4
    s32i a2, a13, OUT_T4
    s32i a3, a13, OUT_T4 + 4    # t4
    sub_results OUT_T2, OUT_T1, a6, a7      # a6:a7 = t2 - t1
    sub_results OUT_T4, OUT_T3, a4, a5      # a4:a5 = t4 - t3
    # a2:a3 = (t2 - t1) - (t4 - t3)
    or a2, a6, a6
    or a3, a7, a7
    call0 sub64
    # offset = that / 2 (arithmetic); a2:a3 = 0 - offset
    srli a2, a2, 1
    slli a6, a3, 31
    or a4, a2, a6
    srai a5, a3, 1
    movi a2, 0
    movi a3, 0
    call0 sub64
    s32i a2, a13, OUT_ADJUST
    s32i a3, a13, OUT_ADJUST + 4
    memw
    s32i a2, a11, 16            # timestamp_adjust_lo
    s32i a3, a11, 20            # timestamp_adjust_hi: applies
    memw
finish:
    load32 a6, TSYNC_DONE
    s32i a6, a13, OUT_DONE
    memw
    halt 0
    .align 4
# WAIT (the seeds' memw; l32i; bgeu): until the word at a4 > a3.
wait:
    memw
    l32i a2, a4, 0
    bgeu a3, a2, wait
    ret
    .align 4
# The atomic 64-bit snapshot: a2 = timestamp_lo, a3 = the high word it latched.
snap:
    memw
    l32i a2, a11, 8
    memw
    l32i a3, a11, 12
    ret
    .align 4
# SoC store of a7 to a6:a5 (soc_store1: of 1).
soc_store1:
    movi a7, 1
    j soc_store
    .align 4
soc_store:
    s32i a5, a10, 0
    s32i a6, a10, 4
    memw
    s32i a7, a10, 8
    memw
    ret
    .align 4
# a2:a3 -= a4:a5 (64-bit, lo:hi).
sub64:
    sub a3, a3, a5
    bgeu a2, a4, sub64_nb
    addi a3, a3, -1
sub64_nb:
    sub a2, a2, a4
    ret
