/* zn_lt_attr.c: Set/GetAttribute for every cuBLASLt descriptor, driven by
 * a table of (attribute, offset in our struct, size). cuBLASLt requires
 * the exact size on set; a get with size 0 and sizeWritten reports it. */
#include "zn_lt.h"

#include <string.h>

static const zn_lt_field *find(const zn_lt_field *tab, size_t n, int attr)
{
    for (size_t i = 0; i < n; i++)
        if (tab[i].attr == attr)
            return &tab[i];
    return NULL;
}

cublasStatus_t zn_lt_set_field(const zn_lt_field *tab, size_t n, void *obj, int attr,
                               const void *buf, size_t size)
{
    const zn_lt_field *f = find(tab, n, attr);
    if (!f || !buf || size != f->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy((char *)obj + f->offset, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t zn_lt_get_field(const zn_lt_field *tab, size_t n, const void *obj, int attr,
                               void *buf, size_t size, size_t *written)
{
    const zn_lt_field *f = find(tab, n, attr);
    if (!f)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size == 0 && written) {
        *written = f->size;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size < f->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, (const char *)obj + f->offset, f->size);
    if (written)
        *written = f->size;
    return CUBLAS_STATUS_SUCCESS;
}
