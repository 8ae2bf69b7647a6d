/* zn_trace_capture.c: --capture saves what one launch reads and writes.
 *
 * Before the launch (after synchronising the context), every 8-byte word of
 * the parameter bytes that the target driver knows as a device address
 * (CU_POINTER_ATTRIBUTE_RANGE_START_ADDR / RANGE_SIZE) names an allocation;
 * those allocations and the module's .global/.const variables are copied to
 * launches/<id>/buf<i>.before, and after the launch (synchronised again) to
 * buf<i>.after. launches/<id>/launch.txt describes the launch for
 * `zinc replay` (format in docs/trace.md). */
#include "zn_trace.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_BUFS = 256, MAX_PATCHES = 1024 };
enum { RANGE_START_ADDR = 11, RANGE_SIZE = 12 };

typedef struct cap_buf {
    zn_dptr start;
    size_t size;
    const char *global;     /* NULL: found through a parameter */
} cap_buf;

typedef struct cap_patch { uint32_t offset; int buf; uint64_t delta; } cap_patch;

typedef struct capture {
    zn_tr_launch l;
    unsigned char *params;  /* the parameter bytes */
    size_t nparams_bytes;
    cap_buf bufs[MAX_BUFS];
    int nbufs;
    cap_patch patches[MAX_PATCHES];
    int npatches;
} capture;

static int add_buf(capture *c, zn_dptr start, size_t size, const char *global)
{
    for (int i = 0; i < c->nbufs; i++)
        if (c->bufs[i].start == start)
            return i;
    if (c->nbufs == MAX_BUFS)
        return -1;
    c->bufs[c->nbufs] = (cap_buf){ start, size, global };
    return c->nbufs++;
}

/* Whether the target knows v as (inside) an allocation. */
static bool device_range(zn_dptr v, zn_dptr *start, size_t *size)
{
    if (!zn_tr_real[ZN_TS_cuPointerGetAttribute])
        return false;
    *start = 0;
    *size = 0;
    return ZN_TR_REAL(cuPointerGetAttribute)(start, RANGE_START_ADDR, v) == 0 &&
           ZN_TR_REAL(cuPointerGetAttribute)(size, RANGE_SIZE, v) == 0 && *size > 0 &&
           v >= *start && v - *start <= *size;
}

static void add_global(void *u, const char *name, uint64_t size)
{
    capture *c = u;
    zn_dptr p = 0;
    size_t n = 0;
    CUresult r = c->l.k->lib
        ? (zn_tr_real[ZN_TS_cuLibraryGetGlobal]
               ? ZN_TR_REAL(cuLibraryGetGlobal)(&p, &n, (void *)(uintptr_t)c->l.k->mod_handle, name)
               : 801)
        : (zn_tr_real[ZN_TS_cuModuleGetGlobal_v2]
               ? ZN_TR_REAL(cuModuleGetGlobal_v2)(&p, &n, (void *)(uintptr_t)c->l.k->mod_handle,
                                                  name)
               : 801);
    if (r == 0 && p && n)
        add_buf(c, p, n, strdup(name));
}

static void snapshot(capture *c, const char *when)
{
    for (int i = 0; i < c->nbufs; i++) {
        void *host = malloc(c->bufs[i].size ? c->bufs[i].size : 1);
        if (!host)
            continue;
        char rel[96];
        snprintf(rel, sizeof rel, "launches/%d/buf%d.%s", c->l.id, i, when);
        if (ZN_TR_REAL(cuMemcpyDtoH_v2)(host, c->bufs[i].start, c->bufs[i].size) == 0)
            zn_tr_write_file(rel, host, c->bufs[i].size);
        else
            zn_tr_note("capture: launch %d: cannot read buffer %d", c->l.id, i);
        free(host);
    }
}

void *zn_tr_capture_before(const zn_tr_launch *l)
{
    size_t blob_size = 0;
    const void *blob = NULL;
    if (!l->params)
        zn_tr_extra_buffer(l->extra, &blob, &blob_size);
    bool sized = l->k && l->k->nparams >= 0;
    if (!sized || (!l->params && (!blob || blob_size < l->k->param_bytes)) ||
        !zn_tr_real[ZN_TS_cuMemcpyDtoH_v2]) {
        zn_tr_note("capture: launch %d not captured (%s)", l->id,
                   !l->k ? "unknown kernel" : !sized ? "no PTX: parameter sizes unknown"
                                                     : "no parameters given");
        return NULL;
    }
    capture *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->l = *l;
    c->nparams_bytes = l->k->param_bytes;
    c->params = calloc(c->nparams_bytes ? c->nparams_bytes : 1, 1);
    if (!c->params) {
        free(c);
        return NULL;
    }
    if (blob)
        memcpy(c->params, blob, c->nparams_bytes);
    else
        for (int i = 0; i < l->k->nparams; i++)
            if (l->params[i])
                memcpy(c->params + l->k->params[i].offset, l->params[i], l->k->params[i].size);
    zn_tr_sync();
    /* every aligned word inside one parameter may be a device address */
    for (int i = 0; i < l->k->nparams; i++) {
        const zn_tr_param *p = &l->k->params[i];
        for (uint32_t off = (p->offset + 7) & ~7u; off + 8 <= p->offset + p->size; off += 8) {
            zn_dptr v, start;
            size_t size;
            memcpy(&v, c->params + off, 8);
            if (!v || !device_range(v, &start, &size))
                continue;
            int b = add_buf(c, start, size, NULL);
            if (b >= 0 && c->npatches < MAX_PATCHES)
                c->patches[c->npatches++] = (cap_patch){ off, b, v - start };
        }
    }
    zn_tr_module_globals(l->k, add_global, c);
    snapshot(c, "before");
    return c;
}

static void write_launch_txt(const capture *c, CUresult r)
{
    char rel[64];
    snprintf(rel, sizeof rel, "launches/%d/launch.txt", c->l.id);
    FILE *f = zn_tr_open(rel, "w");
    if (!f)
        return;
    const zn_tr_kernel *k = c->l.k;
    const char *ptx = zn_tr_kernel_ptx(k);
    const char *rn = zn_tr_result_name(r);
    fprintf(f, "kernel %s\nptx %s\ngrid %u %u %u\nblock %u %u %u\nshared %u\nresult %s\n",
            k->name, ptx ? ptx : "-", c->l.grid[0], c->l.grid[1], c->l.grid[2], c->l.block[0],
            c->l.block[1], c->l.block[2], c->l.shmem, rn ? rn : "?");
    fprintf(f, "params %zu ", c->nparams_bytes);
    for (size_t i = 0; i < c->nparams_bytes; i++)
        fprintf(f, "%02x", c->params[i]);
    fputc('\n', f);
    for (int i = 0; i < k->nparams; i++)
        fprintf(f, "param %d %u %u\n", i, k->params[i].offset, k->params[i].size);
    for (int i = 0; i < c->nbufs; i++)
        fprintf(f, "buffer %d %zu 0x%llx %s\n", i, c->bufs[i].size,
                (unsigned long long)c->bufs[i].start, c->bufs[i].global ? c->bufs[i].global : "-");
    for (int i = 0; i < c->npatches; i++)
        fprintf(f, "patch %u %d %llu\n", c->patches[i].offset, c->patches[i].buf,
                (unsigned long long)c->patches[i].delta);
    fclose(f);
}

void zn_tr_capture_after(void *state, CUresult r)
{
    capture *c = state;
    zn_tr_sync();
    snapshot(c, "after");
    write_launch_txt(c, r);
    zn_tr_note("capture: launch %d: %d buffer(s) saved in launches/%d", c->l.id, c->nbufs,
               c->l.id);
    for (int i = 0; i < c->nbufs; i++)
        free((void *)c->bufs[i].global);
    free(c->params);
    free(c);
}
