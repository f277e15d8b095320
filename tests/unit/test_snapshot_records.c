/* test_snapshot_records.c: the start-up snapshot's parts (runtime/snapshot.c, runtime/written.c):
 * which pages of a private file mapping were written, the first record of a symbol being its
 * state at a restore, and snapshot_verify telling a snapshot that does not match the state. The
 * snapshot made from an image's written pages is compared with the whole state in tests/run-boot.sh,
 * where build/tinycl has its image mapped from the executable. */
#include "unit.h"
#include "snapshot.h"
#include "written.h"
#include "array.h"
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

START_TEST(written_pages_of_a_private_mapping) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char path[] = "/tmp/tinycl-written-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    unlink(path);
    char *buf = calloc(6, page);
    for (size_t i = 0; i < 6 * page; i++) buf[i] = (char)(i * 7);
    ck_assert_int_eq(write(fd, buf, 6 * page), (ssize_t)(6 * page));
    char *m = mmap(NULL, 6 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    volatile char sink = m[1 * page + 5];      /* read: still the file's page */
    (void)sink;
    m[3 * page + 9] = 1;                       /* written: the process's own copy */
    volatile char *same = m + 4 * page;
    *same = *same;                             /* written with the same byte: a copy all the same */
    uint64_t bits = ~0ull;
    ck_assert(written_pages(m, 6 * page, (volatile uintptr_t *)m, &bits));
    /* page 0 holds the probe, written to check the answer */
    ck_assert_uint_eq(bits, (1u << 0) | (1u << 3) | (1u << 4));
    ck_assert(!written_pages(m + 1, 5 * page, (volatile uintptr_t *)(m + 8), &bits));  /* not page-aligned */
    munmap(m, 6 * page);
    close(fd);
    free(buf);
}
END_TEST

static Obj record_of(Lisp *L, Obj sym, Obj value) {
    Obj rec = make_vector(L, 6, NIL);
    VEC(rec)->data[0] = sym;
    VEC(rec)->data[1] = value;
    VEC(rec)->data[2] = SYM(sym)->function;
    VEC(rec)->data[3] = SYM(sym)->plist;
    VEC(rec)->data[4] = SYM(sym)->setf_function;
    VEC(rec)->data[5] = cons(L, FIX(SYM(sym)->h.flags), SYM(sym)->package);
    return rec;
}

/* A symbol with two records is restored to the first one (a snapshot from written pages puts its
 * new records in front of the image's), whichever order the list would be walked in. */
START_TEST(first_record_is_the_state) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defvar cl-user::*snap-x* 1)");
    Obj x = intern_cstr(L, L->pkg_cl_user, "*SNAP-X*");
    Obj snap = snapshot_take(L);
    char why[200];
    ck_assert_msg(snapshot_verify(L, snap, why, sizeof why), "%s", why);
    VEC(snap)->data[2] = cons(L, record_of(L, x, FIX(2)), VEC(snap)->data[2]);
    ck_assert(!snapshot_verify(L, snap, why, sizeof why));    /* the first record says 2, the cell 1 */
    ck_assert_str_eq(why, "the record of a symbol differs from its cells");
    unit_eval(L, "(setq cl-user::*snap-x* 3)");
    snapshot_restore(L, snap, NIL);
    ck_assert_eval(L, "cl-user::*snap-x*", "2");
    ck_assert_msg(snapshot_verify(L, snap, why, sizeof why), "%s", why);
    lisp_free(L);
}
END_TEST

/* snapshot_verify finds what a snapshot does not hold: a changed cell, a new symbol, a package's
 * new use, a new package. */
START_TEST(verify_tells_differences) {
    Lisp *L = unit_lisp();
    Obj snap = snapshot_take(L);
    char why[200];
    ck_assert_msg(snapshot_verify(L, snap, why, sizeof why), "%s", why);
    unit_eval(L, "(setf (get 'car 'snap-k) 1)");
    ck_assert(!snapshot_verify(L, snap, why, sizeof why));
    snapshot_restore(L, snap, NIL);
    ck_assert_msg(snapshot_verify(L, snap, why, sizeof why), "%s", why);
    unit_eval(L, "(intern \"SNAP-NEW\" \"SYSTEM\")");
    ck_assert(!snapshot_verify(L, snap, why, sizeof why));
    snapshot_restore(L, snap, NIL);
    unit_eval(L, "(defpackage :snap-p (:use))");
    ck_assert(!snapshot_verify(L, snap, why, sizeof why));
    snapshot_restore(L, snap, NIL);
    ck_assert_msg(snapshot_verify(L, snap, why, sizeof why), "%s", why);
    unit_eval(L, "(defpackage :snap-q (:use)) (use-package :snap-q :cl-user)");
    snapshot_restore(L, snap, NIL);
    ck_assert_msg(snapshot_verify(L, snap, why, sizeof why), "%s", why);
    ck_assert_eval(L, "(every #'package-name (package-use-list :cl-user))", "T");
    lisp_free(L);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("snapshot-records");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, written_pages_of_a_private_mapping);
    tcase_add_test(t, first_record_is_the_state);
    tcase_add_test(t, verify_tells_differences);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
