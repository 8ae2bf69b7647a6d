/* zn_fatbin_walk.c: visits every entry of a wrapper / fatbin image, checking
 * each size field against what lies around it before anything is read. */
#include "zn_fatbin_internal.h"

#include <stdarg.h>
#include <stdio.h>

void zn_fb_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

typedef struct fb_entry_hdr {
#define F(name, off, width) uint64_t name;
    ZN_FB_ENTRY_FIELDS(F)
#undef F
} fb_entry_hdr;

static uint64_t rd_width(const uint8_t *p, int width)
{
    return width == 2 ? zn_fb_rd16(p) : width == 4 ? zn_fb_rd32(p) : zn_fb_rd64(p);
}

static void read_entry_hdr(const uint8_t *p, fb_entry_hdr *h)
{
#define F(name, off, width) h->name = rd_width(p + (off), (width));
    ZN_FB_ENTRY_FIELDS(F)
#undef F
}

typedef struct walk {
    zn_fb_visit visit;
    void *u;
    char *err;
    size_t errlen;
    int count;
} walk;

/* Fills the item's compression fields; rejects sizes that cannot be right. */
static int entry_storage(const fb_entry_hdr *h, zn_fb_item *it, const char *where,
                         char *err, size_t errlen)
{
    bool lz4 = h->flags & ZN_FB_FLAG_LZ4, zstd = h->flags & ZN_FB_FLAG_ZSTD;
    if (lz4 && zstd) {
        zn_fb_errf(err, errlen, "%s: flags 0x%llx ask for both LZ4 and zstd", where,
                   (unsigned long long)h->flags);
        return -1;
    }
    if (!lz4 && !zstd) {
        it->e.compression = "none";
        it->stored = (size_t)h->payload;
        it->raw_size = h->payload;
        return 0;
    }
    it->e.compression = lz4 ? "lz4" : "zstd";
    if (h->compressed == 0 || h->compressed > h->payload) {
        zn_fb_errf(err, errlen, "%s: compressed size %llu does not fit the payload of %llu bytes",
                   where, (unsigned long long)h->compressed, (unsigned long long)h->payload);
        return -1;
    }
    /* LZ4 cannot expand a byte into more than 255; beyond that the field is corrupt. */
    uint64_t bound = lz4 ? h->compressed * 255 + 64 : ZN_FB_CAP;
    if (h->raw_size == 0 || h->raw_size > bound || h->raw_size > ZN_FB_CAP) {
        zn_fb_errf(err, errlen, "%s: uncompressed size %llu is not plausible for %llu compressed bytes",
                   where, (unsigned long long)h->raw_size, (unsigned long long)h->compressed);
        return -1;
    }
    it->stored = (size_t)h->compressed;
    it->raw_size = h->raw_size;
    return 0;
}

/* One fatbin at p. avail = bytes known readable from p (0 = unknown, trust
 * the header up to ZN_FB_CAP). Returns the fatbin's total size, or -1. */
static int64_t walk_fatbin(walk *w, const uint8_t *p, uint64_t avail, unsigned fb)
{
    if (!p) {
        zn_fb_errf(w->err, w->errlen, "fatbin %u: NULL pointer", fb);
        return -1;
    }
    if (avail && avail < ZN_FB_HEADER_SIZE) {
        zn_fb_errf(w->err, w->errlen, "fatbin %u: truncated header (%llu bytes)", fb,
                   (unsigned long long)avail);
        return -1;
    }
    uint32_t magic = zn_fb_rd32(p);
    uint16_t version = zn_fb_rd16(p + 4), hsize = zn_fb_rd16(p + 6);
    uint64_t size = zn_fb_rd64(p + 8);
    if (magic != ZN_FB_MAGIC) {
        zn_fb_errf(w->err, w->errlen, "fatbin %u: bad magic 0x%08x (want 0x%08x)", fb, magic,
                   ZN_FB_MAGIC);
        return -1;
    }
    if (version != 1 || hsize < ZN_FB_HEADER_SIZE || hsize > ZN_FB_HEADER_MAX) {
        zn_fb_errf(w->err, w->errlen, "fatbin %u: unsupported version %u / header size %u", fb,
                   version, hsize);
        return -1;
    }
    uint64_t limit = avail ? avail : ZN_FB_CAP;
    if (size > limit || hsize > limit - size) {
        zn_fb_errf(w->err, w->errlen, "fatbin %u: size %llu + header %u exceeds the %llu bytes available",
                   fb, (unsigned long long)size, hsize, (unsigned long long)limit);
        return -1;
    }
    uint64_t off = hsize, end = hsize + size;
    for (unsigned idx = 0; off < end; idx++) {
        char where[96];
        snprintf(where, sizeof where, "fatbin %u, entry %u at +0x%llx", fb, idx,
                 (unsigned long long)off);
        uint64_t rem = end - off;
        if (rem < ZN_FB_ENTRY_MIN) {
            zn_fb_errf(w->err, w->errlen, "%s: truncated entry header (%llu bytes left)", where,
                       (unsigned long long)rem);
            return -1;
        }
        fb_entry_hdr h;
        read_entry_hdr(p + off, &h);
        if (h.header_size < ZN_FB_ENTRY_MIN || h.header_size > rem ||
            h.payload > rem - h.header_size) {
            zn_fb_errf(w->err, w->errlen,
                       "%s: header %llu + payload %llu bytes exceed the %llu bytes left", where,
                       (unsigned long long)h.header_size, (unsigned long long)h.payload,
                       (unsigned long long)rem);
            return -1;
        }
        zn_fb_item it = {
            .e = { .kind = (uint16_t)h.kind, .sm = (uint32_t)h.sm,
                   .ptx_version = (uint32_t)h.version, .flags = h.flags },
            .fatbin = fb,
            .index = idx,
            .data = p + off + h.header_size,
        };
        if (entry_storage(&h, &it, where, w->err, w->errlen) < 0)
            return -1;
        int rc = w->visit(w->u, &it, w->err, w->errlen);
        if (rc < 0)
            return rc;
        w->count++;
        off += h.header_size + h.payload;
    }
    return (int64_t)end;
}

/* __fatBinC_Wrapper_t: v1 holds one fatbin; v2 (-rdc) adds a NULL-terminated
 * array of the objects' own fatbins, which is where their PTX lives. */
static int walk_wrapper(walk *w, const uint8_t *p, size_t size)
{
    if (size && size < ZN_FB_WRAPPER_SIZE) {
        zn_fb_errf(w->err, w->errlen, "fatbin wrapper: truncated (%zu bytes)", size);
        return -1;
    }
    uint32_t version = zn_fb_rd32(p + 4);
    if (version != 1 && version != 2) {
        zn_fb_errf(w->err, w->errlen, "fatbin wrapper: unsupported version %u", version);
        return -1;
    }
    if (walk_fatbin(w, zn_fb_rdptr(p + 8), 0, 0) < 0)
        return -1;
    const uint8_t *extra = version == 2 ? zn_fb_rdptr(p + 16) : NULL;
    for (unsigned i = 0; extra; i++) {
        if (i == ZN_FB_MAX_EXTRA) {
            zn_fb_errf(w->err, w->errlen, "fatbin wrapper: more than %u linked fatbins", i);
            return -1;
        }
        const uint8_t *fb = zn_fb_rdptr(extra + i * sizeof(void *));
        if (!fb)
            break;
        if (walk_fatbin(w, fb, 0, i + 1) < 0)
            return -1;
    }
    return 0;
}

static bool all_zero(const uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Bare fatbins: with a known size, every one back to back (zero padding may
 * follow the last); without, just the first. */
static int walk_fatbins(walk *w, const uint8_t *p, size_t size)
{
    uint64_t off = 0;
    for (unsigned fb = 0;; fb++) {
        int64_t n = walk_fatbin(w, p + off, size ? size - off : 0, fb);
        if (n < 0)
            return -1;
        off += (uint64_t)n;
        if (!size || off == size)
            return 0;
        if (size - off < 4 || zn_fb_rd32(p + off) != ZN_FB_MAGIC) {
            if (all_zero(p + off, size - off))
                return 0;
            zn_fb_errf(w->err, w->errlen, "%llu bytes of garbage after fatbin %u",
                       (unsigned long long)(size - off), fb);
            return -1;
        }
    }
}

/* PTX text or a cubin handed over directly: one pseudo-entry. */
static int walk_single(walk *w, const uint8_t *p, size_t size, zn_image_kind kind)
{
    zn_fb_item it = { .e = { .compression = "none" } };
    if (kind == ZN_IMAGE_PTX) {
        size_t n = strnlen((const char *)p, size ? size : ZN_FB_CAP);
        it.e.kind = ZN_FB_KIND_PTX;
        it.e.sm = zn_fb_ptx_target((const char *)p, n);
        it.data = p;
        it.stored = n;
        it.raw_size = n;
    } else {
        it.e.kind = ZN_FB_KIND_ELF;
    }
    int rc = w->visit(w->u, &it, w->err, w->errlen);
    if (rc < 0)
        return rc;
    w->count++;
    return 0;
}

int zn_fb_walk(const void *image, size_t size, zn_fb_visit visit, void *u,
               char *err, size_t errlen)
{
    walk w = { visit, u, err, errlen, 0 };
    if (err && errlen)
        err[0] = 0;
    if (!image) {
        zn_fb_errf(err, errlen, "NULL image");
        return -1;
    }
    zn_image_kind kind = size ? zn_image_classify_n(image, size) : zn_image_classify(image);
    int rc;
    switch (kind) {
    case ZN_IMAGE_WRAPPER: rc = walk_wrapper(&w, image, size); break;
    case ZN_IMAGE_FATBIN:  rc = walk_fatbins(&w, image, size); break;
    case ZN_IMAGE_PTX:
    case ZN_IMAGE_ELF:     rc = walk_single(&w, image, size, kind); break;
    default:
        zn_fb_errf(err, errlen, "not a fatbin wrapper, fatbin, PTX text or ELF image");
        return -1;
    }
    return rc < 0 ? rc : w.count;
}
