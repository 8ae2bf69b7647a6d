/* zn_fatbin_classify.c: what kind of image a loader was handed. */
#include "zn_fatbin_internal.h"

#include <ctype.h>

/* PTX: optional whitespace, then a comment or the .version directive. */
static bool looks_like_ptx(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] && isspace((unsigned char)s[i]))
        i++;
    static const char *const starts[] = { "//", "/*", ".version" };
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
        size_t m = strlen(starts[k]);
        if (n - i >= m && strncmp(s + i, starts[k], m) == 0)
            return true;
    }
    return false;
}

static zn_image_kind classify(const uint8_t *p, size_t n)
{
    if (n >= 4) {
        uint32_t magic = zn_fb_rd32(p);
        if (magic == ZN_FB_WRAPPER_MAGIC)
            return ZN_IMAGE_WRAPPER;
        if (magic == ZN_FB_MAGIC)
            return ZN_IMAGE_FATBIN;
        if (memcmp(p, "\x7f" "ELF", 4) == 0)
            return ZN_IMAGE_ELF;
    }
    return looks_like_ptx((const char *)p, n) ? ZN_IMAGE_PTX : ZN_IMAGE_UNKNOWN;
}

/* Without a size the first 4 bytes are read, then text only up to a NUL. */
zn_image_kind zn_image_classify(const void *image)
{
    if (!image)
        return ZN_IMAGE_UNKNOWN;
    const uint8_t *p = image;
    size_t n = 0;
    while (n < 4 && p[n])
        n++;
    /* A binary magic has no NUL in its first 4 bytes. */
    return classify(p, n < 4 ? n : ZN_FB_CAP);
}

zn_image_kind zn_image_classify_n(const void *image, size_t size)
{
    return image ? classify(image, size) : ZN_IMAGE_UNKNOWN;
}

uint32_t zn_fb_ptx_target(const char *text, size_t len)
{
    static const char key[] = ".target";
    for (size_t i = 0; i + sizeof key - 1 < len; i++) {
        if (memcmp(text + i, key, sizeof key - 1) != 0)
            continue;
        size_t j = i + sizeof key - 1;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (len - j < 4 || memcmp(text + j, "sm_", 3) != 0)
            return 0;
        uint32_t sm = 0;
        for (j += 3; j < len && isdigit((unsigned char)text[j]) && sm < 100000; j++)
            sm = sm * 10 + (uint32_t)(text[j] - '0');
        return sm;
    }
    return 0;
}
