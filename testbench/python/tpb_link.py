"""A host program's link to the TPB: the host-link protocol (frames,
sequence numbers, CRC-16/CCITT-FALSE) over a TCP socket to `tpb serve` (the
co-simulation) or over a serial port to the FPGA prototype (pyserial).
Pure Python 3, no compiled extension.

The protocol's one description is models/spec/src/hostlink.rs; this client
follows it. Simulator ops (run, cycles, a core's state, trace, stpb_init, release,
wait_halted, the server's last message) exist only on `tpb serve`; the FPGA
bridge answers them BAD_OP. docs/host-link.md describes the whole protocol.

    from tpb_link import Link, Names
    names = Names.load("cayman.names.json")   # tpb regmap --arch cayman --format names
    link = Link.tcp("127.0.0.1", 5555, names)
    link.write("pool.q7.release_run_stall", 0)
    print(hex(link.read("pool.evt_sem.read[10]")))
"""

import json
import socket
import struct

SYNC_REQUEST = 0xA5
SYNC_RESPONSE = 0x5A
RESPONSE_BYTES = 11
MAX_BURST = 64
STATUS_MAGIC = 0x54504201
MAX_RUN_CYCLES = 1 << 24      # most cycles one RUN or WAIT_HALTED frame may ask for

# The ops, statuses and state bits, as models/spec/src/hostlink.rs declares
# them (a test of the suite compares these tables with it).
OPS = {"READ": 1, "WRITE": 2, "BURST": 3, "FILL": 4, "STATUS": 5}
SIM_OPS = {"RUN": 0x10, "CYCLES": 0x11, "CORE": 0x12, "TRACE": 0x13, "STPB_INIT": 0x14,
           "WAIT_HALTED": 0x15, "MESSAGE": 0x16, "RELEASE": 0x17}
STATUS_NAMES = {0: "OK", 1: "CRC", 2: "BAD_OP", 3: "BAD_COUNT", 4: "BUS_ERROR", 5: "TIMEOUT", 6: "BUSY", 7: "SYNC"}
STATE_BITS = {"HALTED": 1 << 0, "WAITING": 1 << 1, "RUN_STALLED": 1 << 2, "EXCEPTION": 1 << 3,
              "HALTED_SINCE_START": 1 << 4}

STATUS_BUSY = 6

OP_READ, OP_WRITE, OP_BURST, OP_FILL, OP_STATUS = (OPS[k] for k in ("READ", "WRITE", "BURST", "FILL", "STATUS"))
(OP_RUN, OP_CYCLES, OP_CORE, OP_TRACE, OP_STPB_INIT, OP_WAIT_HALTED, OP_MESSAGE,
 OP_RELEASE) = (SIM_OPS[k] for k in ("RUN", "CYCLES", "CORE", "TRACE", "STPB_INIT", "WAIT_HALTED", "MESSAGE", "RELEASE"))

# Cores of OP_CORE (and bits of a core mask), and its items.
CORES = {**{"q7[%d]" % i: i for i in range(8)}, "seq": 8, "top_sp": 9}
ITEM_PC, ITEM_STATE, ITEM_RETIRED, ITEM_A0 = 0, 1, 2, 16


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def encode(op, seq, count, addr, data=()):
    """A request frame's bytes."""
    body = struct.pack("<BBHI", op, seq, count, addr) + b"".join(struct.pack("<I", w & 0xFFFFFFFF) for w in data)
    return bytes([SYNC_REQUEST]) + body + struct.pack("<H", crc16(body))


class LinkError(Exception):
    """A request the other end refused (with `tpb serve`'s reason when it
    gives one), or a broken response."""

    def __init__(self, what, status=None, done=0, reason=""):
        super().__init__(what + (": " + reason if reason else ""))
        self.status = status
        self.done = done
        self.reason = reason


class Names:
    """BAR0 names and addresses from `tpb regmap --format names`."""

    def __init__(self, table):
        self.arch = table["arch"]
        self.registers = table["registers"]
        self.fields = table["fields"]
        self.arrays = table["arrays"]
        self.memories = table["memories"]

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls(json.load(f))

    def addr(self, name):
        """The address of a register, an array element (`x.y.z[5]`) or a
        memory region's word (`q7[3].dram+0x10`)."""
        if isinstance(name, int):
            return name
        if name in self.registers:
            return self.registers[name]
        if "+" in name:
            base, off = name.split("+", 1)
            if base in self.memories:
                off = int(off, 0)
                if off >= self.memories[base]["size"]:
                    raise KeyError("%s: offset %#x is past the region's %#x bytes" % (name, off, self.memories[base]["size"]))
                return self.memories[base]["addr"] + off
        if name.endswith("]") and "[" in name:
            arr, idx = name[:-1].split("[", 1)
            if arr in self.arrays:
                a, i = self.arrays[arr], int(idx, 0)
                if not 0 <= i < a["count"]:
                    raise KeyError("%s: index %d outside 0..%d" % (name, i, a["count"] - 1))
                return a["addr"] + i * a["stride"]
        near = sorted(self.registers, key=lambda n: _distance(n, name))[:3]
        raise KeyError("unknown name %r (%s); did you mean %s?" % (name, self.arch, ", ".join(near)))


def _distance(a, b):
    """Edit distance, for suggestions."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


class Link:
    """BAR0 over the host-link protocol on any byte transport with
    `send(bytes)` and `recv_exact(n)`."""

    def __init__(self, transport, names=None):
        self.t = transport
        self.names = names
        self.seq = 0

    @classmethod
    def tcp(cls, host, port, names=None, timeout=120.0):
        return cls(_Tcp(host, port, timeout), names)

    @classmethod
    def serial(cls, path, baud=115200, names=None, timeout=2.0):
        return cls(_Serial(path, baud, timeout), names)

    def close(self):
        self.t.close()

    def finish(self, summary, fails):
        """Print the summary with the cycle count, close the link, print each
        failure; the process exit code: 1 if any failed."""
        print("%s; cycle %d" % (summary, self.cycles()))
        self.close()
        for f in fails:
            print("FAIL " + f)
        return 1 if fails else 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- frames --
    def request(self, op, count=0, addr=0, data=()):
        """Send one frame and return (words done, data) of its answer."""
        seq = self.seq
        self.seq = (self.seq + 1) & 0xFF
        self.t.send(encode(op, seq, count, addr, data))
        r = self.t.recv_exact(RESPONSE_BYTES)
        if r[0] != SYNC_RESPONSE:
            raise LinkError("response starts with %#04x, not 0x5a" % r[0])
        if struct.unpack("<H", r[9:11])[0] != crc16(r[1:9]):
            raise LinkError("response CRC mismatch")
        status, rseq, done, value = struct.unpack("<BBHI", r[1:9])
        if rseq != seq:
            raise LinkError("response to sequence %d, expected %d" % (rseq, seq))
        if status != 0:
            name = STATUS_NAMES.get(status, str(status))
            reason = self.message() if status not in (STATUS_BUSY,) and op != OP_MESSAGE else ""
            raise LinkError("op %#04x at %#x: %s after %d words" % (op, addr, name, done), status, done, reason)
        return done, value

    def message(self):
        """`tpb serve`'s last message: why it refused the last refused
        request, or the report of the last wait_halted that ran out. Empty
        where there is none (the FPGA bridge has no such op)."""
        try:
            n, first = self.request(OP_MESSAGE, 0, 0)
        except LinkError:
            return ""
        out = bytearray(struct.pack("<I", first))
        for at in range(4, n, 4):
            out += struct.pack("<I", self.request(OP_MESSAGE, 0, at)[1])
        return out[:n].decode("utf-8", "replace")

    def _a(self, name):
        if isinstance(name, int):
            return name
        if self.names is None:
            raise KeyError("%r: load a Names table to use register names" % (name,))
        return self.names.addr(name)

    # -- BAR0 --
    def read32(self, addr):
        return self.request(OP_READ, 1, self._a(addr))[1]

    def write32(self, addr, value):
        self.request(OP_WRITE, 1, self._a(addr), [value])

    read = read32
    write = write32

    def write_buf(self, addr, data):
        """`len(data)` bytes (a multiple of 4) from `addr` on, in BURSTs."""
        addr = self._a(addr)
        if len(data) % 4 or addr % 4:
            raise ValueError("write_buf: address %#x and length %d must both be 4-byte aligned" % (addr, len(data)))
        words = struct.unpack("<%dI" % (len(data) // 4), data)
        for i in range(0, len(words), MAX_BURST):
            chunk = words[i:i + MAX_BURST]
            self.request(OP_BURST, len(chunk), addr + 4 * i, chunk)

    def fill(self, addr, count, value=0):
        self.request(OP_FILL, count, self._a(addr), [value])

    def status(self):
        magic = self.request(OP_STATUS)[1]
        if magic != STATUS_MAGIC:
            raise LinkError("STATUS answered %#x, not %#x" % (magic, STATUS_MAGIC))
        return magic

    def poll(self, addr, value, tries=1000, cycles=0):
        """Read until the word equals `value` (running `cycles` between reads
        on the simulator); the last value read."""
        v = None
        for _ in range(tries):
            v = self.read32(addr)
            if v == value:
                return v
            if cycles:
                self.run(cycles)
        raise LinkError("%s never read %#x in %d tries (last %s)" % (addr, value, tries, "none" if v is None else "%#x" % v))

    # -- simulator ops (tpb serve) --
    def run(self, cycles):
        """Run `cycles` cycles (several frames past MAX_RUN_CYCLES)."""
        while True:
            n = min(cycles, MAX_RUN_CYCLES)
            self.request(OP_RUN, 1, 0, [n])
            cycles -= n
            if cycles <= 0:
                return

    def cycles(self):
        lo = self.request(OP_CYCLES, 0, 0)[1]
        hi = self.request(OP_CYCLES, 0, 4)[1]
        return hi << 32 | lo

    def core(self, core, item):
        return self.request(OP_CORE, 0, CORES[core] << 8 | item)[1]

    def pc(self, core):
        return self.core(core, ITEM_PC)

    def state(self, core):
        """The state bits of a core, by name (STATE_BITS)."""
        v = self.core(core, ITEM_STATE)
        return {k: bool(v & b) for k, b in STATE_BITS.items()}

    def halted(self, core):
        """The core halted *after its last start*: a halt left from an
        earlier run does not count (what a host waits for)."""
        return bool(self.core(core, ITEM_STATE) & STATE_BITS["HALTED_SINCE_START"])

    def exception(self, core):
        return bool(self.core(core, ITEM_STATE) & STATE_BITS["EXCEPTION"])

    def wait_halted(self, cores, limit=200_000):
        """Run until every core of `cores` (names) halted after its last
        start, at most `limit` cycles; a core that never halts (or faults)
        raises LinkError with the server's report (PC as symbol+offset, the
        instruction, registers, the last instructions retired)."""
        mask = _mask(cores)
        while True:
            n = min(limit, MAX_RUN_CYCLES)
            _, left = self.request(OP_WAIT_HALTED, 1, mask, [n])
            limit -= n
            if left == 0:
                return
            if limit <= 0:
                raise LinkError("wait_halted: not halted", reason=self.message())

    def reg(self, core, n):
        return self.core(core, ITEM_A0 + n)

    def trace(self, on):
        self.request(OP_TRACE, 1, 0, [1 if on else 0])

    def stpb_init(self, release=True):
        """The HAL's stpb_init with the images `tpb serve` was given (each
        Q7 core's [[firmware.q7.data]] written after them); with
        release=False every core stays run-stalled until `release`."""
        self.request(OP_STPB_INIT, 0, 0 if release else 1)

    def release(self, cores="all"):
        """Release cores from run-stall: "all" (what stpb_init(release=False)
        held, as the HAL does it) or a list of core names."""
        self.request(OP_RELEASE, 0, 0 if cores == "all" else _mask(cores))


def _mask(cores):
    """A core mask from names ("q7" means all eight)."""
    if isinstance(cores, str):
        cores = [cores]
    m = 0
    for c in cores:
        if c == "q7":
            m |= 0xFF
        elif c in CORES:
            m |= 1 << CORES[c]
        else:
            raise KeyError("%r is not a core (%s, or \"q7\")" % (c, ", ".join(CORES)))
    return m


class _Tcp:
    def __init__(self, host, port, timeout):
        self.s = socket.create_connection((host, port), timeout=timeout)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, b):
        self.s.sendall(b)

    def recv_exact(self, n):
        out = b""
        while len(out) < n:
            chunk = self.s.recv(n - len(out))
            if not chunk:
                raise LinkError("the server closed the connection")
            out += chunk
        return out

    def close(self):
        self.s.close()


class _Serial:
    def __init__(self, path, baud, timeout):
        import serial  # pyserial: only the FPGA link needs it

        self.p = serial.Serial(path, baud, timeout=timeout)

    def send(self, b):
        self.p.write(b)

    def recv_exact(self, n):
        b = self.p.read(n)
        if len(b) < n:
            raise LinkError("no answer from the board (%d of %d bytes)" % (len(b), n))
        return b

    def close(self):
        self.p.close()
