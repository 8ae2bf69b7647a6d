#!/usr/bin/env bash
# run.sh ZINC BENCH_DIR: runs the CUDA benchmarks through `zinc run` and the
# C/OpenMP reference on the same sizes, then prints one table row each:
# benchmark, Zinc ms, C/OpenMP ms, ratio (Zinc / OpenMP), Zinc GB/s, OpenMP GB/s.
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
exit $status
