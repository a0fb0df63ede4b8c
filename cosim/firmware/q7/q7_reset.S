# Q7 core start-up: a unit includes it after tpb.inc and defines `main`
# right after. The reset vector (core address 0) jumps to TPB_RESET_JUMP,
# the generation's Q7 reset jump target (DIGEST §1), where `main` starts.
    .org 0
    j main
    .org TPB_RESET_JUMP
