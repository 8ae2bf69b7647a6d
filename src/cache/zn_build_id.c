/* zn_build_id.c: the digest of the compiler's sources (generated header). */
#include "zn_cache.h"
#include "zn_build_id.h"

const char *zn_build_id(void)
{
    return ZN_BUILD_ID;
}
