//! Every generation's TPB top (rust-hdl) against its golden model
//! (`tpb_models::golden::top`): random BAR0 traffic over every block, the
//! Q7 cores' memory ports, halted pins and HW-decode lookups, compared
//! every cycle (all outputs, every read). Fixed seeds; on a mismatch the
//! test names the cycle, the stimulus and both output sets.

use tpb_hdl::top::{simulator, TopSim};
use tpb_models::csr::{Req, Rsp};
use tpb_models::golden::top::{MemBits, Outputs, TopModel};
use tpb_models::regmap::{builtin, Arch, Engine};
use tpb_testbench::traffic::{Cycle, Traffic};

/// Drive `cycles` into RTL and model after a reset; the first divergence as an error.
/// How much of the design a run reached (so a run that reaches nothing fails).
#[derive(Debug, Default)]
struct Coverage {
    reads: u64,
    errors: u64,
    dma_doorbells: u64,
    sem_changes: u64,
    q7_fetches: u64,
    q7_loads_stores: u64,
    hwd_results: u64,
    /// Records the notification unit posted, cycles with an interrupt line
    /// high, core starts.
    notifications: u64,
    irq_cycles: u64,
    xlat_hits: u64,
    starts: u64,
    /// Cycles the timestamp counter moved, and reads of its latched high word.
    timestamp_moves: u64,
    timestamp_hi_reads: u64,
    /// SEQ DMA SoC writes taken (acknowledged) and answered with an error.
    soc_writes: u64,
    soc_errors: u64,
}

fn lockstep(arch: Arch, fpga: bool, cycles: &[Cycle]) -> Result<Coverage, String> {
    let map = builtin(arch).unwrap();
    let mem = if fpga { MemBits::fpga() } else { MemBits::full(&map.params) };
    let mut rtl: Box<dyn TopSim + Send> = simulator(&map, fpga).map_err(|e| e.to_string())?;
    let mut gold = TopModel::new(&map, mem).unwrap();
    let reset = Cycle { reset: true, req: None, pins: Default::default() };
    let mut cov = Coverage::default();
    let ts_hi_addr = map.params.bar0.tpb_base as u32 + map.params.bar0.tpb_regs.base as u32 + map.block("tpb").and_then(|b| b.register("timestamp_hi")).unwrap().offset;
    for (n, c) in std::iter::once(&reset).chain(cycles).enumerate() {
        rtl.drive(c.reset, c.req, &c.pins);
        let (r, g) = (rtl.outputs(), gold.outputs(c.reset, c.req, &c.pins));
        // Cycle 0 is the first reset: before its edge the RTL's flip-flops are 0.
        if n > 0 && r != g {
            let prev = if n > 1 { format!("{:x?}", cycles[n - 2].req) } else { "-".into() };
            return Err(format!("{arch:?} cycle {n}: reset {} req {:x?} (previous req {prev})\n{}", c.reset, c.req, diff(&r, &g)));
        }
        cov.reads += (g.rsp.valid && !g.rsp.err && g.rsp.rdata != 0) as u64;
        cov.errors += g.rsp.err as u64;
        cov.dma_doorbells += g.dma_db_valid as u64;
        cov.sem_changes += (g.sem_notif_valid != 0) as u64;
        cov.q7_fetches += g.q7.iter().filter(|p| p.if_rvalid && !p.if_err).count() as u64;
        cov.q7_loads_stores += g.q7.iter().filter(|p| p.ls_rvalid && !p.ls_err).count() as u64;
        cov.hwd_results += g.hwd.is_some_and(|h| h.fifo_valid && h.head.hit) as u64;
        cov.irq_cycles += (g.nx_irq != 0 || g.q7_irq != 0) as u64;
        cov.starts += (g.nx_start != 0 || g.q7_start != 0) as u64;
        cov.xlat_hits += g.xlat.hit as u64;
        cov.soc_writes += (g.dma_m.valid && c.pins.dma_m_ack && !c.pins.dma_m_err) as u64;
        cov.soc_errors += (g.dma_m.valid && c.pins.dma_m_ack && c.pins.dma_m_err) as u64;
        let (head, ts) = (g.notific_head, g.timestamp);
        cov.timestamp_hi_reads += c.req.is_some_and(|r| !r.write && r.addr == ts_hi_addr) as u64;
        rtl.tick();
        gold.step(c.reset, c.req, &c.pins);
        let after = gold.outputs(false, None, &c.pins);
        cov.notifications += (after.notific_head != head) as u64;
        cov.timestamp_moves += (after.timestamp != ts) as u64;
    }
    Ok(cov)
}

/// The outputs that differ, one line each.
fn diff(r: &Outputs, g: &Outputs) -> String {
    let mut out = String::new();
    let mut line = |name: &str, a: String, b: String| {
        if a != b {
            out += &format!("  {name}: rtl {a} golden {b}\n");
        }
    };
    line("rsp", format!("{:x?}", r.rsp), format!("{:x?}", g.rsp));
    line("nx_run_stall", format!("{:#x}", r.nx_run_stall), format!("{:#x}", g.nx_run_stall));
    line("q7_run_stall", format!("{:#x}", r.q7_run_stall), format!("{:#x}", g.q7_run_stall));
    line("sem_notif", format!("{:#x}/{}", r.sem_notif_valid, r.sem_notif_index), format!("{:#x}/{}", g.sem_notif_valid, g.sem_notif_index));
    line("dma db_valid/busy", format!("{}/{}", r.dma_db_valid, r.dma_busy), format!("{}/{}", g.dma_db_valid, g.dma_busy));
    line(
        "start nx/addr q7/addr",
        format!("{:#x}/{:#x} {:#x}/{:#x}", r.nx_start, r.nx_start_addr, r.q7_start, r.q7_start_addr),
        format!("{:#x}/{:#x} {:#x}/{:#x}", g.nx_start, g.nx_start_addr, g.q7_start, g.q7_start_addr),
    );
    line("irq nx/q7", format!("{:#x}/{:#x}", r.nx_irq, r.q7_irq), format!("{:#x}/{:#x}", g.nx_irq, g.q7_irq));
    line("notific_head", format!("{}", r.notific_head), format!("{}", g.notific_head));
    line("timestamp", format!("{:#x}", r.timestamp), format!("{:#x}", g.timestamp));
    for n in 0..r.q7.len() {
        line(&format!("q7[{n}]"), format!("{:x?}", r.q7[n]), format!("{:x?}", g.q7[n]));
    }
    line("hwd", format!("{:x?}", r.hwd), format!("{:x?}", g.hwd));
    line("xlat", format!("{:x?}", r.xlat), format!("{:x?}", g.xlat));
    line("pulses", format!("{}/{}", r.host_trigger_pulse, r.stop_pulse), format!("{}/{}", g.host_trigger_pulse, g.stop_pulse));
    out
}

fn random(arch: Arch, fpga: bool, seed: u64, n: usize) {
    let map = builtin(arch).unwrap();
    let mem = if fpga { MemBits::fpga() } else { MemBits::full(&map.params) };
    let mut t = Traffic::new(&map, mem, seed);
    let cycles: Vec<Cycle> = (0..n).map(|_| t.next_cycle()).collect();
    let start = std::time::Instant::now();
    let cov = lockstep(arch, fpga, &cycles).unwrap_or_else(|e| panic!("{e}"));
    let s = start.elapsed().as_secs_f64();
    println!(
        "{arch:?} top ({}): {n} random cycles, 0 mismatches, {:.0} cycles/s in the rust-hdl simulator; {cov:?}",
        if fpga { "FPGA memories" } else { "full memories" },
        n as f64 / s
    );
    assert!(cov.reads > 100 && cov.errors > 100 && cov.dma_doorbells > 0 && cov.sem_changes > 10, "traffic reached too little: {cov:?}");
    assert!(cov.q7_fetches > 100 && cov.q7_loads_stores > 100, "Q7 ports reached too little: {cov:?}");
    assert!(cov.notifications > 10 && cov.irq_cycles > 10 && cov.starts > 0, "halt/start, notifications and interrupts reached too little: {cov:?}");
    assert!(cov.xlat_hits > 10, "address translation hit too little: {cov:?}");
    assert!(cov.soc_writes > 3 && cov.soc_errors > 0, "the SEQ DMA's SoC writes reached too little: {cov:?}");
    assert!(cov.timestamp_moves > 100 && cov.timestamp_hi_reads > 0, "the timestamp moved or was read too little: {cov:?}");
    if map.params.hw_decode.present {
        assert!(cov.hwd_results > 0, "no HW-decode hit: {cov:?}");
    }
}

#[test]
fn sunda_top_matches_its_golden_model() {
    random(Arch::Sunda, false, 0x5, 10_000);
}

#[test]
fn cayman_top_matches_its_golden_model() {
    random(Arch::Cayman, false, 0xc, 10_000);
}

#[test]
fn mariana_top_matches_its_golden_model() {
    random(Arch::Mariana, false, 0xa, 10_000);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 4, failure_persistence: None, ..Default::default() })]
    /// Short random sequences on the FPGA-sized CAYMAN top; a failure
    /// shrinks to the fewest cycles that still diverge.
    #[test]
    fn shrinkable_random_sequences(seeds in proptest::collection::vec(proptest::prelude::any::<u64>(), 1..150)) {
        let map = builtin(Arch::Cayman).unwrap();
        let cycles: Vec<Cycle> = seeds.iter().map(|s| Traffic::cycle_from_seed(&map, MemBits::fpga(), *s)).collect();
        if let Err(e) = lockstep(Arch::Cayman, true, &cycles) {
            proptest::prop_assert!(false, "{}", e);
        }
    }
}

#[test]
fn fpga_sized_top_matches_its_golden_model() {
    random(Arch::Cayman, true, 0xf, 5_000);
}

/// A top driven one bus access at a time (other pins idle unless set).
struct Bench {
    rtl: Box<dyn TopSim + Send>,
    gold: TopModel,
    pins: tpb_models::golden::top::Pins,
    cycle: u64,
}

impl Bench {
    fn new(arch: Arch) -> Bench {
        Bench::with(arch, false)
    }
    fn with(arch: Arch, fpga: bool) -> Bench {
        let map = builtin(arch).unwrap();
        let mem = if fpga { MemBits::fpga() } else { MemBits::full(&map.params) };
        let mut b = Bench { rtl: simulator(&map, fpga).unwrap(), gold: TopModel::new(&map, mem).unwrap(), pins: Default::default(), cycle: 0 };
        b.step(true, None);
        // The EVT_SEM units clear their 256 semaphores after reset.
        for _ in 0..tpb_models::golden::evt_sem::CLEAR_CYCLES {
            b.step(false, None);
        }
        b
    }
    /// One cycle, RTL and model compared before the edge.
    fn step(&mut self, reset: bool, req: Option<Req>) -> Outputs {
        self.rtl.drive(reset, req, &self.pins);
        let (r, g) = (self.rtl.outputs(), self.gold.outputs(reset, req, &self.pins));
        assert!(self.cycle == 0 || r == g, "cycle {}: {}", self.cycle, diff(&r, &g));
        self.rtl.tick();
        self.gold.step(reset, req, &self.pins);
        self.cycle += 1;
        r
    }
    /// A bus access; returns the response seen in the next cycle.
    fn access(&mut self, write: bool, addr: u32, wdata: u32) -> Rsp {
        self.step(false, Some(Req { write, addr, wdata }));
        self.step(false, None).rsp
    }
    fn write(&mut self, addr: u32, v: u32) {
        let r = self.access(true, addr, v);
        assert!(r.valid && !r.err, "write {addr:#x}: {r:?}");
    }
    fn read(&mut self, addr: u32) -> u32 {
        let r = self.access(false, addr, 0);
        assert!(r.valid && !r.err, "read {addr:#x}: {r:?}");
        r.rdata
    }
}

fn lr(arch: Arch, e: Engine) -> u32 {
    builtin(arch).unwrap().params.local_reg_base(e).unwrap() as u32
}

fn nx_reg(arch: Arch, name: &str) -> u32 {
    builtin(arch).unwrap().block("nx").unwrap().register(name).unwrap().offset
}

/// DIGEST §3/§5: the DMA's completion doorbells and host increments on the
/// same TOP_SP semaphore, in the same and in different cycles, all count.
#[test]
fn dma_doorbells_and_bus_increments_are_never_lost() {
    let arch = Arch::Cayman;
    let mut b = Bench::new(arch);
    let pool = lr(arch, Engine::Pool);
    let top_sp = lr(arch, Engine::TopSp);
    let dma = builtin(arch).unwrap().params.bar0_regions().into_iter().find(|r| r.name == "seq.dma").unwrap().region.base as u32;
    const K: u32 = 12;
    const SEM: u32 = 7;
    // K descriptors: copy one word, complete into semaphore 7 (the SoC address's low bits).
    for d in 0..K {
        for (k, v) in [0x200, 0x300 + 4 * d, 1, 0x8280_1800 + SEM * 4].into_iter().enumerate() {
            b.write(dma + 16 * d + 4 * k as u32, v);
        }
    }
    b.write(pool + nx_reg(arch, "dma_tx_ring_base"), 0);
    b.write(pool + nx_reg(arch, "dma_tx_ring_length"), K);
    b.write(pool + nx_reg(arch, "dma_tx_ring_head"), 0);
    b.write(pool + nx_reg(arch, "dma_ctrl"), 1);
    b.write(pool + nx_reg(arch, "dma_tx_ring_tail_inc"), K);
    // Host increments every cycle while the engine works: some land in the
    // doorbell's cycle (merged), the rest refuse the doorbell for a cycle.
    // A host increment in a random 2/3 of the cycles; the engine takes ~14
    // cycles per descriptor, so 12 of them finish well within 300 cycles.
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let (mut host, mut same_cycle, mut doorbells) = (0, 0, 0);
    for _ in 0..300 {
        let inc = rng.gen_bool(2.0 / 3.0);
        let out = b.step(false, inc.then_some(Req { write: true, addr: top_sp + 0x1800 + SEM * 4, wdata: 1 }));
        doorbells += out.dma_db_valid as u32;
        same_cycle += (out.dma_db_valid && inc) as u32;
        host += inc as u32;
    }
    for _ in 0..200 {
        b.step(false, None);
    }
    let done = b.read(dma + 0x814);
    let value = b.read(top_sp + 0x1000 + SEM * 4);
    println!("{K} DMA completions ({doorbells} doorbell cycles, {same_cycle} with a host increment) + {host} host increments: semaphore = {value}");
    assert_eq!(done, K, "every descriptor retired");
    assert!(same_cycle > 0 && same_cycle < doorbells, "doorbells met host increments in some cycles but not all");
    assert_eq!(value, K + host, "an increment was lost");
    assert_eq!(b.read(dma + 0x818), 0, "no DMA error");
}

/// DIGEST §2.8/§5: bit n of the Q7 bundle's release_run_stall (reset 0xFF)
/// gates core n's memory ports; run_state_n follows.
#[test]
fn q7_run_stall_gates_each_core_and_pio_installs_what_the_core_reads() {
    use tpb_models::golden::q7_cluster::PortIn;
    let arch = Arch::Sunda;
    let map = builtin(arch).unwrap();
    let mut b = Bench::new(arch);
    let pool = lr(arch, Engine::Pool);
    let l = map.params.q7_layout(map.params.q7.pooling.owner).unwrap();
    b.write(l.dram(3) as u32 + 8, 0xc0de_0003);
    b.write(l.iram(3) as u32 + 4, 0x0052_0000);
    let ls = PortIn { ls_valid: true, ls_addr: tpb_models::xtensa::config::DRAM_BASE + 8, ..Default::default() };
    let fetch = PortIn { if_valid: true, if_addr: 4, ..Default::default() };
    b.pins.q7[3] = PortIn { ls_valid: true, ls_addr: ls.ls_addr, ..fetch };
    b.pins.q7[2] = PortIn { ls_valid: true, ls_addr: ls.ls_addr, ..fetch };
    let out = b.step(false, None);
    assert_eq!(out.q7_run_stall, 0xff, "reset value: every core stalled");
    assert!(!out.q7[3].ls_ready && !out.q7[3].if_ready, "a stalled core's ports are not ready");
    // Release core 3 only.
    b.pins = Default::default();
    b.write(pool + 0x3000, !(1u32 << 3) & 0xff);
    b.pins.q7[3] = PortIn { ls_valid: true, ls_addr: ls.ls_addr, ..fetch };
    b.pins.q7[2] = PortIn { ls_valid: true, ls_addr: ls.ls_addr, ..fetch };
    let out = b.step(false, None);
    assert!(out.q7[3].ls_ready && out.q7[3].if_ready && !out.q7[2].ls_ready, "only core 3 runs");
    b.pins = Default::default();
    let out = b.step(false, None);
    assert!(out.q7[3].ls_rvalid && out.q7[3].if_rvalid);
    assert_eq!((out.q7[3].ls_rdata, out.q7[3].if_rdata), (0xc0de_0003, 0x0052_0000), "the core reads what PIO installed");
    assert_eq!(b.read(pool + 0x3008 + 4 * 3) & 1, 1, "run_state_3.running");
    assert_eq!(b.read(pool + 0x3008 + 4 * 2) & 1, 0, "run_state_2 still stalled");
}

/// Bad BAR0 accesses answer a bus error and change nothing.
#[test]
fn bad_bar0_accesses_are_errors_that_change_nothing() {
    let arch = Arch::Cayman;
    let map = builtin(arch).unwrap();
    let mut b = Bench::new(arch);
    let l = map.params.q7_layout(map.params.q7.pooling.owner).unwrap();
    let iram0 = l.iram(0) as u32;
    b.write(iram0, 0x1234_5678);
    for (what, addr) in [
        ("misaligned", iram0 + 2),
        ("reserved gap after IRAM", iram0 + l.params.iram_size as u32),
        ("past core 7", l.iram(8) as u32),
        ("between apertures", 0x0005_0000 + 0x8000),
        ("past the SEQ DMA window", 0x008a_1000),
    ] {
        let r = b.access(true, addr, 0xdead_beef);
        assert!(r.valid && r.err, "{what} ({addr:#x}): {r:?}");
    }
    assert_eq!(b.read(iram0), 0x1234_5678, "nothing changed");
}

/// A memory built smaller than its region (the FPGA-sized tops) reads as
/// zero past its built size and takes writes of zero there (a ucode image's
/// zero pad), refuses other writes there, and keeps its reserved gaps
/// errors; the RTL and the golden model agree on every response.
#[test]
fn fpga_sized_memories_read_zero_past_their_size_and_take_only_zero_writes() {
    let arch = Arch::Cayman;
    let map = builtin(arch).unwrap();
    let mut b = Bench::with(arch, true);
    let l = map.params.q7_layout(map.params.q7.pooling.owner).unwrap();
    let region = |name: &str| map.params.bar0_regions().iter().find(|r| r.name == name).unwrap().region.base as u32;
    let built = 4u32 << MemBits::fpga().q7_iram;
    for (what, base) in [
        ("Q7 IRAM", l.iram(3) as u32),
        ("Q7 DRAM", l.dram(3) as u32),
        ("SEQ IRAM", region("seq.iram")),
        ("SEQ DRAM", region("seq.dram")),
        ("CTRL SPAD", region("top_sp.ctrl_spad")),
        ("SLOT SPAD", region("top_sp.slot_spad")),
    ] {
        b.write(base, 0x1111_0000 | built);
        let past = base + built + 8;
        b.write(past, 0);
        assert_eq!(b.read(past), 0, "{what}: past the built size reads 0");
        let r = b.access(true, past, 5);
        assert!(r.valid && r.err, "{what}: a non-zero write past the built size is refused: {r:?}");
        assert_eq!(b.read(base), 0x1111_0000 | built, "{what}: the built memory is untouched");
    }
    let r = b.access(true, l.iram(0) as u32 + l.params.iram_size as u32, 0);
    assert!(r.valid && r.err, "the reserved gap after a Q7 IRAM stays an error, zero or not: {r:?}");
}

/// The HAL's `stpb_init` over the RTL top's BAR0 port. Zero words of a
/// padded image are not sent to addresses nothing has written yet: a fresh
/// top's memories read 0, so the state is the same, and the bring-up takes
/// thousands of cycles instead of millions (the Verilator runs send them all).
struct RtlBar0<'a> {
    bench: &'a mut Bench,
    written: std::collections::HashSet<u64>,
    elided: u64,
    accesses: u64,
}

impl tpb_models::hal::Mmio for RtlBar0<'_> {
    fn read32(&mut self, addr: u64) -> Result<u32, tpb_models::hal::MmioError> {
        self.accesses += 1;
        let r = self.bench.access(false, addr as u32, 0);
        if r.err {
            return Err(tpb_models::hal::MmioError::BusError { addr, what: "read".into() });
        }
        Ok(r.rdata)
    }
    fn write32(&mut self, addr: u64, value: u32) -> Result<(), tpb_models::hal::MmioError> {
        self.accesses += 1;
        self.written.insert(addr);
        let r = self.bench.access(true, addr as u32, value);
        if r.err {
            return Err(tpb_models::hal::MmioError::BusError { addr, what: "write".into() });
        }
        Ok(())
    }
    fn write_buf(&mut self, addr: u64, data: &[u8]) -> Result<(), tpb_models::hal::MmioError> {
        tpb_models::hal::check_buf(addr, data.len())?;
        for (i, w) in data.chunks_exact(4).enumerate() {
            let (a, v) = (addr + 4 * i as u64, u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            if v == 0 && !self.written.contains(&a) {
                self.elided += 1;
                continue;
            }
            self.write32(a, v)?;
        }
        Ok(())
    }
}

fn hal_bringup_on_rtl(arch: Arch) -> (Bench, Outputs) {
    use tpb_models::hal::*;
    let img = |tag: u8, len: usize| (0..len).map(|i| tag ^ (i as u8) | 1).collect::<Vec<u8>>();
    let mut cfg = StpbConfig::new(UcodeImages { iram: img(0x10, 0x40), dram: img(0x20, 0x40) }, UcodeImages { iram: img(0x30, 0x40), dram: img(0x40, 0x20) });
    cfg.pooling.instr_debug_level = 2;
    cfg.pooling.engine_base_address = 0x0000_0001_0000_0000;
    if arch != Arch::Sunda {
        cfg.pooling.hw_decode = HwDecodeTable {
            cam: vec![CamRecord { valid: true, key_opcode: 0x41, key_func: 0, mask_opcode: 0xff, mask_func: 0, table_index: 1 }],
            table: vec![0, 0, 0, 0, 0x44, 0x33, 0x22, 0x11],
        };
    }
    cfg.pooling.dma = Some(DmaConfig { rx: RingConfig { base: 0x100, length: 4 }, tx: RingConfig { base: 0x200, length: 4 }, mem_window2: 0 });
    let mut bench = Bench::new(arch);
    let start = bench.cycle;
    let mut bar0 = RtlBar0 { bench: &mut bench, written: Default::default(), elided: 0, accesses: 0 };
    Hal::for_arch(arch).unwrap().stpb_init(&mut bar0, &cfg, None).unwrap_or_else(|e| panic!("{arch:?} stpb_init on the RTL: {e}"));
    let (accesses, elided) = (bar0.accesses, bar0.elided);
    println!("{arch:?}: stpb_init on the RTL top: {accesses} BAR0 accesses ({elided} zero pad words elided), {} cycles", bench.cycle - start);
    let out = bench.step(false, None);
    (bench, out)
}

/// DIGEST §2.9: after the HAL's bring-up on the RTL, the SEQ (POOL NX) runs;
/// CAYMAN's host releases the Q7 cores (0xFF -> 0x00), SUNDA's does not (its
/// SEQ firmware does); each core reads the image the HAL installed.
#[test]
fn hal_bringup_on_the_rtl_top_releases_what_each_generation_releases() {
    for arch in Arch::ALL {
        let (mut b, out) = hal_bringup_on_rtl(arch);
        assert_eq!(out.nx_run_stall, 0b111011, "{arch:?}: only the POOL NX (the SEQ) released");
        let expect_q7 = if arch == Arch::Sunda { 0xff } else { 0x00 };
        assert_eq!(out.q7_run_stall, expect_q7, "{arch:?}: Q7 release_run_stall after the host's bring-up");
        if arch == Arch::Sunda {
            b.write(lr(arch, Engine::Pool) + 0x3000, 0);
        }
        // Core 7 fetches its first IRAM word and loads its first DRAM word.
        b.pins.q7[7] = tpb_models::golden::q7_cluster::PortIn { if_valid: true, if_addr: 0, ls_valid: true, ls_addr: tpb_models::xtensa::config::DRAM_BASE, ..Default::default() };
        b.step(false, None);
        b.pins = Default::default();
        let o = b.step(false, None);
        let word = |tag: u8| u32::from_le_bytes([tag | 1, tag ^ 1 | 1, tag ^ 2 | 1, tag ^ 3 | 1]);
        assert_eq!((o.q7[7].if_rdata, o.q7[7].ls_rdata), (word(0x30), word(0x40)), "{arch:?}: core 7 sees the HAL's images");
        if arch != Arch::Sunda {
            b.pins.hwd_lookup = Some((0x41, 0x07));
            b.step(false, None);
            b.pins = Default::default();
            b.step(false, None);
            let h = b.step(false, None).hwd.unwrap();
            assert!(h.fifo_valid && h.head.hit, "{arch:?}: the CAM the HAL programmed hits opcode 0x41");
            assert_eq!((h.head.index, h.head.handler), (1, 0x1122_3344));
        }
    }
}

/// The full-size tops build exactly the memories `arch.toml` gives (Q7
/// sizes [S] seed 004 §3; [D] SEQ/SPAD sizes), and the type aliases agree with
/// `full_mem_bits`: a top built with them decodes every region word.
#[test]
fn full_size_tops_build_the_memories_of_arch_toml() {
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let map = builtin(arch).unwrap();
        assert_eq!(tpb_hdl::top::full_mem_bits(arch), MemBits::full(&map.params), "{arch:?}");
    }
    // The aliases: the last word of each Q7 core memory answers (no bus error).
    let arch = Arch::Cayman;
    let map = builtin(arch).unwrap();
    let l = map.params.q7_layout(map.params.q7.pooling.owner).unwrap();
    let mut b = Bench::new(arch);
    b.write((l.iram(7) + l.params.iram_size - 4) as u32, 1);
    b.write((l.dram(7) + l.params.dram_size - 4) as u32, 2);
}
