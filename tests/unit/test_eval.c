/* test_eval.c: unit tests of the evaluator: special operators, closures, exits, lambda lists. */
#include "unit.h"

START_TEST(test_arith_and_calls) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(+ 1 2)", "3");
    ck_assert_eval(L, "(defun sq (x) (* x x)) (sq 12)", "144");
    ck_assert_eval(L, "(defun fact (n) (if (= n 0) 1 (* n (fact (- n 1))))) (fact 25)", "15511210043330985984000000");
}
END_TEST

START_TEST(test_closures_capture_fresh_bindings) {
    Lisp *L = unit_lisp();
    /* each iteration's let binding is captured separately */
    ck_assert_eval(L, "(let ((fs nil)) (dotimes (i 3) (let ((j i)) (push (lambda () j) fs))) (let ((r nil)) (dolist (f fs) (push (funcall f) r)) (sys::nreverse-boot r)))",
                   "(2 1 0)");
    ck_assert_eval(L, "(let ((n 0)) (let ((inc (lambda () (setq n (+ n 1))))) (funcall inc) (funcall inc) n))", "2");
}
END_TEST

START_TEST(test_nonlocal_exits) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(block b (funcall (lambda () (return-from b 42))) 1)", "42");
    ck_assert_eval(L, "(let ((x 0)) (tagbody (funcall (lambda () (go out))) (setq x 1) out) x)", "0");
    ck_assert_eval(L, "(catch 'tag (unwind-protect (throw 'tag 1) 2))", "1");
    ck_assert_eval(L, "(let ((log nil)) (catch 'k (unwind-protect (throw 'k 1) (push :cleanup log))) log)", "(:CLEANUP)");
    ck_assert_str_eq(unit_eval_error(L, "(funcall (let ((f nil)) (block b (setq f (lambda () (return-from b 1)))) f))"),
                     "CONTROL-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(throw 'nowhere 1)"), "CONTROL-ERROR");
}
END_TEST

START_TEST(test_multiple_values) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(multiple-value-call #'list (values 1 2) (values) (values 3))", "(1 2 3)");
    ck_assert_eval(L, "(multiple-value-list (block b (return-from b (values 1 2))))", "(1 2)");
    ck_assert_eval(L, "(multiple-value-list (multiple-value-prog1 (values 1 2) (values 3 4)))", "(1 2)");
}
END_TEST

START_TEST(test_lambda_lists) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defun f (a &optional (b 2 bp) &rest r &key (k 9) ((:z zz) 8)) (list a b bp r k zz)) (f 1)",
                   "(1 2 NIL NIL 9 8)");
    ck_assert_eval(L, "(f 1 3 :z 1 :k 2)", "(1 3 T (:Z 1 :K 2) 2 1)");
    ck_assert_str_eq(unit_eval_error(L, "(f 1 2 :bad 3)"), "PROGRAM-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(f)"), "PROGRAM-ERROR");
    ck_assert_eval(L, "(destructuring-bind (a (b . c) &optional (d 4)) '(1 (2 . 3)) (list a b c d))", "(1 2 3 4)");
}
END_TEST

START_TEST(test_specials) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defvar *v* 1) (defun getv () *v*) (list (let ((*v* 2)) (getv)) (getv))", "(2 1)");
    /* a special binding is undone by a non-local exit */
    ck_assert_eval(L, "(catch 'x (let ((*v* 5)) (throw 'x nil))) *v*", "1");
}
END_TEST

START_TEST(test_deep_recursion_is_an_error) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(unit_eval_error(L, "(defun inf (n) (+ 1 (inf n))) (inf 1)"), "STORAGE-CONDITION");
    ck_assert_eval(L, "(+ 1 1)", "2");
}
END_TEST

START_TEST(test_deep_structures_in_c_code) {
    /* the C recursions of EQUAL, COPY-TREE, SXHASH-free printing and the reader stop at the stack limit */
    Lisp *L = unit_lisp();
    unit_eval(L, "(defvar *a* nil) (defvar *b* nil) (dotimes (i 600000) (setq *a* (list *a*) *b* (list *b*)))");
    ck_assert_str_eq(unit_eval_error(L, "(equal *a* *b*)"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(equalp *a* *b*)"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(copy-tree *a*)"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(write-to-string *a* :level nil :length nil :circle nil)"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(read-from-string (make-string 100000 :initial-element #\\())"), "READER-ERROR");
    ck_assert_eval(L, "(+ 1 1)", "2");
}
END_TEST

static Suite *eval_suite(void) {
    Suite *s = suite_create("eval");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_arith_and_calls);
    tcase_add_test(tc, test_closures_capture_fresh_bindings);
    tcase_add_test(tc, test_nonlocal_exits);
    tcase_add_test(tc, test_multiple_values);
    tcase_add_test(tc, test_lambda_lists);
    tcase_add_test(tc, test_specials);
    tcase_add_test(tc, test_deep_recursion_is_an_error);
    tcase_add_test(tc, test_deep_structures_in_c_code);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(eval_suite)
