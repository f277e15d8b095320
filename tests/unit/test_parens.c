/* test_parens.c: unit tests of the paren checker (tcl_check_parens, src/lispsrc.c): reader syntax it
 * must see through, each kind of problem with its position, and the likely fix judged from indentation. */
#include "unit.h"
#include "tinycl.h"
#include <string.h>

static TclParenReport *check(const char *code) { return tcl_check_parens(code, strlen(code)); }

#define ck_balanced(code, n) do {                                                              \
        TclParenReport *r_ = check(code);                                                      \
        ck_assert_msg(r_->ok, "not balanced: %s -> %s", (code), r_->message);                  \
        ck_assert_int_eq(r_->forms, (n));                                                      \
        tcl_paren_report_free(r_);                                                             \
    } while (0)

#define ck_problem(code, kind, ln, col) do {                                                   \
        TclParenReport *r_ = check(code);                                                      \
        ck_assert_msg(!r_->ok, "balanced: %s", (code));                                        \
        ck_assert_str_eq(r_->problem, (kind));                                                 \
        ck_assert_int_eq(r_->line, (ln));                                                      \
        ck_assert_int_eq(r_->column, (col));                                                   \
        tcl_paren_report_free(r_);                                                             \
    } while (0)

START_TEST(test_reader_syntax_is_not_parentheses) {
    ck_balanced("", 0);
    ck_balanced("   ; only a comment (\n", 0);
    ck_balanced("(a \"str ( with \\\" quote\") b", 2);
    ck_balanced("(list #\\( #\\) #\\; #\\\" #\\Space)", 1);
    ck_balanced("'|sym ( bol| |a\\|b)|", 2);
    ck_balanced("(a) ; comment )\n(b)", 2);
    ck_balanced("#| outer #| inner ( |# still ) comment |# (x)", 1);
    ck_balanced("#+sbcl (foo) #-(or a b) (bar)", 2);
    ck_balanced("#+nil (a) (b)", 2);
    ck_balanced("'(a . b) `(x ,y ,@z) #'car #(1 2) #2a((1 2)) #c(1 2) #p\"x\" #s(pt :x 1) #1=(a . #1#) #.(+ 1 2)", 10);
    ck_balanced("foo#bar abc\\(def #:g #x1F #*101", 5);
    ck_balanced("(a) (b)\r\n(c)\r\n", 3);
    ck_balanced("(#\"getFunctionPointer\" 'x (y))", 1);   /* ABCL's #"..." */
}
END_TEST

START_TEST(test_problems_and_positions) {
    ck_problem("(a (b c)", "unclosed", 1, 1);
    ck_problem("(a)\n  b)", "unmatched-closer", 2, 4);
    ck_problem("(a \"abc)\n", "unterminated-string", 1, 4);
    ck_problem("x #| a #| b |# c", "unterminated-comment", 1, 3);
    ck_problem("(a |b c)", "unterminated-symbol", 1, 4);
    ck_problem("(list #\\", "unterminated-symbol", 1, 7);
    ck_problem("(a) '", "incomplete-form", 1, 5);
    ck_problem("(a) #+sbcl", "incomplete-form", 1, 5);
    ck_problem("(a \xc3\xa9 (b)\n", "unclosed", 1, 1);   /* columns count characters, not bytes */
    ck_problem("(\xc3\xa9 \"x", "unterminated-string", 1, 4);
}
END_TEST

START_TEST(test_likely_fix_from_indentation) {
    TclParenReport *r = check("(defun a ()\n  (foo (bar)\n\n(defun b () 1)\n");
    ck_assert_str_eq(r->problem, "unclosed");
    ck_assert_int_eq(r->line, 1);
    ck_assert_str_eq(r->form, "(defun a ()");
    ck_assert_int_eq(r->fix_line, 2);
    ck_assert_int_eq(r->fix_count, 2);
    tcl_paren_report_free(r);
    /* the inner form is the one the indentation blames: LET's binding list */
    r = check("(defun f (x)\n  (let ((y 1)\n    (print y))\n  (g x))\n");
    ck_assert_str_eq(r->problem, "unclosed");
    ck_assert_int_eq(r->line, 1);
    ck_assert_int_eq(r->column, 1);
    ck_assert_int_eq(r->fix_line, 2);
    ck_assert_int_eq(r->fix_count, 1);
    ck_assert_ptr_nonnull(strstr(r->message, "end of line 2 (to close the form at line 2, column 8"));
    tcl_paren_report_free(r);
    /* no guess when nothing is indented like a closed form */
    r = check("(defun a ()\n  (b)");
    ck_assert_int_eq(r->fix_line, 0);
    tcl_paren_report_free(r);
}
END_TEST

START_TEST(test_deep_and_long_input) {
    size_t n = 200000;
    char *s = (char *)malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) { s[i] = '('; s[n + i] = ')'; }
    s[2 * n] = 0;
    ck_balanced(s, 1);
    s[2 * n - 1] = ' ';
    TclParenReport *r = check(s);
    ck_assert_str_eq(r->problem, "unclosed");
    tcl_paren_report_free(r);
    /* deep nesting over many well-indented lines stays linear */
    size_t m = 100000;
    char *d = (char *)malloc(m * 40 + 16);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        d[k++] = '\n';
        for (size_t j = 0; j < (i % 30); j++) d[k++] = ' ';
        d[k++] = '(';
        d[k++] = 'a';
    }
    d[k] = 0;
    r = check(d);
    ck_assert_str_eq(r->problem, "unclosed");
    ck_assert_int_eq(r->line, 2);
    tcl_paren_report_free(r);
    free(d);
    /* a very long single line stays linear */
    for (size_t i = 0; i < 2 * n; i += 2) { s[i] = '('; s[i + 1] = ')'; }
    ck_balanced(s, (int)n);
    free(s);
}
END_TEST

static Suite *parens_suite(void) {
    Suite *s = suite_create("parens");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_reader_syntax_is_not_parentheses);
    tcase_add_test(tc, test_problems_and_positions);
    tcase_add_test(tc, test_likely_fix_from_indentation);
    tcase_add_test(tc, test_deep_and_long_input);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(parens_suite)
