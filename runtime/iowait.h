/* iowait.h: blocking waits that honour the evaluation's deadline, cancellation and interrupts. */
#ifndef TINYCL_IOWAIT_H
#define TINYCL_IOWAIT_H

#include "state.h"
#include <sys/types.h>

/* The longest a wait sleeps before it reaches the safe point again (milliseconds): the latency of
 * a timeout, a cancellation or an interrupt while Lisp code waits for input or output. */
#define IOWAIT_SLICE_MS 50

/* Wait until FD is ready for EVENTS (POLLIN, POLLOUT) or reports an error or a hang-up; returns
 * the revents. Between slices it reaches the safe point, which unwinds on a timeout, a
 * cancellation or an interrupt. */
short iowait_fd(Lisp *L, int fd, short events);

/* open(2) that never blocks the evaluation: the file is opened with O_NONBLOCK (so opening a FIFO
 * for reading does not wait for a writer), and opening a FIFO for writing while it has no reader
 * is retried between safe points. Returns the descriptor or -1 with errno set. */
int iowait_open(Lisp *L, const char *path, int flags, mode_t mode);

/* Sleep SECONDS (>= 0) between safe points. */
void iowait_sleep(Lisp *L, double seconds);

#endif
