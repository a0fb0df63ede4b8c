//! Generated CSR testbenches: for each register block a generation's top
//! decodes (per engine aperture), the access-type checks that follow from
//! the register map, as ordinary testbench steps run by the same machinery
//! as users' files (`tpb test --generated`).
//!
//! Per field: **rw** reset value, all-ones and zero read back, reset value
//! restored; **ro** reset-time value survives a write of all ones;
//! **wo** reads 0 after a write; **w1c** writing ones to a clear status
//! leaves it clear; **w1s** writing ones sets it; **doorbell** the
//! `doorbell` verb (pulse where the top shows it, reads 0), after the
//! block's other checks (a doorbell may set status another register shows). Per block: one
//! unmapped address inside the block's decoded range and one misaligned
//! address answer with a bus error. Per EVT_SEM aperture: set / inc / dec /
//! read through the windows at the first and last index. Per top: the first
//! address past every BAR0 region answers with a bus error.

use super::file::{Loc, Step, TbFile, Val, Verb};
use tpb_models::regmap::{builtin, Access, Aperture, Arch, Engine, WindowOp};

/// Counts of what the generated testbenches of one generation check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    pub testbenches: usize,
    pub registers: usize,
    pub fields: usize,
    /// Checking steps (expects, polls, doorbells, bus-error checks).
    pub checks: usize,
}

fn step(verb: Verb, text: String) -> Step {
    Step { verb, loc: Loc::default(), text }
}
fn expect(name: &str, v: u64) -> Step {
    step(Verb::Expect { name: name.into(), value: Val::Num(v), cmp: super::file::Cmp::Eq }, format!("expect = \"{name}\" value = {v:#x}"))
}
fn write(name: &str, v: u64) -> Step {
    step(Verb::Write { name: name.into(), value: Val::Num(v) }, format!("write = \"{name}\" value = {v:#x}"))
}
fn bus_error(addr: u32, write: bool) -> Step {
    let a = format!("{addr:#010x}");
    step(Verb::ExpectBusError { name: a.clone(), write }, format!("expect_bus_error = \"{a}\" access = \"{}\"", if write { "write" } else { "read" }))
}

fn is_check(s: &Step) -> bool {
    matches!(s.verb, Verb::Expect { .. } | Verb::Poll { .. } | Verb::Doorbell { .. } | Verb::ExpectBusError { .. } | Verb::ExpectWriteIgnored { .. })
}

/// The generated testbenches of `arch`, and what they cover.
pub fn generated(arch: Arch) -> (Vec<TbFile>, Coverage) {
    let map = builtin(arch).expect("built-in maps load");
    let p = &map.params;
    let mut out = Vec::new();
    let mut cov = Coverage::default();
    let engines = [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve, Engine::TpbSp, Engine::TopSp, Engine::Tpb];
    for e in engines {
        let base = match e {
            Engine::Tpb => p.bar0.tpb_base + p.bar0.tpb_regs.base,
            e => match p.local_reg_base(e) {
                Some(b) => b,
                None => continue,
            },
        } as u32;
        for b in map.blocks.iter().filter(|b| match e {
            Engine::Tpb => b.aperture == Aperture::TpbRegs,
            e => b.aperture == Aperture::LocalReg && b.engines.contains(&e),
        }) {
            let pre = if e == Engine::Tpb { "tpb.".to_string() } else { format!("{}.{}.", e.name(), b.name) };
            let mut steps = Vec::new();
            // Doorbells go last: a doorbell may set status that another
            // register of the block reports (intr_ctrl.raise sets intr_info).
            let mut doorbells = Vec::new();
            for r in &b.registers {
                cov.registers += 1;
                for f in &r.fields {
                    cov.fields += 1;
                    let n = format!("{pre}{}.{}", r.name, f.name);
                    let max = f.max();
                    match f.access {
                        Access::Rw => {
                            steps.push(expect(&n, f.reset));
                            steps.push(write(&n, max));
                            steps.push(expect(&n, max));
                            steps.push(write(&n, 0));
                            steps.push(expect(&n, 0));
                            steps.push(write(&n, f.reset));
                            steps.push(expect(&n, f.reset));
                        }
                        Access::Ro => steps.push(step(Verb::ExpectWriteIgnored { name: n.clone() }, format!("expect_write_ignored = \"{n}\""))),
                        Access::Wo => {
                            steps.push(write(&n, max));
                            steps.push(expect(&n, 0));
                        }
                        Access::W1c | Access::Rc => {
                            steps.push(expect(&n, 0));
                            if f.access == Access::W1c {
                                steps.push(write(&n, max));
                                steps.push(expect(&n, 0));
                            }
                        }
                        Access::W1s => {
                            steps.push(write(&n, max));
                            steps.push(expect(&n, max));
                        }
                        Access::Doorbell => doorbells.push(step(Verb::Doorbell { name: n.clone(), value: Val::Num(1) }, format!("doorbell = \"{n}\" value = 1"))),
                    }
                }
            }
            steps.extend(doorbells);
            if !b.registers.is_empty() {
                // An unmapped word inside the decoded range, and a misaligned one.
                if let Some(hole) = (b.start..b.end).step_by(4).find(|o| b.register_at(*o).is_none()) {
                    steps.push(bus_error(base + hole, false));
                    steps.push(bus_error(base + hole, true));
                }
                let first = &b.registers[0];
                steps.push(bus_error(base + first.offset + 2, false));
            }
            for a in &b.arrays {
                for i in [0, a.count - 1] {
                    let w = |op: WindowOp| a.windows.iter().find(|w| w.op == op).map(|w| format!("{pre}{}[{i}]", w.name));
                    let (Some(set), Some(inc), Some(dec), Some(rd)) = (w(WindowOp::Set), w(WindowOp::Inc), w(WindowOp::Dec), w(WindowOp::Read)) else { continue };
                    steps.push(expect(&rd, a.reset));
                    steps.push(write(&set, 5));
                    steps.push(expect(&rd, 5));
                    steps.push(write(&inc, 3));
                    steps.push(expect(&rd, 8));
                    steps.push(write(&dec, 2));
                    steps.push(expect(&rd, 6));
                    steps.push(write(&set, a.reset));
                }
            }
            if steps.is_empty() {
                continue;
            }
            cov.checks += steps.iter().filter(|s| is_check(s)).count();
            let name = format!("csr.{}", pre.trim_end_matches('.'));
            out.push(TbFile::from_steps(&name, &format!("generated from {}", b.file.display()), vec![arch], steps));
        }
    }
    // The first address past every BAR0 region.
    let past = p.bar0_regions().iter().map(|r| r.region.end()).max().unwrap_or(0);
    if past < 1 << 32 {
        let steps = vec![bus_error(past as u32, false), bus_error(past as u32, true)];
        cov.checks += 2;
        out.push(TbFile::from_steps("csr.unmapped", "the first address past every BAR0 region", vec![arch], steps));
    }
    cov.testbenches = out.len();
    (out, cov)
}
