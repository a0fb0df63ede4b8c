//! `tpb_top!`: the structure, construction and logic every generation's
//! top shares, with the generation's own fields, construction, logic and
//! pins spliced in (see the macro's note).

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
            dma_err_prev: DFF<Bits<3>>,
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
                Ok(bar0_slave_new!(Self {
                    nx_halted: Default::default(),
                    q7_halted: Default::default(),
                    nx_run_stall: Default::default(),
                    q7_run_stall: Default::default(),
                    nx_start: Default::default(),
                    nx_start_addr: Default::default(),
                    q7_start: Default::default(),
                    q7_start_addr: Default::default(),
                    notific_head: Default::default(),
                    timestamp_lo: Default::default(),
                    timestamp_hi: Default::default(),
                    nx_irq: Default::default(),
                    q7_irq: Default::default(),
                    sem_notif_valid: Default::default(),
                    sem_notif_index: Default::default(),
                    dma_db_valid: Default::default(),
                    dma_busy: Default::default(),
                    xlat_valid: Default::default(),
                    xlat_who: Default::default(),
                    xlat_addr: Default::default(),
                    xlat_rsp_valid: Default::default(),
                    xlat_hit: Default::default(),
                    xlat_dst_lo: Default::default(),
                    xlat_dst_hi: Default::default(),
                    q7_if_valid: Default::default(),
                    q7_if_addr: Default::default(),
                    q7_if_ready: Default::default(),
                    q7_if_rvalid: Default::default(),
                    q7_if_rdata: Default::default(),
                    q7_if_err: Default::default(),
                    q7_ls_valid: Default::default(),
                    q7_ls_write: Default::default(),
                    q7_ls_addr: Default::default(),
                    q7_ls_wdata: Default::default(),
                    q7_ls_wstrb: Default::default(),
                    q7_ls_ready: Default::default(),
                    q7_ls_rvalid: Default::default(),
                    q7_ls_rdata: Default::default(),
                    q7_ls_err: Default::default(),
                    nx: std::array::from_fn(|_| Default::default()),
                    sem: {
                        EvtSem::new(&$lay.sem, false)?;
                        std::array::from_fn(|_| EvtSem::new(&$lay.sem, false).expect("the windows were checked above"))
                    },
                    win: {
                        WindowsRam::new(&$lay.win_words).map_err(|e| LayoutError::Bad { what: "windows".into(), detail: e.to_string() })?;
                        std::array::from_fn(|_| WindowsRam::new(&$lay.win_words).expect("the bundle was checked above"))
                    },
                    pool_win: Default::default(),
                    q7regs: Default::default(),
                    tpb: Default::default(),
                    cluster: Q7Cluster::new($lay.q7_stride, $lay.q7_dram_offset, $lay.q7_iram_size, $lay.q7_dram_size),
                    seq_iram: Default::default(),
                    seq_dram: Default::default(),
                    ctrl_spad: Default::default(),
                    slot_spad: Default::default(),
                    dma: SeqDma::new(&$lay.inc_slot)?,
                    ntf: Default::default(),
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
                    err_addr_q: Default::default(),
                    nx_held: Default::default(),
                    inst_l: Default::default(),
                    irq_set: Default::default(),
                    nx_irq_l: Default::default(),
                    pool_sem_irq: Default::default(),
                    q7_raise: Default::default(),
                    q7_irq_l: Default::default(),
                    dma_err_new: Default::default(),
                    dma_err_prev: Default::default(),
                    ctrl_base: c32($lay.ctrl_spad.base),
                    ctrl_mask: c32($lay.ctrl_spad.mask()),
                    ctrl_built: built(CW),
                    slot_base: c32($lay.slot_spad.base),
                    slot_mask: c32($lay.slot_spad.mask()),
                    slot_built: built(LW),
                    q7_base: c32($lay.q7.base),
                    q7_size: c32($lay.q7.size),
                    q7_off: Default::default(),
                    q7_sel: Default::default(),
                    err_q: Default::default(),
                    zero_q: Default::default(),
                    zero_ok: Default::default(),
                    past_hit: Default::default(),
                    aligned: Default::default(),
                    req_go: Default::default(),
                    hit: Default::default(),
                    lr_off: Default::default(),
                    mem_off: Default::default(),
                    nx_stall: Default::default(),
                    nx_go: Default::default(),
                    nx_go_addr: Default::default(),
                    notif: Default::default(),
                    notif_index: Default::default(),
                    notif_found: Default::default(),
                    xl_mw2_base: c32(tpb_golden::top::MEM_WINDOW2_BASE),
                    xl_mw2_size: c32(tpb_golden::top::MEM_WINDOW2_SIZE),
                    xl_hit: Default::default(),
                    xl_lo: Default::default(),
                    xl_hi: Default::default(),
                    xl_moff: Default::default(),
                    xl_mlo: Default::default(),
                    xl_v_q: Default::default(),
                    xl_hit_q: Default::default(),
                    xl_lo_q: Default::default(),
                    xl_hi_q: Default::default(),
                    ts_q: Default::default(),
                    ts_hi_q: Default::default(),
                    ts_lo_addr: c32($lay.tpb_regs.base + $lay.timestamp_lo),
                    ts_tick: Default::default(),
                    ts_adj: Default::default(),
                    $($extra_init)*
                }))
            }
        }

        impl<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> Logic for $name<QIW, QDW, SW, CW, LW> {
            $pound $attr
            fn update(&mut $s) {
                dff_setup!($s, clock, err_q, zero_q, err_addr_q, dma_err_prev, xl_v_q, xl_hit_q, xl_lo_q, xl_hi_q, ts_q, ts_hi_q);
                $s.aligned.next = !$s.req_addr.val().get_bit(0) & !$s.req_addr.val().get_bit(1);
                $s.lr_off.next = $s.req_addr.val() & !$s.lr_mask.val();
                $s.req_go.next = $s.req_valid.val() & !$s.reset.val();
                $s.hit.next = false;
                $s.rsp_valid.next = $s.err_q.q.val() | $s.zero_q.q.val();
                $s.rsp_err.next = $s.err_q.q.val();
                $s.zero_ok.next = !$s.req_write.val() | ($s.req_wdata.val() == 0);
                $s.past_hit.next = false;
                $s.rsp_rdata.next = 0.into();
                $s.nx_stall.next = 0.into();
                $s.nx_go.next = 0.into();
                $s.nx_go_addr.next = 0.into();
                $s.nx_held.next = 0.into();
                $s.inst_l.next = 0.into();
                $s.nx_irq_l.next = 0.into();
                $s.pool_sem_irq.next = 0.into();
                // A SEQ DMA error bit newly set (the DMA's error register is sticky).
                $s.dma_err_new.next = ($s.dma.errors.val() & !$s.dma_err_prev.q.val()) != 0;
                $s.dma_err_prev.d.next = $s.dma.errors.val();
                $s.ntf.dma_done.next = false;
                $s.notif.next = 0.into();
                $s.notif_index.next = 0.into();
                // ---- the SEQ DMA's inputs come from the POOL NX bundle ----
                $s.dma.enable.next = false;
                $s.dma.rx_base.next = 0.into();
                $s.dma.rx_length.next = 0.into();
                $s.dma.rx_head.next = 0.into();
                $s.dma.rx_tail_inc.next = 0.into();
                $s.dma.rx_tail_inc_pulse.next = false;
                $s.dma.tx_base.next = 0.into();
                $s.dma.tx_length.next = 0.into();
                $s.dma.tx_head.next = 0.into();
                $s.dma.tx_tail_inc.next = 0.into();
                $s.dma.tx_tail_inc_pulse.next = false;
                $s.dma.db_ready.next = false;
                // ---- engines: NX bundle, EVT_SEM, windows ----
                for i in 0..6 {
                    $s.nx[i].clock.next = $s.clock.val();
                    $s.nx[i].reset.next = $s.reset.val();
                    $s.sem[i].clock.next = $s.clock.val();
                    $s.sem[i].reset.next = $s.reset.val();
                    $s.win[i].clock.next = $s.clock.val();
                    $s.win[i].reset.next = $s.reset.val();
                    $s.nx[i].req_write.next = $s.req_write.val();
                    $s.nx[i].req_addr.next = $s.lr_off.val();
                    $s.nx[i].req_wdata.next = $s.req_wdata.val();
                    $s.sem[i].req_write.next = $s.req_write.val();
                    $s.sem[i].req_addr.next = $s.lr_off.val();
                    $s.sem[i].req_wdata.next = $s.req_wdata.val();
                    $s.win[i].req_write.next = $s.req_write.val();
                    $s.win[i].req_addr.next = $s.lr_off.val();
                    $s.win[i].req_wdata.next = $s.req_wdata.val();
                    $s.nx[i].req_valid.next = false;
                    $s.sem[i].req_valid.next = false;
                    $s.win[i].req_valid.next = false;
                    if $s.req_go.val() & (($s.req_addr.val() & $s.lr_mask.val()) == $s.lr_base[i].val()) {
                        if ($s.lr_off.val() & $s.nx_mask.val()) == $s.nx_base.val() {
                            $s.nx[i].req_valid.next = true;
                            $s.hit.next = true;
                        }
                        if ($s.lr_off.val() & $s.sem_mask.val()) == $s.sem_base.val() {
                            $s.sem[i].req_valid.next = true;
                            $s.hit.next = true;
                        }
                        if ($s.lr_off.val() & $s.win_mask.val()) == $s.win_base.val() {
                            $s.win[i].req_valid.next = true;
                            $s.hit.next = true;
                        }
                    }
                    if $s.nx[i].rsp_valid.val() {
                        $s.rsp_valid.next = true;
                    }
                    $s.rsp_err.next = $s.rsp_err.val() | ($s.nx[i].rsp_valid.val() & $s.nx[i].rsp_err.val());
                    $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.nx[i].rsp_rdata.val();
                    if $s.sem[i].rsp_valid.val() {
                        $s.rsp_valid.next = true;
                    }
                    $s.rsp_err.next = $s.rsp_err.val() | ($s.sem[i].rsp_valid.val() & $s.sem[i].rsp_err.val());
                    $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.sem[i].rsp_rdata.val();
                    if $s.win[i].rsp_valid.val() {
                        $s.rsp_valid.next = true;
                    }
                    $s.rsp_err.next = $s.rsp_err.val() | ($s.win[i].rsp_valid.val() & $s.win[i].rsp_err.val());
                    $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.win[i].rsp_rdata.val();
                    // Halt and start (DIGEST §2.8): instr_halt_ctrl.halt holds the
                    // core like its run-stall and reads as halted; a start_ctrl
                    // write of ctrl=1 clears it and restarts the core at start_addr.
                    $s.nx[i].run_state_running_i.next = !$s.nx[i].release_run_stall_stall_o.val() & !$s.nx_halted.val().get_bits::<1>(i) & !$s.nx[i].instr_halt_ctrl_halt_o.val();
                    $s.nx[i].run_state_halted_i.next = $s.nx_halted.val().get_bits::<1>(i) | $s.nx[i].instr_halt_ctrl_halt_o.val();
                    $s.nx[i].instr_halt_ctrl_halt_clr_i.next = 0.into();
                    // Interrupts (`[D]`, nx.toml): intr_info bit 0 a SEQ DMA error
                    // (POOL), bit 1 a CAM miss (POOL, set by the HW-decode tops), bit 2
                    // this engine's EVT_SEM changed, bit 3 the host's intr_ctrl.raise;
                    // the core's line is intr_ctrl.enable & (intr_info != 0).
                    $s.irq_set[i].next = 0.into();
                    if $s.sem[i].notif_valid.val() {
                        $s.irq_set[i].next = $s.irq_set[i].val() | 4;
                    }
                    if $s.nx[i].intr_ctrl_raise_pulse_o.val() & ($s.nx[i].intr_ctrl_raise_o.val() == 1) {
                        $s.irq_set[i].next = $s.irq_set[i].val() | 8;
                    }
                    if $s.is_pool[i].val() & $s.dma_err_new.val() {
                        $s.irq_set[i].next = $s.irq_set[i].val() | 1;
                    }
                    if $s.is_pool[i].val() & $s.sem[i].notif_valid.val() {
                        $s.pool_sem_irq.next = 4.into();
                    }
                    $s.nx[i].intr_info_info_set_i.next = $s.irq_set[i].val();
                    if ($s.nx[i].intr_ctrl_enable_o.val() == 1) & ($s.nx[i].intr_info_info_o.val() != 0) {
                        $s.nx_irq_l.next = $s.nx_irq_l.val() | $s.eng_bit[i].val();
                    }
                    if ($s.nx_halted.val().get_bits::<1>(i) | $s.nx[i].instr_halt_ctrl_halt_o.val()) == 1 {
                        $s.nx_held.next = $s.nx_held.val() | $s.eng_bit[i].val();
                    }
                    $s.ntf.sem_index[i].next = $s.sem[i].notif_index.val();
                    $s.ntf.inst_tag[i].next = $s.nx[i].inst_done_o.val();
                    if $s.nx[i].inst_done_pulse_o.val() {
                        $s.inst_l.next = $s.inst_l.val() | $s.eng_bit[i].val();
                    }
                    if ($s.nx[i].release_run_stall_stall_o.val() | $s.nx[i].instr_halt_ctrl_halt_o.val()) == 1 {
                        $s.nx_stall.next = $s.nx_stall.val() | $s.eng_bit[i].val();
                    }
                    if $s.nx[i].start_ctrl_ctrl_pulse_o.val() & ($s.nx[i].start_ctrl_ctrl_o.val() == 1) {
                        $s.nx[i].instr_halt_ctrl_halt_clr_i.next = 1.into();
                        $s.nx_go.next = $s.nx_go.val() | $s.eng_bit[i].val();
                        $s.nx_go_addr.next = $s.nx_go_addr.val() | $s.nx[i].start_addr_o.val();
                    }
                    $s.sem[i].db_valid.next = false;
                    $s.sem[i].db_index.next = $s.dma.db_index.val();
                    $s.sem[i].db_amount.next = $s.dma.db_amount.val();
                    if $s.sem[i].notif_valid.val() {
                        $s.notif.next = $s.notif.val() | $s.eng_bit[i].val();
                    }
                    if $s.is_pool[i].val() {
                        $s.dma.enable.next = $s.nx[i].dma_ctrl_enable_o.val() == 1;
                        $s.dma.rx_base.next = $s.nx[i].dma_rx_ring_base_o.val();
                        $s.dma.rx_length.next = $s.nx[i].dma_rx_ring_length_o.val();
                        $s.dma.rx_head.next = $s.nx[i].dma_rx_ring_head_o.val();
                        $s.dma.rx_tail_inc.next = $s.nx[i].dma_rx_ring_tail_inc_o.val();
                        $s.dma.rx_tail_inc_pulse.next = $s.nx[i].dma_rx_ring_tail_inc_pulse_o.val();
                        $s.dma.tx_base.next = $s.nx[i].dma_tx_ring_base_o.val();
                        $s.dma.tx_length.next = $s.nx[i].dma_tx_ring_length_o.val();
                        $s.dma.tx_head.next = $s.nx[i].dma_tx_ring_head_o.val();
                        $s.dma.tx_tail_inc.next = $s.nx[i].dma_tx_ring_tail_inc_o.val();
                        $s.dma.tx_tail_inc_pulse.next = $s.nx[i].dma_tx_ring_tail_inc_pulse_o.val();
                    }
                    if $s.is_top_sp[i].val() {
                        $s.sem[i].db_valid.next = $s.dma.db_valid.val();
                        $s.dma.db_ready.next = $s.sem[i].db_ready.val();
                        $s.ntf.dma_done.next = $s.dma.db_valid.val() & $s.sem[i].db_ready.val();
                    }
                }
                // POOL's windows in flip-flops too (the address translation reads
                // them): the same requests as its RAM bundle; the RAM answers.
                $s.pool_win.clock.next = $s.clock.val();
                $s.pool_win.reset.next = $s.reset.val();
                $s.pool_win.req_valid.next = $s.win[2].req_valid.val();
                $s.pool_win.req_write.next = $s.req_write.val();
                $s.pool_win.req_addr.next = $s.lr_off.val();
                $s.pool_win.req_wdata.next = $s.req_wdata.val();
                // The lowest engine whose semaphore changed names the index.
                $s.notif_found.next = false;
                for i in 0..6 {
                    if $s.sem[i].notif_valid.val() & !$s.notif_found.val() {
                        $s.notif_index.next = $s.sem[i].notif_index.val();
                        $s.notif_found.next = true;
                    }
                }
                $s.nx_run_stall.next = $s.nx_stall.val();
                $s.nx_irq.next = $s.nx_irq_l.val();
                $s.nx_start.next = $s.nx_go.val();
                $s.nx_start_addr.next = $s.nx_go_addr.val();
                $s.sem_notif_valid.next = $s.notif.val();
                $s.sem_notif_index.next = $s.notif_index.val();
                // ---- POOL's Q7 bundle (+0x3000) and the cluster ----
                $s.q7regs.clock.next = $s.clock.val();
                $s.q7regs.reset.next = $s.reset.val();
                $s.q7regs.req_write.next = $s.req_write.val();
                $s.q7regs.req_addr.next = $s.lr_off.val();
                $s.q7regs.req_wdata.next = $s.req_wdata.val();
                $s.q7regs.req_valid.next = false;
                for i in 0..6 {
                    if $s.is_pool[i].val() & $s.req_go.val() & (($s.req_addr.val() & $s.lr_mask.val()) == $s.lr_base[i].val()) {
                        if ($s.lr_off.val() & $s.q7r_mask.val()) == $s.q7r_base.val() {
                            $s.q7regs.req_valid.next = true;
                            $s.hit.next = true;
                        }
                    }
                }
                if $s.q7regs.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                }
                $s.rsp_err.next = $s.rsp_err.val() | ($s.q7regs.rsp_valid.val() & $s.q7regs.rsp_err.val());
                $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.q7regs.rsp_rdata.val();
                for n in 0..8 {
                    $s.q7regs.run_state_running_i[n].next = $s.cluster.running.val().get_bits::<1>(n);
                    $s.q7regs.run_state_halted_i[n].next = $s.q7_halted.val().get_bits::<1>(n);
                }
                // Interrupts (`[D]`, q7.toml): intr_info_n bit 2 the POOL EVT_SEM
                // changed, bit 3 the host raised core n; the line is enable[n] & (info != 0).
                $s.q7_raise.next = 0.into();
                if $s.q7regs.intr_ctrl_raise_pulse_o.val() {
                    $s.q7_raise.next = $s.q7regs.intr_ctrl_raise_o.val();
                }
                for n in 0..8 {
                    $s.q7regs.intr_info_info_set_i[n].next = $s.pool_sem_irq.val();
                    if $s.q7_raise.val().get_bit(n) {
                        $s.q7regs.intr_info_info_set_i[n].next = $s.pool_sem_irq.val() | 8;
                    }
                }
                $s.q7_irq_l.next = 0.into();
                for n in 0..8 {
                    if $s.q7regs.intr_ctrl_enable_o.val().get_bit(n) & ($s.q7regs.intr_info_info_o[n].val() != 0) {
                        $s.q7_irq_l.next = $s.q7_irq_l.val().replace_bit(n, true);
                    }
                }
                $s.q7_irq.next = $s.q7_irq_l.val();
                $s.cluster.clock.next = $s.clock.val();
                $s.cluster.reset.next = $s.reset.val();
                $s.cluster.run_stall.next = $s.q7regs.release_run_stall_stall_o.val();
                $s.cluster.halted.next = $s.q7_halted.val();
                $s.q7_run_stall.next = $s.q7regs.release_run_stall_stall_o.val();
                // A start_ctrl write restarts the cores of its set bits at start_addr.
                $s.q7_start.next = 0.into();
                $s.q7_start_addr.next = 0.into();
                if $s.q7regs.start_ctrl_start_pulse_o.val() {
                    $s.q7_start.next = $s.q7regs.start_ctrl_start_o.val();
                    $s.q7_start_addr.next = $s.q7regs.start_addr_o.val();
                }
                $s.q7_off.next = $s.req_addr.val() - $s.q7_base.val();
                $s.q7_sel.next = $s.req_go.val() & ($s.q7_off.val() < $s.q7_size.val());
                $s.cluster.req_valid.next = $s.q7_sel.val();
                $s.cluster.req_write.next = $s.req_write.val();
                $s.cluster.req_addr.next = $s.q7_off.val();
                $s.cluster.req_wdata.next = $s.req_wdata.val();
                if $s.q7_sel.val() {
                    $s.hit.next = true;
                }
                if $s.cluster.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                }
                $s.rsp_err.next = $s.rsp_err.val() | ($s.cluster.rsp_valid.val() & $s.cluster.rsp_err.val());
                $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.cluster.rsp_rdata.val();
                for i in 0..8 {
                    $s.cluster.if_valid[i].next = $s.q7_if_valid[i].val();
                    $s.cluster.if_addr[i].next = $s.q7_if_addr[i].val();
                    $s.q7_if_ready[i].next = $s.cluster.if_ready[i].val();
                    $s.q7_if_rvalid[i].next = $s.cluster.if_rvalid[i].val();
                    $s.q7_if_rdata[i].next = $s.cluster.if_rdata[i].val();
                    $s.q7_if_err[i].next = $s.cluster.if_err[i].val();
                    $s.cluster.ls_valid[i].next = $s.q7_ls_valid[i].val();
                    $s.cluster.ls_write[i].next = $s.q7_ls_write[i].val();
                    $s.cluster.ls_addr[i].next = $s.q7_ls_addr[i].val();
                    $s.cluster.ls_wdata[i].next = $s.q7_ls_wdata[i].val();
                    $s.cluster.ls_wstrb[i].next = $s.q7_ls_wstrb[i].val();
                    $s.q7_ls_ready[i].next = $s.cluster.ls_ready[i].val();
                    $s.q7_ls_rvalid[i].next = $s.cluster.ls_rvalid[i].val();
                    $s.q7_ls_rdata[i].next = $s.cluster.ls_rdata[i].val();
                    $s.q7_ls_err[i].next = $s.cluster.ls_err[i].val();
                }
                // ---- TPB-level registers ----
                $s.tpb.clock.next = $s.clock.val();
                $s.tpb.reset.next = $s.reset.val();
                $s.tpb.req_valid.next = $s.req_go.val() & (($s.req_addr.val() & $s.tpb_mask.val()) == $s.tpb_base.val());
                $s.tpb.req_write.next = $s.req_write.val();
                $s.tpb.req_addr.next = $s.req_addr.val() & !$s.tpb_mask.val();
                $s.tpb.req_wdata.next = $s.req_wdata.val();
                if $s.req_go.val() & (($s.req_addr.val() & $s.tpb_mask.val()) == $s.tpb_base.val()) {
                    $s.hit.next = true;
                }
                if $s.tpb.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                }
                $s.rsp_err.next = $s.rsp_err.val() | ($s.tpb.rsp_valid.val() & $s.tpb.rsp_err.val());
                $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.tpb.rsp_rdata.val();
                // ---- SEQ DMA ----
                $s.dma.clock.next = $s.clock.val();
                $s.dma.reset.next = $s.reset.val();
                $s.dma.req_valid.next = $s.req_go.val() & (($s.req_addr.val() & $s.dma_mask.val()) == $s.dma_base.val());
                $s.dma.req_write.next = $s.req_write.val();
                $s.dma.req_addr.next = $s.req_addr.val() & !$s.dma_mask.val();
                $s.dma.req_wdata.next = $s.req_wdata.val();
                if $s.req_go.val() & (($s.req_addr.val() & $s.dma_mask.val()) == $s.dma_base.val()) {
                    $s.hit.next = true;
                }
                if $s.dma.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                }
                $s.rsp_err.next = $s.rsp_err.val() | ($s.dma.rsp_valid.val() & $s.dma.rsp_err.val());
                $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.dma.rsp_rdata.val();
                $s.dma_db_valid.next = $s.dma.db_valid.val();
                $s.dma_busy.next = $s.dma.busy.val();
                // ---- notification unit: its ring SRAM on BAR0, its events and registers ----
                $s.ntf.clock.next = $s.clock.val();
                $s.ntf.reset.next = $s.reset.val();
                $s.ntf.req_valid.next = $s.req_go.val() & (($s.req_addr.val() & $s.ntf_mask.val()) == $s.ntf_base.val());
                $s.ntf.req_write.next = $s.req_write.val();
                $s.ntf.req_addr.next = $s.req_addr.val() & !$s.ntf_mask.val();
                $s.ntf.req_wdata.next = $s.req_wdata.val();
                if $s.req_go.val() & (($s.req_addr.val() & $s.ntf_mask.val()) == $s.ntf_base.val()) {
                    $s.hit.next = true;
                }
                if $s.ntf.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                }
                $s.rsp_err.next = $s.rsp_err.val() | ($s.ntf.rsp_valid.val() & $s.ntf.rsp_err.val());
                $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.ntf.rsp_rdata.val();
                $s.ntf.size.next = $s.tpb.notific_ring_size_o.val();
                $s.ntf.enable.next = bit_cast::<3, 1>($s.tpb.notific_enable_error_o.val()) | (bit_cast::<3, 1>($s.tpb.notific_enable_evt_sem_o.val()) << 1) | (bit_cast::<3, 1>($s.tpb.notific_enable_inst_o.val()) << 2);
                $s.ntf.tail.next = $s.tpb.notific_tail_o.val();
                $s.ntf.sem_valid.next = $s.notif.val();
                $s.ntf.inst_valid.next = $s.inst_l.val();
                $s.ntf.dma_index.next = $s.dma.db_index.val();
                $s.ntf.dma_err.next = $s.dma.errors.val();
                $s.ntf.halted.next = (bit_cast::<16, 8>($s.q7_halted.val()) << 8) | bit_cast::<16, 6>($s.nx_held.val());
                $s.ntf.bus_err.next = $s.err_q.q.val();
                $s.ntf.bus_addr.next = $s.err_addr_q.q.val();
                if $s.req_go.val() {
                    $s.err_addr_q.d.next = $s.req_addr.val();
                }
                $s.tpb.notific_head_i.next = $s.ntf.head.val();
                $s.notific_head.next = $s.ntf.head.val();
                // ---- the TPB timestamp (rules: tpb_golden::timestamp) ----
                $s.ts_tick.next = 0.into();
                if $s.tpb.timestamp_ctrl_run_o.val().any() {
                    $s.ts_tick.next = bit_cast::<64, 32>($s.tpb.timestamp_inc_o.val());
                }
                $s.ts_adj.next = 0.into();
                if $s.tpb.timestamp_adjust_hi_pulse_o.val() {
                    $s.ts_adj.next = (bit_cast::<64, 32>($s.tpb.timestamp_adjust_hi_o.val()) << 32) | bit_cast::<64, 32>($s.tpb.timestamp_adjust_lo_o.val());
                }
                $s.ts_q.d.next = $s.ts_q.q.val() + $s.ts_tick.val() + $s.ts_adj.val();
                if $s.req_go.val() & !$s.req_write.val() & ($s.req_addr.val() == $s.ts_lo_addr.val()) {
                    $s.ts_hi_q.d.next = $s.ts_q.q.val().get_bits::<32>(32);
                }
                if $s.reset.val() {
                    $s.ts_q.d.next = 0.into();
                    $s.ts_hi_q.d.next = 0.into();
                }
                $s.tpb.timestamp_lo_i.next = $s.ts_q.q.val().get_bits::<32>(0);
                $s.tpb.timestamp_hi_i.next = $s.ts_hi_q.q.val();
                $s.timestamp_lo.next = $s.ts_q.q.val().get_bits::<32>(0);
                $s.timestamp_hi.next = $s.ts_q.q.val().get_bits::<32>(32);
                $s.tpb.notific_dropped_i.next = $s.ntf.dropped.val();
                $s.tpb.notific_status_overflow_set_i.next = 0.into();
                if $s.ntf.overflow.val() {
                    $s.tpb.notific_status_overflow_set_i.next = 1.into();
                }
                // ---- memories: SEQ IRAM/DRAM, TOP_SP SPADs (PIO port only) ----
                $s.seq_iram.clock.next = $s.clock.val();
                $s.seq_dram.clock.next = $s.clock.val();
                $s.ctrl_spad.clock.next = $s.clock.val();
                $s.slot_spad.clock.next = $s.clock.val();
                $s.seq_iram.reset.next = $s.reset.val();
                $s.seq_dram.reset.next = $s.reset.val();
                $s.ctrl_spad.reset.next = $s.reset.val();
                $s.slot_spad.reset.next = $s.reset.val();
                $s.seq_iram.pio_valid.next = false;
                $s.seq_dram.pio_valid.next = false;
                $s.ctrl_spad.pio_valid.next = false;
                $s.slot_spad.pio_valid.next = false;
                $s.mem_off.next = $s.req_addr.val() & !$s.seq_mask.val();
                // Past a memory's built size: reads give 0, writes of 0 are taken.
                if $s.req_go.val() & $s.aligned.val() & (($s.mem_off.val() & $s.seq_built.val()) == 0) {
                    if ($s.req_addr.val() & $s.seq_mask.val()) == $s.seq_iram_base.val() {
                        $s.seq_iram.pio_valid.next = true;
                        $s.hit.next = true;
                    }
                    if ($s.req_addr.val() & $s.seq_mask.val()) == $s.seq_dram_base.val() {
                        $s.seq_dram.pio_valid.next = true;
                        $s.hit.next = true;
                    }
                } else if $s.req_go.val() & $s.aligned.val() & $s.zero_ok.val() {
                    if (($s.req_addr.val() & $s.seq_mask.val()) == $s.seq_iram_base.val()) | (($s.req_addr.val() & $s.seq_mask.val()) == $s.seq_dram_base.val()) {
                        $s.past_hit.next = true;
                        $s.hit.next = true;
                    }
                }
                if $s.req_go.val() & $s.aligned.val() & (($s.req_addr.val() & $s.ctrl_mask.val()) == $s.ctrl_base.val()) {
                    if (($s.req_addr.val() & !$s.ctrl_mask.val()) & $s.ctrl_built.val()) == 0 {
                        $s.ctrl_spad.pio_valid.next = true;
                        $s.hit.next = true;
                    } else if $s.zero_ok.val() {
                        $s.past_hit.next = true;
                        $s.hit.next = true;
                    }
                }
                if $s.req_go.val() & $s.aligned.val() & (($s.req_addr.val() & $s.slot_mask.val()) == $s.slot_base.val()) {
                    if (($s.req_addr.val() & !$s.slot_mask.val()) & $s.slot_built.val()) == 0 {
                        $s.slot_spad.pio_valid.next = true;
                        $s.hit.next = true;
                    } else if $s.zero_ok.val() {
                        $s.past_hit.next = true;
                        $s.hit.next = true;
                    }
                }
                $s.seq_iram.pio_write.next = $s.req_write.val();
                $s.seq_dram.pio_write.next = $s.req_write.val();
                $s.ctrl_spad.pio_write.next = $s.req_write.val();
                $s.slot_spad.pio_write.next = $s.req_write.val();
                $s.seq_iram.pio_word.next = $s.req_addr.val().get_bits::<SW>(2);
                $s.seq_dram.pio_word.next = $s.req_addr.val().get_bits::<SW>(2);
                $s.ctrl_spad.pio_word.next = $s.req_addr.val().get_bits::<CW>(2);
                $s.slot_spad.pio_word.next = $s.req_addr.val().get_bits::<LW>(2);
                $s.seq_iram.pio_wdata.next = $s.req_wdata.val();
                $s.seq_dram.pio_wdata.next = $s.req_wdata.val();
                $s.ctrl_spad.pio_wdata.next = $s.req_wdata.val();
                $s.slot_spad.pio_wdata.next = $s.req_wdata.val();
                $s.seq_iram.a_valid.next = false;
                $s.seq_dram.a_valid.next = false;
                $s.ctrl_spad.a_valid.next = false;
                $s.slot_spad.a_valid.next = false;
                $s.seq_iram.a_write.next = false;
                $s.seq_dram.a_write.next = false;
                $s.ctrl_spad.a_write.next = false;
                $s.slot_spad.a_write.next = false;
                $s.seq_iram.a_word.next = 0.into();
                $s.seq_dram.a_word.next = 0.into();
                $s.ctrl_spad.a_word.next = 0.into();
                $s.slot_spad.a_word.next = 0.into();
                $s.seq_iram.a_wdata.next = 0.into();
                $s.seq_dram.a_wdata.next = 0.into();
                $s.ctrl_spad.a_wdata.next = 0.into();
                $s.slot_spad.a_wdata.next = 0.into();
                $s.seq_iram.a_wstrb.next = 0.into();
                $s.seq_dram.a_wstrb.next = 0.into();
                $s.ctrl_spad.a_wstrb.next = 0.into();
                $s.slot_spad.a_wstrb.next = 0.into();
                if $s.seq_iram.pio_rvalid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.seq_iram.rdata.val();
                }
                if $s.seq_dram.pio_rvalid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.seq_dram.rdata.val();
                }
                if $s.ctrl_spad.pio_rvalid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.ctrl_spad.rdata.val();
                }
                if $s.slot_spad.pio_rvalid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.slot_spad.rdata.val();
                }
                // ---- address translation (`[D]`, golden `top::translate`): POOL's
                // window bundle and mem_window2; the answer is registered. Windows are
                // tested from 7 down to 0, so the last match assigned is the lowest window.
                $s.xl_hit.next = false;
                $s.xl_lo.next = 0.into();
                $s.xl_hi.next = 0.into();
                $s.xl_moff.next = $s.xlat_addr.val() - $s.xl_mw2_base.val();
                $s.xl_mlo.next = $s.nx[2].mem_window2_lo_o.val() + $s.xl_moff.val();
                if ($s.xlat_who.val() == 0) & ($s.xl_moff.val() < $s.xl_mw2_size.val()) & (($s.nx[2].mem_window2_lo_o.val() | $s.nx[2].mem_window2_hi_o.val()) != 0) {
                    $s.xl_hit.next = true;
                    $s.xl_lo.next = $s.xl_mlo.val();
                    $s.xl_hi.next = $s.nx[2].mem_window2_hi_o.val();
                    if $s.xl_mlo.val() < $s.nx[2].mem_window2_lo_o.val() {
                        $s.xl_hi.next = $s.nx[2].mem_window2_hi_o.val() + 1;
                    }
                }
                for k in 0..8 {
                    if ($s.pool_win.window_ctrl_enable_o[7 - k].val() == 1) & ($s.pool_win.window_ctrl_requester_o[7 - k].val() == $s.xlat_who.val()) & ($s.pool_win.window_src_hi_o[7 - k].val() == 0) & !($s.xlat_addr.val() < $s.pool_win.window_src_lo_o[7 - k].val()) & (($s.pool_win.window_size_hi_o[7 - k].val() != 0) | (($s.xlat_addr.val() - $s.pool_win.window_src_lo_o[7 - k].val()) < $s.pool_win.window_size_lo_o[7 - k].val())) {
                        $s.xl_hit.next = true;
                        $s.xl_lo.next = $s.pool_win.window_dst_lo_o[7 - k].val() + ($s.xlat_addr.val() - $s.pool_win.window_src_lo_o[7 - k].val());
                        $s.xl_hi.next = $s.pool_win.window_dst_hi_o[7 - k].val();
                        if ($s.pool_win.window_dst_lo_o[7 - k].val() + ($s.xlat_addr.val() - $s.pool_win.window_src_lo_o[7 - k].val())) < $s.pool_win.window_dst_lo_o[7 - k].val() {
                            $s.xl_hi.next = $s.pool_win.window_dst_hi_o[7 - k].val() + 1;
                        }
                    }
                }
                $s.xl_v_q.d.next = $s.xlat_valid.val() & !$s.reset.val();
                $s.xl_hit_q.d.next = $s.xlat_valid.val() & !$s.reset.val() & $s.xl_hit.val();
                $s.xl_lo_q.d.next = 0.into();
                $s.xl_hi_q.d.next = 0.into();
                if $s.xlat_valid.val() & !$s.reset.val() & $s.xl_hit.val() {
                    $s.xl_lo_q.d.next = $s.xl_lo.val();
                    $s.xl_hi_q.d.next = $s.xl_hi.val();
                }
                $s.xlat_rsp_valid.next = $s.xl_v_q.q.val();
                $s.xlat_hit.next = $s.xl_hit_q.q.val();
                $s.xlat_dst_lo.next = $s.xl_lo_q.q.val();
                $s.xlat_dst_hi.next = $s.xl_hi_q.q.val();
                // ---- the generation's own blocks ----
                $($extra_update)*
                // ---- nothing decoded the request: error next cycle ----
                $s.err_q.d.next = $s.req_go.val() & !$s.hit.val();
                $s.zero_q.d.next = $s.past_hit.val();
                if $s.reset.val() {
                    $s.err_q.d.next = false;
                    $s.zero_q.d.next = false;
                }
            }
        }

        top_pins!(
            $s, $name,
            extra_drive = |$pins| { $($extra_drive)* },
            extra_outputs = |$outs| { $($extra_outputs)* }
        );
    };
}
