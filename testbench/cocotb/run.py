"""Build a generated TPB top with Icarus and run test_top_regs.py on it with
cocotb's runner. Usage: run.py VERILOG TOP REGS_JSON BUILD_DIR
Exit status: 0 when every test passed; results.xml in BUILD_DIR."""

import os
import sys
from pathlib import Path

try:
    from cocotb_tools.runner import get_runner
except ImportError:
    sys.exit("cocotb is not installed: python3 -m pip install 'cocotb>=2,<3' (or run scripts/setup)")

verilog, top, regs, build = sys.argv[1:5]
here = Path(__file__).resolve().parent
os.environ["PYTHONPATH"] = os.pathsep.join([str(here), os.environ.get("PYTHONPATH", "")])
runner = get_runner("icarus")
runner.build(sources=[verilog], hdl_toplevel=top, build_dir=build, always=True, timescale=("1ns", "1ps"))
results = runner.test(
    hdl_toplevel=top,
    test_module="test_top_regs",
    build_dir=build,
    test_dir=build,
    extra_env={"TPB_REGS": str(Path(regs).resolve())},
    results_xml="results.xml",
)
print(f"results: {results}")
