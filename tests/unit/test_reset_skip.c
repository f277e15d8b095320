/* test_reset_skip.c: a reset leaves alone what the session did not change, and still restores
 * exactly what it did. The boot packages whose tables did not change keep them (snapshot.c,
 * PKG_TABLES_CHANGED); the registries are put back from copies of their entries
 * (%REGISTRY-COPY, %REGISTRY-PUT-BACK: a comparison when unchanged); the CLOS restorer
 * touches only the classes and generic functions that changed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tinycl.h"
#include "session_unit.h"
#include "image_unit.h"

/* What a fresh session says of the packages and registries the resets below change. */
static const char *probe =
    "(list (find-symbol \"QUICKLOAD\" \"QL\") (nth-value 1 (find-symbol \"QUICKLOAD\" \"QL\")) "
    "(find-symbol \"RESET-SKIP-X\" \"QL\") (find-symbol \"RESET-SKIP-Y\" \"CL-USER\") "
    "(and (find-package \"ASDF-USER\") (package-name (symbol-package (find-symbol \"LOAD-SYSTEM\" \"ASDF-USER\")))) "
    "(find-class 'reset-skip-c nil) (length (tinycl-mop:generic-function-methods #'print-object)) "
    "(gethash 'reset-skip-s sys::*structure-descriptions*) (length (list-all-packages)))";

START_TEST(resets_restore_what_changed_and_only_that) {
    TclSession *s = unit_image_session();
    char *fresh = unit_value(s, probe);
    for (int i = 0; i < 6; i++) {
        /* nothing changed: the reset leaves everything, and the state is still the fresh one */
        tcl_reset(s, false);
        char *now = unit_value(s, probe);
        ck_assert_str_eq(now, fresh);
        free(now);
        /* a boot package's tables, another boot package deleted, registries and generic functions */
        ck_value(s, "(progn (export (intern \"RESET-SKIP-X\" \"QL\") \"QL\") (unintern 'ql:quickload \"QL\") "
                    "(intern \"RESET-SKIP-Y\" \"CL-USER\") (delete-package \"ASDF-USER\") "
                    "(defclass reset-skip-c () ()) (defmethod print-object ((o reset-skip-c) s) (princ 1 s)) "
                    "(defstruct reset-skip-s a) (defpackage :reset-skip-p) t)", "T");
        if (i % 2) {
            /* a change that is undone before the reset still counts as a change */
            ck_value(s, "(progn (intern \"RESET-SKIP-Z\" \"TINYCL\") (unintern (find-symbol \"RESET-SKIP-Z\" \"TINYCL\") \"TINYCL\"))", "T");
        }
        tcl_reset(s, false);
        now = unit_value(s, probe);
        ck_assert_str_eq(now, fresh);
        free(now);
        ck_value(s, "(list (find-symbol \"RESET-SKIP-Z\" \"TINYCL\") (find-package :reset-skip-p) (ql:quickload \"nonexistent-reset-skip\" :silent t))",
                 "ERROR: QUICKLISP-CLIENT:SYSTEM-NOT-FOUND System \"nonexistent-reset-skip\" not found in any known distribution.");
    }
    free(fresh);
    tcl_session_free(s);
}
END_TEST

START_TEST(hash_table_snapshot_and_restore) {
    TclSession *s = unit_image_session();
    ck_value(s, "(defvar *h* (make-hash-table :test 'equal)) (setf (gethash '(a) *h*) 1) "
                "(defvar *c* (sys::%registry-copy *h*)) "
                "(list (sys::%registry-put-back *h* *c*) "
                "      (progn (setf (gethash '(b) *h*) 2) (remhash '(a) *h*) (sys::%registry-put-back *h* *c*)) "
                "      (gethash '(a) *h*) (gethash '(b) *h*) (hash-table-count *h*) (sys::%registry-put-back *h* *c*))",
             "(NIL T 1 NIL 1 NIL)");
    /* grown far past the copy, then put back; the copy itself never changes */
    ck_value(s, "(progn (dotimes (i 5000) (setf (gethash (list i) *h*) i)) "
                "(list (sys::%registry-put-back *h* *c*) (hash-table-count *h*) (gethash '(a) *h*) (gethash '(7) *h*) "
                "      (hash-table-count *c*) (progn (setf (gethash '(z) *h*) 0) (gethash '(z) *c*))))",
             "(T 1 1 NIL 1 NIL)");
    /* a weak table has no copy (its restorer keeps the entries as a list) */
    ck_value(s, "(sys::%registry-copy (make-hash-table :weakness :key))", "NIL");
    ck_value(s, "(sys::%registry-put-back 1 *c*)", "ERROR: TYPE-ERROR The value 1 is not of type HASH-TABLE");
    tcl_session_free(s);
}
END_TEST

static Suite *reset_skip_suite(void) {
    Suite *su = suite_create("reset-skip");
    TCase *tc = tcase_create("reset-skip");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, resets_restore_what_changed_and_only_that);
    tcase_add_test(tc, hash_table_snapshot_and_restore);
    suite_add_tcase(su, tc);
    return su;
}

SESSION_UNIT_MAIN(reset_skip_suite)
