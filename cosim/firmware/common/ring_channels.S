# The NCFW ring / kangaring channel program (DIGEST §6, §7), for the TOP_SP or
# the NCFW core (starts at main; loaded at 0 on the NCFW core, behind
# nx_trampoline.S on the TOP_SP). It runs the legs its CTRL SPAD entries
# chain (entry i, read over BAR0, is leg i; trigger_next goes on to the
# next: a hierarchical program is three, a ring one). The channels a leg
# steps are the ones its entry's channel_list names (bytes 4..7; byte 1
# bit 7 trigger_next; byte 2 bit 0 reporter, bit 1 ring_wait_complete,
# bit 2 ring_send_complete, as the struct declares; the last entry's flags
# count). The hierarchical run_state (u8 at CTX + 0x200) is the leg running,
# from 1, and the number of legs + 1 when all are done. Leg i's header at
# CTX + 0x260 + 16 x i: u32 steps, u32 reduce-scatter steps, u32 core
# address of its ring configs.
# Per channel c, a leg's ring record at its configs + 148 x c ([D] fields):
#   +0x00 dma_apb_bcast m2s tail pointer (this die's BAR0 address, low word)
#   +0x08 dma_apb_bcast s2m tail pointer (the same; each fires one descriptor)
#   +0x18 u64 SoC address of this channel's receive semaphore (READ slot)
#   +0x20 u64 SoC address of the next TOP_SP's receive semaphore of it (INC)
# and its scoreboard in the ring ctx at CTX + 16 x c ([D] layout): +0 recv_cnt,
# +4 send_credit, +8 m2s_val (u16), +0xc run_state (u8: 1 reduce-scatter,
# 2 all-gather, 3 done).
# The program ([D]): for each of STEPS steps, for each owned channel in
# channel order: WAIT for the step's chunk (recv >= step; not at step 0),
# fire its DMA leg (two descriptors), WAIT until this TOP_SP's legs are done, SIGNAL the next
# TOP_SP on its ring. Each WAIT depends on an earlier step only, so the
# rings cannot deadlock. Then WAIT for each channel's last chunk (recv >=
# STEPS), and complete: ring_wait_complete WAITs for complete_prev,
# ring_send_complete SIGNALs the next TOP_SP's complete_prev, the reporter
# posts the completion. Header at CTX + 0x240: u64 done (READ), u64
# complete_prev (READ), u64 complete (INC, the next TOP_SP's), u64
# completion address (INC). Done marker TAPE_DONE at CTX + TAPE_DONE_AT, then the
# NCFW idle: waiti 15.
# Working words at CTX + 0x20c: flags, 0x210 leg, 0x214 steps, 0x218
# reduce-scatter steps, 0x21c trigger_next, 0x220 configs.
# Constants: CTX, CC_OP, SIGNAL_VALUE, SOC_PORT, SYSTEM_WINDOW, TAPE_DONE;
# tape_fire.S is appended.
.include "tpb_macros.inc"

main:
    load32 a10, SOC_PORT        # a10 = SoC port
    load32 a13, CTX             # a13 = algo_ctx
    movi a4, SIGNAL_VALUE
    movi a9, 1
    movi a11, 0                 # DMA legs fired
    movi a6, 0
    s32i a6, a13, 0x210         # leg 0
leg:
    l32i a7, a13, 0x210
    addmi a5, a13, 0x200
    addi a6, a7, 1
    s8i a6, a5, 0               # hierarchical run_state: this leg, from 1
    load32 a6, CC_OP
    addx8 a6, a7, a6            # its CTRL SPAD entry
    memw
    l32i a12, a6, 4             # a12 = channel_list
    l32i a3, a6, 0
    memw
    extui a5, a3, 16, 8         # byte 2: the flag nibble
    s32i a5, a13, 0x20c
    extui a5, a3, 15, 1         # trigger_next
    s32i a5, a13, 0x21c
    slli a5, a7, 4
    add a5, a5, a13             # the leg's header
    l32i a6, a5, 0x260
    s32i a6, a13, 0x214
    l32i a6, a5, 0x264
    s32i a6, a13, 0x218
    l32i a6, a5, 0x268
    s32i a6, a13, 0x220
    or a14, a13, a13
    movi a6, 0
    movi a8, 128
clear:
    s32i a6, a14, 0             # a fresh scoreboard for the leg
    addi a14, a14, 4
    addi a8, a8, -1
    bnez a8, clear
    movi a15, 0                 # step
step:
    l32i a7, a13, 0x214
    bltu a15, a7, step_go
    j finish
step_go:
    l32i a2, a13, 0x220         # a2 = channel 0's config
    or a14, a13, a13            # a14 = channel 0's scoreboard
    movi a8, 0                  # a8 = channel
chan:
    bbs a12, a8, chan_go
    j chan_next
chan_go:
    movi a6, 1
    l32i a7, a13, 0x218
    bltu a15, a7, phase
    movi a6, 2
phase:
    s8i a6, a14, 12             # run_state
    beqz a15, dma_leg
    l32i a6, a2, 0x18
    s32i a6, a10, 0
    l32i a6, a2, 0x1c
    s32i a6, a10, 4             # the receive semaphore
recv:
    memw
    l32i a5, a10, 8
    bltu a5, a15, recv          # WAIT: until recv >= step
    s32i a5, a14, 0             # recv_cnt
dma_leg:
    l32i a6, a2, 0
    call0 fire                  # m2s: the leg's first descriptor
    l32i a6, a2, 8
    call0 fire                  # s2m: its second, which completes it
    addi a11, a11, 1
    l16ui a6, a14, 8
    addi a6, a6, 1
    s16i a6, a14, 8             # m2s_val
    l32i a6, a13, 0x240
    s32i a6, a10, 0
    l32i a6, a13, 0x244
    s32i a6, a10, 4             # this TOP_SP's DMA-done semaphore
landed:
    memw
    l32i a5, a10, 8
    bltu a5, a11, landed        # WAIT: until done >= legs fired
    l32i a6, a2, 0x20
    s32i a6, a10, 0
    l32i a6, a2, 0x24
    s32i a6, a10, 4
    memw
    s32i a4, a10, 8             # SIGNAL the next TOP_SP on the ring
    memw
    l32i a6, a14, 4
    addi a6, a6, 1
    s32i a6, a14, 4             # send_credit
chan_next:
    addi a8, a8, 1
    addi a2, a2, 100
    addi a2, a2, 48             # the next channel's config (148 bytes on)
    addi a14, a14, 16
    movi a7, 32
    bgeu a8, a7, step_next
    j chan
step_next:
    addi a15, a15, 1
    j step
finish:
    l32i a2, a13, 0x220
    or a14, a13, a13
    movi a8, 0
    l32i a3, a13, 0x214
last:
    bbc a12, a8, last_next
    l32i a6, a2, 0x18
    s32i a6, a10, 0
    l32i a6, a2, 0x1c
    s32i a6, a10, 4
last_recv:
    memw
    l32i a5, a10, 8
    bltu a5, a3, last_recv      # WAIT: the channel's last chunk
    s32i a5, a14, 0
    movi a6, 3
    s8i a6, a14, 12             # run_state: done
last_next:
    addi a8, a8, 1
    addi a2, a2, 100
    addi a2, a2, 48
    addi a14, a14, 16
    movi a7, 32
    bltu a8, a7, last
    l32i a6, a13, 0x21c
    beqz a6, legs_done
    l32i a7, a13, 0x210
    addi a7, a7, 1
    s32i a7, a13, 0x210         # trigger_next: the next leg
    j leg
legs_done:
    l32i a6, a13, 0x210
    addi a6, a6, 2
    addmi a5, a13, 0x200
    s8i a6, a5, 0               # run_state: every leg done
    l32i a3, a13, 0x20c         # the flags
    bbci a3, 1, no_wait_complete
    l32i a6, a13, 0x248
    s32i a6, a10, 0
    l32i a6, a13, 0x24c
    s32i a6, a10, 4
complete_prev:
    memw
    l32i a5, a10, 8
    beqz a5, complete_prev      # WAIT: complete_prev >= 1
no_wait_complete:
    bbci a3, 2, no_send_complete
    l32i a6, a13, 0x250
    s32i a6, a10, 0
    l32i a6, a13, 0x254
    s32i a6, a10, 4
    memw
    s32i a4, a10, 8             # SIGNAL complete to the next TOP_SP
    memw
no_send_complete:
    bbci a3, 0, done
    l32i a6, a13, 0x258
    s32i a6, a10, 0
    l32i a6, a13, 0x25c
    s32i a6, a10, 4
    memw
    s32i a4, a10, 8             # the reporter posts the completion
    memw
done:
    load32 a6, TAPE_DONE
    s32i a6, a13, TAPE_DONE_AT
    memw
idle:
    waiti 15
    j idle
