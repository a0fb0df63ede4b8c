"""The host side of testbench/examples/firmware/q7_crc32.toml, in Python,
with inputs of its own: the HAL installs the served images and holds every
core (stpb_init(release=False)); the script writes each Q7 core's input into
that core's DRAM (the kernel's TPB_HOST_INPUT `input`, the first host-input
variable: DRAM offset 4); releases the cores as the HAL does; waits until all
eight halted after that start; and checks each core's CRC-32 (main's return
value, DRAM word 0) against Python's own zlib.crc32 of the input it wrote.
One run: no restart.

    tpb serve testbench/examples/firmware/q7_crc32.toml --arch cayman --listen 127.0.0.1:5555 &
    python3 q7_crc32_host.py NAMES.json --port 5555
"""

import argparse
import struct
import sys
import zlib

from tpb_link import Link, LinkError, Names

# Not the served file's inputs: the results prove these were the ones used.
INPUTS = [b"tpbsim", b"per-core input %d" % 1, b"", b"x" * 255, b"\x00\xff" * 7, b"Q7", b"crc" * 20, b"the end"]
INPUT_AT = 0x4       # DRAM offset of the kernel's input (input.bytes, then input.words)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    a = ap.parse_args()
    link = Link.tcp(a.host, a.port, Names.load(a.names))
    link.stpb_init(release=False)
    for n, data in enumerate(INPUTS):
        padded = data + b"\0" * (-len(data) % 4)
        link.write_buf("q7[%d].dram+%#x" % (n, INPUT_AT), struct.pack("<I", len(data)) + padded)
    link.release("all")
    cores = ["q7[%d]" % i for i in range(8)]
    try:
        link.wait_halted(cores, 400_000)
    except LinkError as e:
        print(e)
        return 1
    fails = []
    for n, data in enumerate(INPUTS):
        got, want = link.read("q7[%d].dram+0x0" % n), zlib.crc32(data)
        if got != want:
            fails.append("q7[%d]: crc32 %#010x, zlib says %#010x" % (n, got, want))
    return link.finish("eight CRC-32s %s" % ("wrong" if fails else "right"), fails)


if __name__ == "__main__":
    sys.exit(main())
