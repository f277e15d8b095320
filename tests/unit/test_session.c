/* test_session.c: the session API's results (src/session.c): exact text with lengths (NUL
 * characters, lone surrogates), the one output budget of a call, where a call stopped, and EXIT. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tinycl.h"
#include "session_unit.h"

static TclSession *new_session(size_t output_cap, bool exit_unavailable) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    o.output_cap = output_cap;
    o.exit_unavailable = exit_unavailable;
    o.timeout = 20;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

static TclResult *eval(TclSession *s, const char *code) { return tcl_eval_n(s, code, strlen(code), NULL, -1, 0); }

START_TEST(values_keep_nul_characters) {
    TclSession *s = new_session(0, false);
    TclResult *r = eval(s, "(format nil \"a~cb\" (code-char 0))");
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_int_eq(r->nvalues, 1);
    ck_assert_uint_eq(r->value_lens[0], 5);
    ck_assert(memcmp(r->values[0], "\"a\0b\"", 5) == 0);
    tcl_result_free(r);
    r = eval(s, "(write-string (format nil \"x~cy\" (code-char 0))) (warn (format nil \"w~cz\" (code-char 0))) 1");
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_uint_eq(r->out_len, 3);
    ck_assert(memcmp(r->out, "x\0y", 3) == 0);
    ck_assert_int_eq(r->nwarnings, 1);
    ck_assert_uint_eq(r->warnings[0].message_len, 3);
    ck_assert(memcmp(r->warnings[0].message, "w\0z", 3) == 0);
    tcl_result_free(r);
    r = eval(s, "(error (format nil \"e~cf\" (code-char 0)))");
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_uint_eq(r->error_message_len, 3);
    ck_assert(memcmp(r->error_message, "e\0f", 3) == 0);
    tcl_result_free(r);
    r = eval(s, "(defun fails (s) (error \"no ~a\" (length s))) (fails (format nil \"p~cq\" (code-char 0)))");
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_int_ge(r->nbacktrace, 1);
    ck_assert_uint_eq(r->backtrace_lens[0], 13);
    ck_assert(memcmp(r->backtrace[0], "(FAILS \"p\0q\")", 13) == 0);
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(code_with_nul_is_read_whole) {
    TclSession *s = new_session(0, false);
    static const char code[] = "(length \"a\0bc\")";
    TclResult *r = tcl_eval_n(s, code, sizeof code - 1, NULL, -1, 0);
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->values[0], "4");
    tcl_result_free(r);
    /* the old entry stops at the NUL, as a C string does */
    r = tcl_eval(s, code, NULL, -1);
    ck_assert_int_eq(r->status, TCL_INCOMPLETE);
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(lone_surrogates_are_generalized_utf8) {
    TclSession *s = new_session(0, false);
    TclResult *r = eval(s, "(princ (string (code-char #xD800)))");
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_uint_eq(r->out_len, 3);
    ck_assert(memcmp(r->out, "\xED\xA0\x80", 3) == 0);
    tcl_result_free(r);
    /* and they read back as the same character */
    r = eval(s, "(char-code (char \"\xED\xA0\x80\" 0))");
    ck_assert_str_eq(r->values[0], "55296");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(output_flood_stops_the_evaluation) {
    TclSession *s = new_session(1000, false);
    TclResult *r = eval(s, "(defvar *n* 0) (loop (incf *n*) (princ \"spam \"))");
    ck_assert_int_eq(r->status, TCL_OUTPUT_LIMIT);
    ck_assert_str_eq(r->error_type, "OUTPUT-LIMIT");
    ck_assert_uint_eq(r->out_len, 1000);
    ck_assert_ptr_nonnull(r->limit_note);
    ck_assert_int_eq(r->form_index, 2);
    ck_assert_int_eq(r->forms, 1);
    tcl_result_free(r);
    /* the session is intact, and ignore-errors cannot keep a flood going */
    r = eval(s, "(loop (ignore-errors (princ \"x\")))");
    ck_assert_int_eq(r->status, TCL_OUTPUT_LIMIT);
    tcl_result_free(r);
    r = eval(s, "(> *n* 100)");
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->values[0], "T");
    ck_assert_ptr_null(r->limit_note);
    tcl_result_free(r);
    /* a larger limit for one call */
    const char *big = "(princ (make-string 1500 :initial-element #\\a)) 1";
    r = tcl_eval_n(s, big, strlen(big), NULL, -1, 5000);
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_uint_eq(r->out_len, 1500);
    ck_assert_str_eq(r->values[0], "1");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(one_budget_for_values_warnings_and_backtrace) {
    TclSession *s = new_session(10000, false);
    TclResult *r = eval(s, "(values-list (loop repeat 200 collect (make-string 9000 :initial-element #\\x)))");
    ck_assert_int_eq(r->status, TCL_OK);
    size_t total = 0;
    for (int i = 0; i < r->nvalues; i++) total += r->value_lens[i];
    ck_assert_uint_le(total, 10010);
    ck_assert_int_lt(r->nvalues, 200);
    ck_assert_ptr_nonnull(strstr(r->limit_note, "values were left out"));
    tcl_result_free(r);
    r = eval(s, "(dotimes (i 300) (warn (make-string 1000 :initial-element #\\w)))");
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_int_le(r->nwarnings, 11);
    ck_assert_ptr_nonnull(strstr(r->limit_note, "warnings were left out"));
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(where_the_call_stopped) {
    TclSession *s = new_session(0, false);
    TclResult *r = eval(s, "(print 1)\n  (car 2)\n(print 3)");
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_int_eq(r->stage, TCL_STAGE_EVAL);
    ck_assert_int_eq(r->form_index, 2);
    ck_assert_int_eq(r->form_line, 2);
    ck_assert_int_eq(r->form_column, 3);
    ck_assert_str_eq(r->form_text, "(car 2)");
    ck_assert(r->more_forms);
    ck_assert_int_eq(r->forms, 1);
    tcl_result_free(r);
    r = eval(s, "1 ; a comment\n#| block |# (list 2\n  3");
    ck_assert_int_eq(r->status, TCL_INCOMPLETE);
    ck_assert_str_eq(r->error_type, "END-OF-FILE");
    ck_assert_int_eq(r->stage, TCL_STAGE_READ);
    ck_assert_int_eq(r->form_index, 2);
    ck_assert_int_eq(r->form_line, 2);
    ck_assert_int_eq(r->form_column, 13);
    ck_assert_int_eq(r->forms, 1);
    tcl_result_free(r);
    r = eval(s, "(print 1) (cl:no-such-external-symbol-here)");
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_int_eq(r->stage, TCL_STAGE_READ);
    ck_assert_int_eq(r->form_index, 2);
    ck_assert_int_eq(r->form_column, 11);
    ck_assert_int_eq(r->stop_line, 1);
    ck_assert_int_gt(r->stop_column, 11);
    ck_assert(!r->more_forms);
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

START_TEST(exit_unavailable_is_a_condition) {
    TclSession *s = new_session(0, true);
    TclResult *r = eval(s, "(exit)");
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_str_eq(r->error_type, "EXIT-NOT-AVAILABLE");
    ck_assert_str_eq(r->error_message, "exit is not available in this session");   /* the embedder's default */
    tcl_result_free(r);
    r = eval(s, "(handler-case (exit :code 3) (tinycl:exit-not-available (c) (princ-to-string c)))");
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->values[0], "\"exit is not available in this session\"");
    tcl_result_free(r);
    tcl_session_free(s);
    /* elsewhere EXIT ends the evaluation with SBCL's status: the low 8 bits of a (signed-byte 32) */
    s = new_session(0, false);
    r = eval(s, "(exit :code 256)");
    ck_assert_int_eq(r->status, TCL_EXIT);
    ck_assert_int_eq(r->exit_code, 0);
    tcl_result_free(r);
    r = eval(s, "(exit :code 300)");
    ck_assert_int_eq(r->exit_code, 44);
    tcl_result_free(r);
    r = eval(s, "(exit :code -1)");
    ck_assert_int_eq(r->exit_code, 255);
    tcl_result_free(r);
    r = eval(s, "(exit :code (expt 2 40))");
    ck_assert_int_eq(r->status, TCL_ERROR);
    ck_assert_str_eq(r->error_type, "TYPE-ERROR");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

/* An interrupt asked for between calls (the MCP server asks once a request is running, which may
 * be just before its evaluation begins) stops the next evaluation at its first safe point instead
 * of being lost; tcl_interrupt_clear drops one meant for a request that has ended. */
START_TEST(interrupt_before_the_call_is_kept_until_cleared) {
    TclSession *s = new_session(0, false);
    tcl_interrupt(s);
    TclResult *r = tcl_eval(s, "(loop)", NULL, 5);
    ck_assert_int_eq(r->status, TCL_INTERRUPTED);
    ck_assert_double_lt(r->elapsed_ms, 4000);
    tcl_result_free(r);
    /* the call is over: nothing is left pending for the next one */
    r = eval(s, "(+ 1 2)");
    ck_assert_int_eq(r->status, TCL_OK);
    tcl_result_free(r);
    tcl_interrupt(s);
    tcl_interrupt_clear(s);
    r = eval(s, "(+ 1 2)");
    ck_assert_int_eq(r->status, TCL_OK);
    ck_assert_str_eq(r->values[0], "3");
    tcl_result_free(r);
    tcl_session_free(s);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("session");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, values_keep_nul_characters);
    tcase_add_test(t, code_with_nul_is_read_whole);
    tcase_add_test(t, lone_surrogates_are_generalized_utf8);
    tcase_add_test(t, output_flood_stops_the_evaluation);
    tcase_add_test(t, one_budget_for_values_warnings_and_backtrace);
    tcase_add_test(t, where_the_call_stopped);
    tcase_add_test(t, exit_unavailable_is_a_condition);
    tcase_add_test(t, interrupt_before_the_call_is_kept_until_cleared);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
