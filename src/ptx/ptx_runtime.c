/* ptx_runtime.c: the external functions nvcc's device code calls that no
 * PTX image defines and Zinc provides itself (the one list the linker and
 * the compiler share).
 *
 * vprintf, __assertfail, malloc and free come with every CUDA program.
 * The __cudaCDP2* functions are the device runtime API of dynamic
 * parallelism (a kernel launching kernels, cuda_device_runtime_api.h):
 * NVIDIA ships them in libcudadevrt, whose PTX calls into the GPU's
 * firmware (`__cuda_syscall_*`, `cnp*`), so the linker drops that image
 * (ptx_is_device_runtime_image) and the compiler lowers the calls to the
 * executor's (zn_lower_cdp.c, which says which of them Zinc has). */
#include <string.h>
#include "ptx_internal.h"

static const char *const plain[] = {"vprintf", "__assertfail", "malloc", "free"};

bool ptx_is_device_runtime_call(const char *name)
{
    return !strncmp(name, "__cudaCDP2", 10);
}

bool ptx_is_runtime_extern(const char *name)
{
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        if (!strcmp(name, plain[i]))
            return true;
    return ptx_is_device_runtime_call(name);
}

bool ptx_is_device_runtime_image(const ptx_module *m)
{
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (!m->funcs[i].is_decl && !strcmp(m->funcs[i].name, "__cudaCDP2LaunchDeviceV2"))
            return true;
    return false;
}
