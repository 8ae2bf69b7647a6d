/* sweep_check.c: comparing Zinc's outputs with the reference's. */
#include <string.h>
#include "sweep.h"

static uint64_t mask_of(char c)
{
    size_t w = sw_width(c);
    return w >= 64 ? ~0ull : (1ull << w) - 1;
}

int exact(const sw_form *f, const uint64_t *in, const uint64_t *got, const uint64_t *want)
{
    for (size_t k = 0; f->dst[k]; k++) {
        uint64_t m = mask_of(f->dst[k]);
        if ((got[k] & m) != (want[k] & m))
            return 0;
    }
    return 1;
}

static int is_nan_of(char c, uint64_t v)
{
    switch (c) {
    case 'f': return sw_isnan_f(v);
    case 'd': return sw_isnan_d(v);
    case 'H': return (v & 0x7fff) > 0x7c00;
    case 'B': return (v & 0x7fff) > 0x7f80;
    default: return 0;
    }
}

/* f64 (and conversions into it): any NaN where the reference has a NaN;
 * the ISA does not define the payload of an f64 NaN result */
int nan_any(const sw_form *f, const uint64_t *in, const uint64_t *got, const uint64_t *want)
{
    for (size_t k = 0; f->dst[k]; k++) {
        char c = f->dst[k];
        uint64_t m = mask_of(c);
        if (is_nan_of(c, want[k]) && is_nan_of(c, got[k]))
            continue;
        if (c == 'X' || c == 'Y') {   /* each half on its own */
            char h = c == 'X' ? 'H' : 'B';
            int ok = 1;
            for (int s = 0; s < 32; s += 16) {
                uint64_t g = (got[k] >> s) & 0xffff, w = (want[k] >> s) & 0xffff;
                ok &= g == w || (is_nan_of(h, g) && is_nan_of(h, w));
            }
            if (ok)
                continue;
        }
        if ((got[k] & m) != (want[k] & m))
            return 0;
    }
    return 1;
}

/* integer division: "division by zero yields an unspecified value"; the
 * references give what an H200 gives, except for the 32-bit remainders,
 * which depend on the code around them there (ref_int.c) */
int div_int(const sw_form *f, const uint64_t *in, const uint64_t *got, const uint64_t *want)
{
    if ((in[1] & mask_of(f->src[1])) == 0 && !strncmp(f->name, "rem_", 4) && f->dst[0] == 'i')
        return 1;
    return exact(f, in, got, want);
}

static int is_zero_of(char c, uint64_t v)
{
    switch (c) {
    case 'f': return ((uint32_t)v & 0x7fffffffu) == 0;
    case 'd': return (v & ~(1ull << 63)) == 0;
    case 'H': case 'B': return (v & 0x7fff) == 0;
    default: return 0;
    }
}

/* one scalar value that differs: NaN payload, sign of zero, or other */
static int class_of1(char c, uint64_t g, uint64_t w)
{
    if (is_nan_of(c, g) && is_nan_of(c, w))
        return SW_MIS_NAN;
    if (is_zero_of(c, g) && is_zero_of(c, w))
        return SW_MIS_ZERO;
    return SW_MIS_OTHER;
}

/* the kind of a mismatch: the worst over the outputs that differ */
int sw_mismatch_class(const sw_form *f, const uint64_t *got, const uint64_t *want)
{
    int worst = 0;
    for (size_t k = 0; f->dst[k]; k++) {
        char c = f->dst[k];
        uint64_t m = mask_of(c);
        if ((got[k] & m) == (want[k] & m))
            continue;
        if (c == 'X' || c == 'Y') {
            char h = c == 'X' ? 'H' : 'B';
            for (int s = 0; s < 32; s += 16) {
                uint64_t g = (got[k] >> s) & 0xffff, w = (want[k] >> s) & 0xffff;
                if (g != w && class_of1(h, g, w) > worst)
                    worst = class_of1(h, g, w);
            }
            continue;
        }
        int k1 = class_of1(c, got[k] & m, want[k] & m);
        if (k1 > worst)
            worst = k1;
    }
    return worst ? worst : SW_MIS_OTHER;
}

uint64_t sw_mask_of(char c) { return mask_of(c); }
