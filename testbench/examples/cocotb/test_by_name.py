"""A cocotb test to copy: drive a TPB top's BAR0 port by register *names*,
resolved from tpbsim's JSON export of the register map.

    cargo run --release --bin tpb -- regmap --arch cayman --format json > cayman.json
    python3 testbench/cocotb/run.py verilator hdl/generated/cayman_tpb_top.v \
        cayman_tpb_top cayman.json build/cocotb testbench/examples/cocotb/test_by_name.py

(`icarus` instead of `verilator` runs it under Icarus.) A name is
`<engine>.<block>.<register>` (`pool.q7.release_run_stall`),
`<engine>.<block>.<window>[i]` for a semaphore window
(`top_sp.evt_sem.inc[17]`), or `tpb.tpb.<register>` for the TPB-level
registers: the names of the HAL's access log and of the GTKWave filters.
"""

import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

# run.py passes its JSON argument as TPB_REGS.
MAP = json.load(open(os.environ["TPB_REGS"]))


def address(name):
    """The BAR0 address of a register or semaphore-window element by name."""
    engine, block, reg = name.split(".", 2)
    p = MAP["params"]
    blk = next((b for b in MAP["blocks"] if b["name"] == block), None)
    if blk is None:
        raise KeyError(f"{name}: no block '{block}'")
    if blk["aperture"] == "tpb_regs":
        base = p["bar0"]["tpb_regs"]["base"]
    elif engine in blk["engines"]:
        base = p["local_reg"][engine]
    else:
        raise KeyError(f"{name}: block '{block}' is not decoded in engine '{engine}'")
    base += p["bar0"]["tpb_base"]
    if "[" in reg:
        window, index = reg.rstrip("]").split("[")
        for a in blk["arrays"]:
            for w in a["windows"]:
                if w["name"] == window:
                    return base + w["offset"] + int(index) * a["stride"]
    for r in blk["registers"]:
        if r["name"] == reg:
            return base + r["offset"]
    raise KeyError(f"{name}: no register '{reg}' in {block}")


async def reset(dut):
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    for sig in ("req_valid", "req_write", "req_addr", "req_wdata"):
        getattr(dut, sig).value = 0
    dut.reset.value = 1
    await RisingEdge(dut.clock)
    await FallingEdge(dut.clock)
    dut.reset.value = 0
    await FallingEdge(dut.clock)


async def access(dut, name, wdata=None):
    """Read (wdata None) or write a register by name; returns (data, error)."""
    dut.req_valid.value = 1
    dut.req_write.value = int(wdata is not None)
    dut.req_addr.value = address(name)
    dut.req_wdata.value = wdata or 0
    await FallingEdge(dut.clock)
    dut.req_valid.value = 0
    dut.req_write.value = 0
    assert int(dut.rsp_valid.value) == 1, f"no response from {name}"
    rsp = (int(dut.rsp_rdata.value), int(dut.rsp_err.value))
    await FallingEdge(dut.clock)
    return rsp


@cocotb.test()
async def release_four_q7_cores_by_name(dut):
    await reset(dut)
    assert int(dut.q7_run_stall.value) == 0xFF, "every Q7 core stalled out of reset"
    _, err = await access(dut, "pool.q7.release_run_stall", 0xF0)
    assert err == 0
    assert int(dut.q7_run_stall.value) == 0xF0, "cores 0-3 released"
    assert (await access(dut, "pool.q7.release_run_stall")) == (0xF0, 0)


@cocotb.test()
async def count_on_a_semaphore_by_name(dut):
    await reset(dut)
    # After reset the unit clears its semaphores, one per cycle.
    sems = next(b for b in MAP["blocks"] if b["name"] == "evt_sem")["arrays"][0]["count"]
    await ClockCycles(dut.clock, sems + 2, rising=False)
    for n in (3, 4):
        await access(dut, "top_sp.evt_sem.inc[17]", n)
    assert (await access(dut, "top_sp.evt_sem.read[17]")) == (7, 0)
    await access(dut, "top_sp.evt_sem.dec[17]", 7)
    assert (await access(dut, "top_sp.evt_sem.read[17]")) == (0, 0)
