/* test_gc.c: the heap limit (runtime/gc.c) through the session API: freed memory counts as free
 * again, so an allocation that fits once fits every time, and the limit still stops what does not. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tinycl.h"
#define UNIT_VALUE_TIMEOUT 120
#include "session_unit.h"

static TclSession *new_session(size_t max_heap) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    o.max_heap = max_heap;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* 800 MB of a 1 GiB limit, five times over: each array is garbage once the call ends. */
START_TEST(freed_memory_counts_as_free) {
    TclSession *s = new_session(0);
    for (int i = 0; i < 5; i++) ck_value(s, "(length (make-array 100000000))", "100000000");
    ck_value(s, "(let ((n 0)) (dotimes (i 5 n) (incf n (length (make-array 100000000)))))", "500000000");
    ck_value(s, "(length (make-string 200000000))", "200000000");
    tcl_reset(s, true);
    for (int i = 0; i < 5; i++) ck_value(s, "(length (make-array 100000000))", "100000000");
    tcl_reset(s, false);
    ck_value(s, "(length (make-array 100000000))", "100000000");
    tcl_session_free(s);
}
END_TEST

/* What does not fit is still refused, and the session goes on. */
START_TEST(limit_still_holds) {
    TclSession *s = new_session((size_t)256 << 20);
    ck_error(s, "(length (make-array 40000000))", "STORAGE-CONDITION");
    ck_error(s, "(let ((l nil)) (loop (push (make-array 100000) l)))", "STORAGE-CONDITION");
    ck_error(s, "(let ((l nil)) (loop (push (list 1 2 3 4) l)))", "STORAGE-CONDITION");
    ck_value(s, "(+ 1 2)", "3");
    for (int i = 0; i < 5; i++) ck_value(s, "(length (make-array 25000000))", "25000000");
    tcl_session_free(s);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("gc");
    TCase *t = tcase_create("heap-limit");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, freed_memory_counts_as_free);
    tcase_add_test(t, limit_still_holds);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
