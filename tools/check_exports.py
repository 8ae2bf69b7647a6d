#!/usr/bin/env python3
"""check_exports.py: Zinc's libcuda.so.1 exports every name NVIDIA's does.

Usage: check_exports.py LIB LIST [STUB]
  LIB   Zinc's libcuda.so.1
  LIST  tools/libcuda13-exports.txt (NVIDIA's export names, one per line)
  STUB  optional: the toolkit's lib64/stubs/libcuda.so; when it exists, LIST
        must name exactly its exports (a newer toolkit adds names: update
        LIST, then implement them or give them stub rows)
Exits 1 naming each missing or stale name. The CTest driver/exports runs it.
"""
import os
import subprocess
import sys


def exports(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TtWiI":
            names.add(f[2].split("@")[0])
    return names


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    lib, listfile = sys.argv[1], sys.argv[2]
    with open(listfile) as f:
        want = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    bad = 0
    if len(sys.argv) == 4 and os.path.exists(sys.argv[3]):
        stub = exports(sys.argv[3])
        for n in sorted(stub - set(want)):
            print(f"{listfile}: {n} is exported by {sys.argv[3]} but not listed")
            bad += 1
        for n in sorted(set(want) - stub):
            print(f"{listfile}: {n} is listed but {sys.argv[3]} does not export it")
            bad += 1
    have = exports(lib)
    missing = [n for n in want if n not in have]
    for n in missing:
        print(f"{lib}: does not export {n}")
    bad += len(missing)
    if bad:
        print(f"FAIL exports: {bad} problems")
        return 1
    print(f"PASS exports: all {len(want)} names of NVIDIA's libcuda.so.1 are exported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
