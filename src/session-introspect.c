/* session-introspect.c: the introspection calls of the session API (describe-symbol, apropos,
 * macroexpand, find-definitions, the cross-reference, inspect, documentation). Each evaluates a
 * form of stdlib-lisp/introspect.lisp as a session call, which leaves its answer in
 * SYS::*QUERY-REPORT* as (text subject items total); this file turns that into C types. */
#include "tinycl.h"
#include "session.h"
#include "../runtime/state.h"
#include "../runtime/lstring.h"
#include "../runtime/package.h"
#include "../runtime/list.h"
#include <stdlib.h>
#include <string.h>

static char *dup_string(Obj o) {
    if (!is_string(o)) return NULL;
    char *s = string_to_utf8_malloc(o, NULL);
    return s ? s : strdup("");
}

static long fixnum_or_zero(Obj o) { return is_fixnum(o) ? (long)fixnum_val(o) : 0; }

static Obj nth_or_nil(Obj l, int n) {
    for (; n > 0 && is_cons(l); n--) l = CDR(l);
    return is_cons(l) ? CAR(l) : NIL;
}

/* LOCATION: (file line column), (:eval call source) or NIL */
static void fill_location(Lisp *L, TclItem *it, Obj loc) {
    if (!is_cons(loc)) return;
    Obj head = CAR(loc);
    if (is_string(head)) {
        it->file = dup_string(head);
        it->line = fixnum_or_zero(nth_or_nil(loc, 1));
        it->column = fixnum_or_zero(nth_or_nil(loc, 2));
    } else if (head == intern_cstr(L, L->pkg_keyword, "EVAL")) {
        it->call = fixnum_or_zero(nth_or_nil(loc, 1));
        it->source = dup_string(nth_or_nil(loc, 2));
        it->line = fixnum_or_zero(nth_or_nil(loc, 3));   /* a site in the call's code, or 0 */
        it->column = fixnum_or_zero(nth_or_nil(loc, 4));
    }
}

/* Evaluate FORM (a call of an introspect.lisp function) and read its report. */
static TclInfo *info_call(TclSession *s, Obj form) {
    Lisp *L = s->L;
    Obj report_var = intern_cstr(L, L->pkg_system, "*QUERY-REPORT*");
    SYM(report_var)->value = NIL;
    /* (progn FORM (values)): no values, so the REPL's history variables stay as they were */
    Obj values_form = cons(L, intern_cstr(L, L->pkg_cl, "VALUES"), NIL);
    Obj whole = list3(L, intern_cstr(L, L->pkg_cl, "PROGN"), form, values_form);
    TclInfo *info = (TclInfo *)calloc(1, sizeof *info);
    info->result = session_eval_form(s, whole, -1);
    L = s->L;
    Obj report = SYM(report_var)->value;
    SYM(report_var)->value = NIL;
    if (info->result->status != TCL_OK || !is_cons(report)) return info;
    info->text = dup_string(nth_or_nil(report, 0));
    info->subject = dup_string(nth_or_nil(report, 1));
    Obj items = nth_or_nil(report, 2);
    int n = 0;
    for (Obj p = items; is_cons(p); p = CDR(p)) n++;
    info->items = (TclItem *)calloc((size_t)(n ? n : 1), sizeof(TclItem));
    for (Obj p = items; is_cons(p); p = CDR(p)) {
        Obj e = CAR(p);
        TclItem *it = &info->items[info->count++];
        it->kind = dup_string(nth_or_nil(e, 0));
        it->name = dup_string(nth_or_nil(e, 1));
        it->detail = dup_string(nth_or_nil(e, 2));
        if (!it->kind) it->kind = strdup("");
        if (!it->name) it->name = strdup("");
        if (!it->detail) it->detail = strdup("");
        fill_location(L, it, nth_or_nil(e, 3));
    }
    Obj total = nth_or_nil(report, 3);
    info->total = is_fixnum(total) ? (int)fixnum_val(total) : info->count;
    return info;
}

static Obj str_or_nil(Lisp *L, const char *c) { return c && *c ? string_from_cstr(L, c) : NIL; }
static Obj sys_sym(Lisp *L, const char *name) { return intern_cstr(L, L->pkg_system, name); }
static Obj quoted(Lisp *L, Obj x) { return list2(L, intern_cstr(L, L->pkg_cl, "QUOTE"), x); }

TclInfo *tcl_describe_symbol(TclSession *s, const char *symbol, const char *package) {
    session_enter(s);
    Lisp *L = s->L;
    return info_call(s, list3(L, sys_sym(L, "%QUERY-DESCRIBE-SYMBOL"), str_or_nil(L, symbol), str_or_nil(L, package)));
}

TclInfo *tcl_apropos(TclSession *s, const char *query, const char *package, bool external_only, const char *const *kinds) {
    session_enter(s);
    Lisp *L = s->L;
    Obj ks = NIL;
    for (int i = 0; kinds && kinds[i]; i++) ks = cons(L, string_from_cstr(L, kinds[i]), ks);
    Obj form = cons(L, sys_sym(L, "%QUERY-APROPOS"),
                    cons(L, query ? string_from_cstr(L, query) : NIL,
                         list3(L, str_or_nil(L, package), external_only ? S(T) : NIL, quoted(L, ks))));
    return info_call(s, form);
}

TclInfo *tcl_macroexpand(TclSession *s, const char *code, const char *package, bool full) {
    session_enter(s);
    Lisp *L = s->L;
    Obj form = cons(L, sys_sym(L, "%QUERY-MACROEXPAND"),
                    list3(L, code ? string_from_cstr(L, code) : NIL, str_or_nil(L, package), full ? S(T) : NIL));
    return info_call(s, form);
}

TclInfo *tcl_find_definitions(TclSession *s, const char *symbol, const char *package) {
    session_enter(s);
    Lisp *L = s->L;
    return info_call(s, list3(L, sys_sym(L, "%QUERY-FIND-DEFINITIONS"), str_or_nil(L, symbol), str_or_nil(L, package)));
}

TclInfo *tcl_xref(TclSession *s, const char *relation, const char *symbol, const char *package) {
    session_enter(s);
    Lisp *L = s->L;
    Obj form = cons(L, sys_sym(L, "%QUERY-XREF"),
                    list3(L, str_or_nil(L, relation), str_or_nil(L, symbol), str_or_nil(L, package)));
    return info_call(s, form);
}

TclInfo *tcl_inspect(TclSession *s, const char *code, const char *package, const long *path, int npath) {
    session_enter(s);
    Lisp *L = s->L;
    Obj p = NIL;
    for (int i = npath - 1; i >= 0; i--) p = cons(L, FIX(path[i]), p);
    Obj form = cons(L, sys_sym(L, "%QUERY-INSPECT"),
                    list3(L, code ? string_from_cstr(L, code) : NIL, str_or_nil(L, package), quoted(L, p)));
    return info_call(s, form);
}

TclInfo *tcl_documentation(TclSession *s, const char *symbol, const char *package, const char *doc_type) {
    session_enter(s);
    Lisp *L = s->L;
    Obj form = cons(L, sys_sym(L, "%QUERY-DOCUMENTATION"),
                    list3(L, str_or_nil(L, symbol), str_or_nil(L, package), str_or_nil(L, doc_type)));
    return info_call(s, form);
}

void tcl_info_free(TclInfo *info) {
    if (!info) return;
    tcl_result_free(info->result);
    free(info->text);
    free(info->subject);
    for (int i = 0; i < info->count; i++) {
        TclItem *it = &info->items[i];
        free(it->kind); free(it->name); free(it->detail); free(it->file); free(it->source);
    }
    free(info->items);
    free(info);
}
