/* test_finalizers.c: finalizers belong to the interpreter that asked for them (runtime/weak.c):
 * a collection another session causes queues them for their owner, which alone runs them, and a
 * session freed with finalizations pending leaves nothing behind for the others. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tinycl.h"
#define UNIT_VALUE_TIMEOUT 120
#include "session_unit.h"

static TclSession *new_session(void) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

static const char *setup =
    "(progn (defvar *n* 0)"
    "  (defun make-garbage (k) (dotimes (i k) (tinycl:finalize (make-string 5) (lambda () (incf *n*)))))"
    "  t)";

START_TEST(finalizers_run_in_their_own_session) {
    TclSession *a = new_session(), *b = new_session();
    ck_value(a, setup, "T");
    ck_value(b, setup, "T");
    ck_value(a, "(progn (make-garbage 50) t)", "T");
    /* B's collection finds A's objects dead, but only A runs A's finalizers */
    ck_value(b, "(progn (tinycl:gc :full t) *n*)", "0");
    ck_value(a, "(progn (tinycl:gc :full t) (>= *n* 45))", "T");
    ck_value(a, "(progn (tinycl:gc :full t) (<= *n* 50))", "T");
    ck_value(b, "*n*", "0");
    tcl_session_free(a);
    tcl_session_free(b);
}
END_TEST

START_TEST(freed_session_leaves_no_finalizations) {
    TclSession *a = new_session(), *b = new_session();
    ck_value(a, setup, "T");
    ck_value(b, setup, "T");
    ck_value(a, "(progn (make-garbage 100) t)", "T");
    tcl_session_free(a);
    /* A's objects die after A: their finalizations are dropped, not run in B */
    ck_value(b, "(progn (make-garbage 20) (tinycl:gc :full t) (tinycl:gc :full t) (<= 15 *n* 20))", "T");
    tcl_session_free(b);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("finalizers");
    TCase *t = tcase_create("finalizers");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, finalizers_run_in_their_own_session);
    tcase_add_test(t, freed_session_leaves_no_finalizations);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
