/* test_nvrtc_arch.c: the option rewrite of Zinc's libnvrtc: every spelling
 * of a real architecture becomes the virtual one, everything else is kept
 * byte for byte. */
#include "zn_nvrtc_arch.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check(const char *const *in, int n, const char *const *want, bool want_changed)
{
    bool changed = !want_changed;
    char **got = zn_nvrtc_ptx_opts(in, n, &changed);
    if (!got) {
        printf("FAIL: out of memory\n");
        failures++;
        return;
    }
    if (changed != want_changed) {
        printf("FAIL: changed %d for %s\n", changed, n ? in[0] : "(none)");
        failures++;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(got[i], want[i])) {
            printf("FAIL: option %d: '%s', want '%s'\n", i, got[i], want[i]);
            failures++;
        }
    zn_nvrtc_free_opts(got, n);
}

/* -dlto and --dlink-time-opt go, in any position; the rest keeps order */
static void check_dlto(void)
{
    const char *in[] = {"-dlto", "-arch=sm_90", "--dlink-time-opt", "-dltox", "-rdc=true"};
    bool changed, had = false;
    char **got = zn_nvrtc_ptx_opts(in, 5, &changed);
    int n = got ? zn_nvrtc_strip_dlto(got, 5, &had) : -1;
    const char *want[] = {"-arch=compute_90", "-dltox", "-rdc=true"};
    if (n != 3 || !had) {
        printf("FAIL: dlto: %d options left (want 3), had %d\n", n, had);
        failures++;
    }
    for (int i = 0; i < n && i < 3; i++)
        if (strcmp(got[i], want[i])) {
            printf("FAIL: dlto: option %d: '%s', want '%s'\n", i, got[i], want[i]);
            failures++;
        }
    zn_nvrtc_free_opts(got, n < 0 ? 0 : n);
    const char *plain[] = {"-arch=compute_80"};
    got = zn_nvrtc_ptx_opts(plain, 1, &changed);
    n = got ? zn_nvrtc_strip_dlto(got, 1, &had) : -1;
    if (n != 1 || had) {
        printf("FAIL: no dlto: %d options left, had %d\n", n, had);
        failures++;
    }
    zn_nvrtc_free_opts(got, n < 0 ? 0 : n);
}

int main(void)
{
    check_dlto();
    const char *a[] = {"--gpu-architecture=sm_90", "-std=c++17"};
    const char *wa[] = {"--gpu-architecture=compute_90", "-std=c++17"};
    check(a, 2, wa, true);
    const char *b[] = {"-arch=sm_90a", "-lineinfo"};
    const char *wb[] = {"-arch=compute_90a", "-lineinfo"};
    check(b, 2, wb, true);
    const char *c[] = {"-I/x", "-arch", "sm_86", "--gpu-architecture", "sm_75"};
    const char *wc[] = {"-I/x", "-arch", "compute_86", "--gpu-architecture", "compute_75"};
    check(c, 5, wc, true);
    const char *d[] = {"--gpu-architecture=compute_80", "-arch", "compute_90", "-Dsm_90=1", "sm_90"};
    check(d, 5, d, false);
    const char *e[] = {"-archx=sm_90", "--gpu-architecture-foo=sm_90"};
    check(e, 2, e, false);
    check(NULL, 0, NULL, false);
    if (failures) {
        printf("FAIL nvrtc_arch: %d failures\n", failures);
        return 1;
    }
    printf("PASS nvrtc_arch\n");
    return 0;
}
