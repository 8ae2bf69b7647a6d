/* zn_fatbin_internal.h: container layout and the entry walker shared by the
 * fatbin layer's files. Layout facts: notes/cuda-driver-abi.md "Fatbinary". */
#ifndef ZN_FATBIN_INTERNAL_H
#define ZN_FATBIN_INTERNAL_H

#include "fatbin/zn_fatbin.h"

#include <stdbool.h>
#include <string.h>

#define ZN_FB_CAP             (1ull << 30)  /* no container or payload is bigger */
#define ZN_FB_MAX_EXTRA       65536u        /* -rdc objects in one wrapper */

#define ZN_FB_WRAPPER_MAGIC   0x466243B1u
#define ZN_FB_WRAPPER_SIZE    24
#define ZN_FB_MAGIC           0xBA55ED50u
#define ZN_FB_HEADER_SIZE     16
#define ZN_FB_HEADER_MAX      4096          /* a header_size field beyond this is corrupt */
#define ZN_FB_ENTRY_MIN       64            /* every field we read lies below +64 */

enum { ZN_FB_KIND_PTX = 1, ZN_FB_KIND_ELF = 2 };

/* Entry header fields: name, offset, width in bytes. */
#define ZN_FB_ENTRY_FIELDS(X) \
    X(kind,        0,  2)     \
    X(header_size, 4,  4)     \
    X(payload,     8,  8)     \
    X(compressed,  16, 4)     \
    X(version,     24, 4)     \
    X(sm,          28, 4)     \
    X(flags,       40, 8)     \
    X(raw_size,    56, 8)

#define ZN_FB_FLAG_LZ4   0x2000u   /* raw LZ4 block, no frame */
#define ZN_FB_FLAG_ZSTD  0x8000u   /* standard zstd frame */

/* One entry as found: its description plus where its bytes are. */
typedef struct zn_fb_item {
    zn_fatbin_entry e;
    unsigned fatbin;          /* which fatbin of the image, 0 = the first */
    unsigned index;           /* entry number inside that fatbin */
    const uint8_t *data;      /* stored bytes (compressed or not); NULL for a bare ELF */
    size_t stored;            /* bytes at data that hold the (compressed) payload */
    uint64_t raw_size;        /* size once decompressed (= stored when not compressed) */
} zn_fb_item;

/* Return 0 to go on, negative to stop the walk with that value. */
typedef int (*zn_fb_visit)(void *u, const zn_fb_item *it, char *err, size_t errlen);

/* Walks every entry of the image (wrapper, fatbin(s), or a PTX/ELF image as a
 * single pseudo-entry). size 0 = unknown. Returns the entry count or -1. */
int zn_fb_walk(const void *image, size_t size, zn_fb_visit visit, void *u,
               char *err, size_t errlen);

/* The entry's payload, decompressed, malloc'd with a NUL after *len bytes. */
int zn_fb_payload(const zn_fb_item *it, char **out, size_t *len, char *err, size_t errlen);

/* The NNN of the first ".target sm_NNN" in PTX text, or 0. */
uint32_t zn_fb_ptx_target(const char *text, size_t len);

void zn_fb_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Little-endian reads that need no alignment. */
static inline uint16_t zn_fb_rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t zn_fb_rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t zn_fb_rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline const void *zn_fb_rdptr(const uint8_t *p) { const void *v; memcpy(&v, p, sizeof v); return v; }

#endif
