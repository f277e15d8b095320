/* test_sequence.c: unit tests of the sequence functions (CLHS chapter 17); expected values from SBCL. */
#include "unit.h"

#define ck_error(L, code, type) ck_assert_str_eq(unit_eval_error((L), (code)) ?: "no error", (type))

START_TEST(test_length_elt) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(list (length '(1 2 3)) (length nil) (length #(1 2)) (length \"hello\") (length #*10110))",
                   "(3 0 2 5 5)");
    ck_error(L, "(length '(1 2 . 3))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2))) (rplacd (cdr x) x) (length x))", "TYPE-ERROR");
    ck_error(L, "(length 5)", "TYPE-ERROR");
    ck_assert_eval(L, "(list (elt '(a b c) 2) (elt #(a b c) 0) (elt \"abc\" 1) (elt #*0100 1))", "(C A #\\b 1)");
    ck_error(L, "(elt '(1 2 3) 3)", "TYPE-ERROR");
    ck_error(L, "(elt #(1 2 3) 5)", "TYPE-ERROR");
    ck_error(L, "(elt '(1 2 3) -1)", "TYPE-ERROR");
    ck_error(L, "(elt '(1 2 . 3) 2)", "TYPE-ERROR");
    ck_assert_eval(L, "(let ((l (list 1 2 3))) (setf (elt l 1) 'x) l)", "(1 X 3)");
    ck_assert_eval(L, "(let ((s (copy-seq \"abc\"))) (setf (elt s 0) #\\z) s)", "\"zbc\"");
    ck_error(L, "(let ((s (copy-seq \"abc\"))) (setf (elt s 0) 1))", "TYPE-ERROR");
    ck_error(L, "(let ((b (copy-seq #*01))) (setf (elt b 0) 2))", "TYPE-ERROR");
}
END_TEST

START_TEST(test_subseq_copy_reverse) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(subseq '(1 2 3 4) 1 3)", "(2 3)");
    ck_assert_eval(L, "(subseq '(1 2 3) 3)", "NIL");
    ck_assert_eval(L, "(subseq #(1 2 3 4) 1 3)", "#(2 3)");
    ck_assert_eval(L, "(subseq \"hello\" 1 nil)", "\"ello\"");
    ck_assert_eval(L, "(subseq #*110011 2)", "#*0011");
    ck_error(L, "(subseq '(1 2 3) 1 5)", "TYPE-ERROR");
    ck_error(L, "(subseq '(1 2 3) 4)", "TYPE-ERROR");
    ck_error(L, "(subseq #(1 2 3) 2 1)", "TYPE-ERROR");
    ck_assert_eval(L, "(handler-case (subseq \"abc\" 0 4) (type-error (e) (type-error-datum e)))", "(0 . 4)");
    ck_assert_eval(L, "(let ((l (list 1 2 3 4))) (setf (subseq l 1 3) '(a b c)) l)", "(1 A B 4)");
    ck_assert_eval(L, "(let ((s (copy-seq \"hello\"))) (list (setf (subseq s 0 2) \"ABC\") s))", "(\"ABC\" \"ABllo\")");
    ck_assert_eval(L, "(let ((l (list 1 2))) (eq l (copy-seq l)))", "NIL");
    ck_assert_eval(L, "(copy-seq #*101)", "#*101");
    ck_error(L, "(copy-seq '(1 2 . 3))", "TYPE-ERROR");
    ck_assert_eval(L, "(list (reverse '(1 2 3)) (reverse #(1 2 3)) (reverse \"abc\") (reverse #*1100))",
                   "((3 2 1) #(3 2 1) \"cba\" #*0011)");
    ck_assert_eval(L, "(list (nreverse (list 1 2 3 4)) (nreverse (copy-seq \"hello\")))", "((4 3 2 1) \"olleh\")");
    ck_assert_eval(L, "(let ((v (copy-seq #(1 2 3)))) (eq v (nreverse v)))", "T");
    ck_error(L, "(reverse '(1 2 . 3))", "TYPE-ERROR");
}
END_TEST

START_TEST(test_concatenate_make_sequence) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(concatenate 'list '(1) #(2) \"ab\")", "(1 2 #\\a #\\b)");
    ck_assert_eval(L, "(concatenate 'string \"ab\" '(#\\c) #(#\\d))", "\"abcd\"");
    ck_assert_eval(L, "(concatenate 'vector '(1 2) #(3))", "#(1 2 3)");
    ck_assert_eval(L, "(concatenate 'bit-vector '(1 0) #*11)", "#*1011");
    ck_assert_eval(L, "(concatenate '(vector t 2) '(1) '(2))", "#(1 2)");
    ck_error(L, "(concatenate '(vector t 3) '(1) '(2))", "SIMPLE-TYPE-ERROR");
    ck_error(L, "(concatenate 'string \"ab\" '(1))", "TYPE-ERROR");
    ck_error(L, "(concatenate 'integer '(1))", "TYPE-ERROR");
    ck_error(L, "(concatenate 'null '(1))", "SIMPLE-TYPE-ERROR");
    ck_assert_eval(L, "(concatenate 'null)", "NIL");
    ck_assert_eval(L, "(make-sequence 'list 3 :initial-element 7)", "(7 7 7)");
    ck_assert_eval(L, "(make-sequence 'vector 3)", "#(0 0 0)");
    ck_assert_eval(L, "(make-sequence 'string 3 :initial-element #\\a)", "\"aaa\"");
    ck_assert_eval(L, "(make-sequence 'bit-vector 3 :initial-element 1)", "#*111");
    ck_assert_eval(L, "(make-sequence '(simple-string 3) 3 :initial-element #\\x)", "\"xxx\"");
    ck_assert_eval(L, "(make-sequence '(array t (2)) 2 :initial-element 0)", "#(0 0)");
    ck_assert_eval(L, "(make-sequence 'cons 2)", "(NIL NIL)");
    ck_error(L, "(make-sequence 'cons 0)", "SIMPLE-TYPE-ERROR");
    ck_error(L, "(make-sequence '(vector t 5) 3)", "SIMPLE-TYPE-ERROR");
    ck_error(L, "(make-sequence 'array 3)", "TYPE-ERROR");
    ck_error(L, "(make-sequence 'string 3 :initial-element 1)", "TYPE-ERROR");
    ck_error(L, "(make-sequence 'list -1)", "TYPE-ERROR");
    ck_error(L, "(make-sequence 'vector 34359738368)", "STORAGE-CONDITION");
}
END_TEST

START_TEST(test_map_reduce_quantifiers) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(map 'list #'+ '(1 2 3) #(10 20))", "(11 22)");
    ck_assert_eval(L, "(map 'string #'identity '(#\\a #\\b))", "\"ab\"");
    ck_assert_eval(L, "(let (r) (list (map nil (lambda (x) (push x r)) '(1 2)) r))", "(NIL (2 1))");
    ck_error(L, "(map '(vector t 3) #'+ '(1 2 3) #(10 20))", "SIMPLE-TYPE-ERROR");
    ck_error(L, "(map 'list #'1+ '(1 2 . 3))", "TYPE-ERROR");
    ck_assert_eval(L, "(map-into (list 1 2 3) #'+ '(1 2 3) '(10 20))", "(11 22 3)");
    ck_assert_eval(L, "(map-into (list 1 2 3) (lambda () 7))", "(7 7 7)");
    ck_assert_eval(L, "(reduce #'list '(1 2 3 4))", "(((1 2) 3) 4)");
    ck_assert_eval(L, "(reduce #'list '(1 2 3 4) :from-end t)", "(1 (2 (3 4)))");
    ck_assert_eval(L, "(reduce #'list '(1 2 3 4) :from-end t :initial-value 0)", "(1 (2 (3 (4 0))))");
    ck_assert_eval(L, "(list (reduce #'+ nil) (reduce #'list '(1) :key #'-) (reduce #'+ nil :initial-value 5))", "(0 -1 5)");
    ck_assert_eval(L, "(reduce #'list #(1 2 3 4 5) :start 1 :end 4 :from-end t)", "(2 (3 4))");
    ck_error(L, "(reduce #'+ '(1 2 3) :end 4)", "TYPE-ERROR");
    ck_assert_eval(L, "(list (every #'numberp '(1 2)) (every #'< '(1 2) '(2 3 0)) (every #'numberp #()))", "(T T T)");
    ck_assert_eval(L, "(list (some #'+ '(1 2) '(3)) (notany #'> '(1 2) '(2 3)) (notevery #'> '(1 2) '(2 3)))", "(4 T T)");
    ck_error(L, "(some #'null '(1 2 . 3))", "TYPE-ERROR");
    ck_error(L, "(every #'null 5)", "TYPE-ERROR");
}
END_TEST

START_TEST(test_find_position_count) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(list (find 2 '(1 2 3)) (find 5 '(1 2 3)) (find #\\l \"hello\") (find 1.0 '(1 1.0)))", "(2 NIL #\\l 1.0)");
    ck_assert_eval(L, "(find 1 '((1 a) (1 b)) :key #'car :from-end t)", "(1 B)");
    ck_assert_eval(L, "(find 1 #((1 a) (1 b)) :key #'car :from-end t)", "(1 B)");
    ck_assert_eval(L, "(find 3 '(1 2 3 4) :test #'<)", "4");
    ck_assert_eval(L, "(find 1 '(1 1 2) :test-not #'=)", "2");
    ck_assert_eval(L, "(list (find 1 '(1 2 3) :start 5) (find 1 '(1 2 3) :end 5))", "(NIL 1)");
    ck_error(L, "(find 5 '(1 2 3) :end 5)", "TYPE-ERROR");
    ck_error(L, "(find 1 #(1 2 3) :start 5)", "TYPE-ERROR");
    ck_error(L, "(find 5 '(1 2 . 3))", "TYPE-ERROR");
    ck_error(L, "(let ((x (list 1 2))) (rplacd (cdr x) x) (find 5 x))", "TYPE-ERROR");
    ck_error(L, "(find 1 '(1) :test #'eql :test-not #'eql)", "SIMPLE-ERROR");
    ck_assert_eval(L, "(list (position #\\l \"hello\") (position #\\l \"hello\" :from-end t) (position 1 '(1 2 1 3) :from-end t))",
                   "(2 3 2)");
    ck_assert_eval(L, "(list (position 1 '(1 2 1 3) :start 1) (position 3 #(1 2 3 4) :start 1 :end 2))", "(2 NIL)");
    ck_assert_eval(L, "(position-if #'listp '(1 (2) 3))", "1");
    ck_assert_eval(L, "(position-if-not #'numberp #(1 a 3 b) :from-end t)", "3");
    ck_assert_eval(L, "(position 0 #*1101)", "2");
    ck_assert_eval(L, "(list (count 1 '(1 2 1 3)) (count #\\a \"banana\") (count 1 #*10111) (count 1 '(1 1 1 1) :start 1 :end 3))",
                   "(2 3 4 2)");
    ck_assert_eval(L, "(count-if #'listp '(1 (2) (3)))", "2");
    ck_assert_eval(L, "(count-if-not #'listp #(1 (2) 3))", "2");
    ck_error(L, "(count 1 '(1 2 3) :end 5)", "TYPE-ERROR");
    ck_error(L, "(count 1 '(1 2 3) :start 5)", "TYPE-ERROR");
}
END_TEST

START_TEST(test_remove_delete) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(remove 1 '(1 2 1 3))", "(2 3)");
    ck_assert_eval(L, "(let ((l (list 1 2))) (eq l (remove 5 l)))", "NIL");
    ck_assert_eval(L, "(list (remove 1 #(1 2 1 3)) (remove #\\l \"hello\") (remove 1 #*10110))", "(#(2 3) \"heo\" #*00)");
    ck_assert_eval(L, "(remove 1 '(1 2 1 3 1) :count 2)", "(2 3 1)");
    ck_assert_eval(L, "(remove 1 '(1 2 1 3 1) :count 2 :from-end t)", "(1 2 3)");
    ck_assert_eval(L, "(remove 1 #(1 2 1 3 1) :count 1 :from-end t)", "#(1 2 1 3)");
    ck_assert_eval(L, "(list (remove 1 '(1 2) :count 0) (remove 1 '(1 1) :count -1))", "((1 2) (1 1))");
    ck_assert_eval(L, "(remove 1 '(1 1 1 1 1) :start 1 :end 4 :count 2 :from-end t)", "(1 1 1)");
    ck_assert_eval(L, "(remove 2 '(1 2 3 4) :test #'<)", "(1 2)");
    ck_assert_eval(L, "(remove 1 '(1 2) :test #'eql :test-not #'eql)", "(1)");
    ck_error(L, "(remove 3 '(1 2 3) :end 5)", "TYPE-ERROR");
    ck_error(L, "(remove 1 '(1 2 . 3))", "TYPE-ERROR");
    ck_assert_eval(L, "(remove-if #'listp '(1 (2) 3))", "(1 3)");
    ck_assert_eval(L, "(remove-if-not #'listp #(1 (2) 3))", "#((2))");
    ck_assert_eval(L, "(delete 1 (list 1 2 1 3))", "(2 3)");
    ck_assert_eval(L, "(delete 1 (list 1 1 1))", "NIL");
    ck_assert_eval(L, "(delete 1 (list 1 2 1 3 1) :count 2 :from-end t)", "(1 2 3)");
    ck_assert_eval(L, "(delete #\\a (copy-seq \"banana\"))", "\"bnn\"");
    ck_assert_eval(L, "(delete-if #'listp (list 1 '(2) 3 '(4)))", "(1 3)");
    ck_assert_eval(L, "(delete-if-not #'listp (copy-seq #(1 (2) 3)))", "#((2))");
}
END_TEST

START_TEST(test_duplicates_substitute) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(remove-duplicates '(1 2 3 1 2))", "(3 1 2)");
    ck_assert_eval(L, "(remove-duplicates '(1 2 3 1 2) :from-end t)", "(1 2 3)");
    ck_assert_eval(L, "(list (remove-duplicates \"banana\") (remove-duplicates \"banana\" :from-end t))", "(\"bna\" \"ban\")");
    ck_assert_eval(L, "(remove-duplicates '((a 1) (b 2) (a 3)) :key #'car)", "((B 2) (A 3))");
    ck_assert_eval(L, "(remove-duplicates '(1 1 2 1 1) :start 1 :end 4)", "(1 2 1 1)");
    ck_assert_eval(L, "(let (calls) (remove-duplicates '(1 2 1) :test (lambda (a b) (push (list a b) calls) (eql a b))) (nreverse calls))",
                   "((1 2) (1 1) (2 1))");
    ck_assert_eval(L, "(let ((r nil) (k 0)) (dotimes (i 100) (push k r) (setq k (if (= k 6) 0 (1+ k)))) (remove-duplicates r))", "(6 5 4 3 2 1 0)");
    ck_assert_eval(L, "(let ((r nil) (k 0)) (dotimes (i 100) (push (list k) r) (setq k (if (= k 6) 0 (1+ k)))) (length (remove-duplicates r :test #'equal)))", "7");
    ck_assert_eval(L, "(delete-duplicates (list 1 2 3 1 2))", "(3 1 2)");
    ck_assert_eval(L, "(substitute 9 1 '(1 2 1))", "(9 2 9)");
    ck_assert_eval(L, "(substitute #\\. #\\space \"a b c\")", "\"a.b.c\"");
    ck_assert_eval(L, "(substitute 9 1 '(1 1 1) :count 2 :from-end t)", "(1 9 9)");
    ck_assert_eval(L, "(substitute 9 1 #(1 1 1 1) :start 1 :end 3)", "#(1 9 9 1)");
    ck_error(L, "(substitute 1 #\\a \"abc\")", "TYPE-ERROR");
    ck_assert_eval(L, "(substitute-if 0 #'listp '(1 (2) 3))", "(1 0 3)");
    ck_assert_eval(L, "(substitute-if-not 0 #'listp #(1 (2) 3))", "#(0 (2) 0)");
    ck_assert_eval(L, "(let ((l (list 1 2 1))) (list (eq l (nsubstitute 9 1 l)) l))", "(T (9 2 9))");
    ck_assert_eval(L, "(nsubstitute #\\x #\\a (copy-seq \"banana\") :start 2)", "\"banxnx\"");
    ck_assert_eval(L, "(nsubstitute-if 0 #'listp (list 1 '(2)))", "(1 0)");
    ck_assert_eval(L, "(nsubstitute-if-not 0 #'listp (list 1 2) :count 1)", "(0 2)");
}
END_TEST

START_TEST(test_fill_replace_search_mismatch) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(fill (list 1 2 3) 0)", "(0 0 0)");
    ck_assert_eval(L, "(fill (copy-seq #(1 2 3 4)) 'x :start 1 :end 3)", "#(1 X X 4)");
    ck_assert_eval(L, "(fill (copy-seq \"hello\") #\\z :start 3)", "\"helzz\"");
    ck_error(L, "(fill (copy-seq \"abc\") 1)", "TYPE-ERROR");
    ck_error(L, "(fill (list 1 2 3) 0 :end 4)", "TYPE-ERROR");
    ck_assert_eval(L, "(replace (list 1 2 3 4) '(a b) :start1 1)", "(1 A B 4)");
    ck_assert_eval(L, "(replace (copy-seq \"hello\") \"XY\" :start1 3)", "\"helXY\"");
    ck_assert_eval(L, "(replace (list 1 2 3 4) '(a b c d) :start2 2)", "(C D 3 4)");
    ck_assert_eval(L, "(let ((v (copy-seq #(1 2 3 4 5)))) (replace v v :start1 1) v)", "#(1 1 2 3 4)");
    ck_assert_eval(L, "(let ((v (copy-seq #(1 2 3 4 5)))) (replace v v :start2 1) v)", "#(2 3 4 5 5)");
    ck_assert_eval(L, "(let ((l (list 1 2 3 4 5))) (replace l l :start1 2) l)", "(1 2 1 2 3)");
    ck_assert_eval(L, "(replace (copy-seq #(1 2 3)) \"xy\")", "#(#\\x #\\y 3)");
    ck_error(L, "(replace (copy-seq \"abc\") '(1))", "TYPE-ERROR");
    ck_assert_eval(L, "(list (search \"bc\" \"abcbc\") (search \"bc\" \"abcbc\" :from-end t) (search \"x\" \"abc\"))", "(1 3 NIL)");
    ck_assert_eval(L, "(list (search \"\" \"abc\") (search \"\" \"abc\" :from-end t))", "(0 3)");
    ck_assert_eval(L, "(search '(1 2) #(0 1 2 1 2) :start2 2)", "3");
    ck_assert_eval(L, "(search '(1) '((0) (1)) :key (lambda (x) (if (consp x) (car x) x)))", "1");
    ck_assert_eval(L, "(let (calls) (search '(1 2) '(3 4 5) :test (lambda (a b) (push (list a b) calls) nil)) (nreverse calls))",
                   "((1 3) (1 4))");
    ck_assert_eval(L, "(list (mismatch \"abc\" \"abd\") (mismatch \"ab\" \"abd\") (mismatch '(1 2 3) #(1 2 3)))", "(2 2 NIL)");
    ck_assert_eval(L, "(list (mismatch \"abcd\" \"xbcd\" :from-end t) (mismatch \"abc\" \"bc\" :from-end t) (mismatch \"bc\" \"abc\" :from-end t))",
                   "(1 1 0)");
    ck_assert_eval(L, "(mismatch \"abcde\" \"xxbcx\" :start1 1 :end1 4 :start2 2)", "3");
    ck_error(L, "(search '(1) '(1 2 3) :start2 5)", "TYPE-ERROR");
}
END_TEST

START_TEST(test_sort_merge) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(sort (list 3 1 2) #'<)", "(1 2 3)");
    ck_assert_eval(L, "(sort (copy-seq #(3 1 2)) #'>)", "#(3 2 1)");
    ck_assert_eval(L, "(sort (list '(3 a) '(1 b) '(2 c)) #'< :key #'car)", "((1 B) (2 C) (3 A))");
    ck_assert_eval(L, "(sort (list 2.5 1 3/2 -1) #'<)", "(-1 1 3/2 2.5)");
    ck_assert_eval(L, "(sort (list 3 1 2) (lambda (a b) (> a b)))", "(3 2 1)");
    ck_error(L, "(sort (list 1 'a) #'<)", "TYPE-ERROR");
    ck_error(L, "(sort 5 #'<)", "TYPE-ERROR");
    ck_error(L, "(sort (list* 1 2 3) #'<)", "TYPE-ERROR");
    ck_assert_eval(L, "(stable-sort (list '(1 a) '(0 b) '(1 c) '(0 d)) #'< :key #'car)", "((0 B) (0 D) (1 A) (1 C))");
    ck_assert_eval(L, "(let ((r nil) (k 0)) (dotimes (i 40) (push (cons k i) r) (setq k (if (= k 2) 0 (1+ k)))) (mapcar #'cdr (subseq (stable-sort r #'< :key #'car) 0 5)))",
                   "(39 36 33 30 27)");
    ck_assert_eval(L, "(let ((r nil) (k 0)) (dotimes (i 1000) (push k r) (setq k (+ k 7919)) (do () ((< k 1009)) (setq k (- k 1009)))) (let ((s (sort r #'<))) (list (first s) (nth 500 s) (car (last s)))))",
                   "(0 506 1008)");
    /* a predicate that exits leaves the sequence intact, and the frame stack sound */
    ck_assert_eval(L, "(let ((v (copy-seq #(3 1 2)))) (list (block nil (sort v (lambda (a b) (return :escaped)))) (copy-seq v) (sort v #'<)))",
                   "(:ESCAPED #(3 1 2) #(1 2 3))");
    ck_assert_eval(L, "(let ((l (list 3 1 2))) (list (catch 'out (sort l (lambda (a b) (throw 'out :thrown)))) (copy-list l) (sort l #'<)))",
                   "(:THROWN (3 1 2) (1 2 3))");
    ck_assert_eval(L, "(let ((l (list 3 1 2))) (list (ignore-errors (sort l (lambda (a b) (error \"no\")))) l))", "(NIL (3 1 2))");
    ck_assert_eval(L, "(merge 'list (list 1 3 5) (list 2 4 6) #'<)", "(1 2 3 4 5 6)");
    ck_assert_eval(L, "(merge 'vector (list 1 3 5) #(2 4 6) #'<)", "#(1 2 3 4 5 6)");
    ck_assert_eval(L, "(merge 'list (list '(1 a) '(2 b)) (list '(1 c) '(3 d)) #'< :key #'car)", "((1 A) (1 C) (2 B) (3 D))");
    ck_error(L, "(merge 'integer (list 1) (list 2) #'<)", "TYPE-ERROR");
}
END_TEST

static Suite *sequence_suite(void) {
    Suite *s = suite_create("sequence");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_length_elt);
    tcase_add_test(tc, test_subseq_copy_reverse);
    tcase_add_test(tc, test_concatenate_make_sequence);
    tcase_add_test(tc, test_map_reduce_quantifiers);
    tcase_add_test(tc, test_find_position_count);
    tcase_add_test(tc, test_remove_delete);
    tcase_add_test(tc, test_duplicates_substitute);
    tcase_add_test(tc, test_fill_replace_search_mismatch);
    tcase_add_test(tc, test_sort_merge);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(sequence_suite)
