/* zn_blas_log.c: the one line an unsupported call leaves in the log. */
#include "zn_blas_core.h"
#include "../util/zn_log.h"

#include <stdarg.h>
#include <stdio.h>

void zn_blas_unsupported(const char *fn, const char *fmt, ...)
{
    if (zn_log_level() < ZN_LOG_WARN)
        return;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    zn_log(ZN_LOG_WARN, "%s: %s", fn, why);
}
