/* test_debugger.c: the debugger for agents (src/debugger.c): an evaluation suspended at an
 * unhandled error, its restarts and frames, continuing it, aborting it, timeouts while suspended,
 * other calls meanwhile, and backtraces that show primitive calls; the profiler (tcl_profile) and
 * the positions of analysis warnings. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tinycl.h"
#include "session_unit.h"

static TclSession *new_session(void) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

static void ok(TclSession *s, const char *code, const char *expected) {
    TclResult *r = tcl_eval(s, code, NULL, -1);
    ck_assert_msg(r->status == TCL_OK, "%s: %s %s", code, r->error_type, r->error_message);
    ck_assert_str_eq(r->values[0], expected);
    tcl_result_free(r);
}

static bool has_restart(const TclResult *r, const char *prefix) {
    for (int i = 0; i < r->nrestarts; i++)
        if (strncmp(r->restarts[i], prefix, strlen(prefix)) == 0) return true;
    return false;
}

/* the locals of a frame: parameters, then the LET and LET* variables bound at the moment, never
 * a variable whose LET has ended or has not begun (its slot is not read as garbage) */
START_TEST(frame_locals_include_let_variables) {
    TclSession *s = new_session();
    ok(s, "(defun lv (x) (let ((done (* x 10))) (print done)) "
          "(let* ((a (1+ x)) (a2 (list a))) (let ((b (car a))) (list a a2 b))))", "LV");
    TclResult *r = tcl_eval_debug(s, "(lv 5)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    tcl_result_free(r);
    int n;
    TclFrame *f = tcl_debug_frames(s, &n);
    ck_assert_int_ge(n, 2);
    ck_assert_str_eq(f[0].call, "(CAR 6)");
    ck_assert_str_eq(f[1].call, "(LV 5)");
    ck_assert_int_eq(f[1].nlocals, 3);
    ck_assert_str_eq(f[1].locals[0], "X = 5");
    ck_assert_str_eq(f[1].locals[1], "A = 6");
    ck_assert_str_eq(f[1].locals[2], "A2 = (6)");
    tcl_frames_free(f, n);
    r = tcl_abort_evaluation(s);
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

/* a LET variable a closure captured lives in a frame of its own and is shown too, nested ones
 * outermost first; one whose LET was left is not */
START_TEST(frame_locals_include_captured_let_variables) {
    TclSession *s = new_session();
    ok(s, "(defun cv (a) (let ((gone 1)) (lambda () gone)) "
          "(let ((x (* a 2)) (y 5)) (let* ((g (lambda () x)) (z (list (funcall g)))) "
          "(let ((w 'w)) (setq g (lambda () w))) (list z (car y)))))", "CV");
    TclResult *r = tcl_eval_debug(s, "(cv 4)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    tcl_result_free(r);
    int n;
    TclFrame *f = tcl_debug_frames(s, &n);
    ck_assert_int_ge(n, 2);
    ck_assert_str_eq(f[1].call, "(CV 4)");
    ck_assert_int_eq(f[1].nlocals, 5);
    ck_assert_str_eq(f[1].locals[0], "A = 4");
    ck_assert_str_eq(f[1].locals[1], "Y = 5");
    ck_assert(strncmp(f[1].locals[2], "G = #<CLOSURE (LAMBDA ())", 25) == 0);
    ck_assert_str_eq(f[1].locals[3], "Z = (8)");
    ck_assert_str_eq(f[1].locals[4], "X = 8");   /* captured: its LET's own frame, after the call's */
    tcl_frames_free(f, n);
    r = tcl_abort_evaluation(s);
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(suspends_and_continues_with_use_value) {
    TclSession *s = new_session();
    ok(s, "(defun half (x) (restart-case (if (numberp x) (/ x 2) (error \"not a number: ~S\" x)) "
          "(use-value (v) :report \"Use another value.\" (/ v 2))))", "HALF");
    TclResult *r = tcl_eval_debug(s, "(print :before) (+ 1 (half 'a))", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    ck_assert_str_eq(r->error_type, "SIMPLE-ERROR");
    ck_assert_str_eq(r->error_message, "not a number: A");
    ck_assert(has_restart(r, "USE-VALUE: Use another value."));
    ck_assert(has_restart(r, "ABORT: Return to top level."));
    ck_assert(strstr(r->out, ":BEFORE") != NULL);
    ck_assert_int_ge(r->nbacktrace, 1);
    ck_assert_str_eq(r->backtrace[0], "(HALF A)");
    ck_assert(tcl_debug_suspended(s));
    tcl_result_free(r);

    /* the frames with the parameters of interpreted calls */
    int n;
    TclFrame *f = tcl_debug_frames(s, &n);
    ck_assert_int_ge(n, 1);
    ck_assert_str_eq(f[0].call, "(HALF A)");
    ck_assert_int_eq(f[0].nlocals, 1);
    ck_assert_str_eq(f[0].locals[0], "X = A");
    tcl_frames_free(f, n);

    /* another call meanwhile works; a second debug evaluation is refused */
    ok(s, "(* 6 7)", "42");
    r = tcl_eval_debug(s, "(car 1)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_str_eq(r->error_type, "EVALUATION-SUSPENDED");
    tcl_result_free(r);

    /* an unknown restart, and too few values, leave it suspended with a note */
    r = tcl_invoke_restart(s, "no-such-restart", NULL, 0);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    ck_assert_ptr_nonnull(r->note);
    tcl_result_free(r);
    r = tcl_invoke_restart(s, "use-value", NULL, 0);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    ck_assert_msg(strstr(r->note, "takes 1 argument, not 0") != NULL, "%s", r->note);
    tcl_result_free(r);
    const char *vals[] = {"(* 10 4)"};
    r = tcl_invoke_restart(s, "USE-VALUE", vals, 1);
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->values[0], "21");
    tcl_result_free(r);
    ck_assert(!tcl_debug_suspended(s));
    r = tcl_invoke_restart(s, "abort", NULL, 0);
    ck_assert_str_eq(r->error_type, "NO-SUSPENDED-EVALUATION");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(restart_by_number_continue_and_abort) {
    TclSession *s = new_session();
    TclResult *r = tcl_eval_debug(s, "(defvar *n* 0) (cerror \"Go on.\" \"stop ~D\" 1) (incf *n*) :done", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    ck_assert_str_eq(r->restarts[0], "CONTINUE: Go on.");
    tcl_result_free(r);
    r = tcl_invoke_restart(s, "0", NULL, 0);
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->values[0], ":DONE");
    tcl_result_free(r);
    ok(s, "*n*", "1");

    r = tcl_eval_debug(s, "(car 5) (incf *n*)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    ck_assert_str_eq(r->error_type, "TYPE-ERROR");
    ck_assert_str_eq(r->backtrace[0], "(CAR 5)");
    tcl_result_free(r);
    r = tcl_abort_evaluation(s);
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_str_eq(r->error_type, "ABORT");
    tcl_result_free(r);
    ok(s, "*n*", "1");
    tcl_session_free(s);
}
END_TEST

START_TEST(a_restart_that_fails_suspends_again) {
    TclSession *s = new_session();
    TclResult *r = tcl_eval_debug(s, "(restart-case (error \"first\") (retry () (error \"second\")))", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    ck_assert_int_eq(r->debug_level, 1);
    tcl_result_free(r);
    r = tcl_invoke_restart(s, "retry", NULL, 0);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    ck_assert_str_eq(r->error_message, "second");
    tcl_result_free(r);
    const char *bad[] = {"(car 'x)"};
    r = tcl_invoke_restart(s, "abort", bad, 1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    ck_assert(strstr(r->note, "failed") != NULL);
    tcl_result_free(r);
    r = tcl_abort_evaluation(s);
    ck_assert_str_eq(r->error_type, "ABORT");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(times_out_while_suspended) {
    TclSession *s = new_session();
    TclResult *r = tcl_eval_debug(s, "(error \"wait\")", NULL, 0.3);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    tcl_result_free(r);
    usleep(400000);
    ok(s, "(+ 1 1)", "2");
    ck_assert(!tcl_debug_suspended(s));
    r = tcl_invoke_restart(s, "abort", NULL, 0);
    ck_assert_int_eq(r->status, TCL_TIMEOUT);
    tcl_result_free(r);
    r = tcl_invoke_restart(s, "abort", NULL, 0);
    ck_assert_str_eq(r->error_type, "NO-SUSPENDED-EVALUATION");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(reset_and_free_end_a_suspension) {
    TclSession *s = new_session();
    TclResult *r = tcl_eval_debug(s, "(defun keep () 1) (error \"x\")", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    tcl_result_free(r);
    tcl_reset(s, false);
    ck_assert(!tcl_debug_suspended(s));
    ok(s, "(fboundp 'keep)", "NIL");
    r = tcl_eval_debug(s, "(error \"y\")", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    tcl_result_free(r);
    tcl_session_free(s);   /* must not hang or leak a parked thread */
}
END_TEST

START_TEST(no_throw_into_the_suspended_stack) {
    TclSession *s = new_session();
    TclResult *r = tcl_eval_debug(s, "(catch 'outer (restart-case (error \"x\") (use-value (v) v)))", NULL, -1);
    ck_assert_int_eq(r->status, TCL_SUSPENDED);
    tcl_result_free(r);
    r = tcl_eval(s, "(throw 'outer 1)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_str_eq(r->error_type, "CONTROL-ERROR");
    tcl_result_free(r);
    /* its restarts are visible (the dynamic environment of the error) but cannot be entered */
    r = tcl_eval(s, "(invoke-restart 'use-value 5)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_str_eq(r->error_type, "CONTROL-ERROR");
    tcl_result_free(r);
    r = tcl_invoke_restart(s, "abort", NULL, 0);
    ck_assert_str_eq(r->error_type, "ABORT");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(plain_errors_show_primitive_frames) {
    TclSession *s = new_session();
    TclResult *r = tcl_eval(s, "(defun f (x) (car x)) (f 5)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_int_ge(r->nbacktrace, 2);
    ck_assert_str_eq(r->backtrace[0], "(CAR 5)");
    ck_assert_str_eq(r->backtrace[1], "(F 5)");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(profile_counts_calls_and_time) {
    TclSession *s = new_session();
    TclProfile *p = tcl_profile(s, "(defun fib (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) "
                                   "(defun top () (fib 12) (make-list 100)) (length (top))", NULL, -1);
    ck_assert_int_eq(p->result->status, TCL_OK);
    ck_assert_str_eq(p->result->values[0], "100");
    const TclProfileEntry *fib = NULL, *top = NULL;
    for (int i = 0; i < p->count; i++) {
        if (strcmp(p->entries[i].name, "FIB") == 0) fib = &p->entries[i];
        if (strcmp(p->entries[i].name, "TOP") == 0) top = &p->entries[i];
        /* the session's own frames and the reader are not counted */
        ck_assert(strstr(p->entries[i].name, "SESSION-EVAL") == NULL);
        ck_assert(strstr(p->entries[i].name, "READ") == NULL);
        if (i > 0) ck_assert(p->entries[i - 1].exclusive_ms >= p->entries[i].exclusive_ms);
    }
    ck_assert_ptr_nonnull(fib);
    ck_assert_ptr_nonnull(top);
    ck_assert_int_eq(fib->calls, 465);
    ck_assert_int_eq(top->calls, 1);
    ck_assert(top->inclusive_ms >= fib->inclusive_ms);
    ck_assert(fib->inclusive_ms >= fib->exclusive_ms * 0.999);
    tcl_profile_free(p);
    /* profiling is off afterwards, and a failing evaluation still gives a profile */
    p = tcl_profile(s, "(fib 3) (car 1)", NULL, -1);
    ck_assert_int_eq(p->result->status, TCL_ERROR);
    ck_assert_int_ge(p->count, 1);
    tcl_profile_free(p);
    tcl_session_free(s);
}
END_TEST

/* A function's calls of itself in tail position run as a loop (nodes.c), except while profiling:
 * each call is counted. */
START_TEST(profile_counts_self_tail_calls) {
    TclSession *s = new_session();
    TclProfile *p = tcl_profile(s, "(defun down (n) (if (= n 0) :end (down (1- n)))) (down 50)", NULL, -1);
    ck_assert_int_eq(p->result->status, TCL_OK);
    ck_assert_str_eq(p->result->values[0], ":END");
    const TclProfileEntry *down = NULL;
    for (int i = 0; i < p->count; i++)
        if (strcmp(p->entries[i].name, "DOWN") == 0) down = &p->entries[i];
    ck_assert_ptr_nonnull(down);
    ck_assert_int_eq(down->calls, 51);
    tcl_profile_free(p);
    tcl_session_free(s);
}
END_TEST

/* The same for a function whose rounds run as one C loop (ev_self_loop): no round is merged while
 * the profiler counts. */
START_TEST(profile_counts_self_loop_rounds) {
    TclSession *s = new_session();
    TclProfile *p = tcl_profile(s, "(defun walk (l) (if (null l) :end (walk (cdr l)))) (walk (make-list 50))", NULL, -1);
    ck_assert_int_eq(p->result->status, TCL_OK);
    ck_assert_str_eq(p->result->values[0], ":END");
    const TclProfileEntry *walk = NULL;
    for (int i = 0; i < p->count; i++)
        if (strcmp(p->entries[i].name, "WALK") == 0) walk = &p->entries[i];
    ck_assert_ptr_nonnull(walk);
    ck_assert_int_eq(walk->calls, 51);
    tcl_profile_free(p);
    tcl_session_free(s);
}
END_TEST

START_TEST(warnings_carry_positions) {
    TclSession *s = new_session();
    TclResult *r = tcl_eval(s, "(+ 1 2)\n  ; a comment\n  (defun w (x) (undefined-w))\n(defun later () 1)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_int_eq(r->nwarnings, 2);
    ck_assert_str_eq(r->warnings[0].type, "STYLE-WARNING");
    ck_assert_str_eq(r->warnings[0].message, "The variable X is defined but never used.");
    ck_assert_int_eq(r->warnings[0].line, 3);
    ck_assert_int_eq(r->warnings[0].column, 3);
    ck_assert_str_eq(r->warnings[1].message, "undefined function: COMMON-LISP-USER::UNDEFINED-W");
    ck_assert_int_eq(r->warnings[1].line, 3);
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

/* warnings found while LOADing a file carry the file and the place of the form in it, and the forms
 * of the code after the LOAD their own place again */
START_TEST(warnings_of_a_loaded_file_carry_its_positions) {
    char path[] = "/tmp/tinycl-warnload-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *text = "(defun lw-a (x) x)\n\n  (defun lw-b ()\n    (lw-a 1 2))\n(defun lw-c () (lw-undefined-fn))\n";
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    TclSession *s = new_session();
    char code[256];
    snprintf(code, sizeof code, "(+ 1 2)\n(load \"%s\")\n(defun lw-d (y) 1)", path);
    TclResult *r = tcl_eval(s, code, NULL, -1);
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_int_eq(r->nwarnings, 3);
    ck_assert_str_eq(r->warnings[0].message, "The function LW-A is called with two arguments, but wants exactly one.");
    ck_assert_int_eq(r->warnings[0].line, 3);
    ck_assert_int_eq(r->warnings[0].column, 3);
    ck_assert_ptr_nonnull(r->warnings[0].file);
    ck_assert(strstr(r->warnings[0].file, "tinycl-warnload-") != NULL);
    ck_assert_str_eq(r->warnings[1].message, "undefined function: COMMON-LISP-USER::LW-UNDEFINED-FN");
    ck_assert_int_eq(r->warnings[1].line, 5);
    ck_assert_int_eq(r->warnings[1].column, 1);
    ck_assert_ptr_nonnull(r->warnings[1].file);
    ck_assert_str_eq(r->warnings[2].message, "The variable Y is defined but never used.");
    ck_assert_int_eq(r->warnings[2].line, 3);
    ck_assert_int_eq(r->warnings[2].column, 1);
    ck_assert_ptr_null(r->warnings[2].file);
    tcl_result_free(r);
    tcl_session_free(s);
    unlink(path);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("debugger");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, suspends_and_continues_with_use_value);
    tcase_add_test(t, frame_locals_include_let_variables);
    tcase_add_test(t, frame_locals_include_captured_let_variables);
    tcase_add_test(t, warnings_of_a_loaded_file_carry_its_positions);
    tcase_add_test(t, restart_by_number_continue_and_abort);
    tcase_add_test(t, a_restart_that_fails_suspends_again);
    tcase_add_test(t, times_out_while_suspended);
    tcase_add_test(t, reset_and_free_end_a_suspension);
    tcase_add_test(t, no_throw_into_the_suspended_stack);
    tcase_add_test(t, plain_errors_show_primitive_frames);
    tcase_add_test(t, profile_counts_calls_and_time);
    tcase_add_test(t, profile_counts_self_tail_calls);
    tcase_add_test(t, profile_counts_self_loop_rounds);
    tcase_add_test(t, warnings_carry_positions);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
