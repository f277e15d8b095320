/* test_restore_memory.c: what a restore brings back that the session cannot use is given back.
 * A plain reset after a restore frees the restore's heap (src/session-checkpoint.c,
 * session_store_compact), so restore and reset cycles keep the process's memory where the first
 * left it; a restore drops the entries of the finalizer table no finalization can reach
 * (weak.lisp, %FORGET-DEAD-FINALIZERS), so cycles of finalizers and restores do not grow it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tinycl.h"
#include "session_unit.h"
#include "image_unit.h"

static long resident_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) { if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0; fclose(f); }
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A checkpoint holding 32 MB of conses: restored, they are in the restore's heap; after a reset
 * nothing reaches them, and the reset gives the heap back. */
START_TEST(reset_frees_the_restored_heap) {
    TclSession *s = unit_image_session();
    ck_value(s, "(progn (defparameter *big* (make-list 2000000 :initial-element 7)) (length *big*))", "2000000");
    char *err = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, "big", &err), 0);
    ck_assert_int_eq(tcl_restore(s, "big", &err), 0);
    ck_value(s, "(length *big*)", "2000000");
    long restored = resident_kib();
    double t0 = now();
    tcl_reset(s, false);
    double took = now() - t0;
    long after = resident_kib();
    fprintf(stderr, "restored heap: resident %ld KiB after the restore, %ld KiB after the reset (%.1f ms)\n",
            restored, after, took * 1e3);
    ck_value(s, "(boundp '*big*)", "NIL");
    /* the heap held the 32 MB list (without the compaction, resident memory grows here) */
    ck_assert_int_le(after, restored - 12 * 1024);
    /* the reset state is exact: a second reset changes nothing, the session works */
    tcl_reset(s, false);
    ck_value(s, "(list (boundp '*big*) (package-name *package*) (+ 1 2))", "(NIL \"COMMON-LISP-USER\" 3)");
    tcl_session_free(s);
}
END_TEST

static size_t checkpoint_bytes(TclSession *s, const char *name) {
    char *err = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, name, &err), 0);
    TclCheckpoints *l = tcl_list_checkpoints(s);
    size_t n = 0;
    for (int i = 0; i < l->count; i++) if (strcmp(l->items[i].name, name) == 0) n = l->items[i].bytes;
    tcl_checkpoints_free(l);
    return n;
}

/* A reset keeps nothing the session defined reachable: the arrays the boot packages and the boot
 * hash tables (the cross-reference) had before it, left in the boot heap, held the symbols of the
 * definitions and so their values (3.2 MB here), until they were emptied. */
START_TEST(reset_keeps_nothing_of_the_session) {
    TclSession *s = unit_image_session();
    size_t fresh = checkpoint_bytes(s, "fresh");
    ck_value(s, "(defparameter *big* (make-list 200000 :initial-element 7))", "*BIG*");
    ck_value(s, "(defun big-fn () '#.(make-list 200000 :initial-element 8))", "BIG-FN");
    tcl_reset(s, false);
    size_t after = checkpoint_bytes(s, "after");
    fprintf(stderr, "reset: checkpoint %zu bytes fresh, %zu after a reset\n", fresh, after);
    ck_assert_uint_le(after, fresh + 1024 * 1024);
    tcl_session_free(s);
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer keeps freed memory in a quarantine (256 MB by default) before reusing it: the
 * resident size then grows with every free, and the bound below would measure the quarantine. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=0"; }
#endif

/* Many cycles of a restore of a big checkpoint and a reset: memory stays where the first left it. */
START_TEST(restore_reset_cycles_stay_bounded) {
    TclSession *s = unit_image_session();
    ck_value(s, "(defun keep (x) (list :kept x))", "KEEP");
    ck_value(s, "(progn (defparameter *big* (make-list 500000 :initial-element 7)) (length *big*))", "500000");
    char *err = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, "big", &err), 0);
    long early = 0;
    for (int i = 0; i < 40; i++) {
        ck_assert_int_eq(tcl_restore(s, "big", &err), 0);
        ck_value(s, "(list (keep 1) (length *big*))", "((:KEPT 1) 500000)");
        tcl_reset(s, false);
        ck_value(s, "(fboundp 'keep)", "NIL");
        if (i == 4) early = resident_kib();
    }
    long late = resident_kib();
    fprintf(stderr, "restore+reset cycles: resident %ld -> %ld KiB\n", early, late);
    ck_assert_int_le(late, early + 16 * 1024);
    tcl_session_free(s);
}
END_TEST

/* Finalizers registered before a checkpoint and cancelled (or run) since: the restored table's
 * entries for them can never run, and are dropped; cycles of that do not grow the table. */
START_TEST(restore_drops_finalizers_that_cannot_run) {
    TclSession *s = unit_image_session();
    ck_value(s, "(defvar *objs* (loop repeat 20 collect (make-string 8))) "
                "(dolist (o *objs*) (tinycl:finalize o (lambda () nil))) "
                "(hash-table-count sys::*finalizers*)", "20");
    char *err = NULL;
    ck_assert_int_eq(tcl_checkpoint(s, "fin", &err), 0);
    ck_value(s, "(dolist (o *objs*) (tinycl:cancel-finalization o)) (hash-table-count sys::*finalizers*)", "0");
    ck_assert_int_eq(tcl_restore(s, "fin", &err), 0);
    ck_value(s, "(list (length *objs*) (hash-table-count sys::*finalizers*) (hash-table-count sys::*finalized-objects*))",
             "(20 0 0)");
    for (int i = 0; i < 25; i++) {
        /* ten more, checkpointed, then cancelled: dead in the next restore */
        ck_value(s, "(setq *objs* (loop repeat 10 collect (make-string 8))) "
                    "(dolist (o *objs*) (tinycl:finalize o (lambda () nil))) "
                    "(hash-table-count sys::*finalizers*)", "10");
        ck_assert_int_eq(tcl_checkpoint(s, "fin", &err), 0);
        ck_value(s, "(dolist (o *objs*) (tinycl:cancel-finalization o))", "NIL");
        ck_assert_int_eq(tcl_restore(s, "fin", &err), 0);
        ck_value(s, "(hash-table-count sys::*finalizers*)", "0");
    }
    /* a finalizer made after the restore works */
    ck_value(s, "(defvar *ran* nil) (tinycl:finalize (make-string 8) (lambda () (setq *ran* t))) "
                "(hash-table-count sys::*finalizers*)", "1");
    tcl_session_free(s);
}
END_TEST

/* A session file read by another session: no finalization of that session can come. */
START_TEST(session_file_drops_every_finalizer) {
    TclSession *s = unit_image_session();
    ck_value(s, "(defvar *objs* (loop repeat 5 collect (make-string 8))) "
                "(dolist (o *objs*) (tinycl:finalize o (lambda () nil))) "
                "(hash-table-count sys::*finalizers*)", "5");
    char path[] = "/tmp/tinycl-restore-memory-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char *err = NULL;
    ck_assert_msg(tcl_session_file_save(s, path, &err) == 0, "%s", err ? err : "");
    TclSession *t = unit_image_session();
    ck_assert_int_eq(tcl_session_file_load(t, path, &err), 1);
    ck_value(t, "(list (length *objs*) (hash-table-count sys::*finalizers*))", "(5 0)");
    unlink(path);
    tcl_session_free(t);
    tcl_session_free(s);
}
END_TEST

static Suite *restore_memory_suite(void) {
    Suite *su = suite_create("restore-memory");
    TCase *tc = tcase_create("restore-memory");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, reset_frees_the_restored_heap);
    tcase_add_test(tc, restore_reset_cycles_stay_bounded);
    tcase_add_test(tc, reset_keeps_nothing_of_the_session);
    tcase_add_test(tc, restore_drops_finalizers_that_cannot_run);
    tcase_add_test(tc, session_file_drops_every_finalizer);
    suite_add_tcase(su, tc);
    return su;
}

SESSION_UNIT_MAIN(restore_memory_suite)
