/* test_array.c: unit tests of arrays: representation (runtime/array.h) and the CLHS chapter 15 functions. */
#include "unit.h"
#include "array.h"

/* ---- the C interface ---- */

START_TEST(test_representation_by_element_type) {
    Lisp *L = unit_lisp();
    size_t d3[1] = {3}, d23[2] = {2, 3};
    Obj v = array_create(L, 1, d3, UE_T, false, -1, NIL, 0);
    ck_assert(is_type(v, T_VECTOR));
    ck_assert(array_is_simple(v));
    Obj s = array_create(L, 1, d3, UE_CHARACTER, false, -1, NIL, 0);
    ck_assert(is_type(s, T_STRING));
    ck_assert_int_eq(array_uelt(s), UE_CHARACTER);
    Obj bs = array_create(L, 1, d3, UE_BASE_CHAR, false, -1, NIL, 0);
    ck_assert(is_type(bs, T_STRING));
    ck_assert(STR(bs)->h.flags & ARR_BASE);
    ck_assert_int_eq(array_uelt(bs), UE_BASE_CHAR);
    Obj b = array_create(L, 1, d3, UE_BIT, false, -1, NIL, 0);
    ck_assert(is_type(b, T_BITVECTOR));
    Obj m = array_create(L, 2, d23, UE_T, false, -1, NIL, 0);
    ck_assert(is_type(m, T_ARRAY));
    ck_assert_int_eq(array_rank(m), 2);
    ck_assert_uint_eq(array_total(m), 6);
    ck_assert(array_is_simple(m));
    /* a T vector with a fill pointer or adjustable is a general array */
    Obj fv = array_create(L, 1, d3, UE_T, false, 1, NIL, 0);
    ck_assert(is_type(fv, T_ARRAY));
    ck_assert(array_has_fill_pointer(fv));
    ck_assert_uint_eq(vector_length(fv), 1);
    ck_assert_uint_eq(array_total(fv), 3);
    Obj av = array_create(L, 1, d3, UE_T, true, -1, NIL, 0);
    ck_assert(is_type(av, T_ARRAY));
    ck_assert(!array_is_simple(av));
}
END_TEST

START_TEST(test_string_with_fill_pointer_is_a_string) {
    Lisp *L = unit_lisp();
    size_t d0[1] = {0};
    Obj s = array_create(L, 1, d0, UE_CHARACTER, true, 0, NIL, 0);
    ck_assert(is_type(s, T_STRING));
    ck_assert(STR(s)->h.flags & ARR_FILL_POINTER);
    ck_assert(STR(s)->h.flags & ARR_ADJUSTABLE);
    for (int i = 0; i < 100; i++) vector_push_extend(L, s, make_char('a' + i % 26), 0);
    ck_assert(is_type(s, T_STRING));
    ck_assert_uint_eq(STR(s)->len, 100);
    ck_assert_uint_ge(STR(s)->cap, 100);
    ck_assert_uint_eq(STR(s)->data[27], 'b');
    /* from Lisp too */
    ck_assert_eval(L, "(let ((s (make-array 0 :element-type 'character :fill-pointer 0 :adjustable t)))"
                      " (vector-push-extend #\\x s) (vector-push-extend #\\y s) (list s (stringp s) (fill-pointer s)))",
                   "(\"xy\" T 2)");
}
END_TEST

START_TEST(test_rm_access_and_element_checks) {
    Lisp *L = unit_lisp();
    size_t d[2] = {2, 2};
    Obj a = array_create(L, 2, d, UE_T, false, -1, NIL, 0);
    array_rm_set(L, a, 3, FIX(42));
    ck_assert(array_rm_ref(L, a, 3) == FIX(42));
    ck_assert(array_rm_ref(L, a, 0) == FIX(0));  /* SBCL's default */
    size_t d1[1] = {2};
    Obj b = array_create(L, 1, d1, UE_BIT, false, -1, NIL, 0);
    array_rm_set(L, b, 1, FIX(1));
    ck_assert(array_rm_ref(L, b, 1) == FIX(1));
    ck_assert(uelt_accepts(UE_BIT, FIX(1)));
    ck_assert(!uelt_accepts(UE_BIT, FIX(2)));
    ck_assert(uelt_accepts(UE_BASE_CHAR, make_char('a')));
    ck_assert(!uelt_accepts(UE_BASE_CHAR, make_char(0x3bb)));
    ck_assert(uelt_accepts(UE_CHARACTER, make_char(0x3bb)));
    ck_assert(!uelt_accepts(UE_NIL, FIX(0)));
    ck_assert_str_eq(unit_eval_error(L, "(setf (aref (make-array 2 :element-type 'bit) 0) 2)"), "TYPE-ERROR");
}
END_TEST

START_TEST(test_displaced_access) {
    Lisp *L = unit_lisp();
    Obj base = unit_eval(L, "(defvar *base* (vector 0 1 2 3 4 5)) *base*");
    size_t d[1] = {3};
    Obj v = array_create(L, 1, d, UE_T, false, -1, base, 2);
    ck_assert(ARR(v)->h.flags & ARR_DISPLACED);
    ck_assert(array_rm_ref(L, v, 0) == FIX(2));
    array_rm_set(L, v, 2, FIX(99));
    ck_assert(VEC(base)->data[4] == FIX(99));
    ck_assert_eval(L, "(let ((d (make-array '(2 2) :displaced-to *base* :displaced-index-offset 1))) (aref d 1 1))", "99");
}
END_TEST

START_TEST(test_upgrade_element_type) {
    Lisp *L = unit_lisp();
    ck_assert_int_eq(upgrade_element_type(L, S(T)), UE_T);
    ck_assert_int_eq(upgrade_element_type(L, S(CHARACTER)), UE_CHARACTER);
    ck_assert_int_eq(upgrade_element_type(L, S(STANDARD_CHAR)), UE_BASE_CHAR);
    ck_assert_int_eq(upgrade_element_type(L, NIL), UE_NIL);
    ck_assert_int_eq(upgrade_element_type(L, unit_eval(L, "'(integer 0 1)")), UE_BIT);
    ck_assert_int_eq(upgrade_element_type(L, unit_eval(L, "'(member #\\a #\\b)")), UE_BASE_CHAR);
    ck_assert_int_eq(upgrade_element_type(L, unit_eval(L, "'extended-char")), UE_CHARACTER);
    ck_assert_int_eq(upgrade_element_type(L, unit_eval(L, "'fixnum")), UE_T);
    ck_assert_int_eq(upgrade_element_type(L, unit_eval(L, "'(satisfies evenp)")), UE_T);
}
END_TEST

START_TEST(test_sequences_helpers) {
    Lisp *L = unit_lisp();
    Obj l = unit_eval(L, "(list #\\a #\\b)");
    ck_assert_uint_eq(sequence_length(L, l), 2);
    Obj s = vector_from_sequence(L, l, UE_CHARACTER);
    ck_assert(is_type(s, T_STRING));
    ck_assert_str_eq(prin1_cstr(L, s), "\"ab\"");
    ck_assert_str_eq(prin1_cstr(L, sequence_to_list(L, s)), "(#\\a #\\b)");
    ck_assert_str_eq(unit_eval_error(L, "(make-array 3 :initial-contents '(1 2 . 3))"), "TYPE-ERROR");
}
END_TEST

/* ---- the Lisp functions ---- */

START_TEST(test_make_array_and_aref) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(make-array 3)", "#(0 0 0)");
    ck_assert_eval(L, "(make-array '(2 2) :initial-contents '((1 2) (3 4)))", "#2A((1 2) (3 4))");
    ck_assert_eval(L, "(aref (make-array '(2 3) :initial-contents '((1 2 3) (4 5 6))) 1 2)", "6");
    ck_assert_eval(L, "(make-array 3 :element-type 'character :initial-element #\\z)", "\"zzz\"");
    ck_assert_eval(L, "(make-array 5 :element-type 'bit :initial-element 1)", "#*11111");
    ck_assert_eval(L, "(let ((a (make-array '(2 2) :initial-element 0))) (setf (aref a 0 1) 'x) a)", "#2A((0 X) (0 0))");
    ck_assert_eval(L, "(array-dimensions (make-array '(2 3 4)))", "(2 3 4)");
    ck_assert_eval(L, "(array-row-major-index (make-array '(2 3 4)) 1 2 3)", "23");
    ck_assert_eval(L, "(svref (vector 1 2 3) 2)", "3");
    ck_assert_eval(L, "(row-major-aref (make-array '(2 2) :initial-contents '((a b) (c d))) 2)", "C");
}
END_TEST

START_TEST(test_index_errors) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(unit_eval_error(L, "(aref (make-array 3) 3)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(aref (make-array 3) -1)"), "TYPE-ERROR");
    ck_assert_eval(L, "(handler-case (aref (make-array 3) 3) (type-error (e) (type-error-expected-type e)))",
                   "(INTEGER 0 (3))");
    ck_assert_eval(L, "(handler-case (aref (make-array 3) -1) (type-error (e) (type-error-expected-type e)))",
                   "(MOD 4611686018427387901)");
    ck_assert_str_eq(unit_eval_error(L, "(svref \"abc\" 0)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(aref (make-array '(2 2)) 1)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(make-array -1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(make-array 1000000000000)"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(make-array '(1000000 1000000 1000000))"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(make-array 3 :bogus 1)"), "PROGRAM-ERROR");
}
END_TEST

START_TEST(test_fill_pointers) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(let ((v (make-array 5 :fill-pointer 0))) (vector-push 'a v) (vector-push 'b v) (list (fill-pointer v) (vector-pop v) (fill-pointer v)))",
                   "(2 B 1)");
    ck_assert_eval(L, "(let ((v (make-array 1 :fill-pointer 1))) (vector-push 'x v))", "NIL");
    ck_assert_eval(L, "(let ((v (make-array 0 :fill-pointer 0 :adjustable t)) (d nil)) (dotimes (i 9) (vector-push-extend i v) (push (array-dimension v 0) d)) d)",
                   "(16 8 8 8 8 4 4 2 1)");
    ck_assert_eval(L, "(let ((v (make-array 4 :fill-pointer 2 :initial-contents '(a b c d)))) (list v (aref v 3)))",
                   "(#(A B) D)");
    ck_assert_str_eq(unit_eval_error(L, "(vector-pop (make-array 2 :fill-pointer 0))"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(fill-pointer (vector 1))"), "SIMPLE-TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(vector-push-extend 1 (vector 1))"), "TYPE-ERROR");
}
END_TEST

START_TEST(test_adjust_array) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(let* ((a (make-array 2 :adjustable t :initial-contents '(1 2))) (b (adjust-array a 4 :initial-element 0))) (list (eq a b) a))",
                   "(T #(1 2 0 0))");
    ck_assert_eval(L, "(let* ((a (vector 1 2 3)) (b (adjust-array a 2))) (list (eq a b) b))", "(NIL #(1 2))");
    ck_assert_eval(L, "(adjust-array (make-array '(2 2) :initial-contents '((1 2) (3 4))) '(3 3) :initial-element 0)",
                   "#2A((1 2 0) (3 4 0) (0 0 0))");
    ck_assert_eval(L, "(let ((s (make-array 2 :element-type 'character :adjustable t :initial-element #\\a)))"
                      " (adjust-array s 4 :initial-element #\\b) (list s (stringp s)))",
                   "(\"aabb\" T)");
    ck_assert_str_eq(unit_eval_error(L, "(adjust-array (make-array 4 :fill-pointer 4) 2)"), "SIMPLE-ERROR");
}
END_TEST

START_TEST(test_bit_arrays) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(bit-and #*1100 #*1010)", "#*1000");
    ck_assert_eval(L, "(bit-orc2 #*1100 #*1010)", "#*1101");
    ck_assert_eval(L, "(bit-not #*1100)", "#*0011");
    ck_assert_eval(L, "(let ((a (make-array 3 :element-type 'bit :initial-element 1))) (bit-xor a #*101 t) a)", "#*010");
    ck_assert_eval(L, "(let ((b (make-array 3 :element-type 'bit))) (setf (sbit b 2) 1) (list b (bit b 2)))", "(#*001 1)");
    ck_assert_str_eq(unit_eval_error(L, "(bit-and #*11 #*1)"), "SIMPLE-ERROR");
}
END_TEST

START_TEST(test_constants) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(list array-rank-limit array-dimension-limit array-total-size-limit)",
                   "(129 4611686018427387901 4611686018427387901)");
}
END_TEST

static Suite *array_suite(void) {
    Suite *s = suite_create("array");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_representation_by_element_type);
    tcase_add_test(tc, test_string_with_fill_pointer_is_a_string);
    tcase_add_test(tc, test_rm_access_and_element_checks);
    tcase_add_test(tc, test_displaced_access);
    tcase_add_test(tc, test_upgrade_element_type);
    tcase_add_test(tc, test_sequences_helpers);
    tcase_add_test(tc, test_make_array_and_aref);
    tcase_add_test(tc, test_index_errors);
    tcase_add_test(tc, test_fill_pointers);
    tcase_add_test(tc, test_adjust_array);
    tcase_add_test(tc, test_bit_arrays);
    tcase_add_test(tc, test_constants);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(array_suite)
