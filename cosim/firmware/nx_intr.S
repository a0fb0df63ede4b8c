# NX sequencer firmware for the interrupt scenario (the POOL SEQ, behind
# nx_trampoline.S). It enables interrupt line 0 (INTENABLE) and its NX
# bundle's intr_ctrl, drops to user mode with interrupts unmasked, and
# counts in a loop; each level-1 interrupt enters the user vector, where the
# handler reads intr_info, clears what it read (write 1 to clear), logs it
# and returns with RFE. After WANT interrupts it halts itself.
#
# Constants (.equ, from the register map; see cosim/src/firmware.rs):
#   ENTER_RUN, RELEASE_Q7, Q7_RELEASE_HI/_LO  as nx_boot.S
#   INTR_CTRL_HI/_LO, INTR_INFO_HI/_LO  the POOL NX bundle's, through the system window
#   HALT_CTRL_HI/_LO   the POOL NX bundle's instr_halt_ctrl
#   WANT               interrupts to take before halting
#   USER_VECTOR        VECBASE + the user vector offset (the core's configuration)
#
# SEQ DRAM record [D]: +0 loop count, +4 interrupts taken, +0x20.. the
# intr_info value of each, in order.
main:
    const16 a2, 0x1000
    const16 a2, 0               # a2 = DRAM (the handler uses it too)
    movi a8, RELEASE_Q7
    beqz a8, setup
    const16 a4, Q7_RELEASE_HI
    const16 a4, Q7_RELEASE_LO
    movi a5, 0
    memw
    s32i a5, a4, 0              # SUNDA: the SEQ releases the Q7 cores
    memw
setup:
    movi a3, 1
    wsr.intenable a3            # interrupt line 0
    const16 a4, INTR_CTRL_HI
    const16 a4, INTR_CTRL_LO
    s32i a3, a4, 0              # intr_ctrl.enable = 1
    memw
    movi a3, 0x20
    wsr.ps a3                   # PS.UM = 1, EXCM = 0, INTLEVEL = 0
    rsync
    movi a6, 0
loop:
    addi a6, a6, 1
    s32i a6, a2, 0
    memw
    l32i a7, a2, 4
    movi a8, WANT
    blt a7, a8, loop
    const16 a4, HALT_CTRL_HI
    const16 a4, HALT_CTRL_LO
    movi a5, 1
    s32i a5, a4, 0              # done: halt
    memw
done:
    j done

    .org USER_VECTOR
handler:
    const16 a10, INTR_INFO_HI
    const16 a10, INTR_INFO_LO
    l32i a11, a10, 0            # the sources pending
    memw
    s32i a11, a10, 0            # clear them (w1c)
    memw
    l32i a12, a2, 4
    slli a13, a12, 2
    add a13, a13, a2
    s32i a11, a13, 0x20         # log[n] = intr_info
    addi a12, a12, 1
    s32i a12, a2, 4
    memw
    rfe
