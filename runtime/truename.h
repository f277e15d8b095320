/* truename.h: the truename of a file's name (every symbolic link resolved), as realpath(3) gives it. */
#ifndef TINYCL_TRUENAME_H
#define TINYCL_TRUENAME_H

#include <stdbool.h>

/* PATH's truename into OUT (PATH_MAX bytes); false with errno set (ENOENT, ENOTDIR, ELOOP...) as
 * realpath's when PATH names no file. */
bool truename_resolve(const char *path, char *out);

#endif
