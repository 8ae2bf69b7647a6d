/* fuzz_fatbin_mutator.c: a structure-aware libFuzzer mutator for fatbins.
 *
 * Byte flips rarely get past a zstd frame's checks, so a quarter of the
 * mutations each: (1) plain libFuzzer mutation; (2) set one header field
 * (fatbin size, an entry's header size, payload size, compressed size,
 * flags, uncompressed size, kind, sm) to an edge value; (3) decompress a
 * compressed PTX payload, mutate the text, compress it again with the same
 * codec and fix every size; (4) the same, stored uncompressed. Layout:
 * notes/cuda-driver-abi.md "Fatbinary". Only in the libFuzzer build. */
#include "zn_fuzz.h"

#include <lz4.h>
#include <string.h>
#include <zstd.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed);

#define FB_MAGIC 0xBA55ED50u
#define FL_LZ4 0x2000u
#define FL_ZSTD 0x8000u
#define MAX_ENTRIES 16

typedef struct fb_entry { size_t off, hsize; uint64_t payload; } fb_entry;

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 17; *s ^= *s << 5;
    return *s;
}

/* The entries of the first fatbin, as far as they are well-formed. */
static int fb_entries(const uint8_t *d, size_t size, fb_entry *e)
{
    if (size < 16 || rd32(d) != FB_MAGIC)
        return 0;
    size_t off = (uint16_t)(d[6] | d[7] << 8);
    uint64_t end = off + rd64(d + 8);
    if (end > size)
        end = size;
    int n = 0;
    while (n < MAX_ENTRIES && off + 64 <= end) {
        size_t hs = rd32(d + off + 4);
        uint64_t pl = rd64(d + off + 8);
        if (hs < 64 || hs > end - off || pl > end - off - hs)
            break;
        e[n++] = (fb_entry){ off, hs, pl };
        off += hs + pl;
    }
    return n;
}

static size_t mutate_field(uint8_t *d, size_t size, size_t max, uint32_t *s)
{
    fb_entry e[MAX_ENTRIES];
    int n = fb_entries(d, size, e);
    if (!n)
        return LLVMFuzzerMutate(d, size, max);
    static const uint64_t edge[] = { 0, 1, 8, 15, 16, 63, 64, 80, 0xFF, 0xFFFF, 0x7FFFFFFF,
                                     0xFFFFFFFF, 0x100000000ull, 0x40000000ull, ~0ull };
    const fb_entry *x = &e[rng_next(s) % n];
    uint64_t v = edge[rng_next(s) % (sizeof edge / sizeof edge[0])];
    if (rng_next(s) & 1)        /* near the true value instead */
        v = x->payload + (int)(rng_next(s) % 17) - 8;
    switch (rng_next(s) % 8) {
    case 0: wr64(d + 8, v); break;                           /* fatbin size */
    case 1: wr32(d + x->off + 4, (uint32_t)v); break;        /* header size */
    case 2: wr64(d + x->off + 8, v); break;                  /* payload size */
    case 3: wr32(d + x->off + 16, (uint32_t)v); break;       /* compressed size */
    case 4: wr64(d + x->off + 40, rd64(d + x->off + 40) ^ (FL_LZ4 | FL_ZSTD)); break;
    case 5: wr64(d + x->off + 56, v); break;                 /* uncompressed size */
    case 6: d[x->off] = (uint8_t)(rng_next(s) % 4); d[x->off + 1] = 0; break; /* kind */
    case 7: wr32(d + x->off + 28, (uint32_t)(rng_next(s) % 130)); break;       /* sm */
    }
    return size;
}

/* Rebuilds the fatbin with entry k's payload replaced by new bytes. */
static size_t replace_payload(uint8_t *d, size_t size, size_t max, const fb_entry *e, int n,
                              int k, const uint8_t *pl, size_t plen, uint64_t flags,
                              uint32_t csize, uint64_t raw)
{
    size_t padded = (plen + 7) & ~(size_t)7;
    size_t head = e[0].off, total = head;
    for (int i = 0; i < n; i++)
        total += e[i].hsize + (i == k ? padded : e[i].payload);
    if (total > max)
        return 0;
    uint8_t *out = calloc(1, total);
    memcpy(out, d, head);
    size_t o = head;
    for (int i = 0; i < n; i++) {
        memcpy(out + o, d + e[i].off, e[i].hsize);
        if (i == k) {
            wr64(out + o + 8, padded);
            wr32(out + o + 16, csize);
            wr64(out + o + 40, flags);
            wr64(out + o + 56, raw);
            memcpy(out + o + e[i].hsize, pl, plen);
            o += e[i].hsize + padded;
        } else {
            memcpy(out + o + e[i].hsize, d + e[i].off + e[i].hsize, e[i].payload);
            o += e[i].hsize + e[i].payload;
        }
    }
    wr64(out + 8, total - head);
    memcpy(d, out, total);
    free(out);
    return total;
}

static size_t mutate_text(uint8_t *d, size_t size, size_t max, uint32_t *s, int keep_codec)
{
    fb_entry e[MAX_ENTRIES];
    int n = fb_entries(d, size, e);
    int ptx[MAX_ENTRIES], np = 0;
    for (int i = 0; i < n; i++)
        if (d[e[i].off] == 1)
            ptx[np++] = i;
    if (!np)
        return LLVMFuzzerMutate(d, size, max);
    int k = ptx[rng_next(s) % np];
    const uint8_t *h = d + e[k].off;
    const uint8_t *src = h + e[k].hsize;
    uint64_t flags = rd64(h + 40), raw = rd64(h + 56);
    size_t csize = rd32(h + 16);
    size_t cap = 1 << 16;
    uint8_t *text = malloc(cap);
    long len;
    if ((flags & FL_ZSTD) && csize <= e[k].payload) {
        size_t r = ZSTD_decompress(text, cap / 2, src, csize);
        len = ZSTD_isError(r) ? -1 : (long)r;
    } else if ((flags & FL_LZ4) && csize <= e[k].payload && raw <= cap / 2) {
        len = LZ4_decompress_safe((const char *)src, (char *)text, (int)csize, (int)(cap / 2));
    } else if (!(flags & (FL_ZSTD | FL_LZ4)) && e[k].payload <= cap / 2) {
        memcpy(text, src, e[k].payload);
        len = (long)e[k].payload;
    } else {
        len = -1;
    }
    size_t res = 0;
    if (len >= 0) {
        size_t tl = LLVMFuzzerMutate(text, (size_t)len, cap / 2);
        uint8_t *comp = malloc(cap);
        size_t cl = 0;
        uint64_t fl = flags & ~(uint64_t)(FL_ZSTD | FL_LZ4);
        if (keep_codec && (flags & FL_ZSTD)) {
            cl = ZSTD_compress(comp, cap, text, tl, 1);
            if (!ZSTD_isError(cl)) {
                fl |= FL_ZSTD;
                res = replace_payload(d, size, max, e, n, k, comp, cl, fl, (uint32_t)cl, tl);
            }
        } else if (keep_codec && (flags & FL_LZ4)) {
            int c = LZ4_compress_default((const char *)text, (char *)comp, (int)tl, (int)cap);
            if (c > 0)
                res = replace_payload(d, size, max, e, n, k, comp, (size_t)c, fl | FL_LZ4,
                                      (uint32_t)c, tl);
        } else {
            res = replace_payload(d, size, max, e, n, k, text, tl, fl, 0, tl);
        }
        free(comp);
    }
    free(text);
    return res ? res : LLVMFuzzerMutate(d, size, max);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed)
{
    uint32_t s = seed | 1;
    switch (rng_next(&s) % 4) {
    case 0: return LLVMFuzzerMutate(data, size, max_size);
    case 1: return mutate_field(data, size, max_size, &s);
    case 2: return mutate_text(data, size, max_size, &s, 1);
    default: return mutate_text(data, size, max_size, &s, 0);
    }
}
