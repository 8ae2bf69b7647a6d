/* zn_drv_unimpl.c: stubs for the entry points Zinc does not implement.
 *
 * Each stub is generated from zn_drv_api_list.h: it logs its name
 * (ZINC_LOG>=1) and returns CUDA_ERROR_NOT_SUPPORTED, never a silent
 * success. Stubs take no parameters: the caller's arguments are ignored,
 * which the x86-64 and AArch64 C calling conventions allow (caller-cleanup).
 * A name Zinc implements at no version (U rows) is also exported under its
 * own name, as NVIDIA's libcuda.so.1 exports every driver function: a
 * program linked with -lcuda that calls one gets the error, not a loader
 * failure; so is each UL row (an old ABI form of an implemented name) and
 * each UA symbol (another form of a U name). The symbol is an assembler alias of the stub, so it needs no C
 * prototype (cuda.h's would not match a parameterless stub).
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

static CUresult unimpl(const char *name)
{
    zn_log(ZN_LOG_WARN, "%s: not implemented, returning CUDA_ERROR_NOT_SUPPORTED", name);
    return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult unimpl_32bit(const char *name)
{
    zn_log(ZN_LOG_WARN, "%s: the CUDA 3.1 form (32-bit device pointers and sizes) is not "
                        "implemented, returning CUDA_ERROR_NOT_SUPPORTED (use %s_v2)", name, name);
    return CUDA_ERROR_NOT_SUPPORTED;
}

#define E(name, version, pt, sym)
#define UV(name, version) \
    static CUresult zn_unimpl_##name##_##version(void) { return unimpl(#name); }
#define UL(name, version)                                                              \
    static CUresult zn_unimpl_##name##_##version(void) { return unimpl_32bit(#name); } \
    __asm__(".globl " #name "\n.set " #name ", zn_unimpl_" #name "_" #version);
#define U(name)                                                                   \
    static CUresult zn_unimpl_##name(void) { return unimpl(#name); }              \
    __asm__(".globl " #name "\n.set " #name ", zn_unimpl_" #name);
#define UA(name, symbol) __asm__(".globl " #symbol "\n.set " #symbol ", zn_unimpl_" #name);
#include "zn_drv_api_list.h"

const zn_api_entry zn_api_unimpl[] = {
#define E(name, version, pt, sym)
#define UV(name, version) { #name, version, 0, (void *)zn_unimpl_##name##_##version },
#define U(name) { #name, 0, 0, (void *)zn_unimpl_##name },
#include "zn_drv_api_list.h"
};
const unsigned zn_api_unimpl_count = sizeof zn_api_unimpl / sizeof zn_api_unimpl[0];
