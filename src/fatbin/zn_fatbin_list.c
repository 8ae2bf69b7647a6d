/* zn_fatbin_list.c: the public entry enumeration. */
#include "zn_fatbin_internal.h"

typedef struct list_ctx {
    void (*cb)(void *u, const zn_fatbin_entry *e);
    void *u;
} list_ctx;

static int list_visit(void *u, const zn_fb_item *it, char *err, size_t errlen)
{
    list_ctx *c = u;
    if (c->cb)
        c->cb(c->u, &it->e);
    return 0;
}

int zn_fatbin_list_n(const void *image, size_t size,
                     void (*cb)(void *u, const zn_fatbin_entry *e), void *u,
                     char *err, size_t errlen)
{
    list_ctx c = { cb, u };
    return zn_fb_walk(image, size, list_visit, &c, err, errlen);
}

int zn_fatbin_list(const void *image, void (*cb)(void *u, const zn_fatbin_entry *e),
                   void *u, char *err, size_t errlen)
{
    return zn_fatbin_list_n(image, 0, cb, u, err, errlen);
}
