/* zn_drv_integrity.c: the answer to the runtime's integrity check (export
 * table d4082055..., slot 1).
 *
 * HMAC-MD2 with a fixed key over a 48-byte block that binds the answer to
 * this driver, process, thread and export tables, followed by 28 bytes per
 * device (UUID and PCI location). The runtime computes the same digest and
 * fails every call with error 103 when they differ. Layout measured; see
 * notes/cuda-driver-abi.md.
 */
#include "zn_drv.h"
#include "../util/zn_md2.h"

#include <string.h>
#include <unistd.h>

static const uint8_t integrity_key[16] = {
    0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
    0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f,
};

#define HEAD_BYTES 48
#define DEV_BYTES 28

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

CUresult zn_integrity_answer(uint32_t ver, uint64_t unix_seconds, uint64_t out[2])
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    uint8_t msg[HEAD_BYTES + ZN_NDEVICES * DEV_BYTES];
    put32(msg + 0, ZN_DRIVER_VERSION);
    put32(msg + 4, ver);
    put32(msg + 8, (uint32_t)getpid());
    put32(msg + 12, (uint32_t)pthread_self());
    put64(msg + 16, (uint64_t)(uintptr_t)zn_export_runtime);
    put64(msg + 24, (uint64_t)(uintptr_t)zn_export_integrity);
    put64(msg + 32, (uint64_t)(uintptr_t)zn_export_integrity[1]);
    put64(msg + 40, unix_seconds);
    for (int d = 0; d < ZN_NDEVICES; d++) {
        uint8_t *p = msg + HEAD_BYTES + d * DEV_BYTES;
        memcpy(p, zn_drv_dev.uuid.bytes, 16);
        put32(p + 16, (uint32_t)zn_drv_dev.pci_domain);
        put32(p + 20, (uint32_t)zn_drv_dev.pci_bus);
        put32(p + 24, (uint32_t)zn_drv_dev.pci_device);
    }
    uint8_t digest[ZN_MD2_DIGEST];
    zn_hmac_md2(integrity_key, sizeof integrity_key, msg, sizeof msg, digest);
    memcpy(out, digest, sizeof digest);
    return CUDA_SUCCESS;
}
