/* test_session_threads.c: many sessions on many threads in one process (the HTTP server's shape):
 * no session sees another's definitions, a runaway loop in one does not hold up the others, and
 * one session's heap exhaustion leaves the others' data and limits alone (the cap is per interpreter). */
#include "session_unit.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A plain thread that runs FN on a big-stack thread registered with the collector. */
typedef struct Worker {
    pthread_t t;
    int (*fn)(void *);
    void *arg;
    int result;
} Worker;

static void *worker_outer(void *p) {
    Worker *w = (Worker *)p;
    w->result = tcl_run_with_big_stack(w->fn, w->arg);
    return NULL;
}

static void start(Worker *w, int (*fn)(void *), void *arg) {
    w->fn = fn;
    w->arg = arg;
    ck_assert_int_eq(pthread_create(&w->t, NULL, worker_outer, w), 0);
}

static int finish(Worker *w) {
    pthread_join(w->t, NULL);
    return w->result;
}

static bool value_is(TclSession *s, const char *code, const char *want) {
    TclResult *r = tcl_eval(s, code, NULL, 10);
    bool ok = r->status == TCL_OK && r->nvalues == 1 && strcmp(r->values[0], want) == 0;
    if (!ok) fprintf(stderr, "%s => status %d %s\n", code, r->status, r->nvalues ? r->values[0] : r->error_message ? r->error_message : "");
    tcl_result_free(r);
    return ok;
}

/* ---- isolation: each thread defines its own function and variable and checks them ---- */

#define THREADS 8
#define ROUNDS 60

static int isolated_main(void *arg) {
    int me = (int)(long)arg;
    TclOptions o = {0};
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    if (!s) return 1;
    char code[300], want[40];
    int bad = 0;
    snprintf(code, sizeof code, "(defun whoami () %d) (defvar *mine* (list %d)) (defpackage :p%d (:use :cl))", me, me, me);
    TclResult *r = tcl_eval(s, code, NULL, 10);
    bad += r->status != TCL_OK;
    tcl_result_free(r);
    for (int i = 0; i < ROUNDS; i++) {
        snprintf(want, sizeof want, "%d", me * 1000 + i);
        snprintf(code, sizeof code, "(+ (* (whoami) 1000) %d)", i);
        bad += !value_is(s, code, want);
        snprintf(code, sizeof code, "(list (first *mine*) (length (remove-if-not (lambda (p) (and (char= (char (package-name p) 0) #\\P) "
                                    "(digit-char-p (char (package-name p) 1)))) (list-all-packages))))");
        snprintf(want, sizeof want, "(%d 1)", me);
        bad += !value_is(s, code, want);
    }
    tcl_session_free(s);
    return bad;
}

START_TEST(test_many_sessions_many_threads) {
    Worker w[THREADS];
    for (int i = 0; i < THREADS; i++) start(&w[i], isolated_main, (void *)(long)(i + 1));
    int bad = 0;
    for (int i = 0; i < THREADS; i++) bad += finish(&w[i]);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ---- a runaway loop holds up only its own session ---- */

static int loop_main(void *arg) {
    (void)arg;
    TclOptions o = {0};
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    TclResult *r = tcl_eval(s, "(loop)", NULL, 3);
    int bad = r->status != TCL_TIMEOUT;
    tcl_result_free(r);
    bad += !value_is(s, "(+ 1 2)", "3");
    tcl_session_free(s);
    return bad;
}

static double worst_ms;

static int quick_main(void *arg) {
    (void)arg;
    TclOptions o = {0};
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    int bad = 0;
    double until = now_ms() + 2000;
    worst_ms = 0;
    while (now_ms() < until) {
        double t0 = now_ms();
        bad += !value_is(s, "(+ 1 2)", "3");
        double dt = now_ms() - t0;
        if (dt > worst_ms) worst_ms = dt;
    }
    tcl_session_free(s);
    return bad;
}

START_TEST(test_runaway_loop_isolated) {
    Worker loop, quick;
    start(&loop, loop_main, NULL);
    start(&quick, quick_main, NULL);
    ck_assert_int_eq(finish(&quick), 0);
    /* two cores shared with other work: generous, but far below the loop's 3 s */
    ck_assert_msg(worst_ms < 1000, "slowest (+ 1 2) beside a runaway loop: %.1f ms", worst_ms);
    ck_assert_int_eq(finish(&loop), 0);
}
END_TEST

/* ---- heap exhaustion in one session: the cap is its own ---- */

static _Atomic int holder_ready, hog_done;

static int hog_main(void *arg) {
    (void)arg;
    TclOptions o = {0};
    o.capture_output = true;
    o.max_heap = (size_t)48 << 20;
    while (!holder_ready) { struct timespec ts = {0, 10000000}; nanosleep(&ts, NULL); }
    /* made after the holder: a process-wide cap would now be 48 MB for both */
    TclSession *s = tcl_session_new(&o);
    TclResult *r = tcl_eval(s, "(let ((l nil)) (loop (push (make-array 100000) l)))", NULL, 60);
    int bad = !(r->status == TCL_ERROR && r->error_type && strstr(r->error_type, "STORAGE-CONDITION"));
    if (bad) fprintf(stderr, "hog: status %d %s\n", r->status, r->error_type ? r->error_type : "");
    tcl_result_free(r);
    bad += !value_is(s, "(+ 1 2)", "3");
    hog_done = 1;
    tcl_session_free(s);
    return bad;
}

static int holder_main(void *arg) {
    (void)arg;
    TclOptions o = {0};
    o.capture_output = true;
    o.max_heap = (size_t)512 << 20;
    TclSession *s = tcl_session_new(&o);
    /* 80 MB of its own live data: under its own cap, over the other one's, and kept while the other
     * one exhausts its heap */
    int bad = !value_is(s, "(progn (defvar *keep* (make-array 10000000 :initial-element 7)) (length *keep*))", "10000000");
    holder_ready = 1;
    while (!hog_done) {
        bad += !value_is(s, "(aref *keep* 9999999)", "7");
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    bad += !value_is(s, "(length (make-array 1000000))", "1000000");
    tcl_session_free(s);
    return bad;
}

START_TEST(test_heap_cap_per_session) {
    holder_ready = hog_done = 0;
    Worker hog, holder;
    start(&holder, holder_main, NULL);
    start(&hog, hog_main, NULL);
    ck_assert_int_eq(finish(&hog), 0);
    ck_assert_int_eq(finish(&holder), 0);
}
END_TEST

static Suite *threads_suite(void) {
    Suite *s = suite_create("session-threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_many_sessions_many_threads);
    tcase_add_test(tc, test_runaway_loop_isolated);
    suite_add_tcase(s, tc);
    /* its own case: `make tsan` runs with the collector off (below) and leaves it out */
    TCase *heap = tcase_create("heap");
    tcase_set_timeout(heap, 120);
    tcase_add_test(heap, test_heap_cap_per_session);
    suite_add_tcase(s, heap);
    return s;
}

SESSION_UNIT_MAIN(threads_suite)
