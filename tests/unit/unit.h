/* unit.h: helpers for Check unit tests: a fresh interpreter per test and evaluation from strings. */
#ifndef TINYCL_UNIT_H
#define TINYCL_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include "state.h"
#include "gc.h"
#include "eval.h"
#include "reader.h"
#include "printer.h"
#include "stream.h"
#include "lstring.h"
#include "error.h"
#include "package.h"

/* A fresh interpreter (call in each test). */
static inline Lisp *unit_lisp(void) {
    Lisp *L = lisp_new(NULL);
    ck_assert_msg(L != NULL, "lisp_new failed");
    gc_current = L;
    return L;
}

/* One interpreter shared by every test of a file (made on first use), the current one again. */
static inline Lisp *unit_shared_lisp(void) {
    static Lisp *shared;
    if (!shared) shared = unit_lisp();
    gc_current = shared;
    return shared;
}

/* Evaluate every form of CODE; returns the last value. An error fails the test with its description. */
static inline Obj unit_eval(Lisp *L, const char *code) {
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {
        frame_pop(L, &fr);
        Obj e = L->last_error;
        const char *what = is_cons(e) ? error_describe_bootstrap(L, e) : princ_cstr(L, e);
        ck_abort_msg("error evaluating %s: %s", code, what);
    }
    Obj text = string_from_cstr(L, code);
    Obj s = make_string_input_stream(L, text, 0, STR(text)->len);
    Obj v = NIL;
    for (;;) {
        Obj f = reader_read(L, s, false, UNBOUND, false, false);
        if (f == UNBOUND) break;
        v = lisp_eval(L, f);
    }
    frame_pop(L, &fr);
    return v;
}

/* Evaluate CODE and return the PRIN1 representation of its value (collected memory). */
static inline const char *unit_eval_str(Lisp *L, const char *code) {
    return prin1_cstr(L, unit_eval(L, code));
}

/* Evaluate CODE expecting an error; returns the error's type name, or NULL if none was signalled. */
static inline const char *unit_eval_error(Lisp *L, const char *code) {
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {
        frame_pop(L, &fr);
        Obj e = L->last_error;
        Obj type;
        if (is_cons(e)) type = CAR(e);
        else if (is_symbol(e)) type = e;
        else type = funcall1(L, intern_cstr(L, L->pkg_system, "%CONDITION-DISPLAY-TYPE"), e);
        return string_to_utf8(L, symbol_name(L, type), NULL);
    }
    Obj text = string_from_cstr(L, code);
    Obj s = make_string_input_stream(L, text, 0, STR(text)->len);
    for (;;) {
        Obj f = reader_read(L, s, false, UNBOUND, false, false);
        if (f == UNBOUND) break;
        lisp_eval(L, f);
    }
    frame_pop(L, &fr);
    return NULL;
}

#define ck_assert_eval(L, code, expected) ck_assert_str_eq(unit_eval_str((L), (code)), (expected))

/* Each test file ends with UNIT_MAIN(suite_function). */
#define UNIT_MAIN(suite_fn)                                          \
    int main(void) {                                                 \
        gc_process_init();                                           \
        SRunner *sr = srunner_create(suite_fn());                    \
        srunner_set_fork_status(sr, CK_NOFORK);                      \
        srunner_run_all(sr, CK_NORMAL);                              \
        int failed = srunner_ntests_failed(sr);                      \
        srunner_free(sr);                                            \
        return failed ? 1 : 0;                                       \
    }

#endif
