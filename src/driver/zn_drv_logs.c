/* zn_drv_logs.c: the driver log API (cuLogs*, CUDA 12.9).
 *
 * Every driver call that fails (zn_drv_ret sees a result other than
 * success or CUDA_ERROR_NOT_READY, which polling returns all the time)
 * leaves one line, "cuX failed: CUDA_ERROR_Y (n)", in a ring of the last
 * 256 messages (at most 25600 bytes in all, as NVIDIA's buffer), and goes to
 * every registered callback at once (CU_LOG_LEVEL_ERROR). Zinc's own
 * errors and warnings (zn_log, whatever ZINC_LOG says) are kept in the ring
 * too, as "error: ..." / "warning: ..." lines (an unimplemented entry point
 * says so there). An iterator
 * is the sequence number of the next message; a dump from an iterator
 * older than the oldest kept message says how many were lost first.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NMSG = 256, MSG_MAX = 100, LOG_LEVEL_ERROR = 0, MAX_CALLBACKS = 64 };

typedef struct CUlogsCallbackEntry {
    CUlogsCallback fn;
    void *user;
} cb_entry;

static pthread_mutex_t logs_lock = PTHREAD_MUTEX_INITIALIZER;
static char ring[NMSG][MSG_MAX];    /* NUL-terminated, no newline */
static unsigned next_seq;           /* messages ever logged (wraps) */
static cb_entry *cbs[MAX_CALLBACKS];

/* Keeps msg in the ring (under logs_lock); its length. */
static size_t keep(const char *msg)
{
    size_t len = strnlen(msg, MSG_MAX - 1);
    memcpy(ring[next_seq % NMSG], msg, len);
    ring[next_seq % NMSG][len] = '\0';
    next_seq++;
    return len;
}

/* Zinc's own errors and warnings (zn_log: unimplemented entry points, PTX
 * errors with file:line:col, faults): kept, not sent to callbacks, since
 * the code logging them may hold locks a callback's driver call needs. */
static void from_zn_log(int level, const char *msg)
{
    char line[MSG_MAX];
    snprintf(line, sizeof line, "%s: %s", level == ZN_LOG_ERROR ? "error" : "warning", msg);
    pthread_mutex_lock(&logs_lock);
    keep(line);
    pthread_mutex_unlock(&logs_lock);
}

__attribute__((constructor)) static void logs_init(void)
{
    zn_log_set_sink(from_zn_log);
}

void zn_logs_note(const char *fn, CUresult r)
{
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY)
        return;
    char msg[MSG_MAX];
    snprintf(msg, sizeof msg, "%s failed: %s (%d)", fn, zn_drv_error_name(r), (int)r);
    cb_entry call[MAX_CALLBACKS];
    size_t ncall = 0;
    pthread_mutex_lock(&logs_lock);
    size_t len = keep(msg);
    for (size_t i = 0; i < MAX_CALLBACKS; i++)
        if (cbs[i])
            call[ncall++] = *cbs[i];
    pthread_mutex_unlock(&logs_lock);
    /* outside the lock: a callback may call the driver (and fail) */
    for (size_t i = 0; i < ncall; i++) {
        char copy[MSG_MAX];
        memcpy(copy, msg, len + 1);
        call[i].fn(call[i].user, LOG_LEVEL_ERROR, copy, len);
    }
}

CUresult cuLogsRegisterCallback(CUlogsCallback fn, void *user, cb_entry **out)
{
    if (!fn || !out)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    cb_entry *e = malloc(sizeof *e);
    if (!e)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    *e = (cb_entry){ fn, user };
    pthread_mutex_lock(&logs_lock);
    size_t i = 0;
    while (i < MAX_CALLBACKS && cbs[i])
        i++;
    if (i < MAX_CALLBACKS)
        cbs[i] = e;
    pthread_mutex_unlock(&logs_lock);
    if (i == MAX_CALLBACKS) {
        free(e);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *out = e;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuLogsUnregisterCallback(cb_entry *h)
{
    cb_entry *found = NULL;
    pthread_mutex_lock(&logs_lock);
    for (size_t i = 0; h && i < MAX_CALLBACKS && !found; i++) {
        if (cbs[i] == h) {
            found = h;
            cbs[i] = NULL;
        }
    }
    pthread_mutex_unlock(&logs_lock);
    free(found);
    ZN_RET(found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult cuLogsCurrent(unsigned *it, unsigned flags)
{
    if (!it || flags != 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&logs_lock);
    *it = next_seq;
    pthread_mutex_unlock(&logs_lock);
    ZN_RET(CUDA_SUCCESS);
}

/* The messages a dump from *it covers (under logs_lock): [first, next_seq),
 * and how many before first were lost. */
static unsigned dump_range(const unsigned *it, unsigned *lost)
{
    unsigned kept = next_seq < NMSG ? next_seq : NMSG;
    unsigned oldest = next_seq - kept;
    unsigned first = it ? *it : oldest;
    *lost = 0;
    if (first != next_seq && first - next_seq < 1u << 31)
        return next_seq;    /* an iterator ahead of the log: nothing yet */
    if (next_seq - first > kept) {  /* older than the ring (unsigned: wraps) */
        *lost = next_seq - first - kept;
        first = oldest;
    }
    return first;
}

CUresult cuLogsDumpToFile(unsigned *it, const char *path, unsigned flags)
{
    if (!path || flags != 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    FILE *f = fopen(path, "a");
    if (!f)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&logs_lock);
    unsigned lost, first = dump_range(it, &lost);
    if (lost)
        fprintf(f, "[zinc] %u log messages were overwritten\n", lost);
    for (unsigned s = first; s != next_seq; s++)
        fprintf(f, "%s\n", ring[s % NMSG]);
    if (it)
        *it = next_seq;
    pthread_mutex_unlock(&logs_lock);
    ZN_RET(fclose(f) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/* As many of the newest messages as fit, each ending in '\n', then a NUL;
 * when some do not fit, a line saying so comes first (if it fits too). */
CUresult cuLogsDumpToMemory(unsigned *it, char *buf, size_t *size, unsigned flags)
{
    if (!buf || !size || flags != 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    size_t cap = *size;
    pthread_mutex_lock(&logs_lock);
    unsigned lost, first = dump_range(it, &lost);
    /* newest first: how many whole messages fit (the NUL included) */
    size_t used = 1;
    unsigned start = next_seq;
    while (start != first && used + strlen(ring[(start - 1) % NMSG]) + 1 <= cap) {
        start--;
        used += strlen(ring[start % NMSG]) + 1;
    }
    lost += start - first;
    CUresult r = CUDA_SUCCESS;
    size_t n = 0;
    if (first == next_seq) {
        if (cap)
            buf[0] = '\0';
    } else if (start == next_seq) {
        r = CUDA_ERROR_INVALID_VALUE;   /* not even the newest message fits */
    } else {
        char head[64];
        int hn = snprintf(head, sizeof head, "[zinc] %u log messages did not fit\n", lost);
        if (lost && hn > 0 && used + (size_t)hn <= cap) {
            memcpy(buf, head, (size_t)hn);
            n = (size_t)hn;
        }
        for (unsigned s = start; s != next_seq; s++) {
            size_t l = strlen(ring[s % NMSG]);
            memcpy(buf + n, ring[s % NMSG], l);
            buf[n + l] = '\n';
            n += l + 1;
        }
        buf[n] = '\0';
        if (it)
            *it = next_seq;
    }
    pthread_mutex_unlock(&logs_lock);
    *size = n;
    ZN_RET(r);
}
