/* sweep_replay.h: reading lanes recorded on a real GPU (sweep_replay.c). */
#ifndef SWEEP_REPLAY_H
#define SWEEP_REPLAY_H

#include "sweep.h"

/* called once per run of consecutive lines of one form: n lanes of inputs
 * (n*SW_NIN slots) and the GPU's outputs (n*SW_NOUT slots) */
typedef void (*sw_replay_fn)(void *ctx, const sw_form *f, const uint64_t *in,
                             const uint64_t *gpu, size_t n);
/* reads FILE (plain or zstd); 0, or -1 when unreadable or when a line names
 * no form of the table */
int sw_replay_load(const char *path, sw_replay_fn fn, void *ctx);
const sw_form *sw_form_named(const char *name, size_t len);

#endif
