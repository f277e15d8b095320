/* warnings.c: the warnings analysis gives, with SBCL's types and messages: wrong argument counts and
 * unknown keywords in calls to known functions and unused variables at once; calls to undefined
 * functions and references to undefined variables at the end of the compilation unit (an
 * evaluate-lisp call, a LOAD, an outermost WITH-COMPILATION-UNIT), if still undefined then. The
 * warnings are signalled through SYS::%ANALYSIS-WARN (stdlib-lisp/warnings.lisp), so handlers and
 * MUFFLE-WARNING work on them. Each costs nothing unless there is something to report, beyond a
 * look at the called symbol's function. */
#include "warnings.h"
#include "abi.h"
#include "node.h"
#include "stream.h"
#include "package.h"
#include "lstring.h"
#include "prim.h"
#include "array.h"
#include "printer.h"
#include "clos.h"
#include "types.h"
#include <string.h>

enum { REF_FUNCTION, REF_VARIABLE };

/* Signal a warning (STYLE: a STYLE-WARNING) with FMT (a format control) and ARGS (a list). */
static void signal_warning(Lisp *L, bool style, const char *fmt, Obj args) {
    Obj fn = abi_upcall(L, S(P_ANALYSIS_WARN));
    if (fn == NIL) return;                           /* the stdlib is loading */
    funcall3(L, fn, style ? S(T) : NIL, string_from_cstr(L, fmt), args);
}

static Obj list1(Lisp *L, Obj a) { return cons(L, a, NIL); }
static Obj list3(Lisp *L, Obj a, Obj b, Obj c) { return cons(L, a, cons(L, b, cons(L, c, NIL))); }

/* A function of the COMMON-LISP package: SBCL makes wrong calls to those full warnings. */
static bool standard_name(Lisp *L, Obj name) {
    return is_type(name, T_SYMBOL) && SYM(name)->package == L->pkg_cl;
}

static void record_ref(ACtx *c, int kind, Obj name) {
    Lisp *L = c->L;
    Obj v = make_vector(L, 5, NIL);
    VEC(v)->data[0] = FIX(kind);
    VEC(v)->data[1] = name;
    VEC(v)->data[2] = FIX(L->form_line);
    VEC(v)->data[3] = FIX(L->form_column);
    VEC(v)->data[4] = L->form_file;
    L->undefined_refs = cons(L, v, L->undefined_refs);
}

static bool function_defined(Lisp *L, Obj name) {
    (void)L;
    return SYM(name)->function != UNBOUND || (SYM(name)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP));
}

static bool variable_defined(Lisp *L, Obj sym) {
    return SYM(sym)->value != UNBOUND || globally_special(L, sym) || (SYM(sym)->h.flags & SYM_CONSTANT);
}

/* The keywords a primitive accepts, read from its lambda list text: is KEY among them? */
static bool primitive_accepts_key(Lisp *L, const char *ll, Obj key) {
    const char *p = strstr(ll, "&key");
    if (!p) return true;
    const char *name = string_to_utf8(L, SYM(key)->name, NULL);
    size_t n = strlen(name);
    p += 4;
    while (*p) {
        while (*p == ' ' || *p == '(') p++;
        if (*p == '&' || *p == ')' || !*p) break;
        const char *w = p;
        while (*p && *p != ' ' && *p != ')') p++;
        if ((size_t)(p - w) == n && strncasecmp(w, name, n) == 0) return true;
        /* skip a default value and the close of (key default) */
        while (*p && *p != ' ' && *p != '&' && *p != ')') p++;
        if (*p == ')') p++;
    }
    return false;
}

/* The shape of a lambda list as written (a stdlib function not analysed yet has only that):
 * required count, maximum (-1: any), whether it has &key (without &allow-other-keys). */
bool warnings_lambda_list_shape(Lisp *L, Obj ll, int *min, int *max, bool *keys) {
    int req = 0, opt = 0;
    bool rest = false, key = false, aok = false;
    int state = 0;   /* 0 required, 1 optional, 2 rest, 3 key, 4 aux */
    for (Obj p = ll; is_cons(p); p = CDR(p)) {
        Obj x = CAR(p);
        if (x == S(AND_OPTIONAL)) state = 1;
        else if (x == S(AND_REST) || x == S(AND_BODY)) { state = 2; rest = true; }
        else if (x == S(AND_KEY)) { state = 3; key = true; }
        else if (x == S(AND_ALLOW_OTHER_KEYS)) aok = true;
        else if (x == S(AND_AUX)) state = 4;
        else if (x == S(AND_WHOLE) || x == S(AND_ENVIRONMENT)) return false;
        else if (state == 0) req++;
        else if (state == 1) opt++;
    }
    *min = req;
    *max = rest || key ? -1 : req + opt;
    *keys = key && !aok;
    return !(key && opt);   /* &optional with &key: positions are not worth guessing */
}

static bool source_accepts_key(Lisp *L, Obj ll, Obj key) {
    bool in_keys = false;
    for (Obj p = ll; is_cons(p); p = CDR(p)) {
        Obj x = CAR(p);
        if (x == S(AND_KEY)) { in_keys = true; continue; }
        if (x == S(AND_AUX) || x == S(AND_ALLOW_OTHER_KEYS)) in_keys = false;
        if (!in_keys) continue;
        Obj spec = is_cons(x) ? CAR(x) : x;
        if (is_cons(spec)) { if (CAR(spec) == key) return true; continue; }
        if (is_type(spec, T_SYMBOL) && string_eq(SYM(spec)->name, SYM(key)->name)) return true;
    }
    return false;
}

static bool closure_accepts_key(Lambda *lam, Obj key) {
    for (int i = 0; i < lam->ll.nparams; i++)
        if (lam->ll.params[i].kind == P_KEY && lam->ll.params[i].keyword == key) return true;
    return false;
}

static void check_arguments(Lisp *L, Obj name, bool style, int min, int max, bool keys, int nfixed,
                            Obj args, int nargs, Obj fn, Obj lazy_source);

void warnings_check_call(ACtx *c, Obj name, Obj args, int nargs) {
    Lisp *L = c->L;
    if (!is_type(name, T_SYMBOL)) return;
    Obj fn = SYM(name)->function;
    if (fn == UNBOUND) {
        if (!(SYM(name)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP))) record_ref(c, REF_FUNCTION, name);
        return;
    }
    int min, max;
    bool keys;
    int nfixed;
    Obj lazy_source = NO_VALUE;
    if (is_type(fn, T_PRIMITIVE)) {
        Primitive *p = PRIM(fn);
        min = p->min_args;
        max = p->max_args;
        keys = p->lambda_list && strstr(p->lambda_list, "&key") && !strstr(p->lambda_list, "&allow-other-keys");
        nfixed = p->lambda_list && keys ? 0 : -1;
        if (keys) {
            /* the positional parameters come before &key */
            const char *ll = p->lambda_list, *k = strstr(ll, "&key");
            int words = 0;
            bool in_word = false;
            for (const char *q = ll; q < k; q++) {
                bool w = *q != ' ' && *q != '(' && *q != ')';
                if (w && !in_word) words++;
                in_word = w;
            }
            if (strstr(ll, "&optional") && strstr(ll, "&optional") < k) keys = false;   /* positions unsure */
            nfixed = words;
        }
    } else if (is_type(fn, T_CLOSURE)) {
        Lambda *lam = CLOSURE(fn)->lambda;
        if (lam->ll.is_macro) return;
        if (lam->lazy) {
            /* a stdlib function not analysed yet: read its lambda list as written */
            if (!warnings_lambda_list_shape(L, lam->ll.source, &min, &max, &keys)) return;
            nfixed = min;
            lazy_source = lam->ll.source;
            goto check;
        }
        min = lam->ll.nreq;
        max = lam->ll.has_rest || lam->ll.has_key ? -1 : lam->ll.nreq + lam->ll.nopt;
        keys = lam->ll.has_key && !lam->ll.allow_other_keys;
        nfixed = lam->ll.nreq + lam->ll.nopt;
    } else if (is_type(fn, T_FUNCALLABLE) && (INST(fn)->h.flags & INST_GENERIC)) {
        /* a generic function: the counts its lambda list allows; not its keywords, since a method
         * may accept more (SBCL checks the same) */
        Obj ll = INST(fn)->slots[GF_LAMBDA_LIST];
        if (!is_list(ll) || !warnings_lambda_list_shape(L, ll, &min, &max, &keys)) return;
        keys = false;
        nfixed = min;
    } else {
        return;    /* other funcallable instances: not checked */
    }
check:
    check_arguments(L, name, !standard_name(L, name), min, max, keys, nfixed, args, nargs, fn, lazy_source);
}

/* The counts and keywords of a call with ARGS (NARGS forms) against a lambda list of MIN..MAX
 * arguments, NFIXED of them before &key (KEYS: whether it has &key without
 * &allow-other-keys). FN is the function, or NO_VALUE when only its lambda list as written
 * (SOURCE) is known. */
static void check_arguments(Lisp *L, Obj name, bool style, int min, int max, bool keys, int nfixed,
                            Obj args, int nargs, Obj fn, Obj lazy_source) {
    if (nargs < min || (max >= 0 && nargs > max)) {
        const char *fmt = nargs < min
            ? (min == max ? "The function ~S is called with ~R argument~:P, but wants exactly ~R."
                          : "The function ~S is called with ~R argument~:P, but wants at least ~R.")
            : (min == max ? "The function ~S is called with ~R argument~:P, but wants exactly ~R."
                          : "The function ~S called with ~R argument~:P, but wants at most ~R.");
        signal_warning(L, style, fmt, list3(L, name, FIX(nargs), FIX(nargs < min ? min : max)));
        return;
    }
    if (!keys || nfixed < 0 || nargs <= nfixed) return;
    if ((nargs - nfixed) % 2) {
        signal_warning(L, style, "The function ~S is called with odd number of keyword arguments.", list1(L, name));
        return;
    }
    Obj a = args;
    for (int i = 0; i < nfixed && is_cons(a); i++) a = CDR(a);
    /* :allow-other-keys given in the call turns the check off */
    for (Obj k = a; is_cons(k) && is_cons(CDR(k)); k = CDR(CDR(k)))
        if (CAR(k) == S(K_ALLOW_OTHER_KEYS)) return;
    for (Obj k = a; is_cons(k) && is_cons(CDR(k)); k = CDR(CDR(k))) {
        Obj key = CAR(k);
        if (!is_type(key, T_SYMBOL) || !is_keyword(L, key)) continue;
        bool ok = lazy_source != NO_VALUE ? source_accepts_key(L, lazy_source, key)
                  : is_type(fn, T_PRIMITIVE) ? primitive_accepts_key(L, PRIM(fn)->lambda_list, key)
                                            : closure_accepts_key(CLOSURE(fn)->lambda, key);
        if (!ok) signal_warning(L, style, "~S is not a known argument keyword.", list1(L, key));
    }
}

void warnings_check_lambda_call(ACtx *c, Obj lambda_form, Obj args, int nargs) {
    Lisp *L = c->L;
    Obj ll = is_cons(CDR(lambda_form)) ? CAR(CDR(lambda_form)) : NIL;
    int min, max;
    bool keys;
    /* the lambda list was checked when the lambda expression was analysed */
    if (!is_list(ll) || !warnings_lambda_list_shape(L, ll, &min, &max, &keys)) return;
    /* full warnings, as SBCL gives for a lambda expression called in place */
    check_arguments(L, lambda_form, false, min, max, keys, min, args, nargs, NO_VALUE, ll);
}

void warnings_function_ref(ACtx *c, Obj name) {
    if (is_type(name, T_SYMBOL) && !function_defined(c->L, name)) record_ref(c, REF_FUNCTION, name);
}

void warnings_variable_ref(ACtx *c, Obj sym) {
    Lisp *L = c->L;
    if (!is_type(sym, T_SYMBOL) || variable_defined(L, sym)) return;
    for (Obj r = L->undefined_refs; is_cons(r); r = CDR(r))
        if (VEC(CAR(r))->data[1] == sym && VEC(CAR(r))->data[0] == FIX(REF_VARIABLE)) return;
    record_ref(c, REF_VARIABLE, sym);
}

static bool declared(Lisp *L, Obj decls, Obj sym) {
    for (Obj d = decls; is_cons(d); d = CDR(d)) {
        Obj spec = CAR(d);
        if (!is_cons(spec) || (CAR(spec) != S(IGNORE) && CAR(spec) != S(IGNORABLE))) continue;
        for (Obj v = CDR(spec); is_cons(v); v = CDR(v))
            if (CAR(v) == sym) return true;
    }
    return false;
}

static bool standard_declaration(Lisp *L, Obj id) {
    return id == S(SPECIAL) || id == S(TYPE) || id == S(FTYPE) || id == S(IGNORE) || id == S(IGNORABLE) ||
           id == S(INLINE) || id == S(NOTINLINE) || id == S(OPTIMIZE) || id == S(DYNAMIC_EXTENT) ||
           id == S(VALUES);   /* (declare (values ...)): old code has it, SBCL accepts it */
}

void warnings_declarations(Lisp *L, Obj decls) {
    if (!L->boot_phase) return;
    for (Obj d = decls; is_cons(d); d = CDR(d)) {
        Obj spec = CAR(d);
        if (!is_cons(spec) || !is_type(CAR(spec), T_SYMBOL)) continue;
        Obj id = CAR(spec);
        if (standard_declaration(L, id) || type_declaration_name_p(L, id) || type_name_p(L, id)) continue;
        signal_warning(L, false, "unrecognized declaration ~S", list1(L, spec));
    }
}

void warnings_bind_var(ACtx *c, AVar *v, Obj decls) {
    Lisp *L = c->L;
    v->is_var = true;
    /* a variable no person named (a macro's gensym) or declared ignorable is not reported */
    if (SYM(v->name)->package == NIL || declared(L, decls, v->name)) v->ignored = true;
}

void warnings_unused(ACtx *c, AVar *vars) {
    Lisp *L = c->L;
    Obj unused = NIL;
    for (AVar *v = vars; v; v = v->next_all)
        if (v->is_var && !v->used && !v->assigned && !v->ignored) unused = cons(L, v->name, unused);
    /* VARS is in creation order; report in that order */
    Obj ordered = NIL;
    for (Obj u = unused; is_cons(u); u = CDR(u)) ordered = cons(L, CAR(u), ordered);
    /* (a variable only assigned is not reported: SBCL says nothing either) */
    for (Obj u = ordered; is_cons(u); u = CDR(u))
        signal_warning(L, true, "The variable ~S is defined but never used.", list1(L, CAR(u)));
}


/* ---- the end of a compilation unit ---- */

void warnings_end_unit(Lisp *L) {
    if (L->undefined_refs == NIL) return;
    Obj fn = abi_upcall(L, S(P_END_COMPILATION_UNIT));
    if (fn == NIL) { L->undefined_refs = NIL; return; }   /* the stdlib is loading */
    Frame fr;
    LISP_TRY(L, &fr, FR_TOPLEVEL, NIL) {
        funcall0(L, fn);
    } LISP_CATCH(L, &fr) {   /* a handler's error: the rest goes unreported */
        L->undefined_refs = NIL;
        L->last_error = NIL;
    } LISP_END_TRY;
}

/* (sys:%report-undefined): signal the warnings for the unit's references still undefined, in the
 * order they were met, each name once, at the position of its first reference. */
DEFPRIM(prim_pct_report_undefined) {
    UNUSED_ARGS;
    Obj refs = NIL;
    for (Obj r = L->undefined_refs; is_cons(r); r = CDR(r)) refs = cons(L, CAR(r), refs);
    L->undefined_refs = NIL;
    int line = L->form_line, column = L->form_column;
    Obj file = L->form_file;
    Obj seen = NIL;
    for (Obj r = refs; is_cons(r); r = CDR(r)) {
        Obj *e = VEC(CAR(r))->data;
        Obj name = e[1];
        bool dup = false;
        for (Obj s = seen; is_cons(s); s = CDR(s))
            if (CAR(CAR(s)) == e[0] && CDR(CAR(s)) == name) dup = true;
        if (dup) continue;
        seen = cons(L, cons(L, e[0], name), seen);
        bool fn = e[0] == FIX(REF_FUNCTION);
        if (fn ? function_defined(L, name) : variable_defined(L, name)) continue;
        L->form_line = (int)FIXVAL(e[2]);
        L->form_column = (int)FIXVAL(e[3]);
        L->form_file = e[4];
        size_t sp = L->special_sp;
        bind_special(L, S(PACKAGE_VAR), L->pkg_keyword);   /* the name printed with its package */
        Obj printed = prin1_to_string(L, name);
        unbind_specials(L, sp);
        signal_warning(L, fn, fn ? "undefined function: ~A" : "undefined variable: ~A", list1(L, printed));
    }
    L->form_line = line;
    L->form_column = column;
    L->form_file = file;
    return NIL;
}

/* (sys:%take-undefined-references) -> the unit's pending references, which are cleared;
 * (sys:%restore-undefined-references refs) puts earlier ones back (WITH-COMPILATION-UNIT). */
DEFPRIM(prim_pct_take_undefined_references) {
    UNUSED_ARGS;
    Obj r = L->undefined_refs;
    L->undefined_refs = NIL;
    return r;
}

DEFPRIM(prim_pct_restore_undefined_references) {
    UNUSED_ARGS;
    /* the newer references stay in front (the list is newest first) */
    Obj older = args[0];
    if (L->undefined_refs == NIL) { L->undefined_refs = older; return NIL; }
    Obj last = L->undefined_refs;
    while (is_cons(CDR(last))) last = CDR(last);
    CDR(last) = older;
    return NIL;
}

/* (sys:%warning-position) -> line and column of the top-level form being analysed (0 0 unknown) */
DEFPRIM(prim_pct_warning_position) {
    UNUSED_ARGS;
    return cons(L, FIX(L->form_line), FIX(L->form_column));
}

const PrimDef warnings_prims[] = {
    {"%REPORT-UNDEFINED", PK_SYS, prim_pct_report_undefined, 0, 0, 0, "()",
     "Warn about the functions and variables of this compilation unit still undefined."},
    {"%TAKE-UNDEFINED-REFERENCES", PK_SYS, prim_pct_take_undefined_references, 0, 0, 0, "()", NULL},
    {"%RESTORE-UNDEFINED-REFERENCES", PK_SYS, prim_pct_restore_undefined_references, 1, 1, 0, "(references)", NULL},
    {"%WARNING-POSITION", PK_SYS, prim_pct_warning_position, 0, 0, 0, "()", NULL},
    {0},
};

void warnings_init(Lisp *L) { prims_register(L, warnings_prims); }
