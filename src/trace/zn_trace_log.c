/* zn_trace_log.c: the per-thread call stack and the lines of log.txt.
 *
 * A call's line is written when it returns (so it carries the result and
 * the out-parameters), but at the place in the thread's buffer where the
 * call began: calls made during it (export-table calls from the runtime,
 * host callbacks) come after it, indented one step deeper. The thread's
 * buffer goes to the shared log when its outermost call returns.
 *
 * Line: "<ms since start> T<thread> <indent><name>(<args>) = <result> (<us> us)".
 */
#include "zn_trace.h"
#include "zn_trace_out.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct tstate {
    int id;
    int depth;
    char *buf;              /* log lines of the outermost call in flight */
    size_t len, cap;
    char tl[16384];         /* its timeline events */
    size_t tl_len;
} tstate;

static __thread tstate ts;
static atomic_int next_tid = 1;
static pthread_key_t buf_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static uint64_t t_start;

/* ---- the shared log: one buffer, written out when full and at exit ---- */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_buf[1 << 18];
static size_t log_len;
static int log_fd = -1;
static bool log_flush_each;     /* ZINC_TRACE_FLUSH=1: every outermost call */

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void log_flush_locked(void)
{
    if (log_fd == -1) {     /* first flush; -2: could not be created, said once */
        FILE *f = zn_tr_open("log.txt", "w");
        log_fd = -2;
        if (f) {
            log_fd = dup(fileno(f));
            fclose(f);
        }
        const char *e = getenv("ZINC_TRACE_FLUSH");
        log_flush_each = e && strcmp(e, "1") == 0;
    }
    if (log_fd >= 0)
        write_all(log_fd, log_buf, log_len);
    log_len = 0;
}

static void log_append(const char *p, size_t n)
{
    pthread_mutex_lock(&log_mu);
    if (log_len + n > sizeof log_buf)
        log_flush_locked();
    if (n > sizeof log_buf) {
        if (log_fd >= 0)
            write_all(log_fd, p, n);
    } else {
        memcpy(log_buf + log_len, p, n);
        log_len += n;
    }
    if (log_flush_each)
        log_flush_locked();
    pthread_mutex_unlock(&log_mu);
}

void zn_tr_log_flush(bool final)
{
    pthread_mutex_lock(&log_mu);
    log_flush_locked();
    /* calls made after the tracer's destructor (other libraries' own
     * destructors) are written at once: nothing would flush them later */
    if (final)
        log_flush_each = true;
    pthread_mutex_unlock(&log_mu);
}

/* ---- time and threads ---- */
uint64_t zn_tr_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t now = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
    if (!t_start)
        t_start = now;  /* first caller: zn_tr_init, before any thread races */
    return now - t_start;
}

static void free_buf(void *p) { free(p); }
static void make_key(void) { pthread_key_create(&buf_key, free_buf); }

int zn_tr_thread_id(void)
{
    if (!ts.id)
        ts.id = atomic_fetch_add(&next_tid, 1);
    return ts.id;
}

/* Room for n more bytes in the thread's buffer. */
static bool reserve(size_t n)
{
    if (ts.len + n <= ts.cap)
        return true;
    size_t cap = ts.cap ? ts.cap * 2 : 4096;
    while (cap < ts.len + n)
        cap *= 2;
    char *b = realloc(ts.buf, cap);
    if (!b)
        return false;
    if (!ts.buf) {
        pthread_once(&key_once, make_key);
        pthread_setspecific(buf_key, b);
    } else if (b != ts.buf) {
        pthread_setspecific(buf_key, b);
    }
    ts.buf = b;
    ts.cap = cap;
    return true;
}

/* Puts line (n bytes) at offset at of the thread buffer. */
static void insert_line(size_t at, const char *line, size_t n)
{
    if (!reserve(n))
        return;
    if (at > ts.len)
        at = ts.len;
    memmove(ts.buf + at + n, ts.buf + at, ts.len - at);
    memcpy(ts.buf + at, line, n);
    ts.len += n;
}

static void flush_thread(void)
{
    if (ts.depth == 0 && ts.len) {
        log_append(ts.buf, ts.len);
        ts.len = 0;
    }
    if (ts.depth == 0 && ts.tl_len) {
        zn_tr_tl_append(ts.tl, ts.tl_len);
        ts.tl_len = 0;
    }
}

/* The call's timeline event, kept with the thread's lines. */
static void add_event(const zn_tr_frame *f, uint64_t t1)
{
    if (sizeof ts.tl - ts.tl_len < 512) {
        zn_tr_tl_append(ts.tl, ts.tl_len);
        ts.tl_len = 0;
    }
    ts.tl_len += zn_tr_tl_fmt_call(ts.tl + ts.tl_len, sizeof ts.tl - ts.tl_len, f->name, f->t0,
                                   t1, ts.id);
}

/* ---- hooks ---- */
static void run_hook(zn_tr_frame *f, bool post)
{
    if (f->sig < 0)
        return;
    switch (zn_tr_sigs[f->sig].hook) {
    case ZN_TH_none: break;
    case ZN_TH_proc: if (post) zn_tr_proc_hook(f); break;
    case ZN_TH_export: zn_tr_export_hook(f, post); break;
    case ZN_TH_libload: case ZN_TH_libfile: case ZN_TH_modload: case ZN_TH_modfile:
        zn_tr_module_hook(f, post);
        break;
    case ZN_TH_getkernel: case ZN_TH_getfunc: case ZN_TH_kfunc: case ZN_TH_libmod:
        zn_tr_handle_hook(f, post);
        break;
    case ZN_TH_launch: case ZN_TH_launchex: zn_tr_launch_hook(f, post); break;
    case ZN_TH_copy: zn_tr_copy_hook(f, post); break;
    }
}

void zn_tr_enter(zn_tr_frame *f)
{
    zn_tr_init();
    zn_tr_thread_id();
    if (f->sig >= 0) {
        f->name = zn_tr_sigs[f->sig].name;
        f->kinds = zn_tr_sigs[f->sig].kinds;
    }
    f->depth = ts.depth++;
    f->line_at = ts.len;
    run_hook(f, false);
    f->t0 = zn_tr_now_ns();     /* after the hook: a capture's copies are not the call's */
}

static size_t fmt_line(char *line, size_t n, const zn_tr_frame *f, uint64_t t1)
{
    zn_tr_out o = { line, line + n - 1 };   /* room for the newline */
    zo_fixed3(&o, f->t0 / 1000);            /* ms since start */
    zo_mem(&o, " T", 2);
    zo_u64(&o, (uint64_t)ts.id);
    zo_mem(&o, " ", 1);
    static const char spaces[2 * ZN_TR_MAX_DEPTH + 1] =
        "                                                                ";
    zo_mem(&o, spaces, 2 * (size_t)(f->depth < ZN_TR_MAX_DEPTH ? f->depth : ZN_TR_MAX_DEPTH));
    zo_str(&o, f->name);
    zo_mem(&o, "(", 1);
    bool ok = f->result == 0;
    for (int i = 0; i < f->nargs; i++) {
        if (i)
            zo_mem(&o, ", ", 2);
        zn_tr_kind k = f->kinds ? (zn_tr_kind)f->kinds[i] : ZN_TK_P;
        o.p += zn_tr_fmt_arg(o.p, (size_t)(o.end - o.p) + 1, k, f->av[i], true, ok);
        if (o.p > o.end)
            o.p = o.end;
    }
    zo_mem(&o, ") = ", 4);
    const char *rn = zn_tr_result_name(f->result);
    if (rn)
        zo_str(&o, rn);
    else
        zo_i64(&o, f->result);
    zo_mem(&o, " (", 2);
    zo_fixed3(&o, t1 - f->t0);
    zo_mem(&o, " us)", 4);
    *o.p++ = '\n';
    return (size_t)(o.p - line);
}

void zn_tr_leave(zn_tr_frame *f, CUresult r)
{
    uint64_t t1 = zn_tr_now_ns();
    f->result = r;
    run_hook(f, true);
    ts.depth--;
    char line[1024];
    size_t n = fmt_line(line, sizeof line, f, t1);
    insert_line(f->line_at, line, n);
    add_event(f, t1);
    flush_thread();
}

void zn_tr_note(const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    zn_tr_note_text(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

void zn_tr_note_text(const char *text, size_t len)
{
    zn_tr_thread_id();
    char line[2048 + 128];
    int d = ts.depth < ZN_TR_MAX_DEPTH ? ts.depth : ZN_TR_MAX_DEPTH;
    zn_tr_out o = { line, line + 64 + 2 * ZN_TR_MAX_DEPTH };
    zo_fixed3(&o, zn_tr_now_ns() / 1000);
    zo_mem(&o, " T", 2);
    zo_u64(&o, (uint64_t)ts.id);
    zo_mem(&o, " ", 1);
    for (int i = 0; i < d; i++)
        zo_mem(&o, "  ", 2);
    zo_mem(&o, "# ", 2);
    o.end = line + sizeof line - 1;
    zo_mem(&o, text, len);
    *o.p++ = '\n';
    size_t m = (size_t)(o.p - line);
    if (reserve(m)) {
        memcpy(ts.buf + ts.len, line, m);
        ts.len += m;
    }
    flush_thread();
}
