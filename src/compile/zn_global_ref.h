/* zn_global_ref.h: how compiled code names module .global/.const variables.
 *
 * Not by address: generated code refers to an external symbol per variable
 * (zn_global_symbol), which the loader defines as an absolute symbol at the
 * caller's address (zn_compile_opts.globals). The object code is therefore
 * the same in every run and can be cached on disk.
 */
#ifndef ZN_GLOBAL_REF_H
#define ZN_GLOBAL_REF_H

#include <stddef.h>
#include "zn_lower.h"

/* <32 x i64> splat of the address of module variable v. */
LLVMValueRef zn_global_ref(zn_lfn *l, const ptx_var *v);
/* The symbol that stands for variable `name`: "zg_<name>". */
void zn_global_symbol(const char *name, char *out, size_t n);

#endif
