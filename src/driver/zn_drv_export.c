/* zn_drv_export.c: cuGetExportTable, the tables of private entry points the
 * CUDA runtime asks libcuda for by UUID (see notes/cuda-driver-abi.md).
 *
 * Slot 0 of a table holds its size in bytes, except in the context-local
 * storage table. Slots whose use was never observed hold stubs that log
 * their table and slot, so that a new runtime using one shows up in the log.
 */
#include "zn_drv.h"
#include "../util/zn_host_pool.h"
#include "../util/zn_log.h"

#include <string.h>

#define SLOT_SIZE(n) ((const void *)(uintptr_t)((n) * sizeof(void *)))

/* A stub per (table, slot): logs and returns `ret`. */
#define STUB(tab, slot, ret)                                                    \
    static CUresult stub_##tab##_##slot(void)                                  \
    {                                                                           \
        zn_log(ZN_LOG_WARN, "export table %s slot %d called (not implemented)", \
               #tab, slot);                                                     \
        return ret;                                                             \
    }

/* ---- runtime interface 6bd5fb6c-...: slot 2 gives the primary context */
static CUresult rt_primary_ctx(CUcontext *out, CUdevice dev)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    zn_ctx *c = zn_ctx_primary(dev);
    if (!c)
        return CUDA_ERROR_INVALID_DEVICE;
    *out = c;
    return CUDA_SUCCESS;
}

STUB(runtime, 1, CUDA_ERROR_NOT_SUPPORTED)
STUB(runtime, 3, CUDA_ERROR_NOT_SUPPORTED)
STUB(runtime, 4, CUDA_ERROR_NOT_SUPPORTED)
STUB(runtime, 5, CUDA_ERROR_NOT_SUPPORTED)
STUB(runtime, 6, CUDA_ERROR_NOT_SUPPORTED)
STUB(runtime, 7, CUDA_ERROR_NOT_SUPPORTED)
STUB(runtime, 8, CUDA_ERROR_NOT_SUPPORTED)
STUB(runtime, 9, CUDA_ERROR_NOT_SUPPORTED)

const void *const zn_export_runtime[] = {
    SLOT_SIZE(10), (const void *)stub_runtime_1, (const void *)rt_primary_ctx,
    (const void *)stub_runtime_3, (const void *)stub_runtime_4,
    (const void *)stub_runtime_5, (const void *)stub_runtime_6,
    (const void *)stub_runtime_7, (const void *)stub_runtime_8,
    (const void *)stub_runtime_9,
};

/* ---- tools callback hooks a094798c-...: slots 2 and 6 hand out zeroed
 * buffers the runtime writes its hook state into. */
static _Alignas(64) unsigned char hooks_buf2[4096], hooks_buf6[4096];

static CUresult hooks_buffer2(void **buf, size_t *size)
{
    if (buf)
        *buf = hooks_buf2;
    if (size)
        *size = sizeof hooks_buf2;
    return CUDA_SUCCESS;
}

static CUresult hooks_buffer6(void **buf, size_t *size)
{
    if (buf)
        *buf = hooks_buf6;
    if (size)
        *size = sizeof hooks_buf6;
    return CUDA_SUCCESS;
}

STUB(hooks, 1, CUDA_SUCCESS)
STUB(hooks, 3, CUDA_SUCCESS)
STUB(hooks, 4, CUDA_SUCCESS)
STUB(hooks, 5, CUDA_SUCCESS)

static const void *const export_hooks[] = {
    SLOT_SIZE(7), (const void *)stub_hooks_1, (const void *)hooks_buffer2,
    (const void *)stub_hooks_3, (const void *)stub_hooks_4,
    (const void *)stub_hooks_5, (const void *)hooks_buffer6,
};

/* ---- tools thread-local state 42d85a81-...: must exist, never called */
STUB(tools_tls, 1, CUDA_SUCCESS)
STUB(tools_tls, 2, CUDA_SUCCESS)
STUB(tools_tls, 3, CUDA_SUCCESS)

static const void *const export_tools_tls[] = {
    SLOT_SIZE(4), (const void *)stub_tools_tls_1, (const void *)stub_tools_tls_2,
    (const void *)stub_tools_tls_3,
};

/* ---- context-local storage c693336e-...: no size word */
STUB(cls, 3, CUDA_ERROR_NOT_SUPPORTED)

static const void *const export_cls[] = {
    (const void *)zn_cls_put, (const void *)zn_cls_delete, (const void *)zn_cls_get,
    (const void *)stub_cls_3,
};

/* ---- context checks 263e8860-... */
static CUresult checks_ctx_state(CUcontext ctx, uint32_t *out, void **out2)
{
    if (out)
        *out = 0;
    return CUDA_SUCCESS;
}

static CUresult checks_key(void *key, uint32_t what, void *arg)
{
    return CUDA_SUCCESS;
}

STUB(checks, 1, CUDA_SUCCESS)
STUB(checks, 4, CUDA_SUCCESS)

static const void *const export_checks[] = {
    SLOT_SIZE(5), (const void *)stub_checks_1, (const void *)checks_ctx_state,
    (const void *)checks_key, (const void *)stub_checks_4,
};

/* ---- integrity check d4082055-...: slot 1 (zn_drv_integrity.c) */
static CUresult integrity_slot1(uint32_t ver, uint64_t unix_seconds, uint64_t out[2])
{
    return zn_integrity_answer(ver, unix_seconds, out);
}

STUB(integrity, 2, CUDA_ERROR_NOT_SUPPORTED)
STUB(integrity, 3, CUDA_ERROR_NOT_SUPPORTED)

const void *const zn_export_integrity[] = {
    SLOT_SIZE(4), (const void *)integrity_slot1, (const void *)stub_integrity_2,
    (const void *)stub_integrity_3,
};

/* ---- Zinc's own: the worker pool for host work (util/zn_host_pool.h) */
static const zn_host_pool_table export_host_pool = {
    .size = sizeof(zn_host_pool_table),
    .workers = zn_exec_threads,
    .parallel = zn_exec_parallel,
};

/* ---- lookup by UUID ---- */
typedef struct export_row {
    unsigned char uuid[16];
    const void *const *table;
    const char *role;
} export_row;

static const export_row export_rows[] = {
    { { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
        0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 }, zn_export_runtime, "runtime" },
    { { 0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
        0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66 }, export_hooks, "tool hooks" },
    { { 0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
        0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc }, export_tools_tls, "tools TLS" },
    { { 0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
        0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93 }, export_cls, "context storage" },
    { { 0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43,
        0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e }, export_checks, "context checks" },
    { { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
        0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 }, zn_export_integrity, "integrity" },
    { ZN_HOST_POOL_UUID, (const void *const *)&export_host_pool, "zinc host pool" },
};

CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
    if (!table || !id)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < sizeof export_rows / sizeof export_rows[0]; i++) {
        if (!memcmp(export_rows[i].uuid, id->bytes, 16)) {
            *table = export_rows[i].table;
            zn_log(ZN_LOG_DEBUG, "cuGetExportTable: %s", export_rows[i].role);
            ZN_RET(CUDA_SUCCESS);
        }
    }
    const unsigned char *b = (const unsigned char *)id->bytes;
    zn_log(ZN_LOG_INFO, "cuGetExportTable: unknown table %02x%02x%02x%02x-..., refused",
           b[0], b[1], b[2], b[3]);
    *table = NULL;
    ZN_RET(CUDA_ERROR_INVALID_VALUE);
}
