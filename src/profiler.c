/* profiler.c: tcl_profile: evaluate under the deterministic profiler (runtime/profile.c) and report
 * per function its calls, time with and without callees, and bytes allocated, costliest first. */
#include "tinycl.h"
#include "session.h"
#include "../runtime/state.h"
#include "../runtime/profile.h"
#include "../runtime/printer.h"
#include "../runtime/lstring.h"
#include "../runtime/package.h"
#include "../runtime/eval.h"
#include <stdlib.h>
#include <string.h>

static int by_exclusive(const void *a, const void *b) {
    const TclProfileEntry *x = (const TclProfileEntry *)a, *y = (const TclProfileEntry *)b;
    if (x->exclusive_ms != y->exclusive_ms) return x->exclusive_ms < y->exclusive_ms ? 1 : -1;
    if (x->calls != y->calls) return x->calls < y->calls ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The function's name as a backtrace shows it, printed in the current package. */
static char *function_name(Lisp *L, Obj fn) {
    Obj name = is_type(fn, T_CLOSURE) ? CLOSURE(fn)->name : is_type(fn, T_PRIMITIVE) ? PRIM(fn)->name : NIL;
    Obj shown = name;
    if (name == NIL && is_type(fn, T_CLOSURE))
        shown = cons(L, S(LAMBDA), cons(L, CLOSURE(fn)->lambda->ll.source, NIL));
    size_t sp = L->special_sp;
    bind_special(L, S(PRINT_LENGTH), FIX(6));
    bind_special(L, S(PRINT_LEVEL), FIX(3));
    bind_special(L, S(PRINT_READABLY), NIL);
    Obj str = name == NIL && !is_type(fn, T_CLOSURE) ? prin1_to_string(L, fn) : prin1_to_string(L, shown);
    unbind_specials(L, sp);
    char *c = string_to_utf8_malloc(str, NULL);
    return c ? c : strdup("?");
}

/* Fill P's entries from the profile (a protected call: printing a name runs Lisp code). */
static void name_entries(Lisp *L, void *ud) {
    TclProfile *p = (TclProfile *)ud;
    for (Obj e = L->profile_entries; is_cons(e); e = CDR(e)) {
        Obj *v = VEC(CAR(e))->data;
        TclProfileEntry *t = &p->entries[p->count];
        t->name = function_name(L, v[PE_FN]);
        t->calls = (long)FIXVAL(v[PE_CALLS]);
        t->inclusive_ms = (double)FIXVAL(v[PE_INCL]) / 1e6;
        t->exclusive_ms = (double)FIXVAL(v[PE_EXCL]) / 1e6;
        t->bytes = (double)FIXVAL(v[PE_BYTES]);
        p->count++;
    }
}

TclProfile *tcl_profile(TclSession *s, const char *code, const char *package, double timeout) {
    TclProfile *p = (TclProfile *)calloc(1, sizeof *p);
    session_enter(s);
    profile_start(s->L);
    p->result = tcl_eval(s, code, package, timeout);
    Lisp *L = s->L;
    profile_stop(L);
    int n = 0;
    for (Obj e = L->profile_entries; is_cons(e); e = CDR(e)) n++;
    p->entries = (TclProfileEntry *)calloc((size_t)(n ? n : 1), sizeof(TclProfileEntry));
    /* printing a name may fail: then the report has what was named so far */
    lisp_pcall(L, FR_TOPLEVEL, name_entries, p);
    L->profile_entries = NIL;
    qsort(p->entries, (size_t)p->count, sizeof(TclProfileEntry), by_exclusive);
    p->total_ms = p->result->elapsed_ms;
    return p;
}

void tcl_profile_free(TclProfile *p) {
    if (!p) return;
    tcl_result_free(p->result);
    for (int i = 0; i < p->count; i++) free(p->entries[i].name);
    free(p->entries);
    free(p);
}
