/* zn_drv_profile.h: ZINC_PROFILE=1: per-kernel launch counts, execution
 * and compile times, printed as a table on stderr at process exit
 * (docs/profile.md). Hooks: zn_drv_module.c (compiles), zn_drv_op.c
 * (kernel runs). All cheap no-ops when profiling is off. */
#ifndef ZN_DRV_PROFILE_H
#define ZN_DRV_PROFILE_H

#include "../compile/zn_compile.h"

/* Whether ZINC_PROFILE is set (and not "0"). */
int zn_prof_on(void);
/* Monotonic wall clock in seconds. */
double zn_prof_now(void);
/* One module compiled in sec: charged to each of its kernels. */
void zn_prof_compile(const zn_jit_module *jm, double sec);
/* One kernel compiled on its first launch (lazy loading). */
void zn_prof_compile_kernel(const char *name, double sec);
/* One grid of kernel `name` ran for sec. */
void zn_prof_launch(const char *name, double sec);

#endif
