//! # Pre-route timing estimate: the slow paths minutes before nextpnr says so
//!
//! Place and route of a prototype takes the better part of an hour on two
//! cores; synthesis takes two minutes. This module reads the synthesized
//! netlist (`synth_ecp5`'s JSON) and computes, for every flip-flop and
//! block-RAM input, the latest arrival along the LUTs, muxes and carry chains
//! that feed it, with a fixed delay per cell and per net ([`Delays`]). Its
//! answer is an estimate (it knows no placement, so every net costs the
//! same), good enough to rank the paths and to find the one worth
//! pipelining before a long route: on the SUNDA prototype it put the
//! notification unit's drop counter first, as routing did, at 40 ns against
//! the routed 37 ns.
//!
//! Cells it knows: `TRELLIS_FF`, `DP16KD` (path ends and starts), `LUT4`,
//! `PFUMX`, `L6MUX21`, `CCU2C` (the carry input reaches the carry output in
//! [`Delays::carry`]). Anything else is treated as a start (its outputs) and
//! an end (its inputs): I/O, the PLL, the clock buffers.

use super::flow::rtl_of_tool_name;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// Nanoseconds per element; the defaults are the ECP5 speed-6 figures
/// nextpnr reports for these cells, and a mean net delay from routed runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Delays {
    /// Every net between two cells, except a carry chain's.
    pub net: f64,
    pub ff_clk_to_q: f64,
    pub bram_clk_to_q: f64,
    pub lut: f64,
    pub mux: f64,
    /// A carry cell's operand to its sum or carry output.
    pub carry_in: f64,
    /// A carry cell's carry input to its carry output (the chain itself).
    pub carry: f64,
    /// A carry cell's carry input to its sum outputs.
    pub carry_to_sum: f64,
}

impl Default for Delays {
    fn default() -> Self {
        Delays { net: 0.75, ff_clk_to_q: 0.52, bram_clk_to_q: 4.0, lut: 0.24, mux: 0.2, carry_in: 0.45, carry: 0.07, carry_to_sum: 0.3 }
    }
}

/// One estimated path: its arrival at the end, the RTL signals at either
/// end (or the tools' cell names where no RTL name survives), and the cells
/// on it.
#[derive(Debug, Clone, PartialEq)]
pub struct EstPath {
    pub arrival_ns: f64,
    pub from: String,
    pub to: String,
    pub cells: usize,
}

/// Why a netlist could not be estimated.
#[derive(Debug, thiserror::Error)]
pub enum EstimateError {
    #[error("not a Yosys JSON netlist: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the netlist has no module marked top")]
    NoTop,
}

#[derive(Deserialize)]
struct Netlist {
    modules: BTreeMap<String, Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    attributes: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    cells: BTreeMap<String, Cell>,
    #[serde(default)]
    netnames: BTreeMap<String, NetName>,
}

#[derive(Deserialize)]
struct Cell {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    port_directions: BTreeMap<String, String>,
    #[serde(default)]
    connections: BTreeMap<String, Vec<serde_json::Value>>,
}

#[derive(Deserialize)]
struct NetName {
    bits: Vec<serde_json::Value>,
}

fn bits(v: &[serde_json::Value]) -> impl Iterator<Item = u64> + '_ {
    v.iter().filter_map(serde_json::Value::as_u64)
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Lut,
    Mux,
    Carry,
    /// Flip-flops, block RAMs and every cell the estimate does not look into.
    Seq {
        clk_to_q_bram: bool,
    },
}

fn kind(t: &str) -> Kind {
    match t {
        "LUT4" => Kind::Lut,
        "PFUMX" | "L6MUX21" => Kind::Mux,
        "CCU2C" => Kind::Carry,
        t => Kind::Seq { clk_to_q_bram: t == "DP16KD" },
    }
}

/// The `n` slowest paths of a `synth_ecp5` JSON netlist, one per end signal
/// (its worst start), slowest first.
pub fn worst_paths(json: &str, d: &Delays, n: usize) -> Result<Vec<EstPath>, EstimateError> {
    let net: Netlist = serde_json::from_str(json)?;
    let top = net
        .modules
        .values()
        .find(|m| m.attributes.get("top").is_some_and(|v| v.as_str().map_or(v.as_u64() == Some(1), |s| s.trim_start_matches('0') == "1")))
        .ok_or(EstimateError::NoTop)?;
    // A name per net bit: the shortest, which is the RTL's where one survives.
    let mut name: HashMap<u64, &str> = HashMap::new();
    for (nm, nn) in &top.netnames {
        for b in bits(&nn.bits) {
            let e = name.entry(b).or_insert(nm);
            if nm.len() < e.len() {
                *e = nm;
            }
        }
    }
    let cells: Vec<(&String, &Cell, Kind)> = top.cells.iter().filter(|(_, c)| c.kind != "$scopeinfo").map(|(n, c)| (n, c, kind(&c.kind))).collect();
    // Each bit's driver: (cell, output port).
    let mut driver: HashMap<u64, (usize, &str)> = HashMap::new();
    for (i, (_, c, _)) in cells.iter().enumerate() {
        for (p, v) in &c.connections {
            if c.port_directions.get(p).map(String::as_str) == Some("output") {
                for b in bits(v) {
                    driver.insert(b, (i, p.as_str()));
                }
            }
        }
    }
    // Arrival at each bit, with the bit it came from, computed without
    // recursion (netlists are deep); a combinational loop is cut where found.
    let mut arrival: HashMap<u64, (f64, Option<u64>, usize)> = HashMap::new();
    let mut on_stack: std::collections::HashSet<u64> = Default::default();
    let inputs_of = |i: usize, out_port: &str| -> Vec<(u64, f64)> {
        let (_, c, k) = cells[i];
        let mut v = Vec::new();
        for (p, b) in &c.connections {
            if c.port_directions.get(p).map(String::as_str) != Some("input") {
                continue;
            }
            let (net_ns, cell_ns) = match k {
                Kind::Lut => (d.net, d.lut),
                Kind::Mux => (d.net, d.mux),
                Kind::Carry if p == "CIN" => (0.0, if out_port == "COUT" { d.carry } else { d.carry_to_sum }),
                // The upper half's operands do not reach the lower sum.
                Kind::Carry if out_port == "S0" && p.ends_with('1') => continue,
                Kind::Carry => (d.net, d.carry_in),
                Kind::Seq { .. } => continue,
            };
            for x in bits(b) {
                v.push((x, net_ns + cell_ns));
            }
        }
        v
    };
    let start_of = |b: u64| -> Option<f64> {
        match driver.get(&b) {
            None => Some(0.0),
            Some(&(i, _)) => match cells[i].2 {
                Kind::Seq { clk_to_q_bram } => Some(if clk_to_q_bram { d.bram_clk_to_q } else { d.ff_clk_to_q }),
                _ => None,
            },
        }
    };
    let mut solve = |root: u64, arrival: &mut HashMap<u64, (f64, Option<u64>, usize)>| {
        let mut stack = vec![(root, false)];
        while let Some((b, expanded)) = stack.pop() {
            if arrival.contains_key(&b) {
                continue;
            }
            if !expanded && on_stack.contains(&b) {
                continue; // a combinational loop: cut here
            }
            if let Some(t) = start_of(b) {
                arrival.insert(b, (t, None, 0));
                continue;
            }
            let (i, port) = driver[&b];
            let ins = inputs_of(i, port);
            if !expanded {
                on_stack.insert(b);
                stack.push((b, true));
                for (x, _) in &ins {
                    if !arrival.contains_key(x) && !on_stack.contains(x) {
                        stack.push((*x, false));
                    }
                }
                continue;
            }
            on_stack.remove(&b);
            let mut best = (0.0, None, 0);
            for (x, dt) in ins {
                if let Some(&(t, _, c)) = arrival.get(&x) {
                    if t + dt > best.0 {
                        best = (t + dt, Some(x), c + 1);
                    }
                }
            }
            arrival.insert(b, best);
        }
    };
    // Every input of a flip-flop or block RAM but its clock is an end.
    let mut ends: Vec<(f64, u64, usize)> = Vec::new();
    for (i, (_, c, _)) in cells.iter().enumerate() {
        if !(c.kind == "TRELLIS_FF" || c.kind == "DP16KD") {
            continue;
        }
        for (p, v) in &c.connections {
            if c.port_directions.get(p).map(String::as_str) != Some("input") || p.starts_with("CLK") {
                continue;
            }
            for b in bits(v) {
                solve(b, &mut arrival);
                ends.push((arrival[&b].0 + d.net, b, i));
            }
        }
    }
    ends.sort_by(|a, b| b.0.total_cmp(&a.0));
    let label = |b: u64| -> String {
        let raw = name.get(&b).copied().unwrap_or("?");
        rtl_of_tool_name(raw).unwrap_or_else(|| raw.to_string())
    };
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (t, b, i) in ends {
        let mut s = b;
        while let Some(&(_, Some(prev), _)) = arrival.get(&s) {
            s = prev;
        }
        // The end flip-flop's cell, named by the signal it holds where the
        // name says so (`x_TRELLIS_FF_Q_3`), else the net it takes in.
        let cell = cells[i].0;
        let to = rtl_of_tool_name(cell).unwrap_or_else(|| cell.find("_TRELLIS_FF_Q").map_or_else(|| label(b), |k| cell[..k].to_string()));
        if !seen.insert(to.clone()) {
            continue;
        }
        out.push(EstPath { arrival_ns: t, from: label(s), to, cells: arrival[&b].2 });
        if out.len() == n {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A netlist in synth_ecp5's JSON form: `q` (a flip-flop) through two
    /// LUTs and a two-cell carry chain to `d`'s flip-flop.
    fn netlist() -> String {
        let ff =
            |d: u64, q: u64| format!(r#"{{"type":"TRELLIS_FF","port_directions":{{"CLK":"input","DI":"input","Q":"output"}},"connections":{{"CLK":[1],"DI":[{d}],"Q":[{q}]}}}}"#);
        let lut = |a: u64, z: u64| format!(r#"{{"type":"LUT4","port_directions":{{"A":"input","B":"input","Z":"output"}},"connections":{{"A":[{a}],"B":[2],"Z":[{z}]}}}}"#);
        let ccu = |a: u64, cin: u64, s0: u64, s1: u64, cout: u64| {
            format!(
                r#"{{"type":"CCU2C","port_directions":{{"A0":"input","A1":"input","CIN":"input","S0":"output","S1":"output","COUT":"output"}},"connections":{{"A0":[{a}],"A1":[{a}],"CIN":[{cin}],"S0":[{s0}],"S1":[{s1}],"COUT":[{cout}]}}}}"#
            )
        };
        format!(
            r#"{{"modules":{{"top":{{"attributes":{{"top":"00000000000000000000000000000001"}},
            "netnames":{{"count":{{"bits":[10]}},"count_TRELLIS_FF_Q_DI":{{"bits":[13]}},"x":{{"bits":[11]}},"y":{{"bits":[12]}},"total":{{"bits":[16]}}}},
            "cells":{{"count_TRELLIS_FF_Q":{ff_a},"l1":{l1},"l2":{l2},"c0":{c0},"c1":{c1},"total_TRELLIS_FF_Q":{ff_b},"loop":{ff_c}}}}}}}}}"#,
            ff_a = ff(13, 10),
            l1 = lut(10, 11),
            l2 = lut(11, 12),
            c0 = ccu(12, 3, 20, 21, 14),
            c1 = ccu(3, 14, 22, 16, 15),
            ff_b = ff(16, 17),
            ff_c = ff(17, 13),
        )
    }

    #[test]
    fn the_slowest_path_adds_its_cells_and_nets() {
        let d = Delays::default();
        let p = worst_paths(&netlist(), &d, 5).unwrap();
        // count -> LUT -> LUT -> carry operand -> carry chain -> upper sum -> total's flip-flop.
        let want = d.ff_clk_to_q + 2.0 * (d.net + d.lut) + d.net + d.carry_in + d.carry_to_sum + d.net;
        assert_eq!(p[0].from, "count");
        assert_eq!(p[0].to, "total");
        assert!((p[0].arrival_ns - want).abs() < 1e-9, "{} vs {want}", p[0].arrival_ns);
        assert_eq!(p[0].cells, 4);
        // The next end (count's own input, fed straight from total) is one net after a clock-to-q.
        assert_eq!(p[1].to, "count");
        assert!((p[1].arrival_ns - (d.ff_clk_to_q + d.net)).abs() < 1e-9);
        assert_eq!(p[2].to, "loop");
        assert_eq!(p.len(), 3, "{p:?}");
    }

    #[test]
    fn a_file_that_is_not_a_netlist_is_refused() {
        assert!(matches!(worst_paths("{", &Delays::default(), 3), Err(EstimateError::Json(_))));
        assert!(matches!(worst_paths(r#"{"modules":{"m":{}}}"#, &Delays::default(), 3), Err(EstimateError::NoTop)));
    }
}
