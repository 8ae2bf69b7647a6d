#ifndef TEST_MD2_REF_H
#define TEST_MD2_REF_H
#include <stddef.h>
void ref_md2(const unsigned char *msg, size_t n, unsigned char out[16]);
void ref_hmac_md2(const unsigned char key[16], const unsigned char *msg, size_t n,
                  unsigned char out[16]);
#endif
