"""cocotb test of a TPB top's BAR0 register port (run by run.py under Icarus
and under Verilator).

The addresses, reset values and the top's input ports come from the register
maps, through the JSON file named by TPB_REGS (written by
testbench/tests/cocotb.rs); nothing here is a hardware constant.
"""

import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

REGS = json.load(open(os.environ["TPB_REGS"]))


def port(dut, name):
    """A port by its name. rust-hdl names array ports `q7_if_valid$0`:
    Icarus finds that as it is, Verilator as the escaped identifier
    `\\q7_if_valid$0 ` (backslash ... space)."""
    for n in (name, f"\\{name} "):
        try:
            return dut[n]
        except (AttributeError, KeyError, IndexError):
            pass
    raise AttributeError(f"{dut._path} has no port {name}")


async def start(dut):
    """Clock, every input driven to 0, and one reset cycle."""
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    for name in REGS["inputs"]:
        port(dut, name).value = 0
    dut.reset.value = 1
    await RisingEdge(dut.clock)
    await FallingEdge(dut.clock)
    dut.reset.value = 0
    await FallingEdge(dut.clock)


async def access(dut, addr, write=False, wdata=0):
    """One BAR0 access: the request for one cycle, the response the next."""
    dut.req_valid.value = 1
    dut.req_write.value = int(write)
    dut.req_addr.value = addr
    dut.req_wdata.value = wdata
    await FallingEdge(dut.clock)
    dut.req_valid.value = 0
    dut.req_write.value = 0
    assert int(dut.rsp_valid.value) == 1, f"no response to the access at {addr:#x}"
    rsp = (int(dut.rsp_rdata.value), int(dut.rsp_err.value))
    await FallingEdge(dut.clock)
    return rsp


@cocotb.test()
async def reset_values_read_back(dut):
    await start(dut)
    for name, r in REGS["regs"].items():
        if r["check_reset"]:
            data, err = await access(dut, r["addr"])
            assert err == 0, f"{name}: bus error on a read"
            assert data == r["reset"], f"{name}: reset value {data:#x}, map says {r['reset']:#x}"


@cocotb.test()
async def release_run_stall_drives_the_q7_run_stall_port(dut):
    await start(dut)
    rrs = REGS["regs"]["release_run_stall"]
    assert int(dut.q7_run_stall.value) == rrs["reset"], "every Q7 core is stalled out of reset"
    _, err = await access(dut, rrs["addr"], write=True, wdata=0xA5)
    assert err == 0
    assert int(dut.q7_run_stall.value) == 0xA5, f"q7_run_stall is {int(dut.q7_run_stall.value):#x} after writing 0xa5"
    data, _ = await access(dut, rrs["addr"])
    assert data == 0xA5


@cocotb.test()
async def semaphore_increment_window_adds(dut):
    await start(dut)
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
    await start(dut)
    data, err = await access(dut, REGS["unmapped"], write=True, wdata=0xDEAD)
    assert err == 1, f"a write to unmapped {REGS['unmapped']:#x} was accepted"
    data, err = await access(dut, REGS["unmapped"])
    assert err == 1
