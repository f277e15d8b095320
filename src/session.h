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
    struct DebugRun *debug;    /* debugger.c: the debug evaluation running or suspended, or NULL */
    TclResult *debug_expired;  /* debugger.c: a suspended evaluation that timed out, reported once */
    struct FilesState *files;  /* what the file tools last read (src/files.c) */
    void (*log)(void *ctx, const char *level, const char *message);   /* tcl_set_log_handler */
    void *log_ctx;
    struct SessionStore *store; /* session-checkpoint.c: checkpoints and the heaps of restores, or NULL */
};

/* session-checkpoint.c: free the checkpoints and heaps (tcl_session_free); release the heaps of
 * restores when the interpreter they belong to is replaced (a reset that makes a new one). */
typedef struct SessionStore SessionStore;
void session_store_free(TclSession *s);
void session_store_release_heaps(TclSession *s);
/* Before the interpreter is freed: drop its list of those heaps (the heaps go with the store). */
void session_store_detach(TclSession *s);
/* A change no evaluation counted (a reset): the session file is written again. */
void session_store_changed(TclSession *s);
void session_store_compact(TclSession *s);   /* after a plain reset: free what a restore brought and nothing reaches */

/* session.c, for debugger.c: take the interpreter onto the calling thread; describe L->last_error
 * into R; move the captured output and warnings into R. */
void session_enter(TclSession *s);
void session_describe_error(TclSession *s, TclResult *r);
void session_take_output(TclSession *s, TclResult *r);
/* The function of the upcall SYS::NAME (runtime/lisp-abi.def) into *FN; false, with the error
 * that names it in L->last_error, when it is not defined as a function (a user's FMAKUNBOUND). */
bool session_find_upcall(TclSession *s, const char *name, struct Object **fn);

/* debugger.c: install its primitives; end a suspended evaluation past its time limit; end any
 * suspended evaluation (reset, free). */
void debugger_attach(TclSession *s);
/* session.c: add the session's and the debugger's primitive tables to the tables images name C
 * functions by (runtime/imagetab.h); before any interpreter is made. */
void session_declare_tables(void);
void debugger_expire(TclSession *s);
void debugger_abandon(TclSession *s);
/* Evaluate FORM (an Obj) as one session call: time limit, output capture, errors described. */
TclResult *session_eval_form(TclSession *s, struct Object *form, double timeout);

#endif
