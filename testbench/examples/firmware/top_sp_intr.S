# Your own TOP_SP firmware (behind the DIGEST §1 trampoline): it enables its
# interrupt line 0 and its NX bundle's intr_ctrl, drops to user mode with
# interrupts unmasked and counts in a loop until its handler has taken an
# interrupt; the handler reads intr_info, clears what it read and logs it
# (tpb_macros.inc's log_interrupt), then the core halts itself. `restart`
# (at 0x800) is where the host restarts it with start_addr + start_ctrl.
# Core-local DRAM [D]: +0 loop count, +4 interrupts taken, +8 the restart's
# marker, +0x20.. each interrupt's intr_info.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "nx_trampoline.S"
main:
    load32 a2, TPB_DRAM_BASE        # a2 = DRAM (the handler uses it too)
    irq_on a3, a4, TPB_TOP_SP_NX_INTR_CTRL_ADDR   # tpb_macros.inc
    count_until_logged 1            # until the handler has taken one
    halt 0

    .org TPB_NX_USER_VECTOR
handler:
    load32 a10, TPB_TOP_SP_NX_INTR_INFO_ADDR
    log_interrupt

    .org 0x800
restart:
    load32 a2, TPB_DRAM_BASE
    movi a3, 0x5a
    s32i a3, a2, 8                  # the restart's marker
    memw
    halt 0
