//! The HAL's one error type. Where the seeds give a message, the text is
//! produced from the printf-style string in [`crate::spec::msg`] (one place),
//! so a test can compare the two.

use super::mmio::MmioError;
use crate::spec::msg;
use tpb_regmap::Arch;

/// Expand a printf-style seed message (`%u`, `%lu`, `%d`, `%p`, `%lx`) with
/// the given arguments, in order.
pub fn printf(fmt: &str, args: &[&dyn std::fmt::Display]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut rest = fmt;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let spec = &rest[i + 1..];
        let len = ["lu", "lx", "u", "d", "p", "x"].iter().find(|s| spec.starts_with(**s)).map_or(0, |s| s.len());
        if len == 0 {
            out.push('%');
            rest = spec;
            continue;
        }
        match args.next() {
            Some(a) => out.push_str(&a.to_string()),
            None => out.push_str(&rest[i..i + 1 + len]),
        }
        rest = &spec[len..];
    }
    out.push_str(rest);
    out
}

/// Everything the HAL can refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum HalError {
    /// Generic entry point called with `hal_target` = INVALID (the seeds assert).
    #[error("al_hal_tpb_get_arch_type() != AL_HAL_TPB_ARCH_TYPE_INVALID: the HAL has no architecture (arch_type 0)")]
    ArchInvalid,
    /// `hal_target` outside 0..=4 (the seeds assert the range 1..=4).
    #[error("HAL arch_type {0} is out of range (valid: 1..=4; 2 SUNDA, 3 CAYMAN, 4 MARIANA)")]
    ArchOutOfRange(u32),
    /// The per-arch function table has no implementation in this slot (the seeds assert).
    #[error("kaena_khal slot '{slot}'{} is empty for arch_type {arch_type}{}", offset.map(|o| format!(" (+{o:#x})")).unwrap_or_default(), arch.map(|a| format!(" ({})", a.name().to_uppercase())).unwrap_or_default())]
    SlotEmpty { slot: &'static str, offset: Option<u32>, arch_type: u32, arch: Option<Arch> },
    /// `get_q7_params` with an owner the generation does not have (the seeds assert).
    #[error("get_q7_params: owner {owner} is not a Q7 owner of {} (valid: {valid:?})", arch.name().to_uppercase())]
    Q7OwnerUnsupported { arch: Arch, owner: u32, valid: Vec<u32> },
    #[error("{}", printf(msg::INVALID_Q7_OWNER_V2, &[owner_idx]))]
    InvalidQ7OwnerV2 { owner_idx: u32 },
    #[error("{}", printf(msg::INVALID_Q7_OWNER, &[owner_idx]))]
    InvalidQ7Owner { owner_idx: u32 },
    #[error("{}", printf(msg::IRAM_TOO_BIG, &[size]))]
    IramTooBig { size: u64, max: u64 },
    #[error("{}", printf(msg::DRAM_TOO_BIG, &[size]))]
    DramTooBig { size: u64, max: u64 },
    #[error("{}", printf(msg::LOAD_DRAM_FAILED, &[core]))]
    LoadDram {
        core: u32,
        #[source]
        source: Box<HalError>,
    },
    #[error("{}", printf(msg::LOAD_IRAM_FAILED, &[core]))]
    LoadIram {
        core: u32,
        #[source]
        source: Box<HalError>,
    },
    /// The swap callback of `write_padded` returned non-zero.
    #[error("{}", printf(msg::MEMCPY_FN_FAILED, &[callback, code]))]
    SwapFailed { callback: String, code: i32 },
    /// `write_padded` with `padded_size < size` (the seeds assert).
    #[error("write_padded({tag}): padded size {padded:#x} is smaller than the image ({size:#x} bytes)")]
    PadTooSmall { tag: String, size: u64, padded: u64 },
    /// A SEQ image larger than its memory (the seeds validate but give no message).
    #[error("SEQ {mem} ucode too big: {size:#x} bytes, the SEQ {mem} holds {max:#x}")]
    SeqImageTooBig { mem: &'static str, size: u64, max: u64 },
    #[error("{}", printf(msg::TOPSP_SEMA_ALLOC_FAILED, &[count, sp]))]
    SemaphoreAlloc { count: u32, sp: u32 },
    /// An index outside the table the seeds assert on (`eng_type > 4`, `sp_id`, semaphore index...).
    #[error("{what} {value} is out of range (0..{limit})")]
    OutOfRange { what: &'static str, value: u64, limit: u64 },
    /// A structure that does not fit where it must go.
    #[error("{what}: {size:#x} bytes do not fit in {max:#x}")]
    TooBig { what: String, size: u64, max: u64 },
    /// Bad content of a program or structure.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Mmio(#[from] MmioError),
}

/// Result of a HAL call.
pub type Result<T> = std::result::Result<T, HalError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_expands_in_order_and_keeps_unknown_specs() {
        assert_eq!(printf("a %u b %lu c %d", &[&1, &2u64, &-3]), "a 1 b 2 c -3");
        assert_eq!(printf("100%% %u", &[]), "100%% %u");
        assert_eq!(printf("x=%lx", &[&"0x10"]), "x=0x10");
    }
}
