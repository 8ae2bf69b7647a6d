/* zinc_oc.h: `zinc oc`, the offline compiler (zinc_oc.c), and its input
 * reader (zinc_oc_input.c). */
#ifndef ZINC_OC_H
#define ZINC_OC_H

#include <stddef.h>

typedef struct zn_oc_module {
    char *text;         /* PTX, NUL-terminated */
    size_t len;
    char name[320];     /* for messages: the file, and which PTX of it */
} zn_oc_module;

typedef struct zn_oc_inputs {
    zn_oc_module *mods;
    unsigned n;
} zn_oc_inputs;

/* The PTX modules of a file; 0, or -1 with a message in err. */
int zinc_oc_read(const char *path, zn_oc_inputs *in, char *err, size_t errlen);
/* The same, taking of each fatbin the PTX the driver picks for compute
 * capability cc (e.g. 86), as `zinc cache warm` must. */
int zinc_oc_read_cc(const char *path, unsigned cc, zn_oc_inputs *in, char *err, size_t errlen);
void zinc_oc_inputs_free(zn_oc_inputs *in);

#endif
