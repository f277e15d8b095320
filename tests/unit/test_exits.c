/* test_exits.c: the non-local exits that interrupts, time limits and stack overflow take, each
 * twice in a row on one session (an exit that left anything blocked or half-unwound would stop the
 * second from being delivered), and one special variable bound by two sessions on two threads. */
#include "session_unit.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static bool value_is(TclSession *s, const char *code, const char *want) {
    TclResult *r = tcl_eval(s, code, NULL, 20);
    bool ok = r->status == TCL_OK && r->nvalues == 1 && strcmp(r->values[0], want) == 0;
    if (!ok) fprintf(stderr, "%s => status %d %s\n", code, r->status, r->nvalues ? r->values[0] : r->error_message ? r->error_message : "");
    tcl_result_free(r);
    return ok;
}

static TclStatus status_of(TclSession *s, const char *code, double timeout) {
    TclResult *r = tcl_eval(s, code, NULL, timeout);
    TclStatus st = r->status;
    tcl_result_free(r);
    return st;
}

static TclSession *new_session(void) {
    TclOptions o = {0};
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* A time limit that strikes inside UNWIND-PROTECT runs the cleanup, and the next limit strikes too. */
START_TEST(test_timeout_twice_through_unwind_protect) {
    TclSession *s = new_session();
    ck_assert(value_is(s, "(progn (defvar *cleanups* 0) (defvar *depth* :outside) 0)", "0"));
    for (int round = 1; round <= 2; round++) {
        ck_assert_int_eq(status_of(s, "(unwind-protect (let ((*depth* :inside)) (loop)) (incf *cleanups*))", 0.2), TCL_TIMEOUT);
        char want[8];
        snprintf(want, sizeof want, "%d", round);
        ck_assert(value_is(s, "*cleanups*", want));
        ck_assert(value_is(s, "*depth*", ":OUTSIDE"));
    }
    /* a limit inside a CATCH inside a handler-case: neither catches it */
    ck_assert_int_eq(status_of(s, "(handler-case (catch 'x (loop)) (error () :caught))", 0.2), TCL_TIMEOUT);
    ck_assert(value_is(s, "(catch 'x (throw 'x 42))", "42"));
    tcl_session_free(s);
}
END_TEST

typedef struct Interrupter {
    TclSession *s;
    int times;
    atomic_int done;
} Interrupter;

/* Interrupt the session again and again until the evaluation thread says it has seen enough. */
static void *interrupter(void *p) {
    Interrupter *it = (Interrupter *)p;
    struct timespec ts = {0, 50 * 1000 * 1000};
    while (!atomic_load(&it->done)) {
        nanosleep(&ts, NULL);
        if (it->times & 1) tcl_cancel(it->s); else tcl_interrupt(it->s);
    }
    return NULL;
}

/* An interrupt and then a cancellation each stop a loop that catches, throws and binds specials. */
START_TEST(test_interrupt_then_cancel_delivered) {
    TclSession *s = new_session();
    ck_assert(value_is(s, "(progn (defvar *n* 0) 0)", "0"));
    for (int round = 0; round < 2; round++) {
        Interrupter it = {s, round, 0};
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, interrupter, &it), 0);
        TclStatus st = status_of(s, "(loop (let ((*n* (1+ *n*))) (catch 'k (unwind-protect (throw 'k *n*) (setq *n* *n*)))))", 30);
        atomic_store(&it.done, 1);
        pthread_join(t, NULL);
        tcl_interrupt_clear(s);
        ck_assert_int_eq(st, TCL_INTERRUPTED);
        ck_assert(value_is(s, "*n*", "0"));
    }
    tcl_session_free(s);
}
END_TEST

/* The safe point is one compare; the ticker thread sends it down the slow path, where the clock
 * is read. A time limit stops code whose only safe points are calls (no backward GO), direct calls
 * and FUNCALLs alike, also after the session sat idle long enough for the ticks to slow down. */
START_TEST(test_time_limit_stops_calls_only) {
    TclSession *s = new_session();
    const char *forms[] = {
        "(labels ((burn (a b c d n) (when (> n 0) (burn b c d a (1- n)) (burn a b c d (1- n))))) (burn 1 2 3 4 200))",
        "(let ((f nil)) (setq f (lambda (n) (when (> n 0) (funcall f (1- n)) (funcall f (1- n))))) (funcall f 200))",
    };
    for (int i = 0; i < 2; i++) {
        struct timespec idle = {1, 0};
        nanosleep(&idle, NULL);
        TclResult *r = tcl_eval(s, forms[i], NULL, 0.2);
        ck_assert_int_eq(r->status, TCL_TIMEOUT);
        ck_assert_double_lt(r->elapsed_ms, 3000);
        tcl_result_free(r);
    }
    tcl_session_free(s);
}
END_TEST

/* Stack exhaustion caught by HANDLER-CASE, twice, then once uncaught, then normal work again. */
START_TEST(test_deep_recursion_twice) {
    TclSession *s = new_session();
    ck_assert(value_is(s, "(progn (defun deep (n) (1+ (deep (1+ n)))) 0)", "0"));
    for (int i = 0; i < 2; i++)
        ck_assert(value_is(s, "(handler-case (deep 0) (storage-condition () :overflow) (error () :error))", ":OVERFLOW"));
    ck_assert(value_is(s, "(let ((n 0)) (catch 'out (handler-bind ((storage-condition (lambda (c) (declare (ignore c)) (throw 'out (incf n))))) (deep 0))))",
                       "1"));
    ck_assert_int_ne(status_of(s, "(deep 0)", 20), TCL_OK);
    ck_assert(value_is(s, "(labels ((f (n) (if (= n 0) 0 (+ 1 (f (- n 1)))))) (f 10000))", "10000"));
    tcl_session_free(s);
}
END_TEST

/* Two sessions on two threads bind the same special variable, throw out of the bindings and check
 * that each sees only its own values, and its global value afterwards. */
static int binder(void *arg) {
    int me = (int)(long)arg;
    TclSession *s = tcl_session_new(&(TclOptions){.capture_output = true});
    if (!s) return 1;
    char code[600], want[40];
    snprintf(code, sizeof code, "(progn (defvar *who* %d) (defun check-who (k) (let ((*who* (+ (* %d 1000) k))) "
                                "(catch 'out (let ((*who* -1)) (throw 'out nil))) (unless (= *who* (+ (* %d 1000) k)) (error \"lost ~a\" *who*)) "
                                "(if (> k 0) (check-who (1- k)) *who*))) 0)", me, me, me);
    int bad = !value_is(s, code, "0");
    for (int i = 0; i < 200; i++) {
        snprintf(want, sizeof want, "%d", me * 1000);
        bad += !value_is(s, "(check-who 50)", want);
        snprintf(want, sizeof want, "%d", me);
        bad += !value_is(s, "*who*", want);
    }
    tcl_session_free(s);
    return bad;
}

typedef struct Worker { pthread_t t; int me; int result; } Worker;
static void *worker_outer(void *p) {
    Worker *w = (Worker *)p;
    w->result = tcl_run_with_big_stack(binder, (void *)(long)w->me);
    return NULL;
}

START_TEST(test_special_two_threads) {
    Worker w[2] = {{.me = 1}, {.me = 2}};
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&w[i].t, NULL, worker_outer, &w[i]), 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(w[i].t, NULL);
        ck_assert_int_eq(w[i].result, 0);
    }
}
END_TEST

static Suite *exits_suite(void) {
    Suite *su = suite_create("exits");
    TCase *tc = tcase_create("exits");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_timeout_twice_through_unwind_protect);
    tcase_add_test(tc, test_interrupt_then_cancel_delivered);
    tcase_add_test(tc, test_time_limit_stops_calls_only);
    tcase_add_test(tc, test_deep_recursion_twice);
    tcase_add_test(tc, test_special_two_threads);
    suite_add_tcase(su, tc);
    return su;
}

SESSION_UNIT_MAIN(exits_suite)
