/* iowait.c: blocking waits that honour the evaluation's deadline, cancellation and interrupts:
 * readiness of a descriptor, opening a FIFO, sleeping. Each waits in short slices and reaches the
 * safe point between them, so that no system call can wedge an evaluation. */
#include "iowait.h"
#include "thread.h"
#include <poll.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <errno.h>
#include <time.h>

/* Reach the safe point now, clock included: it unwinds when the deadline has passed or an
 * interrupt (a cancellation, Ctrl-C) is pending. */
static void checkpoint(Lisp *L) {
    lisp_request_poll(L);
    safe_point(L);
}

/* Milliseconds to wait in the next slice: at most IOWAIT_SLICE_MS, less when the deadline is nearer. */
static int slice_ms(Lisp *L, double remaining) {
    double ms = IOWAIT_SLICE_MS;
    if (remaining >= 0 && remaining * 1000 < ms) ms = remaining * 1000;
    if (L->deadline > 0) {
        double left = (L->deadline - lisp_monotonic_now()) * 1000;
        if (left < ms) ms = left;
    }
    return ms < 1 ? 1 : (int)ms;
}

short iowait_fd(Lisp *L, int fd, short events) {
    for (;;) {
        checkpoint(L);
        struct pollfd p = {fd, events, 0};
        int ms = slice_ms(L, -1);
        LispThread *self = threads_block_begin(L);   /* other Lisp threads run meanwhile */
        int r = poll(&p, 1, ms);
        threads_block_end(L, self);
        if (r > 0) return p.revents;
        if (r < 0 && errno != EINTR && errno != EAGAIN) return POLLERR;
    }
}

int iowait_open(Lisp *L, const char *path, int flags, mode_t mode) {
    for (;;) {
        int fd = open(path, flags | O_NONBLOCK, mode);
        if (fd >= 0) return fd;
        /* ENXIO: a FIFO opened for writing has no reader yet; wait for one as open(2) would.
         * Other files say ENXIO too (a socket named through /proc/self/fd): those fail at once. */
        if (errno != EINTR && !(errno == ENXIO && (flags & O_ACCMODE) == O_WRONLY)) return -1;
        int e = errno;
        struct stat st;
        if (e == ENXIO && (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode))) {
            errno = ENXIO;
            return -1;
        }
        checkpoint(L);
        if (e == ENXIO) {
            struct timespec ts = {0, (long)slice_ms(L, -1) * 1000000L};
            LispThread *self = threads_block_begin(L);
            nanosleep(&ts, NULL);
            threads_block_end(L, self);
        }
    }
}

/* The precise monotonic clock (the safe point's is coarse: a few milliseconds). */
static double precise_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void iowait_sleep(Lisp *L, double seconds) {
    double end = precise_now() + seconds;
    for (;;) {
        checkpoint(L);
        double left = end - precise_now();
        if (left <= 0) return;
        double slice = slice_ms(L, left) / 1000.0;
        if (slice > left) slice = left;
        struct timespec ts = {(time_t)slice, (long)((slice - (double)(time_t)slice) * 1e9)};
        LispThread *self = threads_block_begin(L);
        nanosleep(&ts, NULL);
        threads_block_end(L, self);
    }
}
