/* fuzz_fatbin.c: fatbin bytes of known size -> the fatbin layer.
 *
 * zn_image_classify_n, zn_fatbin_list_n and zn_fatbin_get_ptx_n on the
 * input (with a device cc taken from the input's length), plus the two
 * decompressors on the raw bytes. Invariants: no read outside the input
 * (ASan: the input is an exact-size heap block), list and get_ptx agree on
 * whether the image is well-formed, every returned text is NUL-terminated
 * at len, and a decompressor never claims more than its capacity.
 * A wrapper (magic 0x466243B1) holds pointers: by contract it is not
 * bytes-only, so such inputs are skipped. */
#include "zn_fuzz.h"
#include "fatbin/zn_fatbin.h"

#include <string.h>

void zn_fuzz_init(void) {}

static void count_entry(void *u, const zn_fatbin_entry *e)
{
    ZN_FUZZ_CHECK(e->compression != NULL, "entry without a compression name");
    ZN_FUZZ_CHECK(!strcmp(e->compression, "none") || !strcmp(e->compression, "zstd") ||
                  !strcmp(e->compression, "lz4"), "compression '%s'", e->compression);
    (*(int *)u)++;
}

void zn_fuzz_one(const uint8_t *data, size_t size)
{
    if (size >= 4) {
        uint32_t magic;
        memcpy(&magic, data, 4);
        if (magic == 0x466243B1u)
            return;
    }
    if (size == 0)
        return;     /* size 0 means "unknown" to the API: reads are unbounded */
    static const unsigned ccs[] = { 75, 80, 86, 89, 90, 100, 120, 52 };
    unsigned cc = ccs[size % 8];
    char err[512];

    zn_image_kind kind = zn_image_classify_n(data, size);
    ZN_FUZZ_CHECK(kind <= ZN_IMAGE_ELF, "kind %d", (int)kind);

    int seen = 0;
    err[0] = 0;
    int n = zn_fatbin_list_n(data, size, count_entry, &seen, err, sizeof err);
    if (n < 0)
        ZN_FUZZ_CHECK(err[0], "list failed without a message");
    else
        ZN_FUZZ_CHECK(n == seen, "list returned %d but called back %d times", n, seen);

    zn_ptx_image *imgs = NULL;
    unsigned nimg = 0;
    err[0] = 0;
    int r = zn_fatbin_get_ptx_n(data, size, cc, &imgs, &nimg, err, sizeof err);
    if (r == 0) {
        ZN_FUZZ_CHECK(nimg >= 1 && imgs, "success without an image");
        ZN_FUZZ_CHECK(n >= 0, "get_ptx took an image that list calls malformed: %s", err);
        for (unsigned i = 0; i < nimg; i++) {
            ZN_FUZZ_CHECK(imgs[i].text && imgs[i].text[imgs[i].len] == 0,
                          "image %u not NUL-terminated at len", i);
            ZN_FUZZ_CHECK(strlen(imgs[i].text) <= imgs[i].len, "image %u", i);
        }
        zn_ptx_images_free(imgs, nimg);
    } else {
        ZN_FUZZ_CHECK(r == -1 || r == -2, "get_ptx returned %d", r);
        ZN_FUZZ_CHECK(err[0], "get_ptx failed (%d) without a message", r);
    }

    /* the raw decompressors, on the input as a frame / block */
    uint8_t out[4096];
    long z = zn_unzstd(data, size, out, sizeof out);
    ZN_FUZZ_CHECK(z >= -1 && z <= (long)sizeof out, "zstd gave %ld", z);
    long l = zn_unlz4(data, size, out, sizeof out);
    ZN_FUZZ_CHECK(l >= -1 && l <= (long)sizeof out, "lz4 gave %ld", l);
}
