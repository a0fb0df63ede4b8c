//! The seeds' HAL names (`tpb_hal::seed_names`): every name the module lists
//! is a function that does what the generic HAL does on its generation
//! (the same BAR0 accesses, the same answers), the list is the module's
//! whole, and docs/hal.md's table shows each name and each one not modelled.

use std::collections::BTreeSet;
use tpb_models::hal::seed_names::{self as s, NOT_MODELLED, SEED_NAMES};
use tpb_models::hal::*;
use tpb_models::regmap::{builtin, Arch};

fn bar0(arch: Arch) -> Recorder<RegFileModel> {
    let map = builtin(arch).unwrap();
    Recorder::new(RegFileModel::new(map.clone()), map)
}

/// What a call did: its writes (address, register, value), and its answer.
type Outcome = (Vec<(u64, String, u32)>, String);

/// The writes a call makes on a fresh BAR0 of `arch`, and its answer.
fn writes(arch: Arch, f: impl FnOnce(&mut Recorder<RegFileModel>) -> String) -> Outcome {
    let mut m = bar0(arch);
    let answer = f(&mut m);
    (m.writes().into_iter().map(|(a, n, v)| (a, n.to_string(), v)).collect(), answer)
}

fn ok<T: std::fmt::Debug>(r: Result<T>) -> String {
    format!("{r:?}")
}

/// Call the seed-named function `name` and the generic path it stands
/// for; both outcomes (writes, answer).
fn both(name: &str) -> [Outcome; 2] {
    let hal = |a: Arch| Hal::for_arch(a).unwrap();
    let imgs = UcodeImages { iram: vec![1; 64], dram: vec![2; 32] };
    let cfg = StpbConfig::new(UcodeImages { iram: vec![3; 16], dram: vec![0; 16] }, imgs.clone());
    let file = FileIoTable::default();
    let (c, m, su) = (Arch::Cayman, Arch::Mariana, Arch::Sunda);
    match name {
        "hal_get_q7_params" => [writes(c, |_| ok(s::hal_get_q7_params(&hal(c), 5))), writes(c, |_| ok(hal(c).get_q7_params(5)))],
        "hal_get_q7_params_sunda" => [writes(su, |_| ok(s::hal_get_q7_params_sunda(2))), writes(su, |_| ok(hal(su).get_q7_params(2)))],
        "hal_get_q7_params_cayman" => [writes(c, |_| ok(s::hal_get_q7_params_cayman(5))), writes(c, |_| ok(hal(c).get_q7_params(5)))],
        "hal_get_q7_params_mariana" => [writes(m, |_| ok(s::hal_get_q7_params_mariana(2))), writes(m, |_| ok(hal(m).get_q7_params(2)))],
        "hal_q7_ucode_eng_init" => [writes(c, |b| ok(s::hal_q7_ucode_eng_init(&hal(c), b, 0, &imgs, None, 0))), writes(c, |b| ok(hal(c).q7_ucode_eng_init(b, 0, &imgs, None, 0)))],
        "hal_q7_ucode_eng_init_sunda" => {
            [writes(su, |b| ok(s::hal_q7_ucode_eng_init_sunda(b, 0, &imgs, None, 0))), writes(su, |b| ok(hal(su).q7_ucode_eng_init(b, 0, &imgs, None, 0)))]
        }
        "hal_q7_ucode_eng_init_cayman" => {
            [writes(c, |b| ok(s::hal_q7_ucode_eng_init_cayman(b, 0, &imgs, None, 1))), writes(c, |b| ok(hal(c).q7_ucode_eng_init(b, 0, &imgs, None, 1)))]
        }
        "hal_q7_ucode_eng_init_mariana" => {
            [writes(m, |b| ok(s::hal_q7_ucode_eng_init_mariana(b, 0, &imgs, None, 0))), writes(m, |b| ok(hal(m).q7_ucode_eng_init(b, 0, &imgs, None, 0)))]
        }
        "hal_q7_swap_table" => [writes(su, |b| ok(s::hal_q7_swap_table(&hal(su), b, [1, 2, 3]))), writes(su, |b| ok(hal(su).q7_swap_table(b, [1, 2, 3])))],
        "hal_q7_swap_table_sunda" => [writes(su, |b| ok(s::hal_q7_swap_table_sunda(b, [1, 2, 3]))), writes(su, |b| ok(hal(su).q7_swap_table(b, [1, 2, 3])))],
        "hal_q7_swap_table_cayman" => [writes(c, |b| ok(s::hal_q7_swap_table_cayman(b, [1, 2, 3]))), writes(c, |b| ok(hal(c).q7_swap_table(b, [1, 2, 3])))],
        "hal_q7_swap_table_get_register_offsets" => {
            [writes(su, |_| ok(s::hal_q7_swap_table_get_register_offsets(&hal(su)))), writes(su, |_| ok(hal(su).q7_swap_table_get_register_offsets()))]
        }
        "hal_q7_swap_table_get_register_offsets_sunda" => {
            [writes(su, |_| ok(s::hal_q7_swap_table_get_register_offsets_sunda())), writes(su, |_| ok(hal(su).q7_swap_table_get_register_offsets()))]
        }
        "hal_q7_swap_table_get_register_offsets_cayman" => {
            [writes(c, |_| ok(s::hal_q7_swap_table_get_register_offsets_cayman())), writes(c, |_| ok(hal(c).q7_swap_table_get_register_offsets()))]
        }
        "hal_q7_swap_file_io_table" => [writes(su, |b| ok(s::hal_q7_swap_file_io_table(&hal(su), b, &file))), writes(su, |b| ok(hal(su).q7_swap_file_io_table(b, &file)))],
        "hal_q7_swap_file_io_table_sunda" => [writes(su, |b| ok(s::hal_q7_swap_file_io_table_sunda(b, &file))), writes(su, |b| ok(hal(su).q7_swap_file_io_table(b, &file)))],
        "hal_q7_swap_file_io_table_cayman" => [writes(c, |b| ok(s::hal_q7_swap_file_io_table_cayman(b, &file))), writes(c, |b| ok(hal(c).q7_swap_file_io_table(b, &file)))],
        "hal_stpb_init" => [writes(m, |b| ok(s::hal_stpb_init(&hal(m), b, &cfg, None))), writes(m, |b| ok(hal(m).stpb_init(b, &cfg, None)))],
        "hal_notific_init" => {
            // The first three writes of stpb_init.
            let mut whole = writes(c, |b| ok(hal(c).stpb_init(b, &cfg, None)));
            whole.0.truncate(3);
            whole.1 = ok(Ok(()));
            [writes(c, |b| ok(s::hal_notific_init(&hal(c), b, &cfg))), whole]
        }
        "hal_stpb_pooling_init" => [writes(c, |b| ok(s::hal_stpb_pooling_init(&hal(c), b, &cfg.pooling, None))), writes(c, |b| ok(hal(c).pooling_init(b, &cfg.pooling, None)))],
        "hal_stpb_sunda_pooling_init" => {
            [writes(su, |b| ok(s::hal_stpb_sunda_pooling_init(b, &cfg.pooling, None))), writes(su, |b| ok(hal(su).pooling_init(b, &cfg.pooling, None)))]
        }
        "hal_stpb_cayman_pooling_init" => {
            [writes(c, |b| ok(s::hal_stpb_cayman_pooling_init(b, &cfg.pooling, None))), writes(c, |b| ok(hal(c).pooling_init(b, &cfg.pooling, None)))]
        }
        "hal_stpb_mariana_pooling_init" => {
            [writes(m, |b| ok(s::hal_stpb_mariana_pooling_init(b, &cfg.pooling, None))), writes(m, |b| ok(hal(m).pooling_init(b, &cfg.pooling, None)))]
        }
        "hal_stpb_sunda_pooling_release_seq_run_stall" => {
            [writes(su, |b| ok(s::hal_stpb_sunda_pooling_release_seq_run_stall(b))), writes(su, |b| ok(hal(su).release_nx(b, tpb_models::regmap::Engine::Pool)))]
        }
        "hal_stpb_sunda_pooling_release_eng_run_stall" => [writes(su, |b| ok(s::hal_stpb_sunda_pooling_release_eng_run_stall(b))), writes(su, |_| ok(Ok(())))],
        "hal_arch_sunda_write_tpb_nx_local_reg_release_run_stall" => {
            let base = hal(su).get_xt_local_reg_offset(2, 1).unwrap();
            [
                writes(su, |b| ok(s::hal_arch_sunda_write_tpb_nx_local_reg_release_run_stall(b, base, 0))),
                writes(su, |b| ok(hal(su).release_nx(b, tpb_models::regmap::Engine::Pool))),
            ]
        }
        "hal_arch_sunda_write_tpb_xt_local_reg_q7_release_run_stall" => {
            [writes(su, |b| ok(s::hal_arch_sunda_write_tpb_xt_local_reg_q7_release_run_stall(b, 0x2860000, 0))), writes(su, |_| ok(Ok(())))]
        }
        "hal_arch_get_xt_local_reg_offset" => {
            [writes(c, |_| ok(s::hal_arch_get_xt_local_reg_offset(&hal(c), 0x100, 2, 1))), writes(c, |_| ok(hal(c).get_xt_local_reg_offset(2, 1).map(|x| x + 0x100)))]
        }
        "hal_arch_sunda_get_xt_local_reg_offset" => {
            [writes(su, |_| ok(s::hal_arch_sunda_get_xt_local_reg_offset(0, 5, 0))), writes(su, |_| ok(hal(su).get_xt_local_reg_offset(5, 0)))]
        }
        "hal_arch_cayman_get_xt_local_reg_offset" => {
            [writes(c, |_| ok(s::hal_arch_cayman_get_xt_local_reg_offset(0, 4, 0))), writes(c, |_| ok(hal(c).get_xt_local_reg_offset(4, 0)))]
        }
        "hal_get_eng_hw_decode_table_params_cayman" => {
            [writes(c, |_| ok(s::hal_get_eng_hw_decode_table_params_cayman())), writes(c, |_| ok(hal(c).get_eng_hw_decode_table_params()))]
        }
        "get_seq_params_sunda" => [writes(su, |_| ok(s::get_seq_params_sunda())), writes(su, |_| ok(hal(su).get_seq_params()))],
        "hal_sp_topsp_set_host_trigger" => [writes(m, |b| ok(s::hal_sp_topsp_set_host_trigger(&hal(m), b))), writes(m, |b| ok(hal(m).topsp_set_host_trigger(b)))],
        "hal_sp_topsp_set_host_trigger_cayman" => [writes(c, |b| ok(s::hal_sp_topsp_set_host_trigger_cayman(b))), writes(c, |b| ok(hal(c).topsp_set_host_trigger(b)))],
        "set_host_trigger_sunda" => [writes(su, |b| ok(s::set_host_trigger_sunda(b))), writes(su, |b| ok(hal(su).topsp_set_host_trigger(b)))],
        "reg_sunda_write_top_sp_nx_local_reg_set_host_trigger" => {
            [writes(su, |b| ok(s::reg_sunda_write_top_sp_nx_local_reg_set_host_trigger(b, 0x60000, 1))), writes(su, |b| ok(hal(su).topsp_set_host_trigger(b)))]
        }
        "hal_sp_topsp_get_host_trigger_reg_offset" => {
            [writes(c, |_| ok(s::hal_sp_topsp_get_host_trigger_reg_offset(&hal(c)))), writes(c, |_| ok(hal(c).topsp_get_host_trigger_reg_offset()))]
        }
        "hal_sp_topsp_set_init_signal" => [writes(c, |b| ok(s::hal_sp_topsp_set_init_signal(&hal(c), b))), writes(c, |b| ok(hal(c).topsp_set_init_signal(b)))],
        "hal_sp_topsp_set_tsync_signal" => [writes(m, |b| ok(s::hal_sp_topsp_set_tsync_signal(&hal(m), b))), writes(m, |b| ok(hal(m).topsp_set_tsync_signal(b)))],
        "get_tpb_addr" => [writes(c, |_| ok(s::get_tpb_addr(&hal(c), 0))), writes(c, |_| ok(hal(c).tpb_addr(0)))],
        other => panic!("no call for the seed-named function {other}: add it here"),
    }
}

#[test]
fn every_seed_name_does_what_the_generic_hal_does() {
    let mut names = BTreeSet::new();
    for n in SEED_NAMES {
        assert!(names.insert(n.function), "{} listed twice", n.function);
        assert!(n.cite.contains('§'), "{}: cite a seed section", n.seed);
        let [seed, generic] = both(n.function);
        assert_eq!(seed, generic, "{} ({}) against the generic HAL", n.seed, n.function);
        println!("{:<62} -> {}: {} writes, {}", n.seed, n.function, seed.0.len(), seed.1);
    }
    assert!(SEED_NAMES.len() >= 40, "{}", SEED_NAMES.len());
    // A name the seeds give that is refused here says so: SUNDA's owner 5.
    assert!(s::hal_get_q7_params_sunda(5).is_err());
    assert!(s::hal_get_q7_params_cayman(5).unwrap().num_q7 == 4);
}

#[test]
fn docs_hal_md_shows_every_seed_name_and_every_one_not_modelled() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/hal.md")).unwrap();
    for n in SEED_NAMES {
        let row = format!("| `{}` | `{}` |", n.seed, n.function);
        assert!(page.contains(&row), "docs/hal.md has no row {row}");
    }
    for (name, _) in NOT_MODELLED {
        assert!(page.contains(&format!("| `{name}` |")), "docs/hal.md does not say {name} is not modelled");
    }
    // And nothing else: the table's rows are the lists'.
    let rows = page.lines().filter(|l| l.starts_with("| `") && l.split('|').count() >= 4).count();
    assert_eq!(rows, SEED_NAMES.len() + NOT_MODELLED.len(), "docs/hal.md's seed-name tables have rows the lists do not");
}
