#!/bin/sh
# test_trace_drv.sh ZINC DRV_APP OUT
# A driver-API program (cuModuleLoadData of PTX text, a struct parameter
# holding a device pointer, a .global variable) under `zinc trace
# --capture`, then `zinc replay` of its launch. Needs no CUDA toolkit.
set -u
zinc=$1 app=$2 out=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"
mkdir -p "$out"
"$zinc" trace --capture -o "$out/t" -- "$app" || fail "drv_app failed under zinc trace"
log="$out/t/log.txt"
for pat in 'cuModuleLoadData(->0x[0-9a-f]*, 0x[0-9a-f]*) = CUDA_SUCCESS (' \
           'cuModuleGetFunction(->0x[0-9a-f]*, 0x[0-9a-f]*, "scale_bias") = CUDA_SUCCESS (' \
           'cuModuleGetGlobal_v2(->0x[0-9a-f]*, ->4, 0x[0-9a-f]*, "gbias") = CUDA_SUCCESS (' \
           'cuLaunchKernel(0x[0-9a-f]*, 4, 1, 1, 256, 1, 1, 0, NULL, 0x[0-9a-f]*, NULL) = CUDA_SUCCESS (' \
           '# launch 1: scale_bias grid (4,1,1) block (256,1,1) shared 0 stream 0x0 params \[0\] 16:[0-9a-f]\{16\}e803000000000000 \[1\] 4:00004040$'; do
    grep -q "$pat" "$log" || fail "log.txt has no line matching: $pat"
done
"$app" --ptx > "$out/ref.ptx"
cmp -s "$out/ref.ptx" "$out/t/modules/mod1/image.ptx" || fail "modules/mod1/image.ptx differs from the PTX loaded"
l="$out/t/launches/1/launch.txt"
grep -q "^patch 0 0 0$" "$l" || fail "the pointer inside the struct parameter was not found"
grep -q "^buffer 1 4 0x[0-9a-f]* gbias$" "$l" || fail "the .global gbias was not captured"
"$zinc" replay "$out/t" 1 || fail "replay does not match"
grep -q '# launch 2: scale_bias grid (2,1,1) block (512,1,1) shared 0 stream 0x0 params buffer 20:[0-9a-f]*00004040$' "$log" \
    || fail "no record of the launch with parameters in 'extra'"
grep -q "^patch 0 0 0$" "$out/t/launches/2/launch.txt" || fail "'extra' launch: pointer not found"
"$zinc" replay "$out/t" 2 || fail "replay of the 'extra' launch does not match"
cp -r "$out/t" "$out/bad"
# (dd is no friend of an LD_PRELOADed sanitizer runtime)
printf '\001' | env -u LD_PRELOAD dd of="$out/bad/launches/1/buf0.after" bs=1 seek=100 conv=notrunc 2>/dev/null
"$zinc" replay "$out/bad" 1
[ $? -eq 1 ] || fail "replay against a corrupted 'after' file did not report a mismatch"
echo "PASS trace.drv"
