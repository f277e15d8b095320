/* test_package.c: unit tests of the package module: the C interface (find, intern, designators,
 * locks) and the checked operations as Lisp sees them. Expected values are SBCL's. */
#include "unit.h"

/* Evaluate CODE expecting an error of the (exact) Lisp type TYPE: returns TYPE's name in upper
 * case when one was signalled (the session shows SBCL's extension types as their standard
 * ancestor, so unit_eval_error cannot tell them apart). */
static const char *unit_eval_type(Lisp *L, const char *code, const char *type) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "(handler-case (progn %s :no-error) (%s () :signalled) (error (c) (type-of c)))", code, type);
    const char *r = unit_eval_str(L, buf);
    if (strcmp(r, ":SIGNALLED") != 0) return r;
    static char up[128];
    size_t i = 0;
    for (; type[i] && i < sizeof up - 1; i++) up[i] = (char)(type[i] >= 'a' && type[i] <= 'z' ? type[i] - 32 : type[i]);
    up[i] = 0;
    return up;
}

START_TEST(test_find_and_intern_from_c) {
    Lisp *L = unit_lisp();
    ck_assert(package_find_cstr(L, "COMMON-LISP") == L->pkg_cl);
    ck_assert(package_find_cstr(L, "CL") == L->pkg_cl);
    ck_assert(package_find_cstr(L, "NO-SUCH-PACKAGE") == NIL);
    int st;
    Obj car = package_find_symbol(L, L->pkg_cl_user, STR(string_from_cstr(L, "CAR"))->data, 3, &st);
    ck_assert_int_eq(st, FIND_INHERITED);
    ck_assert_str_eq(prin1_cstr(L, car), "CAR");
    Obj s1 = intern_cstr(L, L->pkg_cl_user, "UNIT-NEW-SYMBOL");
    Obj s2 = intern_cstr(L, L->pkg_cl_user, "UNIT-NEW-SYMBOL");
    ck_assert(s1 == s2);
    ck_assert(SYM(s1)->package == L->pkg_cl_user);
    Obj k = keyword(L, "UNIT-KEY");
    ck_assert(is_keyword(L, k));
    ck_assert(SYM(k)->value == k);
}
END_TEST

START_TEST(test_package_designators) {
    Lisp *L = unit_lisp();
    ck_assert(package_designated(L, string_from_cstr(L, "KEYWORD")) == L->pkg_keyword);
    ck_assert(package_designated(L, L->pkg_system) == L->pkg_system);
    ck_assert_str_eq(unit_eval_type(L, "(find-symbol \"X\" \"NO-SUCH-PACKAGE\")", "package-does-not-exist"), "PACKAGE-DOES-NOT-EXIST");
    ck_assert_str_eq(unit_eval_error(L, "(find-symbol \"X\" 3)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(intern 'foo)"), "TYPE-ERROR");
    ck_assert_eval(L, "(find-package #\\A)", "NIL");
}
END_TEST

START_TEST(test_make_delete_rename) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(package-name (make-package \"UNIT-P1\" :nicknames '(\"UP1\") :use '(\"CL\")))", "\"UNIT-P1\"");
    ck_assert_eval(L, "(package-nicknames \"UP1\")", "(\"UP1\")");
    ck_assert_str_eq(unit_eval_error(L, "(make-package \"UNIT-P1\")"), "PACKAGE-ERROR");
    ck_assert_eval(L, "(rename-package \"UNIT-P1\" \"UNIT-P2\" '(\"N1\" \"N2\"))", "#<PACKAGE \"UNIT-P2\">");
    ck_assert_eval(L, "(package-nicknames \"UNIT-P2\")", "(\"N2\" \"N1\")");
    ck_assert_eval(L, "(list (find-package \"UNIT-P1\") (find-package \"UP1\"))", "(NIL NIL)");
    ck_assert_eval(L, "(let ((s (intern \"S\" \"UNIT-P2\"))) (list (delete-package \"UNIT-P2\") (symbol-package s)))", "(T NIL)");
    ck_assert_eval(L, "(find-package \"UNIT-P2\")", "NIL");
    ck_assert_str_eq(unit_eval_error(L, "(delete-package \"UNIT-P2\")"), "PACKAGE-ERROR");
}
END_TEST

START_TEST(test_name_conflicts) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(make-package \"UA\" :use nil) (make-package \"UB\" :use nil)"
                 "(export (intern \"X\" \"UA\") \"UA\") (intern \"X\" \"UB\")");
    ck_assert_str_eq(unit_eval_type(L, "(use-package \"UA\" \"UB\")", "name-conflict"), "NAME-CONFLICT");
    ck_assert_str_eq(unit_eval_type(L, "(import (find-symbol \"X\" \"UA\") \"UB\")", "name-conflict"), "NAME-CONFLICT");
    ck_assert_eval(L, "(shadowing-import (find-symbol \"X\" \"UA\") \"UB\")", "T");
    ck_assert_eval(L, "(use-package \"UA\" \"UB\")", "T");
    ck_assert_eval(L, "(multiple-value-list (find-symbol \"X\" \"UB\"))", "(UA:X :INTERNAL)");
    ck_assert_eval(L, "(package-shadowing-symbols \"UB\")", "(UA:X)");
    /* exporting a symbol whose name an inheriting package already has */
    unit_eval(L, "(make-package \"UC\" :use '(\"UA\")) (intern \"Y\" \"UC\")");
    ck_assert_str_eq(unit_eval_type(L, "(export (intern \"Y\" \"UA\") \"UA\")", "name-conflict"), "NAME-CONFLICT");
    ck_assert_eval(L, "(use-package \"UA\" (make-package \"UD\" :use nil))", "T");
}
END_TEST

START_TEST(test_locks) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(unit_eval_type(L, "(intern \"UNIT-NEW\" \"CL\")", "package-locked-error"), "PACKAGE-LOCKED-ERROR");
    ck_assert_str_eq(unit_eval_type(L, "(read-from-string \"cl::unit-new\")", "package-locked-error"), "PACKAGE-LOCKED-ERROR");
    ck_assert_str_eq(unit_eval_type(L, "(delete-package \"KEYWORD\")", "package-locked-error"), "PACKAGE-LOCKED-ERROR");
    ck_assert_str_eq(unit_eval_type(L, "(delete-package \"SYSTEM\")", "package-locked-error"), "PACKAGE-LOCKED-ERROR");
    ck_assert_str_eq(unit_eval_type(L, "(defun car (x) x)", "symbol-package-locked-error"), "SYMBOL-PACKAGE-LOCKED-ERROR");
    ck_assert_eval(L, "(car '(1))", "1");
    /* WITHOUT-PACKAGE-LOCKS lifts the lock; protected packages still cannot be deleted */
    ck_assert_eval(L, "(symbol-name (tinycl:without-package-locks (intern \"UNIT-UNLOCKED\" \"CL\")))",
                   "\"UNIT-UNLOCKED\"");
    ck_assert_str_eq(unit_eval_type(L, "(tinycl:without-package-locks (delete-package \"CL\"))", "package-locked-error"), "PACKAGE-LOCKED-ERROR");
    ck_assert(package_locks_active(L));
}
END_TEST

START_TEST(test_iteration_lists) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(make-package \"UI\" :use '(\"CL\")) (export (intern \"E\" \"UI\") \"UI\") (intern \"I\" \"UI\")");
    ck_assert_eval(L, "(let ((n 0)) (do-external-symbols (s \"UI\" n) (declare (ignore s)) (setq n (+ n 1))))", "1");
    ck_assert_eval(L, "(let ((n 0)) (do-symbols (s \"UI\") (declare (ignore s)) (setq n (+ n 1))) (> n 900))", "T");
    ck_assert_eval(L, "(list-length (sys::%package-symbols \"UI\" t nil nil))", "1");
}
END_TEST

START_TEST(test_defpackage_engine) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defpackage \"UDP\" (:use \"CL\") (:export \"A\") (:shadow \"CAR\") (:nicknames \"UDPN\"))",
                   "#<PACKAGE \"UDP\">");
    ck_assert_eval(L, "(list (nth-value 1 (find-symbol \"A\" \"UDP\")) (eq (find-symbol \"CAR\" \"UDP\") 'car))",
                   "(:EXTERNAL NIL)");
    ck_assert_str_eq(unit_eval_error(L, "(macroexpand '(defpackage \"UDP2\" (:bogus)))"), "PROGRAM-ERROR");
}
END_TEST

static Suite *package_suite(void) {
    Suite *s = suite_create("package");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_find_and_intern_from_c);
    tcase_add_test(tc, test_package_designators);
    tcase_add_test(tc, test_make_delete_rename);
    tcase_add_test(tc, test_name_conflicts);
    tcase_add_test(tc, test_locks);
    tcase_add_test(tc, test_iteration_lists);
    tcase_add_test(tc, test_defpackage_engine);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(package_suite)
