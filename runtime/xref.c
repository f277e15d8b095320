/* xref.c: the cross-reference (who calls, references, sets, binds, macroexpands what) and the
 * source location of each definition, recorded while code is analysed (analyze.c calls in here
 * at five places) and kept in one EQUAL hash table that stdlib-lisp/introspect.lisp reads. */
#include "xref.h"
#include "prim.h"
#include "list.h"
#include "hash.h"
#include "package.h"
#include "stream.h"
#include "node.h"
#include "eval.h"

/* The defining macros whose forms name a definition, as SBCL's find-definitions knows them. */
static const char *const definer_names[] = {
    "DEFUN", "DEFMACRO", "DEFGENERIC", "DEFMETHOD", "DEFVAR", "DEFPARAMETER", "DEFCONSTANT",
    "DEFCLASS", "DEFSTRUCT", "DEFINE-CONDITION", "DEFTYPE", "DEFINE-COMPILER-MACRO", "DEFSETF",
    "DEFINE-SETF-EXPANDER", "DEFINE-MODIFY-MACRO", "DEFINE-SYMBOL-MACRO", "DEFINE-METHOD-COMBINATION",
    NULL,
};

/* The site of the note, when the reader placed the form being analysed: (kind name line . column). */
static void note_site(Lisp *L, Obj k, Obj name) {
    Obj pos = L->xref_site;
    for (Obj p = L->xref_pending_sites; is_cons(p); p = CDR(p)) {
        Obj e = CAR(p);
        if (CAR(e) == k && CAR(CDR(e)) == name && CAR(CDR(CDR(e))) == CAR(pos) && CDR(CDR(CDR(e))) == CDR(pos)) return;
    }
    L->xref_pending_sites = cons(L, cons(L, k, cons(L, name, pos)), L->xref_pending_sites);
}

void xref_note_slow(Lisp *L, int kind, Obj name) {
    Obj k = FIX(kind);
    if (is_cons(L->xref_site)) note_site(L, k, name);
    for (Obj p = L->xref_pending; is_cons(p); p = CDR(p))
        if (CAR(CAR(p)) == k && CDR(CAR(p)) == name) return;
    L->xref_pending = cons(L, cons(L, k, name), L->xref_pending);
}

Obj xref_positions_begin(Lisp *L, Obj stream) {
    Obj outer = L->form_positions;
    L->form_positions = L->boot_phase ? hash_new(L, HT_EQ, 64) : NIL;
    L->form_positions_stream = stream;
    return outer;
}

Obj xref_site_enter(Lisp *L, Obj form) {
    Obj outer = L->xref_site;
    Obj pos = hash_get(L, L->form_positions, form, NIL);
    if (pos != NIL) L->xref_site = pos;
    return outer;
}

static bool is_definer(Lisp *L, Obj head) {
    for (Obj p = L->xref_definers; is_cons(p); p = CDR(p))
        if (CAR(p) == head) return true;
    return false;
}

static bool function_name_p(Lisp *L, Obj x) {
    if (is_type(x, T_SYMBOL)) return true;
    return is_cons(x) && CAR(x) == S(SETF) && is_cons(CDR(x)) && is_type(CAR(CDR(x)), T_SYMBOL) && CDR(CDR(x)) == NIL;
}

/* (DEFMETHOD name qualifier... (specializer...)): the specializers of the required parameters. */
static Obj method_key(Lisp *L, Obj head, Obj name, Obj rest) {
    Obj quals = NIL;
    for (; is_cons(rest) && !is_list(CAR(rest)); rest = CDR(rest)) quals = cons(L, CAR(rest), quals);
    if (!is_cons(rest)) return NIL;
    Obj specs = NIL;
    int n = 0;
    for (Obj ll = CAR(rest); is_cons(ll) && n < 64; ll = CDR(ll), n++) {
        Obj p = CAR(ll);
        if (is_type(p, T_SYMBOL) && SYM(p)->package == L->pkg_cl && STR(SYM(p)->name)->len > 0 &&
            STR(SYM(p)->name)->data[0] == '&')
            break;
        specs = cons(L, is_cons(p) && is_cons(CDR(p)) ? CAR(CDR(p)) : S(T), specs);
    }
    Obj key = NIL;
    for (Obj q = quals; is_cons(q); q = CDR(q)) key = cons(L, CAR(q), key);   /* back in order */
    Obj sp = NIL;
    for (Obj s = specs; is_cons(s); s = CDR(s)) sp = cons(L, CAR(s), sp);
    Obj tail = cons(L, sp, NIL);
    if (key == NIL) key = tail;
    else {
        Obj last = key;
        while (is_cons(CDR(last))) last = CDR(last);
        CONS(last)->cdr = tail;
    }
    return cons(L, head, cons(L, name, key));
}

Obj xref_macro_use(Lisp *L, Obj head, Obj form) {
    xref_note(L, XREF_MACRO, head);
    if (!is_definer(L, head) || !is_cons(CDR(form))) return NIL;
    Obj name = CAR(CDR(form));
    if (is_cons(name) && CAR(name) != S(SETF)) name = CAR(name);   /* (defstruct (name options...)) */
    if (!function_name_p(L, name)) return NIL;
    if (string_equal_cstr(SYM(head)->name, "DEFMETHOD")) return method_key(L, head, name, CDR(CDR(form)));
    return list2(L, head, name);
}

Obj xref_begin(Lisp *L, Obj key) {
    Obj saved = cons(L, L->xref_caller, cons(L, L->xref_pending, L->xref_pending_sites));
    L->xref_caller = key;
    L->xref_pending = NIL;
    L->xref_pending_sites = NIL;
    return saved;
}

void xref_end(Lisp *L, Obj saved) {
    if (L->xref_caller != NIL) {
        Obj entries = NIL;
        for (Obj p = L->xref_pending; is_cons(p); p = CDR(p)) entries = cons(L, CAR(p), entries);
        hash_put(L, L->xref_table, L->xref_caller, cons(L, L->source_location, entries));
        Obj sites = NIL;
        for (Obj p = L->xref_pending_sites; is_cons(p); p = CDR(p)) sites = cons(L, CAR(p), sites);
        if (sites != NIL || hash_get(L, L->xref_sites, L->xref_caller, NIL) != NIL)
            hash_put(L, L->xref_sites, L->xref_caller, sites);
    }
    xref_restore(L, saved);
}

void xref_restore(Lisp *L, Obj saved) {
    L->xref_caller = CAR(saved);
    L->xref_pending = CAR(CDR(saved));
    L->xref_pending_sites = CDR(CDR(saved));
}

void xref_function_defined(Lisp *L, Obj name) {
    Obj key = list2(L, S(FUNCTION), name);
    hash_put(L, L->xref_table, key, cons(L, L->source_location, NIL));
}

void xref_set_location(Lisp *L, Obj location) {
    L->source_location = location;
    L->xref_caller = NIL;
    L->xref_pending = NIL;
    L->xref_pending_sites = NIL;
    L->xref_site = NIL;
}

static Lambda *lambda_of(ACtx *c, ALambda *al) {
    for (Pending *p = c->pending; p; p = p->next)
        if (p->al == al && p->lambda) return p->lambda;
    return NULL;
}

void xref_closure_ref(ACtx *c, AScope *site, AVar *v) {
    Lisp *L = c->L;
    int total = 0;
    for (AScope *s = site; s && s != v->rscope; s = s->parent)
        if (s->runtime) total++;
    int below = 0;   /* runtime frames from SITE up to S */
    for (AScope *s = site; s && s != v->rscope; s = s->parent) {
        if (s->is_lambda) {
            Lambda *lam = lambda_of(c, s->owner);
            int depth = total - below - 1;   /* from the lambda's closure environment */
            if (lam && depth >= 0) {
                Obj vars = lam->closure_vars ? lam->closure_vars : NIL;
                bool seen = false;
                for (Obj p = vars; is_cons(p); p = CDR(p))
                    if (CAR(CAR(p)) == v->name) seen = true;
                if (!seen) lam->closure_vars = cons(L, cons(L, v->name, cons(L, FIX(depth), FIX(v->slot))), vars);
            }
        }
        if (s->runtime) below++;
    }
}

/* (sys:%closure-variables function): ((name . value) ...) of the outer variables a closure uses */
DEFPRIM(prim_pct_closure_variables) {
    UNUSED_ARGS;
    Obj fn = args[0];
    if (!is_type(fn, T_CLOSURE)) return NIL;
    Closure *cl = CLOSURE(fn);
    Lambda *lam = cl->lambda;
    Obj out = NIL;
    if (!lam || !lam->closure_vars || !cl->env) return NIL;
    for (Obj p = lam->closure_vars; is_cons(p); p = CDR(p)) {
        Obj e = CAR(p);
        Env *env = env_up(cl->env, (int)fixnum_val(CAR(CDR(e))));
        if (!env) continue;
        Obj val = env->slots[fixnum_val(CDR(CDR(e)))];
        out = cons(L, cons(L, CAR(e), val == UNBOUND ? NIL : val), out);
    }
    return out;
}

/* (sys:%xref-table): definition key -> (location . ((kind . name) ...)) */
DEFPRIM(prim_pct_xref_table) { UNUSED_ARGS; xref_complete_files(L); return L->xref_table; }

/* (sys:%xref-sites): definition key -> ((kind name line . column) ...) */
DEFPRIM(prim_pct_xref_sites) { UNUSED_ARGS; xref_complete_files(L); return L->xref_sites; }

/* (sys:%source-location): the location xref_set_location last gave */
DEFPRIM(prim_pct_source_location) { UNUSED_ARGS; return L->source_location; }

/* (sys:%set-source-location location) */
DEFPRIM(prim_pct_set_source_location) {
    UNUSED_ARGS;
    xref_set_location(L, args[0]);
    return args[0];
}

/* (sys:%place-lists-from stream): the lists read from STREAM from now on get their places, for
 * the sites of the definitions of the form being evaluated (a load form by form, which reads its
 * file with READ); the stream placed before is returned. Reading any other stream places nothing. */
DEFPRIM(prim_pct_place_lists_from) {
    UNUSED_ARGS;
    Obj old = L->form_positions_stream;
    L->form_positions_stream = args[0];
    return old;
}

/* (sys:%xref-analyse key function location): record the cross-reference of a stdlib FUNCTION
 * (analysed lazily, with nothing recorded) under KEY with LOCATION; T if it was one */
DEFPRIM(prim_pct_xref_analyse) {
    UNUSED_ARGS;
    if (!is_type(args[1], T_CLOSURE) || !CLOSURE(args[1])->lambda) return NIL;
    return analyze_for_xref(L, CLOSURE(args[1])->lambda, args[0], args[2]) ? S(T) : NIL;
}

const PrimDef xref_prims[] = {
    {"%XREF-ANALYSE", PK_SYS, prim_pct_xref_analyse, 3, 3, 0, "(key function location)",
     "Record the cross-reference of the stdlib FUNCTION under KEY, analysing it once more."},
    {"%XREF-TABLE", PK_SYS, prim_pct_xref_table, 0, 0, 0, "()",
     "The cross-reference: definition key -> (location . ((kind . name) ...))."},
    {"%XREF-SITES", PK_SYS, prim_pct_xref_sites, 0, 0, 0, "()",
     "Each definition's call and reference sites: key -> ((kind name line . column) ...)."},
    {"%SOURCE-LOCATION", PK_SYS, prim_pct_source_location, 0, 0, 0, "()",
     "The source location of the top-level form being evaluated, or NIL."},
    {"%CLOSURE-VARIABLES", PK_SYS, prim_pct_closure_variables, 1, 1, 0, "(function)",
     "The outer variables a closure uses, with their current values: ((name . value) ...)."},
    {"%PLACE-LISTS-FROM", PK_SYS, prim_pct_place_lists_from, 1, 1, 0, "(stream)",
     "Place the lists read from STREAM from now on (their line and column, for the cross-reference's sites)."},
    {"%SET-SOURCE-LOCATION", PK_SYS, prim_pct_set_source_location, 1, 1, 0, "(location)",
     "Set the source location recorded for the definitions of the next top-level form."},
    {0},
};

void xref_init(Lisp *L) {
    L->xref_table = hash_new(L, HT_EQUAL, 256);
    L->xref_sites = hash_new(L, HT_EQUAL, 64);
    L->xref_deferred = hash_new(L, HT_EQ, 16);
    L->xref_pending_sites = NIL;
    L->xref_site = NIL;
    L->form_positions = NIL;
    L->form_positions_stream = NIL;
    L->xref_caller = NIL;
    L->xref_pending = NIL;
    L->source_location = NIL;
    L->xref_definers = NIL;
    for (int i = 0; definer_names[i]; i++)
        L->xref_definers = cons(L, intern_cstr(L, L->pkg_cl, definer_names[i]), L->xref_definers);
    prims_register(L, xref_prims);
}
