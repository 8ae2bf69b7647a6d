/* zn_amdgpu.c: making the warp-SIMD IR acceptable to the AMDGPU backend.
 * The lowering builds stack slots in address space 0; AMDGPU keeps them in
 * private memory (address space 5, the "A5" of its data layout). The
 * module is lowered under the data layout without "-A5", then every alloca
 * moves to address space 5 behind an addrspacecast to a flat pointer. */
#include "zn_amdgpu.h"

#include <stdlib.h>
#include <string.h>

char *zn_amdgpu_lowering_layout(const char *dl)
{
    char *s = strdup(dl);
    char *a = strstr(s, "-A5");
    if (a)
        memmove(a, a + 3, strlen(a + 3) + 1);
    return s;
}

static void move_alloca(LLVMBuilderRef b, LLVMValueRef old)
{
    LLVMPositionBuilderBefore(b, old);
    LLVMTypeRef ty = LLVMGetAllocatedType(old);
    LLVMValueRef n = LLVMBuildAlloca(b, ty, "");
    LLVMSetAlignment(n, LLVMGetAlignment(old));
    LLVMValueRef flat = LLVMBuildAddrSpaceCast(b, n, LLVMTypeOf(old), "");
    LLVMReplaceAllUsesWith(old, flat);
    LLVMInstructionEraseFromParent(old);
}

void zn_amdgpu_private_allocas(LLVMModuleRef mod, const char *dl)
{
    LLVMSetDataLayout(mod, dl);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
             bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef i = LLVMGetFirstInstruction(bb);
            while (i) {
                LLVMValueRef next = LLVMGetNextInstruction(i);
                if (LLVMGetInstructionOpcode(i) == LLVMAlloca &&
                    LLVMGetPointerAddressSpace(LLVMTypeOf(i)) == 0)
                    move_alloca(b, i);
                i = next;
            }
        }
    LLVMDisposeBuilder(b);
}
