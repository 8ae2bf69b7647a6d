/* test_compile_atomconf.c: atom.shared.add.u32 of one value in every lane
 * (a histogram's atomicAdd(&bins[b], 1)) done a half warp at a time with
 * conflict detection where the host has AVX-512 CD (zn_lower_atom.c).
 * Lanes hit the same bin in every pattern: all lanes one bin, pairs,
 * runs, a bin per lane, hashed bins; some lanes are off by a guard; the
 * value is an immediate in one kernel and a uniform register (a kernel
 * parameter) in the other. Checked without assuming an order between
 * lanes or warps: each bin ends at its start plus v per lane that added,
 * and the old values its lanes got back are exactly start, start + v, ...
 * each once. 80 threads (two and a half warps), C reference counts. Run
 * with ZINC_NO_CONFLICT_ADD=0 (the conflict path wherever AVX-512 CD is,
 * even on CPUs where the lane loop is the default) and =1 (the loop). */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define T 80
#define NB 64
#define POISON 0xa5a5a5a5u

/* shared bins[b] = 1000 b; barrier; lanes with key < NB add v to
 * bins[key] and store the old value; barrier; bins copied out */
#define KERNEL(NAME, VAL) \
    ".visible .entry " NAME "(.param .u64 pk, .param .u64 po, .param .u64 pb, .param .u32 pv)\n{\n" \
    "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<12>;\n" \
    "  .shared .align 4 .b32 bins[64];\n" \
    "  ld.param.u64 %rd1, [pk];\n  ld.param.u64 %rd2, [po];\n  ld.param.u64 %rd3, [pb];\n" \
    "  ld.param.u32 %r10, [pv];\n" \
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, bins;\n" \
    "  setp.lt.u32 %p1, %r1, 64;\n  shl.b32 %r3, %r1, 2;\n  add.u32 %r4, %r2, %r3;\n" \
    "  mul.lo.u32 %r5, %r1, 1000;\n  @%p1 st.shared.u32 [%r4], %r5;\n  bar.sync 0;\n" \
    "  mul.wide.u32 %rd4, %r1, 4;\n  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n" \
    "  ld.global.u32 %r6, [%rd5];\n  setp.lt.u32 %p2, %r6, 64;\n" \
    "  shl.b32 %r7, %r6, 2;\n  add.u32 %r8, %r2, %r7;\n" \
    "  @%p2 atom.shared.add.u32 %r9, [%r8], " VAL ";\n" \
    "  @%p2 st.global.u32 [%rd6], %r9;\n  bar.sync 0;\n" \
    "  ld.shared.u32 %r11, [%r4];\n  add.s64 %rd7, %rd3, %rd4;\n" \
    "  @%p1 st.global.u32 [%rd7], %r11;\n  ret;\n}\n"

static const char *ptx = ".version 7.0\n.target sm_70\n.address_size 64\n"
    KERNEL("add_imm", "3") KERNEL("add_reg", "%r10");

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    return x ^ (x >> 16);
}

static void keys_for(int pat, uint32_t *k)
{
    for (uint32_t t = 0; t < T; t++) {
        switch (pat) {
        case 0: k[t] = 5; break;                       /* one bin */
        case 1: k[t] = t / 2; break;                   /* pairs */
        case 2: k[t] = (t / 7) % 3; break;             /* runs over three bins */
        case 3: k[t] = t % NB; break;                  /* a bin per lane (and wrap) */
        default: k[t] = hash(t + 17 * (uint32_t)pat) % 9; break;   /* hashed, 9 bins */
        }
        if (t % 11 == 10)
            k[t] = NB + t;                             /* guarded off */
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void check(const char *name, uint32_t v, const uint32_t *k, const uint32_t *old,
                  const uint32_t *bins, int pat)
{
    for (uint32_t b = 0; b < NB; b++) {
        uint32_t got[T], n = 0;
        for (uint32_t t = 0; t < T; t++)
            if (k[t] == b)
                got[n++] = old[t];
        qsort(got, n, sizeof *got, cmp_u32);
        for (uint32_t i = 0; i < n; i++)
            CHECK(got[i] == 1000 * b + i * v, "%s pattern %d bin %u: old value %u of %u is %u, "
                  "want %u", name, pat, b, i, n, got[i], 1000 * b + i * v);
        CHECK(bins[b] == 1000 * b + n * v, "%s pattern %d bin %u = %u, want %u", name, pat, b,
              bins[b], 1000 * b + n * v);
    }
    for (uint32_t t = 0; t < T; t++)
        if (k[t] >= NB)
            CHECK(old[t] == POISON, "%s pattern %d: guarded lane %u wrote", name, pat, t);
}

int main(void)
{
    /* both lowerings on any host: the conflict-detected one (where the CPU
     * has AVX-512 CD; chosen by CPU otherwise) and the lane loop */
    static const char *const setting[2] = {"0", "1"};
    for (int st = 0; st < 2; st++) {
        setenv("ZINC_NO_CONFLICT_ADD", setting[st], 1);
        zn_jit_module *jm = zt_load_text(ptx, NULL);
        CHECK(jm != NULL, "kernels did not compile (ZINC_NO_CONFLICT_ADD=%s)", setting[st]);
        if (!jm)
            return 1;
        for (int kern = 0; kern < 2; kern++)
            for (int pat = 0; pat < 6; pat++) {
                const char *name = kern ? "add_reg" : "add_imm";
                uint32_t v = kern ? 7 : 3;
                uint32_t k[T], old[T], bins[NB];
                keys_for(pat, k);
                for (int i = 0; i < T; i++)
                    old[i] = POISON;
                for (int i = 0; i < NB; i++)
                    bins[i] = POISON;
                void *pk = k, *po = old, *pb = bins;
                void *args[] = {&pk, &po, &pb, &v};
                CHECK(zt_run_exec(jm, name, ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "%s status",
                      name);
                check(name, v, k, old, bins, pat);
            }
        zn_jit_module_free(jm);
    }
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_atomconf: all passed\n");
    return zt_failures != 0;
}
