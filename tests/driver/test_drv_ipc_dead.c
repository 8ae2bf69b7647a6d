/* test_drv_ipc_dead.c: an interprocess event whose exporter dies with a
 * record pending.
 *
 * The test re-executes itself (posix_spawn of /proc/self/exe: CUDA forbids
 * forking an initialised driver) as the exporter, which creates an
 * interprocess event, records it behind a host function that never
 * returns, sends the handle over a socketpair and waits. The parent opens
 * the handle and checks that the event is pending (query, a stream
 * waiting on it) while the exporter lives; it then tells the exporter to
 * exit, reaps it, and cuEventSynchronize, cuEventQuery and the waiting
 * stream must all finish (Zinc treats the dead process's record as
 * complete; src/driver/README.md) within 60 s, else SIGALRM fails the
 * test instead of letting it hang. A record of the parent's own then
 * completes as usual.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drv_test.h"

extern char **environ;

#define CHILD_FD 3          /* the exporter's end of the socketpair */

static void block_forever(void *arg)
{
    (void)arg;
    for (;;)
        sleep(1);
}

static void set_flag(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL drv_ipc_dead: a wait on the dead exporter's event hung\n";
    ssize_t r = write(1, msg, sizeof msg - 1);
    (void)r;
    _exit(1);
}

static int read_all(int fd, void *p, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* The exporter: records its event behind a host function that never
 * returns, sends the handle, and exits when told to (its stream thread
 * still blocked: the record never completes). */
static int exporter(void)
{
    drv_test_primary_ctx(NULL);
    CUevent ev;
    CUstream s;
    CUipcEventHandle h;
    OK(cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuLaunchHostFunc(s, block_forever, NULL));
    OK(cuEventRecord(ev, s));
    OK(cuIpcGetEventHandle(&h, ev));
    if (drv_failures)
        memset(&h, 0, sizeof h);    /* the parent's open fails */
    EXPECT(write(CHILD_FD, &h, sizeof h) == (ssize_t)sizeof h);
    char byte;
    EXPECT(read(CHILD_FD, &byte, 1) == 1);
    fflush(stdout);
    _exit(drv_failures ? 1 : 0);    /* no clean-up: a crash, as far as the peer knows */
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "exporter") == 0)
        return exporter();
    drv_test_primary_ctx(NULL);
    int sv[2];
    EXPECT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    char *cargv[] = { "/proc/self/exe", "exporter", NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], CHILD_FD);    /* dup2 clears CLOEXEC */
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    EXPECT(sl > 0);
    self[sl > 0 ? sl : 0] = '\0';
    pid_t pid = -1;
    EXPECT(posix_spawn(&pid, self, &fa, NULL, cargv, environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);

    CUipcEventHandle h;
    EXPECT(read_all(sv[0], &h, sizeof h) == 0);
    CUevent e = NULL;
    OK(cuIpcOpenEventHandle(&e, h));
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    atomic_int after = 0;
    if (e) {
        /* the exporter lives and its record is pending */
        EXPECT_RC(cuEventQuery(e), CUDA_ERROR_NOT_READY);
        OK(cuStreamWaitEvent(s, e, 0));
        OK(cuLaunchHostFunc(s, set_flag, &after));
        usleep(100000);
        EXPECT(atomic_load(&after) == 0);
        EXPECT_RC(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
        EXPECT_RC(cuEventQuery(e), CUDA_ERROR_NOT_READY);
    }
    /* the exporter exits with its record pending */
    char byte = 'x';
    EXPECT(write(sv[0], &byte, 1) == 1);
    int status = -1;
    EXPECT(waitpid(pid, &status, 0) == pid);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(sv[0]);

    if (e) {
        signal(SIGALRM, on_alarm);
        alarm(60);
        OK(cuEventSynchronize(e));
        OK(cuEventQuery(e));
        OK(cuStreamSynchronize(s));
        EXPECT(atomic_load(&after) == 1);
        /* the importer's own record completes as any */
        OK(cuEventRecord(e, s));
        OK(cuEventSynchronize(e));
        OK(cuEventQuery(e));
        alarm(0);
        OK(cuEventDestroy(e));
    }
    OK(cuStreamDestroy(s));
    OK(cuDevicePrimaryCtxRelease(0));
    return drv_test_end("drv_ipc_dead");
}
