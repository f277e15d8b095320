/* gc.c: Boehm GC set-up, the heap cap, GMP's allocator, and out-of-memory errors. */
#include "gc.h"
#include "error.h"
#include "control.h"
#include "image.h"
#include "ticker.h"
#define GC_THREADS
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_inline.h>
#include <string.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>

_Thread_local Lisp *gc_current;

/* The heap limit caps the bytes in use (live data and garbage not yet collected), not the
 * collector's heap size: that also counts free blocks, and a free block can be useless for a
 * large object (the collector avoids blocks that false pointers point into), so capping the heap
 * size made one large allocation the last of the process. The collector's own limit is only a
 * backstop against runaway fragmentation, well above the caps.
 *
 * The cap belongs to each interpreter. The collector is process-wide and cannot say whose objects
 * survive, so while only one capped interpreter lives the cap counts the process's bytes in use
 * (exact); with several, each is charged the bytes it allocated (counted on its own allocation
 * path), and whenever one reaches its cap the process collects and every charge is scaled down by
 * the same factor, so that together they add up to the bytes that survived: each interpreter's
 * share of the live heap in proportion to what it allocated. An interpreter that allocates only
 * garbage keeps a small charge; one that holds its data keeps it charged. docs/deploy.md says more. */
#define HEAP_RESERVE ((size_t)64 << 20)
#define BACKSTOP_FACTOR 4
#define CHECKED_REQUEST ((size_t)64 << 10)  /* requests checked against the cap before allocating */
#define LARGE_OBJECT ((size_t)1 << 20)      /* allocated ignoring off-page pointers (below) */

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static int capped_live;              /* interpreters with a cap */
static size_t caps_total;            /* their caps and reserves, for the backstop */
static double charge_total;          /* the sum of their charges */
static double charge_scale = 1.0;    /* the product of every scaling so far */

static size_t current_cap(Lisp *L) { return L->heap_cap + (L->heap_reserve_granted ? HEAP_RESERVE : 0); }

/* Bytes in blocks the collector has handed out (excludes free and unmapped blocks). */
static size_t bytes_in_use(void) {
    GC_word heap = 0, free_bytes = 0;
    GC_get_heap_usage_safe(&heap, &free_bytes, NULL, NULL, NULL);
    return heap > free_bytes ? (size_t)(heap - free_bytes) : 0;
}

static bool heap_shared(void) {
    pthread_mutex_lock(&cap_lock);
    bool shared = capped_live > 1;
    pthread_mutex_unlock(&cap_lock);
    return shared;
}

/* Bring L's charge to the current scale and add what it allocated since. */
static void settle(Lisp *L) {
    pthread_mutex_lock(&cap_lock);
    if (L->heap_scale_seen > 0 && L->heap_scale_seen != charge_scale) L->heap_charge *= charge_scale / L->heap_scale_seen;
    L->heap_scale_seen = charge_scale;
    L->heap_charge += (double)L->heap_unflushed;
    charge_total += (double)L->heap_unflushed;
    L->heap_unflushed = 0;
    pthread_mutex_unlock(&cap_lock);
}

/* After a full collection: scale every charge so that they add up to the bytes in use. */
static void rescale(void) {
    double in_use = (double)bytes_in_use();
    pthread_mutex_lock(&cap_lock);
    if (charge_total > in_use && charge_total > 0) {
        charge_scale *= in_use / charge_total;
        charge_total = in_use;
    }
    pthread_mutex_unlock(&cap_lock);
}

/* The bytes L counts against its cap: the process's alone, or its charge among several. */
static size_t counted(Lisp *L) {
    if (!heap_shared()) return bytes_in_use();
    settle(L);
    return (size_t)L->heap_charge;
}

/* Zero the stack below the caller. The collector scans whole frames, and words a deeper call left
 * behind (a pointer to a large array of the previous evaluation, say) would otherwise keep
 * objects alive from the slots of later frames that are never written. */
/* Not instrumented by AddressSanitizer: its redzones around AREA are not part of AREA, so the
 * memset missed them, and a word there (ASan's memset interceptor had left the address of the
 * last 800 MB array the collector cleared at just that depth) kept the array alive in the frames
 * of the collection over_cap starts next (test_gc.c, freed_memory_counts_as_free, under ASan). */
static void __attribute__((noinline, no_sanitize_address)) clear_below(size_t n) {
    char area[n];
    memset(area, 0, n);
    __asm__ volatile("" : : "r"(area) : "memory");   /* the stores must happen */
}

void gc_clear_stack(Lisp *L) {
    if (!L || !L->stack_hard_limit) return;
    /* at most 256 KB, and never more than half of what is left above the stack's hard limit:
     * a small thread stack only clears less */
    char *sp = (char *)__builtin_frame_address(0);
    if (sp <= L->stack_hard_limit) return;
    size_t room = (size_t)(sp - L->stack_hard_limit) / 2;
    size_t n = room < ((size_t)256 << 10) ? room : ((size_t)256 << 10);
    /* The whole pages below the next 16 KB are given back to the kernel instead, which reads them
     * as zeros when touched again: no cost for the pages no evaluation reached (the first
     * evaluation of a process, at start), and no resident memory kept for the deepest one. */
    uintptr_t page = 4096, lo = ((uintptr_t)sp - n + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)sp - ((size_t)16 << 10)) & ~(page - 1);
    /* (ENOMEM: part of the range is not mapped, the main thread's stack not grown that far yet;
     * what is mapped was given back all the same, and the rest reads as zeros when it grows) */
    if (n > ((size_t)32 << 10) && hi > lo && (madvise((void *)lo, hi - lo, MADV_DONTNEED) == 0 || errno == ENOMEM))
        n = (uintptr_t)sp - hi;
    clear_below(n);
}

/* The probe: the stack limit is raised to PROBE_STEP below the deepest safe point seen, so a
 * deeper one takes the slow path once per step and lowers it again. What runs below the last safe
 * point without one (the collector, GMP's temporary blocks, libc) is covered by CLEAR_MARGIN. */
#define PROBE_STEP ((size_t)16 << 10)
#define CLEAR_MARGIN ((size_t)32 << 10)

static void arm_probe(Lisp *L, char *sp) {
    L->stack_low = sp;
    char *probe = sp - PROBE_STEP;
    L->stack_limit = probe > L->stack_soft_limit ? probe : L->stack_soft_limit;
    lisp_request_poll(L);   /* the safe point's single compare takes the new limit */
}

void gc_stack_probe(Lisp *L, char *sp) {
    if (sp < L->stack_low) arm_probe(L, sp);
    else {                                         /* not this thread's probe: disarm it */
        L->stack_limit = L->stack_soft_limit;
        lisp_request_poll(L);
    }
}

void gc_clear_stack_used(Lisp *L) {
    if (!L || !L->stack_hard_limit) return;
    char *sp = (char *)__builtin_frame_address(0);
    if (sp <= L->stack_hard_limit) return;
    /* only when the stack is at its normal limit: not while a stack exhaustion is handled */
    bool probing = L->stack_limit >= L->stack_soft_limit;
    /* from the low-water mark (it may be above here: the last evaluation started deeper), else
     * (the first call, no probe) the fixed 256 KB */
    if (probing && L->stack_low > L->stack_hard_limit) {
        size_t used = (L->stack_low < sp ? (size_t)(sp - L->stack_low) : 0) + PROBE_STEP + CLEAR_MARGIN;
        size_t room = (size_t)(sp - L->stack_hard_limit) / 2;
        clear_below(used < room ? used : room);
    } else {
        gc_clear_stack(L);
    }
    if (probing) arm_probe(L, sp);
}

/* Would REQUEST more bytes go over L's cap? Garbage counts as in use until collected, so
 * only a full collection decides. */
static bool over_cap(Lisp *L, size_t request) {
    if (!L || !L->heap_cap) return false;
    size_t cap = current_cap(L);
    if (request > cap) return true;
    if (counted(L) + request <= cap) return false;
    /* the collector's own frames go below here: clear what earlier calls left there first, or a
     * dead pointer to the last big array may be read as a live one */
    gc_clear_stack(L);
    GC_gcollect();
    rescale();
    return counted(L) + request > cap;
}

/* A block of the boot image (image.c) is not a block of the collector's: it can be neither freed
 * nor reallocated in place. Its size is unknown; what follows it in the image is readable, so a
 * copy takes up to the new size, bounded by the image's end. */
static bool image_block(Lisp *L, void *p, size_t *avail, bool *atomic) {
    if (!L) return false;
    const ImageHeap *h = &L->image_heap;
    if (!image_heap_contains(h, p)) {
        size_t i = 0;
        while (i < L->nrestored_heaps && !image_heap_contains(&L->restored_heaps[i], p)) i++;
        if (i == L->nrestored_heaps) return false;
        h = &L->restored_heaps[i];
    }
    *atomic = (char *)p >= h->atomic && (char *)p < h->atomic + h->atomic_room;
    *avail = *atomic ? (size_t)(h->atomic + h->atomic_room - (char *)p) : (size_t)(h->scanned + h->scanned_room - (char *)p);
    return true;
}

/* GMP chains its temporary blocks (TMP_BALLOC, of any size) through a header inside each block,
 * so its memory must be scanned: with atomic memory a collection during a long operation frees
 * blocks that only the chain refers to (seen as crashes in mpn_mul_fft). */
static void *gmp_alloc(size_t n) {
    if (gc_current) gc_current->heap_unflushed += n;
    if (n >= CHECKED_REQUEST && gc_current && over_cap(gc_current, n)) gc_heap_exhausted(gc_current, n);
    void *p = GC_MALLOC(n);
    if (!p) {
        if (gc_current) gc_heap_exhausted(gc_current, n);
        fputs("tinycl: out of memory in bignum arithmetic\n", stderr);
        abort();
    }
    return p;
}
static void *gmp_realloc(void *p, size_t old, size_t n) {
    size_t avail; bool atomic;
    if (image_block(gc_current, p, &avail, &atomic)) {
        void *q = gmp_alloc(n);
        memcpy(q, p, old < n ? old : n);
        return q;
    }
    if (gc_current && n > old) gc_current->heap_unflushed += n - old;
    if (n > old && n - old >= CHECKED_REQUEST && gc_current && over_cap(gc_current, n - old)) gc_heap_exhausted(gc_current, n);
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

/* A program that collects may grow towards its heap cap, and its collections queue finalizers:
 * both are polled at safe points the ticker thread sends down the slow path, so the first
 * collection asks for the thread (ticker.c), and this interpreter's next safe point starts it. Run
 * by the collector with its lock held: it only sets flags. */
static void on_collection(void) {
    ticker_want();
    if (gc_current) lisp_request_poll(gc_current);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
extern void *__libc_stack_end;       /* glibc: the main thread's stack pointer at entry */
/* Start-up needs almost no heap: the boot image is mapped outside it (a second session's copy is
 * made room for by image.c), and a start, `tinycl mcp`'s initialize or a fresh session allocates
 * under 100 KB. The initial heap only trades collections against memory for programs that
 * allocate: Boehm uses its free blocks before it collects, so a program's resident memory is
 * about the start's plus this much. 8 MiB keeps the allocating benchmarks within issue 17's 20%
 * of their 2026-11-22 peak (16 MiB took 9 MB more each) at the instruction count they had with
 * 16 MiB: a collection now costs half what it did (docs/performance.md, "Peak memory of the
 * allocating programs"). GC_INITIAL_HEAP_SIZE, when set, decides instead (for measuring). */
#define INITIAL_HEAP ((size_t)8 << 20)

static void do_init(void) {
    /* one marker: a helper thread costs more to start than it saves on heaps of this size (the
     * collector's own GC_MARKERS variable still decides when set) */
    if (!getenv("GC_MARKERS")) GC_set_markers_count(1);
    GC_set_dont_precollect(1);       /* nothing to collect yet */
    /* On the main thread its stack ends where the C library recorded it at entry: told so, the
     * collector does not look the stack up with pthread_getattr_np, which reads all of
     * /proc/self/maps (a tenth of the system calls' time of `tinycl -e nil`). From another
     * thread it finds that thread's stack itself. */
    if (getpid() == gettid() && __libc_stack_end) {
        struct GC_stack_base main_stack = {__libc_stack_end};
        GC_set_stackbottom(NULL, &main_stack);
    }
    GC_INIT();
    if (!getenv("GC_INITIAL_HEAP_SIZE") && GC_get_heap_size() < INITIAL_HEAP) GC_expand_hp(INITIAL_HEAP - GC_get_heap_size());
    GC_allow_register_threads();
    GC_set_start_callback(on_collection);
    GC_set_oom_fn(oom_fn);
    GC_set_warn_proc(quiet_warn);
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
}
void gc_process_init(void) { pthread_once(&once, do_init); }

static void set_backstop_locked(void) {
    GC_set_max_heap_size(caps_total ? BACKSTOP_FACTOR * caps_total : 0);
}

void gc_set_max_heap(Lisp *L, size_t bytes) {
    pthread_mutex_lock(&cap_lock);
    if (L->heap_cap) { capped_live--; caps_total -= L->heap_cap + HEAP_RESERVE; }
    L->heap_cap = bytes;
    L->heap_reserve_granted = false;
    L->heap_scale_seen = charge_scale;
    if (bytes) { capped_live++; caps_total += bytes + HEAP_RESERVE; }
    set_backstop_locked();
    pthread_mutex_unlock(&cap_lock);
}

void gc_forget_interpreter(Lisp *L) {
    settle(L);
    pthread_mutex_lock(&cap_lock);
    charge_total -= L->heap_charge;
    if (charge_total < 0) charge_total = 0;
    L->heap_charge = 0;
    pthread_mutex_unlock(&cap_lock);
    gc_set_max_heap(L, 0);
}

size_t gc_max_heap(Lisp *L) { return L->heap_cap; }
size_t gc_heap_size(void) { return GC_get_heap_size(); }
size_t gc_bytes_in_use(void) { return bytes_in_use(); }
size_t gc_total_bytes(void) { return GC_get_total_bytes(); }
size_t gc_collections(void) { return GC_get_gc_no(); }
void gc_collect(void) { GC_gcollect(); }

/* An array of N words a table has just replaced. One in collected memory becomes garbage; one in
 * the heap of the boot image or of a restore is never freed and is a root of the collector and of
 * the checkpoint writer, so the words it still holds (symbols interned since the boot, entries
 * since cleared) would keep whatever they reach alive: fill it with FILL. */
bool gc_collected(const void *p) { return p && GC_base((void *)p); }

void gc_forget_array(Obj *words, size_t n, Obj fill) {
    if (!words || GC_base(words)) return;
    for (size_t i = 0; i < n; i++) if (words[i] != fill) words[i] = fill;
}

void gc_restore_cap(Lisp *L) {
    if (L->heap_reserve_granted) {
        L->heap_reserve_granted = false;
        GC_gcollect();
        rescale();
    }
}

/* What is left to allocate under L's raised cap, after a collection. */
static size_t heap_room(Lisp *L) {
    GC_gcollect();
    rescale();
    size_t cap = L->heap_cap + HEAP_RESERVE, used = counted(L);
    return cap > used ? cap - used : 0;
}

_Noreturn void gc_heap_exhausted(Lisp *L, size_t request) {
    size_t in_use = L->heap_cap ? counted(L) : bytes_in_use();
    size_t max_heap = L->heap_cap;
    if (max_heap && !L->heap_reserve_granted) {
        L->heap_reserve_granted = true;
    } else if (max_heap && heap_room(L) < ((size_t)1 << 20)) {
        /* the reserve lent to handlers is used up too (a handler that keeps allocating): no
         * handler may run and not even the report can be allocated, so, as at the stack's hard
         * limit, go straight to the top level with the bare condition type. (The reserve stays
         * granted after a handled error until the top level: with free memory, signal as usual.) */
        Frame *top = frame_toplevel(L);
        if (!top) { fputs("tinycl: heap exhausted\n", stderr); exit(70); }
        L->last_error = S(STORAGE_CONDITION);
        unwind_to(L, top, JUMP_ERROR);
    }
    if (!request)
        err_storage(L, "Heap exhausted: %zu MB in use after a full collection (heap limit %zu MB).",
                    in_use >> 20, max_heap >> 20);
    err_storage(L, "Heap exhausted: could not allocate %zu bytes (heap limit %zu MB).",
                request, max_heap >> 20);
}

void gc_check_request(Lisp *L, size_t bytes) {
    size_t limit = L->heap_cap ? current_cap(L) : ((size_t)1 << 44);
    if (bytes > limit || (bytes >= CHECKED_REQUEST && over_cap(L, bytes))) gc_heap_exhausted(L, bytes);
}

void gc_poll_heap(Lisp *L) {
    if (L->heap_cap && over_cap(L, 0)) gc_heap_exhausted(L, 0);
}

/* Large objects are allocated "ignoring off-page pointers": only their first page must be free of
 * false references, so a large free block that stray words point into can still be reused (every
 * reference to such an object points to its start: a vector's header, a string's data). The
 * collector returns NULL only at its backstop; a full collection may still find room. */
static void *alloc_slow(Lisp *L, size_t n, bool atomic) {
    if (n >= CHECKED_REQUEST && over_cap(L, n)) gc_heap_exhausted(L, n);
    for (int attempt = 0; attempt < 2; attempt++) {
        void *p = n >= LARGE_OBJECT ? (atomic ? GC_malloc_atomic_ignore_off_page(n) : GC_malloc_ignore_off_page(n))
                                    : (atomic ? GC_malloc_atomic(n) : GC_malloc(n));
        if (p) return p;
        GC_gcollect_and_unmap();
    }
    gc_heap_exhausted(L, n);
}

/* gc_alloc's free list of N bytes is empty (or N is not small): refill it, or allocate alone.
 * Each object of a batch is rounded up to whole words, which is what the collector's own
 * allocation does with the word-sized objects the runtime makes. */
void *gc_alloc_more(Lisp *L, size_t n) {
    size_t w = (n + 7) >> 3;
    if (w >= 1 && w <= GC_FREE_WORDS) {
        void **p = (void **)GC_malloc_many(w * 8);
        if (LIKELY(p != NULL)) {
            L->gc_free[w] = *p;
            *p = NULL;
            return p;
        }
    }
    if (LIKELY(n < CHECKED_REQUEST)) {
        void *p = GC_MALLOC(n);
        if (LIKELY(p != NULL)) return p;
    }
    return alloc_slow(L, n, false);
}

/* A kind scanned as the collector's normal objects are, whose new objects are not cleared: for a
 * block the caller fills whole at once (a compiled file's objects, image.c), clearing megabytes
 * only to overwrite them cost about 4% of loading systems from the cache. */
static unsigned uncleared_kind;
static pthread_once_t uncleared_once = PTHREAD_ONCE_INIT;
static void uncleared_init(void) { uncleared_kind = GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 0); }

void *gc_alloc_uncleared(size_t n) {
    pthread_once(&uncleared_once, uncleared_init);
    return GC_generic_malloc(n, (int)uncleared_kind);
}

void *gc_alloc_atomic(Lisp *L, size_t n) {
    if (!n) n = 1;
    L->heap_unflushed += n;
    if (LIKELY(n < CHECKED_REQUEST)) {
        void *p = GC_MALLOC_ATOMIC(n);
        if (LIKELY(p != NULL)) return p;
    }
    return alloc_slow(L, n, true);
}

void *gc_realloc(Lisp *L, void *old, size_t n) {
    size_t avail; bool loaded_atomic;
    if (image_block(L, old, &avail, &loaded_atomic)) {
        void *p = loaded_atomic ? gc_alloc_atomic(L, n) : gc_alloc(L, n);
        memcpy(p, old, avail < n ? avail : n);
        return p;
    }
    L->heap_unflushed += n;
    if (n >= CHECKED_REQUEST && old) {
        /* a fresh object allocated as above, the old contents copied */
        size_t old_size = 0;
        bool atomic = GC_get_kind_and_size(old, &old_size) == GC_I_PTRFREE;
        void *p = alloc_slow(L, n, atomic);
        memcpy(p, old, old_size < n ? old_size : n);
        if (!atomic && n > old_size) memset((char *)p + old_size, 0, n - old_size);
        GC_FREE(old);
        return p;
    }
    void *p = GC_REALLOC(old, n);
    if (UNLIKELY(!p)) {
        GC_gcollect_and_unmap();
        p = GC_REALLOC(old, n);
        if (!p) gc_heap_exhausted(L, n);
    }
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

/* A thread made by gc_thread_create must be joined here, or the collector keeps waiting for it. */
int gc_thread_join(pthread_t t) {
    return GC_pthread_join(t, NULL);
}
