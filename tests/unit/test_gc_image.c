/* test_gc_image.c: objects of the boot image made to point to fresh objects keep them through many
 * collections, in one session, after a reset and a checkpoint restore, and in two sessions on two
 * threads at once (the second session's image is a copy, not the mapping of the executable). A
 * collection scans only the image pages written since start-up (runtime/gcdirty.c): were the
 * written pages not scanned, the fresh objects would be freed and their memory reused by the
 * garbage the churn makes, and the checks would read other contents (or crash). */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tinycl.h"
#include "session_unit.h"
#include "image_unit.h"

/* Helpers, and the image's objects pointed at fresh ones: a symbol's property list and a special
 * variable's value, a package table, a class's slots (subclasses, documentation), methods pushed
 * onto print-object and a condition class. %s is a tag, so that two sessions' values differ. */
static const char *setup_fmt =
    "(progn"
    " (defun gci-string (tag) (let ((s (make-string 150))) (dotimes (i 150 s) (setf (char s i) (char tag (mod i (length tag)))))))"
    " (defun gci-churn (rounds)"
    "   (dotimes (r rounds)"
    "     (let ((junk nil))"
    "       (dotimes (i 3000) (push (list (make-string 150 :initial-element #\\z) (vector i i i) (+ (expt 2 70) i)) junk))"
    "       (setq junk (length junk)))"
    "     (tinycl:gc :full t)))"
    " (setf (get 'car 'gci) (list (gci-string \"plist-%s\") (vector 1 2 3)))"
    " (setf *print-right-margin* (+ (expt 2 75) 17))"
    " (intern (gci-string \"keyword-%s\") :keyword)"
    " (defclass gci-thing () ((label :initarg :label :reader gci-label)))"
    " (define-condition gci-condition (simple-error) ())"
    " (setf (documentation (find-class 'simple-error) t) (gci-string \"doc-%s\"))"
    " (defmethod print-object ((x gci-thing) stream) (write-string (gci-string \"method-%s\") stream) (write-string (gci-label x) stream))"
    " (gci-churn 10)"
    " t)";

/* Every check as one list of booleans. */
static const char *check_fmt =
    "(progn (gci-churn 4)"
    " (list (let ((v (get 'car 'gci))) (and (string= (first v) (gci-string \"plist-%s\")) (equalp (second v) #(1 2 3))))"
    "       (eql *print-right-margin* (+ (expt 2 75) 17))"
    "       (let ((s (find-symbol (gci-string \"keyword-%s\") :keyword))) (and s (string= (symbol-name s) (gci-string \"keyword-%s\"))))"
    "       (not (null (member (find-class 'gci-condition) (sys::class-direct-subclasses (find-class 'simple-error)))))"
    "       (equal (documentation (find-class 'simple-error) t) (gci-string \"doc-%s\"))"
    "       (typep (make-condition 'gci-condition :format-control \"x\") 'simple-error)"
    "       (string= (princ-to-string (make-instance 'gci-thing :label \"!\")) (concatenate 'string (gci-string \"method-%s\") \"!\"))))";

#define ALL_GOOD "(T T T T T T T)"

static char *eval_value(TclSession *s, const char *code) {
    TclResult *r = tcl_eval(s, code, NULL, 120);
    char buf[4096];
    if (r->status == TCL_OK) snprintf(buf, sizeof buf, "%s", r->nvalues ? r->values[0] : "");
    else snprintf(buf, sizeof buf, "ERROR: %s %s", r->error_type ? r->error_type : "?", r->error_message ? r->error_message : "");
    tcl_result_free(r);
    return strdup(buf);
}

static char *setup(TclSession *s, const char *tag) {
    char code[4096];
    snprintf(code, sizeof code, setup_fmt, tag, tag, tag, tag);
    return eval_value(s, code);
}

static char *check(TclSession *s, const char *tag) {
    char code[4096];
    snprintf(code, sizeof code, check_fmt, tag, tag, tag, tag, tag);
    return eval_value(s, code);
}

/* Sessions start from a boot image, as build/tinycl's do (this program carries none): one this
 * program writes and hands over in memory, so that each session's image part is a copy. */
static TclSession *new_session(void) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    return tcl_session_new(&o);
}

#define ck_equal(got, want)                                                     \
    do {                                                                        \
        char *g_ = (got);                                                       \
        ck_assert_msg(strcmp(g_, want) == 0, "got %s, expected %s", g_, want);  \
        free(g_);                                                               \
    } while (0)

START_TEST(image_objects_keep_fresh_objects) {
    unit_use_boot_image();
    TclSession *s = new_session();
    ck_assert_ptr_nonnull(s);
    /* the image's writes are tracked: a few of its pages are written at start, most are not */
    ck_equal(eval_value(s, "(multiple-value-bind (d n) (sys::%image-dirty-pages) (and d (< 0 d (floor n 2))))"), "T");
    ck_equal(setup(s, "one"), "T");
    ck_equal(eval_value(s, "(multiple-value-bind (d n) (sys::%image-dirty-pages) (< 0 d n))"), "T");
    for (int i = 0; i < 3; i++) ck_equal(check(s, "one"), ALL_GOOD);
    /* a reset gives the session its boot state again: the same writes once more */
    tcl_reset(s, true);
    ck_equal(setup(s, "two"), "T");
    ck_equal(check(s, "two"), ALL_GOOD);
    tcl_session_free(s);
}
END_TEST

/* A restore writes the whole state back into the image's pages at once. */
START_TEST(image_objects_after_restore) {
    unit_use_boot_image();
    TclSession *s = new_session();
    ck_assert_ptr_nonnull(s);
    char *err = NULL;
    ck_equal(setup(s, "before"), "T");
    ck_assert_int_eq(tcl_checkpoint(s, "a", &err), 0);
    ck_equal(setup(s, "after"), "T");
    ck_equal(check(s, "after"), ALL_GOOD);
    ck_assert_int_eq(tcl_restore(s, "a", &err), 0);
    ck_equal(check(s, "before"), ALL_GOOD);
    ck_equal(setup(s, "again"), "T");
    ck_equal(check(s, "again"), ALL_GOOD);
    tcl_session_free(s);
}
END_TEST

typedef struct Worker { const char *tag; char result[4096]; } Worker;

static int worker_run(void *arg) {
    Worker *w = arg;
    TclSession *s = new_session();
    if (!s) { snprintf(w->result, sizeof w->result, "no session"); return 1; }
    char *v = setup(s, w->tag);
    if (strcmp(v, "T") != 0) { snprintf(w->result, sizeof w->result, "setup: %s", v); free(v); tcl_session_free(s); return 1; }
    free(v);
    for (int i = 0; i < 4; i++) {
        v = check(s, w->tag);
        snprintf(w->result, sizeof w->result, "%s", v);
        free(v);
        if (strcmp(w->result, ALL_GOOD) != 0) break;
    }
    tcl_session_free(s);
    return 0;
}

static void *thread_main(void *arg) {
    tcl_run_with_big_stack(worker_run, arg);
    return NULL;
}

START_TEST(two_sessions_on_two_threads) {
    unit_use_boot_image();
    Worker a = {.tag = "alpha"}, b = {.tag = "beta"};
    pthread_t ta, tb;
    ck_assert_int_eq(pthread_create(&ta, NULL, thread_main, &a), 0);
    ck_assert_int_eq(pthread_create(&tb, NULL, thread_main, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    ck_assert_msg(strcmp(a.result, ALL_GOOD) == 0, "session alpha: %s", a.result);
    ck_assert_msg(strcmp(b.result, ALL_GOOD) == 0, "session beta: %s", b.result);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("gc-image");
    TCase *t = tcase_create("dirty-pages");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, image_objects_keep_fresh_objects);
    tcase_add_test(t, image_objects_after_restore);
    tcase_add_test(t, two_sessions_on_two_threads);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
