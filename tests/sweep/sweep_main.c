/* sweep_main.c: runs every form of the table (or those named) on Zinc and
 * on the reference, prints one summary line per form and exits nonzero on
 * any mismatch that known_failures.txt does not list.
 *
 *   sweep [--lib libcuda.so.1] [--ptxas path|none] [--known file] [--n N]
 *         [--seed S] [--only substr[,substr...]] [--batch K] [--selftest] [--verbose]
 *         [--full | --full-count N] [--record FILE | --replay FILE [--gpu-exact a,b]]
 * --full runs every 32-bit value of the first operand of the selected
 * one- and two-operand 32-bit forms (2^32 lanes each; the nightly
 * sweep.full), --full-count N only the first N.
 * Environment: ZINC_SWEEP_N (random lanes per form, default 256),
 * ZINC_SWEEP_SEED, ZINC_SWEEP_LIB, ZINC_SWEEP_PTXAS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fnmatch.h>
#include "sweep.h"
#include "sweep_replay.h"

const sw_form sw_forms[] = {
#define S(id, ptx, dst, src, ref, chk) {#id, ptx, dst, src, SW_SCALAR, ref, NULL, NULL, chk},
#define W(id, ptx, dst, src, wref) {#id, ptx, dst, src, SW_WARP, NULL, wref, NULL, exact},
#define A(id, ptx, dst, src, aref) {#id, ptx, dst, src, SW_ATOM, NULL, NULL, aref, exact},
#include "sweep_ops.def"
#undef S
#undef W
#undef A
};
const size_t sw_nforms = sizeof sw_forms / sizeof sw_forms[0];

typedef struct result {
    size_t tested, bad;
    size_t bad_nan;              /* of which NaN payload differences only */
    size_t bad_zero;             /* of which signs of zeros only */
    int fatal;                   /* did not load or run */
    char note[512];              /* load failure or first mismatch */
} result;

static struct {
    const char *lib, *ptxas, *known, *only;
    size_t nrand, batch;
    uint64_t full;               /* --full: lanes per form (2^32: all) */
    uint64_t seed;
    int selftest, verbose;
    FILE *record;                /* --record: every lane's inputs and outputs */
    const char *gpu_exact;       /* --gpu-exact: approximate forms that must
                                  * give the recorded GPU's bits (--only syntax) */
} opt;

static char *known_text;

/* known_failures.txt: "<form glob> <class> <reason>" lines; class "nan"
 * excuses NaN payload differences only, "zero" the sign of a zero result
 * only, "all" any mismatch. Returns the classes that match name, as bits
 * (1 nan, 2 zero, 4 all). */
static int known_class(const char *name)
{
    int best = 0;
    char line[1024], glob[256], cls[16];
    const char *p = known_text;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        p = e ? e + 1 : NULL;
        if (line[0] == '#' || sscanf(line, "%255s %15s", glob, cls) != 2)
            continue;
        if (fnmatch(glob, name, 0) != 0)
            continue;
        best |= !strcmp(cls, "all") ? 4 : !strcmp(cls, "zero") ? 2 : !strcmp(cls, "nan") ? 1 : 0;
    }
    return best;
}

/* ok, known (excused by known_failures.txt), FAIL, or fixed (listed as
 * failing but passing) */
static const char *verdict(const result *r, int known)
{
    /* a harness error (ptxas rejects our PTX) is never excused */
    size_t other = r->bad - r->bad_nan - r->bad_zero;
    int excused = r->fatal != 2 &&
                  ((known & 4) || (!r->fatal && !other && (!r->bad_nan || (known & 1)) &&
                                   (!r->bad_zero || (known & 2))));
    if (r->bad)
        return excused ? "known" : "FAIL";
    return known & 4 ? "fixed" : "ok";
}

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, fp) != (size_t)n)
        n = 0;
    if (s)
        s[n] = 0;
    fclose(fp);
    return s;
}

/* 1 if ptxas accepts the text, or there is no ptxas to ask */
static int ptxas_ok(const char *text, char *err, size_t errlen)
{
    if (!opt.ptxas)
        return 1;
    char path[] = "/tmp/zn-sweep-XXXXXX.ptx", cmd[1024];
    int fd = mkstemps(path, 4);
    if (fd < 0)
        return 1;
    FILE *fp = fdopen(fd, "w");
    fputs(text, fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -o /dev/null %s 2>&1", opt.ptxas, path);
    FILE *po = popen(cmd, "r");
    size_t n = po ? fread(err, 1, errlen - 1, po) : 0;
    err[n] = 0;
    int rc = po ? pclose(po) : 0;
    unlink(path);
    return rc == 0;
}

static char *module_text(const sw_form *const *fs, size_t n)
{
    char *buf = NULL;
    size_t len = 0, capa = 0;
    sw_ptx_header(&buf, &len, &capa);
    for (size_t i = 0; i < n; i++)
        if (!sw_ptx_entry(fs[i], &buf, &len, &capa)) {
            fprintf(stderr, "sweep: %s: bad template\n", fs[i]->name);
            exit(2);
        }
    return buf;
}

/* values as hex, each cut to its operand's width */
static void hexs(char *out, size_t n, const uint64_t *v, const char *letters)
{
    size_t at = 0;
    out[0] = 0;
    for (size_t i = 0; letters[i] && at < n; i++) {
        uint64_t x = v[i] == SW_UNDEF || v[i] == SW_UNTOUCHED ? v[i] : v[i] & sw_mask_of(letters[i]);
        at += (size_t)snprintf(out + at, n - at, "%s%llx", i ? "," : "", (unsigned long long)x);
    }
}

/* --record: one line per lane, "form<TAB>inputs<TAB>outputs" in hex as the
 * summary prints them; a warp form's lanes in order, whole warps. Run on a
 * real GPU (--lib naming NVIDIA's driver), this is the ground truth that
 * --replay later holds Zinc and the references to. */
static void record_lanes(const sw_form *f, const uint64_t *in, const uint64_t *got, size_t n)
{
    char a[200], b[64];
    for (size_t i = 0; i < n; i++) {
        hexs(a, sizeof a, in + i * SW_NIN, f->src);
        hexs(b, sizeof b, got + i * SW_NOUT, f->dst);
        fprintf(opt.record, "%s\t%s\t%s\n", f->name, a, b);
    }
}

/* the deliberately wrong reference of --selftest: add.s32 off by one
 * whenever bit 4 of a^b is set */
static void wrong_add_s32(const uint64_t *in, uint64_t *out)
{
    out[0] = (uint32_t)(in[0] + in[1] + (((in[0] ^ in[1]) >> 4) & 1));
}

/* and of shfl.sync.idx: lane 5's value is off by one when it takes part */
static void wrong_shfl_idx(const uint64_t *in, uint64_t *out)
{
    wref_shfl_idx(in, out);
    if (out[5 * SW_NOUT] != SW_UNTOUCHED && out[5 * SW_NOUT] != SW_UNDEF)
        out[5 * SW_NOUT] ^= 1;
}

/* atomic forms: each group of SW_GROUP lanes works on one cell, after the
 * lanes' outputs; the check looks for an order of the lanes that explains
 * the returned values and the final value */
static void run_atom(const sw_form *f, void *mod, result *res, sw_rng *rng)
{
    size_t groups = 4 + opt.nrand / 64, n = groups * SW_GROUP;
    uint64_t *in = calloc(n * SW_NIN, 8), *out = malloc((n * SW_NOUT + groups) * 8);
    for (size_t i = 0; i < n * SW_NOUT; i++)
        out[i] = SW_UNTOUCHED;
    for (size_t g = 0; g < groups; g++) {
        uint64_t init = sw_random(rng, f->src[1]), u = f->src[2] ? sw_random(rng, f->src[2]) : 0;
        out[n * SW_NOUT + g] = init;
        for (size_t l = g * SW_GROUP; l < (g + 1) * SW_GROUP; l++) {
            in[l * SW_NIN] = sw_random(rng, f->src[0]);
            in[l * SW_NIN + 1] = init;   /* cas compares with the initial value */
            in[l * SW_NIN + 2] = u;      /* one bound for inc/dec */
        }
    }
    char name[128], err[512];
    snprintf(name, sizeof name, "sw_%s", f->name);
    uint64_t *init = malloc(groups * 8);
    memcpy(init, out + n * SW_NOUT, groups * 8);
    if (!sw_cuda_run(mod, name, in, out, n, groups, err, sizeof err)) {
        snprintf(res->note, sizeof res->note, "%s", err);
        res->bad = 1;
        res->fatal = 1;
    } else {
        uint64_t *old = malloc(SW_GROUP * 8);
        for (size_t g = 0; g < groups; g++) {
            for (size_t l = 0; l < SW_GROUP; l++)
                old[l] = f->dst[0] ? out[(g * SW_GROUP + l) * SW_NOUT] & sw_mask_of(f->dst[0]) : 0;
            char why[256];
            if (!f->aref(in + g * SW_GROUP * SW_NIN, old, SW_GROUP, init[g], out[n * SW_NOUT + g],
                         why, sizeof why) && res->bad++ == 0)
                snprintf(res->note, sizeof res->note, "group %zu (init %llx, final %llx): %s", g,
                         (unsigned long long)init[g], (unsigned long long)out[n * SW_NOUT + g], why);
        }
        free(old);
    }
    res->tested = n;
    free(init);
    free(in);
    free(out);
}

/* the reference's outputs for n lanes (want: n*SW_NOUT slots) */
static void reference(const sw_form *f, const uint64_t *in, uint64_t *want, size_t n)
{
    for (size_t i = 0; i < n * SW_NOUT; i++)
        want[i] = SW_UNTOUCHED;
    sw_ref_fn ref = f->ref;
    if (opt.selftest && strcmp(f->name, "add_s32") == 0)
        ref = wrong_add_s32;
    sw_wref_fn wref = f->wref;
    if (opt.selftest && strcmp(f->name, "shfl_idx_b32") == 0)
        wref = wrong_shfl_idx;
    if (f->kind == SW_WARP) {
        for (size_t w = 0; w < n; w += SW_LANES)
            wref(in + w * SW_NIN, want + w * SW_NOUT);
    } else {
        for (size_t i = 0; i < n; i++)
            ref(in + i * SW_NIN, want + i * SW_NOUT);
    }
}

/* compares n lanes of outputs with what they should be, by the form's
 * checker (chk: f->chk, or exact); a warp form's outputs that the
 * reference leaves undefined (undef: the reference's outputs) are not
 * compared; adds to res */
static void compare(const sw_form *f, sw_chk_fn chk, const uint64_t *in, const uint64_t *got,
                    const uint64_t *want, const uint64_t *undef, size_t n, result *res)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t *iv = in + i * SW_NIN, *g = got + i * SW_NOUT, *wv = want + i * SW_NOUT;
        const uint64_t *uv = undef + i * SW_NOUT;
        int ok;
        if (f->kind == SW_WARP) {
            uint64_t g2[SW_NOUT], w2[SW_NOUT];
            for (size_t k = 0; k < SW_NOUT; k++) {
                g2[k] = uv[k] == SW_UNDEF ? 0 : g[k];
                w2[k] = uv[k] == SW_UNDEF ? 0 : wv[k];
            }
            ok = chk(f, iv, g2, w2);
        } else {
            ok = chk(f, iv, g, wv);
        }
        if (ok)
            continue;
        int cls = sw_mismatch_class(f, g, wv);
        int first_other = cls == SW_MIS_OTHER && res->bad == res->bad_nan + res->bad_zero;
        res->bad_nan += cls == SW_MIS_NAN;
        res->bad_zero += cls == SW_MIS_ZERO;
        /* the note shows the first mismatch, or the first that is more
         * than a NaN payload or the sign of a zero */
        if (res->bad++ == 0 || first_other || opt.verbose) {
            char a[200], b[64], c[64];
            hexs(a, sizeof a, iv, f->src);
            hexs(b, sizeof b, g, f->dst);
            hexs(c, sizeof c, wv, f->dst);
            if (f->kind == SW_WARP)
                snprintf(res->note, sizeof res->note, "lane %zu of warp at %zu: in %s got %s want %s",
                         i % SW_LANES, i - i % SW_LANES, a, b, c);
            else
                snprintf(res->note, sizeof res->note, "in %s got %s want %s", a, b, c);
            if (opt.verbose)
                printf("  %s: %s\n", f->name, res->note);
        }
    }
    res->tested += n;
}

/* runs n lanes of inputs on the device (got: n*SW_NOUT slots, filled);
 * 0 with res's note on failure */
static int run_lanes(const sw_form *f, void *mod, const uint64_t *in, uint64_t *got, size_t n,
                     result *res)
{
    for (size_t i = 0; i < n * SW_NOUT; i++)
        got[i] = SW_UNTOUCHED;
    char name[128], err[512];
    snprintf(name, sizeof name, "sw_%s", f->name);
    if (sw_cuda_run(mod, name, in, got, n, 0, err, sizeof err))
        return 1;
    snprintf(res->note, sizeof res->note, "%s", err);
    res->bad = 1;
    res->fatal = 1;
    res->tested += n;
    return 0;
}

/* runs n lanes of inputs on the device and on the reference and compares
 * them; adds to res */
static void check_lanes(const sw_form *f, void *mod, const uint64_t *in, size_t n, result *res)
{
    uint64_t *got = malloc(n * SW_NOUT * 8), *want = malloc(n * SW_NOUT * 8);
    if (!got || !want)
        abort();
    if (run_lanes(f, mod, in, got, n, res)) {
        if (opt.record && !opt.full)
            record_lanes(f, in, got, n);
        reference(f, in, want, n);
        compare(f, f->chk, in, got, want, want, n, res);
    }
    free(got);
    free(want);
}

/* --full: every 32-bit value of the first operand (a second one takes a
 * bijection of it), in chunks; forms with other operands are skipped */
static void run_full(const sw_form *f, void *mod, result *res)
{
    if (f->kind != SW_SCALAR || sw_width(f->src[0]) != 32 ||
        (f->src[1] && (sw_width(f->src[1]) != 32 || f->src[2]))) {
        snprintf(res->note, sizeof res->note, "not a 32-bit unary/binary form: skipped by --full");
        return;
    }
    const size_t chunk = (size_t)1 << 22;
    uint64_t *in = calloc(chunk * SW_NIN, 8);
    if (!in)
        abort();
    for (uint64_t base = 0; base < opt.full && !res->fatal; base += chunk) {
        size_t n = opt.full - base < chunk ? (size_t)(opt.full - base) : chunk;
        for (size_t i = 0; i < n; i++) {
            uint32_t x = (uint32_t)(base + i);
            in[i * SW_NIN] = x;
            in[i * SW_NIN + 1] = (uint32_t)(x * 2654435761u + 0x9e3779b9u);
        }
        check_lanes(f, mod, in, n, res);
    }
    free(in);
}

static void run_form(const sw_form *f, void *mod, result *res, sw_rng *rng)
{
    if (f->kind == SW_ATOM) {
        run_atom(f, mod, res, rng);
        return;
    }
    if (opt.full) {
        run_full(f, mod, res);
        return;
    }
    /* a form with an exhaustive letter (Q, Z): every edge value, then the
     * random ones; others: at most 4096 lanes of edge values */
    size_t ne = sw_edge_count(f);
    int exh = strpbrk(f->src, "QZ") && ne <= SW_MAX_EDGES;
    size_t cap = (exh && ne > 4096 ? ne : 4096) + opt.nrand;
    uint64_t *in = malloc(cap * SW_NIN * 8);
    if (!in)
        abort();
    size_t n = sw_gen_inputs(f, in, cap, opt.nrand, rng);
    check_lanes(f, mod, in, n, res);
    free(in);
}

/* loads a batch; on failure, each form alone so that the failure is named */
static void run_batch(const sw_form *const *fs, size_t n, result *res, sw_rng *rng)
{
    char err[4096];
    char *text = module_text(fs, n);
    if (!ptxas_ok(text, err, sizeof err)) {
        free(text);
        if (n > 1) {
            for (size_t i = 0; i < n; i++)
                run_batch(fs + i, 1, res + i, rng);
            return;
        }
        snprintf(res->note, sizeof res->note, "HARNESS: ptxas rejects the kernel: %.400s", err);
        for (char *p = res->note; *p; p++)
            if (*p == '\n')
                *p = ' ';
        res->bad = 1;
        res->fatal = 2;
        return;
    }
    void *mod = sw_cuda_load(text, err, sizeof err);
    free(text);
    if (!mod) {
        if (n > 1) {
            for (size_t i = 0; i < n; i++)
                run_batch(fs + i, 1, res + i, rng);
            return;
        }
        snprintf(res->note, sizeof res->note, "load failed: %.450s", err);
        for (char *p = res->note; *p; p++)
            if (*p == '\n')
                *p = ' ';
        res->bad = 1;
        res->fatal = 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        run_form(fs[i], mod, res + i, rng);
    sw_cuda_unload(mod);
}

/* --only: a comma-separated list of substrings ("=name": exactly that
 * name); a form matches any */
static int only_match(const char *name, const char *only)
{
    char part[128];
    while (*only) {
        size_t n = strcspn(only, ",");
        if (n && n < sizeof part) {
            memcpy(part, only, n);
            part[n] = 0;
            if (part[0] == '=' ? !strcmp(name, part + 1) : strstr(name, part) != NULL)
                return 1;
        }
        only += n + (only[n] == ',');
    }
    return 0;
}

/* ---- --replay: lanes recorded on a real GPU (sweep_replay.c) ---- */
typedef struct replay_set {
    const sw_form *f;
    uint64_t *in, *gpu;
    size_t n;
    result ref, zinc;            /* the reference and Zinc, each against the GPU */
    size_t same;                 /* approximate forms: lanes with the GPU's bits */
    long long far;               /*   and the largest distance from them (ulps) */
} replay_set;
static struct { replay_set *v; size_t n, cap; } rp;

static void replay_keep(void *ctx, const sw_form *f, const uint64_t *in, const uint64_t *gpu,
                        size_t n)
{
    (void)ctx;
    if (opt.only && !only_match(f->name, opt.only))
        return;
    if (rp.n == rp.cap && !(rp.v = realloc(rp.v, (rp.cap = rp.cap ? 2 * rp.cap : 256) * sizeof *rp.v)))
        abort();
    replay_set *r = &rp.v[rp.n++];
    memset(r, 0, sizeof *r);
    r->f = f;
    r->n = n;
    r->in = malloc(n * SW_NIN * 8);
    r->gpu = malloc(n * SW_NOUT * 8);
    memcpy(r->in, in, n * SW_NIN * 8);
    memcpy(r->gpu, gpu, n * SW_NOUT * 8);
}

static int is_approx(const sw_form *f) { return f->chk != exact && f->chk != nan_any && f->chk != div_int; }

/* distance in representable values between two floats of letter c */
static long long ulps_apart(char c, uint64_t a, uint64_t b)
{
    if (c == 'X' || c == 'Y') {
        long long d0 = ulps_apart(c == 'X' ? 'H' : 'B', a & 0xffff, b & 0xffff);
        long long d1 = ulps_apart(c == 'X' ? 'H' : 'B', a >> 16 & 0xffff, b >> 16 & 0xffff);
        return d0 > d1 ? d0 : d1;
    }
    size_t w = sw_width(c);
    uint64_t sign = 1ull << (w - 1), m = w >= 64 ? ~0ull : (1ull << w) - 1;
    a &= m;
    b &= m;
    long long oa = a & sign ? -(long long)(a & ~sign) : (long long)a;
    long long ob = b & sign ? -(long long)(b & ~sign) : (long long)b;
    return oa > ob ? oa - ob : ob - oa;
}

static void replay_one(replay_set *r, void *mod)
{
    const sw_form *f = r->f;
    size_t n = r->n;
    uint64_t *want = malloc(n * SW_NOUT * 8), *got = malloc(n * SW_NOUT * 8);
    if (!want || !got)
        abort();
    reference(f, r->in, want, n);
    compare(f, f->chk, r->in, r->gpu, want, want, n, &r->ref);
    if (run_lanes(f, mod, r->in, got, n, &r->zinc)) {
        if (is_approx(f)) {
            /* Zinc's own approximation: held to the ISA's bound, and
             * measured against the GPU's */
            compare(f, f->chk, r->in, got, want, want, n, &r->zinc);
            for (size_t i = 0; i < n; i++) {
                uint64_t g = got[i * SW_NOUT], u = r->gpu[i * SW_NOUT];
                long long d = ulps_apart(f->dst[0], g, u);
                if (sw_mismatch_class(f, &g, &u) != SW_MIS_OTHER || d < 0)
                    d = 0;   /* two NaNs, or two zeros */
                r->same += g == u || d == 0;
                if (d > r->far)
                    r->far = d;
            }
        } else {
            compare(f, f->chk, r->in, got, r->gpu, want, n, &r->zinc);
        }
    }
    free(want);
    free(got);
}

static int run_replay(const char *path)
{
    if (sw_replay_load(path, replay_keep, NULL) != 0)
        return 2;
    const sw_form **fs = malloc((rp.n ? rp.n : 1) * sizeof *fs);
    for (size_t i = 0; i < rp.n; i += opt.batch) {
        size_t k = rp.n - i < opt.batch ? rp.n - i : opt.batch;
        for (size_t j = 0; j < k; j++)
            fs[j] = rp.v[i + j].f;
        char err[4096];
        char *text = module_text(fs, k);
        void *mod = sw_cuda_load(text, err, sizeof err);
        free(text);
        for (size_t j = 0; j < k; j++) {
            if (mod) {
                replay_one(&rp.v[i + j], mod);
            } else {
                snprintf(rp.v[i + j].zinc.note, sizeof rp.v[i + j].zinc.note, "load failed: %.400s", err);
                rp.v[i + j].zinc.bad = rp.v[i + j].zinc.fatal = 1;
            }
        }
        sw_cuda_unload(mod);
    }
    free(fs);
    size_t nfail = 0, lanes = 0;
    printf("%-24s %7s %7s %7s  %s\n", "form", "lanes", "ref", "zinc",
           "vs the GPU: reference, Zinc (approximate: lanes equal, most ulps apart)");
    for (size_t i = 0; i < rp.n; i++) {
        replay_set *r = &rp.v[i];
        int known = known_text ? known_class(r->f->name) : 0;
        const char *tr = verdict(&r->ref, known), *tz = verdict(&r->zinc, known);
        int fail = !strcmp(tr, "FAIL") || !strcmp(tz, "FAIL") ||
                   (is_approx(r->f) && opt.gpu_exact && only_match(r->f->name, opt.gpu_exact) &&
                    r->same != r->n);
        nfail += fail;
        lanes += r->n;
        char extra[64] = "";
        if (is_approx(r->f))
            snprintf(extra, sizeof extra, "same %zu/%zu, %lld ulp", r->same, r->n, r->far);
        printf("%-24s %7zu %7zu %7zu  %-5s %s%s%s%s%s\n", r->f->name, r->n, r->ref.bad, r->zinc.bad,
               fail ? "FAIL" : r->ref.bad || r->zinc.bad ? "known" : "ok", extra,
               r->ref.bad ? " | reference: " : "", r->ref.note,
               r->zinc.bad ? " | zinc: " : "", r->zinc.note);
        free(r->in);
        free(r->gpu);
    }
    printf("replay: %zu forms, %zu lanes recorded on the GPU, %zu failing\n", rp.n, lanes, nfail);
    free(rp.v);
    return nfail ? 1 : 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: sweep [--lib libcuda.so.1] [--ptxas path|none] [--known file] "
            "[--n N] [--seed S] [--only a,b,..] [--batch K] [--full | --full-count N] [--record FILE | --replay FILE [--gpu-exact a,b,..]] [--selftest] [--verbose]\n");
    exit(2);
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

int main(int argc, char **argv)
{
    opt.lib = env_or("ZINC_SWEEP_LIB", "libcuda.so.1");
    opt.ptxas = env_or("ZINC_SWEEP_PTXAS", NULL);
    opt.nrand = strtoull(env_or("ZINC_SWEEP_N", "256"), NULL, 0);
    opt.seed = strtoull(env_or("ZINC_SWEEP_SEED", "1"), NULL, 0);
    opt.batch = 64;
    const char *replay = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--selftest")) { opt.selftest = 1; continue; }
        if (!strcmp(a, "--verbose")) { opt.verbose = 1; continue; }
        if (!strcmp(a, "--full")) { opt.full = (uint64_t)1 << 32; continue; }
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--lib")) opt.lib = v;
        else if (!strcmp(a, "--ptxas")) opt.ptxas = strcmp(v, "none") ? v : NULL;
        else if (!strcmp(a, "--known")) opt.known = v;
        else if (!strcmp(a, "--n")) opt.nrand = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--seed")) opt.seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--only")) opt.only = v;
        else if (!strcmp(a, "--batch")) opt.batch = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--full-count")) opt.full = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--replay")) replay = v;
        else if (!strcmp(a, "--gpu-exact")) opt.gpu_exact = v;
        else if (!strcmp(a, "--record")) {
            if (!(opt.record = fopen(v, "w"))) {
                fprintf(stderr, "sweep: cannot write %s\n", v);
                return 2;
            }
        } else usage();
    }
    if (opt.batch == 0)
        opt.batch = 1;
    if (opt.known && !(known_text = read_file(opt.known))) {
        fprintf(stderr, "sweep: cannot read %s\n", opt.known);
        return 2;
    }
    char err[512];
    if (!sw_cuda_open(opt.lib, err, sizeof err)) {
        fprintf(stderr, "sweep: %s\n", err);
        return 2;
    }
    if (replay) {
        int rc = run_replay(replay);
        free(known_text);
        return rc;
    }
    const sw_form **sel = malloc(sw_nforms * sizeof *sel);
    size_t nsel = 0;
    for (size_t i = 0; i < sw_nforms; i++) {
        const char *only = opt.only;
        if (opt.selftest ? !strcmp(sw_forms[i].name, "add_s32") || !strcmp(sw_forms[i].name, "shfl_idx_b32")
                         : (!only || only_match(sw_forms[i].name, only)))
            sel[nsel++] = &sw_forms[i];
    }
    result *res = calloc(nsel ? nsel : 1, sizeof *res);
    sw_rng rng = {opt.seed};
    for (size_t i = 0; i < nsel; i += opt.batch)
        run_batch(sel + i, nsel - i < opt.batch ? nsel - i : opt.batch, res + i, &rng);

    size_t nfail = 0, nknown = 0, nfixed = 0, lanes = 0;
    printf("%-24s %7s %7s %6s %6s  %s\n", "form", "tested", "bad", "nan", "zero",
           "first mismatch (inputs, got, want; hex)");
    for (size_t i = 0; i < nsel; i++) {
        result *r = &res[i];
        int known = known_text ? known_class(sel[i]->name) : 0;
        lanes += r->tested;
        const char *tag = verdict(r, known);
        nknown += !strcmp(tag, "known");
        nfail += !strcmp(tag, "FAIL");
        nfixed += !strcmp(tag, "fixed");
        printf("%-24s %7zu %7zu %6zu %6zu  %-5s %s\n", sel[i]->name, r->tested, r->bad, r->bad_nan,
               r->bad_zero, tag, r->note);
    }
    printf("sweep: %zu forms, %zu lanes, %zu failing, %zu known failures, %zu known but now "
           "passing (seed %llu, N %zu)\n", nsel, lanes, nfail, nknown, nfixed,
           (unsigned long long)opt.seed, opt.nrand);
    if (opt.selftest) {
        /* each wrong reference must be caught, on some lanes, not all */
        int caught = nsel == 2;
        for (size_t i = 0; i < nsel; i++)
            caught &= res[i].bad > 0 && res[i].bad < res[i].tested && !res[i].fatal;
        printf("selftest: the deliberately wrong references were %s\n", caught ? "caught" : "NOT caught");
        int kat = sw_ref_selfcheck();
        printf("selftest: %d reference known-answer failures\n", kat);
        free(sel);
        free(res);
        free(known_text);
        return caught && !kat ? 0 : 1;
    }
    if (nfixed)
        printf("sweep: remove the forms marked 'fixed' from known_failures.txt\n");
    free(sel);
    free(res);
    free(known_text);
    if (opt.record && fclose(opt.record) != 0) {
        fprintf(stderr, "sweep: writing the record failed\n");
        return 2;
    }
    return nfail ? 1 : 0;
}
