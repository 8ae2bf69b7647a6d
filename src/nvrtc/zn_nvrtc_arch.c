/* zn_nvrtc_arch.c: sm_XX -> compute_XX in NVRTC option lists. */
#include "zn_nvrtc_arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const arch_opts[] = {"--gpu-architecture", "-arch"};

/* the value part of an architecture option: "sm_90" in "-arch=sm_90";
 * *joined says whether it was joined to the option name */
static const char *arch_value(const char *opt, bool *joined)
{
    for (size_t i = 0; i < sizeof arch_opts / sizeof arch_opts[0]; i++) {
        size_t k = strlen(arch_opts[i]);
        if (strncmp(opt, arch_opts[i], k))
            continue;
        if (opt[k] == '=') {
            *joined = true;
            return opt + k + 1;
        }
        if (!opt[k]) {
            *joined = false;
            return "";
        }
    }
    return NULL;
}

/* opt with its "sm_" value (starting at value) made "compute_" */
static char *virtual_arch(const char *opt, const char *value)
{
    size_t head = (size_t)(value - opt), n = strlen(opt) + sizeof "compute_" - sizeof "sm_" + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%.*scompute_%s", (int)head, opt, value + 3);
    return s;
}

char **zn_nvrtc_ptx_opts(const char *const *opts, int n, bool *changed)
{
    *changed = false;
    char **out = calloc(n > 0 ? (size_t)n : 1, sizeof *out);
    if (!out)
        return NULL;
    bool next_is_value = false;
    for (int i = 0; i < n; i++) {
        const char *o = opts[i] ? opts[i] : "";
        bool joined = false;
        const char *v = next_is_value ? o : arch_value(o, &joined);
        next_is_value = v && !next_is_value && !joined && !*v;
        if (v && !strncmp(v, "sm_", 3)) {
            out[i] = virtual_arch(o, v);
            *changed = true;
        } else {
            out[i] = strdup(o);
        }
        if (!out[i]) {
            zn_nvrtc_free_opts(out, i);
            return NULL;
        }
    }
    return out;
}

void zn_nvrtc_free_opts(char **opts, int n)
{
    for (int i = 0; opts && i < n; i++)
        free(opts[i]);
    free(opts);
}

static bool is_dlto(const char *o)
{
    return o && (!strcmp(o, "-dlto") || !strcmp(o, "--dlink-time-opt"));
}

int zn_nvrtc_strip_dlto(char **opts, int n, bool *had)
{
    int k = 0;
    *had = false;
    for (int i = 0; i < n; i++) {
        if (is_dlto(opts[i])) {
            free(opts[i]);
            *had = true;
        } else {
            opts[k++] = opts[i];
        }
    }
    return k;
}
