/* profile.c: the deterministic profiler behind the `profile` tool: while L->profiling is set, each
 * call record pushed or popped (interpreted functions and primitives alike) counts its function's
 * calls, time with and without its callees, and bytes allocated. A non-local exit skips the pops of
 * the calls it unwinds; the next pop below them closes them at that moment. */
#include "profile.h"
#include "gc.h"
#include "hash.h"
#include "array.h"
#include <stdlib.h>
#include <time.h>

typedef struct ProfileFrame {
    CallRecord *rec;
    Obj entry;               /* reachable from L->profile_entries as well */
    uint64_t t0, child_ns;
    size_t bytes0;
} ProfileFrame;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static Obj entry_for(Lisp *L, Obj fn) {
    Obj e = hash_get(L, L->profile_table, fn, NIL);
    if (e != NIL) return e;
    e = make_vector(L, PE_SIZE, FIX(0));
    VEC(e)->data[PE_FN] = fn;
    hash_put(L, L->profile_table, fn, e);
    L->profile_entries = cons(L, e, L->profile_entries);
    return e;
}

static void add(Obj e, int field, uint64_t n) {
    intptr_t v = FIXVAL(VEC(e)->data[field]) + (intptr_t)n;
    VEC(e)->data[field] = FIX(v);
}

void profile_enter(Lisp *L, CallRecord *rec) {
    /* only what the profiled forms run is counted: the calls beneath the session's EVAL of each
     * form (whose own frame is open but not counted), not the reading or the session's set-up */
    bool root = L->prof_sp == 0;
    if (root && rec->fn != L->profile_root) return;
    if (L->prof_sp == L->prof_cap) {
        int cap = L->prof_cap ? L->prof_cap * 2 : 256;
        ProfileFrame *ns = (ProfileFrame *)realloc(L->prof_stack, (size_t)cap * sizeof(ProfileFrame));
        if (!ns) return;
        L->prof_stack = ns;
        L->prof_cap = cap;
    }
    Obj e = NIL;
    if (!root) {
        L->profiling = false;    /* the table's own allocation is not a call to count */
        e = entry_for(L, rec->fn);
        L->profiling = true;
        add(e, PE_CALLS, 1);
        add(e, PE_ACTIVE, 1);
    }
    ProfileFrame *f = &((ProfileFrame *)L->prof_stack)[L->prof_sp++];
    f->rec = rec;
    f->entry = e;
    f->child_ns = 0;
    f->bytes0 = gc_total_bytes();
    f->t0 = now_ns();
}

/* Close the innermost open call at time T. */
static void close_top(Lisp *L, uint64_t t, size_t bytes) {
    ProfileFrame *f = &((ProfileFrame *)L->prof_stack)[--L->prof_sp];
    uint64_t elapsed = t - f->t0;
    Obj e = f->entry;
    if (e == NIL) return;    /* the session's EVAL of a form */
    add(e, PE_EXCL, elapsed > f->child_ns ? elapsed - f->child_ns : 0);
    add(e, PE_ACTIVE, (uint64_t)-1);
    /* a recursive function's time counts once, in its outermost call */
    if (FIXVAL(VEC(e)->data[PE_ACTIVE]) == 0) {
        add(e, PE_INCL, elapsed);
        add(e, PE_BYTES, bytes - f->bytes0);
    }
    if (L->prof_sp > 0) ((ProfileFrame *)L->prof_stack)[L->prof_sp - 1].child_ns += elapsed;
}

void profile_exit(Lisp *L, CallRecord *rec) {
    int i = L->prof_sp - 1;
    while (i >= 0 && ((ProfileFrame *)L->prof_stack)[i].rec != rec) i--;
    if (i < 0) return;      /* entered before profiling started */
    uint64_t t = now_ns();
    size_t bytes = gc_total_bytes();
    while (L->prof_sp > i) close_top(L, t, bytes);
}

void profile_start(Lisp *L) {
    L->profile_root = SYM(S(EVAL))->function;
    L->profile_table = hash_new(L, HT_EQ, 64);
    L->profile_entries = NIL;
    L->prof_sp = 0;
    L->profiling = true;
}

void profile_stop(Lisp *L) {
    L->profiling = false;
    uint64_t t = now_ns();
    size_t bytes = gc_total_bytes();
    while (L->prof_sp > 0) close_top(L, t, bytes);
    L->profile_table = NIL;
}
