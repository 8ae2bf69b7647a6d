/* zn_fatbin_payloads.c: each entry's payload, decompressed, and each
 * container's extent (see zn_fatbin_payloads.h). */
#include "zn_fatbin_internal.h"
#include "zn_fatbin_payloads.h"

#include <stdlib.h>

typedef struct payload_walk {
    void (*cb)(void *u, const zn_fatbin_payload *p);
    void *u;
} payload_walk;

static int visit_payload(void *u, const zn_fb_item *it, char *err, size_t errlen)
{
    payload_walk *w = u;
    if (!it->data)
        return 0;   /* a bare ELF image: no container entry to give */
    char *bytes;
    size_t len;
    if (zn_fb_payload(it, &bytes, &len, err, errlen) < 0)
        return -1;
    if (it->e.kind == ZN_FB_KIND_PTX)
        while (len > 0 && bytes[len - 1] == 0)
            len--;
    zn_fatbin_payload p = { .e = it->e, .fatbin = it->fatbin, .index = it->index,
                            .data = bytes, .len = len };
    w->cb(w->u, &p);
    free(bytes);
    return 0;
}

int zn_fatbin_payloads(const void *image, size_t size,
                       void (*cb)(void *u, const zn_fatbin_payload *p), void *u,
                       char *err, size_t errlen)
{
    payload_walk w = { cb, u };
    return zn_fb_walk(image, size, visit_payload, &w, err, errlen);
}

/* Extent of the fatbin at p (header + entries), or 0 when it is not one. */
static size_t fatbin_extent(const uint8_t *p)
{
    if (!p || zn_fb_rd32(p) != ZN_FB_MAGIC)
        return 0;
    uint16_t hsize = zn_fb_rd16(p + 6);
    uint64_t size = zn_fb_rd64(p + 8);
    if (hsize < ZN_FB_HEADER_SIZE || hsize > ZN_FB_HEADER_MAX || size > ZN_FB_CAP)
        return 0;
    return (size_t)(hsize + size);
}

int zn_fatbin_containers(const void *image, size_t size,
                         void (*cb)(void *u, unsigned fatbin, const void *p, size_t len),
                         void *u)
{
    zn_image_kind kind = size ? zn_image_classify_n(image, size) : zn_image_classify(image);
    const uint8_t *p = image;
    int n = 0;
    if (kind == ZN_IMAGE_FATBIN) {
        size_t off = 0;
        for (;;) {
            size_t len = fatbin_extent(p + off);
            if (!len || (size && off + len > size))
                break;
            cb(u, (unsigned)n++, p + off, len);
            off += len;
            if (!size || size - off < ZN_FB_HEADER_SIZE)
                break;
        }
        return n;
    }
    if (kind != ZN_IMAGE_WRAPPER)
        return 0;
    const uint8_t *fb = zn_fb_rdptr(p + 8);
    size_t len = fatbin_extent(fb);
    if (len)
        cb(u, (unsigned)n++, fb, len);
    const uint8_t *extra = zn_fb_rd32(p + 4) == 2 ? zn_fb_rdptr(p + 16) : NULL;
    for (unsigned i = 0; extra && i < ZN_FB_MAX_EXTRA; i++) {
        const uint8_t *x = zn_fb_rdptr(extra + i * sizeof(void *));
        if (!x)
            break;
        len = fatbin_extent(x);
        if (len)
            cb(u, i + 1, x, len);
        n++;
    }
    return n;
}
