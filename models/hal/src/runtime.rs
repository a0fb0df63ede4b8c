//! The runtime layer above the HAL, as far as the seeds show it (seed 004
//! §3, §10): the init chain that builds the pool engine's configuration and
//! runs `stpb_init`, and the SoC address of a TPB.
//!
//! - [`eng_init_hals`] (seed: `tpb_eng_init_hals_v2`): the configuration
//!   with its Q7 images replaced by those registered with
//!   [`crate::Hal::set_pool_eng_ucode`], if any;
//! - [`crate::Hal::init`] (seed: `nrt_init`): that, then `stpb_init`;
//! - [`tpb_addr`] (seed: `aws_get_tpb_addr`): the SoC address a BAR0
//!   offset of the TPB is relative to.

use crate::arch::ArchCtx;
use crate::error::{HalError, Result};
use crate::pooling::{PoolingConfig, StpbConfig};
use crate::q7::UcodeImages;
use crate::spec;
use tpb_regmap::Arch;

/// `tpb_eng_init_hals_v2`: the configuration `stpb_init` receives. The seeds:
/// it "builds the 5-engine stpb cfg; sets cfg\[Q7\].{iram,dram} = stock q7
/// ucode bins, then OVERRIDES with the registered globals if non-NULL". The
/// pool engine's part is all this model configures (the other engines have
/// no configuration here), so the result is `stock` with its Q7 images
/// replaced by `registered` when some are registered.
pub fn eng_init_hals(stock: &StpbConfig, registered: Option<&UcodeImages>) -> StpbConfig {
    match registered {
        Some(q7) => StpbConfig { pooling: PoolingConfig { q7: q7.clone(), ..stock.pooling.clone() }, ..stock.clone() },
        None => stock.clone(),
    }
}

/// `aws_get_tpb_addr(pcore)`: the SoC address of physical core `pcore`'s
/// TPB, to which the HAL's BAR0 offsets are added (seed 004 §3: "the
/// nrtucode layer adds aws_get_tpb_addr(pcore) to turn \[base_offset\] into
/// the absolute SoC address").
///
/// The seeds give one point of it: CAYMAN's Q7 core 0 DRAM at SoC
/// `0x28_0318_0000` (the device map, DIGEST §2.3), whose BAR0 offset is the
/// pool Q7 layout's core-0 DRAM. So CAYMAN's physical core 0 is at that
/// address less that offset (`[I]`). Any other core, and SUNDA's and
/// MARIANA's addresses, the seeds do not give: those are errors that say so.
pub fn tpb_addr(ctx: &ArchCtx, pcore: u32) -> Result<u64> {
    if ctx.arch != Arch::Cayman {
        return Err(HalError::Invalid(format!(
            "aws_get_tpb_addr: the seeds give the SoC address of a TPB for CAYMAN only (its Q7 DRAM on the device map), not for {}",
            ctx.arch.name().to_uppercase()
        )));
    }
    if pcore != 0 {
        return Err(HalError::Invalid(format!("aws_get_tpb_addr({pcore}): the seeds give the SoC address of physical core 0 only; the stride between physical cores is unknown")));
    }
    let layout = ctx.params().q7_layout(spec::q7_owner::POOLING).ok_or_else(|| HalError::Invalid("no pooling Q7 layout".into()))?;
    Ok(spec::CAYMAN_Q7_CORE_DRAM_SOC_BASE - layout.dram(0))
}
