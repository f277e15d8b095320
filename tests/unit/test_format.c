/* test_format.c: unit tests of FORMAT's C layer: float digit generation (flonum.c's,
 * FLONUM-TO-STRING as SBCL computes them), the entry points format_dest/format_to_stream, and
 * control-string errors. Expected values are SBCL 2.2.9's. */
#include "unit.h"
#include "format.h"
#include "number.h"
#include <limits.h>

static void check_digits(Lisp *L, double v, bool single, bool has_pos, long pos, bool rel, const char *digits, long k) {
    long got_k;
    char *d = flonum_digits(L, v, single, has_pos, pos, rel, &got_k);
    ck_assert_str_eq(d, digits);
    ck_assert_int_eq(got_k, k);
}

START_TEST(test_float_digits_free_format) {
    Lisp *L = unit_lisp();
    check_digits(L, 1.5, true, false, 0, false, "15", 1);
    check_digits(L, (float)0.1, true, false, 0, false, "1", 0);
    check_digits(L, 1e23, false, false, 0, false, "1", 24);
    check_digits(L, 1e-300, false, false, 0, false, "1", -299);
    check_digits(L, (float)3.4028235e38, true, false, 0, false, "34028235", 39);
    check_digits(L, 0.1, false, false, 0, false, "1", 0);
    check_digits(L, 123.456, false, false, 0, false, "123456", 3);
    /* the smallest subnormal: SBCL's left alignment of subnormal fractions shows in the digits */
    check_digits(L, 4.9406564584124654e-324, false, false, 0, false, "49406564584124654", -323);
    /* the least normalized floats: PRINT's digits (SBCL 2.2.9: 2.2250738585072014d-308 and
     * 1.1754944e-38), which the printer and FORMAT now get from the same generator */
    check_digits(L, 2.2250738585072014e-308, false, false, 0, false, "22250738585072014", -307);
    check_digits(L, (float)1.17549435e-38f, true, false, 0, false, "11754944", -37);
}
END_TEST

START_TEST(test_float_digits_rounded) {
    Lisp *L = unit_lisp();
    /* absolute position: digits up to 10^-2 */
    check_digits(L, (float)2.675, true, true, -2, false, "267", 1);
    check_digits(L, 0.125f, true, true, -2, false, "13", 0);
    check_digits(L, (float)9.96, true, true, -1, false, "1", 2);
    /* relative: three significant digits */
    check_digits(L, 123.456, false, true, 3, true, "123", 3);
}
END_TEST

static const char *fts(Lisp *L, double x, bool single, long width, long fdigits, long scale, long fmin, bool *lp, bool *tp, long *pp) {
    return flonum_to_string(L, x, single, width, fdigits, scale != LONG_MIN, scale == LONG_MIN ? 0 : scale, fmin, lp, tp, pp);
}

START_TEST(test_flonum_to_string) {
    Lisp *L = unit_lisp();
    bool lp, tp;
    long pp;
    ck_assert_str_eq(fts(L, (float)3.14159, true, LONG_MIN, 2, LONG_MIN, LONG_MIN, &lp, &tp, &pp), "3.14");
    ck_assert(!lp && !tp);
    ck_assert_int_eq(pp, 1);
    ck_assert_str_eq(fts(L, (float)0.05, true, LONG_MIN, 1, LONG_MIN, LONG_MIN, &lp, &tp, &pp), ".1");
    ck_assert(lp && !tp);
    ck_assert_int_eq(pp, 0);
    ck_assert_str_eq(fts(L, 123.456, false, 5, LONG_MIN, LONG_MIN, LONG_MIN, &lp, &tp, &pp), "123.5");
    ck_assert_int_eq(pp, 3);
    ck_assert_str_eq(fts(L, 100.0, false, LONG_MIN, LONG_MIN, LONG_MIN, LONG_MIN, &lp, &tp, &pp), "100.");
    ck_assert(tp);
    ck_assert_str_eq(fts(L, 0.0, true, LONG_MIN, 2, LONG_MIN, LONG_MIN, &lp, &tp, &pp), ".00");
    /* a scale factor shifts the point */
    ck_assert_str_eq(fts(L, (float)3.14159, true, LONG_MIN, 2, 2, LONG_MIN, &lp, &tp, &pp), "314.16");
}
END_TEST

START_TEST(test_format_entry_points) {
    Lisp *L = unit_lisp();
    Obj ctl = string_from_cstr(L, "~A+~S=~D");
    Obj args = cons(L, FIX(1), cons(L, string_from_cstr(L, "x"), cons(L, FIX(3), NIL)));
    Obj r = format_dest(L, NIL, ctl, args);
    ck_assert_str_eq(string_to_utf8(L, r, NULL), "1+\"x\"=3");
    /* to a stream: the unconsumed arguments come back */
    Obj s = make_string_output_stream(L);
    Obj rest = format_to_stream(L, s, string_from_cstr(L, "~A "), cons(L, FIX(7), cons(L, FIX(8), NIL)));
    ck_assert_str_eq(prin1_cstr(L, rest), "(8)");
    ck_assert_str_eq(string_to_utf8(L, get_output_stream_string(L, s), NULL), "7 ");
    /* a function as control */
    ck_assert_eval(L, "(format nil (formatter \"~{~A~^,~}\") '(1 2 3))", "\"1,2,3\"");
    ck_assert_eval(L, "(funcall (formatter \"~A\") (make-string-output-stream) 1 2)", "(2)");
}
END_TEST

START_TEST(test_format_directives) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(format nil \"~10,2F|~:D|~@R\" 3.14159 1234567 1999)", "\"      3.14|1,234,567|MCMXCIX\"");
    ck_assert_eval(L, "(format nil \"~R ~:R\" 1234 21)", "\"one thousand two hundred thirty-four twenty-first\"");
    ck_assert_eval(L, "(format nil \"~,3E|~G|~$\" 1234.5 1.5 2.5)", "\"1.235e+3|1.5    |2.50\"");
    ck_assert_eval(L, "(format nil \"~:(~A~) ~@(~A~)\" \"hello world\" \"HELLO WORLD\")", "\"Hello World Hello world\"");
    ck_assert_eval(L, "(format nil \"~{~A~#[~; and ~:;, ~]~}\" '(a b c))", "\"A, B and C\"");
    ck_assert_eval(L, "(format nil \"~15<~A~;~A~>\" 'ab 'cd)", "\"AB           CD\"");
    ck_assert_eval(L, "(format nil \"~:{~A=~A~:^, ~}\" '((a 1) (b 2)))", "\"A=1, B=2\"");
    ck_assert_eval(L, "(format nil \"~? ~A\" \"<~A>\" '(1) 2)", "\"<1> 2\"");
    ck_assert_eval(L, "(format nil \"ab~5Tc~%~A\" 1)", "\"ab   c\n1\"");
}
END_TEST

START_TEST(test_format_errors) {
    Lisp *L = unit_lisp();
    /* SYSTEM::FORMAT-ERROR shows as its standard ancestor SIMPLE-ERROR */
    ck_assert_str_eq(unit_eval_error(L, "(format nil \"~A~A\" 1)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(format nil \"~Q\")"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(format nil \"~{~A\" '(1))"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(format nil \"~\")"), "SIMPLE-ERROR");
    ck_assert_eval(L, "(handler-case (format nil \"~A~A\" 1) (sys::format-error (c) (list (sys::format-error-offset c) (sys::format-error-control-string c))))",
                   "(3 \"~A~A\")");
    ck_assert_str_eq(unit_eval_error(L, "(format nil \"~@R\" 0)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(format 5 \"x\")"), "TYPE-ERROR");
    ck_assert_eval(L, "(handler-case (format nil \"~A~A\" 1) (simple-error () :simple))", ":SIMPLE");
    ck_assert_eval(L, "(handler-case (format nil \"~A~A\" 1) (error (c) (princ-to-string c)))",
                   "\"error in FORMAT: No more arguments\n  ~A~A\n     ^\"");
    /* an iteration that consumes nothing does not run forever */
    ck_assert_str_eq(unit_eval_error(L, "(format nil \"~{x~}\" '(1))"), "SIMPLE-ERROR");
}
END_TEST

static Suite *format_suite(void) {
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_float_digits_free_format);
    tcase_add_test(tc, test_float_digits_rounded);
    tcase_add_test(tc, test_flonum_to_string);
    tcase_add_test(tc, test_format_entry_points);
    tcase_add_test(tc, test_format_directives);
    tcase_add_test(tc, test_format_errors);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(format_suite)
