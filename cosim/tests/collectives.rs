//! The collectives on N dies (`allreduce-ring`, `allreduce-mesh`,
//! `barrier-global`): every die's TOP_SP runs its event tape under
//! Verilator, the SIGNALs cross dies by chip id and die bit with a link
//! latency, and the scenario's checks pass; tampering with what a run left
//! makes them fail, naming the die.

use tpb_cosim::scenario::collective::{self, Addressing, Algorithm, CollectiveCfg};
use tpb_cosim::scenario::ScenarioFile;
use tpb_cosim::sched::{CoreId, Cosim, Master, Requester};
use tpb_models::hal::Mmio;
use tpb_models::regmap::Arch;

fn cfg(name: &str) -> (CollectiveCfg, u64) {
    let f = ScenarioFile::find(name).unwrap();
    (f.collective.clone().unwrap(), f.cycles)
}

/// Requests that crossed between dies other than the SEQ DMA's SoC writes (the SIGNALs).
fn signals(r: &tpb_cosim::scenario::Report, m: &tpb_cosim::mesh::Mesh) -> u64 {
    m.remote - r.get("dma_soc_writes")
}

/// SIGNALs that cross between dies, from the algorithm's definition.
fn crossings(alg: Algorithm, n: u64) -> u64 {
    match alg {
        Algorithm::Ring | Algorithm::Kangaring | Algorithm::Hierarchical => n * 2 * (n - 1),
        Algorithm::Mesh => 2 * n * (n - 1),
        Algorithm::Barrier => n * u64::from(u64::BITS - (n - 1).leading_zeros()),
        // The example's recursive doubling (testbench/examples/collectives/): a SIGNAL a die a round.
        Algorithm::AllReduce => n * u64::from(n.ilog2()),
    }
}

#[test]
fn every_collective_completes_on_2_4_8_and_16_cayman_dies() {
    for name in ["barrier-global", "allreduce-mesh", "allreduce-ring"] {
        let (c, limit) = cfg(name);
        for n in [2usize, 4, 8, 16] {
            let (r, m) = collective::collective(Arch::Cayman, &c, n, limit, None).unwrap_or_else(|e| panic!("{name} on {n} dies: {e}"));
            assert_eq!(signals(&r, &m), crossings(c.algorithm, n as u64), "{name} on {n} dies");
            assert_eq!(r.get("dies"), n as u64);
            assert_eq!(r.get("completions"), n as u64, "{name} on {n} dies: each die's one TOP_SP leads itself");
            println!("{name:>15} {n:>2} dies: {:>4} checks, {:>5} cycles from the release, {:>4} crossings", r.checks.len(), r.get("collective_cycles"), m.remote);
        }
    }
}

/// Every collective on MARIANA, and on SUNDA by chip id over its `[D]`
/// sp_base table and die bit, with the same crossings as CAYMAN; `mesh`
/// (the peer die through sp_base\[8\]) does not apply to SUNDA's 6 TOP_SPs.
#[test]
fn the_collectives_run_on_mariana_and_sunda() {
    for name in ["barrier-global", "allreduce-mesh", "allreduce-ring", "allreduce-kangaring", "allreduce-hier"] {
        let (c, limit) = cfg(name);
        for arch in [Arch::Mariana, Arch::Sunda] {
            let (r, m) = collective::collective(arch, &c, 4, limit, None).unwrap_or_else(|e| panic!("{name} on {arch:?}: {e}"));
            assert_eq!(r.get("dies"), 4, "{name} on {arch:?}");
            if c.channels == 0 && c.algorithm != Algorithm::Hierarchical {
                assert_eq!(signals(&r, &m), crossings(c.algorithm, 4), "{name} on {arch:?}");
            }
        }
    }
    let m = ScenarioFile::find("mesh").unwrap();
    let e = tpb_cosim::scenario::mesh::mesh(Arch::Sunda, m.mesh.as_ref().unwrap(), m.cycles, None).err().unwrap().to_string();
    assert!(e.contains("sp_base[8]") && e.contains("6 TOP_SPs"), "{e}");
}

/// Each crossing takes the link latency: the ring's two steps on two dies
/// wait for two SIGNALs in a row, so 64 cycles each way cost at least 128.
#[test]
fn the_link_latency_delays_every_crossing() {
    let (mut c, limit) = cfg("allreduce-ring");
    let mut took = Vec::new();
    for l in [0u64, 64] {
        c.link_latency = l;
        let (r, _) = collective::collective(Arch::Cayman, &c, 2, limit, None).unwrap();
        took.push(r.get("collective_cycles"));
    }
    assert!(took[1] >= took[0] + 2 * 64, "{took:?}");
}

#[test]
fn a_signal_that_lands_after_its_wait_or_a_wrong_word_fails_the_checks() {
    let (c, limit) = cfg("allreduce-ring");
    let mut ran = collective::run(Arch::Cayman, &c, 4, limit, None).unwrap();
    ran.check().unwrap();
    // Move die 2's first SIGNAL of the receive semaphore to after everything.
    let inc = ran.mesh.dies[2].log.iter().position(|t| matches!(t.master, Master::Remote { by: Requester::Core(_), .. }) && t.write).unwrap();
    ran.mesh.dies[2].log[inc].cycle = u64::MAX;
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("die 2: SIGNAL 1 of semaphore 40 landed"), "{e}");
    // A fresh run, then one word of die 1's sum changed behind the DMA's
    // back: die 2's contribution to chunk 3 counted twice.
    let mut ran = collective::run(Arch::Cayman, &c, 4, limit, None).unwrap();
    let dma = u64::from(tpb_cosim::firmware::bar0_region(ran.mesh.dies[1].map(), "seq.dma").unwrap());
    let at = dma + 16 * 9 + 4 * 2 * 3; // the ring (9 descriptors), chunk 3 of the vector
    let w = ran.mesh.dies[1].read32(at).unwrap();
    assert_eq!(w, collective::reference(&collective::Inputs::default(), &[0, 1, 2, 3], 3, 0));
    ran.mesh.dies[1].write32(at, w.wrapping_add(collective::input(2, 3, 0))).unwrap();
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("die 1: chunk 3 word 0 = ") && e.contains("(die 2's chunk 3 counted twice)"), "{e}");
}

/// The ring and the mesh reduce real data: every die's vector ends as the
/// sum of every die's input (checked against a sum of the inputs, not the
/// tapes), the legs' words crossing as the SEQ DMA's SoC writes.
#[test]
fn the_all_reduces_sum_every_dies_vector_on_2_to_16_dies() {
    for (name, alg) in [("allreduce-ring", Algorithm::Ring), ("allreduce-mesh", Algorithm::Mesh)] {
        let (c, limit) = cfg(name);
        for n in [2u64, 3, 16] {
            let (r, _) = collective::collective(Arch::Cayman, &c, n as usize, limit, None).unwrap_or_else(|e| panic!("{name} on {n} dies: {e}"));
            // Chunks sent: per die, the ring one per step of 2(N - 1), the mesh N - 1 in each phase.
            let sends = n * 2 * (n - 1);
            assert_eq!(r.values["dma_soc_writes"], sends * u64::from(c.words), "{name} ({alg:?}) on {n} dies");
            assert_eq!(r.values["dma_soc_errors"], 0);
            println!("{name} on {n} dies: {} cycles, {} SoC writes", r.values["collective_cycles"], r.values["dma_soc_writes"]);
        }
    }
    // The channel programs: the kangaring's rings both ways round, the
    // hierarchical's three legs (parts within a die, chunks across dies).
    let (kanga, limit) = cfg("allreduce-kangaring");
    let kanga = CollectiveCfg { channels: 2, words: 1, ..kanga };
    let hier = CollectiveCfg { top_sps: 2, ..cfg("allreduce-hier").0 };
    for c in [kanga, hier] {
        for n in [3usize, 16] {
            let (r, _) = collective::collective(Arch::Cayman, &c, n, limit, None).unwrap_or_else(|e| panic!("{:?} on {n} dies: {e}", c.algorithm));
            let sums = r.checks.iter().filter(|x| x.contains("inputs is")).count();
            assert!(sums >= n * c.top_sps * n, "{:?} on {n} dies: {sums} sums checked", c.algorithm);
            assert_eq!(r.values["dma_soc_errors"], 0);
            println!("{:?} on {n} dies: {} cycles, {} SoC writes, {sums} sums", c.algorithm, r.values["collective_cycles"], r.values["dma_soc_writes"]);
        }
    }
}

/// A wrong schedule fails: die 0's first send lands in the wrong staging
/// slot, so die 1 adds an empty one, and die 0's input to that chunk is
/// missing from every die's sum, named by the check.
#[test]
fn a_dropped_chunk_fails_naming_it() {
    use collective::{Into, Move};
    let (c, limit) = cfg("allreduce-ring");
    let mut ran = collective::run_edited(Arch::Cayman, &c, 4, limit, None, &|t| {
        let m = &mut t.dies[0].moves[0].0;
        assert!(matches!(*m, Move::Send { chunk: 0, into: Into::Stage(0), .. }), "{m:?}");
        if let Move::Send { into, .. } = m {
            *into = Into::Stage(2);
        }
    })
    .unwrap();
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("chunk 0 word 0 = ") && e.contains("(die 0's chunk 0 missing)"), "{e}");
    // The hierarchical's: TOP_SP 0 of die 0 sends its part 0 (chunks 0 and 1
    // of 2 dies) to TOP_SP 1 as the intra-die reduce-scatter's first move;
    // sent into part 1's slots instead, TOP_SP 1 adds empty slots to part 0
    // and TOP_SP 0's chunk 0 is missing from every sum.
    let (c, limit) = cfg("allreduce-hier");
    let c = CollectiveCfg { top_sps: 2, ..c };
    let mut ran = collective::run_edited(Arch::Cayman, &c, 2, limit, None, &|t| {
        let m = &mut t.dies[0].moves[1].0;
        assert!(matches!(*m, Move::Send { chunk: 0, to: 1, into: Into::Stage(0), span: 2 }), "{m:?}");
        if let Move::Send { into, .. } = m {
            *into = Into::Stage(2);
        }
    })
    .unwrap();
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("chunk 0 word 0 = ") && e.contains("(die 0 TOP_SP 0's chunk 0 missing)"), "{e}");
}

/// A planner that leaves the last die out of the reduction, and says so
/// consistently (its programs, vectors, semaphores and completions planned
/// for the dies it kept; on the left-out die, instance 0 leads and posts
/// its group's completion, the other TOP_SPs idle), fails the checks of
/// every all-reduce it plans: what each node is owed comes from the
/// collective's definition, not from the plan.
#[test]
fn a_planner_that_leaves_a_die_out_fails_every_all_reduce() {
    // (scenario, TOP_SPs a die, channels, what die 0's first chunk says).
    let cases = [
        ("allreduce-ring", 1, 0, "(die 3's chunk 0 missing)"),
        ("allreduce-mesh", 1, 0, "(die 3's chunk 0 missing)"),
        ("allreduce-ring", 2, 2, "(die 3 TOP_SP 0's chunk 0 missing)"),
        ("allreduce-kangaring", 2, 4, "(die 3 TOP_SP 0's chunk 0 missing)"),
        ("allreduce-hier", 2, 0, "(die 3's chunk 0 missing, from all 2 of its TOP_SPs)"),
    ];
    for (name, k, channels, says) in cases {
        let (c, limit) = cfg(name);
        let c = CollectiveCfg { top_sps: k, channels, ..c };
        let mut ran = collective::run_planned(Arch::Cayman, &c, 4, limit, None, &|n, a| leave_the_last_die_out(&c, n, a)).unwrap();
        let e = ran.check().unwrap_err().to_string();
        assert!(e.contains("die 0") && e.contains("chunk 0 word 0 = ") && e.contains(says), "{name}, {k} TOP_SPs a die, {channels} channels: {e}");
    }
}

/// The plan of `c` over every die but the last; the last die's TOP_SPs
/// idle, but its instance 0 leads and posts the group's completion as any
/// leader's tape ends (one SYNC event SIGNALing its own completion semaphore).
fn leave_the_last_die_out(c: &CollectiveCfg, n: u32, a: &collective::TapeAddrs) -> Result<collective::Tapes, tpb_cosim::scenario::ScenarioError> {
    use collective::DieTape;
    use tpb_models::ncfw::mesh::{MeshEvent, MeshEventType};
    let k = c.top_sps as u32;
    let mut t = collective::plan(c, n - k, a)?;
    for node in n - k..n {
        let mut idle = DieTape { leader: node == n - k, ..DieTape::default() };
        if idle.leader {
            let compl = a.inc(node, node, t.compl_sem)?;
            let mut e = MeshEvent { event_type: MeshEventType::EVT_SYNC.0, direct_trigger: 1, ..MeshEvent::default() };
            e.direct_trigger_sema[0] = compl;
            (idle.events, idle.compl_addr, idle.final_counts) = (vec![e], Some(compl), vec![(t.compl_sem, 1)]);
        }
        t.dies.push(idle);
    }
    Ok(t)
}

/// Leader/reporter tampered with: a completion the leader did not post, or
/// one a non-leader posted, fails the checks naming the TOP_SP.
#[test]
fn a_missing_or_second_completion_fails_the_checks() {
    let (c, limit) = cfg("allreduce-ring");
    let c = CollectiveCfg { top_sps: 2, ..c };
    let mut ran = collective::run(Arch::Cayman, &c, 2, limit, None).unwrap();
    ran.check().unwrap();
    let compl = ran.tapes.compl_sem;
    let a = tpb_cosim::firmware::Addrs::new(ran.mesh.dies[0].map(), "t").sem(tpb_models::regmap::Engine::TopSp, tpb_models::regmap::WindowOp::Inc, compl).unwrap();
    let post = ran.mesh.dies[2].log.iter().position(|t| t.write && t.addr == a).expect("die 1's leader posted");
    let mut moved = ran.mesh.dies[2].log[post];
    ran.mesh.dies[2].log[post].addr ^= 0x100;
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("die 1 TOP_SP 0: 0 completion posts (0 by its own stepper), the HAL expects 1 (the group's leader)"), "{e}");
    ran.mesh.dies[2].log[post].addr = a;
    moved.master = Master::Core(CoreId::TopSp);
    ran.mesh.dies[3].log.push_back(moved);
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("die 1 TOP_SP 1: 1 completion posts (1 by its own stepper), the HAL expects 0 (not the leader)"), "{e}");
}

/// The ring and the kangaring as channel programs (`ring_channels.S`):
/// each TOP_SP steps the channels its CTRL SPAD cc_op entry lists, on the
/// TOP_SP core or the NCFW core, on 2, 4 and 8 dies. Every channel step is
/// a SIGNAL to the next die's owner of the channel (backward for the
/// kangaring's odd channels), and each die's TOP_SPs hand completion up by
/// index (send/wait complete) before the last reports.
#[test]
fn channel_programs_run_the_ring_and_the_kangaring_from_channel_list() {
    use tpb_cosim::scenario::collective::Stepper;
    let (kanga, limit) = cfg("allreduce-kangaring");
    let ring = CollectiveCfg { algorithm: Algorithm::Ring, stepper: Stepper::TopSp, top_sps: 2, channels: 4, ..cfg("allreduce-ring").0 };
    for c in [ring, kanga] {
        let k = c.top_sps as u32;
        for n in [2u32, 4, 8] {
            let (r, m) = collective::collective(Arch::Cayman, &c, n as usize, limit, None).unwrap_or_else(|e| panic!("{:?} on {n} dies: {e}", c.algorithm));
            let steps = 2 * (n - 1);
            assert_eq!(signals(&r, &m), u64::from(n * c.channels * steps + n * (k - 1)), "{:?} on {n} dies", c.algorithm);
            // Each channel step sends one chunk of `words` words to the next die's owner.
            assert_eq!(r.get("dma_soc_writes"), u64::from(n * c.channels * steps * c.words));
            assert_eq!(r.get("completions"), u64::from(n), "one a die");
            assert_eq!(r.checks.iter().filter(|x| x.contains("scoreboard")).count() as u32, n * c.channels, "a scoreboard check a channel");
            // Every node's chunks (its channels' n each) are sums of the n dies' inputs.
            assert_eq!(r.checks.iter().filter(|x| x.contains(&format!("the sum of the {n} inputs"))).count() as u32, n * c.channels * n * c.words);
            // The channel ring's direction, seen on the link: from node d·k + sp to (d ± 1)·k + sp.
            let core = |x: &&tpb_cosim::mesh::Crossing| matches!(x.by, Requester::Core(_));
            let back = m.crossings.iter().filter(core).filter(|x| x.from % k == x.to % k && x.to / k == (x.from / k + n - 1) % n && x.from / k != x.to / k).count();
            if c.algorithm == Algorithm::Kangaring && n > 2 {
                assert_eq!(back as u32, n * (c.channels / 2) * steps, "the odd channels run backward");
            }
            if c.algorithm == Algorithm::Ring && n > 2 {
                assert_eq!(back, 0);
            }
            println!("{:>9} {n} dies x {k} TOP_SPs, {} channels: {:>4} checks, {:>5} cycles", c.algorithm.name(), c.channels, r.checks.len(), r.get("collective_cycles"));
        }
    }
}

/// The hierarchical all-reduce on 2, 4 and 8 dies of 4 TOP_SPs: three
/// chained CTRL SPAD entries a TOP_SP, run in order (run_state ends at 4);
/// the intra-die legs SIGNAL only TOP_SPs of the same die, the inter-die leg
/// only the next die's TOP_SP of the same instance.
#[test]
fn the_hierarchical_all_reduce_chains_three_ring_legs() {
    let (c, limit) = cfg("allreduce-hier");
    let k = c.top_sps as u32;
    for n in [2u32, 4, 8] {
        let (r, m) = collective::collective(Arch::Cayman, &c, n as usize, limit, None).unwrap_or_else(|e| panic!("hierarchical on {n} dies: {e}"));
        let (intra, inter) = (2 * (k - 1) * k * n, 2 * (n - 1) * k * n);
        assert_eq!(signals(&r, &m), u64::from(intra + inter + n * (k - 1)), "{n} dies: the two intra legs, the inter leg, the completion chain");
        // The intra legs move a part of n chunks a step, the inter leg one chunk.
        assert_eq!(r.get("dma_soc_writes"), u64::from((intra * n + inter) * c.words));
        assert_eq!(r.checks.iter().filter(|x| x.contains(&format!("the sum of the {} inputs", n * k))).count() as u32, n * k * k * n * c.words);
        let core = |x: &&tpb_cosim::mesh::Crossing| matches!(x.by, Requester::Core(_));
        let on_die = m.crossings.iter().filter(core).filter(|x| x.from / k == x.to / k).count() as u32;
        let across = m.crossings.iter().filter(core).filter(|x| x.from / k != x.to / k).collect::<Vec<_>>();
        assert_eq!(on_die, intra + n * (k - 1));
        assert!(across.iter().all(|x| x.from % k == x.to % k && x.to / k == (x.from / k + 1) % n), "{n} dies");
        assert_eq!(r.checks.iter().filter(|x| x.contains("run_state 4 after its 3 legs")).count() as u32, n * k);
        assert_eq!(r.get("completions"), u64::from(n));
        println!("hierarchical {n} dies x {k} TOP_SPs: {:>4} checks, {:>5} cycles", r.checks.len(), r.get("collective_cycles"));
    }
}

/// A channel program's scoreboard or its completion chain tampered with
/// fails the checks, naming the TOP_SP and the channel.
#[test]
fn a_wrong_scoreboard_or_a_broken_completion_chain_fails_the_checks() {
    use tpb_cosim::firmware;
    let (c, limit) = cfg("allreduce-kangaring");
    let mut ran = collective::run(Arch::Cayman, &c, 2, limit, None).unwrap();
    ran.check().unwrap();
    // Node 1 (die 0 TOP_SP 1) owns channels 1 and 3: channel 3's run_state.
    ran.mesh.dies[1].set_local_dram(CoreId::Ncfw, firmware::ALGO_CTX + firmware::RING_CTX_BYTES * 3 + 12, 2).unwrap();
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("die 0 TOP_SP 1: channel 3's scoreboard"), "{e}");
    ran.mesh.dies[1].set_local_dram(CoreId::Ncfw, firmware::ALGO_CTX + firmware::RING_CTX_BYTES * 3 + 12, 3).unwrap();
    ran.check().unwrap();
    ran.mesh.dies[1].set_local_dram(CoreId::Ncfw, firmware::ALGO_CTX + 0x200, 1).unwrap();
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("die 0 TOP_SP 1: run_state 1 after its 1 legs, expected 2"), "{e}");
    // TOP_SP 1 of die 1 waited for its complete_prev: move that SIGNAL past its WAIT.
    let mut ran = collective::run(Arch::Cayman, &c, 2, limit, None).unwrap();
    let prev = ran.tapes.gather_sem;
    let inc = tpb_cosim::firmware::Addrs::new(ran.mesh.dies[0].map(), "t").sem(tpb_models::regmap::Engine::TopSp, tpb_models::regmap::WindowOp::Inc, prev).unwrap();
    let at = ran.mesh.dies[3].log.iter().position(|t| t.write && t.addr == inc).expect("TOP_SP 0 sent complete");
    ran.mesh.dies[3].log[at].cycle = u64::MAX;
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains(&format!("die 1 TOP_SP 1: SIGNAL 1 of semaphore {prev} landed")), "{e}");
}

#[test]
fn a_tape_that_cannot_finish_fails_naming_the_die() {
    let (mut c, _) = cfg("barrier-global");
    c.link_latency = 5000;
    let e = collective::collective(Arch::Cayman, &c, 2, 2000, None).err().unwrap().to_string();
    assert!(e.contains("die 0: tape completed within 2000 cycles"), "{e}");
}

#[test]
fn dies_are_counted_where_the_scenario_allows_them() {
    let f = ScenarioFile::find("allreduce-ring").unwrap();
    let s = f.scenario().unwrap();
    assert_eq!(s.dies(None).unwrap(), 4);
    assert_eq!(s.dies(Some(16)).unwrap(), 16);
    assert!(s.dies(Some(1)).unwrap_err().to_string().contains("2 to 128 dies"));
    let m = ScenarioFile::find("mesh").unwrap();
    assert!(m.scenario().unwrap().dies(Some(4)).unwrap_err().to_string().contains("two dies"));
    let b = ScenarioFile::find("bringup").unwrap();
    assert!(b.scenario().unwrap().dies(Some(2)).unwrap_err().to_string().contains("one die"));
    // The ring's legs must fit the SEQ DMA SRAM.
    let (c, limit) = cfg("allreduce-ring");
    let e = collective::collective(Arch::Cayman, &CollectiveCfg { words: 16, ..c }, 16, limit, None).err().unwrap().to_string();
    assert!(e.contains("SEQ DMA SRAM"), "{e}");
}

/// The neighbour decoder reads bits 53:48 as routing flags relative to the
/// die that sends; the chip-id decoder reads the same bits as a chip id: one
/// address, two dies (DIGEST §7's GOTCHA), so a die uses one or the other.
#[test]
fn the_two_decoders_read_the_same_bits_two_ways() {
    use tpb_cosim::sched::{Cosim, SocDecoder};
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let hal = tpb_models::hal::Hal::for_arch(Arch::Cayman).unwrap();
    let local = hal.get_trigger_addr(0, 40).unwrap();
    let (valid, route, exit_die, exit_seng) = (1u64 << 54, 1u64 << 52, 1u64 << 51, 1u64 << 50);
    c.die = 5;
    c.dies = 8;
    // Chip id: 0b011100 = chip 28, die 0 → die 56, whoever asks.
    let a = local | valid | route | exit_die | exit_seng;
    assert_eq!(c.soc_die(a).unwrap(), 56);
    // Without the valid bit the address stays on this chip (chip 2: dies 4, 5).
    assert_eq!(c.soc_die(local).unwrap(), 4);
    assert_eq!(c.soc_die(local | 1 << 47).unwrap(), 5);
    c.decoder = SocDecoder::Neighbor;
    // From die 5 (chip 2, die 1): EXIT_SENG + EXIT_DIE = chip 3's die 0 = die 6.
    assert_eq!(c.soc_die(a).unwrap(), 6);
    assert_eq!(c.soc_die(local | valid | route | exit_die).unwrap(), 4);
    assert_eq!(c.soc_die(local | valid | route | exit_seng).unwrap(), 7);
    c.die = 7; // the last package wraps to the first
    assert_eq!(c.soc_die(a).unwrap(), 0);
    assert_eq!(c.soc_die(local | 1 << 47).unwrap(), 7);
    for (bad, why) in [
        (local | valid | exit_die, "only with NEIGHBOR_ROUTE"),
        (local | valid | route | 1 << 47, "bit 47 must be clear"),
        (local | 1 << 48, "only with ID_VALID"),
        (local | valid | route | 1 << 53, "only bits 52:50"),
    ] {
        let e = c.soc_die(bad).unwrap_err().to_string();
        assert!(e.contains(why), "{bad:#x}: {e}");
    }
}

#[test]
fn the_ring_runs_on_neighbour_routes_too() {
    let (mut c, limit) = cfg("allreduce-ring");
    c.addressing = Addressing::Neighbor;
    for n in [2usize, 4, 8, 16] {
        let (r, m) = collective::collective(Arch::Cayman, &c, n, limit, None).unwrap_or_else(|e| panic!("{n} dies: {e}"));
        assert_eq!(signals(&r, &m), crossings(Algorithm::Ring, n as u64));
        // Every SIGNAL went to the next die.
        assert!(m.crossings.iter().all(|x| x.to == (x.from + 1) % n as u32), "{n} dies");
        println!("neighbour ring on {n} dies: {} checks, {} cycles", r.checks.len(), r.get("collective_cycles"));
    }
    for (alg, n, why) in [(Algorithm::Ring, 3, "even number of dies"), (Algorithm::Mesh, 4, "reaches only the next die"), (Algorithm::Barrier, 4, "reaches only the next die")] {
        let e = collective::collective(Arch::Cayman, &CollectiveCfg { algorithm: alg, ..c.clone() }, n, limit, None).err().unwrap().to_string();
        assert!(e.contains(why), "{e}");
    }
}

/// Every TOP_SP of a die takes part (`[collective] top_sps`): each is a TPB
/// top of its own at its `sp_base` entry, so CAYMAN's two dies hold its 16
/// TOP_SPs; a SIGNAL to another TOP_SP of the same die goes through the
/// SoC port as one to another die does.
#[test]
fn all_sixteen_top_sps_of_two_cayman_dies_run_each_collective() {
    for name in ["barrier-global", "allreduce-mesh", "allreduce-ring"] {
        let (c, limit) = cfg(name);
        let c = CollectiveCfg { top_sps: 8, ..c };
        let (r, m) = collective::collective(Arch::Cayman, &c, 2, limit, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((m.dies.len(), r.get("dies"), r.get("top_sps")), (16, 2, 8), "{name}");
        // The algorithm's SIGNALs, and each die's 7 TOP_SPs but the leader telling it they are done.
        assert_eq!(signals(&r, &m), crossings(c.algorithm, 16) + 2 * 7, "{name}");
        assert_eq!(r.get("completions"), 2, "{name}: one per die, by its leader");
        let same_die = m.crossings.iter().filter(|x| x.from / 8 == x.to / 8).count();
        assert!(same_die > 0 && same_die < m.crossings.len(), "{name}: {same_die} of {} crossings stay on their die", m.crossings.len());
        println!("{name:>15} 2 dies x 8 TOP_SPs: {:>4} checks, {:>5} cycles, {} crossings ({same_die} on one die)", r.checks.len(), r.get("collective_cycles"), m.remote);
    }
}

/// The global barrier on 16 CAYMAN dies with all 8 TOP_SPs each: 128 tops.
#[test]
fn a_global_barrier_reaches_all_128_top_sps_of_16_dies() {
    let (c, limit) = cfg("barrier-global");
    let (r, m) = collective::collective(Arch::Cayman, &CollectiveCfg { top_sps: 8, ..c }, 16, limit, None).unwrap();
    assert_eq!(m.dies.len(), 128);
    assert_eq!(signals(&r, &m), crossings(Algorithm::Barrier, 128) + 16 * 7);
    assert_eq!(r.get("completions"), 16);
    println!("barrier on 16 dies x 8 TOP_SPs: {} checks, {} cycles", r.checks.len(), r.get("collective_cycles"));
}

#[test]
fn more_top_sps_than_a_die_has_or_neighbour_routes_between_them_are_refused() {
    let (c, limit) = cfg("allreduce-ring");
    let e = collective::collective(Arch::Cayman, &CollectiveCfg { top_sps: 9, ..c.clone() }, 2, limit, None).err().unwrap().to_string();
    assert!(e.contains("9 TOP_SPs per die") && e.contains("1 to 8 per die"), "{e}");
    let e = collective::collective(Arch::Cayman, &CollectiveCfg { top_sps: 2, addressing: Addressing::Neighbor, ..c }, 2, limit, None).err().unwrap().to_string();
    assert!(e.contains("a neighbour route names a die, not a TOP_SP"), "{e}");
}

/// The NCFW management core steps the tapes (`[collective] stepper =
/// "ncfw"`, `ncfw_tape.S`): every event goes through the table at 0xb0 to
/// its type's handler, the barrier handlers snapshot the timestamp, the
/// core idles in WAITI; a log record that names another handler fails the
/// checks, naming the die and the event.
#[test]
fn the_ncfw_core_steps_every_collective_through_its_dispatch_spine() {
    use tpb_cosim::scenario::collective::Stepper;
    for name in ["barrier-global", "allreduce-mesh", "allreduce-ring"] {
        let (c, limit) = cfg(name);
        let c = CollectiveCfg { stepper: Stepper::Ncfw, ..c };
        for n in [2usize, 8] {
            let (r, m) = collective::collective(Arch::Cayman, &c, n, limit, None).unwrap_or_else(|e| panic!("{name} on {n} dies: {e}"));
            assert_eq!(signals(&r, &m), crossings(c.algorithm, n as u64), "{name} on {n} dies");
            assert!(r.checks.iter().filter(|x| x.contains("ran handler")).count() >= n, "{name}: {:?}", r.checks);
        }
    }
    let (c, limit) = cfg("allreduce-ring");
    let mut ran = collective::run(Arch::Cayman, &CollectiveCfg { stepper: Stepper::Ncfw, ..c }, 4, limit, None).unwrap();
    ran.check().unwrap();
    ran.mesh.dies[1].set_local_dram(CoreId::Ncfw, tpb_cosim::firmware::NCFW_LOG + 16 * 2, 9).unwrap();
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("die 1: event 2 (type") && e.contains("ran handler 9"), "{e}");
}

/// The NCFW firmware dispatches on the algorithm first (seed 003 §9.3):
/// the algo_type of the TOP_SP's first CTRL SPAD cc_op entry indexes the
/// 12-entry table in its DRAM at 0xb0. A mesh algo_type runs the tape; a
/// ring one, which this firmware does not step, stops with ALGO_BAD and
/// the algo_type, having stepped no event.
#[test]
fn the_ncfw_core_dispatches_on_the_cc_op_entrys_algo_type() {
    use tpb_cosim::firmware;
    use tpb_cosim::scenario::collective::mesh_entry;
    use tpb_models::ncfw::spad::{pack_ctrl, AlgType, CcOpTarget, SpadCtrlEntry};
    let run = |entry: SpadCtrlEntry| {
        let mut c = Cosim::new(Arch::Cayman).unwrap();
        let p = c.map().params.clone();
        c.write_buf(p.bar0.tpb_base + p.bar0.top_sp_ctrl_spad, &pack_ctrl(&[entry]).unwrap()).unwrap();
        let prog = firmware::ncfw_tape(c.map(), 0, 1).unwrap();
        c.load_local(CoreId::Ncfw, &prog.bytes, &firmware::with_ncfw_algo_table(&prog, vec![0; 0x100]).unwrap()).unwrap();
        c.run_until(20_000, |c| c.core(CoreId::Ncfw).idle());
        let ctx = |off: u32| c.local_dram(CoreId::Ncfw, firmware::ALGO_CTX + off).unwrap();
        (ctx(0x208), ctx(0x20c))
    };
    assert_eq!(run(mesh_entry()).0, firmware::TAPE_DONE, "MESH: the (empty) tape is done");
    let lat = SpadCtrlEntry { algo_type: AlgType::LatencyOptMesh, ..mesh_entry() };
    assert_eq!(run(lat).0, firmware::TAPE_DONE, "LATENCY_OPT_MESH drives the tape too");
    let ring = SpadCtrlEntry { algo_type: AlgType::Ring, target: CcOpTarget::ChannelList(1), ..mesh_entry() };
    assert_eq!(run(ring), (firmware::ALGO_BAD, AlgType::Ring as u32));
}

/// A send to a die the mesh does not have is answered with an error: die
/// 1's engine sets error.soc, its leg never completes, and the ring stalls
/// behind it: the checks fail on the first die whose tape did not finish.
#[test]
fn a_send_to_a_missing_die_sets_the_soc_error_and_fails_naming_the_die() {
    use collective::Move;
    let (c, _) = cfg("allreduce-ring");
    let mut ran = collective::run_edited(Arch::Cayman, &c, 4, 20_000, None, &|t| {
        if let Move::Send { to, .. } = &mut t.dies[1].moves[0].0 {
            *to = 9;
        }
    })
    .unwrap();
    assert!(ran.mesh.dies[1].soc.errors > 0, "die 1's SoC write was not answered with an error");
    let dma = u64::from(tpb_cosim::firmware::bar0_region(ran.mesh.dies[1].map(), "seq.dma").unwrap());
    let err = ran.mesh.dies[1].read32(dma + u64::from(tpb_models::golden::seq_dma::ERROR)).unwrap();
    assert_ne!(err & tpb_models::golden::seq_dma::ERR_SOC, 0, "error = {err:#x}");
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("tape completed within 20000 cycles"), "{e}");
}

/// SUNDA's NCFW is refused as a stepper, with the seed line: the seeds give
/// its firmware no algorithm table (seed 000 §4d), only a monolithic body.
/// On CAYMAN and MARIANA the table at DRAM +0xb0 lies below algo_configs,
/// clear of the ring configs' region.
#[test]
fn sunda_s_ncfw_is_refused_and_the_algorithm_table_clears_algo_configs() {
    use tpb_cosim::firmware::{self, NCFW_ALGO_TABLE};
    use tpb_cosim::scenario::collective::Stepper;
    let (c, limit) = cfg("allreduce-ring");
    let e = collective::collective(Arch::Sunda, &CollectiveCfg { stepper: Stepper::Ncfw, ..c }, 2, limit, None).err().unwrap().to_string();
    assert!(e.contains("SUNDA's NCFW has no DRAM+0xB0 algorithm table (seed 000 §4d"), "{e}");
    let table_end = NCFW_ALGO_TABLE + 4 * tpb_models::ncfw::spad::AlgType::ALL.len() as u32;
    assert!(table_end <= firmware::ALGO_CONFIGS, "the table {NCFW_ALGO_TABLE:#x}..{table_end:#x} ends before algo_configs at {:#x}", firmware::ALGO_CONFIGS);
}
