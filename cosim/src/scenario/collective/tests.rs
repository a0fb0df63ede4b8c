use super::*;

fn tapes_of(alg: Algorithm, n: u32) -> Tapes {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    tapes(alg, n, 40, &TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap()).unwrap()
}

/// Die of a SIGNAL target address.
fn die_of(addr: u64) -> u32 {
    let c = tpb_models::ncfw::mesh::ChipAddr::decode(addr).unwrap();
    u32::from(c.chip_id) * 2 + u32::from(c.die)
}

#[test]
fn the_ring_sends_every_chunk_to_the_next_die_twice_round() {
    for n in [2u32, 3, 4, 16] {
        let t = tapes_of(Algorithm::Ring, n);
        for (d, die) in t.dies.iter().enumerate() {
            let d = d as u32;
            assert_eq!(die.legs.len() as u32, 2 * (n - 1));
            // Reduce-scatter sends each chunk but one once; the all-gather starts with the reduced chunk (d + 1).
            let scatter: std::collections::BTreeSet<u32> = die.legs[..(n - 1) as usize].iter().map(|l| l.0).collect();
            assert_eq!(scatter.len() as u32, n - 1, "n {n} die {d}: {:?}", die.legs);
            assert!(!scatter.contains(&((d + 1) % n)));
            assert_eq!(die.legs[(n - 1) as usize].0, (d + 1) % n);
            // Every SIGNAL goes to die d + 1.
            for e in die.events[..die.body].iter().filter(|e| e.direct_trigger == 1) {
                assert_eq!(die_of(e.direct_trigger_sema[0]), (d + 1) % n);
            }
            assert_eq!(die.body as u32, 4 * (n - 1) + 1);
            assert_eq!(*die.remote_waits.last().unwrap(), (40, 2 * (n - 1)));
        }
    }
}

#[test]
fn the_mesh_signals_every_other_die_in_both_phases() {
    for n in [2u32, 4, 5, 16] {
        let t = tapes_of(Algorithm::Mesh, n);
        for (d, die) in t.dies.iter().enumerate() {
            let mut per_sem: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
            let sem_of = |a: u64| ((a & 0x7ff) >> 2) as u32;
            for e in die.events[..die.body].iter().filter(|e| e.direct_trigger == 1) {
                for &a in e.direct_trigger_sema.iter().filter(|&&a| a != 0) {
                    per_sem.entry(sem_of(a)).or_default().push(die_of(a));
                }
            }
            let others: Vec<u32> = (0..n).filter(|&k| k != d as u32).collect();
            assert_eq!(per_sem.len(), 2, "n {n} die {d}");
            for dies in per_sem.values_mut() {
                dies.sort();
                assert_eq!(*dies, others);
            }
            assert_eq!(die.remote_waits, vec![(40, n - 1), (42, n - 1)]);
        }
    }
}

#[test]
fn the_barrier_reaches_every_die_from_every_die() {
    // Dissemination: after the rounds, die d has (transitively) heard from all.
    for n in [2u32, 3, 4, 7, 8, 16] {
        let t = tapes_of(Algorithm::Barrier, n);
        let rounds = t.sems;
        assert!(1u32 << rounds >= n && 1u32 << (rounds - 1) < n, "n {n}: {rounds} rounds");
        let mut heard: Vec<u64> = (0..n).map(|d| 1u64 << d).collect();
        for r in 0..rounds {
            let before = heard.clone();
            for (d, die) in t.dies.iter().enumerate() {
                let e = die.events[..die.body].iter().filter(|e| e.direct_trigger == 1).nth(r as usize).unwrap();
                heard[die_of(e.direct_trigger_sema[0]) as usize] |= before[d];
            }
        }
        assert!(heard.iter().all(|h| *h == (1u64 << n) - 1), "n {n}: {heard:x?}");
    }
}

/// Leader/reporter: with 4 TOP_SPs a die, instance 0 of each die leads;
/// the others end by SIGNALling its gather semaphore, it ends by
/// waiting for the 3 and posting to its own completion semaphore. The
/// HAL accepts the groups, and refuses one where a second TOP_SP reports
/// or a completion address has other semaphore bits.
#[test]
fn each_die_s_leader_gathers_its_group_and_alone_posts_completion() {
    use tpb_models::hal::collective::check_group;
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let t = tapes(Algorithm::Ring, 8, 40, &TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap().with_top_sps(4)).unwrap();
    let sem_of = |a: u64| ((a & 0x7ff) >> 2) as u32;
    let (gather, compl) = (t.gather_sem, t.compl_sem);
    assert_eq!((gather, compl, t.sems_used()), (42, 43, 4));
    for (d, die) in t.dies.iter().enumerate() {
        let last = die.events.last().unwrap();
        assert_eq!(die.events.len(), die.body + 1);
        assert_eq!(die.leader, d % 4 == 0, "node {d}");
        let target = last.direct_trigger_sema[0];
        // Node d is die d / 4's TOP_SP d % 4: the SIGNAL names die d / 4.
        assert_eq!(die_of(target), d as u32 / 4, "node {d}");
        if die.leader {
            assert_eq!((sem_of(target), last.wait_val, sem_of(last.event_wait_sema)), (compl, 3, gather));
            assert_eq!(*die.remote_waits.last().unwrap(), (gather, 3));
        } else {
            assert_eq!((sem_of(target), last.wait_event), (gather, 0));
        }
    }
    for g in [0, 4] {
        let roles = group_roles(&t, Algorithm::Ring, g + 2);
        assert_eq!(roles.iter().map(|r| r.expected_notif_count()).collect::<Vec<_>>(), vec![1, 0, 0, 0]);
        check_group(&roles).unwrap();
        let mut two = roles.clone();
        two[2].ctrl[0].reporter = true;
        assert!(check_group(&two).unwrap_err().to_string().contains("TOP_SP #2 is not the leader"));
        let mut other = roles.clone();
        other[1].slot = vec![SlotWord::End { compl_addrs: vec![hal.get_trigger_addr(1, compl + 1).unwrap()] }];
        assert!(check_group(&other).unwrap_err().to_string().contains("all must share them"));
    }
}

/// Channel programs: 6 channels dealt to 3 TOP_SPs a die; each entry
/// lists its two channels, the flags chain 0 → 1 → 2, TOP_SP 2 reports;
/// each channel's ring config names this node's receive semaphore and
/// the next die's owner of it (the kangaring's odd channels the die before).
#[test]
fn channel_programs_deal_the_channels_and_chain_the_completion() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let a = TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap().with_top_sps(3);
    let t = channel_programs(Algorithm::Kangaring, 12, 6, 40, &a).unwrap();
    let word = |dram: &[u8], at: u32| u64::from_le_bytes(dram[at as usize..at as usize + 8].try_into().unwrap());
    let sem_of = |x: u64| ((x & 0x7ff) >> 2) as u32;
    for (node, tape) in t.dies.iter().enumerate() {
        let (d, sp) = (node as u32 / 3, node as u32 % 3);
        let r = tape.ring.as_ref().unwrap();
        assert_eq!(r.channels, vec![sp, sp + 3]);
        assert_eq!(r.entries[0].target, CcOpTarget::ChannelList(1 << sp | 1 << (sp + 3)));
        assert_eq!((r.entries[0].ring_send_complete, r.entries[0].ring_wait_complete, r.entries[0].reporter), (sp < 2, sp > 0, sp == 2), "node {node}");
        assert_eq!(tape.leader, sp == 2);
        assert_eq!(r.steps, 6);
        for &c in &r.channels {
            let at = firmware::ALGO_CONFIGS + firmware::RING_CHANNEL_BYTES * c;
            assert_eq!(word(&r.dram, at), 0x1234);
            assert_eq!(sem_of(word(&r.dram, at + 0x18)), 40 + c);
            let next = word(&r.dram, at + 0x20);
            let want = if c % 2 == 1 { (d + 3) % 4 } else { (d + 1) % 4 };
            assert_eq!((die_of(next), sem_of(next)), (want, 40 + c), "node {node} channel {c}");
        }
        assert_eq!(tape.legs.len(), 12, "two channels, 6 steps");
    }
    let e = channel_programs(Algorithm::Ring, 6, 2, 40, &a).unwrap_err().to_string();
    assert!(e.contains("at least one a TOP_SP"), "{e}");
    let e = channel_programs(Algorithm::Ring, 6, 33, 40, &a).unwrap_err().to_string();
    assert!(e.contains("1 to 32"), "{e}");
    let e = channel_programs(Algorithm::Mesh, 6, 3, 40, &a).unwrap_err().to_string();
    assert!(e.contains("channel programs are the ring"), "{e}");
    let e = tapes(Algorithm::Kangaring, 4, 40, &a).unwrap_err().to_string();
    assert!(e.contains("channel program"), "{e}");
}

/// The hierarchical program of every TOP_SP: three entries, HIER with
/// the leg as sub-type, chained by trigger_next; the last carries the
/// completion chain; legs 0 and 2 ring over the die, leg 1 over the dies.
#[test]
fn hierarchical_programs_chain_an_intra_an_inter_and_an_intra_leg() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let a = TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap().with_top_sps(4);
    let t = hierarchical_programs(12, 40, &a).unwrap();
    let word = |dram: &[u8], at: u32| u64::from_le_bytes(dram[at as usize..at as usize + 8].try_into().unwrap());
    let sem_of = |x: u64| ((x & 0x7ff) >> 2) as u32;
    for (node, tape) in t.dies.iter().enumerate() {
        let (d, sp) = (node as u32 / 4, node as u32 % 4);
        let r = tape.ring.as_ref().unwrap();
        let shape: Vec<_> = r.entries.iter().map(|e| (e.algo_type, e.algo_sub_type, e.trigger_next, e.reporter)).collect();
        assert_eq!(shape, vec![(AlgType::Hier, 0, true, false), (AlgType::Hier, 1, true, false), (AlgType::Hier, 2, false, sp == 3)], "node {node}");
        assert_eq!((r.entries[2].ring_send_complete, r.entries[2].ring_wait_complete), (sp < 3, sp > 0));
        assert_eq!(r.legs, 3);
        for (l, (die, to)) in [(0u32, (d, (sp + 1) % 4)), (1, ((d + 1) % 3, sp)), (2, (d, (sp + 1) % 4))] {
            let next = word(&r.dram, firmware::ALGO_CONFIGS + firmware::RING_CONFIGS_BYTES * l + 0x20);
            assert_eq!(die_of(next), die, "node {node} leg {l}");
            assert_eq!(sem_of(next), 40 + l);
            assert_eq!(a.inc(node as u32, die * 4 + to, 40 + l).unwrap(), next, "node {node} leg {l}: to TOP_SP {to} of die {die}");
        }
        assert_eq!(tape.legs.len(), 3 + 4 + 3);
    }
    let one = TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap();
    assert!(hierarchical_programs(4, 40, &one).unwrap_err().to_string().contains("top_sps of 2 or more"));
}

#[test]
fn one_die_is_no_collective_and_too_many_legs_do_not_fit() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let e = tapes(Algorithm::Ring, 1, 40, &TapeAddrs::new(&hal, 0, Addressing::ChipId).unwrap()).unwrap_err();
    assert!(e.to_string().contains("at least 2 dies"), "{e}");
    // A ring on 16 dies fits the SEQ DMA SRAM at 2 words a chunk, not at 16.
    let a = TapeAddrs::new(&hal, 0, Addressing::ChipId).unwrap();
    let t = tapes(Algorithm::Ring, 16, 40, &a).unwrap();
    assert!(payload::Layout::of(&t.dies, 2).is_ok());
    let e = payload::Layout::of(&t.dies, 16).unwrap_err();
    assert!(e.to_string().contains("SEQ DMA SRAM"), "{e}");
}

/// What a node is owed comes from the collective's definition: every
/// node's input for an all-reduce, its instance's for a channel ring
/// (channel c belongs to instance c mod k), nothing for the barrier.
#[test]
fn what_a_node_is_owed_is_the_definitions() {
    use payload::owed;
    assert_eq!(owed(Algorithm::Ring, 0, 4, 1, 2), (4, vec![0, 1, 2, 3]));
    assert_eq!(owed(Algorithm::Mesh, 0, 3, 1, 0), (3, vec![0, 1, 2]));
    assert_eq!(owed(Algorithm::Hierarchical, 0, 8, 4, 5), (8, (0..8).collect()));
    assert_eq!(owed(Algorithm::Hierarchical, 3, 8, 4, 5), (8, (0..8).collect()), "channels do not change the hierarchical's");
    // 4 dies of 2 TOP_SPs, 4 channels: instance 1 owns channels 1 and 3.
    assert_eq!(owed(Algorithm::Kangaring, 4, 8, 2, 3), (8, vec![1, 3, 5, 7]));
    // 3 channels on 2 TOP_SPs: instance 0 owns 0 and 2, instance 1 owns 1.
    assert_eq!(owed(Algorithm::Ring, 3, 4, 2, 0), (4, vec![0, 2]));
    assert_eq!(owed(Algorithm::Ring, 3, 4, 2, 1), (2, vec![1, 3]));
    assert_eq!(owed(Algorithm::Barrier, 0, 4, 1, 0), (0, vec![]));
}

/// A wrong sum names the node whose input is missing or doubled, or the
/// die all of whose TOP_SPs' inputs are.
#[test]
fn a_wrong_sum_names_the_node_or_the_die_it_lacks() {
    use payload::{diagnose, input, reference, Inputs};
    let of: Vec<u32> = (0..8).collect();
    let name = |p: u32| crate::mesh::node_name(p as usize, 4);
    let inputs = &Inputs::default();
    let want = reference(inputs, &of, 2, 0);
    assert_eq!(diagnose(inputs, &of, 2, 0, want.wrapping_sub(input(5, 2, 0)), 4, name), " (die 1 TOP_SP 1's chunk 2 missing)");
    assert_eq!(diagnose(inputs, &of, 2, 0, want.wrapping_add(input(0, 2, 0)), 4, name), " (die 0 TOP_SP 0's chunk 2 counted twice)");
    let die1: u32 = (4..8).map(|p| input(p, 2, 0)).fold(0, u32::wrapping_add);
    assert_eq!(diagnose(inputs, &of, 2, 0, want.wrapping_sub(die1), 4, name), " (die 1's chunk 2 missing, from all 4 of its TOP_SPs)");
    assert_eq!(diagnose(inputs, &of, 2, 0, want ^ 1, 4, name), "", "a wrong word that is no node's input says nothing");
}
