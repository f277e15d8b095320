/* wake.c: the self-pipe both transports of `tinycl mcp` watch: SIGINT, SIGTERM and SIGHUP (and a
 * thread that wants the loop to look again) write a byte to it, and the loop acts on it, so the
 * signal handler itself does nothing that is not async-signal-safe. */
#include "mcp.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int mcp_wake_fds[2] = {-1, -1};

void mcp_wake(int sig) {
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(mcp_wake_fds[1], &b, 1);
    (void)w;
    errno = saved;
}

bool mcp_wake_install(void) {
    if (pipe(mcp_wake_fds) != 0) return false;
    for (int i = 0; i < 2; i++) {
        fcntl(mcp_wake_fds[i], F_SETFD, FD_CLOEXEC);
        fcntl(mcp_wake_fds[i], F_SETFL, O_NONBLOCK);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = mcp_wake;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) || sigaction(SIGHUP, &sa, NULL)) return false;
    signal(SIGPIPE, SIG_IGN);   /* a write to a client that went away fails instead */
    return true;
}
