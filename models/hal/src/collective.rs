//! # A collective's TOP_SPs: trigger addresses, leader and reporter
//!
//! The host runtime's view of the TOP_SPs one executable uses (seed 001
//! §3b, §6b; DIGEST §3, §6):
//! - each stream's DMA tail-pointer write targets the INC slot of its TOP_SP's
//!   EVT_SEM ([`topsp_trigger_addrs`], `enc_get_topsp_trigger_addrs`), at
//!   most `MAX_TOP_SP_PER_MLA` of them (the generation's TOP_SP count);
//! - one TOP_SP of a group is the leader and posts completion: its cc_op
//!   entries carry the reporter bit ([`TopSpRole`], `encd_get_topsp_is_leader`,
//!   `encd_get_topsp_cc_op_reports_count`, `encd_get_topsp_expected_notif_count`);
//! - every completion address of the group shares the same semaphore bits
//!   ([`check_group`] refuses a group that breaks a rule, naming it).
//!
//! The seeds give the functions' names, the leader byte at the head of the
//! per-TOP_SP struct and the assert on `MAX_TOP_SP_PER_MLA`; what the two
//! counts count is `[D]`: reports = the cc_op entries with the reporter bit,
//! expected notifications = the reports of the leader (a non-leader posts
//! none).

use crate::arch::ArchCtx;
use crate::error::{HalError, Result};
use crate::top_sp;
use tpb_ncfw::spad::{sema_bits, SlotWord, SpadCtrlEntry};

/// One stream of an executable: the TOP_SP that runs it and the semaphore
/// its DMA legs increment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamTrigger {
    pub sp_id: u32,
    pub sema_idx: u32,
}

/// `enc_get_topsp_trigger_addrs`: the trigger address of each stream, in
/// order. More streams than `MAX_TOP_SP_PER_MLA` (the generation's TOP_SP
/// count), an unknown TOP_SP or semaphore is an error and nothing is returned.
pub fn topsp_trigger_addrs(ctx: &ArchCtx, streams: &[StreamTrigger]) -> Result<Vec<u64>> {
    let max = ctx.params().top_sp.count;
    if streams.len() as u64 > u64::from(max) {
        return Err(HalError::OutOfRange { what: "streams (MAX_TOP_SP_PER_MLA)", value: streams.len() as u64, limit: u64::from(max) + 1 });
    }
    streams.iter().map(|s| top_sp::get_trigger_addr(ctx, s.sp_id, s.sema_idx)).collect()
}

/// A TOP_SP's part in a collective: the leader flag of its per-TOP_SP
/// struct and the program it runs (CTRL entries, SLOT words).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopSpRole {
    pub leader: bool,
    pub ctrl: Vec<SpadCtrlEntry>,
    pub slot: Vec<SlotWord>,
}

impl TopSpRole {
    /// `encd_get_topsp_cc_op_reports_count`: active cc_op entries with the reporter bit.
    pub fn cc_op_reports_count(&self) -> u32 {
        self.ctrl.iter().filter(|e| e.cc_op && e.reporter).count() as u32
    }

    /// `encd_get_topsp_expected_notif_count`: the completions the host
    /// waits for from this TOP_SP (the leader's reports; 0 for the others).
    pub fn expected_notif_count(&self) -> u32 {
        if self.leader {
            self.cc_op_reports_count()
        } else {
            0
        }
    }

    /// The completion addresses of the SLOT program's END marks.
    pub fn completion_addrs(&self) -> impl Iterator<Item = u64> + '_ {
        self.slot
            .iter()
            .flat_map(|w| match w {
                SlotWord::End { compl_addrs } => compl_addrs.as_slice(),
                _ => &[],
            })
            .copied()
    }
}

/// `encd_get_topsp_is_leader`: the leader flag of TOP_SP `idx` of the group;
/// an index past the group is an error (the seeds assert).
pub fn topsp_is_leader(group: &[TopSpRole], idx: u32) -> Result<bool> {
    group.get(idx as usize).map(|r| r.leader).ok_or(HalError::OutOfRange { what: "TOP_SP index (num_topsp)", value: u64::from(idx), limit: group.len() as u64 })
}

/// The rules of a group of TOP_SPs running one collective:
/// - exactly one leader;
/// - only the leader has reporter entries, and it has at least one;
/// - every completion address of the group has the same semaphore bits.
///
/// The first broken rule is the error, naming the TOP_SP.
pub fn check_group(group: &[TopSpRole]) -> Result<()> {
    let leaders: Vec<usize> = group.iter().enumerate().filter(|(_, r)| r.leader).map(|(i, _)| i).collect();
    if leaders.len() != 1 {
        return Err(HalError::Invalid(format!("a collective's TOP_SPs need exactly one leader, found {} ({leaders:?})", leaders.len())));
    }
    for (i, r) in group.iter().enumerate() {
        let reports = r.cc_op_reports_count();
        if r.leader && reports == 0 {
            return Err(HalError::Invalid(format!("TOP_SP #{i} is the leader but no cc_op entry of it has the reporter bit")));
        }
        if !r.leader && reports != 0 {
            return Err(HalError::Invalid(format!("TOP_SP #{i} is not the leader but {reports} cc_op entries of it have the reporter bit")));
        }
    }
    let mut first: Option<(usize, u64)> = None;
    for (i, r) in group.iter().enumerate() {
        for a in r.completion_addrs() {
            match first {
                None => first = Some((i, a)),
                Some((j, b)) if sema_bits(a) != sema_bits(b) => {
                    return Err(HalError::Invalid(format!(
                        "completion address {a:#x} of TOP_SP #{i} has semaphore bits {:#x}, {b:#x} of TOP_SP #{j} has {:#x}: all must share them",
                        sema_bits(a),
                        sema_bits(b)
                    )));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_ncfw::spad::{AlgType, CcOpTarget};
    use tpb_regmap::Arch;

    fn ctx(arch: Arch) -> ArchCtx {
        ArchCtx::new(arch, tpb_regmap::builtin(arch).unwrap())
    }

    /// The BAR-mapped alias of a trigger: a host write there increments the
    /// same TOP_SP semaphore the DMA's tail-pointer write does.
    #[test]
    fn the_host_alias_of_a_trigger_increments_that_semaphore() {
        use crate::{Event, Mmio, RegFileModel};
        for arch in Arch::ALL {
            let c = ctx(arch);
            let a = top_sp::get_trigger_host_addr(&c, 0, 9, 0).unwrap();
            let mut m = RegFileModel::new(c.map.clone());
            m.write32(a, 1).unwrap();
            assert!(
                m.events().iter().any(|e| matches!(e, Event::Semaphore { engine, op: tpb_regmap::WindowOp::Inc, index: 9, before: 0, after: 1 } if engine == "top_sp")),
                "{arch:?}: {:?}",
                m.events()
            );
            assert_eq!(top_sp::get_trigger_host_addr(&c, 0, 9, 0x7f00_0000_0000).unwrap(), 0x7f00_0000_0000 + a);
            let n = c.params().top_sp.count;
            assert!(top_sp::get_trigger_host_addr(&c, n, 0, 0).unwrap_err().to_string().contains("TOP_SP id"));
            assert!(top_sp::get_trigger_host_addr(&c, 0, 256, 0).unwrap_err().to_string().contains("semaphore index"));
            assert!(top_sp::get_trigger_host_addr(&c, 0, 0, u64::MAX).is_err());
        }
    }

    fn entry(reporter: bool) -> SpadCtrlEntry {
        SpadCtrlEntry {
            cc_op: true,
            algo_type: AlgType::Ring,
            algo_sub_type: 0,
            trigger_next: false,
            reporter,
            ring_wait_complete: false,
            ring_send_complete: false,
            safe_mode: false,
            unique_tensors: false,
            target: CcOpTarget::ChannelList(1),
        }
    }

    fn role(leader: bool, reports: usize, compl: &[u64]) -> TopSpRole {
        TopSpRole { leader, ctrl: (0..2).map(|k| entry(k < reports)).collect(), slot: vec![SlotWord::End { compl_addrs: compl.to_vec() }] }
    }

    #[test]
    fn trigger_addrs_are_each_streams_inc_slot_and_bounded_by_the_topsp_count() {
        let c = ctx(Arch::Cayman);
        let s = [StreamTrigger { sp_id: 0, sema_idx: 3 }, StreamTrigger { sp_id: 9, sema_idx: 0 }];
        let got = topsp_trigger_addrs(&c, &s).unwrap();
        // DIGEST §3: sp_base[0] = 0x82_8000_0000, sp_base[9] = 0x8082_c000_0000; INC at +0x1800.
        assert_eq!(got, vec![0x82_8000_0000 + 0x1800 + 12, 0x8082_c000_0000 + 0x1800]);
        let sixteen: Vec<_> = (0..16).map(|sp_id| StreamTrigger { sp_id, sema_idx: 0 }).collect();
        assert_eq!(topsp_trigger_addrs(&c, &sixteen).unwrap().len(), 16);
        let seventeen: Vec<_> = (0..17).map(|i| StreamTrigger { sp_id: i % 16, sema_idx: 0 }).collect();
        let e = topsp_trigger_addrs(&c, &seventeen).unwrap_err();
        assert!(e.to_string().contains("MAX_TOP_SP_PER_MLA"), "{e}");
        let sunda = ctx(Arch::Sunda);
        let seven: Vec<_> = (0..7).map(|_| StreamTrigger { sp_id: 0, sema_idx: 0 }).collect();
        assert!(topsp_trigger_addrs(&sunda, &seven).is_err(), "SUNDA has 6 TOP_SPs");
        assert!(topsp_trigger_addrs(&c, &[StreamTrigger { sp_id: 16, sema_idx: 0 }]).is_err());
        assert!(topsp_trigger_addrs(&c, &[StreamTrigger { sp_id: 0, sema_idx: 256 }]).is_err());
    }

    #[test]
    fn leader_reports_and_notification_counts() {
        let g = vec![role(false, 0, &[]), role(true, 2, &[0x8280001808]), role(false, 0, &[])];
        assert!(!topsp_is_leader(&g, 0).unwrap());
        assert!(topsp_is_leader(&g, 1).unwrap());
        assert!(topsp_is_leader(&g, 3).is_err());
        assert_eq!(g[1].cc_op_reports_count(), 2);
        assert_eq!(g[1].expected_notif_count(), 2);
        assert_eq!(g[0].expected_notif_count(), 0);
        check_group(&g).unwrap();
    }

    #[test]
    fn a_group_that_breaks_a_rule_is_refused_naming_it() {
        let msg = |g: &[TopSpRole]| check_group(g).unwrap_err().to_string();
        assert!(msg(&[role(false, 0, &[]), role(false, 0, &[])]).contains("exactly one leader, found 0"));
        assert!(msg(&[role(true, 1, &[]), role(true, 1, &[])]).contains("exactly one leader, found 2"));
        assert!(msg(&[role(true, 0, &[])]).contains("TOP_SP #0 is the leader but no cc_op"));
        assert!(msg(&[role(true, 1, &[]), role(false, 1, &[])]).contains("TOP_SP #1 is not the leader"));
        // Semaphore bits: (addr >> 2) & 0xff; 0x...1808 → 2, 0x...180c → 3.
        let m = msg(&[role(true, 1, &[0x8280001808]), role(false, 0, &[0x82c000180c])]);
        assert!(m.contains("TOP_SP #1") && m.contains("all must share them"), "{m}");
        check_group(&[role(true, 1, &[0x8280001808]), role(false, 0, &[0x82c0001808])]).unwrap();
    }
}
