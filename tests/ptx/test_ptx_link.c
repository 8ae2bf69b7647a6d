/* test_ptx_link.c: ptx_link() on small modules written here.
 *
 * Checks the linked module's structure (which definition won, renamed
 * private names and the calls that use them, merged .file tables, highest
 * .version/.target, kept runtime and dynamic-shared declarations, variables
 * ordered so that initializers name earlier symbols) and the
 * error messages (duplicate, unresolved, conflicting kinds and spaces).
 * With a ptxas path as argv[1], ptxas must accept the linked text too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx/ptx_ir.h"

static int failures;
static const char *ptxas;

#define EXPECT(cond) do { if (!(cond)) { \
    printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

#define HDR(v, t) ".version " v "\n.target " t "\n.address_size 64\n"

/* returns n in a private helper */
#define HELPER(n) ".func (.param .b32 r) helper()\n{\n\t.reg .b32 %r<2>;\n" \
    "\tmov.u32 %r1, " #n ";\n\tst.param.b32 [r], %r1;\n\tret;\n}\n"

static const char src_a[] =
    HDR("7.0", "sm_52")
    ".file 1 \"a.cu\"\n"
    ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
    ".extern .shared .align 16 .b8 dyn[];\n"
    ".common .global .align 4 .b8 com[8];\n"
    ".extern .global .align 4 .u32 xb;\n"
    ".visible .global .align 8 .u64 pxb = generic(xb);\n"
    HELPER(1)
    ".weak .func (.param .b32 r) w()\n{\n\t.reg .b32 %r<2>;\n"
    "\tmov.u32 %r1, 11;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n"
    ".visible .func (.param .b32 r) get_a()\n{\n\t.reg .b32 %r<2>;\n"
    "\t.loc 1 5 0\n"
    "\t{\n\t.param .b32 q;\n\tcall.uni (q), helper, ();\n\tld.param.b32 %r1, [q];\n\t}\n"
    "\tst.param.b32 [r], %r1;\n\tret;\n}\n";

static const char src_b[] =
    HDR("8.3", "sm_80")
    ".file 1 \"b.cu\"\n"
    ".extern .shared .align 16 .b8 dyn[];\n"
    ".common .global .align 4 .b8 com[32];\n"
    ".visible .global .align 4 .u32 xb = 5;\n"
    ".extern .func (.param .b32 r) get_a();\n"
    HELPER(2)
    ".weak .func (.param .b32 r) w()\n{\n\t.reg .b32 %r<2>;\n"
    "\tmov.u32 %r1, 22;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\t.loc 1 7 0\n"
    "\t{\n\t.param .b32 q;\n\tcall.uni (q), helper, ();\n\tld.param.b32 %r1, [q];\n\t}\n"
    "\t{\n\t.param .b32 q;\n\tcall.uni (q), get_a, ();\n\tld.param.b32 %r2, [q];\n\t}\n"
    "\t{\n\t.param .b32 q;\n\tcall.uni (q), w, ();\n\tld.param.b32 %r3, [q];\n\t}\n"
    "\tst.global.u32 [%rd1], %r1;\n\tst.global.u32 [%rd1+4], %r2;\n"
    "\tst.global.u32 [%rd1+8], %r3;\n"
    "\tst.shared.u32 [dyn], %r3;\n\tret;\n}\n";

static const char src_c[] = HDR("7.0", "sm_52") ".common .global .align 4 .b8 com[16];\n";

static ptx_module *parse(const char *s, const char *name)
{
    char err[512];
    ptx_module *m = ptx_parse(s, strlen(s), name, err, sizeof err);
    if (!m) {
        printf("FAIL: %s does not parse: %s\n", name, err);
        failures++;
    }
    return m;
}

/* Links the sources; NULL and the message in err on failure. */
static ptx_module *link_srcs(const char *const *srcs, const char *const *names, unsigned n,
                             char **text, char *err, size_t errlen)
{
    ptx_module *m[8];
    for (unsigned i = 0; i < n; i++)
        m[i] = parse(srcs[i], names[i]);
    ptx_module *r = ptx_link((const ptx_module *const *)m, names, n, text, err, errlen);
    for (unsigned i = 0; i < n; i++)
        ptx_module_free(m[i]);
    return r;
}

/* The n-th call's target in f. */
static const ptx_func *call_target(const ptx_func *f, int n)
{
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *in = &f->ins[i];
        if (in->op != PTX_OP_call)
            continue;
        if (n-- == 0)
            for (unsigned k = 0; k < in->nopnds; k++)
                if (in->opnds[k].kind == PTX_OPND_SYM && in->opnds[k].func)
                    return in->opnds[k].func;
    }
    return NULL;
}

/* The immediate of the first mov in f (the value a helper returns). */
static int64_t first_mov_imm(const ptx_func *f)
{
    for (uint32_t i = 0; f && i < f->nins; i++)
        if (f->ins[i].op == PTX_OP_mov && f->ins[i].opnds[1].kind == PTX_OPND_IMM)
            return f->ins[i].opnds[1].ival;
    return -1;
}

static void test_link(void)
{
    const char *srcs[] = {src_a, src_b, src_c};
    const char *names[] = {"a.ptx", "b.ptx", "c.ptx"};
    char err[512], *text = NULL;
    ptx_module *m = link_srcs(srcs, names, 3, &text, err, sizeof err);
    EXPECT(m && text);
    if (!m) {
        printf("  %s\n", err);
        return;
    }
    EXPECT(m->version_major == 8 && m->version_minor == 3 && m->sm == 80);
    /* private helpers: A's keeps its name, B's is renamed; calls follow */
    const ptx_func *ha = ptx_find_func(m, "helper"), *hb = ptx_find_func(m, "helper$zl1");
    EXPECT(ha && hb && first_mov_imm(ha) == 1 && first_mov_imm(hb) == 2);
    const ptx_func *k = ptx_find_func(m, "k"), *ga = ptx_find_func(m, "get_a");
    EXPECT(k && ga && k->is_entry && !ga->is_decl);
    if (k && ga) {
        EXPECT(call_target(k, 0) == hb);
        EXPECT(call_target(k, 1) == ga);
        EXPECT(call_target(ga, 0) == ha);
        /* both weak: the first */
        EXPECT(first_mov_imm(call_target(k, 2)) == 11);
        /* .loc files: each instruction keeps its own file */
        EXPECT(ga->nins && ga->ins[0].loc_file && m->files[ga->ins[0].loc_file] &&
               !strcmp(m->files[ga->ins[0].loc_file], "a.cu"));
        EXPECT(k->nins > 1 && k->ins[1].loc_file &&
               !strcmp(m->files[k->ins[1].loc_file], "b.cu"));
    }
    /* kept declarations: the runtime's vprintf, one dynamic shared array */
    const ptx_func *vp = ptx_find_func(m, "vprintf");
    EXPECT(vp && vp->is_decl);
    unsigned ndyn = 0, ncom = 0;
    int ixb = -1, ipxb = -1;    /* an initializer's symbol comes before it */
    for (uint32_t i = 0; i < m->nvars; i++) {
        if (!strcmp(m->vars[i].name, "xb"))
            ixb = (int)i;
        if (!strcmp(m->vars[i].name, "pxb"))
            ipxb = (int)i;
        ndyn += !strcmp(m->vars[i].name, "dyn") && m->vars[i].space == PTX_SPACE_SHARED;
        if (!strcmp(m->vars[i].name, "com")) {
            ncom++;
            EXPECT(m->vars[i].size == 32);     /* .common: the largest */
        }
    }
    EXPECT(ndyn == 1 && ncom == 1);
    EXPECT(ixb >= 0 && ipxb > ixb);
    if (getenv("ZN_TEST_PRINT"))
        fputs(text, stdout);
    if (ptxas && ptxas[0]) {
        char path[] = "/tmp/zn_ptx_link_XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        EXPECT(f != NULL);
        if (f) {
            fputs(text, f);
            fclose(f);
            char cmd[1024];
            snprintf(cmd, sizeof cmd, "%s -arch=sm_80 -c -o /dev/null %s", ptxas, path);
            EXPECT(system(cmd) == 0);
        }
        remove(path);
    }
    free(text);
    ptx_module_free(m);
}

static void expect_error(const char *a, const char *b, const char *w1, const char *w2)
{
    const char *srcs[] = {a, b};
    const char *names[] = {"one.ptx", "two.ptx"};
    char err[512] = "";
    char *text = (char *)1;
    ptx_module *m = link_srcs(srcs, names, 2, &text, err, sizeof err);
    EXPECT(!m && !text);
    if (!strstr(err, w1) || !strstr(err, w2)) {
        printf("FAIL: error '%s' should name '%s' and '%s'\n", err, w1, w2);
        failures++;
    }
    ptx_module_free(m);
}

static void test_errors(void)
{
    const char *entry = HDR("7.0", "sm_52") ".visible .entry k()\n{\n\tret;\n}\n";
    expect_error(entry, entry, "duplicate definition of 'k'", "two.ptx");
    expect_error(HDR("7.0", "sm_52") ".extern .global .align 4 .u32 x;\n",
                 HDR("7.0", "sm_52") ".global .align 4 .u32 y;\n", "unresolved", "'x'");
    expect_error(HDR("7.0", "sm_52") ".extern .const .align 4 .u32 x;\n",
                 HDR("7.0", "sm_52") ".visible .global .align 4 .u32 x;\n", ".const", ".global");
    expect_error(HDR("7.0", "sm_52") ".visible .global .align 4 .u32 x;\n",
                 HDR("7.0", "sm_52") ".visible .entry x()\n{\n\tret;\n}\n",
                 "'x' is a variable", "function");
    /* firmware calls outside libcudadevrt's image stay unresolved */
    expect_error(entry, HDR("7.0", "sm_52") ".extern .func (.param .b32 r) cnpSetLastError\n"
                 "(\n\t.param .b32 e\n)\n;\n"
                 ".visible .func f()\n{\n\t.reg .b32 %r<2>;\n\t{\n\t.param .b32 p;\n"
                 "\t.param .b32 r;\n\tst.param.b32 [p], 0;\n"
                 "\tcall.uni (r), cnpSetLastError, (p);\n\t}\n\tret;\n}\n",
                 "unresolved", "'cnpSetLastError'");
}

/* nvcc -rdc -lcudadevrt with device-side launches: libcudadevrt's image
 * (it defines __cudaCDP2LaunchDeviceV2 over firmware calls) is left out,
 * and the program's calls stay declarations for Zinc's device runtime. */
static void test_device_runtime(void)
{
    const char *user = HDR("7.0", "sm_52")
        ".extern .func (.param .b32 r) __cudaCDP2LaunchDeviceV2\n"
        "(\n\t.param .b64 a,\n\t.param .b64 b\n)\n;\n"
        ".visible .entry k()\n{\n\t{\n\t.param .b64 p0;\n\t.param .b64 p1;\n"
        "\t.param .b32 r;\n\tst.param.b64 [p0], 0;\n\tst.param.b64 [p1], 0;\n"
        "\tcall.uni (r), __cudaCDP2LaunchDeviceV2, (p0, p1);\n\t}\n\tret;\n}\n";
    const char *devrt = HDR("7.0", "sm_52")
        ".extern .func (.param .b32 r) cnpLaunchDeviceV2\n(\n\t.param .b64 a\n)\n;\n"
        ".visible .func (.param .b32 r) __cudaCDP2LaunchDeviceV2(.param .b64 a, "
        ".param .b64 b)\n{\n\t{\n\t.param .b64 p;\n\t.param .b32 q;\n"
        "\tst.param.b64 [p], 0;\n\tcall.uni (q), cnpLaunchDeviceV2, (p);\n\t}\n"
        "\tst.param.b32 [r], 0;\n\tret;\n}\n";
    const char *srcs[] = {user, devrt};
    const char *names[] = {"user.ptx", "cudadevrt.ptx"};
    char err[512] = "";
    ptx_module *m = link_srcs(srcs, names, 2, NULL, err, sizeof err);
    EXPECT(m != NULL);
    if (!m) {
        printf("  %s\n", err);
        return;
    }
    const ptx_func *l = ptx_find_func(m, "__cudaCDP2LaunchDeviceV2");
    EXPECT(l && l->is_decl);
    EXPECT(!ptx_find_func(m, "cnpLaunchDeviceV2"));
    EXPECT(ptx_is_device_runtime_call("__cudaCDP2LaunchDeviceV2_ptsz"));
    EXPECT(ptx_is_runtime_extern("vprintf") && !ptx_is_runtime_extern("cnpLaunchDeviceV2"));
    ptx_module_free(m);
}

int main(int argc, char **argv)
{
    ptxas = argc > 1 ? argv[1] : NULL;
    test_link();
    test_errors();
    test_device_runtime();
    printf("%s ptx_link (%d failure(s))\n", failures ? "FAIL" : "PASS", failures);
    return failures != 0;
}
