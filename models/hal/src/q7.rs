//! Q7 cluster: geometry (`get_q7_params`), the ucode install over BAR0
//! (`q7_ucode_eng_init`, `write_padded`) and the swap / DKL registers
//! (DIGEST §2.3–§2.5).

use super::arch::ArchCtx;
use super::error::{HalError, Result};
use super::mmio::Mmio;
use crate::regs;
use crate::spec::q7_owner;
use serde::{Deserialize, Serialize};
use tpb_regmap::params::Q7Params;
use tpb_regmap::Arch;

/// The two ucode images of a Q7 install (`imgs[0]` IRAM, `imgs[1]` DRAM).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UcodeImages {
    pub iram: Vec<u8>,
    pub dram: Vec<u8>,
}

/// What `write_padded` hands the swap callback instead of writing BAR0:
/// the zero-padded buffer and where it was headed.
#[derive(Debug)]
pub struct SwapRequest<'a> {
    pub dst: u64,
    pub data: &'a [u8],
    pub owner: u32,
    pub tag: &'a str,
}

/// The optional swap callback of `write_padded` (the DKL seam): returns 0 on
/// success, anything else is an error code.
pub type SwapCb<'a> = &'a mut dyn FnMut(&SwapRequest) -> i32;

/// `write_padded(dst, src, size, padded_size, swap_cb, swap_ctx, tag)` (DIGEST §2.4):
/// a zero-filled buffer of `padded_size` (so the pad tail is zero), the image
/// copied in, then either the swap callback or `mem_write_buf`.
pub fn write_padded(mmio: &mut dyn Mmio, dst: u64, src: &[u8], padded_size: u64, swap: Option<&mut dyn FnMut(&SwapRequest) -> i32>, owner: u32, tag: &str) -> Result<()> {
    if padded_size < src.len() as u64 {
        return Err(HalError::PadTooSmall { tag: tag.to_string(), size: src.len() as u64, padded: padded_size });
    }
    match swap {
        Some(cb) => {
            let buf = crate::mmio::padded(src, padded_size as usize);
            let callback = format!("{:p}", cb as *const _ as *const ());
            let code = cb(&SwapRequest { dst, data: &buf, owner, tag });
            if code != 0 {
                return Err(HalError::SwapFailed { callback, code });
            }
            Ok(())
        }
        None => Ok(mmio.write_buf_padded(dst, src, padded_size as usize)?),
    }
}

/// `get_q7_params(owner)`: the geometry tuple of DIGEST §2.3. An owner the
/// generation does not have is refused (the seeds assert; SUNDA is pooling-only).
pub fn get_q7_params(ctx: &ArchCtx, owner: u32) -> Result<Q7Params> {
    ctx.params().q7_params(owner).copied().ok_or_else(|| {
        let q = &ctx.params().q7;
        HalError::Q7OwnerUnsupported { arch: ctx.arch, owner, valid: std::iter::once(q.pooling.owner).chain(q.compute_cluster.map(|c| c.owner)).collect() }
    })
}

/// SUNDA owner mapping: only owner_idx 0 (pooling).
pub fn owner_sunda(owner_idx: u32) -> Result<u32> {
    match owner_idx {
        0 => Ok(q7_owner::POOLING),
        _ => Err(HalError::InvalidQ7OwnerV2 { owner_idx }),
    }
}

/// CAYMAN/MARIANA owner mapping: 0 → pooling (2), 1 → compute cluster (5).
pub fn owner_v3(owner_idx: u32) -> Result<u32> {
    q7_owner::BY_IDX.get(owner_idx as usize).copied().ok_or(HalError::InvalidQ7Owner { owner_idx })
}

/// The size gates of DIGEST §2.4 (IRAM, then DRAM); the owner's geometry on success.
pub fn check_image_sizes(ctx: &ArchCtx, imgs: &UcodeImages, owner: u32) -> Result<Q7Params> {
    let p = get_q7_params(ctx, owner)?;
    if imgs.iram.len() as u64 > p.iram_size {
        return Err(HalError::IramTooBig { size: imgs.iram.len() as u64, max: p.iram_size });
    }
    if imgs.dram.len() as u64 > p.dram_size {
        return Err(HalError::DramTooBig { size: imgs.dram.len() as u64, max: p.dram_size });
    }
    Ok(p)
}

/// The install loop shared by every generation once the owner is mapped:
/// size gates first (an oversized image is refused before any byte is
/// written), then per core DRAM first, then IRAM, each zero-padded to the
/// core's aperture.
pub fn ucode_eng_install(ctx: &ArchCtx, mmio: &mut dyn Mmio, image_base: u64, imgs: &UcodeImages, mut swap: Option<&mut dyn FnMut(&SwapRequest) -> i32>, owner: u32) -> Result<()> {
    let p = check_image_sizes(ctx, imgs, owner)?;
    let layout = ctx.params().q7_layout(owner).expect("params exist for a valid owner");
    for core in 0..p.num_q7 {
        mmio.note(&format!("q7 core {core}: DRAM then IRAM"));
        let sw = swap.as_mut().map(|s| &mut **s as &mut dyn FnMut(&SwapRequest) -> i32);
        write_padded(mmio, image_base + layout.dram(core), &imgs.dram, p.dram_size, sw, owner, "POOL eng dram").map_err(|e| HalError::LoadDram { core, source: Box::new(e) })?;
        let sw = swap.as_mut().map(|s| &mut **s as &mut dyn FnMut(&SwapRequest) -> i32);
        write_padded(mmio, image_base + layout.iram(core), &imgs.iram, p.iram_size, sw, owner, "POOL eng iram").map_err(|e| HalError::LoadIram { core, source: Box::new(e) })?;
    }
    Ok(())
}

/// `q7_ucode_eng_init`: the generation's owner rule (SUNDA knows only the
/// POOLING owner; CAYMAN and MARIANA, byte-identical in the seeds, index
/// the owner table), then the install.
pub fn ucode_eng_init(ctx: &ArchCtx, mmio: &mut dyn Mmio, image_base: u64, imgs: &UcodeImages, swap: Option<&mut dyn FnMut(&SwapRequest) -> i32>, owner_idx: u32) -> Result<()> {
    let owner = match ctx.arch {
        Arch::Sunda => owner_sunda(owner_idx)?,
        Arch::Cayman | Arch::Mariana => owner_v3(owner_idx)?,
    };
    ucode_eng_install(ctx, mmio, image_base, imgs, swap, owner)
}

/// The host's file/stdio I/O table of SUNDA's `swap_file_io_table` (DIGEST §2.5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIoTable {
    pub tx_ring_base: u32,
    pub tx_ring_length: u32,
    pub q7_intr_info: u32,
}

/// SUNDA `swap_table`: the swap-table pointer triple into `nx_rsvd_space0..2`.
pub fn swap_table_sunda(ctx: &ArchCtx, mmio: &mut dyn Mmio, triple: [u32; 3]) -> Result<()> {
    let base = ctx.pool_base();
    for (reg, v) in swap_regs_sunda().iter().zip(triple) {
        mmio.write32(base + reg.offset as u64, v)?;
    }
    Ok(())
}

fn swap_regs_sunda() -> [regs::Reg; 3] {
    [regs::sunda::nx::NX_RSVD_SPACE0, regs::sunda::nx::NX_RSVD_SPACE1, regs::sunda::nx::NX_RSVD_SPACE2]
}

/// SUNDA `swap_table_get_register_offsets`: the three addresses above.
pub fn swap_table_offsets_sunda(ctx: &ArchCtx) -> [u64; 3] {
    let base = ctx.pool_base();
    swap_regs_sunda().map(|r| base + r.offset as u64)
}

/// SUNDA `swap_file_io_table`: TX ring base/length and q7_intr_info.
pub fn swap_file_io_table_sunda(ctx: &ArchCtx, mmio: &mut dyn Mmio, t: &FileIoTable) -> Result<()> {
    let base = ctx.pool_base();
    mmio.write32(base + regs::sunda::nx::DMA_TX_RING_BASE.offset as u64, t.tx_ring_base)?;
    mmio.write32(base + regs::sunda::nx::DMA_TX_RING_LENGTH.offset as u64, t.tx_ring_length)?;
    mmio.write32(base + regs::sunda::nx::Q7_INTR_INFO.offset as u64, t.q7_intr_info)?;
    Ok(())
}

/// CAYMAN/MARIANA `swap_table`: a no-op returning success (DKL is firmware-resident).
pub fn swap_table_v3(_: &ArchCtx, _: &mut dyn Mmio, _: [u32; 3]) -> Result<()> {
    Ok(())
}

/// CAYMAN/MARIANA `swap_table_get_register_offsets`: zeroes its three outputs.
pub fn swap_table_offsets_v3(_: &ArchCtx) -> [u64; 3] {
    [0; 3]
}

/// CAYMAN/MARIANA `swap_file_io_table`: a no-op returning success.
pub fn swap_file_io_table_v3(_: &ArchCtx, _: &mut dyn Mmio, _: &FileIoTable) -> Result<()> {
    Ok(())
}
