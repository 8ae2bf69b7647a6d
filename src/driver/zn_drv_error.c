/* zn_drv_error.c: CUresult names and descriptions, and the per-call log
 * (ZINC_LOG=3 prints every API call with its result). */
#include "zn_drv.h"
#include "../util/zn_log.h"

atomic_int zn_drv_inited;

typedef struct err_row {
    CUresult code;
    const char *name;
    const char *desc;
} err_row;

static const err_row err_rows[] = {
#define R(name, value, desc) { name, #name, desc },
#include "zn_cuda_errors.def"
#undef R
};

static const err_row *err_find(CUresult r)
{
    for (size_t i = 0; i < sizeof err_rows / sizeof err_rows[0]; i++)
        if (err_rows[i].code == r)
            return &err_rows[i];
    return NULL;
}

const char *zn_drv_error_name(CUresult r)
{
    const err_row *e = err_find(r);
    return e ? e->name : "CUDA_ERROR_<unknown code>";
}

CUresult zn_drv_ret(const char *fn, CUresult r)
{
    if (r != CUDA_SUCCESS)
        zn_logs_note(fn, r);    /* cuLogs* (zn_drv_logs.c) */
    if (zn_log_level() >= ZN_LOG_DEBUG)
        zn_log(ZN_LOG_DEBUG, "%s -> %s", fn, zn_drv_error_name(r));
    return r;
}

/* Unknown codes: CUDA_ERROR_INVALID_VALUE with *str set to NULL, as the
 * driver does. */
CUresult cuGetErrorName(CUresult error, const char **str)
{
    if (!str)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    const err_row *e = err_find(error);
    *str = e ? e->name : NULL;
    ZN_RET(e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult cuGetErrorString(CUresult error, const char **str)
{
    if (!str)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    const err_row *e = err_find(error);
    *str = e ? e->desc : NULL;
    ZN_RET(e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
