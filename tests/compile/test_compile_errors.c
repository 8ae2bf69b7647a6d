/* test_compile_errors.c: bad input gives a compile error with its position,
 * never a crash or a silently wrong kernel. */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

static void expect_error(const char *ptx, const char *want)
{
    char err[1024];
    ptx_module *pm = ptx_parse(ptx, strlen(ptx), "err.ptx", err, sizeof err);
    if (!pm) {
        CHECK(0, "parse failed: %s", err);
        return;
    }
    zn_jit_module *jm = zn_compile(pm, NULL, err, sizeof err);
    CHECK(!jm, "compiled although it should fail (%s)", want);
    CHECK(jm || strstr(err, want), "error '%s' does not contain '%s'", err, want);
    zn_jit_module_free(jm);
    ptx_module_free(pm);
}

#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n"

int main(void)
{
    expect_error(HEAD
        ".visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .b32 %r<4>;\n"
        "\tmov.u32 %r1, 1;\n"
        "\tcvt.rm.f16x2.f32 %r2, %r1, %r1;\n"
        "\tret;\n}\n",
        "ptx:8:2: unsupported instruction 'cvt.rm.f16x2.f32'");
    expect_error(HEAD
        ".extern .func (.param .b32 r) mystery(.param .b32 a);\n"
        ".visible .entry k()\n{\n"
        "\t.reg .b32 %r<4>;\n"
        "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r1;\n"
        "\t.param .b32 retval0;\n"
        "\tcall.uni (retval0), mystery, (param0);\n"
        "\tld.param.b32 %r2, [retval0];\n\t}\n"
        "\tret;\n}\n",
        "undefined external function 'mystery'");
    expect_error(HEAD
        ".global .align 4 .u32 gv;\n"
        ".visible .entry k()\n{\n"
        "\t.reg .b32 %r<4>;\n"
        "\tld.global.u32 %r1, [gv];\n"
        "\tret;\n}\n",
        "no address given for variable 'gv'");
    if (zt_failures)
        fprintf(stderr, "%d check(s) failed\n", zt_failures);
    else
        printf("test_compile_errors: all passed\n");
    return zt_failures != 0;
}
