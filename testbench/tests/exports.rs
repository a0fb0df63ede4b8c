//! The generated C headers compile and carry the right numbers; the SystemRDL
//! export is accepted and elaborated by an independent compiler
//! (`systemrdl-compiler`, PyPI, installed by scripts/setup).

use std::process::Command;
use tpb_testbench::tools::{repo_root, require};

#[test]
fn c_headers_compile_and_agree_with_the_digest() {
    let gcc = require("gcc").unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("tpb-cheader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inc = repo_root().join("docs/regmap");
    let prog = r#"
#include "tpb_regs_sunda.h"
#include "tpb_regs_cayman.h"
#include "tpb_regs_mariana.h"
#include <stdio.h>
int main(void) {
    int bad = 0;
    bad |= SUNDA_TOP_SP_HOST_TRIGGER_OFFSET != 0x848u;
    bad |= CAYMAN_TOP_SP_HOST_TRIGGER_OFFSET != 0x15a0u;
    bad |= MARIANA_TOP_SP_TSYNC_SIGNAL_OFFSET != 0x1560u;
    bad |= CAYMAN_Q7_RELEASE_RUN_STALL_RESET != 0xffu;
    bad |= CAYMAN_Q7_RELEASE_RUN_STALL_STALL_MASK != 0xffu;
    bad |= CAYMAN_NX_RELEASE_RUN_STALL_HAL_OFFSET != 0x4u;
    bad |= CAYMAN_NX_RELEASE_RUN_STALL_DEVICE_OFFSET != 0x0u;
    bad |= CAYMAN_EVT_SEM_EVT_SEM_ADDR(CAYMAN_EVT_SEM_EVT_SEM_INC_OFFSET, 3) != 0x180cu;
    bad |= SUNDA_TPB_NOTIFIC_SW_QUEUE_NUM0_ENGINE_ID_A_MASK != 0x00f00000u;
    printf("%s\n", bad ? "MISMATCH" : "ok");
    return bad;
}
"#;
    let src = dir.join("t.c");
    std::fs::write(&src, prog).unwrap();
    let exe = dir.join("t");
    let out = Command::new(gcc).args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"]).arg(&inc).arg(&src).arg("-o").arg(&exe).output().unwrap();
    assert!(out.status.success(), "gcc: {}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stdout));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn systemrdl_export_elaborates_with_systemrdl_compiler() {
    let py = tpb_testbench::tools::venv_python().unwrap_or_else(|e| panic!("{e}"));
    let script = r#"
import sys
try:
    from systemrdl import RDLCompiler
except ImportError:
    print("systemrdl-compiler is not installed in this Python: run scripts/setup (it installs it into the project venv .venv/)")
    sys.exit(3)
for path, arch in zip(sys.argv[1::2], sys.argv[2::2]):
    c = RDLCompiler()
    c.compile_file(path)
    root = c.elaborate(top_def_name=arch + "_pool_local_reg")
    regs = [n for n in root.descendants() if n.__class__.__name__ == "RegNode"]
    c2 = RDLCompiler(); c2.compile_file(path); c2.elaborate(top_def_name=arch + "_tpb")
    c3 = RDLCompiler(); c3.compile_file(path); top = c3.elaborate(top_def_name=arch + "_bar0").top
    assert top.size > 0x70000, hex(top.size)
    print(arch, len(regs), "registers")
"#;
    let mut cmd = Command::new(py);
    cmd.arg("-c").arg(script);
    for a in ["sunda", "cayman", "mariana"] {
        cmd.arg(repo_root().join(format!("docs/regmap/tpb_{a}.rdl"))).arg(a);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "systemrdl-compiler:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    print!("{stdout}");
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
}

/// Every register of a generation at its BAR0 address, from our JSON export
/// (each engine's local-register base + the register's offset; the
/// TPB-level registers at `[bar0] tpb_regs`): (path in the SystemRDL top,
/// address, array (count, stride) or none). Paths follow the export's
/// instance names: `pool_local_reg.q7.release_run_stall`,
/// `top_sp_local_reg.evt_sem.evt_sem_inc`.
/// (path, address, array (count, stride)).
type RegAt = (String, u64, Option<(u64, u64)>);

fn bar0_registers_from_json(arch: tpb_models::regmap::Arch) -> Vec<RegAt> {
    let map = tpb_models::regmap::builtin(arch).unwrap();
    let v: serde_json::Value = serde_json::from_str(&tpb_models::regmap::gen::json::render(&map)).unwrap();
    let p = &v["params"];
    let num = |x: &serde_json::Value| x.as_u64().unwrap_or_else(|| panic!("{x}"));
    let tpb_base = num(&p["bar0"]["tpb_base"]);
    let mut out = Vec::new();
    for b in v["blocks"].as_array().unwrap() {
        let mut places: Vec<(String, u64)> = Vec::new();
        for e in b["engines"].as_array().unwrap() {
            let e = e.as_str().unwrap();
            if b["aperture"] == "tpb_regs" {
                places.push(("tpb_regs".into(), tpb_base + num(&p["bar0"]["tpb_regs"]["base"])));
            } else if b["aperture"] == "seq_dma" {
                places.push((format!("{e}_{}", b["name"].as_str().unwrap()), tpb_base + num(&p["bar0"]["seq_dma"]["base"])));
            } else if b["aperture"] == "hw_decode" {
                places.push((format!("{e}_{}", b["name"].as_str().unwrap()), tpb_base + num(&p["local_reg"]["hw_decode_table_params"])));
            } else if let Some(base) = p["local_reg"][e].as_u64() {
                places.push((format!("{e}_local_reg.{}", b["name"].as_str().unwrap()), tpb_base + base));
            }
        }
        for (path, base) in places {
            for r in b["registers"].as_array().unwrap() {
                out.push((format!("{path}.{}", r["name"].as_str().unwrap()), base + num(&r["offset"]), None));
            }
            for a in b["arrays"].as_array().unwrap() {
                for w in a["windows"].as_array().unwrap() {
                    let name = format!("{path}.{}_{}", a["name"].as_str().unwrap(), w["name"].as_str().unwrap());
                    out.push((name, base + num(&w["offset"]), Some((num(&a["count"]), num(&a["stride"])))));
                }
            }
        }
    }
    out
}

/// The SystemRDL export as the PeakRDL ecosystem takes it, unchanged: one
/// top addrmap per generation (`<arch>_bar0`) that `peakrdl html` and
/// `peakrdl c-header` (PyPI) both accept, and whose every register sits at
/// the BAR0 address of our JSON export — read back from the HTML's register
/// data (offsets summed up the tree) and from the C header's struct
/// (`offsetof`, compiled and run), for the first and last element of every
/// array. Nothing of the export has to be moved by hand.
#[test]
fn peakrdl_html_and_c_header_place_every_register_at_its_bar0_address() {
    use tpb_models::regmap::Arch;
    let peakrdl = require("peakrdl").unwrap_or_else(|e| panic!("{e}"));
    let gcc = require("gcc").unwrap_or_else(|e| panic!("{e}"));
    let dir = repo_root().join("target/peakrdl");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let a = arch.name();
        let rdl = repo_root().join(format!("docs/regmap/tpb_{a}.rdl"));
        let top = format!("{a}_bar0");
        let expected = bar0_registers_from_json(arch);
        assert!(expected.len() > 100, "{a}: {} registers", expected.len());
        // peakrdl html: the register data of the generated pages.
        let html = dir.join(format!("{a}-html"));
        let out = Command::new(&peakrdl).arg("html").arg(&rdl).args(["--top", &top, "-o"]).arg(&html).output().unwrap();
        assert!(out.status.success(), "peakrdl html {a}: {}", String::from_utf8_lossy(&out.stderr));
        let nodes: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(html.join("data/ral-data-0.json")).unwrap()).unwrap();
        assert!(html.join("index.html").is_file());
        let hex = |v: &serde_json::Value| u64::from_str_radix(v.as_str().unwrap(), 16).unwrap();
        let mut seen = std::collections::HashMap::new();
        for n in &nodes {
            if n.get("fields").is_none() {
                continue;
            }
            let (mut addr, mut names, mut at) = (hex(&n["offset"]), vec![n["name"].as_str().unwrap().to_string()], n);
            while let Some(p) = at["parent"].as_u64() {
                at = &nodes[p as usize];
                if at["parent"].is_null() {
                    break;
                }
                addr += hex(&at["offset"]);
                names.insert(0, at["name"].as_str().unwrap().to_string());
            }
            seen.insert(names.join("."), addr);
        }
        for (path, addr, _) in &expected {
            assert_eq!(seen.get(path), Some(addr), "{a}: peakrdl html puts {path} at {:x?}, our JSON at {addr:#x}", seen.get(path));
        }
        assert_eq!(seen.len(), expected.len(), "{a}: the HTML has registers our JSON does not");
        // peakrdl c-header: offsetof every register in the generated struct.
        let h = dir.join(format!("{a}_bar0.h"));
        let out = Command::new(&peakrdl).arg("c-header").arg(&rdl).args(["--top", &top, "-o"]).arg(&h).output().unwrap();
        assert!(out.status.success(), "peakrdl c-header {a}: {}", String::from_utf8_lossy(&out.stderr));
        let mut prog = format!("#include <stdio.h>\n#include <stddef.h>\n#include \"{a}_bar0.h\"\nint main(void) {{\n");
        let mut want = Vec::new();
        for (path, addr, arr) in &expected {
            let elems = match arr {
                None => vec![(path.clone(), *addr)],
                Some((n, stride)) => vec![(format!("{path}[0]"), *addr), (format!("{path}[{}]", n - 1), addr + (n - 1) * stride)],
            };
            for (e, at) in elems {
                prog += &format!("    printf(\"%zx\\n\", offsetof({a}_bar0_t, {e}));\n");
                want.push((e, at));
            }
        }
        prog += "    return 0;\n}\n";
        let src = dir.join(format!("{a}_offsets.c"));
        std::fs::write(&src, prog).unwrap();
        let exe = dir.join(format!("{a}_offsets"));
        let out = Command::new(&gcc).args(["-std=c11", "-O0", "-I"]).arg(&dir).arg(&src).arg("-o").arg(&exe).output().unwrap();
        assert!(out.status.success(), "gcc {a}: {}", String::from_utf8_lossy(&out.stderr));
        let run = Command::new(&exe).output().unwrap();
        let got: Vec<u64> = String::from_utf8_lossy(&run.stdout).lines().map(|l| u64::from_str_radix(l, 16).unwrap()).collect();
        assert_eq!(got.len(), want.len());
        for ((e, at), g) in want.iter().zip(&got) {
            assert_eq!(g, at, "{a}: the C header puts {e} at {g:#x}, our JSON at {at:#x}");
        }
        println!("{a}: {} registers and arrays, {} C offsets agree", expected.len(), want.len());
    }
}
