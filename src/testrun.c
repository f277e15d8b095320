/* testrun.c: run-tests behind the session API: stdlib-lisp/filetools.lisp runs the suite with the
 * framework's entry points watched and leaves the results in SYS::*FILES-REPORT*; this turns them
 * into a TclTestRun. */
#include "tinycl.h"
#include "session.h"
#include "files.h"
#include "../runtime/state.h"
#include "../runtime/package.h"
#include "../runtime/lstring.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s);
    char *d = (char *)malloc(n + 1);
    memcpy(d, s, n + 1);
    return d;
}

static Obj nth(Obj list, int i) {
    for (; i > 0 && is_cons(list); i--) list = CDR(list);
    return is_cons(list) ? CAR(list) : NIL;
}
static char *cstr(Obj o) { return is_string(o) ? string_to_utf8_malloc(o, NULL) : NULL; }
static int cint(Obj o) { return is_fixnum(o) ? (int)FIXVAL(o) : -1; }
static int list_len(Obj l) { int n = 0; for (; is_cons(l); l = CDR(l)) n++; return n; }

static void text_add(char **t, size_t *len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    *t = (char *)realloc(*t, *len + (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(*t + *len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *len += (size_t)n;
}

TclTestRun *tcl_run_tests(TclSession *s, const char *system, const char *test, const char *framework, double timeout) {
    TclTestRun *t = (TclTestRun *)calloc(1, sizeof *t);
    t->system = xstrdup(system);
    t->test = xstrdup(test);
    t->passed = t->failed = t->errored = t->skipped = t->total = -1;
    char *ls = files_lisp_string(system);
    char *lt = test ? files_lisp_string(test) : xstrdup("nil");
    char *lf = framework ? files_lisp_string(framework) : xstrdup("nil");
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
    t->test_system = cstr(nth(rep, 0));
    t->framework = cstr(nth(rep, 1));
    t->reloaded = nth(rep, 2) != NIL;
    t->passed = cint(nth(rep, 3));
    t->failed = cint(nth(rep, 4));
    t->errored = cint(nth(rep, 5));
    t->skipped = cint(nth(rep, 6));
    t->total = cint(nth(rep, 7));
    Obj fails = nth(rep, 8);
    t->nfailures = list_len(fails);
    t->failures = (TclTestFailure *)calloc((size_t)t->nfailures + 1, sizeof(TclTestFailure));
    int i = 0;
    for (Obj p = fails; is_cons(p); p = CDR(p), i++) {
        Obj e = CAR(p);
        TclTestFailure *f = &t->failures[i];
        f->test = cstr(nth(e, 0));
        f->kind = cstr(nth(e, 1));
        f->form = cstr(nth(e, 2));
        f->expected = cstr(nth(e, 3));
        f->actual = cstr(nth(e, 4));
        f->reason = cstr(nth(e, 5));
        f->expected_failure = nth(e, 6) != NIL;
    }
    t->error_type = cstr(nth(rep, 9));
    t->error_message = cstr(nth(rep, 10));
    char *text = NULL;
    size_t tl = 0;
    text_add(&text, &tl, "Tests of %s%s%s (%s, framework %s)%s\n", system, test ? ", test " : "", test ? test : "",
             t->test_system ? t->test_system : system, t->framework ? t->framework : "unknown",
             t->reloaded ? "; test system loaded first" : "");
    if (t->total >= 0)
        text_add(&text, &tl, "Passed: %d  Failed: %d  Errored: %d  Skipped: %d  (of %d %s)\n", t->passed, t->failed,
                 t->errored, t->skipped, t->total, t->framework && strcmp(t->framework, "fiveam") == 0 ? "checks" : "tests");
    else
        text_add(&text, &tl, "Results not collected for this framework: see the suite's output.\n");
    for (i = 0; i < t->nfailures; i++) {
        TclTestFailure *f = &t->failures[i];
        text_add(&text, &tl, "[%s%s] %s\n", f->kind, f->expected_failure ? ", expected" : "", f->test);
        if (f->form) text_add(&text, &tl, "  form: %s\n", f->form);
        if (f->expected) text_add(&text, &tl, "  expected: %s\n", f->expected);
        if (f->actual) text_add(&text, &tl, "  actual: %s\n", f->actual);
        if (f->reason) text_add(&text, &tl, "  reason: %s\n", f->reason);
    }
    if (t->error_type)
        text_add(&text, &tl, "The suite signalled %s at the end: %s\n", t->error_type, t->error_message ? t->error_message : "");
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
