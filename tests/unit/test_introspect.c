/* test_introspect.c: the introspection calls of the session API (tcl_describe_symbol, tcl_apropos,
 * tcl_macroexpand, tcl_find_definitions, tcl_xref, tcl_inspect, tcl_documentation) and the source
 * locations LOAD and tcl_eval record (runtime/xref.c): items, locations, caps and errors in C types. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tinycl.h"

static TclSession *new_session(void) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

static void eval_ok(TclSession *s, const char *code) {
    TclResult *r = tcl_eval(s, code, NULL, -1);
    ck_assert_msg(r->status == TCL_OK, "%s: %s", code, r->error_message ? r->error_message : "?");
    tcl_result_free(r);
}

static const TclItem *item_named(const TclInfo *info, const char *name) {
    for (int i = 0; i < info->count; i++)
        if (strcmp(info->items[i].name, name) == 0) return &info->items[i];
    return NULL;
}

START_TEST(typed_in_definitions_record_call_and_source) {
    TclSession *s = new_session();
    eval_ok(s, "(+ 1 2)");
    eval_ok(s, "  (defun sq (x) (* x x))\n(defun quad (y) (sq (sq y)))");
    TclInfo *d = tcl_find_definitions(s, "sq", NULL);
    ck_assert_int_eq(d->result->status, TCL_OK);
    ck_assert_int_eq(d->count, 1);
    ck_assert_str_eq(d->items[0].kind, "function");
    ck_assert_int_eq(d->items[0].call, 2);
    ck_assert_str_eq(d->items[0].source, "(defun sq (x) (* x x))");
    ck_assert_ptr_null(d->items[0].file);
    tcl_info_free(d);
    /* one entry per call site, placed in the code of the call */
    TclInfo *w = tcl_xref(s, "calls", "sq", NULL);
    ck_assert_int_eq(w->count, 2);
    ck_assert_str_eq(w->items[0].name, "QUAD");
    ck_assert_str_eq(w->items[0].source, "(defun quad (y) (sq (sq y)))");
    ck_assert_int_eq(w->items[0].line, 2);
    ck_assert_int_eq(w->items[0].column, 17);
    ck_assert_int_eq(w->items[1].line, 2);
    ck_assert_int_eq(w->items[1].column, 21);
    tcl_info_free(w);
    tcl_session_free(s);
}
END_TEST

START_TEST(loaded_files_record_line_and_column) {
    TclSession *s = new_session();
    char path[] = "/tmp/tinycl-introspect-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *src = "; a comment\n\n(defvar *level* 0)\n   (defun deeper (n)\n     (let ((*level* n)) (setq *level* (1+ *level*))))\n";
    ck_assert_int_eq(write(fd, src, strlen(src)), (int)strlen(src));
    close(fd);
    TclResult *r = tcl_load_file(s, path);
    ck_assert_int_eq(r->status, TCL_OK);
    tcl_result_free(r);
    TclInfo *d = tcl_find_definitions(s, "deeper", NULL);
    ck_assert_int_eq(d->count, 1);
    ck_assert_str_eq(d->items[0].file, path);
    ck_assert_int_eq(d->items[0].line, 4);
    ck_assert_int_eq(d->items[0].column, 4);
    tcl_info_free(d);
    d = tcl_find_definitions(s, "*level*", NULL);
    ck_assert_int_eq(d->count, 1);
    ck_assert_str_eq(d->items[0].kind, "variable");
    ck_assert_int_eq(d->items[0].line, 3);
    ck_assert_int_eq(d->items[0].column, 1);
    tcl_info_free(d);
    const char *rels[] = {"binds", "sets", "references"};
    for (int i = 0; i < 3; i++) {
        TclInfo *x = tcl_xref(s, rels[i], "*level*", NULL);
        ck_assert_msg(x->count == 1 && strcmp(x->items[0].name, "DEEPER") == 0, "%s", rels[i]);
        ck_assert_int_eq(x->items[0].line, 5);   /* the site: the LET, the SETQ, the 1+ on line 5 */
        tcl_info_free(x);
    }
    unlink(path);
    tcl_session_free(s);
}
END_TEST

START_TEST(redefinition_and_reset_keep_the_xref_exact) {
    TclSession *s = new_session();
    eval_ok(s, "(defun g1 () 1) (defun g2 () 2) (defun f () (g1))");
    TclInfo *w = tcl_xref(s, "calls", "g1", NULL);
    ck_assert_int_eq(w->count, 1);
    tcl_info_free(w);
    eval_ok(s, "(defun f () (g2))");
    w = tcl_xref(s, "calls", "g1", NULL);
    ck_assert_int_eq(w->count, 0);
    tcl_info_free(w);
    w = tcl_xref(s, "calls", "g2", NULL);
    ck_assert_int_eq(w->count, 1);
    tcl_info_free(w);
    tcl_reset(s, false);
    eval_ok(s, "(defun g2 () 2)");
    w = tcl_xref(s, "calls", "g2", NULL);
    ck_assert_int_eq(w->count, 0);
    tcl_info_free(w);
    tcl_session_free(s);
}
END_TEST

START_TEST(lambda_list_specials_are_bindings) {
    TclSession *s = new_session();
    eval_ok(s, "(defvar *depth* 0) (defun by-param (*depth*) *depth*) (defun by-opt (&optional (*depth* 1)) *depth*)");
    TclInfo *w = tcl_xref(s, "binds", "*depth*", NULL);
    ck_assert_int_eq(w->count, 2);
    ck_assert_str_eq(w->items[0].name, "BY-OPT");
    ck_assert_str_eq(w->items[1].name, "BY-PARAM");
    tcl_info_free(w);
    tcl_session_free(s);
}
END_TEST

START_TEST(errors_are_reported_not_raised) {
    TclSession *s = new_session();
    TclInfo *d = tcl_describe_symbol(s, "no-such-thing-xyz", NULL);
    ck_assert_int_eq(d->result->status, TCL_ERROR);
    ck_assert_ptr_null(d->text);
    ck_assert_ptr_nonnull(strstr(d->result->error_message, "No symbol named"));
    tcl_info_free(d);
    d = tcl_describe_symbol(s, "car", "NO-SUCH-PACKAGE");
    ck_assert_str_eq(d->result->error_type, "PACKAGE-ERROR");
    tcl_info_free(d);
    d = tcl_inspect(s, NULL, NULL, NULL, 0);
    ck_assert_int_eq(d->result->status, TCL_ERROR);
    tcl_info_free(d);
    d = tcl_macroexpand(s, "(when", NULL, false);
    ck_assert_int_ne(d->result->status, TCL_OK);
    tcl_info_free(d);
    d = tcl_xref(s, "eats", "car", NULL);
    ck_assert_int_eq(d->result->status, TCL_ERROR);
    tcl_info_free(d);
    /* the session is intact */
    eval_ok(s, "(+ 1 2)");
    tcl_session_free(s);
}
END_TEST

START_TEST(inspect_apropos_macroexpand_documentation) {
    TclSession *s = new_session();
    TclInfo *i = tcl_inspect(s, "(list 1 (vector 2 3))", NULL, NULL, 0);
    ck_assert_int_eq(i->count, 2);
    ck_assert_str_eq(i->items[1].detail, "#(2 3)");
    tcl_info_free(i);
    long path[] = {1, 0};
    i = tcl_inspect(s, NULL, NULL, path, 2);
    ck_assert_int_eq(i->result->status, TCL_OK);
    ck_assert_ptr_nonnull(strstr(i->text, "path: 1 > 0"));
    tcl_info_free(i);
    i = tcl_inspect(s, "(make-list 5000)", NULL, NULL, 0);
    ck_assert_int_eq(i->count, 200);
    ck_assert_int_eq(i->total, 5000);
    tcl_info_free(i);
    eval_ok(s, "(defun adder (n) (lambda (x) (+ x n)))");
    i = tcl_inspect(s, "(adder 5)", NULL, NULL, 0);
    ck_assert_ptr_nonnull(item_named(i, "closure variable N"));
    ck_assert_str_eq(item_named(i, "closure variable N")->detail, "5");
    tcl_info_free(i);
    const char *kinds[] = {"macro", NULL};
    TclInfo *a = tcl_apropos(s, "defun", "CL", true, kinds);
    ck_assert_int_ge(a->count, 1);
    ck_assert_str_eq(a->items[0].name, "COMMON-LISP:DEFUN");
    ck_assert_ptr_null(item_named(a, "COMMON-LISP:CAR"));
    tcl_info_free(a);
    TclInfo *m = tcl_macroexpand(s, "(unless a (when b c))", NULL, true);
    ck_assert_ptr_null(strstr(m->text, "WHEN"));
    ck_assert_str_eq(m->subject, "expanded");
    tcl_info_free(m);
    eval_ok(s, "(defun documented () \"Says hello.\" 'hello)");
    TclInfo *d = tcl_documentation(s, "documented", NULL, "function");
    ck_assert_str_eq(d->text, "[function] Says hello.");
    tcl_info_free(d);
    tcl_session_free(s);
}
END_TEST

int main(void) {
    Suite *su = suite_create("introspect");
    TCase *tc = tcase_create("session API");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, typed_in_definitions_record_call_and_source);
    tcase_add_test(tc, loaded_files_record_line_and_column);
    tcase_add_test(tc, redefinition_and_reset_keep_the_xref_exact);
    tcase_add_test(tc, lambda_list_specials_are_bindings);
    tcase_add_test(tc, errors_are_reported_not_raised);
    tcase_add_test(tc, inspect_apropos_macroexpand_documentation);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
