/* test_drv_host.c: Zinc's libcuda.so.1 without kernels.
 *
 * Linked against the library (prototypes from the toolkit's cuda.h), it
 * checks: cuGetProcAddress for every (name, version, flags) cudart 13 asks
 * for, and the version/per-thread rule against the exported ABI names;
 * error names; the device and its attributes; contexts and context-local
 * storage; the export tables and the integrity answer (recomputed here with
 * an independent HMAC-MD2); memory, copies, sets and pointer attributes;
 * streams and events. Run with ZINC_CC=7.5.
 */
#define _GNU_SOURCE 1  /* dladdr */
#define CUDA_ENABLE_DEPRECATED 1 /* tests call deprecated entry points too */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_md2_ref.h"
#include "util/zn_host_pool.h"

#include "drv_test.h"

static void *lib;

/* The names the driver implements at no version (its U rows): each is
 * exported under its name and answers CUDA_ERROR_NOT_SUPPORTED. */
static const char *const unimpl_names[] = {
#define E(name, version, pt, sym)
#define U(name) #name,
#include "../../src/driver/zn_drv_api_list.h"
};

static bool is_unimpl(const char *name)
{
    for (size_t i = 0; i < sizeof unimpl_names / sizeof unimpl_names[0]; i++)
        if (!strcmp(unimpl_names[i], name))
            return true;
    return false;
}

static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        printf("FAIL: libcuda.so.1 does not export %s\n", name);
        drv_failures++;
    }
    return p;
}

static void *proc(const char *name, int ver, int flags, CUresult want, int want_status)
{
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
    CUresult r = cuGetProcAddress(name, &fn, ver, (cuuint64_t)flags, &st);
    if (r != want || (int)st != want_status || (st == CU_GET_PROC_ADDRESS_SUCCESS) != (fn != NULL)) {
        printf("FAIL: cuGetProcAddress(%s, %d, %d) -> %d status %d fn %p\n", name, ver,
               flags, (int)r, (int)st, fn);
        drv_failures++;
    }
    return fn;
}

static void test_proc_address(void)
{
    /* cudart's first call */
    void *fn = (void *)1;
    OK(cuGetProcAddress("", &fn, 0, 0, NULL));    /* NVIDIA: success, NULL */
    EXPECT(fn == NULL);

    /* every request the CUDA 13 runtime makes resolves */
    FILE *f = fopen(ZN_REQUESTS_FILE, "r");
    EXPECT(f != NULL);
    char name[128];
    int ver, flags, n = 0;
    int stubs = 0;
    while (f && fscanf(f, "%127s %d %d", name, &ver, &flags) == 3) {
        fn = NULL;
        OK(cuGetProcAddress(name, &fn, ver, (cuuint64_t)flags, NULL));
        EXPECT(fn != NULL);
        n++;
        /* an implemented entry point is an exported cu* symbol; anything
         * else is a stub, which must fail (it ignores its arguments) */
        Dl_info di;
        if (fn && (is_unimpl(name) ||
                   !(dladdr(fn, &di) && di.dli_saddr == fn && di.dli_sname &&
                     !strncmp(di.dli_sname, name, strlen(name))))) {
            stubs++;
            CUresult r = ((CUresult (*)(void))fn)();
            if (r != CUDA_ERROR_NOT_SUPPORTED) {
                printf("FAIL: stub for %s returned %d\n", name, (int)r);
                drv_failures++;
            }
        }
    }
    EXPECT(stubs > 20);     /* the stub path is exercised (fewer as more is implemented) */
    if (f)
        fclose(f);
    EXPECT(n > 400);

    /* the rule: newest ABI version <= requested; flag 2 picks _ptds/_ptsz */
    EXPECT(proc("cuMemcpyHtoD", 7000, 2, 0, 0) == sym("cuMemcpyHtoD_v2_ptds"));
    EXPECT(proc("cuMemcpyHtoD", 7000, 0, 0, 0) == sym("cuMemcpyHtoD_v2"));
    EXPECT(proc("cuMemcpyHtoD", 3020, 2, 0, 0) == sym("cuMemcpyHtoD_v2"));
    EXPECT(proc("cuMemcpy", 13000, 2, 0, 0) == sym("cuMemcpy_ptds"));
    EXPECT(proc("cuMemcpyAsync", 13000, 2, 0, 0) == sym("cuMemcpyAsync_ptsz"));
    EXPECT(proc("cuLaunchKernel", 12000, 2, 0, 0) == sym("cuLaunchKernel_ptsz"));
    EXPECT(proc("cuLaunchKernel", 12000, 0, 0, 0) == sym("cuLaunchKernel"));
    EXPECT(proc("cuStreamSynchronize", 7000, 2, 0, 0) == sym("cuStreamSynchronize_ptsz"));
    EXPECT(proc("cuCtxGetDevice", 13000, 0, 0, 0) == sym("cuCtxGetDevice_v2"));
    EXPECT(proc("cuCtxGetDevice", 12090, 0, 0, 0) == sym("cuCtxGetDevice"));
    EXPECT(proc("cuCtxSynchronize", 13000, 0, 0, 0) == sym("cuCtxSynchronize_v2"));
    EXPECT(proc("cuEventElapsedTime", 12080, 0, 0, 0) == sym("cuEventElapsedTime_v2"));
    EXPECT(proc("cuEventElapsedTime", 12000, 0, 0, 0) == sym("cuEventElapsedTime"));
    EXPECT(proc("cuGetProcAddress", 12000, 0, 0, 0) == sym("cuGetProcAddress_v2"));
    EXPECT(proc("cuGetProcAddress", 11030, 0, 0, 0) == sym("cuGetProcAddress"));
    EXPECT(proc("cuMemAlloc", 13000, 0, 0, 0) == sym("cuMemAlloc_v2"));
    EXPECT(proc("cuDeviceTotalMem", 13000, 0, 0, 0) == sym("cuDeviceTotalMem_v2"));
    EXPECT(proc("cuCtxCreate", 13000, 0, 0, 0) == sym("cuCtxCreate_v4"));
    EXPECT(proc("cuStreamDestroy", 13000, 0, 0, 0) == sym("cuStreamDestroy_v2"));
    /* older than the oldest ABI version: NVIDIA's driver hands out the oldest;
     * unknown names: success, a NULL pointer and SYMBOL_NOT_FOUND */
    void *oldest = proc("cuMemAlloc", 1000, 0, 0, CU_GET_PROC_ADDRESS_SUCCESS);
    EXPECT(oldest == sym("cuMemAlloc"));        /* the 32-bit form: a stub */
    EXPECT(((CUresult (*)(void))oldest)() == CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(proc("cuMemAlloc", 3020, 0, 0, 0) == sym("cuMemAlloc_v2"));
    EXPECT(proc("cuNoSuchFunction", 13000, 0, 0, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND) == NULL);
    /* each ABI version of cuCtxCreate resolves to its own signature */
    EXPECT(proc("cuCtxCreate", 12000, 0, 0, 0) == sym("cuCtxCreate_v3"));
    EXPECT(proc("cuCtxCreate", 4000, 0, 0, 0) == sym("cuCtxCreate_v2"));
    EXPECT(proc("cuCtxCreate", 2000, 0, 0, 0) == sym("cuCtxCreate"));
    /* an unimplemented name resolves to a stub that fails, never succeeds */
    void *g = proc("cuCtxDetach", 12000, 0, 0, 0);
    EXPECT(((CUresult (*)(void *))g)(NULL) == CUDA_ERROR_NOT_SUPPORTED);
    /* and every unimplemented name is exported under its name, as NVIDIA's
     * library exports every driver function: a program linked with -lcuda
     * loads and gets the error */
    EXPECT(sym("cuCtxDetach") == g);
    for (size_t i = 0; i < sizeof unimpl_names / sizeof unimpl_names[0]; i++) {
        void *d = sym(unimpl_names[i]);
        if (d && ((CUresult (*)(void *, void *))d)(NULL, NULL) != CUDA_ERROR_NOT_SUPPORTED) {
            printf("FAIL: exported stub %s did not return NOT_SUPPORTED\n", unimpl_names[i]);
            drv_failures++;
        }
    }
    EXPECT(sizeof unimpl_names / sizeof unimpl_names[0] > 20);
    /* the old entry point takes no status */
    CUresult (*gpa1)(const char *, void **, int, cuuint64_t) = sym("cuGetProcAddress");
    fn = NULL;
    EXPECT(gpa1 && gpa1("cuInit", &fn, 2000, 0) == CUDA_SUCCESS && fn == sym("cuInit"));
}

static void test_errors(void)
{
    const char *s = NULL;
    OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    EXPECT(s && !strcmp(s, "CUDA_ERROR_INVALID_VALUE"));
    OK(cuGetErrorName(CUDA_ERROR_LAUNCH_FAILED, &s));
    EXPECT(s && !strcmp(s, "CUDA_ERROR_LAUNCH_FAILED"));
    OK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
    EXPECT(s && !strcmp(s, "CUDA_ERROR_ILLEGAL_ADDRESS"));
    OK(cuGetErrorName(CUDA_SUCCESS, &s));
    EXPECT(s && !strcmp(s, "CUDA_SUCCESS"));
    OK(cuGetErrorName(CUDA_ERROR_UNKNOWN, &s));
    EXPECT(s && !strcmp(s, "CUDA_ERROR_UNKNOWN"));
    EXPECT_RC(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGetErrorString((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    /* every code with a name has a description */
    int named = 0;
    for (int c = 0; c < 1000; c++) {
        const char *nm = NULL, *desc = NULL;
        if (cuGetErrorName((CUresult)c, &nm) != CUDA_SUCCESS)
            continue;
        named++;
        EXPECT(nm && !strncmp(nm, "CUDA_", 5));
        EXPECT(cuGetErrorString((CUresult)c, &desc) == CUDA_SUCCESS && desc && *desc);
    }
    EXPECT(named >= 100);
}

static void test_device(void)
{
    int n = 0, v = 0;
    CUdevice dev;
    OK(cuDeviceGetCount(&n));
    EXPECT(n == 1);
    OK(cuDeviceGet(&dev, 0));
    EXPECT(dev == 0);
    EXPECT_RC(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
    char name[256];
    OK(cuDeviceGetName(name, sizeof name, 0));
    EXPECT(!strncmp(name, "Zinc CPU: ", 10));
    size_t mem = 0;
    OK(cuDeviceTotalMem(&mem, 0));
    EXPECT(mem > 0);

    struct { CUdevice_attribute a; int want; } fixed[] = {
        { CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32 },
        { CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024 },
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024 },
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024 },
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64 },
        { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647 },
        { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535 },
        { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535 },
        { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152 },
        { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 65536 },  /* cc 7.5 */
        { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 7 },
        { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 5 },
        { CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1 },
        { CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1 },
        { CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 1 },
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        v = -1;
        OK(cuDeviceGetAttribute(&v, fixed[i].a, 0));
        if (v != fixed[i].want) {
            printf("FAIL: attribute %d = %d, want %d\n", (int)fixed[i].a, v, fixed[i].want);
            drv_failures++;
        }
    }
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    EXPECT(v >= 1);
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0));
    EXPECT(v > 0);
    for (int a = 1; a <= 147; a++)   /* every attribute of the CUDA 13 enum */
        OK(cuDeviceGetAttribute(&v, (CUdevice_attribute)a, 0));
    EXPECT_RC(cuDeviceGetAttribute(&v, (CUdevice_attribute)0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetAttribute(&v, (CUdevice_attribute)9999, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1),
              CUDA_ERROR_INVALID_DEVICE);
    EXPECT_RC(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0),
              CUDA_ERROR_INVALID_VALUE);

    CUuuid u1, u2;
    OK(cuDeviceGetUuid(&u1, 0));
    OK(cuDeviceGetUuid(&u2, 0));
    EXPECT(!memcmp(&u1, &u2, sizeof u1));
    char bus[32];
    OK(cuDeviceGetPCIBusId(bus, sizeof bus, 0));
    CUdevice d2 = -1;
    OK(cuDeviceGetByPCIBusId(&d2, bus));
    EXPECT(d2 == 0);
    EXPECT_RC(cuDeviceGetLuid(name, (unsigned *)&v, 0), CUDA_ERROR_NOT_SUPPORTED);
    int major = 0, minor = 0;
    OK(cuDeviceComputeCapability(&major, &minor, 0));
    EXPECT(major == 7 && minor == 5);
}

/* ---- export tables ---- */

static const void **table(const char *uuid_hex)
{
    CUuuid u;
    for (int i = 0; i < 16; i++)
        sscanf(uuid_hex + 2 * i, "%2hhx", (unsigned char *)&u.bytes[i]);
    const void *t = NULL;
    if (cuGetExportTable(&t, &u) != CUDA_SUCCESS)
        return NULL;
    return (const void **)t;
}

#define T_RUNTIME "6bd5fb6c5bf4e74a8987d93912fd9df9"
#define T_HOOKS "a094798c2e742e7493f20800200c0a66"
#define T_TLS "42d85a8123f6cb478298f6e78a3aecdc"
#define T_CLS "c693336e1121df11a8c368f355d89593"
#define T_CHECKS "263e88607cd2614392f6bbd5006dfa7e"
#define T_INTEGRITY "d4082055bde6704b8d34ba123c66e1f2"
#define T_UNKNOWN "f8cff95121468b4eb9e2fb469e7c0dd9"

#define T_ZINC_POOL "7a696e632d686f73742d706f6f6c0001"

/* Zinc's own table: host work on the worker pool, each index once, the
 * caller's thread among the workers, a nested loop inside a part too. */
typedef struct pool_probe {
    const zn_host_pool_table *t;
    _Atomic int hits[1000];
    _Atomic int nested;
    pthread_t caller;
    _Atomic int on_caller;
} pool_probe;

static void pool_inner(void *arg, uint64_t i)
{
    (void)i;
    atomic_fetch_add(&((pool_probe *)arg)->nested, 1);
}

static void pool_part(void *arg, uint64_t i)
{
    pool_probe *p = arg;
    atomic_fetch_add(&p->hits[i], 1);
    if (pthread_equal(pthread_self(), p->caller))
        atomic_store(&p->on_caller, 1);
    if (i % 100 == 0)
        p->t->parallel(3, pool_inner, p);
}

static void test_host_pool_table(void)
{
    const zn_host_pool_table *t = (const zn_host_pool_table *)table(T_ZINC_POOL);
    EXPECT(t != NULL);
    if (!t)
        return;
    EXPECT(t->size >= sizeof *t && t->workers && t->parallel);
    EXPECT(t->workers() >= 1);
    static pool_probe p;
    p.t = t;
    p.caller = pthread_self();
    t->parallel(0, pool_part, &p);
    for (int i = 0; i < 1000; i++)
        EXPECT(atomic_load(&p.hits[i]) == 0);
    t->parallel(1000, pool_part, &p);
    int once = 0;
    for (int i = 0; i < 1000; i++)
        once += atomic_load(&p.hits[i]) == 1;
    EXPECT(once == 1000);
    EXPECT(atomic_load(&p.nested) == 30);
    EXPECT(atomic_load(&p.on_caller) == 1);
}

static int dtor_calls;
static void cls_dtor(CUcontext ctx, void *key, void *value) { dtor_calls++; }

static void test_export_tables(void)
{
    const void **rt = table(T_RUNTIME), **hooks = table(T_HOOKS), **tls = table(T_TLS),
               **cls = table(T_CLS), **checks = table(T_CHECKS), **integ = table(T_INTEGRITY);
    EXPECT(rt && hooks && tls && cls && checks && integ);
    EXPECT(table(T_UNKNOWN) == NULL);
    if (!(rt && hooks && tls && cls && checks && integ))
        return;
    EXPECT((uintptr_t)hooks[0] >= 56);

    /* runtime interface slot 2: the primary context, not made current */
    CUcontext cur = (CUcontext)1, prim = NULL, prim2 = NULL;
    OK(cuCtxSetCurrent(NULL));
    OK(((CUresult (*)(CUcontext *, CUdevice))rt[2])(&prim, 0));
    OK(cuCtxGetCurrent(&cur));
    EXPECT(cur == NULL);
    OK(cuDevicePrimaryCtxRetain(&prim2, 0));
    EXPECT(prim && prim == prim2);

    /* tool hooks slots 2 and 6: zeroed buffers of at least 1024 bytes */
    for (int slot = 2; slot <= 6; slot += 4) {
        void *buf = NULL;
        size_t size = 0;
        OK(((CUresult (*)(void **, size_t *))hooks[slot])(&buf, &size));
        EXPECT(buf && size >= 1024);
        if (buf)
            EXPECT(((unsigned char *)buf)[0] == 0 && ((unsigned char *)buf)[1023] == 0);
    }

    /* context-local storage: absent -> 201 without a context, 400 without the key */
    CUresult (*put)(CUcontext, void *, void *, void (*)(CUcontext, void *, void *)) = cls[0];
    CUresult (*del)(CUcontext, void *) = cls[1];
    CUresult (*get)(void **, CUcontext, void *) = cls[2];
    int key1, key2;
    void *val = NULL;
    EXPECT_RC(get(&val, NULL, &key1), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxSetCurrent(prim));
    EXPECT_RC(get(&val, NULL, &key1), CUDA_ERROR_INVALID_HANDLE);
    OK(put(NULL, &key1, (void *)0x1234, cls_dtor));
    OK(put(prim, &key2, (void *)0x5678, cls_dtor));
    OK(get(&val, NULL, &key1));
    EXPECT(val == (void *)0x1234);
    OK(get(&val, prim, &key2));
    EXPECT(val == (void *)0x5678);
    OK(del(NULL, &key2));
    EXPECT_RC(get(&val, NULL, &key2), CUDA_ERROR_INVALID_HANDLE);

    /* context checks */
    uint32_t out = 77;
    void *out2 = NULL;
    OK(((CUresult (*)(CUcontext, uint32_t *, void **))checks[2])(prim, &out, &out2));
    EXPECT(out == 0);
    OK(((CUresult (*)(void *, uint32_t, void *))checks[3])(&key1, 0x40, NULL));

    /* integrity: recompute the digest over the documented message */
    uint64_t secs = 1700000000ull, got[2] = { 0, 0 };
    OK(((CUresult (*)(uint32_t, uint64_t, uint64_t *))integ[1])(13002, secs, got));
    unsigned char msg[48 + 28];
    uint32_t w[4] = { 13000, 13002, (uint32_t)getpid(), (uint32_t)pthread_self() };
    uint64_t q[4] = { (uint64_t)(uintptr_t)rt, (uint64_t)(uintptr_t)integ,
                      (uint64_t)(uintptr_t)integ[1], secs };
    memcpy(msg, w, 16);
    memcpy(msg + 16, q, 32);
    CUuuid uuid;
    OK(cuDeviceGetUuid(&uuid, 0));
    int pci[3];
    OK(cuDeviceGetAttribute(&pci[0], CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0));
    OK(cuDeviceGetAttribute(&pci[1], CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0));
    OK(cuDeviceGetAttribute(&pci[2], CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0));
    memcpy(msg + 48, uuid.bytes, 16);
    memcpy(msg + 64, pci, 12);
    static const unsigned char key[16] = { 0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                           0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f };
    unsigned char want[16];
    ref_hmac_md2(key, msg, sizeof msg, want);
    EXPECT(!memcmp(got, want, 16));

    /* destructors run when the primary context is reset */
    dtor_calls = 0;
    OK(cuDevicePrimaryCtxReset(0));
    EXPECT(dtor_calls == 1);
    EXPECT_RC(get(&val, prim, &key1), CUDA_ERROR_INVALID_HANDLE);
    unsigned flags;
    int active = 1;
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    EXPECT(active == 0);
    OK(cuDevicePrimaryCtxRetain(&prim2, 0));
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    EXPECT(active == 1);
}

static void test_md2_reference(void)
{
    /* RFC 1319 test vectors, so the check above rests on a right MD2 */
    unsigned char d[16];
    ref_md2((const unsigned char *)"abc", 3, d);
    static const unsigned char abc[16] = { 0xda, 0x85, 0x3b, 0x0d, 0x3f, 0x88, 0xd9, 0x9b,
                                           0x30, 0x28, 0x3a, 0x69, 0xe6, 0xde, 0xd6, 0xbb };
    EXPECT(!memcmp(d, abc, 16));
    ref_md2((const unsigned char *)"", 0, d);
    static const unsigned char empty[16] = { 0x83, 0x50, 0xe5, 0xa3, 0xe2, 0x4c, 0x15, 0x3d,
                                             0xf2, 0x27, 0x5c, 0x9f, 0x80, 0x69, 0x27, 0x73 };
    EXPECT(!memcmp(d, empty, 16));
}

static void test_contexts(void)
{
    CUcontext prim, c = NULL, cur = NULL, popped = NULL;
    OK(cuDevicePrimaryCtxRetain(&prim, 0));
    OK(cuCtxSetCurrent(prim));
    OK(cuCtxCreate(&c, NULL, 0, 0));
    OK(cuCtxGetCurrent(&cur));
    EXPECT(cur == c && c != prim);
    CUdevice dev = -1;
    OK(cuCtxGetDevice(&dev));
    EXPECT(dev == 0);
    unsigned long long id1 = 0, id2 = 0;
    OK(cuCtxGetId(c, &id1));
    OK(cuCtxGetId(prim, &id2));
    EXPECT(id1 != id2);
    OK(cuCtxPopCurrent(&popped));
    EXPECT(popped == c);
    OK(cuCtxGetCurrent(&cur));
    EXPECT(cur == prim);
    OK(cuCtxPushCurrent(c));
    OK(cuCtxDestroy(c));
    OK(cuCtxGetCurrent(&cur));
    EXPECT(cur == prim);
    EXPECT_RC(cuCtxPushCurrent(c), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_RC(cuCtxDestroy(c), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_RC(cuCtxDestroy(prim), CUDA_ERROR_INVALID_CONTEXT);

    size_t lim = 0;
    OK(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64 << 20));
    OK(cuCtxGetLimit(&lim, CU_LIMIT_MALLOC_HEAP_SIZE));
    EXPECT(lim == 64 << 20);
    OK(cuCtxGetLimit(&lim, CU_LIMIT_STACK_SIZE));
    EXPECT(lim > 0);
    int least = 1, greatest = 1;
    OK(cuCtxGetStreamPriorityRange(&least, &greatest));
    EXPECT(least == 0 && greatest < 0);
    OK(cuCtxSynchronize());
    CUmoduleLoadingMode mode;
    OK(cuModuleGetLoadingMode(&mode));
    /* lazy unless CUDA_MODULE_LOADING=EAGER, as on NVIDIA's driver */
    EXPECT(mode == (getenv("CUDA_MODULE_LOADING") && !strcmp(getenv("CUDA_MODULE_LOADING"), "EAGER")
                        ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING));
}

static void test_memory(void)
{
    enum { N = 4096 };
    unsigned char h[N], back[N];
    for (int i = 0; i < N; i++)
        h[i] = (unsigned char)(i * 7 + 3);
    CUdeviceptr d = 0, d2 = 0;
    OK(cuMemAlloc(&d, N));
    OK(cuMemAlloc(&d2, N));
    EXPECT(d != 0 && d2 != 0);
    OK(cuMemcpyHtoD(d, h, N));
    OK(cuMemcpyDtoD(d2, d, N));
    memset(back, 0, N);
    OK(cuMemcpyDtoH(back, d2, N));
    EXPECT(!memcmp(h, back, N));
    /* bounds: a copy that runs past the allocation is refused */
    EXPECT_RC(cuMemcpyDtoH(back, d + 1, N), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyHtoD(d + N, h, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyHtoD(0, h, 1), CUDA_ERROR_INVALID_VALUE);

    CUdeviceptr base = 0;
    size_t size = 0;
    OK(cuMemGetAddressRange(&base, &size, d + 100));
    EXPECT(base == d && size >= N);

    /* sets */
    OK(cuMemsetD8(d, 0xab, N));
    OK(cuMemcpyDtoH(back, d, N));
    EXPECT(back[0] == 0xab && back[N - 1] == 0xab);
    OK(cuMemsetD16(d, 0x1234, N / 2));
    uint16_t s16[2];
    OK(cuMemcpyDtoH(s16, d + N - 4, 4));
    EXPECT(s16[0] == 0x1234 && s16[1] == 0x1234);
    OK(cuMemsetD32(d, 0xdeadbeef, N / 4));
    uint32_t s32;
    OK(cuMemcpyDtoH(&s32, d + 8, 4));
    EXPECT(s32 == 0xdeadbeef);
    EXPECT_RC(cuMemsetD32(d + 1, 0, 1), CUDA_ERROR_INVALID_VALUE);

    /* pitched 2D copy and set against a host reference */
    CUdeviceptr p2 = 0;
    size_t pitch = 0;
    OK(cuMemAllocPitch(&p2, &pitch, 100, 8, 4));
    EXPECT(pitch >= 100);
    OK(cuMemsetD2D8(p2, pitch, 0, 100, 8));
    unsigned char src[8][100], dst2[8][100];
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 100; x++)
            src[y][x] = (unsigned char)(y * 100 + x);
    CUDA_MEMCPY2D c2 = { 0 };
    c2.srcMemoryType = CU_MEMORYTYPE_HOST;
    c2.srcHost = src;
    c2.srcPitch = 100;
    c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c2.dstDevice = p2;
    c2.dstPitch = pitch;
    c2.dstXInBytes = 10;
    c2.WidthInBytes = 50;
    c2.Height = 6;
    OK(cuMemcpy2D(&c2));
    CUDA_MEMCPY2D b2 = { 0 };
    b2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    b2.srcDevice = p2;
    b2.srcPitch = pitch;
    b2.dstMemoryType = CU_MEMORYTYPE_HOST;
    b2.dstHost = dst2;
    b2.dstPitch = 100;
    b2.WidthInBytes = 100;
    b2.Height = 8;
    OK(cuMemcpy2D(&b2));
    int bad = 0;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 100; x++) {
            unsigned char want = y < 6 && x >= 10 && x < 60 ? src[y][x - 10] : 0;
            bad += dst2[y][x] != want;
        }
    EXPECT(bad == 0);
    c2.Height = 9;  /* past the end of the allocation */
    EXPECT_RC(cuMemcpy2D(&c2), CUDA_ERROR_INVALID_VALUE);

    /* 3D: a 4x3x2 box of bytes into device memory and back */
    unsigned char box[2][3][4], boxb[2][3][4];
    for (int i = 0; i < 24; i++)
        ((unsigned char *)box)[i] = (unsigned char)(i + 1);
    CUDA_MEMCPY3D c3 = { 0 };
    c3.srcMemoryType = CU_MEMORYTYPE_HOST;
    c3.srcHost = box;
    c3.srcPitch = 4;
    c3.srcHeight = 3;
    c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c3.dstDevice = d;
    c3.dstPitch = 4;
    c3.dstHeight = 3;
    c3.WidthInBytes = 4;
    c3.Height = 3;
    c3.Depth = 2;
    OK(cuMemcpy3D(&c3));
    OK(cuMemcpyDtoH(boxb, d, 24));
    EXPECT(!memcmp(box, boxb, 24));

    /* pointer attributes */
    CUmemorytype mt = 0;
    OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 3));
    EXPECT(mt == CU_MEMORYTYPE_DEVICE);
    CUdeviceptr start = 0;
    OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 3));
    EXPECT(start == d);
    int local;
    EXPECT_RC(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    (CUdeviceptr)(uintptr_t)&local), CUDA_ERROR_INVALID_VALUE);
    void *hp = NULL;
    OK(cuMemHostAlloc(&hp, 1000, CU_MEMHOSTALLOC_DEVICEMAP));
    unsigned hflags = 0;
    OK(cuMemHostGetFlags(&hflags, hp));
    EXPECT(hflags == CU_MEMHOSTALLOC_DEVICEMAP);
    CUdeviceptr hd = 0;
    OK(cuMemHostGetDevicePointer(&hd, hp, 0));
    EXPECT(hd == (CUdeviceptr)(uintptr_t)hp);
    OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, hd));
    EXPECT(mt == CU_MEMORYTYPE_HOST);
    CUdeviceptr m = 0;
    OK(cuMemAllocManaged(&m, 256, CU_MEM_ATTACH_GLOBAL));
    CUpointer_attribute attrs[3] = { CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                     CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                     CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
    int is_managed = -1, ordinal = -1;
    unsigned mtype = 0;
    void *data[3] = { &is_managed, &mtype, &ordinal };
    OK(cuPointerGetAttributes(3, attrs, data, m));
    EXPECT(is_managed == 1 && mtype == CU_MEMORYTYPE_DEVICE && ordinal == 0);
    is_managed = -1;
    OK(cuPointerGetAttributes(3, attrs, data, (CUdeviceptr)(uintptr_t)&local));
    EXPECT(is_managed == 0 && mtype == 0);

    /* registered host memory becomes addressable */
    static char reg[8192];
    OK(cuMemHostRegister(reg, sizeof reg, 0));
    EXPECT_RC(cuMemHostRegister(reg, sizeof reg, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    OK(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)reg, h, 100));
    EXPECT(!memcmp(reg, h, 100));
    OK(cuMemHostUnregister(reg));
    EXPECT_RC(cuMemHostUnregister(reg), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);

    size_t fr = 0, tot = 0;
    OK(cuMemGetInfo(&fr, &tot));
    EXPECT(tot > 0 && fr <= tot);

    OK(cuMemFreeHost(hp));
    OK(cuMemFree(m));
    OK(cuMemFree(p2));
    OK(cuMemFree(d2));
    OK(cuMemFree(d));
    EXPECT_RC(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
}

static int cb_calls;
static void host_cb(void *p) { cb_calls += *(int *)p; }
static void stream_cb(CUstream s, CUresult st, void *p) { cb_calls += st == CUDA_SUCCESS; }

static void test_streams_events(void)
{
    CUstream s = NULL;
    CUevent e0 = NULL, e1 = NULL, nt = NULL;
    OK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -1));
    unsigned flags = 0;
    int prio = 0;
    OK(cuStreamGetFlags(s, &flags));
    EXPECT(flags == CU_STREAM_NON_BLOCKING);
    OK(cuStreamGetPriority(s, &prio));
    EXPECT(prio == -1);
    CUcontext sc = NULL, cur = NULL;
    OK(cuStreamGetCtx(s, &sc));
    OK(cuCtxGetCurrent(&cur));
    EXPECT(sc == cur);
    CUstreamAttrValue av;
    memset(&av, 0, sizeof av);
    av.priority = -3;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av));
    av.priority = 0;
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av));
    EXPECT(av.priority == -3);
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &(CUstreamAttrValue){ .priority = -1 }));
    unsigned long long sid = 0;
    OK(cuStreamGetId(s, &sid));
    EXPECT(sid > 2);
    OK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    OK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
    OK(cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING));
    float ms = -1;
    EXPECT_RC(cuEventElapsedTime(&ms, e0, e1), CUDA_ERROR_INVALID_HANDLE);  /* not recorded */
    OK(cuEventRecord(e0, s));
    usleep(20000);
    int one = 1;
    OK(cuLaunchHostFunc(s, host_cb, &one));
    OK(cuStreamAddCallback(s, stream_cb, NULL, 0));
    OK(cuEventRecord(e1, s));
    OK(cuEventRecord(nt, NULL));
    OK(cuStreamWaitEvent(NULL, e1, 0));
    OK(cuEventSynchronize(e1));
    OK(cuEventQuery(e1));
    OK(cuStreamQuery(s));
    OK(cuStreamSynchronize(s));
    EXPECT(cb_calls == 2);  /* host work runs on the stream, done by now */
    OK(cuEventElapsedTime(&ms, e0, e1));
    EXPECT(ms >= 15.0f && ms < 5000.0f);
    EXPECT_RC(cuEventElapsedTime(&ms, e0, nt), CUDA_ERROR_INVALID_HANDLE);
    OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    OK(cuStreamSynchronize(CU_STREAM_LEGACY));
    /* a pointer that is no stream of ours */
    static uint64_t fake[8] = { 0x1234 };
    EXPECT_RC(cuStreamSynchronize((CUstream)fake), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuEventQuery((CUevent)fake), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuLaunchKernel((CUfunction)fake, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
              CUDA_ERROR_INVALID_HANDLE);
    OK(cuEventDestroy(e0));
    OK(cuEventDestroy(e1));
    OK(cuEventDestroy(nt));
    OK(cuStreamDestroy(s));
    /* destroyed handles are invalid (and safe to pass) */
    EXPECT_RC(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuEventQuery(e0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuEventDestroy(e1), CUDA_ERROR_INVALID_HANDLE);
}

static void test_bad_modules(void)
{
    CUmodule mod = NULL;
    /* a cubin: no PTX to run */
    static const unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    EXPECT_RC(cuModuleLoadData(&mod, elf), CUDA_ERROR_NO_BINARY_FOR_GPU);
    /* PTX that does not parse */
    const char *bad = ".version 8.0\n.target sm_75\n.address_size 64\n"
                      ".visible .entry k() { this is not ptx; }\n";
    char log[512] = "";
    CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[2] = { log, (void *)(uintptr_t)sizeof log };
    EXPECT_RC(cuModuleLoadDataEx(&mod, bad, 2, opts, vals), CUDA_ERROR_INVALID_PTX);
    EXPECT(log[0] != 0);
    EXPECT_RC(cuModuleUnload((CUmodule)elf), CUDA_ERROR_INVALID_HANDLE);
}

int main(void)
{
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
        lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        printf("FAIL: dlopen(libcuda.so.1): %s\n", dlerror());
        return 1;
    }
    EXPECT(dlsym(lib, "cuGetProcAddress_v2") == (void *)cuGetProcAddress);
    /* nothing but CUDA names is exported */
    EXPECT(dlsym(lib, "zn_log") == NULL && dlsym(lib, "zn_mem_alloc") == NULL);

    int v = 0, n = 0;
    OK(cuDriverGetVersion(&v));
    EXPECT(v == 13000);
    EXPECT_RC(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    CUdeviceptr d;
    EXPECT_RC(cuMemAlloc(&d, 16), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_RC(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    OK(cuInit(0));
    EXPECT_RC(cuMemAlloc(&d, 16), CUDA_ERROR_INVALID_CONTEXT);   /* none current */

    test_md2_reference();
    test_proc_address();
    test_errors();
    test_device();
    test_export_tables();
    test_host_pool_table();
    test_contexts();
    test_memory();
    test_streams_events();
    test_bad_modules();

    return drv_test_end("test_drv_host");
}
