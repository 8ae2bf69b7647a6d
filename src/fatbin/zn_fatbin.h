/* zn_fatbin.h: CUDA fatbinary containers -> the PTX text to compile.
 *
 * Accepts what the driver's module/library loaders are handed: a fatbin
 * wrapper (magic 0x466243B1, v1 or v2 with -rdc's extra headers), a bare
 * fatbin (0xBA55ED50, several back to back), or PTX text itself. Compressed
 * entries (zstd frames, LZ4 raw blocks) are decompressed.
 */
#ifndef ZN_FATBIN_H
#define ZN_FATBIN_H

#include <stddef.h>
#include <stdint.h>

typedef enum zn_image_kind {
    ZN_IMAGE_UNKNOWN = 0,
    ZN_IMAGE_WRAPPER,       /* __fatBinC_Wrapper_t */
    ZN_IMAGE_FATBIN,        /* fatbin header */
    ZN_IMAGE_PTX,           /* PTX text */
    ZN_IMAGE_ELF            /* a cubin: not runnable on Zinc */
} zn_image_kind;

zn_image_kind zn_image_classify(const void *image);

/* One entry of a fatbin, decompressed when it is PTX. */
typedef struct zn_fatbin_entry {
    uint16_t kind;          /* 1 PTX, 2 ELF */
    uint32_t sm;            /* target arch, 75 = sm_75 / compute_75 */
    uint32_t ptx_version;   /* 0x00090000 = 9.0 */
    uint64_t flags;
    const char *compression;/* "none", "zstd", "lz4" */
} zn_fatbin_entry;

/* The chosen PTX: malloc'd NUL-terminated text (trailing NULs removed). */
typedef struct zn_ptx_image {
    char *text;
    size_t len;
    uint32_t sm;
    int newer_than_device;  /* every PTX targeted a newer arch than cc */
} zn_ptx_image;

/* Enumerates the entries of every fatbin in the image; calls cb for each.
 * Returns the entry count, or -1 with a message in err. */
int zn_fatbin_list(const void *image, void (*cb)(void *u, const zn_fatbin_entry *e),
                   void *u, char *err, size_t errlen);

/* Picks the PTX entry with the highest target <= cc (e.g. 86), or the lowest
 * one when all are newer (sets newer_than_device). Returns 0, or:
 *  -1 malformed (message in err),
 *  -2 no PTX at all (a cubin-only binary; err says how to rebuild).
 * For -rdc (wrapper v2) every fatbin in extra is taken too: out is an array
 * of images (one per fatbin that has PTX), *nout its length. Free with
 * zn_ptx_images_free. */
int zn_fatbin_get_ptx(const void *image, unsigned cc, zn_ptx_image **out,
                      unsigned *nout, char *err, size_t errlen);
void zn_ptx_images_free(zn_ptx_image *imgs, unsigned n);

/* The same two for an image whose size is known (a file read into memory;
 * size 0 = unknown, as above):
 * nothing at or past image + size is read, and a bare fatbin image may hold
 * several fatbins back to back. Without a size, the extent of a fatbin comes
 * from its header (capped at 1 GiB) and a bare fatbin image is one fatbin.
 * A wrapper's pointers lead outside the image; size bounds the wrapper only. */
int zn_fatbin_list_n(const void *image, size_t size,
                     void (*cb)(void *u, const zn_fatbin_entry *e), void *u,
                     char *err, size_t errlen);
int zn_fatbin_get_ptx_n(const void *image, size_t size, unsigned cc,
                        zn_ptx_image **out, unsigned *nout, char *err, size_t errlen);
zn_image_kind zn_image_classify_n(const void *image, size_t size);

/* Calls cb(u, fatbin, fatbin_size) for each bare fatbin embedded in a host
 * object or archive (data, size), in order; stops at and returns the first
 * nonzero result of cb, else 0 (zn_fatbin_embedded.c). */
int zn_fatbin_each_embedded(const void *data, size_t size,
                            int (*cb)(void *u, const void *fatbin, size_t size), void *u);

/* Decompressors (exposed for tests). Return decompressed size or -1. */
long zn_unzstd(const void *src, size_t n, void *dst, size_t cap);
long zn_unlz4(const void *src, size_t n, void *dst, size_t cap);

#endif
