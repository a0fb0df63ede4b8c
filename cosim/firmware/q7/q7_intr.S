# Q7 kernel for the interrupt scenario (assembled by the project's
# assembler). Each core enables interrupt line 0 (INTENABLE), drops to user
# mode with interrupts unmasked and waits; each level-1 interrupt enters
# the user vector, where the handler reads this core's intr_info_n (PRID
# picks n), clears what it read, logs it and returns with RFE. After WANT
# interrupts the core halts.
#
# Parameter (.equ; cosim/src/firmware/ q7_intr, or a file's
# [firmware.q7] set = { ... }): WANT. From tpb.inc: TPB_RESET_JUMP
# (DIGEST §1), the Q7 bundle's intr_info_0 through the system window (core
# n's is 4n further), the Q7 user vector.
#
# DRAM record [D]: +4 interrupts taken, +0x20.. the intr_info_n value of each.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "q7_reset.S"
main:
    load32 a2, TPB_DRAM_BASE        # a2 = DRAM (the handler uses it)
    rsr.prid a9
    slli a9, a9, 2
    load32 a10, TPB_POOL_Q7_INTR_INFO_0_ADDR
    add a10, a10, a9            # a10 = this core's intr_info_n (the handler uses it)
    movi a3, -1
    s32i a3, a10, 0             # clear what was pending before this kernel (w1c):
    memw                        # on SUNDA, the release's POOL EVT_SEM change
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

    .org TPB_Q7_USER_VECTOR
handler:
    log_interrupt               # log[n] = intr_info_n (a10 = this core's)
