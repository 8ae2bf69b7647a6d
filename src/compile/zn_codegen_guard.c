/* zn_codegen_guard.c: code generation that cannot take the process down.
 * LLVM reports what a backend cannot select ("LLVM ERROR: Cannot select")
 * by exiting; the offline compiler runs each code generation in a child
 * process, so it can report the failure per kernel and carry on. */
#include "zn_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <llvm-c/Transforms/PassBuilder.h>

static char *read_file(FILE *f, size_t *len)
{
    fflush(f);
    long n = ftell(f);
    if (n < 0)
        n = 0;
    char *b = malloc((size_t)n + 1);
    rewind(f);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = 0;
    *len = got;
    return b;
}

/* Keeps only the last line that says what went wrong. */
static void last_error_line(const char *s, char *err, size_t errlen)
{
    const char *best = NULL;
    for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, "LLVM ERROR:", 11) || strstr(p, "error") == p)
            best = p;
    if (!best)
        best = s;
    size_t k = strcspn(best, "\n");
    if (!k) {
        snprintf(err, errlen, "code generation failed (no message)");
        return;
    }
    snprintf(err, errlen, "%.*s", (int)(k < 400 ? k : 400), best);
}

int zn_guarded_emit(LLVMModuleRef mod, const zn_target *t, LLVMCodeGenFileType kind,
                    char **out, size_t *len, char *err, size_t errlen)
{
    FILE *fo = tmpfile(), *fe = tmpfile();
    *out = NULL;
    if (!fo || !fe) {
        snprintf(err, errlen, "cannot create temporary files");
        if (fo) fclose(fo);
        if (fe) fclose(fe);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(fe), 2);
        /* fault injection for tests: a backend that dies on one function */
        const char *inj = getenv("ZINC_TEST_CODEGEN_DIE");
        LLVMValueRef victim = inj && *inj ? LLVMGetNamedFunction(mod, inj) : NULL;
        if (victim && !LLVMIsDeclaration(victim)) {
            fprintf(stderr, "LLVM ERROR: Cannot select: %s (ZINC_TEST_CODEGEN_DIE)\n", inj);
            abort();
        }
        LLVMMemoryBufferRef buf;
        char e[1024];
        if (zn_emit(mod, t, kind, &buf, e, sizeof e)) {
            fprintf(stderr, "error: %s\n", e);
            _exit(1);
        }
        fwrite(LLVMGetBufferStart(buf), 1, LLVMGetBufferSize(buf), fo);
        fflush(fo);
        _exit(0);
    }
    int st = 0, rc = -1;
    if (pid < 0) {
        snprintf(err, errlen, "fork failed");
    } else if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        *out = read_file(fo, len);
        rc = 0;
    } else {
        size_t n;
        char *msg = read_file(fe, &n);
        if (n)
            last_error_line(msg, err, errlen);
        else if (WIFSIGNALED(st))
            snprintf(err, errlen, "code generation crashed (signal %d)", WTERMSIG(st));
        else
            snprintf(err, errlen, "code generation failed");
        free(msg);
    }
    fclose(fo);
    fclose(fe);
    return rc;
}

void zn_drop_kernel(LLVMModuleRef mod, const char *sym)
{
    LLVMValueRef old = LLVMGetNamedFunction(mod, sym);
    if (!old || LLVMIsDeclaration(old))
        return;
    char dead[600];
    snprintf(dead, sizeof dead, "%s.dropped", sym);
    LLVMSetValueName2(old, dead, strlen(dead));
    LLVMValueRef nf = LLVMAddFunction(mod, sym, LLVMGlobalGetValueType(old));
    LLVMReplaceAllUsesWith(old, nf);
    LLVMDeleteFunction(old);
}

void zn_strip_unused(LLVMModuleRef mod, const zn_target *t)
{
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, "globaldce", t->tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e)
        LLVMConsumeError(e);
}
