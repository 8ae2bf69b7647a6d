#!/usr/bin/env bash
# run.sh ZINC BENCH_DIR: runs the CUDA benchmarks through `zinc run` and the
# C/OpenMP reference on the same sizes, then prints one table row each:
# benchmark, Zinc ms, C/OpenMP ms, ratio (Zinc / OpenMP), Zinc GB/s, OpenMP GB/s.
# Then the GEMM table: SGEMM / DGEMM through cuBLAS (gemm, under zinc run:
# Zinc's libcublas) against OpenBLAS from C (ref_gemm), median ms and GFLOP/s.
# ZINC_BENCH_4096=1 adds n = 4096 (a minute or more on two cores).
set -euo pipefail
zinc=${1:?usage: run.sh path/to/zinc bench-dir}
dir=${2:?usage: run.sh path/to/zinc bench-dir}

# bench_line OUTPUT NAME FIELD: the value of FIELD= in the "BENCH NAME" line.
field() {
    awk -v name="$2" -v key="$3" '$1 == "BENCH" && $2 == name {
        for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' <<<"$1"
}

ref_out=$("$dir/ref_omp") || { echo "run.sh: ref_omp failed" >&2; exit 1; }
printf '%-10s %12s %14s %8s %11s %11s\n' benchmark "Zinc ms" "C/OpenMP ms" ratio "Zinc GB/s" "OMP GB/s"
status=0
for b in saxpy reduce; do
    if ! out=$("$zinc" run -- "$dir/$b" 2>&1); then
        echo "run.sh: $b failed under zinc:" >&2
        echo "$out" | tail -5 >&2
        status=1
        continue
    fi
    zms=$(field "$out" "$b" ms)
    bytes=$(field "$out" "$b" bytes)
    rms=$(field "$ref_out" "$b" ms)
    awk -v b="$b" -v z="$zms" -v r="$rms" -v by="$bytes" 'BEGIN {
        printf "%-10s %12.3f %14.3f %8.2f %11.2f %11.2f\n", b, z, r, z / r, by / z / 1e6, by / r / 1e6 }'
done

echo
# Rounds alternate OpenBLAS and Zinc (ZINC_BENCH_ROUNDS, default 2); each
# row keeps the lowest median, which damps noise from other load on the
# machine hitting one side only.
gref= gout=
for ((r = 0; r < ${ZINC_BENCH_ROUNDS:-2}; r++)); do
    if ! o=$("$dir/ref_gemm"); then
        echo "run.sh: ref_gemm failed" >&2
        exit 1
    fi
    gref+=$o$'\n'
    if ! o=$("$zinc" run -- "$dir/gemm" 2>&1); then
        echo "run.sh: gemm failed under zinc:" >&2
        echo "$o" | tail -5 >&2
        exit 1
    fi
    gout+=$o$'\n'
done
# best NAME OUTPUT: the lowest ms= of NAME's lines.
best() { field "$2" "$1" ms | sort -g | head -1; }
printf '%-10s %12s %14s %8s %11s %11s\n' benchmark "Zinc ms" "OpenBLAS ms" ratio "Zinc GF/s" "OBLAS GF/s"
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
        printf "%-10s %12.3f %14.3f %8.2f %11.2f %11.2f\n", b, z, r, z / r, f / z / 1e6, f / r / 1e6 }'
done
exit $status
