# The DMA leg's doorbell, shared by the NCFW steppers (mesh_tape.S,
# ncfw_tape.S, ring_channels.S), appended after each: call0 fire with a6 =
# this TPB's BAR0 address of a tail-pointer register (0: none) and a9 = 1;
# the store goes through the system window, memw-fenced. Takes a7.
    .align 4
fire:
    beqz a6, fire_ret
    const16 a7, SYSTEM_WINDOW_HI
    const16 a7, 0
    add a6, a6, a7
    memw
    s32i a9, a6, 0
    memw
fire_ret:
    ret
