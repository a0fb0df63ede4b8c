//! The payload of the ring's and the mesh's all-reduce (`[D]`): what each
//! die's vector holds at the start ([`input`]), what every die must hold at
//! the end ([`reference`], computed from the inputs alone, never from the
//! tapes), the DMA descriptors a tape's legs fire ([`Move`]) and where
//! everything lies in each die's DMA SRAM ([`Layout`]).
//!
//! A die's vector is N chunks of `words` 32-bit words (`acc`); beside it a
//! staging area of N chunk slots receives other dies' partial sums
//! (`stage`). A reduce adds a staged chunk into `acc` (OP_ADD); a send
//! writes an `acc` chunk into another die's `stage` or `acc` (OP_SOC_WRITE
//! through the mesh, whose 8-byte SoC address sits in a pointer table).

use super::*;
use tpb_models::golden::seq_dma::{len_op, OP_ADD, OP_SOC_WRITE};

/// Word `w` of chunk `c` of die `d`'s input: each die's contribution is
/// distinct, so a wrong sum tells which die's chunk was lost or doubled.
pub fn input(d: u32, c: u32, w: u32) -> u32 {
    (d + 1) << 20 | (c + 1) << 8 | (w + 1)
}

/// Word `w` of chunk `c` of the all-reduce of `n` dies: the sum of their inputs.
pub fn reference(n: u32, c: u32, w: u32) -> u32 {
    (0..n).fold(0u32, |s, d| s.wrapping_add(input(d, c, w)))
}

/// Where a send lands on the target die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Into {
    /// Staging slot `k` (a partial sum, for the target to add).
    Stage(u32),
    /// The same chunk of the target's vector (a finished sum).
    Acc,
}

/// One DMA descriptor of a leg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// acc[chunk] += stage[slot].
    Add { chunk: u32, slot: u32 },
    /// acc[chunk] to die `to`.
    Send { chunk: u32, to: u32, into: Into },
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

/// One die's DMA SRAM (`[D]`): the RX ring (a descriptor per move) from
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
    /// reads): room for the most descriptors and sends any of `tapes` fires.
    pub fn of(n: u32, tapes: &[DieTape], words: u32) -> Result<Layout, ScenarioError> {
        let most = |f: fn(&(Move, bool)) -> bool| tapes.iter().map(|t| t.moves.iter().filter(|m| f(m)).count() as u32).max().unwrap_or(0);
        let (descs, sends) = (most(|_| true), most(|m| matches!(m.0, Move::Send { .. })));
        let chunk = 4 * words;
        let acc = 16 * descs;
        let stage = acc + chunk * n;
        let ptrs = stage + chunk * n;
        let end = ptrs + 8 * sends;
        if end > DMA_SRAM {
            return Err(ScenarioError::File(format!(
                "{descs} DMA descriptors and {n} chunks of {words} words need {end:#x} bytes of the SEQ DMA SRAM ({DMA_SRAM:#x}): fewer dies or words"
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
    pub fn image(&self, d: u32, n: u32, moves: &[(Move, bool)], done: u32, dma_base: u32, a: &TapeAddrs) -> Result<Vec<u32>, ScenarioError> {
        let mut w = vec![0u32; (self.end / 4) as usize];
        let mut ptr = self.ptrs;
        for (i, &(m, completes)) in moves.iter().enumerate() {
            let done = if completes { done } else { 0 };
            let desc = match m {
                Move::Add { chunk, slot } => [self.stage(slot), self.acc(chunk), len_op(self.words as u16, OP_ADD), done],
                Move::Send { chunk, to, into } => {
                    let dst = match into {
                        Into::Stage(k) => self.stage(k),
                        Into::Acc => self.acc(chunk),
                    };
                    let soc = a.tpb(d, to, dma_base + dst)?;
                    (w[(ptr / 4) as usize], w[(ptr / 4) as usize + 1]) = (soc as u32, (soc >> 32) as u32);
                    ptr += 8;
                    [self.acc(chunk), ptr - 8, len_op(self.words as u16, OP_SOC_WRITE), done]
                }
            };
            w[4 * i..4 * i + 4].copy_from_slice(&desc);
        }
        for c in 0..n {
            for k in 0..self.words {
                w[(self.acc(c) / 4 + k) as usize] = input(d, c, k);
            }
        }
        Ok(w)
    }
}

/// What a wrong sum says about word `w` of chunk `c` (`got`, not the
/// reference of `n` dies): which die's contribution is missing or doubled, if one is.
pub fn diagnose(n: u32, c: u32, w: u32, got: u32) -> String {
    let diff = got.wrapping_sub(reference(n, c, w));
    for d in 0..n {
        if diff == input(d, c, w) {
            return format!(" (die {d}'s chunk {c} counted twice)");
        }
        if diff == input(d, c, w).wrapping_neg() {
            return format!(" (die {d}'s chunk {c} missing)");
        }
    }
    String::new()
}
