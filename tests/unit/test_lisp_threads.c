/* test_lisp_threads.c: Lisp threads as the session sees them (runtime/thread.c): other threads run
 * only while an evaluation runs; the time limit stops the session's thread blocked on a mutex or
 * a join; reset-session and freeing a session end the other threads, even ones spinning or
 * blocked forever; a checkpoint refuses while they live. */
#include <time.h>
#include "session_unit.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static TclSession *session(void) {
    TclOptions opt = {0};
    opt.capture_output = true;
    TclSession *s = tcl_session_new(&opt);
    ck_assert_ptr_nonnull(s);
    return s;
}

START_TEST(test_threads_stop_between_calls) {
    TclSession *s = session();
    /* a thread that notes the time every 10 ms: between calls it must not run at all */
    ck_value(s, "(progn (defvar *stamps* nil) (defvar *ticker* (tinycl-threads:make-thread "
                "(lambda () (loop (push (get-internal-real-time) *stamps*) (sleep 0.01))))) (sleep 0.1) :ok)",
             ":OK");
    sleep_s(0.6);
    ck_value(s, "(progn (sleep 0.1) (let ((gaps (loop for (a b) on *stamps* while b collect (- a b)))) "
                "(>= (reduce #'max gaps) (* 0.4 internal-time-units-per-second))))",
             "T");
    tcl_session_free(s);
}
END_TEST

START_TEST(test_time_limit_stops_blocked_waits) {
    TclSession *s = session();
    ck_value(s, "(progn (defvar *m* (tinycl-threads:make-mutex)) "
                "(defvar *holder* (tinycl-threads:make-thread (lambda () (tinycl-threads:with-mutex (*m*) (loop))))) "
                "(loop until (tinycl-threads:mutex-owner *m*) do (sleep 0.01)) :ok)",
             ":OK");
    const char *blocked[] = {"(tinycl-threads:grab-mutex *m*)", "(tinycl-threads:join-thread *holder*)"};
    for (int i = 0; i < 2; i++) {
        double t0 = now_s();
        TclResult *r = tcl_eval(s, blocked[i], NULL, 0.5);
        ck_assert_int_eq(r->status, TCL_TIMEOUT);
        ck_assert_double_lt(now_s() - t0, 5.0);
        tcl_result_free(r);
    }
    ck_value(s, "(+ 1 2)", "3");
    tcl_session_free(s);
}
END_TEST

START_TEST(test_reset_ends_threads) {
    TclSession *s = session();
    ck_value(s, "(progn (tinycl-threads:make-thread (lambda () (loop))) "
                "(tinycl-threads:make-thread (lambda () (sleep 1000))) "
                "(tinycl-threads:make-thread (lambda () (unwind-protect (loop) (setf (symbol-value 'cl-user::*cleaned*) t)))) "
                "(length (tinycl-threads:list-all-threads)))",
             "4");
    char *error = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, "busy", &error), -1);
    ck_assert_ptr_nonnull(error);
    ck_assert_ptr_nonnull(strstr(error, "other Lisp threads"));
    free(error);
    double t0 = now_s();
    tcl_reset(s, false);
    ck_assert_double_lt(now_s() - t0, 4.0);
    ck_value(s, "(length (tinycl-threads:list-all-threads))", "1");
    ck_assert_int_eq(tcl_checkpoint(s, "quiet", &error), 0);
    tcl_session_free(s);
}
END_TEST

START_TEST(test_free_ends_threads) {
    TclSession *s = session();
    ck_value(s, "(let ((m (tinycl-threads:make-mutex))) (tinycl-threads:grab-mutex m) "
                "(tinycl-threads:make-thread (lambda () (tinycl-threads:grab-mutex m))) "
                "(tinycl-threads:make-thread (lambda () (loop))) :ok)",
             ":OK");
    double t0 = now_s();
    tcl_session_free(s);
    ck_assert_double_lt(now_s() - t0, 4.0);
}
END_TEST

START_TEST(test_reset_keeps_keywords_of_analysed_macros) {
    /* WITH-MUTEX's expander, analysed at its first use, interned :WAIT-P then; the reset removed
     * that keyword (made after boot), so a :WAIT-P read afterwards was a new symbol the expander
     * did not know (a keyword taken by stdlib code analysed after the boot now joins the reset
     * state: snapshot_adopt_keyword) */
    TclSession *s = session();
    ck_value(s, "(progn (macroexpand-1 '(tinycl-threads:with-mutex (m) 1)) :ok)", ":OK");
    tcl_reset(s, false);
    ck_value(s, "(let ((m (tinycl-threads:make-mutex))) (tinycl-threads:with-mutex (m :wait-p nil :timeout 1) :held))",
             ":HELD");
    tcl_session_free(s);
}
END_TEST

/* The session's thread waits for a mutex another thread holds, which releases it and so unparks
 * the session's thread, after a restore and after a plain reset. The session's thread object
 * survived the restore (its record outlives the state): an instance of THREAD as the state before
 * defined it, which the restored accessors refused, so the releasing thread died unparking it and
 * the session's thread waited for ever (found by tests/property/prop_threads.c). */
static const char *const handover =
    "(let* ((m (tinycl-threads:make-mutex)) "
    "       (th (tinycl-threads:make-thread (lambda () (tinycl-threads:grab-mutex m) (sleep 0.05) "
    "                                                 (tinycl-threads:release-mutex m) :released)))) "
    "  (loop until (tinycl-threads:mutex-owner m) do (tinycl-threads:thread-yield)) "
    "  (list (tinycl-threads:with-mutex (m :timeout 3) :got) (tinycl-threads:join-thread th :default :failed) "
    "        (tinycl-threads:threadp (tinycl-threads:current-thread)) "
    "        (eq (tinycl-threads:current-thread) (tinycl-threads:main-thread))))";

START_TEST(test_restore_gives_the_session_thread_a_fresh_object) {
    TclSession *s = session();
    ck_value(s, handover, "(:GOT :RELEASED T T)");
    char *error = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, "threads", &error), 0);
    ck_assert_int_eq(tcl_restore(s, "threads", &error), 0);
    ck_value(s, handover, "(:GOT :RELEASED T T)");
    tcl_reset(s, false);
    ck_value(s, handover, "(:GOT :RELEASED T T)");
    tcl_session_free(s);
}
END_TEST

/* A thread that does not end when the session is reset (its cleanup form loops) runs on, in code
 * that a restore before had put in the restored heap; the reset's compaction of that heap freed it
 * under the thread, and the next evaluation crashed. The compaction waits for a reset with no
 * such thread. (The big list makes the restored heap worth compacting.) */
START_TEST(test_reset_keeps_the_heap_a_surviving_thread_runs_in) {
    TclSession *s = session();
    ck_value(s, "(progn (defvar *big* (loop repeat 200000 collect (list 1 2 3))) (defvar *n* 0) "
                "(defun stubborn () (unwind-protect (loop) (loop (setf *big* (cons (list *n*) (cdr *big*))) (incf *n*)))) :ok)",
             ":OK");
    char *error = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, "big", &error), 0);
    ck_assert_int_eq(tcl_restore(s, "big", &error), 0);
    ck_value(s, "(progn (tinycl-threads:make-thread #'stubborn) (sleep 0.1) :started)", ":STARTED");
    tcl_reset(s, false);   /* the thread's cleanup never ends: it survives (with a note on stderr) */
    ck_value(s, "(progn (sleep 0.3) (gc) (sleep 0.3) (length (tinycl-threads:list-all-threads)))", "2");
    ck_value(s, "(+ 1 2)", "3");
    tcl_session_free(s);   /* kept, not freed, under the thread */
}
END_TEST

static Suite *lisp_threads_suite(void) {
    Suite *s = suite_create("lisp-threads");
    TCase *tc = tcase_create("lisp-threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_threads_stop_between_calls);
    tcase_add_test(tc, test_time_limit_stops_blocked_waits);
    tcase_add_test(tc, test_reset_ends_threads);
    tcase_add_test(tc, test_free_ends_threads);
    tcase_add_test(tc, test_reset_keeps_keywords_of_analysed_macros);
    tcase_add_test(tc, test_restore_gives_the_session_thread_a_fresh_object);
    tcase_add_test(tc, test_reset_keeps_the_heap_a_surviving_thread_runs_in);
    suite_add_tcase(s, tc);
    return s;
}

SESSION_UNIT_MAIN(lisp_threads_suite)
