/* zn_amdgpu.h: AMDGPU-specific IR fix-ups (zn_amdgpu.c). Private. */
#ifndef ZN_AMDGPU_H
#define ZN_AMDGPU_H

#include <llvm-c/Core.h>

/* The data layout to lower under: dl without its alloca address space
 * (malloc'd). */
char *zn_amdgpu_lowering_layout(const char *dl);
/* Sets the real data layout dl and moves every alloca to address space 5. */
void zn_amdgpu_private_allocas(LLVMModuleRef mod, const char *dl);

#endif
