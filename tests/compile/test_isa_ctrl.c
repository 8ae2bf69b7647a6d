/* test_isa_ctrl.c: isa_ctrl.ptx: brx.idx and .reg parameters of a .func,
 * and cp.async operand forms, against results computed here. */
#include <string.h>
#include "zn_test_harness.h"

int main(void)
{
    zn_jit_module *jm = zt_load(ZT_ISA_CTRL_PTX, NULL);
    CHECK(jm != NULL, "isa_ctrl.ptx does not compile");
    if (!jm)
        return 1;
    uint32_t out[64], *po = out;
    memset(out, 0xcc, sizeof out);
    void *args[] = {&po};
    CHECK(zt_run(jm, "brx_kernel", ZT_DIM1(1), ZT_DIM1(64), 0, args) == 0, "brx_kernel status");
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t want;
        if (t == 31)
            want = 999;               /* guard false: falls through */
        else if (t % 3 == 0)
            want = 100;
        else if (t % 3 == 1)
            want = t + 200;
        else
            want = t * 7 + t;         /* addmul(t, 7) through .reg params */
        CHECK(out[t] == want, "thread %u: %u, want %u", t, out[t], want);
    }
    /* cp.async forms: lane 3's ignore-src predicate zero-fills bytes 8..15 */
    uint32_t in[128], res[256], *pi = in, *pr = res;
    for (int i = 0; i < 128; i++)
        in[i] = 0x9e3779b9u * (uint32_t)(i + 1);
    memset(res, 0xcc, sizeof res);
    void *cargs[] = {&pi, &pr};
    CHECK(zt_run(jm, "cp_async_forms", ZT_DIM1(1), ZT_DIM1(32), 0, cargs) == 0, "cp_async status");
    for (int i = 0; i < 128; i++) {
        uint32_t want = (i / 4 == 3 && i % 4 >= 2) ? 0 : in[i];
        CHECK(res[i] == want, "cp.async cache_hint/ignore-src word %d: %08x, want %08x", i, res[i], want);
        CHECK(res[128 + i] == in[i], "cp.async L2::128B word %d: %08x", i, res[128 + i]);
    }
    /* llm.c's memory forms */
    float fin[128], fout[128], sum = 0.5f, *pfi = fin, *pfo = fout, *psum = &sum;
    uint32_t ctr = 0, olds[32], *pctr = &ctr, *pold = olds;
    for (int i = 0; i < 128; i++)
        fin[i] = (float)(i - 40) * 0.5f;
    void *margs[] = {&pfi, &pfo, &psum, &pctr, &pold};
    CHECK(zt_run(jm, "mem_forms", ZT_DIM1(1), ZT_DIM1(32), 0, margs) == 0, "mem_forms status");
    for (int i = 0; i < 128; i++) {
        float want = fin[i] * 2 + (i % 4 == 3 ? fin[i] : 0);
        CHECK(fout[i] == want, "ld/st .cs/.cg/.nc v4 word %d: %g, want %g", i, fout[i], want);
    }
    CHECK(sum == 32.5f, "atom.add.f32: %g, want 32.5", sum);
    /* inc wraps to 0 after 15: 32 increments from 0 end at 0 */
    CHECK(ctr == 0, "atom.inc.u32: %u, want 0", ctr);
    int hist[16] = {0};
    for (int i = 0; i < 32; i++)
        if (olds[i] < 16)
            hist[olds[i]]++;
    for (int v = 0; v < 16; v++)
        CHECK(hist[v] == 2, "atom.inc.u32: old value %d returned %d times, want 2", v, hist[v]);
    zn_jit_module_free(jm);
    zt_cleanup();
    if (zt_failures)
        fprintf(stderr, "%d failures\n", zt_failures);
    else
        printf("isa_ctrl: all passed\n");
    return zt_failures != 0;
}
