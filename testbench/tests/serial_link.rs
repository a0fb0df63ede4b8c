//! The HAL drives the FPGA prototype over its serial link, as it would a
//! board: the CAYMAN prototype (host-link bridge + top,
//! `hdl/generated/cayman_tpb_proto.v`) runs under Verilator with its UART
//! pins driven bit by bit from a pseudo-terminal; the HAL's `SerialLink`
//! opens the terminal's device path as it opens `/dev/ttyUSB0`. `stpb_init`
//! (SEQ and Q7 images, DMA rings) and a doorbell sequence pass over it and
//! log exactly the accesses, and read exactly the values, they do on the
//! golden register-file model.

use std::time::Duration;
use tpb_cosim::serial::SerialSim;
use tpb_models::hal::serial::SerialLink;
use tpb_models::hal::{DmaConfig, Hal, Mmio, Recorder, RegFileModel, RingConfig, StpbConfig, UcodeImages};
use tpb_models::hostlink::STATUS_MAGIC;
use tpb_models::regmap::{builtin, Arch};

/// The bring-up and a doorbell sequence, on any transport.
fn session(hal: &Hal, bar0: &mut dyn Mmio) {
    let map = builtin(Arch::Cayman).unwrap();
    let iram: Vec<u8> = (0..600u32).flat_map(|k| (k.wrapping_mul(0x0101_0101) ^ 0x55aa).to_le_bytes()).collect();
    let mut cfg =
        StpbConfig::new(UcodeImages { iram: iram[..400].to_vec(), dram: vec![1, 2, 3, 4, 0, 0, 0, 0, 9, 9, 9, 9] }, UcodeImages { iram, dram: 20u32.to_le_bytes().to_vec() });
    cfg.pooling.dma = Some(DmaConfig { rx: RingConfig { base: 0x100, length: 8 }, tx: RingConfig { base: 0x200, length: 8 }, mem_window2: 0 });
    hal.stpb_init(bar0, &cfg, None).unwrap();
    // Doorbells: the CTRL and SLOT SPADs loaded and the TOP_SP kicked, the
    // host trigger rung again, and state read back.
    let ctrl: Vec<u8> = (0..64u8).collect();
    let slot: Vec<u8> = (0..96u8).map(|b| b ^ 0x5a).collect();
    hal.load_spad_and_kick(bar0, &ctrl, &slot).unwrap();
    hal.topsp_set_host_trigger(bar0).unwrap();
    let t = hal.topsp_get_host_trigger_reg_offset().unwrap();
    // Read back what the images and the SPADs put where (the log records
    // every value read): Q7 cores 0 and 7, first and last image words and a
    // word of the zero pad past what the prototype builds; the SEQ; the SPADs.
    bar0.note("read back");
    let _ = bar0.read32(t).unwrap();
    let ctx = hal.ctx().unwrap();
    let _ = bar0.read32(ctx.pool_base() + u64::from(ctx.regs.nx.run_state.offset)).unwrap();
    let l = map.params.q7_layout(map.params.q7.pooling.owner).unwrap();
    let region = |name: &str| map.params.bar0_regions().iter().find(|r| r.name == name).unwrap().region.base;
    for a in [
        l.iram(0),
        l.iram(0) + 4 * 599,
        l.iram(7),
        l.iram(7) + 0x4000,
        l.dram(3),
        region("seq.iram") + 396,
        region("seq.dram") + 8,
        region("top_sp.ctrl_spad") + 60,
        region("top_sp.slot_spad") + 92,
    ] {
        let _ = bar0.read32(a).unwrap();
    }
}

#[test]
fn the_hal_brings_up_the_prototype_over_its_serial_line_as_on_the_golden_model() {
    let map = builtin(Arch::Cayman).unwrap();
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let mut golden = Recorder::new(RegFileModel::new(map.clone()), map.clone());
    session(&hal, &mut golden);

    let dir = tpb_testbench::tools::repo_root().join("target/vlbuild-proto");
    let jobs = std::env::var("CARGO_BUILD_JOBS").ok().and_then(|j| j.parse().ok()).unwrap_or(2);
    let sim = SerialSim::start(&map, tpb_hdl::proto::DEFAULT_UART_DIV, &dir, jobs).unwrap();
    let t0 = std::time::Instant::now();
    let mut link = SerialLink::open(sim.path(), tpb_hdl::proto::DEFAULT_BAUD, Duration::from_secs(30)).unwrap();
    assert_eq!(link.status().unwrap(), (STATUS_MAGIC, 0), "the prototype answers STATUS, no bad frame yet");
    let mut board = Recorder::new(link, map.clone());
    session(&hal, &mut board);
    let (g, b) = (golden.render(), board.render());
    let link = board.into_inner();
    let stats = sim.stop().unwrap();
    println!(
        "{} log lines; {} frames, {} bytes out, {} in; {} simulated cycles ({:.2} s at 50 MHz) in {:.1} s",
        g.lines().count(),
        link.stats.frames,
        link.stats.bytes_out,
        link.stats.bytes_in,
        stats.cycles,
        stats.cycles as f64 / 50e6,
        t0.elapsed().as_secs_f64()
    );
    if g != b {
        let first = g.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
        panic!("the logs differ from line {first}:\n golden: {:?}\n board:  {:?}", g.lines().nth(first), b.lines().nth(first));
    }
    assert!(g.lines().filter(|l| l.starts_with("R ")).count() > 10 && g.lines().filter(|l| l.starts_with("B ")).count() > 16, "{g}");
    assert!(g.contains(" -> 0x55aa\n"), "the first Q7 image word read back: {g}");
    assert!(link.stats.frames < 2000, "zero pads go as FILL frames: {} frames", link.stats.frames);
}

#[test]
fn a_silent_or_absent_board_is_a_link_error_not_a_hang() {
    // A pseudo-terminal nobody answers on.
    let (_master, slave) = serialport::TTYPort::pair().unwrap();
    let path = serialport::SerialPort::name(&slave).unwrap();
    drop(slave);
    let mut link = SerialLink::open(&path, 115_200, Duration::from_millis(200)).unwrap();
    let e = link.read32(0x1000).unwrap_err().to_string();
    assert!(e.starts_with("link to BAR0: Read seq 1 at 0x1000: no response"), "{e}");
    let e = SerialLink::open("/dev/tpb-no-such-port", 115_200, Duration::from_millis(200)).err().unwrap().to_string();
    assert!(e.contains("open /dev/tpb-no-such-port"), "{e}");
}
