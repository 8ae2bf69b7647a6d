/* test_fatbin_util.h: file loading, PTX comparison and ELF section lookup
 * for test_fatbin. */
#ifndef TEST_FATBIN_UTIL_H
#define TEST_FATBIN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern int tf_failures;
extern bool tf_quiet;     /* tf_ptx_equiv: do not print the first difference */
#define CHECK(cond, ...) do { if (!(cond)) { tf_failures++; \
    printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* The whole file, malloc'd (exactly *n bytes); exits on failure. */
uint8_t *tf_read_file(const char *path, size_t *n);

/* Same PTX modulo what fatbinary strips: comments, indentation, runs of
 * blanks and empty lines. */
bool tf_ptx_equiv(const char *a, size_t an, const char *b, size_t bn);

/* ELF64 file image: the file bytes of the section called name, and a way to
 * turn a virtual address into a pointer into the file. */
const uint8_t *tf_elf_section(const uint8_t *elf, size_t n, const char *name, size_t *size);
const uint8_t *tf_elf_va(const uint8_t *elf, size_t n, uint64_t va);

#endif
