// math: IEEE arithmetic (f32 and f64 add/sub/mul/div/sqrt/fma, bit-exact for
// the .rn operations, including denormals, infinities and NaN inputs),
// float<->integer conversions in every rounding mode with PTX's saturation,
// integer intrinsics, and the approximate intrinsics within their documented
// error bounds. References come from the host's IEEE arithmetic and libm.
#include <float.h>
#include <limits.h>
#include <math.h>
#include "zn_test.h"

struct in_t {
    float a, b, c, xs, xe, xl;
    double da, db, dc;
    int ia, ib;
    unsigned ua, ub;
    long long la, lb;
};

struct out_t {
    float fadd, fsub, fmul, fdiv, fdivp, fsqrt, fsqrtp, ffma, fmin, fmax;
    double dadd, dsub, dmul, ddiv, ddivp, dsqrt, dfma;
    int f2i_rn, f2i_rz, f2i_rd, f2i_ru;
    unsigned f2u_rz;
    long long f2ll_rz, d2ll_rn, d2ll_rz;
    int d2i_rz;
    float i2f_rn, i2f_rz, i2f_rd, i2f_ru, u2f_rn;
    float d2f_rn, d2f_rz, d2f_ru, d2f_rd;
    double ll2d, f2d;
    int pop, clz, ffs, mulhi, sdiv, smod;
    unsigned brev, umulhi, bperm, fshl, fshr, udiv, umod;
    unsigned long long umul64hi;
    long long sdiv64, smod64;
    float sin_fast, cos_fast, exp_fast, log_fast, sin_full, exp_full, rsqrt;
};

__global__ void math_kernel(const in_t *in, out_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    in_t v = in[i];
    out_t r;
    r.fadd = __fadd_rn(v.a, v.b);
    r.fsub = __fsub_rn(v.a, v.b);
    r.fmul = __fmul_rn(v.a, v.b);
    r.fdiv = __fdiv_rn(v.a, v.b);
    r.fdivp = v.a / v.b;                  // IEEE by default (-prec-div=true)
    r.fsqrt = __fsqrt_rn(v.a);
    r.fsqrtp = sqrtf(v.b);
    r.ffma = __fmaf_rn(v.a, v.b, v.c);
    r.fmin = fminf(v.a, v.b);
    r.fmax = fmaxf(v.a, v.b);
    r.dadd = __dadd_rn(v.da, v.db);
    r.dsub = __dsub_rn(v.da, v.db);
    r.dmul = __dmul_rn(v.da, v.db);
    r.ddiv = __ddiv_rn(v.da, v.db);
    r.ddivp = v.da / v.db;
    r.dsqrt = sqrt(v.da);
    r.dfma = fma(v.da, v.db, v.dc);
    r.f2i_rn = __float2int_rn(v.a);
    r.f2i_rz = __float2int_rz(v.a);
    r.f2i_rd = __float2int_rd(v.a);
    r.f2i_ru = __float2int_ru(v.a);
    r.f2u_rz = __float2uint_rz(v.a);
    r.f2ll_rz = __float2ll_rz(v.a);
    r.d2ll_rn = __double2ll_rn(v.da);
    r.d2ll_rz = __double2ll_rz(v.da);
    r.d2i_rz = __double2int_rz(v.da);
    r.i2f_rn = __int2float_rn(v.ia);
    r.i2f_rz = __int2float_rz(v.ia);
    r.i2f_rd = __int2float_rd(v.ia);
    r.i2f_ru = __int2float_ru(v.ia);
    r.u2f_rn = (float)v.ua;
    r.d2f_rn = (float)v.da;
    r.d2f_rz = __double2float_rz(v.da);
    r.d2f_ru = __double2float_ru(v.da);
    r.d2f_rd = __double2float_rd(v.da);
    r.ll2d = (double)v.la;
    r.f2d = (double)v.a;
    r.pop = __popc(v.ua);
    r.clz = __clz(v.ia);
    r.ffs = __ffs(v.ia);
    r.brev = __brev(v.ua);
    r.umulhi = __umulhi(v.ua, v.ub);
    r.mulhi = __mulhi(v.ia, v.ib);
    r.umul64hi = __umul64hi((unsigned long long)v.la, (unsigned long long)v.lb);
    r.bperm = __byte_perm(v.ua, v.ub, v.ib & 0x7777);
    r.fshl = __funnelshift_l(v.ua, v.ub, v.ib);
    r.fshr = __funnelshift_r(v.ua, v.ub, v.ib);
    r.sdiv = v.ia / v.ib;
    r.smod = v.ia % v.ib;
    r.udiv = v.ua / v.ub;
    r.umod = v.ua % v.ub;
    r.sdiv64 = v.la / v.lb;
    r.smod64 = v.la % v.lb;
    r.sin_fast = __sinf(v.xs);
    r.cos_fast = __cosf(v.xs);
    r.exp_fast = __expf(v.xe);
    r.log_fast = __logf(v.xl);
    r.sin_full = sinf(v.xs * 100.0f);
    r.exp_full = expf(v.xe);
    r.rsqrt = rsqrtf(v.xl);
    out[i] = r;
}

static const uint32_t special_f[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
    0x7fc00000, 0x00800000, 0x00000001, 0x807fffff, 0x7f7fffff, 0x3f000000,
    0x4b800001, 0x4f000000, 0xcf000000, 0x4f800000, 0x3fc00000, 0xc0200000,
    0x40400000, 0x0da24260, 0x7149f2ca, 0x3eaaaaab};
static const uint64_t special_d[] = {
    0x0ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
    0x0010000000000000ull, 0x0000000000000001ull, 0x7fefffffffffffffull,
    0x47efffffe0000000ull, 0x47efffffefffffffull, 0x36a0000000000000ull,
    0x43e0000000000000ull, 0xc3e0000000000000ull, 0x41e0000000000000ull,
    0x3fe0000000000000ull, 0x4004000000000000ull, 0x3fd5555555555555ull};
#define NSF (int)(sizeof special_f / sizeof special_f[0])
#define NSD (int)(sizeof special_d / sizeof special_d[0])

static float gen_f(int i, int which)
{
    switch ((i + which) % 4) {
    case 0: return zt_u2f(zt_rand());
    case 1: return (float)((int)(zt_rand() % 400) - 200) * 0.5f + (zt_rand() & 1 ? 0.25f : 0.0f);
    case 2: return zt_randf(-5e9f, 5e9f);
    default: return zt_u2f(special_f[zt_rand() % NSF]);
    }
}

static double gen_d(int i, int which)
{
    switch ((i + which) % 4) {
    case 0: return zt_u2d(zt_rand64());
    case 1: return (double)((int)(zt_rand() % 400) - 200) * 0.5 + (zt_rand() & 1 ? 0.25 : 0.0);
    case 2: return (double)(int64_t)zt_rand64() * ((zt_rand() & 1) ? 1.0 : 1e-10);
    default: return zt_u2d(special_d[zt_rand() % NSD]);
    }
}

// PTX float->integer conversions saturate; NaN gives 0 from f32 into 32
// bits and the "integer indefinite" (only the top bit set) from f64 and
// into 64 bits, as an H200 gives them. r is the input already rounded to
// an integral value.
static long long sat(double r, double lo, double hi_excl, long long lo_v, long long hi_v)
{
    if (isnan(r)) return 0;
    if (r < lo) return lo_v;
    if (r >= hi_excl) return hi_v;
    return (long long)r;
}
static int sat_i32(double r) { return (int)sat(r, -2147483648.0, 2147483648.0, INT_MIN, INT_MAX); }
static int sat_i32_of_f64(double r) { return isnan(r) ? INT_MIN : sat_i32(r); }
static long long sat_i64(long double r)
{
    if (isnan(r)) return LLONG_MIN;
    if (r < -9223372036854775808.0L) return LLONG_MIN;
    if (r >= 9223372036854775808.0L) return LLONG_MAX;
    return (long long)r;
}

// Directed rounding of a double (or exact integer) to float, from the
// round-to-nearest result: the true value lies between f and its neighbour.
static float to_f_dir(long double x, int mode /* 0 rz, 1 ru, 2 rd */)
{
    float f = (float)x;
    if (isnan(x)) return f;
    if (mode == 0 && fabsl((long double)f) > fabsl(x)) f = nextafterf(f, 0.0f);
    if (mode == 1 && (long double)f < x) f = nextafterf(f, INFINITY);
    if (mode == 2 && (long double)f > x) f = nextafterf(f, -INFINITY);
    return f;
}

static unsigned brev32(unsigned x)
{
    unsigned r = 0;
    for (int k = 0; k < 32; k++)
        r |= ((x >> k) & 1u) << (31 - k);
    return r;
}

static unsigned byte_perm(unsigned x, unsigned y, unsigned s)
{
    uint64_t bytes = (uint64_t)y << 32 | x;
    unsigned r = 0;
    for (int k = 0; k < 4; k++)
        r |= (unsigned)((bytes >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
    return r;
}

static void chk_f(const char *what, int i, float got, float want)
{
    if (isnan(want) && isnan(got)) return;
    if (zt_f2u(got) != zt_f2u(want))
        zt_fail("[%d] %s = %a (%08x), want %a (%08x)", i, what, got, zt_f2u(got), want, zt_f2u(want));
}
static void chk_d(const char *what, int i, double got, double want)
{
    if (isnan(want) && isnan(got)) return;
    if (zt_d2u(got) != zt_d2u(want))
        zt_fail("[%d] %s = %a, want %a", i, what, got, want);
}
static void chk_i(const char *what, int i, long long got, long long want)
{
    if (got != want)
        zt_fail("[%d] %s = %lld (0x%llx), want %lld (0x%llx)", i, what, got,
                (unsigned long long)got, want, (unsigned long long)want);
}
static void chk_tol(const char *what, int i, float got, double want, double abs_tol)
{
    if (!(fabs((double)got - want) <= abs_tol))
        zt_fail("[%d] %s = %.9g, want %.9g (abs tol %g)", i, what, got, want, abs_tol);
}
// Error in units in the last place of the float nearest to the exact value.
static void chk_ulp(const char *what, int i, float got, double want, double ulps)
{
    float w = fabsf((float)want);
    double ulp = (double)nextafterf(w, INFINITY) - (double)w;
    if (!(fabs((double)got - want) <= ulps * ulp))
        zt_fail("[%d] %s = %.9g, want %.9g (%g ulp allowed)", i, what, got, want, ulps);
}

int main()
{
    zt_begin("math");
    const int n = 1 << 16;
    in_t *in = (in_t *)malloc(n * sizeof(in_t));
    out_t *out = (out_t *)malloc(n * sizeof(out_t));
    for (int i = 0; i < n; i++) {
        in_t *v = &in[i];
        if (i < NSF * NSF) {   // every pair of special floats
            v->a = zt_u2f(special_f[i / NSF]);
            v->b = zt_u2f(special_f[i % NSF]);
        } else {
            v->a = gen_f(i, 0);
            v->b = gen_f(i, 1);
        }
        v->c = gen_f(i, 2);
        if (i < NSD * NSD) {
            v->da = zt_u2d(special_d[i / NSD]);
            v->db = zt_u2d(special_d[i % NSD]);
        } else {
            v->da = gen_d(i, 0);
            v->db = gen_d(i, 1);
        }
        v->dc = gen_d(i, 2);
        v->xs = zt_randf(-3.14159265f, 3.14159265f);
        v->xe = zt_randf(-10.f, 10.f);
        v->xl = i & 1 ? zt_randf(0.5f, 2.0f) : zt_randf(1e-3f, 1e3f);
        v->ia = (int)zt_rand() >> (zt_rand() % 31);
        v->ib = (int)zt_rand() >> (zt_rand() % 31);
        if (v->ib == 0) v->ib = 7;
        if (v->ia == INT_MIN && v->ib == -1) v->ib = 3;
        v->ua = zt_rand() >> (zt_rand() % 31);
        v->ub = zt_rand() >> (zt_rand() % 31);
        if (v->ub == 0) v->ub = 5;
        v->la = (long long)zt_rand64() >> (zt_rand() % 63);
        v->lb = (long long)zt_rand64() >> (zt_rand() % 63);
        if (v->lb == 0) v->lb = -9;
        if (v->la == LLONG_MIN && v->lb == -1) v->lb = 2;
    }
    in_t *din;
    out_t *dout;
    CK(cudaMalloc(&din, n * sizeof(in_t)));
    CK(cudaMalloc(&dout, n * sizeof(out_t)));
    CK(cudaMemcpy(din, in, n * sizeof(in_t), cudaMemcpyHostToDevice));
    POISON(dout, n * sizeof(out_t));
    math_kernel<<<(n + 127) / 128, 128>>>(din, dout, n);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, n * sizeof(out_t), cudaMemcpyDeviceToHost));

    for (int i = 0; i < n; i++) {
        const in_t *v = &in[i];
        const out_t *r = &out[i];
        chk_f("fadd", i, r->fadd, v->a + v->b);
        chk_f("fsub", i, r->fsub, v->a - v->b);
        chk_f("fmul", i, r->fmul, v->a * v->b);
        chk_f("fdiv", i, r->fdiv, v->a / v->b);
        chk_f("a/b", i, r->fdivp, v->a / v->b);
        chk_f("fsqrt", i, r->fsqrt, sqrtf(v->a));
        chk_f("sqrtf", i, r->fsqrtp, sqrtf(v->b));
        chk_f("fma", i, r->ffma, fmaf(v->a, v->b, v->c));
        // min/max: one NaN operand gives the other operand (IEEE minNum,
        // PTX min/max); the sign of a zero result is not checked. Written
        // out because the host's fminf under nvcc does not follow this.
        float wmin = isnan(v->a) ? v->b : isnan(v->b) ? v->a : (v->a < v->b ? v->a : v->b);
        float wmax = isnan(v->a) ? v->b : isnan(v->b) ? v->a : (v->a > v->b ? v->a : v->b);
        if (!(r->fmin == wmin || (isnan(wmin) && isnan(r->fmin))))
            zt_fail("[%d] fminf(%a, %a) = %a, want %a", i, v->a, v->b, r->fmin, wmin);
        if (!(r->fmax == wmax || (isnan(wmax) && isnan(r->fmax))))
            zt_fail("[%d] fmaxf(%a, %a) = %a, want %a", i, v->a, v->b, r->fmax, wmax);
        chk_d("dadd", i, r->dadd, v->da + v->db);
        chk_d("dsub", i, r->dsub, v->da - v->db);
        chk_d("dmul", i, r->dmul, v->da * v->db);
        chk_d("ddiv", i, r->ddiv, v->da / v->db);
        chk_d("da/db", i, r->ddivp, v->da / v->db);
        chk_d("dsqrt", i, r->dsqrt, sqrt(v->da));
        chk_d("dfma", i, r->dfma, fma(v->da, v->db, v->dc));

        chk_i("float2int_rn", i, r->f2i_rn, sat_i32(rintf(v->a)));
        chk_i("float2int_rz", i, r->f2i_rz, sat_i32(truncf(v->a)));
        chk_i("float2int_rd", i, r->f2i_rd, sat_i32(floorf(v->a)));
        chk_i("float2int_ru", i, r->f2i_ru, sat_i32(ceilf(v->a)));
        chk_i("float2uint_rz", i, r->f2u_rz, sat(truncf(v->a), 0.0, 4294967296.0, 0, UINT_MAX));
        chk_i("float2ll_rz", i, r->f2ll_rz, sat_i64(truncf(v->a)));
        chk_i("double2ll_rn", i, r->d2ll_rn, sat_i64(rint(v->da)));
        chk_i("double2ll_rz", i, r->d2ll_rz, sat_i64(trunc(v->da)));
        chk_i("double2int_rz", i, r->d2i_rz, sat_i32_of_f64(trunc(v->da)));
        chk_f("int2float_rn", i, r->i2f_rn, (float)v->ia);
        chk_f("int2float_rz", i, r->i2f_rz, to_f_dir(v->ia, 0));
        chk_f("int2float_ru", i, r->i2f_ru, to_f_dir(v->ia, 1));
        chk_f("int2float_rd", i, r->i2f_rd, to_f_dir(v->ia, 2));
        chk_f("uint2float_rn", i, r->u2f_rn, (float)v->ua);
        chk_f("double2float_rn", i, r->d2f_rn, (float)v->da);
        chk_f("double2float_rz", i, r->d2f_rz, to_f_dir(v->da, 0));
        chk_f("double2float_ru", i, r->d2f_ru, to_f_dir(v->da, 1));
        chk_f("double2float_rd", i, r->d2f_rd, to_f_dir(v->da, 2));
        chk_d("ll2double", i, r->ll2d, (double)v->la);
        chk_d("float2double", i, r->f2d, (double)v->a);

        chk_i("popc", i, r->pop, __builtin_popcount(v->ua));
        chk_i("clz", i, r->clz, v->ia ? __builtin_clz((unsigned)v->ia) : 32);
        chk_i("ffs", i, r->ffs, __builtin_ffs(v->ia));
        chk_i("brev", i, r->brev, brev32(v->ua));
        chk_i("umulhi", i, r->umulhi, (unsigned)(((uint64_t)v->ua * v->ub) >> 32));
        chk_i("mulhi", i, r->mulhi, (int)(((int64_t)v->ia * v->ib) >> 32));
        chk_i("umul64hi", i, (long long)r->umul64hi,
              (long long)(uint64_t)(((unsigned __int128)(uint64_t)v->la * (uint64_t)v->lb) >> 64));
        chk_i("byte_perm", i, r->bperm, byte_perm(v->ua, v->ub, (unsigned)v->ib & 0x7777));
        unsigned sh = (unsigned)v->ib & 31;
        uint64_t cat = (uint64_t)v->ub << 32 | v->ua;
        chk_i("funnelshift_l", i, r->fshl, (unsigned)((cat << sh) >> 32));
        chk_i("funnelshift_r", i, r->fshr, (unsigned)(cat >> sh));
        chk_i("sdiv", i, r->sdiv, v->ia / v->ib);
        chk_i("smod", i, r->smod, v->ia % v->ib);
        chk_i("udiv", i, r->udiv, v->ua / v->ub);
        chk_i("umod", i, r->umod, v->ua % v->ub);
        chk_i("sdiv64", i, r->sdiv64, v->la / v->lb);
        chk_i("smod64", i, r->smod64, v->la % v->lb);

        // Bounds from the CUDA programming guide's intrinsic-function tables.
        chk_tol("__sinf", i, r->sin_fast, sin((double)v->xs), 0x1p-21);
        chk_tol("__cosf", i, r->cos_fast, cos((double)v->xs), 0x1p-21);
        chk_ulp("__expf", i, r->exp_fast, exp((double)v->xe), 3 + floor(1.173 * fabs(v->xe)));
        if (v->xl >= 0.5f && v->xl <= 2.0f)
            chk_tol("__logf", i, r->log_fast, log((double)v->xl), 0x1p-21);
        else
            chk_ulp("__logf", i, r->log_fast, log((double)v->xl), 4);
        chk_ulp("sinf", i, r->sin_full, sin((double)(v->xs * 100.0f)), 2.5);
        chk_ulp("expf", i, r->exp_full, exp((double)v->xe), 2.5);
        chk_ulp("rsqrtf", i, r->rsqrt, 1.0 / sqrt((double)v->xl), 2.5);
    }
    CK(cudaFree(din)); CK(cudaFree(dout));
    free(in); free(out);
    return zt_finish();
}
