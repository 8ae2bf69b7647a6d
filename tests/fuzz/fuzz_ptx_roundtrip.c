/* fuzz_ptx_roundtrip.c: PTX text -> ptx_parse -> ptx_verify -> ptx_print.
 *
 * Invariants: a rejected input has a positioned message; an accepted one
 * verifies, prints, the print parses again, and printing that gives the
 * same text (print is a fixed point after one round). */
#include "zn_fuzz.h"
#include "ptx/ptx_ir.h"

#include <string.h>

void zn_fuzz_init(void) {}

void zn_fuzz_one(const uint8_t *data, size_t size)
{
    char err[512];
    err[0] = 0;
    ptx_module *m = ptx_parse((const char *)data, size, "fuzz", err, sizeof err);
    if (!m) {
        ZN_FUZZ_CHECK(err[0] != 0, "rejected input without a message");
        ZN_FUZZ_CHECK(strncmp(err, "fuzz:", 5) == 0, "message not positioned: %s", err);
        return;
    }
    ZN_FUZZ_CHECK(ptx_verify(m, err, sizeof err) == 0, "parsed module fails verify: %s", err);
    char *p1 = ptx_print(m);
    ZN_FUZZ_CHECK(p1 != NULL, "print failed");
    ptx_module *m2 = ptx_parse(p1, strlen(p1), "printed", err, sizeof err);
    ZN_FUZZ_CHECK(m2 != NULL, "printed text does not parse: %s\n--- printed ---\n%s", err, p1);
    char *p2 = ptx_print(m2);
    ZN_FUZZ_CHECK(p2 && strcmp(p1, p2) == 0,
                  "print is not a fixed point\n--- first ---\n%s\n--- second ---\n%s", p1,
                  p2 ? p2 : "(null)");
    free(p2);
    ptx_module_free(m2);
    free(p1);
    ptx_module_free(m);
}
