/* Start-up for a C program on QEMU's `sim` machine (-cpu de212) and on our
 * core with the same memory map: the stack, .bss cleared, main() (call0
 * ABI, as gcc-xtensa-lx106 emits), then SIMCALL exit(main's result).
 * Used by testbench/tests/xtensa_qemu_c.rs. */
    .section .text.start, "ax"
    .global _start
_start:
    j 0f                        /* over the literal pool: the reset vector is _start */
    .literal_position
0:  movi a1, __stack
    movi a2, __bss_start
    movi a3, __bss_end
    movi a4, 0
1:  bgeu a2, a3, 2f
    s32i a4, a2, 0
    addi a2, a2, 4
    j 1b
2:  call0 main
    mov a3, a2
    movi a2, 1                  /* SYS_exit */
    simcall
3:  j 3b
