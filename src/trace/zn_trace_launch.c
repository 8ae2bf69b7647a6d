/* zn_trace_launch.c: kernel launches and copies.
 *
 * A launch adds a line "# launch <id>: <kernel> grid (x,y,z) block (x,y,z)
 * shared <n> stream <s> params [i] <size>: <hex bytes> ..." after its call
 * line, an event on its stream's track of the timeline (until the kernel
 * is done with --sync or --capture), and, with --capture, the launch's
 * buffers (zn_trace_capture.c). Parameter sizes
 * come from the kernel's PTX; without PTX the kernelParams pointers are
 * logged without sizes. */
#include "zn_trace.h"
#include "zn_trace_out.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_int next_launch = 1;

typedef struct launch_state {
    zn_tr_launch l;
    void *capture;
    uint64_t t0;
} launch_state;

/* The launches in flight on this thread, by call depth (no malloc per launch). */
static __thread launch_state states[ZN_TR_MAX_DEPTH];

/* The launch as the call described it. */
static void decode(const zn_tr_frame *f, zn_tr_launch *l)
{
    const uint64_t *a = f->av;
    if (zn_tr_sigs[f->sig].hook == ZN_TH_launchex) {
        const unsigned *cfg = (const unsigned *)(uintptr_t)a[0];
        if (cfg) {
            for (int i = 0; i < 3; i++) {
                l->grid[i] = cfg[i];
                l->block[i] = cfg[3 + i];
            }
            l->shmem = cfg[6];
            memcpy(&l->stream, (const char *)cfg + 32, sizeof l->stream);
        }
        l->k = zn_tr_kernel_of(a[1]);
        l->params = (void **)(uintptr_t)a[2];
        l->extra = (void **)(uintptr_t)a[3];
        return;
    }
    l->k = zn_tr_kernel_of(a[0]);
    for (int i = 0; i < 3; i++) {
        l->grid[i] = (unsigned)a[1 + i];
        l->block[i] = (unsigned)a[4 + i];
    }
    l->shmem = (unsigned)a[7];
    l->stream = a[8];
    l->params = (void **)(uintptr_t)a[9];
    l->extra = f->nargs > 10 ? (void **)(uintptr_t)a[10] : NULL;
}

bool zn_tr_extra_buffer(void **extra, const void **buf, size_t *size)
{
    *buf = NULL;
    *size = 0;
    for (int i = 0; extra && i < 16 && extra[i] != NULL; i += 2) {
        if (extra[i] == (void *)1)
            *buf = extra[i + 1];
        else if (extra[i] == (void *)2 && extra[i + 1])
            *size = *(size_t *)extra[i + 1];
    }
    return *buf != NULL;
}

static void hex(zn_tr_out *o, const void *p, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = p;
    for (size_t i = 0; i < len && o->p + 2 <= o->end; i++) {
        *o->p++ = digits[b[i] >> 4];
        *o->p++ = digits[b[i] & 15];
    }
}

/* "launch <id>: <kernel> grid (x,y,z) block (x,y,z) shared <n> stream <s>
 * params [i] <size>:<hex> ...", written without printf: one per launch. */
static void note_launch(const zn_tr_launch *l)
{
    char line[2048];
    zn_tr_out o = { line, line + sizeof line - 1 };
    zo_str(&o, "launch ");
    zo_u64(&o, (uint64_t)l->id);
    zo_str(&o, ": ");
    zo_str(&o, l->k ? l->k->name : "<unknown kernel>");
    const char *what[2] = { " grid (", " block (" };
    const unsigned *dims[2] = { l->grid, l->block };
    for (int d = 0; d < 2; d++) {
        zo_str(&o, what[d]);
        for (int i = 0; i < 3; i++) {
            zo_u64(&o, dims[d][i]);
            zo_mem(&o, i < 2 ? "," : ")", 1);
        }
    }
    zo_str(&o, " shared ");
    zo_u64(&o, l->shmem);
    zo_str(&o, " stream ");
    zo_hex(&o, l->stream);
    zo_str(&o, " params");
    const void *buf;
    size_t size;
    if (l->k && l->k->nparams >= 0 && l->params) {
        for (int i = 0; i < l->k->nparams; i++) {
            uint32_t sz = l->k->params[i].size;
            zo_str(&o, " [");
            zo_u64(&o, (uint64_t)i);
            zo_str(&o, "] ");
            zo_u64(&o, sz);
            zo_str(&o, ":");
            if (l->params[i])
                hex(&o, l->params[i], sz > 64 ? 64 : sz);
            if (sz > 64)
                zo_str(&o, "...");
        }
    } else if (zn_tr_extra_buffer(l->extra, &buf, &size)) {
        zo_str(&o, " buffer ");
        zo_u64(&o, size);
        zo_str(&o, ":");
        hex(&o, buf, size > 256 ? 256 : size);
    } else if (l->params) {
        zo_str(&o, " kernelParams ");
        zo_hex(&o, (uint64_t)(uintptr_t)l->params);
        zo_str(&o, " (sizes unknown: no PTX)");
    }
    zn_tr_note_text(line, (size_t)(o.p - line));
}

void zn_tr_launch_hook(zn_tr_frame *f, bool post)
{
    if (!post) {
        if (f->depth >= ZN_TR_MAX_DEPTH)
            return;
        launch_state *s = &states[f->depth];
        *s = (launch_state){ 0 };
        s->l.id = atomic_fetch_add(&next_launch, 1);
        decode(f, &s->l);
        if (zn_tr_cfg.capture)
            s->capture = zn_tr_capture_before(&s->l);
        s->t0 = zn_tr_now_ns();
        f->hook_state = s;
        return;
    }
    launch_state *s = f->hook_state;
    if (!s)
        return;
    note_launch(&s->l);
    if (s->capture)
        zn_tr_capture_after(s->capture, f->result);     /* synchronises */
    else if (zn_tr_cfg.sync)
        zn_tr_sync();
    char args[160];
    zn_tr_out o = { args, args + sizeof args - 1 };
    zo_str(&o, "\"launch\":");
    zo_u64(&o, (uint64_t)s->l.id);
    const char *what[2] = { ",\"grid\":\"", "\",\"block\":\"" };
    const unsigned *dims[2] = { s->l.grid, s->l.block };
    for (int d = 0; d < 2; d++) {
        zo_str(&o, what[d]);
        for (int i = 0; i < 3; i++) {
            zo_u64(&o, dims[d][i]);
            if (i < 2)
                zo_mem(&o, ",", 1);
        }
    }
    zo_mem(&o, "\"", 1);
    *o.p = 0;
    zn_tr_tl_stream(s->l.k ? s->l.k->name : "kernel", s->l.stream, s->t0, zn_tr_now_ns(), args);
    f->hook_state = NULL;
}

/* Copies and sets: an event on the stream's track: the call's span (a
 * synchronous copy is done when it returns), or until the copy is done
 * with ZINC_TRACE_SYNC. */
void zn_tr_copy_hook(zn_tr_frame *f, bool post)
{
    if (!post)
        return;
    if (zn_tr_cfg.sync)
        zn_tr_sync();
    const zn_tr_sig *sig = &zn_tr_sigs[f->sig];
    uint64_t stream = 0, bytes = 0;
    if (strstr(sig->name, "Async") && sig->kinds[sig->nargs - 1] == ZN_TK_H)
        stream = f->av[sig->nargs - 1];
    else if (strstr(sig->name, "_ptds"))
        stream = 2;
    for (int i = 0; i < sig->nargs; i++)
        if (sig->kinds[i] == ZN_TK_SZ)
            bytes = f->av[i];
    char args[64];
    snprintf(args, sizeof args, "\"bytes\":%llu", (unsigned long long)bytes);
    zn_tr_tl_stream(sig->name, stream, f->t0, zn_tr_now_ns(), args);
}
