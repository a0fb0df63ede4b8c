# Q7 dispatch shell with dynamic kernel load (`kernel-load`; seed 004 §5,
# seed 000 §3g, DIGEST §9). Each core serves a mailbox in its DRAM: the SEQ
# writes an instruction (opcode, spec, operand) and a sequence number; the
# shell linear-scans the kernel_info_table {u8 0; u8 0; u8 spec; u8 opcode;
# u32 funcVA} for the (opcode, spec), and calls the kernel at funcVA:
# - a code-window VA (CODE_WINDOW + o) is IRAM o: resident in this image;
# - a dyn-window VA (DYN_WINDOW + o) is IRAM DYN_IRAM + o. The first request
#   loads it: the shell finds the swap record with that funcVA and copies
#   its bytes from device memory (the library or EXTRAM) into IRAM through
#   the SoC port, word by word. Later requests call it where it is.
# The swap table's device address and record count come from the POOL NX
# registers at SWAP_REGS (SUNDA: nx_rsvd_space0..2, which the host's
# swap_table writes) or, with SWAP_REGS = 0, from this core's DRAM at
# SWAP_PTR (CAYMAN/MARIANA: DKL is firmware-resident, the HAL hooks are stubs).
# Then it writes the result and the sequence number back, and waits again.
#
# Kernels: call0 ones take a5 = operand, give a6 = result, may use a7 and
# return with `ret` (callx0). A windowed one (its swap record's size has
# bit 31 set: the EXTRAM's, which open with `entry a1, 48` as the seeds'
# EXTRAM does) is called with callx8: operand in, result out in its a2.
# The shell sets PS.WOE and a stack (DRAM + STACK) for them.
#
# Parameters (.equ; cosim/src/firmware/ q7_dkl): RECORDS, TABLE (DRAM
# offset of the kernel_info_table), CODE_WINDOW, DYN_WINDOW, DYN_IRAM,
# SWAP_REGS, and the DRAM layout [D]: MB_GO, MB_INSN (opcode | spec << 8),
# MB_OPERAND, MB_DONE, MB_RESULT, MB_RECORD (the record dispatched to,
# 0xff: none), CNT_SERVED, CNT_MISSES, CNT_LOADS, CNT_WORDS, CNT_NOSWAP,
# SWAP_PTR (low, high, records), CALLS (+4n: calls of record n), LOADED
# (+4s: swap record s is in IRAM), STACK.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "q7_reset.S"
main:
    load32 a2, TPB_DRAM_BASE    # a2 = DRAM (the whole shell)
    load32 a1, STACK
    add a1, a1, a2              # the windowed kernels' stack
    movi a3, 1
    slli a3, a3, 18
    wsr.ps a3                   # PS.WOE = 1 (windowed calls), INTLEVEL 0
    rsync
    movi a3, 0                  # the last sequence number served
wait:
    memw
    l32i a4, a2, MB_GO
    beq a4, a3, wait
    mov a3, a4
    l32i a5, a2, MB_INSN
    extui a6, a5, 0, 8          # opcode
    extui a7, a5, 8, 8          # spec
    movi a8, TABLE
    add a8, a8, a2              # the first record
    movi a9, 0                  # record index
    movi a10, RECORDS
scan:
    bgeu a9, a10, miss
    l8ui a11, a8, 3             # opcode
    l8ui a12, a8, 2             # spec
    bne a11, a6, skip
    beq a12, a7, found
skip:
    addi a8, a8, 8
    addi a9, a9, 1
    j scan
miss:
    movi a11, 0xff
    s32i a11, a2, MB_RECORD
    l32i a11, a2, CNT_MISSES
    addi a11, a11, 1
    s32i a11, a2, CNT_MISSES
    movi a6, 0
    j store_result
found:
    s32i a9, a2, MB_RECORD
    slli a11, a9, 2
    add a11, a11, a2
    l32i a12, a11, CALLS
    addi a12, a12, 1
    s32i a12, a11, CALLS
    l32i a12, a8, 4             # funcVA
    extui a11, a12, 24, 8       # the window: funcVA >> 24
    movi a13, DYN_WINDOW >> 24
    beq a11, a13, dyn
    load32 a13, CODE_WINDOW
    sub a12, a12, a13           # code-window VA -> IRAM address
    movi a4, 0                  # call0
    j call
# ---- the loader: a12 = funcVA in the dyn window ----
dyn:
    load32 a0, TPB_SOC_PORT     # a0 = the SoC port (until the call)
    load32 a4, SWAP_REGS
    beqz a4, resident_ptr
    l32i a13, a4, 0             # the swap table's device address, low
    l32i a14, a4, 4             # high
    l32i a15, a4, 8             # records
    j find0
resident_ptr:
    l32i a13, a2, SWAP_PTR
    l32i a14, a2, SWAP_PTR + 4
    l32i a15, a2, SWAP_PTR + 8
find0:
    s32i a14, a0, 4             # the port's high word
    movi a9, 0                  # swap record index
find:
    bgeu a9, a15, noswap
    slli a10, a9, 4
    add a10, a10, a13           # record s ([D] the table does not cross 4 GiB)
    s32i a10, a0, 0
    l32i a11, a0, 8             # its funcVA
    beq a11, a12, have
    addi a9, a9, 1
    j find
noswap:
    l32i a11, a2, CNT_NOSWAP
    addi a11, a11, 1
    s32i a11, a2, CNT_NOSWAP
    movi a6, 0
    j store_result
have:
    slli a4, a9, 2
    add a4, a4, a2              # a4 + LOADED: record s's flag
    load32 a5, DYN_WINDOW
    sub a15, a12, a5
    load32 a5, DYN_IRAM
    add a15, a15, a5            # a15 = the kernel's IRAM address
    addi a11, a10, 12
    s32i a11, a0, 0
    l32i a8, a0, 8              # bytes | windowed << 31
    extui a13, a8, 31, 1        # a13 = windowed (until the call)
    slli a8, a8, 1
    srli a8, a8, 1              # a8 = bytes
    l32i a5, a4, LOADED
    bnez a5, mapped
    addi a11, a10, 4
    s32i a11, a0, 0
    l32i a6, a0, 8              # source, low
    addi a11, a10, 8
    s32i a11, a0, 0
    l32i a7, a0, 8              # source, high
    s32i a7, a0, 4              # the port's high word: the source's
    movi a9, 0
copy:
    bgeu a9, a8, copied
    add a11, a6, a9
    s32i a11, a0, 0
    l32i a11, a0, 8             # a word of the image
    add a10, a15, a9
    s32i a11, a10, 0            # into IRAM
    addi a9, a9, 4
    j copy
copied:
    isync
    movi a5, 1
    s32i a5, a4, LOADED
    l32i a5, a2, CNT_LOADS
    addi a5, a5, 1
    s32i a5, a2, CNT_LOADS
    l32i a5, a2, CNT_WORDS
    srli a11, a8, 2
    add a5, a5, a11
    s32i a5, a2, CNT_WORDS
mapped:
    mov a12, a15
    mov a4, a13
call:
    l32i a5, a2, MB_OPERAND
    bnez a4, windowed
    callx0 a12                  # the kernel: a5 -> a6
    j store_result
windowed:
    mov a10, a5
    callx8 a12                  # the kernel: its a2 (our a10) -> the same
    mov a6, a10
store_result:
    s32i a6, a2, MB_RESULT
    l32i a11, a2, CNT_SERVED
    addi a11, a11, 1
    s32i a11, a2, CNT_SERVED
    memw
    s32i a3, a2, MB_DONE        # done: the sequence number back
    memw
    j wait
