/* libfuzzer_entry.c: the libFuzzer entry points over a zn_fuzz target. */
#include "zn_fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    zn_fuzz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zn_fuzz_one(data, size);
    return 0;
}
