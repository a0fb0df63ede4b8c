"""The BAR0 register port of a TPB top, for cocotb tests.

run.py puts this folder on the Python path, so a test module anywhere
(testbench/examples/cocotb/ too) imports it as `tpb_bar0`. The protocol is
the blocks' (hdl/src/bar0_port.rs): a request is sampled on a rising edge,
and its response is valid for the one cycle after it.
"""

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

REQUEST = ("req_valid", "req_write", "req_addr", "req_wdata")


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


async def start(dut, inputs=REQUEST):
    """Clock, the `inputs` driven to 0, and one reset cycle."""
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    for name in inputs:
        port(dut, name).value = 0
    dut.reset.value = 1
    await RisingEdge(dut.clock)
    await FallingEdge(dut.clock)
    dut.reset.value = 0
    await FallingEdge(dut.clock)


async def access(dut, addr, write=False, wdata=0, what=None):
    """One access: the request for one cycle, the response the next;
    returns (rdata, err). `what` names the access in a failure."""
    dut.req_valid.value = 1
    dut.req_write.value = int(write)
    dut.req_addr.value = addr
    dut.req_wdata.value = wdata
    await FallingEdge(dut.clock)
    dut.req_valid.value = 0
    dut.req_write.value = 0
    assert int(dut.rsp_valid.value) == 1, f"no response to {what or f'the access at {addr:#x}'}"
    rsp = (int(dut.rsp_rdata.value), int(dut.rsp_err.value))
    await FallingEdge(dut.clock)
    return rsp
