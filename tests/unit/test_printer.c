/* test_printer.c: unit tests of the printer's C layer: print_obj under the print variables,
 * symbol quoting, characters, circularity, and the pretty printer's C interface (logical
 * blocks, conditional newlines, indentation, the PPRINT-POP checks). Expected values are SBCL's. */
#include "unit.h"
#include "array.h"

static const char *princ_str(Lisp *L, Obj o) { return princ_cstr(L, o); }

static Obj sym(Lisp *L, const char *name) { return intern_cstr(L, L->pkg_cl_user, name); }

START_TEST(test_print_obj_basics) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(prin1_cstr(L, string_from_cstr(L, "a\"b")), "\"a\\\"b\"");
    ck_assert_str_eq(princ_str(L, string_from_cstr(L, "a\"b")), "a\"b");
    ck_assert_str_eq(prin1_cstr(L, make_char(' ')), "#\\ ");
    ck_assert_str_eq(prin1_cstr(L, make_char('a')), "#\\a");
    ck_assert_str_eq(prin1_cstr(L, make_char(0)), "#\\Nul");
    ck_assert_str_eq(prin1_cstr(L, make_char(0xC8)), "#\\LATIN_CAPITAL_LETTER_E_WITH_GRAVE");
    ck_assert_str_eq(princ_str(L, make_char(0xC8)), "\xc3\x88");
    ck_assert_str_eq(prin1_cstr(L, cons(L, FIX(1), cons(L, FIX(2), FIX(3)))), "(1 2 . 3)");
    ck_assert_str_eq(string_to_utf8(L, printer_char_name(L, 'a'), NULL), "LATIN_SMALL_LETTER_A");
    ck_assert_str_eq(string_to_utf8(L, printer_char_name(L, ' '), NULL), "Space");
}
END_TEST

START_TEST(test_symbol_quoting) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(prin1_cstr(L, sym(L, "FOO")), "FOO");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "foo")), "|foo|");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "123")), "|123|");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "1+")), "1+");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "1/")), "|1/|");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "1AB")), "1AB");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "1A")), "|1A|");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "..")), "|..|");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "A.B")), "A.B");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "")), "||");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "A|B")), "|A\\|B|");
    ck_assert_str_eq(prin1_cstr(L, sym(L, "A B")), "|A B|");
    ck_assert_str_eq(princ_str(L, sym(L, "A B")), "A B");
    ck_assert_str_eq(prin1_cstr(L, keyword(L, "KEY")), ":KEY");
    ck_assert_str_eq(prin1_cstr(L, intern_cstr(L, L->pkg_system, "ZZY")), "SYSTEM::ZZY");
    ck_assert_str_eq(prin1_cstr(L, symbol_new(L, string_from_cstr(L, "G")))  , "#:G");
    ck_assert_eval(L, "(let ((*print-base* 16)) (prin1-to-string '(a ff g 10)))", "\"(|A| |FF| G A)\"");
    ck_assert_eval(L, "(let ((*print-case* :capitalize)) (prin1-to-string '(foo-bar foo1bar |foo|)))", "\"(Foo-Bar Foo1bar |foo|)\"");
    ck_assert_eval(L, "(let ((*print-case* :downcase)) (prin1-to-string '(foo |Foo|)))", "\"(foo |Foo|)\"");
}
END_TEST

START_TEST(test_print_variables) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(let ((*print-level* 2)) (prin1-to-string '(a (b (c (d))))))", "\"(A (B #))\"");
    ck_assert_eval(L, "(let ((*print-length* 2)) (prin1-to-string '(a b c d)))", "\"(A B ...)\"");
    ck_assert_eval(L, "(let ((*print-length* 2)) (prin1-to-string #(a b c d)))", "\"#(A B ...)\"");
    ck_assert_eval(L, "(let ((*print-radix* t)) (prin1-to-string '(10 1/2)))", "\"(10. #10r1/2)\"");
    ck_assert_eval(L, "(write-to-string 12 :base 2 :radix t)", "\"#b1100\"");
    ck_assert_eval(L, "(write-to-string '(\"a\" #\\b) :escape nil)", "\"(a b)\"");
    ck_assert_eval(L, "(let ((*print-circle* t)) (prin1-to-string (let ((x (list 1 2))) (list x x))))", "\"(#1=(1 2) #1#)\"");
    ck_assert_eval(L, "(let ((*print-circle* t)) (prin1-to-string (let ((x (list 1 2))) (setf (cdr (cdr x)) x) x)))",
                   "\"#1=(1 2 . #1#)\"");
    ck_assert_eval(L, "(let ((*print-circle* t)) (prin1-to-string (let ((g (make-symbol \"G\"))) (list g g))))", "\"(#1=#:G #1#)\"");
    ck_assert_str_eq(unit_eval_error(L, "(let ((*print-readably* t)) (prin1-to-string #'car))"), "PRINT-NOT-READABLE");
    ck_assert_eval(L, "(prin1-to-string (find-package \"CL-USER\"))", "\"#<PACKAGE \\\"COMMON-LISP-USER\\\">\"");
    ck_assert_eval(L, "(prin1-to-string #'car)", "\"#<FUNCTION CAR>\"");
    ck_assert_eval(L, "(let ((*print-pretty* t)) (prin1-to-string '`(a ,b ,@c)))", "\"`(A ,B ,@C)\"");
}
END_TEST

/* A logical block body written in C: elements with fill newlines. */
static void body_elements(Lisp *L, Obj stream, Obj list, void *data) {
    (void)data;
    long count = 0;
    while (list != NIL) {
        if (pp_pop_check(L, stream, list, count)) return;
        count++;
        print_obj(L, CAR(list), stream, true);
        list = CDR(list);
        if (list == NIL) return;
        stream_write_char(L, stream, ' ');
        pp_newline(L, stream, PP_FILL);
    }
}

static Obj number_list(Lisp *L, int n) {
    Obj r = NIL;
    for (int i = n; i >= 1; i--) r = cons(L, FIX(i * 1111), r);
    return r;
}

START_TEST(test_pretty_c_interface) {
    Lisp *L = unit_lisp();
    Obj s = make_string_output_stream(L);
    ck_assert(!pp_stream_p(L, s));
    /* a fresh stream for each block: each starts at column 0 */
    SYM(S(PRINT_PRETTY))->value = S(T);
    SYM(S(PRINT_RIGHT_MARGIN))->value = FIX(20);
    s = make_string_output_stream(L);
    pp_logical_block(L, s, number_list(L, 8), string_from_cstr(L, "["), false, string_from_cstr(L, "]"), body_elements, NULL);
    ck_assert_str_eq(string_to_utf8(L, get_output_stream_string(L, s), NULL), "[1111 2222 3333\n 4444 5555 6666\n 7777 8888]");
    /* *print-length* through the PPRINT-POP checks */
    SYM(S(PRINT_LENGTH))->value = FIX(2);
    s = make_string_output_stream(L);
    pp_logical_block(L, s, number_list(L, 8), string_from_cstr(L, "("), false, string_from_cstr(L, ")"), body_elements, NULL);
    ck_assert_str_eq(string_to_utf8(L, get_output_stream_string(L, s), NULL), "(1111 2222 ...)");
    SYM(S(PRINT_LENGTH))->value = NIL;
    /* a dotted tail */
    s = make_string_output_stream(L);
    pp_logical_block(L, s, cons(L, FIX(1), FIX(2)), string_from_cstr(L, "("), false, string_from_cstr(L, ")"), body_elements, NULL);
    ck_assert_str_eq(string_to_utf8(L, get_output_stream_string(L, s), NULL), "(1 . 2)");
    /* not a list: printed with WRITE, the body is skipped */
    s = make_string_output_stream(L);
    pp_logical_block(L, s, FIX(5), string_from_cstr(L, "("), false, string_from_cstr(L, ")"), body_elements, NULL);
    ck_assert_str_eq(string_to_utf8(L, get_output_stream_string(L, s), NULL), "5");
    /* without *print-pretty*, conditional newlines do nothing */
    SYM(S(PRINT_PRETTY))->value = NIL;
    s = make_string_output_stream(L);
    pp_logical_block(L, s, number_list(L, 8), string_from_cstr(L, "["), false, string_from_cstr(L, "]"), body_elements, NULL);
    ck_assert_str_eq(string_to_utf8(L, get_output_stream_string(L, s), NULL), "[1111 2222 3333 4444 5555 6666 7777 8888]");
}
END_TEST

START_TEST(test_pretty_layouts) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(let ((*print-pretty* t)) (prin1-to-string '(defun f (n) (if (= n 0) 1 (* n (f (- n 1)))))))",
                   "\"(DEFUN F (N)\n  (IF (= N 0)\n      1\n      (* N (F (- N 1)))))\"");
    ck_assert_eval(L, "(let ((*print-pretty* t)) (prin1-to-string '(let ((x 1)) x)))", "\"(LET ((X 1))\n  X)\"");
    ck_assert_eval(L, "(let ((*print-pretty* t) (*print-right-margin* 20)) (prin1-to-string '(aaaa bbbb cccc dddd eeee ffff)))",
                   "\"(AAAA BBBB CCCC\n DDDD EEEE FFFF)\"");
    ck_assert_eval(L, "(let ((*print-pretty* t) (*print-lines* 1) (*print-right-margin* 20)) (prin1-to-string '(aaaa bbbb cccc dddd eeee ffff)))",
                   "\"(AAAA BBBB CCCC ..)\"");
    ck_assert_eval(L, "(let ((s (make-string-output-stream))) (let ((*print-pretty* t)) (pprint-logical-block (s nil :per-line-prefix \";; \") (write-string \"a\" s) (pprint-newline :mandatory s) (write-string \"b\" s))) (get-output-stream-string s))",
                   "\";; a\n;; b\"");
}
END_TEST

/* A general array over a fresh simple-vector holding 1..total, built by hand as the arrays
 * module would. FILL < 0: no fill pointer. */
static Obj general_array(Lisp *L, int rank, const size_t *dims, long fill, bool adjustable) {
    size_t total = 1;
    for (int i = 0; i < rank; i++) total *= dims[i];
    Obj v = make_vector(L, total, NIL);
    for (size_t i = 0; i < total; i++) VEC(v)->data[i] = FIX((intptr_t)i + 1);
    Array *a = (Array *)heap_alloc(L, T_ARRAY, sizeof(Array));
    a->h.aux = (uint16_t)rank;
    a->h.aux32 = ELT_T;
    a->h.flags = (fill >= 0 ? ARR_FILL_POINTER : 0) | (adjustable ? ARR_ADJUSTABLE : 0);
    a->dims = (size_t *)gc_alloc(L, (size_t)(rank ? rank : 1) * sizeof(size_t));
    for (int i = 0; i < rank; i++) a->dims[i] = dims[i];
    a->total = total;
    a->fill = fill >= 0 ? (size_t)fill : total;
    a->storage = v;
    a->offset = 0;
    return (Obj)a;
}

START_TEST(test_print_arrays) {
    Lisp *L = unit_lisp();
    size_t d23[2] = {2, 3}, d0[1] = {0}, d5[1] = {5}, d20[2] = {2, 0}, d02[2] = {0, 2}, d222[3] = {2, 2, 2};
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 2, d23, -1, false)), "#2A((1 2 3) (4 5 6))");
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 0, d0, -1, false)), "#0A1");
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 3, d222, -1, false)), "#3A(((1 2) (3 4)) ((5 6) (7 8)))");
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 2, d20, -1, false)), "#2A(() ())");
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 2, d02, -1, false)), "#2A()");
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 1, d5, 2, false)), "#(1 2)");
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 1, d5, -1, true)), "#(1 2 3 4 5)");
    SYM(S(PRINT_LENGTH))->value = FIX(1);
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 2, d23, -1, false)), "#2A((1 ...) ...)");
    SYM(S(PRINT_LENGTH))->value = NIL;
    SYM(S(PRINT_LEVEL))->value = FIX(1);
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 2, d23, -1, false)), "#2A(# #)");
    SYM(S(PRINT_LEVEL))->value = NIL;
    SYM(S(PRINT_PRETTY))->value = S(T);
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 2, d23, -1, false)), "#2A((1 2 3) (4 5 6))");
    ck_assert_str_eq(prin1_cstr(L, general_array(L, 0, d0, -1, false)), "#0A1");
    SYM(S(PRINT_PRETTY))->value = NIL;
    /* *print-array* nil: SBCL's terse forms */
    SYM(S(PRINT_ARRAY))->value = NIL;
    const char *t = prin1_cstr(L, general_array(L, 1, d5, 2, false));
    ck_assert_msg(strncmp(t, "#<(VECTOR T 5) {", 16) == 0, "got %s", t);
    t = prin1_cstr(L, general_array(L, 2, d23, -1, false));
    ck_assert_msg(strncmp(t, "#<(SIMPLE-ARRAY T (2 3)) {", 26) == 0, "got %s", t);
    t = prin1_cstr(L, make_vector(L, 2, NIL));
    ck_assert_msg(strncmp(t, "#<(SIMPLE-VECTOR 2) {", 21) == 0, "got %s", t);
    ck_assert_str_eq(prin1_cstr(L, string_from_cstr(L, "abc")), "\"abc\"");
}
END_TEST

static Suite *printer_suite(void) {
    Suite *s = suite_create("printer");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_print_obj_basics);
    tcase_add_test(tc, test_symbol_quoting);
    tcase_add_test(tc, test_print_variables);
    tcase_add_test(tc, test_pretty_c_interface);
    tcase_add_test(tc, test_pretty_layouts);
    tcase_add_test(tc, test_print_arrays);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(printer_suite)
