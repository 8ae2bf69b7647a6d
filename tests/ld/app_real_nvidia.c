/* app_real_nvidia.c: linked against NVIDIA's own libraries, the stub
 * libcuda.so (lib64/stubs) and libcublas.so.13 (lib64), with a DT_RPATH
 * naming both folders (test_ld_real.sh). Prints which libcuda.so.1 and
 * libcublas.so.13 the loader mapped, and every libcu* library mapped
 * (from dl_iterate_phdr), then, unless
 * --paths, runs a kernel from PTX and a cublasSgemm and checks both
 * against a CPU reference. Prints "cuda=PATH cublas=PATH all=PATH,..." and "PASS real". */
#define _GNU_SOURCE
#include <cublas_v2.h>
#include <cuda.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char cuda_path[4096], cublas_path[4096], all_cu[16384];

/* Every mapped libcu* (libcuda, libcublas, libcublasLt, libcudart): the
 * test checks that none of NVIDIA's is among them. */
static int find_libs(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *n = info->dlpi_name, *base = strrchr(n, '/');
    base = base ? base + 1 : n;
    if (!strcmp(base, "libcuda.so.1") || !strcmp(base, "libcuda.so"))
        snprintf(cuda_path, sizeof cuda_path, "%s", n);
    if (!strncmp(base, "libcublas.so", 12))
        snprintf(cublas_path, sizeof cublas_path, "%s", n);
    if (!strncmp(base, "libcu", 5)) {
        size_t k = strlen(all_cu);
        snprintf(all_cu + k, sizeof all_cu - k, "%s%s", k ? "," : "", n);
    }
    return 0;
}

/* out[i] = in[i] * 3 + 1 */
static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u64 in, .param .u32 n)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<8>;\n    .reg .b64 %rd<6>;\n"
    "    ld.param.u64 %rd1, [out];\n    ld.param.u64 %rd2, [in];\n    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n    setp.ge.s32 %p1, %r5, %r1;\n    @%p1 bra DONE;\n"
    "    mul.wide.s32 %rd3, %r5, 4;\n    add.s64 %rd4, %rd2, %rd3;\n    ld.global.u32 %r6, [%rd4];\n"
    "    mad.lo.s32 %r7, %r6, 3, 1;\n    add.s64 %rd5, %rd1, %rd3;\n    st.global.u32 [%rd5], %r7;\n"
    "DONE:\n    ret;\n}\n";

#define TRY(call) do { int r_ = (int)(call); if (r_) { \
    printf("FAIL %s -> %d\n", #call, r_); return 1; } } while (0)

static int run(void)
{
    enum { N = 300, M = 5, K = 7, P = 3 };
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr din, dout, da, db, dc;
    TRY(cuInit(0));
    TRY(cuDeviceGet(&dev, 0));
    TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
    TRY(cuCtxSetCurrent(ctx));
    TRY(cuModuleLoadData(&mod, ptx));
    TRY(cuModuleGetFunction(&fn, mod, "k"));
    unsigned in[N], out[N];
    for (int i = 0; i < N; i++) {
        in[i] = (unsigned)(i * 7919 + 13);
        out[i] = 0xDEADBEEFu;
    }
    TRY(cuMemAlloc(&din, sizeof in));
    TRY(cuMemAlloc(&dout, sizeof out));
    TRY(cuMemcpyHtoD(din, in, sizeof in));
    TRY(cuMemcpyHtoD(dout, out, sizeof out));
    int n = N;
    void *args[] = { &dout, &din, &n };
    TRY(cuLaunchKernel(fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    TRY(cuMemcpyDtoH(out, dout, sizeof out));
    for (int i = 0; i < N; i++)
        if (out[i] != in[i] * 3u + 1u) {
            printf("FAIL kernel: out[%d] = %u, want %u\n", i, out[i], in[i] * 3u + 1u);
            return 1;
        }

    /* C (MxP) = A (MxK) * B (KxP), column-major, small integers: exact */
    float a[M * K], b[K * P], c[M * P], want[M * P];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 5 - 2);
    for (int i = 0; i < K * P; i++)
        b[i] = (float)(i % 3 + 1);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < P; j++) {
            float s = 0;
            for (int k = 0; k < K; k++)
                s += a[k * M + i] * b[j * K + k];
            want[j * M + i] = s;
        }
    for (int i = 0; i < M * P; i++)
        c[i] = -12345.0f;
    TRY(cuMemAlloc(&da, sizeof a));
    TRY(cuMemAlloc(&db, sizeof b));
    TRY(cuMemAlloc(&dc, sizeof c));
    TRY(cuMemcpyHtoD(da, a, sizeof a));
    TRY(cuMemcpyHtoD(db, b, sizeof b));
    TRY(cuMemcpyHtoD(dc, c, sizeof c));
    cublasHandle_t h;
    TRY(cublasCreate(&h));
    float one = 1.0f, zero = 0.0f;
    TRY(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, P, K, &one, (const float *)da, M,
                    (const float *)db, K, &zero, (float *)dc, M));
    TRY(cuCtxSynchronize());
    TRY(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < M * P; i++)
        if (c[i] != want[i]) {
            printf("FAIL sgemm: c[%d] = %g, want %g\n", i, (double)c[i], (double)want[i]);
            return 1;
        }
    TRY(cublasDestroy(h));
    cuMemFree(din);
    cuMemFree(dout);
    cuMemFree(da);
    cuMemFree(db);
    cuMemFree(dc);
    cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}

int main(int argc, char **argv)
{
    dl_iterate_phdr(find_libs, NULL);
    printf("cuda=%s cublas=%s all=%s\n", cuda_path, cublas_path, all_cu);
    fflush(stdout);
    if (argc > 1 && !strcmp(argv[1], "--paths"))
        return 0;
    int rc = run();
    if (!rc)
        printf("PASS real\n");
    return rc;
}
