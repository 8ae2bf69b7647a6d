/* zinc_main.c: `zinc SUBCOMMAND ...` dispatch. */
#include "zinc_cli.h"

#include <stdio.h>
#include <string.h>

#ifndef ZINC_VERSION
#define ZINC_VERSION "unknown"
#endif

static const struct command {
    const char *name, *usage, *summary;
    int (*fn)(int argc, char **argv);
} commands[] = {
#define X(name, usage, summary) { #name, usage, summary, zinc_cmd_##name },
    ZINC_COMMANDS(X)
#undef X
};

int zinc_cmd_help(int argc, char **argv)
{
    printf("zinc %s: run CUDA programs on the CPU\n\nusage:\n", ZINC_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        printf("  zinc %-28s %s\n", commands[i].usage, commands[i].summary);
    printf("  zinc %-28s %s\n", "--version", "print the version");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        zinc_cmd_help(0, NULL);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("zinc %s\n", ZINC_VERSION);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        cmd = "help";
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].fn(argc - 2, argv + 2);
    fprintf(stderr, "zinc: unknown command '%s' (try 'zinc help')\n", cmd);
    return 2;
}
