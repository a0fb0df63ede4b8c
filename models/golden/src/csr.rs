//! Golden, cycle-level model of a generated register block, interpreting the
//! register map directly (no generated code): the reference the rust-hdl and
//! Verilator blocks are compared against under random traffic.
//!
//! Semantics (the same contract as `hdl/src/bar0_port.rs`): a request is
//! taken on a clock edge and answered, registered, in the following cycle;
//! unmapped or misaligned addresses answer with an error and change nothing;
//! hardware set (w1c, rc) wins over a same-cycle software clear; a software
//! set (w1s) wins over a same-cycle hardware clear; a doorbell write raises
//! `_pulse_o` for exactly one cycle.

use std::collections::BTreeMap;
use tpb_regmap::gen::rust_hdl::{hw_ports, port_base, port_name, HwPort, PortDir};
use tpb_regmap::{Access, Block};

/// One bus request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Req {
    pub write: bool,
    pub addr: u32,
    pub wdata: u32,
}

/// One bus response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rsp {
    pub valid: bool,
    pub rdata: u32,
    pub err: bool,
}

/// Cycle-level golden model of one register block.
#[derive(Debug, Clone)]
pub struct CsrModel {
    block: Block,
    ports: Vec<HwPort>,
    /// Stored field values by port base name.
    stored: BTreeMap<String, u64>,
    pulses: BTreeMap<String, bool>,
    rsp: Rsp,
    /// (field, its hardware set/clear input port, access) of w1c/rc/w1s fields.
    hw_inputs: Vec<(String, String, Access)>,
}

impl CsrModel {
    /// A model in its reset state.
    pub fn new(block: &Block) -> Self {
        let mut m = CsrModel { block: block.clone(), ports: hw_ports(block), stored: BTreeMap::new(), pulses: BTreeMap::new(), rsp: Rsp::default(), hw_inputs: Vec::new() };
        for r in &block.registers {
            for f in &r.fields {
                let b = port_base(r, f);
                match f.access {
                    Access::W1c | Access::Rc => m.hw_inputs.push((b, port_name(r, f, "_set_i"), f.access)),
                    Access::W1s => m.hw_inputs.push((b, port_name(r, f, "_clr_i"), f.access)),
                    _ => {}
                }
            }
        }
        m.reset();
        m
    }

    pub fn block(&self) -> &Block {
        &self.block
    }

    /// The hardware-side ports (same names as the RTL).
    pub fn ports(&self) -> &[HwPort] {
        &self.ports
    }

    fn reset(&mut self) {
        self.stored.clear();
        self.pulses.clear();
        for r in &self.block.registers {
            for f in &r.fields {
                let b = port_base(r, f);
                if f.access.is_stored() {
                    self.stored.insert(b.clone(), f.reset);
                }
                if f.access == Access::Doorbell {
                    self.pulses.insert(b, false);
                }
            }
        }
        self.rsp = Rsp::default();
    }

    /// Advance one clock edge with an optional request and the hardware-side
    /// inputs as driven during this cycle (missing ports read as 0).
    pub fn step(&mut self, reset: bool, req: Option<Req>, inputs: &BTreeMap<String, u64>) {
        if reset {
            self.reset();
            return;
        }
        let inp = |name: String| inputs.get(&name).copied().unwrap_or(0);
        // Updates to the stored fields, applied in order after this edge
        // (cloning every field each cycle was most of a top model's run time).
        let mut next: Vec<(String, u64)> = Vec::new();
        for p in self.pulses.values_mut() {
            *p = false;
        }
        // Hardware-side defaults: set/clear inputs (only a non-zero input changes a field).
        for (b, key, access) in &self.hw_inputs {
            let v = inputs.get(key).copied().unwrap_or(0);
            if v != 0 {
                let q = self.stored.get(b).copied().unwrap_or(0);
                next.push((b.clone(), if *access == Access::W1s { q & !v } else { q | v }));
            }
        }
        let mut rsp = Rsp::default();
        if let Some(req) = req {
            rsp.valid = true;
            let hit = if req.addr % 4 != 0 { None } else { self.block.register_at(req.addr) };
            match hit {
                None => rsp.err = true,
                Some(r) => {
                    for f in &r.fields {
                        let b = port_base(r, f);
                        let q = self.stored.get(&b).copied().unwrap_or(0);
                        let wf = ((req.wdata as u64) >> f.lsb) & f.max();
                        if req.write {
                            match f.access {
                                Access::Rw | Access::Wo => {
                                    next.push((b, wf));
                                }
                                Access::Doorbell => {
                                    next.push((b.clone(), wf));
                                    self.pulses.insert(b, true);
                                }
                                Access::W1c => {
                                    next.push((b.clone(), (q & !wf) | inp(port_name(r, f, "_set_i"))));
                                }
                                Access::W1s => {
                                    next.push((b.clone(), (q & !inp(port_name(r, f, "_clr_i"))) | wf));
                                }
                                Access::Ro | Access::Rc => {}
                            }
                        } else {
                            let v = match f.access {
                                Access::Ro => inp(port_name(r, f, "_i")),
                                Access::Wo | Access::Doorbell => 0,
                                _ => q,
                            };
                            rsp.rdata |= ((v & f.max()) as u32) << f.lsb;
                            if f.access == Access::Rc {
                                next.push((b.clone(), inp(port_name(r, f, "_set_i"))));
                            }
                        }
                    }
                }
            }
        }
        for (k, v) in next {
            self.stored.insert(k, v);
        }
        self.rsp = rsp;
    }

    /// Response registered at the last edge.
    pub fn rsp(&self) -> Rsp {
        self.rsp
    }

    /// Value of an output port after the last edge.
    pub fn output(&self, port: &str) -> Option<u64> {
        let p = self.ports.iter().find(|p| p.name == port && p.dir == PortDir::Out)?;
        if p.is_bit {
            return self.pulses.get(&p.base).map(|&x| x as u64);
        }
        self.stored.get(&p.base).copied()
    }
}
