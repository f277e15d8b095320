/* weak.c: weak references and finalizers on the Boehm collector, for weak hash tables (hash.c),
 * weak pointers and FINALIZE (stdlib-lisp/weak.lisp). */
#include "weak.h"
#include "prim.h"
#include "abi.h"
#include "control.h"
#include "eval.h"
#include "ticker.h"
#define GC_THREADS
#include <gc/gc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The collector's block holding O, or NULL for what it does not manage (immediates, the boot
 * image mapped from the executable). */
static void *collected_base(Obj o) {
    if (!is_heap(o) && !is_cons(o)) return NULL;
    return GC_base((void *)(WORD(o) & ~(uintptr_t)TAG_MASK));
}

void weak_link(Obj *slot, Obj o) {
    void *base = collected_base(o);
    if (base) GC_general_register_disappearing_link((void **)slot, base);
}

void weak_unlink(Obj *slot) { GC_unregister_disappearing_link((void **)slot); }

unsigned long weak_gc_count(void) { return (unsigned long)GC_get_gc_no(); }

/* ---- finalizers ----
 * The collector calls `finalized` in whatever thread allocates after a collection found an object
 * unreachable; it only queues the finalization's number for the interpreter that asked, which
 * takes it at its next safe point and runs the Lisp functions there, never inside the collector
 * and never on another interpreter's thread. The functions themselves stay in the interpreter's
 * Lisp table (weak.lisp), keyed by the number: the collector's record holds no Lisp object. */
typedef struct Finalization {
    const Lisp *owner;          /* compared, never followed: the owner may be gone */
    long id;
    struct Finalization *next;  /* in the queue, once finalized */
    struct Finalization *reg_prev, *reg_next;   /* among the registered ones, until then */
} Finalization;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static Finalization *queue;
/* The records the collector holds (registered, not yet finalized): a restore asks which numbers
 * can still be queued, to drop the Lisp entries of the others (weak_finalizer_live_ids). */
static Finalization *registered;
atomic_long weak_finalized_pending;
static atomic_long next_id = 1;   /* numbers are unique in the process, so a stale one matches nothing */

/* with queue_lock held */
static void unregister_record(Finalization *f) {
    if (f->reg_prev) f->reg_prev->reg_next = f->reg_next;
    else if (registered == f) registered = f->reg_next;
    if (f->reg_next) f->reg_next->reg_prev = f->reg_prev;
    f->reg_prev = f->reg_next = NULL;
}

static void forget_record(Finalization *f) {
    pthread_mutex_lock(&queue_lock);
    unregister_record(f);
    pthread_mutex_unlock(&queue_lock);
    free(f);
}

static void finalized(void *obj, void *cd) {
    (void)obj;
    Finalization *f = (Finalization *)cd;
    pthread_mutex_lock(&queue_lock);
    unregister_record(f);
    f->next = queue;
    queue = f;
    pthread_mutex_unlock(&queue_lock);
    atomic_fetch_add(&weak_finalized_pending, 1);
}

/* Take L's queued numbers, oldest first, as a list. */
static Obj take_finalized(Lisp *L) {
    long ids[256];
    int n = 0;
    Finalization *mine = NULL;
    pthread_mutex_lock(&queue_lock);
    for (Finalization **p = &queue; *p && n < 256;) {
        if ((*p)->owner == L) {
            Finalization *f = *p;
            *p = f->next;
            f->next = mine;
            mine = f;
            ids[n++] = f->id;
        } else p = &(*p)->next;
    }
    pthread_mutex_unlock(&queue_lock);
    atomic_fetch_sub(&weak_finalized_pending, n);
    while (mine) { Finalization *f = mine; mine = f->next; free(f); }
    Obj out = NIL;   /* the queue is newest first: consing reverses it back to the order of death */
    for (int i = 0; i < n; i++) out = cons(L, FIX(ids[i]), out);
    return out;
}

void weak_forget_interpreter(Lisp *L) {
    int n = 0;
    pthread_mutex_lock(&queue_lock);
    for (Finalization **p = &queue; *p;) {
        if ((*p)->owner == L) { Finalization *f = *p; *p = f->next; free(f); n++; }
        else p = &(*p)->next;
    }
    pthread_mutex_unlock(&queue_lock);
    atomic_fetch_sub(&weak_finalized_pending, n);
}

void weak_run_finalizers(Lisp *L) {
    if (GC_should_invoke_finalizers()) GC_invoke_finalizers();
    if (atomic_load_explicit(&weak_finalized_pending, memory_order_relaxed) <= 0) return;
    Obj fn = abi_upcall(L, S(P_RUN_FINALIZERS));
    if (fn == NIL) return;   /* the stdlib is still loading */
    /* its first call analyses it, and the analysis reaches safe points: not from inside that */
    if (is_type(fn, T_CLOSURE) && CLOSURE(fn)->lambda->lazy == LAZY_FORCING) return;
    /* the safe point may fall between a call's return and the use of its values */
    int nv = L->nvals;
    Obj saved[nv > 0 ? nv : 1];
    memcpy(saved, L->values, (size_t)nv * sizeof(Obj));
    funcall0(L, fn);
    memcpy(L->values, saved, (size_t)nv * sizeof(Obj));
    L->nvals = nv;
}

/* (sys:%finalizer-register object) -> the number under which OBJECT's finalization will be queued,
 * or NIL when OBJECT is never collected (an immediate object, or one of the boot image). A second
 * registration of the same object replaces the first (the Lisp side keeps one number per object). */
DEFPRIM(prim_pct_finalizer_register) {
    UNUSED_ARGS;
    void *base = collected_base(args[0]);
    if (!base) return NIL;
    Finalization *f = (Finalization *)malloc(sizeof *f);
    if (!f) err_storage(L, "No memory for a finalizer");
    f->owner = L;
    f->id = atomic_fetch_add(&next_id, 1);
    f->next = NULL;
    f->reg_prev = NULL;
    pthread_mutex_lock(&queue_lock);
    f->reg_next = registered;
    if (registered) registered->reg_prev = f;
    registered = f;
    pthread_mutex_unlock(&queue_lock);
    GC_finalization_proc old_fn = 0;
    void *old_cd = NULL;
    /* no order: an object reachable from another finalizable one is still finalized */
    GC_register_finalizer_no_order(base, finalized, f, &old_fn, &old_cd);
    if (old_fn == finalized) forget_record((Finalization *)old_cd);
    ticker_kick();   /* finalizers run at safe points the ticker sends down the slow path */
    return FIX(f->id);
}

/* (sys:%finalizer-cancel object): OBJECT's finalization will not be queued. */
DEFPRIM(prim_pct_finalizer_cancel) {
    UNUSED_ARGS;
    void *base = collected_base(args[0]);
    if (!base) return NIL;
    GC_finalization_proc old_fn = 0;
    void *old_cd = NULL;
    GC_register_finalizer_no_order(base, 0, NULL, &old_fn, &old_cd);
    if (old_fn == finalized) forget_record((Finalization *)old_cd);
    return NIL;
}

/* (sys:%finalizer-live-ids) -> the numbers of this interpreter's finalizations that can still be
 * queued or are queued: any other number in the Lisp table (one a restored state brought back,
 * whose object was a copy or is gone) never comes. */
DEFPRIM(prim_pct_finalizer_live_ids) {
    UNUSED_ARGS;
    enum { CHUNK = 256 };
    long ids[CHUNK];
    Obj out = NIL;
    /* collected a chunk at a time: no allocation while the lock is held */
    for (size_t skip = 0;; skip += CHUNK) {
        size_t n = 0, seen = 0;
        pthread_mutex_lock(&queue_lock);
        for (int pass = 0; pass < 2 && n < CHUNK; pass++)
            for (Finalization *f = pass ? queue : registered; f && n < CHUNK; f = pass ? f->next : f->reg_next)
                if (f->owner == L && seen++ >= skip) ids[n++] = f->id;
        pthread_mutex_unlock(&queue_lock);
        for (size_t i = 0; i < n; i++) out = cons(L, FIX(ids[i]), out);
        if (n < CHUNK) return out;
    }
}

/* (sys:%finalized-ids) -> the numbers of this interpreter's finalizations queued since the last call */
DEFPRIM(prim_pct_finalized_ids) { UNUSED_ARGS; return take_finalized(L); }

const PrimDef weak_prims[] = {
    {"%FINALIZER-REGISTER", PK_SYS, prim_pct_finalizer_register, 1, 1, 0, "(object)", NULL},
    {"%FINALIZER-CANCEL", PK_SYS, prim_pct_finalizer_cancel, 1, 1, 0, "(object)", NULL},
    {"%FINALIZED-IDS", PK_SYS, prim_pct_finalized_ids, 0, 0, 0, "()", NULL},
    {"%FINALIZER-LIVE-IDS", PK_SYS, prim_pct_finalizer_live_ids, 0, 0, 0, "()", NULL},
    {0},
};

void weak_init(Lisp *L) { prims_register(L, weak_prims); }
