//! The core's decoded-instruction caches.
//!
//! - [`StepCache`]: for [`super::Core::step`], which fetches every
//!   instruction through the bus (the co-simulation's fetches are RTL
//!   transactions): direct-mapped by PC and checked against the fetched
//!   word, so code written at run time (a PIO write into IRAM, a re-installed
//!   ucode) is decoded afresh the first time it is fetched.
//! - [`PageCache`]: for [`super::Core::run`] on a bus that offers code pages
//!   ([`super::bus::Bus::code_page`]): a copy of each page's bytes, an
//!   entry per byte offset, and basic blocks built from the entries,
//!   validated once when the run enters the page by the page's version.
//!   When the version moved, the bytes are compared and exactly the entries
//!   whose bytes changed are dropped; the page's blocks are rebuilt from the
//!   entries as they are next run.
//!
//! A block is a run of instructions that ends at one that never falls
//! through (a jump, call or return), one after which the run loop must look
//! at the core again (SYNC, LOOP), the end of the page, or the instruction
//! after which the zero-overhead loop would branch back (`next == LEND`, for
//! the LEND it was built with; a block that LEND falls inside is rebuilt).
//! A taken branch leaves a block in its middle.

use super::bus::{CodePage, CODE_PAGE_BYTES};
use super::config::Options;
use super::isa::length;
use super::predecode::{Pre, END, LOOP, SYNC};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const STEP_ENTRIES: usize = 4096;

/// Direct-mapped (PC, fetched word) → [`Pre`].
#[derive(Clone)]
pub struct StepCache {
    entries: Vec<(u32, u32, Pre)>,
}

impl StepCache {
    pub fn new() -> StepCache {
        StepCache { entries: vec![(u32::MAX, 0, Pre::EMPTY); STEP_ENTRIES] }
    }

    /// The pre-decoded instruction `word` (of `len` bytes) at `pc`.
    #[inline]
    pub fn get(&mut self, pc: u32, word: u32, len: u8, opts: &Options) -> Pre {
        let e = &mut self.entries[pc as usize % STEP_ENTRIES];
        if e.0 != pc || e.1 != word || e.2.len != len {
            *e = (pc, word, Pre::decode(word, len, pc, opts));
        }
        e.2
    }
}

impl Default for StepCache {
    fn default() -> Self {
        StepCache::new()
    }
}

/// Most instructions in one block.
const MAX_BLOCK: usize = 64;

/// A basic block: its instructions, from byte offset `start` to `end`
/// (the offset after the last).
#[derive(Clone)]
pub struct Block {
    pub start: u32,
    pub end: u32,
    pub insns: Vec<Pre>,
}

/// One code page: its bytes as last seen, their version, an entry per byte
/// offset ([`Pre::EMPTY`] until an instruction there is first run), and the
/// blocks built from them (`block_at[off]`: index + 1 of the block starting
/// at `off`, 0 for none).
#[derive(Clone)]
pub struct Page {
    pub base: u32,
    version: u32,
    bytes: Vec<u8>,
    slots: Vec<Pre>,
    block_at: Vec<u32>,
    blocks: Vec<Block>,
}

impl Page {
    fn new(view: &CodePage) -> Page {
        let n = view.bytes.len();
        Page { base: view.base, version: view.version, bytes: view.bytes.to_vec(), slots: vec![Pre::EMPTY; n], block_at: vec![0; n], blocks: Vec::new() }
    }

    /// The block starting at byte `off`, for the current `lend` (built or
    /// rebuilt if it must be); `None` if no instruction at `off` fits in the
    /// page (the caller fetches it through the bus).
    #[inline(always)]
    pub fn block(&mut self, off: usize, lend: u32, opts: &Options) -> Option<&Block> {
        let k = *self.block_at.get(off)? as usize;
        if k != 0 {
            let b = &self.blocks[k - 1];
            // LEND strictly inside the block: it must stop there.
            let into = lend.wrapping_sub(self.base).wrapping_sub(b.start + 1);
            if into >= b.end - b.start - 1 {
                return Some(&self.blocks[k - 1]);
            }
        }
        self.build(off, lend, opts)
    }

    #[cold]
    fn build(&mut self, off: usize, lend: u32, opts: &Options) -> Option<&Block> {
        let mut insns = Vec::new();
        let mut o = off;
        let lend_off = lend.wrapping_sub(self.base) as usize;
        while o < self.len() && insns.len() < MAX_BLOCK && self.ready(o, opts).is_some() {
            let d = self.slots[o];
            insns.push(d);
            o += d.len as usize;
            if d.flags & (END | SYNC | LOOP) != 0 || o == lend_off {
                break;
            }
        }
        if insns.is_empty() {
            return None;
        }
        let b = Block { start: off as u32, end: o as u32, insns };
        let k = match self.block_at[off] {
            0 => {
                self.blocks.push(b);
                self.blocks.len()
            }
            k => {
                self.blocks[k as usize - 1] = b;
                k as usize
            }
        };
        self.block_at[off] = k as u32;
        Some(&self.blocks[k - 1])
    }

    /// Bytes of the page.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn version(&self) -> u32 {
        self.version
    }

    /// The entry at byte `off`, decoded now if it is the first time;
    /// `None` if `off` is past the page or its instruction runs past it
    /// (the caller fetches that one through the bus).
    #[inline(always)]
    pub fn ready(&mut self, off: usize, opts: &Options) -> Option<&Pre> {
        let d = self.slots.get(off)?;
        if d.len != 0 {
            // Re-borrow: the borrow checker cannot see that this one ends here.
            return self.slots.get(off);
        }
        if self.decode(off, opts) {
            self.slots.get(off)
        } else {
            None
        }
    }

    /// The instruction word of the decoded entry at `off`.
    pub fn word_at(&self, off: usize) -> u32 {
        self.slots.get(off).map_or(0, |d| d.word)
    }

    #[cold]
    fn decode(&mut self, off: usize, opts: &Options) -> bool {
        let b = &self.bytes;
        let len = length(b[off], opts).unwrap_or(1);
        if off + len as usize > b.len() {
            return false;
        }
        let word = match len {
            1 => b[off] as u32,
            2 => u16::from_le_bytes([b[off], b[off + 1]]) as u32,
            _ => u32::from_le_bytes([b[off], b[off + 1], b[off + 2], 0]),
        };
        let pc = self.base.wrapping_add(off as u32);
        self.slots[off] = Pre::decode(word, len, pc, opts);
        true
    }

    /// Bring the page up to `view`: a byte that changed drops every entry
    /// whose instruction could hold it (the three offsets ending at it).
    /// Returns how many decoded entries were dropped.
    fn revalidate(&mut self, view: &CodePage) -> usize {
        if view.version == self.version {
            return 0;
        }
        let mut dropped = 0;
        if view.bytes.len() != self.bytes.len() {
            dropped = self.slots.iter().filter(|s| s.len != 0).count();
            *self = Page::new(view);
            return dropped;
        }
        // Compare 8 bytes at a time; look closer only where they differ.
        for (c, (old, new)) in self.bytes.chunks(8).zip(view.bytes.chunks(8)).enumerate() {
            if old == new {
                continue;
            }
            for k in 0..old.len() {
                if old[k] != new[k] {
                    let i = c * 8 + k;
                    for s in &mut self.slots[i.saturating_sub(2)..=i] {
                        if s.len != 0 {
                            dropped += 1;
                            *s = Pre::EMPTY;
                        }
                    }
                }
            }
        }
        self.bytes.copy_from_slice(view.bytes);
        self.version = view.version;
        if dropped != 0 {
            self.blocks.clear();
            self.block_at.fill(0);
        }
        dropped
    }
}

/// A multiplicative hash for page bases (the key is already well spread).
#[derive(Default)]
pub struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (v as u64 / CODE_PAGE_BYTES as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Most pages a core keeps (about 21 KiB each); past it the cache starts over.
pub const MAX_PAGES: usize = 1024;

/// The pages a core has run from, by base address.
#[derive(Clone, Default)]
pub struct PageCache {
    pages: HashMap<u32, Page, BuildHasherDefault<PageHasher>>,
    /// Decoded entries dropped because their bytes changed (for tests).
    pub dropped: u64,
}

impl PageCache {
    /// The page `view` describes, brought up to date.
    pub fn page(&mut self, view: &CodePage) -> &mut Page {
        if self.pages.len() >= MAX_PAGES && !self.pages.contains_key(&view.base) {
            self.pages.clear();
        }
        let mut dropped = 0;
        let p = self.pages.entry(view.base).and_modify(|p| dropped = p.revalidate(view)).or_insert_with(|| Page::new(view));
        self.dropped += dropped as u64;
        p
    }

    /// Forget every page (a core reset keeps them: they follow memory, not the core).
    pub fn clear(&mut self) {
        self.pages.clear();
    }
}

impl std::fmt::Debug for StepCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StepCache({} entries)", self.entries.len())
    }
}

impl std::fmt::Debug for PageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PageCache({} pages, {} entries dropped)", self.pages.len(), self.dropped)
    }
}
