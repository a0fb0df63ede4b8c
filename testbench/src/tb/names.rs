//! Register names → BAR0 addresses, from the register maps.
//!
//! A name is `<engine>.<block>.<register>[.<field>]`, e.g.
//! `pool.q7.release_run_stall` or `pool.q7.run_state_3.running`. The block
//! may be left out when the register is unique in that engine's aperture
//! (`pe.start_ctrl`). Registers of a repeat group take an index
//! (`pool.q7.run_state[3]` = `run_state_3`); array windows take one too
//! (`top_sp.evt_sem.inc[5]`). TPB-level registers are `tpb.<register>`.
//! `port.<name>` names an output port of the top (`port.q7_run_stall`),
//! sampled, never accessed over the bus. `mem.<region>[+<offset>]` is a
//! word in one of the BAR0 memory regions of the generation's parameters
//! (`mem.q7[3].dram+0x40`, `mem.hw_decode.cam+0x10`, `mem.seq.iram`).

pub use tpb_models::regmap::space::{parse_u32, NameError};
use tpb_models::regmap::space::{AddressSpace, Named};
use tpb_models::regmap::RegMap;

/// What a name resolves to: a place on the bus (the generation's address
/// space, `tpb_regmap::space`), or an output port of the top.
// Resolved once per step at load (see `Named`): the size gap costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Bus(Named),
    /// An output port of the top.
    Port {
        name: String,
    },
}

impl Target {
    pub fn name(&self) -> &str {
        match self {
            Target::Bus(n) => n.name(),
            Target::Port { name } => name,
        }
    }
    /// The bus address, or None for a port.
    pub fn addr(&self) -> Option<u32> {
        match self {
            Target::Bus(n) => Some(n.addr()),
            Target::Port { .. } => None,
        }
    }
    /// The largest value the target holds.
    pub fn max(&self) -> u64 {
        match self {
            Target::Bus(n) => n.max(),
            Target::Port { .. } => u32::MAX as u64,
        }
    }
    /// Is this a doorbell register or field?
    pub fn is_doorbell(&self) -> bool {
        matches!(self, Target::Bus(n) if n.is_doorbell())
    }
}

/// The output ports of a generation's top that `port.<name>` samples: the
/// top's own outputs, from the port list `build.rs` read off the Verilated
/// model of the generated Verilog (the probe wrapper's ports left out).
pub fn ports(arch: tpb_models::regmap::Arch) -> Vec<&'static str> {
    tpb_cosim::verilator::top_ports(arch).iter().filter(|p| !p.input && !tpb_cosim::vlgen::is_wrapper_port(p.name)).map(|p| p.name).collect()
}

/// Every name of one generation's map and top, ready for lookups.
#[derive(Debug, Clone)]
pub struct Names {
    space: AddressSpace,
    /// The top's output ports.
    ports: Vec<&'static str>,
    /// The address space's names and the ports (for suggestions).
    all: Vec<String>,
}

impl Names {
    pub fn new(map: &RegMap) -> Names {
        let space = AddressSpace::new(map.clone());
        let ports = ports(map.arch);
        let mut all = space.all().to_vec();
        all.extend(ports.iter().map(|p| format!("port.{p}")));
        Names { space, ports, all }
    }

    pub fn map(&self) -> &RegMap {
        self.space.regmap()
    }

    /// The generation's address space.
    pub fn space(&self) -> &AddressSpace {
        &self.space
    }

    /// Canonical names of every register, field, alias, array window (`name[]`), memory region and port.
    pub fn all(&self) -> &[String] {
        &self.all
    }

    /// Resolve `name`: `port.<name>` here, everything else in the address space.
    pub fn resolve(&self, name: &str) -> Result<Target, NameError> {
        let Some(p) = name.strip_prefix("port.") else {
            return self.space.resolve(name).map(Target::Bus).map_err(|e| match e {
                NameError::Unknown { name, why, .. } => NameError::Unknown { nearest: self.nearest(&name), name, why: why.replace("or mem.", "or port./mem.") },
                e => e,
            });
        };
        if self.ports.contains(&p) {
            Ok(Target::Port { name: name.to_string() })
        } else {
            Err(NameError::Unknown { name: name.to_string(), why: "not an output port of the top".into(), nearest: self.nearest(name) })
        }
    }

    /// Up to three canonical names closest to `name` (edit distance).
    pub fn nearest(&self, name: &str) -> Vec<String> {
        tpb_models::regmap::space::nearest_names(&self.all, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_models::regmap::{builtin, Arch};

    /// Bus names are the address space's (tested in `tpb_regmap::space`);
    /// ports are this crate's.
    #[test]
    fn ports_and_bus_names_resolve_and_typos_list_the_nearest() {
        let n = Names::new(&builtin(Arch::Cayman).unwrap());
        assert_eq!(n.resolve("pool.q7.release_run_stall").unwrap().addr(), Some(n.space().resolve("pool.q7.release_run_stall").unwrap().addr()));
        assert_eq!(n.resolve("port.q7_run_stall").unwrap(), Target::Port { name: "port.q7_run_stall".into() });
        let e = n.resolve("port.q7_run_stal").unwrap_err().to_string();
        assert!(e.contains("not an output port") && e.contains("did you mean 'port.q7_run_stall'"), "{e}");
        let e = n.resolve("prt.q7_run_stall").unwrap_err().to_string();
        assert!(e.contains("or port./mem.") && e.contains("'port.q7_run_stall'"), "{e}");
        assert_eq!(parse_u32("0b101"), Some(5));
        // The ports are the top's outputs, wrapper probes left out; SUNDA's
        // top has the TOP_SP doorbell pulses, CAYMAN's the CAM.
        let s = Names::new(&builtin(Arch::Sunda).unwrap());
        assert!(s.resolve("port.host_trigger_pulse").is_ok() && n.resolve("port.host_trigger_pulse").is_err());
        assert!(n.resolve("port.hwd_miss").is_ok() && n.resolve("port.probe_seq_pc").is_err() && n.resolve("port.req_addr").is_err());
    }
}
