//! In-process golden model of one TPB's BAR0 at transaction level: the
//! generated register blocks (through [`tpb_golden::csr::CsrModel`], one per
//! engine and block), the EVT_SEM semaphore arrays, and the memories
//! (SEQ/Q7 IRAM and DRAM, the HW-decode CAM/table). It is the HAL's
//! transport until the RTL tops exist, and the reference they are compared to.
//!
//! Hardware-side behaviour it stands in for (`[D]`, the RTL issue refines it):
//! a core's `run_state.running` reads 1 while its run-stall bit is clear
//! (NX: `release_run_stall.stall`; Q7 core n: bit n of the Q7 bundle's
//! `release_run_stall`) and, for an NX core, its `instr_halt_ctrl.halt` is
//! clear (halt also reads as `run_state.halted`; a start_ctrl write of 1
//! clears it). Semaphores wrap modulo 2^32. Doorbell pulses and
//! semaphore operations are kept in an event log the tests read.

use super::devmem::{check_copies, DevMem, DevMemory, DmaCopy};
use super::mmio::{check_buf, Mmio, MmioError};
use std::collections::BTreeMap;
use tpb_golden::csr::{CsrModel, Req};
use tpb_regmap::space::{AddressSpace, Target};
use tpb_regmap::{RegMap, RegionKind, WindowOp};

/// Something the model saw happen besides plain register storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A doorbell register field pulsed (`engine.block.register.field`, written value).
    Doorbell { name: String, value: u32 },
    /// A semaphore operation (`engine`, window op, index, value before, value after).
    Semaphore { engine: String, op: WindowOp, index: u32, before: u32, after: u32 },
}

/// The golden BAR0 model of one TPB.
#[derive(Debug, Clone)]
pub struct RegFileModel {
    bar0: AddressSpace,
    /// (region name, block name) -> model.
    csr: BTreeMap<(String, String), CsrModel>,
    /// (region name, array name) -> values.
    arrays: BTreeMap<(String, String), Vec<u32>>,
    /// region name -> bytes (allocated on first touch).
    mem: BTreeMap<String, Vec<u8>>,
    events: Vec<Event>,
    /// The device memory beside the TPB ([`DevMem`]).
    pub devmem: DevMemory,
}

impl RegFileModel {
    /// A model of one TPB of the given generation, in its reset state.
    pub fn new(map: RegMap) -> Self {
        let bar0 = AddressSpace::new(map);
        let mut csr = BTreeMap::new();
        let mut arrays = BTreeMap::new();
        for region in bar0.regions() {
            for b in bar0.blocks_of(region) {
                // Hand-written blocks too: their registers as the map gives them
                // (no engine behind them here: status reads as reset).
                if !b.registers.is_empty() {
                    csr.insert((region.name.clone(), b.name.clone()), CsrModel::new(b));
                }
                for a in &b.arrays {
                    arrays.insert((region.name.clone(), a.name.clone()), vec![a.reset as u32; a.count as usize]);
                }
            }
        }
        RegFileModel { bar0, csr, arrays, mem: BTreeMap::new(), events: Vec::new(), devmem: DevMemory::default() }
    }

    pub fn bar0(&self) -> &AddressSpace {
        &self.bar0
    }

    /// Doorbells and semaphore operations seen so far, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Current value of semaphore `index` of `engine`'s EVT_SEM (a debug
    /// peek, not a bus access).
    pub fn semaphore(&self, engine: &str, index: u32) -> Option<u32> {
        self.arrays.get(&(format!("{engine}.local_reg"), "evt_sem".into()))?.get(index as usize).copied()
    }

    /// Bytes of a memory region (zeros where never written).
    pub fn memory(&self, region: &str, offset: u64, len: usize) -> Option<Vec<u8>> {
        let r = self.bar0.regions().iter().find(|r| r.name == region)?;
        if offset + len as u64 > r.region.size {
            return None;
        }
        Some(match self.mem.get(region) {
            Some(m) => m[offset as usize..offset as usize + len].to_vec(),
            None => vec![0; len],
        })
    }

    /// Hardware-side inputs of a block as this model drives them.
    fn inputs(m: &CsrModel) -> BTreeMap<String, u64> {
        let mut inp = BTreeMap::new();
        let stall = m.output("release_run_stall_stall_o");
        let halt = m.output("instr_halt_ctrl_halt_o").unwrap_or(0) & 1;
        if m.output("start_ctrl_ctrl_pulse_o").is_some() {
            let start = m.output("start_ctrl_ctrl_pulse_o").unwrap_or(0) & m.output("start_ctrl_ctrl_o").unwrap_or(0) & 1;
            inp.insert("instr_halt_ctrl_halt_clr_i".into(), start);
        }
        if let Some(stall) = stall {
            for r in &m.block().registers {
                if r.group != "run_state" {
                    continue;
                }
                let running = match r.index {
                    None => stall == 0 && halt == 0,
                    Some(n) => (stall >> n) & 1 == 0,
                };
                let port = |field: &str| r.fields.iter().find(|f| f.name == field).map(|f| tpb_regmap::gen::rust_hdl::port_name(r, f, "_i"));
                if let Some(p) = port("running") {
                    inp.insert(p, running as u64);
                }
                if let (None, Some(p)) = (r.index, port("halted")) {
                    inp.insert(p, halt);
                }
            }
        }
        inp
    }

    fn access(&mut self, write: bool, addr: u64, value: u32) -> Result<u32, MmioError> {
        let kind = if write { "write" } else { "read" };
        if !addr.is_multiple_of(4) {
            return Err(MmioError::Misaligned { kind, addr });
        }
        let target = self.bar0.decode(addr).ok_or(MmioError::Unmapped { kind, addr })?;
        let name = target.name();
        match target {
            Target::Reg { region, block, reg } => {
                let key = (region.name.clone(), block.name.clone());
                let single = reg.fields.len() == 1;
                let doorbells: Vec<(String, String)> = reg
                    .fields
                    .iter()
                    .filter(|f| f.access == tpb_regmap::Access::Doorbell)
                    .map(|f| {
                        let label = if single { name.clone() } else { format!("{name}.{}", f.name) };
                        (tpb_regmap::gen::rust_hdl::port_name(reg, f, "_pulse_o"), label)
                    })
                    .collect();
                let offset = reg.offset;
                let m = self.csr.get_mut(&key).expect("every register block has a model");
                let inputs = Self::inputs(m);
                m.step(false, Some(Req { write, addr: offset, wdata: value }), &inputs);
                let rsp = m.rsp();
                if rsp.err {
                    return Err(MmioError::BusError { addr, what: name });
                }
                for (port, label) in doorbells {
                    if write && m.output(&port) == Some(1) {
                        self.events.push(Event::Doorbell { name: label, value });
                    }
                }
                // A start acts at once (the next cycle in the RTL): it clears
                // the halt before the host's next access.
                if m.output("start_ctrl_ctrl_pulse_o") == Some(1) {
                    let inputs = Self::inputs(m);
                    m.step(false, None, &inputs);
                }
                Ok(rsp.rdata)
            }
            Target::Elem { region, array, window, index, .. } => {
                let engine = match region.kind {
                    RegionKind::LocalReg(e) => e.name().to_string(),
                    _ => region.name.clone(),
                };
                let op = window.op;
                let key = (region.name.clone(), array.name.clone());
                let v = &mut self.arrays.get_mut(&key).expect("every array has storage")[index as usize];
                let before = *v;
                if !write {
                    return Ok(before);
                }
                *v = match op {
                    WindowOp::Read => before,
                    WindowOp::Set => value,
                    WindowOp::Inc => before.wrapping_add(value),
                    WindowOp::Dec => before.wrapping_sub(value),
                };
                self.events.push(Event::Semaphore { engine, op, index, before, after: *v });
                Ok(0)
            }
            Target::Mem { region, offset } => {
                let size = region.region.size as usize;
                let mem = self.mem.entry(region.name.clone()).or_insert_with(|| vec![0; size]);
                let o = offset as usize;
                if write {
                    mem[o..o + 4].copy_from_slice(&value.to_le_bytes());
                    Ok(0)
                } else {
                    Ok(u32::from_le_bytes([mem[o], mem[o + 1], mem[o + 2], mem[o + 3]]))
                }
            }
            Target::Hole { .. } => Err(MmioError::BusError { addr, what: name }),
        }
    }
}

impl Mmio for RegFileModel {
    fn read32(&mut self, addr: u64) -> Result<u32, MmioError> {
        self.access(false, addr, 0)
    }

    fn write32(&mut self, addr: u64, value: u32) -> Result<(), MmioError> {
        self.access(true, addr, value).map(|_| ())
    }

    /// All-or-nothing: the whole buffer must be aligned and lie in one memory region.
    fn write_buf(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        check_buf(addr, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        let end = addr + data.len() as u64;
        let region = self.bar0.region(addr).ok_or(MmioError::Unmapped { kind: "write_buf", addr })?;
        if region.kind != RegionKind::Memory || end > region.region.end() {
            return Err(MmioError::BufOutOfRegion { addr, end, what: region.name.clone() });
        }
        let size = region.region.size as usize;
        let o = (addr - region.region.base) as usize;
        let mem = self.mem.entry(region.name.clone()).or_insert_with(|| vec![0; size]);
        mem[o..o + data.len()].copy_from_slice(data);
        Ok(())
    }
}

/// At transaction level: a copy lands at once, as one buffer write.
impl DevMem for RegFileModel {
    fn devmem_write(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        self.devmem.write(addr, data)
    }

    fn init_dma(&mut self, copies: &[DmaCopy]) -> Result<(), MmioError> {
        check_copies(&self.bar0, copies)?;
        for c in copies {
            let data = self.devmem.read(c.src, c.len);
            self.write_buf(c.dst, &data)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_regmap::{builtin, Arch};

    fn cayman() -> RegFileModel {
        RegFileModel::new(builtin(Arch::Cayman).unwrap())
    }

    #[test]
    fn run_state_follows_run_stall() {
        let mut m = cayman();
        assert_eq!(m.read32(0x2860004).unwrap(), 1, "NX reset: stalled");
        assert_eq!(m.read32(0x2860014).unwrap() & 1, 0);
        m.write32(0x2860004, 0).unwrap();
        assert_eq!(m.read32(0x2860014).unwrap() & 1, 1);
        assert_eq!(m.read32(0x2863000).unwrap(), 0xff, "Q7 reset: all stalled");
        m.write32(0x2863000, 0xfe).unwrap();
        assert_eq!(m.read32(0x2863008).unwrap() & 1, 1, "core 0 runs");
        assert_eq!(m.read32(0x286300c).unwrap() & 1, 0, "core 1 stalled");
    }

    #[test]
    fn semaphores_set_inc_dec_and_wrap() {
        let mut m = cayman();
        m.write32(0x61400 + 4 * 7, 0xffff_fffe).unwrap();
        m.write32(0x61800 + 4 * 7, 3).unwrap();
        assert_eq!(m.read32(0x61000 + 4 * 7).unwrap(), 1);
        m.write32(0x61c00 + 4 * 7, 2).unwrap();
        assert_eq!(m.semaphore("top_sp", 7), Some(0xffff_ffff));
        assert_eq!(m.events().len(), 3);
    }

    #[test]
    fn bad_accesses_are_typed_errors_and_change_nothing() {
        let mut m = cayman();
        assert!(matches!(m.write32(0x2860006, 0), Err(MmioError::Misaligned { .. })));
        assert!(matches!(m.read32(0x0500_0000), Err(MmioError::Unmapped { .. })));
        assert!(matches!(m.write32(0x2865000, 1), Err(MmioError::BusError { .. })));
        assert!(matches!(m.write_buf(0x3100002, &[0; 8]), Err(MmioError::MisalignedBuf { .. })));
        assert!(matches!(m.write_buf(0x3100000, &[0; 6]), Err(MmioError::MisalignedBuf { .. })));
        // Runs past the end of core 0's IRAM: refused whole.
        let e = m.write_buf(0x311fff8, &[0xaa; 16]).unwrap_err();
        assert!(e.to_string().contains("q7[0].iram"), "{e}");
        assert_eq!(m.memory("q7[0].iram", 0x1fff8, 8).unwrap(), vec![0; 8]);
        assert_eq!(m.read32(0x2860004).unwrap(), 1);
    }

    #[test]
    fn doorbells_are_logged() {
        let mut m = RegFileModel::new(builtin(Arch::Sunda).unwrap());
        m.write32(0x60848, 1).unwrap();
        assert_eq!(m.events(), &[Event::Doorbell { name: "top_sp.top_sp.host_trigger".into(), value: 1 }]);
    }
}
