//! The checked-in Verilog under `hdl/generated/`: which files exist and how
//! to produce their exact text (used by `tpb gen-verilog` and the freshness test).

use tpb_models::regmap::{self, Arch};

/// One generated Verilog file.
#[derive(Debug, Clone)]
pub struct VerilogFile {
    /// File name under `hdl/generated/` (`cayman_nx_regs.v`).
    pub file_name: String,
    pub module: String,
    /// Generation (for blocks shared by all generations: any; see `common_verilog_files`).
    pub arch: Arch,
    pub block: String,
    pub text: String,
}

/// Every Verilog file of one generation, with banner.
pub fn verilog_files(arch: Arch) -> Result<Vec<VerilogFile>, regmap::RegmapError> {
    let map = regmap::builtin(arch)?;
    let mut out = Vec::new();
    for b in map.blocks.iter().filter(|b| b.has_register_rtl()) {
        let body = crate::regblocks::block_verilog(arch, &b.name).expect("every RTL block of the map is generated");
        let module = b.module_name();
        let source = b.file.display().to_string();
        let text = format!("{}{}", crate::verilog::banner(&module, &source), body);
        out.push(VerilogFile { file_name: format!("{module}.v"), module, arch, block: b.name.clone(), text });
    }
    Ok(out)
}

/// The hand-written blocks (not generated from a map): the EVT_SEM unit of
/// every generation and the HW-decode CAM of CAYMAN/MARIANA.
pub fn common_verilog_files() -> Vec<VerilogFile> {
    let one = |module: &str, source: &str, body: String| {
        let text = format!("{}{}", crate::verilog::banner(module, source), body);
        VerilogFile { file_name: format!("{module}.v"), module: module.into(), arch: Arch::Cayman, block: module.into(), text }
    };
    vec![
        one("evt_sem", "hdl/src/evt_sem.rs", crate::verilog::of(&mut crate::evt_sem::EvtSem::default(), "evt_sem")),
        one("hw_decode", "hdl/src/hw_decode.rs", crate::verilog::of(&mut crate::hw_decode::HwDecodeCam::default(), "hw_decode")),
    ]
}

/// Directory of the checked-in Verilog.
pub fn generated_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated")
}
