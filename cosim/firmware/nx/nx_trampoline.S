# The NX boot trampoline, byte for byte as DIGEST §1 gives it, shared by every
# NX sequencer program: a unit includes it first (after tpb.inc, for
# TPB_ENTER_RUN: 0x94 on SUNDA, 0x90 on CAYMAN/MARIANA), or
# cosim/src/firmware/ puts it in front; the program starts at `main` (0x200).
    .org 0
    j boot                      # 06 76 00  primary reset -> boot
    .org 6
    j park                      # 86 77 00  secondary -> halt
    .org TPB_ENTER_RUN
enter_run:
    j main
    .org 0x1dc
boot:
    const16 a0, 0
    const16 a0, TPB_ENTER_RUN   # a0 = enter_run
    jx a0
    .org 0x1e8
park:
    halt 0
    .org 0x200
