# NX sequencer firmware for the interrupt scenario (the POOL SEQ, behind
# nx_trampoline.S). It enables interrupt line 0 (INTENABLE) and its NX
# bundle's intr_ctrl, drops to user mode with interrupts unmasked, and
# counts in a loop; each level-1 interrupt enters the user vector, where the
# handler reads intr_info, clears what it read (write 1 to clear), logs it
# and returns with RFE. After WANT interrupts it halts itself.
#
# Parameters (.equ; cosim/src/firmware/ nx_intr, or a file's
# [firmware.seq] set = { ... }):
#   RELEASE_Q7         as nx_boot.S
#   WANT               interrupts to take before halting
# The rest is tpb.inc's: the POOL NX bundle's intr_ctrl, intr_info and
# instr_halt_ctrl through the system window, the NX user vector.
#
# SEQ DRAM record [D]: +0 loop count, +4 interrupts taken, +0x20.. the
# intr_info value of each, in order.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "nx_trampoline.S"
main:
    load32 a2, TPB_DRAM_BASE        # a2 = DRAM (the handler uses it too)
    seq_release_q7 setup
setup:
    irq_on a3, a4, TPB_POOL_NX_INTR_CTRL_ADDR
    count_until_logged WANT
    load32 a4, TPB_POOL_NX_INSTR_HALT_CTRL_ADDR
    movi a5, 1
    s32i a5, a4, 0              # done: halt
    memw
done:
    j done

    .org TPB_NX_USER_VECTOR
handler:
    load32 a10, TPB_POOL_NX_INTR_INFO_ADDR
    log_interrupt               # log[n] = intr_info
