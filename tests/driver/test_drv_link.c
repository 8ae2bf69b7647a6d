/* test_drv_link.c: the JIT linker (cuLinkCreate/AddData/AddFile/Complete/
 * Destroy) on two PTX inputs written here, and its error cases.
 *
 * Image A defines lk_twice (strong), lk_weak (.weak), lk_priv_a, the
 * variable lk_off, a private lk_priv = 10 and lk_common[8] (.common); image
 * B (added from a file) declares lk_twice, lk_priv_a and lk_off .extern,
 * overrides lk_weak with a strong definition, has its own private
 * lk_priv = 20 and lk_common[16], and the kernel. nvlink links the same two
 * files (checked by hand with ptxas -c / nvlink). The kernel's results are
 * compared with what the linking rules give, computed here. Error cases:
 * an unresolved .extern, a duplicate strong definition, malformed PTX, a
 * cubin input, an object holding no fatbin: each with its message in the
 * error log buffer. Run with ZINC_CC=7.5.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drv_test.h"

static const char ptx_a[] =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    "\n"
    ".visible .global .align 4 .u32 lk_off = 3;\n"
    ".global .align 4 .u32 lk_priv = 10;\n"
    ".common .global .align 4 .b8 lk_common[8];\n"
    "\n"
    ".visible .func (.param .b32 r) lk_twice(.param .b32 x)\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\tld.param.u32 %r1, [x];\n"
    "\tld.global.u32 %r2, [lk_off];\n"
    "\tmad.lo.s32 %r3, %r1, 2, %r2;\n"
    "\tst.param.b32 [r], %r3;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".weak .func (.param .b32 r) lk_weak()\n"
    "{\n"
    "\t.reg .b32 %r<2>;\n"
    "\tmov.u32 %r1, 1;\n"
    "\tst.param.b32 [r], %r1;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .func (.param .b32 r) lk_priv_a()\n"
    "{\n"
    "\t.reg .b32 %r<2>;\n"
    "\tld.global.u32 %r1, [lk_priv];\n"
    "\tst.param.b32 [r], %r1;\n"
    "\tret;\n"
    "}\n";

static const char ptx_b[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    "\n"
    ".extern .global .align 4 .u32 lk_off;\n"
    ".global .align 4 .u32 lk_priv = 20;\n"
    ".common .global .align 4 .b8 lk_common[16];\n"
    ".extern .func (.param .b32 r) lk_twice(.param .b32 x);\n"
    ".extern .func (.param .b32 r) lk_priv_a();\n"
    "\n"
    ".visible .func (.param .b32 r) lk_weak()\n"
    "{\n"
    "\t.reg .b32 %r<2>;\n"
    "\tmov.u32 %r1, 2;\n"
    "\tst.param.b32 [r], %r1;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .entry lk_kernel(.param .u64 out)\n"
    "{\n"
    "\t.reg .b32 %r<8>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tcvta.to.global.u64 %rd1, %rd1;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd2, %r1, 16;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\t{\n"
    "\t.param .b32 p0;\n"
    "\t.param .b32 r0;\n"
    "\tst.param.b32 [p0], %r1;\n"
    "\tcall.uni (r0), lk_twice, (p0);\n"
    "\tld.param.b32 %r2, [r0];\n"
    "\t}\n"
    "\t{\n"
    "\t.param .b32 r1;\n"
    "\tcall.uni (r1), lk_weak, ();\n"
    "\tld.param.b32 %r3, [r1];\n"
    "\t}\n"
    "\tld.global.u32 %r4, [lk_priv];\n"
    "\t{\n"
    "\t.param .b32 r2;\n"
    "\tcall.uni (r2), lk_priv_a, ();\n"
    "\tld.param.b32 %r5, [r2];\n"
    "\t}\n"
    "\tst.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r5};\n"
    "\tret;\n"
    "}\n";

/* a second strong lk_twice */
static const char ptx_dup[] =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .func (.param .b32 r) lk_twice(.param .b32 x)\n"
    "{\n\t.reg .b32 %r<2>;\n\tld.param.u32 %r1, [x];\n\tst.param.b32 [r], %r1;\n\tret;\n}\n";

/* calls a function nothing defines */
static const char ptx_unresolved[] =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".extern .func (.param .b32 r) lk_missing();\n"
    ".visible .entry lk_k2()\n{\n\t.reg .b32 %r<2>;\n"
    "\t{\n\t.param .b32 r0;\n\tcall.uni (r0), lk_missing, ();\n\tld.param.b32 %r1, [r0];\n\t}\n"
    "\tret;\n}\n";

static const char ptx_bad[] =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry lk_bad()\n{\n\tfrobnicate.u32 %r1;\n\tret;\n}\n";

/* A link state with both logs and the wall time. */
typedef struct lk {
    CUlinkState st;
    char info[4096], error[4096];
    CUjit_option opts[6];
    void *vals[6];
} lk;

static CUresult lk_create(lk *l)
{
    memset(l->info, 0x5a, sizeof l->info);      /* poison */
    memset(l->error, 0x5a, sizeof l->error);
    CUjit_option o[6] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_WALL_TIME, CU_JIT_OPTIMIZATION_LEVEL};
    void *v[6] = {l->info, (void *)(uintptr_t)sizeof l->info, l->error,
                  (void *)(uintptr_t)sizeof l->error, NULL, (void *)(uintptr_t)3};
    memcpy(l->opts, o, sizeof o);
    memcpy(l->vals, v, sizeof v);
    return cuLinkCreate(6, l->opts, l->vals, &l->st);
}

static float lk_wall(const lk *l)
{
    float f;
    memcpy(&f, &l->vals[4], sizeof f);
    return f;
}

static CUresult add(lk *l, const char *ptx, const char *name)
{
    return cuLinkAddData(l->st, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, name, 0,
                         NULL, NULL);
}

static void test_link_and_run(void)
{
    char path[] = "/tmp/zn_test_link_XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    if (fd < 0)
        return;
    EXPECT(write(fd, ptx_b, strlen(ptx_b)) == (ssize_t)strlen(ptx_b));
    close(fd);

    lk l;
    OK(lk_create(&l));
    OK(add(&l, ptx_a, "a.ptx"));
    OK(cuLinkAddFile(l.st, CU_JIT_INPUT_PTX, path, 0, NULL, NULL));
    unlink(path);
    void *image = NULL;
    size_t size = 0;
    OK(cuLinkComplete(l.st, &image, &size));
    EXPECT(image && size > 0);
    EXPECT((size_t)(uintptr_t)l.vals[1] == strlen(l.info) + 1);  /* bytes written */
    EXPECT(strstr(l.info, "linked 2") != NULL);
    EXPECT((size_t)(uintptr_t)l.vals[3] == 1 && l.error[0] == 0); /* empty error log */
    EXPECT(lk_wall(&l) >= 0.0f && lk_wall(&l) < 60000.0f);
    if (!image) {
        cuLinkDestroy(l.st);
        return;
    }
    /* the highest .version / .target of the inputs */
    EXPECT(strstr(image, ".version 8.0") && strstr(image, ".target sm_75"));

    CUmodule mod;
    OK(cuModuleLoadData(&mod, image));
    OK(cuLinkDestroy(l.st));        /* the module does not need the image */
    CUfunction k;
    OK(cuModuleGetFunction(&k, mod, "lk_kernel"));
    CUdeviceptr common;
    size_t common_bytes = 0;
    OK(cuModuleGetGlobal(&common, &common_bytes, mod, "lk_common"));
    EXPECT(common_bytes == 16);     /* .common: the largest */
    enum { T = 64 };
    CUdeviceptr out;
    OK(cuMemAlloc(&out, T * 16));
    OK(cuMemsetD8(out, 0xff, T * 16));
    void *args[] = {&out};
    OK(cuLaunchKernel(k, 1, 1, 1, T, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    uint32_t got[T * 4];
    OK(cuMemcpyDtoH(got, out, sizeof got));
    int bad = 0;
    for (uint32_t t = 0; t < T; t++) {
        /* lk_twice(t) = 2t + lk_off (3); lk_weak: B's strong one (2); B's
         * private lk_priv (20); lk_priv_a reads A's private lk_priv (10) */
        uint32_t want[4] = {2 * t + 3, 2, 20, 10};
        for (int j = 0; j < 4; j++)
            if (got[t * 4 + j] != want[j] && bad++ < 5)
                printf("FAIL: thread %u field %d = %u, want %u\n", t, j, got[t * 4 + j],
                       want[j]);
    }
    EXPECT(bad == 0);
    OK(cuMemFree(out));
    OK(cuModuleUnload(mod));
}

static void test_errors(void)
{
    lk l;
    void *image;
    size_t size;

    /* unresolved .extern: the symbol is named */
    OK(lk_create(&l));
    OK(add(&l, ptx_unresolved, "unres.ptx"));
    EXPECT_RC(cuLinkComplete(l.st, &image, &size), CUDA_ERROR_INVALID_PTX);
    EXPECT(strstr(l.error, "unresolved") && strstr(l.error, "lk_missing"));
    EXPECT((size_t)(uintptr_t)l.vals[3] == strlen(l.error) + 1);
    OK(cuLinkDestroy(l.st));

    /* duplicate strong definition: both images are named */
    OK(lk_create(&l));
    OK(add(&l, ptx_a, "a.ptx"));
    OK(add(&l, ptx_dup, "dup.ptx"));
    EXPECT_RC(cuLinkComplete(l.st, &image, &size), CUDA_ERROR_INVALID_PTX);
    EXPECT(strstr(l.error, "duplicate") && strstr(l.error, "lk_twice") &&
           strstr(l.error, "a.ptx") && strstr(l.error, "dup.ptx"));
    OK(cuLinkDestroy(l.st));

    /* malformed PTX: refused when added, with its position */
    OK(lk_create(&l));
    EXPECT_RC(add(&l, ptx_bad, "bad.ptx"), CUDA_ERROR_INVALID_PTX);
    EXPECT(strstr(l.error, "bad.ptx:6:2:") && strstr(l.error, "frobnicate"));
    /* nothing left to link */
    EXPECT_RC(cuLinkComplete(l.st, &image, &size), CUDA_ERROR_INVALID_VALUE);
    OK(cuLinkDestroy(l.st));

    /* inputs Zinc cannot link: a cubin, an object with no fatbin in it */
    OK(lk_create(&l));
    static const char elf[64] = "\x7f" "ELF\x02\x01\x01";
    EXPECT_RC(cuLinkAddData(l.st, CU_JIT_INPUT_CUBIN, (void *)elf, sizeof elf, "k.cubin", 0,
                            NULL, NULL), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(strstr(l.error, "k.cubin") != NULL);
    EXPECT_RC(cuLinkAddData(l.st, CU_JIT_INPUT_OBJECT, (void *)elf, sizeof elf, "k.o", 0,
                            NULL, NULL), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(strstr(l.error, "k.o holds no PTX") != NULL);
    OK(cuLinkDestroy(l.st));

    /* argument checks */
    CUlinkState st;
    EXPECT_RC(cuLinkCreate(1, NULL, NULL, &st), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLinkCreate(0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuLinkCreate(0, NULL, NULL, &st));
    EXPECT_RC(cuLinkAddData(st, CU_JIT_INPUT_PTX, NULL, 0, "x", 0, NULL, NULL),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuLinkAddFile(st, CU_JIT_INPUT_PTX, "/nonexistent/zn.ptx", 0, NULL, NULL),
              CUDA_ERROR_FILE_NOT_FOUND);
    OK(cuLinkDestroy(st));
}

/* The v1 entry points NVIDIA also exports, through cuGetProcAddress. */
static void test_versions(void)
{
    static const char *const names[] = {"cuLinkCreate", "cuLinkAddData", "cuLinkAddFile",
                                        "cuLinkComplete", "cuLinkDestroy"};
    for (int i = 0; i < 5; i++) {
        void *fn = NULL;
        CUdriverProcAddressQueryResult q;
        OK(cuGetProcAddress(names[i], &fn, 5050, 0, &q));
        EXPECT(fn != NULL);
        OK(cuGetProcAddress(names[i], &fn, 13000, 0, &q));
        EXPECT(fn != NULL);
    }
}

/* argv: a host object built with nvcc -rdc=true -c rdc_multi_a.cu and a
 * fatbin built with -rdc=true -fatbin rdc_multi_b.cu (tests/cuda): linked
 * as CU_JIT_INPUT_OBJECT + CU_JIT_INPUT_FATBINARY, rdc_kernel_b checked
 * against the reference of rdc_multi_a.cu. */
static void test_object_fatbin(const char *obj, const char *fatbin)
{
    lk l;
    OK(lk_create(&l));
    OK(cuLinkAddFile(l.st, CU_JIT_INPUT_OBJECT, obj, 0, NULL, NULL));
    OK(cuLinkAddFile(l.st, CU_JIT_INPUT_FATBINARY, fatbin, 0, NULL, NULL));
    void *image = NULL;
    size_t size = 0;
    OK(cuLinkComplete(l.st, &image, &size));
    CUmodule mod;
    if (!image || cuModuleLoadData(&mod, image) != CUDA_SUCCESS) {
        printf("FAIL: linking %s and %s: %s\n", obj, fatbin, l.error);
        drv_failures++;
        cuLinkDestroy(l.st);
        return;
    }
    OK(cuLinkDestroy(l.st));
    enum { N = 300, TBL = 16 };
    int table[TBL], bias = 9, in[N], out[N];
    for (int i = 0; i < TBL; i++)
        table[i] = 5 * i - 20;
    for (int i = 0; i < N; i++)
        in[i] = (i * 13) % 57 - 28;
    CUdeviceptr p;
    size_t bytes;
    OK(cuModuleGetGlobal(&p, &bytes, mod, "rdc_table"));
    EXPECT(bytes == sizeof table);
    OK(cuMemcpyHtoD(p, table, sizeof table));
    OK(cuModuleGetGlobal(&p, &bytes, mod, "rdc_bias"));
    OK(cuMemcpyHtoD(p, &bias, sizeof bias));
    CUdeviceptr din, dout;
    OK(cuMemAlloc(&din, sizeof in));
    OK(cuMemAlloc(&dout, sizeof out));
    OK(cuMemcpyHtoD(din, in, sizeof in));
    OK(cuMemsetD8(dout, 0xa5, sizeof out));
    CUfunction k;
    OK(cuModuleGetFunction(&k, mod, "_Z12rdc_kernel_bPKiPii"));
    int n = N;
    void *args[] = {&din, &dout, &n};
    OK(cuLaunchKernel(k, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, dout, sizeof out));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        /* rdc_scale(x, k) = x * k + bias, plus table[i % 16] + bias */
        int want = in[i] * table[(i + 1) % TBL] + bias + table[i % TBL] + bias;
        if (out[i] != want && bad++ < 5)
            printf("FAIL: out[%d] = %d, want %d\n", i, out[i], want);
    }
    EXPECT(bad == 0);
    OK(cuMemFree(din));
    OK(cuMemFree(dout));
    OK(cuModuleUnload(mod));
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    CUdevice dev = drv_test_primary_ctx(NULL);
    test_versions();
    test_link_and_run();
    test_errors();
    if (argc > 2)
        test_object_fatbin(argv[1], argv[2]);
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_link");
}
