/* sweep_selfcheck.c: known answers for the references, worked out by hand
 * from the PTX ISA and IEEE 754 (not by running anything), so that a
 * reference broken by its own compiler is caught (GCC once moved an
 * addition across fesetround at -O3). Run by --selftest. */
#include <stdio.h>
#include <string.h>
#include "sweep.h"

typedef struct kat {
    const char *form;
    uint64_t in[SW_NIN];
    uint64_t want;
} kat;

static const kat kats[] = {
    /* directed rounding near zero and one */
    {"add_rz_f64", {0x8000000000000001ull, 0x3ff0000000000000ull}, 0x3fefffffffffffffull},
    {"add_rm_f64", {0x8000000000000000ull, 0}, 0x8000000000000000ull},
    {"add_rm_f32", {0x80000000, 0}, 0x80000000},
    {"mul_rp_f64", {1, 1}, 1},
    {"div_rz_f32", {1, 0x3fc00000}, 0},
    {"fma_rm_f32", {0xbf800000, 0x80800000, 0x80800000}, 0x80000000},
    /* integer -> float rounding */
    {"cvt_rz_f32_s32", {0x7fffffff}, 0x4effffff},
    {"cvt_rn_f32_s32", {0x7fffffff}, 0x4f000000},
    {"cvt_rp_f32_u64", {0xffffffffffffffffull}, 0x5f800000},
    {"cvt_rz_f32_u64", {0xffffffffffffffffull}, 0x5f7fffff},
    /* f16 / bf16: overflow, ties to even, subnormals */
    {"cvt_rn_f16_f32", {0x477ff000}, 0x7c00},
    {"cvt_rz_f16_f32", {0x477ff000}, 0x7bff},
    {"cvt_rn_f16_f32", {0x33000000}, 0x0000},
    {"cvt_rn_f16_f32", {0x33000001}, 0x0001},
    {"cvt_rn_bf16_f32", {0x3f808000}, 0x3f80},
    {"cvt_rn_bf16_f32", {0x3f818000}, 0x3f82},
    {"cvt_rn_bf16_f32", {0x007fffff}, 0x0080},
    {"fma_rn_f16", {0x6401, 0x03ff, 0x5bff}, 0x5bff},
    /* float -> integer: ties to even, NaN, saturation */
    {"cvt_rni_s32_f32", {0x40200000}, 2},
    {"cvt_rni_s32_f32", {0xc0200000}, 0xfffffffe},
    {"cvt_rni_s32_f32", {0x7fc00000}, 0},
    {"cvt_rni_s32_f32", {0x4f32d05e}, 0x7fffffff},
    {"cvt_rzi_u32_f32", {0xbf800000}, 0},
    /* integer and bit operations */
    {"shr_s32", {0x80000000, 40}, 0xffffffff},
    {"bfe_s32", {0x00000080, 7, 1}, 0xffffffff},
    {"prmt_b32", {0x33221100, 0x77665544, 0x7654}, 0x77665544},
    {"prmt_b32", {0x80, 0, 0x0008}, 0x808080ff},
    {"lop3_96", {0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa}, 0x96969696},
    {"min_f32", {0x7fc00000, 0x3f800000}, 0x3f800000},
    {"mul_hi_s32", {0xffffffff, 0xffffffff}, 0},
    {"shf_l_wrap", {0x80000000, 0x1, 33}, 0x3},
    /* fp8 (a -> high byte): largest finite, satfinite, ties to the even
     * code, subnormals, NaN; back to f16 exactly; tf32 ties */
    {"cvt_rn_satfinite_e4m3x2_f32", {0x43e00000, 0x3f800000}, 0x7e38},
    {"cvt_rn_satfinite_e4m3x2_f32", {0x43e80000, 0x3a800000}, 0x7e00},
    {"cvt_rn_satfinite_e4m3x2_f32", {0xff800000, 0x3ac00000}, 0xfe01},
    {"cvt_rn_satfinite_e5m2x2_f32", {0x3f800000, 0x7fc00000}, 0x3c7f},
    {"cvt_rn_satfinite_e5m2x2_f32", {0x47700000, 0x3fb00000}, 0x7b3e},
    {"cvt_rn_satfinite_relu_e4m3x2_f32", {0xbf800000, 0x80000000}, 0x0000},
    {"cvt_rn_satfinite_e4m3x2_f16x2", {0x3c00fc00}, 0x38fe},
    {"cvt_rn_f16x2_e4m3x2", {0x0138}, 0x18003c00},
    {"cvt_rn_f16x2_e4m3x2", {0xff7f}, 0x7fff7fff},
    {"cvt_rn_f16x2_e5m2x2", {0x7cfc}, 0x7c00fc00},
    {"cvt_rna_tf32_f32", {0x3f801000}, 0x3f802000},
    {"cvt_rn_tf32_f32", {0x3f801000}, 0x3f800000},
    {"cvt_rn_tf32_f32", {0x3f803000}, 0x3f804000},
    {"cvt_rna_tf32_f32", {0x7f7ff000}, 0x7f800000},
    {"cvt_rna_satfinite_tf32_f32", {0x7f7ff000}, 0x7f7fe000},
    /* video: selectors, clamps, merges into c, the .s34 vshl, vmad */
    {"vadd_sel_sat", {0x00008000, 0x00050000}, 0},
    {"vadd_sel_sat", {0x00007f00, 0xffff0000}, 0x1007e},
    {"vsub_b0", {0x01000000, 0x00000300, 0x11223344}, 0x112233fe},
    {"vmin_h1_sat", {0x00008000, 0x000000ff, 0x12345678}, 0x80005678},
    {"vshl_s_sat", {0xffffffff, 2}, 0xfffffffc},
    {"vshr_clamp", {0x80000000, 40}, 0},
    {"vshr_clamp", {0x80000000, 31}, 1},
    {"vset_lt", {0xffffffff, 0}, 1},
    {"vset_le_h1", {5, 0x00010005, 0xabcd1234}, 0x00011234},
    {"vmad_na", {3, 4, 20}, 8},
    {"vmad_shr15", {0x8000, 0x8000, 0}, 0x8000},
    {"vmad_nc_sat", {1, 1, 5}, 0xfffffffc},
    {"vmad_u32_sat", {0xffffffff, 2, 0}, 0xffffffff},
    {"vadd2_sel_sat", {1, 0x7fff, 0x12345678}, 0x7fff5678},
    {"vset4_sel", {0x01020304, 0xff020305, 0xaabbccdd}, 0x0101cc00},
};

int sw_ref_selfcheck(void)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof kats / sizeof kats[0]; i++) {
        const sw_form *f = NULL;
        for (size_t j = 0; j < sw_nforms; j++)
            if (!strcmp(sw_forms[j].name, kats[i].form))
                f = &sw_forms[j];
        if (!f) {
            printf("selfcheck: no form %s\n", kats[i].form);
            bad++;
            continue;
        }
        uint64_t out[SW_NOUT] = {0, 0};
        f->ref(kats[i].in, out);
        uint64_t m = sw_mask_of(f->dst[0]);
        if ((out[0] & m) != (kats[i].want & m)) {
            printf("selfcheck: reference of %s on %llx,%llx,%llx gives %llx, not %llx\n", f->name,
                   (unsigned long long)kats[i].in[0], (unsigned long long)kats[i].in[1],
                   (unsigned long long)kats[i].in[2], (unsigned long long)(out[0] & m),
                   (unsigned long long)kats[i].want);
            bad++;
        }
    }
    return bad;
}
