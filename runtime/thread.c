/* thread.c: Lisp threads under one lock per interpreter (thread.h). Each thread is a pthread
 * registered with the collector, with a record holding what in struct Lisp belongs to the thread
 * running: its frames, call records, special bindings, values, exit state, stack limits, reader
 * and analysis state. Handing the lock over saves the outgoing thread's fields into its record
 * and loads the incoming one's. Special variables are shallow-bound (the value is in the
 * symbol), so the outgoing thread's bindings are undone (each entry of its binding stack keeps
 * the value it had) and the incoming one's are put back: every thread sees the global value of a
 * variable it did not bind itself, as in SBCL.
 *
 * The lock goes, first come first served, to the threads queued for it. The session's own thread
 * (the main record: whichever pthread the session is called from) holds it between evaluations,
 * so other threads run only while an evaluation runs, and nothing they do reaches the session
 * between calls. Every wait here is in slices with a safe point between them, so the
 * evaluation's deadline and cancellation still stop the session's thread, and interrupts and
 * termination reach the others. */
#include "thread.h"
#include "prim.h"
#include "eval.h"
#include "number.h"
#include "package.h"
#include "ticker.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* The longest a park waits before it looks again: the session's thread must see its deadline and
 * a cancellation, which do not wake it; another thread is woken by all that concerns it (an
 * unpark, an interrupt, termination), so its slices only bound what a lost wake would cost. */
#define WAIT_SLICE_MS 50
#define OTHER_WAIT_SLICE_MS 1000

/* The fields of struct Lisp that belong to the running thread (besides the values and the
 * binding stack, which are handled on their own). */
#define THREAD_FIELDS(X)                                                                             \
    X(Frame *, frames) X(CallRecord *, calls) X(SpecialBinding *, specials) X(size_t, special_sp)     \
    X(size_t, special_cap) X(void *, exit_target) X(int, exit_tag) X(Frame *, unwind_target)          \
    X(int, unwind_code) X(char *, stack_limit) X(char *, stack_low) X(char *, stack_soft_limit)       \
    X(char *, stack_hard_limit) X(int, read_depth) X(int, bq_level) X(Obj, read_labels)               \
    X(bool, read_preserve_ws) X(int, error_depth) X(int, exit_code) X(Obj, last_error)                \
    X(Obj, last_backtrace) X(Obj, xref_caller) X(Obj, xref_pending) X(Obj, xref_pending_sites)        \
    X(Obj, xref_site) X(Obj, source_location) X(int, form_line) X(int, form_column) X(Obj, form_file) \
    X(Obj, form_positions) X(Obj, form_positions_stream)

struct LispThread {
    LispThread *next_all;      /* the live records, newest first */
    LispThread *next_queue;    /* queued for the lock */
    Lisp *L;
    long id;                   /* 0: the session's own */
    Obj object;                /* the Lisp thread object (NIL until the main record is given one) */
    Obj function;              /* what a new thread calls */
    Obj interrupts;            /* functions to call at its next safe point, oldest first */
    bool terminate;            /* asked to end: unwind at the next safe point */
    bool terminating;          /* unwinding for that (its cleanups run) */
    bool permit;               /* an unpark not yet consumed by a park */
    bool poke;                 /* wake from a park to look at interrupts */
    int inhibit;               /* nesting of regions where it keeps the lock (%THREAD-INHIBIT) */
    unsigned long slice_tick;  /* the ticker's round when it last took the lock */
    LispThread *joining;       /* the thread it waits to end */
    pthread_cond_t cond;       /* its turn, or a wake from a park */
    /* the saved state */
#define DECLARE_FIELD(type, name) type name;
    THREAD_FIELDS(DECLARE_FIELD)
#undef DECLARE_FIELD
};

typedef struct LispThreads {
    pthread_mutex_t m;
    LispThread *owner;         /* holds the lock */
    LispThread *head, *tail;   /* queued for it */
    atomic_int queued;
    LispThread *main;
    LispThread *all;
    int others;                /* live threads besides the main record */
    long next_id;
} LispThreads;

static LispThreads *threads_of(Lisp *L) { return (LispThreads *)L->threads; }

static LispThread *record_new(Lisp *L, long id) {
    LispThread *t = (LispThread *)gc_alloc(L, sizeof *t);
    t->L = L;
    t->id = id;
    t->object = t->function = t->interrupts = NIL;
    t->read_labels = t->last_error = t->last_backtrace = NIL;
    t->xref_caller = t->xref_pending = t->xref_pending_sites = t->xref_site = NIL;
    t->source_location = t->form_file = t->form_positions = t->form_positions_stream = NIL;
    pthread_cond_init(&t->cond, NULL);
    return t;
}

/* The threads of L, made at the first use: the caller becomes the main record, holding the lock. */
static LispThreads *threads_ensure(Lisp *L) {
    LispThreads *th = threads_of(L);
    if (th) return th;
    th = (LispThreads *)gc_alloc(L, sizeof *th);
    pthread_mutex_init(&th->m, NULL);
    th->main = record_new(L, 0);
    th->all = th->main;
    th->owner = th->main;
    th->next_id = 1;
    L->threads = th;
    return th;
}

static LispThread *current(Lisp *L) { return threads_of(L)->owner; }

bool threads_on_main(Lisp *L) {
    LispThreads *th = threads_of(L);
    return !th || th->owner == th->main;
}

/* ---- handing the lock over ---- */

/* Exchange a binding's saved value with its symbol's: done to every binding of the running thread,
 * innermost first, it undoes them, each entry keeping the value the thread had (swap_out); done
 * again outermost first, it puts them back (swap_in). */
static inline void swap_binding(SpecialBinding *b) {
    Obj v = SYM(b->sym)->value;
    SYM(b->sym)->value = b->old;
    b->old = v;
}
static void swap_out(Lisp *L) {
    for (size_t i = L->special_sp; i-- > 0;) swap_binding(&L->specials[i]);
}
static void swap_in(Lisp *L) {
    for (size_t i = 0; i < L->special_sp; i++) swap_binding(&L->specials[i]);
}

static void save(Lisp *L, LispThread *t) {
    swap_out(L);
#define SAVE_FIELD(type, name) t->name = L->name;
    THREAD_FIELDS(SAVE_FIELD)
#undef SAVE_FIELD
}

static void load(Lisp *L, LispThread *t) {
#define LOAD_FIELD(type, name) L->name = t->name;
    THREAD_FIELDS(LOAD_FIELD)
#undef LOAD_FIELD
    swap_in(L);
    /* the stack limits are this thread's: the next safe point takes them into poll_limit, and
     * looks at this thread's interrupts */
    lisp_request_poll(L);
}

/* Give the lock to the first thread queued (or to nobody). Called with th->m held. */
static void hand_on(LispThreads *th) {
    LispThread *n = th->head;
    th->owner = n;
    if (n) {
        th->head = n->next_queue;
        if (!th->head) th->tail = NULL;
        n->next_queue = NULL;
        atomic_fetch_sub(&th->queued, 1);
        pthread_cond_signal(&n->cond);
    }
}

static void release(Lisp *L, LispThread *t) {
    LispThreads *th = threads_of(L);
    save(L, t);
    pthread_mutex_lock(&th->m);
    hand_on(th);
    pthread_mutex_unlock(&th->m);
}

static void acquire(Lisp *L, LispThread *t) {
    LispThreads *th = threads_of(L);
    pthread_mutex_lock(&th->m);
    if (!th->owner && !th->head) th->owner = t;
    else {
        if (th->tail) th->tail->next_queue = t;
        else th->head = t;
        th->tail = t;
        atomic_fetch_add(&th->queued, 1);
        while (th->owner != t) pthread_cond_wait(&t->cond, &th->m);
    }
    pthread_mutex_unlock(&th->m);
    gc_current = L;
    t->slice_tick = ticker_rounds();
    load(L, t);
}

LispThread *threads_block_begin(Lisp *L) {
    if (!threads_of(L)) return NULL;
    LispThread *t = current(L);
    release(L, t);
    return t;
}

void threads_block_end(Lisp *L, LispThread *self) {
    if (self) acquire(L, self);
}

/* Hand the lock on and wait for it again. The values are kept on this thread's stack (the safe
 * point may fall between a call's return and the use of its values); the other threads' own
 * evaluations overwrite L->values meanwhile. */
static void yield(Lisp *L) {
    LispThread *t = current(L);
    int n = L->nvals;
    Obj kept[n > 0 ? n : 1];
    memcpy(kept, L->values, sizeof(Obj) * (size_t)n);
    release(L, t);
    acquire(L, t);
    memcpy(L->values, kept, sizeof(Obj) * (size_t)n);
    L->nvals = n;
}

int threads_inhibit(Lisp *L, int delta) {
    if (!threads_of(L)) return 0;
    LispThread *t = current(L);
    int old = t->inhibit;
    t->inhibit += delta;
    if (t->inhibit < 0) t->inhibit = 0;
    if (t->inhibit == 0) lisp_request_poll(L);   /* what waited for the region's end */
    return old;
}

/* ---- the safe point ---- */

void threads_safe_point(Lisp *L) {
    LispThreads *th = threads_of(L);
    LispThread *t = th->owner;
    if (t->inhibit > 0) return;
    if (t->terminate && !t->terminating && t != th->main) {
        t->terminating = true;
        Frame *top = frame_outermost_toplevel(L);
        if (top) unwind_to(L, top, JUMP_INTERRUPT);
    }
    while (is_cons(t->interrupts) && !t->terminating) {
        Obj fn = CAR(t->interrupts);
        t->interrupts = CDR(t->interrupts);
        /* the safe point may fall between a call's return and the use of its values */
        int n = L->nvals;
        Obj kept[n > 0 ? n : 1];
        memcpy(kept, L->values, sizeof(Obj) * (size_t)n);
        funcall0(L, fn);
        memcpy(L->values, kept, sizeof(Obj) * (size_t)n);
        L->nvals = n;
    }
    /* a thread that took the lock runs until the ticker's next round (2 ms at most) before it
     * hands it on at a safe point: not at the first one, which every switch sends down this path.
     * The profiler's stack of open calls is one per interpreter: a profiled run keeps the lock. */
    if (atomic_load_explicit(&th->queued, memory_order_relaxed) > 0 && !L->profiling &&
        ticker_rounds() != t->slice_tick)
        yield(L);
}

/* ---- waiting: a park wakes at an unpark, a poke, or the end of a slice ---- */

static void deadline_in(struct timespec *ts, double seconds) {
    clock_gettime(CLOCK_REALTIME, ts);
    double ns = (double)ts->tv_nsec + seconds * 1e9;
    ts->tv_sec += (time_t)(ns / 1e9);
    ts->tv_nsec = (long)(ns - (double)(time_t)(ns / 1e9) * 1e9);
}

/* Reach the safe point now: the deadline and cancellation (the session's thread), interrupts and
 * termination (any thread). */
static void checkpoint(Lisp *L) {
    lisp_request_poll(L);
    safe_point(L);
}

/* Park the running thread until unparked (true) or TIMEOUT seconds (negative: none) passed
 * (false). The predicate it waits for is the caller's: it looks again after every return. */
static bool park(Lisp *L, double timeout) {
    LispThreads *th = threads_ensure(L);
    LispThread *t = th->owner;
    double end = timeout >= 0 ? lisp_monotonic_now() + timeout : -1;
    int inhibit = t->inhibit;
    t->inhibit = 0;   /* a wait hands the lock on whatever the region */
    for (;;) {
        checkpoint(L);
        pthread_mutex_lock(&th->m);
        bool permit = t->permit;
        t->permit = false;
        pthread_mutex_unlock(&th->m);
        if (permit) { t->inhibit = inhibit; return true; }
        double most = (t == th->main ? WAIT_SLICE_MS : OTHER_WAIT_SLICE_MS) / 1000.0;
        double left = end >= 0 ? end - lisp_monotonic_now() : most;
        if (left <= 0) { t->inhibit = inhibit; return false; }
        double slice = left < most ? left : most;
        release(L, t);
        struct timespec ts;
        deadline_in(&ts, slice);
        pthread_mutex_lock(&th->m);
        while (!t->permit && !t->poke)
            if (pthread_cond_timedwait(&t->cond, &th->m, &ts) != 0) break;
        t->poke = false;
        pthread_mutex_unlock(&th->m);
        acquire(L, t);   /* the primitive calling this sets its own values */
    }
}

static void wake(LispThreads *th, LispThread *t, bool permit) {
    pthread_mutex_lock(&th->m);
    if (permit) t->permit = true;
    else t->poke = true;
    pthread_cond_signal(&t->cond);
    pthread_mutex_unlock(&th->m);
}

/* ---- thread lifetime ---- */

static LispThread *find(Lisp *L, Obj id) {
    LispThreads *th = threads_of(L);
    if (!is_fixnum(id) || !th) return NULL;
    for (LispThread *t = th->all; t; t = t->next_all)
        if (t->id == fixnum_val(id)) return t;
    return NULL;
}

static void thread_body(Lisp *L, void *ud) {
    LispThread *t = (LispThread *)ud;
    /* an error nobody handles ends the thread (the Lisp side records it): never the REPL's debugger */
    bind_special(L, intern_cstr(L, L->pkg_system, "*INTERACTIVE-DEBUGGER*"), NIL);
    Obj fn = t->function;
    t->function = NIL;
    funcall0(L, fn);
}

/* The end of a thread: out of the live records, its joiners woken, the lock handed on. */
/* T out of the live records (called with th->m held). */
static void unlink_record(LispThreads *th, LispThread *t) {
    for (LispThread **p = &th->all; *p; p = &(*p)->next_all)
        if (*p == t) { *p = t->next_all; break; }
    th->others--;
}

static void thread_exit(Lisp *L, LispThread *t) {
    LispThreads *th = threads_of(L);
    pthread_mutex_lock(&th->m);
    unlink_record(th, t);
    for (LispThread *o = th->all; o; o = o->next_all)
        if (o->joining == t) { o->permit = true; pthread_cond_signal(&o->cond); }
    hand_on(th);
    pthread_mutex_unlock(&th->m);
}

static void *thread_main(void *arg) {
    LispThread *t = (LispThread *)arg;
    Lisp *L = t->L;
    acquire(L, t);
    lisp_set_stack_limits(L);
    lisp_pcall(L, FR_TOPLEVEL, thread_body, t);
    L->last_error = NIL;
    L->last_backtrace = NIL;
    thread_exit(L, t);
    return NULL;
}

bool threads_stop_others(Lisp *L, double grace) {
    LispThreads *th = threads_of(L);
    if (!th || th->others == 0) return true;
    for (LispThread *t = th->all; t; t = t->next_all)
        if (t != th->main) {
            t->terminate = true;
            wake(th, t, false);
        }
    double end = lisp_monotonic_now() + grace;
    LispThread *self = th->main;
    /* the session's thread is between evaluations here: its state is what it saves and loads */
    while (th->others > 0 && lisp_monotonic_now() < end) {
        release(L, self);
        struct timespec ts = {0, 5 * 1000000L};
        nanosleep(&ts, NULL);
        acquire(L, self);
    }
    return th->others == 0;
}

void threads_state_replaced(Lisp *L) {
    LispThreads *th = threads_of(L);
    if (!th) return;
    /* the record outlives the state: its thread object was of the THREAD class as the state before
     * defined it, which after a restore the restored accessors refused (a thread releasing a mutex
     * the session's thread waited for died unparking it, and the session's thread waited for
     * ever); CURRENT-THREAD makes a new one of the state's own */
    LispThread *m = th->main;
    pthread_mutex_lock(&th->m);
    m->object = NIL;
    m->interrupts = NIL;
    m->permit = m->poke = false;
    m->joining = NULL;
    m->inhibit = 0;
    pthread_mutex_unlock(&th->m);
}

int threads_others_alive(Lisp *L) {
    LispThreads *th = threads_of(L);
    return th ? th->others : 0;
}

/* ---- primitives (the Lisp side is stdlib-lisp/threads.lisp) ---- */

static double timeout_arg(Lisp *L, Obj o) {
    if (o == NIL) return -1;
    double s = number_to_double(L, o);
    return s < 0 ? 0 : s;
}

/* (sys:%thread-create function object) -> the new thread's id */
DEFPRIM(prim_pct_thread_create) {
    (void)nargs;
    LispThreads *th = threads_ensure(L);
    check_function(L, args[0]);
    if (th->others >= THREADS_MAX)
        err_simple(L, "Cannot make another thread: this session already has %d running (the limit).", THREADS_MAX);
    LispThread *t = record_new(L, th->next_id++);
    /* no interrupt or termination before the Lisp side has set up what records how the thread
     * ended (%RUN-THREAD lets them in): else one would end it with no result nor problem */
    t->inhibit = 1;
    t->function = args[0];
    t->object = args[1];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, THREAD_STACK);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&th->m);
    t->next_all = th->all;
    th->all = t;
    th->others++;
    pthread_mutex_unlock(&th->m);
    pthread_t pt;
    ticker_kick();   /* the lock changes hands at the ticker's rounds: it must run (ticker.c) */
    int rc = gc_thread_create(&pt, &attr, thread_main, t);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        pthread_mutex_lock(&th->m);
        unlink_record(th, t);
        pthread_mutex_unlock(&th->m);
        err_simple(L, "Cannot make another thread: the system refused (error %d).", rc);
    }
    return FIX(t->id);
}

/* (sys:%thread-current) -> the running thread's object (NIL: the main record has none yet) and id */
DEFPRIM(prim_pct_thread_current) {
    UNUSED_ARGS;
    LispThreads *th = threads_ensure(L);
    return values2(L, th->owner->object, FIX(th->owner->id));
}

/* (sys:%thread-adopt object): the running thread's object, when it has none */
DEFPRIM(prim_pct_thread_adopt) {
    (void)nargs;
    LispThread *t = threads_ensure(L)->owner;
    if (t->object == NIL) t->object = args[0];
    return t->object;
}

/* (sys:%thread-objects) -> the objects of the live threads, the main record's first when it has one */
DEFPRIM(prim_pct_thread_objects) {
    UNUSED_ARGS;
    LispThreads *th = threads_ensure(L);
    Obj r = NIL;
    for (LispThread *t = th->all; t; t = t->next_all)
        if (t != th->main && t->object != NIL) r = cons(L, t->object, r);
    if (th->main->object != NIL) r = cons(L, th->main->object, r);
    return r;
}

/* (sys:%thread-alive-p id) */
DEFPRIM(prim_pct_thread_alive_p) {
    (void)nargs;
    return find(L, args[0]) ? S(T) : NIL;
}

/* (sys:%thread-join-wait id timeout) -> T once the thread has ended, NIL when TIMEOUT passed first */
DEFPRIM(prim_pct_thread_join_wait) {
    (void)nargs;
    double timeout = timeout_arg(L, args[1]);
    LispThreads *th = threads_ensure(L);
    LispThread *self = th->owner;
    double end = timeout >= 0 ? lisp_monotonic_now() + timeout : -1;
    for (;;) {
        LispThread *t = find(L, args[0]);
        if (!t) return S(T);
        if (t == self) err_simple(L, "A thread cannot join itself.");
        double left = end >= 0 ? end - lisp_monotonic_now() : -1;
        if (end >= 0 && left <= 0) return NIL;
        self->joining = t;
        park(L, left);
        self->joining = NULL;
    }
}

/* (sys:%thread-yield) */
DEFPRIM(prim_pct_thread_yield) {
    UNUSED_ARGS;
    LispThreads *th = threads_of(L);
    /* inside WITHOUT-INTERRUPTS the region keeps the lock */
    if (th && th->owner->inhibit == 0 && atomic_load(&th->queued) > 0) yield(L);
    else if (!th || th->owner->inhibit == 0) sched_yield();
    checkpoint(L);
    return values0(L);
}

/* (sys:%thread-interrupt id function) -> T when the thread was alive to take it */
DEFPRIM(prim_pct_thread_interrupt) {
    (void)nargs;
    check_function(L, args[1]);
    LispThread *t = find(L, args[0]);
    if (!t) return NIL;
    Obj cell = cons(L, args[1], NIL);
    if (!is_cons(t->interrupts)) t->interrupts = cell;
    else {
        Obj last = t->interrupts;
        while (is_cons(CDR(last))) last = CDR(last);
        CDR(last) = cell;
    }
    if (t == current(L)) lisp_request_poll(L);
    else wake(threads_of(L), t, false);
    return S(T);
}

/* (sys:%thread-terminate id) -> T when the thread was alive */
DEFPRIM(prim_pct_thread_terminate) {
    (void)nargs;
    LispThread *t = find(L, args[0]);
    if (!t) return NIL;
    if (t == threads_of(L)->main) err_simple(L, "The session's own thread cannot be terminated.");
    t->terminate = true;
    if (t == current(L)) checkpoint(L);
    else wake(threads_of(L), t, false);
    return S(T);
}

/* (sys:%thread-park timeout) -> T when unparked, NIL when TIMEOUT passed */
DEFPRIM(prim_pct_thread_park) {
    (void)nargs;
    return park(L, timeout_arg(L, args[0])) ? S(T) : NIL;
}

/* (sys:%thread-unpark id): its next park (or the one it is in) returns */
DEFPRIM(prim_pct_thread_unpark) {
    (void)nargs;
    LispThread *t = find(L, args[0]);
    if (t) wake(threads_of(L), t, true);
    return NIL;
}

/* (sys:%thread-inhibit delta) -> the nesting before: enter (1) or leave (-1) a region where the
 * running thread keeps the lock at safe points, so that what the region reads and writes no other
 * thread sees halfway */
DEFPRIM(prim_pct_thread_inhibit) {
    (void)nargs;
    threads_ensure(L);
    return FIX(threads_inhibit(L, (int)check_fixnum(L, args[0])));
}

/* (sys:%thread-inhibit-set nesting): back to the nesting %THREAD-INHIBIT returned */
DEFPRIM(prim_pct_thread_inhibit_set) {
    (void)nargs;
    int n = (int)check_fixnum(L, args[0]);
    threads_ensure(L);
    threads_inhibit(L, n - threads_inhibit(L, 0));
    return NIL;
}

const PrimDef thread_prims[] = {
    {"%THREAD-CREATE", PK_SYS, prim_pct_thread_create, 2, 2, 0, "(function object)", NULL},
    {"%THREAD-CURRENT", PK_SYS, prim_pct_thread_current, 0, 0, FN_MV, "()", NULL},
    {"%THREAD-ADOPT", PK_SYS, prim_pct_thread_adopt, 1, 1, 0, "(object)", NULL},
    {"%THREAD-OBJECTS", PK_SYS, prim_pct_thread_objects, 0, 0, 0, "()", NULL},
    {"%THREAD-ALIVE-P", PK_SYS, prim_pct_thread_alive_p, 1, 1, 0, "(id)", NULL},
    {"%THREAD-JOIN-WAIT", PK_SYS, prim_pct_thread_join_wait, 2, 2, 0, "(id timeout)", NULL},
    {"%THREAD-YIELD", PK_SYS, prim_pct_thread_yield, 0, 0, FN_MV, "()", NULL},
    {"%THREAD-INTERRUPT", PK_SYS, prim_pct_thread_interrupt, 2, 2, 0, "(id function)", NULL},
    {"%THREAD-TERMINATE", PK_SYS, prim_pct_thread_terminate, 1, 1, 0, "(id)", NULL},
    {"%THREAD-PARK", PK_SYS, prim_pct_thread_park, 1, 1, 0, "(timeout)", NULL},
    {"%THREAD-UNPARK", PK_SYS, prim_pct_thread_unpark, 1, 1, 0, "(id)", NULL},
    {"%THREAD-INHIBIT", PK_SYS, prim_pct_thread_inhibit, 1, 1, 0, "(delta)", NULL},
    {"%THREAD-INHIBIT-SET", PK_SYS, prim_pct_thread_inhibit_set, 1, 1, 0, "(nesting)", NULL},
    {0},
};

void thread_init(Lisp *L) { prims_register(L, thread_prims); }
