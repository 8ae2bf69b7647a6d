/* ptx_roundtrip FILE: parses a PTX file with Zinc's front end and prints it
 * back (stdout). Exit status 1 with the parser's message on error. */
#include <stdio.h>
#include <stdlib.h>
#include "ptx/ptx_ir.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ptx_roundtrip FILE.ptx\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        return 2;
    char err[512];
    ptx_module *m = ptx_parse(buf, n, argv[1], err, sizeof err);
    free(buf);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    char *out = ptx_print(m);
    fputs(out, stdout);
    free(out);
    ptx_module_free(m);
    return 0;
}
