//! Register-level tests derived from the register maps, run on the rust-hdl
//! simulator for every register of every RTL block of every generation:
//! reset values, write/read-back per access type, read-only writes ignored,
//! w1c/w1s/rc semantics, doorbell pulses of exactly one cycle, unmapped and
//! misaligned addresses answered with the error flag; then random traffic
//! compared every cycle against the golden `CsrModel`.

use rand::{rngs::SmallRng, Rng, SeedableRng};
use std::collections::BTreeMap;
use tpb_models::csr::{CsrModel, Req};
use tpb_models::regmap::gen::rust_hdl::{hw_ports, port_name, PortDir};
use tpb_models::regmap::{builtin, Access, Arch, Block, Field, Register};
use tpb_testbench::rhdl::RhdlBlock;

fn rtl_blocks() -> Vec<(Arch, Block)> {
    let mut v = Vec::new();
    for arch in Arch::ALL {
        for b in builtin(arch).unwrap().blocks {
            if b.has_register_rtl() {
                v.push((arch, b));
            }
        }
    }
    v
}

fn fresh(arch: Arch, b: &Block) -> RhdlBlock {
    let mut t = RhdlBlock::new(arch, &b.name).expect("generated block exists");
    t.reset();
    t
}

/// Readable value of a field given its stored value and the ro input.
fn read_part(f: &Field, stored: u64, ro_in: u64) -> u32 {
    let v = match f.access {
        Access::Ro => ro_in,
        Access::Wo | Access::Doorbell => 0,
        _ => stored,
    };
    ((v & f.max()) as u32) << f.lsb
}

fn ctx(arch: Arch, b: &Block, r: &Register) -> String {
    format!("{arch} {}.{} @ {:#x}", b.name, r.name, r.offset)
}

#[test]
fn every_block_of_every_generation_is_generated() {
    let blocks = rtl_blocks();
    assert!(blocks.len() >= 12, "expected >= 12 RTL blocks, got {}", blocks.len());
    for (arch, b) in &blocks {
        assert!(RhdlBlock::new(*arch, &b.name).is_some(), "{arch} {} has no generated block", b.name);
    }
    assert!(RhdlBlock::new(Arch::Cayman, "no_such_block").is_none());
}

#[test]
fn reset_values_read_back_and_drive_outputs() {
    let mut checks = 0;
    for (arch, b) in rtl_blocks() {
        let mut t = fresh(arch, &b);
        for r in &b.registers {
            let rsp = t.read(r.offset);
            assert!(rsp.valid && !rsp.err, "{}: read not answered cleanly: {rsp:?}", ctx(arch, &b, r));
            assert_eq!(rsp.rdata, r.reset_read(), "{}: reset value", ctx(arch, &b, r));
            for f in &r.fields {
                if f.access.is_stored() {
                    let port = port_name(r, f, "_o");
                    assert_eq!(t.output(&port), Some(f.reset), "{}: {port} after reset", ctx(arch, &b, r));
                }
            }
            checks += 1;
        }
    }
    println!("reset checks: {checks} registers");
}

#[test]
fn write_read_back_per_access_type() {
    let mut checks = 0;
    for (arch, b) in rtl_blocks() {
        let mut t = fresh(arch, &b);
        for r in &b.registers {
            // Drive every ro input of this register with a pattern it must read back.
            let mut ro_in = BTreeMap::new();
            for (i, f) in r.fields.iter().enumerate() {
                if f.access == Access::Ro {
                    let v = if i % 2 == 0 { f.max() } else { 0x5555_5555 & f.max() };
                    t.drive(&port_name(r, f, "_i"), v).unwrap();
                    ro_in.insert(f.name.clone(), v);
                }
            }
            for pattern in [0xffff_ffffu32, 0xa5a5_5a5a, 0x0000_0000, 0x1234_5678] {
                // Value of each stored field before the write.
                let before: BTreeMap<String, u64> = r.fields.iter().filter(|f| f.access.is_stored()).map(|f| (f.name.clone(), t.output(&port_name(r, f, "_o")).unwrap())).collect();
                let w = t.write(r.offset, pattern);
                assert!(w.valid && !w.err, "{}: write not acknowledged: {w:?}", ctx(arch, &b, r));
                let mut expect = 0u32;
                for f in &r.fields {
                    let wf = ((pattern as u64) >> f.lsb) & f.max();
                    let old = before.get(&f.name).copied().unwrap_or(0);
                    let stored = match f.access {
                        Access::Rw | Access::Wo | Access::Doorbell => wf,
                        Access::W1c => old & !wf,
                        Access::W1s => old | wf,
                        Access::Rc | Access::Ro => old,
                    };
                    if f.access.is_stored() {
                        let port = port_name(r, f, "_o");
                        assert_eq!(t.output(&port), Some(stored), "{}: {port} after writing {pattern:#x}", ctx(arch, &b, r));
                    }
                    expect |= read_part(f, stored, ro_in.get(&f.name).copied().unwrap_or(0));
                }
                let rd = t.read(r.offset);
                assert!(rd.valid && !rd.err);
                assert_eq!(rd.rdata, expect, "{}: read after writing {pattern:#x}", ctx(arch, &b, r));
                checks += 1;
            }
            for f in &r.fields {
                if f.access == Access::Ro {
                    t.drive(&port_name(r, f, "_i"), 0).unwrap();
                }
            }
        }
    }
    println!("write/read-back checks: {checks}");
}

#[test]
fn hardware_set_and_clear_semantics() {
    let mut checks = 0;
    for (arch, b) in rtl_blocks() {
        for r in &b.registers {
            for f in &r.fields {
                let port = |suffix: &str| port_name(r, f, suffix);
                let bit = 1u64 << (f.width - 1);
                let mut t = fresh(arch, &b);
                match f.access {
                    Access::W1c => {
                        // Hardware sets, software clears only the bits it writes 1 to.
                        t.drive(&port("_set_i"), f.max()).unwrap();
                        t.idle();
                        t.drive(&port("_set_i"), 0).unwrap();
                        assert_eq!(t.output(&port("_o")), Some(f.max()), "{}: set", ctx(arch, &b, r));
                        t.write(r.offset, (bit << f.lsb) as u32);
                        assert_eq!(t.output(&port("_o")), Some(f.max() & !bit), "{}: w1c", ctx(arch, &b, r));
                        t.write(r.offset, 0);
                        assert_eq!(t.output(&port("_o")), Some(f.max() & !bit), "{}: writing 0 keeps", ctx(arch, &b, r));
                        // Set and clear of the same bit in one cycle: the set wins.
                        t.drive(&port("_set_i"), bit).unwrap();
                        t.write(r.offset, (bit << f.lsb) as u32);
                        t.drive(&port("_set_i"), 0).unwrap();
                        assert_eq!(t.output(&port("_o")).unwrap() & bit, bit, "{}: hw set must win", ctx(arch, &b, r));
                        checks += 1;
                    }
                    Access::W1s => {
                        t.write(r.offset, (bit << f.lsb) as u32);
                        assert_eq!(t.output(&port("_o")).unwrap() & bit, bit);
                        t.drive(&port("_clr_i"), bit).unwrap();
                        t.idle();
                        t.drive(&port("_clr_i"), 0).unwrap();
                        assert_eq!(t.output(&port("_o")).unwrap() & bit, 0, "{}: hw clear", ctx(arch, &b, r));
                        checks += 1;
                    }
                    Access::Rc => {
                        t.drive(&port("_set_i"), bit).unwrap();
                        t.idle();
                        t.drive(&port("_set_i"), 0).unwrap();
                        let first = t.read(r.offset).rdata;
                        assert_eq!((first >> f.lsb) as u64 & bit, bit, "{}: rc read returns the set bit", ctx(arch, &b, r));
                        let second = t.read(r.offset).rdata;
                        assert_eq!((second >> f.lsb) as u64 & f.max(), 0, "{}: rc read clears", ctx(arch, &b, r));
                        checks += 1;
                    }
                    Access::Doorbell => {
                        let pulse = port("_pulse_o");
                        assert_eq!(t.output(&pulse), Some(0));
                        let v = f.max() & 0x8000_0001;
                        let v = if v == 0 { 1 } else { v };
                        t.write(r.offset, (v << f.lsb) as u32);
                        assert_eq!(t.output(&pulse), Some(1), "{}: pulse in the cycle after the write", ctx(arch, &b, r));
                        assert_eq!(t.output(&port("_o")), Some(v), "{}: doorbell value", ctx(arch, &b, r));
                        t.idle();
                        assert_eq!(t.output(&pulse), Some(0), "{}: pulse lasts exactly one cycle", ctx(arch, &b, r));
                        t.idle();
                        assert_eq!(t.output(&pulse), Some(0));
                        assert_eq!(t.read(r.offset).rdata & f.mask(), 0, "{}: doorbell reads as 0", ctx(arch, &b, r));
                        assert_eq!(t.output(&pulse), Some(0), "{}: a read does not ring", ctx(arch, &b, r));
                        checks += 1;
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(checks > 0);
    println!("hardware-side semantics checks: {checks}");
}

#[test]
fn unmapped_and_misaligned_accesses_answer_with_error_and_change_nothing() {
    let mut checks = 0;
    for (arch, b) in rtl_blocks() {
        let mut t = fresh(arch, &b);
        let snapshot = |t: &mut RhdlBlock| -> Vec<u32> { b.registers.iter().map(|r| t.read(r.offset).rdata).collect() };
        let before = snapshot(&mut t);
        let mut probes: Vec<u32> = vec![b.end, b.end + 4, 0xffff_fffc, b.start.wrapping_sub(4)];
        // Holes inside the block's range.
        let mut a = b.start;
        while a < b.end && probes.len() < 40 {
            if b.register_at(a).is_none() {
                probes.push(a);
            }
            a += 4;
        }
        for addr in probes {
            if b.register_at(addr).is_some() {
                continue;
            }
            for write in [false, true] {
                let rsp = t.request(write, addr, 0xffff_ffff);
                assert!(rsp.valid && rsp.err, "{arch} {}: {} of unmapped {addr:#x} must be an error: {rsp:?}", b.name, if write { "write" } else { "read" });
                assert_eq!(rsp.rdata, 0);
                checks += 1;
            }
        }
        for r in &b.registers {
            for off in 1..4 {
                for write in [false, true] {
                    let rsp = t.request(write, r.offset + off, 0xffff_ffff);
                    assert!(rsp.valid && rsp.err, "{}: misaligned +{off} must be an error", ctx(arch, &b, r));
                    checks += 1;
                }
            }
        }
        assert_eq!(snapshot(&mut t), before, "{arch} {}: an erroring write changed state", b.name);
    }
    println!("error-response checks: {checks}");
}

/// Random bus traffic and random hardware inputs; every response and every
/// output compared with the golden model each cycle.
#[test]
fn random_traffic_matches_golden_model() {
    let cycles: u64 = std::env::var("TPB_RHDL_CYCLES").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let mut total = 0;
    for (i, (arch, b)) in rtl_blocks().into_iter().enumerate() {
        let seed = 0x7b5_0000 + i as u64;
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut t = fresh(arch, &b);
        let mut model = CsrModel::new(&b);
        let ports = hw_ports(&b);
        let inputs: Vec<_> = ports.iter().filter(|p| p.dir == PortDir::In).collect();
        let outputs: Vec<_> = ports.iter().filter(|p| p.dir == PortDir::Out).collect();
        let mut driven: BTreeMap<String, u64> = BTreeMap::new();
        for cyc in 0..cycles {
            // Hardware inputs: mostly quiet, sometimes random.
            for p in &inputs {
                let v = if rng.gen_bool(0.1) { rng.gen::<u64>() & ((1u64 << p.width) - 1) } else { 0 };
                t.drive(&p.name, v).unwrap();
                driven.insert(p.name.clone(), v);
            }
            let reset = rng.gen_ratio(1, 500);
            let req = if rng.gen_bool(0.7) {
                let addr = match rng.gen_range(0..10) {
                    0 => rng.gen::<u32>(),
                    1 => b.start + rng.gen_range(0..(b.end - b.start)),
                    _ => b.registers[rng.gen_range(0..b.registers.len())].offset,
                };
                Some(Req { write: rng.gen_bool(0.5), addr, wdata: rng.gen() })
            } else {
                None
            };
            let ports_mut = t.sim().ports();
            ports_mut.drive_reset(reset);
            match req {
                Some(r) => ports_mut.drive_req(true, r.write, r.addr, r.wdata),
                None => ports_mut.drive_req(false, false, 0, 0),
            }
            t.sim().tick();
            model.step(reset, req, &driven);
            let got = t.rsp();
            let want = model.rsp();
            assert_eq!(got, want, "{arch} {} seed {seed:#x} cycle {cyc}: response for {req:?} (reset {reset})", b.name);
            for p in &outputs {
                assert_eq!(t.output(&p.name), model.output(&p.name), "{arch} {} seed {seed:#x} cycle {cyc}: port {}", b.name, p.name);
            }
        }
        t.sim().ports().drive_reset(false);
        total += cycles;
    }
    println!("random traffic: {total} cycles compared, 0 mismatches");
}

#[test]
fn input_port_errors_are_values() {
    let mut t = RhdlBlock::new(Arch::Cayman, "q7").unwrap();
    assert!(t.drive("no_such_port_i", 1).is_err());
    let e = t.drive("run_state_running_i$0", 2).unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
}
