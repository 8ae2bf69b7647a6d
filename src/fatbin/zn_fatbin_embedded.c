/* zn_fatbin_embedded.c: the fatbins inside a host object or archive.
 *
 * nvcc puts each translation unit's device code in the object's
 * .nv_fatbin section as a bare fatbin; an archive holds such objects.
 * Rather than walk ELF and ar structures, the bytes are scanned for the
 * fatbin magic with a header whose sizes fit in what is left: what the
 * JIT linkers (cuLinkAddData's OBJECT/LIBRARY inputs, nvJitLink's) need. */
#include "zn_fatbin.h"

#include <string.h>

int zn_fatbin_each_embedded(const void *data, size_t size,
                            int (*cb)(void *u, const void *fatbin, size_t size), void *u)
{
    static const unsigned char magic[4] = {0x50, 0xED, 0x55, 0xBA};  /* 0xBA55ED50 */
    const unsigned char *p = data;
    for (size_t off = 0; off + 16 <= size; off++) {
        if (memcmp(p + off, magic, 4))
            continue;
        uint16_t hdr;
        uint64_t body;
        memcpy(&hdr, p + off + 6, 2);
        memcpy(&body, p + off + 8, 8);
        if (hdr < 16 || hdr > size - off || body > size - off - hdr)
            continue;   /* the bytes only look like a header */
        int r = cb(u, p + off, hdr + body);
        if (r)
            return r;
        off += hdr + body - 1;
    }
    return 0;
}
