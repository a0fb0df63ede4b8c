//! A collective on N dies: the mesh built, the programs loaded, run, and
//! every check of the run ([`Ran::check`]).

use super::*;

/// A collective that ran, for its checks ([`Ran::check`]).
pub struct Ran {
    pub mesh: Mesh,
    pub tapes: Tapes,
    pub cfg: CollectiveCfg,
    /// The payload's layout, for an algorithm that reduces real data.
    pay: Option<payload::Layout>,
    /// The cycle the TOP_SPs were released.
    start: u64,
    /// Every TOP_SP halted within `limit` cycles.
    halted: bool,
    limit: u64,
    /// Wall seconds from the release until every TOP_SP halted.
    pub run_seconds: f64,
    /// The file's own checks, resolved.
    expects: Vec<expect::Expect>,
    /// Every node's input vector, which the sums are checked against.
    inputs: payload::Inputs,
}

/// Run `cfg` on `n` dies of `arch` and check it; with `trace`, die k writes `die_path(trace, k)`.
pub fn collective(arch: Arch, cfg: &CollectiveCfg, n: usize, limit: u64, trace: Option<&Path>) -> Result<(Report, Mesh), ScenarioError> {
    collective_counted(arch, cfg, n, limit, trace, &mut Stats::default())
}

/// As [`collective`], with what the dies counted left in `counted` also when a check fails.
pub fn collective_counted(arch: Arch, cfg: &CollectiveCfg, n: usize, limit: u64, trace: Option<&Path>, counted: &mut Stats) -> Result<(Report, Mesh), ScenarioError> {
    let mut ran = run(arch, cfg, n, limit, trace)?;
    let r = ran.check();
    *counted = ran.mesh.stats();
    if trace.is_some() {
        ran.mesh.trace_close()?;
    }
    let mut r = r?;
    r.points.push(format!("collective.{}.{n}", cfg.algorithm.name()));
    Ok((r, ran.mesh))
}

/// The NCFW context log of the stepper `id` of `c`, decoded from its DRAM
/// (`tpb_models::ncfw::log`), with the cc_op entry the host wrote into the
/// TOP_SP's CTRL SPAD (read back over BAR0 it would add cycles to the run).
pub fn ncfw_log(c: &Cosim, id: CoreId, events: u32) -> tpb_models::ncfw::log::CtxLog {
    let layout = tpb_models::ncfw::log::CtxLayout { algo_configs: firmware::ALGO_CONFIGS, algo_ctx: firmware::ALGO_CTX, log: firmware::NCFW_LOG, events };
    let end = firmware::ALGO_CTX.max(firmware::NCFW_LOG + 16 * events).max(firmware::ALGO_CONFIGS + tpb_models::ncfw::mesh::ALGO_CONFIGS_MESH_OFFSET + 80 * events) + 0x400;
    let dram: Vec<u8> = (0..end / 4).flat_map(|w| c.local_dram(id, 4 * w).unwrap_or(0).to_le_bytes()).collect();
    let ctrl = pack_ctrl(&[mesh_entry()]).unwrap_or_default();
    tpb_models::ncfw::log::decode(&dram, &layout, &ctrl[..ctrl.len().min(8)])
}

/// Why SUNDA's NCFW core does not step tapes here: the seeds give its
/// firmware no algorithm table to dispatch through, only a monolithic body
/// this model does not have.
pub const SUNDA_NCFW: &str = "SUNDA's NCFW has no DRAM+0xB0 algorithm table (seed 000 §4d: \"no DRAM+0xB0 algo dispatch table (the +0xB0 region holds descriptor data, not IRAM code addresses)\"); its one monolithic body of 23 functions with 4 inlined spin-polls, 4 soc_addr CSRs and 11 descriptors (seed 003 §9.1, seed 000 §4d) is not modelled: step SUNDA's tapes on the TOP_SP (stepper = \"top_sp\")";

/// Set up `n` dies, load every TOP_SP's tape, release them and run until
/// they all halt or `limit` cycles pass.
pub fn run(arch: Arch, cfg: &CollectiveCfg, n: usize, limit: u64, trace: Option<&Path>) -> Result<Ran, ScenarioError> {
    run_edited(arch, cfg, n, limit, trace, &|_| {})
}

/// As [`run`], with the programs changed by `edit` after they are planned
/// (a test's wrong schedule: the checks must catch it).
pub fn run_edited(arch: Arch, cfg: &CollectiveCfg, n: usize, limit: u64, trace: Option<&Path>, edit: &dyn Fn(&mut Tapes)) -> Result<Ran, ScenarioError> {
    run_planned(arch, cfg, n, limit, trace, &|n, a| {
        let mut t = plan(cfg, n, a)?;
        edit(&mut t);
        Ok(t)
    })
}

/// The programs of `cfg` on `n` nodes (every TOP_SP of every die).
pub fn plan(cfg: &CollectiveCfg, n: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    if let Some(d) = &cfg.tapes {
        return data::lower(d, n, cfg.first_sem, a);
    }
    if let Some(p) = &cfg.programs {
        return program_data::lower(p, n, cfg.first_sem, a);
    }
    match (cfg.algorithm, cfg.channels) {
        (Algorithm::AllReduce, _) => Err(ScenarioError::File(data::NO_PLANNER.into())),
        (Algorithm::Hierarchical, _) => hierarchical_programs(n, cfg.first_sem, a),
        (alg, 0) => tapes(alg, n, cfg.first_sem, a),
        (alg, ch) => channel_programs(alg, n, ch, cfg.first_sem, a),
    }
}

/// As [`run`], with the programs from `planner` (given the nodes and the
/// addresses) instead of [`plan`]: a test's wrong planner, which the
/// checks must catch.
pub fn run_planned(
    arch: Arch,
    cfg: &CollectiveCfg,
    n: usize,
    limit: u64,
    trace: Option<&Path>,
    planner: &dyn Fn(u32, &TapeAddrs) -> Result<Tapes, ScenarioError>,
) -> Result<Ran, ScenarioError> {
    // The NCFW's tape stepper dispatches through its algorithm table first,
    // which SUNDA's firmware does not have (a channel program does not use it).
    if arch == Arch::Sunda && cfg.stepper == Stepper::Ncfw && cfg.programs.is_none() && cfg.channels == 0 && cfg.algorithm != Algorithm::Hierarchical {
        return Err(ScenarioError::NotApplicable { scenario: "a tape on the NCFW core (stepper = \"ncfw\")", arch: arch.name(), why: SUNDA_NCFW });
    }
    let mut mesh = Mesh::with_top_sps(arch, n, cfg.top_sps, cfg.link_latency)?;
    mesh.skip_quiet = cfg.skip_quiet;
    // The tapes' participants: every TOP_SP of every die.
    let n = mesh.dies.len();
    if let Some(p) = trace {
        mesh.trace(p)?;
    }
    let hal = Hal::for_arch(arch)?;
    let addrs = TapeAddrs::new(&hal, emit::dma_tail(mesh.dies[0].map())?, cfg.addressing)?.with_top_sps(cfg.top_sps as u32);
    let t = planner(n as u32, &addrs)?;
    if t.dies.len() != n {
        return Err(ScenarioError::File(format!("the plan has {} programs for {n} TOP_SPs ({} dies of {})", t.dies.len(), n / cfg.top_sps.max(1), cfg.top_sps.max(1))));
    }
    if cfg.first_sem + t.sems_used() > 256 {
        return Err(ScenarioError::File(format!("[collective] first_sem = {}: {} on {n} dies uses {} semaphores, past 255", cfg.first_sem, cfg.algorithm.name(), t.sems_used())));
    }
    // The HAL holds every group's program to the leader/reporter rules.
    for g in (0..n as u32).step_by(cfg.top_sps.max(1)) {
        tpb_models::hal::collective::check_group(&group_roles(&t, cfg.algorithm, g))?;
    }
    let expects = expect::resolve(cfg, mesh.dies[0].map(), n)?;
    let pay = if t.dies.iter().any(|d| !d.moves.is_empty()) { Some(payload::Layout::of(&t.dies, cfg.words)?) } else { None };
    let inputs = payload::Inputs::new(&cfg.input, cfg.words);
    inputs.check(n as u32, |p| t.dies[p as usize].units)?;
    let done_sem = hal.get_trigger_addr(0, t.done_sem)? as u32;
    for (d, c) in mesh.dies.iter_mut().enumerate() {
        if cfg.addressing == Addressing::Neighbor {
            c.decoder = crate::sched::SocDecoder::Neighbor;
        }
        let tape = &t.dies[d];
        // The SEQ is not in the collective (only its DMA is): its firmware
        // halts itself after boot, so a die whose tape is done goes quiet.
        let mut scfg = StpbConfig::new(
            UcodeImages { iram: firmware::nx_halt(c.map(), false)?.bytes, dram: vec![0; 16] },
            UcodeImages { iram: firmware::q7_sum(&c.map().clone())?.bytes, dram: vec![1, 0, 0, 0] },
        );
        scfg.pooling.dma = Some(DmaConfig { rx: RingConfig { base: 0, length: 0 }, tx: RingConfig { base: 0, length: pay.map_or(0, |p| p.descs) }, mem_window2: 0 });
        Hal::with_map(c.map().clone()).stpb_init(c, &scfg, None)?;
        let base = region(c, "seq.dma")?;
        if let Some(p) = pay {
            c.write_buf(base, &words(&p.image(d as u32, tape, &inputs, done_sem, base as u32, &addrs)?))?;
        }
        // The tape's event count is the stepper's EVENTS bound; a channel
        // program reads its cc_op entry from the CTRL SPAD.
        let events = tape.events.len() as u32;
        let (prog, dram) = match (&tape.ring, cfg.stepper) {
            (Some(r), s) => {
                let spad = region(c, "top_sp.ctrl_spad")?;
                c.write_buf(spad, &pack_ctrl(&r.entries)?)?;
                (firmware::ring_channels(c.map(), 1, s == Stepper::TopSp)?, tape.dram())
            }
            (None, Stepper::TopSp) => (firmware::mesh_tape(c.map(), events, 1, cfg.wait)?, tape.dram()),
            (None, Stepper::Ncfw) => {
                // The NCFW firmware dispatches on the cc_op entry's algo_type first.
                let spad = region(c, "top_sp.ctrl_spad")?;
                c.write_buf(spad, &pack_ctrl(&[mesh_entry()])?)?;
                let p = firmware::ncfw_tape(c.map(), events, 1)?;
                let dram = firmware::with_ncfw_algo_table(&p, tape.dram())?;
                (p, dram)
            }
        };
        c.load_local(cfg.stepper.core(), &prog.bytes, &dram)?;
    }
    let release = Addrs::new(mesh.dies[0].map(), "collective").reg(Engine::TopSp, "nx", "release_run_stall")?;
    for c in &mut mesh.dies {
        c.write32(release.into(), 0)?;
    }
    let start = mesh.dies.iter().map(|c| c.stats.cycles).max().unwrap_or(0);
    let t0 = std::time::Instant::now();
    let stepper = cfg.stepper.core();
    // Done: every stepper halted (mesh_tape.S) or idle in WAITI (ncfw_tape.S,
    // or a sleeping WAIT), its top calm long enough that no DMA leg, doorbell
    // or interrupt is under way (a stepper sleeps while its legs run).
    let halted = mesh.run_until_all(limit, |c| c.core(stepper).idle() && c.calm_cycles() >= crate::sched::QUIET_CYCLES);
    let run_seconds = t0.elapsed().as_secs_f64();
    Ok(Ran { mesh, tapes: t, cfg: cfg.clone(), pay, start, halted, limit, run_seconds, expects, inputs })
}

impl Ran {
    /// The checks of the module table, on what the dies logged and hold now.
    pub fn check(&mut self) -> Result<Report, ScenarioError> {
        let Ran { mesh, tapes: t, cfg, pay, start, halted: done, limit, expects, inputs, .. } = self;
        let pay = *pay;
        let (n, start, done, limit, k_per_die) = (mesh.dies.len(), *start, *done, *limit, mesh.top_sps);
        let mut r = Report::default();
        let stepper = cfg.stepper.core();
        let ctx = |c: &Cosim, off: u32| c.local_dram(stepper, firmware::ALGO_CTX + off).unwrap_or(0);
        let map0 = mesh.dies[0].map().clone();
        let a = Addrs::new(&map0, "collective");
        for (d, c) in mesh.dies.iter().enumerate() {
            let idx = ctx(c, tpb_models::ncfw::mesh::algo_ctx::MESH_EVENT_INDEX) & 0xffff;
            let len = t.dies[d].events.len() as u32;
            r.check(
                c.stats.cycles,
                (done || c.core(stepper).idle()) && idx == len && ctx(c, firmware::TAPE_DONE_AT) == firmware::TAPE_DONE,
                format!("{}: tape completed within {limit} cycles (event_index {idx} of {len}, marker {:#x})", mesh.node_name(d), ctx(c, firmware::TAPE_DONE_AT)),
            )?;
            if cfg.stepper == Stepper::Ncfw {
                r.logs.push((format!("{}'s NCFW context log", mesh.node_name(d)), ncfw_log(c, stepper, t.dies[d].events.len() as u32).render()));
                // Each event went to its type's handler (past the algorithm
                // table at DRAM 0xb0); the barrier handlers' snapshots move
                // forward; the core idles in WAITI.
                let log = |i: u32, w: u32| c.local_dram(stepper, firmware::NCFW_LOG + 16 * i + 4 * w).unwrap_or(0);
                let mut last = 0u64;
                for (i, e) in t.dies[d].events.iter().enumerate() {
                    let (want, got) = (firmware::NCFW_HANDLERS.get(usize::from(e.event_type)).copied().unwrap_or(0xee), log(i as u32, 0));
                    r.check(c.stats.cycles, got == want, format!("{}: event {i} (type {}) ran handler {got}, its type's is {want}", mesh.node_name(d), e.event_type))?;
                    if want == 2 {
                        let ts = u64::from(log(i as u32, 1)) | u64::from(log(i as u32, 2)) << 32;
                        r.check(c.stats.cycles, ts > last, format!("{}: event {i}'s timestamp snapshot {ts} after the last one's {last}", mesh.node_name(d)))?;
                        last = ts;
                    }
                }
                r.check(
                    c.stats.cycles,
                    c.core(stepper).last == Some(tpb_models::xtensa::core::Step::Waiting),
                    format!("{}: the NCFW core idles in WAITI (its last step: {})", mesh.node_name(d), c.core(stepper).last.map_or_else(|| "none".to_string(), |s| s.to_string())),
                )?;
            }
        }
        // Every WAIT on a semaphore other dies SIGNAL passed only after the
        // SIGNAL that brought it to its count had landed on this die.
        let mut final_pass = vec![0u64; n];
        let mut round0 = vec![u64::MAX; n];
        let round0_inc = a.sem(Engine::TopSp, WindowOp::Inc, cfg.first_sem)?;
        for (d, c) in mesh.dies.iter().enumerate() {
            for &(sem, count) in &t.dies[d].remote_waits {
                let (inc, read) = (a.sem(Engine::TopSp, WindowOp::Inc, sem)?, a.sem(Engine::TopSp, WindowOp::Read, sem)?);
                let landed = c.log.iter().filter(|x| matches!(x.master, Master::Remote { .. }) && x.write && x.addr == inc).nth(count as usize - 1).copied();
                let pass = first(c, |x| x.master == Master::Core(stepper) && !x.write && x.addr == read && x.data >= count);
                r.check(
                    c.stats.cycles,
                    matches!((landed, pass), (Some(l), Some(p)) if l.cycle < p.cycle),
                    format!(
                        "{}: SIGNAL {count} of semaphore {sem} landed ({}) before the WAIT for {count} passed ({})",
                        mesh.node_name(d),
                        at_cycle(landed.map(|x| x.cycle)),
                        at_cycle(pass.map(|x| x.cycle))
                    ),
                )?;
                if let Some(p) = pass {
                    final_pass[d] = final_pass[d].max(p.cycle);
                }
            }
            round0[d] = first(c, |x| matches!(x.master, Master::Remote { .. }) && x.write && x.addr == round0_inc).map_or(u64::MAX, |x| x.cycle);
            r.value(format!("die{d}.done"), final_pass[d]);
        }
        if cfg.algorithm == Algorithm::Barrier {
            // No die leaves before every die's round-0 SIGNAL has landed.
            let (last_arrival, first_exit) = (*round0.iter().max().unwrap_or(&0), *final_pass.iter().min().unwrap_or(&0));
            r.check(last_arrival, last_arrival < first_exit, format!("every die's arrival landed (last at {last_arrival}) before any die left (first at {first_exit})"))?;
            r.events.push((last_arrival, "last arrival lands".into()));
            r.events.push((first_exit, "first die leaves".into()));
        }
        let compl_inc = a.sem(Engine::TopSp, WindowOp::Inc, t.compl_sem)?;
        let mut completions = 0u64;
        for (d, c) in mesh.dies.iter_mut().enumerate() {
            for &(sem, want) in &t.dies[d].final_counts {
                let want = &want;
                let v = c.read_checked(a.sem(Engine::TopSp, WindowOp::Read, sem)?.into(), u32::MAX)?;
                r.check(c.stats.cycles, v == *want, format!("{}: semaphore {sem} = {v}, expected {want}", crate::mesh::node_name(d, k_per_die)))?;
            }
            // Leader/reporter: the group's completion is posted once, by its
            // leader's own stepper, after every WAIT of its tape (the
            // gather of its group's SIGNALs too) passed; the others post none.
            let tape = &t.dies[d];
            let want = group_roles(t, cfg.algorithm, d as u32)[d % k_per_die].expected_notif_count();
            let posts: Vec<Txn> = c.log.iter().filter(|x| x.write && x.addr == compl_inc).copied().collect();
            let own = posts.iter().filter(|x| x.master == Master::Core(stepper)).count() as u32;
            let node = crate::mesh::node_name(d, k_per_die);
            r.check(
                c.stats.cycles,
                posts.len() as u32 == want && own == want,
                format!(
                    "{node}: {} completion posts ({own} by its own stepper), the HAL expects {want} ({})",
                    posts.len(),
                    if tape.leader { "the group's leader" } else { "not the leader" }
                ),
            )?;
            if let Some(p) = posts.first() {
                r.check(p.cycle, p.cycle > final_pass[d], format!("{node}: completion posted at {} after its last WAIT passed at {}", p.cycle, final_pass[d]))?;
                r.events.push((p.cycle, format!("{node} posts completion")));
                completions += 1;
            }
            // A channel program's scoreboard (ring ctx): every owned
            // channel saw its last chunk, sent and fired a leg each step, done.
            if let Some(rp) = &tape.ring {
                let run_state = ctx(c, tpb_models::ncfw::mesh::algo_ctx::HIER_RUN_STATE) & 0xff;
                r.check(c.stats.cycles, run_state == rp.legs + 1, format!("{node}: run_state {run_state} after its {} legs, expected {}", rp.legs, rp.legs + 1))?;
                for &ch in &rp.channels {
                    let at = firmware::ALGO_CTX + firmware::RING_CTX_BYTES * ch;
                    let sb = [
                        ctx(c, at - firmware::ALGO_CTX),
                        ctx(c, at + 4 - firmware::ALGO_CTX),
                        ctx(c, at + 8 - firmware::ALGO_CTX) & 0xffff,
                        ctx(c, at + 12 - firmware::ALGO_CTX) & 0xff,
                    ];
                    r.check(
                        c.stats.cycles,
                        sb == [rp.steps, rp.steps, rp.steps, 3],
                        format!("{node}: channel {ch}'s scoreboard recv_cnt/send_credit/m2s_val/run_state = {sb:?}, expected [{0}, {0}, {0}, 3]", rp.steps),
                    )?;
                }
            }
            check_vector(&mut r, c, cfg, (pay, inputs), tape, (n, k_per_die, d))?;
        }
        expect::check(&mut r, mesh, expects)?;
        let end = final_pass.iter().copied().max().unwrap_or(0);
        r.value("completions", completions);
        r.value("dies", (n / k_per_die) as u64);
        r.value("top_sps", k_per_die as u64);
        r.value("start", start);
        r.value("collective_cycles", end.saturating_sub(start));
        r.value("remote_transactions", mesh.remote);
        r.value("dma_soc_writes", mesh.dies.iter().map(|c| c.soc.writes).sum::<u64>());
        r.value("dma_soc_errors", mesh.dies.iter().map(|c| c.soc.errors).sum::<u64>());
        r.value("link_latency", mesh.latency);
        r.value("skipped_die_cycles", mesh.stats().skipped);
        r.crossings = mesh.crossings.clone();
        r.stats = mesh.stats();
        r.events.sort();
        Ok(r)
    }
}

/// Every chunk node `d` (of `n`, `k` a die) is owed holds the sum of its
/// group's inputs: both from the collective's definition
/// ([`owed`]), not from the plan; and the plan laid out as many.
fn check_vector(
    r: &mut Report,
    c: &mut Cosim,
    cfg: &CollectiveCfg,
    (pay, inputs): (Option<payload::Layout>, &payload::Inputs),
    tape: &DieTape,
    (n, k, d): (usize, usize, usize),
) -> Result<(), ScenarioError> {
    let node = crate::mesh::node_name(d, k);
    let (units, of) = payload::owed(cfg.algorithm, cfg.channels, n as u32, k as u32, d as u32);
    if let Some(p) = pay {
        let base = region(c, "seq.dma")?;
        for ch in 0..units.min(tape.units) {
            for wd in 0..cfg.words {
                let got = c.read32(base + u64::from(p.acc(ch) + 4 * wd))?;
                let want = payload::reference(inputs, &of, ch, wd);
                let why = payload::diagnose(inputs, &of, ch, wd, got, k as u32, |x| crate::mesh::node_name(x as usize, k));
                r.check(c.stats.cycles, got == want, format!("{node}: chunk {ch} word {wd} = {got:#x}, the sum of the {} inputs is {want:#x}{why}", of.len()))?;
            }
        }
    }
    let laid = if pay.is_some() { tape.units } else { 0 };
    if laid > 0 || units > 0 {
        r.check(c.stats.cycles, laid == units, format!("{node}: its plan lays out {laid} chunks; an all-reduce by the {} owes it {units}, each the sum of {} inputs", cfg.algorithm.name(), of.len()))?;
    }
    Ok(())
}

/// The CTRL SPAD cc_op entry of a mesh tape: active, algo_type MESH, the
/// SIGNAL value 1, every semaphore bit unmasked.
pub fn mesh_entry() -> tpb_models::ncfw::spad::SpadCtrlEntry {
    tpb_models::ncfw::spad::SpadCtrlEntry::mesh(0xffff)
}
