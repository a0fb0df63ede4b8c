//! Your own assembly on the co-simulation: `.include "tpb.inc"` (the
//! generation's names, generated from its map, the same names as the C
//! header's), your own include files and `.macro`s, errors that name the
//! file and line, and the example `q7_sum.S` on every generation.

use std::path::PathBuf;
use tpb_cosim::cfw::{self, header};
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::tb::file::{run, RunOpts, TbFile};
use tpb_testbench::tools::repo_root;

fn example() -> PathBuf {
    repo_root().join("testbench/examples/firmware/q7_sum.toml")
}

#[test]
fn the_assembly_example_runs_on_every_generation() {
    let file = TbFile::load(&example()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file.archs.len(), 3);
    std::env::set_current_dir(repo_root()).unwrap();
    for arch in Arch::ALL {
        let o = run(&file, arch, &RunOpts::default());
        assert!(o.result.is_ok(), "{}: {:?}", arch.name(), o.result);
        assert_eq!(o.steps, 6);
        println!("{}: q7_sum.S ran in {} cycles", arch.name(), o.cycles);
    }
    // A wrong sum is caught: the check reads the core's DRAM word.
    let text = std::fs::read_to_string(example()).unwrap().replacen("value = 131584", "value = 131585", 1);
    let o = run(&TbFile::parse(&example(), &text).unwrap(), Arch::Cayman, &RunOpts::default());
    let f = o.result.expect_err("a wrong expectation fails");
    assert!(f.error.contains("mem.q7[3].dram+0x0") && f.error.contains("0x20200"), "{}", f.error);
}

#[test]
fn an_error_in_an_included_macro_names_its_file_and_line() {
    let dir = repo_root().join("target/tpb-tests/asm-include");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("m.inc"), "# two lines\n.macro bad_store reg\n    s32i \\reg, a3, 1\n.endm\n").unwrap();
    std::fs::write(dir.join("p.S"), ".include \"tpb.inc\"\n.include \"m.inc\"\n    bad_store a2\n").unwrap();
    let map = builtin(Arch::Cayman).unwrap();
    let opts = tpb_models::xtensa::config::Options::tpb();
    let e = cfw::assemble_file(Some(&map), &dir.join("p.S"), 0, &opts, &[]).unwrap_err();
    assert!(e.starts_with(&format!("{}:3:5: ", dir.join("m.inc").display())), "{e}");
    let e = cfw::assemble_file(None, &dir.join("p.S"), 0, &opts, &[]).unwrap_err();
    assert!(e.contains("tpb.inc is generated from a generation's map"), "{e}");
}

#[test]
fn the_assembler_prelude_and_the_c_header_give_the_same_names_the_same_values() {
    for arch in Arch::ALL {
        let map = builtin(arch).unwrap();
        let inc = header::render_asm(&map).unwrap();
        let h = header::render(&map).unwrap();
        let from_inc = |n: &str| inc.lines().find_map(|l| l.strip_prefix(&format!(".equ {n}, ")).map(|v| u32::from_str_radix(v.trim_start_matches("0x"), 16).unwrap()));
        let from_h = |n: &str| {
            h.lines().find_map(|l| l.strip_prefix(&format!("#define {n} ")).map(|v| u32::from_str_radix(v.split('u').next().unwrap().trim_start_matches("0x"), 16).unwrap()))
        };
        for n in ["TPB_SEM_POOL", "TPB_DRAM_BASE", "TPB_POOL_Q7_RELEASE_RUN_STALL_ADDR", "TPB_SEM_INC_OFF"] {
            assert_eq!(from_inc(n), from_h(n), "{}: {n}", arch.name());
            assert!(from_inc(n).is_some(), "{}: {n} missing", arch.name());
        }
        // The whole prelude assembles (every name is a valid .equ).
        tpb_models::xtensa::asm::assemble(&inc, 0, &tpb_models::xtensa::config::Options::tpb()).unwrap_or_else(|e| panic!("{}: {e}", arch.name()));
    }
}

#[test]
fn the_prelude_kept_for_a_map_is_never_given_for_another() {
    // render_asm keeps the last few maps' preludes: an edited map (here the
    // Q7 bundle's release register moved) must get its own, and the
    // original its own again, each what a map seen for the first time gives.
    let map = builtin(Arch::Cayman).unwrap();
    let mut moved = map.clone();
    let q7 = moved.blocks.iter_mut().find(|b| b.name == "q7").unwrap();
    q7.registers.iter_mut().find(|r| r.name == "release_run_stall").unwrap().offset += 0x40;
    let first = header::render_asm(&map).unwrap();
    let edited = header::render_asm(&moved).unwrap();
    let changed: Vec<_> = first.lines().zip(edited.lines()).filter(|(a, b)| a != b).collect();
    assert!(!changed.is_empty() && changed.iter().all(|(a, _)| a.contains("RELEASE_RUN_STALL")), "only the moved register's lines differ: {changed:?}");
    assert_eq!(header::render_asm(&map).unwrap(), first);
    assert_eq!(header::render_asm(&moved).unwrap(), edited);
    // Past the maps it keeps, the oldest is rendered anew: the same text.
    for arch in Arch::ALL {
        header::render_asm(&builtin(arch).unwrap()).unwrap();
    }
    assert_eq!(header::render_asm(&moved).unwrap(), edited);
}

#[test]
fn every_marker_is_named_once_for_firmware_and_for_files() {
    use tpb_testbench::tb::file::builtin_consts;
    let map = builtin(Arch::Cayman).unwrap();
    let (inc, h) = (header::render_asm(&map).unwrap(), header::render(&map).unwrap());
    let consts = builtin_consts();
    for (name, v) in tpb_cosim::firmware::MARKERS {
        assert!(inc.contains(&format!(".equ TPB_{name}, {v:#x}\n")), "tpb.inc lacks TPB_{name}");
        assert!(h.contains(&format!("#define TPB_{name} {v:#010x}u ")), "tpb_fw.h lacks TPB_{name}");
        assert_eq!(consts.get(&format!("TPB_{name}")), Some(&u64::from(v)), "files lack TPB_{name}");
    }
    // A file's own constant shadows a built-in one, and an unknown name's
    // error lists the file's own constants only.
    let text = "[consts]\nTPB_SUM_DONE = 7\nMINE = 1\n[[step]]\nexpect = \"pool.nx.run_state.running\"\nvalue = \"NOPE\"\n";
    let f = TbFile::parse(std::path::Path::new("shadow.toml"), text).unwrap();
    assert_eq!(f.for_arch(Arch::Cayman).1.get("TPB_SUM_DONE"), Some(&7));
    let names = tpb_testbench::tb::names::Names::new(&map);
    let e = f.check(&names).unwrap_err().to_string();
    assert!(e.ends_with("no constant 'NOPE' for cayman (constants: MINE, TPB_SUM_DONE)"), "{e}");
}

#[test]
fn core_registers_and_hal_calls_as_steps() {
    std::env::set_current_dir(repo_root()).unwrap();
    let text = std::fs::read_to_string(example()).unwrap()
        + "\n[[step]]\nexpect_reg = \"q7[5].a2\"   # the sum, still in a2 at HALT\nvalue = 197376\n\
           [[step]]\nexpect_reg = \"q7.a7\"       # each core's id: only q7[0] has 0\nvalue = 0\n";
    let o = run(&TbFile::parse(&example(), &text).unwrap(), Arch::Cayman, &RunOpts::default());
    let f = o.result.expect_err("q7[1].a7 is 1");
    assert_eq!(f.error, "q7[1].a7 = 0x1, expected 0x0");
    assert_eq!(f.loc.line, text.lines().position(|l| l.starts_with("expect_reg = \"q7.a7\"")).unwrap() + 1);
    // The HAL's host trigger (CAYMAN: the TOP_SP doorbell, SET of semaphore 104).
    let text = std::fs::read_to_string(example()).unwrap() + "\n[[step]]\nhal = \"topsp_set_host_trigger\"\n[[step]]\nexpect = \"top_sp.evt_sem.read[104]\"\nvalue = 1\n";
    let o = run(&TbFile::parse(&example(), &text).unwrap(), Arch::Cayman, &RunOpts::default());
    assert!(o.result.is_ok(), "{:?}", o.result);
    for (bad, want) in [
        ("hal = \"reboot\"", "not a HAL call a step can make"),
        ("expect_reg = \"q7[1].b2\"\nvalue = 1", "'b2' is not a register"),
        ("expect_reg = \"a2\"\nvalue = 1", "write core.register"),
    ] {
        let text = format!("{}\n[[step]]\n{bad}\n", std::fs::read_to_string(example()).unwrap());
        let e = TbFile::parse(&example(), &text).unwrap_err().to_string();
        assert!(e.contains(want), "{bad}: {e}");
    }
}

/// Device memory and the TOP_SP-init DMA queue as steps: words staged in
/// device memory (no cycles), copied onto the TPB by the queue, read back
/// over BAR0; a destination that is not a name is refused on load.
#[test]
fn device_memory_and_the_init_dma_as_steps() {
    std::env::set_current_dir(repo_root()).unwrap();
    let text = std::fs::read_to_string(example()).unwrap()
        + "\n[[step]]\ndevmem = 0x1000\nwords = [0x11, 0x22, 0x33]\n\
           [[step]]\ninit_dma = 0x1000\nto = \"mem.q7[2].dram+0x100\"\nbytes = 12\n\
           [[step]]\nexpect = \"mem.q7[2].dram+0x104\"\nvalue = 0x22\n";
    let o = run(&TbFile::parse(&example(), &text).unwrap(), Arch::Cayman, &RunOpts::default());
    assert!(o.result.is_ok(), "{:?}", o.result);
    let bad = std::fs::read_to_string(example()).unwrap() + "\n[[step]]\ninit_dma = 0x1000\nto = \"mem.q7[2].dramm\"\nbytes = 12\n";
    let o = run(&TbFile::parse(&example(), &bad).unwrap(), Arch::Cayman, &RunOpts::default());
    let f = o.result.expect_err("an unknown destination");
    assert!(f.error.contains("mem.q7[2].dramm") && o.steps == 0, "refused before any step ran: {}", f.error);
}
