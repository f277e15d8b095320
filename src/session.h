/* session.h: the session structure, private to src/ (front ends use include/tinycl.h). */
#ifndef TINYCL_SESSION_H
#define TINYCL_SESSION_H

#include "tinycl.h"
#include <pthread.h>

struct Lisp;
struct Object;

struct TclSession {
    struct Lisp *L;
    TclOptions opt;
    pthread_t thread;          /* the thread whose stack limits L holds */
    bool thread_known;
    char pkgname[512];
    void (*progress)(void *ctx, const char *message);   /* tcl_set_progress_handler */
    void *progress_ctx;
    long calls;                /* evaluate calls made, for the source locations of definitions typed in */
    struct TclAccess *access;  /* the session's own copy of the access policy (L->access), or NULL */
};

/* Evaluate FORM (an Obj) as one session call: time limit, output capture, errors described. */
TclResult *session_eval_form(TclSession *s, struct Object *form, double timeout);
/* Make sure the interpreter knows the stack of the calling thread (before touching Lisp objects). */
void session_enter(TclSession *s);

/* Stop the running evaluation as a cancellation (MCP notifications/cancelled). */
void tcl_cancel(TclSession *s);

#endif
