//! A mesh's dies on 1, 2 and 3 threads give the same run, bit for bit:
//! every multi-die scenario's report (cycles, checks, observed values,
//! counters, events, the crossing log) and every die's VCD bytes.

use tpb_cosim::mesh::{node_path, set_threads};
use tpb_cosim::scenario::{Report, Runs, ScenarioFile, BUILTIN};
use tpb_models::regmap::Arch;

/// The built-in scenarios that run on dies of their own.
fn on_dies() -> Vec<(String, ScenarioFile)> {
    let files = BUILTIN.iter().map(|(f, _)| f.trim_end_matches(".toml").to_string());
    files
        .filter_map(|n| {
            let f = ScenarioFile::find(&n).unwrap();
            matches!(f.scenario().unwrap().runs(), Runs::Dies(_)).then_some((n, f))
        })
        .collect()
}

/// One run on `threads` threads: the report and, when traced, each node's VCD.
fn run(f: &ScenarioFile, arch: Arch, threads: usize, trace: Option<&std::path::Path>) -> (String, Vec<Vec<u8>>) {
    set_threads(threads);
    let s = f.scenario().unwrap();
    let dies = match s.runs() {
        Runs::Dies(k) => k.dies(None).unwrap(),
        Runs::OneSystem(_) => unreachable!(),
    };
    let r: Report = s.run_dies(arch, dies, f.cycles, trace).unwrap_or_else(|e| panic!("{} on {threads} threads: {e}", f.name));
    let waves = trace.map_or_else(Vec::new, |p| (0..dies * s.top_sps()).map(|k| std::fs::read(node_path(p, k, s.top_sps())).unwrap()).collect());
    (format!("{r:#?}"), waves)
}

#[test]
fn every_multi_die_scenario_is_the_same_on_1_2_and_3_threads() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("threads");
    std::fs::create_dir_all(&dir).unwrap();
    let all = on_dies();
    assert!(all.len() >= 6, "the multi-die scenarios: {:?}", all.iter().map(|a| &a.0).collect::<Vec<_>>());
    for (name, f) in &all {
        let arch = Arch::Cayman;
        let (one, _) = run(f, arch, 1, None);
        let traced = dir.join(format!("{name}.t1.vcd"));
        let (one_traced, one_waves) = run(f, arch, 1, Some(&traced));
        assert!(one_waves.iter().all(|w| w.len() > 1000), "{name}: every die traced");
        for threads in [2, 3] {
            let (r, _) = run(f, arch, threads, None);
            assert!(r == one, "{name}: the untraced report on {threads} threads differs from one thread's:\n{}", first_difference(&one, &r));
            let p = dir.join(format!("{name}.t{threads}.vcd"));
            let (r, waves) = run(f, arch, threads, Some(&p));
            assert!(r == one_traced, "{name}: the traced report on {threads} threads differs:\n{}", first_difference(&one_traced, &r));
            for (k, (a, b)) in one_waves.iter().zip(&waves).enumerate() {
                assert!(a == b, "{name}: node {k}'s VCD on {threads} threads differs from one thread's ({} and {} bytes)", a.len(), b.len());
            }
        }
        println!("{name}: the same report and {} VCDs on 1, 2 and 3 threads", one_waves.len());
    }
    set_threads(0);
}

fn first_difference(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let i = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(la.len().min(lb.len()));
    format!("line {i}: one thread: {:?}\n        this run: {:?}", la.get(i), lb.get(i))
}

/// A link without latency leaves no window to run alone in: one thread, and
/// the mesh says why.
#[test]
fn a_zero_latency_link_runs_on_one_thread_and_says_so() {
    let mut m = tpb_cosim::mesh::Mesh::new(Arch::Cayman, 4, 0).unwrap();
    m.threads = 2;
    assert_eq!(m.threads_used(), 1);
    assert!(m.threads_note().unwrap().contains("link latency 0"), "{:?}", m.threads_note());
    m.latency = 16;
    assert_eq!(m.threads_used(), 2);
    assert_eq!(m.threads_note(), None);
    m.threads = 9;
    assert_eq!(m.threads_used(), 4, "no more threads than nodes");
}
