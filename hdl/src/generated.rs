//! The checked-in Verilog under `hdl/generated/`: which files exist and how
//! to produce their exact text (used by `tpb gen-verilog` and the freshness test).

use tpb_regmap::{self as regmap, Arch};

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

/// Why a generation's Verilog cannot be produced.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error(transparent)]
    Regmap(#[from] regmap::RegmapError),
    #[error("{arch} top: {source}")]
    Layout { arch: &'static str, source: crate::top::LayoutError },
}

/// Every Verilog file of one generation (its register blocks and its full-size top), with banner.
pub fn verilog_files(arch: Arch) -> Result<Vec<VerilogFile>, GenError> {
    let map = regmap::builtin(arch)?;
    let mut out = Vec::new();
    for b in map.blocks.iter().filter(|b| b.has_register_rtl()) {
        let body = crate::regblocks::block_verilog(arch, &b.name).expect("every RTL block of the map is generated");
        let module = b.module_name();
        let source = b.source_files();
        let text = format!("{}{}", crate::verilog::banner(&module, &source), body);
        out.push(VerilogFile { file_name: format!("{module}.v"), module, arch, block: b.name.clone(), text });
    }
    out.push(top_file(&map, false).map_err(|source| GenError::Layout { arch: arch.name(), source })?);
    out.push(proto_file(&map, crate::proto::ProtoSize::Default, crate::proto::DEFAULT_UART_DIV).map_err(|source| GenError::Layout { arch: arch.name(), source })?);
    Ok(out)
}

/// The FPGA prototype of a generation (`hdl/src/proto.rs`: the host-link
/// bridge and the top): checked in as `<arch>_tpb_proto.v` with the default
/// memories and UART; `tpb fpga build` writes its own with its parameters.
pub fn proto_file(map: &regmap::RegMap, size: crate::proto::ProtoSize, div: u32) -> Result<VerilogFile, crate::top::LayoutError> {
    let module = format!("{}_tpb_proto", map.arch.name());
    let body = crate::proto::verilog(map, size, div, &module)?;
    let text = format!("{}{}", crate::verilog::banner(&module, "hdl/src/proto.rs + hdl/src/host_link.rs + hdl/src/top/ + the register maps"), body);
    Ok(VerilogFile { file_name: format!("{module}.v"), module, arch: map.arch, block: "tpb_proto".into(), text })
}

/// The TPB top of a generation: full-size memories (the Verilator target,
/// checked in as `<arch>_tpb_top.v`) or FPGA-sized (`<arch>_tpb_top_fpga.v`,
/// written by `tpb gen-verilog --fpga` for `scripts/fpga`, not checked in).
pub fn top_file(map: &regmap::RegMap, fpga: bool) -> Result<VerilogFile, crate::top::LayoutError> {
    let module = format!("{}_tpb_top{}", map.arch.name(), if fpga { "_fpga" } else { "" });
    let body = crate::top::verilog(map, fpga, &module)?;
    let text = format!("{}{}", crate::verilog::banner(&module, "hdl/src/top/ + the register maps"), body);
    Ok(VerilogFile { file_name: format!("{module}.v"), module, arch: map.arch, block: "tpb_top".into(), text })
}

/// The hand-written blocks (not generated from a map): the EVT_SEM unit and
/// the notification unit of every generation, the HW-decode CAM of CAYMAN/MARIANA, the FPGA
/// prototype's host-link bridge (its default UART) and, as stand-alone
/// instances for the FPGA report, the Q7 cluster (CAYMAN's BAR0 layout with
/// 1 KiB memories; every top has its own inside) and the SEQ DMA engine.
pub fn common_verilog_files() -> Vec<VerilogFile> {
    let one = |module: &str, source: &str, body: String| {
        let text = format!("{}{}", crate::verilog::banner(module, source), body);
        VerilogFile { file_name: format!("{module}.v"), module: module.into(), arch: Arch::Cayman, block: module.into(), text }
    };
    // The blocks shared by every generation, on CAYMAN's (built-in, tested) map.
    let map = regmap::builtin(Arch::Cayman).expect("built-in map");
    let mut sem = crate::evt_sem::EvtSem::of(&map, false).expect("the built-in map makes a unit");
    let mut dma = crate::seq_dma::SeqDma::<{ crate::seq_dma::DEFAULT_AW }>::of(&map).expect("the built-in map makes an engine");
    vec![
        one("evt_sem", "hdl/src/evt_sem.rs", crate::verilog::of(&mut sem, "evt_sem")),
        one("host_bridge", "hdl/src/host_link.rs", crate::verilog::of(&mut crate::host_link::HostBridge::new(crate::proto::DEFAULT_UART_DIV), "host_bridge")),
        one("hw_decode", "hdl/src/hw_decode.rs", crate::verilog::of(&mut crate::hw_decode::HwDecodeCam::default(), "hw_decode")),
        one("notific", "hdl/src/notific.rs", crate::verilog::of(&mut crate::notific::Notific::<{ crate::notific::DEFAULT_RW }>::default(), "notific")),
        one("q7_cluster", "hdl/src/q7_cluster.rs", crate::verilog::of(&mut q7_cluster_block(), "q7_cluster")),
        one("seq_dma", "hdl/src/seq_dma.rs", crate::verilog::of(&mut dma, "seq_dma")),
    ]
}

/// The stand-alone Q7 cluster: CAYMAN's layout, FPGA-sized (1 KiB) memories.
pub fn q7_cluster_block() -> crate::q7_cluster::Q7Cluster<8, 8> {
    let p = &regmap::builtin(Arch::Cayman).expect("built-in map").params;
    let l = p.q7_layout(p.q7.pooling.owner).expect("pooling layout");
    crate::q7_cluster::Q7Cluster::new(l.core_stride as u32, (l.params.iram_size + l.params.iram_rsvd) as u32, l.params.iram_size as u32, l.params.dram_size as u32)
}

/// Directory of the checked-in Verilog.
pub fn generated_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated")
}
