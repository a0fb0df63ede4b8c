"""The host side of testbench/examples/firmware/q7_checksum.toml, in Python:
the HAL installs the served images and releases the cores, the script runs
the simulation until all eight Q7 cores halt (a halt after their start:
wait_halted), then checks the barrier
semaphore and each core's result (main's return value, the first word of
its DRAM: __tpb_exit) by name, and prints the cycle count.

    tpb serve testbench/examples/firmware/q7_checksum.toml --arch cayman --listen 127.0.0.1:5555 &
    python3 q7_checksum_host.py NAMES.json --port 5555 [--trace]
"""

import argparse
import sys

from tpb_link import Link, LinkError, Names

LIMIT = 200_000       # cycles before giving up


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--trace", action="store_true", help="trace the run into the server's --vcd file")
    a = ap.parse_args()
    link = Link.tcp(a.host, a.port, Names.load(a.names))
    if a.trace:
        link.trace(True)
    link.stpb_init()
    cores = ["q7[%d]" % i for i in range(8)]
    try:
        link.wait_halted(cores, LIMIT)
    except LinkError as e:
        print(e)          # the server's report: each core's PC, registers, last instructions
        return 1
    fails = []
    arrived = link.read("pool.evt_sem.read[10]")
    if arrived != 8:
        fails.append("pool.evt_sem.read[10] = %d, expected 8" % arrived)
    for i, c in enumerate(cores):
        got, want = link.read("%s.dram+0x0" % c), 32896 * (i + 1)
        if got != want:
            fails.append("%s returned %#x, expected %#x" % (c, got, want))
    if a.trace:
        link.trace(False)
    return link.finish("all eight Q7 cores halted; checksums %s" % ("wrong" if fails else "right"), fails)


if __name__ == "__main__":
    sys.exit(main())
