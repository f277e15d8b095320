/* test_string.c: unit tests of characters and strings: the C helpers (names, case, views of
 * non-simple strings) and the CLHS chapter 13 and 16 primitives. Expected values are SBCL's. */
#include "unit.h"
#include "character.h"
#include "array.h"

/* A character vector of dimension DIM displaced to TARGET at OFFSET, with a fill pointer FILL
 * (or none when FILL is -1): built by hand, as the arrays module would. */
static Obj char_vector(Lisp *L, Obj target, size_t offset, size_t dim, long fill) {
    Array *a = (Array *)heap_alloc(L, T_ARRAY, sizeof(Array));
    a->h.aux = 1;
    a->h.aux32 = ELT_CHARACTER;
    a->h.flags = ARR_DISPLACED | (fill >= 0 ? ARR_FILL_POINTER : 0);
    a->dims = (size_t *)gc_alloc(L, sizeof(size_t));
    a->dims[0] = dim;
    a->total = dim;
    a->fill = fill >= 0 ? (size_t)fill : dim;
    a->storage = target;
    a->offset = offset;
    return (Obj)a;
}

/* Bind the global variable NAME (a string of Lisp code naming it) to V. */
static void set_global(Lisp *L, const char *defvar_form, Obj v) {
    Obj sym = unit_eval(L, defvar_form);
    SYM(sym)->value = v;
}

START_TEST(test_char_names_in_c) {
    Lisp *L = unit_lisp();
    (void)L;
    char buf[CHAR_NAME_MAX];
    char_name_write(0, buf);
    ck_assert_str_eq(buf, "Nul");
    char_name_write(' ', buf);
    ck_assert_str_eq(buf, "Space");
    char_name_write('a', buf);
    ck_assert_str_eq(buf, "LATIN_SMALL_LETTER_A");
    char_name_write(0xE9, buf);
    ck_assert_str_eq(buf, "LATIN_SMALL_LETTER_E_WITH_ACUTE");
    char_name_write(0x85, buf);
    ck_assert_str_eq(buf, "Next-Line");
    char_name_write(0xAC00, buf);
    ck_assert_str_eq(buf, "HANGUL_SYLLABLE_GA");
    char_name_write(0xF900, buf);
    ck_assert_str_eq(buf, "CJK_COMPATIBILITY_IDEOGRAPH-F900");
    char_name_write(0x4E00, buf);
    ck_assert_str_eq(buf, "U4E00");
    char_name_write(0x10FFFF, buf);
    ck_assert_str_eq(buf, "U10FFFF");
    /* the printer's names: none for graphic ASCII */
    ck_assert_ptr_null(char_name_of('a'));
    ck_assert_ptr_null(char_name_of('~'));
    ck_assert_str_eq(char_name_of('\n'), "Newline");
    ck_assert_str_eq(char_name_of(127), "Rubout");
    ck_assert_str_eq(char_name_of(0x3A3), "GREEK_CAPITAL_LETTER_SIGMA");
}
END_TEST

static int32_t from_name(const char *s) {
    uint32_t buf[64];
    size_t n = 0;
    while (s[n] && n < 64) { buf[n] = (unsigned char)s[n]; n++; }
    return char_from_name(buf, n);
}

START_TEST(test_name_lookup_in_c) {
    Lisp *L = unit_lisp();
    (void)L;
    ck_assert_int_eq(from_name("Space"), 32);
    ck_assert_int_eq(from_name("sPaCe"), 32);
    ck_assert_int_eq(from_name("Linefeed"), 10);
    ck_assert_int_eq(from_name("Null"), 0);
    ck_assert_int_eq(from_name("Bel"), 7);
    ck_assert_int_eq(from_name("Bell"), 0x1F514);
    ck_assert_int_eq(from_name("PAGE"), 12);
    ck_assert_int_eq(from_name("latin_small_letter_e_with_acute"), 0xE9);
    ck_assert_int_eq(from_name("BROKEN_VERTICAL_BAR"), 0xA6);
    ck_assert_int_eq(from_name("HANGUL_SYLLABLE_HIH"), 0xD7A3);
    ck_assert_int_eq(from_name("NUSHU_CHARACTER-1B170"), 0x1B170);
    ck_assert_int_eq(from_name("CJK_COMPATIBILITY_IDEOGRAPH-FAFF"), -1);
    ck_assert_int_eq(from_name("U+41"), 65);
    ck_assert_int_eq(from_name("u10ffff"), 0x10FFFF);
    ck_assert_int_eq(from_name("U+110000"), -2);
    ck_assert_int_eq(from_name("U+FFFFFFFFFFFFFFFFFFFFFFFF"), -2);
    ck_assert_int_eq(from_name("U+"), -1);
    ck_assert_int_eq(from_name("a"), -1);
    ck_assert_int_eq(from_name(""), -1);
    ck_assert_int_eq(from_name("LATIN SMALL LETTER A"), -1);
    /* a name longer than any table name */
    ck_assert_int_eq(from_name("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"), -1);
}
END_TEST

START_TEST(test_case_and_classes_in_c) {
    Lisp *L = unit_lisp();
    (void)L;
    ck_assert_uint_eq(char_upcase('a'), 'A');
    ck_assert_uint_eq(char_upcase(0xE9), 0xC9);          /* é */
    ck_assert_uint_eq(char_upcase(0x3C2), 0x3C2);        /* final sigma has no one-to-one upcase */
    ck_assert_uint_eq(char_upcase(0xDF), 0xDF);          /* sharp s */
    ck_assert_uint_eq(char_downcase(0x3A3), 0x3C3);      /* Σ -> σ */
    ck_assert_uint_eq(char_downcase(0x130), 0x130);      /* İ: not a round trip */
    ck_assert(char_is_upper(0x3A3) && !char_is_lower(0x3A3));
    ck_assert(!char_is_upper(0x1C5) && !char_is_lower(0x1C5) && char_has_case(0x1C5));
    ck_assert(char_equal_ci(0x1C5, 0x1C4) && !char_equal_ci(0x1C4, 0x1C5));
    ck_assert(char_is_alpha(0x4E00) && !char_is_alpha(0x665) && char_is_alphanumeric(0x665));
    ck_assert_int_eq(char_digit_weight(0x665, 10), 5);
    ck_assert_int_eq(char_digit_weight(0x665, 5), -1);
    ck_assert_int_eq(char_digit_weight('z', 36), 35);
    ck_assert_int_eq(char_digit_weight('z', 35), -1);
    ck_assert(char_is_graphic(160) && !char_is_graphic(159) && char_is_graphic(0xD800));
    ck_assert(char_is_standard('\n') && !char_is_standard('\t'));
}
END_TEST

START_TEST(test_string_helpers) {
    Lisp *L = unit_lisp();
    Obj base = string_from_cstr(L, "hello world");
    Obj d = char_vector(L, base, 6, 5, 3);
    ck_assert(is_any_string(d) && is_any_string(base) && !is_any_string(NIL));
    size_t n;
    const uint32_t *p = string_data(L, d, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(p[0], 'w');
    ck_assert_uint_eq(p[2], 'r');
    /* displaced to a displaced vector */
    Obj dd = char_vector(L, d, 1, 3, -1);
    p = string_data(L, dd, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(p[0], 'o');
    /* a displacement beyond the target's storage is refused, never read */
    Obj bad = char_vector(L, base, 9, 5, -1);
    ck_assert_ptr_null(string_storage(bad, &n));
    Obj parts[3] = {string_from_cstr(L, "ab"), d, string_from_cstr(L, "é")};
    ck_assert_str_eq(string_to_utf8(L, string_concat(L, 3, parts), NULL), "abworé");
    ck_assert_str_eq(string_to_utf8(L, string_concat(L, 0, parts), NULL), "");
    ck_assert_str_eq(string_to_utf8(L, string_substring(L, base, 2, 5), NULL), "llo");
    ck_assert_str_eq(string_to_utf8(L, string_substring(L, d, 1, 99), NULL), "or");
    ck_assert_str_eq(string_to_utf8(L, string_designator(L, d), NULL), "wor");
    ck_assert(is_string(string_designator(L, d)));
    ck_assert_str_eq(string_to_utf8(L, d, NULL), "wor");
}
END_TEST

START_TEST(test_character_primitives) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(char-upcase #\\a)", "#\\A");
    ck_assert_eval(L, "(list (char= #\\a #\\a #\\a) (char/= #\\a #\\b #\\a) (char< #\\a #\\b #\\c) (char>= #\\b #\\b #\\a))",
                   "(T NIL T T)");
    ck_assert_eval(L, "(list (char-equal #\\a #\\A) (char-lessp #\\_ #\\a) (char-greaterp #\\a #\\_) (char-not-equal #\\a #\\B #\\A))",
                   "(T T T NIL)");
    ck_assert_eval(L, "(list (digit-char-p #\\7) (digit-char-p #\\f 16) (digit-char 11 16) (digit-char 11))", "(7 15 #\\B NIL)");
    ck_assert_eval(L, "(list (alpha-char-p #\\a) (alphanumericp #\\5) (graphic-char-p #\\Newline) (standard-char-p #\\Tab))",
                   "(T T NIL NIL)");
    ck_assert_eval(L, "(list (upper-case-p #\\A) (lower-case-p #\\A) (both-case-p #\\1))", "(T NIL NIL)");
    ck_assert_eval(L, "(list (char-code #\\a) (code-char 65) (char-int #\\Space) char-code-limit)", "(97 #\\A 32 1114112)");
    ck_assert_eval(L, "(list (character \"x\") (character 'y) (characterp #\\a) (characterp \"a\"))", "(#\\x #\\Y T NIL)");
    ck_assert_eval(L, "(list (char-name #\\Space) (char-name (code-char 0)) (char-name #\\a))",
                   "(\"Space\" \"Nul\" \"LATIN_SMALL_LETTER_A\")");
    ck_assert_eval(L, "(list (name-char \"space\") (name-char 'newline) (name-char \"U+41\") (name-char \"nope\"))",
                   "(#\\  #\\Newline #\\A NIL)");
    ck_assert_eval(L, "(list (code-char 233) (code-char 133))", "(#\\LATIN_SMALL_LETTER_E_WITH_ACUTE #\\Next-Line)");
    ck_assert_eval(L, "(char-upcase #\\LATIN_SMALL_LETTER_E_WITH_ACUTE)", "#\\LATIN_CAPITAL_LETTER_E_WITH_ACUTE");
}
END_TEST

START_TEST(test_character_errors) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(unit_eval_error(L, "(char-upcase 1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(char= #\\a #\\b 1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(char=)"), "PROGRAM-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(code-char 1114112)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(code-char -1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(digit-char-p #\\a 37)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(digit-char -1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(character \"ab\")"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(name-char 12)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(name-char \"U+110000\")"), "TYPE-ERROR");
    ck_assert_eval(L, "(handler-case (code-char 1114112) (type-error (e) (type-error-expected-type e)))", "(MOD 1114112)");
    ck_assert_str_eq(unit_eval_error(L, "(setq char-code-limit 5)"), "PROGRAM-ERROR");
}
END_TEST

START_TEST(test_string_primitives) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(list (string= \"abc\" \"abc\") (string< \"abc\" \"abd\") (string/= \"abc\" \"ab\") (string>= \"abc\" \"abc\"))",
                   "(T 2 2 3)");
    ck_assert_eval(L, "(string< \"xabc\" \"abd\" :start1 1)", "3");
    ck_assert_eval(L, "(list (string-equal \"ABC\" \"abc\") (string-lessp \"ABC\" \"abd\") (string-not-equal 'abc \"abd\"))",
                   "(T 2 2)");
    ck_assert_eval(L, "(string-upcase \"hello world\" :start 6)", "\"hello WORLD\"");
    ck_assert_eval(L, "(string-capitalize \"don't stop-me now3x\")", "\"Don'T Stop-Me Now3x\"");
    ck_assert_eval(L, "(string-downcase 'ABC)", "\"abc\"");
    ck_assert_eval(L, "(let ((s (string-upcase \"abc\" :end 0))) (list (eq s (nstring-upcase s :start 1)) s))", "(T \"aBC\")");
    ck_assert_eval(L, "(list (string-trim \" \" \"  ab  \") (string-left-trim \"ab\" \"abxba\") (string-right-trim '(#\\a) \"aba\"))",
                   "(\"ab\" \"xba\" \"ab\")");
    ck_assert_eval(L, "(let ((s \"abc\")) (eq s (string-trim \"x\" s)))", "T");
    ck_assert_eval(L, "(list (string 'abc) (string #\\x) (stringp \"\") (simple-string-p \"a\") (stringp 'a))",
                   "(\"ABC\" \"x\" T T NIL)");
    ck_assert_eval(L, "(let ((s (make-string 3 :initial-element #\\a))) (setf (char s 0) #\\b (schar s 2) #\\c) s)", "\"bac\"");
    ck_assert_eval(L, "(list (char \"abc\" 1) (schar \"abc\" 2))", "(#\\b #\\c)");
}
END_TEST

START_TEST(test_string_errors) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(unit_eval_error(L, "(char \"abc\" 3)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(char \"abc\" -1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(char 'abc 0)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(setf (char (make-string 2) 0) 1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(string= \"abc\" \"abd\" :end1 4)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(string-upcase \"abc\" :start 2 :end 1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(string-upcase 12)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(nstring-upcase 'abc)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(string-trim 1 \"abc\")"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(make-string -1)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(make-string 2 :element-type 'fixnum)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(string= \"a\" \"a\" :bad 1)"), "PROGRAM-ERROR");
    ck_assert_eval(L, "(handler-case (string= \"abc\" \"abd\" :start1 2 :end1 1) "
                      "(type-error (e) (list (type-error-datum e) (type-error-expected-type e))))",
                   "((2 . 1) (CONS (INTEGER 0 3) (INTEGER 2 3)))");
    ck_assert_eval(L, "(handler-case (char \"abc\" 3) (type-error (e) (type-error-expected-type e)))", "(INTEGER 0 (3))");
    /* huge sizes are refused, not attempted */
    ck_assert_str_eq(unit_eval_error(L, "(make-string 4611686018427387000)"), "STORAGE-CONDITION");
    /* a circular character bag is refused instead of searched forever */
    ck_assert_str_eq(unit_eval_error(L, "(let ((b (list #\\a #\\b))) (setf (cdr (cdr b)) b) (string-trim b \"xyz\"))"),
                     "TYPE-ERROR");
}
END_TEST

START_TEST(test_non_simple_strings) {
    Lisp *L = unit_lisp();
    Obj base = string_from_cstr(L, "hello world");
    set_global(L, "(defvar *base* nil) '*base*", base);
    set_global(L, "(defvar *fp* nil) '*fp*", char_vector(L, base, 6, 5, 3));   /* "wor", dimension 5 */
    ck_assert_eval(L, "(list (stringp *fp*) (simple-string-p *fp*) (eq *fp* (string *fp*)))", "(T NIL T)");
    ck_assert_eval(L, "(list (string= *fp* \"wor\") (string< *fp* \"wos\") (string-equal \"WOR\" *fp*))", "(T 2 T)");
    ck_assert_eval(L, "(list (string-upcase *fp*) (string-capitalize *fp* :start 1) (string-trim \"w\" *fp*))",
                   "(\"WOR\" \"wOr\" \"or\")");
    /* CHAR ignores the fill pointer but not the dimension */
    ck_assert_eval(L, "(list (char *fp* 3) (char *fp* 4))", "(#\\l #\\d)");
    ck_assert_str_eq(unit_eval_error(L, "(char *fp* 5)"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(schar *fp* 0)"), "TYPE-ERROR");
    /* bounds are the fill pointer */
    ck_assert_str_eq(unit_eval_error(L, "(string-upcase *fp* :end 4)"), "TYPE-ERROR");
    /* writes go through to the displaced-to string */
    ck_assert_eval(L, "(list (eq *fp* (nstring-upcase *fp*)) *base*)", "(T \"hello WORld\")");
    ck_assert_eval(L, "(progn (setf (char *fp* 4) #\\D) *base*)", "\"hello WORlD\"");
    ck_assert_eval(L, "(eq *fp* (string-trim \"x\" *fp*))", "T");
    ck_assert_eval(L, "(character (string-left-trim \"WO\" *fp*))", "#\\R");
    /* displaced past the end of its target: errors, never reads or writes outside it */
    set_global(L, "(defvar *bad* nil) '*bad*", char_vector(L, base, 9, 5, -1));
    ck_assert_str_eq(unit_eval_error(L, "(char *bad* 2)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(setf (char *bad* 4) #\\x)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(string-upcase *bad*)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(nstring-upcase *bad*)"), "SIMPLE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(string= *bad* \"x\")"), "SIMPLE-ERROR");
    ck_assert_eval(L, "(list (char *bad* 0) (char *bad* 1))", "(#\\l #\\D)");
}
END_TEST

/* The C-level UTF-8 decoder is strict: what is not well-formed UTF-8 becomes U+FFFD, one per byte
 * (SBCL's utf-8 with a replacement character), so that C0 AF can never be read as "/". */
static void ck_decodes(Lisp *L, const char *bytes, size_t n, const uint32_t *want, size_t nwant) {
    Obj s = string_from_utf8(L, bytes, n);
    ck_assert_uint_eq(STR(s)->len, nwant);
    for (size_t i = 0; i < nwant; i++)
        ck_assert_msg(STR(s)->data[i] == want[i], "byte string %zu: char %zu is U+%04X, wanted U+%04X",
                      n, i, STR(s)->data[i], want[i]);
}

START_TEST(test_utf8_decoding_is_strict) {
    Lisp *L = unit_lisp();
    const uint32_t R = 0xFFFD;
    ck_decodes(L, "\xc0\xaf", 2, (uint32_t[]){R, R}, 2);                      /* overlong "/" */
    ck_decodes(L, "a\xe0\x80\xaf" "b", 5, (uint32_t[]){'a', R, R, R, 'b'}, 5);   /* overlong, 3 bytes */
    ck_decodes(L, "\xf0\x80\x80\xaf", 4, (uint32_t[]){R, R, R, R}, 4);          /* overlong, 4 bytes */
    ck_decodes(L, "\xed\xa0\x80", 3, (uint32_t[]){R, R, R}, 3);                /* surrogate D800 */
    ck_decodes(L, "\xf4\x90\x80\x80", 4, (uint32_t[]){R, R, R, R}, 4);          /* U+110000 */
    ck_decodes(L, "\xf8\x88\x80\x80\x80", 5, (uint32_t[]){R, R, R, R, R}, 5);    /* 5-byte form */
    ck_decodes(L, "x\xc3", 2, (uint32_t[]){'x', R}, 2);                         /* cut short */
    ck_decodes(L, "\x80", 1, (uint32_t[]){R}, 1);                               /* stray continuation */
    /* well-formed text at the edges of the ranges is untouched */
    ck_decodes(L, "\xc2\x80\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf", 12, (uint32_t[]){0x80, 0xD7FF, 0xE000, 0x10FFFF}, 4);
    /* source text: the overlong slash inside a string literal is two replacement characters */
    ck_assert_eval(L, "(map 'list #'char-code \"\xc0\xaf\")", "(65533 65533)");
}
END_TEST

static Suite *string_suite(void) {
    Suite *s = suite_create("string");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_char_names_in_c);
    tcase_add_test(tc, test_name_lookup_in_c);
    tcase_add_test(tc, test_case_and_classes_in_c);
    tcase_add_test(tc, test_string_helpers);
    tcase_add_test(tc, test_character_primitives);
    tcase_add_test(tc, test_character_errors);
    tcase_add_test(tc, test_string_primitives);
    tcase_add_test(tc, test_string_errors);
    tcase_add_test(tc, test_non_simple_strings);
    tcase_add_test(tc, test_utf8_decoding_is_strict);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(string_suite)
