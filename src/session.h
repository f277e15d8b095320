/* session.h: the session structure, private to src/ (front ends use include/tinycl.h). */
#ifndef TINYCL_SESSION_H
#define TINYCL_SESSION_H

#include "tinycl.h"
#include <pthread.h>

struct Lisp;

struct TclSession {
    struct Lisp *L;
    TclOptions opt;
    pthread_t thread;          /* the thread whose stack limits L holds */
    bool thread_known;
    char pkgname[512];
    void (*progress)(void *ctx, const char *message);   /* tcl_set_progress_handler */
    void *progress_ctx;
    void (*log)(void *ctx, const char *level, const char *message);   /* tcl_set_log_handler */
    void *log_ctx;
};

/* Stop the running evaluation as a cancellation (MCP notifications/cancelled). */
void tcl_cancel(TclSession *s);

#endif
