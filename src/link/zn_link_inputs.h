/* zn_link_inputs.h: the inputs of a PTX link, shared by the driver's JIT
 * linker (cuLink*, src/driver/zn_drv_link.c) and Zinc's nvJitLink
 * (src/nvjitlink). Every input is reduced to PTX text and parsed when it is
 * added, so a malformed one fails at once with its position in the error
 * log: PTX as is; a fatbin gives its PTX entries for a compute capability;
 * a host object or library, the PTX of every fatbin embedded in it. */
#ifndef ZN_LINK_INPUTS_H
#define ZN_LINK_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../ptx/ptx_ir.h"

/* A growing text of '\n'-terminated lines (NULL text when empty). */
typedef struct zn_text_log {
    char *text;
    size_t len;
} zn_text_log;

__attribute__((format(printf, 2, 3)))
void zn_text_logf(zn_text_log *l, const char *fmt, ...);

typedef enum zn_link_rc {
    ZN_LINK_OK = 0,
    ZN_LINK_BAD_PTX,        /* a PTX text did not parse */
    ZN_LINK_BAD_FATBIN,     /* a malformed fatbin */
    ZN_LINK_NO_PTX,         /* a fatbin, object or library held no PTX */
    ZN_LINK_NO_MEMORY,
} zn_link_rc;

typedef struct zn_link_inputs {
    ptx_module **mods;
    char **names;
    unsigned n, cap;
    unsigned cc;            /* a fatbin's PTX is chosen for this (90: sm_90) */
    bool verbose;           /* an info line per PTX added */
    zn_text_log info, error;
} zn_link_inputs;

/* Each logs its errors ("error   : ...") in s->error. */
zn_link_rc zn_link_add_ptx(zn_link_inputs *s, const char *text, size_t len, const char *name);
zn_link_rc zn_link_add_fatbin(zn_link_inputs *s, const void *data, size_t size, const char *name);
zn_link_rc zn_link_add_object(zn_link_inputs *s, const void *data, size_t size, const char *name);

/* ptx_link over every input: the linked module (*text its PTX, malloc'd),
 * or NULL with the error logged. */
ptx_module *zn_link_inputs_link(zn_link_inputs *s, char **text);

void zn_link_inputs_free(zn_link_inputs *s);

#endif
