/* zn_fatbin_payloads.h: every entry's bytes, and the containers themselves,
 * for tools that save a module image (the tracer). An addition to
 * zn_fatbin.h, in a header of its own. */
#ifndef ZN_FATBIN_PAYLOADS_H
#define ZN_FATBIN_PAYLOADS_H

#include "fatbin/zn_fatbin.h"

typedef struct zn_fatbin_payload {
    zn_fatbin_entry e;
    unsigned fatbin;        /* which fatbin of the image, 0 = the first */
    unsigned index;         /* entry number inside that fatbin */
    const void *data;       /* decompressed bytes (PTX: trailing NULs removed) */
    size_t len;
} zn_fatbin_payload;

/* Calls cb for each entry of the image (size 0 = unknown) with its payload
 * decompressed; the bytes are valid during the call only. A bare cubin
 * image (no container) has no entries here. Returns the entry count, or -1
 * with a message in err. */
int zn_fatbin_payloads(const void *image, size_t size,
                       void (*cb)(void *u, const zn_fatbin_payload *p), void *u,
                       char *err, size_t errlen);

/* Calls cb for each fatbin container of the image (a wrapper's fatbin and
 * its -rdc extras, or a bare fatbin), with its extent (header included).
 * Returns how many, 0 when the image holds none. */
int zn_fatbin_containers(const void *image, size_t size,
                         void (*cb)(void *u, unsigned fatbin, const void *p, size_t len),
                         void *u);

#endif
