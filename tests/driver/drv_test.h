/* drv_test.h: the checking macros of the driver-API tests. Each failure
 * prints FAIL with file:line and counts; main returns drv_test_end(). */
#ifndef DRV_TEST_H
#define DRV_TEST_H

#include <cuda.h>
#include <stdio.h>

static int drv_failures;

#define EXPECT(cond) do { if (!(cond)) { \
    printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); drv_failures++; } } while (0)
#define EXPECT_RC(call, want) do { CUresult r_ = (call); if (r_ != (want)) { \
    const char *n_ = NULL; cuGetErrorName(r_, &n_); \
    printf("FAIL %s:%d: %s -> %d (%s), want %d\n", __FILE__, __LINE__, #call, (int)r_, \
           n_ ? n_ : "?", (int)(want)); drv_failures++; } } while (0)
#define OK(call) EXPECT_RC(call, CUDA_SUCCESS)

/* Prints PASS <name> or the failure count; the process's exit status. */
static inline int drv_test_end(const char *name)
{
    if (drv_failures) {
        printf("FAIL %s: %d failures\n", name, drv_failures);
        return 1;
    }
    printf("PASS %s\n", name);
    return 0;
}

#endif
