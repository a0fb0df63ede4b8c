//! Generates the rust-hdl register blocks from the register maps into OUT_DIR
//! (`regblocks.rs`, included by `src/regblocks.rs`). Print the source with
//! `tpb regmap --arch ARCH --format rust-hdl`.

fn main() {
    let maps_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/regmap/maps");
    println!("cargo:rerun-if-changed={}", maps_dir.display());
    for dir in tpb_regmap::Arch::ALL.iter().map(|a| a.name()).chain(["common"]) {
        println!("cargo:rerun-if-changed={}", maps_dir.join(dir).display());
    }
    let maps = tpb_regmap::builtin_all().unwrap_or_else(|e| panic!("register map error: {e}"));
    let src = tpb_regmap::gen::rust_hdl::module_source(&maps);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("regblocks.rs");
    std::fs::write(out, src).unwrap();
}
