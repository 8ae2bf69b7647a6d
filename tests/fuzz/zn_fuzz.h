/* zn_fuzz.h: what every fuzz target provides, and its few helpers.
 *
 * A target is one .c file defining zn_fuzz_init() and zn_fuzz_one(). It is
 * linked either with libfuzzer_entry.c (clang -fsanitize=fuzzer, ZINC_FUZZ=ON)
 * or with replay_main.c (any compiler, the normal build), which runs every
 * file of the committed corpus through it: the corpus is a regression test.
 * An input is fine when zn_fuzz_one returns; a broken invariant aborts.
 */
#ifndef ZN_FUZZ_H
#define ZN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void zn_fuzz_init(void);
void zn_fuzz_one(const uint8_t *data, size_t size);

/* An invariant of the code under test failed: say which and abort, so that
 * libFuzzer keeps the input and the replay test fails. */
#define ZN_FUZZ_CHECK(cond, ...) do { if (!(cond)) { \
    fprintf(stderr, "zn-fuzz: %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

/* Reads an input as a stream of fields; past the end every read gives 0. */
typedef struct zn_fuzz_reader {
    const uint8_t *p;
    size_t n;
} zn_fuzz_reader;

static inline uint8_t zn_fuzz_u8(zn_fuzz_reader *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

static inline uint32_t zn_fuzz_u32(zn_fuzz_reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)zn_fuzz_u8(r) << (8 * i);
    return v;
}

static inline uint64_t zn_fuzz_u64(zn_fuzz_reader *r)
{
    uint64_t lo = zn_fuzz_u32(r);
    return lo | (uint64_t)zn_fuzz_u32(r) << 32;
}

#endif
