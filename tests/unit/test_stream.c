/* test_stream.c: unit tests of the stream, pathname and load modules from C: string and file
 * streams, element types, positions, fill-pointer output, pathname parsing, LOAD. Expected values
 * are SBCL's. */
#include "unit.h"
#include "pathname.h"
#include <unistd.h>
#include <sys/stat.h>

/* A fresh temporary directory for one test; returned with a trailing slash. */
static char *temp_dir(void) {
    static char buf[64];
    snprintf(buf, sizeof buf, "/tmp/tinycl-unit-stream-XXXXXX");
    ck_assert_msg(mkdtemp(buf) != NULL, "mkdtemp failed");
    strcat(buf, "/");
    return buf;
}

static void remove_dir(Lisp *L, const char *dir) {
    char code[256];
    snprintf(code, sizeof code, "(tinycl:delete-directory \"%s\" :recursive t)", dir);
    unit_eval(L, code);
    struct stat st;
    ck_assert_int_ne(stat(dir, &st), 0);
}

/* A string with a fill pointer, adjustable or not, as the arrays module makes them. */
static Obj fill_pointer_string(Lisp *L, const char *init, size_t cap, bool adjustable) {
    Obj s = string_new(L, cap);
    size_t n = strlen(init);
    for (size_t i = 0; i < n; i++) STR(s)->data[i] = (uint32_t)(unsigned char)init[i];
    STR(s)->len = n;
    STR(s)->h.flags |= ARR_FILL_POINTER | (adjustable ? ARR_ADJUSTABLE : 0);
    return s;
}

/* Evaluate CODE expecting an error of the (exact) Lisp type TYPE: returns TYPE's name in upper
 * case when one was signalled (the session shows SBCL's extension types as their standard
 * ancestor, so unit_eval_error cannot tell them apart). */
static const char *unit_eval_type(Lisp *L, const char *code, const char *type) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "(handler-case (progn %s :no-error) (%s () :signalled) (error (c) (type-of c)))", code, type);
    const char *r = unit_eval_str(L, buf);
    if (strcmp(r, ":SIGNALLED") != 0) return r;
    static char up[128];
    size_t i = 0;
    for (; type[i] && i < sizeof up - 1; i++) up[i] = (char)(type[i] >= 'a' && type[i] <= 'z' ? type[i] - 32 : type[i]);
    up[i] = 0;
    return up;
}

START_TEST(test_string_streams_from_c) {
    Lisp *L = unit_lisp();
    Obj in = make_string_input_stream(L, string_from_cstr(L, "héllo"), 1, 4);
    ck_assert_int_eq(stream_read_char(L, in), 0xE9);
    ck_assert_int_eq(stream_peek_char(L, in), 'l');
    ck_assert_int_eq(stream_read_char(L, in), 'l');
    ck_assert_int_eq(stream_read_char(L, in), 'l');
    ck_assert_int_eq(stream_read_char(L, in), -1);
    Obj out = make_string_output_stream(L);
    stream_write_cstr(L, out, "a\xCE\xBB");
    ck_assert_uint_eq(stream_column(L, out), 2);
    stream_fresh_line(L, out);
    stream_fresh_line(L, out);
    Obj r = get_output_stream_string(L, out);
    ck_assert_uint_eq(STR(r)->len, 3);
    ck_assert_uint_eq(STR(r)->data[1], 0x3BB);
    stream_close(L, out, false);
    ck_assert_str_eq(unit_eval_error(L, "(let ((s (make-string-output-stream))) (close s) (write-char #\\a s))"),
                     "STREAM-ERROR");
}
END_TEST

START_TEST(test_fill_pointer_output) {
    Lisp *L = unit_lisp();
    Obj sym = unit_eval(L, "(defvar *unit-fp* nil) '*unit-fp*");
    /* room for two more characters, then the string grows */
    SYM(sym)->value = fill_pointer_string(L, "xx", 4, false);
    ck_assert_eval(L, "(with-output-to-string (s *unit-fp*) (write-string \"abc\" s) (princ 42 s))", "42");
    ck_assert_eval(L, "*unit-fp*", "\"xxabc42\"");
    SYM(sym)->value = fill_pointer_string(L, "", 0, true);
    ck_assert_eval(L, "(progn (with-output-to-string (s *unit-fp*) (format s \"~A-~A\" 1 2) (file-position s)) *unit-fp*)",
                   "\"1-2\"");
    ck_assert_str_eq(unit_eval_error(L, "(with-output-to-string (s \"simple\") (write-char #\\a s))"), "TYPE-ERROR");
}
END_TEST

START_TEST(test_file_streams) {
    Lisp *L = unit_lisp();
    char *dir = temp_dir();
    char code[1024];
    snprintf(code, sizeof code,
             "(with-open-file (s \"%sa.txt\" :direction :output) (write-line \"héllo\" s) (file-position s))", dir);
    ck_assert_eval(L, code, "7");
    snprintf(code, sizeof code, "(with-open-file (s \"%sa.txt\") (list (read-line s) (file-position s) (file-length s)))", dir);
    ck_assert_eval(L, code, "(\"héllo\" 7 7)");
    snprintf(code, sizeof code, "(with-open-file (s \"%sa.txt\" :external-format :latin-1) (read-line s))", dir);
    ck_assert_eval(L, code, "\"hÃ©llo\"");
    snprintf(code, sizeof code, "(open \"%sa.txt\" :direction :output)", dir);
    ck_assert_str_eq(unit_eval_type(L, code, "file-exists"), "FILE-EXISTS");
    snprintf(code, sizeof code, "(open \"%snone.txt\")", dir);
    ck_assert_str_eq(unit_eval_type(L, code, "file-does-not-exist"), "FILE-DOES-NOT-EXIST");
    /* a directory given to OPEN for output, a file in a missing directory */
    snprintf(code, sizeof code, "(open \"%s\" :direction :output :if-exists :supersede)", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "FILE-ERROR");
    snprintf(code, sizeof code, "(open \"%sno/such/x\" :direction :output)", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "FILE-ERROR");
    /* reading a directory opened for input */
    snprintf(code, sizeof code, "(with-open-file (s \"%s\") (read-char s))", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "STREAM-ERROR");
    remove_dir(L, dir);
}
END_TEST

START_TEST(test_binary_elements) {
    Lisp *L = unit_lisp();
    char *dir = temp_dir();
    char code[1024];
    snprintf(code, sizeof code,
             "(with-open-file (s \"%sb.bin\" :direction :output :element-type '(unsigned-byte 32))"
             " (write-byte 4294967295 s) (write-byte 1 s) (file-position s))", dir);
    ck_assert_eval(L, code, "2");
    snprintf(code, sizeof code,
             "(with-open-file (s \"%sb.bin\" :element-type '(signed-byte 32)) (list (read-byte s) (read-byte s) (read-byte s nil :eof) (file-length s)))", dir);
    ck_assert_eval(L, code, "(-1 1 :EOF 2)");
    snprintf(code, sizeof code,
             "(with-open-file (s \"%sc.bin\" :direction :output :element-type '(unsigned-byte 64))"
             " (write-byte 18446744073709551615 s) (write-byte 0 s))", dir);
    unit_eval(L, code);
    snprintf(code, sizeof code,
             "(with-open-file (s \"%sc.bin\" :element-type '(unsigned-byte 64)) (list (read-byte s) (read-byte s)))", dir);
    ck_assert_eval(L, code, "(18446744073709551615 0)");
    snprintf(code, sizeof code,
             "(with-open-file (s \"%sc.bin\" :direction :output :if-exists :supersede :element-type '(unsigned-byte 64))"
             " (write-byte 18446744073709551616 s))", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "TYPE-ERROR");
    snprintf(code, sizeof code, "(open \"%sc.bin\" :element-type 'integer)", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "SIMPLE-ERROR");
    remove_dir(L, dir);
}
END_TEST

START_TEST(test_pathnames_from_c) {
    Lisp *L = unit_lisp();
    Obj s = string_from_cstr(L, "/usr/lib/libx.so.1");
    Obj p = pathname_parse(L, s, 0, STR(s)->len);
    ck_assert_str_eq(prin1_cstr(L, PATHNAME(p)->directory), "(:ABSOLUTE \"usr\" \"lib\")");
    ck_assert_str_eq(prin1_cstr(L, PATHNAME(p)->name), "\"libx.so\"");
    ck_assert_str_eq(prin1_cstr(L, PATHNAME(p)->type), "\"1\"");
    ck_assert_str_eq(prin1_cstr(L, pathname_namestring(L, p)), "\"/usr/lib/libx.so.1\"");
    Obj q = pathname_from_native(L, "/tmp/a*b.c", false);
    ck_assert_str_eq(prin1_cstr(L, pathname_namestring(L, q)), "\"/tmp/a\\\\*b.c\"");
    ck_assert(!pathname_is_wild(L, q));
    ck_assert_str_eq(pathname_native(L, q), "/tmp/a*b.c");
    Obj d = pathname_from_native(L, "/tmp/", true);
    Obj m = pathname_merge(L, pathname_parse(L, string_from_cstr(L, "x.l"), 0, 3), d, S(K_NEWEST));
    ck_assert_str_eq(prin1_cstr(L, m), "#P\"/tmp/x.l\"");
    ck_assert(pathname_probe(L, pathname_from_native(L, "/nonexistent-tinycl-dir/x", false)) == NIL);
    ck_assert_str_eq(prin1_cstr(L, pathname_probe(L, d)), "#P\"/tmp/\"");
    ck_assert_str_eq(unit_eval_error(L, "(namestring (make-pathname :type \"x\"))"), "FILE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(open \"/tmp/*.x\")"), "FILE-ERROR");
}
END_TEST

START_TEST(test_load_from_c) {
    Lisp *L = unit_lisp();
    char *dir = temp_dir();
    char path[256], code[1024];
    snprintf(path, sizeof path, "%sunit-load.lisp", dir);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs("(defvar *unit-load-path* (namestring *load-truename*))\n(in-package :keyword)\n(cl:defparameter cl-user::*unit-load-pkg* (cl:package-name cl:*package*))\n", f);
    fclose(f);
    snprintf(code, sizeof code, "(load \"%sunit-load\")", dir);
    ck_assert_eval(L, code, "T");
    ck_assert_eval(L, "(list *unit-load-pkg* (package-name *package*))", "(\"KEYWORD\" \"COMMON-LISP-USER\")");
    snprintf(code, sizeof code, "(equal *unit-load-path* \"%s\")", path);
    ck_assert_eval(L, code, "T");
    /* an incomplete last form is a reader error of LOAD */
    f = fopen(path, "w");
    fputs("(+ 1\n", f);
    fclose(f);
    snprintf(code, sizeof code, "(load \"%s\")", path);
    ck_assert_str_eq(unit_eval_error(L, code), "READER-ERROR");
    snprintf(code, sizeof code, "(load \"%snope\" :if-does-not-exist nil)", dir);
    ck_assert_eval(L, code, "NIL");
    remove_dir(L, dir);
}
END_TEST

static Suite *stream_suite(void) {
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_string_streams_from_c);
    tcase_add_test(tc, test_fill_pointer_output);
    tcase_add_test(tc, test_file_streams);
    tcase_add_test(tc, test_binary_elements);
    tcase_add_test(tc, test_pathnames_from_c);
    tcase_add_test(tc, test_load_from_c);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(stream_suite)
