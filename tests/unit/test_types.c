/* test_types.c: unit tests of the type system (runtime/types.h): typep, subtypep, type-of, coerce, deftype. */
#include "unit.h"
#include "types.h"

static Obj rd(Lisp *L, const char *text) {
    Obj s = string_from_cstr(L, text);
    return reader_read(L, make_string_input_stream(L, s, 0, STR(s)->len), true, NIL, false, false);
}

/* "T T", "NIL T" or "NIL NIL" for (subtypep A B) called from C */
static const char *sub(Lisp *L, const char *a, const char *b) {
    bool certain;
    bool r = type_subtypep(L, rd(L, a), rd(L, b), &certain);
    return r ? (certain ? "T T" : "T NIL") : (certain ? "NIL T" : "NIL NIL");
}

START_TEST(test_typep_from_c) {
    Lisp *L = unit_lisp();
    ck_assert(type_typep(L, FIX(5), rd(L, "(integer 0 10)")));
    ck_assert(!type_typep(L, FIX(5), rd(L, "(integer (5) 10)")));
    ck_assert(type_typep(L, FIX(5), rd(L, "(mod 6)")));
    ck_assert(!type_typep(L, FIX(6), rd(L, "(mod 6)")));
    ck_assert(type_typep(L, FIX(-4), rd(L, "(signed-byte 3)")));
    ck_assert(type_typep(L, NIL, rd(L, "list")));
    ck_assert(type_typep(L, NIL, rd(L, "boolean")));
    ck_assert(!type_typep(L, NIL, rd(L, "cons")));
    ck_assert(type_typep(L, make_char('a'), rd(L, "standard-char")));
    ck_assert(!type_typep(L, make_char(0x3bb), rd(L, "base-char")));
    ck_assert(type_typep(L, make_single(0.5f), rd(L, "(single-float 0.0 1.0)")));
    ck_assert(!type_typep(L, make_single(0.5f), rd(L, "double-float")));
    ck_assert(type_typep(L, rd(L, "(1 . \"a\")"), rd(L, "(cons integer string)")));
    ck_assert(type_typep(L, rd(L, "#(1 2)"), rd(L, "(simple-vector 2)")));
    ck_assert(!type_typep(L, rd(L, "\"ab\""), rd(L, "(vector t)")));
    ck_assert(type_typep(L, rd(L, "\"ab\""), rd(L, "(string 2)")));
    ck_assert(type_typep(L, rd(L, "#*01"), rd(L, "(simple-bit-vector 2)")));
    ck_assert(type_typep(L, FIX(3), rd(L, "(or string (and integer (not (eql 4))))")));
    ck_assert(type_typep(L, S(K_TEST), rd(L, "keyword")));
}
END_TEST

START_TEST(test_typep_errors) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(unit_eval_error(L, "(typep 1 'no-such-type-here)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(typep 1 '(mod 0))"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(typep 1 '(integer 1.5 3))"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(typep 1 '(function (t) t))"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(typep 1 '(values integer))"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(typep 1 5)"), "SIMPLE-ERROR");
    ck_assert_eval(L, "(handler-case (typep 1 'no-such-type-here) (error (c) (princ-to-string c)))",
                   "\"unknown type specifier: NO-SUCH-TYPE-HERE\"");
    /* a class name is a type even for objects that are not instances */
    ck_assert_eval(L, "(list (typep 1 'error) (typep 1 'standard-object) (typep (make-condition 'error) 'condition))",
                   "(NIL NIL T)");
}
END_TEST

START_TEST(test_type_of) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(prin1_cstr(L, type_of(L, FIX(1))), "BIT");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, FIX(5))), "(INTEGER 0 4611686018427387903)");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, FIX(-5))), "FIXNUM");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, rd(L, "4611686018427387904"))), "(INTEGER 4611686018427387904)");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, rd(L, "-4611686018427387905"))), "BIGNUM");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, make_char('a'))), "STANDARD-CHAR");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, make_char(127))), "BASE-CHAR");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, make_char(0x3bb))), "EXTENDED-CHAR");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, S(T))), "BOOLEAN");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, NIL)), "NULL");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, rd(L, "\"abc\""))), "(SIMPLE-ARRAY CHARACTER (3))");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, rd(L, "#(1 2)"))), "(SIMPLE-VECTOR 2)");
    ck_assert_str_eq(prin1_cstr(L, type_of(L, rd(L, "#*1"))), "(SIMPLE-BIT-VECTOR 1)");
    ck_assert_eval(L, "(type-of (make-array '(2 2) :adjustable t))", "(ARRAY T (2 2))");
    ck_assert_eval(L, "(type-of (make-array 3 :element-type 'character :fill-pointer 0))", "(VECTOR CHARACTER 3)");
    ck_assert_eval(L, "(type-of (make-condition 'type-error))", "TYPE-ERROR");
}
END_TEST

START_TEST(test_subtypep_lattice) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(sub(L, "integer", "number"), "T T");
    ck_assert_str_eq(sub(L, "number", "integer"), "NIL T");
    ck_assert_str_eq(sub(L, "fixnum", "(signed-byte 63)"), "T T");
    ck_assert_str_eq(sub(L, "(signed-byte 63)", "fixnum"), "T T");
    ck_assert_str_eq(sub(L, "integer", "(or fixnum bignum)"), "T T");
    ck_assert_str_eq(sub(L, "(integer 1 10)", "(or (integer 1 5) (integer 6 10))"), "T T");
    ck_assert_str_eq(sub(L, "(integer 1 10)", "(or (integer 1 5) (integer 7 10))"), "NIL T");
    ck_assert_str_eq(sub(L, "(rational 0 (1))", "(rational 0 1)"), "T T");
    ck_assert_str_eq(sub(L, "(and ratio (rational 1 1))", "nil"), "T T");
    ck_assert_str_eq(sub(L, "(member 1 2 3)", "(integer 1 3)"), "T T");
    ck_assert_str_eq(sub(L, "(integer 1 3)", "(member 1 2 3)"), "T T");
    ck_assert_str_eq(sub(L, "character", "(or base-char extended-char)"), "T T");
    ck_assert_str_eq(sub(L, "boolean", "(member t nil)"), "T T");
    ck_assert_str_eq(sub(L, "list", "(or cons null)"), "T T");
    ck_assert_str_eq(sub(L, "atom", "(not cons)"), "T T");
    ck_assert_str_eq(sub(L, "(cons integer)", "(or (cons fixnum) (cons bignum))"), "T T");
    ck_assert_str_eq(sub(L, "simple-string", "string"), "T T");
    ck_assert_str_eq(sub(L, "string", "base-string"), "NIL T");
    ck_assert_str_eq(sub(L, "(array t (2 3))", "(array t 2)"), "T T");
    ck_assert_str_eq(sub(L, "(simple-vector 3)", "(simple-vector 4)"), "NIL T");
    ck_assert_str_eq(sub(L, "(or list vector)", "sequence"), "T T");
    ck_assert_str_eq(sub(L, "sequence", "(or list vector)"), "NIL T");
    ck_assert_str_eq(sub(L, "(complex (integer 0 1))", "(complex (integer 0 2))"), "T T");
    ck_assert_str_eq(sub(L, "function", "compiled-function"), "NIL T");
    ck_assert_str_eq(sub(L, "t", "nil"), "NIL T");
}
END_TEST

START_TEST(test_subtypep_uncertain) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(sub(L, "(satisfies evenp)", "integer"), "NIL NIL");
    ck_assert_str_eq(sub(L, "integer", "(satisfies evenp)"), "NIL NIL");
    ck_assert_str_eq(sub(L, "(satisfies evenp)", "(satisfies evenp)"), "T T");
    ck_assert_str_eq(sub(L, "(and integer (satisfies evenp))", "integer"), "T T");
    ck_assert_str_eq(sub(L, "undefined-type-name", "undefined-type-name"), "T T");
    ck_assert_str_eq(sub(L, "standard-object", "undefined-type-name"), "NIL NIL");
    ck_assert_str_eq(sub(L, "error", "condition"), "T T");
    ck_assert_str_eq(sub(L, "condition", "error"), "NIL T");
    ck_assert_eval(L, "(define-condition my-unit-error (error) ())"
                      " (list (multiple-value-list (subtypep 'my-unit-error 'error))"
                      "       (multiple-value-list (subtypep 'error 'my-unit-error))"
                      "       (typep (make-condition 'my-unit-error) 'serious-condition))",
                   "((T T) (NIL T) T)");
}
END_TEST

START_TEST(test_coerce) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(prin1_cstr(L, type_coerce(L, rd(L, "(1 2)"), S(VECTOR))), "#(1 2)");
    ck_assert_str_eq(prin1_cstr(L, type_coerce(L, rd(L, "\"ab\""), S(LIST))), "(#\\a #\\b)");
    ck_assert_str_eq(prin1_cstr(L, type_coerce(L, rd(L, "(#\\x)"), S(STRING))), "\"x\"");
    ck_assert_str_eq(prin1_cstr(L, type_coerce(L, FIX(1), S(SINGLE_FLOAT))), "1.0");
    ck_assert_str_eq(prin1_cstr(L, type_coerce(L, FIX(1), S(DOUBLE_FLOAT))), "1.0d0");
    ck_assert_str_eq(prin1_cstr(L, type_coerce(L, rd(L, "\"a\""), S(CHARACTER))), "#\\a");
    ck_assert_eval(L, "(funcall (coerce '(lambda (x) (cons x x)) 'function) 1)", "(1 . 1)");
    ck_assert_str_eq(unit_eval_error(L, "(coerce 1.5 'integer)"), "SIMPLE-TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(coerce '(1 2) '(vector t 3))"), "SIMPLE-TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(coerce 'if 'function)"), "SIMPLE-ERROR");
}
END_TEST

START_TEST(test_deftype_and_macros) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(deftype digit () '(integer 0 9))", "DIGIT");
    ck_assert_eval(L, "(list (typep 5 'digit) (typep 10 'digit) (multiple-value-list (subtypep 'digit 'fixnum)))",
                   "(T NIL (T T))");
    ck_assert_eval(L, "(deftype upto (&optional n) `(integer 0 ,n)) (list (typep 100 'upto) (typep 100 '(upto 5)))",
                   "(T NIL)");
    ck_assert_str_eq(prin1_cstr(L, type_expand(L, rd(L, "(upto 3)"))), "(INTEGER 0 3)");
    ck_assert_eval(L, "(typecase 7 (string :s) (digit :d) (t :other))", ":D");
    ck_assert_eval(L, "(handler-case (etypecase 'x (digit 1)) (type-error (e) (type-error-expected-type e)))",
                   "(OR DIGIT)");
    ck_assert_eval(L, "(let ((x 'a)) (handler-bind ((type-error (lambda (c) (declare (ignore c)) (store-value 3))))"
                      " (check-type x digit)) x)",
                   "3");
}
END_TEST

static Suite *types_suite(void) {
    Suite *s = suite_create("types");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_typep_from_c);
    tcase_add_test(tc, test_typep_errors);
    tcase_add_test(tc, test_type_of);
    tcase_add_test(tc, test_subtypep_lattice);
    tcase_add_test(tc, test_subtypep_uncertain);
    tcase_add_test(tc, test_coerce);
    tcase_add_test(tc, test_deftype_and_macros);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(types_suite)
