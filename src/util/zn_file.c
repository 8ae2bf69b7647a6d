/* zn_file.c: a whole file read into memory (zn_file.h). */
#include "zn_file.h"

#include <stdio.h>
#include <stdlib.h>

char *zn_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n + 65536 + 1 > cap) {
            cap = (n + 65536 + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, 65536, f);
        n += got;
    } while (got == 65536);
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}
