/* zn_blake2b.c: BLAKE2b (RFC 7693), unkeyed, digests of 1..64 bytes. The
 * cache names its entries by it and checks their payloads with it. */
#include "zn_cache.h"

#include <string.h>

static const uint64_t iv[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
    0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
    0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
};

static const uint8_t sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static uint64_t rotr(uint64_t x, unsigned n) { return x >> n | x << (64 - n); }

static uint64_t load64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

#define G(a, b, c, d, x, y)                                                   \
    do {                                                                      \
        v[a] = v[a] + v[b] + (x); v[d] = rotr(v[d] ^ v[a], 32);               \
        v[c] = v[c] + v[d];       v[b] = rotr(v[b] ^ v[c], 24);               \
        v[a] = v[a] + v[b] + (y); v[d] = rotr(v[d] ^ v[a], 16);               \
        v[c] = v[c] + v[d];       v[b] = rotr(v[b] ^ v[c], 63);               \
    } while (0)

static void compress(zn_blake2b *s, const uint8_t *block, int last)
{
    uint64_t v[16], m[16];
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = iv[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last)
        v[14] = ~v[14];
    for (int i = 0; i < 16; i++)
        m[i] = load64(block + 8 * i);
    for (int r = 0; r < 12; r++) {
        const uint8_t *z = sigma[r];
        G(0, 4, 8, 12, m[z[0]], m[z[1]]);
        G(1, 5, 9, 13, m[z[2]], m[z[3]]);
        G(2, 6, 10, 14, m[z[4]], m[z[5]]);
        G(3, 7, 11, 15, m[z[6]], m[z[7]]);
        G(0, 5, 10, 15, m[z[8]], m[z[9]]);
        G(1, 6, 11, 12, m[z[10]], m[z[11]]);
        G(2, 7, 8, 13, m[z[12]], m[z[13]]);
        G(3, 4, 9, 14, m[z[14]], m[z[15]]);
    }
    for (int i = 0; i < 8; i++)
        s->h[i] ^= v[i] ^ v[i + 8];
}

void zn_blake2b_init(zn_blake2b *s, unsigned outlen)
{
    memset(s, 0, sizeof *s);
    s->outlen = outlen ? (outlen > 64 ? 64 : outlen) : 32;
    for (int i = 0; i < 8; i++)
        s->h[i] = iv[i];
    s->h[0] ^= 0x01010000u ^ s->outlen; /* depth 1, fanout 1, no key */
}

void zn_blake2b_update(zn_blake2b *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n) {
        /* the last block is compressed in final(): keep a full one buffered */
        if (s->buflen == 128) {
            s->t[0] += 128;
            s->t[1] += s->t[0] < 128;
            compress(s, s->buf, 0);
            s->buflen = 0;
        }
        size_t k = 128 - s->buflen;
        if (k > n)
            k = n;
        memcpy(s->buf + s->buflen, p, k);
        s->buflen += (unsigned)k;
        p += k;
        n -= k;
    }
}

void zn_blake2b_final(zn_blake2b *s, uint8_t *out)
{
    s->t[0] += s->buflen;
    s->t[1] += s->t[0] < s->buflen;
    memset(s->buf + s->buflen, 0, 128 - s->buflen);
    compress(s, s->buf, 1);
    for (unsigned i = 0; i < s->outlen; i++)
        out[i] = (uint8_t)(s->h[i / 8] >> (8 * (i % 8)));
}

void zn_hash256(const void *data, size_t n, uint8_t out[32])
{
    zn_blake2b s;
    zn_blake2b_init(&s, 32);
    zn_blake2b_update(&s, data, n);
    zn_blake2b_final(&s, out);
}

void zn_hex(const uint8_t *b, size_t n, char *out)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[b[i] >> 4];
        out[2 * i + 1] = d[b[i] & 15];
    }
    out[2 * n] = 0;
}
