/* channel.c: the protocol channel of `tinycl mcp` kept out of Lisp's reach: its descriptors move to
 * random high numbers (close-on-exec), fd 0 reads /dev/null and fd 1 writes to stderr. */
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <sys/random.h>
#include <sys/resource.h>

/* A copy of FD at an unguessable number at least 64, close-on-exec; -1 on failure. */
static int channel_move_high(int fd) {
    struct rlimit rl;
    long limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 1024;
    if (limit > 65536) limit = 65536;
    int low = 64;
    if (limit > low + 64) {
        unsigned int r;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (unsigned int)time(NULL) ^ (unsigned int)getpid() * 2654435761u ^ (unsigned int)clock();
        /* leave room above for the descriptors the process opens later */
        int span = (int)(limit - low) / 2;
        int want = low + (int)(r % (unsigned int)span);
        int nfd = fcntl(fd, F_DUPFD_CLOEXEC, want);
        if (nfd >= 0) return nfd;
    }
    return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

bool mcp_channel_open(int *in_fd, int *out_fd) {
    *in_fd = channel_move_high(0);
    *out_fd = channel_move_high(1);
    if (*in_fd < 0 || *out_fd < 0) return false;
    /* fd 0 reads nothing; anything written to fd 1 lands on stderr */
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(2, 1) < 0) return false;
    if (null != 0) close(null);
    return true;
}
