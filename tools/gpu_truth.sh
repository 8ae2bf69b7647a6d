#!/usr/bin/env bash
# tools/gpu_truth.sh BIN OUT: runs Zinc's own test programs against the CUDA
# driver the machine has (on a machine with an NVIDIA GPU: NVIDIA's), to
# collect the ground truth the real GPU gives (docs/gpu-truth.md):
#   - the instruction sweep (zn_sweep) with --record: every lane's inputs and
#     the GPU's outputs, CI's quick sweep and the 10^5-input sample;
#   - test_misuse, every row named (NVIDIA's result for each misuse);
#   - the driver tests (test_drv_*) and the CUDA test programs (*_default).
# BIN holds those binaries as built here (bin/zn_sweep, bin/test_misuse,
# bin/test_drv_*, bin/cuda/*, bin/faults/*); run from the repository root.
# Writes OUT/summary.txt, OUT/logs.tgz and the sweep records (xz).
# GPU_TRUTH_RECORD=0 skips the two recorded sweeps (a re-check after
# changes: the nightly sweep and the programs only).
set -u
bin=$(realpath "$1")
out=$(realpath -m "$2")
mkdir -p "$out"
logs=$(mktemp -d)
par=${GPU_TRUTH_JOBS:-8}
xzf() { python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(open(sys.argv[1],"rb"), lzma.open(sys.argv[2],"wb",preset=3))' "$1" "$2"; }

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  ldconfig -p | grep libcuda; uname -srm; head -2 /etc/os-release; nproc; } >"$logs/info.txt" 2>&1

sweep() {  # sweep NAME N [ARGS...]: one sweep run, recorded
    local name=$1 n=$2
    shift 2
    ZINC_SWEEP_N=$n timeout 150 "$bin/zn_sweep" --lib libcuda.so.1 --ptxas none \
        --known tests/sweep/known_failures.txt --record "$logs/$name.tsv" "$@" \
        >"$logs/$name.txt" 2>&1
    echo "rc $?" >>"$logs/$name.txt"
    xzf "$logs/$name.tsv" "$out/$name.tsv.xz" && rm "$logs/$name.tsv"
}
sample_forms=$(sed -n 's/^  \(=sqrt_rn_f32,.*\))$/\1/p' tests/sweep/CMakeLists.txt)
( if [ "${GPU_TRUTH_RECORD:-1}" != 0 ]; then
      sweep sweep_quick 256
      sweep sweep_sample ${GPU_TRUTH_SAMPLE_N:-100000} --only "$sample_forms"
  fi
  ZINC_SWEEP_N=${GPU_TRUTH_NIGHTLY_N:-25600} timeout 150 "$bin/zn_sweep" --lib libcuda.so.1 --ptxas none \
      --known tests/sweep/known_failures.txt >"$logs/sweep_nightly.txt" 2>&1
  echo "rc $?" >>"$logs/sweep_nightly.txt" ) &

# each misuse row in its own process group of rows: $par at once
mkdir -p "$logs/misuse"
sed -n 's/^ROW(\([a-z0-9_]*\),.*/\1/p' tests/misuse/misuse_rows.def |
    xargs -P "$par" -n 40 sh -c 'timeout 200 "$0" "$@" >"'"$logs"'/misuse/$1.txt" 2>&1' \
        "$bin/test_misuse" &

# the driver tests and the CUDA programs: one log each, "rc N" last
mkdir -p "$logs/drv" "$logs/cuda"
run_one() {  # run_one LOGDIR EXE
    local log=$1/$(basename "$2").txt
    timeout 150 "$2" >"$log" 2>&1
    echo "rc $?" >>"$log"
}
export -f run_one
ls "$bin"/test_drv_* "$bin"/cuda/* "$bin"/faults/* 2>/dev/null | while read -r exe; do
    case $exe in */cuda/*) echo "$logs/cuda $exe" ;; *) echo "$logs/drv $exe" ;; esac
done | xargs -P "$par" -n 2 bash -c 'run_one "$0" "$1"' &
wait

{ echo "== machine"; cat "$logs/info.txt"
  for s in sweep_quick sweep_sample sweep_nightly; do
      [ -f "$logs/$s.txt" ] || continue
      echo "== $s"; grep -E "FAIL|^sweep:|^rc " "$logs/$s.txt"; done
  echo "== misuse (rows whose result differs from the table)"
  cat "$logs"/misuse/*.txt | grep -Ev '^ok ' | grep -v '^test_misuse:'
  echo "== driver tests"
  for f in "$logs"/drv/*.txt; do echo "$(basename "$f" .txt): $(tail -1 "$f") $(grep -c FAIL "$f") FAIL lines"; done
  echo "== cuda programs"
  for f in "$logs"/cuda/*.txt; do echo "$(basename "$f" .txt): $(tail -1 "$f")"; done
} >"$out/summary.txt" 2>&1
tar -C "$logs" -czf "$out/logs.tgz" .
