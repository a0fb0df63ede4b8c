//! What a core did last, kept so a failure can be read: its last
//! [`RECENT`] retired instructions, and at its first exception a snapshot
//! of its registers ([`Caught`]); and the report a person reads of a core
//! that faulted or never halted ([`Caught::report`]): the PC as
//! symbol+offset with the instruction there, the registers, the last
//! instructions retired.

use tpb_models::xtensa::config::{sr, Options};
use tpb_models::xtensa::core::{Core, Step};

/// Retired instructions a core remembers.
pub const RECENT: usize = 16;

/// The last [`RECENT`] instructions a core retired: (cycle, pc, bytes as
/// the core fetched them, little-endian).
#[derive(Debug, Clone, Default)]
pub struct Recent {
    ring: [(u64, u32, u32); RECENT],
    n: u64,
}

impl Recent {
    #[inline(always)]
    pub fn push(&mut self, cycle: u64, pc: u32, word: u32) {
        self.ring[(self.n % RECENT as u64) as usize] = (cycle, pc, word);
        self.n += 1;
    }

    /// The last one retired: (pc, bytes), (0, 0) before any.
    #[inline(always)]
    pub fn last(&self) -> (u32, u32) {
        match self.n {
            0 => (0, 0),
            n => {
                let (_, pc, w) = self.ring[((n - 1) % RECENT as u64) as usize];
                (pc, w)
            }
        }
    }

    /// Oldest first.
    pub fn list(&self) -> Vec<(u64, u32, u32)> {
        let k = self.n.min(RECENT as u64);
        (self.n - k..self.n).map(|i| self.ring[(i % RECENT as u64) as usize]).collect()
    }

    /// The list as a person reads it: `cycle  pc  bytes  instruction`, each
    /// instruction decoded from the bytes the core ran.
    pub fn render(&self, symbolize: &dyn Fn(u32) -> Option<String>) -> Vec<String> {
        let opts = Options::tpb();
        self.list()
            .into_iter()
            .map(|(cycle, pc, word)| {
                let line = tpb_models::xtensa::disasm::listing(&word.to_le_bytes()[..3], pc, &opts).into_iter().next();
                let (bytes, text) = match line {
                    Some(l) => (l.bytes.iter().map(|b| format!("{b:02x}")).collect::<String>(), l.text.unwrap_or_else(|| "(undecodable)".into())),
                    None => (String::new(), "(undecodable)".into()),
                };
                let sym = symbolize(pc).map(|s| format!(" <{s}>")).unwrap_or_default();
                format!("{cycle:>10}  {pc:#010x}{sym}  {bytes:<6}  {text}")
            })
            .collect()
    }
}

/// The special registers a report shows.
const SHOWN: [u8; 11] = [sr::PS, sr::SAR, sr::WINDOWBASE, sr::WINDOWSTART, sr::EPC1, sr::DEPC, sr::EXCCAUSE, sr::EXCVADDR, sr::LBEG, sr::LEND, sr::LCOUNT];

/// A core's first exception: when, what, and the state it left.
#[derive(Debug, Clone)]
pub struct Caught {
    pub cycle: u64,
    /// The step (`Step::Exception`: cause, the faulting PC, the vector).
    pub step: Step,
    /// a0..a15 of the window the instruction ran in.
    pub a: [u32; 16],
    /// (name, value) of PS, SAR, the window, EPC1, DEPC (a double
    /// exception's PC), EXCCAUSE, EXCVADDR and the loop registers.
    pub sregs: Vec<(&'static str, u32)>,
    pub recent: Recent,
}

impl Caught {
    pub fn of(cycle: u64, step: Step, core: &Core, recent: &Recent) -> Caught {
        let a = std::array::from_fn(|i| core.a(i));
        let sregs = SHOWN.iter().map(|&n| (sr::name(n, false).unwrap_or("?"), core.sreg(n))).collect();
        Caught { cycle, step, a, sregs, recent: recent.clone() }
    }

    /// The registers, four to a line.
    pub fn render_regs(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.a.chunks(4).enumerate().map(|(r, q)| q.iter().enumerate().map(|(i, v)| format!("a{:<2} {v:#010x}", r * 4 + i)).collect::<Vec<_>>().join("  ")).collect();
        out.extend(self.sregs.chunks(4).map(|q| q.iter().map(|(n, v)| format!("{n} {v:#010x}")).collect::<Vec<_>>().join("  ")));
        out
    }
}

/// A core's image as a report reads it: its symbols (address order) and its code.
#[derive(Debug, Clone, Copy)]
pub struct Image<'a> {
    pub symbols: &'a [(u32, String)],
    pub iram: &'a [u8],
}

impl Image<'_> {
    /// `name+0x12` for a code address, if a symbol is at or before it.
    pub fn symbolize(&self, a: u32) -> Option<String> {
        tpb_models::xtensa::elf::symbolize(self.symbols, a)
    }

    /// The instruction at `pc`, disassembled from the image.
    pub fn insn(&self, pc: u32) -> String {
        self.iram
            .get(pc as usize..)
            .filter(|b| !b.is_empty())
            .map(|b| tpb_models::xtensa::disasm::listing(&b[..b.len().min(3)], pc, &Options::tpb()))
            .and_then(|l| l.first().map(|l| l.text.clone().unwrap_or_else(|| format!("undecodable bytes {:02x?}", l.bytes))))
            .unwrap_or_else(|| "(not in the image)".into())
    }
}

/// `pc 0x… (main+0x11): <instruction>`, as far as the image tells.
pub fn at_pc(pc: u32, img: Option<Image>) -> String {
    let sym = img.and_then(|i| i.symbolize(pc)).map(|s| format!(" ({s})")).unwrap_or_default();
    let insn = img.map(|i| i.insn(pc)).unwrap_or_else(|| "(no image)".into());
    format!("pc {pc:#x}{sym}: {insn}")
}

impl Caught {
    /// The registers and the last instructions retired, indented under a
    /// headline the caller writes.
    pub fn report(&self, img: Option<Image>) -> String {
        let mut s = String::from("\n  registers:");
        for l in self.render_regs() {
            s += &format!("\n    {l}");
        }
        let symbolize = |a: u32| img.and_then(|i| i.symbolize(a));
        let recent = self.recent.render(&symbolize);
        s += &format!("\n  last {} instructions retired (cycle, pc, bytes, instruction):", recent.len());
        for l in recent {
            s += &format!("\n    {l}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_last_sixteen_oldest_first() {
        let mut r = Recent::default();
        assert_eq!(r.last(), (0, 0));
        for i in 0..20u32 {
            r.push(u64::from(i), i * 3, 0xf00d);
        }
        let l = r.list();
        assert_eq!(l.len(), RECENT);
        assert_eq!(l[0].0, 4);
        assert_eq!(l[RECENT - 1], (19, 57, 0xf00d));
        assert_eq!(r.last(), (57, 0xf00d));
    }

    #[test]
    fn render_decodes_what_the_core_ran() {
        let mut r = Recent::default();
        // `movi.n a2, 4` (bytes 0c 42) and `simcall` (bytes 00 51 00).
        r.push(7, 0x200, 0x420c);
        r.push(9, 0x202, 0x005100);
        let lines = r.render(&|pc| (pc == 0x202).then(|| "main+0x2".to_string()));
        assert!(lines[0].contains("movi.n") && lines[0].contains("a2, 4") && lines[0].contains("0c42"), "{lines:?}");
        assert!(lines[1].contains("<main+0x2>") && lines[1].contains("simcall"), "{lines:?}");
    }
}
