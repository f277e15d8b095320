/* ticker.h: the thread that asks each interpreter's safe point to look at the clock, the heap cap
 * and pending finalizers every few milliseconds while it runs, and not at all while idle (see
 * ticker.c). */
#ifndef TINYCL_TICKER_H
#define TINYCL_TICKER_H

#include <stdbool.h>

struct Lisp;

/* Ticks go to L from now on until ticker_unregister (lisp_new and lisp_free call these). */
void ticker_register(struct Lisp *L);
void ticker_unregister(struct Lisp *L);
/* An evaluation with a deadline starts (or a finalizer was registered): tick at the busy rate
 * from now on, starting the thread if this is the first kick. */
void ticker_kick(void);
/* Whether the thread was started (by a kick). */
bool ticker_started(void);
/* Ask for the thread without starting it here: the next safe point to take the slow path starts
 * it (only sets a flag: safe inside the collector). */
void ticker_want(void);
/* Called by the safe point's slow path after it lowered poll_limit: restarts a stopped ticker
 * (all interpreters were idle, see ticker.c). */
void ticker_safe_point(void);
/* Ticks delivered since the process started (tests: an idle process is not woken). */
unsigned long ticker_rounds(void);

#endif
