//! The top's output ports as the testbench reads them by name, which
//! output a register's write pulses, and how a field mismatch is told.

use super::*;

/// The top's output `port` in `o` (the names of [`names::ports`]).
pub(super) fn port_value(o: &Outputs, port: &str) -> u64 {
    // A Q7 core's memory port: `q7_<signal>$<core>`.
    if let Some((sig, k)) = port.strip_prefix("q7_").and_then(|p| p.split_once('$')) {
        let Some(q) = k.parse::<usize>().ok().and_then(|k| o.q7.get(k)) else { return 0 };
        return match sig {
            "if_ready" => q.if_ready as u64,
            "if_rvalid" => q.if_rvalid as u64,
            "if_rdata" => q.if_rdata as u64,
            "if_err" => q.if_err as u64,
            "ls_ready" => q.ls_ready as u64,
            "ls_rvalid" => q.ls_rvalid as u64,
            "ls_rdata" => q.ls_rdata as u64,
            "ls_err" => q.ls_err as u64,
            _ => 0,
        };
    }
    match port {
        "rsp_valid" => o.rsp.valid as u64,
        "rsp_err" => o.rsp.err as u64,
        "rsp_rdata" => o.rsp.rdata as u64,
        "nx_run_stall" => o.nx_run_stall as u64,
        "q7_run_stall" => o.q7_run_stall as u64,
        "nx_start" => o.nx_start as u64,
        "nx_start_addr" => o.nx_start_addr as u64,
        "q7_start" => o.q7_start as u64,
        "q7_start_addr" => o.q7_start_addr as u64,
        "notific_head" => o.notific_head as u64,
        "timestamp_lo" => o.timestamp & 0xffff_ffff,
        "timestamp_hi" => o.timestamp >> 32,
        "nx_irq" => o.nx_irq as u64,
        "q7_irq" => o.q7_irq as u64,
        "sem_notif_valid" => o.sem_notif_valid as u64,
        "sem_notif_index" => o.sem_notif_index as u64,
        "dma_db_valid" => o.dma_db_valid as u64,
        "dma_busy" => o.dma_busy as u64,
        "dma_m_valid" => o.dma_m.valid as u64,
        "dma_m_addr_lo" => o.dma_m.addr & 0xffff_ffff,
        "dma_m_addr_hi" => o.dma_m.addr >> 32,
        "dma_m_wdata" => o.dma_m.wdata as u64,
        "host_trigger_pulse" => o.host_trigger_pulse as u64,
        "stop_pulse" => o.stop_pulse as u64,
        "xlat_rsp_valid" => o.xlat.valid as u64,
        "xlat_hit" => o.xlat.hit as u64,
        "xlat_dst_lo" => o.xlat.dst & 0xffff_ffff,
        "xlat_dst_hi" => o.xlat.dst >> 32,
        p if p.starts_with("hwd_") => {
            let Some(h) = o.hwd else { return 0 };
            match p {
                "hwd_lookup_ready" => h.lookup_ready as u64,
                "hwd_fifo_valid" => h.fifo_valid as u64,
                "hwd_fifo_hit" => h.head.hit as u64,
                "hwd_fifo_entry" => h.head.entry as u64,
                "hwd_fifo_index" => h.head.index as u64,
                "hwd_fifo_handler" => h.head.handler as u64,
                "hwd_miss" => h.miss as u64,
                "hwd_miss_irq" => h.miss_irq as u64,
                _ => 0,
            }
        }
        _ => 0,
    }
}

/// The top port a doorbell's pulse reaches, if any.
pub(super) fn pulse_port(t: &Target) -> Option<&'static str> {
    let name = t.name();
    if name.starts_with("top_sp.top_sp.") {
        if name.ends_with(".host_trigger") {
            return Some("host_trigger_pulse");
        }
        if name.ends_with(".stop") {
            return Some("stop_pulse");
        }
    }
    None
}

/// For a whole-register mismatch: each field that differs.
pub(super) fn field_diff(t: &Target, expected: u64, got: u64) -> String {
    let Target::Bus(Named::Reg { reg, field: None, .. }) = t else { return String::new() };
    let diffs: Vec<String> = reg
        .fields
        .iter()
        .filter(|f| ((expected as u32 ^ got as u32) & f.mask()) != 0)
        .map(|f| {
            let v = |w: u64| (w as u32 & f.mask()) >> f.lsb;
            format!("{} expected {:#x} got {:#x}", f.name, v(expected), v(got))
        })
        .collect();
    if diffs.is_empty() {
        String::new()
    } else {
        format!(" (fields: {})", diffs.join(", "))
    }
}

#[cfg(test)]
mod tests {
    /// Every output port the top has (the list build.rs read off the
    /// Verilated model) is one `port_value` reads: a port added to the top
    /// without a reading here fails this test instead of reading 0.
    #[test]
    fn every_output_port_of_every_top_has_a_value() {
        use tpb_models::golden::hw_decode::Outputs as Hwd;
        use tpb_models::golden::q7_cluster::PortOut;
        use tpb_models::golden::top::Outputs;
        // Every field set to a non-zero value: a port read as 0 is unmapped.
        let q = PortOut { if_ready: true, if_rvalid: true, if_rdata: 1, if_err: true, ls_ready: true, ls_rvalid: true, ls_rdata: 1, ls_err: true };
        let mut h = Hwd { lookup_ready: true, fifo_valid: true, miss: true, miss_irq: true, ..Default::default() };
        h.head.hit = true;
        h.head.entry = 1;
        h.head.index = 1;
        h.head.handler = 1;
        let o = Outputs {
            rsp: tpb_models::csr::Rsp { valid: true, err: true, rdata: 1 },
            nx_run_stall: 1,
            q7_run_stall: 1,
            nx_start: 1,
            nx_start_addr: 1,
            q7_start: 1,
            q7_start_addr: 1,
            notific_head: 1,
            nx_irq: 1,
            q7_irq: 1,
            sem_notif_valid: 1,
            sem_notif_index: 1,
            dma_db_valid: true,
            dma_busy: true,
            dma_m: tpb_models::golden::seq_dma::Master { valid: true, addr: 1 << 32 | 1, wdata: 1 },
            host_trigger_pulse: true,
            stop_pulse: true,
            hwd: Some(h),
            xlat: tpb_models::golden::top::XlatOut { valid: true, hit: true, dst: 1 << 32 | 1 },
            timestamp: 1 << 32 | 1,
            q7: [q; tpb_models::golden::q7_cluster::CORES],
        };
        for arch in tpb_models::regmap::Arch::ALL {
            let ports = super::super::names::ports(arch);
            assert!(ports.len() > 10, "{arch:?}: {ports:?}");
            for p in ports {
                assert_ne!(super::port_value(&o, p), 0, "{arch:?}: port {p} has no reading in port_value");
            }
        }
    }
}
