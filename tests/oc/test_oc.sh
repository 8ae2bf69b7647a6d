#!/bin/sh
# test_oc.sh ZINC KERNELS_PTX SMALL_PTX BAD_PTX: `zinc oc` end to end.
# Every stage is emitted and checked with an independent tool (ptxas,
# llvm-as, file magic); other targets; -v; --ignore-errors; bad input;
# fatbin and executable input when nvcc is there.
set -u
ZINC=$1 KPTX=$2 SMALL=$3 BAD=$4
K=$(basename "$KPTX" .ptx)
LLVM_AS=${LLVM_AS:-/usr/lib/llvm-19/bin/llvm-as}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
T=$(mktemp -d /tmp/zn-oc-test-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# ELF magic and e_machine (62 x86-64, 183 aarch64, 224 amdgpu)
elf_machine() { od -An -tu2 -j18 -N2 "$1" | tr -d ' '; }
is_elf() { [ "$(head -c4 "$1" | od -An -c | tr -d ' ')" = "177ELF" ]; }
kernels_of() { sed -n 's/^\.visible \.entry \([A-Za-z0-9_$]*\)(.*/\1/p' "$1"; }

# ---- every stage, native -----------------------------------------------------
"$ZINC" oc --emit ptx,llvm,llvm-linked,llvm-opt,asm,obj -o "$T/all" "$KPTX" \
    2>"$T/all.err" || fail "all stages: exit $? ($(cat "$T/all.err"))"
for ext in ptx ll linked.ll opt.ll s o; do
    [ -s "$T/all/$K.$ext" ] || fail "stage output $K.$ext missing"
done
if [ -x "$PTXAS" ]; then
    "$PTXAS" -arch=sm_80 "$T/all/$K.ptx" -o "$T/ptxas.o" || fail "ptxas rejects the printed PTX"
else
    echo "note: $PTXAS not found: the printed PTX is not checked by ptxas"
fi
for ll in ll linked.ll opt.ll; do
    "$LLVM_AS" "$T/all/$K.$ll" -o /dev/null || fail "llvm-as rejects $K.$ll"
done
grep -q 'target triple = "x86_64' "$T/all/$K.ll" || fail "llvm IR has no x86-64 triple"
for k in $(kernels_of "$KPTX"); do
    grep -q "^zk_$k:" "$T/all/$K.s" || fail "asm lacks kernel symbol zk_$k"
done
is_elf "$T/all/$K.o" && [ "$(elf_machine "$T/all/$K.o")" = 62 ] ||
    fail "obj is not an x86-64 ELF"

# ---- one output to a file, to stdout; optimisation levels ----------------------
"$ZINC" oc --emit asm -O0 -o "$T/small.s" "$SMALL" && grep -q "^zk_k:" "$T/small.s" ||
    fail "-o FILE with one stage"
"$ZINC" oc --emit=llvm-opt -O1 -o - "$SMALL" | "$LLVM_AS" -o /dev/null - ||
    fail "-o - (stdout) llvm-opt"
"$ZINC" oc --emit llvm -o - "$SMALL" | grep -q '@zg_gtab = external' ||
    fail "module variables should be external symbols zg_<name>"

# ---- --block: code for one block shape (%tid from the warp index) -----------------
"$ZINC" oc --block 128 --emit llvm -o "$T/b128.ll" "$SMALL" || fail "--block 128: exit $?"
grep -q '%tid.x = add <32 x i32>' "$T/b128.ll" || fail "--block 128: %tid.x not computed"
"$ZINC" oc --block 128,1,1 --emit asm -o "$T/b128.s" "$SMALL" && grep -q "^zk_k:" "$T/b128.s" ||
    fail "--block 128,1,1 asm"
"$ZINC" oc --emit llvm -o "$T/generic.ll" "$SMALL" && ! grep -q '%tid.x = add' "$T/generic.ll" ||
    fail "generic code should load %tid"

# ---- other targets ---------------------------------------------------------------
"$ZINC" oc --arch x86-64-v3 --emit asm,obj -o "$T/v3" "$SMALL" &&
    grep -q "^zk_k:" "$T/v3/small.s" || fail "x86-64-v3"
"$ZINC" oc --arch aarch64 --emit asm,obj -o "$T/a64" "$SMALL" || fail "aarch64: exit $?"
grep -q "^zk_k:" "$T/a64/small.s" || fail "aarch64 asm lacks zk_k"
is_elf "$T/a64/small.o" && [ "$(elf_machine "$T/a64/small.o")" = 183 ] ||
    fail "aarch64 obj is not an AArch64 ELF"
for gfx in gfx1100 gfx1030; do
    "$ZINC" oc --gpu-name $gfx --emit llvm,asm,obj -o "$T/$gfx" "$SMALL" || fail "$gfx: exit $?"
    grep -q 'target triple = "amdgcn-amd-amdhsa"' "$T/$gfx/small.ll" || fail "$gfx: IR triple"
    "$LLVM_AS" "$T/$gfx/small.ll" -o /dev/null || fail "$gfx: llvm-as rejects the IR"
    grep -q "^zk_k:" "$T/$gfx/small.s" || fail "$gfx asm lacks zk_k"
    grep -q "amdgcn-amd-amdhsa--$gfx" "$T/$gfx/small.s" || fail "$gfx asm has no $gfx target"
    is_elf "$T/$gfx/small.o" && [ "$(elf_machine "$T/$gfx/small.o")" = 224 ] ||
        fail "$gfx obj is not an AMDGPU ELF"
done

# ---- -v: a report for every kernel ---------------------------------------------
"$ZINC" oc -v --emit obj -o "$T/v.o" "$KPTX" 2>"$T/v.txt" || fail "-v: exit $?"
for k in $(kernels_of "$KPTX"); do
    grep -q "Function properties for $k\$" "$T/v.txt" || fail "-v does not list $k"
done
n=$(kernels_of "$KPTX" | wc -l)
[ "$(grep -c 'bytes stack frame, .* vector width 32' "$T/v.txt")" = "$n" ] ||
    fail "-v: expected $n resource lines"
grep -q "parse .* ms, lower .* ms, optimise .* ms, codegen .* ms" "$T/v.txt" ||
    fail "-v: no stage times"
# a kernel that waits on another block's flag gets its blocks one at a time
"$ZINC" oc -v --emit obj -o "$T/poll.o" "$(dirname "$SMALL")/poll.ptx" 2>"$T/poll.txt" &&
    grep -q "polls other blocks: yes" "$T/poll.txt" || fail "-v: poll.ptx should poll"
"$ZINC" oc -v --emit obj -o "$T/small.o" "$SMALL" 2>"$T/small.txt" &&
    grep -q "polls other blocks: no" "$T/small.txt" || fail "-v: small.ptx should not poll"
"$ZINC" oc -v --arch gfx1100 --emit asm -o "$T/g.s" "$SMALL" 2>"$T/g.txt" &&
    grep -q "Function properties for k" "$T/g.txt" || fail "-v for gfx1100"

# ---- failures: per kernel, --ignore-errors, bad input ------------------------------
"$ZINC" oc --emit asm -o "$T/bad.s" "$BAD" 2>"$T/bad.txt"
[ $? = 1 ] || fail "a failing kernel should exit 1"
grep -q "two_kernels_one_bad.ptx:14:2: .*kernel 'bad'\|kernel 'bad' failed: .*two_kernels_one_bad.ptx:14:2" \
    "$T/bad.txt" || fail "failing kernel not named with its position: $(cat "$T/bad.txt")"
"$ZINC" oc --ignore-errors --emit asm -o "$T/ign.s" "$BAD" 2>"$T/ign.txt" ||
    fail "--ignore-errors should succeed when a kernel compiles"
grep -q "kernel 'bad' skipped" "$T/ign.txt" || fail "--ignore-errors does not say what it skipped"
grep -q "^zk_good:" "$T/ign.s" && ! grep -q "^zk_bad:" "$T/ign.s" ||
    fail "--ignore-errors output should hold good and not bad"

# a backend that dies on one kernel (fault injection): that kernel is named,
# the other still compiles
TWO=$(dirname "$SMALL")/two_kernels.ptx
for arch in native gfx1100; do
    ZINC_TEST_CODEGEN_DIE=zk_conv "$ZINC" oc --arch $arch --emit asm,obj -o "$T/die-$arch" \
        "$TWO" 2>"$T/die.txt"
    [ $? = 1 ] || fail "$arch: codegen death should exit 1"
    grep -q "kernel 'conv' failed: .*Cannot select: zk_conv" "$T/die.txt" ||
        fail "$arch: codegen death not reported per kernel: $(cat "$T/die.txt")"
    grep -q "^zk_plain:" "$T/die-$arch/two_kernels.s" && ! grep -q "^zk_conv:" "$T/die-$arch/two_kernels.s" ||
        fail "$arch: output should hold plain and not conv"
    is_elf "$T/die-$arch/two_kernels.o" || fail "$arch: no object after a kernel failed"
done
ZINC_TEST_CODEGEN_DIE=zk_conv "$ZINC" oc --ignore-errors --emit asm -o "$T/die.s" "$TWO" 2>/dev/null ||
    fail "--ignore-errors after a codegen death"

expect_error() { # what, pattern, args...
    what=$1 pat=$2
    shift 2
    "$ZINC" oc "$@" >"$T/e.out" 2>"$T/e.err"
    rc=$?
    [ $rc = 1 ] || fail "$what: exit $rc, want 1"
    grep -q "$pat" "$T/e.err" || fail "$what: message '$(cat "$T/e.err")' lacks '$pat'"
}
expect_error "missing file" "cannot open" "$T/none.ptx"
expect_error "--block 0" "block wants" --block 0 "$SMALL"
expect_error "--block 16x16" "block wants" --block 16x16 "$SMALL"
expect_error "--block over 1024 threads" "block wants" --block 1024,2 "$SMALL"
head -c 4096 /dev/urandom >"$T/junk.bin"
printf 'XXXX' | dd of="$T/junk.bin" conv=notrunc 2>/dev/null
expect_error "junk input" "not PTX, a fatbin" "$T/junk.bin"
printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(\n{\n ret;\n}\n' >"$T/syn.ptx"
expect_error "syntax error" "syn.ptx:5:1:" "$T/syn.ptx"
expect_error "unknown stage" "unknown --emit stage" --emit bogus "$SMALL"
expect_error "unknown option" "unknown or incomplete option" --frobnicate "$SMALL"
expect_error "no input" "no input file" --emit asm
"$ZINC" oc --version | grep -q "^zinc oc " || fail "--version"

# ---- fatbin and executable input (nvcc) ---------------------------------------------
if [ -x "$NVCC" ]; then
    cat >"$T/two.cu" <<'CU'
__global__ void first_kernel(float *x) { x[threadIdx.x] *= 2.0f; }
__global__ void second_kernel(int *y, int n) { if (threadIdx.x < n) y[threadIdx.x] += n; }
int main() { return 0; }
CU
    "$NVCC" -arch=sm_75 -o "$T/two" "$T/two.cu" && "$NVCC" -arch=sm_75 -fatbin -o "$T/two.fatbin" "$T/two.cu" ||
        fail "nvcc"
    for input in "$T/two" "$T/two.fatbin"; do
        "$ZINC" oc -v --emit ptx,asm -o "$T/fb" "$input" 2>"$T/fb.txt" || fail "$input: exit $?"
        for k in _Z12first_kernelPf _Z13second_kernelPii; do
            grep -q "Function properties for $k" "$T/fb.txt" || fail "$input: -v lacks $k"
            grep -q "^zk_$k:" "$T/fb/two.s" || fail "$input: asm lacks $k"
        done
    done
else
    echo "note: nvcc not found: fatbin/executable input not checked"
fi

[ $fails = 0 ] && echo "zinc oc: all checks passed"
[ $fails = 0 ]
