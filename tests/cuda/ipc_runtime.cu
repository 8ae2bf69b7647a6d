// ipc_runtime.cu: cudaIpcGetMemHandle / cudaIpcOpenMemHandle /
// cudaIpcCloseMemHandle and interprocess events through the runtime, in two
// processes (the way PyTorch's multiprocessing shares CUDA tensors).
//
// The parent writes data[i] = i*5 + 1 with a kernel, exports the buffer and
// an interprocess event, then re-executes itself (posix_spawn of
// /proc/self/exe: a CUDA process must not fork) with both handles in hex.
// Before the event is recorded the parent's stream sleeps in a host
// function and a kernel rewrites the buffer (i*5 + 2). The child makes its
// stream wait on the event, checks the buffer (i*5 + 2), adds 1000 to every
// element with its own kernel, closes the handle and exits; the parent then
// checks i*5 + 1002. Expected values are computed here on the CPU; the
// child's output buffer is poisoned first.
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zn_test.h"

extern char **environ;

#define N (1 << 18)

__global__ void fill(unsigned *out, unsigned n, unsigned v)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * 5u + v;
}

__global__ void add(unsigned *out, unsigned n, unsigned v)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += v;
}

static void to_hex(char *out, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static bool from_hex(void *p, size_t n, const char *s)
{
    if (strlen(s) != 2 * n)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return false;
        ((unsigned char *)p)[i] = (unsigned char)v;
    }
    return true;
}

static void check(const unsigned *h, unsigned v, const char *what)
{
    for (unsigned i = 0; i < N; i++)
        if (h[i] != i * 5u + v)
            zt_fail("%s[%u] = %u, want %u", what, i, h[i], i * 5u + v);
}

static void CUDART_CB slow(void *)
{
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static int child(const char *mem_hex, const char *ev_hex)
{
    zt_begin("ipc_runtime child");
    cudaIpcMemHandle_t mh;
    cudaIpcEventHandle_t eh;
    if (!from_hex(&mh, sizeof mh, mem_hex) || !from_hex(&eh, sizeof eh, ev_hex)) {
        zt_fail("bad handle arguments");
        return zt_finish();
    }
    cudaEvent_t ev;
    CK(cudaIpcOpenEventHandle(&ev, eh));
    unsigned *d = NULL;
    CK(cudaIpcOpenMemHandle((void **)&d, mh, cudaIpcMemLazyEnablePeerAccess));
    // the same process's handles are refused, as on NVIDIA's driver
    cudaIpcMemHandle_t own;
    unsigned *mine;
    CK(cudaMalloc(&mine, 4096));
    CK(cudaIpcGetMemHandle(&own, mine));
    void *p;
    if (cudaIpcOpenMemHandle(&p, own, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess)
        zt_fail("opening this process's own handle succeeded");
    (void)cudaGetLastError();
    CK(cudaFree(mine));

    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned *h;
    CK(cudaMallocHost(&h, N * sizeof *h));
    memset(h, 0xab, N * sizeof *h);
    CK(cudaStreamWaitEvent(s, ev, 0));
    CK(cudaMemcpyAsync(h, d, N * sizeof *h, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    check(h, 2, "child saw");
    add<<<(N + 255) / 256, 256, 0, s>>>(d, N, 1000);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    CK(cudaIpcCloseMemHandle(d));
    CK(cudaEventDestroy(ev));
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(h));
    return zt_finish();
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "child") == 0)
        return child(argv[2], argv[3]);
    zt_begin("ipc_runtime");
    unsigned *d, *h;
    CK(cudaMalloc(&d, N * sizeof *d));
    CK(cudaMallocHost(&h, N * sizeof *h));
    fill<<<(N + 255) / 256, 256>>>(d, N, 1);
    CK_LAUNCH();
    cudaIpcMemHandle_t mh;
    CK(cudaIpcGetMemHandle(&mh, d));
    memset(h, 0xab, N * sizeof *h);
    CK(cudaMemcpy(h, d, N * sizeof *h, cudaMemcpyDeviceToHost));
    check(h, 1, "after export");

    cudaEvent_t ev;
    if (cudaEventCreateWithFlags(&ev, cudaEventInterprocess) == cudaSuccess)
        zt_fail("an interprocess event with timing was created");
    (void)cudaGetLastError();
    CK(cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming));
    cudaIpcEventHandle_t eh;
    CK(cudaIpcGetEventHandle(&eh, ev));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaLaunchHostFunc(s, slow, NULL));
    fill<<<(N + 255) / 256, 256, 0, s>>>(d, N, 2);
    CK(cudaGetLastError());
    CK(cudaEventRecord(ev, s));

    char mx[2 * sizeof mh + 1], ex[2 * sizeof eh + 1];
    to_hex(mx, &mh, sizeof mh);
    to_hex(ex, &eh, sizeof eh);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        zt_fail("readlink /proc/self/exe");
        return zt_finish();
    }
    self[n] = '\0';
    char arg0[] = "ipc_runtime", arg1[] = "child";
    char *cargv[] = {arg0, arg1, mx, ex, NULL};
    pid_t pid;
    if (posix_spawn(&pid, self, NULL, NULL, cargv, environ) != 0) {
        zt_fail("posix_spawn");
        return zt_finish();
    }
    int status = -1;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        zt_fail("child exited with status %d", status);
    memset(h, 0xab, N * sizeof *h);
    CK(cudaMemcpy(h, d, N * sizeof *h, cudaMemcpyDeviceToHost));
    check(h, 1002, "after the child");
    CK(cudaEventDestroy(ev));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
    return zt_finish();
}
