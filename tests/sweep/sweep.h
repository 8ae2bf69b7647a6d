/* sweep.h: the per-instruction PTX sweep. Each row of sweep_ops.def is one
 * instruction form; the harness writes a PTX kernel per form, runs it on
 * Zinc (through libcuda.so.1) over edge and random inputs, and compares
 * every output with this folder's own scalar C reference (ref_*.c),
 * written from the PTX ISA text, never from Zinc's code.
 *
 * Operand letters (the "dst"/"src" columns of the table):
 *   p pred            i 32-bit integer   s small 32-bit (shift, position)
 *   w 16-bit integer  b 8-bit in a 16-bit register    l 64-bit integer
 *   f f32  d f64  H f16  B bf16 (16-bit registers)  X f16x2  Y bf16x2 (32)
 *   E f32 with edge values at the fp8 and tf32 rounding points
 *   Q two fp8 codes in a 16-bit register, all 2^16 of them
 *   Z f16x2 whose halves each take all 2^16 values (exhaustive letters: the
 *     form's lanes are every edge value, not a sample)
 *   m a warp member mask (warp rows only: the same value in every lane)
 *   M the full member mask (warp rows of .aligned instructions: mma)
 *   atomic rows: a k small positive 32/64-bit, F D small integral f32/f64
 * Every value travels as one 64-bit slot: 4 input and 2 output slots per
 * lane. */
#ifndef SWEEP_H
#define SWEEP_H

#include <stdint.h>
#include <stddef.h>

#define SW_NIN 4
#define SW_NOUT 2
#define SW_LANES 32
/* atomic forms: this many lanes (4 blocks of 128) share one memory cell */
#define SW_GROUP 512
/* what the harness writes to an output slot before a launch; a warp
 * reference returns it for lanes that do not execute the instruction */
#define SW_UNTOUCHED 0xcdcdcdcdcdcdcdcdull
/* a warp reference's value for an output that the ISA leaves undefined */
#define SW_UNDEF 0x5eed5eed5eed5eedull

typedef struct sw_form sw_form;
/* scalar reference: one lane */
typedef void (*sw_ref_fn)(const uint64_t *in, uint64_t *out);
/* warp reference: 32 lanes at once (in[lane*SW_NIN+k], out[lane*SW_NOUT+k]) */
typedef void (*sw_wref_fn)(const uint64_t *in, uint64_t *out);
/* atomic check: one group of nl lanes hit one cell that held init and
 * ends as final; old[i] is lane i's returned value (in[i*SW_NIN+k] its
 * inputs). 1 if some order of the lanes' operations explains it; else 0
 * with the reason in why. */
typedef int (*sw_aref_fn)(const uint64_t *in, const uint64_t *old, size_t nl,
                          uint64_t init, uint64_t final, char *why, size_t whylen);
/* checker: 1 if `got` is acceptable where the reference computed `want` */
typedef int (*sw_chk_fn)(const sw_form *f, const uint64_t *in,
                         const uint64_t *got, const uint64_t *want);

typedef enum sw_kind { SW_SCALAR, SW_WARP, SW_ATOM } sw_kind;

struct sw_form {
    const char *name;
    const char *ptx;      /* template: $0 $1 outputs, $a $b $c $d inputs */
    const char *dst;      /* operand letters of the outputs */
    const char *src;      /* operand letters of the inputs */
    sw_kind kind;
    sw_ref_fn ref;        /* SW_SCALAR */
    sw_wref_fn wref;      /* SW_WARP */
    sw_aref_fn aref;      /* SW_ATOM */
    sw_chk_fn chk;        /* exact: every bit must match (sweep_check.c) */
};

extern const sw_form sw_forms[];
extern const size_t sw_nforms;

/* ---- inputs (sweep_inputs.c) ---- */
typedef struct sw_rng { uint64_t s; } sw_rng;
uint64_t sw_rand(sw_rng *r);
/* edge values of an operand letter; *n receives the count */
const uint64_t *sw_edges(char letter, size_t *n);
uint64_t sw_random(sw_rng *r, char letter);
/* Fills `count` lanes of inputs for form f: first the cross product of the
 * edge values (capped), then random ones. Returns the lane count used. */
size_t sw_gen_inputs(const sw_form *f, uint64_t *in, size_t cap, size_t nrandom,
                     sw_rng *r);
/* the size of the cross product of the form's edge values (saturating) */
size_t sw_edge_count(const sw_form *f);
/* the largest cross product a form with an exhaustive letter (Q, Z)
 * enumerates whole */
#define SW_MAX_EDGES 65536

/* ---- PTX text (sweep_ptx.c) ---- */
/* Appends the .entry of form f, named sw_<name>, to buf (malloc'd, grown). */
void sw_ptx_header(char **buf, size_t *len, size_t *capa);
int sw_ptx_entry(const sw_form *f, char **buf, size_t *len, size_t *capa);
size_t sw_width(char letter);       /* bits of an operand letter's value */

/* ---- the device (sweep_cuda.c) ---- */
int sw_cuda_open(const char *libpath, char *err, size_t errlen);
/* loads PTX text; returns a module handle or NULL with err */
void *sw_cuda_load(const char *ptx, char *err, size_t errlen);
void sw_cuda_unload(void *mod);
/* runs kernel `name` of mod over nlanes lanes (in: nlanes*SW_NIN slots,
 * out: nlanes*SW_NOUT slots then `extra` more (atomic cells), pre-filled
 * by the caller and read back) */
int sw_cuda_run(void *mod, const char *name, const uint64_t *in, uint64_t *out,
                size_t nlanes, size_t extra, char *err, size_t errlen);

/* ---- checking (sweep_check.c, ref_approx.c) ----
 * exact: every output bit; nan_any: also any NaN where the reference has a
 * NaN (f64: the ISA does not define the payload); approximate forms have a
 * checker each, with the ISA's bound. */
int exact(const sw_form *, const uint64_t *, const uint64_t *, const uint64_t *);
int nan_any(const sw_form *, const uint64_t *, const uint64_t *, const uint64_t *);
/* what kind of mismatch: only NaN payloads, only signs of zeros, other */
enum { SW_MIS_NAN = 1, SW_MIS_ZERO = 2, SW_MIS_OTHER = 3 };
int sw_mismatch_class(const sw_form *f, const uint64_t *got, const uint64_t *want);
uint64_t sw_mask_of(char letter);

/* known answers for the references (sweep_selfcheck.c); the failures */
int sw_ref_selfcheck(void);

/* ---- helpers shared by the references (ref_util.c) ---- */
float sw_f(uint64_t v);
double sw_d(uint64_t v);
uint64_t sw_fb(float f);
uint64_t sw_db(double d);
float sw_ftz_f(float x);        /* subnormal -> zero of the same sign */
double sw_ftz_d(double x);
int sw_isnan_f(uint64_t v);
int sw_isnan_d(uint64_t v);
#define SW_NAN_F32 0x7fffffffull  /* PTX's canonical f32 NaN */
#define SW_NAN_F16 0x7fffull
/* f16 / bf16 <-> float, exact or with PTX rounding (0 rn, 1 rz, 2 rm, 3 rp) */
float sw_h2f(uint16_t h);
float sw_bf2f(uint16_t h);
uint16_t sw_f2h(double x, int rnd);
uint16_t sw_f2bf(double x, int rnd);

/* the reference and checker prototypes, from the table */
#define S(id, ptx, dst, src, ref, chk) void ref(const uint64_t *, uint64_t *); \
    int chk(const sw_form *, const uint64_t *, const uint64_t *, const uint64_t *);
#define W(id, ptx, dst, src, wref) void wref(const uint64_t *, uint64_t *);
#define A(id, ptx, dst, src, aref) \
    int aref(const uint64_t *, const uint64_t *, size_t, uint64_t, uint64_t, char *, size_t);
#include "sweep_ops.def"
#undef S
#undef W
#undef A

#endif
