/* truename.c: a file's truename from the kernel in three system calls, instead of realpath(3)'s walk. */
#include "truename.h"
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* realpath(3) asks readlink of every prefix of the name, each looked up from the root: a source
 * file of a system under /usr/share/common-lisp/source/ costs six, its compiled file in the cache
 * ten, and loading a system probes each file two or three times (docs/performance.md, "Loading
 * systems from the cache"). The kernel resolved the name already when it opened it: the name
 * /proc gives the descriptor is its truename. Anything /proc cannot say as it is (no /proc, a
 * file deleted meanwhile, whose name then ends in " (deleted)") is left to realpath. */
bool truename_of_fd(int fd, const char *path, char *out) {
    char link[40];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, PATH_MAX - 1);
    static const char deleted[] = " (deleted)";
    size_t dl = sizeof deleted - 1;
    if (n > 0 && n < PATH_MAX - 1 && out[0] == '/' && !((size_t)n >= dl && memcmp(out + n - dl, deleted, dl) == 0)) {
        out[n] = 0;
        return true;
    }
    return realpath(path, out) != NULL;
}

bool truename_resolve(const char *path, char *out) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = truename_of_fd(fd, path, out);
    close(fd);
    return ok;
}
