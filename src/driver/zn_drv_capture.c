/* zn_drv_capture.c: the stream-capture queries.
 *
 * Graph capture is not implemented (cuStreamBeginCapture is a stub that
 * fails), so no stream is ever capturing: the queries answer "none", which
 * lets libraries that check before enqueueing (CUB, Thrust, PyTorch) run.
 */
#include "zn_drv.h"

enum { CAPTURE_STATUS_NONE = 0, CAPTURE_MODE_MAX = 2 };

static __thread int capture_mode;   /* CU_STREAM_CAPTURE_MODE_GLOBAL */

static CUresult is_capturing(CUstream s, int *status)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!zn_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!status)
        return CUDA_ERROR_INVALID_VALUE;
    *status = CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

/* The later versions add outputs that are only defined while capturing. */
static CUresult capture_info(CUstream s, int *status, uint64_t *id)
{
    CUresult r = is_capturing(s, status);
    if (r == CUDA_SUCCESS && id)
        *id = 0;
    return r;
}

CUresult cuStreamIsCapturing(CUstream s, int *status) { ZN_RET(is_capturing(s, status)); }
CUresult cuStreamIsCapturing_ptsz(CUstream s, int *status) { ZN_RET(is_capturing(s, status)); }

CUresult cuStreamGetCaptureInfo(CUstream s, int *status, uint64_t *id)
{
    ZN_RET(capture_info(s, status, id));
}

CUresult cuStreamGetCaptureInfo_ptsz(CUstream s, int *status, uint64_t *id)
{
    ZN_RET(capture_info(s, status, id));
}

CUresult cuStreamGetCaptureInfo_v2(CUstream s, int *status, uint64_t *id, void **graph,
                                   const void **deps, size_t *ndeps)
{
    ZN_RET(capture_info(s, status, id));
}

CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream s, int *status, uint64_t *id, void **graph,
                                        const void **deps, size_t *ndeps)
{
    ZN_RET(capture_info(s, status, id));
}

CUresult cuStreamGetCaptureInfo_v3(CUstream s, int *status, uint64_t *id, void **graph,
                                   const void **deps, const void **edges, size_t *ndeps)
{
    ZN_RET(capture_info(s, status, id));
}

CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream s, int *status, uint64_t *id, void **graph,
                                        const void **deps, const void **edges, size_t *ndeps)
{
    ZN_RET(capture_info(s, status, id));
}

CUresult cuThreadExchangeStreamCaptureMode(int *mode)
{
    ZN_CHECK_INIT();
    if (!mode || *mode < 0 || *mode > CAPTURE_MODE_MAX)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    int old = capture_mode;
    capture_mode = *mode;
    *mode = old;
    ZN_RET(CUDA_SUCCESS);
}
