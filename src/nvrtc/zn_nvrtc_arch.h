/* zn_nvrtc_arch.h: NVRTC option lists rewritten so that a real
 * architecture (sm_XX: machine code) becomes its virtual one (compute_XX:
 * PTX), and without -dlto (NVVM IR: PTX instead). Pure string work,
 * tested on its own (test_nvrtc_arch.c). */
#ifndef ZN_NVRTC_ARCH_H
#define ZN_NVRTC_ARCH_H

#include <stdbool.h>

/* A copy of opts[0..n) with each architecture option that names sm_XX
 * (--gpu-architecture=sm_90, -arch=sm_90a, "-arch" "sm_80", ...) naming
 * compute_XX instead; *changed says whether any did. NULL if out of
 * memory. Free with zn_nvrtc_free_opts(copy, n). */
char **zn_nvrtc_ptx_opts(const char *const *opts, int n, bool *changed);
void zn_nvrtc_free_opts(char **opts, int n);

/* Removes -dlto / --dlink-time-opt (link-time optimisation: NVVM IR in
 * place of PTX) from opts[0..n), freeing them; returns the new count and
 * sets *had when one was there. */
int zn_nvrtc_strip_dlto(char **opts, int n, bool *had);

#endif
