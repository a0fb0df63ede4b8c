//! `tpb_top!`: the structure and construction every generation's top
//! shares, with the generation's own fields, construction, logic and pins
//! spliced in (see the macro's note). The shared logic is `tpb_top_logic!`
//! (shared_logic.rs), the pins `top_pins!` (pins.rs).

// `update` is written in the subset rust-hdl's hdl_gen translates to Verilog.
#![allow(clippy::nonminimal_bool, clippy::collapsible_if, clippy::collapsible_else_if)]

/// Stamps out one generation's top: the common structure plus the
/// generation's own fields (`extra_fields`), their construction
/// (`extra_init`) and their logic (`extra_update`, spliced into `update`
/// after the common decode, before the unmapped-address check). The first
/// arguments are the caller's `self` and `hdl_gen` tokens: macro hygiene
/// would otherwise keep the spliced logic from naming the `self` of `update`
/// (hdl_gen re-emits the signature with the attribute's own span).
macro_rules! tpb_top {
    (
        $s:tt, $pound:tt $attr:tt,
        $(#[$doc:meta])*
        $name:ident, nx = $nx:ty, win = $win:ty, q7 = $q7:ty, tpb = $tpb:ty,
        extra_fields = { $($extra_fields:tt)* },
        extra_init = |$lay:ident| { $($extra_init:tt)* },
        extra_update = { $($extra_update:tt)* },
        extra_drive = |$pins:ident| { $($extra_drive:tt)* },
        extra_outputs = |$outs:ident| { $($extra_outputs:tt)* }
    ) => {
        bar0_slave_block! {
        $(#[$doc])*
        pub struct $name<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> {
            pub nx_halted: Signal<In, Bits<6>>,
            pub q7_halted: Signal<In, Bits<8>>,
            pub nx_run_stall: Signal<Out, Bits<6>>,
            pub q7_run_stall: Signal<Out, Bits<8>>,
            pub nx_start: Signal<Out, Bits<6>>,
            pub nx_start_addr: Signal<Out, Bits<32>>,
            pub q7_start: Signal<Out, Bits<8>>,
            pub q7_start_addr: Signal<Out, Bits<32>>,
            pub notific_head: Signal<Out, Bits<32>>,
            /// The TPB timestamp counter (`tpb_golden::timestamp`), for waves and the co-simulation.
            pub timestamp_lo: Signal<Out, Bits<32>>,
            pub timestamp_hi: Signal<Out, Bits<32>>,
            pub nx_irq: Signal<Out, Bits<6>>,
            pub q7_irq: Signal<Out, Bits<8>>,
            pub sem_notif_valid: Signal<Out, Bits<6>>,
            pub sem_notif_index: Signal<Out, Bits<8>>,
            pub dma_db_valid: Signal<Out, Bit>,
            pub dma_busy: Signal<Out, Bit>,
            /// The SEQ DMA's system master port (its SoC writes, `crate::seq_dma`).
            pub dma_m_valid: Signal<Out, Bit>,
            pub dma_m_addr_lo: Signal<Out, Bits<32>>,
            pub dma_m_addr_hi: Signal<Out, Bits<32>>,
            pub dma_m_wdata: Signal<Out, Bits<32>>,
            pub dma_m_ack: Signal<In, Bit>,
            pub dma_m_err: Signal<In, Bit>,
            pub xlat_valid: Signal<In, Bit>,
            pub xlat_who: Signal<In, Bits<4>>,
            pub xlat_addr: Signal<In, Bits<32>>,
            pub xlat_rsp_valid: Signal<Out, Bit>,
            pub xlat_hit: Signal<Out, Bit>,
            pub xlat_dst_lo: Signal<Out, Bits<32>>,
            pub xlat_dst_hi: Signal<Out, Bits<32>>,
            pub q7_if_valid: [Signal<In, Bit>; 8],
            pub q7_if_addr: [Signal<In, Bits<32>>; 8],
            pub q7_if_ready: [Signal<Out, Bit>; 8],
            pub q7_if_rvalid: [Signal<Out, Bit>; 8],
            pub q7_if_rdata: [Signal<Out, Bits<32>>; 8],
            pub q7_if_err: [Signal<Out, Bit>; 8],
            pub q7_ls_valid: [Signal<In, Bit>; 8],
            pub q7_ls_write: [Signal<In, Bit>; 8],
            pub q7_ls_addr: [Signal<In, Bits<32>>; 8],
            pub q7_ls_wdata: [Signal<In, Bits<32>>; 8],
            pub q7_ls_wstrb: [Signal<In, Bits<4>>; 8],
            pub q7_ls_ready: [Signal<Out, Bit>; 8],
            pub q7_ls_rvalid: [Signal<Out, Bit>; 8],
            pub q7_ls_rdata: [Signal<Out, Bits<32>>; 8],
            pub q7_ls_err: [Signal<Out, Bit>; 8],
            nx: [$nx; 6],
            sem: [EvtSem; 6],
            /// Every engine's window bundle in RAM (`crate::windows_ram`), and
            /// POOL's also in flip-flops, for the address translation to read.
            win: [WindowsRam; 6],
            pool_win: $win,
            q7regs: $q7,
            tpb: $tpb,
            cluster: Q7Cluster<QIW, QDW>,
            seq_iram: Tcm<SW>,
            seq_dram: Tcm<SW>,
            ctrl_spad: Tcm<CW>,
            slot_spad: Tcm<LW>,
            dma: SeqDma<DMA_AW>,
            ntf: crate::notific::Notific<NTF_RW>,
            lr_base: [Constant<Bits<32>>; 6],
            lr_mask: Constant<Bits<32>>,
            /// The aperture's blocks (`TopLayout::nx_regs` ...): base and mask.
            nx_base: Constant<Bits<32>>,
            nx_mask: Constant<Bits<32>>,
            sem_base: Constant<Bits<32>>,
            sem_mask: Constant<Bits<32>>,
            win_base: Constant<Bits<32>>,
            win_mask: Constant<Bits<32>>,
            q7r_base: Constant<Bits<32>>,
            q7r_mask: Constant<Bits<32>>,
            is_pool: [Constant<Bit>; 6],
            eng_bit: [Constant<Bits<6>>; 6],
            is_top_sp: [Constant<Bit>; 6],
            tpb_base: Constant<Bits<32>>,
            tpb_mask: Constant<Bits<32>>,
            seq_iram_base: Constant<Bits<32>>,
            seq_dram_base: Constant<Bits<32>>,
            seq_mask: Constant<Bits<32>>,
            seq_built: Constant<Bits<32>>,
            dma_base: Constant<Bits<32>>,
            dma_mask: Constant<Bits<32>>,
            ntf_base: Constant<Bits<32>>,
            ntf_mask: Constant<Bits<32>>,
            /// The last request's address: the argument of a BAR0-error notification.
            err_addr_q: DFF<Bits<32>>,
            nx_held: Signal<Local, Bits<6>>,
            /// Engines whose inst_done was written this cycle.
            inst_l: Signal<Local, Bits<6>>,
            /// Interrupt sources of each engine this cycle (intr_info bits to set).
            irq_set: [Signal<Local, Bits<32>>; 6],
            nx_irq_l: Signal<Local, Bits<6>>,
            pool_sem_irq: Signal<Local, Bits<32>>,
            q7_raise: Signal<Local, Bits<8>>,
            q7_irq_l: Signal<Local, Bits<8>>,
            dma_err_new: Signal<Local, Bit>,
            dma_err_prev: DFF<Bits<5>>,
            ctrl_base: Constant<Bits<32>>,
            ctrl_mask: Constant<Bits<32>>,
            ctrl_built: Constant<Bits<32>>,
            slot_base: Constant<Bits<32>>,
            slot_mask: Constant<Bits<32>>,
            slot_built: Constant<Bits<32>>,
            q7_base: Constant<Bits<32>>,
            q7_size: Constant<Bits<32>>,
            q7_off: Signal<Local, Bits<32>>,
            q7_sel: Signal<Local, Bit>,
            err_q: DFF<Bit>,
            zero_q: DFF<Bit>,
            zero_ok: Signal<Local, Bit>,
            past_hit: Signal<Local, Bit>,
            aligned: Signal<Local, Bit>,
            req_go: Signal<Local, Bit>,
            hit: Signal<Local, Bit>,
            lr_off: Signal<Local, Bits<32>>,
            mem_off: Signal<Local, Bits<32>>,
            nx_stall: Signal<Local, Bits<6>>,
            nx_go: Signal<Local, Bits<6>>,
            nx_go_addr: Signal<Local, Bits<32>>,
            notif: Signal<Local, Bits<6>>,
            notif_index: Signal<Local, Bits<8>>,
            notif_found: Signal<Local, Bit>,
            xl_mw2_base: Constant<Bits<32>>,
            xl_mw2_size: Constant<Bits<32>>,
            xl_hit: Signal<Local, Bit>,
            xl_lo: Signal<Local, Bits<32>>,
            xl_hi: Signal<Local, Bits<32>>,
            xl_moff: Signal<Local, Bits<32>>,
            xl_mlo: Signal<Local, Bits<32>>,
            xl_v_q: DFF<Bit>,
            xl_hit_q: DFF<Bit>,
            xl_lo_q: DFF<Bits<32>>,
            xl_hi_q: DFF<Bits<32>>,
            /// The timestamp: the counter, the high word a timestamp_lo read
            /// latched, timestamp_lo's BAR0 address, this cycle's tick and adjustment.
            ts_q: DFF<Bits<64>>,
            ts_hi_q: DFF<Bits<32>>,
            ts_lo_addr: Constant<Bits<32>>,
            ts_tick: Signal<Local, Bits<64>>,
            ts_adj: Signal<Local, Bits<64>>,
            $($extra_fields)*
        }
        }

        impl<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> $name<QIW, QDW, SW, CW, LW> {
            /// A top decoding `layout`, or why its memories don't fit it.
            pub fn new(layout: &TopLayout) -> Result<Self, LayoutError> {
                let $lay = layout;
                check_fits(layout, [QIW, QDW, SW, CW, LW])?;
                let built = |aw: usize| c32(((4u64 << aw) - 1) as u32 ^ 0xffff_ffff);
                Ok(bar0_slave_new! { Self {
                    nx_halted, q7_halted, nx_run_stall, q7_run_stall, nx_start, nx_start_addr, q7_start, q7_start_addr,
                    notific_head, timestamp_lo, timestamp_hi, nx_irq, q7_irq, sem_notif_valid, sem_notif_index, dma_db_valid,
                    dma_busy, dma_m_valid, dma_m_addr_lo, dma_m_addr_hi, dma_m_wdata, dma_m_ack, dma_m_err, xlat_valid, xlat_who,
                    xlat_addr, xlat_rsp_valid, xlat_hit, xlat_dst_lo, xlat_dst_hi, q7_if_valid, q7_if_addr, q7_if_ready,
                    q7_if_rvalid, q7_if_rdata, q7_if_err, q7_ls_valid, q7_ls_write, q7_ls_addr, q7_ls_wdata, q7_ls_wstrb,
                    q7_ls_ready, q7_ls_rvalid, q7_ls_rdata, q7_ls_err,
                    nx: std::array::from_fn(|_| Default::default()),
                    sem: {
                        EvtSem::new(&$lay.sem, false)?;
                        std::array::from_fn(|_| EvtSem::new(&$lay.sem, false).expect("the windows were checked above"))
                    },
                    win: {
                        WindowsRam::new(&$lay.win_words).map_err(|e| LayoutError::Bad { what: "windows".into(), detail: e.to_string() })?;
                        std::array::from_fn(|_| WindowsRam::new(&$lay.win_words).expect("the bundle was checked above"))
                    },
                    pool_win, q7regs, tpb,
                    cluster: Q7Cluster::new($lay.q7_stride, $lay.q7_dram_offset, $lay.q7_iram_size, $lay.q7_dram_size),
                    seq_iram, seq_dram, ctrl_spad, slot_spad,
                    dma: SeqDma::new(&$lay.inc_slot)?,
                    ntf,
                    lr_base: std::array::from_fn(|i| c32($lay.local_reg[i].base)),
                    lr_mask: c32($lay.local_reg[0].mask()),
                    nx_base: c32($lay.nx_regs.base),
                    nx_mask: c32($lay.nx_regs.mask()),
                    sem_base: c32($lay.evt_sem.base),
                    sem_mask: c32($lay.evt_sem.mask()),
                    win_base: c32($lay.win_regs.base),
                    win_mask: c32($lay.win_regs.mask()),
                    q7r_base: c32($lay.q7_regs.base),
                    q7r_mask: c32($lay.q7_regs.mask()),
                    is_pool: std::array::from_fn(|i| Constant::new(ENGINES[i] == Engine::Pool)),
                    eng_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
                    is_top_sp: std::array::from_fn(|i| Constant::new(ENGINES[i] == Engine::TopSp)),
                    tpb_base: c32($lay.tpb_regs.base),
                    tpb_mask: c32($lay.tpb_regs.mask()),
                    seq_iram_base: c32($lay.seq_iram.base),
                    seq_dram_base: c32($lay.seq_dram.base),
                    seq_mask: c32($lay.seq_iram.mask()),
                    seq_built: built(SW),
                    dma_base: c32($lay.seq_dma.base),
                    dma_mask: c32($lay.seq_dma.mask()),
                    ntf_base: c32($lay.notific.base),
                    ntf_mask: c32($lay.notific.mask()),
                    err_addr_q, nx_held, inst_l, irq_set, nx_irq_l, pool_sem_irq, q7_raise, q7_irq_l, dma_err_new, dma_err_prev,
                    ctrl_base: c32($lay.ctrl_spad.base),
                    ctrl_mask: c32($lay.ctrl_spad.mask()),
                    ctrl_built: built(CW),
                    slot_base: c32($lay.slot_spad.base),
                    slot_mask: c32($lay.slot_spad.mask()),
                    slot_built: built(LW),
                    q7_base: c32($lay.q7.base),
                    q7_size: c32($lay.q7.size),
                    q7_off, q7_sel, err_q, zero_q, zero_ok, past_hit, aligned, req_go, hit, lr_off, mem_off, nx_stall, nx_go,
                    nx_go_addr, notif, notif_index, notif_found,
                    xl_mw2_base: c32(tpb_golden::top::MEM_WINDOW2_BASE),
                    xl_mw2_size: c32(tpb_golden::top::MEM_WINDOW2_SIZE),
                    xl_hit, xl_lo, xl_hi, xl_moff, xl_mlo, xl_v_q, xl_hit_q, xl_lo_q, xl_hi_q, ts_q, ts_hi_q,
                    ts_lo_addr: c32($lay.tpb_regs.base + $lay.timestamp_lo),
                    ts_tick, ts_adj,
                    $($extra_init)*
                } })
            }
        }

        tpb_top_logic!($s, $pound $attr, $name, extra_update = { $($extra_update)* });

        top_pins!(
            $s, $name,
            extra_drive = |$pins| { $($extra_drive)* },
            extra_outputs = |$outs| { $($extra_outputs)* }
        );
    };
}
