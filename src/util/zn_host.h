/* zn_host.h: the facts that make up the one device Zinc reports, read from
 * the host. The driver and NVML both describe that device from here, so
 * cudaGetDeviceProperties and nvmlDeviceGetName/UUID always agree. */
#ifndef ZN_HOST_H
#define ZN_HOST_H

#include <stddef.h>
#include <stdint.h>

/* "model name" from /proc/cpuinfo ("unknown processor" if absent) and the
 * clock in kHz (2 GHz if absent). */
void zn_host_cpu(char *model, size_t cap, int *khz);

/* The compute capability to report: ZINC_CC as "86" or "8.6"; 8.6 when
 * unset or malformed. Returns 0, or -1 when ZINC_CC was set but malformed. */
int zn_host_cc(int *major, int *minor);

/* The device UUID (RFC 4122 v4 form), stable on one machine: a hash of
 * /etc/machine-id and the CPU model. */
void zn_host_uuid(uint8_t uuid[16]);

#endif
