#!/bin/sh
# test_trace_app.sh ZINC TRACE_APP REF_PTX OUT PYTHON CHECK_PY TRACE_APP_RDC
# Runs tests/trace/trace_app.cu under `zinc trace`, checks the trace
# (check_trace.py), then under `zinc trace --capture` and replays its launch:
# it must match, and must fail when the recorded output or the recorded
# __constant__ input is changed.
set -u
zinc=$1 app=$2 ref=$3 out=$4 py=$5 check=$6 rdc=$7
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"
mkdir -p "$out"

"$zinc" trace -o "$out/plain" -- "$app" || fail "trace_app failed under zinc trace"
"$py" "$check" "$out/plain" "$ref" || fail "trace contents"

"$zinc" trace --capture -o "$out/cap" "$app" || fail "trace_app failed under zinc trace --capture"
l="$out/cap/launches/1"
[ -f "$l/launch.txt" ] || fail "no $l/launch.txt"
grep -q "^kernel _Z4axpbPKfS0_Pfi$" "$l/launch.txt" || fail "launch.txt names no kernel"
# the kernel writes buffer 2 (out): the replay must reproduce a change
cmp -s "$l/buf2.before" "$l/buf2.after" && fail "the output buffer did not change in the capture"
"$zinc" replay "$out/cap" 1 || fail "replay of an unchanged capture does not match"
"$zinc" replay "$out/cap" 2 || fail "replay of the cuLaunchKernelEx launch does not match"

# a recorded output byte changed: the replay must notice
cp -r "$out/cap" "$out/bad-after"
"$py" -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[40]^=0xff; open(p,'wb').write(b)" \
    "$out/bad-after/launches/1/buf2.after"
"$zinc" replay "$out/bad-after" 1
[ $? -eq 1 ] || fail "replay against a corrupted 'after' file did not report a mismatch"

# the __constant__ scale (a module global) is restored before the launch:
# 3.0 recorded as 5.0 must change every output
cp -r "$out/cap" "$out/bad-global"
g=$(awk '$1 == "buffer" && $5 == "scale" {print $2}' "$l/launch.txt")
[ -n "$g" ] || fail "the __constant__ 'scale' was not captured"
"$py" -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<f', 5.0))" \
    "$out/bad-global/launches/1/buf$g.before"
"$zinc" replay "$out/bad-global" 1
[ $? -eq 1 ] || fail "replay with a changed __constant__ input did not report a mismatch"
# -rdc: the containers of the wrapper's linked fatbins are saved, and the
# kernel found in their PTX is replayed
"$zinc" trace --capture -o "$out/rdc" "$rdc" || fail "the -rdc build failed under zinc trace --capture"
ls "$out"/rdc/modules/mod1/fatbin1.bin >/dev/null 2>&1 || fail "-rdc: no linked fatbin saved"
ls "$out"/rdc/modules/mod1/e1.*.ptx >/dev/null 2>&1 || fail "-rdc: no PTX of the linked fatbin saved"
"$zinc" replay "$out/rdc" 1 || fail "-rdc: replay does not match"
echo "PASS trace.app"
