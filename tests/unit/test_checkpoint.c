/* test_checkpoint.c: checkpoints and the session file through the embedding API, in sessions
 * started from a boot image this program wrote (as build/tinycl's are): a restore puts back
 * exactly the state of the checkpoint, the file carries it to another session, a damaged file is
 * refused and moved aside, and the number of checkpoints is bounded. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include "tinycl.h"
#include "session_unit.h"
#include "image_unit.h"

/* The listing, with object addresses ({7F...}) left out: a restored object is a copy. */
static char *definitions(TclSession *s) {
    TclDefinitions *d = tcl_list_definitions(s, NULL, NULL);
    char *t = strdup(d->text ? d->text : "");
    tcl_definitions_free(d);
    char *w = t;
    for (char *r = t; *r; r++) {
        if (*r == '{') { while (*r && *r != '}') r++; if (!*r) break; continue; }
        *w++ = *r;
    }
    *w = 0;
    return t;
}

static void define_some(TclSession *s) {
    ck_value(s, "(defpackage :shapes (:use :cl) (:export #:area))", "#<PACKAGE \"SHAPES\">");
    ck_value(s, "(in-package :shapes)", "#<PACKAGE \"SHAPES\">");
    ck_value(s, "(defclass circle () ((r :initarg :r :reader r)))", "#<STANDARD-CLASS SHAPES::CIRCLE>");
    ck_value(s, "(defgeneric area (s))", "#<STANDARD-GENERIC-FUNCTION SHAPES:AREA (0)>");
    ck_value(s, "(typep (defmethod area ((c circle)) (* 3 (r c) (r c))) (quote standard-method))", "T");
    ck_value(s, "(defvar *count* 10)", "*COUNT*");
    ck_value(s, "(defun twice (x) (* 2 x))", "TWICE");
    ck_value(s, "(defparameter *table* (let ((h (make-hash-table))) (setf (gethash 'a h) 1) h))", "*TABLE*");
}

START_TEST(restore_returns_to_the_checkpoint) {
    TclSession *s = unit_image_session();
    define_some(s);
    char *before = definitions(s);
    char *err = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, "one", &err), 0);
    ck_assert_ptr_null(err);
    /* changes since: new definitions, a changed variable, a redefined function, a new method and package */
    ck_value(s, "(defun twice (x) (+ x x x))", "TWICE");
    ck_value(s, "(setf *count* 99)", "99");
    ck_value(s, "(setf (gethash 'b *table*) 2)", "2");
    ck_value(s, "(defun extra () 1)", "EXTRA");
    ck_value(s, "(defclass square () ((side :initarg :side :reader side)))", "#<STANDARD-CLASS SHAPES::SQUARE>");
    ck_value(s, "(typep (defmethod area ((q square)) (* (side q) (side q))) (quote standard-method))", "T");
    ck_value(s, "(defpackage :later (:use :cl))", "#<PACKAGE \"LATER\">");
    ck_value(s, "(in-package :cl-user)", "#<PACKAGE \"COMMON-LISP-USER\">");
    ck_assert_int_eq(tcl_restore(s, "one", &err), 0);
    ck_assert_ptr_null(err);
    char *after = definitions(s);
    ck_assert_str_eq(after, before);
    ck_assert_str_eq(tcl_prompt_package(s), "SHAPES");
    ck_value(s, "(twice 4)", "8");
    ck_value(s, "*count*", "10");
    ck_value(s, "(gethash 'b *table*)", "NIL");
    ck_value(s, "(gethash 'a *table*)", "1");
    ck_value(s, "(fboundp 'extra)", "NIL");
    ck_value(s, "(find-class 'square nil)", "NIL");
    ck_value(s, "(find-package :later)", "NIL");
    ck_value(s, "(area (make-instance 'circle :r 2))", "12");
    ck_value(s, "(length (sb-mop:generic-function-methods #'area))", "1");
    /* the session goes on working, and can go back to the same checkpoint again */
    ck_value(s, "(defun again () 2)", "AGAIN");
    ck_assert_int_eq(tcl_checkpoint(s, "two", &err), 0);
    ck_assert_int_eq(tcl_restore(s, "one", &err), 0);
    ck_value(s, "(fboundp 'again)", "NIL");
    ck_assert_int_eq(tcl_restore(s, "two", &err), 0);
    ck_value(s, "(again)", "2");
    TclResult *r = tcl_eval(s, "(progn (princ \"out\") 1)", NULL, -1);
    ck_assert_str_eq(r->out, "out");
    tcl_result_free(r);
    /* growing what the restore made (vectors, packages, hash tables), then a reset */
    ck_value(s, "(let ((v (make-array 1 :adjustable t :fill-pointer 0))) (dotimes (i 100) (vector-push-extend i v)) (length v))", "100");
    ck_value(s, "(dotimes (i 200) (setf (gethash i *table*) i)) (gethash 150 *table*)", "150");
    ck_value(s, "(dotimes (i 300) (intern (format nil \"S~d\" i))) (length (apropos-list \"S29\" :shapes))", "11");
    tcl_reset(s, false);
    ck_value(s, "(list (find-package :shapes) (package-name *package*))", "(NIL \"COMMON-LISP-USER\")");
    ck_assert_int_eq(tcl_restore(s, "two", &err), 0);
    ck_value(s, "(again)", "2");
    tcl_reset(s, true);
    ck_assert_int_eq(tcl_restore(s, "one", &err), 0);
    ck_value(s, "(twice 5)", "10");
    free(before); free(after);
    tcl_session_free(s);
}
END_TEST

START_TEST(checkpoints_are_bounded_listed_and_deleted) {
    TclSession *s = unit_image_session();
    char *err = NULL;
    char name[32];
    TclCheckpoints *l = tcl_list_checkpoints(s);
    int max = l->max;
    ck_assert_int_eq(l->count, 0);
    tcl_checkpoints_free(l);
    for (int i = 0; i < max; i++) {
        snprintf(name, sizeof name, "c%d", i);
        ck_assert_int_eq(tcl_checkpoint(s, name, &err), 0);
    }
    ck_assert_int_eq(tcl_checkpoint(s, "one-too-many", &err), -1);
    ck_assert_ptr_nonnull(strstr(err, "delete one first"));
    free(err);
    ck_assert_int_eq(tcl_checkpoint(s, "c3", &err), 0);      /* a name taken is replaced */
    l = tcl_list_checkpoints(s);
    ck_assert_int_eq(l->count, max);
    ck_assert_str_eq(l->items[0].name, "c0");
    ck_assert_uint_gt(l->items[0].bytes, 1000);
    tcl_checkpoints_free(l);
    ck_assert_int_eq(tcl_delete_checkpoint(s, "c0", &err), 0);
    ck_assert_int_eq(tcl_delete_checkpoint(s, "c0", &err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no checkpoint named \"c0\""));
    free(err);
    ck_assert_int_eq(tcl_restore(s, "nope", &err), -1);
    free(err);
    ck_assert_int_eq(tcl_checkpoint(s, "", &err), -1);
    free(err);
    ck_assert_int_eq(tcl_checkpoint(s, "fits-again", &err), 0);
    tcl_session_free(s);
}
END_TEST

static char *temp_path(void) {
    char dir[] = "/tmp/tinycl-session-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *p = malloc(strlen(dir) + 16);
    sprintf(p, "%s/state", dir);
    return p;
}

START_TEST(session_file_carries_the_state_to_another_session) {
    char *path = temp_path();
    TclSession *s = unit_image_session();
    define_some(s);
    char *before = definitions(s);
    char *err = NULL;
    ck_assert_int_eq(tcl_session_file_load(s, path, &err), 0);   /* none yet */
    ck_assert_int_eq(tcl_session_file_save(s, path, &err), 0);
    tcl_session_free(s);
    TclSession *t = unit_image_session();
    ck_assert_int_eq(tcl_session_file_load(t, path, &err), 1);
    char *after = definitions(t);
    ck_assert_str_eq(after, before);
    ck_assert_str_eq(tcl_prompt_package(t), "SHAPES");
    ck_value(t, "(list (twice 21) *count* (gethash 'a *table*))", "(42 10 1)");
    ck_value(t, "(area (make-instance 'circle :r 1))", "3");
    /* and again from the restored session */
    ck_value(t, "(defun more () :more)", "MORE");
    ck_assert_int_eq(tcl_session_file_save(t, path, &err), 0);
    tcl_session_free(t);
    TclSession *u = unit_image_session();
    ck_assert_int_eq(tcl_session_file_load(u, path, &err), 1);
    ck_value(u, "(list (more) (twice 1))", "(:MORE 2)");
    tcl_session_free(u);
    free(before); free(after);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(damaged_session_file_is_refused_and_moved_aside) {
    char *path = temp_path();
    TclSession *s = unit_image_session();
    ck_value(s, "(defun kept () 1)", "KEPT");
    char *err = NULL;
    ck_assert_int_eq(tcl_session_file_save(s, path, &err), 0);
    tcl_session_free(s);
    FILE *f = fopen(path, "r+b");
    fseek(f, 5000, SEEK_SET);
    fputc(0x5a, f);
    fputc(0xa5, f);
    fclose(f);
    TclSession *t = unit_image_session();
    ck_value(t, "(defun mine () 2)", "MINE");
    ck_assert_int_eq(tcl_session_file_load(t, path, &err), -1);
    ck_assert_ptr_nonnull(strstr(err, "damaged"));
    ck_assert_ptr_nonnull(strstr(err, ".bad-"));
    free(err);
    ck_assert_int_eq(access(path, F_OK), -1);                    /* moved aside */
    ck_value(t, "(list (mine) (fboundp 'kept))", "(2 NIL)");    /* nothing half-loaded */
    /* a file that is not a state at all */
    f = fopen(path, "wb");
    fputs("(defun not-a-state ())", f);
    fclose(f);
    ck_assert_int_eq(tcl_session_file_load(t, path, &err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a tinycl session state"));
    free(err);
    ck_value(t, "(mine)", "2");
    tcl_session_free(t);
    free(path);
}
END_TEST

START_TEST(checkpoint_cost_is_measured) {
    TclSession *s = unit_image_session();
    define_some(s);
    char *err = NULL;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    ck_assert_int_eq(tcl_checkpoint(s, "m", &err), 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double take = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    ck_assert_int_eq(tcl_restore(s, "m", &err), 0);
    size_t bytes;
    double w, r;
    tcl_state_timings(s, &bytes, &w, &r);
    fprintf(stderr, "checkpoint: %zu bytes, taken in %.1f ms, restored in %.1f ms\n", bytes, take * 1e3, r * 1e3);
    ck_assert_uint_gt(bytes, 0);
    tcl_session_free(s);
}
END_TEST


static size_t checkpoint_bytes(TclSession *s, const char *name) {
    TclCheckpoints *l = tcl_list_checkpoints(s);
    size_t n = 0;
    for (int i = 0; i < l->count; i++) if (strcmp(l->items[i].name, name) == 0) n = l->items[i].bytes;
    tcl_checkpoints_free(l);
    return n;
}

static long resident_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) { if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0; fclose(f); }
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Issue 18: a restore's heap is given back once nothing reaches it. Cycles of definitions,
 * checkpoints and restores (and resets) keep the size of a checkpoint and the process's memory
 * where they were after the first few, instead of each checkpoint copying every earlier restore. */
START_TEST(checkpoint_restore_cycles_stay_bounded) {
    TclSession *s = unit_image_session();
    define_some(s);
    char *err = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, "base", &err), 0);
    size_t early = 0;
    long early_rss = 0;
    for (int i = 0; i < 60; i++) {
        char code[128];
        snprintf(code, sizeof code, "(defun cycle-%d (x) (list x %d))", i % 5, i);
        free(unit_value(s, code));
        /* garbage once the next cycle replaces it: 320 KB that no later checkpoint may carry */
        snprintf(code, sizeof code, "(length (defparameter *junk* (make-list 20000 :initial-element %d)))", i);
        free(unit_value(s, code));
        ck_assert_int_eq(tcl_checkpoint(s, "cycle", &err), 0);
        ck_assert_int_eq(tcl_restore(s, i == 30 ? "base" : "cycle", &err), 0);
        if (i % 20 == 10) tcl_reset(s, false);
        if (i == 9) { early = checkpoint_bytes(s, "cycle"); early_rss = resident_kib(); }
    }
    ck_value(s, "(cycle-4 1)", "(1 59)");
    ck_assert_int_eq(tcl_checkpoint(s, "cycle", &err), 0);
    size_t late = checkpoint_bytes(s, "cycle");
    long late_rss = resident_kib();
    fprintf(stderr, "cycles: checkpoint %zu -> %zu bytes, resident %ld -> %ld KiB\n", early, late, early_rss, late_rss);
    ck_assert_uint_gt(early, 0);
    ck_assert_uint_le(late, early + early / 10);
    ck_assert_int_le(late_rss, early_rss + 48 * 1024);
    tcl_session_free(s);
}
END_TEST


/* Weak objects (weak pointers, weak hash tables, the tables FINALIZE keeps) once made every later
 * checkpoint and session-file write fail. They are written with what they hold, and come back
 * weak again; what the collector registered for the process (finalizers) is the process's. */
START_TEST(weak_objects_are_checkpointed) {
    TclSession *s = unit_image_session();
    ck_value(s, "(defvar *keep* (list 1 2)) (defvar *wp* (tinycl:make-weak-pointer *keep*)) "
                "(defvar *wt* (make-hash-table :test 'eq :weakness :key)) (setf (gethash *keep* *wt*) :kept) "
                "(tinycl:finalize (list 3) (lambda () nil)) t", "T");
    char *err = NULL;
    ck_assert_msg(tcl_checkpoint(s, "weak", &err) == 0, "%s", err ? err : "");
    ck_value(s, "(setq *keep* nil *wp* nil *wt* nil)", "NIL");
    ck_assert_msg(tcl_restore(s, "weak", &err) == 0, "%s", err ? err : "");
    ck_value(s, "(list (tinycl:weak-pointer-value *wp*) (eq (tinycl:weak-pointer-value *wp*) *keep*) "
                "(gethash *keep* *wt*) (hash-table-weakness *wt*) (hash-table-count *wt*))",
             "((1 2) T :KEPT :KEY 1)");
    /* weak again: a new key only the table holds can go (and the table still works) */
    ck_value(s, "(progn (setf (gethash (list 9) *wt*) :new) (hash-table-weakness *wt*))", ":KEY");
    char path[] = "/tmp/tinycl-ckpt-weak-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    ck_assert_msg(tcl_session_file_save(s, path, &err) == 0, "%s", err ? err : "");
    TclSession *t = unit_image_session();
    ck_assert_int_eq(tcl_session_file_load(t, path, &err), 1);
    ck_value(t, "(list (tinycl:weak-pointer-value *wp*) (gethash *keep* *wt*))", "((1 2) :KEPT)");
    unlink(path);
    tcl_session_free(t);
    tcl_session_free(s);
}
END_TEST

static Suite *checkpoint_suite(void) {
    Suite *su = suite_create("checkpoint");
    TCase *tc = tcase_create("checkpoint");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, restore_returns_to_the_checkpoint);
    tcase_add_test(tc, checkpoints_are_bounded_listed_and_deleted);
    tcase_add_test(tc, session_file_carries_the_state_to_another_session);
    tcase_add_test(tc, damaged_session_file_is_refused_and_moved_aside);
    tcase_add_test(tc, checkpoint_cost_is_measured);
    tcase_add_test(tc, checkpoint_restore_cycles_stay_bounded);
    tcase_add_test(tc, weak_objects_are_checkpointed);
    suite_add_tcase(su, tc);
    return su;
}

SESSION_UNIT_MAIN(checkpoint_suite)
