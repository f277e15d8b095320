/* test_two_sessions.c: two sessions on two threads at once, through the session API only: each
 * does pathname and analysis work whose results must not depend on the other. (An interpreter's
 * symbols are its own, so state shared between interpreters, such as a static buffer of
 * keywords or a table every interpreter's boot writes, shows up here as wrong answers.) */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <check.h>
#include "session_unit.h"

typedef struct Worker {
    const char *tag;          /* each session defines functions under its own name */
    int rounds;
    int failures;
    char first_bad[512];
} Worker;

static void worker_fail(Worker *w, const char *what, const TclResult *r) {
    if (w->failures++ == 0)
        snprintf(w->first_bad, sizeof w->first_bad, "%s: %s %s", what,
                 r->error_type ? r->error_type : (r->nvalues ? r->values[0] : "?"),
                 r->error_message ? r->error_message : "");
}

/* Evaluate CODE, expecting one value printed as WANT. */
static void check_eval(Worker *w, TclSession *s, const char *code, const char *want) {
    TclResult *r = tcl_eval(s, code, NULL, 60);
    if (r->status != TCL_OK || r->nvalues != 1 || strcmp(r->values[0], want) != 0) worker_fail(w, code, r);
    tcl_result_free(r);
}

static int worker_run(void *arg) {
    Worker *w = arg;
    TclOptions o;
    memset(&o, 0, sizeof o);
    TclSession *s = tcl_session_new(&o);
    if (!s) { w->failures++; snprintf(w->first_bad, sizeof w->first_bad, "no session"); return 1; }
    char code[512], want[64];
    for (int i = 0; i < w->rounds; i++) {
        /* WILD-PATHNAME-P compares its field argument with this interpreter's keywords: a loop, so
         * that the two threads' calls overlap */
        check_eval(w, s, "(let ((bad 0) (p #p\"/tmp/*.lisp\") (q #p\"/tmp/a.lisp\") (r #p\"/tmp/**/a.*\"))"
                         " (dotimes (i 5000 bad)"
                         "   (unless (and (wild-pathname-p p :name) (not (wild-pathname-p q :name))"
                         "                (wild-pathname-p r :type) (wild-pathname-p r :directory)"
                         "                (not (wild-pathname-p q :version)) (not (wild-pathname-p q nil)))"
                         "     (incf bad))))",
                   "0");
        check_eval(w, s, "(namestring (merge-pathnames \"b.txt\" #p\"/x/y/a.lisp\"))", "\"/x/y/b.txt\"");
        /* analysis: every special operator, in a function defined anew each round */
        snprintf(code, sizeof code,
                 "(progn (defun %s-f (n) (let* ((a n) (b (* a 2))) (block out (tagbody (if (> b 100) (go big))"
                 " (return-from out (flet ((g (x) (+ x 1))) (g b))) big (return-from out (the fixnum (- b)))))))"
                 " (list (%s-f %d) (catch 'k (throw 'k (%s-f 60))) (multiple-value-call #'list (values 1 2))"
                 " (symbol-macrolet ((z 5)) (progv '(*v*) '(7) (+ z (symbol-value '*v*))))"
                 " (macrolet ((m () 3)) (unwind-protect (m) (setq a 0)))))",
                 w->tag, w->tag, i % 40, w->tag);
        snprintf(want, sizeof want, "(%d -120 (1 2) 12 3)", (i % 40) * 2 + 1);
        check_eval(w, s, code, want);
    }
    tcl_session_free(s);
    return 0;
}

static void *thread_main(void *arg) {
    tcl_run_with_big_stack(worker_run, arg);
    return NULL;
}

START_TEST(test_two_sessions_on_two_threads) {
    Worker a = {.tag = "alpha", .rounds = 60}, b = {.tag = "beta", .rounds = 60};
    pthread_t ta, tb;
    ck_assert_int_eq(pthread_create(&ta, NULL, thread_main, &a), 0);
    ck_assert_int_eq(pthread_create(&tb, NULL, thread_main, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    ck_assert_msg(a.failures == 0, "session alpha: %d wrong results, first %s", a.failures, a.first_bad);
    ck_assert_msg(b.failures == 0, "session beta: %d wrong results, first %s", b.failures, b.first_bad);
}
END_TEST

static Suite *two_sessions_suite(void) {
    Suite *s = suite_create("two-sessions");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_two_sessions_on_two_threads);
    suite_add_tcase(s, tc);
    return s;
}

SESSION_UNIT_MAIN(two_sessions_suite)
