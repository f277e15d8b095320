/* session-systems.c: the systems calls of the session API (load, describe, list, dependencies).
 * Each evaluates a report function of stdlib-lisp/asdf.lisp as a session call; it leaves
 * SYS::*SYSTEM-REPORT* as (text . details), DETAILS a property list, which this file turns into
 * a TclReport. */
#include "tinycl.h"
#include "session.h"
#include "lispreport.h"
#include "../runtime/package.h"
#include "../runtime/list.h"
#include "../runtime/printer.h"
#include "../runtime/prim.h"

/* The value of the keyword KEY in the property list PLIST, or NIL. */
static Obj detail(Lisp *L, Obj plist, const char *key) {
    Obj k = intern_cstr(L, L->pkg_keyword, key);
    for (Obj p = plist; is_cons(p) && is_cons(CDR(p)); p = CDR(CDR(p)))
        if (CAR(p) == k) return CAR(CDR(p));
    return NIL;
}

static char *detail_text(Lisp *L, Obj plist, const char *key) { return report_cstr(detail(L, plist, key)); }
static long detail_long(Lisp *L, Obj plist, const char *key, long none) {
    Obj v = detail(L, plist, key);
    return is_fixnum(v) ? (long)FIXVAL(v) : none;
}

/* A list of strings as a malloc'd array; its length in *N. */
static char **detail_texts(Lisp *L, Obj plist, const char *key, int *n) {
    Obj list = detail(L, plist, key);
    *n = report_len(list);
    char **out = (char **)calloc((size_t)(*n ? *n : 1), sizeof(char *));
    int i = 0;
    for (Obj p = list; is_cons(p); p = CDR(p)) out[i++] = report_cstr(CAR(p));
    return out;
}

/* An integer of any size (a universal time is past the fixnums of a 32-bit build). */
static long long detail_integer(Lisp *L, Obj plist, const char *key) {
    Obj v = detail(L, plist, key);
    if (is_fixnum(v)) return (long long)FIXVAL(v);
    if (!is_bignum(v)) return 0;
    return strtoll(string_to_utf8(L, prin1_to_string(L, v), NULL), NULL, 10);
}

static void read_record(Lisp *L, Obj d, TclSystemRecord *r) {
    r->name = detail_text(L, d, "NAME");
    r->version = detail_text(L, d, "VERSION");
    r->load_time = detail_text(L, d, "LOAD-TIME");
    r->load_time_universal = detail_integer(L, d, "LOAD-TIME-UNIVERSAL");
    r->elapsed_ms = detail_long(L, d, "ELAPSED-MS", 0);
    r->source_file = detail_text(L, d, "SOURCE-FILE");
    r->dependencies = detail_texts(L, d, "DEPENDENCIES", &r->ndependencies);
    r->transitive_dependencies = detail_texts(L, d, "TRANSITIVE-DEPENDENCIES", &r->ntransitive_dependencies);
    r->packages = detail_texts(L, d, "PACKAGES", &r->npackages);
    r->definitions = (int)detail_long(L, d, "DEFINITIONS", 0);
}

static TclSystemRecord *read_records(Lisp *L, Obj plist, const char *key, int *n) {
    Obj list = detail(L, plist, key);
    *n = report_len(list);
    TclSystemRecord *out = (TclSystemRecord *)calloc((size_t)(*n ? *n : 1), sizeof *out);
    int i = 0;
    for (Obj p = list; is_cons(p); p = CDR(p)) read_record(L, CAR(p), &out[i++]);
    return out;
}

static void read_details(Lisp *L, Obj d, TclReport *rep) {
    rep->has_details = true;
    rep->system = detail_text(L, d, "SYSTEM");
    rep->version = detail_text(L, d, "VERSION");
    rep->status = detail_text(L, d, "STATUS");
    rep->description = detail_text(L, d, "DESCRIPTION");
    rep->author = detail_text(L, d, "AUTHOR");
    rep->license = detail_text(L, d, "LICENSE");
    rep->source_file = detail_text(L, d, "SOURCE-FILE");
    rep->dependencies = detail_texts(L, d, "DEPENDENCIES", &rep->ndependencies);
    rep->components = detail_texts(L, d, "COMPONENTS", &rep->ncomponents);
    Obj record = detail(L, d, "RECORD");
    if (is_cons(record)) {
        rep->record = (TclSystemRecord *)calloc(1, sizeof *rep->record);
        read_record(L, record, rep->record);
    }
    Obj systems = detail(L, d, "SYSTEMS");
    rep->nsystems = report_len(systems);
    rep->systems = (TclSystemEntry *)calloc((size_t)(rep->nsystems ? rep->nsystems : 1), sizeof(TclSystemEntry));
    int i = 0;
    for (Obj p = systems; is_cons(p); p = CDR(p), i++) {
        TclSystemEntry *e = &rep->systems[i];
        e->name = detail_text(L, CAR(p), "NAME");
        e->version = detail_text(L, CAR(p), "VERSION");
        e->status = detail_text(L, CAR(p), "STATUS");
        e->source_file = detail_text(L, CAR(p), "SOURCE-FILE");
        e->elapsed_ms = detail_long(L, CAR(p), "ELAPSED-MS", -1);
    }
    rep->records = read_records(L, d, "RECORDS", &rep->nrecords);
    rep->total = (int)detail_long(L, d, "TOTAL", 0);
    rep->offset = (int)detail_long(L, d, "OFFSET", 0);
    rep->next_offset = (int)detail_long(L, d, "NEXT-OFFSET", -1);
    rep->truncated_scan = detail(L, d, "TRUNCATED-SCAN") != NIL;
    rep->transitive = detail(L, d, "TRANSITIVE") != NIL;
}

/* Evaluate (FN . ARGS) and read the report it leaves. A failed load leaves the systems it loaded
 * completely before the error instead ((text :loaded-before-error records)); a call that failed
 * before its report leaves none. */
static TclReport *system_call(TclSession *s, const char *fn, Obj args, double timeout) {
    session_enter(s);
    Lisp *L = s->L;
    Obj report_var = intern_cstr(L, L->pkg_system, "*SYSTEM-REPORT*");
    Obj saved_minus = SYM(S(REPL_MINUS))->value;
    SYM(report_var)->value = NIL;
    TclReport *rep = (TclReport *)calloc(1, sizeof *rep);
    rep->next_offset = -1;
    rep->result = session_eval_form(s, cons(L, intern_cstr(L, L->pkg_system, fn), args), timeout);
    L = s->L;
    Obj report = SYM(report_var)->value;
    if (is_cons(report)) {
        rep->text = report_cstr(CAR(report));
        Obj before = intern_cstr(L, L->pkg_keyword, "LOADED-BEFORE-ERROR");
        if (is_cons(CDR(report)) && CAR(CDR(report)) == before)
            rep->records = read_records(L, CDR(report), "LOADED-BEFORE-ERROR", &rep->nrecords);
        else read_details(L, CDR(report), rep);
    }
    SYM(report_var)->value = NIL;
    SYM(S(REPL_MINUS))->value = saved_minus;
    return rep;
}

static Obj lstr(Lisp *L, const char *c) { return c ? string_from_cstr(L, c) : NIL; }

TclReport *tcl_load_system(TclSession *s, const char *system, bool force, bool quickload, double timeout) {
    session_enter(s);
    Lisp *L = s->L;
    return system_call(s, "%REPORT-LOAD-SYSTEM", list3(L, lstr(L, system), boolean(L, force), boolean(L, quickload)),
                       timeout);
}

TclReport *tcl_describe_system(TclSession *s, const char *system) {
    session_enter(s);
    Lisp *L = s->L;
    return system_call(s, "%REPORT-DESCRIBE-SYSTEM", list1(L, lstr(L, system)), -1);
}

TclReport *tcl_list_local_systems(TclSession *s, const char *filter, int offset, int limit) {
    session_enter(s);
    Lisp *L = s->L;
    return system_call(s, "%REPORT-LOCAL-SYSTEMS", list3(L, lstr(L, filter), FIX(offset), FIX(limit)), -1);
}

TclReport *tcl_list_loaded_systems(TclSession *s) {
    return system_call(s, "%REPORT-LOADED-SYSTEMS", NIL, -1);
}

TclReport *tcl_system_dependencies(TclSession *s, const char *system, bool transitive) {
    session_enter(s);
    Lisp *L = s->L;
    return system_call(s, "%REPORT-SYSTEM-DEPENDENCIES", list2(L, lstr(L, system), boolean(L, transitive)), -1);
}

static void free_texts(char **v, int n) {
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void free_record(TclSystemRecord *r) {
    free(r->name); free(r->version); free(r->load_time); free(r->source_file);
    free_texts(r->dependencies, r->ndependencies);
    free_texts(r->transitive_dependencies, r->ntransitive_dependencies);
    free_texts(r->packages, r->npackages);
}

void tcl_report_free(TclReport *r) {
    if (!r) return;
    tcl_result_free(r->result);
    free(r->text);
    free(r->system); free(r->version); free(r->status);
    free(r->description); free(r->author); free(r->license); free(r->source_file);
    free_texts(r->dependencies, r->ndependencies);
    free_texts(r->components, r->ncomponents);
    if (r->record) { free_record(r->record); free(r->record); }
    for (int i = 0; i < r->nsystems; i++) {
        free(r->systems[i].name); free(r->systems[i].version); free(r->systems[i].status); free(r->systems[i].source_file);
    }
    free(r->systems);
    for (int i = 0; i < r->nrecords; i++) free_record(&r->records[i]);
    free(r->records);
    free(r);
}
