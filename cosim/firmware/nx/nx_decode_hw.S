# The CAYMAN/MARIANA front end of nx_dispatch.S (DIGEST §4): two fetch/decode
# paths side by side, chosen by the boot flag (DRAM +0, [D] bits):
#   bit 0 clear: the HW-decode FIFO path. The header goes to the HW-decode
#         port (HWD_PORT: the top's CAM lookup); the FIFO head says hit or
#         miss; a hit pops the handler word (the table's IRAM address) and
#         calls it. A miss goes to
#           bit 1 clear: the software fetch ("Sunda-mode", below);
#           bit 1 set:   the unknown-opcode interrupt: the CAM's miss sets
#                        intr_info bit 1, the level-1 handler counts the
#                        instruction as unknown, the loop waits for it.
#   bit 0 set: "Sunda-mode" only: every instruction by the software fetch,
#         the CAM is not asked.
# The software fetch normalises the opcode with addi -65 (the 0x41 base) and
# bounds it with movi 177 (178 entries), then calls the entry of the table
# at DRAM +0x800 (178 IRAM addresses, 0 = no handler: unknown).
#
# Constants (.equ): HWD_PORT, INTR_CTRL, INTR_INFO (the POOL NX bundle's,
# through the system window), SW_TABLE (the table's DRAM address),
# OPCODE_BASE (0x41) and SW_LAST (177: the table's last entry; DIGEST §4),
# and the path numbers PATH_HW, PATH_SW, PATH_SW_UNKNOWN, PATH_IRQ.
decode_setup:
    load32 a6, HWD_PORT
    bbci a3, 1, fetch           # misses fall back to the software fetch
    load32 a7, INTR_INFO
    movi a8, -1
    s32i a8, a7, 0              # clear what an earlier run left (w1c)
    memw
    movi a8, 1
    wsr.intenable a8            # interrupt line 0
    load32 a7, INTR_CTRL
    s32i a8, a7, 0              # intr_ctrl.enable = 1
    memw
    movi a8, 0x20
    wsr.ps a8                   # PS.UM = 1, EXCM = 0, INTLEVEL = 0
    rsync
    movi a10, 0                 # miss interrupts expected
    j fetch

decode:
    bbsi a3, 0, sunda_fetch     # Sunda-mode: the CAM is not asked
    s32i a5, a6, 0              # look the header up (waits until the CAM takes it)
hw_wait:
    l32i a8, a6, 4              # the FIFO head: [0] valid, [1] hit
    bbci a8, 0, hw_wait
    l32i a9, a6, 8              # its handler word; pops it
    bbci a8, 1, hw_miss
    movi a14, PATH_HW
    callx0 a9
    j next
hw_miss:
    bbci a3, 1, sunda_fetch     # the software fallback
    addi a10, a10, 1            # the unknown-opcode interrupt takes it:
irq_wait:
    l32i a8, a2, MISS_IRQS      # wait for the handler
    bne a8, a10, irq_wait
    j next

sunda_fetch:
    extui a7, a5, 0, 8          # opcode
    addi a7, a7, -OPCODE_BASE   # normalise: addi -65, the 0x41 base
    movi a8, SW_LAST            # movi 177: 178 entries
    bltu a8, a7, sw_unknown
    load32 a9, SW_TABLE
    addx4 a9, a7, a9
    l32i a9, a9, 0
    beqz a9, sw_unknown
    movi a14, PATH_SW
    callx0 a9
    j next
sw_unknown:
    movi a14, PATH_SW_UNKNOWN
    movi a12, UNKNOWN
    call0 count
    j next

# What the handler uses, each in its word at DRAM + SAVED: `op` s32i saves
# them, l32i restores them.
.macro handler_regs op
    \op a0, a2, SAVED
    \op a7, a2, SAVED + 4
    \op a11, a2, SAVED + 8
    \op a12, a2, SAVED + 12
    \op a13, a2, SAVED + 16
    \op a14, a2, SAVED + 20
.endm

# The level-1 handler: a CAM miss (intr_info bit 1) is an unknown opcode,
# the instruction the loop looked up (a5, operand a15). It saves what it
# uses, clears what it read and returns with RFE.
irq:
    handler_regs s32i
    load32 a11, INTR_INFO
    l32i a12, a11, 0
    memw
    s32i a12, a11, 0            # clear them (w1c)
    memw
    bbci a12, 1, irq_done       # not a CAM miss
    movi a14, PATH_IRQ
    movi a12, UNKNOWN
    call0 count
    l32i a12, a2, MISS_IRQS
    addi a12, a12, 1
    s32i a12, a2, MISS_IRQS     # miss interrupts taken
    memw
irq_done:
    handler_regs l32i
    rfe
