/* drv_app.c: a driver-API program (no CUDA runtime, no toolkit) for the
 * tracer's tests: loads PTX text with cuModuleLoadData, sets a .global
 * variable, and launches a kernel whose first parameter is a 16-byte
 * struct holding a device pointer, so capture must find a pointer inside a
 * parameter; then again with the parameters packed in cuLaunchKernel's
 * `extra` buffer. Checks its results against a host reference. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char ptx[] =
    ".version 7.5\n"
    ".target sm_75\n"
    ".address_size 64\n"
    "\n"
    ".visible .global .align 4 .f32 gbias;\n"
    "\n"
    ".visible .entry scale_bias(\n"
    "    .param .align 8 .b8 scale_bias_param_0[16],\n"
    "    .param .f32 scale_bias_param_1\n"
    ")\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .f32 %f<5>;\n"
    "    .reg .b64 %rd<5>;\n"
    "\n"
    "    ld.param.u64 %rd1, [scale_bias_param_0];\n"
    "    ld.param.u32 %r1, [scale_bias_param_0+8];\n"
    "    ld.param.f32 %f1, [scale_bias_param_1];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.s32 %p1, %r5, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mul.wide.s32 %rd3, %r5, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    ld.global.f32 %f2, [%rd4];\n"
    "    ld.global.f32 %f3, [gbias];\n"
    "    fma.rn.f32 %f4, %f2, %f1, %f3;\n"
    "    st.global.f32 [%rd4], %f4;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

typedef int (*fn_t)();
#define FNS(X) X(cuInit) X(cuDeviceGet) X(cuCtxCreate_v2) X(cuModuleLoadData)           \
    X(cuModuleGetFunction) X(cuModuleGetGlobal_v2) X(cuMemAlloc_v2) X(cuMemcpyHtoD_v2)  \
    X(cuMemcpyDtoH_v2) X(cuLaunchKernel) X(cuCtxSynchronize) X(cuMemFree_v2)            \
    X(cuModuleUnload) X(cuCtxDestroy_v2)
static struct {
#define X(f) fn_t f;
    FNS(X)
#undef X
} cu;

#define CHECK(call)                                                              \
    do {                                                                         \
        int rc_ = (call);                                                        \
        if (rc_) {                                                               \
            fprintf(stderr, "FAIL %s = %d\n", #call, rc_);                       \
            return 1;                                                            \
        }                                                                        \
    } while (0)

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--ptx") == 0) {   /* for the test's comparison */
        fputs(ptx, stdout);
        return 0;
    }
    void *lib = dlopen(argc > 1 ? argv[1] : "libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "FAIL %s\n", dlerror());
        return 1;
    }
#define X(f)                                                                     \
    if (!(cu.f = (fn_t)dlsym(lib, #f))) {                                        \
        fprintf(stderr, "FAIL no %s\n", #f);                                     \
        return 1;                                                                \
    }
    FNS(X)
#undef X
    enum { N = 1000 };
    int dev;
    void *ctx, *mod, *fn;
    unsigned long long y, bias_ptr;
    size_t bias_size;
    CHECK(cu.cuInit(0));
    CHECK(cu.cuDeviceGet(&dev, 0));
    CHECK(cu.cuCtxCreate_v2(&ctx, 0u, dev));
    CHECK(cu.cuModuleLoadData(&mod, ptx));
    CHECK(cu.cuModuleGetFunction(&fn, mod, "scale_bias"));
    CHECK(cu.cuModuleGetGlobal_v2(&bias_ptr, &bias_size, mod, "gbias"));
    float bias = 2.0f, a = 3.0f, host[N], want[N];
    CHECK(cu.cuMemcpyHtoD_v2(bias_ptr, &bias, sizeof bias));
    for (int i = 0; i < N; i++) {
        host[i] = (float)i * 0.5f;
        want[i] = host[i] * a + bias;
    }
    CHECK(cu.cuMemAlloc_v2(&y, sizeof host));
    CHECK(cu.cuMemcpyHtoD_v2(y, host, sizeof host));
    struct { unsigned long long y; int n; int pad; } args = { y, N, 0 };
    void *params[] = { &args, &a };
    CHECK(cu.cuLaunchKernel(fn, 4u, 1u, 1u, 256u, 1u, 1u, 0u, (void *)0, params, (void *)0));
    CHECK(cu.cuCtxSynchronize());
    CHECK(cu.cuMemcpyDtoH_v2(host, y, sizeof host));
    for (int i = 0; i < N; i++) {
        if (host[i] != want[i]) {
            fprintf(stderr, "FAIL y[%d] = %g, want %g\n", i, host[i], want[i]);
            return 1;
        }
        want[i] = want[i] * a + bias;
    }
    /* the same through `extra`: the 20 parameter bytes at their offsets */
    unsigned char blob[20];
    size_t blob_size = sizeof blob;
    memcpy(blob, &args, 16);
    memcpy(blob + 16, &a, 4);
    void *extra[] = { (void *)1, blob, (void *)2, &blob_size, (void *)0 };
    CHECK(cu.cuLaunchKernel(fn, 2u, 1u, 1u, 512u, 1u, 1u, 0u, (void *)0, (void *)0, extra));
    CHECK(cu.cuCtxSynchronize());
    CHECK(cu.cuMemcpyDtoH_v2(host, y, sizeof host));
    for (int i = 0; i < N; i++) {
        if (host[i] != want[i]) {
            fprintf(stderr, "FAIL (extra) y[%d] = %g, want %g\n", i, host[i], want[i]);
            return 1;
        }
    }
    CHECK(cu.cuMemFree_v2(y));
    CHECK(cu.cuModuleUnload(mod));
    CHECK(cu.cuCtxDestroy_v2(ctx));
    printf("PASS drv_app\n");
    return 0;
}
