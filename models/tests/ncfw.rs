//! NCFW / TOP_SP structures: exact device bytes, round trips (property
//! tests), the documented bit conflict, layouts per generation.

use proptest::prelude::*;
use tpb_models::ncfw::mesh::*;
use tpb_models::ncfw::spad::*;
use tpb_models::ncfw::PackError;
use tpb_models::regmap::builtin_all;

fn entry(algo_type: AlgType, target: CcOpTarget) -> SpadCtrlEntry {
    SpadCtrlEntry {
        cc_op: true,
        algo_type,
        algo_sub_type: 0,
        trigger_next: false,
        reporter: false,
        ring_wait_complete: false,
        ring_send_complete: false,
        safe_mode: false,
        unique_tensors: false,
        target,
    }
}

#[test]
fn header_word_is_the_packers() {
    let mut e = entry(AlgType::Kangaring, CcOpTarget::ChannelList(0));
    e.algo_sub_type = 5;
    e.trigger_next = true;
    assert_eq!(e.header_word(), (1 << 15) | (5 << 12) | (3 << 8) | 1);
    let b = e.pack().unwrap();
    assert_eq!(&b[..2], &e.header_word().to_le_bytes(), "byte 0 bit 0 cc_op, byte 1 algo_type/sub_type/trigger_next");
    assert_eq!(b[1], 0xd3);
}

/// DIGEST §6 CONFLICT: the model follows the struct declaration.
#[test]
fn byte2_follows_the_struct_declaration() {
    let mut e = entry(AlgType::Ring, CcOpTarget::ChannelList(0));
    e.ring_wait_complete = true;
    assert_eq!(e.pack().unwrap()[2], 0b0000_0010, "ring_wait_complete is bit 1 (the packer would put it at bit 2)");
    let mut e = entry(AlgType::Ring, CcOpTarget::ChannelList(0));
    e.ring_send_complete = true;
    assert_eq!(e.pack().unwrap()[2], 0b0000_0100, "ring_send_complete is bit 2 (the packer: bit 1)");
    let mut e = entry(AlgType::Ring, CcOpTarget::ChannelList(0));
    e.safe_mode = true;
    assert_eq!(e.pack().unwrap()[2], 0b0000_1000, "bit 3 is safe_mode (the packer calls it permute_chain)");
    e.safe_mode = false;
    e.reporter = true;
    e.unique_tensors = true;
    assert_eq!(e.pack().unwrap()[2], 0b0001_0001);
}

#[test]
fn union_follows_the_algo_type() {
    let ring = entry(AlgType::Ring, CcOpTarget::ChannelList(0x8000_0021)).pack().unwrap();
    assert_eq!(&ring[4..], &[0x21, 0, 0, 0x80]);
    let mesh = entry(AlgType::BwOptMesh, CcOpTarget::Mesh { sema_shift_offset: 0x0102, sema_mask: 0x0304 }).pack().unwrap();
    assert_eq!(&mesh[4..], &[0x02, 0x01, 0x04, 0x03]);
    let e = entry(AlgType::Mesh, CcOpTarget::ChannelList(1)).pack().unwrap_err();
    assert!(e.to_string().contains("cannot carry"), "{e}");
    for t in AlgType::ALL {
        assert_eq!(t.is_mesh(), [2, 6, 8, 9, 10].contains(&(t as u8)), "{t:?}");
    }
}

#[test]
fn bad_entry_bytes_are_refused() {
    assert_eq!(SpadCtrlEntry::unpack(&[0; 7]).unwrap_err(), PackError::Length { what: "spad_ctrl_entry", expected: 8, got: 7 });
    assert!(SpadCtrlEntry::unpack(&[1, 0x0c, 0, 0, 0, 0, 0, 0]).unwrap_err().to_string().contains("algo_type 12"));
    assert!(SpadCtrlEntry::unpack(&[1, 0, 0, 1, 0, 0, 0, 0]).unwrap_err().to_string().contains("reserved"));
    assert!(SpadCtrlEntry::unpack(&[1, 0, 0x20, 0, 0, 0, 0, 0]).unwrap_err().to_string().contains("reserved"));
    let mut e = entry(AlgType::Ring, CcOpTarget::ChannelList(0));
    e.algo_sub_type = 8;
    assert!(e.pack().is_err());
}

#[test]
fn enum_values_are_the_seeds() {
    let names: Vec<(u8, String)> = AlgType::ALL.iter().map(|t| (*t as u8, serde_json::to_string(t).unwrap())).collect();
    assert_eq!(names[2], (2, "\"MESH\"".into()));
    assert_eq!(names[10], (10, "\"BW_OPT_MESH\"".into()));
    assert_eq!(names[11], (11, "\"INVALID\"".into()));
    assert_eq!(MeshSubType::from_byte(3), Some(MeshSubType::MeshSwitch));
    assert_eq!(MeshSubType::from_byte(5), None);
    assert_eq!(MeshEventType(8).name(), Some("EVT_REDUCE_COPY"));
    assert_eq!(MeshEventType(13).name(), Some("EVT_LOCAL_AND_POD_GRP_BRDCST_2"));
    assert_eq!(MeshEventType(2).name(), None, "not named by the seeds");
    assert_eq!(MeshEventType(15).band(), EventBand::A2a);
    assert_eq!(MeshEventType(52).band(), EventBand::Rdh);
    assert_eq!(MeshEventType(53).band(), EventBand::Other);
}

#[test]
fn channel_list_ors_the_owned_channels() {
    assert_eq!(channel_list(&[(0, 1), (1, 0), (5, 1), (31, 1)], 1), 0x8000_0021);
}

/// Channels dealt round-robin to 4 TOP_SPs: completion passes up the
/// chain 0 → 1 → 2 → 3 (a neighbour channel of a higher owner: send; of a
/// lower one: wait); one TOP_SP alone neither sends nor waits.
#[test]
fn ring_complete_flags_chain_the_channel_owners_by_index() {
    let dealt: Vec<(u32, u32)> = (0..8).map(|c| (c, c % 4)).collect();
    let flags: Vec<(bool, bool)> = (0..4).map(|sp| ring_complete_flags(&dealt, sp)).collect();
    assert_eq!(flags, vec![(true, false), (true, true), (true, true), (false, true)]);
    assert_eq!(ring_complete_flags(&[(0, 0), (1, 0), (2, 0)], 0), (false, false));
    assert_eq!(ring_complete_flags(&[(3, 2), (9, 1)], 2), (false, false), "channels 3 and 9 are no neighbours");
}

#[test]
fn end_marks_are_checked() {
    let e = pack_slot(&[SlotWord::End { compl_addrs: vec![] }]).unwrap_err();
    assert!(e.to_string().contains("0 completion addresses"), "{e}");
    let e = pack_slot(&[SlotWord::End { compl_addrs: vec![0x1810; TPB_COMPL_ADDR_MAX_NUM + 1] }]).unwrap_err();
    assert!(e.to_string().contains("5 completion addresses"), "{e}");
    let e = pack_slot(&[SlotWord::End { compl_addrs: vec![0x8280001810, 0x82c0001814] }]).unwrap_err();
    assert!(e.to_string().contains("semaphore bits"), "{e}");
    pack_slot(&[SlotWord::End { compl_addrs: vec![0x8280001810, 0x82c0001810] }]).unwrap();
    assert!(unpack_slot(&[0; 64]).unwrap_err().to_string().contains("no END mark"));
    assert!(unpack_slot(&[9, 0, 0, 0, 0, 0, 0, 0]).unwrap_err().to_string().contains("kind 9"));
}

#[test]
fn mesh_event_field_offsets_are_exact() {
    let ev = MeshEvent {
        dma_apb_bcast: [DmaApbBcast { m2s_tail_ptr: 0x1111, s2m_tail_ptr: 0x2222, mask: 0x3333 }, DmaApbBcast { m2s_tail_ptr: 0x4444, s2m_tail_ptr: 0x5555, mask: 0x6666 }],
        direct_trigger_sema: [0x7777, 0x8888, 0x9999],
        event_wait_sema: 0xaaaa,
        wait_val: 0xbbbb,
        event_type: 0xc1,
        dma_trigger: 0xc2,
        direct_trigger: 0xc3,
        wait_event: 0xc4,
    };
    let b = ev.pack();
    let u16at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    for (off, v) in [
        (0x00, 0x1111),
        (0x08, 0x2222),
        (0x10, 0x3333),
        (0x14, 0x4444),
        (0x1c, 0x5555),
        (0x24, 0x6666),
        (0x28, 0x7777),
        (0x30, 0x8888),
        (0x38, 0x9999),
        (0x40, 0xaaaa),
        (0x48, 0xbbbb),
    ] {
        assert_eq!(u16at(off), v, "offset {off:#x}");
    }
    assert_eq!(&b[0x4c..], &[0xc1, 0xc2, 0xc3, 0xc4]);
    assert_eq!(MeshEvent::unpack(&b).unwrap(), ev);
    assert!(MeshEvent::unpack(&b[..79]).is_err());
    let json = serde_json::to_string(&ev).unwrap();
    assert!(json.contains("\"event_wait_sema\":43690") && json.contains("\"m2s_tail_ptr\""), "{json}");
    assert_eq!(serde_json::from_str::<MeshEvent>(&json).unwrap(), ev);
}

#[test]
fn algo_configs_layout_per_generation() {
    for m in builtin_all().unwrap() {
        let l = AlgoConfigsLayout::new(m.params.mesh_events_capacity);
        let want = if m.params.version == 2 { (50, 0x2220) } else { (108, 0x3440) };
        assert_eq!((l.mesh_events, l.hierarchical), want, "{}", m.arch);
        assert_eq!(l.event(0), Some(0x1280));
        assert_eq!(l.event(want.0 - 1), Some(want.1 - 80));
        assert_eq!(l.event(want.0), None);
    }
    assert_eq!(RING_CHANNEL_STRIDE, 148);
    assert_eq!((algo_ctx::HIER_RUN_STATE, algo_ctx::MESH_EVENT_INDEX), (0x200, 0x204));
}

#[test]
fn soc_address_readings() {
    let a = ChipAddr { local: 0x1234, die: true, chip_id: 0x2a, id_valid: true };
    let v = a.encode().unwrap();
    assert_eq!(v, 0x1234 | 1 << 47 | 0x2a << 48 | 1 << 54);
    assert_eq!(ChipAddr::decode(v).unwrap(), a);
    assert!(ChipAddr::decode(1 << 55).is_err());
    assert!(ChipAddr { local: 1 << 47, die: false, chip_id: 0, id_valid: false }.encode().is_err());
    let n = NeighborAddr::decode(1 << 50 | 1 << 52 | 1 << 54 | 0x80);
    assert_eq!((n.exit_seng, n.exit_die, n.neighbor_route, n.id_valid, n.local), (true, false, true, true, 0x80));
}

fn arb_entry() -> impl Strategy<Value = SpadCtrlEntry> {
    (0u8..12, 0u8..8, any::<[bool; 7]>(), any::<u32>(), any::<u16>(), any::<u16>()).prop_map(|(t, sub, f, cl, so, sm)| {
        let algo_type = AlgType::from_byte(t).unwrap();
        SpadCtrlEntry {
            cc_op: f[0],
            algo_type,
            algo_sub_type: sub,
            trigger_next: f[1],
            reporter: f[2],
            ring_wait_complete: f[3],
            ring_send_complete: f[4],
            safe_mode: f[5],
            unique_tensors: f[6],
            target: if algo_type.is_mesh() { CcOpTarget::Mesh { sema_shift_offset: so, sema_mask: sm } } else { CcOpTarget::ChannelList(cl) },
        }
    })
}

fn arb_bcast() -> impl Strategy<Value = DmaApbBcast> {
    (any::<u64>(), any::<u64>(), any::<u32>()).prop_map(|(a, b, m)| DmaApbBcast { m2s_tail_ptr: a, s2m_tail_ptr: b, mask: m })
}

fn arb_slot() -> impl Strategy<Value = Vec<SlotWord>> {
    let step = (any::<u16>(), any::<u16>(), any::<u8>()).prop_map(|(m2s, s2m, repeat)| SlotWord::Step { m2s, s2m, repeat });
    let word = prop_oneof![step, Just(SlotWord::Continue)];
    (proptest::collection::vec(word, 0..20), 0u64..256, proptest::collection::vec(any::<u32>(), 1..=TPB_COMPL_ADDR_MAX_NUM)).prop_map(|(mut w, sema, bases)| {
        let compl_addrs = bases.into_iter().map(|b| ((b as u64) << 12) | 0x800 | (sema << 2)).collect();
        w.push(SlotWord::End { compl_addrs });
        w
    })
}

proptest! {
    #[test]
    fn spad_entry_round_trips(e in arb_entry()) {
        let b = e.pack().unwrap();
        prop_assert_eq!(SpadCtrlEntry::unpack(&b).unwrap(), e);
        let j = serde_json::to_string(&e).unwrap();
        prop_assert_eq!(serde_json::from_str::<SpadCtrlEntry>(&j).unwrap(), e);
    }

    #[test]
    fn slot_program_round_trips(w in arb_slot(), pad in 0usize..64) {
        let mut b = pack_slot(&w).unwrap();
        b.extend(std::iter::repeat_n(0, pad * 8));
        prop_assert_eq!(unpack_slot(&b).unwrap(), w);
    }

    #[test]
    fn bcast_round_trips(x in arb_bcast()) {
        prop_assert_eq!(DmaApbBcast::unpack(&x.pack()).unwrap(), x);
    }

    #[test]
    fn mesh_event_round_trips(
        legs in [arb_bcast(), arb_bcast()],
        semas in any::<[u64; 3]>(), wait in any::<u64>(), val in any::<u32>(), flags in any::<[u8; 4]>()
    ) {
        let ev = MeshEvent { dma_apb_bcast: legs, direct_trigger_sema: semas, event_wait_sema: wait, wait_val: val,
            event_type: flags[0], dma_trigger: flags[1], direct_trigger: flags[2], wait_event: flags[3] };
        prop_assert_eq!(MeshEvent::unpack(&ev.pack()).unwrap(), ev);
        let j = serde_json::to_string(&ev).unwrap();
        prop_assert_eq!(serde_json::from_str::<MeshEvent>(&j).unwrap(), ev);
    }

    #[test]
    fn chip_addr_round_trips(local in 0u64..(1 << 47), die in any::<bool>(), chip in 0u8..64, valid in any::<bool>()) {
        let a = ChipAddr { local, die, chip_id: chip, id_valid: valid };
        prop_assert_eq!(ChipAddr::decode(a.encode().unwrap()).unwrap(), a);
    }

    #[test]
    fn cam_record_round_trips(valid in any::<bool>(), k in any::<[u8; 4]>(), idx in any::<u16>()) {
        let c = tpb_models::hal::CamRecord { valid, key_opcode: k[0], key_func: k[1], mask_opcode: k[2], mask_func: k[3], table_index: idx };
        prop_assert_eq!(tpb_models::hal::CamRecord::unpack(&c.pack()).unwrap(), c);
    }
}
