/* test_snapshot.c: the exact reset (runtime/snapshot.c) and the systems API of the session
 * (tcl_load_system & co.): what a system load makes is kept by a plain reset, what the user makes
 * is not, and reset {systems} is a new interpreter. Uses the fixture systems of tests/systems/. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tinycl.h"
#include "session_unit.h"

static TclSession *new_session(void) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    TclResult *r = tcl_eval(s, "(asdf:initialize-source-registry '(:source-registry (:tree \"tests/systems/\")))", NULL, -1);
    ck_assert_int_eq(r->status, TCL_OK);
    tcl_result_free(r);
    return s;
}

/* What the session made before a system load stays the session's: listed by list-definitions after
 * the load, and gone after a plain reset (the load's commit once took every symbol of CL-USER). */
START_TEST(definitions_before_a_load_stay_the_sessions) {
    TclSession *s = new_session();
    ck_value(s, "(defclass before-load () ()) (defun before-load-fn () 1) t", "T");
    TclReport *r = tcl_load_system(s, "fix-util", false, false, -1);
    ck_assert_int_eq(r->result->status, TCL_OK);
    tcl_report_free(r);
    TclDefinitions *d = tcl_list_definitions(s, NULL, NULL);
    ck_assert_msg(strstr(d->text, "- BEFORE-LOAD\n") && strstr(d->text, "- BEFORE-LOAD-FN ()"), "%s", d->text);
    tcl_definitions_free(d);
    tcl_reset(s, false);
    ck_value(s, "(list (find-class 'before-load nil) (fboundp 'before-load-fn) (funcall (find-symbol \"DOUBLE\" :fix-util) 2))",
             "(NIL NIL 4)");
    tcl_session_free(s);
}
END_TEST

START_TEST(reset_restores_deleted_boot_package) {
    TclSession *s = new_session();
    ck_value(s, "(delete-package \"ASDF-USER\")", "T");
    ck_value(s, "(find-package \"ASDF-USER\")", "NIL");
    tcl_reset(s, false);
    ck_value(s, "(package-name (find-package \"ASDF-USER\"))", "\"ASDF-USER\"");
    ck_value(s, "(eq (find-symbol \"DEFSYSTEM\" \"ASDF-USER\") 'asdf:defsystem)", "T");
    tcl_session_free(s);
}
END_TEST

START_TEST(commit_extends_the_reset_state) {
    TclSession *s = new_session();
    ck_value(s, "(defvar *cap* (sys::%snapshot-capture)) (defpackage :snap-p (:use :cl)) "
                "(defparameter snap-p::*kw* (intern \"SNAP-PRIVATE-KEYWORD\" :keyword)) "
                "(defun cl-user::snap-fn () :kept) (push :snap-feature *features*) "
                "(mapcar #'package-name (sys::%snapshot-commit *cap*))", "(\"SNAP-P\")");
    ck_value(s, "(defun cl-user::user-fn () 1) (defun snap-p::user-in-system () 2) (intern \"USER-KEYWORD\" :keyword) t", "T");
    tcl_reset(s, false);
    ck_value(s, "(list (snap-fn) (eq snap-p::*kw* :snap-private-keyword) (and (member :snap-feature *features*) t))",
             "(:KEPT T T)");
    ck_value(s, "(list (fboundp 'cl-user::user-fn) (find-symbol \"USER-IN-SYSTEM\" :snap-p) "
                "(find-symbol \"USER-KEYWORD\" :keyword) (boundp '*cap*))", "(NIL NIL NIL NIL)");
    ck_value(s, "(sys::%system-package-p (find-package :snap-p))", "T");
    /* a later reset {systems} is a new interpreter */
    tcl_reset(s, true);
    ck_value(s, "(list (find-package :snap-p) (fboundp 'cl-user::snap-fn))", "(NIL NIL)");
    tcl_session_free(s);
}
END_TEST

START_TEST(commit_keeps_local_nicknames_and_uses) {
    TclSession *s = new_session();
    ck_value(s, "(defvar *cap* (sys::%snapshot-capture)) (defpackage :snap-q (:use :cl) (:local-nicknames (:u :cl-user))) "
                "(length (sys::%snapshot-commit *cap*))", "1");
    ck_value(s, "(tinycl:remove-package-local-nickname \"U\" :snap-q)", "T");
    tcl_reset(s, false);
    ck_value(s, "(mapcar #'car (tinycl:package-local-nicknames :snap-q))", "(\"U\")");
    tcl_session_free(s);
}
END_TEST

/* A commit takes only what happened between the capture and itself: symbols the user interned or
 * set before the capture stay the user's (a reset removes them), those of the load are kept; so are
 * those of a capture nested in it. */
START_TEST(commit_takes_only_the_load) {
    TclSession *s = new_session();
    ck_value(s, "(intern \"SNAP-USER-BEFORE\" :cl-user) (defvar cl-user::*snap-user-var* 1) (intern \"SNAP-USER-KW\" :keyword) t", "T");
    ck_value(s, "(defvar *outer* (sys::%snapshot-capture)) (defun cl-user::snap-outer-1 () 1) "
                "(defvar *inner* (sys::%snapshot-capture)) (defun cl-user::snap-inner () 2) (intern \"SNAP-LOAD-KW\" :keyword) "
                "(sys::%snapshot-commit *inner*) (defun cl-user::snap-outer-2 () 3) "
                "(export (intern \"SNAP-EXPORTED\" :cl-user) :cl-user) "
                "(sys::%snapshot-commit *outer*) t", "T");
    ck_value(s, "(intern \"SNAP-USER-AFTER\" :cl-user) t", "T");
    tcl_reset(s, false);
    ck_value(s, "(list (snap-outer-1) (snap-inner) (snap-outer-2) (nth-value 1 (find-symbol \"SNAP-EXPORTED\" :cl-user)) "
                "(and (find-symbol \"SNAP-LOAD-KW\" :keyword) t))", "(1 2 3 :EXTERNAL T)");
    ck_value(s, "(list (find-symbol \"SNAP-USER-BEFORE\" :cl-user) (find-symbol \"SNAP-USER-AFTER\" :cl-user) "
                "(find-symbol \"*SNAP-USER-VAR*\" :cl-user) (find-symbol \"SNAP-USER-KW\" :keyword))", "(NIL NIL NIL NIL)");
    tcl_session_free(s);
}
END_TEST

/* A capture is committed or released once; a released one commits nothing. */
START_TEST(capture_released_or_committed_once) {
    TclSession *s = new_session();
    ck_value(s, "(defvar *c1* (sys::%snapshot-capture)) (defun cl-user::snap-released () 1) "
                "(sys::%snapshot-release *c1*) (sys::%snapshot-release *c1*)", "NIL");
    ck_value(s, "(handler-case (sys::%snapshot-commit *c1*) (error () :refused))", ":REFUSED");
    ck_value(s, "(defvar *c2* (sys::%snapshot-capture)) (defun cl-user::snap-committed () 2) (sys::%snapshot-commit *c2*) "
                "(handler-case (sys::%snapshot-commit *c2*) (error () :refused))", ":REFUSED");
    tcl_reset(s, false);
    ck_value(s, "(list (fboundp 'cl-user::snap-released) (fboundp 'cl-user::snap-committed))", "(NIL T)");
    tcl_session_free(s);
}
END_TEST

/* A load that fails records nothing and leaves no capture open: a later load is recorded exactly. */
START_TEST(failed_load_then_load) {
    TclSession *s = new_session();
    TclReport *r = tcl_load_system(s, "fix-broken", false, false, -1);
    ck_assert_int_eq(r->result->status, TCL_ERROR);
    tcl_report_free(r);
    ck_value(s, "(defun cl-user::snap-between () 1) t", "T");
    r = tcl_load_system(s, "fix-app", false, false, -1);
    ck_assert_int_eq(r->result->status, TCL_OK);
    tcl_report_free(r);
    tcl_reset(s, false);
    ck_value(s, "(list (fboundp 'cl-user::snap-between) (fix-app:app-value) (tinycl:list-loaded-systems))", "(NIL 21 NIL)");
    tcl_session_free(s);
}
END_TEST

static int progress_calls;
static char progress_last[256];
static void on_progress(void *ctx, const char *message) {
    (void)ctx;
    progress_calls++;
    snprintf(progress_last, sizeof progress_last, "%s", message);
}

START_TEST(load_system_report) {
    TclSession *s = new_session();
    progress_calls = 0;
    tcl_set_progress_handler(s, on_progress, NULL);
    TclReport *r = tcl_load_system(s, "fix-app", false, false, -1);
    tcl_set_progress_handler(s, NULL, NULL);
    ck_assert_int_eq(r->result->status, TCL_OK);
    ck_assert_ptr_nonnull(r->text);
    ck_assert_msg(strstr(r->text, "Loading system: fix-app\n") == r->text, "%s", r->text);
    ck_assert_msg(strstr(r->text, "Loaded: fix-app (version 0.3.0)"), "%s", r->text);
    ck_assert_msg(strstr(r->text, "Dependencies loaded: fix-util (version 1.2.0)"), "%s", r->text);
    ck_assert(r->has_details);
    ck_assert_str_eq(r->system, "fix-app");
    ck_assert_str_eq(r->version, "0.3.0");
    ck_assert_str_eq(r->status, "loaded");
    ck_assert_ptr_nonnull(r->record);
    ck_assert_str_eq(r->record->name, "fix-app");
    ck_assert_int_ge(r->record->elapsed_ms, 0);
    ck_assert_int_gt(r->record->load_time_universal, 3900000000LL);
    ck_assert_int_eq(r->nsystems, 2);   /* the plan: fix-util, then fix-app */
    ck_assert_str_eq(r->systems[0].name, "fix-util");
    ck_assert_str_eq(r->systems[0].status, "loaded");
    ck_assert_str_eq(r->systems[1].name, "fix-app");
    ck_assert_int_ge(progress_calls, 2);
    ck_assert_msg(strstr(progress_last, "fix-app"), "%s", progress_last);
    tcl_report_free(r);
    ck_value(s, "(fix-app:app-value)", "21");
    r = tcl_list_loaded_systems(s);
    ck_assert_msg(r->text && strstr(r->text, "- fix-util 1.2.0") && strstr(r->text, "- fix-app 0.3.0"), "%s", r->text);
    ck_assert_int_eq(r->nrecords, 2);
    ck_assert_str_eq(r->records[0].name, "fix-util");
    ck_assert_str_eq(r->records[1].name, "fix-app");
    ck_assert_int_eq(r->records[1].ndependencies, 1);
    ck_assert_str_eq(r->records[1].dependencies[0], "fix-util");
    ck_assert_msg(r->records[1].source_file && strstr(r->records[1].source_file, "fix-app.asd"), "%s",
                  r->records[1].source_file ? r->records[1].source_file : "(null)");
    tcl_report_free(r);
    r = tcl_system_dependencies(s, "fix-app/test", true);
    ck_assert_msg(r->text && strstr(r->text, "- fix-util 1.2.0 [loaded]\n- fix-app 0.3.0 [loaded]"), "%s", r->text);
    ck_assert(r->has_details && r->transitive);
    ck_assert_str_eq(r->system, "fix-app/test");
    ck_assert_int_eq(r->nsystems, 2);
    ck_assert_str_eq(r->systems[0].name, "fix-util");
    ck_assert_str_eq(r->systems[0].version, "1.2.0");
    ck_assert_str_eq(r->systems[0].status, "loaded");
    tcl_report_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(load_system_failures) {
    TclSession *s = new_session();
    TclReport *r = tcl_load_system(s, "nonexistent", false, true, -1);
    ck_assert_int_eq(r->result->status, TCL_ERROR);
    ck_assert_str_eq(r->result->error_type, "QUICKLISP-CLIENT:SYSTEM-NOT-FOUND");
    ck_assert_str_eq(r->result->error_message, "System \"nonexistent\" not found in any known distribution.");
    ck_assert_ptr_null(r->text);
    ck_assert(!r->has_details);
    ck_assert_int_eq(r->nrecords, 0);
    tcl_report_free(r);
    r = tcl_load_system(s, "fix-broken", false, false, -1);
    ck_assert_int_eq(r->result->status, TCL_ERROR);
    ck_assert_str_eq(r->result->error_type, "ASDF:COMPONENT-LOAD-ERROR");
    ck_assert_msg(strstr(r->result->error_message, "second.lisp"), "%s", r->result->error_message);
    ck_assert_msg(r->text && strstr(r->text, "Loaded before the error (recorded): fix-util (version 1.2.0)"), "%s",
                  r->text ? r->text : "(null)");
    ck_assert(!r->has_details);   /* only what loaded before the error */
    ck_assert_int_eq(r->nrecords, 1);
    ck_assert_str_eq(r->records[0].name, "fix-util");
    ck_assert_str_eq(r->records[0].version, "1.2.0");
    tcl_report_free(r);
    ck_value(s, "(tinycl:list-loaded-systems)", "(\"fix-util\")");
    /* the failed system's package is the session's: a reset removes it, not fix-util's */
    tcl_reset(s, false);
    ck_value(s, "(list (find-package :fix-broken) (fix-util:double 2) (tinycl:list-loaded-systems))", "(NIL 4 NIL)");
    tcl_session_free(s);
}
END_TEST

START_TEST(describe_and_local_systems) {
    TclSession *s = new_session();
    TclReport *r = tcl_describe_system(s, "fix-util");
    ck_assert_int_eq(r->result->status, TCL_OK);
    ck_assert_msg(strstr(r->text, "Status: not loaded"), "%s", r->text);
    ck_assert(r->has_details);
    ck_assert_str_eq(r->system, "fix-util");
    ck_assert_str_eq(r->version, "1.2.0");
    ck_assert_str_eq(r->status, "not-loaded");
    ck_assert_ptr_null(r->record);
    ck_assert_msg(r->source_file && strstr(r->source_file, "fix-util.asd"), "%s", r->source_file ? r->source_file : "(null)");
    ck_assert_int_ge(r->ncomponents, 1);
    tcl_report_free(r);
    r = tcl_load_system(s, "fix-util", false, false, -1);
    tcl_report_free(r);
    tcl_reset(s, false);
    r = tcl_describe_system(s, "fix-util");
    ck_assert_msg(strstr(r->text, "Status: loaded in the image before the last reset"), "%s", r->text);
    ck_assert_str_eq(r->status, "loaded-before-reset");
    ck_assert_ptr_nonnull(r->record);
    ck_assert_str_eq(r->record->name, "fix-util");
    tcl_report_free(r);
    /* the source registry configuration is the session's: a reset forgets it */
    r = tcl_list_local_systems(s, "fix-c", 0, 10);
    ck_assert_msg(r->text && strstr(r->text, "No local systems matching \"fix-c\"."), "%s", r->text ? r->text : "(null)");
    tcl_report_free(r);
    ck_value(s, "(asdf:initialize-source-registry '(:source-registry (:tree \"tests/systems/\")))", "");
    r = tcl_list_local_systems(s, "fix-c", 1, 1);
    ck_assert_msg(r->text && strstr(r->text, "[Local Systems]\n- fix-cycle-a 0.1.0\n1 of 3 systems (next page: offset 2)"),
                  "%s", r->text ? r->text : "(null)");
    ck_assert_int_eq(r->nsystems, 1);
    ck_assert_str_eq(r->systems[0].name, "fix-cycle-a");
    ck_assert_str_eq(r->systems[0].status, "not-loaded");
    ck_assert_int_eq(r->systems[0].elapsed_ms, -1);
    ck_assert_int_eq(r->total, 3);
    ck_assert_int_eq(r->offset, 1);
    ck_assert_int_eq(r->next_offset, 2);
    ck_assert(!r->truncated_scan);
    tcl_report_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(sessions_are_isolated) {
    TclSession *a = new_session(), *b = new_session();
    TclReport *r = tcl_load_system(a, "fix-util", false, false, -1);
    ck_assert_int_eq(r->result->status, TCL_OK);
    tcl_report_free(r);
    ck_value(a, "(tinycl:list-loaded-systems)", "(\"fix-util\")");
    ck_value(b, "(list (tinycl:list-loaded-systems) (find-package :fix-util))", "(NIL NIL)");
    tcl_session_free(a);
    tcl_session_free(b);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("snapshot");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, reset_restores_deleted_boot_package);
    tcase_add_test(t, commit_extends_the_reset_state);
    tcase_add_test(t, commit_keeps_local_nicknames_and_uses);
    tcase_add_test(t, commit_takes_only_the_load);
    tcase_add_test(t, capture_released_or_committed_once);
    tcase_add_test(t, failed_load_then_load);
    tcase_add_test(t, load_system_report);
    tcase_add_test(t, load_system_failures);
    tcase_add_test(t, describe_and_local_systems);
    tcase_add_test(t, sessions_are_isolated);
    tcase_add_test(t, definitions_before_a_load_stay_the_sessions);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
