# Q7 kernel for the windows scenario: one store in the translated aperture.
# Every core stores to the same address W1; each core's own window (its
# requester number) sends it to a different SoC address; a core without a
# window faults (EXCVADDR = W1). W1 is the parameter (.equ; cosim/src/firmware/
# q7_windows, or a file's set); TPB_RESET_JUMP as q7_halt.S.
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .include "q7_reset.S"
main:
    load32 a4, W1
    movi a5, 1
    s32i a5, a4, 0
    memw
    halt 0
