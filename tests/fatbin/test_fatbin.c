/* test_fatbin: the fatbin layer against hand-built containers (synthetic)
 * and against what nvcc builds (select, noptx, fuzz, concat, rdc). */
#include "fatbin/zn_fatbin.h"
#include "test_fatbin_util.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static char err[512];

/* ---- building containers by hand --------------------------------------- */

typedef struct buf { uint8_t *p; size_t n; } buf;

static void put(buf *b, const void *d, size_t n)
{
    b->p = realloc(b->p, b->n + n + 1);
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_at(uint8_t *p, size_t off, uint64_t v, int width)
{
    memcpy(p + off, &v, (size_t)width);   /* little-endian host */
}

/* One entry as nvcc lays it out: 0x40-byte header (0x50 for PTX), payload
 * padded to 8 bytes, compressed by the real libraries when asked. */
static void add_entry(buf *b, uint16_t kind, uint32_t sm, const char *how, const void *data, size_t n)
{
    size_t hs = kind == 1 ? 0x50 : 0x40;
    size_t cap = ZSTD_compressBound(n) + LZ4_compressBound((int)n) + 8;
    uint8_t *stored = calloc(1, cap);
    size_t sn = n;
    uint64_t flags = 0x11;
    if (strcmp(how, "zstd") == 0) {
        sn = ZSTD_compress(stored, cap, data, n, 3);
        flags |= 0x8000;
    } else if (strcmp(how, "lz4") == 0) {
        sn = (size_t)LZ4_compress_default(data, (char *)stored, (int)n, (int)cap);
        flags |= 0x2000;
    } else {
        memcpy(stored, data, n);
    }
    size_t padded = (sn + 7) & ~(size_t)7;
    uint8_t h[0x50] = {0};
    put_at(h, 0, kind, 2);
    put_at(h, 2, 0x0101, 2);
    put_at(h, 4, hs, 4);
    put_at(h, 8, padded, 8);
    put_at(h, 16, flags & 0xa000 ? sn : 0, 4);
    put_at(h, 24, 0x00080000, 4);
    put_at(h, 28, sm, 4);
    put_at(h, 40, flags, 8);
    put_at(h, 56, flags & 0xa000 ? n : 0, 8);
    put(b, h, hs);
    put(b, stored, padded);
    free(stored);
}

/* A fatbin header in front of the entries in e. */
static buf fatbin_of(const buf *e)
{
    buf f = {0};
    uint8_t h[16] = {0};
    put_at(h, 0, 0xBA55ED50u, 4);
    put_at(h, 4, 1, 2);
    put_at(h, 6, 16, 2);
    put_at(h, 8, e->n, 8);
    put(&f, h, 16);
    put(&f, e->p, e->n);
    return f;
}

typedef struct wrapper { uint32_t magic, version; const void *fatbin; const void *extra; } wrapper;

static const char *ptx_for(uint32_t sm)
{
    static char text[256];
    snprintf(text, sizeof text, "//\n// test\n.version 8.0\n.target sm_%u\n.address_size 64\n"
             ".visible .entry k_%u()\n{\n\tret;\n}\n", sm, sm);
    return text;
}

/* PTX 60 (lz4), 75 (zstd), 86 (none) and an sm_90 cubin. */
static buf synthetic_fatbin(void)
{
    buf e = {0};
    add_entry(&e, 1, 60, "lz4", ptx_for(60), strlen(ptx_for(60)));
    add_entry(&e, 1, 75, "zstd", ptx_for(75), strlen(ptx_for(75)));
    add_entry(&e, 2, 90, "none", "\x7f" "ELF fake cubin", 14);
    add_entry(&e, 1, 86, "none", ptx_for(86), strlen(ptx_for(86)));
    buf f = fatbin_of(&e);
    free(e.p);
    return f;
}

/* get_ptx must give exactly one image of the expected arch and text. */
static void expect_one(const char *what, int rc, zn_ptx_image *img, unsigned n, uint32_t sm, int newer)
{
    CHECK(rc == 0 && n == 1, "%s: rc %d n %u (%s)", what, rc, n, err);
    if (rc == 0 && n == 1) {
        const char *want = ptx_for(sm);
        CHECK(img[0].sm == sm && img[0].newer_than_device == newer, "%s: sm %u newer %d", what,
              img[0].sm, img[0].newer_than_device);
        CHECK(img[0].len == strlen(want) && strcmp(img[0].text, want) == 0, "%s: wrong text", what);
    }
    zn_ptx_images_free(img, n);
}

static void test_selection(void)
{
    buf f = synthetic_fatbin();
    static const struct { unsigned cc; uint32_t sm; int newer; } cases[] = {
        {50, 60, 1}, {60, 60, 0}, {70, 60, 0}, {75, 75, 0}, {80, 75, 0},
        {86, 86, 0}, {89, 86, 0}, {90, 86, 0}, {120, 86, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zn_ptx_image *img;
        unsigned n;
        char what[64];
        snprintf(what, sizeof what, "synthetic cc %u", cases[i].cc);
        int rc = zn_fatbin_get_ptx(f.p, cases[i].cc, &img, &n, err, sizeof err);
        expect_one(what, rc, img, n, cases[i].sm, cases[i].newer);
        rc = zn_fatbin_get_ptx_n(f.p, f.n, cases[i].cc, &img, &n, err, sizeof err);
        expect_one(what, rc, img, n, cases[i].sm, cases[i].newer);
    }
    free(f.p);
}

typedef struct listed { int n; zn_fatbin_entry e[8]; } listed;
static void list_cb(void *u, const zn_fatbin_entry *e)
{
    listed *l = u;
    if (l->n < 8)
        l->e[l->n] = *e;
    l->n++;
}

static void test_list(void)
{
    buf f = synthetic_fatbin();
    listed l = {0};
    int rc = zn_fatbin_list(f.p, list_cb, &l, err, sizeof err);
    CHECK(rc == 4 && l.n == 4, "list rc %d n %d (%s)", rc, l.n, err);
    static const struct { uint16_t kind; uint32_t sm; const char *how; } want[] = {
        {1, 60, "lz4"}, {1, 75, "zstd"}, {2, 90, "none"}, {1, 86, "none"},
    };
    for (int i = 0; i < 4 && i < l.n; i++)
        CHECK(l.e[i].kind == want[i].kind && l.e[i].sm == want[i].sm &&
              strcmp(l.e[i].compression, want[i].how) == 0 && l.e[i].ptx_version == 0x00080000,
              "entry %d: kind %u sm %u %s", i, l.e[i].kind, l.e[i].sm, l.e[i].compression);
    free(f.p);
}

static void test_wrappers(void)
{
    buf f = synthetic_fatbin();
    zn_ptx_image *img;
    unsigned n;
    wrapper w1 = { 0x466243B1u, 1, f.p, "offline-file-name" };
    int rc = zn_fatbin_get_ptx(&w1, 80, &img, &n, err, sizeof err);
    expect_one("wrapper v1", rc, img, n, 75, 0);

    /* -rdc: the linked fatbin has only a cubin; two objects have PTX. */
    buf cubin_e = {0}, a_e = {0}, b_e = {0};
    add_entry(&cubin_e, 2, 75, "none", "\x7f" "ELF", 4);
    add_entry(&a_e, 1, 75, "zstd", ptx_for(75), strlen(ptx_for(75)));
    add_entry(&b_e, 1, 60, "none", ptx_for(60), strlen(ptx_for(60)));
    add_entry(&b_e, 1, 86, "lz4", ptx_for(86), strlen(ptx_for(86)));
    buf linked = fatbin_of(&cubin_e), a = fatbin_of(&a_e), b = fatbin_of(&b_e);
    const void *extra[] = { a.p, b.p, NULL };
    wrapper w2 = { 0x466243B1u, 2, linked.p, extra };
    rc = zn_fatbin_get_ptx(&w2, 86, &img, &n, err, sizeof err);
    CHECK(rc == 0 && n == 2, "wrapper v2: rc %d n %u (%s)", rc, n, err);
    if (rc == 0 && n == 2) {
        CHECK(img[0].sm == 75 && strcmp(img[0].text, ptx_for(75)) == 0, "v2 image 0 sm %u", img[0].sm);
        CHECK(img[1].sm == 86 && strcmp(img[1].text, ptx_for(86)) == 0, "v2 image 1 sm %u", img[1].sm);
    }
    zn_ptx_images_free(img, n);

    wrapper w2_none = { 0x466243B1u, 2, linked.p, NULL };
    rc = zn_fatbin_get_ptx(&w2_none, 86, &img, &n, err, sizeof err);
    CHECK(rc == -2 && n == 0 && strstr(err, "no PTX") && strstr(err, "sm_75"),
          "v2 without PTX: rc %d (%s)", rc, err);

    wrapper bad = { 0x466243B1u, 3, f.p, NULL };
    rc = zn_fatbin_get_ptx(&bad, 86, &img, &n, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "version"), "wrapper v3: rc %d (%s)", rc, err);
    rc = zn_fatbin_get_ptx_n(&w1, 12, 86, &img, &n, err, sizeof err);
    CHECK(rc == -1, "truncated wrapper: rc %d", rc);
    free(f.p); free(cubin_e.p); free(a_e.p); free(b_e.p); free(linked.p); free(a.p); free(b.p);
}

static void test_classify(void)
{
    buf f = synthetic_fatbin();
    wrapper w = { 0x466243B1u, 1, f.p, NULL };
    CHECK(zn_image_classify(&w) == ZN_IMAGE_WRAPPER, "wrapper");
    CHECK(zn_image_classify(f.p) == ZN_IMAGE_FATBIN, "fatbin");
    CHECK(zn_image_classify(".version 8.0\n") == ZN_IMAGE_PTX, "ptx");
    CHECK(zn_image_classify(" \n\t// comment\n.version 8.0\n") == ZN_IMAGE_PTX, "ptx after comment");
    CHECK(zn_image_classify("\n\n\n.version 9.0") == ZN_IMAGE_PTX, "ptx after blank lines");
    CHECK(zn_image_classify("\x7f" "ELF\x02\x01") == ZN_IMAGE_ELF, "elf");
    CHECK(zn_image_classify("hello") == ZN_IMAGE_UNKNOWN, "text");
    CHECK(zn_image_classify("") == ZN_IMAGE_UNKNOWN, "empty");
    CHECK(zn_image_classify(NULL) == ZN_IMAGE_UNKNOWN, "NULL");
    CHECK(zn_image_classify_n(".vers", 5) == ZN_IMAGE_UNKNOWN, "short ptx");
    CHECK(zn_image_classify_n(f.p, 3) == ZN_IMAGE_UNKNOWN, "3 bytes");
    free(f.p);
}

static void test_ptx_and_elf_images(void)
{
    const char *text = "\n  .version 8.0\n.target sm_80\n.address_size 64\n";
    zn_ptx_image *img;
    unsigned n;
    int rc = zn_fatbin_get_ptx(text, 75, &img, &n, err, sizeof err);
    CHECK(rc == 0 && n == 1 && img[0].sm == 80 && img[0].newer_than_device == 1 &&
          img[0].len == strlen(text) && strcmp(img[0].text, text) == 0, "PTX image rc %d", rc);
    if (rc == 0)
        zn_ptx_images_free(img, n);
    rc = zn_fatbin_get_ptx("\x7f" "ELF\x02\x01\x01", 75, &img, &n, err, sizeof err);
    CHECK(rc == -2 && strstr(err, "no PTX") && strstr(err, "compute_75"), "ELF: rc %d (%s)", rc, err);
    rc = zn_fatbin_get_ptx("garbage", 75, &img, &n, err, sizeof err);
    CHECK(rc == -1 && err[0], "garbage: rc %d", rc);
}

/* Decompressors against the reference libraries' compressors. */
static void test_decompressors(void)
{
    char src[5000], out[5000];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = "ld.global.f32 %f1, [%rd4];\n"[i % 27] + (char)(i / 997);
    size_t cap = ZSTD_compressBound(sizeof src);
    char *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, src, sizeof src, 5);
    CHECK(zn_unzstd(z, zn, out, sizeof out) == (long)sizeof src && memcmp(out, src, sizeof src) == 0, "zstd");
    CHECK(zn_unzstd(z, zn, out, 100) == -1, "zstd small cap");
    CHECK(zn_unzstd(z, zn / 2, out, sizeof out) == -1, "zstd truncated");
    int ln = LZ4_compress_default(src, z, (int)sizeof src, (int)cap);
    CHECK(zn_unlz4(z, (size_t)ln, out, sizeof out) == (long)sizeof src && memcmp(out, src, sizeof src) == 0, "lz4");
    CHECK(zn_unlz4(z, (size_t)ln, out, 100) == -1, "lz4 small cap");
    CHECK(zn_unlz4(z, (size_t)ln / 2, out, sizeof out) == -1, "lz4 truncated");
    free(z);
}

/* Hand-corrupted entries: each must be -1 with a message. */
static void test_malformed(void)
{
    static const struct { const char *what; size_t off; uint64_t val; int width; } edits[] = {
        { "fatbin magic",       0,  0x12345678, 4 },
        { "fatbin version",     4,  7, 2 },
        { "fatbin header size", 6,  8, 2 },
        { "fatbin size huge",   8,  1ull << 40, 8 },
        { "entry header size",  16 + 4, 8, 4 },
        { "entry payload huge", 16 + 8, 1ull << 33, 8 },
        { "compressed > payload", 16 + 16, 1 << 20, 4 },
        { "compressed zero",    16 + 16, 0, 4 },
        { "lz4 raw size huge",  16 + 56, 1 << 29, 8 },
        { "lz4 raw size wrong", 16 + 56, 17, 8 },
        { "both compressions",  16 + 40, 0xa011, 8 },
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        buf f = synthetic_fatbin();   /* first entry: PTX sm 60, lz4 */
        put_at(f.p, edits[i].off, edits[i].val, edits[i].width);
        zn_ptx_image *img;
        unsigned n;
        int rc = zn_fatbin_get_ptx_n(f.p, f.n, 60, &img, &n, err, sizeof err);
        CHECK(rc == -1 && err[0], "%s: rc %d", edits[i].what, rc);
        if (rc == 0)
            zn_ptx_images_free(img, n);
        free(f.p);
    }
    /* Empty PTX, and PTX with a NUL inside. */
    static const char *const texts[] = { "\0\0\0\0", ".version 8.0\n\0.target sm_75\n" };
    static const size_t lens[] = { 4, 28 };
    for (int i = 0; i < 2; i++) {
        buf e = {0};
        add_entry(&e, 1, 75, "none", texts[i], lens[i]);
        buf f = fatbin_of(&e);
        zn_ptx_image *img;
        unsigned n;
        int rc = zn_fatbin_get_ptx_n(f.p, f.n, 75, &img, &n, err, sizeof err);
        CHECK(rc == -1 && strstr(err, "PTX text"), "bad text %d: rc %d (%s)", i, rc, err);
        free(e.p);
        free(f.p);
    }
    /* Garbage after a sized fatbin is an error, zero padding is not. */
    buf f = synthetic_fatbin();
    put(&f, "\0\0\0\0\0\0\0\0", 8);
    zn_ptx_image *img;
    unsigned n;
    int rc = zn_fatbin_get_ptx_n(f.p, f.n, 75, &img, &n, err, sizeof err);
    CHECK(rc == 0 && n == 1, "zero padding: rc %d (%s)", rc, err);
    if (rc == 0)
        zn_ptx_images_free(img, n);
    f.p[f.n - 3] = 1;
    rc = zn_fatbin_get_ptx_n(f.p, f.n, 75, &img, &n, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "garbage"), "garbage: rc %d (%s)", rc, err);
    free(f.p);
}

static int cmd_synthetic(void)
{
    test_classify();
    test_decompressors();
    test_selection();
    test_list();
    test_wrappers();
    test_ptx_and_elf_images();
    test_malformed();
    return 0;
}

/* ---- nvcc-built inputs -------------------------------------------------- */

/* select FATBIN CC SM NEWER REF [RAW]: the sized and unsized calls and a v1
 * wrapper around the fatbin all give one image matching nvcc -ptx (modulo
 * stripped comments) and, when given, the raw entry byte for byte. */
static int cmd_select(char **argv, int argc)
{
    size_t n, refn, rawn = 0;
    uint8_t *fb = tf_read_file(argv[0], &n);
    unsigned cc = (unsigned)atoi(argv[1]);
    uint32_t sm = (uint32_t)atoi(argv[2]);
    int newer = atoi(argv[3]);
    char *ref = (char *)tf_read_file(argv[4], &refn);
    char *raw = argc > 5 ? (char *)tf_read_file(argv[5], &rawn) : NULL;
    wrapper w = { 0x466243B1u, 1, fb, NULL };
    for (int how = 0; how < 3; how++) {
        zn_ptx_image *img;
        unsigned k;
        int rc = how == 0 ? zn_fatbin_get_ptx_n(fb, n, cc, &img, &k, err, sizeof err)
               : how == 1 ? zn_fatbin_get_ptx(fb, cc, &img, &k, err, sizeof err)
               : zn_fatbin_get_ptx(&w, cc, &img, &k, err, sizeof err);
        CHECK(rc == 0 && k == 1, "call %d: rc %d n %u (%s)", how, rc, k, err);
        if (rc != 0)
            continue;
        CHECK(img[0].sm == sm && img[0].newer_than_device == newer, "call %d: sm %u newer %d", how,
              img[0].sm, img[0].newer_than_device);
        CHECK(img[0].len == strlen(img[0].text) && img[0].len > 0 && img[0].text[img[0].len - 1] != 0,
              "call %d: len %zu", how, img[0].len);
        CHECK(tf_ptx_equiv(img[0].text, img[0].len, ref, refn), "call %d: differs from %s", how, argv[4]);
        if (raw)
            CHECK(img[0].len == rawn && memcmp(img[0].text, raw, rawn) == 0,
                  "call %d: not byte-identical to %s (%zu vs %zu bytes)", how, argv[5], img[0].len, rawn);
        zn_ptx_images_free(img, k);
    }
    free(fb);
    free(ref);
    free(raw);
    return 0;
}

static int cmd_noptx(char **argv)
{
    size_t n;
    uint8_t *fb = tf_read_file(argv[0], &n);
    zn_ptx_image *img = (zn_ptx_image *)1;
    unsigned k = 7;
    int rc = zn_fatbin_get_ptx(fb, 75, &img, &k, err, sizeof err);
    CHECK(rc == -2 && k == 0 && img == NULL, "rc %d n %u", rc, k);
    CHECK(strstr(err, "no PTX") && strstr(err, "arch=compute_75,code=compute_75") &&
          strstr(err, "-arch=sm_75") && strstr(err, "sm_75"), "message: %s", err);
    printf("message: %s\n", err);
    free(fb);
    return 0;
}

/* Every truncation is -1; random byte flips never crash and give 0, -1
 * or -2 (a flip inside a cubin or in padding changes nothing we read). */
static int cmd_fuzz(char **argv)
{
    size_t n;
    uint8_t *orig = tf_read_file(argv[0], &n);
    int counts[3] = {0};
    for (size_t cut = 1; cut < n; cut++) {
        uint8_t *t = malloc(cut);
        memcpy(t, orig, cut);
        zn_ptx_image *img;
        unsigned k;
        int rc = zn_fatbin_get_ptx_n(t, cut, 75, &img, &k, err, sizeof err);
        CHECK(rc == -1 && err[0], "truncated to %zu: rc %d", cut, rc);
        if (rc == 0)
            zn_ptx_images_free(img, k);
        free(t);
    }
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 3000; round++) {
        uint8_t *t = malloc(n);
        memcpy(t, orig, n);
        int flips = 1 + round % 4;
        for (int f = 0; f < flips; f++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            /* Bias towards the headers, where the parser's decisions are. */
            size_t span = round % 2 ? n : (n < 256 ? n : 256);
            size_t at = (size_t)(seed >> 33) % span;
            /* Also aim at the last entry's header region in multi-entry files. */
            if (round % 3 == 2 && n > 512)
                at = n - 1 - (size_t)(seed >> 40) % 512;
            t[at] ^= (uint8_t)(1u << ((seed >> 20) & 7));
        }
        zn_ptx_image *img;
        unsigned k;
        err[0] = 0;
        int rc = zn_fatbin_get_ptx_n(t, n, 75, &img, &k, err, sizeof err);
        CHECK(rc == 0 || ((rc == -1 || rc == -2) && err[0]), "flip round %d: rc %d", round, rc);
        if (rc == 0) {
            for (unsigned i = 0; i < k; i++)
                CHECK(img[i].len > 0 && strlen(img[i].text) == img[i].len, "flip round %d: image %u", round, i);
            zn_ptx_images_free(img, k);
        }
        counts[-rc < 3 ? -rc : 0]++;
        free(t);
    }
    /* Flipping any bit of the fatbin header must be caught. */
    for (size_t at = 0; at < 16; at++) {
        for (int bit = 0; bit < 8; bit++) {
            uint8_t *t = malloc(n);
            memcpy(t, orig, n);
            t[at] ^= (uint8_t)(1u << bit);
            zn_ptx_image *img;
            unsigned k;
            int rc = zn_fatbin_get_ptx_n(t, n, 75, &img, &k, err, sizeof err);
            /* The version's and header size's high bits are all equally bad;
             * only nothing may pass silently. */
            CHECK(rc == -1, "header byte %zu bit %d: rc %d", at, bit, rc);
            if (rc == 0)
                zn_ptx_images_free(img, k);
            free(t);
        }
    }
    printf("%zu truncations; flips: %d ok, %d malformed, %d no-PTX\n", n - 1, counts[0], counts[1], counts[2]);
    CHECK(counts[1] > 0, "no flip was detected at all");
    free(orig);
    return 0;
}

/* Two fatbins back to back: one image each when the size is known. */
static int cmd_concat(char **argv)
{
    size_t an, bn;
    uint8_t *a = tf_read_file(argv[0], &an), *b = tf_read_file(argv[1], &bn);
    buf c = {0};
    put(&c, a, an);
    put(&c, b, bn);
    put(&c, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    zn_ptx_image *img;
    unsigned k;
    int rc = zn_fatbin_get_ptx_n(c.p, c.n, 86, &img, &k, err, sizeof err);
    CHECK(rc == 0 && k == 2, "rc %d n %u (%s)", rc, k, err);
    if (rc == 0) {
        CHECK(k == 2 && img[0].sm == 86 && img[1].sm == 90 && img[1].newer_than_device, "sms %u %u",
              img[0].sm, k > 1 ? img[1].sm : 0);
        zn_ptx_images_free(img, k);
    }
    rc = zn_fatbin_get_ptx(c.p, 86, &img, &k, err, sizeof err);
    CHECK(rc == 0 && k == 1 && img[0].sm == 86, "unsized: rc %d n %u", rc, k);
    if (rc == 0)
        zn_ptx_images_free(img, k);
    free(a);
    free(b);
    free(c.p);
    return 0;
}

/* The -rdc executable: rebuild in memory what cudart hands the driver. Its
 * .nvFatBinSegment holds a v2 wrapper (the device-linked fatbin) and one v1
 * wrapper per object; at start-up __cudaRegisterLinkedBinary fills the v2
 * wrapper's extra array with the objects' fatbins, NULL-terminated.
 * rdc APP MAIN_PTX HELPER_PTX CC NOBJ: NOBJ objects (2, or 3 when nvcc adds
 * the device runtime's), each giving one image; two match nvcc -ptx. */
static int cmd_rdc(char **argv)
{
    size_t n, seg_n, mn, hn;
    uint8_t *elf = tf_read_file(argv[0], &n);
    char *main_ptx = (char *)tf_read_file(argv[1], &mn), *helper_ptx = (char *)tf_read_file(argv[2], &hn);
    unsigned cc = (unsigned)atoi(argv[3]), want_obj = (unsigned)atoi(argv[4]);
    const uint8_t *seg = tf_elf_section(elf, n, ".nvFatBinSegment", &seg_n);
    CHECK(seg && seg_n % 24 == 0 && seg_n >= 72, "segment %p size %zu", (const void *)seg, seg_n);
    if (!seg)
        return 0;
    wrapper linked = {0};
    const void *objs[16] = {0};
    unsigned nobj = 0, nv2 = 0;
    for (size_t off = 0; off + 24 <= seg_n; off += 24) {
        wrapper w;
        uint64_t fb_va;
        memcpy(&w, seg + off, 8);
        memcpy(&fb_va, seg + off + 8, 8);
        CHECK(w.magic == 0x466243B1u, "wrapper magic 0x%x", w.magic);
        w.fatbin = tf_elf_va(elf, n, fb_va);
        CHECK(w.fatbin != NULL, "fatbin VA 0x%llx not in the file", (unsigned long long)fb_va);
        if (w.version == 2) {
            linked = w;
            nv2++;
        } else if (nobj < 15) {
            objs[nobj++] = w.fatbin;
        }
    }
    CHECK(nv2 == 1 && nobj == want_obj, "%u v2 wrappers, %u objects", nv2, nobj);
    linked.extra = objs;
    zn_ptx_image *img;
    unsigned k;
    int rc = zn_fatbin_get_ptx(&linked, cc, &img, &k, err, sizeof err);
    CHECK(rc == 0 && k == want_obj, "rc %d n %u (%s)", rc, k, err);
    if (rc == 0) {
        int mains = 0, helpers = 0, externs = 0;
        tf_quiet = true;   /* images are tried against both references */
        for (unsigned i = 0; i < k; i++) {
            mains += tf_ptx_equiv(img[i].text, img[i].len, main_ptx, mn);
            helpers += tf_ptx_equiv(img[i].text, img[i].len, helper_ptx, hn);
            externs += strstr(img[i].text, ".extern .func") != NULL;
        }
        tf_quiet = false;
        CHECK(mains == 1 && helpers == 1, "%d images match the main object, %d the helper", mains, helpers);
        CHECK(externs >= 1, "the caller's PTX should declare the helper .extern");
        zn_ptx_images_free(img, k);
    }
    /* The device-linked fatbin alone holds a cubin or nothing. */
    linked.extra = NULL;
    rc = zn_fatbin_get_ptx(&linked, cc, &img, &k, err, sizeof err);
    CHECK(rc == -2 && strstr(err, "no PTX"), "linked fatbin alone: rc %d (%s)", rc, err);
    printf("linked fatbin alone: %s\n", err);
    free(elf);
    free(main_ptx);
    free(helper_ptx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_fatbin synthetic|select|noptx|fuzz|concat|rdc ARGS\n");
        return 2;
    }
    const char *cmd = argv[1];
    char **args = argv + 2;
    int nargs = argc - 2;
    if (strcmp(cmd, "synthetic") == 0)
        cmd_synthetic();
    else if (strcmp(cmd, "select") == 0 && nargs >= 5)
        cmd_select(args, nargs);
    else if (strcmp(cmd, "noptx") == 0 && nargs == 1)
        cmd_noptx(args);
    else if (strcmp(cmd, "fuzz") == 0 && nargs == 1)
        cmd_fuzz(args);
    else if (strcmp(cmd, "concat") == 0 && nargs == 2)
        cmd_concat(args);
    else if (strcmp(cmd, "rdc") == 0 && nargs == 5)
        cmd_rdc(args);
    else {
        fprintf(stderr, "test_fatbin: bad command or arguments\n");
        return 2;
    }
    if (tf_failures) {
        printf("%d failures\n", tf_failures);
        return 1;
    }
    printf("%s: all passed\n", cmd);
    return 0;
}
