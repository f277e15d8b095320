/* test_image_session.c: sessions of the embedding API started from a boot image this program wrote
 * itself (tcl_write_boot_image), as build/tinycl starts from the one it carries: they evaluate,
 * print, dispatch generic functions, capture output and reset like sessions booted from source,
 * stay independent of each other, and a damaged image is refused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tinycl.h"
#include "session_unit.h"
#include "image_unit.h"

START_TEST(image_session_evaluates) {
    TclSession *s = unit_image_session();
    ck_value(s, "(+ 1 2)", "3");
    ck_value(s, "(loop for i below 5 collect (* i i))", "(0 1 4 9 16)");
    ck_value(s, "(format nil \"~{~a~^, ~}\" '(1 2 3))", "\"1, 2, 3\"");
    ck_value(s, "(handler-case (error \"boom\") (error (e) (princ-to-string e)))", "\"boom\"");
    ck_value(s, "(defclass shape () ()) (defclass circle (shape) ((r :initarg :r :reader r)))"
                "(defgeneric area (s)) (defmethod area ((c circle)) (* 3 (r c) (r c)))"
                "(area (make-instance 'circle :r 2))", "12");
    ck_value(s, "(defstruct pt x y) (pt-y (make-pt :x 1 :y 2))", "2");
    ck_value(s, "(gethash 'b (let ((h (make-hash-table))) (setf (gethash 'a h) 1 (gethash 'b h) 2) h))", "2");
    ck_value(s, "(typep (find-class 'standard-object) 'class)", "T");
    ck_value(s, "(subtypep 'fixnum 'integer)", "T");
    ck_value(s, "(string= (namestring *default-pathname-defaults*) (namestring (truename \".\")))", "T");
    TclResult *r = tcl_eval(s, "(progn (princ \"hi\") (terpri) 7)", NULL, -1);
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->out, "hi\n");
    tcl_result_free(r);
    ck_error(s, "(car 5)", "TYPE-ERROR");
    tcl_session_free(s);
}
END_TEST

START_TEST(image_session_resets) {
    TclSession *s = unit_image_session();
    ck_value(s, "(defun image-f () 42) (defvar *image-v* 1) (defpackage :image-p (:use :cl)) (image-f)", "42");
    tcl_reset(s, false);
    ck_value(s, "(fboundp 'image-f)", "NIL");
    ck_value(s, "(find-package :image-p)", "NIL");
    ck_value(s, "(+ 1 2)", "3");
    tcl_session_free(s);
}
END_TEST

/* A session's start-up snapshot shares the image's records of unchanged symbols (snapshot.c): a
 * reset still gives back the cells of a boot symbol the user changed, and of one changed again. */
START_TEST(image_session_resets_boot_symbols) {
    TclSession *s = unit_image_session();
    ck_value(s, "(setf (get 'list 'image-k) 1 (get 'car 'image-k) 2) (get 'list 'image-k)", "1");
    tcl_reset(s, false);
    ck_value(s, "(list (get 'list 'image-k) (get 'car 'image-k))", "(NIL NIL)");
    ck_value(s, "(setf (get 'list 'image-k) 3) (get 'list 'image-k)", "3");
    tcl_reset(s, false);
    ck_value(s, "(get 'list 'image-k)", "NIL");
    tcl_session_free(s);
}
END_TEST

/* A session from the image takes the registries' restorers made when the image was written: a
 * reset still takes away the classes, methods and structures the user defined, every time. */
START_TEST(image_session_resets_registries) {
    TclSession *s = unit_image_session();
    char *before = unit_value(s, "(length (sb-mop:generic-function-methods #'print-object))");
    for (int round = 0; round < 2; round++) {
        ck_value(s, "(defclass image-c () ()) (defstruct image-s a)"
                    " (defmethod print-object ((x image-c) st) (write-string \"IC\" st))"
                    " (list (prin1-to-string (make-instance 'image-c)) (image-s-a (make-image-s :a 1)))", "(\"IC\" 1)");
        tcl_reset(s, false);
        ck_value(s, "(list (find-class 'image-c nil) (fboundp 'make-image-s))", "(NIL NIL)");
        char *after = unit_value(s, "(length (sb-mop:generic-function-methods #'print-object))");
        ck_assert_str_eq(after, before);
        free(after);
    }
    free(before);
    tcl_session_free(s);
}
END_TEST

/* Two sessions from the same image share nothing. */
START_TEST(image_sessions_independent) {
    TclSession *a = unit_image_session(), *b = unit_image_session();
    ck_value(a, "(defun shared-p () :a) (shared-p)", ":A");
    ck_value(b, "(fboundp 'shared-p)", "NIL");
    ck_error(b, "(setf (symbol-function 'car) nil)", "PACKAGE-ERROR");
    ck_value(a, "(car '(1 2))", "1");
    tcl_session_free(a);
    ck_value(b, "(packagep (find-package :cl-user))", "T");
    tcl_session_free(b);
    for (int i = 0; i < 20; i++) {      /* sessions made and freed one after another */
        TclSession *s = unit_image_session();
        ck_value(s, "(* 6 7)", "42");
        tcl_session_free(s);
    }
}
END_TEST

/* Last: a refused image is sticky for the process. */
START_TEST(damaged_image_refused) {
    unit_use_boot_image();
    unsigned char *bad = malloc(unit_image_len);
    memcpy(bad, unit_image, unit_image_len);
    bad[unit_image_len / 2] ^= 0x10;
    bootimage_use(bad, unit_image_len);
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    ck_assert_ptr_null(tcl_session_new(&o));
    free(bad);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("image-session");
    TCase *t = tcase_create("image-session");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, image_session_evaluates);
    tcase_add_test(t, image_session_resets);
    tcase_add_test(t, image_session_resets_boot_symbols);
    tcase_add_test(t, image_session_resets_registries);
    tcase_add_test(t, image_sessions_independent);
    tcase_add_test(t, damaged_image_refused);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
