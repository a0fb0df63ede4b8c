//! Bad maps are refused whole, with a typed error naming file, line,
//! register and field.

use std::path::PathBuf;
use tpb_regmap::{builtin, builtin_all, builtin_files, load, Arch, RegmapError};

/// The built-in CAYMAN files with `file`'s text replaced by `f(text)`.
fn cayman_with(file: &str, f: impl Fn(&str) -> String) -> Vec<(PathBuf, String)> {
    builtin_files(Arch::Cayman).iter().map(|(p, t)| (PathBuf::from(p), if p.ends_with(file) { f(t) } else { t.to_string() })).collect()
}

fn load_err(files: Vec<(PathBuf, String)>) -> RegmapError {
    load::from_sources(Arch::Cayman, &files).expect_err("the map must be refused")
}

/// Lines of the pristine q7.toml: errors in appended text must point past them.
fn q7_lines() -> usize {
    builtin_files(Arch::Cayman).iter().find(|(p, _)| p.ends_with("q7.toml")).unwrap().1.lines().count()
}

const EXTRA: &str = r#"
[[register]]
name = "extra"
offset = 0x3060
description = "test register"
tag = "D"
source = "test"
"#;

#[test]
fn builtin_maps_load() {
    let maps = builtin_all().unwrap();
    assert_eq!(maps.len(), 3);
    for m in &maps {
        assert!(m.blocks.len() >= 6, "{}", m.arch);
    }
}

#[test]
fn overlapping_registers_are_refused_with_both_names() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}access = \"rw\"\n").replace("0x3060", "0x3004")));
    let msg = e.to_string();
    assert!(matches!(e, RegmapError::Overlap { .. }), "{msg}");
    assert!(msg.contains("q7.extra") && msg.contains("q7.start_ctrl") && msg.contains("q7.toml:"), "{msg}");
}

#[test]
fn a_register_over_another_blocks_array_window_is_refused() {
    // A q7 register moved into the EVT_SEM inc window (pool engine has both).
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}access = \"rw\"\n").replace("start = 0x3000", "start = 0x1000").replace("0x3060", "0x1800")));
    assert!(matches!(e, RegmapError::Overlap { .. }), "{e}");
    assert!(e.to_string().contains("evt_sem"), "{e}");
}

#[test]
fn field_overflow_names_register_field_and_line() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}  [[register.field]]\n  name = \"big\"\n  bits = \"40:30\"\n  access = \"rw\"\n")));
    let msg = e.to_string();
    assert!(matches!(e, RegmapError::FieldOverflow { .. }), "{msg}");
    assert!(msg.contains("'extra'") && msg.contains("'big'") && msg.contains("[40:30]"), "{msg}");
    let loc = e.loc().unwrap();
    assert!(loc.file.ends_with("common/q7.toml") && loc.line > q7_lines(), "{loc}");
}

#[test]
fn reset_that_does_not_fit_is_refused() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}  [[register.field]]\n  name = \"f\"\n  bits = \"3:0\"\n  access = \"rw\"\n  reset = 0x10\n")));
    assert!(matches!(e, RegmapError::ResetTooWide { reset: 0x10, width: 4, .. }), "{e}");
    assert!(e.to_string().contains("'extra' field 'f'"), "{e}");
}

#[test]
fn duplicate_names_are_refused() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}access = \"rw\"\n").replace("name = \"extra\"", "name = \"intr_ctrl\"")));
    assert!(matches!(e, RegmapError::Duplicate { .. }), "{e}");
    assert!(e.to_string().contains("intr_ctrl"), "{e}");
}

#[test]
fn overlapping_fields_are_refused() {
    let e = load_err(cayman_with("q7.toml", |t| {
        format!("{t}{EXTRA}  [[register.field]]\n  name = \"a\"\n  bits = \"3:0\"\n  access = \"rw\"\n  [[register.field]]\n  name = \"b\"\n  bits = \"4:3\"\n  access = \"rw\"\n")
    }));
    assert!(matches!(e, RegmapError::FieldOverlap { .. }), "{e}");
}

#[test]
fn unknown_access_kind_is_a_parse_error_with_line_and_column() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}access = \"readwrite\"\n")));
    let msg = e.to_string();
    assert!(matches!(e, RegmapError::Parse { .. }), "{msg}");
    assert!(msg.contains("readwrite") && msg.contains("q7.toml:"), "{msg}");
    let loc = e.loc().unwrap();
    assert!(loc.line > q7_lines() && loc.col > 1, "{loc}");
}

#[test]
fn unknown_keys_are_refused() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}access = \"rw\"\nresett = 3\n")));
    assert!(e.to_string().contains("resett"), "{e}");
}

#[test]
fn misaligned_offsets_are_refused() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}access = \"rw\"\n").replace("0x3060", "0x3062")));
    assert!(matches!(e, RegmapError::Misaligned { offset: 0x3062, .. }), "{e}");
}

#[test]
fn register_outside_block_range_is_refused() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}access = \"rw\"\n").replace("0x3060", "0x3200")));
    assert!(matches!(e, RegmapError::OutOfRange { .. }), "{e}");
}

#[test]
fn missing_view_offset_is_refused() {
    let e = load_err(cayman_with("nx.toml", |t| t.replace("offset = { hal = 0x0040 }", "offset = { device = 0x0040 }")));
    assert!(matches!(e, RegmapError::MissingViewOffset { .. }), "{e}");
    assert!(e.to_string().contains("dma_ctrl") && e.to_string().contains("hal"), "{e}");
}

#[test]
fn alias_to_unknown_window_or_index_is_refused() {
    let e = load_err(cayman_with("top_sp.toml", |t| t.replacen("window = \"set\"", "window = \"sett\"", 1)));
    assert!(matches!(e, RegmapError::BadAlias { .. }) && e.to_string().contains("sett"), "{e}");
    let e = load_err(cayman_with("top_sp.toml", |t| t.replace("index = 104", "index = 256")));
    assert!(e.to_string().contains("256"), "{e}");
}

#[test]
fn ro_field_with_reset_is_refused() {
    let e = load_err(cayman_with("q7.toml", |t| format!("{t}{EXTRA}  [[register.field]]\n  name = \"f\"\n  bits = \"0\"\n  access = \"ro\"\n  reset = 1\n")));
    assert!(matches!(e, RegmapError::BadField { .. }), "{e}");
}

#[test]
fn missing_arch_toml_is_refused() {
    let files: Vec<_> = cayman_with("none", |t| t.to_string()).into_iter().filter(|(p, _)| !p.ends_with("arch.toml")).collect();
    let e = load_err(files);
    assert!(e.to_string().contains("arch.toml"), "{e}");
}

#[test]
fn bad_params_are_refused() {
    let e = load_err(cayman_with("arch.toml", |t| t.replace("num_q7 = 8", "num_q7 = \"eight\"")));
    assert!(matches!(e, RegmapError::Parse { .. }) && e.to_string().contains("arch.toml:"), "{e}");
}

#[test]
fn load_dir_reads_a_directory_and_reports_io_errors() {
    // The maps' layout: the generation's folder and `common` beside it.
    let root = std::env::temp_dir().join(format!("tpb-regmap-test-{}", std::process::id()));
    for (p, t) in builtin_files(Arch::Sunda) {
        let p = PathBuf::from(p);
        let d = root.join(p.parent().unwrap().file_name().unwrap());
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(p.file_name().unwrap()), t).unwrap();
    }
    let dir = root.join("sunda");
    let m = load::load_dir(Arch::Sunda, &dir).unwrap();
    assert_eq!(
        m.blocks,
        builtin(Arch::Sunda)
            .unwrap()
            .blocks
            .into_iter()
            .map(|mut b| {
                b.file = root.join(b.file.strip_prefix("models/regmap/maps").unwrap());
                b.extends = b.extends.map(|e| root.join(e.strip_prefix("models/regmap/maps").unwrap()));
                b
            })
            .collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&root).unwrap();
    let e = load::load_dir(Arch::Sunda, &dir).unwrap_err();
    assert!(matches!(e, RegmapError::Io { .. }), "{e}");
}

#[test]
fn unknown_arch_name_is_an_error() {
    assert!(matches!(Arch::parse("maverick"), Err(RegmapError::UnknownArch(_))));
    assert_eq!(Arch::parse("CAYMAN").unwrap(), Arch::Cayman);
}

#[test]
fn overlapping_bar0_regions_are_refused_with_both_names() {
    // Move the SEQ IRAM onto the TOP_SP local-register aperture.
    let e = load_err(cayman_with("arch.toml", |t| t.replace("seq_iram = { base = 0x00800000", "seq_iram = { base = 0x00068000")));
    let msg = e.to_string();
    assert!(matches!(e, RegmapError::Invalid { .. }), "{msg}");
    assert!(msg.contains("seq.iram") && msg.contains("top_sp.local_reg") && msg.contains("arch.toml:"), "{msg}");
}

#[test]
fn misaligned_bar0_region_is_refused() {
    let e = load_err(cayman_with("arch.toml", |t| t.replace("tpb_regs = { base = 0x00070000", "tpb_regs = { base = 0x00070002")));
    assert!(e.to_string().contains("'tpb_regs'") && e.to_string().contains("aligned"), "{e}");
}

#[test]
fn block_beyond_its_bar0_aperture_is_refused() {
    let e = load_err(cayman_with("arch.toml", |t| t.replace("local_reg_size = 0x10000", "local_reg_size = 0x3000")));
    let msg = e.to_string();
    assert!(msg.contains("block 'q7' ends at 0x3100") && msg.contains("q7.toml"), "{msg}");
}

#[test]
fn bar0_layout_of_the_q7_cores() {
    let m = builtin(Arch::Cayman).unwrap();
    let l = m.params.q7_layout(2).unwrap();
    // stride = 0x20000 + 0x60000 + 0x40000 + 0x40000, the device map's per-core DRAM stride.
    assert_eq!(l.core_stride, 0x100000);
    assert_eq!((l.iram(1), l.dram(1)), (0x3200000, 0x3280000));
    let s = builtin(Arch::Sunda).unwrap().params.q7_layout(2).unwrap();
    assert_eq!((s.core_stride, s.iram(7), s.dram(7)), (0x20000, 0x2980000 + 7 * 0x20000, 0x2980000 + 7 * 0x20000 + 0x10000));
}

#[test]
fn an_engine_type_table_the_hal_cannot_use_is_refused() {
    let e = load_err(cayman_with("arch.toml", |t| t.replace("engine_types = 6", "engine_types = 2")));
    let msg = e.to_string();
    assert!(msg.contains("arch.toml:") && msg.contains("engine_types = 2"), "{msg}");
}

/// `[sim] clock_period_ps` ([D]): every generation has one, and an odd or
/// zero period (no whole-picosecond rising edge) is refused with its line.
#[test]
fn the_clock_period_is_a_positive_even_number_of_picoseconds() {
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let p = builtin(arch).unwrap().params.sim;
        assert_eq!((p.clock_period_ps, p.clock_mhz()), (1000, 1000.0), "{arch:?}");
    }
    for bad in ["1001", "0"] {
        let e = load_err(cayman_with("arch.toml", |t| t.replace("clock_period_ps = 1000", &format!("clock_period_ps = {bad}"))));
        let msg = e.to_string();
        assert!(msg.contains("arch.toml:") && msg.contains(&format!("clock_period_ps = {bad}: a clock period must be a positive, even number")), "{msg}");
    }
    let e = load_err(cayman_with("arch.toml", |t| t.replace("clock_period_ps = 1000", "clock_period_ns = 1")));
    assert!(e.to_string().contains("clock_period_ns"), "{e}");
}

/// `[top_sp] soc_tpb_window` ([D]): the TPB's BAR0 must fit in an
/// instance's SoC span past its local-register aperture, or the map is
/// refused naming the key.
#[test]
fn the_soc_window_onto_bar0_fits_the_instance_span() {
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        assert_eq!(builtin(arch).unwrap().params.top_sp.soc_tpb_window, 0x2000_0000, "{arch:?}");
    }
    for bad in ["0x8000", "0x3ff00000"] {
        let e = load_err(cayman_with("arch.toml", |t| t.replace("soc_tpb_window = 0x20000000", &format!("soc_tpb_window = {bad}"))));
        let msg = e.to_string();
        assert!(msg.contains("arch.toml:") && msg.contains("soc_tpb_window") && msg.contains("must fit in an instance's span"), "{msg}");
    }
}

/// Blocks are described once (`maps/common/`); a generation's file holds
/// only what differs. The layering gives each generation what it had when
/// every generation had its own copy: SUNDA's NX block ends at 0x848 and
/// adds the Q7 interrupt info and the DKL triple, MARIANA's TOP_SP aliases
/// are [I] (the seeds state them for CAYMAN), and CAYMAN uses the common
/// blocks as they are.
#[test]
fn common_blocks_and_the_generations_differences() {
    use tpb_regmap::Tag;
    let (s, c, m) = (builtin(Arch::Sunda).unwrap(), builtin(Arch::Cayman).unwrap(), builtin(Arch::Mariana).unwrap());
    let nx = |map: &tpb_regmap::RegMap| map.block("nx").unwrap().clone();
    assert_eq!((nx(&s).end, nx(&c).end), (0x848, 0x1000));
    assert!(nx(&s).register("q7_intr_info").is_some() && nx(&c).register("q7_intr_info").is_none());
    assert_eq!(nx(&s).registers.len(), nx(&c).registers.len() + 4, "q7_intr_info and nx_rsvd_space0..2");
    assert_eq!(nx(&s).extends.as_deref(), Some(std::path::Path::new("models/regmap/maps/common/nx.toml")));
    for b in ["evt_sem", "windows", "q7", "tpb"] {
        for map in [&s, &c, &m] {
            assert!(map.block(b).unwrap().file.starts_with("models/regmap/maps/common"), "{b}");
        }
    }
    let tags = |map: &tpb_regmap::RegMap| map.block("top_sp").unwrap().aliases.iter().map(|a| a.tag).collect::<Vec<_>>();
    assert_eq!(tags(&c), [Tag::I; 3], "the SET reading is DIGEST §3's inference (issue 40)");
    assert_eq!(tags(&m), [Tag::I; 3]);
    let strip = |mut b: tpb_regmap::Block| {
        b.aliases.iter_mut().for_each(|a| {
            a.tag = Tag::S;
            a.source.clear();
            a.line = 0;
        });
        b.file = Default::default();
        b.extends = None;
        b.arch = Arch::Cayman;
        b
    };
    assert_eq!(strip(m.block("top_sp").unwrap().clone()), strip(c.block("top_sp").unwrap().clone()), "MARIANA's TOP_SP differs only in tags");
    // SUNDA replaces the TOP_SP block whole (compacted doorbell registers).
    assert_eq!(s.block("top_sp").unwrap().file, std::path::Path::new("models/regmap/maps/sunda/top_sp.toml"));
}

/// A mistake in a layered block is reported at the file and line it is in:
/// in the overlay for what the overlay adds, in the common file for the rest.
#[test]
fn errors_in_layered_blocks_name_the_file_they_are_in() {
    let sunda_with = |file: &str, f: &dyn Fn(&str) -> String| -> Vec<(PathBuf, String)> {
        builtin_files(Arch::Sunda).iter().map(|(p, t)| (PathBuf::from(p), if p.ends_with(file) { f(t) } else { t.to_string() })).collect()
    };
    let over = builtin_files(Arch::Sunda).iter().find(|(p, _)| p.ends_with("sunda/nx.toml")).unwrap().1;
    let line = over.lines().position(|l| l.starts_with("description = \"Q7 interrupt info")).unwrap() + 1;
    let e = load::from_sources(
        Arch::Sunda,
        &sunda_with("sunda/nx.toml", &|t| t.replace("Q7 interrupt info (SUNDA file-IO table)\"\ntag = \"S\"", "Q7 interrupt info (SUNDA file-IO table)\"\ntag = \"Q\"")),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with(&format!("models/regmap/maps/sunda/nx.toml:{}:", line + 1)), "{e}");
    let common = builtin_files(Arch::Sunda).iter().find(|(p, _)| p.ends_with("common/nx.toml")).unwrap().1;
    let line = common.lines().position(|l| l.contains("access = \"rw\"")).unwrap() + 1;
    let e = load::from_sources(Arch::Sunda, &sunda_with("common/nx.toml", &|t| t.replacen("access = \"rw\"", "access = \"rx\"", 1))).unwrap_err();
    assert!(e.to_string().starts_with(&format!("models/regmap/maps/common/nx.toml:{line}:")), "{e}");
    let e = load::from_sources(Arch::Sunda, &sunda_with("sunda/nx.toml", &|t| t.replace("extends = \"nx\"", "extends = \"nxx\""))).unwrap_err();
    assert!(e.to_string().contains("sunda/nx.toml:5:1: extends = \"nxx\": no common/nxx.toml"), "{e}");
}
