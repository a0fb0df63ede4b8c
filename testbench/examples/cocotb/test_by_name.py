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
from cocotb.triggers import ClockCycles

# The BAR0 access and the reset (testbench/cocotb/tpb_bar0.py: run.py puts
# that folder on the path).
import tpb_bar0

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


async def access(dut, name, wdata=None):
    """Read (wdata None) or write a register by name; returns (data, error)."""
    return await tpb_bar0.access(dut, address(name), write=wdata is not None, wdata=wdata or 0, what=name)


@cocotb.test()
async def release_four_q7_cores_by_name(dut):
    await tpb_bar0.start(dut)
    assert int(dut.q7_run_stall.value) == 0xFF, "every Q7 core stalled out of reset"
    _, err = await access(dut, "pool.q7.release_run_stall", 0xF0)
    assert err == 0
    assert int(dut.q7_run_stall.value) == 0xF0, "cores 0-3 released"
    assert (await access(dut, "pool.q7.release_run_stall")) == (0xF0, 0)


@cocotb.test()
async def count_on_a_semaphore_by_name(dut):
    await tpb_bar0.start(dut)
    # After reset the unit clears its semaphores, one per cycle.
    sems = next(b for b in MAP["blocks"] if b["name"] == "evt_sem")["arrays"][0]["count"]
    await ClockCycles(dut.clock, sems + 2, rising=False)
    for n in (3, 4):
        await access(dut, "top_sp.evt_sem.inc[17]", n)
    assert (await access(dut, "top_sp.evt_sem.read[17]")) == (7, 0)
    await access(dut, "top_sp.evt_sem.dec[17]", 7)
    assert (await access(dut, "top_sp.evt_sem.read[17]")) == (0, 0)
