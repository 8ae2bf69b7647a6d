#!/usr/bin/env python3
"""check_trace.py: checks a `zinc trace` folder of tests/trace/trace_app.cu.

usage: check_trace.py TRACE_DIR REFERENCE_PTX
Exits 1 with a message per failed check."""
import glob
import json
import os
import re
import sys

trace_dir, ref_ptx = sys.argv[1], sys.argv[2]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


log = open(os.path.join(trace_dir, "log.txt")).read().splitlines()
calls = [l for l in log if not re.match(r"^\s*[\d.]+ T\d+ +# ", l)]
# "<ms> T<n> <indent><name>(<args>) = <RESULT> (<us> us)"
call_re = re.compile(r"^\s*\d+\.\d{3} T\d+ ( *)([A-Za-z_][\w:\[\]]*)\((.*)\) = "
                     r"(CUDA_[A-Z_0-9]+|-?\d+) \(\d+\.\d{3} us\)$")
bad = [l for l in calls if not call_re.match(l)]
check(calls and not bad, "lines without a result: %r" % bad[:5])
names = [call_re.match(l).group(2) for l in calls if call_re.match(l)]
check("cuLibraryLoadData" in names, "no cuLibraryLoadData call")
check(any(n.startswith("export:ctx_storage[") for n in names), "no context-storage export calls")
check(any(n == "export:integrity[1]" for n in names), "no integrity export call")
check(any(n.startswith("export:runtime[") for n in names), "no runtime-interface export call")
launch = [l for l in calls if call_re.match(l).group(2) == "cuLaunchKernel"]
check(len(launch) == 1, "want one cuLaunchKernel line, got %d" % len(launch))
if launch:
    # f, grid x y z, block x y z, shared, stream, params, extra
    args = call_re.match(launch[0]).group(3).split(", ")
    check(args[1:8] == ["4", "1", "1", "256", "1", "1", "0"], "launch args %r" % args)
    check(call_re.match(launch[0]).group(4) == "CUDA_SUCCESS", "launch failed")
note = [l for l in log if "# launch 1: _Z4axpbPKfS0_Pfi grid (4,1,1) block (256,1,1) shared 0" in l]
check(len(note) == 1, "no launch record with the kernel's name, grid and block")
if note:
    # four parameters: three pointers (8 bytes) and n = 1000 (e8030000)
    check(re.search(r"\[0\] 8:[0-9a-f]{16} \[1\] 8:[0-9a-f]{16} \[2\] 8:[0-9a-f]{16} "
                    r"\[3\] 4:e8030000$", note[0]), "parameter bytes: %s" % note[0])
ex = [l for l in calls if call_re.match(l).group(2) == "cuLaunchKernelEx"]
check(len(ex) == 1 and call_re.match(ex[0]).group(4) == "CUDA_SUCCESS",
      "want one successful cuLaunchKernelEx line, got %r" % ex)
check(any("# launch 2: _Z4axpbPKfS0_Pfi grid (8,1,1) block (128,1,1) shared 0 stream 0x" in l
          for l in log), "no launch record of the cuLaunchKernelEx launch")
check(any(n == "cuLibraryGetKernel" for n in names), "no cuLibraryGetKernel")
check(any(re.search(r"cuLibraryGetGlobal\(.*\"scale\"\)", l) for l in calls),
      "no cuLibraryGetGlobal of the __constant__ symbol")
for n in ("cuStreamCreate", "cuEventRecord", "cuEventElapsedTime_v2", "cuMemcpyHtoDAsync_v2"):
    check(n in names, "no %s call" % n)


def strip_ptx(text):
    text = re.sub(r"//[^\n]*", "", text)
    return " ".join(text.replace("\0", " ").split())


ptx_files = glob.glob(os.path.join(trace_dir, "modules", "mod*", "*.ptx"))
ref = strip_ptx(open(ref_ptx).read())
check(any(strip_ptx(open(p).read()) == ref for p in ptx_files),
      "no saved PTX equals `nvcc -ptx` (have %r)" % ptx_files)
check(glob.glob(os.path.join(trace_dir, "modules", "mod*", "fatbin0.bin")), "no raw fatbin saved")
check(glob.glob(os.path.join(trace_dir, "modules", "mod*", "*.cubin")), "no cubin saved")

events = json.load(open(os.path.join(trace_dir, "timeline.json")))
api = [e for e in events if e.get("cat") != "gpu" and e.get("ph") == "X"]
gpu = [e for e in events if e.get("cat") == "gpu" and e.get("ph") == "X"]
check(len(api) == len(calls), "timeline has %d API events for %d calls" % (len(api), len(calls)))
check(any(e["name"] == "_Z4axpbPKfS0_Pfi" for e in gpu), "no kernel event on a stream track")
check(all(e["dur"] >= 0 and e["ts"] >= 0 for e in api + gpu), "negative times")
streams = {e["tid"] for e in gpu if e["name"] == "_Z4axpbPKfS0_Pfi"}
named = {e["tid"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
check(streams and streams <= named, "stream tracks are not named")

for f in failures:
    print("FAIL", f)
if failures:
    sys.exit(1)
print("PASS check_trace (%d calls, %d PTX files, %d events)" % (len(calls), len(ptx_files), len(events)))
