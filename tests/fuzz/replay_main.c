/* replay_main.c: runs corpus files through a zn_fuzz target, no libFuzzer.
 *   zn_replay_<target> PATH...    (a PATH is a file or a folder of files)
 * Exits 0 when every input ran (a failed check aborts); 2 when a PATH
 * cannot be read or holds no input at all (an empty corpus proves nothing). */
#include "zn_fuzz.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

static int count;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "zn-replay: cannot open %s\n", path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* an exact-size heap copy, so that ASan sees a read past the input */
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "zn-replay: cannot read %s\n", path);
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    if (getenv("ZN_REPLAY_VERBOSE"))
        fprintf(stderr, "zn-replay: %s (%ld bytes)\n", path, n);
    zn_fuzz_one(buf, (size_t)n);
    free(buf);
    count++;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "zn-replay: no such file or folder: %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    /* sorted, so that a failure reproduces in the same order */
    char **names = NULL;
    size_t nn = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (nn + 1) * sizeof *names);
        names[nn] = malloc(strlen(path) + strlen(e->d_name) + 2);
        sprintf(names[nn++], "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_names);
    int rc = 0;
    for (size_t i = 0; i < nn; i++) {
        if (run_path(names[i]) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
        return 2;
    }
    zn_fuzz_init();
    int rc = 0;
    for (int i = 1; i < argc; i++)
        if (run_path(argv[i]) != 0)
            rc = 2;
    printf("zn-replay: %d inputs ran\n", count);
    return rc ? rc : count ? 0 : 2;
}
