/* test_compile_narrow_gather.c: 8- and 16-bit loads at irregular lane
 * addresses (gathers) load the aligned 32-bit word around each element
 * and shift it out (zn_lower_access.c). Elements sit at every offset in
 * their word, including the last byte and the last half of a page whose
 * next page is unmapped (the word must not leave the page), and lanes
 * off by a guard load nothing (their output keeps its poison). Checked
 * against the bytes the test wrote; 100 threads (a partial warp). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zn_test_harness.h"

#define T 100
#define POISON 0xa5a5a5a5u

/* lane t reads u8 at x + ob[t] and u16 at x + oh[t] (both from a table of
 * offsets), signed versions too; lanes with t % 5 == 4 skip the loads */
static const char *ptx =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry narrow(.param .u64 px, .param .u64 pob, .param .u64 poh, .param .u64 po)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b16 %rs<4>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [pob];\n"
    "  ld.param.u64 %rd3, [poh];\n  ld.param.u64 %rd4, [po];\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd5, %r1, 4;\n  mul.wide.u32 %rd6, %r1, 16;\n"
    "  add.s64 %rd7, %rd2, %rd5;\n  add.s64 %rd8, %rd3, %rd5;\n  add.s64 %rd9, %rd4, %rd6;\n"
    "  ld.global.u32 %r2, [%rd7];\n  ld.global.u32 %r3, [%rd8];\n"
    "  cvt.u64.u32 %rd10, %r2;\n  cvt.u64.u32 %rd11, %r3;\n"
    "  add.s64 %rd12, %rd1, %rd10;\n  add.s64 %rd13, %rd1, %rd11;\n"
    "  rem.u32 %r4, %r1, 5;\n  setp.eq.u32 %p1, %r4, 4;\n"
    "  @%p1 bra DONE;\n"
    "  ld.global.u8 %r5, [%rd12];\n  ld.global.s8 %r6, [%rd12];\n"
    "  ld.global.u16 %r7, [%rd13];\n  ld.global.s16 %r8, [%rd13];\n"
    "  st.global.v4.u32 [%rd9], {%r5, %r6, %r7, %r8};\n"
    "DONE:\n  ret;\n}\n";

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    uint8_t *x = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    CHECK(x != MAP_FAILED, "mmap");
    if (x == MAP_FAILED)
        return 1;
    CHECK(mprotect(x + pg, (size_t)pg, PROT_NONE) == 0, "mprotect");
    for (long i = 0; i < pg; i++)
        x[i] = (uint8_t)(i * 151 + 29);
    uint32_t ob[T], oh[T], out[4 * T];
    for (uint32_t t = 0; t < T; t++) {
        /* the page's last byte/half for a few lanes, else spread out */
        ob[t] = t % 7 == 0 ? (uint32_t)pg - 1 - (t % 4) : (t * 389u + t / 3) % (uint32_t)pg;
        oh[t] = t % 6 == 0 ? (uint32_t)pg - 2 : ((t * 613u) % (uint32_t)pg) & ~1u;
    }
    for (int i = 0; i < 4 * T; i++)
        out[i] = POISON;
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "narrow did not compile");
    if (jm) {
        void *px = x, *pb = ob, *ph = oh, *po = out;
        void *args[] = {&px, &pb, &ph, &po};
        CHECK(zt_run(jm, "narrow", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "narrow status");
        int bad = 0;
        for (int t = 0; t < T; t++) {
            uint16_t h = (uint16_t)(x[oh[t]] | x[oh[t] + 1] << 8);
            uint32_t want[4] = {x[ob[t]], (uint32_t)(int32_t)(int8_t)x[ob[t]], h,
                                (uint32_t)(int32_t)(int16_t)h};
            for (int k = 0; k < 4; k++) {
                uint32_t w = t % 5 == 4 ? POISON : want[k];
                if (out[4 * t + k] != w && bad++ < 8)
                    CHECK(0, "thread %d value %d: 0x%08x, want 0x%08x", t, k, out[4 * t + k], w);
            }
        }
        zn_jit_module_free(jm);
    }
    munmap(x, 2 * (size_t)pg);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_narrow_gather: all passed\n");
    return zt_failures != 0;
}
