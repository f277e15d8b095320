/* gc.h: allocation on the Boehm collector, with the heap cap turned into Lisp errors. */
#ifndef TINYCL_GC_H
#define TINYCL_GC_H

#include "state.h"

/* Once per process, before any interpreter exists. */
void gc_process_init(void);

/* The interpreter whose errors allocation failures on this thread become (GMP has no context argument). */
extern _Thread_local Lisp *gc_current;

void *gc_alloc(Lisp *L, size_t n);          /* scanned, zeroed */
void *gc_alloc_atomic(Lisp *L, size_t n);   /* never scanned, not zeroed */
void *gc_realloc(Lisp *L, void *p, size_t n);
Obj heap_alloc(Lisp *L, HeapType t, size_t size);  /* zeroed headered object */

/* Refuse, before the allocator is asked, requests that can never fit. */
void gc_check_request(Lisp *L, size_t bytes);

void gc_set_max_heap(size_t bytes);
size_t gc_heap_size(void);
size_t gc_total_bytes(void);
size_t gc_max_heap(void);
void gc_collect(void);
/* After unwinding to the top level: give back the emergency reserve. */
void gc_restore_cap(Lisp *L);

_Noreturn void gc_heap_exhausted(Lisp *L, size_t request);

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
