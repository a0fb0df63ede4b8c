# NX sequencer firmware for the halt-start scenario (the POOL SEQ, behind
# nx_trampoline.S): each entry records itself in the SEQ DRAM, then halts the
# way the seeds say the device does (DIGEST §2.8): it writes its own
# instr_halt_ctrl.halt and spins; the hardware holds the core from then on.
# The host restarts it through start_ctrl at `restart`.
#
# Constants (.equ, from the register map; see cosim/src/firmware.rs):
#   ENTER_RUN          enter_run address (0x94 SUNDA, 0x90 CAYMAN/MARIANA)
#   RELEASE_Q7         1: this SEQ releases the Q7 cores (SUNDA, DIGEST §2.9 step 6)
#   Q7_RELEASE_HI/_LO  the Q7 bundle's release_run_stall, through the POOL control window
#   HALT_CTRL_HI/_LO   the POOL NX bundle's instr_halt_ctrl, through the system window
#
# SEQ DRAM record [D] (DRAM at 0x10000000, the SEQ DRAM of BAR0):
#   +0 the last entry taken (1 main, 2 restart), +4 entries taken so far,
#   +8 spins after the halt write (the core is held: a few at most)
main:
    movi a9, 1
    movi a8, RELEASE_Q7
    beqz a8, record
    const16 a4, Q7_RELEASE_HI
    const16 a4, Q7_RELEASE_LO
    movi a5, 0
    memw
    s32i a5, a4, 0              # release_run_stall <- 0: every Q7 core runs
    memw
    j record
    .align 4
restart:                        # start_addr of the host's start_ctrl
    movi a9, 2
record:
    const16 a2, 0x1000
    const16 a2, 0               # a2 = DRAM
    l32i a3, a2, 4
    addi a3, a3, 1
    s32i a3, a2, 4              # entries taken (DRAM is kept across a start)
    s32i a9, a2, 0              # this entry
    movi a7, 0
    s32i a7, a2, 8
    memw
    const16 a4, HALT_CTRL_HI
    const16 a4, HALT_CTRL_LO
    movi a5, 1
    s32i a5, a4, 0              # instr_halt_ctrl.halt <- 1: held from here
    memw
spin:
    addi a7, a7, 1
    s32i a7, a2, 8
    j spin
