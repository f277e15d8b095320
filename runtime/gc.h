/* gc.h: allocation on the Boehm collector, with the heap cap turned into Lisp errors. */
#ifndef TINYCL_GC_H
#define TINYCL_GC_H

#include "state.h"

/* Once per process, before any interpreter exists. */
void gc_process_init(void);

/* The interpreter whose errors allocation failures on this thread become (GMP has no context argument). */
extern _Thread_local Lisp *gc_current;

/* Scanned, zeroed. A small object is popped from L's free list of its size in words
 * (L->gc_free), which gc_alloc_more refills a batch at a time from the collector
 * (GC_malloc_many: objects linked through their first word, the rest already zero): a few
 * instructions instead of the collector's thread-specific lookup on every call. The lists hang
 * from the Lisp structure, which the collector scans, so the objects on them stay reserved. */
void *gc_alloc_more(Lisp *L, size_t n);
static inline void *gc_alloc(Lisp *L, size_t n) {
    L->heap_unflushed += n;
    size_t w = (n + 7) >> 3;
    if (LIKELY(w <= GC_FREE_WORDS)) {
        void **p = (void **)L->gc_free[w];
        if (LIKELY(p != NULL)) {
            L->gc_free[w] = *p;
            *p = NULL;
            return p;
        }
    }
    return gc_alloc_more(L, n);
}
void *gc_alloc_atomic(Lisp *L, size_t n);   /* never scanned, not zeroed */
void *gc_alloc_uncleared(size_t n);          /* scanned, NOT zeroed, no cap: the caller writes every word first */
void *gc_realloc(Lisp *L, void *p, size_t n);
Obj heap_alloc(Lisp *L, HeapType t, size_t size);  /* zeroed headered object */

/* Refuse, before the allocator is asked, requests that can never fit. */
void gc_check_request(Lisp *L, size_t bytes);

/* The heap limit: a cap on the bytes in use (free blocks count as free). */
void gc_set_max_heap(Lisp *L, size_t bytes);   /* L's cap; 0: none */
void gc_forget_interpreter(Lisp *L);           /* L is freed: its cap and charge go */
size_t gc_heap_size(void);       /* the collector's heap, free blocks included */
size_t gc_bytes_in_use(void);    /* what the cap counts */
/* At a safe point: signal STORAGE-CONDITION when the bytes in use stay over the cap after a
 * full collection. */
void gc_poll_heap(Lisp *L);
size_t gc_total_bytes(void);
size_t gc_collections(void);     /* since the process started */
size_t gc_max_heap(Lisp *L);
void gc_collect(void);
bool gc_collected(const void *p);   /* in the collector's heap (not the boot image's or a restore's) */
void gc_forget_array(Obj *words, size_t n, Obj fill);   /* a replaced array outside collected memory */
/* After unwinding to the top level: give back the emergency reserve. */
void gc_restore_cap(Lisp *L);

_Noreturn void gc_heap_exhausted(Lisp *L, size_t request);

/* Clear up to 256 KB of stack below the caller, within L's stack limits (call between
 * evaluations: stale words there would keep garbage alive). */
void gc_clear_stack(Lisp *L);
/* The same between a session's evaluations, clearing only as deep as the stack went since the
 * last call (and a margin), and arming the probe that measures it for the next: safe points below
 * the probe call gc_stack_probe. */
void gc_clear_stack_used(Lisp *L);
void gc_stack_probe(Lisp *L, char *sp);

/* pthread_create for threads that touch Lisp objects (registered with the collector). */
#include <pthread.h>
int gc_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int gc_thread_join(pthread_t t);

static inline Obj cons(Lisp *L, Obj a, Obj d) {
    Cons *c = (Cons *)gc_alloc(L, sizeof(Cons));
    c->car = a;
    c->cdr = d;
    return cons_obj(c);
}

#endif
