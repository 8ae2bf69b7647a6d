#!/bin/sh
# test_cache_warm.sh ZINC PROG: `zinc cache warm PROG` fills an empty cache
# so that the next run of PROG only hits it (the log lines of
# src/compile/zn_jit.c's loader: "kernel cache: hit/miss"). The program
# has two kernels: one cache entry (compiled unit) each.
zinc=$1 prog=$2
fail=0
dir=$(mktemp -d "${TMPDIR:-/tmp}/zinc-warm-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
export CUDA_CACHE_PATH=$dir
unset CUDA_CACHE_DISABLE ZINC_DUMP_IR

out=$("$zinc" cache warm "$prog") || { echo "FAIL warm status: $out"; fail=1; }
echo "$out" | grep -q "^warmed 1 module (2 compiled and stored, 0 already cached)" ||
    { echo "FAIL warm output: '$out'"; fail=1; }
entries=$("$zinc" cache info | sed -n 's/^entries: *//p')
[ "$entries" = 2 ] || { echo "FAIL cache entries after warm: '$entries', want 2"; fail=1; }

log=$(ZINC_LOG=2 "$zinc" run "$prog" 2>&1) || { echo "FAIL run after warm: $log"; fail=1; }
echo "$log" | grep -q "PASS prof_two_kernels" || { echo "FAIL program output"; fail=1; }
hits=$(echo "$log" | grep -c "kernel cache: hit ")
misses=$(echo "$log" | grep -c "kernel cache: miss ")
[ "$hits" -ge 1 ] || { echo "FAIL no cache hit in the run after warm"; fail=1; }
[ "$misses" = 0 ] || { echo "FAIL $misses cache miss(es) in the run after warm"; fail=1; }

# Warming again finds everything cached; nonsense input fails.
out=$("$zinc" cache warm "$prog")
echo "$out" | grep -q "0 compiled and stored, 2 already cached" || { echo "FAIL rewarm: '$out'"; fail=1; }
"$zinc" cache warm /nonexistent/app >/dev/null 2>&1 && { echo "FAIL warm of a missing file succeeded"; fail=1; }
"$zinc" cache warm 2>/dev/null; [ $? = 2 ] || { echo "FAIL warm without APP: want status 2"; fail=1; }

[ $fail = 0 ] && echo "zinc cache warm: all passed"
exit $fail
