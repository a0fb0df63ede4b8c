//! Several TPB tops as dies of one SoC, on one clock (DIGEST §7).
//!
//! Each die is one [`Cosim`], or with [`Mesh::with_top_sps`] K of them: one
//! TPB top per TOP_SP instance (`[D]`: the seeds put a TOP_SP in each
//! NeuronCore, and a die's instances 0..8 at `sp_base[0..8]`, the die
//! mirror's at `sp_base[8..16]`). The tops are the mesh's nodes, node
//! `die × K + instance`; [`Mesh::dies`] holds them in that order and the
//! SoC port routes to a node by its die bits and the `sp_base` range the
//! address falls in. Die k is chip `k / 2`, die bit `k % 2`: the
//! SoC address of one of its TOP_SPs has bit 47 = `k % 2` and, when bit 54
//! says the chip id is valid, bits 53:48 = `k / 2` ([`die_addr`]). A core's
//! SoC-port access that the fold puts on another die leaves its die through
//! [`Cosim::outbound`]; the mesh carries it to the target die's BAR0
//! arbiter ([`Cosim::inbound`], after the host, before the cores) and
//! carries the answer back. Each crossing takes [`Mesh::latency`] cycles
//! (`[D]`, a parameter: the seeds give no link timing), a request there and
//! its answer back; 0 crosses in the cycle it was made. A die that does not
//! exist answers at once with an error.

mod parallel;

use crate::sched::{Cosim, CosimError, RemoteReq, Requester};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use tpb_models::csr::Rsp;
use tpb_models::ncfw::mesh::{soc, ChipAddr};
use tpb_models::regmap::Arch;

/// The most dies the DIGEST §7 fold addresses: 64 chip ids × the die bit.
pub const MAX_DIES: usize = 2 << soc::CHIP_ID_BITS;

/// Threads a new mesh runs on; 0: the machine's cores ([`set_threads`]).
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// Threads every mesh made from now on runs its nodes on (`tpb sim
/// --threads N`); 0 brings back the default, the machine's cores. A mesh
/// never uses more threads than it has nodes ([`Mesh::threads_used`]).
pub fn set_threads(n: usize) {
    THREADS.store(n, Ordering::Relaxed);
}

/// The threads a new mesh gets: [`set_threads`]'s, or the machine's cores.
pub fn default_threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// The answer to a request for a node that does not exist.
const NO_SUCH_NODE: Rsp = Rsp { valid: true, rdata: 0, err: true };

/// One cycle of a node: skipped when [`Cosim::quiescent`] and `skip_quiet`.
fn node_cycle(c: &mut Cosim, skip_quiet: bool) {
    if skip_quiet && c.quiescent() {
        c.skip_cycle();
    } else {
        c.cycle(false);
    }
}

/// Something crossing between dies.
#[derive(Debug, Clone, Copy)]
enum Flight {
    /// A request on its way to die `to`.
    Req { to: u32, r: RemoteReq },
    /// An answer on its way back to `r.from_die`.
    Rsp { r: RemoteReq, rsp: Rsp },
}

/// One request that crossed between dies, for the cross-die diagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crossing {
    /// The mesh cycle it left its die, and the one it reached the target's BAR0 queue.
    pub sent: u64,
    pub arrived: Option<u64>,
    pub from: u32,
    pub to: u32,
    pub by: Requester,
    pub write: bool,
    /// The target die's BAR0 address.
    pub addr: u32,
}

/// Dies in lockstep.
pub struct Mesh {
    /// The nodes: one top per die, or K per die ([`Mesh::top_sps`]), node
    /// `die × K + instance`.
    pub dies: Vec<Cosim>,
    /// TOP_SP instances (tops) per die.
    pub top_sps: usize,
    /// Skip the cycles of a node that is [`Cosim::quiescent`] (on by
    /// default; results are the same either way, only faster).
    pub skip_quiet: bool,
    /// Requests that crossed between dies.
    pub remote: u64,
    /// Cycles a crossing takes (each way).
    pub latency: u64,
    /// Mesh cycles run.
    pub now: u64,
    /// Threads [`Mesh::run_until_all`] runs the nodes on (see
    /// [`Mesh::threads_used`]); from [`set_threads`] when made.
    pub threads: usize,
    /// The zero-latency note was printed.
    noted: bool,
    /// Crossings under way: (the cycle they arrive, what, index in `crossings`).
    flights: VecDeque<(u64, Flight, usize)>,
    /// Every request that crossed, in the order sent (the first
    /// [`crate::sched::LOG_LIMIT`]; `remote` counts them all).
    pub crossings: Vec<Crossing>,
}

/// `addr` (a SoC address on die 0, bit 47 and bits 48..=54 clear) moved to
/// die `die` of the mesh: chip `die / 2` (id valid) and die bit `die % 2`.
pub fn die_addr(addr: u64, die: u32) -> Result<u64, CosimError> {
    let bad = |why: String| CosimError::Mesh(format!("die_addr({addr:#x}, die {die}): {why}"));
    let pack = |source| CosimError::DieAddr { addr, die, source };
    let c = ChipAddr::decode(addr).map_err(pack)?;
    if c.die || c.id_valid || c.chip_id != 0 {
        return Err(bad("not a die-0 address (bit 47 or bits 48..=54 set)".into()));
    }
    if die as usize >= MAX_DIES {
        return Err(bad(format!("the SoC address reaches {MAX_DIES} dies (DIGEST §7)")));
    }
    ChipAddr { local: c.local, die: die & 1 != 0, chip_id: (die >> 1) as u8, id_valid: true }.encode().map_err(pack)
}

/// Die k's trace of a mesh traced into `p`: `waves/x.vcd` → `waves/x.die1.vcd`.
pub fn die_path(p: &std::path::Path, k: usize) -> std::path::PathBuf {
    node_path(p, k, 1)
}

/// Node k's trace with `top_sps` TOP_SPs per die: as [`die_path`] with one,
/// else `waves/x.die1.sp3.vcd`.
pub fn node_path(p: &std::path::Path, k: usize, top_sps: usize) -> std::path::PathBuf {
    let ext = p.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_else(|| "vcd".into());
    if top_sps <= 1 {
        p.with_extension(format!("die{k}.{ext}"))
    } else {
        p.with_extension(format!("die{}.sp{}.{ext}", k / top_sps, k % top_sps))
    }
}

/// What node `k` of a mesh with `top_sps` TOP_SPs per die is called.
pub fn node_name(k: usize, top_sps: usize) -> String {
    if top_sps <= 1 {
        format!("die {k}")
    } else {
        format!("die {} TOP_SP {}", k / top_sps, k % top_sps)
    }
}

impl Mesh {
    /// `n` dies of `arch`, die k numbered k, crossings taking `latency` cycles.
    pub fn new(arch: Arch, n: usize, latency: u64) -> Result<Mesh, CosimError> {
        Mesh::with_top_sps(arch, n, 1, latency)
    }

    /// `n` dies of `arch` with `k` TOP_SP instances each (a top per
    /// instance, instances 0..k of the die's `sp_base` entries).
    pub fn with_top_sps(arch: Arch, n: usize, k: usize, latency: u64) -> Result<Mesh, CosimError> {
        if !(1..=MAX_DIES).contains(&n) {
            return Err(CosimError::Mesh(format!("{n} dies: a mesh has 1 to {MAX_DIES} (64 chip ids x 2 dies, DIGEST §7)")));
        }
        let t = &tpb_models::regmap::builtin(arch)?.params.top_sp;
        let per_die = t.count.min(t.die_from_sp_id) as usize;
        if !(1..=per_die).contains(&k) {
            return Err(CosimError::Mesh(format!(
                "{k} TOP_SPs per die: {} has 1 to {per_die} per die ({} TOP_SPs, sp_id >= {} on the die mirror, DIGEST §3)",
                arch.name(),
                t.count,
                t.die_from_sp_id
            )));
        }
        let mut dies = Vec::with_capacity(n * k);
        for node in 0..n * k {
            let mut c = Cosim::new(arch)?;
            c.die = (node / k) as u32;
            c.dies = n as u32;
            c.instance = (node % k) as u32;
            c.instances = k as u32;
            dies.push(c);
        }
        let threads = default_threads();
        Ok(Mesh { dies, top_sps: k, skip_quiet: true, remote: 0, latency, now: 0, threads, noted: false, flights: VecDeque::new(), crossings: Vec::new() })
    }

    /// What a report calls node `k`: `die 3`, or `die 3 TOP_SP 5` with several per die.
    pub fn node_name(&self, k: usize) -> String {
        node_name(k, self.top_sps)
    }

    /// Send what the dies asked for, and deliver what arrives this cycle.
    pub fn route(&mut self) {
        for k in 0..self.dies.len() {
            for (to, r) in std::mem::take(&mut self.dies[k].outbound) {
                if (to as usize) < self.dies.len() {
                    self.queue(self.now, Flight::Req { to, r });
                } else {
                    self.dies[k].remote_answer(r.by, NO_SUCH_NODE);
                }
            }
        }
        for k in 0..self.dies.len() {
            for (r, rsp) in std::mem::take(&mut self.dies[k].replies) {
                self.queue(self.now, Flight::Rsp { r, rsp });
            }
        }
        // One latency for all: the queue is in arrival order.
        while self.flights.front().is_some_and(|f| f.0 <= self.now) {
            let Some((_, f, k)) = self.flights.pop_front() else { break };
            match f {
                Flight::Req { to, r } => {
                    if let Some(c) = self.crossings.get_mut(k) {
                        c.arrived = Some(self.now);
                    }
                    self.dies[to as usize].inbound.push_back(r);
                    self.remote += 1;
                }
                Flight::Rsp { r, rsp } => {
                    if let Some(src) = self.dies.get_mut(r.from_die as usize) {
                        src.remote_answer(r.by, rsp);
                    }
                }
            }
        }
    }

    /// Put `f`, sent at the end of mesh cycle `t`, on its way: due
    /// `latency` later; a request is logged (the first
    /// [`crate::sched::LOG_LIMIT`]; a long run that polls across dies would
    /// grow the log without end).
    fn queue(&mut self, t: u64, f: Flight) {
        let k = match f {
            Flight::Req { to, r } if self.crossings.len() < crate::sched::LOG_LIMIT => {
                self.crossings.push(Crossing { sent: t, arrived: None, from: r.from_die, to, by: r.by, write: r.req.write, addr: r.req.addr });
                self.crossings.len() - 1
            }
            _ => usize::MAX,
        };
        self.flights.push_back((t + self.latency, f, k));
    }

    /// The dies' counters together: cycles the most any die ran, the rest summed.
    pub fn stats(&self) -> crate::sched::Stats {
        let mut t = crate::sched::Stats::default();
        for s in self.dies.iter().map(|c| c.stats) {
            t.cycles = t.cycles.max(s.cycles);
            t.transactions += s.transactions;
            t.core_transactions += s.core_transactions;
            t.elided += s.elided;
            t.retired += s.retired;
            t.bus_waits += s.bus_waits;
            t.stalls_released += s.stalls_released;
            t.doorbells += s.doorbells;
            t.starts += s.starts;
            t.xlat += s.xlat;
            t.skipped += s.skipped;
            t.devmem += s.devmem;
            t.first_release = t.first_release.or(s.first_release);
        }
        t
    }

    /// Trace every node from now on, node k into [`node_path`]`(path, k, top_sps)`.
    pub fn trace(&mut self, path: &std::path::Path) -> Result<(), CosimError> {
        let k_per_die = self.top_sps;
        for (k, c) in self.dies.iter_mut().enumerate() {
            c.trace(&node_path(path, k, k_per_die))?;
        }
        Ok(())
    }

    /// Close every die's trace (FSTs are converted here).
    pub fn trace_close(&mut self) -> Result<(), CosimError> {
        for c in &mut self.dies {
            c.dut.trace_close()?;
        }
        Ok(())
    }

    /// Crossings under way.
    pub fn in_flight(&self) -> usize {
        self.flights.len()
    }

    /// One cycle of every die (a quiescent one's skipped, with [`Mesh::skip_quiet`]).
    pub fn cycle(&mut self) {
        for c in &mut self.dies {
            node_cycle(c, self.skip_quiet);
        }
        self.now += 1;
        self.route();
        if self.now.is_multiple_of(crate::interrupt::POLL_CYCLES) && crate::interrupt::requested() {
            let mut all: Vec<&mut Cosim> = self.dies.iter_mut().collect();
            crate::interrupt::stop(&mut all);
        }
    }

    /// Threads [`Mesh::run_until_all`] uses: [`Mesh::threads`], at most
    /// one per node, and one when the link has no latency (a node could
    /// then hear from another in the cycle it was sent: there is no window
    /// to run alone in).
    pub fn threads_used(&self) -> usize {
        if self.latency == 0 {
            1
        } else {
            self.threads.clamp(1, self.dies.len().max(1))
        }
    }

    /// Why this mesh runs on fewer threads than asked, if it does.
    pub fn threads_note(&self) -> Option<String> {
        let used = self.threads_used();
        (used < self.threads).then(|| {
            if self.latency == 0 {
                format!("link latency 0: the {} nodes run on one thread, not {} (threads run alone for a latency window)", self.dies.len(), self.threads)
            } else {
                format!("{} nodes: {used} threads, not {}", self.dies.len(), self.threads)
            }
        })
    }

    /// Run until `pred` holds on every node at one cycle, or `limit` cycles;
    /// returns whether it did. The nodes run on [`Mesh::threads_used`]
    /// threads; the cycles, transactions, crossings and traces are the same
    /// on any number (see `parallel`).
    pub fn run_until_all<P: Fn(&Cosim) -> bool + Sync>(&mut self, limit: u64, pred: P) -> bool {
        if self.latency == 0 && self.threads > 1 && !self.noted {
            self.noted = true;
            if let Some(note) = self.threads_note() {
                eprintln!("tpb: {note}");
            }
        }
        match self.threads_used() {
            1 => self.run_until(limit, |m| m.dies.iter().all(&pred)),
            t => parallel::run_until_all(self, t, limit, &pred),
        }
    }

    /// Run until `done(self)` or `limit` cycles; returns whether it became true.
    pub fn run_until(&mut self, limit: u64, mut done: impl FnMut(&Mesh) -> bool) -> bool {
        self.route();
        for _ in 0..limit {
            if done(self) {
                return true;
            }
            self.cycle();
        }
        done(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn die_addresses_put_the_die_in_the_chip_id_and_die_bit() {
        let a = 0x0000_0060_0000_1800u64;
        assert_eq!(die_addr(a, 0).unwrap(), a | 1 << 54);
        assert_eq!(die_addr(a, 1).unwrap(), a | 1 << 54 | 1 << 47);
        assert_eq!(die_addr(a, 13).unwrap(), a | 1 << 54 | 6 << 48 | 1 << 47);
        assert_eq!(die_addr(a, 127).unwrap(), a | 1 << 54 | 63 << 48 | 1 << 47);
        assert!(die_addr(a, 128).unwrap_err().to_string().contains("128 dies"));
        assert!(die_addr(a | 1 << 47, 2).unwrap_err().to_string().contains("not a die-0 address"));
        // An address the SoC format cannot hold: the packing error, typed, as the cause.
        let e = die_addr(1 << 60, 1).unwrap_err();
        assert!(matches!(&e, CosimError::DieAddr { die: 1, source: tpb_models::ncfw::PackError::Invalid { .. }, .. }), "{e:?}");
        assert!(e.to_string().starts_with("die_addr(0x1000000000000000, die 1): SoC address: ") && e.to_string().contains("bits above 54"), "{e}");
        assert!(std::error::Error::source(&e).is_some());
    }
}
