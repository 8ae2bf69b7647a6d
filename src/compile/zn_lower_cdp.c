/* zn_lower_cdp.c: calls to the device runtime API, the __cudaCDP2*
 * functions of dynamic parallelism (kernels launching kernels,
 * cuda_device_runtime_api.h). Each call becomes, lane by lane in lane
 * order, one w->rt->cdp(w, op, words, lane) with the call's arguments as
 * 64-bit words; an aggregate argument (the dim3 of GetParameterBufferV2)
 * goes as the address of the lane's copy. The executor does the work
 * (zn_exec_cdp.c). A function of the API that is not in the table is a
 * compile error that names it. */
#include "zn_lower.h"

#include <string.h>

static const struct { const char *name; uint32_t op; } cdp_ops[] = {
    {"GetParameterBufferV2", ZN_CDP_PARAM_BUFFER_V2},
    {"LaunchDeviceV2", ZN_CDP_LAUNCH_V2},
    {"GetParameterBuffer", ZN_CDP_PARAM_BUFFER},
    {"LaunchDevice", ZN_CDP_LAUNCH},
    {"StreamCreateWithFlags", ZN_CDP_STREAM_CREATE},
    {"StreamDestroy", ZN_CDP_STREAM_DESTROY},
    {"GetLastError", ZN_CDP_GET_LAST_ERROR},
    {"PeekAtLastError", ZN_CDP_PEEK_LAST_ERROR},
    {"GetErrorString", ZN_CDP_ERROR_STRING},
    {"GetErrorName", ZN_CDP_ERROR_NAME},
    {"Malloc", ZN_CDP_MALLOC},
    {"Free", ZN_CDP_FREE},
    {"MemcpyAsync", ZN_CDP_MEMCPY_ASYNC},
    {"MemsetAsync", ZN_CDP_MEMSET_ASYNC},
    {"GetDevice", ZN_CDP_GET_DEVICE},
    {"GetDeviceCount", ZN_CDP_GET_DEVICE_COUNT},
    {"RuntimeGetVersion", ZN_CDP_RUNTIME_VERSION},
    {"EventCreateWithFlags", ZN_CDP_EVENT_CREATE},
    {"EventRecord", ZN_CDP_EVENT_RECORD},
    {"EventDestroy", ZN_CDP_EVENT_DESTROY},
    {"StreamWaitEvent", ZN_CDP_STREAM_WAIT_EVENT},
    {"DeviceGetAttribute", ZN_CDP_DEVICE_ATTRIBUTE},
    {"EventRecordWithFlags", ZN_CDP_EVENT_RECORD},
    {"Memcpy2DAsync", ZN_CDP_MEMCPY_2D},
    {"Memcpy3DAsync", ZN_CDP_MEMCPY_3D},
    {"Memset2DAsync", ZN_CDP_MEMSET_2D},
    {"Memset3DAsync", ZN_CDP_MEMSET_3D},
    {"FuncGetAttributes", ZN_CDP_FUNC_ATTRIBUTES},
    {"OccupancyMaxActiveBlocksPerMultiprocessor", ZN_CDP_OCCUPANCY},
    {"OccupancyMaxActiveBlocksPerMultiprocessorWithFlags", ZN_CDP_OCCUPANCY},
    {"DeviceGetLimit", ZN_CDP_DEVICE_LIMIT},
    {"DeviceGetCacheConfig", ZN_CDP_CACHE_CONFIG},
    {"DeviceGetSharedMemConfig", ZN_CDP_SHMEM_CONFIG},
};

/* The operation of __cudaCDP2<name>[_ptsz], or -1. */
static int cdp_op(const char *name)
{
    name += strlen("__cudaCDP2");
    size_t n = strlen(name);
    if (n > 5 && !strcmp(name + n - 5, "_ptsz"))
        n -= 5;
    for (size_t i = 0; i < sizeof cdp_ops / sizeof *cdp_ops; i++)
        if (strlen(cdp_ops[i].name) == n && !strncmp(name, cdp_ops[i].name, n))
            return (int)cdp_ops[i].op;
    return -1;
}

typedef struct cdp_job {
    uint32_t op, nargs;
    LLVMValueRef args[ZN_CDP_MAXARGS];  /* <32 x i64> each */
    LLVMValueRef words;                 /* [ZN_CDP_MAXARGS x i64] */
    LLVMTypeRef ret;                    /* i32 or i64 */
} cdp_job;

static LLVMValueRef cdp_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    cdp_job *j = ud;
    zn_lmod *m = l->m;
    LLVMTypeRef wt = LLVMArrayType(m->t_i64, ZN_CDP_MAXARGS);
    for (uint32_t k = 0; k < j->nargs; k++) {
        LLVMValueRef idx[2] = {LLVMConstInt(m->t_i32, 0, 0), LLVMConstInt(m->t_i32, k, 0)};
        LLVMBuildStore(l->b, ll_lane_elt(l, j->args[k], lane),
                       LLVMBuildGEP2(l->b, wt, j->words, idx, 2, ""));
    }
    LLVMTypeRef at[4] = {m->t_ptr, m->t_i32, m->t_ptr, m->t_i32};
    LLVMValueRef a[4] = {l->w, LLVMConstInt(m->t_i32, j->op, 0), j->words, lane};
    LLVMValueRef r = LLVMBuildCall2(l->b, LLVMFunctionType(m->t_i64, at, 4, 0),
                                    ll_rt_fn(l, ZN_RT_CDP), a, 4, "");
    return j->ret == m->t_i64 ? r : LLVMBuildTrunc(l->b, r, j->ret, "");
}

void zn_lower_cdp(zn_lfn *l, const ptx_func *f, LLVMValueRef *slots, uint32_t np,
                  LLVMValueRef ret_slot)
{
    zn_lmod *m = l->m;
    int op = cdp_op(f->name);
    if (op < 0) {
        zn_lerr(l, "device runtime function '%s' is not supported by Zinc (dynamic "
                "parallelism: kernel launches, streams, events, malloc/free, 1D/2D/3D "
                "memcpy/memset, device and function attributes, occupancy, limits and "
                "errors are)", f->name);
        return;
    }
    if (f->nrets > 1) {     /* the argument count: checked by the caller */
        zn_lerr(l, "call to '%s' with %u results", f->name, f->nrets);
        return;
    }
    cdp_job j = {.op = (uint32_t)op, .nargs = np,
                 .ret = f->nrets && f->rets[0].size <= 4 ? m->t_i32 : m->t_i64};
    LLVMTypeRef v64 = ll_vec(m->t_i64);
    for (uint32_t i = 0; i < np; i++) {
        uint64_t size = f->params[i].size;
        if (size > 8) { /* lane k's copy is at slot + k * size */
            LLVMValueRef base = ll_splat(l, LLVMBuildPtrToInt(l->b, slots[i], m->t_i64, ""));
            LLVMValueRef off = LLVMBuildMul(l->b, LLVMBuildZExt(l->b, l->lane_ids, v64, ""),
                                            ll_const_vec(m->t_i64, size), "");
            j.args[i] = LLVMBuildAdd(l->b, base, off, "");
        } else {
            ptx_type t = size == 8 ? PTX_T_B64 : size == 4 ? PTX_T_B32
                       : size == 2 ? PTX_T_B16 : PTX_T_B8;
            j.args[i] = ll_coerce(l, ll_load_slot(l, zn_vec_type(m, t), slots[i]), v64, false);
        }
    }
    j.words = ll_entry_alloca(l, LLVMArrayType(m->t_i64, ZN_CDP_MAXARGS), "cdp.args");
    LLVMValueRef r = ll_lane_loop(l, l->emask, j.ret, cdp_lane, &j);
    if (ret_slot) { /* only the lanes that called */
        LLVMValueRef old = ll_load_slot(l, ll_vec(j.ret), ret_slot);
        ll_store_slot(l, LLVMBuildSelect(l->b, l->emask, r, old, ""), ret_slot);
    }
}
