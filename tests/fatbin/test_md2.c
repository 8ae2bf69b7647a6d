/* test_md2: MD2 against RFC 1319's vectors, streaming against one-shot, and
 * HMAC-MD2 against md2_ref.py (an independent Python implementation). */
#include "util/zn_md2.h"
#include "hmac_md2_expected.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void hex(const uint8_t d[16], char out[33])
{
    for (int i = 0; i < 16; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_rfc(const char *msg, const char *want)
{
    uint8_t d[16];
    char got[33];
    zn_md2(msg, strlen(msg), d);
    hex(d, got);
    if (strcmp(got, want) != 0) {
        printf("FAIL md2(\"%s\") = %s, want %s\n", msg, got, want);
        failures++;
    }
}

/* Feeding the message in two pieces at every split point must not matter. */
static void check_streaming(void)
{
    const char *msg = "12345678901234567890123456789012345678901234567890123456789012345678901234567890";
    size_t n = strlen(msg);
    uint8_t whole[16], parts[16];
    zn_md2(msg, n, whole);
    for (size_t cut = 0; cut <= n; cut++) {
        zn_md2_ctx c;
        zn_md2_init(&c);
        zn_md2_update(&c, msg, cut);
        zn_md2_update(&c, msg + cut, n - cut);
        zn_md2_final(&c, parts);
        if (memcmp(whole, parts, 16) != 0) {
            printf("FAIL streaming split at %zu\n", cut);
            failures++;
        }
    }
}

static void check_hmac(void)
{
    size_t n = sizeof hmac_cases / sizeof hmac_cases[0];
    for (size_t i = 0; i < n; i++) {
        uint8_t d[16];
        zn_hmac_md2(hmac_cases[i].k, hmac_cases[i].kn, hmac_cases[i].m, hmac_cases[i].mn, d);
        if (memcmp(d, hmac_cases[i].out, 16) != 0) {
            char g[33], w[33];
            hex(d, g);
            hex(hmac_cases[i].out, w);
            printf("FAIL hmac case %zu (key %zu bytes, msg %zu bytes): %s, want %s\n",
                   i, hmac_cases[i].kn, hmac_cases[i].mn, g, w);
            failures++;
        }
    }
    printf("%zu hmac cases\n", n);
}

int main(void)
{
    check_rfc("", "8350e5a3e24c153df2275c9f80692773");
    check_rfc("a", "32ec01ec4a6dac72c0ab96fb34c0b5d1");
    check_rfc("abc", "da853b0d3f88d99b30283a69e6ded6bb");
    check_rfc("message digest", "ab4f496bfb2a530b219ff33031fe06b0");
    check_rfc("abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b");
    check_rfc("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
              "da33def2a42df13975352846c30338cd");
    check_rfc("12345678901234567890123456789012345678901234567890123456789012345678901234567890",
              "d5976f79d83d3a0dc9806c3c66f3efd8");
    check_streaming();
    check_hmac();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("md2: all passed\n");
    return 0;
}
