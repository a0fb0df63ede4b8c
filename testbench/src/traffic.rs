//! Random stimulus for a whole TPB top: BAR0 traffic aimed at every block
//! of the generation's map (registers by name, semaphore windows, memories
//! inside and past their built size, the DMA's rings and descriptors, the
//! Q7 PIO path, the HW-decode CAM, unmapped and misaligned addresses), the
//! Q7 cores' memory ports, the halted pins and HW-decode lookups. The same
//! seed gives the same sequence, for the rust-hdl and Verilator runs alike.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tpb_models::csr::Req;
use tpb_models::golden::q7_cluster::{PortIn, CORES};
use tpb_models::golden::seq_dma::{len_op, OP_ADD, OP_COPY, OP_SOC_WRITE};
use tpb_models::golden::top::{MemBits, Pins, ENGINES};
use tpb_models::regmap::RegMap;
use tpb_models::xtensa::config::DRAM_BASE;

/// One cycle of stimulus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cycle {
    pub reset: bool,
    pub req: Option<Req>,
    pub pins: Pins,
}

/// The generator.
pub struct Traffic {
    rng: SmallRng,
    map: RegMap,
    mem: MemBits,
    lr: Vec<u32>,
    pins: Pins,
    /// Scripted requests that go out before random ones.
    script: std::collections::VecDeque<Req>,
    /// The address-translation stimulus draws from its own generator and
    /// sends its window writes in cycles the rest leaves without a request,
    /// so the rest of the stream is what it was without it.
    xrng: SmallRng,
    xscript: std::collections::VecDeque<Req>,
    /// BAR0 addresses of POOL's mem_window2 (lo, hi), then window n's seven words at 2 + 7n.
    xregs: Vec<Option<u32>>,
    /// The timestamp's stimulus, likewise from its own generator, in cycles
    /// both streams above leave without a request; the BAR0 addresses of
    /// timestamp_ctrl, _inc, _lo, _hi, _adjust_lo, _adjust_hi.
    trng: SmallRng,
    /// The SEQ DMA's ops and its master port's answers (their own stream, so
    /// the rest of the stimulus is what it was before the ops existed).
    mrng: SmallRng,
    tscript: std::collections::VecDeque<Req>,
    tregs: Vec<u32>,
}

/// TPB-level registers the main stream leaves to the timestamp's own (its
/// registers came after the stream was fixed).
fn timestamp_reg(name: &str) -> bool {
    name.starts_with("timestamp_")
}

/// The words of a window, in `windows.toml` order.
const WINDOW_WORDS: [&str; 7] = ["src_lo", "src_hi", "size_lo", "size_hi", "dst_lo", "dst_hi", "ctrl"];

impl Traffic {
    pub fn new(map: &RegMap, mem: MemBits, seed: u64) -> Self {
        let lr = ENGINES.iter().map(|e| map.params.local_reg_base(*e).expect("every engine has a base") as u32).collect();
        let space = tpb_models::regmap::space::AddressSpace::new(map.clone());
        let at = |r: String| space.resolve(&format!("pool.{r}")).map(|n| n.addr()).ok();
        let names =
            ["nx.mem_window2_lo".to_string(), "nx.mem_window2_hi".to_string()].into_iter().chain((0..8).flat_map(|n| WINDOW_WORDS.map(|w| format!("windows.window{n}_{w}"))));
        let xregs = names.map(at).collect();
        let tregs = ["ctrl", "inc", "lo", "hi", "adjust_lo", "adjust_hi"].map(|r| space.resolve(&format!("tpb.timestamp_{r}")).map(|n| n.addr()).unwrap_or(0)).to_vec();
        Traffic {
            rng: SmallRng::seed_from_u64(seed),
            map: map.clone(),
            mem,
            lr,
            pins: Pins::default(),
            script: Default::default(),
            xrng: SmallRng::seed_from_u64(seed ^ 0x7a11_5a7e),
            xscript: Default::default(),
            xregs,
            trng: SmallRng::seed_from_u64(seed ^ 0x7135_7a3b),
            mrng: SmallRng::seed_from_u64(seed ^ 0x50c_3a5e),
            tscript: Default::default(),
            tregs,
        }
    }

    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.rng.gen_range(0..v.len())]
    }

    fn region(&self, name: &str) -> (u32, u32) {
        let r = self.map.params.bar0_regions().into_iter().find(|r| r.name == name).expect("region");
        (r.region.base as u32, r.region.size as u32)
    }

    /// A word offset mostly inside `2^bits` words, sometimes just past it.
    fn mem_offset(&mut self, bits: usize) -> u32 {
        let words = 1u32 << bits;
        let w = if self.rng.gen_bool(0.9) { self.rng.gen_range(0..words.min(64)) } else { self.rng.gen_range(0..2 * words) };
        let mis = if self.rng.gen_bool(0.03) { self.rng.gen_range(1..4) } else { 0 };
        w * 4 + mis
    }

    fn reg_offset(&mut self, block: &str) -> Option<u32> {
        let b = self.map.block(block)?;
        let regs: Vec<&tpb_models::regmap::Register> = b.registers.iter().filter(|r| block != "tpb" || !timestamp_reg(&r.name)).collect();
        if regs.is_empty() {
            return None;
        }
        Some(regs[self.rng.gen_range(0..regs.len())].offset)
    }

    /// A value for the POOL NX DMA registers that makes the engine work.
    fn dma_reg(&mut self) -> (u32, u32) {
        let names = [
            "dma_ctrl",
            "dma_rx_ring_base",
            "dma_rx_ring_length",
            "dma_rx_ring_head",
            "dma_rx_ring_tail_inc",
            "dma_tx_ring_base",
            "dma_tx_ring_length",
            "dma_tx_ring_head",
            "dma_tx_ring_tail_inc",
        ];
        let name = *self.pick(&names);
        let off = self.map.block("nx").and_then(|b| b.register(name)).expect("DMA register in the map").offset;
        let v = match name {
            "dma_ctrl" => self.rng.gen_bool(0.85) as u32,
            n if n.ends_with("base") => self.rng.gen_range(0..16) * 16,
            n if n.ends_with("length") => self.rng.gen_range(0..5),
            n if n.ends_with("head") => self.rng.gen_range(0..4),
            _ => self.rng.gen_range(1..3),
        };
        (off, v)
    }

    /// A DMA SRAM word that is likely part of a descriptor.
    fn dma_word(&mut self) -> u32 {
        match self.rng.gen_range(0..6) {
            0 | 1 => self.rng.gen_range(0..0x100) * 4,
            2 => self.rng.gen_range(0..4),
            3 => 0x1800 + self.rng.gen_range(0..4) * 4,
            4 => 0x8280_1800 + self.rng.gen_range(0..4) * 4,
            _ => self.rng.r#gen(),
        }
    }

    fn req(&mut self) -> Req {
        let write = self.rng.gen_bool(0.5);
        let mut wdata: u32 = self.rng.r#gen();
        let e = self.rng.gen_range(0..6);
        let addr = match self.rng.gen_range(0..100) {
            0..=14 => {
                let off = self.reg_offset("nx").unwrap_or(0);
                self.lr[e] + off
            }
            15..=29 => {
                let (off, v) = self.dma_reg();
                wdata = v;
                self.lr[2] + off
            }
            30..=39 => {
                let win = self.rng.gen_range(0..4) * 0x400;
                let idx = if self.rng.gen_bool(0.7) { self.rng.gen_range(0..4) } else { self.rng.gen_range(0..256) };
                if self.rng.gen_bool(0.7) {
                    wdata = self.rng.gen_range(0..4);
                }
                let e = if self.rng.gen_bool(0.5) { 5 } else { e };
                self.lr[e] + 0x1000 + win + idx * 4
            }
            40..=44 => self.lr[e] + 0x2000 + self.reg_offset("windows").unwrap_or(0) % 0x1000,
            45..=51 => {
                let off = self.reg_offset("q7").unwrap_or(0x3000);
                if off == 0x3000 {
                    wdata = if self.rng.gen_bool(0.5) { self.rng.r#gen::<u8>() as u32 } else { 0 };
                }
                self.lr[2] + off
            }
            52..=55 => {
                // The TPB-level registers, with values that turn the
                // notification unit on (a small ring, its classes, a tail
                // that follows the head), and reads of its ring.
                if self.rng.gen_bool(0.3) {
                    let (base, size) = self.region("notific.ring");
                    return Req { write, addr: base + self.rng.gen_range(0..size), wdata };
                }
                let (base, _) = self.region("tpb_regs");
                let off = self.reg_offset("tpb").unwrap_or(0);
                let name = self.map.block("tpb").and_then(|b| b.registers.iter().find(|r| r.offset == off)).map(|r| r.name.clone()).unwrap_or_default();
                debug_assert!(!timestamp_reg(&name));
                match name.as_str() {
                    "notific_ring_size" | "notific_tail" if self.rng.gen_bool(0.9) => wdata = self.rng.gen_range(0..12),
                    "notific_enable" if self.rng.gen_bool(0.9) => wdata = self.rng.gen_range(0..8),
                    _ => {}
                }
                base + off
            }
            56..=57 => match self.map.block("top_sp").filter(|b| !b.registers.is_empty()) {
                Some(b) => self.lr[5] + b.registers[self.rng.gen_range(0..b.registers.len())].offset,
                None => self.lr[5] + 0x15a0,
            },
            58..=65 => {
                let (names, bits) = (["seq.iram", "seq.dram", "top_sp.ctrl_spad", "top_sp.slot_spad"], [self.mem.seq, self.mem.seq, self.mem.ctrl_spad, self.mem.slot_spad]);
                let k = self.rng.gen_range(0..4);
                let (base, size) = self.region(names[k]);
                base + self.mem_offset(bits[k]) % size
            }
            66..=77 => {
                let (base, _) = self.region("seq.dma");
                if self.rng.gen_bool(0.7) {
                    wdata = self.dma_word();
                    base + self.rng.gen_range(0..0x40) * 4
                } else if self.rng.gen_bool(0.6) {
                    if write {
                        wdata = self.rng.gen_range(0..8);
                    }
                    base + 0x800 + self.rng.gen_range(0..8) * 4
                } else {
                    base + self.rng.gen_range(0..0x1000)
                }
            }
            78..=89 => {
                let l = self.map.params.q7_layout(self.map.params.q7.pooling.owner).expect("q7 layout");
                let core = self.rng.gen_range(0..9u32);
                let dram = self.rng.gen_bool(0.5);
                let base = if dram { l.dram(core) } else { l.iram(core) } as u32;
                let bits = if dram { self.mem.q7_dram } else { self.mem.q7_iram };
                let off = if self.rng.gen_bool(0.05) { self.rng.gen_range(0..l.core_stride as u32) } else { self.mem_offset(bits) };
                base.wrapping_add(off)
            }
            90..=95 => match self.map.params.local_reg.hw_decode_table_params {
                Some(base) if self.map.params.hw_decode.present => {
                    let base = base as u32;
                    match self.rng.gen_range(0..4) {
                        0 => base + 0x3f0,
                        1 => base + 0x2000 + self.rng.gen_range(0..16) * 4,
                        2 => base + self.rng.gen_range(0..0x4000),
                        _ => {
                            let entry = self.rng.gen_range(0..48);
                            if self.rng.gen_bool(0.6) {
                                wdata &= 0x0000_ff01 | 0xff00_0000 | (self.rng.gen_range(0..3) << 16);
                            }
                            base + entry * 16 + self.rng.gen_range(0..4) * 4
                        }
                    }
                }
                _ => self.rng.r#gen(),
            },
            _ => self.rng.r#gen(),
        };
        Req { write, addr, wdata }
    }

    fn port(&mut self) -> PortIn {
        let iram = 4u32 << self.mem.q7_iram;
        let dram = 4u32 << self.mem.q7_dram;
        let ls_addr = match self.rng.gen_range(0..10) {
            0..=3 => self.rng.gen_range(0..iram.min(256) / 4) * 4,
            4..=8 => DRAM_BASE + self.rng.gen_range(0..dram.min(256) / 4) * 4,
            _ => self.rng.r#gen(),
        };
        PortIn {
            if_valid: self.rng.gen_bool(0.3),
            if_addr: if self.rng.gen_bool(0.95) { self.rng.gen_range(0..iram.min(256) / 4) * 4 } else { self.rng.r#gen() },
            ls_valid: self.rng.gen_bool(0.3),
            ls_write: self.rng.gen_bool(0.5),
            ls_addr,
            ls_wdata: self.rng.r#gen(),
            ls_wstrb: self.rng.gen_range(0..16),
        }
    }

    /// A valid DMA set-up: ring of 4 descriptors (0..3 words of any op:
    /// copy, add, SoC write to whatever address the SRAM holds, or the
    /// reserved op; each completing into a TOP_SP semaphore), enable, then
    /// tail increments.
    fn dma_script(&mut self) {
        let nx = self.map.block("nx").expect("nx block").clone();
        let pool = self.lr[2];
        let reg = |n: &str| pool + nx.register(n).expect("DMA register").offset;
        let (dma, _) = self.region("seq.dma");
        let tx = self.rng.gen_bool(0.5);
        let ring = if tx { "tx" } else { "rx" };
        let base = self.rng.gen_range(0..4) * 0x40;
        let mut v =
            vec![(reg("dma_ctrl"), 0), (reg(&format!("dma_{ring}_ring_base")), base), (reg(&format!("dma_{ring}_ring_length")), 4), (reg(&format!("dma_{ring}_ring_head")), 0)];
        for d in 0..4 {
            let a = dma + base + d * 16;
            let idx = self.rng.gen_range(0..4);
            let done = if self.rng.gen_bool(0.5) { 0x8280_1800 } else { 0x1800 } + idx * 4;
            let len = self.rng.gen_range(0..4);
            let op = [OP_COPY, OP_COPY, OP_ADD, OP_ADD, OP_SOC_WRITE, OP_SOC_WRITE, 3][self.mrng.gen_range(0..7)];
            v.extend([(a, 0x200 + d * 16), (a + 4, 0x300 + d * 16), (a + 8, len_op(len, op)), (a + 12, done)]);
        }
        v.push((reg("dma_ctrl"), 1));
        v.push((reg(&format!("dma_{ring}_ring_tail_inc")), self.rng.gen_range(1..4)));
        self.script.extend(v.into_iter().map(|(addr, wdata)| Req { write: true, addr, wdata }));
    }

    /// A CAM entry that hits opcode 0x41..0x43 with its handler word.
    fn cam_script(&mut self) {
        let Some(base) = self.map.params.local_reg.hw_decode_table_params.filter(|_| self.map.params.hw_decode.present) else { return };
        let base = base as u32;
        let entry = self.rng.gen_range(0..4);
        let op = self.rng.gen_range(0x41..0x44);
        let index = self.rng.gen_range(0..16);
        let v = [(base + entry * 16, 1 | op << 8 | 0xff00_0000), (base + entry * 16 + 4, index << 16), (base + 0x2000 + index * 4, self.rng.r#gen())];
        self.script.extend(v.into_iter().map(|(addr, wdata)| Req { write: true, addr, wdata }));
    }

    /// POOL's address-translation window n (requester 0..2, a source near
    /// `MEM_WINDOW2_BASE`, sometimes a size past 4 GiB or a destination that
    /// carries into the high word), or its mem_window2.
    fn window_script(&mut self) {
        use tpb_models::golden::top::MEM_WINDOW2_BASE;
        let mut v = Vec::new();
        if self.xrng.gen_bool(0.25) {
            let lo = if self.xrng.gen_bool(0.2) { 0 } else { self.xrng.r#gen::<u32>() | 0xffff_0000 };
            v.extend([(self.xregs[0], lo), (self.xregs[1], self.xrng.gen_range(0..4))]);
        } else {
            let n = self.xrng.gen_range(0..8);
            let src = MEM_WINDOW2_BASE + self.xrng.gen_range(0..4) * 0x800;
            let size_hi = u32::from(self.xrng.gen_bool(0.1));
            let words = [
                src,
                u32::from(self.xrng.gen_bool(0.1)),
                self.xrng.gen_range(0x100..0x1000),
                size_hi,
                if self.xrng.gen_bool(0.3) { 0xffff_ff00 } else { self.xrng.r#gen() },
                self.xrng.gen_range(0..0x10000),
                u32::from(self.xrng.gen_bool(0.9)) | self.xrng.gen_range(0..3) << 4,
            ];
            v.extend(words.into_iter().enumerate().map(|(k, w)| (self.xregs[2 + 7 * n + k], w)));
        }
        self.xscript.extend(v.into_iter().filter_map(|(a, wdata)| a.map(|addr| Req { write: true, addr, wdata })));
    }

    /// The timestamp: run it (mostly) with a small or any increment,
    /// adjust it by a signed amount, snapshot it (lo then hi), or read the
    /// high word alone.
    fn timestamp_script(&mut self) {
        let [ctrl, inc, lo, hi, adj_lo, adj_hi] = [0, 1, 2, 3, 4, 5].map(|k| self.tregs[k]);
        let w = |addr: u32, wdata: u32| Req { write: true, addr, wdata };
        let r = |addr: u32| Req { write: false, addr, wdata: 0 };
        let v: Vec<Req> = match self.trng.gen_range(0..6) {
            0 => vec![w(ctrl, u32::from(self.trng.gen_bool(0.8)) | self.trng.r#gen::<u32>() & !1)],
            1 => vec![w(inc, if self.trng.gen_bool(0.7) { self.trng.gen_range(0..4) } else { self.trng.r#gen() })],
            2 => vec![w(adj_lo, self.trng.r#gen()), w(adj_hi, if self.trng.gen_bool(0.5) { u32::MAX } else { self.trng.gen_range(0..3) })],
            3 => vec![r(hi)],
            _ => vec![r(lo), r(hi)],
        };
        self.tscript.extend(v);
    }

    /// The next cycle's stimulus.
    pub fn next_cycle(&mut self) -> Cycle {
        let reset = self.rng.gen_bool(1.0 / 4000.0);
        if self.script.is_empty() && self.rng.gen_bool(1.0 / 300.0) {
            self.dma_script();
        }
        if self.script.is_empty() && self.rng.gen_bool(1.0 / 300.0) {
            self.cam_script();
        }
        if self.xscript.is_empty() && self.xrng.gen_bool(1.0 / 200.0) {
            self.window_script();
        }
        if self.tscript.is_empty() && self.trng.gen_bool(1.0 / 40.0) {
            self.timestamp_script();
        }
        let req = if self.rng.gen_bool(0.7) { Some(self.script.pop_front().unwrap_or_else(|| self.req())) } else { self.xscript.pop_front().or_else(|| self.tscript.pop_front()) };
        if self.rng.gen_bool(0.02) {
            self.pins.nx_halted = self.rng.r#gen::<u8>() & 0x3f;
            self.pins.q7_halted = self.rng.r#gen();
        }
        for n in 0..CORES {
            self.pins.q7[n] = self.port();
        }
        self.pins.hwd_lookup = self.rng.gen_bool(0.3).then(|| (self.rng.gen_range(0x40..0x44), self.rng.gen_range(0..3)));
        self.pins.hwd_pop = self.rng.gen_bool(0.3);
        // The system master's answers: late, sometimes errors.
        self.pins.dma_m_ack = self.mrng.gen_bool(0.3);
        self.pins.dma_m_err = self.mrng.gen_bool(0.15);
        let near = tpb_models::golden::top::MEM_WINDOW2_BASE + self.xrng.gen_range(0..0x3000);
        self.pins.xlat = self.xrng.gen_bool(0.2).then(|| (self.xrng.gen_range(0..3), if self.xrng.gen_bool(0.9) { near } else { self.xrng.r#gen() }));
        Cycle { reset, req, pins: self.pins }
    }
}

impl Traffic {
    /// One random cycle from its own seed (no scripted sequences): a
    /// stimulus element a property test can delete when it shrinks.
    pub fn cycle_from_seed(map: &RegMap, mem: MemBits, seed: u64) -> Cycle {
        let mut t = Traffic::new(map, mem, seed);
        t.pins.nx_halted = t.rng.r#gen::<u8>() & 0x3f;
        t.pins.q7_halted = t.rng.r#gen();
        Cycle { reset: false, ..t.next_cycle() }
    }
}
