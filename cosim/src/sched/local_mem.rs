//! The core-local memories of the TOP_SP and the NCFW core: their images
//! loaded, and a word read or poked (a debugger's view).

use super::{slot_index, CoreId, Cosim, CosimError, Mem};

impl Cosim {
    /// Give the TOP_SP its firmware (IRAM image at 0, DRAM image at
    /// [`DRAM_BASE`](super::DRAM_BASE)) and let the scheduler step it.
    pub fn load_top_sp(&mut self, iram: &[u8], dram: &[u8]) -> Result<(), CosimError> {
        self.load_local(CoreId::TopSp, iram, dram)
    }

    /// Give core `id` (the TOP_SP or the NCFW core: those with core-local
    /// memories) its firmware and let the scheduler step it.
    pub fn load_local(&mut self, id: CoreId, iram: &[u8], dram: &[u8]) -> Result<(), CosimError> {
        let s = &mut self.cores[slot_index(id)];
        for (what, img, mem) in [("IRAM", iram, &mut s.bus.iram), ("DRAM", dram, &mut s.bus.dram)] {
            let Mem::Local(v) = mem else { return Err(CosimError::NotLocal) };
            if img.len() > v.len() {
                return Err(CosimError::ImageTooBig { what, bytes: img.len(), room: v.len() });
            }
        }
        for (img, mem) in [(iram, &mut s.bus.iram), (dram, &mut s.bus.dram)] {
            if let Mem::Local(v) = mem {
                v[..img.len()].copy_from_slice(img);
            }
        }
        s.attached = true;
        self.mark_started(id);
        Ok(())
    }

    /// A word of the TOP_SP's core-local DRAM (offset from [`DRAM_BASE`](super::DRAM_BASE)).
    pub fn top_sp_dram(&self, off: u32) -> Option<u32> {
        self.local_dram(CoreId::TopSp, off)
    }

    /// A word of core `id`'s core-local DRAM (offset from [`DRAM_BASE`](super::DRAM_BASE)).
    pub fn local_dram(&self, id: CoreId, off: u32) -> Option<u32> {
        match &self.core(id).bus.dram {
            Mem::Local(v) => v.get(off as usize..off as usize + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            _ => None,
        }
    }

    /// Write a word of the TOP_SP's core-local DRAM (a debugger's poke).
    pub fn set_top_sp_dram(&mut self, off: u32, word: u32) -> Result<(), CosimError> {
        self.set_local_dram(CoreId::TopSp, off, word)
    }

    /// Write a word of core `id`'s core-local DRAM (a debugger's poke).
    pub fn set_local_dram(&mut self, id: CoreId, off: u32, word: u32) -> Result<(), CosimError> {
        let s = &mut self.cores[slot_index(id)];
        let Mem::Local(v) = &mut s.bus.dram else { return Err(CosimError::NotLocal) };
        let room = v.len();
        let at = v.get_mut(off as usize..off as usize + 4).ok_or(CosimError::ImageTooBig { what: "DRAM word", bytes: off as usize + 4, room })?;
        at.copy_from_slice(&word.to_le_bytes());
        Ok(())
    }
}
