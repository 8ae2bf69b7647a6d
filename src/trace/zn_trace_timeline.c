/* zn_trace_timeline.c: timeline.json in the Chrome trace event format (a
 * JSON array; opens in Perfetto and chrome://tracing). Every API call is a
 * complete event ("ph":"X") on its thread; kernel launches and copies are
 * complete events on one track per stream (tid 100000 + n, named by a
 * thread_name metadata event). Times are in microseconds since the start. */
#include "zn_trace.h"
#include "zn_trace_out.h"

#include <pthread.h>
#include <string.h>

enum { STREAM_TID = 100000, MAX_STREAMS = 4096 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static bool closed;
static char buf[1 << 18];
static size_t len;
static uint64_t streams[MAX_STREAMS];
static int nstreams;

static bool tried;          /* opening timeline.json: once */

static void flush_locked(void)
{
    if (!out && !closed && !tried) {
        tried = true;
        out = zn_tr_open("timeline.json", "w");
        if (out)
            fputs("[\n", out);
    }
    if (out && len)
        fwrite(buf, 1, len, out);
    len = 0;
}

/* Events (each a JSON object followed by ",\n") added under the lock. The
 * array ends with an instant event, so no event needs to know whether it
 * is the last. */
static void add_locked(const char *ev, size_t n)
{
    if (closed)
        return;
    if (len + n > sizeof buf)
        flush_locked();
    if (n > sizeof buf) {
        if (out)
            fwrite(ev, 1, n, out);
        return;
    }
    memcpy(buf + len, ev, n);
    len += n;
}

void zn_tr_tl_append(const char *events, size_t n)
{
    pthread_mutex_lock(&mu);
    add_locked(events, n);
    pthread_mutex_unlock(&mu);
}

/* Event names are C identifiers or "export:..." strings: no escaping needed,
 * but a quote or backslash is replaced to keep the JSON valid. */
static void safe_name(char *dst, size_t n, const char *s)
{
    size_t i = 0;
    for (; s && s[i] && i + 1 < n; i++)
        dst[i] = (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20) ? '_' : s[i];
    dst[i] = 0;
}

size_t zn_tr_tl_fmt_call(char *ev, size_t n, const char *name, uint64_t t0, uint64_t t1,
                         int tid)
{
    /* API names are identifiers or sanitised trampoline names */
    zn_tr_out o = { ev, ev + n };
    zo_str(&o, "{\"name\":\"");
    zo_mem(&o, name, strnlen(name, 200));
    zo_str(&o, "\",\"ph\":\"X\",\"ts\":");
    zo_fixed3(&o, t0);
    zo_str(&o, ",\"dur\":");
    zo_fixed3(&o, t1 - t0);
    zo_str(&o, ",\"pid\":");
    zo_u64(&o, (uint64_t)zn_tr_cfg.pid);
    zo_str(&o, ",\"tid\":");
    zo_u64(&o, (uint64_t)tid);
    zo_str(&o, "},\n");
    return o.p < o.end ? (size_t)(o.p - ev) : 0;
}

static int stream_track_locked(uint64_t stream)
{
    for (int i = 0; i < nstreams; i++)
        if (streams[i] == stream)
            return STREAM_TID + i;
    if (nstreams == MAX_STREAMS)
        return STREAM_TID + MAX_STREAMS;
    streams[nstreams] = stream;
    char ev[256];
    int n = snprintf(ev, sizeof ev,
                     "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                     "\"args\":{\"name\":\"stream 0x%llx%s\"}},\n",
                     zn_tr_cfg.pid, STREAM_TID + nstreams, (unsigned long long)stream,
                     stream == 0 ? " (default)" : stream == 1 ? " (legacy)"
                     : stream == 2 ? " (per-thread)" : "");
    add_locked(ev, (size_t)n);
    return STREAM_TID + nstreams++;
}

void zn_tr_tl_stream(const char *name, uint64_t stream, uint64_t t0, uint64_t t1,
                     const char *args_json)
{
    char ev[1024], nm[200];
    safe_name(nm, sizeof nm, name);
    pthread_mutex_lock(&mu);
    int tid = stream_track_locked(stream);
    zn_tr_out o = { ev, ev + sizeof ev };
    zo_str(&o, "{\"name\":\"");
    zo_str(&o, nm);
    zo_str(&o, "\",\"cat\":\"gpu\",\"ph\":\"X\",\"ts\":");
    zo_fixed3(&o, t0);
    zo_str(&o, ",\"dur\":");
    zo_fixed3(&o, t1 - t0);
    zo_str(&o, ",\"pid\":");
    zo_u64(&o, (uint64_t)zn_tr_cfg.pid);
    zo_str(&o, ",\"tid\":");
    zo_u64(&o, (uint64_t)tid);
    zo_str(&o, ",\"args\":{");
    zo_str(&o, args_json ? args_json : "");
    zo_str(&o, "}},\n");
    if (o.p < o.end)
        add_locked(ev, (size_t)(o.p - ev));
    pthread_mutex_unlock(&mu);
}

void zn_tr_tl_close(void)
{
    pthread_mutex_lock(&mu);
    char end[160];
    int n = snprintf(end, sizeof end,
                     "{\"name\":\"trace end\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%llu,\"pid\":%d,"
                     "\"tid\":0}\n]\n",
                     (unsigned long long)(zn_tr_now_ns() / 1000), zn_tr_cfg.pid);
    add_locked(end, (size_t)n);
    flush_locked();
    if (out) {
        fclose(out);
        out = NULL;
    }
    closed = true;
    pthread_mutex_unlock(&mu);
}
