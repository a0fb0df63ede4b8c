//! Generates the rust-hdl source of a register block from its map: bus
//! decode, per-field storage with synchronous reset, access-type behaviour,
//! hardware-side ports and the read mux. No decoder is written by hand.
//!
//! The bus protocol of every generated block (documented in `hdl/src/bar0_port.rs`):
//! a request (`req_valid`, `req_write`, `req_addr`, `req_wdata`) is sampled
//! on a rising clock edge; its response (`rsp_valid`, `rsp_rdata`, `rsp_err`)
//! is registered and visible for exactly one cycle after that edge. There is
//! no back-pressure. Unmapped or misaligned addresses answer `rsp_err = 1`.
//!
//! Hardware-side ports per field (`<reg>_<field>` with the field name dropped
//! when the register has the single implicit field `value`):
//! - rw, wo: `_o` (current value)
//! - ro: `_i` (value driven by hardware)
//! - w1c, rc: `_o` and `_set_i` (hardware sets bits; set wins over a same-cycle clear)
//! - w1s: `_o` and `_clr_i` (hardware clears bits; a same-cycle software set wins)
//! - doorbell: `_o` (last written value) and `_pulse_o` (high one cycle after the write)

use crate::model::{Access, Block, Field, Register};
use std::fmt::Write;

/// Rust type name of a block (`CaymanNxRegs`).
pub fn type_name(block: &Block) -> String {
    block
        .module_name()
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// Base name of a field's ports and storage.
pub fn port_base(reg: &Register, f: &Field) -> String {
    if reg.fields.len() == 1 && f.name == "value" {
        reg.name.clone()
    } else {
        format!("{}_{}", reg.name, f.name)
    }
}

/// Direction of a hardware-side port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortDir {
    In,
    Out,
}

/// One hardware-side port of a generated block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HwPort {
    pub name: String,
    pub dir: PortDir,
    pub width: u32,
    pub register: String,
    pub field: String,
    /// A single-bit strobe of type `Bit` rather than `Bits<1>`.
    pub is_bit: bool,
}

/// The hardware-side ports of a block, in declaration order.
pub fn hw_ports(block: &Block) -> Vec<HwPort> {
    let mut v = Vec::new();
    for r in &block.registers {
        for f in &r.fields {
            let b = port_base(r, f);
            let mut p = |suffix: &str, dir, width| {
                v.push(HwPort { name: format!("{b}{suffix}"), dir, width, register: r.name.clone(), field: f.name.clone(), is_bit: suffix == "_pulse_o" })
            };
            match f.access {
                Access::Rw | Access::Wo => p("_o", PortDir::Out, f.width),
                Access::Ro => p("_i", PortDir::In, f.width),
                Access::W1c | Access::Rc => {
                    p("_o", PortDir::Out, f.width);
                    p("_set_i", PortDir::In, f.width);
                }
                Access::W1s => {
                    p("_o", PortDir::Out, f.width);
                    p("_clr_i", PortDir::In, f.width);
                }
                Access::Doorbell => {
                    p("_o", PortDir::Out, f.width);
                    p("_pulse_o", PortDir::Out, 1);
                }
            }
        }
    }
    v
}

/// A flip-flop behind a field: `<base>_q` holds a stored field,
/// `<base>_pulse_q` a doorbell's one-cycle pulse.
enum Flop {
    Stored { base: String, width: u32, reset: u64 },
    Pulse { base: String },
}

/// The block's field flip-flops in declaration order (a field can have both).
fn flops(block: &Block) -> Vec<Flop> {
    let mut out = Vec::new();
    for r in &block.registers {
        for f in &r.fields {
            let base = port_base(r, f);
            if f.access.is_stored() {
                out.push(Flop::Stored { base: base.clone(), width: f.width, reset: f.reset });
            }
            if f.access == Access::Doorbell {
                out.push(Flop::Pulse { base });
            }
        }
    }
    out
}

fn ty(width: u32) -> String {
    format!("Bits<{width}>")
}

fn wfield(f: &Field) -> String {
    if f.lsb == 0 && f.width == 32 {
        "self.req_wdata.val()".into()
    } else {
        format!("self.req_wdata.val().get_bits::<{}>({})", f.width, f.lsb)
    }
}

fn placed(expr: &str, f: &Field) -> String {
    let wide = if f.width == 32 { expr.to_string() } else { format!("bit_cast::<32, {}>({expr})", f.width) };
    if f.lsb == 0 {
        wide
    } else {
        format!("({wide} << {})", f.lsb)
    }
}

/// rust-hdl source of one block (a module body: `use` lines, struct, impls).
pub fn block_source(block: &Block) -> String {
    let tn = type_name(block);
    let ports = hw_ports(block);
    let mut s = String::new();
    let dffs = block_struct(&mut s, block, &tn, &ports);
    block_update(&mut s, block, &tn, &dffs);
    block_ports_impl(&mut s, &tn, &ports);
    s
}

/// The block's struct (doc, ports, registers); returns the flip-flops.
fn block_struct(w: &mut String, block: &Block, tn: &str, ports: &[HwPort]) -> Vec<String> {
    writeln!(w, "/// Register block `{}` of {} (generated from `{}`).", block.name, block.arch.name().to_uppercase(), block.source_files()).unwrap();
    writeln!(w, "///").unwrap();
    writeln!(w, "/// {}", super::rustdoc_text(&block.description)).unwrap();
    writeln!(w, "///").unwrap();
    writeln!(w, "/// Decoded view: {}; byte range {:#06x}..{:#06x} of the {:?} aperture.", block.rtl_view.name(), block.start, block.end, block.aperture).unwrap();
    writeln!(w, "/// Registers:").unwrap();
    for r in &block.registers {
        writeln!(w, "/// - `{:#06x}` `{}`: {}", r.offset, r.name, super::rustdoc_text(&r.description)).unwrap();
    }
    writeln!(w, "#[derive(Clone, Debug, Default, LogicBlock)]").unwrap();
    writeln!(w, "pub struct {tn} {{").unwrap();
    writeln!(w, "    pub clock: Signal<In, Clock>,").unwrap();
    writeln!(w, "    /// Synchronous, active-high reset to the map's reset values.").unwrap();
    writeln!(w, "    pub reset: Signal<In, Bit>,").unwrap();
    writeln!(w, "    pub req_valid: Signal<In, Bit>,").unwrap();
    writeln!(w, "    pub req_write: Signal<In, Bit>,").unwrap();
    writeln!(w, "    pub req_addr: Signal<In, Bits<32>>,").unwrap();
    writeln!(w, "    pub req_wdata: Signal<In, Bits<32>>,").unwrap();
    writeln!(w, "    pub rsp_valid: Signal<Out, Bit>,").unwrap();
    writeln!(w, "    pub rsp_rdata: Signal<Out, Bits<32>>,").unwrap();
    writeln!(w, "    pub rsp_err: Signal<Out, Bit>,").unwrap();
    for p in ports {
        let d = if p.dir == PortDir::In { "In" } else { "Out" };
        let t = if p.is_bit { "Bit".to_string() } else { ty(p.width) };
        writeln!(w, "    pub {}: Signal<{d}, {t}>,", p.name).unwrap();
    }
    let mut dffs: Vec<String> = vec!["rsp_valid_q".into(), "rsp_rdata_q".into(), "rsp_err_q".into()];
    writeln!(w, "    rsp_valid_q: DFF<Bit>,").unwrap();
    writeln!(w, "    rsp_rdata_q: DFF<Bits<32>>,").unwrap();
    writeln!(w, "    rsp_err_q: DFF<Bit>,").unwrap();
    for fl in flops(block) {
        match fl {
            Flop::Stored { base, width, .. } => {
                writeln!(w, "    {base}_q: DFF<{}>,", ty(width)).unwrap();
                dffs.push(format!("{base}_q"));
            }
            Flop::Pulse { base } => {
                writeln!(w, "    {base}_pulse_q: DFF<Bit>,").unwrap();
                dffs.push(format!("{base}_pulse_q"));
            }
        }
    }
    writeln!(w, "}}\n").unwrap();
    dffs
}

/// The block's `update`: hardware-side defaults, the bus decode, reset, outputs.
fn block_update(w: &mut String, block: &Block, tn: &str, dffs: &[String]) {
    writeln!(w, "impl Logic for {tn} {{").unwrap();
    writeln!(w, "    #[hdl_gen]").unwrap();
    writeln!(w, "    fn update(&mut self) {{").unwrap();
    writeln!(w, "        dff_setup!(self, clock, {});", dffs.join(", ")).unwrap();
    writeln!(w, "        self.rsp_valid_q.d.next = false;").unwrap();
    writeln!(w, "        self.rsp_err_q.d.next = false;").unwrap();
    writeln!(w, "        self.rsp_rdata_q.d.next = 0.into();").unwrap();
    // Hardware-side defaults.
    for r in &block.registers {
        for f in &r.fields {
            let b = port_base(r, f);
            match f.access {
                Access::W1c | Access::Rc => writeln!(w, "        self.{b}_q.d.next = self.{b}_q.q.val() | self.{b}_set_i.val();").unwrap(),
                Access::W1s => writeln!(w, "        self.{b}_q.d.next = self.{b}_q.q.val() & !self.{b}_clr_i.val();").unwrap(),
                Access::Doorbell => writeln!(w, "        self.{b}_pulse_q.d.next = false;").unwrap(),
                _ => {}
            }
        }
    }
    writeln!(w, "        if self.req_valid.val() {{").unwrap();
    writeln!(w, "            self.rsp_valid_q.d.next = true;").unwrap();
    writeln!(w, "            if self.req_addr.val().get_bit(0) | self.req_addr.val().get_bit(1) {{").unwrap();
    writeln!(w, "                self.rsp_err_q.d.next = true;").unwrap();
    for r in &block.registers {
        register_case(w, r);
    }
    writeln!(w, "            }} else {{").unwrap();
    writeln!(w, "                self.rsp_err_q.d.next = true;").unwrap();
    writeln!(w, "            }}").unwrap();
    writeln!(w, "        }}").unwrap();
    // Reset.
    writeln!(w, "        if self.reset.val() {{").unwrap();
    writeln!(w, "            self.rsp_valid_q.d.next = false;").unwrap();
    writeln!(w, "            self.rsp_err_q.d.next = false;").unwrap();
    writeln!(w, "            self.rsp_rdata_q.d.next = 0.into();").unwrap();
    for fl in flops(block) {
        match fl {
            Flop::Stored { base, reset, .. } => writeln!(w, "            self.{base}_q.d.next = {reset:#x}.into();").unwrap(),
            Flop::Pulse { base } => writeln!(w, "            self.{base}_pulse_q.d.next = false;").unwrap(),
        }
    }
    writeln!(w, "        }}").unwrap();
    // Outputs.
    writeln!(w, "        self.rsp_valid.next = self.rsp_valid_q.q.val();").unwrap();
    writeln!(w, "        self.rsp_rdata.next = self.rsp_rdata_q.q.val();").unwrap();
    writeln!(w, "        self.rsp_err.next = self.rsp_err_q.q.val();").unwrap();
    for fl in flops(block) {
        match fl {
            Flop::Stored { base, .. } => writeln!(w, "        self.{base}_o.next = self.{base}_q.q.val();").unwrap(),
            Flop::Pulse { base } => writeln!(w, "        self.{base}_pulse_o.next = self.{base}_pulse_q.q.val();").unwrap(),
        }
    }
    writeln!(w, "    }}").unwrap();
    writeln!(w, "}}\n").unwrap();
}

/// One register's arm of the bus decode: its writes and its read value.
fn register_case(w: &mut String, r: &Register) {
    writeln!(w, "            }} else if self.req_addr.val() == {:#x} {{", r.offset).unwrap();
    writeln!(w, "                // {}", r.name).unwrap();
    // write
    let writes: Vec<&Field> = r.fields.iter().filter(|f| f.access != Access::Ro && f.access != Access::Rc).collect();
    writeln!(w, "                if self.req_write.val() {{").unwrap();
    for f in &writes {
        let b = port_base(r, f);
        let wf = wfield(f);
        match f.access {
            Access::Rw | Access::Wo => writeln!(w, "                    self.{b}_q.d.next = {wf};").unwrap(),
            Access::Doorbell => {
                writeln!(w, "                    self.{b}_q.d.next = {wf};").unwrap();
                writeln!(w, "                    self.{b}_pulse_q.d.next = true;").unwrap();
            }
            Access::W1c => writeln!(w, "                    self.{b}_q.d.next = (self.{b}_q.q.val() & !{wf}) | self.{b}_set_i.val();").unwrap(),
            Access::W1s => writeln!(w, "                    self.{b}_q.d.next = (self.{b}_q.q.val() & !self.{b}_clr_i.val()) | {wf};").unwrap(),
            Access::Ro | Access::Rc => unreachable!(),
        }
    }
    writeln!(w, "                }} else {{").unwrap();
    let mut terms = Vec::new();
    for f in &r.fields {
        let b = port_base(r, f);
        match f.access {
            Access::Ro => terms.push(placed(&format!("self.{b}_i.val()"), f)),
            Access::Wo | Access::Doorbell => {}
            _ => terms.push(placed(&format!("self.{b}_q.q.val()"), f)),
        }
        if f.access == Access::Rc {
            writeln!(w, "                    self.{b}_q.d.next = self.{b}_set_i.val();").unwrap();
        }
    }
    if !terms.is_empty() {
        writeln!(w, "                    self.rsp_rdata_q.d.next = {};", terms.join(" | ")).unwrap();
    }
    writeln!(w, "                }}").unwrap();
}

/// The dynamic port access testbenches use (`RegBlockPorts`).
fn block_ports_impl(w: &mut String, tn: &str, ports: &[HwPort]) {
    writeln!(w, "impl crate::bar0_port::RegBlockPorts for {tn} {{").unwrap();
    writeln!(w, "    fn drive_clock(&mut self, level: bool) {{ self.clock.next = Clock {{ clk: level }}; }}").unwrap();
    writeln!(w, "    fn drive_reset(&mut self, level: bool) {{ self.reset.next = level; }}").unwrap();
    writeln!(w, "    fn drive_req(&mut self, valid: bool, write: bool, addr: u32, wdata: u32) {{").unwrap();
    writeln!(w, "        self.req_valid.next = valid;").unwrap();
    writeln!(w, "        self.req_write.next = write;").unwrap();
    writeln!(w, "        self.req_addr.next = (addr as u64).into();").unwrap();
    writeln!(w, "        self.req_wdata.next = (wdata as u64).into();").unwrap();
    writeln!(w, "    }}").unwrap();
    writeln!(w, "    fn rsp(&self) -> (bool, u32, bool) {{ (self.rsp_valid.val(), self.rsp_rdata.val().to_u32(), self.rsp_err.val()) }}").unwrap();
    writeln!(w, "    fn drive_input(&mut self, port: &str, value: u64) -> Result<(), crate::bar0_port::PortError> {{").unwrap();
    if !ports.iter().any(|p| p.dir == PortDir::In) {
        writeln!(w, "        let _ = value;").unwrap();
    }
    writeln!(w, "        match port {{").unwrap();
    for p in ports.iter().filter(|p| p.dir == PortDir::In) {
        writeln!(w, "            \"{n}\" => {{ crate::bar0_port::check_width(port, {wd}, value)?; self.{n}.next = value.into(); Ok(()) }}", n = p.name, wd = p.width).unwrap();
    }
    writeln!(w, "            _ => Err(crate::bar0_port::PortError::NoSuchInput(port.to_string())),").unwrap();
    writeln!(w, "        }}").unwrap();
    writeln!(w, "    }}").unwrap();
    writeln!(w, "    fn output(&self, port: &str) -> Option<u64> {{").unwrap();
    writeln!(w, "        match port {{").unwrap();
    for p in ports.iter().filter(|p| p.dir == PortDir::Out) {
        if p.is_bit {
            writeln!(w, "            \"{n}\" => Some(self.{n}.val() as u64),", n = p.name).unwrap();
        } else {
            writeln!(w, "            \"{n}\" => Some(self.{n}.val().to_u64()),", n = p.name).unwrap();
        }
    }
    writeln!(w, "            _ => None,").unwrap();
    writeln!(w, "        }}").unwrap();
    writeln!(w, "    }}").unwrap();
    writeln!(w, "}}").unwrap();
}

/// The whole generated module for a set of maps: one block type per RTL
/// block and a constructor table `new_block(arch, name)`.
pub fn module_source(maps: &[crate::RegMap]) -> String {
    let mut s = String::new();
    writeln!(s, "// {}", super::banner("tpb-regmap gen::rust_hdl (hdl/build.rs)", "models/regmap/maps/*/*.toml")).unwrap();
    writeln!(s, "use rust_hdl::prelude::*;\n").unwrap();
    for m in maps {
        for b in m.blocks.iter().filter(|b| b.has_register_rtl()) {
            s.push_str(&block_source(b));
            s.push('\n');
        }
    }
    by_arch_and_block(&mut s, maps, "A fresh, connected instance of a generated block, or None for an unknown name.", "new_block", "Box<dyn crate::bar0_port::RegBlockSim>", |b| {
        format!("Box::new(crate::bar0_port::Driver::new({}::default()))", type_name(b))
    });
    writeln!(s).unwrap();
    by_arch_and_block(&mut s, maps, "Verilog of a generated block, or None for an unknown name.", "block_verilog", "String", |b| {
        format!("crate::verilog::of(&mut {}::default(), \"{}\")", type_name(b), b.module_name())
    });
    s
}

/// A generated `pub fn <name>(arch, block) -> Option<<ret>>` with one arm per
/// (generation, block with register RTL); `arm` writes the arm's value.
fn by_arch_and_block(s: &mut String, maps: &[crate::RegMap], doc: &str, name: &str, ret: &str, arm: impl Fn(&Block) -> String) {
    writeln!(s, "/// {doc}").unwrap();
    writeln!(s, "pub fn {name}(arch: tpb_regmap::Arch, block: &str) -> Option<{ret}> {{").unwrap();
    writeln!(s, "    use tpb_regmap::Arch;").unwrap();
    writeln!(s, "    match (arch, block) {{").unwrap();
    for m in maps {
        let arch = match m.arch {
            crate::Arch::Sunda => "Sunda",
            crate::Arch::Cayman => "Cayman",
            crate::Arch::Mariana => "Mariana",
        };
        for b in m.blocks.iter().filter(|b| b.has_register_rtl()) {
            writeln!(s, "        (Arch::{arch}, \"{}\") => Some({}),", b.name, arm(b)).unwrap();
        }
    }
    writeln!(s, "        _ => None,").unwrap();
    writeln!(s, "    }}").unwrap();
    writeln!(s, "}}").unwrap();
}
