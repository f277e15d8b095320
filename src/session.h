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
    struct TclAccess *access;  /* the session's own copy of the access policy (L->access), or NULL */
    struct FilesState *files;  /* what the file tools last read (src/files.c) */
};

/* Stop the running evaluation as a cancellation (MCP notifications/cancelled). */
void tcl_cancel(TclSession *s);

#endif
