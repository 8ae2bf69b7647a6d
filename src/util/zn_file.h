/* zn_file.h: a whole file read into memory. */
#ifndef ZN_FILE_H
#define ZN_FILE_H

#include <stddef.h>

/* The file at path, NUL-terminated (*len without the NUL), malloc'd; NULL
 * when it cannot be opened or memory runs out. */
char *zn_read_file(const char *path, size_t *len);

#endif
