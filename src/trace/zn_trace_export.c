/* zn_trace_export.c: cuGetExportTable answers are replaced by copies whose
 * slots are trampolines, so the runtime's calls through them are logged as
 * "export:<role>[slot]".
 *
 * The integrity answer (table d4082055..., slot 1) is an HMAC over, among
 * other things, the addresses of the runtime-interface and integrity tables
 * and of slot 1 itself, as the runtime sees them. The runtime sees the
 * copies, so the tracer computes the answer again over the copies'
 * addresses (facts: notes/cuda-driver-abi.md), from values it reads from the
 * target driver. The copies live at fixed addresses (static arrays). */
#include "zn_trace.h"
#include "util/zn_md2.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

enum { MAX_SLOTS = 64, UNKNOWN_TABLES = 8 };

typedef struct known_table {
    unsigned char uuid[16];
    const char *role;
    int fixed_slots;        /* tables with no size word: how many slots */
    int nshow;              /* arguments to print */
} known_table;

static const known_table known[] = {
    { { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
        0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 }, "runtime", 0, 3 },
    { { 0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
        0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66 }, "tool_hooks", 0, 2 },
    { { 0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
        0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc }, "tools_tls", 0, 2 },
    { { 0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
        0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93 }, "ctx_storage", 3, 4 },
    { { 0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43,
        0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e }, "ctx_checks", 0, 3 },
    { { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
        0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 }, "integrity", 0, 3 },
};
enum { NKNOWN = sizeof known / sizeof known[0], RUNTIME = 0, INTEGRITY = 5 };

static const void *copies[NKNOWN + UNKNOWN_TABLES][MAX_SLOTS];
static const void *originals[NKNOWN + UNKNOWN_TABLES];
static char unknown_roles[UNKNOWN_TABLES][24];
static int nunknown;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUresult (*real_integrity)(uint32_t, uint64_t, uint64_t *);

static const uint8_t integrity_key[16] = {
    0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
    0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f,
};

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static CUresult integrity_slot1(uint32_t ver, uint64_t secs, uint64_t out[2]);

/* The runtime's integrity answer over what it sees: the copies. */
static void resign(uint32_t ver, uint64_t secs, uint64_t out[2])
{
    int drv = 0, ndev = 0;
    if (!zn_tr_real[ZN_TS_cuDriverGetVersion] || !zn_tr_real[ZN_TS_cuDeviceGetCount] ||
        !zn_tr_real[ZN_TS_cuDeviceGetAttribute] || !zn_tr_real[ZN_TS_cuDeviceGetUuid] ||
        ZN_TR_REAL(cuDriverGetVersion)(&drv) || ZN_TR_REAL(cuDeviceGetCount)(&ndev))
        return;     /* the target's own answer stands */
    if (ndev < 0 || ndev > 64)
        return;
    uint8_t msg[48 + 64 * 28];
    put32(msg + 0, (uint32_t)drv);
    put32(msg + 4, ver);
    put32(msg + 8, (uint32_t)getpid());
    put32(msg + 12, (uint32_t)pthread_self());
    put64(msg + 16, (uint64_t)(uintptr_t)copies[RUNTIME]);
    put64(msg + 24, (uint64_t)(uintptr_t)copies[INTEGRITY]);
    put64(msg + 32, (uint64_t)(uintptr_t)integrity_slot1);
    put64(msg + 40, secs);
    for (int d = 0; d < ndev; d++) {
        uint8_t *p = msg + 48 + d * 28;
        int dom = 0, bus = 0, dev = 0;
        memset(p, 0, 28);
        ZN_TR_REAL(cuDeviceGetUuid)(p, d);
        ZN_TR_REAL(cuDeviceGetAttribute)(&dom, 50, d);
        ZN_TR_REAL(cuDeviceGetAttribute)(&bus, 33, d);
        ZN_TR_REAL(cuDeviceGetAttribute)(&dev, 34, d);
        put32(p + 16, (uint32_t)dom);
        put32(p + 20, (uint32_t)bus);
        put32(p + 24, (uint32_t)dev);
    }
    uint8_t digest[ZN_MD2_DIGEST];
    zn_hmac_md2(integrity_key, sizeof integrity_key, msg, 48 + (size_t)ndev * 28, digest);
    memcpy(out, digest, sizeof digest);
}

static const uint8_t integrity_kinds[3] = { ZN_TK_U, ZN_TK_U64, ZN_TK_P };

static CUresult integrity_slot1(uint32_t ver, uint64_t secs, uint64_t out[2])
{
    uint64_t av[3] = { ver, secs, (uint64_t)(uintptr_t)out };
    zn_tr_frame f = { .sig = -1, .name = "export:integrity[1]", .av = av, .nargs = 3,
                      .kinds = integrity_kinds };
    zn_tr_enter(&f);
    CUresult r = real_integrity ? real_integrity(ver, secs, out) : 801;
    if (r == 0 && out)
        resign(ver, secs, out);
    zn_tr_leave(&f, r);
    return r;
}

static int find_known(const unsigned char *uuid)
{
    for (int i = 0; i < NKNOWN; i++)
        if (!memcmp(known[i].uuid, uuid, 16))
            return i;
    return -1;
}

/* Fills copies[t] from the target's table; returns it, or NULL to pass
 * the original through. */
static const void **wrap_table(int t, const char *role, int fixed, int nshow,
                               const void *const *orig)
{
    int n = fixed;
    int first = 0;
    if (!fixed) {
        uint64_t size = (uint64_t)(uintptr_t)orig[0];
        if (size < 16 || size % 8 || size / 8 > MAX_SLOTS)
            return NULL;
        n = (int)(size / 8);
        copies[t][0] = orig[0];
        first = 1;
    }
    for (int i = first; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "export:%s[%d]", role, i);
        if (t == INTEGRITY && i == 1) {
            real_integrity = (CUresult (*)(uint32_t, uint64_t, uint64_t *))orig[i];
            copies[t][i] = (const void *)integrity_slot1;
        } else {
            copies[t][i] = orig[i] ? zn_tr_tramp(name, (void *)orig[i], nshow) : NULL;
        }
    }
    originals[t] = orig;
    return copies[t];
}

static const void **wrap(const unsigned char *uuid, const void *const *orig)
{
    int t = find_known(uuid);
    if (t >= 0) {
        if (originals[t] == orig)
            return copies[t];
        return wrap_table(t, known[t].role, known[t].fixed_slots, known[t].nshow, orig);
    }
    for (int i = 0; i < nunknown; i++)
        if (originals[NKNOWN + i] == orig)
            return copies[NKNOWN + i];
    if (nunknown == UNKNOWN_TABLES)
        return NULL;
    char *role = unknown_roles[nunknown];
    snprintf(role, sizeof unknown_roles[0], "%02x%02x%02x%02x", uuid[0], uuid[1], uuid[2], uuid[3]);
    const void **c = wrap_table(NKNOWN + nunknown, role, 0, 3, orig);
    if (c)
        nunknown++;
    return c;
}

/* cuGetExportTable(const void **table, const CUuuid *id) */
void zn_tr_export_hook(zn_tr_frame *f, bool post)
{
    const void **table = (const void **)(uintptr_t)f->av[0];
    const unsigned char *uuid = (const unsigned char *)(uintptr_t)f->av[1];
    if (!post || f->result != 0 || !table || !*table || !uuid)
        return;
    pthread_mutex_lock(&mu);
    const void **c = wrap(uuid, (const void *const *)*table);
    pthread_mutex_unlock(&mu);
    if (c)
        *table = c;
}
