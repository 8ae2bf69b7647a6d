/* zn_blas_status.c: the status names and texts, for both cublasGetStatus*
 * and cublasLtGetStatus* (one table: zn_cublas_status.def). */
#include "zn_blas_core.h"
#include "zn_cublas_api.h"

const char *zn_blas_status_name(int status)
{
    switch ((cublasStatus_t)status) {
#define X(name, value, text) case name: return #name;
#include "zn_cublas_status.def"
#undef X
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *zn_blas_status_string(int status)
{
    switch ((cublasStatus_t)status) {
#define X(name, value, text) case name: return text;
#include "zn_cublas_status.def"
#undef X
    }
    return "unknown error";
}
