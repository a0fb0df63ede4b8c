# Q7 kernel for the interrupt scenario (assembled by the project's
# assembler). Each core enables interrupt line 0 (INTENABLE), drops to user
# mode with interrupts unmasked and waits; each level-1 interrupt enters
# the user vector, where the handler reads this core's intr_info_n (PRID
# picks n), clears what it read, logs it and returns with RFE. After WANT
# interrupts the core halts.
#
# Constants (.equ): RESET_JUMP (DIGEST §1), INTR_INFO0_HI/_LO (the Q7
# bundle's intr_info_0 through the system window; core n's is 4n further),
# WANT, USER_VECTOR (VECBASE + the user vector offset).
#
# DRAM record [D]: +4 interrupts taken, +0x20.. the intr_info_n value of each.
    .org 0
    j main
    .org RESET_JUMP
main:
    const16 a2, 0x1000          # a2 = DRAM base 0x10000000 (the handler uses it)
    const16 a2, 0
    rsr.prid a9
    slli a9, a9, 2
    const16 a10, INTR_INFO0_HI
    const16 a10, INTR_INFO0_LO
    add a10, a10, a9            # a10 = this core's intr_info_n (the handler uses it)
    movi a3, 1
    wsr.intenable a3
    movi a3, 0x20
    wsr.ps a3                   # PS.UM = 1, EXCM = 0, INTLEVEL = 0
    rsync
wait:
    l32i a7, a2, 4
    movi a8, WANT
    blt a7, a8, wait
    halt 0

    .org USER_VECTOR
handler:
    l32i a11, a10, 0            # the sources pending
    memw
    s32i a11, a10, 0            # clear them (w1c)
    memw
    l32i a12, a2, 4
    slli a13, a12, 2
    add a13, a13, a2
    s32i a11, a13, 0x20         # log[n] = intr_info_n
    addi a12, a12, 1
    s32i a12, a2, 4
    memw
    rfe
