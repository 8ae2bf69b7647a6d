/* zn_drv_atomic.c: cuDeviceGetHostAtomicCapabilities and
 * cuDeviceGetP2PAtomicCapabilities (CUDA 13).
 *
 * The device is the host CPU and device memory is host memory, so there is
 * no link: a kernel's atomic is the same locked instruction (an LLVM
 * atomicrmw/cmpxchg, src/compile/zn_lower_atom.c) the host's atomics use,
 * and every operation kernels can do is atomic with respect to the host.
 * The answer is what Zinc's kernels support: 32- and 64-bit scalars
 * (inc/dec only 32-bit, as PTX has them), reductions (red) where PTX has
 * them, no 128-bit or vector atomics. There is one device, so no peer.
 */
#include "zn_drv.h"

enum {
    CAP_SIGNED = 1u << 0, CAP_UNSIGNED = 1u << 1, CAP_REDUCTION = 1u << 2,
    CAP_SCALAR_32 = 1u << 3, CAP_SCALAR_64 = 1u << 4,
    OP_COUNT = 13       /* CU_ATOMIC_OPERATION_INTEGER_ADD .. FLOAT_MAX */
};

static const unsigned op_caps[OP_COUNT] = {
    /* integer add, min, max */
    CAP_SIGNED | CAP_UNSIGNED | CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
    CAP_SIGNED | CAP_UNSIGNED | CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
    CAP_SIGNED | CAP_UNSIGNED | CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
    /* increment, decrement: atom.inc/dec.u32 */
    CAP_UNSIGNED | CAP_REDUCTION | CAP_SCALAR_32,
    CAP_UNSIGNED | CAP_REDUCTION | CAP_SCALAR_32,
    /* and, or, xor */
    CAP_SIGNED | CAP_UNSIGNED | CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
    CAP_SIGNED | CAP_UNSIGNED | CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
    CAP_SIGNED | CAP_UNSIGNED | CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
    /* exchange, compare-and-swap: no reduction form */
    CAP_SIGNED | CAP_UNSIGNED | CAP_SCALAR_32 | CAP_SCALAR_64,
    CAP_SIGNED | CAP_UNSIGNED | CAP_SCALAR_32 | CAP_SCALAR_64,
    /* float add, min, max (f32, f64) */
    CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
    CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
    CAP_REDUCTION | CAP_SCALAR_32 | CAP_SCALAR_64,
};

static CUresult fill(unsigned *caps, const int *ops, unsigned count)
{
    if (!caps || !ops || count == 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < count; i++)
        if (ops[i] < 0 || ops[i] >= OP_COUNT)
            return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < count; i++)
        caps[i] = op_caps[ops[i]];
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetHostAtomicCapabilities(unsigned int *caps, const int *ops, unsigned int count,
                                           CUdevice dev)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    ZN_RET(fill(caps, ops, count));
}

/* src == dst is invalid, and there is no other device. */
CUresult cuDeviceGetP2PAtomicCapabilities(unsigned int *caps, const int *ops, unsigned int count,
                                          CUdevice src, CUdevice dst)
{
    ZN_CHECK_INIT();
    if (!caps || !ops || count == 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(CUDA_ERROR_INVALID_DEVICE);
}
