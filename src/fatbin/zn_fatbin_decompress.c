/* zn_fatbin_decompress.c: an entry's payload as plain bytes. nvcc stores
 * zstd payloads as standard frames and LZ4 ones as a raw block (no frame). */
#include "zn_fatbin_internal.h"

#include <limits.h>
#include <lz4.h>
#include <stdlib.h>
#include <zstd.h>

long zn_unzstd(const void *src, size_t n, void *dst, size_t cap)
{
    size_t r = ZSTD_decompress(dst, cap, src, n);
    return ZSTD_isError(r) || r > LONG_MAX ? -1 : (long)r;
}

long zn_unlz4(const void *src, size_t n, void *dst, size_t cap)
{
    if (n > INT_MAX || cap > INT_MAX)
        return -1;
    int r = LZ4_decompress_safe(src, dst, (int)n, (int)cap);
    return r < 0 ? -1 : r;
}

/* A zstd frame states its content size; it must agree with the entry's,
 * which is checked before trusting either with an allocation. */
static bool zstd_size_agrees(const zn_fb_item *it)
{
    unsigned long long fcs = ZSTD_getFrameContentSize(it->data, it->stored);
    return fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == it->raw_size;
}

int zn_fb_payload(const zn_fb_item *it, char **out, size_t *len, char *err, size_t errlen)
{
    *out = NULL;
    *len = 0;
    const char *how = it->e.compression;
    bool zstd = strcmp(how, "zstd") == 0, lz4 = strcmp(how, "lz4") == 0;
    if (!it->data) {
        zn_fb_errf(err, errlen, "fatbin %u, entry %u: no payload", it->fatbin, it->index);
        return -1;
    }
    if (zstd && !zstd_size_agrees(it)) {
        zn_fb_errf(err, errlen, "fatbin %u, entry %u: zstd frame size disagrees with the entry's %llu bytes",
                   it->fatbin, it->index, (unsigned long long)it->raw_size);
        return -1;
    }
    size_t n = (size_t)it->raw_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        zn_fb_errf(err, errlen, "out of memory for a %zu-byte payload", n);
        return -1;
    }
    long got = zstd ? zn_unzstd(it->data, it->stored, buf, n)
             : lz4  ? zn_unlz4(it->data, it->stored, buf, n)
             : (memcpy(buf, it->data, n), (long)n);
    if (got != (long)n) {
        zn_fb_errf(err, errlen, "fatbin %u, entry %u: %s payload is corrupt (%ld of %zu bytes)",
                   it->fatbin, it->index, how, got, n);
        free(buf);
        return -1;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}
