//! The payload of the all-reduces (`[D]`): what each node's vector holds
//! at the start ([`input`]), what it must hold at the end ([`reference`],
//! computed from the inputs alone, never from the tapes or programs), the
//! DMA descriptors a leg fires ([`Move`]), how a ring step moves its chunk
//! ([`ring_step`]) and where everything lies in each node's DMA SRAM
//! ([`Layout`]).
//!
//! A node's vector is `units` chunks of `words` 32-bit words (`acc`); beside
//! it a staging area of chunk slots receives other nodes' partial sums
//! (`stage`). A reduce adds staged chunks into `acc` (OP_ADD); a send
//! writes `acc` chunks into another node's `stage` or `acc` (OP_SOC_WRITE
//! through the mesh, whose 8-byte SoC address sits in a pointer table). A
//! move covers `span` consecutive chunks (the hierarchical all-reduce's
//! intra-die legs move a die's worth at once).

use super::*;
use tpb_models::golden::seq_dma::{len_op, OP_ADD, OP_SOC_WRITE};

/// Word `w` of chunk `c` of node `p`'s input: each node's contribution is
/// distinct, so a wrong sum tells which node's chunk was lost or doubled.
pub fn input(p: u32, c: u32, w: u32) -> u32 {
    (p + 1) << 20 | (c + 1) << 8 | (w + 1)
}

/// `[[collective.input]]`: node `node`'s vector, chunk by chunk, `words` a chunk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputData {
    pub node: u32,
    pub words: Vec<u32>,
}

/// Every node's input vector: the file's (`[[collective.input]]`), or for
/// a node it does not give, the formula [`input`].
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    given: std::collections::BTreeMap<u32, Vec<u32>>,
    words: u32,
}

impl Inputs {
    /// The file's inputs, `words` to a chunk.
    pub fn new(given: &[InputData], words: u32) -> Inputs {
        Inputs { given: given.iter().map(|g| (g.node, g.words.clone())).collect(), words }
    }
    /// Word `w` of chunk `c` of node `p`'s input.
    pub fn word(&self, p: u32, c: u32, w: u32) -> u32 {
        self.given.get(&p).and_then(|v| v.get((c * self.words + w) as usize)).copied().unwrap_or_else(|| input(p, c, w))
    }
    /// Each given vector belongs to one of `n` nodes and is as long as its
    /// node's vector (`units(node)` chunks).
    pub fn check(&self, n: u32, units: impl Fn(u32) -> u32) -> Result<(), ScenarioError> {
        for (&p, v) in &self.given {
            if p >= n {
                return Err(ScenarioError::File(format!("[[collective.input]] node {p}: there are {n} nodes")));
            }
            if v.len() as u32 != units(p) * self.words {
                return Err(ScenarioError::File(format!("[[collective.input]] node {p}: {} words; its vector is {} chunks of {} words", v.len(), units(p), self.words)));
            }
        }
        Ok(())
    }
}

/// Word `w` of chunk `c` of the all-reduce over the nodes `of`: the sum of their inputs.
pub fn reference(inputs: &Inputs, of: &[u32], c: u32, w: u32) -> u32 {
    of.iter().fold(0u32, |s, &p| s.wrapping_add(inputs.word(p, c, w)))
}

/// What node `node`'s vector must end as, from the collective's definition
/// alone, never from what a planner built or declared: (its chunks, the
/// nodes whose inputs each chunk sums). `n` nodes, `k` TOP_SPs a die.
/// - An all-reduce (the ring, the mesh, the kangaring as event tapes, the
///   hierarchical) leaves every node's whole vector, a chunk per node, the
///   sum of every node's input.
/// - A channel ring (the ring or kangaring with `channels` > 0) is one ring
///   per TOP_SP instance (`[D]`, [`channel_programs`]): instance i of every
///   die sums instance i's inputs, a chunk per die for each channel i owns
///   (channel c belongs to instance c mod k).
/// - The barrier moves no data.
pub fn owed(alg: Algorithm, channels: u32, n: u32, k: u32, node: u32) -> (u32, Vec<u32>) {
    let (k, dies) = (k.max(1), n / k.max(1));
    match alg {
        Algorithm::Barrier => (0, Vec::new()),
        Algorithm::Ring | Algorithm::Kangaring if channels > 0 => {
            let sp = node % k;
            let owned = (0..channels).filter(|c| c % k == sp).count() as u32;
            (owned * dies, (0..dies).map(|d| d * k + sp).collect())
        }
        Algorithm::Ring | Algorithm::Kangaring | Algorithm::Mesh | Algorithm::Hierarchical | Algorithm::AllReduce => (n, (0..n).collect()),
    }
}

/// Where a send lands on the target node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Into {
    /// The staging slots from chunk `k` (a partial sum, for the target to add).
    Stage(u32),
    /// The same chunks of the target's vector (a finished sum).
    Acc,
}

/// One DMA descriptor of a leg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// acc[chunk..chunk + span] += stage[slot..slot + span].
    Add { chunk: u32, slot: u32, span: u32 },
    /// acc[chunk..chunk + span] to node `to`.
    Send { chunk: u32, to: u32, into: Into, span: u32 },
    /// Nothing (length 0, no completion): fills a channel program's leg,
    /// which always fires two descriptors (its m2s and s2m tail pointers).
    Pad,
}

/// Where one ring's chunks lie in a node's vector: ring chunk j is vector
/// chunks `base + j·span ..` (`span` of them), staged from `stage + j·span`.
#[derive(Debug, Clone, Copy)]
pub struct RingData {
    pub base: u32,
    pub span: u32,
    pub stage: u32,
}

/// The ring chunk that position `pos` of a ring of `len` moves at `step`,
/// the first `scatter` steps a reduce-scatter, then an all-gather.
pub fn ring_chunk(pos: u32, len: u32, step: u32, scatter: u32) -> u32 {
    if step < scatter {
        (pos + len - step % len) % len
    } else {
        (pos + 1 + len - (step - scatter) % len) % len
    }
}

/// The descriptors of `step` at position `pos` of a ring of `len` whose
/// next node is `next`: a reduce-scatter step sends its chunk into the
/// next node's staging slot, after adding the slot the node before filled
/// at the step before (from step 1 on); the all-gather's first step (after
/// a reduce-scatter) adds the last staged chunk, now the full sum, and
/// writes it into the next node's vector, which every later step
/// forwards. A ring that only reduce-scatters leaves its last add,
/// [`ring_tail`], to whatever runs next.
pub fn ring_step(r: RingData, pos: u32, len: u32, step: u32, scatter: u32, next: u32) -> Vec<Move> {
    let j = ring_chunk(pos, len, step, scatter);
    let (chunk, slot, span) = (r.base + j * r.span, r.stage + j * r.span, r.span);
    let add = Move::Add { chunk, slot, span };
    match step {
        0 if scatter > 0 => vec![Move::Send { chunk, to: next, into: Into::Stage(slot), span }],
        s if s < scatter => vec![add, Move::Send { chunk, to: next, into: Into::Stage(slot), span }],
        s if s == scatter && scatter > 0 => vec![add, Move::Send { chunk, to: next, into: Into::Acc, span }],
        _ => vec![Move::Send { chunk, to: next, into: Into::Acc, span }],
    }
}

/// The add a reduce-scatter-only ring of `len` leaves at position `pos`:
/// the last staged chunk into the one this node now owns.
pub fn ring_tail(r: RingData, pos: u32, len: u32) -> Move {
    let j = (pos + 1) % len;
    Move::Add { chunk: r.base + j * r.span, slot: r.stage + j * r.span, span: r.span }
}

/// A leg of `moves`: fire them from `e` (at most [`FIRES`] per event) and
/// record them on `t`, the last completing the leg; the events after `e`
/// that the rest need (`t_more` labels them), in order.
pub(super) fn leg(o: &tapes::Ops, t: &mut DieTape, mut e: MeshEvent, t_more: MeshEventType, moves: &[Move]) -> Vec<MeshEvent> {
    let mut out = Vec::new();
    for (k, group) in moves.chunks(FIRES as usize).enumerate() {
        let mut ev = if k == 0 { e } else { event(t_more) };
        o.dma_n(&mut ev, group.len() as u32);
        out.push(ev);
    }
    if moves.is_empty() {
        e.dma_trigger = 0;
        out.push(e);
    }
    let last = moves.len().saturating_sub(1);
    t.moves.extend(moves.iter().enumerate().map(|(i, m)| (*m, i == last)));
    out
}

/// Tail increments one tape event fires: two legs, m2s and s2m each.
pub const FIRES: u32 = 4;

/// One node's DMA SRAM (`[D]`): the TX ring (a descriptor per move; `[D]`: the RX ring is the I-cache fill ring) from
/// 0, then `acc`, `stage` and the send pointers.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Descriptors in the ring.
    pub descs: u32,
    pub acc: u32,
    pub stage: u32,
    pub ptrs: u32,
    pub end: u32,
    pub words: u32,
}

impl Layout {
    /// The layout every node shares (a sender writes where the receiver
    /// reads): room for the largest vector, the most staging slots, the most
    /// descriptors and the most sends of any of `tapes`.
    pub fn of(tapes: &[DieTape], words: u32) -> Result<Layout, ScenarioError> {
        let most = |f: &dyn Fn(&DieTape) -> u32| tapes.iter().map(f).max().unwrap_or(0);
        let descs = most(&|t| t.moves.len() as u32);
        let sends = most(&|t| t.moves.iter().filter(|m| matches!(m.0, Move::Send { .. })).count() as u32);
        let units = most(&|t| t.units);
        let slots = most(&|t| {
            let reach = |m: &Move| match *m {
                Move::Add { slot, span, .. } | Move::Send { into: Into::Stage(slot), span, .. } => slot + span,
                _ => 0,
            };
            t.moves.iter().map(|m| reach(&m.0)).max().unwrap_or(0)
        });
        let chunk = 4 * words;
        let acc = 16 * descs;
        let stage = acc + chunk * units;
        let ptrs = stage + chunk * slots;
        let end = ptrs + 8 * sends;
        if words == 0 || end > DMA_SRAM {
            return Err(ScenarioError::File(format!(
                "{descs} DMA descriptors, {units} chunks and {slots} staging slots of {words} words need {end:#x} bytes of the SEQ DMA SRAM ({DMA_SRAM:#x}): fewer dies, channels or words"
            )));
        }
        Ok(Layout { descs, acc, stage, ptrs, end, words })
    }
    pub fn acc(&self, c: u32) -> u32 {
        self.acc + 4 * self.words * c
    }
    pub fn stage(&self, k: u32) -> u32 {
        self.stage + 4 * self.words * k
    }

    /// Node `d`'s DMA SRAM image (bytes from 0 to `end`): its ring of
    /// descriptors, its input in `acc`, and each send's SoC address (as
    /// node `d` names node `to`'s DMA SRAM at BAR0 `dma_base`).
    pub fn image(&self, d: u32, t: &DieTape, inputs: &Inputs, done: u32, dma_base: u32, a: &TapeAddrs) -> Result<Vec<u32>, ScenarioError> {
        let mut w = vec![0u32; (self.end / 4) as usize];
        let mut ptr = self.ptrs;
        let len = |span: u32, op| len_op((self.words * span) as u16, op);
        for (i, &(m, completes)) in t.moves.iter().enumerate() {
            let done = if completes { done } else { 0 };
            let desc = match m {
                Move::Add { chunk, slot, span } => [self.stage(slot), self.acc(chunk), len(span, OP_ADD), done],
                Move::Send { chunk, to, into, span } => {
                    let dst = match into {
                        Into::Stage(k) => self.stage(k),
                        Into::Acc => self.acc(chunk),
                    };
                    let soc = a.tpb(d, to, dma_base + dst)?;
                    (w[(ptr / 4) as usize], w[(ptr / 4) as usize + 1]) = (soc as u32, (soc >> 32) as u32);
                    ptr += 8;
                    [self.acc(chunk), ptr - 8, len(span, OP_SOC_WRITE), done]
                }
                Move::Pad => [0, 0, 0, done],
            };
            w[4 * i..4 * i + 4].copy_from_slice(&desc);
        }
        for c in 0..t.units {
            for k in 0..self.words {
                w[(self.acc(c) / 4 + k) as usize] = inputs.word(d, c, k);
            }
        }
        Ok(w)
    }
}

/// What a wrong sum says about word `w` of chunk `c` (`got`, not the
/// reference over the nodes `of`): which node's contribution is missing
/// or doubled, if one is (`name` names a node), or else which die's, all
/// of its TOP_SPs' (`k` a die).
pub fn diagnose(inputs: &Inputs, of: &[u32], c: u32, w: u32, got: u32, k: u32, name: impl Fn(u32) -> String) -> String {
    let diff = got.wrapping_sub(reference(inputs, of, c, w));
    let says = |part: u32, who: String, from: &str| {
        if diff == part {
            Some(format!(" ({who}'s chunk {c} counted twice{from})"))
        } else if diff == part.wrapping_neg() {
            Some(format!(" ({who}'s chunk {c} missing{from})"))
        } else {
            None
        }
    };
    let dies = of.iter().map(|p| p / k.max(1));
    of.iter()
        .find_map(|&p| says(inputs.word(p, c, w), name(p), ""))
        .or_else(|| {
            dies.clone().find_map(|d| {
                let on: Vec<u32> = of.iter().copied().filter(|p| p / k.max(1) == d).collect();
                (on.len() > 1).then(|| says(reference(inputs, &on, c, w), format!("die {d}"), &format!(", from all {} of its TOP_SPs", on.len()))).flatten()
            })
        })
        .unwrap_or_default()
}
