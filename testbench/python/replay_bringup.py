"""Replay the HAL's bring-up over the host link and check every read.

`tpb bringup --arch A` runs the Rust HAL's stpb_init + pooling_init against
the golden BAR0 model and prints each access ("W addr name = value",
"R addr name -> value", "B addr region LEN bytes (data N + zero M)": a
buffer write, replayed here when it is all zero: the images' bytes are not
in the log). This script sends the same accesses, by register
name, to `tpb serve` (the RTL under co-simulation) or to the FPGA board,
and checks that every read returns what the golden model returned.

    python3 replay_bringup.py BRINGUP.txt NAMES.json --port P [--host H]
    python3 replay_bringup.py BRINGUP.txt NAMES.json --serial /dev/ttyUSB0
"""

import argparse
import sys

from tpb_link import Link, Names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bringup")
    ap.add_argument("names")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int)
    ap.add_argument("--serial")
    a = ap.parse_args()
    names = Names.load(a.names)
    link = Link.serial(a.serial, names=names) if a.serial else Link.tcp(a.host, a.port, names)
    link.status()
    writes = reads = fills = 0
    bad = []
    with open(a.bringup) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if parts and parts[0] == "B":
                # "B addr name LEN bytes (data N + zero M) fnv1a=...": a zero
                # image pads the memory; data the log does not hold.
                length, data = int(parts[3], 0), int(parts[6], 0)
                if data:
                    bad.append("line %d: %s carries %#x bytes of data the log does not hold" % (n, parts[2], data))
                    continue
                addr = int(parts[1], 0)
                for off in range(0, length, 4 * 0xFFFF):
                    link.fill(addr + off, min(0xFFFF, (length - off) // 4), 0)
                fills += 1
                continue
            if not parts or parts[0] not in ("W", "R"):
                continue
            name = parts[2]
            if parts[0] == "W":
                link.write(name, int(parts[4], 0))
                writes += 1
            else:
                got, want = link.read(name), int(parts[4], 0)
                reads += 1
                if got != want:
                    bad.append("line %d: %s read %#x, the golden model %#x" % (n, name, got, want))
    cycles = link.cycles() if not a.serial else None
    link.close()
    print("replayed %d writes, %d reads by name and %d zero fills%s" % (writes, reads, fills, "" if cycles is None else ", at cycle %d" % cycles))
    for b in bad:
        print("MISMATCH " + b)
    return 1 if bad or writes == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
