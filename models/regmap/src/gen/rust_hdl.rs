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
//! when the register has the single implicit field `value`). The copies of a
//! repeated register (`repeat` in the map, as reggen's multiregs) share one
//! array per port, named after the group: `window_src_lo_o[3]` in Rust,
//! `window_src_lo_o$3` in the Verilog and the waves (rust-hdl's array naming).
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

/// Base name of a field's ports and storage: the array's name for a
/// repeated register (`window_src_lo`), the register's otherwise.
pub fn port_ident(reg: &Register, f: &Field) -> String {
    let stem = if reg.index.is_some() { &reg.group } else { &reg.name };
    if reg.fields.len() == 1 && f.name == "value" {
        stem.clone()
    } else {
        format!("{stem}_{}", f.name)
    }
}

/// A key unique to a field in its block (`window_src_lo$3`, `dma_ctrl_enable`).
pub fn port_base(reg: &Register, f: &Field) -> String {
    element(port_ident(reg, f), reg.index)
}

/// The name of one of a field's ports in the RTL, the Verilog and the waves:
/// `port_name(r, f, "_o")` is `window_src_lo_o$3` for window 3's `src_lo`.
pub fn port_name(reg: &Register, f: &Field, suffix: &str) -> String {
    element(format!("{}{suffix}", port_ident(reg, f)), reg.index)
}

fn element(ident: String, index: Option<u32>) -> String {
    match index {
        Some(i) => format!("{ident}${i}"),
        None => ident,
    }
}

/// Where a field's storage and ports live in the generated struct: a plain
/// member, or element `index` of an array of `count`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot {
    ident: String,
    index: Option<(u32, u32)>,
}

impl Slot {
    fn of(block: &Block, reg: &Register, f: &Field) -> Slot {
        let index = reg.index.map(|i| (i, block.registers.iter().filter(|r| r.index.is_some() && r.group == reg.group).count() as u32));
        Slot { ident: port_ident(reg, f), index }
    }
    /// The Rust place of member `<ident><suffix>`: `self.x_q` or `self.x_q[3]`.
    fn at(&self, suffix: &str) -> String {
        match self.index {
            Some((i, _)) => format!("self.{}{suffix}[{i}]", self.ident),
            None => format!("self.{}{suffix}", self.ident),
        }
    }
    /// The declaration of member `<ident><suffix>` of type `ty`, written once
    /// for an array (at its first element).
    fn decl(&self, suffix: &str, ty: &str) -> Option<String> {
        match self.index {
            Some((0, n)) => Some(format!("{}{suffix}: [{ty}; {n}]", self.ident)),
            Some(_) => None,
            None => Some(format!("{}{suffix}: {ty}", self.ident)),
        }
    }
}

/// Direction of a hardware-side port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortDir {
    In,
    Out,
}

/// One hardware-side port of a generated block (one element of an array port).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HwPort {
    /// As in the Verilog and the waves (`port_name`).
    pub name: String,
    /// The field's key (`port_base`).
    pub base: String,
    pub dir: PortDir,
    pub width: u32,
    pub register: String,
    pub field: String,
    /// A single-bit strobe of type `Bit` rather than `Bits<1>`.
    pub is_bit: bool,
    slot: Slot,
    suffix: &'static str,
}

/// The hardware-side ports of a block, in declaration order.
pub fn hw_ports(block: &Block) -> Vec<HwPort> {
    let mut v = Vec::new();
    for r in &block.registers {
        for f in &r.fields {
            let slot = Slot::of(block, r, f);
            let mut p = |suffix: &'static str, dir, width| {
                v.push(HwPort {
                    name: port_name(r, f, suffix),
                    base: port_base(r, f),
                    dir,
                    width,
                    register: r.name.clone(),
                    field: f.name.clone(),
                    is_bit: suffix == "_pulse_o",
                    slot: slot.clone(),
                    suffix,
                })
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

/// A flip-flop behind a field: `<ident>_q` holds a stored field,
/// `<ident>_pulse_q` a doorbell's one-cycle pulse.
enum Flop {
    Stored { slot: Slot, width: u32, reset: u64 },
    Pulse { slot: Slot },
}

/// The block's field flip-flops in declaration order (a field can have both).
fn flops(block: &Block) -> Vec<Flop> {
    let mut out = Vec::new();
    for r in &block.registers {
        for f in &r.fields {
            let slot = Slot::of(block, r, f);
            if f.access.is_stored() {
                out.push(Flop::Stored { slot: slot.clone(), width: f.width, reset: f.reset });
            }
            if f.access == Access::Doorbell {
                out.push(Flop::Pulse { slot });
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
    block_struct(&mut s, block, &tn, &ports);
    block_update(&mut s, block, &tn);
    block_ports_impl(&mut s, &tn, &ports);
    s
}

/// The block's struct (doc, ports, registers).
fn block_struct(w: &mut String, block: &Block, tn: &str, ports: &[HwPort]) {
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
        if let Some(decl) = p.slot.decl(p.suffix, &format!("Signal<{d}, {t}>")) {
            writeln!(w, "    pub {decl},").unwrap();
        }
    }
    writeln!(w, "    rsp_valid_q: DFF<Bit>,").unwrap();
    writeln!(w, "    rsp_rdata_q: DFF<Bits<32>>,").unwrap();
    writeln!(w, "    rsp_err_q: DFF<Bit>,").unwrap();
    for fl in flops(block) {
        let decl = match fl {
            Flop::Stored { slot, width, .. } => slot.decl("_q", &format!("DFF<{}>", ty(width))),
            Flop::Pulse { slot } => slot.decl("_pulse_q", "DFF<Bit>"),
        };
        if let Some(decl) = decl {
            writeln!(w, "    {decl},").unwrap();
        }
    }
    writeln!(w, "}}\n").unwrap();
}

/// The clock and hold-by-default of every flip-flop: `dff_setup!` for the
/// plain ones, a loop per array.
fn clock_flops(w: &mut String, block: &Block) {
    let mut plain: Vec<String> = vec!["rsp_valid_q".into(), "rsp_rdata_q".into(), "rsp_err_q".into()];
    let mut arrays = Vec::new();
    for fl in flops(block) {
        let (slot, suffix) = match fl {
            Flop::Stored { slot, .. } => (slot, "_q"),
            Flop::Pulse { slot } => (slot, "_pulse_q"),
        };
        match slot.index {
            None => plain.push(format!("{}{suffix}", slot.ident)),
            Some((0, n)) => arrays.push((format!("{}{suffix}", slot.ident), n)),
            Some(_) => {}
        }
    }
    writeln!(w, "        dff_setup!(self, clock, {});", plain.join(", ")).unwrap();
    for (name, n) in arrays {
        writeln!(w, "        for i in 0..{n} {{").unwrap();
        writeln!(w, "            self.{name}[i].clock.next = self.clock.val();").unwrap();
        writeln!(w, "            self.{name}[i].d.next = self.{name}[i].q.val();").unwrap();
        writeln!(w, "        }}").unwrap();
    }
}

/// The block's `update`: hardware-side defaults, the bus decode, reset, outputs.
fn block_update(w: &mut String, block: &Block, tn: &str) {
    writeln!(w, "impl Logic for {tn} {{").unwrap();
    writeln!(w, "    #[hdl_gen]").unwrap();
    writeln!(w, "    fn update(&mut self) {{").unwrap();
    clock_flops(w, block);
    writeln!(w, "        self.rsp_valid_q.d.next = false;").unwrap();
    writeln!(w, "        self.rsp_err_q.d.next = false;").unwrap();
    writeln!(w, "        self.rsp_rdata_q.d.next = 0.into();").unwrap();
    // Hardware-side defaults.
    for r in &block.registers {
        for f in &r.fields {
            let s = Slot::of(block, r, f);
            let (q, d) = (format!("{}.q.val()", s.at("_q")), format!("{}.d.next", s.at("_q")));
            match f.access {
                Access::W1c | Access::Rc => writeln!(w, "        {d} = {q} | {}.val();", s.at("_set_i")).unwrap(),
                Access::W1s => writeln!(w, "        {d} = {q} & !{}.val();", s.at("_clr_i")).unwrap(),
                Access::Doorbell => writeln!(w, "        {}.d.next = false;", s.at("_pulse_q")).unwrap(),
                _ => {}
            }
        }
    }
    writeln!(w, "        if self.req_valid.val() {{").unwrap();
    writeln!(w, "            self.rsp_valid_q.d.next = true;").unwrap();
    writeln!(w, "            if self.req_addr.val().get_bit(0) | self.req_addr.val().get_bit(1) {{").unwrap();
    writeln!(w, "                self.rsp_err_q.d.next = true;").unwrap();
    for r in &block.registers {
        register_case(w, block, r);
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
            Flop::Stored { slot, reset, .. } => writeln!(w, "            {}.d.next = {reset:#x}.into();", slot.at("_q")).unwrap(),
            Flop::Pulse { slot } => writeln!(w, "            {}.d.next = false;", slot.at("_pulse_q")).unwrap(),
        }
    }
    writeln!(w, "        }}").unwrap();
    // Outputs.
    writeln!(w, "        self.rsp_valid.next = self.rsp_valid_q.q.val();").unwrap();
    writeln!(w, "        self.rsp_rdata.next = self.rsp_rdata_q.q.val();").unwrap();
    writeln!(w, "        self.rsp_err.next = self.rsp_err_q.q.val();").unwrap();
    for fl in flops(block) {
        match fl {
            Flop::Stored { slot, .. } => writeln!(w, "        {}.next = {}.q.val();", slot.at("_o"), slot.at("_q")).unwrap(),
            Flop::Pulse { slot } => writeln!(w, "        {}.next = {}.q.val();", slot.at("_pulse_o"), slot.at("_pulse_q")).unwrap(),
        }
    }
    writeln!(w, "    }}").unwrap();
    writeln!(w, "}}\n").unwrap();
}

/// One register's arm of the bus decode: its writes and its read value.
fn register_case(w: &mut String, block: &Block, r: &Register) {
    writeln!(w, "            }} else if self.req_addr.val() == {:#x} {{", r.offset).unwrap();
    writeln!(w, "                // {}", r.name).unwrap();
    // write
    let writes: Vec<&Field> = r.fields.iter().filter(|f| f.access != Access::Ro && f.access != Access::Rc).collect();
    writeln!(w, "                if self.req_write.val() {{").unwrap();
    for f in &writes {
        let s = Slot::of(block, r, f);
        let (q, d) = (format!("{}.q.val()", s.at("_q")), format!("{}.d.next", s.at("_q")));
        let wf = wfield(f);
        match f.access {
            Access::Rw | Access::Wo => writeln!(w, "                    {d} = {wf};").unwrap(),
            Access::Doorbell => {
                writeln!(w, "                    {d} = {wf};").unwrap();
                writeln!(w, "                    {}.d.next = true;", s.at("_pulse_q")).unwrap();
            }
            Access::W1c => writeln!(w, "                    {d} = ({q} & !{wf}) | {}.val();", s.at("_set_i")).unwrap(),
            Access::W1s => writeln!(w, "                    {d} = ({q} & !{}.val()) | {wf};", s.at("_clr_i")).unwrap(),
            Access::Ro | Access::Rc => unreachable!(),
        }
    }
    writeln!(w, "                }} else {{").unwrap();
    let mut terms = Vec::new();
    for f in &r.fields {
        let s = Slot::of(block, r, f);
        match f.access {
            Access::Ro => terms.push(placed(&format!("{}.val()", s.at("_i")), f)),
            Access::Wo | Access::Doorbell => {}
            _ => terms.push(placed(&format!("{}.q.val()", s.at("_q")), f)),
        }
        if f.access == Access::Rc {
            writeln!(w, "                    {}.d.next = {}.val();", s.at("_q"), s.at("_set_i")).unwrap();
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
        writeln!(
            w,
            "            \"{n}\" => {{ crate::bar0_port::check_width(port, {wd}, value)?; {at}.next = value.into(); Ok(()) }}",
            n = p.name,
            wd = p.width,
            at = p.slot.at(p.suffix)
        )
        .unwrap();
    }
    writeln!(w, "            _ => Err(crate::bar0_port::PortError::NoSuchInput(port.to_string())),").unwrap();
    writeln!(w, "        }}").unwrap();
    writeln!(w, "    }}").unwrap();
    writeln!(w, "    fn output(&self, port: &str) -> Option<u64> {{").unwrap();
    writeln!(w, "        match port {{").unwrap();
    for p in ports.iter().filter(|p| p.dir == PortDir::Out) {
        if p.is_bit {
            writeln!(w, "            \"{n}\" => Some({at}.val() as u64),", n = p.name, at = p.slot.at(p.suffix)).unwrap();
        } else {
            writeln!(w, "            \"{n}\" => Some({at}.val().to_u64()),", n = p.name, at = p.slot.at(p.suffix)).unwrap();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn block(arch: crate::Arch, name: &str) -> Block {
        let maps = crate::builtin_all().unwrap();
        maps.into_iter().find(|m| m.arch == arch).unwrap().blocks.into_iter().find(|b| b.name == name).unwrap()
    }

    /// A repeated register's copies are one array per port and per
    /// flip-flop, indexed in the map's order; plain registers stay members.
    #[test]
    fn repeated_registers_become_arrays() {
        let b = block(crate::Arch::Cayman, "windows");
        let names: Vec<String> = hw_ports(&b).iter().filter(|p| p.register.ends_with("_src_lo")).map(|p| p.name.clone()).collect();
        assert_eq!(names, (0..8).map(|n| format!("window_src_lo_o${n}")).collect::<Vec<_>>());
        let src = block_source(&b);
        assert!(src.contains("pub window_src_lo_o: [Signal<Out, Bits<32>>; 8],"), "{src}");
        assert!(src.contains("window_src_lo_q: [DFF<Bits<32>>; 8],"));
        assert!(src.contains("for i in 0..8 {\n            self.window_src_lo_q[i].clock.next = self.clock.val();"));
        // window 3's src_lo is decoded at 0x2000 + 3 * 0x1c.
        assert!(src.contains("} else if self.req_addr.val() == 0x2054 {\n                // window3_src_lo\n                if self.req_write.val() {\n                    self.window_src_lo_q[3].d.next = self.req_wdata.val();"));
        let q7 = block(crate::Arch::Cayman, "q7");
        let run: Vec<String> = hw_ports(&q7).iter().filter(|p| p.register == "run_state_5").map(|p| p.name.clone()).collect();
        assert_eq!(run, ["run_state_running_i$5", "run_state_halted_i$5"]);
        assert!(block_source(&q7).contains("pub release_run_stall_stall_o: Signal<Out, Bits<8>>,"));
    }
}
