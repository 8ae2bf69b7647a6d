/* zn_ld_pick.c: maps a requested library file name to one Zinc provides.
 * Versions differ between what an app was linked against and what Zinc
 * ships (libcublas.so.12 vs .13, libcuda.so vs .so.1), so names match by
 * stem ("libcuda.so") when the exact name is not there. */
#include "zn_ld.h"

#include <string.h>

const char *zn_ld_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Length of "lib<x>.so" at the start of name, or 0 if it has no such stem
 * (".so" must end the name or be followed by a version '.'). */
static size_t stem_len(const char *name)
{
    if (strncmp(name, "lib", 3) != 0)
        return 0;
    for (const char *p = name + 3; (p = strstr(p, ".so")) != NULL; p += 3)
        if (p[3] == '\0' || p[3] == '.')
            return (size_t)(p + 3 - name);
    return 0;
}

/* Ranks a candidate against the request's stem: 0 no match, 1 bare stem,
 * 2 versioned (preferred: it is what sonames look like). */
static int rank(const char *name, const char *base, size_t stem)
{
    if (stem_len(name) != stem || strncmp(name, base, stem) != 0)
        return 0;
    return name[stem] == '.' ? 2 : 1;
}

int zn_ld_pick(const char *base, const char (*names)[ZN_LD_NAME_MAX], int count)
{
    size_t stem = stem_len(base);
    if (stem == 0)
        return -1;
    int best = -1, best_rank = 0;
    for (int i = 0; i < count; i++) {
        if (strcmp(names[i], base) == 0)
            return i;
        int r = rank(names[i], base, stem);
        if (r == 0 || r < best_rank)
            continue;
        /* Among equals the shortest (fewest version parts), then by name so
         * the answer does not depend on directory order. */
        size_t len = strlen(names[i]), best_len = best < 0 ? 0 : strlen(names[best]);
        if (r > best_rank || len < best_len || (len == best_len && strcmp(names[i], names[best]) < 0)) {
            best = i;
            best_rank = r;
        }
    }
    return best;
}
