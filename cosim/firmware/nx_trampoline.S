# The NX boot trampoline, byte for byte as DIGEST §1 gives it, shared by every
# NX sequencer program (nx_boot.S, top_sp_ccop.S, mesh_tape.S):
# cosim/src/firmware.rs puts it in front of the program, which starts at
# `main` (0x200). ENTER_RUN (.equ) is 0x94 on SUNDA, 0x90 on CAYMAN/MARIANA.
    .org 0
    j boot                      # 06 76 00  primary reset -> boot
    .org 6
    j park                      # 86 77 00  secondary -> halt
    .org ENTER_RUN
enter_run:
    j main
    .org 0x1dc
boot:
    const16 a0, 0
    const16 a0, ENTER_RUN       # a0 = enter_run
    jx a0
    .org 0x1e8
park:
    halt 0
    .org 0x200
