//! Register coverage (`tpb_regmap::cover`): an access covers the fields of
//! the register it reaches, a check only the compared fields, windows count
//! their elements, runs merge, and the report names who did what.

use tpb_regmap::cover::{html, RegCoverage};
use tpb_regmap::{builtin, Arch};

fn field<'a>(r: &'a tpb_regmap::cover::Report, name: &str) -> &'a tpb_regmap::cover::FieldCover {
    r.fields.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no point {name}"))
}

#[test]
fn a_write_covers_the_register_a_check_only_its_mask() {
    let map = builtin(Arch::Cayman).unwrap();
    let mut c = RegCoverage::new(&map);
    let r0 = c.report();
    assert!(r0.fields.len() > 500, "every field of every block: {}", r0.fields.len());
    assert_eq!(r0.unchecked.len(), r0.fields.len(), "nothing ran: nothing checked");
    assert!(r0.sources.is_empty());

    c.source("t1");
    let ctrl = c.space().resolve("pool.nx.intr_ctrl").unwrap().addr();
    c.access(ctrl, true, false);
    let enable = c.space().resolve("pool.nx.intr_ctrl.enable").unwrap();
    let tpb_regmap::space::Named::Reg { field: Some(f), .. } = &enable else { panic!("{enable:?}") };
    c.check(ctrl, f.mask());
    let r = c.report();
    let fields: Vec<_> = r.fields.iter().filter(|f| f.name.starts_with("pool.nx.intr_ctrl.")).collect();
    assert!(fields.len() >= 2, "intr_ctrl has more than one field: {fields:?}");
    for f in &fields {
        assert_eq!(f.written_by, ["t1"], "{}: a write reaches every field", f.name);
        let want: &[&str] = if f.name == "pool.nx.intr_ctrl.enable" { &["t1"] } else { &[] };
        assert_eq!(f.checked_by, want, "{}: only the compared field is checked", f.name);
        assert!(f.read_by.is_empty() && f.by_firmware.is_empty());
    }
    // The other engines' intr_ctrl are other points.
    assert!(field(&r, "act.nx.intr_ctrl.enable").written_by.is_empty());
    assert_eq!(r.unchecked.len(), r.fields.len() - 1, "exactly one field checked");
    let b = r.blocks.iter().find(|b| b.block == "pool.nx").unwrap();
    assert_eq!((b.written as usize, b.read, b.checked), (fields.len(), 0, 1));
    assert_eq!(r.sources, ["t1"]);
}

#[test]
fn firmware_accesses_windows_and_unmapped_words() {
    let map = builtin(Arch::Cayman).unwrap();
    let mut c = RegCoverage::new(&map);
    c.source("fw");
    let inc5 = c.space().resolve("top_sp.evt_sem.inc[5]").unwrap().addr();
    let inc7 = c.space().resolve("top_sp.evt_sem.inc[7]").unwrap().addr();
    c.access(inc5, true, true);
    c.access(inc7, true, true);
    c.access(inc7, true, true);
    // A memory word and an address nothing decodes are not registers.
    c.access(c.space().resolve("mem.seq.iram+0x40").unwrap().addr(), true, false);
    c.access(0xffff_fff0, false, false);
    let r = c.report();
    let w = field(&r, "top_sp.evt_sem.inc[]");
    assert_eq!(w.elements, Some([2, 256]));
    assert_eq!((w.written_by.clone(), w.by_firmware.clone()), (vec!["fw".to_string()], vec!["fw".to_string()]));
    assert_eq!(r.fields.iter().filter(|f| !f.written_by.is_empty()).count(), 1);
    let page = html(&r);
    assert!(page.contains("<td class=\"t\">w</td>"), "firmware-only is lower case");
    assert!(page.contains("(2/256 elements)"));
}

#[test]
fn runs_merge_by_name_and_generations_do_not() {
    let map = builtin(Arch::Sunda).unwrap();
    let (mut a, mut b) = (RegCoverage::new(&map), RegCoverage::new(&map));
    let addr = a.space().resolve("pool.nx.release_run_stall").unwrap().addr();
    a.source("one");
    a.access(addr, true, false);
    b.source("two");
    b.access(addr, false, false);
    b.check(addr, u32::MAX);
    a.merge(&b).unwrap();
    let r = a.report();
    let f = r.fields.iter().find(|f| f.name.starts_with("pool.nx.release_run_stall")).unwrap();
    assert_eq!((f.written_by.clone(), f.read_by.clone(), f.checked_by.clone()), (vec!["one".into()], vec!["two".into()], vec!["two".into()]));
    let json = serde_json::to_string(&r).unwrap();
    let back: tpb_regmap::cover::Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back, r);
    assert!(r.summary_table().contains("| `pool.nx` |"));
    let e = a.merge(&RegCoverage::new(&builtin(Arch::Cayman).unwrap())).unwrap_err();
    assert_eq!(e.to_string(), "register coverage of cayman cannot merge into sunda's");
}
