/* test_list.c: unit tests of the list functions (CLHS chapter 14); expected values from SBCL. */
#include "unit.h"

#define ck_error(L, code, type) ck_assert_str_eq(unit_eval_error((L), (code)) ?: "no error", (type))

START_TEST(test_conses_and_accessors) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(list* 1 2 '(3 4))", "(1 2 3 4)");
    ck_assert_eval(L, "(cadadr '(1 (2 3) 4))", "3");
    ck_assert_eval(L, "(tenth '(1 2))", "NIL");
    ck_assert_eval(L, "(nth 10 '(a b))", "NIL");
    ck_assert_eval(L, "(nthcdr 2 '(1 2 . 3))", "3");
    ck_error(L, "(nth 2 '(1 2 . 3))", "TYPE-ERROR");
    ck_error(L, "(caddr '(1 2 . 3))", "TYPE-ERROR");
    ck_error(L, "(endp 5)", "TYPE-ERROR");
}
END_TEST

START_TEST(test_setf_accessors) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(let ((x (list 1 2 3))) (setf (car x) 9 (caddr x) 7) x)", "(9 2 7)");
    ck_assert_eval(L, "(let ((x (list (list (list 1))))) (setf (caaar x) 5) x)", "(((5)))");
    ck_assert_eval(L, "(let ((x (list 1 (list 2)))) (setf (cdadr x) 9) x)", "(1 (2 . 9))");
    ck_assert_eval(L, "(let ((x (list 1 2 3 4 5 6 7 8 9 10))) (setf (second x) 'b (tenth x) 'j) x)",
                   "(1 B 3 4 5 6 7 8 9 J)");
    ck_assert_eval(L, "(let ((x (list 1 2 3))) (list (setf (nth 2 x) 9) x))", "(9 (1 2 9))");
    ck_assert_eval(L, "(let ((x (list 1 2 3))) (incf (nth 1 x) 10) x)", "(1 12 3)");
    ck_error(L, "(let ((x (list 1 2 3))) (setf (nth 5 x) 9))", "TYPE-ERROR");
    ck_error(L, "(let ((x 5)) (setf (car x) 1))", "TYPE-ERROR");
}
END_TEST

START_TEST(test_list_length_and_circularity) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(list-length '(1 2 3))", "3");
    ck_assert_eval(L, "(let ((x (list 1 2 3))) (rplacd (cddr x) x) (list-length x))", "NIL");
    ck_error(L, "(list-length '(1 2 . 3))", "TYPE-ERROR");
    /* circular lists are errors, never hangs */
    ck_error(L, "(let ((x (list 1 2 3))) (rplacd (cddr x) x) (last x))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2 3))) (rplacd (cddr x) x) (append x '(4)))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2 3))) (rplacd (cddr x) x) (nconc x '(4)))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2 3))) (rplacd (cddr x) x) (member 9 x))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1))) (rplacd x x) (assoc 9 x))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2))) (rplacd (cdr x) x) (copy-list x))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2))) (rplacd (cdr x) x) (mapcar #'cons x x))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2))) (rplacd (cdr x) x) (mapc #'identity x))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list :a 1))) (rplacd (cdr x) x) (getf x :b))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2))) (rplacd (cdr x) x) (butlast x))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2))) (rplacd (cdr x) x) (copy-tree x))", "TYPE-ERROR");
    /* a circular list beside a finite one is fine */
    ck_assert_eval(L, "(let ((c (list 0))) (rplacd c c) (mapcar #'+ '(1 2 3) c))", "(1 2 3)");
    ck_assert_eval(L, "(let ((c (list 0))) (rplacd c c) (maplist (lambda (a b) (car a)) '(1 2) c))", "(1 2)");
    ck_assert_eval(L, "(let ((x (list 1 2))) (rplacd (cdr x) x) (nth 5 x))", "2");
}
END_TEST

START_TEST(test_append_nconc_last) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(append '(1) '(2 3) nil '(4))", "(1 2 3 4)");
    ck_assert_eval(L, "(append '(1) 2)", "(1 . 2)");
    ck_error(L, "(append '(1 . 2) '(3))", "TYPE-ERROR");
    ck_assert_eval(L, "(nconc (cons 1 2) (list 3))", "(1 3)");
    ck_assert_eval(L, "(nconc nil 2)", "2");
    ck_error(L, "(nconc (list 1) 2 (list 3))", "TYPE-ERROR");
    ck_assert_eval(L, "(last '(1 2 3) 2)", "(2 3)");
    ck_assert_eval(L, "(last '(1 2 . 3))", "(2 . 3)");
    ck_assert_eval(L, "(last '(1 2 3) 0)", "NIL");
    ck_assert_eval(L, "(revappend '(1 2) 3)", "(2 1 . 3)");
    ck_assert_eval(L, "(nreconc (list 1 2 3) '(4))", "(3 2 1 4)");
    ck_error(L, "(make-list -1)", "TYPE-ERROR");
}
END_TEST

START_TEST(test_trees) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(copy-tree '(1 (2 (3 . 4)) 5))", "(1 (2 (3 . 4)) 5)");
    ck_assert_eval(L, "(let* ((a (list (list 1) 2)) (b (copy-tree a))) (eq (car a) (car b)))", "NIL");
    ck_assert_eval(L, "(tree-equal '(1 (2 3)) '(1 (2 3)))", "T");
    ck_assert_eval(L, "(tree-equal '(\"a\") '(\"a\"))", "NIL");
    ck_assert_eval(L, "(tree-equal '(\"a\" (\"b\")) '(\"a\" (\"b\")) :test #'equal)", "T");
    ck_assert_eval(L, "(subst 'x 'a '(a (b a) . a))", "(X (B X) . X)");
    ck_assert_eval(L, "(let ((tree (list 1 (list 2 3)))) (eq (second tree) (second (subst 'x 1 tree))))", "T");
    ck_assert_eval(L, "(subst-if 'x #'listp '(a (b)))", "X");
    ck_assert_eval(L, "(subst-if-not 'x #'consp '(1 (2)))", "(X (X . X) . X)");
    ck_assert_eval(L, "(nsubst 'x 'a (list 'a (list 'b 'a) 'c))", "(X (B X) C)");
    ck_assert_eval(L, "(sublis '((a . 1) (b . 2)) '(a (b c) . a))", "(1 (2 C) . 1)");
    ck_assert_eval(L, "(nsublis '((a . 1)) (list 'a (list 'a 'b)))", "(1 (1 B))");
    ck_assert_eval(L, "(let (calls) (sublis '((1 . 2)) '(3) :test (lambda (a b) (push (list a b) calls) nil)) (nreverse calls))",
                   "(((3) 1) (3 1) (NIL 1))");
    ck_error(L, "(subst 0 1 '(1) :test #'eql :test-not #'eql)", "SIMPLE-ERROR");
    /* long spines are walked iteratively */
    ck_assert_eval(L, "(length (subst 0 1 (make-list 200000 :initial-element 1)))", "200000");
}
END_TEST

START_TEST(test_tails) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(butlast '(1 2 3 4) 2)", "(1 2)");
    ck_assert_eval(L, "(butlast '(1 2 . 3))", "(1)");
    ck_assert_eval(L, "(butlast '(1 2 3) 5)", "NIL");
    ck_error(L, "(butlast '(1 2 3) -1)", "TYPE-ERROR");
    ck_assert_eval(L, "(let ((a (list 1 2 3))) (list (eq a (nbutlast a)) a))", "(T (1 2))");
    ck_assert_eval(L, "(let ((l (list 1 2 3))) (ldiff l (cdr l)))", "(1)");
    ck_assert_eval(L, "(ldiff '(1 2 3) '(2 3))", "(1 2 3)");
    ck_assert_eval(L, "(ldiff '(1 2 . 3) 3)", "(1 2)");
    ck_assert_eval(L, "(tailp 3 '(1 2 . 3))", "T");
    ck_assert_eval(L, "(tailp nil '(1 2))", "T");
    ck_assert_eval(L, "(tailp '(3) '(1 2 3))", "NIL");
}
END_TEST

START_TEST(test_member_assoc) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(member 2.0 '(1 2.0 3))", "(2.0 3)");
    ck_assert_eval(L, "(member \"b\" '(\"a\" \"b\"))", "NIL");
    ck_assert_eval(L, "(member \"b\" '(\"a\" \"b\") :test #'equal)", "(\"b\")");
    ck_assert_eval(L, "(member 2 '(1 2 3) :key #'1+)", "(1 2 3)");
    ck_assert_eval(L, "(member 1 '(1 1 2 1) :test-not #'eql)", "(2 1)");
    ck_assert_eval(L, "(let (calls) (member 1 '(5 6) :test (lambda (a b) (push (list a b) calls) nil)) (nreverse calls))",
                   "((1 5) (1 6))");
    ck_error(L, "(member 3 '(1 2 . 3))", "TYPE-ERROR");
    ck_error(L, "(member 1 '(1) :test #'eql :test-not #'eql)", "SIMPLE-ERROR");
    ck_assert_eval(L, "(member-if #'listp '(1 (2) 3))", "((2) 3)");
    ck_assert_eval(L, "(member-if-not #'numberp '(1 a 3))", "(A 3)");
    ck_assert_eval(L, "(assoc 'b '((a . 1) nil (b . 2)))", "(B . 2)");
    ck_assert_eval(L, "(assoc nil '(nil (nil . 1)))", "(NIL . 1)");
    ck_assert_eval(L, "(assoc 3 '((1 . a) (2 . b)) :key #'1+)", "(2 . B)");
    ck_assert_eval(L, "(assoc 'a '((a . 1) (b . 2)) :test-not #'eq)", "(B . 2)");
    ck_error(L, "(assoc 3 '((1 . 2) 5))", "TYPE-ERROR");
    ck_assert_eval(L, "(assoc-if #'numberp '((a . 1) (2 . b)))", "(2 . B)");
    ck_assert_eval(L, "(rassoc 'b '((1 . a) (2 . b)))", "(2 . B)");
    ck_assert_eval(L, "(rassoc-if-not #'symbolp '((1 . a) (2 . \"b\")))", "(2 . \"b\")");
    ck_assert_eval(L, "(acons 'a 1 '((b . 2)))", "((A . 1) (B . 2))");
    ck_assert_eval(L, "(pairlis '(a b c) '(1 2 3) '((z . 0)))", "((C . 3) (B . 2) (A . 1) (Z . 0))");
    ck_error(L, "(pairlis '(a b) '(1 2 3))", "SIMPLE-ERROR");
    ck_assert_eval(L, "(copy-alist '((a . 1) b (c . 2)))", "((A . 1) B (C . 2))");
}
END_TEST

START_TEST(test_sets) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(adjoin 2 '(1 2))", "(1 2)");
    ck_assert_eval(L, "(adjoin '(a 9) '((a 1) (b 2)) :key #'car)", "((A 1) (B 2))");
    ck_assert_eval(L, "(union '(1 2 3) '(2 3 4))", "(1 2 3 4)");
    ck_assert_eval(L, "(union '(1 2 3 5) '(2 3 4))", "(5 1 2 3 4)");
    ck_assert_eval(L, "(union '(1 2) '(2 3 4))", "(4 3 1 2)");
    ck_assert_eval(L, "(union '((a . 1) (b . 2)) '((b . 3) (c . 4)) :key #'car)", "((A . 1) (B . 3) (C . 4))");
    ck_assert_eval(L, "(let (calls) (union '(1 2) '(3 4 5) :test (lambda (a b) (push (list a b) calls) nil)) (nreverse calls))",
                   "((3 1) (3 2) (4 1) (4 2) (5 1) (5 2))");
    ck_assert_eval(L, "(nunion (list 1 2) (list 2 3 4))", "(4 3 1 2)");
    ck_assert_eval(L, "(intersection '(1 2 3 4) '(4 3 5))", "(4 3)");
    ck_assert_eval(L, "(nintersection (list 1 2 3 4 5) (list 5 1 3))", "(5 3 1)");
    ck_assert_eval(L, "(set-difference '(1 1 2 3) '(2))", "(3 1 1)");
    ck_assert_eval(L, "(nset-difference (list 1 2 3 4 5) (list 5 1 3))", "(4 2)");
    ck_assert_eval(L, "(set-exclusive-or '(1 2 3) '(2 3 4 5))", "(5 4 1)");
    ck_assert_eval(L, "(nset-exclusive-or (list 1 2 3 6) (list 2 3 4 5))", "(1 6 4 5)");
    ck_assert_eval(L, "(nset-exclusive-or (list 1 1 2) (list 2 3 3))", "(1 1 3 3)");
    ck_assert_eval(L, "(subsetp '(1 2) '(2 3 1))", "T");
    ck_assert_eval(L, "(subsetp '(1 4) '(2 3 1))", "NIL");
    ck_error(L, "(union '(1) '(2) :test #'eql :test-not #'eql)", "SIMPLE-ERROR");
    ck_error(L, "(union '(1 . 2) '(3))", "TYPE-ERROR");
    /* long lists go through hash tables with the same results */
    ck_assert_eval(L, "(let ((a nil) (b nil)) (dotimes (i 25) (push (- 24 i) a)) (dotimes (i 10) (push (- 29 i) b)) (union a b))",
                   "(19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0 20 21 22 23 24 25 26 27 28 29)");
    ck_assert_eval(L, "(let ((a nil) (b nil)) (dotimes (i 25) (push (- 24 i) a)) (dotimes (i 10) (push (- 29 i) b)) (intersection a b))",
                   "(24 23 22 21 20)");
}
END_TEST

START_TEST(test_plists) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(getf '(a 1 b 2) 'b)", "2");
    ck_assert_eval(L, "(getf '(a 1 b 2) 'c 9)", "9");
    ck_error(L, "(getf '(a 1 b) 'c)", "SIMPLE-TYPE-ERROR");
    ck_error(L, "(getf '(a 1 . b) 'c)", "TYPE-ERROR");
    ck_assert_eval(L, "(let ((p (list :a 1))) (setf (getf p :b) 2) (setf (getf p :a) 3) p)", "(:B 2 :A 3)");
    ck_assert_eval(L, "(let ((p nil)) (incf (getf p :n 10)) (incf (getf p :n 10)) p)", "(:N 12)");
    ck_assert_eval(L, "(let ((x (list 1 (list :a 1)))) (setf (getf (second x) :a) 9) x)", "(1 (:A 9))");
    ck_assert_eval(L, "(let ((p (list :a 1 :b 2 :c 3))) (list (remf p :b) p))", "(T (:A 1 :C 3))");
    ck_assert_eval(L, "(let ((p (list :a 1 :b 2))) (list (remf p :a) p (remf p :z)))", "(T (:B 2) NIL)");
    ck_assert_eval(L, "(multiple-value-list (get-properties '(a 1 b 2 c 3) '(c b)))", "(B 2 (B 2 C 3))");
    ck_assert_eval(L, "(multiple-value-list (get-properties '(a 1) '(z)))", "(NIL NIL NIL)");
}
END_TEST

START_TEST(test_pushnew) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(let ((l (list 1 2))) (pushnew 1 l) (pushnew 3 l) l)", "(3 1 2)");
    ck_assert_eval(L, "(let ((l (list '(a . 1)))) (pushnew '(a . 2) l :key #'car) l)", "((A . 1))");
    ck_assert_eval(L, "(let ((l (list \"a\"))) (pushnew \"a\" l :test #'equal) l)", "(\"a\")");
    ck_assert_eval(L, "(let ((v (list (list 1)))) (pushnew 2 (car v)) v)", "((2 1))");
    ck_assert_eval(L, "(let ((i 0) (v (list nil nil nil))) (pushnew (incf i) (nth (incf i) v)) (list i v))", "(2 (NIL NIL (1)))");
}
END_TEST

START_TEST(test_mapping) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(mapcar #'1+ '(1 2 3))", "(2 3 4)");
    ck_assert_eval(L, "(mapcar #'list '(1 2) '(a b c))", "((1 A) (2 B))");
    ck_assert_eval(L, "(mapcar 'car '((1) (2)))", "(1 2)");
    ck_error(L, "(mapcar #'1+ '(1 2 . 3))", "TYPE-ERROR");
    ck_assert_eval(L, "(mapcar #'+ '(1 2 3) '(1 2 3 . 4))", "(2 4 6)");
    ck_assert_eval(L, "(let ((s 0)) (list (mapc (lambda (x) (setq s (+ s x))) '(1 2 3)) s))", "((1 2 3) 6)");
    ck_assert_eval(L, "(mapcan (lambda (x) (list x x)) '(1 2))", "(1 1 2 2)");
    ck_assert_eval(L, "(mapcan #'identity (list 1 (list 'a) 2))", "(A . 2)");
    ck_assert_eval(L, "(mapcan #'identity (list (list 'a) 1 (list 'b)))", "(A B)");
    ck_assert_eval(L, "(mapcan #'identity (list 1 2))", "2");
    ck_assert_eval(L, "(maplist #'append '(1 2 3) '(a b))", "((1 2 3 A B) (2 3 B))");
    ck_assert_eval(L, "(let (r) (list (mapl (lambda (x) (push (length x) r)) '(1 2 3)) r))", "((1 2 3) (1 2 3))");
    ck_assert_eval(L, "(mapcon #'copy-list '(1 2 3))", "(1 2 3 2 3 3)");
    ck_error(L, "(mapcar 5 '(1))", "TYPE-ERROR");
    ck_error(L, "(mapcar 'no-such-function-xyz '(1))", "UNDEFINED-FUNCTION");
    /* a function that exits non-locally leaves nothing behind */
    ck_assert_eval(L, "(block b (mapc (lambda (x) (if (eql x 2) (return-from b :out))) '(1 2 3)))", ":OUT");
}
END_TEST

static Suite *list_suite(void) {
    Suite *s = suite_create("list");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_conses_and_accessors);
    tcase_add_test(tc, test_setf_accessors);
    tcase_add_test(tc, test_list_length_and_circularity);
    tcase_add_test(tc, test_append_nconc_last);
    tcase_add_test(tc, test_trees);
    tcase_add_test(tc, test_tails);
    tcase_add_test(tc, test_member_assoc);
    tcase_add_test(tc, test_sets);
    tcase_add_test(tc, test_plists);
    tcase_add_test(tc, test_pushnew);
    tcase_add_test(tc, test_mapping);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(list_suite)
