/* test_md2_ref.c: an independent MD2 / HMAC-MD2 (RFC 1319, RFC 2104) for
 * checking the driver's integrity answer; written from the RFC, shares no
 * code with src/util/zn_md2.c. */
#include "test_md2_ref.h"

#include <string.h>

/* RFC 1319's S table: a permutation of 0..255 built from the digits of pi. */
static const unsigned char S[256] = {
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19,
    98, 167, 5, 243, 192, 199, 115, 140, 152, 147, 43, 217, 188, 76, 130, 202,
    30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18,
    190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122,
    169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33,
    128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3,
    255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198,
    79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241,
    69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2,
    27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15,
    85, 71, 163, 35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38,
    44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82,
    106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57,
    242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10,
    49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
};

/* Whole-message MD2: pad, append checksum, process 16-byte blocks. */
void ref_md2(const unsigned char *msg, size_t n, unsigned char out[16])
{
    size_t padded = n + (16 - n % 16);
    unsigned char buf[padded + 16];
    memcpy(buf, msg, n);
    memset(buf + n, (int)(padded - n), padded - n);
    unsigned char C[16] = { 0 }, L = 0;
    for (size_t i = 0; i < padded / 16; i++)
        for (int j = 0; j < 16; j++) {
            C[j] ^= S[buf[16 * i + j] ^ L];
            L = C[j];
        }
    memcpy(buf + padded, C, 16);
    unsigned char X[48] = { 0 };
    for (size_t i = 0; i < padded / 16 + 1; i++) {
        for (int j = 0; j < 16; j++) {
            X[16 + j] = buf[16 * i + j];
            X[32 + j] = (unsigned char)(X[16 + j] ^ X[j]);
        }
        unsigned t = 0;
        for (int j = 0; j < 18; j++) {
            for (int k = 0; k < 48; k++)
                t = X[k] ^= S[t];
            t = (t + (unsigned)j) & 0xff;
        }
    }
    memcpy(out, X, 16);
}

void ref_hmac_md2(const unsigned char key[16], const unsigned char *msg, size_t n,
                  unsigned char out[16])
{
    unsigned char inner[16 + n], outer[32], ih[16];
    for (int i = 0; i < 16; i++) {
        inner[i] = key[i] ^ 0x36;
        outer[i] = key[i] ^ 0x5c;
    }
    memcpy(inner + 16, msg, n);
    ref_md2(inner, 16 + n, ih);
    memcpy(outer + 16, ih, 16);
    ref_md2(outer, 32, out);
}
