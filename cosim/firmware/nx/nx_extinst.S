# NX sequencer firmware (the POOL SEQ) for `kernel-load`: the SEQ walks an
# instruction stream in its DRAM and hands the Q7's instructions to a Q7
# core, waiting for each to complete (seed 000 §2d):
# - DIRECT = 0 (CAYMAN, MARIANA): only the ExtendedInst escape (opcode EXT,
#   0xf0) goes to a Q7 core; the SEQ executes every other instruction
#   itself (here: counts it).
# - DIRECT = 1 (SUNDA, which has no 0xf0 escape): every instruction goes to
#   a Q7 core as its own opcode (the direct-opcode kernel_info_table path).
# A hand-off writes the operand and the instruction (opcode | spec << 8)
# into the core's DRAM mailbox over BAR0, then the sequence number i + 1;
# the SEQ polls the core's done word until it reads that number back, then
# logs the result.
#
# Parameters (.equ; cosim/src/firmware/ nx_extinst): RELEASE_Q7 (SUNDA:
# this SEQ releases the Q7 cores), DIRECT, EXT, Q7_DRAM0 (q7[0].dram as the
# SEQ reaches it), STRIDE_SHIFT (log2 of the cores' BAR0 stride), the Q7
# mailbox offsets MB_GO, MB_INSN, MB_OPERAND, MB_DONE, MB_RESULT, MB_RECORD,
# and this SEQ's DRAM layout [D]: STREAM (n, then n × {opcode | spec << 8 |
# core << 16, operand}), LOG (16 bytes an instruction: result, polls,
# record, core; result = 0xffffffff: the SEQ executed it), HANDED, OWN,
# DONE_AT (TPB_EXTINST_DONE when the stream is through); DRAM[0] =
# TPB_SEQ_MARK on reaching enter_run.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "nx_trampoline.S"
main:
    seq_enter_run go          # a2 = DRAM; DRAM[0] = TPB_SEQ_MARK; the Q7 release
go:
    movi a3, STREAM
    add a3, a3, a2
    l32i a4, a3, 0              # n
    addi a3, a3, 4              # the first instruction
    movi a5, LOG
    add a5, a5, a2              # its log entry
    movi a6, 0                  # i
next:
    bltu a6, a4, body
    j finish
body:
    l32i a7, a3, 0              # opcode | spec << 8 | core << 16
    l32i a8, a3, 4              # operand
    extui a9, a7, 0, 8
    movi a10, DIRECT
    bnez a10, hand
    movi a10, EXT
    beq a9, a10, hand
    l32i a10, a2, OWN           # the SEQ's own instruction
    addi a10, a10, 1
    s32i a10, a2, OWN
    movi a10, -1
    s32i a10, a5, 0
    movi a10, 0
    s32i a10, a5, 4
    j advance
hand:
    extui a10, a7, 16, 3        # the core
    slli a10, a10, STRIDE_SHIFT
    load32 a11, Q7_DRAM0
    add a11, a11, a10           # its mailbox
    s32i a8, a11, MB_OPERAND
    extui a12, a7, 0, 16
    s32i a12, a11, MB_INSN
    addi a13, a6, 1             # the sequence number
    memw
    s32i a13, a11, MB_GO        # hand it over
    memw
    movi a14, 0                 # polls
wait_q7:
    addi a14, a14, 1
    l32i a15, a11, MB_DONE
    memw
    bne a15, a13, wait_q7
    l32i a15, a11, MB_RESULT
    s32i a15, a5, 0
    s32i a14, a5, 4
    l32i a15, a11, MB_RECORD
    s32i a15, a5, 8
    extui a10, a7, 16, 3
    s32i a10, a5, 12
    l32i a10, a2, HANDED
    addi a10, a10, 1
    s32i a10, a2, HANDED
advance:
    addi a3, a3, 8
    addi a5, a5, 16
    addi a6, a6, 1
    j next
finish:
    load32 a10, TPB_EXTINST_DONE
    s32i a10, a2, DONE_AT
    memw
    halt 0
