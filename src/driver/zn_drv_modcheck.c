/* zn_drv_modcheck.c: argument checks for the module/library entry points,
 * kept apart from zn_drv_module.c so that its loader can call them:
 *   cuModuleLoadDataEx / cuLibraryLoadData*: zn_jit_options_check first;
 *   cuLibraryGetManaged: zn_module_var_managed on the found variable. */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <string.h>

/* numOptions > 0 needs both arrays (CUDA returns INVALID_VALUE). */
CUresult zn_jit_options_check(unsigned n, const CUjit_option *opts, void *const *vals)
{
    if (n && (!opts || !vals)) {
        zn_log(ZN_LOG_WARN, "JIT options: %u options but NULL option or value array", n);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* True when m defines the variable `name` with .attribute(.managed). */
bool zn_module_var_managed(const zn_module *m, const char *name)
{
    if (!m || !name)
        return false;
    for (unsigned i = 0; i < m->nimgs; i++) {
        const ptx_module *p = m->imgs[i].ptx;
        for (uint32_t v = 0; p && v < p->nvars; v++)
            if (p->vars[v].managed && p->vars[v].linkage != PTX_LINK_EXTERN &&
                !strcmp(p->vars[v].name, name))
                return true;
    }
    return false;
}
