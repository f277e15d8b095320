/* gc.c: Boehm GC set-up, the heap cap, GMP's allocator, and out-of-memory errors. */
#include "gc.h"
#include "error.h"
#include "control.h"
#define GC_THREADS
#include <gc/gc.h>
#include <stdlib.h>
#include <pthread.h>

_Thread_local Lisp *gc_current;

static size_t max_heap;              /* the cap asked for; 0 = none */
static bool reserve_granted;         /* the cap is raised while a heap error is handled */
#define HEAP_RESERVE ((size_t)64 << 20)

/* GMP chains its temporary blocks (TMP_BALLOC, of any size) through a header inside each block,
 * so its memory must be scanned: with atomic memory a collection during a long operation frees
 * blocks that only the chain refers to (seen as crashes in mpn_mul_fft). */
static void *gmp_alloc(size_t n) {
    void *p = GC_MALLOC(n);
    if (!p) {
        if (gc_current) gc_heap_exhausted(gc_current, n);
        fputs("tinycl: out of memory in bignum arithmetic\n", stderr);
        abort();
    }
    return p;
}
static void *gmp_realloc(void *p, size_t old, size_t n) {
    (void)old;
    void *q = GC_REALLOC(p, n);
    if (!q) {
        if (gc_current) gc_heap_exhausted(gc_current, n);
        fputs("tinycl: out of memory in bignum arithmetic\n", stderr);
        abort();
    }
    return q;
}
static void gmp_free(void *p, size_t n) { (void)p; (void)n; }

static void *oom_fn(size_t n) { (void)n; return NULL; }

/* The collector's warnings (repeated large allocations) are not for users. */
static void quiet_warn(char *msg, GC_word arg) { (void)msg; (void)arg; }

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void do_init(void) {
    GC_INIT();
    GC_allow_register_threads();
    GC_set_oom_fn(oom_fn);
    GC_set_warn_proc(quiet_warn);
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
}
void gc_process_init(void) { pthread_once(&once, do_init); }

void gc_set_max_heap(size_t bytes) {
    max_heap = bytes;
    reserve_granted = false;
    GC_set_max_heap_size(bytes ? bytes : 0);
}
size_t gc_max_heap(void) { return max_heap; }
size_t gc_heap_size(void) { return GC_get_heap_size(); }
size_t gc_total_bytes(void) { return GC_get_total_bytes(); }
void gc_collect(void) { GC_gcollect(); }

void gc_restore_cap(Lisp *L) {
    (void)L;
    if (reserve_granted) {
        reserve_granted = false;
        GC_gcollect();
        GC_set_max_heap_size(max_heap);
    }
}

/* What is left to allocate under the raised cap, after a collection. */
static size_t heap_room(void) {
    GC_gcollect();
    size_t cap = max_heap + HEAP_RESERVE, size = GC_get_heap_size();
    return (cap > size ? cap - size : 0) + GC_get_free_bytes();
}

_Noreturn void gc_heap_exhausted(Lisp *L, size_t request) {
    if (max_heap && !reserve_granted) {
        reserve_granted = true;
        GC_set_max_heap_size(max_heap + HEAP_RESERVE);
    } else if (max_heap && heap_room() < ((size_t)1 << 20)) {
        /* the reserve lent to handlers is used up too (a handler that keeps allocating): no
         * handler may run and not even the report can be allocated, so, as at the stack's hard
         * limit, go straight to the top level with the bare condition type. (The reserve stays
         * granted after a handled error until the top level: with free memory, signal as usual.) */
        Frame *top = frame_toplevel(L);
        if (!top) { fputs("tinycl: heap exhausted\n", stderr); exit(70); }
        L->last_error = S(STORAGE_CONDITION);
        unwind_to(L, top, JUMP_ERROR);
    }
    err_storage(L, "Heap exhausted: could not allocate %zu bytes (heap limit %zu MB).",
                request, max_heap >> 20);
}

void gc_check_request(Lisp *L, size_t bytes) {
    size_t limit = max_heap ? max_heap : ((size_t)1 << 44);
    if (bytes > limit) gc_heap_exhausted(L, bytes);
}

void *gc_alloc(Lisp *L, size_t n) {
    void *p = GC_MALLOC(n);
    if (UNLIKELY(!p)) gc_heap_exhausted(L, n);
    return p;
}

void *gc_alloc_atomic(Lisp *L, size_t n) {
    void *p = GC_MALLOC_ATOMIC(n ? n : 1);
    if (UNLIKELY(!p)) gc_heap_exhausted(L, n);
    return p;
}

void *gc_realloc(Lisp *L, void *old, size_t n) {
    void *p = GC_REALLOC(old, n);
    if (UNLIKELY(!p)) gc_heap_exhausted(L, n);
    return p;
}

Obj heap_alloc(Lisp *L, HeapType t, size_t size) {
    Header *h = (Header *)gc_alloc(L, size);
    h->type = (uint8_t)t;
    return (Obj)h;
}

int gc_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    return GC_pthread_create(t, attr, fn, arg);
}
