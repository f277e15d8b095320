/* testrun.c: run-tests behind the session API: stdlib-lisp/filetools.lisp runs the suite with the
 * framework's entry points watched and leaves the results in SYS::*FILES-REPORT*; this turns them
 * into a TclTestRun. */
#include "tinycl.h"
#include "session.h"
#include "files.h"
#include "lispreport.h"
#include "../runtime/state.h"
#include "../runtime/package.h"
#include "../runtime/lstring.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a framework's counts count, as its own summary says: FiveAM's checks, lisp-unit's
 * assertions, Parachute's results (checks, and tests that failed as a whole), RT's and Prove's tests. */
static const char *count_unit(const char *framework) {
    static const struct { const char *framework, *unit; } units[] = {
        {"fiveam", "checks"}, {"lisp-unit", "assertions"}, {"parachute", "results"}, {"rt", "tests"}, {"prove", "tests"},
    };
    for (size_t i = 0; framework && i < sizeof units / sizeof *units; i++)
        if (strcmp(framework, units[i].framework) == 0) return units[i].unit;
    return "tests";
}

TclTestRun *tcl_run_tests(TclSession *s, const char *system, const char *test, const char *framework, double timeout) {
    TclTestRun *t = (TclTestRun *)calloc(1, sizeof *t);
    t->system = report_strdup(system);
    t->test = report_strdup(test);
    t->passed = t->failed = t->errored = t->skipped = t->total = -1;
    char *ls = files_lisp_string(system);
    char *lt = test ? files_lisp_string(test) : report_strdup("nil");
    char *lf = framework ? files_lisp_string(framework) : report_strdup("nil");
    size_t n = strlen(ls) + strlen(lt) + strlen(lf) + 64;
    char *code = (char *)malloc(n);
    snprintf(code, n, "(sys::%%run-tests %s %s %s)", ls, lt, lf);
    free(ls);
    free(lt);
    free(lf);
    Lisp *L = s->L;
    Obj var = intern_cstr(L, L->pkg_system, "*FILES-REPORT*");
    SYM(var)->value = NIL;
    t->result = tcl_eval(s, code, "CL-USER", timeout);
    free(code);
    L = s->L;
    Obj rep = SYM(var)->value;
    SYM(var)->value = NIL;
    if (!is_cons(rep)) return t;
    t->test_system = report_cstr(report_nth(rep, 0));
    t->framework = report_cstr(report_nth(rep, 1));
    t->reloaded = report_nth(rep, 2) != NIL;
    t->passed = report_int(report_nth(rep, 3));
    t->failed = report_int(report_nth(rep, 4));
    t->errored = report_int(report_nth(rep, 5));
    t->skipped = report_int(report_nth(rep, 6));
    t->total = report_int(report_nth(rep, 7));
    Obj fails = report_nth(rep, 8);
    t->nfailures = report_len(fails);
    t->failures = (TclTestFailure *)calloc((size_t)t->nfailures + 1, sizeof(TclTestFailure));
    int i = 0;
    for (Obj p = fails; is_cons(p); p = CDR(p), i++) {
        Obj e = CAR(p);
        TclTestFailure *f = &t->failures[i];
        f->test = report_cstr(report_nth(e, 0));
        f->kind = report_cstr(report_nth(e, 1));
        f->form = report_cstr(report_nth(e, 2));
        f->expected = report_cstr(report_nth(e, 3));
        f->actual = report_cstr(report_nth(e, 4));
        f->reason = report_cstr(report_nth(e, 5));
        f->expected_failure = report_nth(e, 6) != NIL;
    }
    t->error_type = report_cstr(report_nth(rep, 9));
    t->error_message = report_cstr(report_nth(rep, 10));
    char *text = NULL;
    size_t tl = 0;
    report_text_add(&text, &tl, "Tests of %s%s%s (%s, framework %s)%s\n", system, test ? ", test " : "", test ? test : "",
             t->test_system ? t->test_system : system, t->framework ? t->framework : "unknown",
             t->reloaded ? "; test system loaded first" : "");
    if (t->total >= 0)
        report_text_add(&text, &tl, "Passed: %d  Failed: %d  Errored: %d  Skipped: %d  (of %d %s)\n", t->passed, t->failed,
                 t->errored, t->skipped, t->total, count_unit(t->framework));
    else
        report_text_add(&text, &tl, "Results not collected for this framework: see the suite's output.\n");
    for (i = 0; i < t->nfailures; i++) {
        TclTestFailure *f = &t->failures[i];
        report_text_add(&text, &tl, "[%s%s] %s\n", f->kind, f->expected_failure ? ", expected" : "", f->test);
        if (f->form) report_text_add(&text, &tl, "  form: %s\n", f->form);
        if (f->expected) report_text_add(&text, &tl, "  expected: %s\n", f->expected);
        if (f->actual) report_text_add(&text, &tl, "  actual: %s\n", f->actual);
        if (f->reason) report_text_add(&text, &tl, "  reason: %s\n", f->reason);
    }
    if (t->error_type)
        report_text_add(&text, &tl, "The suite signalled %s at the end: %s\n", t->error_type, t->error_message ? t->error_message : "");
    if (tl && text[tl - 1] == '\n') text[--tl] = 0;
    t->text = text;
    return t;
}

void tcl_test_run_free(TclTestRun *t) {
    if (!t) return;
    tcl_result_free(t->result);
    free(t->system); free(t->test_system); free(t->framework); free(t->test); free(t->text);
    for (int i = 0; i < t->nfailures; i++) {
        TclTestFailure *f = &t->failures[i];
        free(f->test); free(f->kind); free(f->form); free(f->expected); free(f->actual); free(f->reason);
    }
    free(t->failures);
    free(t->error_type);
    free(t->error_message);
    free(t);
}
