/* test_ld_pick.c: name mapping of libzinc_ld.so (zn_ld_pick) and its
 * library table, against answers written out by hand per case. */
#include "ld/zn_ld.h"

#include <stdio.h>
#include <string.h>

static int fails;

static const char *pick(const char *base, const char (*names)[ZN_LD_NAME_MAX], int n)
{
    int i = zn_ld_pick(base, names, n);
    return i < 0 ? "(none)" : names[i];
}

#define CHECK_PICK(base, want)                                                          \
    do {                                                                                \
        const char *got = pick(base, libs.names, libs.count);                          \
        if (strcmp(got, want) != 0) {                                                   \
            printf("FAIL %s:%d: %s -> %s, want %s\n", __FILE__, __LINE__, base, got, want); \
            fails++;                                                                    \
        }                                                                               \
    } while (0)

int main(void)
{
    static zn_ld_libs libs;
    /* Directory order on purpose not sorted. */
    const char *dir[] = { "libcublas.so.13.1.0", "libcuda.so", "libcublasLt.so.13", "libcublas.so.13",
                          "libnvidia-ml.so.1", "libcuda.so.1", "libzinc_ld.so", "README", "static",
                          "libzn_x.a" };
    int added = 0;
    for (size_t i = 0; i < sizeof dir / sizeof dir[0]; i++)
        added += zn_ld_libs_add(&libs, dir[i]);
    if (added != 6 || libs.count != 6) {
        printf("FAIL table: %d added, %d kept, want 6 (no libzinc_ld.so, README, static, .a)\n",
               added, libs.count);
        fails++;
    }

    CHECK_PICK("libcuda.so.1", "libcuda.so.1");           /* exact */
    CHECK_PICK("libcuda.so", "libcuda.so");               /* exact beats versioned */
    CHECK_PICK("libcuda.so.580.65.06", "libcuda.so.1");   /* versioned beats bare stem */
    CHECK_PICK("libcublas.so.12", "libcublas.so.13");     /* shortest version */
    CHECK_PICK("libcublas.so", "libcublas.so.13");
    CHECK_PICK("libcublasLt.so.12", "libcublasLt.so.13"); /* stems must match whole */
    CHECK_PICK("libnvidia-ml.so", "libnvidia-ml.so.1");
    CHECK_PICK("libm.so.6", "(none)");                    /* not Zinc's */
    CHECK_PICK("libcudart.so.13", "(none)");              /* libcuda is not libcudart */
    CHECK_PICK("libcu.so.1", "(none)");
    CHECK_PICK("libcuda.sox", "(none)");                  /* .so must end the stem */
    CHECK_PICK("cuda.so.1", "(none)");
    CHECK_PICK("", "(none)");
    CHECK_PICK("libzinc_ld.so", "(none)");

    if (strcmp(zn_ld_basename("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), "libcuda.so.1") != 0 ||
        strcmp(zn_ld_basename("libcuda.so.1"), "libcuda.so.1") != 0) {
        printf("FAIL basename\n");
        fails++;
    }

    /* A full table refuses more; names too long are refused. */
    static zn_ld_libs full;
    char name[ZN_LD_NAME_MAX + 8];
    for (int i = 0; i < ZN_LD_MAX_LIBS + 5; i++) {
        snprintf(name, sizeof name, "libx%d.so", i);
        zn_ld_libs_add(&full, name);
    }
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = 0;
    memcpy(name, "lib", 3);
    memcpy(name + 10, ".so", 3);
    if (full.count != ZN_LD_MAX_LIBS || zn_ld_libs_add(&libs, name)) {
        printf("FAIL table limits: %d entries\n", full.count);
        fails++;
    }

    if (!fails)
        printf("zn_ld_pick: all passed\n");
    return fails != 0;
}
