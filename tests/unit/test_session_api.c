/* test_session_api.c: tcl_set_package and tcl_cancel, the public calls the front ends use instead
 * of the session's private header or Lisp source text of their own. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
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

/* The printed primary value of CODE, into BUF. */
static const char *value(TclSession *s, const char *code, char *buf, size_t n) {
    TclResult *r = tcl_eval(s, code, NULL, -1);
    if (r->status == TCL_OK) snprintf(buf, n, "%s", r->nvalues ? r->values[0] : "");
    else snprintf(buf, n, "ERROR: %s", r->error_type ? r->error_type : "?");
    tcl_result_free(r);
    return buf;
}

START_TEST(set_package_by_name_or_nickname) {
    TclSession *s = new_session();
    char buf[256];
    value(s, "(defpackage :api-pkg (:use :cl) (:nicknames :ap))", buf, sizeof buf);
    TclResult *r = tcl_set_package(s, "api-pkg");          /* as typed: read in upper case */
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->package, "API-PKG");
    tcl_result_free(r);
    ck_assert_str_eq(tcl_current_package(s), "API-PKG");
    ck_assert_str_eq(value(s, "(package-name *package*)", buf, sizeof buf), "\"API-PKG\"");
    r = tcl_set_package(s, "CL-USER");                      /* a nickname, exactly */
    ck_assert_int_eq(r->status, TCL_OK);
    tcl_result_free(r);
    ck_assert_str_eq(tcl_current_package(s), "COMMON-LISP-USER");
    /* a package whose name has lower case letters is found by its exact name */
    value(s, "(defpackage \"lower-pkg\" (:use :cl))", buf, sizeof buf);
    r = tcl_set_package(s, "lower-pkg");
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->package, "lower-pkg");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(set_package_unknown_is_an_error_that_changes_nothing) {
    TclSession *s = new_session();
    TclResult *r = tcl_set_package(s, "no-such-package");
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_msg(r->error_type && strstr(r->error_type, "PACKAGE"), "%s", r->error_type ? r->error_type : "(null)");
    ck_assert_msg(r->error_message && strstr(r->error_message, "NO-SUCH-PACKAGE"), "%s",
                  r->error_message ? r->error_message : "(null)");
    ck_assert_str_eq(r->package, "COMMON-LISP-USER");
    tcl_result_free(r);
    ck_assert_str_eq(tcl_current_package(s), "COMMON-LISP-USER");
    tcl_session_free(s);
}
END_TEST

START_TEST(set_package_keeps_the_history) {
    TclSession *s = new_session();
    char buf[256];
    value(s, "(defpackage :hist-pkg (:use :cl))", buf, sizeof buf);
    value(s, "(values 42 43)", buf, sizeof buf);
    TclResult *r = tcl_set_package(s, "hist-pkg");
    ck_assert_int_eq(r->status, TCL_OK);
    tcl_result_free(r);
    ck_assert_str_eq(value(s, "(list * /)", buf, sizeof buf), "(42 (42 43))");
    tcl_session_free(s);
}
END_TEST

START_TEST(cancel_before_the_call_stops_it) {
    TclSession *s = new_session();
    tcl_cancel(s);   /* asked for while no call runs: for the next one */
    TclResult *r = tcl_eval(s, "(loop)", NULL, 10);
    ck_assert_int_eq(r->status, TCL_INTERRUPTED);
    tcl_result_free(r);
    char buf[64];
    ck_assert_str_eq(value(s, "(+ 1 2)", buf, sizeof buf), "3");   /* the session is intact */
    tcl_session_free(s);
}
END_TEST

static void *cancel_later(void *arg) {
    usleep(200000);
    tcl_cancel((TclSession *)arg);
    return NULL;
}

START_TEST(cancel_from_another_thread) {
    TclSession *s = new_session();
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, s);
    TclResult *r = tcl_eval(s, "(defvar *n* 0) (loop (incf *n*))", NULL, 20);
    pthread_join(t, NULL);
    ck_assert_int_eq(r->status, TCL_INTERRUPTED);
    ck_assert_str_eq(r->error_type, "INTERRUPTED");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("session-api");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, set_package_by_name_or_nickname);
    tcase_add_test(t, set_package_unknown_is_an_error_that_changes_nothing);
    tcase_add_test(t, set_package_keeps_the_history);
    tcase_add_test(t, cancel_before_the_call_stops_it);
    tcase_add_test(t, cancel_from_another_thread);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
