//! Per-generation context of the HAL: the register map and parameters of
//! one generation and the generated register constants it programs,
//! gathered once so the per-arch implementations read like the seeds.

use super::error::{HalError, Result};
use crate::regs::{self, Field, Reg};
use tpb_regmap::{Arch, Engine, RegMap};

/// NX local registers the bring-up programs (HAL view, DIGEST §2.7).
#[derive(Debug, Clone, Copy)]
pub struct NxRegs {
    pub release_run_stall: Reg,
    pub run_state: Reg,
    pub intr_ctrl: Reg,
    pub intr_info: Reg,
    pub engine_base_address_lo: Reg,
    pub engine_base_address_hi: Reg,
    pub dma_ctrl: Reg,
    /// RX (sel 0) ring: base, length, head, tail.
    pub rx_ring: [Reg; 4],
    /// TX (sel 1) ring: base, length, head, tail.
    pub tx_ring: [Reg; 4],
    pub mem_window2_lo: Reg,
    pub mem_window2_hi: Reg,
    pub instr_dbg_ctrl: Reg,
    /// Halt and start (DIGEST §2.8).
    pub start_ctrl: Reg,
    pub start_addr: Reg,
    pub instr_halt_ctrl: Reg,
}

/// TPB-level registers (tpb_regs aperture).
#[derive(Debug, Clone, Copy)]
pub struct TpbRegs {
    pub seq_instr_dbg_ctrl: Reg,
    pub notific_sw_queue_num0: Reg,
    pub notific_ring_base_lo: Reg,
    pub notific_ring_base_hi: Reg,
    pub notific_ring_size: Reg,
    pub notific_enable: Reg,
    /// The ring state: head (hardware), tail (host), status (overflow), drops.
    pub notific_head: Reg,
    pub notific_tail: Reg,
    pub notific_status: Reg,
    pub notific_dropped: Reg,
    /// notific_enable fields: ERROR, EVT_SEM, INST.
    pub notific_enable_error: Field,
    pub notific_enable_evt_sem: Field,
    pub notific_enable_inst: Field,
    /// notific_sw_queue_num0 engine-id fields: a \[23:20\], b_hi \[27:24\], b_lo \[19:16\].
    pub engine_id_a: Field,
    pub engine_id_b_hi: Field,
    pub engine_id_b_lo: Field,
    /// The TPB timestamp (`tpb_models::golden::timestamp`).
    pub timestamp_ctrl: Reg,
    pub timestamp_inc: Reg,
    pub timestamp_lo: Reg,
    pub timestamp_hi: Reg,
    pub timestamp_adjust_lo: Reg,
    pub timestamp_adjust_hi: Reg,
}

/// The register constants of one generation.
#[derive(Debug, Clone, Copy)]
pub struct ArchRegs {
    pub nx: NxRegs,
    pub tpb: TpbRegs,
    pub q7_release_run_stall: Reg,
    /// The Q7 bundle's start_ctrl / start_addr and run_state_0..7.
    pub q7_start_ctrl: Reg,
    pub q7_start_addr: Reg,
    pub q7_run_state: [Reg; 8],
    /// The address-translation window bundle (`windows.toml`), and its ctrl fields.
    pub windows: [WindowRegs; 8],
    pub window_enable: Field,
    pub window_requester: Field,
}

/// One window of the bundle.
#[derive(Debug, Clone, Copy)]
pub struct WindowRegs {
    pub src_lo: Reg,
    pub src_hi: Reg,
    pub size_lo: Reg,
    pub size_hi: Reg,
    pub dst_lo: Reg,
    pub dst_hi: Reg,
    pub ctrl: Reg,
}

macro_rules! arch_regs {
    ($a:ident) => {
        ArchRegs {
            nx: NxRegs {
                release_run_stall: regs::$a::nx::RELEASE_RUN_STALL,
                run_state: regs::$a::nx::RUN_STATE,
                intr_ctrl: regs::$a::nx::INTR_CTRL,
                intr_info: regs::$a::nx::INTR_INFO,
                engine_base_address_lo: regs::$a::nx::ENGINE_BASE_ADDRESS_LO,
                engine_base_address_hi: regs::$a::nx::ENGINE_BASE_ADDRESS_HI,
                dma_ctrl: regs::$a::nx::DMA_CTRL,
                rx_ring: [regs::$a::nx::DMA_RX_RING_BASE, regs::$a::nx::DMA_RX_RING_LENGTH, regs::$a::nx::DMA_RX_RING_HEAD, regs::$a::nx::DMA_RX_RING_TAIL],
                tx_ring: [regs::$a::nx::DMA_TX_RING_BASE, regs::$a::nx::DMA_TX_RING_LENGTH, regs::$a::nx::DMA_TX_RING_HEAD, regs::$a::nx::DMA_TX_RING_TAIL],
                mem_window2_lo: regs::$a::nx::MEM_WINDOW2_LO,
                mem_window2_hi: regs::$a::nx::MEM_WINDOW2_HI,
                instr_dbg_ctrl: regs::$a::nx::INSTR_DBG_CTRL,
                start_ctrl: regs::$a::nx::START_CTRL,
                start_addr: regs::$a::nx::START_ADDR,
                instr_halt_ctrl: regs::$a::nx::INSTR_HALT_CTRL,
            },
            tpb: TpbRegs {
                seq_instr_dbg_ctrl: regs::$a::tpb::SEQ_INSTR_DBG_CTRL,
                notific_sw_queue_num0: regs::$a::tpb::NOTIFIC_SW_QUEUE_NUM0,
                notific_ring_base_lo: regs::$a::tpb::NOTIFIC_RING_BASE_LO,
                notific_ring_base_hi: regs::$a::tpb::NOTIFIC_RING_BASE_HI,
                notific_ring_size: regs::$a::tpb::NOTIFIC_RING_SIZE,
                notific_enable: regs::$a::tpb::NOTIFIC_ENABLE,
                notific_head: regs::$a::tpb::NOTIFIC_HEAD,
                notific_tail: regs::$a::tpb::NOTIFIC_TAIL,
                notific_status: regs::$a::tpb::NOTIFIC_STATUS,
                notific_dropped: regs::$a::tpb::NOTIFIC_DROPPED,
                notific_enable_error: regs::$a::tpb::notific_enable::ERROR,
                notific_enable_evt_sem: regs::$a::tpb::notific_enable::EVT_SEM,
                notific_enable_inst: regs::$a::tpb::notific_enable::INST,
                engine_id_a: regs::$a::tpb::notific_sw_queue_num0::ENGINE_ID_A,
                engine_id_b_hi: regs::$a::tpb::notific_sw_queue_num0::ENGINE_ID_B_HI,
                engine_id_b_lo: regs::$a::tpb::notific_sw_queue_num0::ENGINE_ID_B_LO,
                timestamp_ctrl: regs::$a::tpb::TIMESTAMP_CTRL,
                timestamp_inc: regs::$a::tpb::TIMESTAMP_INC,
                timestamp_lo: regs::$a::tpb::TIMESTAMP_LO,
                timestamp_hi: regs::$a::tpb::TIMESTAMP_HI,
                timestamp_adjust_lo: regs::$a::tpb::TIMESTAMP_ADJUST_LO,
                timestamp_adjust_hi: regs::$a::tpb::TIMESTAMP_ADJUST_HI,
            },
            q7_release_run_stall: regs::$a::q7::RELEASE_RUN_STALL,
            q7_start_ctrl: regs::$a::q7::START_CTRL,
            q7_start_addr: regs::$a::q7::START_ADDR,
            q7_run_state: regs::$a::q7::RUN_STATE,
            windows: {
                use regs::$a::windows as w;
                std::array::from_fn(|k| WindowRegs {
                    src_lo: w::WINDOW_SRC_LO[k],
                    src_hi: w::WINDOW_SRC_HI[k],
                    size_lo: w::WINDOW_SIZE_LO[k],
                    size_hi: w::WINDOW_SIZE_HI[k],
                    dst_lo: w::WINDOW_DST_LO[k],
                    dst_hi: w::WINDOW_DST_HI[k],
                    ctrl: w::WINDOW_CTRL[k],
                })
            },
            window_enable: regs::$a::windows::window0_ctrl::ENABLE,
            window_requester: regs::$a::windows::window0_ctrl::REQUESTER,
        }
    };
}

impl ArchRegs {
    pub fn of(arch: Arch) -> ArchRegs {
        match arch {
            Arch::Sunda => arch_regs!(sunda),
            Arch::Cayman => arch_regs!(cayman),
            Arch::Mariana => arch_regs!(mariana),
        }
    }
}

/// One generation as the HAL sees it: map, parameters, registers, and the
/// BAR0 base of the TPB being programmed.
#[derive(Debug, Clone)]
pub struct ArchCtx {
    pub arch: Arch,
    pub map: RegMap,
    pub regs: ArchRegs,
}

/// The HAL's engine-type index of `get_xt_local_reg_offset` (DIGEST §2.6).
/// The seeds give: 2 = POOL (with the owner-folded Q7 arm) and 4 = the
/// TOP_SP LOCAL_REG block (CAYMAN). The other indices are `[I]`: PE 0,
/// ACT 1, DVE 3, TPB_SP 5 (CAYMAN+ only: SUNDA's table has 5 types).
pub const HAL_ENG_TYPES: [Engine; 6] = [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve, Engine::TopSp, Engine::TpbSp];

impl ArchCtx {
    pub fn new(arch: Arch, map: RegMap) -> Self {
        ArchCtx { arch, map, regs: ArchRegs::of(arch) }
    }

    pub fn params(&self) -> &tpb_regmap::ArchParams {
        &self.map.params
    }

    /// `get_xt_local_reg_offset(tpb_base, eng_type, owner)`: the BAR0 base of
    /// an engine's local registers. eng_type past the generation's table is an error
    /// (the seeds assert); the POOL arm folds the owner (owner != 0 → the Q7 base).
    pub fn xt_local_reg_offset(&self, eng_type: u32, owner: u32) -> Result<u64> {
        let l = &self.params().local_reg;
        if eng_type >= l.engine_types {
            return Err(HalError::OutOfRange { what: "eng_type", value: eng_type as u64, limit: l.engine_types as u64 });
        }
        let tb = self.params().bar0.tpb_base;
        let engine = HAL_ENG_TYPES[eng_type as usize];
        if engine == Engine::Pool {
            return Ok(tb + if owner != 0 { l.q7_owner1 } else { l.q7_owner0 });
        }
        self.params().local_reg_base(engine).ok_or(HalError::OutOfRange { what: "eng_type", value: eng_type as u64, limit: l.engine_types as u64 })
    }

    /// The POOL engine's local-register base as the pool bring-up resolves it
    /// (eng_type 2, owner 1; DIGEST §2.9 / seed 004 §7.1).
    pub fn pool_base(&self) -> u64 {
        self.xt_local_reg_offset(2, 1).expect("eng_type 2 exists on every generation")
    }

    /// The TOP_SP local-register base.
    pub fn top_sp_base(&self) -> u64 {
        self.params().local_reg_base(Engine::TopSp).expect("every generation has a TOP_SP")
    }

    /// The TPB-level register base.
    pub fn tpb_regs_base(&self) -> u64 {
        self.params().bar0.tpb_base + self.params().bar0.tpb_regs.base
    }
}
