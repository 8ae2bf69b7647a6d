/* zn_half_fcmp.c: compares of half vectors as compares of float vectors.
 *
 * The lowering tests f32 values for NaN (zn_f32_to_half's canonical NaN,
 * the f32 flush of a converted half), and InstCombine narrows such a test
 * through an fptrunc or fpext to a compare of the `<32 x half>` itself (the
 * NaN-ness is the same). x86 without AVX512-FP16 (Zen 4, Intel before
 * Sapphire Rapids) has no half compare, and the backend scalarizes it: per
 * lane an extract, vcvtph2ps and vucomiss, 32 of each per compare. ggml's
 * `mul_mat_vec<half, half>` (half2 accumulation) had twelve: 448 ns per
 * 32-thread block on one Zen 4 worker. After the optimiser, each such
 * compare becomes the same compare of the operands widened to float
 * (exact), which the backend does with one vcvtph2ps and vcmpps per 16
 * lanes. No later pass narrows it back (only inlining and globaldce run
 * after this). */
#include "zn_pipeline.h"

static bool is_half_vector(LLVMTypeRef ty)
{
    return LLVMGetTypeKind(ty) == LLVMVectorTypeKind &&
           LLVMGetTypeKind(LLVMGetElementType(ty)) == LLVMHalfTypeKind;
}

/* the fcmps of half vectors in f, widened */
static void widen_function(LLVMBuilderRef b, LLVMValueRef f)
{
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef next;
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
            next = LLVMGetNextInstruction(i);
            if (LLVMGetInstructionOpcode(i) != LLVMFCmp ||
                !is_half_vector(LLVMTypeOf(LLVMGetOperand(i, 0))))
                continue;
            LLVMTypeRef ty = LLVMTypeOf(LLVMGetOperand(i, 0));
            LLVMTypeRef wide = LLVMVectorType(LLVMFloatTypeInContext(LLVMGetTypeContext(ty)),
                                              LLVMGetVectorSize(ty));
            LLVMPositionBuilderBefore(b, i);
            LLVMValueRef x = LLVMBuildFPExt(b, LLVMGetOperand(i, 0), wide, "");
            LLVMValueRef y = LLVMBuildFPExt(b, LLVMGetOperand(i, 1), wide, "");
            LLVMValueRef c = LLVMBuildFCmp(b, LLVMGetFCmpPredicate(i), x, y, "");
            if (LLVMCanValueUseFastMathFlags(c))
                LLVMSetFastMathFlags(c, LLVMGetFastMathFlags(i));
            LLVMReplaceAllUsesWith(i, c);
            LLVMInstructionEraseFromParent(i);
        }
    }
}

void zn_widen_half_fcmp(LLVMModuleRef mod, const zn_target *t)
{
    if (t->amdgpu || zn_features_have(t->features, "avx512fp16") ||
        zn_features_have(t->features, "fullfp16"))
        return;
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f))
            widen_function(b, f);
    LLVMDisposeBuilder(b);
}
