//! The NCFW context log, decoded: what the host reads back of a collective's
//! firmware, as the seeds' `ncfw_ctx_log` and its `ncfw_log_*` decoders do
//! (seed 003 §2, seed 001 §5b: the cc_op entry's, the mesh events' and the
//! mesh context's fields, under the seeds' JSON keys): the TOP_SP's CTRL
//! SPAD cc_op entry, `algo_ctx`'s `event_index`, each mesh event of
//! `algo_configs`, and, `[D]` (the seeds leave the firmware's own log
//! open), the record the model's NCFW firmware leaves per event (the
//! handler it ran and, for a barrier, the timestamp it snapshotted).
//!
//! The decoder reads bytes only: where the regions sit in the core's DRAM
//! is the caller's ([`CtxLayout`]).

use crate::mesh::{algo_ctx, MeshEvent, MeshEventType};
use crate::spad::SpadCtrlEntry;
use serde_json::{json, Value};

/// Where the NCFW core's regions sit in its DRAM (byte offsets) and how
/// many events its tape has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CtxLayout {
    /// `algo_configs`; its mesh events at + `ALGO_CONFIGS_MESH_OFFSET`.
    pub algo_configs: u32,
    /// `algo_ctx` (`event_index` at + 0x204).
    pub algo_ctx: u32,
    /// `[D]` The firmware's per-event records (16 bytes each: handler,
    /// snapshot low, snapshot high, 0).
    pub log: u32,
    /// The tape's events.
    pub events: u32,
}

/// `[D]` What the model's NCFW firmware records of each event it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventRecord {
    /// The handler (`ncfw_tape.S`'s numbering: 1 step, 2 barrier (with a
    /// snapshot), 3 local handshake, 4 broadcast, 5 reduce).
    pub handler: u32,
    /// The 64-bit timestamp a barrier handler snapshotted (0 for the others).
    pub snapshot: u64,
}

/// A stepper's context, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct CtxLog {
    /// The first CTRL SPAD cc_op entry (or why it does not decode).
    pub cc_op: Result<SpadCtrlEntry, String>,
    pub event_index: u16,
    /// Each event of the tape and what the firmware recorded of it.
    pub events: Vec<(MeshEvent, EventRecord)>,
}

/// The handlers' names (`[D]`, as `ncfw_tape.S` numbers them).
pub fn handler_name(h: u32) -> &'static str {
    match h {
        1 => "step",
        2 => "barrier (snapshot)",
        3 => "local handshake",
        4 => "broadcast",
        5 => "reduce",
        0 => "not run",
        _ => "unknown",
    }
}

fn word(dram: &[u8], at: u32) -> u32 {
    let at = at as usize;
    dram.get(at..at + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Decode `dram` (the NCFW core's DRAM from offset 0) laid out as `layout`,
/// with `ctrl` the first 8 bytes of the TOP_SP's CTRL SPAD. Bytes past the
/// end of `dram` read as zero.
pub fn decode(dram: &[u8], layout: &CtxLayout, ctrl: &[u8]) -> CtxLog {
    let cc_op = SpadCtrlEntry::unpack(ctrl).map_err(|e| e.to_string());
    let event_index = (word(dram, layout.algo_ctx + algo_ctx::MESH_EVENT_INDEX) & 0xffff) as u16;
    let mesh = layout.algo_configs + crate::mesh::ALGO_CONFIGS_MESH_OFFSET;
    let events = (0..layout.events)
        .map(|i| {
            let at = (mesh + i * MeshEvent::BYTES as u32) as usize;
            let mut b = vec![0u8; MeshEvent::BYTES];
            if let Some(src) = dram.get(at..(at + MeshEvent::BYTES).min(dram.len())) {
                b[..src.len()].copy_from_slice(src);
            }
            let e = MeshEvent::unpack(&b).expect("80 bytes make an event");
            let r = layout.log + 16 * i;
            (e, EventRecord { handler: word(dram, r), snapshot: u64::from(word(dram, r + 4)) | u64::from(word(dram, r + 8)) << 32 })
        })
        .collect();
    CtxLog { cc_op, event_index, events }
}

impl CtxLog {
    /// Under the seeds' JSON keys (`ncfw_log_spad_ctrl_cc_op_entry`,
    /// `ncfw_log_algo_mesh_ctx`, `ncfw_log_configs_algo_mesh_events`), with
    /// the firmware's records under `record` (`[D]`).
    pub fn to_json(&self) -> Value {
        let cc_op = match &self.cc_op {
            Ok(e) => serde_json::to_value(e).unwrap_or(Value::Null),
            Err(why) => json!({ "error": why }),
        };
        let events: Vec<Value> = self
            .events
            .iter()
            .map(|(e, r)| {
                json!({
                    "event_type": e.event_type,
                    "event_type_name": e.event_type().name(),
                    "wait_event": e.wait_event,
                    "event_wait_sema": format!("{:#x}", e.event_wait_sema),
                    "wait_val": e.wait_val,
                    "dma_trigger": e.dma_trigger,
                    "dma_apb_bcast_0": e.dma_apb_bcast[0],
                    "dma_apb_bcast_1": e.dma_apb_bcast[1],
                    "direct_trigger": e.direct_trigger,
                    "direct_trigger_sema": e.direct_trigger_sema.iter().map(|s| format!("{s:#x}")).collect::<Vec<_>>(),
                    "record": { "handler": r.handler, "handler_name": handler_name(r.handler), "snapshot": r.snapshot },
                })
            })
            .collect();
        json!({ "spad_ctrl_cc_op_entry": cc_op, "algo_mesh_ctx": { "event_index": self.event_index }, "algo_mesh_events": events })
    }

    /// As a person reads it: one line for the entry and the context, one per event.
    pub fn render(&self) -> Vec<String> {
        let mut out = vec![match &self.cc_op {
            Ok(e) => format!(
                "cc_op entry: {}algo_type {:?}, algo_sub_type {}, trigger_next {}, reporter {}, {:?}",
                if e.cc_op { "" } else { "inactive, " },
                e.algo_type,
                e.algo_sub_type,
                u8::from(e.trigger_next),
                u8::from(e.reporter),
                e.target
            ),
            Err(why) => format!("cc_op entry: does not decode ({why})"),
        }];
        out.push(format!("algo_ctx: event_index {} of {}", self.event_index, self.events.len()));
        for (i, (e, r)) in self.events.iter().enumerate() {
            let ty = MeshEventType(e.event_type);
            let name = ty.name().unwrap_or("(unnamed)");
            let wait = if e.wait_event != 0 { format!("wait {:#x} >= {}", e.event_wait_sema, e.wait_val) } else { "no wait".into() };
            let triggers = e.direct_trigger_sema.iter().take(usize::from(e.direct_trigger).min(3)).map(|s| format!("{s:#x}")).collect::<Vec<_>>();
            let signal = if triggers.is_empty() { String::new() } else { format!(", signal {}", triggers.join(" ")) };
            let dma = if e.dma_trigger != 0 { ", DMA legs" } else { "" };
            let snap = if r.snapshot != 0 { format!(", snapshot {}", r.snapshot) } else { String::new() };
            out.push(format!("event {i}: {name} ({}): {wait}{dma}{signal}; handler {} {}{snap}", e.event_type, r.handler, handler_name(r.handler)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_decodes_to_its_fields_and_records() {
        let layout = CtxLayout { algo_configs: 0x100, algo_ctx: 0x8000, log: 0x8400, events: 2 };
        let mut dram = vec![0u8; 0x8500];
        let e0 = MeshEvent {
            event_type: 0,
            wait_event: 1,
            event_wait_sema: 0x0082_8000_180c,
            wait_val: 2,
            direct_trigger: 1,
            direct_trigger_sema: [0x0082_c000_180c, 0, 0],
            ..MeshEvent::default()
        };
        let e1 = MeshEvent { event_type: 4, ..MeshEvent::default() };
        for (i, e) in [e0, e1].iter().enumerate() {
            let at = 0x100 + 0x1280 + 80 * i;
            dram[at..at + 80].copy_from_slice(&e.pack());
        }
        dram[0x8204..0x8206].copy_from_slice(&2u16.to_le_bytes());
        dram[0x8400..0x8404].copy_from_slice(&1u32.to_le_bytes());
        dram[0x8410..0x8414].copy_from_slice(&2u32.to_le_bytes());
        dram[0x8414..0x8418].copy_from_slice(&77u32.to_le_bytes());
        let entry = crate::spad::SpadCtrlEntry::mesh(0);
        let log = decode(&dram, &layout, &entry.pack().unwrap());
        assert_eq!(log.event_index, 2);
        assert_eq!(log.events[0].0, e0);
        assert_eq!(log.events[1].1, EventRecord { handler: 2, snapshot: 77 });
        let lines = log.render();
        assert!(lines[0].contains("algo_type Mesh") && lines[1] == "algo_ctx: event_index 2 of 2", "{lines:?}");
        assert!(lines[2].contains("EVT_SYNC (0): wait 0x828000180c >= 2, signal 0x82c000180c; handler 1 step"), "{lines:?}");
        assert!(lines[3].contains("handler 2 barrier (snapshot), snapshot 77"), "{lines:?}");
        let j = log.to_json();
        assert_eq!(j["algo_mesh_ctx"]["event_index"], 2);
        assert_eq!(j["algo_mesh_events"][0]["wait_val"], 2);
        assert_eq!(j["spad_ctrl_cc_op_entry"]["reporter"], true);
        // A short DRAM reads as zeros; a bad entry says why.
        let short = decode(&dram[..0x10], &layout, &[0xff; 8]);
        assert!(short.cc_op.is_err() && short.events.iter().all(|(e, r)| *e == MeshEvent::default() && r.handler == 0));
    }
}
