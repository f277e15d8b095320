/* test_session_guard.c: a session stays usable whatever a call does (issue 9), through the C API
 * every face uses: invalid reader settings and standard streams are put back with a warning (in
 * the REPL's and -e's mode, where output goes to fd 1, and in the MCP server's capture mode),
 * and loops in C reached from user data (EQUAL on circular lists, a looping PRINT-OBJECT while
 * the value prints, self-expanding symbol macros) end at the time limit or at tcl_interrupt. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tinycl.h"
#include "session_unit.h"

static TclSession *new_session(bool capture) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = capture;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

static bool warned_about(const TclResult *r, const char *what) {
    for (int i = 0; i < r->nwarnings; i++)
        if (strstr(r->warnings[i].message, what)) return true;
    return false;
}

/* Evaluate CODE expecting STATUS; returns the result (free it). */
static TclResult *eval_expect(TclSession *s, const char *code, TclStatus status, double timeout) {
    TclResult *r = tcl_eval(s, code, NULL, timeout);
    ck_assert_msg(r->status == status, "%s: status %d, wanted %d (%s %s)", code, r->status, status,
                  r->error_type ? r->error_type : "", r->error_message ? r->error_message : "");
    return r;
}

START_TEST(reader_settings_are_put_back) {
    static const char *const cases[][2] = {
        {"(setf *read-base* 1)", "*READ-BASE*"},
        {"(setf *readtable* nil)", "*READTABLE*"},
        {"(setf *readtable* 42)", "*READTABLE*"},
        {"(setf *print-base* 0)", "*PRINT-BASE*"},
        {"(setf *read-default-float-format* 'fixnum)", "*READ-DEFAULT-FLOAT-FORMAT*"},
    };
    for (int capture = 0; capture < 2; capture++) {
        TclSession *s = new_session(capture);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            TclResult *r = eval_expect(s, cases[i][0], TCL_OK, -1);
            ck_assert_msg(warned_about(r, cases[i][1]), "%s: no warning about %s", cases[i][0], cases[i][1]);
            tcl_result_free(r);
            ck_value(s, "(list (+ 1 2) 1.5 'sym)", "(3 1.5 SYM)");
        }
        /* a form of the same call that breaks them does not stop the next form from being read */
        ck_value(s, "(setf *readtable* nil) (+ 1 2)", "3");
        tcl_session_free(s);
    }
}
END_TEST

START_TEST(standard_streams_are_put_back) {
    for (int capture = 0; capture < 2; capture++) {
        TclSession *s = new_session(capture);
        TclResult *r = eval_expect(s, "(setf *standard-output* 42 *error-output* nil *terminal-io* 3)", TCL_OK, -1);
        ck_assert(warned_about(r, "*STANDARD-OUTPUT*"));
        ck_assert(warned_about(r, "*ERROR-OUTPUT*"));
        ck_assert(warned_about(r, "*TERMINAL-IO*"));
        tcl_result_free(r);
        r = eval_expect(s, "(format t \"~a\" \"\") (format *error-output* \"\") 7", TCL_OK, -1);
        if (capture) ck_assert_str_eq(r->out, "");
        tcl_result_free(r);
        /* without capture, output goes to fd 1: print nothing there */
        r = eval_expect(s, capture ? "(princ \"hi\") (setf *standard-output* :gone)" : "(princ \"\") (setf *standard-output* :gone)",
                        TCL_OK, -1);
        if (capture) ck_assert_str_eq(r->out, "hi");   /* this call's output is kept */
        tcl_result_free(r);
        tcl_session_free(s);
    }
}
END_TEST

START_TEST(reports_that_fail_are_described) {
    TclSession *s = new_session(true);
    TclResult *r = eval_expect(s, "(define-condition bad (error) () (:report (lambda (c s) (declare (ignore c s)) (error \"no\"))))"
                                  " (error 'bad)", TCL_ERROR, -1);
    ck_assert_str_eq(r->error_type, "BAD");
    ck_assert(strstr(r->error_message, "could not be printed") != NULL);
    tcl_result_free(r);
    r = eval_expect(s, "(let ((l (list 1 2))) (setf (cddr l) l) (error \"c ~S\" l))", TCL_ERROR, -1);
    ck_assert(strncmp(r->error_message, "c (1 2 1 2", 10) == 0);
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(loops_in_c_end_at_the_time_limit) {
    TclSession *s = new_session(true);
    static const char *const loops[] = {
        "(let ((a (list 1 2)) (b (list 1 2))) (setf (cddr a) a (cddr b) b) (equal a b))",
        "(let ((a (list 1 2)) (b (list 1 2))) (setf (cddr a) a (cddr b) b) (equalp a b))",
        "(defclass loops () ()) (defmethod print-object ((x loops) s) (loop)) (make-instance 'loops)",
        "(define-symbol-macro sm sm) sm",
        "(symbol-macrolet ((a b) (b a)) a)",
    };
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
        TclResult *r = eval_expect(s, loops[i], TCL_TIMEOUT, 0.5);
        ck_assert_int_eq(r->nvalues, 0);
        tcl_result_free(r);
        ck_value(s, "(+ 1 2)", "3");
    }
    TclResult *r = eval_expect(s, "(let ((a (list 'list 2))) (setf (cddr a) a) (eval a))", TCL_ERROR, -1);
    ck_assert_str_eq(r->error_type, "PROGRAM-ERROR");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

static void *interrupt_soon(void *arg) {
    struct timespec t = {0, 300 * 1000 * 1000};
    nanosleep(&t, NULL);
    tcl_interrupt((TclSession *)arg);
    return NULL;
}

START_TEST(loops_in_c_end_at_an_interrupt) {
    TclSession *s = new_session(true);
    pthread_t t;
    pthread_create(&t, NULL, interrupt_soon, s);
    TclResult *r = eval_expect(s, "(let ((a (list 1 2)) (b (list 1 2))) (setf (cddr a) a (cddr b) b) (equal a b))",
                               TCL_INTERRUPTED, 0);
    tcl_result_free(r);
    pthread_join(t, NULL);
    ck_value(s, "(+ 1 2)", "3");
    tcl_session_free(s);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("session_guard");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, reader_settings_are_put_back);
    tcase_add_test(t, standard_streams_are_put_back);
    tcase_add_test(t, reports_that_fail_are_described);
    tcase_add_test(t, loops_in_c_end_at_the_time_limit);
    tcase_add_test(t, loops_in_c_end_at_an_interrupt);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
