/* zn_ld.h: private to libzinc_ld.so, the rtld-audit library that makes the
 * dynamic loader pick Zinc's libraries (libcuda.so.1, libcublas.so.*, ...)
 * over NVIDIA's, whatever RPATH, RUNPATH or absolute dlopen path asks for.
 *
 * It runs inside the loader's audit namespace, so it is dependency-free:
 * no zn_util, no malloc, no stdio; all state is static and filled once in
 * la_version, then only read. */
#ifndef ZN_LD_H
#define ZN_LD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

enum { ZN_LD_MAX_LIBS = 128, ZN_LD_NAME_MAX = 256 };

/* The libraries Zinc provides: the file names in its lib dir. */
typedef struct zn_ld_libs {
    char dir[PATH_MAX];                            /* no trailing '/' */
    size_t dir_len;
    int count;
    char names[ZN_LD_MAX_LIBS][ZN_LD_NAME_MAX];
} zn_ld_libs;

/* zn_ld_dir.c: the lib dir is $ZINC_LIB_DIR, else the folder this library
 * was loaded from; fills libs with the lib*.so* names found there (not
 * libzinc_ld.so itself). Returns false when there is no usable dir. */
bool zn_ld_libs_load(zn_ld_libs *libs, const char *env_dir);
/* Adds one name to the table; false when it is not a library name or full. */
bool zn_ld_libs_add(zn_ld_libs *libs, const char *name);

/* zn_ld_pick.c: which of names[] replaces a request for `base` (a file
 * name, no '/'): the same name, else the shortest versioned name of the
 * same stem (libcuda.so.580.65 -> libcuda.so.1), else the bare stem
 * (libcuda.so). The stem is everything up to and including ".so".
 * Returns the index, or -1 when Zinc provides no such library. */
int zn_ld_pick(const char *base, const char (*names)[ZN_LD_NAME_MAX], int count);

/* The file name part of a path. */
const char *zn_ld_basename(const char *path);

#endif
