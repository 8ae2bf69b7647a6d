#!/usr/bin/env python3
"""bench_overhead.py: the tracer's overhead on a launch-heavy program.

usage: bench_overhead.py ZINC LAUNCH_MANY [RUNS] [LAUNCHES]
Runs LAUNCH_MANY (tests/trace/launch_many.cu: 10000 tiny kernels) RUNS
times under `zinc run` and under `zinc trace`, alternating, and prints the
median wall time of each and their ratio. Not a CTest: timings on a shared
machine are noisy (see docs/trace.md for the figures measured)."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

zinc, app = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 9
launches = sys.argv[4] if len(sys.argv) > 4 else "10000"
tmp = tempfile.mkdtemp(prefix="zinc-bench-")
times = {"run": [], "trace": []}
try:
    for i in range(runs):
        for mode in ("run", "trace"):
            out = os.path.join(tmp, "t%d" % i)
            cmd = [zinc, "run", app, launches] if mode == "run" else \
                  [zinc, "trace", "-o", out, app, launches]
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[mode].append(time.perf_counter() - t0)
            shutil.rmtree(out, ignore_errors=True)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
run, trace = statistics.median(times["run"]), statistics.median(times["trace"])
print("launches %s, runs %d: zinc run %.1f ms, zinc trace %.1f ms (median), ratio %.2fx"
      % (launches, runs, run * 1e3, trace * 1e3, trace / run))
