/* test_session_seam.c: the seam between the session API and stdlib-lisp. The words the stdlib
 * shows for the front end (TclOptions.call_label, exit_unavailable_report) come from the front
 * end, with neutral defaults; the Lisp functions the session calls (runtime/lisp-abi.def upcalls)
 * have no silent fallback: a missing one is an error result, and the session goes on. */
#include <check.h>
#include <string.h>
#include "tinycl.h"
#include "session_unit.h"

static TclSession *new_session(const char *call_label, const char *exit_report) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    o.exit_unavailable = true;
    o.timeout = 20;
    o.call_label = call_label;
    o.exit_unavailable_report = exit_report;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

static TclResult *eval(TclSession *s, const char *code) { return tcl_eval_n(s, code, strlen(code), NULL, -1, 0); }

/* The value of CODE, printed; the result is freed. */
static void check_value(TclSession *s, const char *code, const char *want) {
    TclResult *r = eval(s, code);
    ck_assert_msg(r->status == TCL_OK, "%s: %s", code, r->error_message ? r->error_message : "?");
    ck_assert_str_eq(r->values[r->nvalues - 1], want);
    tcl_result_free(r);
}

static const char *where_sq = "(sys::%location-text (cdar (sys::%definitions-named 'sq)))";

START_TEST(labels_default_to_neutral_words) {
    TclSession *s = new_session(NULL, NULL);
    TclResult *r = eval(s, "(defun sq (x) (* x x))");
    tcl_result_free(r);
    check_value(s, where_sq, "\"evaluation 1: (defun sq (x) (* x x))\"");
    r = eval(s, "(exit)");
    ck_assert_str_eq(r->error_type, "EXIT-NOT-AVAILABLE");
    ck_assert_str_eq(r->error_message, "exit is not available in this session");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(labels_are_the_front_ends) {
    TclSession *s = new_session("notebook cell", "exit is not available here; close the notebook");
    TclResult *r = eval(s, "1");
    tcl_result_free(r);
    r = eval(s, "(defun sq (x) (* x x))");
    tcl_result_free(r);
    check_value(s, where_sq, "\"notebook cell 2: (defun sq (x) (* x x))\"");
    check_value(s, "(handler-case (exit) (tinycl:exit-not-available (c) (princ-to-string c)))",
                "\"exit is not available here; close the notebook\"");
    /* a reset keeps them: they are the session's, not the user's */
    tcl_reset(s, false);
    r = eval(s, "(defun sq (x) (* x x))");
    tcl_result_free(r);
    check_value(s, where_sq, "\"notebook cell 5: (defun sq (x) (* x x))\"");
    r = eval(s, "(exit)");
    ck_assert_str_eq(r->error_message, "exit is not available here; close the notebook");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

/* Without SYS::%SESSION-EVAL, which evaluates every top-level form, each call is an error that
 * names it (not a silent evaluation without its ABORT restart); a reset brings it back. */
START_TEST(missing_session_eval_is_an_error) {
    TclSession *s = new_session(NULL, NULL);
    TclResult *r = eval(s, "(fmakunbound 'sys::%session-eval)");
    ck_assert_int_eq(r->status, TCL_OK);
    tcl_result_free(r);
    for (int i = 0; i < 2; i++) {
        r = eval(s, "(+ 1 2)");
        ck_assert_int_eq(r->status, TCL_ERROR);
        ck_assert_str_eq(r->error_type, "PROGRAM-ERROR");
        ck_assert_ptr_nonnull(strstr(r->error_message, "%SESSION-EVAL"));
        ck_assert_ptr_nonnull(strstr(r->error_message, "lisp-abi.def"));
        tcl_result_free(r);
    }
    tcl_reset(s, false);
    check_value(s, "(+ 1 2)", "3");
    tcl_session_free(s);
}
END_TEST

/* Without SYS::%AGENT-DEBUGGER a debug evaluation does not run: its result says why, and the
 * session goes on. */
START_TEST(missing_agent_debugger_is_an_error) {
    TclSession *s = new_session(NULL, NULL);
    TclResult *r = eval(s, "(fmakunbound 'sys::%agent-debugger)");
    tcl_result_free(r);
    r = tcl_eval_debug(s, "(car 1)", NULL, 5);
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_str_eq(r->error_type, "PROGRAM-ERROR");
    ck_assert_ptr_nonnull(strstr(r->error_message, "%AGENT-DEBUGGER"));
    tcl_result_free(r);
    check_value(s, "(+ 1 2)", "3");
    tcl_session_free(s);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("session-seam");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, labels_default_to_neutral_words);
    tcase_add_test(t, labels_are_the_front_ends);
    tcase_add_test(t, missing_session_eval_is_an_error);
    tcase_add_test(t, missing_agent_debugger_is_an_error);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
