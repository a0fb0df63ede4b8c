# The NCFW wait primitives (DIGEST §7, seed 003 §9.1): ten memw-fenced
# spin-polls on the CSR a10 points at, each spinning back to its own memw
# until its condition holds, then retw.n. The seeds count ten, in two
# register banks, and name the branches they spin with: bne, bltu, bgeu.
# Bank A loads the CSR into a2 and compares it (v) with the target in a3
# (t); bank B loads into a5 and compares with a4. Per bank, one primitive
# for each branch in each operand order it can take:
#   wait_eq_*   bne  v, t   spins while v != t   returns when v == t
#   wait_ge_*   bltu v, t   spins while v <  t   returns when v >= t
#   wait_le_*   bltu t, v   spins while t <  v   returns when v <= t
#   wait_gt_*   bgeu t, v   spins while t >= v   returns when v >  t
#   wait_lt_*   bgeu v, t   spins while v >= t   returns when v <  t
# wait_gt_a is the seeds' WAIT-GE (@0x3498: memw; l32i.n a2,a10,0;
# bgeu a3,a2; retw.n), a wait for v >= wait_val with t = wait_val - 1.
# Windowed as the seeds' are (entry a1, 32 .. retw.n) and called with call4:
# the caller's a6 holds the CSR address and its a7 (bank A) or a8 (bank B)
# the target; each primitive first moves the address to its own a10 (the
# seeds' argument prologue). A call takes the caller's a4..a9 and a14.
# The pairing of branches with operand orders, the names and the calling
# convention are [D]: the seeds give the count, the banks and the branches.
    .align 4
wait_eq_a:
    entry a1, 32
    or a10, a2, a2
wait_eq_a_poll:
    memw
    l32i.n a2, a10, 0
    bne a2, a3, wait_eq_a_poll
    retw.n
    .align 4
wait_ge_a:
    entry a1, 32
    or a10, a2, a2
wait_ge_a_poll:
    memw
    l32i.n a2, a10, 0
    bltu a2, a3, wait_ge_a_poll
    retw.n
    .align 4
wait_le_a:
    entry a1, 32
    or a10, a2, a2
wait_le_a_poll:
    memw
    l32i.n a2, a10, 0
    bltu a3, a2, wait_le_a_poll
    retw.n
    .align 4
wait_gt_a:
    entry a1, 32
    or a10, a2, a2
wait_gt_a_poll:
    memw
    l32i.n a2, a10, 0
    bgeu a3, a2, wait_gt_a_poll
    retw.n
    .align 4
wait_lt_a:
    entry a1, 32
    or a10, a2, a2
wait_lt_a_poll:
    memw
    l32i.n a2, a10, 0
    bgeu a2, a3, wait_lt_a_poll
    retw.n
    .align 4
wait_eq_b:
    entry a1, 32
    or a10, a2, a2
wait_eq_b_poll:
    memw
    l32i.n a5, a10, 0
    bne a5, a4, wait_eq_b_poll
    retw.n
    .align 4
wait_ge_b:
    entry a1, 32
    or a10, a2, a2
wait_ge_b_poll:
    memw
    l32i.n a5, a10, 0
    bltu a5, a4, wait_ge_b_poll
    retw.n
    .align 4
wait_le_b:
    entry a1, 32
    or a10, a2, a2
wait_le_b_poll:
    memw
    l32i.n a5, a10, 0
    bltu a4, a5, wait_le_b_poll
    retw.n
    .align 4
wait_gt_b:
    entry a1, 32
    or a10, a2, a2
wait_gt_b_poll:
    memw
    l32i.n a5, a10, 0
    bgeu a4, a5, wait_gt_b_poll
    retw.n
    .align 4
wait_lt_b:
    entry a1, 32
    or a10, a2, a2
wait_lt_b_poll:
    memw
    l32i.n a5, a10, 0
    bgeu a5, a4, wait_lt_b_poll
    retw.n
