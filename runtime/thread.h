/* thread.h: Lisp threads. One interpreter runs its threads one at a time, under a lock of its own
 * (the interpreter lock); a thread holds it while it runs Lisp and hands it on when it blocks
 * (sleep, a stream that waits, parking) or, at a safe point, when another thread waits for it.
 * Until the first thread is made (L->threads NULL) nothing here costs anything. */
#ifndef TINYCL_THREAD_H
#define TINYCL_THREAD_H

#include "state.h"

/* Live threads an interpreter may have besides the session's own: more is an error. */
#define THREADS_MAX 256
/* How long a reset or freeing the interpreter waits for the other threads to end, in seconds. */
#define THREADS_STOP_GRACE 5.0
/* The stack of a Lisp thread (only what it uses is ever touched). */
#define THREAD_STACK ((size_t)16 << 20)

typedef struct LispThread LispThread;

/* From safe_point_slow: whether the running thread is the session's own (the evaluation's
 * interrupts and deadline are its alone). */
bool threads_on_main(Lisp *L);
/* From safe_point_slow: run the running thread's interrupts, unwind it when it was terminated,
 * and hand the lock on when another thread waits for it. */
void threads_safe_point(Lisp *L);

/* Enter (1) or leave (-1) a region (0: just ask) where the running thread keeps the lock at safe points (a
 * wait still hands it on): what the region reads and writes no other thread sees halfway. */
int threads_inhibit(Lisp *L, int delta);   /* returns the nesting before */

/* Around a blocking system call: hand the lock on, and take it back (NULL: no threads). */
LispThread *threads_block_begin(Lisp *L);
void threads_block_end(Lisp *L, LispThread *self);

/* The threads besides the session's own that are still alive. */
int threads_others_alive(Lisp *L);
/* Terminate every other thread and wait up to GRACE seconds for them to end; true when all did.
 * Called by the session (reset, free) between evaluations. */
bool threads_stop_others(Lisp *L, double grace);

/* The session's state was replaced (a reset, a restore, a session file read) while no other thread
 * runs: the session's own thread forgets what it kept of the state before (its thread object, an
 * instance of that state's THREAD; interrupts queued for it; a permit). */
void threads_state_replaced(Lisp *L);

#endif
