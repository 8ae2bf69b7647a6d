/* zn_guard.h: code generation in a child process, and cutting kernels out
 * of a module (zn_codegen_guard.c). Private to compile/. */
#ifndef ZN_GUARD_H
#define ZN_GUARD_H

#include "zn_pipeline.h"

/* zn_emit in a child process: 0 and the malloc'd bytes, or -1 with LLVM's
 * message even when the backend exits or crashes. */
int zn_guarded_emit(LLVMModuleRef mod, const zn_target *t, LLVMCodeGenFileType kind,
                    char **out, size_t *len, char *err, size_t errlen);
/* Turns function sym into a bare declaration (its body is dropped). */
void zn_drop_kernel(LLVMModuleRef mod, const char *sym);
/* Removes what nothing uses any more (globaldce). */
void zn_strip_unused(LLVMModuleRef mod, const zn_target *t);

#endif
