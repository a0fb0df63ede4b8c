    .equ N, 4
    .ifdef N
    .endif
    movi a2, N
    .include "self.S"
