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
    let out = Command::new(gcc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(&inc)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "gcc: {}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stdout));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn systemrdl_export_elaborates_with_systemrdl_compiler() {
    let py = require("python3").unwrap_or_else(|e| panic!("{e}"));
    let script = r#"
import sys
try:
    from systemrdl import RDLCompiler
except ImportError:
    print("systemrdl-compiler is not installed: pip install systemrdl-compiler (or run scripts/setup)")
    sys.exit(3)
for path, arch in zip(sys.argv[1::2], sys.argv[2::2]):
    c = RDLCompiler()
    c.compile_file(path)
    root = c.elaborate(top_def_name=arch + "_pool_local_reg")
    regs = [n for n in root.descendants() if n.__class__.__name__ == "RegNode"]
    c2 = RDLCompiler(); c2.compile_file(path); c2.elaborate(top_def_name=arch + "_tpb")
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
