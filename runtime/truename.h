/* truename.h: the truename of a file's name (every symbolic link resolved), as realpath(3) gives it. */
#ifndef TINYCL_TRUENAME_H
#define TINYCL_TRUENAME_H

#include <stdbool.h>

/* PATH's truename into OUT (PATH_MAX bytes); false with errno set (ENOENT, ENOTDIR, ELOOP...) as
 * realpath's when PATH names no file. */
bool truename_resolve(const char *path, char *out);

/* The truename of the file open as FD, whose name was PATH (realpath's answer for PATH when /proc
 * cannot say); false as truename_resolve. */
bool truename_of_fd(int fd, const char *path, char *out);

#endif
