//! `[[collective.expect]]`: a user's own checks after a collective, each
//! naming the TOP_SP it reads (`die`, `top_sp`) and a register, a field or
//! words of its top by name (`top_sp.evt_sem.read[40]`,
//! `mem.seq.dma+0x40`), with the value or the words it must hold.

use super::*;
use tpb_models::regmap::space::{AddressSpace, Named};

/// One check of the file's.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectData {
    pub die: u32,
    #[serde(default)]
    pub top_sp: u32,
    /// A name of the top's address space (`tpb explain`'s forms).
    pub at: String,
    /// The register's (or field's) value.
    pub value: Option<u32>,
    /// Or the words from `at` on.
    pub words: Option<Vec<u32>>,
}

/// A check resolved against the generation's map: its node, its first
/// word's address, its field (lsb, width) if it names one, and the words.
pub(super) struct Expect {
    node: usize,
    name: String,
    addr: u32,
    field: Option<(u32, u32)>,
    want: Vec<u32>,
}

/// Resolve every check of `cfg` against `map` (`n` nodes, `k` a die), before anything runs.
pub(super) fn resolve(cfg: &CollectiveCfg, map: &tpb_models::regmap::RegMap, n: usize) -> Result<Vec<Expect>, ScenarioError> {
    let space = AddressSpace::new(map.clone());
    let k = cfg.top_sps.max(1);
    cfg.expect
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let bad = |why: String| ScenarioError::File(format!("[[collective.expect]] {} (die {} TOP_SP {}, {}): {why}", i + 1, e.die, e.top_sp, e.at));
            let node = e.die as usize * k + e.top_sp as usize;
            if e.top_sp as usize >= k || node >= n {
                return Err(bad(format!("there are {} dies of {k} TOP_SPs", n / k)));
            }
            let named = space.resolve(&e.at).map_err(|x| bad(x.to_string()))?;
            let field = match &named {
                Named::Reg { field: Some(f), .. } => Some((f.lsb, f.width)),
                _ => None,
            };
            let want = match (e.value, &e.words) {
                (Some(v), None) => vec![v],
                (None, Some(w)) if !w.is_empty() && field.is_none() => w.clone(),
                _ => return Err(bad("give value, or words (of a register or memory, not a field)".into())),
            };
            if u64::from(named.addr()) + 4 * want.len() as u64 > 1 << 32 {
                return Err(bad(format!("{} words from {:#x} run past the address space", want.len(), named.addr())));
            }
            Ok(Expect { node, name: e.at.clone(), addr: named.addr(), field, want })
        })
        .collect()
}

/// Each check on what its node holds now.
pub(super) fn check(r: &mut Report, mesh: &mut Mesh, expects: &[Expect]) -> Result<(), ScenarioError> {
    let k = mesh.top_sps;
    for e in expects {
        let c = &mut mesh.dies[e.node];
        let mut got = Vec::with_capacity(e.want.len());
        for i in 0..e.want.len() as u32 {
            let w = c.read_checked(u64::from(e.addr + 4 * i), u32::MAX)?;
            got.push(match e.field {
                Some((lsb, width)) => (w >> lsb) & (u32::MAX >> (32 - width.clamp(1, 32))),
                None => w,
            });
        }
        let show = |v: &[u32]| v.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(", ");
        r.check(c.stats.cycles, got == e.want, format!("{}: {} = [{}], the file expects [{}]", crate::mesh::node_name(e.node, k), e.name, show(&got), show(&e.want)))?;
    }
    Ok(())
}
