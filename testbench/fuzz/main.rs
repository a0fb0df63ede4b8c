//! `tpb-fuzz TARGET`: one of tpb-testbench's fuzz targets
//! ([`tpb_testbench::fuzz::TARGETS`]) under AFL++ (`cargo afl fuzz … --
//! target/…/tpb-fuzz TARGET`; scripts/fuzz does it). A target's broken
//! invariant is a panic: the crash AFL keeps.

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = tpb_testbench::fuzz::target(&name) else {
        let names: Vec<&str> = tpb_testbench::fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
        eprintln!("tpb-fuzz: give a target: {}", names.join(", "));
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| {
        if let Err(e) = target(data) {
            panic!("{name}: {e}");
        }
    });
}
