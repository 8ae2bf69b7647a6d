#!/bin/sh
# Regenerates the nvcc samples in tests/ptx from cu/*.cu (needs the CUDA
# toolkit; the tests themselves only read the committed .ptx files).
# hand_sm90.ptx is written by hand and is not regenerated.
set -e
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for b in arith sync funcs half; do
    $NVCC -ptx cu/$b.cu -o ${b}_sm75.ptx
    $NVCC -ptx -arch=sm_90 cu/$b.cu -o ${b}_sm90.ptx
done
for a in 75 89 90; do
    $NVCC -ptx -arch=sm_$a cu/modern.cu -o modern_sm$a.ptx
done
$NVCC -ptx -lineinfo -arch=sm_80 cu/funcs.cu -o funcs_lineinfo_sm80.ptx
$NVCC -ptx -G -arch=sm_75 cu/sync.cu -o sync_debug_sm75.ptx
$NVCC -ptx -arch=sm_75 cu/tex.cu -o tex_sm75.ptx
$NVCC -ptx -arch=sm_75 cu/tex_opts.cu -o tex_opts_sm75.ptx
$NVCC -ptx -arch=sm_80 cu/thrust_algos.cu -o thrust_sm80.ptx
# the toolkit headers' device code (issue #3): libcu++ barrier/pipeline
# (software, mbarrier, try_wait + cp.async.bulk), atomics, fp16/bf16
for a in 75 80 90; do
    $NVCC -ptx -arch=sm_$a -I../cuda ../cuda/libcu_barrier.cu -o libcu_barrier_sm$a.ptx
done
$NVCC -ptx -arch=sm_90 -I../cuda ../cuda/libcu_atomic.cu -o libcu_atomic_sm90.ptx
$NVCC -ptx -arch=sm_90 -I../cuda ../cuda/libcu_half.cu -o libcu_half_sm90.ptx
