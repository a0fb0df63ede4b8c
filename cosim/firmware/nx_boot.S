# NX sequencer firmware (the POOL SEQ), behind nx_trampoline.S: the enter_run
# loop. The HAL installs it as the SEQ IRAM image (ucode_seq_init); the core
# fetches it through BAR0.
#
# Constants (.equ, from the register map; see cosim/src/firmware.rs):
#   ENTER_RUN          enter_run address (0x94 SUNDA, 0x90 CAYMAN/MARIANA)
#   RELEASE_Q7         1: this SEQ releases the Q7 cores (SUNDA, DIGEST §2.9 step 6)
#   Q7_RELEASE_HI/_LO  the Q7 bundle's release_run_stall, through the POOL control window
#   SEQ_MARK_HI/_LO    the value stored in DRAM[0] on reaching enter_run
#
# SEQ DRAM mailbox [D] (DRAM at 0x10000000, the SEQ DRAM of BAR0):
#   +0 mark (written here), +4 stop request (the host writes non-zero),
#   +8 polls made before the stop (written here)
main:
    const16 a2, 0x1000
    const16 a2, 0               # a2 = DRAM
    const16 a3, SEQ_MARK_HI
    const16 a3, SEQ_MARK_LO
    s32i a3, a2, 0              # "reached enter_run"
    memw
    movi a8, RELEASE_Q7
    beqz a8, poll_init
    const16 a4, Q7_RELEASE_HI
    const16 a4, Q7_RELEASE_LO
    movi a5, 0
    memw
    s32i a5, a4, 0              # release_run_stall <- 0: every Q7 core runs
    memw
poll_init:
    movi a7, 0
poll:
    addi a7, a7, 1
    memw
    l32i a6, a2, 4              # stop request
    beqz a6, poll
    s32i a7, a2, 8
    memw
    halt 0
