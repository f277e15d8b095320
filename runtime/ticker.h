/* ticker.h: the thread that asks each interpreter's safe point to look at the clock, the heap cap
 * and pending finalizers every few milliseconds while it runs (see ticker.c). */
#ifndef TINYCL_TICKER_H
#define TINYCL_TICKER_H

struct Lisp;

/* Ticks go to L from now on until ticker_unregister (lisp_new and lisp_free call these). */
void ticker_register(struct Lisp *L);
void ticker_unregister(struct Lisp *L);
/* An evaluation with a deadline starts: tick at the busy rate from now on. */
void ticker_kick(void);

#endif
