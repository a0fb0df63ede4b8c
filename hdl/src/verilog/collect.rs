//! Walks a rust-hdl design with a [`Probe`] and keeps, per block instance,
//! what the emitter needs: its atoms (ports, locals, constants), its HDL
//! (`Logic::hdl()`) and its children, in declaration order.

use rust_hdl::core::atom::is_atom_signed;
use rust_hdl::prelude::*;

/// One signal, port or constant of a block, named as rust-hdl names it
/// (`q7_if_valid$3`, `ent_key_op$0` for arrays and namespaces).
#[derive(Debug, Clone)]
pub struct AtomInfo {
    pub name: String,
    pub kind: AtomKind,
    pub width: usize,
    pub signed: bool,
    /// The atom's current value as a Verilog literal (a constant's value).
    pub literal: String,
}

/// One block instance.
#[derive(Debug, Clone)]
pub struct Inst {
    /// Instance name inside its parent (`sem$0`); the module name at the top.
    pub name: String,
    pub atoms: Vec<AtomInfo>,
    pub code: Verilog,
    pub children: Vec<Inst>,
}

impl Inst {
    pub fn atom(&self, name: &str) -> Option<&AtomInfo> {
        self.atoms.iter().find(|a| a.name == name)
    }
}

#[derive(Default)]
struct Collector {
    /// Open scopes with their namespace stack.
    stack: Vec<(Inst, Vec<String>)>,
    done: Option<Inst>,
}

impl Probe for Collector {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        let inst = Inst { name: name.to_string(), atoms: Vec::new(), code: node.hdl(), children: Vec::new() };
        self.stack.push((inst, Vec::new()));
    }

    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        if let Some((_, ns)) = self.stack.last_mut() {
            ns.push(name.to_string());
        }
    }

    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let Some((inst, ns)) = self.stack.last_mut() else { return };
        let name = if ns.is_empty() { name.to_string() } else { format!("{}${name}", ns.join("$")) };
        inst.atoms.push(AtomInfo { name, kind: signal.kind(), width: signal.bits(), signed: is_atom_signed(signal), literal: signal.verilog().to_string() });
    }

    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        if let Some((_, ns)) = self.stack.last_mut() {
            ns.pop();
        }
    }

    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        let (inst, _) = self.stack.pop().expect("balanced scopes");
        match self.stack.last_mut() {
            Some((parent, _)) => parent.children.push(inst),
            None => self.done = Some(inst),
        }
    }
}

/// The instance tree of `uut`, its top named `top`.
pub fn collect<B: Block>(uut: &B, top: &str) -> Inst {
    let mut c = Collector::default();
    uut.accept(top, &mut c);
    c.done.expect("the probe visited the top scope")
}
