/* test_commit_records.c: the symbol records a load's commit adds to the reset snapshot
 * (runtime/snapshot.c, record_pending): each symbol present in a package the snapshot records
 * gets exactly one record, whether or not the table of recorded symbols was made first, also a
 * symbol that had a record, lost its package and was imported into a package the load made, a
 * symbol present in two new packages, and a keyword; the snapshot then holds the state
 * (snapshot_verify) and the journal keeps nothing of packages it does not record. Everything
 * below runs inside captures, so that the snapshot and the state stay equal. */
#include "unit.h"
#include "snapshot.h"
#include "array.h"
#include "list.h"

static Obj sys_fn(Lisp *L, const char *name) { return intern_cstr(L, L->pkg_system, name); }

static size_t records_of(Lisp *L, Obj sym) {
    size_t n = 0;
    for (Obj r = VEC(L->boot_snapshot)->data[2]; r != NIL; r = CDR(r))
        if (VEC(CAR(r))->data[0] == sym) n++;
    return n;
}

static Obj find_sym(Lisp *L, const char *name, const char *package) {
    char code[200];
    snprintf(code, sizeof code, "(find-symbol \"%s\" \"%s\")", name, package);
    return unit_eval(L, code);
}

static void check_verified(Lisp *L) {
    char why[200];
    ck_assert_msg(snapshot_verify(L, L->boot_snapshot, why, sizeof why), "%s", why);
}

static void commit_records(bool table_first) {
    Lisp *L = unit_lisp();
    L->boot_snapshot = snapshot_take(L);
    L->boot_symbols = NIL;
    /* the table of recorded symbols made before the loads (as %boot-symbol-p does), or not */
    if (table_first) ck_assert_eval(L, "(sys::%boot-symbol-p 'car)", "T");
    check_verified(L);
    /* a load interns a symbol in a recorded package: it gets its record */
    Obj cap = funcall0(L, sys_fn(L, "%SNAPSHOT-CAPTURE"));
    unit_eval(L, "(intern \"CAP-EDGE\" :cl-user)");
    funcall1(L, sys_fn(L, "%SNAPSHOT-COMMIT"), cap);
    Obj edge = find_sym(L, "CAP-EDGE", "COMMON-LISP-USER");
    ck_assert_int_eq(records_of(L, edge), 1);
    check_verified(L);
    /* the next load takes it out of CL-USER and imports it into a package it makes, with a new
     * symbol also imported into a second new package, and a new keyword */
    cap = funcall0(L, sys_fn(L, "%SNAPSHOT-CAPTURE"));
    unit_eval(L, "(let ((s (find-symbol \"CAP-EDGE\" :cl-user))) (unintern s :cl-user)"
                 "  (make-package \"CAP-NEW\" :use nil) (import s \"CAP-NEW\")"
                 "  (export (intern \"CAP-FRESH\" \"CAP-NEW\") \"CAP-NEW\")"
                 "  (make-package \"CAP-NEW-2\" :use nil) (import (find-symbol \"CAP-FRESH\" \"CAP-NEW\") \"CAP-NEW-2\")"
                 "  (intern \"CAP-KEYWORD\" :keyword))");
    Obj created = funcall1(L, sys_fn(L, "%SNAPSHOT-COMMIT"), cap);
    ck_assert_int_eq(list_length_proper(L, created), 2);
    ck_assert_int_eq(records_of(L, edge), 1);
    ck_assert_int_eq(records_of(L, find_sym(L, "CAP-FRESH", "CAP-NEW")), 1);
    ck_assert_int_eq(records_of(L, find_sym(L, "CAP-KEYWORD", "KEYWORD")), 1);
    check_verified(L);
    /* no symbol is left marked */
    ck_assert_int_eq(SYM(edge)->h.flags & SYM_SNAPSHOT_MARK, 0);
    ck_assert_int_eq(SYM(find_sym(L, "CAP-FRESH", "CAP-NEW"))->h.flags & SYM_SNAPSHOT_MARK, 0);
    /* a reset returns to this state, the loads' symbols in place */
    unit_eval(L, "(intern \"CAP-USER\" :cl-user)");
    snapshot_restore(L, L->boot_snapshot, created);
    check_verified(L);
    ck_assert_eval(L, "(list (find-symbol \"CAP-USER\" :cl-user) (symbol-package (find-symbol \"CAP-EDGE\" \"CAP-NEW\")))",
                   "(NIL #<PACKAGE \"CAP-NEW\">)");
    lisp_free(L);
}

START_TEST(commit_records_without_the_table) { commit_records(false); }
END_TEST

START_TEST(commit_records_with_the_table) { commit_records(true); }
END_TEST

/* While a capture is open, the journal notes the changes of recorded packages only. */
START_TEST(journal_of_recorded_packages_only) {
    Lisp *L = unit_lisp();
    L->boot_snapshot = snapshot_take(L);
    Obj cap = funcall0(L, sys_fn(L, "%SNAPSHOT-CAPTURE"));
    Obj before = L->pkg_journal;
    unit_eval(L, "(make-package \"CAP-J\" :use nil) (intern \"A\" \"CAP-J\") (intern \"B\" \"CAP-J\")");
    ck_assert(L->pkg_journal == before);
    unit_eval(L, "(intern \"CAP-J-KW\" :keyword)");     /* interned, then made external */
    ck_assert_int_gt((long)list_length_proper(L, L->pkg_journal) - (long)list_length_proper(L, before), 0);
    funcall1(L, sys_fn(L, "%SNAPSHOT-COMMIT"), cap);
    check_verified(L);
    /* once committed, the package is recorded: a later load's changes to it are noted */
    cap = funcall0(L, sys_fn(L, "%SNAPSHOT-CAPTURE"));
    before = L->pkg_journal;
    unit_eval(L, "(intern \"C\" \"CAP-J\")");
    ck_assert_int_eq((long)list_length_proper(L, L->pkg_journal) - (long)list_length_proper(L, before), 1);
    funcall1(L, sys_fn(L, "%SNAPSHOT-COMMIT"), cap);
    check_verified(L);
    lisp_free(L);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("commit-records");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, commit_records_without_the_table);
    tcase_add_test(t, commit_records_with_the_table);
    tcase_add_test(t, journal_of_recorded_packages_only);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
