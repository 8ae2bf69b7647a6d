#!/usr/bin/env bash
# run.sh ZINC BENCH_DIR CL_DIR: the benchmark suite. Each CUDA program runs
# through `zinc run` and, in the same process on the same data, times the
# C/OpenMP reference and a memcpy of the same bytes and checks its result
# against C; ocl_bench (when built) runs the same kernels in OpenCL C on
# PoCL; reduce.cu's C baseline is ref_omp. Prints one table (time, GB/s or
# GFLOP/s, Zinc/C, Zinc/PoCL, % of memcpy bandwidth), the empty-kernel
# launch time, then the cuBLAS GEMM table (gemm through Zinc's cuBLAS
# against OpenBLAS from C). Any failed result check fails the script.
#   ZINC_BENCH_ROUNDS=k  runs everything k times and keeps the fastest
#                        time of each row (default 1; noise of other load).
#   ZINC_BENCH_TINY=1    tiny sizes: checks results in seconds (CTest).
#   ZINC_BENCH_4096=1    adds n = 4096 to the GEMM table.
set -euo pipefail
zinc=${1:?usage: run.sh path/to/zinc bench-dir cl-dir}
dir=${2:?usage: run.sh path/to/zinc bench-dir cl-dir}
cldir=${3:?usage: run.sh path/to/zinc bench-dir cl-dir}
rounds=${ZINC_BENCH_ROUNDS:-1}
suite="saxpy triad reduce reduce_warp sgemm stencil histogram softmax scan transpose nbody mmvq mmvq_thin"
programs=${suite% mmvq_thin}   # mmvq prints both mmvq rows
status=0

# fail WHAT OUTPUT: report a failed program and its last lines.
fail() {
    echo "run.sh: FAIL $1:" >&2
    tail -5 <<<"$2" >&2
    status=1
}

# One stream of "BENCH name src=... ms=..." lines from every round.
all=
for ((r = 0; r < rounds; r++)); do
    if o=$("$dir/ref_omp" 2>&1); then   # reduce.cu's C baseline (no src=)
        all+=$(sed -n 's/^BENCH reduce \(.*\)/BENCH reduce src=c \1/p' <<<"$o")$'\n'
    else
        fail ref_omp "$o"
    fi
    for b in $programs launch; do
        if o=$("$zinc" run -- "$dir/$b" 2>&1); then
            [ "$b" = reduce ] && o=$(sed 's/^BENCH reduce n=/BENCH reduce src=zinc n=/' <<<"$o")
            all+=$o$'\n'
        else
            fail "$b (under zinc)" "$o"
        fi
    done
    if [ -x "$dir/ocl_bench" ]; then
        if o=$("$dir/ocl_bench" "$cldir" 2>&1); then
            all+=$o$'\n'
        else
            fail ocl_bench "$o"
        fi
    fi
done
grep -q '^SKIP pocl' <<<"$all" && grep -m1 '^SKIP pocl' <<<"$all"
[ -x "$dir/ocl_bench" ] || echo "SKIP pocl: ocl_bench not built (no OpenCL at configure time)"

# The table: lowest ms of each (name, src); throughput from bytes (GB/s)
# or, where a kernel moves no counted bytes, flops (GFLOP/s).
awk -v suite="$suite" '
$1 == "BENCH" && $3 ~ /^src=/ {
    name = $2; split($3, s, "="); src = s[2]
    for (i = 4; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    key = name SUBSEP src
    if (!(key in ms) || f["ms"] + 0 < ms[key]) ms[key] = f["ms"] + 0
    if (src == "zinc") { bytes[name] = f["bytes"] + 0; flops[name] = f["flops"] + 0 }
}
function cell(name, src) { return (name SUBSEP src) in ms ? sprintf("%10.3f", ms[name SUBSEP src]) : sprintf("%10s", "-") }
END {
    printf "%-11s %10s %10s %10s %13s %8s %10s %9s\n", "benchmark", "Zinc ms", "C ms", "PoCL ms", "Zinc rate", "Zinc/C", "Zinc/PoCL", "%memcpy"
    n = split(suite, names, " "); logsum = 0; cnt = 0
    for (k = 1; k <= n; k++) {
        b = names[k]
        if (!((b SUBSEP "zinc") in ms)) { printf "%-11s %10s\n", b, "FAILED"; continue }
        z = ms[b SUBSEP "zinc"]
        rate = bytes[b] > 0 ? sprintf("%8.2f GB/s", bytes[b] / z / 1e6) : sprintf("%6.2f GFLOP/s", flops[b] / z / 1e6)
        rc = (b SUBSEP "c") in ms ? sprintf("%8.2f", z / ms[b SUBSEP "c"]) : sprintf("%8s", "-")
        rp = (b SUBSEP "pocl") in ms ? sprintf("%10.2f", z / ms[b SUBSEP "pocl"]) : sprintf("%10s", "-")
        rm = (b SUBSEP "memcpy") in ms ? sprintf("%8.0f%%", 100 * ms[b SUBSEP "memcpy"] / z) : sprintf("%9s", "-")
        printf "%-11s %10.3f %s %s %13s %s %s %s\n", b, z, cell(b, "c"), cell(b, "pocl"), rate, rc, rp, rm
        if ((b SUBSEP "c") in ms) { logsum += log(z / ms[b SUBSEP "c"]); cnt++ }
    }
    if (cnt) printf "geomean Zinc/C over %d kernels: %.2f\n", cnt, exp(logsum / cnt)
    for (k = 1; k <= 2; k++) {
        b = k == 1 ? "launch" : "launch_sync"
        what = k == 1 ? "empty-kernel launch (async, per launch)" : "empty-kernel launch + synchronize"
        if ((b SUBSEP "zinc") in ms)
            printf "%s: Zinc %.2f us, PoCL %s us\n", what, 1000 * ms[b SUBSEP "zinc"],
                   (b SUBSEP "pocl") in ms ? sprintf("%.2f", 1000 * ms[b SUBSEP "pocl"]) : "-"
    }
}' <<<"$all"
[ -x "$dir/ocl_bench" ] && ! grep -q '^SKIP pocl' <<<"$all" && ! grep -q 'src=pocl' <<<"$all" && status=1

echo
# field OUTPUT NAME FIELD: the values of FIELD= in the "BENCH NAME" lines.
field() {
    awk -v name="$2" -v key="$3" '$1 == "BENCH" && $2 == name {
        for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' <<<"$1"
}
# Rounds alternate OpenBLAS and Zinc (at least 2 unless tiny); each row
# keeps the lowest median, which damps noise hitting one side only.
grounds=$rounds
[ "${ZINC_BENCH_TINY:-0}" = 1 ] || [ "$grounds" -ge 2 ] || grounds=2
gref= gout=
for ((r = 0; r < grounds; r++)); do
    if ! o=$("$dir/ref_gemm" 2>&1); then
        fail ref_gemm "$o"
        exit 1
    fi
    gref+=$o$'\n'
    if ! o=$("$zinc" run -- "$dir/gemm" 2>&1); then
        fail "gemm (under zinc)" "$o"
        exit 1
    fi
    gout+=$o$'\n'
done
# best NAME OUTPUT: the lowest ms= of NAME's lines.
best() { field "$2" "$1" ms | sort -g | head -1; }
printf '%-11s %10s %12s %8s %11s %11s\n' "cuBLAS" "Zinc ms" "OpenBLAS ms" ratio "Zinc GF/s" "OBLAS GF/s"
for b in $(awk '$1 == "BENCH" && !seen[$2]++ { print $2 }' <<<"$gref"); do
    zms=$(best "$b" "$gout")
    rms=$(best "$b" "$gref")
    flops=$(field "$gref" "$b" flops | head -1)
    if [ -z "$zms" ]; then
        echo "run.sh: no $b line from gemm under zinc" >&2
        status=1
        continue
    fi
    awk -v b="$b" -v z="$zms" -v r="$rms" -v f="$flops" 'BEGIN {
        printf "%-11s %10.3f %12.3f %8.2f %11.2f %11.2f\n", b, z, r, z / r, f / z / 1e6, f / r / 1e6 }'
done
[ $status = 0 ] && echo "run.sh: every result matches its C reference" || echo "run.sh: FAILURES above" >&2
exit $status
