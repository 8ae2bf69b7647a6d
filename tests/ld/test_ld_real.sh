#!/bin/sh
# test_ld_real.sh ZINC APP [PRELOAD]: APP is linked against NVIDIA's stub libcuda.so
# and libcublas.so.13 with a DT_RPATH (not RUNPATH: RPATH beats
# LD_LIBRARY_PATH) naming /usr/local/cuda/lib64/stubs and
# /usr/local/cuda/lib64. Under `zinc run` it must map Zinc's libcuda.so.1
# and libcublas.so.13 (and no NVIDIA library), and a kernel and a
# cublasSgemm must compute the CPU reference. Zinc's libraries are found
# the default way (the lib folder beside `zinc`). PRELOAD: sanitizer
# runtimes the app needs when Zinc's libraries are instrumented.
zinc=$1 app=$2 preload=${3:-}
fail=0
unset LD_AUDIT LD_PRELOAD ZINC_NO_AUDIT ZINC_LOG ZINC_LIB_DIR LD_LIBRARY_PATH
check() { # check WHAT GOT WANT
    if [ "$2" != "$3" ]; then echo "FAIL $1: got '$2', want '$3'"; fail=1; fi
}
field() { echo "$2" | head -1 | tr ' ' '\n' | sed -n "s|^$1=||p"; }
libdir=$(cd "$(dirname "$zinc")/../lib" && pwd -P)
readelf -d "$app" | grep -q "(RPATH).*/usr/local/cuda/lib64/stubs" ||
    { echo "FAIL $app has no DT_RPATH naming the stubs folder"; fail=1; }
readelf -d "$app" | grep -q "(RUNPATH)" && { echo "FAIL $app has a RUNPATH"; fail=1; }

# Without the audit library the RPATH wins for libcublas: NVIDIA's is
# mapped (so the check below can fail).
out=$(ZINC_NO_AUDIT=1 LD_PRELOAD=$preload "$zinc" run "$app" --paths 2>&1)
check "cublas without audit" "$(field cublas "$out")" /usr/local/cuda/lib64/libcublas.so.13

out=$(LD_PRELOAD=$preload "$zinc" run "$app" 2>&1)
echo "$out"
check "libcuda under zinc run" "$(readlink -f "$(field cuda "$out")")" "$libdir/libcuda.so.1"
check "libcublas under zinc run" "$(readlink -f "$(field cublas "$out")")" "$libdir/libcublas.so.13"
for lib in $(field all "$out" | tr ',' ' '); do
    case "$(readlink -f "$lib")" in
        "$libdir"/*) ;;
        *) echo "FAIL a library from outside Zinc's folder is mapped: $lib"; fail=1;;
    esac
done
echo "$out" | grep -q "^PASS real$" || { echo "FAIL kernel or cublasSgemm"; fail=1; }
[ $fail = 0 ] && echo "ld real NVIDIA rpath: all passed"
[ $fail = 0 ]
