/* Start-up of a C program on a TPB core (gcc-xtensa-lx106, call0 ABI),
 * preprocessed with the generation's numbers by `tpb cc` (cosim/src/cfw):
 *   TPB_CORE_NX    defined for an NX core (the SEQ, the TOP_SP)
 *   TPB_ENTER_RUN  the NX enter_run address (DIGEST §1)
 *   TPB_RESET_JUMP the Q7 reset jump target (DIGEST §1)
 * Reset (0): an NX core takes the boot trampoline's shape (j boot at 0,
 * j park at 6, enter_run at TPB_ENTER_RUN, boot at 0x1dc, park at 0x1e8;
 * with movi for const16, which this assembler lacks); a Q7 core jumps to
 * TPB_RESET_JUMP. Both reach _start at 0x200 (Q7: TPB_RESET_JUMP): the
 * stack at the top of DRAM, PS = 0 (the reset leaves EXCM set, which would
 * make any exception a double one), .bss cleared, main() called, its return value
 * stored in __tpb_exit, then HALT (encoded by hand: this assembler has no
 * HALT). With TPB_EXIT_SIMCALL defined (the QEMU oracle test, whose `sim`
 * machine has no HALT), main's result goes to SIMCALL exit instead. */
    .section .reset, "ax"
    .global _reset
_reset:
#ifdef TPB_CORE_NX
    j boot
    .org 6
    j park
    .org TPB_ENTER_RUN
enter_run:
    j _start
    .org 0x1dc
boot:
    movi a0, TPB_ENTER_RUN
    jx a0
    .org 0x1e8
park:
    .byte 0x00, 0x52, 0x00
#else
    j _start
#endif

    .section .start, "ax"
    .global _start
_start:
    j 3f                        /* over the literal pool: _start is the section's first byte */
    .literal_position
    .align 4
3:  movi a1, __stack
    movi a2, 0                  /* PS = 0: out of the reset's exception mode (EXCM), */
    wsr.ps a2                   /* so an exception is a first one: EPC1 holds its PC */
    rsync
    movi a2, __bss_start
    movi a3, __bss_end
    movi a4, 0
1:  bgeu a2, a3, 2f
    s32i a4, a2, 0
    addi a2, a2, 4
    j 1b
2:  call0 main
#ifdef TPB_EXIT_SIMCALL
    mov a3, a2
    movi a2, 1                  /* SYS_exit */
    simcall
4:  j 4b
#else
    movi a3, __tpb_exit
    s32i a2, a3, 0
    memw
    .global __tpb_halt
__tpb_halt:
    .byte 0x00, 0x52, 0x00
    j __tpb_halt
#endif
