"""cocotb test of a TPB top's BAR0 register port (run by run.py under Icarus
and under Verilator).

The addresses, reset values and the top's input ports come from the register
maps, through the JSON file named by TPB_REGS (written by
testbench/tests/cocotb.rs); nothing here is a hardware constant.
"""

import json
import os

import cocotb
from cocotb.triggers import ClockCycles
from tpb_bar0 import access, start

REGS = json.load(open(os.environ["TPB_REGS"]))


@cocotb.test()
async def reset_values_read_back(dut):
    await start(dut, REGS["inputs"])
    for name, r in REGS["regs"].items():
        if r["check_reset"]:
            data, err = await access(dut, r["addr"])
            assert err == 0, f"{name}: bus error on a read"
            assert data == r["reset"], f"{name}: reset value {data:#x}, map says {r['reset']:#x}"


@cocotb.test()
async def release_run_stall_drives_the_q7_run_stall_port(dut):
    await start(dut, REGS["inputs"])
    rrs = REGS["regs"]["release_run_stall"]
    assert int(dut.q7_run_stall.value) == rrs["reset"], "every Q7 core is stalled out of reset"
    _, err = await access(dut, rrs["addr"], write=True, wdata=0xA5)
    assert err == 0
    assert int(dut.q7_run_stall.value) == 0xA5, f"q7_run_stall is {int(dut.q7_run_stall.value):#x} after writing 0xa5"
    data, _ = await access(dut, rrs["addr"])
    assert data == 0xA5


@cocotb.test()
async def semaphore_increment_window_adds(dut):
    await start(dut, REGS["inputs"])
    # The semaphores clear themselves after reset before they take increments.
    await ClockCycles(dut.clock, REGS["sem_clear_cycles"] + 2, rising=False)
    sem = REGS["regs"]["sem_read"]
    inc = REGS["regs"]["sem_inc"]
    await access(dut, inc["addr"], write=True, wdata=3)
    await access(dut, inc["addr"], write=True, wdata=4)
    data, err = await access(dut, sem["addr"])
    assert (data, err) == (7, 0), f"semaphore reads {data} (err {err}) after +3 +4"


@cocotb.test()
async def unmapped_address_is_a_bus_error(dut):
    await start(dut, REGS["inputs"])
    data, err = await access(dut, REGS["unmapped"], write=True, wdata=0xDEAD)
    assert err == 1, f"a write to unmapped {REGS['unmapped']:#x} was accepted"
    data, err = await access(dut, REGS["unmapped"])
    assert err == 1
