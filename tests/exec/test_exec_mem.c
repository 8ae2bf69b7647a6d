/* test_exec_mem.c: device memory: alloc/free/lookup/info, alignment, many
 * allocations against a reference list, bad frees, and freed memory that
 * is no longer accessible. */
#include "exec_test.h"

#include <unistd.h>

/* Protection string ("rw-p", "---p") of the mapping holding addr. */
static int maps_perms(const void *addr, char perms[5])
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f);
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char p[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 &&
            (uintptr_t)addr >= lo && (uintptr_t)addr < hi) {
            memcpy(perms, p, 5);
            found = 1;
            break;
        }
    }
    fclose(f);
    return found;
}

static void test_basic(void)
{
    size_t used0, total;
    zn_mem_info(&used0, &total);
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    CHECK(total > 0);
    CHECK(total <= (size_t)pages * (size_t)psz);

    uint8_t *p = zn_mem_alloc(1000, 0, ZN_MEM_DEVICE);
    CHECK(p != NULL);
    CHECK((uintptr_t)p % 256 == 0);
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(p[i], 0);              /* fresh pages read zero */
    memset(p, 0xab, 1000);

    void *base;
    size_t size;
    zn_mem_kind kind;
    CHECK_EQ(zn_mem_lookup(p + 999, &base, &size, &kind), 0);
    CHECK(base == p);
    CHECK_EQ(size, 1000);
    CHECK_EQ(kind, ZN_MEM_DEVICE);
    CHECK_EQ(zn_mem_lookup(p, NULL, NULL, NULL), 0);
    CHECK_EQ(zn_mem_lookup(p + 1000, NULL, NULL, NULL), -1);
    CHECK_EQ(zn_mem_lookup(p - 1, NULL, NULL, NULL), -1);
    int on_stack;
    CHECK_EQ(zn_mem_lookup(&on_stack, NULL, NULL, NULL), -1);
    CHECK_EQ(zn_mem_lookup(NULL, NULL, NULL, NULL), -1);

    size_t used1;
    zn_mem_info(&used1, NULL);
    CHECK(used1 >= used0 + 1000);

    void *h = zn_mem_alloc(64, 0, ZN_MEM_HOST);
    void *m = zn_mem_alloc(64, 0, ZN_MEM_MANAGED);
    CHECK(h && m && h != m);
    CHECK_EQ(zn_mem_lookup(h, NULL, NULL, &kind), 0);
    CHECK_EQ(kind, ZN_MEM_HOST);
    CHECK_EQ(zn_mem_lookup((char *)m + 63, NULL, NULL, &kind), 0);
    CHECK_EQ(kind, ZN_MEM_MANAGED);

    /* bad frees */
    CHECK_EQ(zn_mem_free(p + 1), -1);
    CHECK_EQ(zn_mem_free(NULL), -1);
    CHECK_EQ(zn_mem_free(&on_stack), -1);
    CHECK_EQ(zn_mem_free(p), 0);
    CHECK_EQ(zn_mem_free(p), -1);       /* double free */
    CHECK_EQ(zn_mem_lookup(p, NULL, NULL, NULL), -1);

    /* freed memory is inaccessible until reused */
    char perms[5];
    CHECK(maps_perms(p, perms));
    CHECK(strcmp(perms, "---p") == 0);
    CHECK(maps_perms(h, perms));
    CHECK(perms[0] == 'r' && perms[1] == 'w');

    CHECK_EQ(zn_mem_free(h), 0);
    CHECK_EQ(zn_mem_free(m), 0);
    size_t used2;
    zn_mem_info(&used2, NULL);
    CHECK_EQ(used2, used0);
}

static void test_alignment(void)
{
    size_t aligns[] = {0, 1, 16, 256, 4096, 65536, 1 << 21};
    for (size_t i = 0; i < sizeof aligns / sizeof *aligns; i++) {
        size_t a = aligns[i] ? aligns[i] : 256;
        void *p = zn_mem_alloc(12345, aligns[i], ZN_MEM_DEVICE);
        CHECK(p != NULL);
        CHECK((uintptr_t)p % a == 0);
        CHECK_EQ(zn_mem_free(p), 0);
    }
    CHECK(zn_mem_alloc(100, 300, ZN_MEM_DEVICE) == NULL);   /* not a power of 2 */
    CHECK(zn_mem_alloc((size_t)1 << 62, 0, ZN_MEM_DEVICE) == NULL);
    /* a large allocation commits lazily and is usable at both ends */
    uint8_t *big = zn_mem_alloc((size_t)1 << 30, 0, ZN_MEM_DEVICE);
    CHECK(big != NULL);
    big[0] = 1;
    big[((size_t)1 << 30) - 1] = 2;
    CHECK_EQ(big[0] + big[((size_t)1 << 30) - 1], 3);
    CHECK_EQ(zn_mem_free(big), 0);
}

typedef struct ref_alloc {
    uint8_t *p;
    size_t size;
    uint8_t fill;
} ref_alloc;

/* Many allocations of random sizes, checked against the test's own list:
 * no overlap, contents intact, lookups of random interior addresses. */
static void test_many(void)
{
    enum { N = 3000 };
    static ref_alloc r[N];
    uint64_t seed = 12345;
    for (int i = 0; i < N; i++) {
        size_t size = 1 + test_rand(&seed) % (i % 10 == 0 ? 200000 : 3000);
        r[i].p = zn_mem_alloc(size, 0, ZN_MEM_DEVICE);
        CHECK(r[i].p != NULL);
        r[i].size = size;
        r[i].fill = (uint8_t)(i * 7 + 1);
        memset(r[i].p, r[i].fill, size);
    }
    for (int round = 0; round < 3; round++) {
        /* free a random half, then reallocate it */
        for (int i = 0; i < N; i++) {
            if (test_rand(&seed) & 1) {
                CHECK_EQ(zn_mem_free(r[i].p), 0);
                CHECK_EQ(zn_mem_lookup(r[i].p, NULL, NULL, NULL), -1);
                r[i].p = NULL;
            }
        }
        for (int i = 0; i < N; i++) {
            if (r[i].p)
                continue;
            r[i].size = 1 + test_rand(&seed) % 5000;
            r[i].p = zn_mem_alloc(r[i].size, 0, ZN_MEM_DEVICE);
            CHECK(r[i].p != NULL);
            r[i].fill = (uint8_t)test_rand(&seed);
            memset(r[i].p, r[i].fill, r[i].size);
        }
        for (int i = 0; i < N; i++) {
            CHECK_EQ(r[i].p[0], r[i].fill);
            CHECK_EQ(r[i].p[r[i].size - 1], r[i].fill);
            size_t off = test_rand(&seed) % r[i].size;
            void *base;
            size_t size;
            CHECK_EQ(zn_mem_lookup(r[i].p + off, &base, &size, NULL), 0);
            CHECK(base == r[i].p);
            CHECK_EQ(size, r[i].size);
        }
    }
    for (int i = 0; i < N; i++)
        CHECK_EQ(zn_mem_free(r[i].p), 0);
    size_t used;
    zn_mem_info(&used, NULL);
    CHECK_EQ(used, 0);
}

/* Allocating and freeing large blocks walks the rover around the whole
 * range and back to its start; a long-lived allocation must survive. */
static void test_wraparound(void)
{
    uint32_t *keep = zn_mem_alloc(4096, 0, ZN_MEM_DEVICE);
    CHECK(keep);
    for (int i = 0; i < 1024; i++)
        keep[i] = (uint32_t)i * 3;
    size_t big = (size_t)1 << 30;
    uintptr_t prev = 0;
    int wrapped = 0;
    for (int i = 0; i < 200; i++) {
        uint8_t *p = zn_mem_alloc(big, 0, ZN_MEM_DEVICE);
        CHECK(p != NULL);
        CHECK((uintptr_t)p + big <= (uintptr_t)keep || (uintptr_t)p >= (uintptr_t)keep + 4096);
        p[0] = 1;
        p[big - 1] = 2;
        if ((uintptr_t)p < prev)
            wrapped++;
        prev = (uintptr_t)p;
        CHECK_EQ(zn_mem_free(p), 0);
    }
    CHECK(wrapped > 0);
    for (int i = 0; i < 1024; i++)
        CHECK_EQ(keep[i], (uint32_t)i * 3);
    CHECK_EQ(zn_mem_free(keep), 0);
}

int main(void)
{
    test_basic();
    test_wraparound();
    test_alignment();
    test_many();
    printf("mem: ok\n");
    return 0;
}
