/* zn_md2.h: MD2 (RFC 1319) and HMAC-MD2 (RFC 2104 with MD2's 16-byte block).
 * The CUDA runtime's integrity check (export table d4082055...) asks the
 * driver for an HMAC-MD2 digest; see notes/cuda-driver-abi.md. */
#ifndef ZN_MD2_H
#define ZN_MD2_H

#include <stddef.h>
#include <stdint.h>

#define ZN_MD2_BLOCK 16
#define ZN_MD2_DIGEST 16

typedef struct zn_md2_ctx {
    uint8_t state[48];      /* X: 16 state bytes, then block, then state^block */
    uint8_t checksum[16];
    uint8_t buf[16];
    size_t nbuf;
} zn_md2_ctx;

void zn_md2_init(zn_md2_ctx *c);
void zn_md2_update(zn_md2_ctx *c, const void *msg, size_t n);
void zn_md2_final(zn_md2_ctx *c, uint8_t out[ZN_MD2_DIGEST]);

void zn_md2(const void *msg, size_t n, uint8_t out[ZN_MD2_DIGEST]);
/* Keys longer than 16 bytes are first hashed, as RFC 2104 says. */
void zn_hmac_md2(const uint8_t *key, size_t keylen, const void *msg, size_t n,
                 uint8_t out[ZN_MD2_DIGEST]);

#endif
