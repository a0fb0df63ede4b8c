//! Hand-written blocks in the map: the SEQ DMA engine's status window and
//! the HW-decode CAM's status register are described by the map (offsets,
//! fields, tags) while their RTL is written by hand and takes the map's
//! constants (`tpb-spec`'s generated file).

use std::path::PathBuf;
use tpb_regmap::space::AddressSpace;
use tpb_regmap::{builtin, builtin_all, builtin_files, load, Aperture, Arch};

fn files_with(arch: Arch, file: &str, f: impl Fn(&str) -> String) -> Vec<(PathBuf, String)> {
    builtin_files(arch).iter().map(|(p, t)| (PathBuf::from(p), if p.ends_with(file) { f(t) } else { t.to_string() })).collect()
}

#[test]
fn every_generation_has_the_dma_status_and_only_cam_generations_the_cam_status() {
    for m in builtin_all().unwrap() {
        let dma = m.block("seq_dma").unwrap_or_else(|| panic!("{}: no seq_dma block", m.arch));
        assert_eq!(dma.aperture, Aperture::SeqDma);
        assert!(!dma.has_register_rtl(), "the register-block generator leaves a hand-written block alone");
        assert_eq!(m.block("hw_decode").is_some(), m.params.hw_decode.present, "{}", m.arch);
    }
    assert!(builtin(Arch::Sunda).unwrap().block("hw_decode").is_none());
}

/// The constants are rendered from the first generation that has a block:
/// every other generation must describe it the same way.
#[test]
fn generations_that_have_a_hand_written_block_describe_it_alike() {
    let maps = builtin_all().unwrap();
    for b in maps.iter().flat_map(|m| m.blocks.iter()).filter(|b| b.aperture.hand_written()) {
        for m in &maps {
            if let Some(o) = m.block(&b.name) {
                assert_eq!(o.registers, b.registers, "{} differs between {} and {}", b.name, b.arch, m.arch);
                assert_eq!((o.start, o.end), (b.start, b.end), "{}", b.name);
            }
        }
    }
}

#[test]
fn a_cam_status_inside_the_cam_records_or_past_the_table_is_refused() {
    // 47 records of 16 bytes end at 0x2f0.
    let inside = files_with(Arch::Cayman, "common/hw_decode.toml", |t| t.replace("start = 0x3f0", "start = 0x2e0").replace("offset = 0x3f0", "offset = 0x2e0"));
    let e = load::from_sources(Arch::Cayman, &inside).unwrap_err().to_string();
    assert!(e.starts_with("models/regmap/maps/common/hw_decode.toml:") && e.contains("inside the CAM records") && e.contains("0x2f0"), "{e}");
    let past = files_with(Arch::Cayman, "common/hw_decode.toml", |t| t.replace("end = 0x3f4", "end = 0x2004"));
    let e = load::from_sources(Arch::Cayman, &past).unwrap_err().to_string();
    assert!(e.contains("block 'hw_decode' ends at 0x2004") && e.contains("HwDecode"), "{e}");
}

/// SUNDA leaves the common CAM block out; a SUNDA file of its own there is
/// an error that says why.
#[test]
fn a_cam_block_of_a_generation_without_a_cam_is_refused() {
    let mut files = files_with(Arch::Sunda, "", |t| t.to_string());
    let cam = builtin_files(Arch::Sunda).iter().find(|(p, _)| p.ends_with("common/hw_decode.toml")).unwrap().1;
    files.push((PathBuf::from("models/regmap/maps/sunda/hw_decode.toml"), cam.to_string()));
    files.retain(|(p, _)| !p.ends_with("common/hw_decode.toml"));
    let e = load::from_sources(Arch::Sunda, &files).unwrap_err().to_string();
    assert!(e.starts_with("models/regmap/maps/sunda/hw_decode.toml:1:") && e.contains("[hw_decode] present = false"), "{e}");
}

/// The DMA status past the window, the SRAM below it.
#[test]
fn a_dma_status_past_its_window_is_refused() {
    let files = files_with(Arch::Cayman, "cayman/arch.toml", |t| t.replace("seq_dma = { base = 0x008a0000, size = 0x1000 }", "seq_dma = { base = 0x008a0000, size = 0x800 }"));
    let e = load::from_sources(Arch::Cayman, &files).unwrap_err().to_string();
    assert!(e.contains("block 'seq_dma' ends at 0x820") && e.contains("0x800 bytes"), "{e}");
}

/// Names and addresses both ways: the status registers have names the HAL's
/// access log and the testbenches use; the SRAM around them stays memory.
#[test]
fn status_registers_have_names_both_ways() {
    let m = builtin(Arch::Cayman).unwrap();
    let dma = m.params.bar0.tpb_base + m.params.bar0.seq_dma.base;
    let cam = m.params.bar0.tpb_base + m.params.local_reg.hw_decode_table_params.unwrap();
    let s = AddressSpace::new(m);
    assert_eq!(s.resolve("pool.seq_dma.tx_done").unwrap().addr() as u64, dma + 0x814);
    assert_eq!(s.resolve("pool.seq_dma.error.range").unwrap().addr() as u64, dma + 0x818);
    assert_eq!(s.resolve("tpb.hw_decode.status.miss").unwrap().addr() as u64, cam + 0x3f0);
    assert_eq!(s.name(dma + 0x814), "pool.seq_dma.tx_done");
    assert_eq!(s.name(cam + 0x3f0), "tpb.hw_decode.status");
    assert_eq!(s.name(dma + 0x40), "seq.dma+0x40");
    assert_eq!(s.name(dma + 0x900), "seq.dma+0x900", "past the status registers, the window again");
    assert_eq!(s.name(dma + 0x7fc), "seq.dma+0x7fc");
    let sunda = AddressSpace::new(builtin(Arch::Sunda).unwrap());
    assert!(sunda.resolve("tpb.hw_decode.status").is_err());
    assert!(sunda.resolve("pool.seq_dma.busy").is_ok());
}
