/* test_ptx_parse: the PTX front end against nvcc output and broken input.
 *   test_ptx_parse SAMPLES_DIR [PTXAS]
 * 1. every .ptx file in SAMPLES_DIR parses; printing is a fixed point (print,
 *    parse, print gives the same text); ptxas (when given) accepts the
 *    printed text;
 * 2. decoded fields of known kernels and of small snippets match values
 *    worked out by hand from the PTX ISA;
 * 3. broken snippets, truncations and byte mutations of a valid file give
 *    "name:line:col: ..." errors, never a crash (run under ASan/UBSan). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ptx/ptx_ir.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        b[n] = 0;
    *len = (size_t)n;
    return b;
}

static ptx_module *parse_str(const char *s, char *err, size_t errlen)
{
    return ptx_parse(s, strlen(s), "snippet", err, errlen);
}

/* "name:LINE:COL: " with LINE >= 1 */
static bool has_position(const char *err, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(err, name, n) || err[n] != ':')
        return false;
    char *e;
    long line = strtol(err + n + 1, &e, 10);
    if (line < 1 || *e != ':')
        return false;
    strtol(e + 1, &e, 10);
    return e[0] == ':' && e[1] == ' ';
}

/* ---- 1. samples ------------------------------------------------------------ */

static void run_ptxas(const char *ptxas, const char *text, const ptx_module *m,
                      const char *what)
{
    char path[] = "/tmp/zn_ptx_test_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    size_t n = strlen(text);
    CHECK(write(fd, text, n) == (ssize_t)n);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -arch=%s %s -o /dev/null", ptxas, m->target, path);
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "ptxas rejected the printed %s (kept in %s)\n", what, path);
    else
        unlink(path);
    CHECK(rc == 0);
}

static uint32_t count_defs(const ptx_module *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        n += !m->funcs[i].is_decl;
    return n;
}

static int samples(const char *dir, const char *ptxas)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return 0;
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t nl = strlen(e->d_name);
        if (nl < 5 || strcmp(e->d_name + nl - 4, ".ptx"))
            continue;
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *text = read_file(path, &len);
        CHECK(text != NULL);
        if (!text)
            continue;
        ptx_module *m = ptx_parse(text, len, e->d_name, err, sizeof err);
        if (!m)
            fprintf(stderr, "%s\n", err);
        CHECK(m != NULL);
        if (m) {
            char *p1 = ptx_print(m);
            ptx_module *m2 = ptx_parse(p1, strlen(p1), "printed", err, sizeof err);
            if (!m2)
                fprintf(stderr, "reparse of %s: %s\n", e->d_name, err);
            CHECK(m2 != NULL);
            if (m2) {
                char *p2 = ptx_print(m2);
                CHECK(strcmp(p1, p2) == 0);
                CHECK(count_defs(m2) == count_defs(m) && m2->nvars == m->nvars);
                free(p2);
                ptx_module_free(m2);
            }
            if (ptxas)
                run_ptxas(ptxas, p1, m, e->d_name);
            free(p1);
            ptx_module_free(m);
            count++;
        }
        free(text);
    }
    closedir(d);
    return count;
}

/* ---- 2. known kernels ------------------------------------------------------- */

static ptx_module *load(const char *dir, const char *file)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        return NULL;
    ptx_module *m = ptx_parse(text, len, file, err, sizeof err);
    free(text);
    return m;
}

static const ptx_reg *reg_named(const ptx_func *f, const char *name)
{
    for (uint32_t i = 0; i < f->nregs; i++)
        if (!strcmp(f->regs[i].name, name))
            return &f->regs[i];
    return NULL;
}

static void known_funcs(const char *dir)
{
    ptx_module *m = load(dir, "funcs_sm75.ptx");
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK(m->version_major == 9 && m->version_minor == 0);
    CHECK(!strcmp(m->target, "sm_75") && m->sm == 75 && m->address_size == 64);

    const ptx_func *k = ptx_find_func(m, "_Z4kfibPii");
    CHECK(k && k->is_entry && !k->is_decl && k->linkage == PTX_LINK_VISIBLE);
    if (k) {
        CHECK(k->nparams == 2);
        CHECK(k->params[0].type == PTX_T_U64 && k->params[1].type == PTX_T_U32);
        CHECK(k->nregs == 12 + 6 + 1);  /* %r<12>, %rd<6>, scoped temp_param_reg */
        CHECK(reg_named(k, "%r0") && reg_named(k, "%r11") && !reg_named(k, "%r12"));
        CHECK(reg_named(k, "%rd5") && reg_named(k, "%rd5")->type == PTX_T_B64);
    }
    const ptx_func *fib = ptx_find_func(m, "_Z3fibi");
    CHECK(fib && !fib->is_entry && !fib->is_decl);
    if (fib) {
        CHECK(fib->nrets == 1 && fib->nparams == 1);
        CHECK(fib->nregs == 2 + 9 + 2);
        CHECK(fib->nlocals == 4);       /* param0, retval0 in two call scopes */
        CHECK(fib->nlabels == 1);
        /* both scopes declare param0: the flat names differ */
        CHECK(fib->nlocals == 4 && strcmp(fib->locals[0].name, fib->locals[2].name));
        int calls = 0;
        for (uint32_t i = 0; i < fib->nins; i++) {
            const ptx_ins *in = &fib->ins[i];
            if (in->op != PTX_OP_call)
                continue;
            calls++;
            CHECK(in->nopnds == 3 && in->opnds[0].kind == PTX_OPND_LIST);
            CHECK(in->opnds[1].kind == PTX_OPND_SYM && in->opnds[1].func == fib);
            CHECK(in->opnds[2].kind == PTX_OPND_LIST && in->opnds[2].nelems == 1);
            CHECK(in->opnds[2].elems[0].var && in->opnds[2].elems[0].var->space == PTX_SPACE_PARAM);
            CHECK(in->flags & PTX_F(uni));
        }
        CHECK(calls == 2);
        /* the guarded branch is a forward reference to the only label */
        CHECK(fib->ins[2].op == PTX_OP_bra && fib->ins[2].guard_reg >= 0 &&
              fib->ins[2].opnds[0].kind == PTX_OPND_LABEL &&
              fib->ins[2].opnds[0].label == 0);
        CHECK(fib->labels[0].ins > 2 && fib->labels[0].ins < fib->nins);
        CHECK(fib->labels[0].ins < fib->nins && fib->ins[fib->labels[0].ins].op == PTX_OP_st);
    }
    const ptx_func *loc = ptx_find_func(m, "_Z6klocalPii");
    CHECK(loc && loc->nlocals == 1);
    if (loc && loc->nlocals == 1) {
        CHECK(!strcmp(loc->locals[0].name, "__local_depot6"));
        CHECK(loc->locals[0].space == PTX_SPACE_LOCAL && loc->locals[0].size == 128 &&
              loc->locals[0].align == 16);
        /* mov.u64 %SPL, __local_depot6 */
        CHECK(loc->ins[0].op == PTX_OP_mov && loc->ins[0].opnds[1].kind == PTX_OPND_SYM &&
              loc->ins[0].opnds[1].var == &loc->locals[0]);
    }
    const ptx_var *coeffs = ptx_find_var(m, "coeffs");
    CHECK(coeffs && coeffs->space == PTX_SPACE_CONST && coeffs->size == 16 && coeffs->init);
    if (coeffs && coeffs->init) {
        float f[4], want[4] = {1.0f, 0.5f, 0.25f, 0.125f};
        memcpy(f, coeffs->init, 16);
        CHECK(!memcmp(f, want, 16));
    }
    const ptx_var *dd = ptx_find_var(m, "dev_d");
    CHECK(dd && dd->type == PTX_T_F64 && dd->init);
    if (dd && dd->init) {
        double v;
        memcpy(&v, dd->init, 8);
        CHECK(v == 3.25);
    }
    const ptx_var *ptrs = ptx_find_var(m, "dev_ptrs");
    CHECK(ptrs && ptrs->nrelocs == 2);
    if (ptrs && ptrs->nrelocs == 2) {
        CHECK(!strcmp(ptrs->relocs[0].sym, "dev_a") && ptrs->relocs[0].generic &&
              ptrs->relocs[0].offset == 0 && ptrs->relocs[0].addend == 0);
        CHECK(!strcmp(ptrs->relocs[1].sym, "dev_b") && ptrs->relocs[1].offset == 8 &&
              ptrs->relocs[1].addend == 4);
    }
    const ptx_var *ops = ptx_find_var(m, "ops");
    CHECK(ops && ops->nrelocs == 2 && !ops->relocs[1].generic &&
          !strcmp(ops->relocs[1].sym, "_Z6op_mulii"));
    const ptx_var *str = ptx_find_var(m, "dev_str");
    CHECK(str && str->size == 5 && str->init && !memcmp(str->init, "zinc", 5));
    const ptx_func *vp = ptx_find_func(m, "vprintf");
    CHECK(vp && vp->is_decl && vp->linkage == PTX_LINK_EXTERN && vp->nparams == 2);

    /* function pointer call through a .callprototype */
    const ptx_func *fp = ptx_find_func(m, "_Z5kfptrPii");
    bool found = false;
    for (uint32_t i = 0; fp && i < fp->nins; i++) {
        const ptx_ins *in = &fp->ins[i];
        if (in->op != PTX_OP_call)
            continue;
        found = true;
        CHECK(in->nopnds == 4 && in->opnds[1].kind == PTX_OPND_REG);
        const ptx_func *pr = in->opnds[3].func;
        CHECK(pr && pr->is_decl && pr->nrets == 1 && pr->nparams == 2);
    }
    CHECK(found);
    ptx_module_free(m);
}

static void known_sync(const char *dir)
{
    ptx_module *m = load(dir, "sync_sm75.ptx");
    CHECK(m != NULL);
    if (!m)
        return;
    const ptx_func *r = ptx_find_func(m, "_Z10reduce_sumPKfPfi");
    CHECK(r && r->maxntid[0] == 256 && r->maxntid[1] == 1 && r->minnctapersm == 2);
    const ptx_var *dyn = ptx_find_var(m, "dyn");
    CHECK(dyn && dyn->unsized && dyn->size == 0 && dyn->space == PTX_SPACE_SHARED &&
          dyn->linkage == PTX_LINK_EXTERN);
    const ptx_func *w = ptx_find_func(m, "_Z8warp_opsPiPKi");
    int shfl = 0, pairs = 0, ballots = 0;
    for (uint32_t i = 0; w && i < w->nins; i++) {
        const ptx_ins *in = &w->ins[i];
        if (in->op == PTX_OP_shfl) {
            shfl++;
            CHECK(in->flags & PTX_F(sync));
            pairs += in->opnds[0].pair;
        }
        if (in->op == PTX_OP_vote && in->subop == PTX_SUB_BALLOT)
            ballots++;
    }
    CHECK(shfl >= 4 && pairs >= 4 && ballots >= 1);
    ptx_module_free(m);
}

static void known_hand(const char *dir)
{
    ptx_module *m = load(dir, "hand_sm90.ptx");
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK(!strcmp(m->target, "sm_90a") && m->sm == 90 && m->version_minor == 3);
    CHECK(m->nfiles == 2 && m->files[1] && !strcmp(m->files[1], "hand.cu"));
    const ptx_func *k = ptx_find_func(m, "hand");
    CHECK(k != NULL);
    if (!k)
        return;
    CHECK(k->params[0].ptr_attrs && k->params[0].ptr_space == PTX_SPACE_GLOBAL &&
          k->params[0].ptr_align == 16);
    CHECK(k->maxntid[0] == 128 && k->minnctapersm == 1);
    int brx = 0, mma = 0, protos = 0;
    for (uint32_t i = 0; i < k->nins; i++) {
        const ptx_ins *in = &k->ins[i];
        if (in->op == PTX_OP_brx) {
            brx++;
            CHECK(in->opnds[1].nelems == 4);
            CHECK(in->opnds[1].nelems == 4 &&
                  !strcmp(k->labels[in->opnds[1].elems[1].label].name, "$L1"));
        }
        if (in->op == PTX_OP_mma) {
            mma++;
            CHECK(in->nopnds == 4 && in->opnds[1].nelems == 4 && in->ntypes == 3);
        }
        if (in->op == PTX_OP_call && in->nopnds == 3 && in->opnds[0].kind == PTX_OPND_REG) {
            protos++;
            CHECK(in->opnds[2].func && in->opnds[2].func->noreturn &&
                  in->opnds[2].func->nparams == 1 && in->opnds[2].func->nrets == 0);
        }
        if (in->loc_line == 6)
            CHECK(in->loc_file == 1);
    }
    CHECK(brx == 1 && mma == 1 && protos == 1);
    /* the .reg parameter of helper is its register 0 */
    const ptx_func *h = ptx_find_func(m, "helper");
    CHECK(h && h->nparams == 1 && h->params[0].space == PTX_SPACE_REG && h->nregs == 2 &&
          !strcmp(h->regs[0].name, "x") && h->ins[0].opnds[1].reg == 0);
    const ptx_var *g = ptx_find_var(m, "gd");
    double want[2] = {1.5, -2.0e3}, got[2];
    CHECK(g && g->init);
    if (g && g->init) {
        memcpy(got, g->init, 16);
        CHECK(got[0] == want[0] && got[1] == want[1]);
    }
    const ptx_var *t = ptx_find_var(m, "gtab");
    CHECK(t && t->size == 24 && t->init && t->init[20] == 6);
    const ptx_func *w = ptx_find_func(m, "wfn");
    CHECK(w && !w->is_decl && w->linkage == PTX_LINK_WEAK && w->noreturn);
    ptx_module_free(m);
}

/* ---- 2b. snippets with decoded fields --------------------------------------- */

static const char *HDR = ".version 8.0\n.target sm_80\n.address_size 64\n";

static ptx_module *snip(const char *body)
{
    static char buf[8192];
    snprintf(buf, sizeof buf, "%s.visible .entry k(.param .u64 k_p0)\n{\n"
             ".reg .pred %%p<4>;\n.reg .b32 %%r<9>;\n.reg .f32 %%f<9>;\n"
             ".reg .b64 %%rd<9>;\n.reg .f64 %%fd<3>;\n%s\nret;\n}\n", HDR, body);
    char err[512];
    ptx_module *m = parse_str(buf, err, sizeof err);
    if (!m)
        fprintf(stderr, "snippet failed: %s\n---\n%s\n", err, body);
    return m;
}

/* video operand selectors and negated operands: decoded digits as written */
static void video_snippet(void)
{
    ptx_module *m = snip(
        "vmad.s32.u32.u32 %r1, -%r2.h1, %r3.b2, %r4;\n"
        "vset4.u32.u32.ne %r1.b31, %r2.b7531, %r3.b0246, %r5;\n"
        "vadd.s32.s32.s32.sat %r1.h1, %r2, %r3.b0, %r4;\n");
    CHECK(m != NULL);
    if (!m)
        return;
    const ptx_ins *i = m->funcs[0].ins;
    CHECK(i[0].opnds[1].minus && i[0].opnds[1].vsel == 'h' && i[0].opnds[1].nsel == 1 &&
          i[0].opnds[1].sel[0] == 1 && !i[0].opnds[2].minus && i[0].opnds[2].vsel == 'b');
    CHECK(i[1].opnds[0].vsel == 'b' && i[1].opnds[0].nsel == 2 && i[1].opnds[0].sel[0] == 3 &&
          i[1].opnds[0].sel[1] == 1 && i[1].opnds[2].nsel == 4 && i[1].opnds[2].sel[3] == 6 &&
          i[1].cmp == PTX_CMP_NE);
    CHECK(i[2].opnds[0].vsel == 'h' && i[2].opnds[1].vsel == 0 && (i[2].flags & PTX_F(sat)));
    ptx_module_free(m);
}

static void snippets(void)
{
    ptx_module *m = snip(
        "setp.lt.and.s32 %p1, %r1, %r2, %p2;\n"      /* 0 */
        "mul.lo.s32 %r1, %r2, %r3;\n"                 /* 1 */
        "setp.lo.u32 %p1, %r1, 0x10;\n"               /* 2 */
        "vote.sync.uni.pred %p1, %p2, -1;\n"          /* 3 */
        "cvt.rn.f32.s32 %f1, %r1;\n"                  /* 4 */
        "cvta.to.global.u64 %rd1, %rd2;\n"            /* 5 */
        "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];\n" /* 6 */
        "st.global.u32 [%rd1+-8], %r1;\n"             /* 7 */
        "shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;\n" /* 8 */
        "@!%p3 bra $L_end;\n"                         /* 9 */
        "mov.f32 %f1, 0f3F800000;\n"                  /* 10 */
        "mov.u32 %r1, %tid.x;\n"                      /* 11 */
        "mov.b32 %r2, 017;\n"                         /* 12 */
        "mov.b32 %r3, 0b101;\n"                       /* 13 */
        "mov.b32 %r4, 5U;\n"                          /* 14 */
        "add.s32 %r5, %r4, -3;\n"                     /* 15 */
        "mov.f32 %f2, 1.5;\n"                         /* 16 */
        "mov.f64 %fd1, 0d3FF0000000000000;\n"         /* 17 */
        "ld.param.u64 %rd3, [k_p0];\n"                /* 18 */
        "mov.u32 %r6, %laneid;\n"                     /* 19 */
        "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;\n" /* 20 */
        "fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4;\n"    /* 21 */
        "bar.warp.sync -1;\n"                         /* 22 */
        "$L_end:\n");
    CHECK(m != NULL);
    if (m) {
        const ptx_func *f = &m->funcs[0];
        const ptx_ins *i = f->ins;
        CHECK(f->nins == 24);
        CHECK(i[0].op == PTX_OP_setp && i[0].cmp == PTX_CMP_LT && i[0].subop == PTX_SUB_AND &&
              i[0].type[0] == PTX_T_S32 && i[0].ntypes == 1 && i[0].nopnds == 4);
        CHECK(i[1].op == PTX_OP_mul && (i[1].flags & PTX_F(lo_half)) && i[1].cmp == PTX_CMP_NONE);
        CHECK(i[2].cmp == PTX_CMP_LO && i[2].flags == 0 && i[2].opnds[2].ival == 16);
        CHECK(i[3].subop == PTX_SUB_UNI && !(i[3].flags & PTX_F(uni)) &&
              (i[3].flags & PTX_F(sync)) && i[3].opnds[2].ival == -1);
        CHECK(i[4].ntypes == 2 && i[4].type[0] == PTX_T_F32 && i[4].type[1] == PTX_T_S32 &&
              i[4].rnd == PTX_RND_RN);
        CHECK(i[5].space == PTX_SPACE_GLOBAL && (i[5].flags & PTX_F(to)));
        CHECK(i[6].vec == 4 && i[6].opnds[0].kind == PTX_OPND_VEC &&
              i[6].opnds[0].nelems == 4 && i[6].opnds[1].kind == PTX_OPND_ADDR &&
              i[6].opnds[1].ival == 16 && i[6].opnds[1].reg >= 0 &&
              !strcmp(f->regs[i[6].opnds[1].reg].name, "%rd1") && (i[6].flags & PTX_F(nc)));
        CHECK(i[7].opnds[0].ival == -8);
        CHECK(i[8].opnds[0].pair && !strcmp(f->regs[i[8].opnds[0].reg2].name, "%p1") &&
              i[8].subop == PTX_SUB_DOWN && i[8].nopnds == 5);
        CHECK(i[9].guard_neg && !strcmp(f->regs[i[9].guard_reg].name, "%p3") &&
              f->labels[i[9].opnds[0].label].ins == 23);
        CHECK(i[10].opnds[1].kind == PTX_OPND_FIMM && i[10].opnds[1].fbits == 0x3F800000u &&
              !i[10].opnds[1].is_f64);
        CHECK(i[11].opnds[1].kind == PTX_OPND_SREG && i[11].opnds[1].sreg == PTX_SREG_TID_X);
        CHECK(i[12].opnds[1].ival == 15 && i[13].opnds[1].ival == 5 && i[14].opnds[1].ival == 5);
        CHECK(i[15].opnds[2].kind == PTX_OPND_IMM && i[15].opnds[2].ival == -3);
        CHECK(i[16].opnds[1].kind == PTX_OPND_FIMM && i[16].opnds[1].fbits == 0x3FC00000u);
        CHECK(i[17].opnds[1].is_f64 && i[17].opnds[1].fbits == UINT64_C(0x3FF0000000000000));
        CHECK(i[18].opnds[1].kind == PTX_OPND_ADDR && i[18].opnds[1].var == &f->params[0]);
        CHECK(i[19].opnds[1].sreg == PTX_SREG_LANEID);
        CHECK(i[20].subop == PTX_SUB_CAS && i[20].nopnds == 4);
        CHECK(i[21].rnd == PTX_RND_RN && (i[21].flags & PTX_F(ftz)) && (i[21].flags & PTX_F(sat)));
        CHECK(i[22].op == PTX_OP_bar && (i[22].flags & PTX_F(warp)) && (i[22].flags & PTX_F(sync)));
        ptx_module_free(m);
    }

    /* forward function reference, brx.idx, nested scopes, initializers */
    const char *src =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".global .align 4 .f32 gf[3] = {1.5, 0f40000000, 3};\n"
        ".global .align 8 .u64 gp[2] = {gf, generic(gf)+8};\n"
        ".global .align 2 .b16 gm[2][2] = {{1, 2}, {3, -1}};\n"
        ".visible .entry k(.param .u32 k_p0)\n{\n"
        ".reg .b32 %r<4>;\n"
        "ld.param.u32 %r1, [k_p0];\n"
        "$Lt: .branchtargets $L0, $L1, $L0;\n"
        "brx.idx %r1, $Lt;\n"
        "$L0:\n"
        "{ .reg .b32 %r1; mov.b32 %r1, 1; { .reg .b32 %r1; mov.b32 %r1, 2; } }\n"
        "{ .param .b32 param0; st.param.b32 [param0+0], %r2;\n"
        "  call.uni later, (param0); }\n"
        "$L1:\n"
        "ret;\n}\n"
        ".func later(.param .b32 x)\n{\nret;\n}\n";
    char err[512];
    m = parse_str(src, err, sizeof err);
    if (!m)
        fprintf(stderr, "%s\n", err);
    CHECK(m != NULL);
    if (m) {
        const ptx_func *f = ptx_find_func(m, "k");
        CHECK(f && f->nregs == 6);
        if (f && f->nregs == 6) {
            /* three distinct %r1 registers, flat names all different */
            CHECK(strcmp(f->regs[1].name, f->regs[4].name) &&
                  strcmp(f->regs[4].name, f->regs[5].name));
            CHECK(f->ins[2].opnds[0].reg == 4 && f->ins[3].opnds[0].reg == 5);
            const ptx_ins *b = &f->ins[1];
            CHECK(b->op == PTX_OP_brx && b->opnds[1].kind == PTX_OPND_LIST &&
                  b->opnds[1].nelems == 3 && b->opnds[1].elems[2].label == b->opnds[1].elems[0].label);
            const ptx_ins *c = &f->ins[5];
            CHECK(c->op == PTX_OP_call && c->opnds[0].func == ptx_find_func(m, "later"));
        }
        const ptx_var *gf = ptx_find_var(m, "gf");
        float want[3] = {1.5f, 2.0f, 3.0f}, got[3];
        CHECK(gf && gf->init);
        if (gf && gf->init) {
            memcpy(got, gf->init, 12);
            CHECK(!memcmp(got, want, 12));
        }
        const ptx_var *gm = ptx_find_var(m, "gm");
        CHECK(gm && gm->size == 8 && gm->init && gm->init[6] == 0xff && gm->init[7] == 0xff &&
              gm->init[4] == 3);
        const ptx_var *gp = ptx_find_var(m, "gp");
        CHECK(gp && gp->nrelocs == 2 && gp->relocs[1].addend == 8 && gp->relocs[1].generic);
        char *txt = ptx_print(m);
        ptx_module *m2 = ptx_parse(txt, strlen(txt), "printed", err, sizeof err);
        if (!m2)
            fprintf(stderr, "%s\n%s\n", err, txt);
        CHECK(m2 != NULL);
        ptx_module_free(m2);
        free(txt);
        ptx_module_free(m);
    }
}

/* ---- 3. bad input ------------------------------------------------------------ */

#define VSNIP(ins) ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<5>;\n " ins "\n}\n"
static const char *const broken[] = {
    "garbage",
    ".version",
    ".version 8.0\n.target",
    ".version 8.0\n.target sm_80\n.visible .entry k(\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n add.s32 %r1, %r2, %r3;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n add.s32 %r1, %r2;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n frob.s32 %r1, %r2;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n add.zz.s32 %r1, %r2, %r1;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n bra $nowhere;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n call nosuch;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n mov.u32 %r1, 99999999999999999999999;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n mov.f32 %r1, 0f3F80;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<99999999999>;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n.reg .b32 %r1;\n}\n",
    ".version 8.0\n.target sm_80\n.global .u32 x[2] = {1, 2, 3};\n",
    ".version 8.0\n.target sm_80\n.global .u32 x = {nosym};\n",
    ".version 8.0\n.target sm_80\n.global .u32 x[99999999999999];\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n{\n{\n",
    ".version 8.0\n.target sm_80\n/* unterminated",
    ".version 8.0\n.target sm_80\n.file 1 \"unterminated\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n @%r1 bra L;\nL:\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n ld.global.u32 %r1, %r2;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n mov.u32 %r1, %tid.w;\n}\n",
    ".version 8.0\n.target sm_80\n.func f()\n{\nret;\n}\n.func f()\n{\nret;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n L: L: ret;\n}\n",
    ".version 8.0\n.target sm_80\n.entry k()\n{\n.reg .b32 %r<3>;\n mov.u32 %r1, {{{{%r1}}}};\n}\n",
    "\x01\x02\x03",
    /* video selectors: malformed, out of range, on the wrong operand */
    VSNIP("vadd.u32.u32.u32 %r1, %r2.q0, %r3;"),
    VSNIP("vadd.u32.u32.u32 %r1, %r2.b4, %r3;"),
    VSNIP("vadd2.u32.u32.u32 %r1, %r2.h44, %r3, %r4;"),
    VSNIP("vadd4.u32.u32.u32 %r1.b01, %r2, %r3, %r4;"),
    VSNIP("vadd.u32.u32.u32.add %r1.b0, %r2, %r3, %r4;"),
    VSNIP("vadd2.u32.u32.u32 %r1, %r2, %r3, %r4.h10;"),
    VSNIP("add.u32 %r1, %r2.b0, %r3;"),
    VSNIP("add.u32 %r1, -%r2, %r3;"),
};

static void mutate_file(const char *dir, const char *file);

static void bad_input(const char *dir)
{
    char err[512];
    /* the error points at the selector itself: line 6, column 27 */
    ptx_module *vm = parse_str(VSNIP("vadd.u32.u32.u32 %r1, %r2.b9, %r3;"), err, sizeof err);
    CHECK(vm == NULL && !strncmp(err, "snippet:6:27: ", 14) && strstr(err, "'.b9'"));
    if (vm || strncmp(err, "snippet:6:27: ", 14))
        fprintf(stderr, "selector error: %s\n", err);
    ptx_module_free(vm);
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        err[0] = 0;
        ptx_module *m = parse_str(broken[i], err, sizeof err);
        if (m || !has_position(err, "snippet"))
            fprintf(stderr, "broken[%zu]: %s\n", i, m ? "accepted" : err);
        CHECK(m == NULL);
        CHECK(has_position(err, "snippet"));
        ptx_module_free(m);
    }
    static const char *const files[] = { "funcs_sm75.ptx", "hand_sm90.ptx" };
    for (unsigned i = 0; i < 2; i++)
        mutate_file(dir, files[i]);
}

/* truncations and byte mutations of a real file; ZINC_PTX_FUZZ_ROUNDS sets
 * the number of mutations (default 1500) */
static void mutate_file(const char *dir, const char *file)
{
    char err[512];
    size_t len;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = read_file(path, &len);
    CHECK(text != NULL);
    if (!text)
        return;
    const char *env = getenv("ZINC_PTX_FUZZ_ROUNDS");
    int rounds = env ? atoi(env) : 1500;
    size_t step = len / 400 + 1;
    int errors = 0;
    for (size_t cut = 0; cut < len; cut += step) {
        ptx_module *m = ptx_parse(text, cut, "cut", err, sizeof err);
        if (!m) {
            errors++;
            CHECK(has_position(err, "cut"));
        }
        ptx_module_free(m);
    }
    CHECK(errors > 300);        /* most prefixes end mid-function */
    char *mut = malloc(len);
    uint64_t s = 0x9E3779B97F4A7C15u;
    static const char junk[] = "{}[]();,.%@!|:+-_0x9fzq\"\n/";
    for (int round = 0; round < rounds && mut; round++) {
        memcpy(mut, text, len);
        for (int k = 0; k < 1 + round % 4; k++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            mut[s % len] = junk[(s >> 32) % (sizeof junk - 1)];
        }
        err[0] = 0;
        ptx_module *m = ptx_parse(mut, len, "mut", err, sizeof err);
        if (!m)
            CHECK(has_position(err, "mut"));
        else {
            char *p = ptx_print(m);     /* whatever parsed must print */
            CHECK(p != NULL);
            free(p);
        }
        ptx_module_free(m);
    }
    free(mut);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_ptx_parse SAMPLES_DIR [PTXAS]\n");
        return 2;
    }
    const char *ptxas = argc > 2 && access(argv[2], X_OK) == 0 ? argv[2] : NULL;
    if (!ptxas)
        printf("test_ptx_parse: ptxas not found, printed PTX is not checked by ptxas\n");
    int n = samples(argv[1], ptxas);
    CHECK(n >= 8);
    known_funcs(argv[1]);
    known_sync(argv[1]);
    known_hand(argv[1]);
    snippets();
    video_snippet();
    bad_input(argv[1]);
    printf("test_ptx_parse: %d sample files, %d failures\n", n, failures);
    return failures ? 1 : 0;
}
