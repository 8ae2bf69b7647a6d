/* test_drv_ipc.c: interprocess memory and events, VMM allocations shared
 * as file descriptors, external memory.
 *
 * The parent fills buffer A with a kernel (a[i] = i*3 + 7), exports A, B
 * (poisoned) and C (freed before the child starts: a stale handle), an
 * interprocess event, a pointer of a shareable memory pool, and the fds of
 * a VMM allocation and of that pool (sent over a socketpair with
 * SCM_RIGHTS). It queues a slow host function, a kernel writing B and
 * a record of the event, then re-executes itself (posix_spawn of
 * /proc/self/exe: CUDA forbids forking an initialised driver) with the
 * handles in hex. The child checks A, waits for the event through a stream
 * and then on the host, checks B, writes A and the VMM memory with its own
 * kernel, checks the stale and foreign handles, and exits; the parent then
 * sees the child's writes. Errors are checked on both sides. Every buffer
 * is compared with values computed here on the CPU.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "drv_test.h"

extern char **environ;

#define N 100000            /* ints per buffer: several pages */
#define CHILD_FD 3          /* the child's end of the socketpair */

static CUfunction load_fill(CUmodule *mod)
{
    CUfunction f = NULL;
    OK(cuModuleLoadData(mod, drv_fill_ptx));
    OK(cuModuleGetFunction(&f, *mod, "fill"));
    return f;
}

static void launch_fill(CUfunction f, CUstream s, CUdeviceptr out, unsigned n, unsigned v)
{
    void *args[] = { &out, &n, &v };
    OK(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
}

/* Number of i < n with buf[i] != i*3 + v. */
static unsigned bad_fill(const uint32_t *buf, unsigned n, unsigned v)
{
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++)
        bad += buf[i] != i * 3u + v;
    return bad;
}

static void to_hex(char *out, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static int from_hex(void *p, size_t n, const char *s)
{
    if (strlen(s) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        ((unsigned char *)p)[i] = (unsigned char)v;
    }
    return 0;
}

static void slow_host(void *arg)
{
    (void)arg;
    nanosleep(&(struct timespec){0, 400 * 1000 * 1000}, NULL);
}

/* ---- the child: argv = exe child A B C EVENT POOLPTR ---- */
static int child(char **argv)
{
    CUipcMemHandle ha, hb, hc;
    CUipcEventHandle he;
    EXPECT(from_hex(&ha, sizeof ha, argv[2]) == 0);
    EXPECT(from_hex(&hb, sizeof hb, argv[3]) == 0);
    EXPECT(from_hex(&hc, sizeof hc, argv[4]) == 0);
    EXPECT(from_hex(&he, sizeof he, argv[5]) == 0);
    CUmemPoolPtrExportData pd;
    EXPECT(from_hex(&pd, sizeof pd, argv[6]) == 0);
    drv_test_primary_ctx(NULL);
    CUmodule mod;
    CUfunction fill = load_fill(&mod);
    uint32_t *host = malloc(N * sizeof *host);

    /* the parent's event: a stream waits on it, then the host */
    CUevent ev = NULL;
    OK(cuIpcOpenEventHandle(&ev, he));
    CUresult q = cuEventQuery(ev);
    printf("child: event before the wait: %s\n", q == CUDA_SUCCESS ? "done" : "pending");
    CUdeviceptr a = 0, a2 = 0, b = 0, c = 0;
    OK(cuIpcOpenMemHandle(&b, hb, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    memset(host, 0xab, N * sizeof *host);
    OK(cuStreamWaitEvent(s, ev, 0));
    OK(cuMemcpyDtoHAsync(host, b, N * sizeof *host, s));
    OK(cuStreamSynchronize(s));
    EXPECT(bad_fill(host, N, 1000) == 0);   /* written by the parent before its record */
    OK(cuEventSynchronize(ev));
    OK(cuEventQuery(ev));
    float ms;
    EXPECT_RC(cuEventElapsedTime(&ms, ev, ev), CUDA_ERROR_INVALID_HANDLE);

    /* A: the parent's kernel wrote it; opening twice is one mapping */
    OK(cuIpcOpenMemHandle(&a, ha, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    OK(cuIpcOpenMemHandle(&a2, ha, 0));
    EXPECT(a != 0 && a == a2);
    memset(host, 0xab, N * sizeof *host);
    OK(cuMemcpyDtoH(host, a, N * sizeof *host));
    EXPECT(bad_fill(host, N, 7) == 0);
    CUdeviceptr base = 0;
    size_t size = 0;
    OK(cuMemGetAddressRange(&base, &size, a + 4));
    EXPECT(base == a && size >= N * sizeof *host);
    CUmemorytype mt = 0;
    OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
    EXPECT(mt == CU_MEMORYTYPE_DEVICE);
    /* not VMM memory of ours */
    CUmemGenericAllocationHandle rh;
    EXPECT_RC(cuMemRetainAllocationHandle(&rh, (void *)(uintptr_t)a), CUDA_ERROR_INVALID_VALUE);
    launch_fill(fill, NULL, a, N, 5000);
    OK(cuCtxSynchronize());
    OK(cuIpcCloseMemHandle(a2));
    OK(cuIpcCloseMemHandle(a));
    EXPECT_RC(cuIpcCloseMemHandle(a), CUDA_ERROR_INVALID_VALUE);

    /* B again, then a record of the parent's event here: the parent waits
     * for it */
    launch_fill(fill, s, b, N, 2000);
    OK(cuEventRecord(ev, s));
    OK(cuStreamSynchronize(s));
    OK(cuIpcCloseMemHandle(b));

    /* C was freed before we started; a handle of a process that is gone */
    EXPECT_RC(cuIpcOpenMemHandle(&c, hc, 0), CUDA_ERROR_INVALID_HANDLE);
    CUipcMemHandle gone = ha;
    int32_t nopid = 0x3ffffff0;
    memcpy(gone.reserved + 8, &nopid, sizeof nopid);    /* the wire form's pid */
    EXPECT_RC(cuIpcOpenMemHandle(&c, gone, 0), CUDA_ERROR_INVALID_HANDLE);
    CUipcEventHandle egone = he;
    memcpy(egone.reserved + 8, &nopid, sizeof nopid);
    CUevent ev2;
    EXPECT_RC(cuIpcOpenEventHandle(&ev2, egone), CUDA_ERROR_INVALID_HANDLE);

    /* the VMM allocation's fd and the pool's, over the socket */
    char cbuf[CMSG_SPACE(2 * sizeof(int))];
    char byte;
    struct iovec iov = { &byte, 1 };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                          .msg_controllen = sizeof cbuf };
    int fds[2] = { -1, -1 };
    if (recvmsg(CHILD_FD, &msg, 0) == 1 && CMSG_FIRSTHDR(&msg))
        memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof fds);
    int fd = fds[0];
    EXPECT(fd >= 0 && fds[1] >= 0);
    CUmemGenericAllocationHandle vh = 0;
    OK(cuMemImportFromShareableHandle(&vh, (void *)(intptr_t)fd,
                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(fd);
    CUmemAllocationProp got;
    OK(cuMemGetAllocationPropertiesFromHandle(&got, vh));
    EXPECT(got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    size_t gran = 0;
    OK(cuMemGetAllocationGranularity(&gran, &got, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUdeviceptr va = 0;
    OK(cuMemAddressReserve(&va, gran, 0, 0, 0));
    OK(cuMemMap(va, gran, 0, vh, 0));
    CUmemAccessDesc ad = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemSetAccess(va, gran, &ad, 1));
    memset(host, 0xab, N * sizeof *host);
    OK(cuMemcpyDtoH(host, va, N * sizeof *host));
    EXPECT(bad_fill(host, N, 11) == 0);
    launch_fill(fill, NULL, va, N, 3000);
    OK(cuCtxSynchronize());
    OK(cuMemUnmap(va, gran));
    OK(cuMemRelease(vh));
    OK(cuMemAddressFree(va, gran));

    /* the pool: import it and the pointer, check, write, free */
    CUmemoryPool pool = NULL;
    OK(cuMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fds[1],
                                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    close(fds[1]);
    CUdeviceptr pp = 0, pq = 0;
    EXPECT_RC(cuMemAllocFromPoolAsync(&pq, 4096, pool, s), CUDA_ERROR_INVALID_VALUE);
    CUmemPoolPtrExportData bad = pd;
    bad.reserved[20] ^= 1;              /* the pool tag */
    EXPECT_RC(cuMemPoolImportPointer(&pp, pool, &bad), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolImportPointer(&pp, pool, &pd));
    memset(host, 0xab, N * sizeof *host);
    OK(cuMemcpyDtoH(host, pp, N * sizeof *host));
    EXPECT(bad_fill(host, N, 21) == 0);
    launch_fill(fill, s, pp, N, 22);
    OK(cuMemFreeAsync(pp, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemPoolDestroy(pool));

    byte = 'd';
    EXPECT(write(CHILD_FD, &byte, 1) == 1);

    OK(cuEventDestroy(ev));
    OK(cuStreamDestroy(s));
    OK(cuModuleUnload(mod));
    free(host);
    return drv_test_end("drv_ipc child");
}

/* ---- the parent ---- */

/* Errors that need no second process. */
static void misuse(CUdeviceptr a, const CUipcMemHandle *ha)
{
    CUipcMemHandle h;
    CUdeviceptr p = 0;
    EXPECT_RC(cuIpcOpenMemHandle(&p, *ha, 0), CUDA_ERROR_INVALID_VALUE);  /* our own */
    EXPECT_RC(cuIpcOpenMemHandle(&p, *ha, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuIpcOpenMemHandle(NULL, *ha, 0), CUDA_ERROR_INVALID_VALUE);
    memset(&h, 0, sizeof h);
    EXPECT_RC(cuIpcOpenMemHandle(&p, h, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuIpcGetMemHandle(NULL, a), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuIpcGetMemHandle(&h, 0), CUDA_ERROR_INVALID_VALUE);
    int local = 0;
    EXPECT_RC(cuIpcGetMemHandle(&h, (CUdeviceptr)(uintptr_t)&local), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr m;
    OK(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
    EXPECT_RC(cuIpcGetMemHandle(&h, m), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(m));
    void *hp;
    OK(cuMemAllocHost(&hp, 4096));
    EXPECT_RC(cuIpcGetMemHandle(&h, (CUdeviceptr)(uintptr_t)hp), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFreeHost(hp));
    EXPECT_RC(cuIpcCloseMemHandle(a), CUDA_ERROR_INVALID_VALUE);

    CUevent e;
    CUipcEventHandle eh;
    EXPECT_RC(cuEventCreate(&e, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    OK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    EXPECT_RC(cuIpcGetEventHandle(&eh, e), CUDA_ERROR_INVALID_HANDLE);   /* not interprocess */
    OK(cuEventDestroy(e));
    EXPECT_RC(cuIpcGetEventHandle(&eh, e), CUDA_ERROR_INVALID_HANDLE);
    OK(cuEventCreate(&e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    OK(cuIpcGetEventHandle(&eh, e));
    CUevent e2;
    EXPECT_RC(cuIpcOpenEventHandle(&e2, eh), CUDA_ERROR_INVALID_CONTEXT);
    memset(&eh, 0, sizeof eh);
    EXPECT_RC(cuIpcOpenEventHandle(&e2, eh), CUDA_ERROR_MAP_FAILED);
    OK(cuEventQuery(e));                /* never recorded: done */
    OK(cuEventRecord(e, NULL));
    OK(cuEventSynchronize(e));
    OK(cuEventQuery(e));
    /* an event record node goes through the shared state when the graph
     * runs: pending behind the slow host node, then done */
    CUstream cs;
    CUgraph g;
    CUgraphExec x;
    CUgraphNode hn, rn;
    OK(cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING));
    OK(cuGraphCreate(&g, 0));
    CUDA_HOST_NODE_PARAMS hnp = { slow_host, NULL };
    OK(cuGraphAddHostNode(&hn, g, NULL, 0, &hnp));
    OK(cuGraphAddEventRecordNode(&rn, g, &hn, 1, e));
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, cs));
    EXPECT_RC(cuEventQuery(e), CUDA_ERROR_NOT_READY);
    OK(cuEventSynchronize(e));
    OK(cuEventQuery(e));
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuStreamDestroy(cs));
    OK(cuEventDestroy(e));
}

/* cuImportExternalMemory of a memfd: the buffer sees the file's bytes and
 * the file sees a kernel's writes. */
static void external_memory(CUfunction fill)
{
    size_t bytes = N * sizeof(uint32_t) + 8192;
    int fd = memfd_create("drv_ipc_ext", MFD_CLOEXEC);
    EXPECT(fd >= 0 && ftruncate(fd, (off_t)bytes) == 0);
    uint32_t *file = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    EXPECT(file != MAP_FAILED);
    if (fd < 0 || file == MAP_FAILED)
        return;
    uint32_t *data = file + 1028;       /* at byte offset 4112: not page aligned */
    for (unsigned i = 0; i < N; i++)
        data[i] = i * 3u + 40;
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d;
    memset(&d, 0, sizeof d);
    d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32;
    d.size = bytes;
    CUexternalMemory em = NULL;
    EXPECT_RC(cuImportExternalMemory(&em, &d), CUDA_ERROR_INVALID_VALUE);  /* Win32 on Linux */
    d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    d.handle.fd = fd;
    d.size = bytes * 4;                 /* more than the file holds */
    EXPECT_RC(cuImportExternalMemory(&em, &d), CUDA_ERROR_INVALID_VALUE);
    d.size = bytes;
    OK(cuImportExternalMemory(&em, &d));    /* the fd is the driver's now */
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd;
    memset(&bd, 0, sizeof bd);
    bd.offset = 1028 * sizeof(uint32_t);
    bd.size = bytes;                    /* runs past the end */
    CUdeviceptr p = 0;
    EXPECT_RC(cuExternalMemoryGetMappedBuffer(&p, em, &bd), CUDA_ERROR_INVALID_VALUE);
    bd.size = N * sizeof(uint32_t);
    OK(cuExternalMemoryGetMappedBuffer(&p, em, &bd));
    uint32_t *host = malloc(N * sizeof *host);
    memset(host, 0xab, N * sizeof *host);
    OK(cuMemcpyDtoH(host, p, N * sizeof *host));
    EXPECT(bad_fill(host, N, 40) == 0);
    launch_fill(fill, NULL, p, N, 41);
    OK(cuCtxSynchronize());
    EXPECT(bad_fill(data, N, 41) == 0);
    OK(cuDestroyExternalMemory(em));
    EXPECT_RC(cuDestroyExternalMemory(em), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuExternalMemoryGetMappedBuffer(&p, em, &bd), CUDA_ERROR_INVALID_HANDLE);
    /* the buffer outlives the object until cuMemFree */
    launch_fill(fill, NULL, p, N, 42);
    OK(cuCtxSynchronize());
    EXPECT(bad_fill(data, N, 42) == 0);
    OK(cuMemFree(p));
    munmap(file, bytes);
    free(host);
}

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "child") == 0)
        return child(argv);

    drv_test_primary_ctx(NULL);
    CUmodule mod;
    CUfunction fill = load_fill(&mod);
    uint32_t *host = malloc(N * sizeof *host);
    size_t bytes = N * sizeof *host;
    CUdeviceptr a, b, c;
    OK(cuMemAlloc(&a, bytes));
    OK(cuMemAlloc(&b, bytes));
    OK(cuMemAlloc(&c, 4096));
    launch_fill(fill, NULL, a, N, 7);
    OK(cuMemsetD32(b, 0xdeadbeef, N));
    CUipcMemHandle ha, ha2, hb, hc;
    OK(cuIpcGetMemHandle(&ha, a));
    OK(cuIpcGetMemHandle(&ha2, a + 4096));  /* the handle names the allocation */
    EXPECT(memcmp(&ha, &ha2, sizeof ha) == 0);
    OK(cuIpcGetMemHandle(&hb, b));
    OK(cuIpcGetMemHandle(&hc, c));
    OK(cuMemFree(c));                       /* stale before the child starts */
    /* sharing kept the contents and the pointer */
    memset(host, 0xab, bytes);
    OK(cuMemcpyDtoH(host, a, bytes));
    EXPECT(bad_fill(host, N, 7) == 0);
    misuse(a, &ha);
    external_memory(fill);

    /* a VMM allocation exported as a file descriptor, filled with 11 */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    size_t gran = 0;
    OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUmemGenericAllocationHandle vh, vplain;
    int vfd = -1;
    OK(cuMemCreate(&vplain, gran, &prop, 0));
    EXPECT_RC(cuMemExportToShareableHandle(&vfd, vplain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                           0), CUDA_ERROR_INVALID_VALUE);   /* not requested */
    OK(cuMemRelease(vplain));
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    OK(cuMemCreate(&vh, gran, &prop, 0));
    EXPECT_RC(cuMemExportToShareableHandle(&vfd, vh, CU_MEM_HANDLE_TYPE_FABRIC, 0),
              CUDA_ERROR_INVALID_VALUE);  /* not requested at cuMemCreate */
    OK(cuMemExportToShareableHandle(&vfd, vh, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CUdeviceptr va = 0;
    OK(cuMemAddressReserve(&va, gran, 0, 0, 0));
    OK(cuMemMap(va, gran, 0, vh, 0));
    CUmemAccessDesc ad = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemSetAccess(va, gran, &ad, 1));
    launch_fill(fill, NULL, va, N, 11);
    OK(cuCtxSynchronize());
    bool capable = false;
    OK(cuPointerGetAttribute(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, a));
    EXPECT(capable);
    OK(cuPointerGetAttribute(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, va));
    EXPECT(!capable);
    int attr = 0;
    OK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 0));
    EXPECT(attr == 1);
    OK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0));
    EXPECT(attr & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    OK(cuDeviceGetAttribute(&attr,
                            CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0));
    EXPECT(attr == 1);

    /* a shareable pool, one allocation filled with 21 */
    CUmemPoolProps pprops;
    memset(&pprops, 0, sizeof pprops);
    pprops.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    pprops.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUmemoryPool plain, pool;
    OK(cuMemPoolCreate(&plain, &pprops));
    pprops.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    OK(cuMemPoolCreate(&pool, &pprops));
    int pfd = -1;
    EXPECT_RC(cuMemPoolExportToShareableHandle(&pfd, plain,
                                               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
              CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolExportToShareableHandle(&pfd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    /* the process's own pool imports (as on an H200); its pointers from
     * that import are NOT_SUPPORTED (not modelled), the pool destroys */
    CUmemoryPool self_pool = NULL;
    OK(cuMemPoolImportFromShareableHandle(&self_pool, (void *)(intptr_t)pfd,
                                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    EXPECT(self_pool != NULL && self_pool != pool);
    CUdeviceptr pp = 0, pplain = 0, pself = 0;
    OK(cuMemAllocFromPoolAsync(&pp, bytes, pool, NULL));
    OK(cuMemAllocFromPoolAsync(&pplain, 4096, plain, NULL));
    launch_fill(fill, NULL, pp, N, 21);
    CUmemPoolPtrExportData pd;
    EXPECT_RC(cuMemPoolExportPointer(&pd, pplain), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemPoolExportPointer(&pd, a), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolExportPointer(&pd, pp));
    if (self_pool) {
        EXPECT_RC(cuMemPoolImportPointer(&pself, self_pool, &pd), CUDA_ERROR_NOT_SUPPORTED);
        OK(cuMemPoolDestroy(self_pool));
    }

    /* the event, recorded behind a slow host function and a kernel on B */
    CUevent ev;
    CUipcEventHandle he;
    OK(cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    OK(cuIpcGetEventHandle(&he, ev));
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuLaunchHostFunc(s, slow_host, NULL));
    launch_fill(fill, s, b, N, 1000);
    OK(cuEventRecord(ev, s));

    int sv[2];
    EXPECT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    char xa[129], xb[129], xc[129], xe[129], xp[129];
    to_hex(xp, &pd, sizeof pd);
    to_hex(xa, &ha, sizeof ha);
    to_hex(xb, &hb, sizeof hb);
    to_hex(xc, &hc, sizeof hc);
    to_hex(xe, &he, sizeof he);
    char *cargv[] = { "/proc/self/exe", "child", xa, xb, xc, xe, xp, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], CHILD_FD);    /* dup2 clears CLOEXEC */
    pid_t pid = -1;
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    EXPECT(sl > 0);
    self[sl > 0 ? sl : 0] = '\0';
    EXPECT(posix_spawn(&pid, self, &fa, NULL, cargv, environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);

    /* hand over the VMM and pool fds (SCM_RIGHTS) */
    char cbuf[CMSG_SPACE(2 * sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    char byte = 'f';
    struct iovec iov = { &byte, 1 };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                          .msg_controllen = sizeof cbuf };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int fds[2] = { vfd, pfd };
    memcpy(CMSG_DATA(cm), fds, sizeof fds);
    EXPECT(sendmsg(sv[0], &msg, 0) == 1);
    close(vfd);
    close(pfd);
    /* the child is done with the VMM memory when it writes a byte back */
    EXPECT(read(sv[0], &byte, 1) == 1 && byte == 'd');
    memset(host, 0xab, bytes);
    OK(cuMemcpyDtoH(host, va, bytes));
    EXPECT(bad_fill(host, N, 3000) == 0);

    int status = -1;
    EXPECT(waitpid(pid, &status, 0) == pid);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(sv[0]);

    /* the child's writes: the pool allocation, A by its kernel, B after its
     * record of our event */
    memset(host, 0xab, bytes);
    OK(cuMemcpyDtoH(host, pp, bytes));
    EXPECT(bad_fill(host, N, 22) == 0);
    OK(cuMemFreeAsync(pp, NULL));
    OK(cuMemFreeAsync(pplain, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemPoolDestroy(pool));
    OK(cuMemPoolDestroy(plain));
    OK(cuEventSynchronize(ev));
    OK(cuEventQuery(ev));
    memset(host, 0xab, bytes);
    OK(cuMemcpyDtoH(host, a, bytes));
    EXPECT(bad_fill(host, N, 5000) == 0);
    OK(cuMemcpyDtoH(host, b, bytes));
    EXPECT(bad_fill(host, N, 2000) == 0);

    OK(cuMemUnmap(va, gran));
    OK(cuMemRelease(vh));
    OK(cuMemAddressFree(va, gran));
    OK(cuEventDestroy(ev));
    OK(cuStreamDestroy(s));
    OK(cuMemFree(a));       /* exported memory frees as any other */
    OK(cuMemFree(b));
    OK(cuModuleUnload(mod));
    free(host);
    return drv_test_end("drv_ipc");
}
