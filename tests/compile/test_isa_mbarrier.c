/* test_isa_mbarrier.c: isa_mbarrier.ptx (every mbarrier form, cp.async.bulk
 * with complete_tx, cp.async.mbarrier.arrive.noinc) on 4 warps through the
 * executor, against the PTX ISA's arrival and phase rules. The waits spin
 * on other warps' arrivals: they only finish if a failed wait yields. */
#include <string.h>
#include "zn_test_harness.h"

int main(void)
{
    zn_jit_module *jm = zt_load(ZT_ISA_MBARRIER_PTX, NULL);
    CHECK(jm != NULL, "isa_mbarrier.ptx does not compile");
    if (!jm)
        return 1;
    uint32_t in[144], out[512], *pi = in, *po = out;
    for (int i = 0; i < 144; i++)
        in[i] = 0x9e3779b9u * (uint32_t)(i + 3);
    memset(out, 0xcc, sizeof out);
    void *args[] = {&pi, &po};
    CHECK(zt_run_exec(jm, "mbar_forms", ZT_DIM1(1), ZT_DIM1(128), 0, args) == 0,
          "mbar_forms status");
    /* phase 0: the states returned hold pending counts 128..1, each once */
    int seen[129] = {0};
    for (int t = 0; t < 128; t++) {
        CHECK(out[t] >= 1 && out[t] <= 128, "thread %d: pending count %u out of 1..128", t, out[t]);
        if (out[t] >= 1 && out[t] <= 128)
            seen[out[t]]++;
    }
    for (int c = 1; c <= 128; c++)
        CHECK(seen[c] == 1, "pending count %d returned %d times, want 1", c, seen[c]);
    /* noComplete: thread 0's state is the untouched barrier (4 pending) */
    CHECK(out[128] == 4, "arrive.noComplete state: pending %u, want 4", out[128]);
    for (int t = 0; t < 128; t++) {
        CHECK(out[256 + t] == in[t & 15], "bulk copy word %d: %08x, want %08x", t,
              out[256 + t], in[t & 15]);
        CHECK(out[384 + t] == in[16 + ((t + 1) & 127)], "cp.async word %d: %08x, want %08x",
              t, out[384 + t], in[16 + ((t + 1) & 127)]);
    }
    zn_jit_module_free(jm);
    zt_cleanup();
    if (zt_failures)
        fprintf(stderr, "%d failures\n", zt_failures);
    else
        printf("isa_mbarrier: all passed\n");
    return zt_failures != 0;
}
