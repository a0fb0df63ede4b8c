//! `tpb_top_logic!`: the `update` every generation's top shares (the bus
//! decode, the engines' bundles, the Q7 cluster, the TPB-level registers,
//! the SEQ DMA, the notification unit, the timestamp, the memories and the
//! address translation), with the generation's own logic spliced in before
//! the unmapped-address check. `tpb_top!` (stamp.rs) invokes it; it is a
//! macro of its own so that the structure and the logic live in separate
//! files (one `#[hdl_gen]` body cannot be split across functions).

// `update` is written in the subset rust-hdl's hdl_gen translates to Verilog.
#![allow(clippy::nonminimal_bool, clippy::collapsible_if, clippy::collapsible_else_if)]

/// The `Logic` impl of a top stamped out by `tpb_top!`. `$s` and
/// `$pound $attr` are the caller's `self` and `#[hdl_gen]` tokens (see
/// `tpb_top!`).
macro_rules! tpb_top_logic {
    ($s:tt, $pound:tt $attr:tt, $name:ident, extra_update = { $($extra_update:tt)* }) => {
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
                $s.dma_m_valid.next = $s.dma.m_valid.val();
                $s.dma_m_addr_lo.next = $s.dma.m_addr.val().get_bits::<32>(0);
                $s.dma_m_addr_hi.next = $s.dma.m_addr.val().get_bits::<32>(32);
                $s.dma_m_wdata.next = $s.dma.m_wdata.val();
                $s.dma.m_ack.next = $s.dma_m_ack.val();
                $s.dma.m_err.next = $s.dma_m_err.val();
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
    };
}
