/* zn_log.h: logging controlled by ZINC_LOG, and fatal internal errors.
 * ZINC_LOG=0 (default: errors only), 1 (warnings, unimplemented APIs),
 * 2 (info: modules, launches), 3 (debug: every API call). Output on stderr
 * prefixed "zinc: ", or to the file named by ZINC_LOG_FILE. */
#ifndef ZN_LOG_H
#define ZN_LOG_H

#include <stdarg.h>

enum { ZN_LOG_ERROR = 0, ZN_LOG_WARN = 1, ZN_LOG_INFO = 2, ZN_LOG_DEBUG = 3 };

int zn_log_level(void);
void zn_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A sink that also receives every error and warning, whatever ZINC_LOG
 * says (the driver keeps them for cuLogs*); NULL: none. */
typedef void (*zn_log_sink_fn)(int level, const char *msg);
void zn_log_set_sink(zn_log_sink_fn fn);
/* Internal invariant broken: prints and aborts. Never for bad user input. */
_Noreturn void zn_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
