#include "zn_md2.h"

#include <string.h>

/* RFC 1319's S table: a permutation of 0..255 built from the digits of pi. */
static const uint8_t md2_s[256] = {
     41,  46,  67, 201, 162, 216, 124,   1,  61,  54,  84, 161, 236, 240,   6,  19,
     98, 167,   5, 243, 192, 199, 115, 140, 152, 147,  43, 217, 188,  76, 130, 202,
     30, 155,  87,  60, 253, 212, 224,  22, 103,  66, 111,  24, 138,  23, 229,  18,
    190,  78, 196, 214, 218, 158, 222,  73, 160, 251, 245, 142, 187,  47, 238, 122,
    169, 104, 121, 145,  21, 178,   7,  63, 148, 194,  16, 137,  11,  34,  95,  33,
    128, 127,  93, 154,  90, 144,  50,  39,  53,  62, 204, 231, 191, 247, 151,   3,
    255,  25,  48, 179,  72, 165, 181, 209, 215,  94, 146,  42, 172,  86, 170, 198,
     79, 184,  56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116,   4, 241,
     69, 157, 112,  89, 100, 113, 135,  32, 134,  91, 207, 101, 230,  45, 168,   2,
     27,  96,  37, 173, 174, 176, 185, 246,  28,  70,  97, 105,  52,  64, 126,  15,
     85,  71, 163,  35, 221,  81, 175,  58, 195,  92, 249, 206, 186, 197, 234,  38,
     44,  83,  13, 110, 133,  40, 132,   9, 211, 223, 205, 244,  65, 129,  77,  82,
    106, 220,  55, 200, 108, 193, 171, 250,  36, 225, 123,   8,  12, 189, 177,  74,
    120, 136, 149, 139, 227,  99, 232, 109, 233, 203, 213, 254,  59,   0,  29,  57,
    242, 239, 183,  14, 102,  88, 208, 228, 166, 119, 114, 248, 235, 117,  75,  10,
     49,  68,  80, 180, 143, 237,  31,  26, 219, 153, 141,  51, 159,  17, 131,  20,
};

void zn_md2_init(zn_md2_ctx *c)
{
    memset(c, 0, sizeof *c);
}

/* RFC 1319 3.4: 18 rounds over the 48-byte state, then the checksum update
 * (3.2), which chains through the previous checksum byte. */
static void md2_block(zn_md2_ctx *c, const uint8_t blk[16])
{
    uint8_t *x = c->state;
    for (int j = 0; j < 16; j++) {
        x[16 + j] = blk[j];
        x[32 + j] = (uint8_t)(x[16 + j] ^ x[j]);
    }
    unsigned t = 0;
    for (int round = 0; round < 18; round++) {
        for (int k = 0; k < 48; k++)
            t = x[k] ^= md2_s[t];
        t = (t + (unsigned)round) & 0xff;
    }
    uint8_t l = c->checksum[15];
    for (int j = 0; j < 16; j++)
        l = c->checksum[j] ^= md2_s[blk[j] ^ l];
}

void zn_md2_update(zn_md2_ctx *c, const void *msg, size_t n)
{
    const uint8_t *p = msg;
    while (n > 0) {
        size_t take = 16 - c->nbuf;
        if (take > n)
            take = n;
        memcpy(c->buf + c->nbuf, p, take);
        c->nbuf += take;
        p += take;
        n -= take;
        if (c->nbuf == 16) {
            md2_block(c, c->buf);
            c->nbuf = 0;
        }
    }
}

/* Padding: i bytes of value i (1..16), then the checksum as a last block. */
void zn_md2_final(zn_md2_ctx *c, uint8_t out[ZN_MD2_DIGEST])
{
    uint8_t pad[16];
    size_t npad = 16 - c->nbuf;
    memset(pad, (int)npad, npad);
    zn_md2_update(c, pad, npad);
    uint8_t sum[16];
    memcpy(sum, c->checksum, 16);
    md2_block(c, sum);
    memcpy(out, c->state, 16);
    memset(c, 0, sizeof *c);
}

void zn_md2(const void *msg, size_t n, uint8_t out[ZN_MD2_DIGEST])
{
    zn_md2_ctx c;
    zn_md2_init(&c);
    zn_md2_update(&c, msg, n);
    zn_md2_final(&c, out);
}

void zn_hmac_md2(const uint8_t *key, size_t keylen, const void *msg, size_t n,
                 uint8_t out[ZN_MD2_DIGEST])
{
    uint8_t k[ZN_MD2_BLOCK] = {0};
    if (keylen > ZN_MD2_BLOCK)
        zn_md2(key, keylen, k);
    else if (keylen > 0)
        memcpy(k, key, keylen);

    uint8_t pad[ZN_MD2_BLOCK], inner[ZN_MD2_DIGEST];
    zn_md2_ctx c;
    for (int i = 0; i < ZN_MD2_BLOCK; i++)
        pad[i] = k[i] ^ 0x36;
    zn_md2_init(&c);
    zn_md2_update(&c, pad, sizeof pad);
    zn_md2_update(&c, msg, n);
    zn_md2_final(&c, inner);

    for (int i = 0; i < ZN_MD2_BLOCK; i++)
        pad[i] = k[i] ^ 0x5c;
    zn_md2_init(&c);
    zn_md2_update(&c, pad, sizeof pad);
    zn_md2_update(&c, inner, sizeof inner);
    zn_md2_final(&c, out);
}
