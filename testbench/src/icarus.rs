//! Cross-simulation under Icarus Verilog: the same generated Verilog, a
//! generated testbench, the same stimulus, every output every cycle.
//!
//! A run is recorded port by port on one engine ([`Recording`]: each
//! cycle's input values, then the output values the engine settled to),
//! the testbench replays the inputs from a `$readmemb` file and prints each
//! output as `%h`, and [`Recording::cross_check`] reads that back line by line.
//! An `x` or `z` digit from Icarus is a mismatch like any other.
//!
//! Four-state start-up: the emitted registers carry an `initial` value, but
//! memories do not, so Icarus would start them at X where Verilator and the
//! golden models start at 0. The testbench zeroes every memory at time 0, found
//! by walking the instance tree of the design ([`memories`]); that is the
//! one documented assumption (`[D]` simulation memories power up zero).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// A port as the testbench sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub width: u32,
}

/// One engine's run: per cycle, the inputs it was driven with and the
/// outputs it settled to before the clock edge (each as 32-bit words, LSW first).
#[derive(Debug, Clone, Default)]
pub struct Recording {
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    pub clock: String,
    pub cycles: Vec<(Words, Words)>,
}

/// Each port's value as 32-bit words, LSW first.
pub type Words = Vec<Vec<u32>>;

/// What the Icarus run found.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub cycles: usize,
    pub compared_values: usize,
    pub zeroed_memories: usize,
    pub compile_s: f64,
    pub run_s: f64,
}

fn hex(words: &[u32], width: u32) -> String {
    let digits = width.div_ceil(4) as usize;
    let mut s = String::new();
    for w in words.iter().rev() {
        let _ = write!(s, "{w:08x}");
    }
    s[s.len() - digits..].to_string()
}

fn bin(words: &[u32], width: u32) -> String {
    let mut s = String::new();
    for w in words.iter().rev() {
        let _ = write!(s, "{w:032b}");
    }
    s[s.len() - width as usize..].to_string()
}

/// The memories of an emitted design: `(hierarchical path below the top,
/// depth)` for every memory array (`reg [7:0] lane0 [0:1023];`) of every
/// module instance.
/// A module's memories (name, depth) and its instances (module, instance name).
type ModuleParts = (Vec<(String, u64)>, Vec<(String, String)>);

pub fn memories(verilog: &str, top: &str) -> Vec<(String, u64)> {
    // module name -> (its memories (name, depth), its instances (module, instance name))
    let mut modules: HashMap<String, ModuleParts> = HashMap::new();
    let mut current: Option<String> = None;
    for line in verilog.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("module ") {
            let name = rest.split(['(', ' ', ';']).next().unwrap_or("").to_string();
            modules.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        if t.starts_with("endmodule") {
            current = None;
            continue;
        }
        let Some(m) = &current else { continue };
        if let Some(rest) = t.strip_prefix("reg ") {
            // reg [7:0] lane0 [0:1023];
            let rest = rest.trim_start();
            let rest = if rest.starts_with('[') { rest.split_once(']').map_or("", |x| x.1).trim() } else { rest };
            if let Some((name, idx)) = rest.trim_end_matches(';').split_once(" [0:") {
                if let Some(hi) = idx.strip_suffix(']').and_then(|h| h.trim().parse::<u64>().ok()) {
                    modules.get_mut(m).unwrap().0.push((name.trim().to_string(), hi + 1));
                }
            }
            continue;
        }
        // An instantiation: `<module> <instance>(`.
        let mut parts = t.splitn(2, ' ');
        if let (Some(ty), Some(rest)) = (parts.next(), parts.next()) {
            if ty.starts_with(top) && rest.ends_with('(') {
                let inst = rest.trim_end_matches('(').trim().to_string();
                modules.get_mut(m).unwrap().1.push((ty.to_string(), inst));
            }
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![(top.to_string(), String::new())];
    while let Some((m, path)) = stack.pop() {
        let Some((mems, insts)) = modules.get(&m) else { continue };
        for (name, d) in mems {
            out.push((if path.is_empty() { name.clone() } else { format!("{path}.{name}") }, *d));
        }
        for (ty, inst) in insts {
            let p = if path.is_empty() { inst.clone() } else { format!("{path}.{inst}") };
            stack.push((ty.clone(), p));
        }
    }
    out.sort();
    out
}

impl Recording {
    /// The testbench text for `top`, reading `stim.mem` and writing `out.txt`.
    pub fn testbench(&self, top: &str, mems: &[(String, u64)]) -> String {
        let n = self.cycles.len();
        let total: u32 = self.inputs.iter().map(|p| p.width).sum();
        let mut s = format!("// GENERATED by tpb_testbench::icarus for {top}: replays stim.mem, prints every output each cycle.\n`timescale 1ns/1ns\nmodule tb;\n");
        let _ = writeln!(s, "  reg {};", self.clock);
        for p in &self.inputs {
            let _ = writeln!(s, "  reg [{}:0] {};", p.width - 1, p.name);
        }
        for p in &self.outputs {
            let _ = writeln!(s, "  wire [{}:0] {};", p.width - 1, p.name);
        }
        // The testbench's own names carry a `tb_` prefix: a port may be called `c` or `i`.
        let _ = writeln!(s, "  reg [{}:0] tb_stim [0:{}];\n  integer tb_c, tb_i, tb_f;", total - 1, n - 1);
        let conns: Vec<String> =
            std::iter::once(&self.clock).chain(self.inputs.iter().map(|p| &p.name)).chain(self.outputs.iter().map(|p| &p.name)).map(|n| format!(".{n}({n})")).collect();
        let _ = writeln!(s, "  {top} dut({});", conns.join(", "));
        s += "  initial begin\n";
        for (path, depth) in mems {
            let _ = writeln!(s, "    for (tb_i = 0; tb_i < {depth}; tb_i = tb_i + 1) dut.{path}[tb_i] = 0;");
        }
        let _ = writeln!(s, "    $readmemb(\"stim.mem\", tb_stim);\n    tb_f = $fopen(\"out.txt\", \"w\");\n    {} = 0;", self.clock);
        let ins: Vec<&str> = self.inputs.iter().map(|p| p.name.as_str()).collect();
        let fmt: Vec<&str> = self.outputs.iter().map(|_| "%h").collect();
        let outs: Vec<&str> = self.outputs.iter().map(|p| p.name.as_str()).collect();
        let _ = writeln!(
            s,
            "    for (tb_c = 0; tb_c < {n}; tb_c = tb_c + 1) begin\n      {{{}}} = tb_stim[tb_c];\n      #1;\n      $fwrite(tb_f, \"{}\\n\", {});\n      {clk} = 1;\n      #1;\n      {clk} = 0;\n    end\n    $fclose(tb_f);\n    $finish;\n  end\nendmodule",
            ins.join(", "),
            fmt.join(" "),
            outs.join(", "),
            clk = self.clock
        );
        s
    }

    /// Compile `verilog` with the generated testbench in `dir`, run it, and
    /// compare its output with this recording. Err names the first
    /// mismatching cycle and port, or the tool failure.
    pub fn cross_check(&self, verilog: &Path, top: &str, dir: &Path) -> Result<Report, IcarusError> {
        let io = |p: &Path| {
            let path = p.display().to_string();
            move |source| IcarusError::Io { path, source }
        };
        let text = std::fs::read_to_string(verilog).map_err(io(verilog))?;
        let mems = memories(&text, top);
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        std::fs::write(dir.join("tb.v"), self.testbench(top, &mems)).map_err(io(&dir.join("tb.v")))?;
        let mut stim = String::new();
        for (ins, _) in &self.cycles {
            for (p, v) in self.inputs.iter().zip(ins) {
                stim += &bin(v, p.width);
            }
            stim.push('\n');
        }
        std::fs::write(dir.join("stim.mem"), stim).map_err(io(&dir.join("stim.mem")))?;
        let vvp = dir.join("tb.vvp");
        let t0 = std::time::Instant::now();
        let o = crate::tools::run("iverilog", &["-g2012", "-o", vvp.to_str().unwrap(), "-s", "tb", dir.join("tb.v").to_str().unwrap(), verilog.to_str().unwrap()])?;
        if !o.status.success() {
            return Err(IcarusError::Iverilog { log: format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)) });
        }
        let compile_s = t0.elapsed().as_secs_f64();
        let t1 = std::time::Instant::now();
        let exe = crate::tools::require("vvp")?;
        let log = std::fs::File::create(dir.join("vvp.log")).map_err(io(&dir.join("vvp.log")))?;
        let mut child = std::process::Command::new(exe)
            .arg("-n")
            .arg("tb.vvp")
            .current_dir(dir)
            .stdout(log.try_clone().map_err(io(&dir.join("vvp.log")))?)
            .stderr(log)
            .spawn()
            .map_err(io(Path::new("vvp")))?;
        // A zero-delay loop never ends a time step; give up with a message
        // naming the last cycle printed instead of hanging the suite.
        let limit = VVP_LIMIT_S_PER_KCYCLE * (1 + self.cycles.len() as u64 / 1000);
        let status = loop {
            if let Some(s) = child.try_wait().map_err(io(Path::new("vvp")))? {
                break s;
            }
            if t1.elapsed().as_secs() >= limit {
                let _ = child.kill();
                let _ = child.wait();
                let done = std::fs::read_to_string(dir.join("out.txt")).map(|t| t.lines().count()).unwrap_or(0);
                return Err(IcarusError::Stuck { cycles: self.cycles.len(), limit, done, dir: dir.display().to_string() });
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        if !status.success() {
            return Err(IcarusError::Vvp { status: status.to_string(), log: std::fs::read_to_string(dir.join("vvp.log")).unwrap_or_default() });
        }
        let run_s = t1.elapsed().as_secs_f64();
        let got = std::fs::read_to_string(dir.join("out.txt")).map_err(io(&dir.join("out.txt")))?;
        let lines: Vec<&str> = got.lines().collect();
        if lines.len() != self.cycles.len() {
            return Err(IcarusError::Cycles { printed: lines.len(), driven: self.cycles.len() });
        }
        let mut compared = 0;
        for (c, (line, (_, outs))) in lines.iter().zip(&self.cycles).enumerate() {
            let fields: Vec<&str> = line.split(' ').collect();
            for ((p, v), g) in self.outputs.iter().zip(outs).zip(&fields) {
                let want = hex(v, p.width);
                if *g != want {
                    return Err(IcarusError::Mismatch { cycle: c, port: p.name.clone(), icarus: g.to_string(), recorded: want });
                }
                compared += 1;
            }
        }
        Ok(Report { cycles: lines.len(), compared_values: compared, zeroed_memories: mems.len(), compile_s, run_s })
    }
}

/// Why a cross-check under Icarus could not agree, or could not run.
#[derive(Debug, thiserror::Error)]
pub enum IcarusError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error(transparent)]
    Tool(#[from] crate::tools::ToolError),
    #[error("iverilog failed:\n{log}")]
    Iverilog { log: String },
    #[error("vvp did not finish {cycles} cycles within {limit} s: stuck in cycle {done} (a zero-delay loop between always blocks?); rerun `vvp tb.vvp` in {dir} and press Ctrl-C, then `step`, to see the scopes that keep waking")]
    Stuck { cycles: usize, limit: u64, done: usize, dir: String },
    #[error("vvp failed ({status}):\n{log}")]
    Vvp { status: String, log: String },
    #[error("Icarus printed {printed} cycles, {driven} were driven")]
    Cycles { printed: usize, driven: usize },
    #[error("cycle {cycle}: output '{port}' is {icarus} under Icarus, {recorded} under the recording engine")]
    Mismatch { cycle: usize, port: String, icarus: String, recorded: String },
    #[error(transparent)]
    Verilator(#[from] tpb_cosim::verilator::VlError),
}

/// Wall-clock seconds vvp gets per 1000 cycles (plus one 1000) before
/// [`Recording::cross_check`] calls it stuck; a top runs ~1000 cycles/s.
pub const VVP_LIMIT_S_PER_KCYCLE: u64 = 60;

/// Record `cycles` of stimulus on a TPB top under Verilator: every input
/// port (as driven) and every output port of the top, each cycle (the
/// sim-only probe wrapper's own ports are not the top's).
pub fn record_top(arch: tpb_models::regmap::Arch, cycles: &[crate::traffic::Cycle]) -> Result<Recording, IcarusError> {
    use tpb_hdl::top::TopSim;
    let mut dut = tpb_cosim::dut::Dut::new(arch)?;
    let ports = dut.model().ports();
    let pick = |input: bool| -> Vec<(usize, Port)> {
        ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.input == input && p.name != "clock" && !tpb_cosim::vlgen::is_wrapper_port(p.name))
            .map(|(i, p)| (i, Port { name: p.name.to_string(), width: p.width }))
            .collect()
    };
    let (ins, outs) = (pick(true), pick(false));
    let mut rec = Recording {
        inputs: ins.iter().map(|x| x.1.clone()).collect(),
        outputs: outs.iter().map(|x| x.1.clone()).collect(),
        clock: "clock".into(),
        cycles: Vec::with_capacity(cycles.len()),
    };
    for c in cycles {
        dut.drive(c.reset, c.req, &c.pins);
        let m = dut.model();
        let i = ins.iter().map(|(k, _)| m.get_words(*k)).collect();
        let o = outs.iter().map(|(k, _)| m.get_words(*k)).collect();
        rec.cycles.push((i, o));
        dut.tick();
    }
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_pad_and_truncate_to_the_port_width() {
        assert_eq!(hex(&[0xabc], 12), "abc");
        assert_eq!(hex(&[0x1], 1), "1");
        assert_eq!(hex(&[0xffff_ffff, 0x3], 34), "3ffffffff");
        assert_eq!(bin(&[5], 3), "101");
        assert_eq!(bin(&[0, 1], 33), "100000000000000000000000000000000");
    }

    #[test]
    fn finds_memories_through_the_instance_tree() {
        let v = "module t(\n    input wire a\n);\n    reg [3:0] top_mem [0:15];\n    t__x x$0 (\n    );\n    t__x x$1 (\n    );\nendmodule\nmodule t__x(\n    input wire b\n);\n    reg [7:0] lane0 [0:255];\n    reg [7:0] lane0$read_data;\n    reg k;\nendmodule\n";
        assert_eq!(memories(v, "t"), vec![("top_mem".to_string(), 16), ("x$0.lane0".to_string(), 256), ("x$1.lane0".to_string(), 256)]);
    }
}
