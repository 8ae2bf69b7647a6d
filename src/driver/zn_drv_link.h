/* zn_drv_link.h: PTX linking for the driver (zn_drv_link.c): the cuLink*
 * entry points (declared in zn_cuda.h) and the helper the module loader
 * uses for -rdc programs. */
#ifndef ZN_DRV_LINK_H
#define ZN_DRV_LINK_H

#include "zn_cuda.h"
#include "../fatbin/zn_fatbin.h"

/* Links the PTX images of an -rdc program (one per translation unit, as
 * zn_fatbin_get_ptx returns them) into one: on success *imgs is replaced by
 * a one-element array holding the linked PTX text (the old array freed) and
 * *n becomes 1. On failure returns CUDA_ERROR_INVALID_PTX with the message
 * in err; *imgs and *n are unchanged. */
CUresult zn_link_ptx_images(zn_ptx_image **imgs, unsigned *n, char *err, size_t errlen);

#endif
