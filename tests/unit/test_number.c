/* test_number.c: unit tests of the numeric tower: the C API of number.h and the printed results
 * of the number functions. Every expected string is what SBCL prints. */
#include "unit.h"
#include "number.h"
#include <math.h>

typedef struct { const char *form, *expected; } Case;

static void run_cases(Lisp *L, const Case *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *got = unit_eval_str(L, cases[i].form);
        ck_assert_msg(strcmp(got, cases[i].expected) == 0, "%s => %s, expected %s", cases[i].form, got,
                      cases[i].expected);
    }
}

typedef struct { const char *form, *error; } ErrCase;

static void run_errors(Lisp *L, const ErrCase *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *got = unit_eval_error(L, cases[i].form);
        ck_assert_msg(got != NULL, "%s signalled nothing, expected %s", cases[i].form, cases[i].error);
        ck_assert_msg(strstr(got, cases[i].error) != NULL, "%s signalled %s, expected %s", cases[i].form, got,
                      cases[i].error);
    }
}

#define RUN(L, table) run_cases(L, table, sizeof table / sizeof *table)
#define RUN_ERRORS(L, table) run_errors(L, table, sizeof table / sizeof *table)

/* ---- the C API ---- */

START_TEST(test_c_construction) {
    Lisp *L = unit_lisp();
    ck_assert(is_fixnum(make_int64(L, MOST_POSITIVE_FIXNUM)));
    ck_assert(is_bignum(make_int64(L, (int64_t)MOST_POSITIVE_FIXNUM + 1)));
    ck_assert(is_fixnum(make_int64(L, MOST_NEGATIVE_FIXNUM)));
    ck_assert(is_bignum(make_int64(L, (int64_t)MOST_NEGATIVE_FIXNUM - 1)));
    ck_assert(is_bignum(make_uint64(L, UINT64_MAX)));
    int64_t v;
    ck_assert(integer_to_int64(make_int64(L, INT64_MIN), &v) && v == INT64_MIN);
    /* make_ratio normalises sign and lowest terms, and gives integers for unit denominators */
    Obj r = make_ratio(L, FIX(6), FIX(-4));
    ck_assert(is_ratio(r));
    ck_assert(RATIO(r)->num == FIX(-3) && RATIO(r)->den == FIX(2));
    ck_assert(make_ratio(L, FIX(8), FIX(4)) == FIX(2));
    ck_assert(make_ratio(L, FIX(0), FIX(-5)) == FIX(0));
    /* make_complex: a rational complex with a zero imaginary part is its real part */
    ck_assert(make_complex(L, FIX(3), FIX(0)) == FIX(3));
    Obj c = make_complex(L, FIX(1), make_single(2.0f));
    ck_assert(is_complex(c) && is_single(CPLX(c)->re) && single_val(CPLX(c)->re) == 1.0f);
    c = make_complex(L, make_single(1.0f), make_double(L, 2.0));
    ck_assert(is_double(CPLX(c)->re) && is_double(CPLX(c)->im));
    c = make_complex(L, make_double(L, 1.0), FIX(0));
    ck_assert(is_complex(c) && DBL(CPLX(c)->im) == 0.0);
}
END_TEST

START_TEST(test_c_arithmetic) {
    Lisp *L = unit_lisp();
    /* fixnum fast paths and overflow into bignums */
    ck_assert(num_add(L, FIX(2), FIX(3)) == FIX(5));
    ck_assert(is_bignum(num_add(L, FIX(MOST_POSITIVE_FIXNUM), FIX(1))));
    ck_assert(is_bignum(num_sub(L, FIX(MOST_NEGATIVE_FIXNUM), FIX(1))));
    ck_assert(is_bignum(num_mul(L, FIX(MOST_POSITIVE_FIXNUM), FIX(2))));
    ck_assert(num_sub(L, num_add(L, FIX(MOST_POSITIVE_FIXNUM), FIX(1)), FIX(1)) == FIX(MOST_POSITIVE_FIXNUM));
    ck_assert(is_bignum(num_negate(L, FIX(MOST_NEGATIVE_FIXNUM))));
    ck_assert(num_div(L, FIX(6), FIX(3)) == FIX(2));
    ck_assert(is_ratio(num_div(L, FIX(1), FIX(3))));
    /* contagion */
    ck_assert(is_single(num_add(L, FIX(1), make_single(1.0f))));
    ck_assert(is_double(num_add(L, make_single(1.0f), make_double(L, 1.0))));
    ck_assert(num_add(L, make_ratio(L, FIX(1), FIX(2)), make_ratio(L, FIX(1), FIX(2))) == FIX(1));
    /* negation of zero floats gives negative zero */
    ck_assert(signbit(single_val(num_negate(L, make_single(0.0f)))));
    ck_assert(signbit(DBL(num_negate(L, make_double(L, 0.0)))));
}
END_TEST

START_TEST(test_c_comparison_and_eql) {
    Lisp *L = unit_lisp();
    ck_assert_int_eq(num_compare(L, FIX(1), FIX(2)), -1);
    ck_assert_int_eq(num_compare(L, make_ratio(L, FIX(1), FIX(3)), make_single(1.0f / 3.0f)), -1);
    ck_assert_int_eq(num_compare(L, make_single(0.5f), make_ratio(L, FIX(1), FIX(2))), 0);
    Obj big = num_mul(L, FIX(MOST_POSITIVE_FIXNUM), FIX(4));
    ck_assert_int_eq(num_compare(L, big, make_double(L, 1e300)), -1);
    ck_assert_int_eq(num_compare(L, big, make_double(L, -INFINITY)), 1);
    ck_assert_int_eq(num_compare(L, make_double(L, NAN), FIX(1)), 2);
    ck_assert(num_equal(L, make_single(0.0f), make_single(-0.0f)));
    ck_assert(!num_eql(make_single(0.0f), make_single(-0.0f)));
    ck_assert(num_eql(make_double(L, 1.5), make_double(L, 1.5)));
    ck_assert(!num_eql(make_double(L, 1.0), make_single(1.0f)));
    ck_assert(num_eql(big, num_mul(L, FIX(MOST_POSITIVE_FIXNUM), FIX(4))));
    ck_assert(num_hash(big) == num_hash(num_mul(L, FIX(4), FIX(MOST_POSITIVE_FIXNUM))));
    /* equalp hashing agrees with = across types */
    ck_assert(num_hash_equalp(L, FIX(1)) == num_hash_equalp(L, make_double(L, 1.0)));
    ck_assert(num_hash_equalp(L, make_ratio(L, FIX(1), FIX(2))) == num_hash_equalp(L, make_single(0.5f)));
    Obj two100 = integer_ash(L, FIX(1), 100);
    ck_assert(num_hash_equalp(L, two100) == num_hash_equalp(L, make_double(L, ldexp(1.0, 100))));
    ck_assert(num_zerop(L, make_complex(L, make_single(0.0f), make_single(-0.0f))));
    ck_assert(num_minusp(L, make_ratio(L, FIX(-1), FIX(2))));
}
END_TEST

START_TEST(test_c_conversion) {
    Lisp *L = unit_lisp();
    /* correctly rounded, ties to even */
    ck_assert(number_to_double(L, make_ratio(L, FIX(1), FIX(3))) == 1.0 / 3.0);
    Obj two53p3 = num_add(L, integer_ash(L, FIX(1), 53), FIX(3));
    ck_assert(number_to_double(L, two53p3) == 9007199254740996.0);
    Obj f = number_to_float(L, FIX(16777219), NIL);
    ck_assert(is_single(f) && single_val(f) == 16777220.0f);
    ck_assert(is_double(number_to_float(L, FIX(1), make_double(L, 0.0))));
    /* truncation, division */
    Obj r;
    ck_assert(num_floor(L, FIX(-7), FIX(2), &r) == FIX(-4) && r == FIX(1));
    ck_assert(num_truncate(L, FIX(-7), FIX(2), &r) == FIX(-3) && r == FIX(-1));
    ck_assert(num_floor(L, FIX(MOST_NEGATIVE_FIXNUM), FIX(-1), &r) == num_negate(L, FIX(MOST_NEGATIVE_FIXNUM)) ||
              num_eql(num_floor(L, FIX(MOST_NEGATIVE_FIXNUM), FIX(-1), &r), num_negate(L, FIX(MOST_NEGATIVE_FIXNUM))));
    ck_assert(integer_ash(L, FIX(-5), -1) == FIX(-3));
    ck_assert(integer_ash(L, FIX(-1), -1000) == FIX(-1));
    ck_assert(integer_ash(L, FIX(3), 1) == FIX(6));
}
END_TEST

START_TEST(test_c_print_and_parse) {
    Lisp *L = unit_lisp();
    static const struct { const char *token; const char *printed; } toks[] = {
        {"123", "123"}, {"-0", "0"}, {"+17.", "17"}, {"-2/4", "-1/2"}, {"1.5", "1.5"}, {"1.5d0", "1.5d0"},
        {"1e10", "1.0e10"}, {".5", "0.5"}, {"-.5e-3", "-5.0e-4"}, {"1.e5", "100000.0"}, {"1e-50", "0.0"},
        {"-0.0", "-0.0"}, {"123456789012345678901234567890", "123456789012345678901234567890"},
        {"1.0000001", "1.0000001"}, {"3.40282356e38", "3.4028235e38"}, {"4.9406564584124654d-324", "4.9406564584124654d-324"},
        {"1.0e-40", "9.999946e-41"}, {"0.1d0", "0.1d0"}, {"1l0", "1.0d0"}, {"1s0", "1.0"},
    };
    for (size_t i = 0; i < sizeof toks / sizeof *toks; i++) {
        size_t n = strlen(toks[i].token);
        uint32_t buf[64];
        for (size_t j = 0; j < n; j++) buf[j] = (uint32_t)toks[i].token[j];
        Obj v;
        ck_assert_msg(number_parse_token(L, NIL, buf, n, 10, &v), "%s is a number", toks[i].token);
        StrBuf sb;
        sb_init(L, &sb, 16);
        number_print(L, v, &sb, 10, false);
        const char *got = string_to_utf8(L, sb_to_string(L, &sb), NULL);
        ck_assert_msg(strcmp(got, toks[i].printed) == 0, "%s printed %s, expected %s", toks[i].token, got, toks[i].printed);
    }
    static const char *const not_numbers[] = {"1e", "1e+", "2/-4", "1/2/3", "1.5.", ".", "+", "-", "1.5x", "e5", ".e5"};
    for (size_t i = 0; i < sizeof not_numbers / sizeof *not_numbers; i++) {
        size_t n = strlen(not_numbers[i]);
        uint32_t buf[16];
        for (size_t j = 0; j < n; j++) buf[j] = (uint32_t)not_numbers[i][j];
        Obj v;
        ck_assert_msg(!number_parse_token(L, NIL, buf, n, 10, &v), "%s is not a number", not_numbers[i]);
    }
    /* base 16 */
    uint32_t hex[] = {'f', 'F', '/', 'a'};
    Obj v;
    ck_assert(number_parse_token(L, NIL, hex, 4, 16, &v));
    StrBuf sb;
    sb_init(L, &sb, 16);
    number_print(L, v, &sb, 16, true);
    ck_assert_str_eq(string_to_utf8(L, sb_to_string(L, &sb), NULL), "#x33/2");
}
END_TEST

/* ---- printed results of the Lisp functions ---- */

static const Case arith_cases[] = {
    {"(+ 1/3 1.0)", "1.3333334"},
    {"(+ most-positive-fixnum 1)", "4611686018427387904"},
    {"(- most-negative-fixnum 1)", "-4611686018427387905"},
    {"(* most-positive-fixnum 2)", "9223372036854775806"},
    {"(- most-negative-fixnum)", "4611686018427387904"},
    {"(/ 6 4)", "3/2"},
    {"(/ -6 4)", "-3/2"},
    {"(/ 2)", "1/2"},
    {"(/ 0.5)", "2.0"},
    {"(+ 1/2 1/2)", "1"},
    {"(* 2/3 3/2)", "1"},
    {"(+ 0.1 0.2)", "0.3"},
    {"(+ 0.1d0 0.2d0)", "0.30000000000000004d0"},
    {"(+ 1 2.0d0)", "3.0d0"},
    {"(* 1.0 (expt 2 62))", "4.611686e18"},
    {"(- 0.0)", "-0.0"},
    {"(+ #c(1 2) #c(3 -2))", "4"},
    {"(+ #c(1 2) 1.0)", "#C(2.0 2.0)"},
    {"(* #c(1 2) #c(3 4))", "#C(-5 10)"},
    {"(/ #c(1 2) #c(3 4))", "#C(11/25 2/25)"},
    {"(/ #c(1.0 2.0) #c(3 4))", "#C(0.44 0.08)"},
    {"(/ 1 #c(0 1))", "#C(0 -1)"},
    {"(- 1 #C(2d0 0d0))", "#C(-1.0d0 0.0d0)"},
    {"(- #C(1.0 0.0))", "#C(-1.0 -0.0)"},
    {"(* #c(0 1) #c(0 1))", "-1"},
    {"(max 1 2.0)", "2.0"},
    {"(max 3 2.0)", "3"},
    {"(min 3 2.0)", "2.0"},
    {"(max -0.0 0.0)", "-0.0"},
    {"(abs -0.0)", "0.0"},
    {"(abs #c(3 4))", "5.0"},
    {"(abs #c(3d0 4d0))", "5.0d0"},
    {"(abs most-negative-fixnum)", "4611686018427387904"},
    {"(signum -5)", "-1"},
    {"(signum -0.0)", "-0.0"},
    {"(signum #c(3 4))", "#C(0.6 0.8)"},
    {"(gcd 12 18 -8)", "2"},
    {"(lcm 4 6)", "12"},
    {"(gcd)", "0"},
    {"(lcm)", "1"},
    {"(isqrt (expt 10 40))", "100000000000000000000"},
};

static const Case division_cases[] = {
    {"(multiple-value-list (floor 7 2))", "(3 1)"},
    {"(multiple-value-list (floor -7 2))", "(-4 1)"},
    {"(multiple-value-list (ceiling -7 2))", "(-3 -1)"},
    {"(multiple-value-list (truncate -7 2))", "(-3 -1)"},
    {"(multiple-value-list (round 2.5))", "(2 0.5)"},
    {"(multiple-value-list (round -2.5))", "(-2 -0.5)"},
    {"(multiple-value-list (round 7 2))", "(4 -1)"},
    {"(multiple-value-list (floor 7.5 2))", "(3 1.5)"},
    {"(multiple-value-list (floor 0.3 0.1))", "(3 0.0)"},
    {"(multiple-value-list (floor 1/3 0.1))", "(3 0.03333333)"},
    {"(multiple-value-list (floor -1/2))", "(-1 1/2)"},
    {"(multiple-value-list (ffloor -0.5))", "(-1.0 0.5)"},
    {"(multiple-value-list (ftruncate -0.5))", "(-0.0 -0.5)"},
    {"(multiple-value-list (fround -0.4))", "(0.0 -0.4)"},
    {"(multiple-value-list (ffloor 7 2d0))", "(3.0d0 1.0d0)"},
    {"(multiple-value-list (floor 1e30))", "(1000000015047466219876688855040 0.0)"},
    {"(multiple-value-list (floor most-negative-fixnum -1))", "(4611686018427387904 0)"},
    {"(mod -7 2)", "1"},
    {"(rem -7 2)", "-1"},
    {"(mod 7.5 -2)", "-0.5"},
    {"(mod -0.0 1)", "-0.0"},
    {"(mod (- (expt 10 30)) 7)", "6"},
};

static const Case irrational_cases[] = {
    {"(expt 0 0)", "1"},
    {"(expt 0.0 0)", "1.0"},
    {"(expt 2 -1)", "1/2"},
    {"(expt -2/3 -3)", "-27/8"},
    {"(expt 2 100)", "1267650600228229401496703205376"},
    {"(expt 1.1 2)", "1.21"},
    {"(expt -8 1/3)", "#C(1.0 1.7320508)"},
    {"(expt 4 1/2)", "2.0"},
    {"(expt #c(0 1) 2)", "-1"},
    {"(expt #c(0.0 1.0) 2)", "#C(-1.0 -8.742278e-8)"},
    {"(expt 2 #c(1 1))", "#C(1.5384778 1.2779225)"},
    {"(expt -1 1/2)", "#C(6.123234e-17 1.0)"},
    {"(expt #c(0 1) (expt 10 30))", "1"},
    {"(sqrt 4)", "2.0"},
    {"(sqrt -4)", "#C(0.0 2.0)"},
    {"(sqrt #c(3 4))", "#C(2.0 1.0)"},
    {"(sqrt -4d0)", "#C(0.0d0 2.0d0)"},
    {"(sqrt -0.0)", "-0.0"},
    {"(exp 1)", "2.7182817"},
    {"(exp #c(0 1))", "#C(0.5403023 0.84147096)"},
    {"(log -1)", "#C(0.0 3.1415927)"},
    {"(log 8 2)", "3.0"},
    {"(log (expt 10 400))", "921.03406"},
    {"(log 2d0)", "0.6931471805599453d0"},
    {"(log #c(1 1))", "#C(0.3465736 0.7853982)"},
    {"(log 10 0)", "0.0"},
    {"(sin 1)", "0.84147096"},
    {"(tan 1d0)", "1.5574077246549023d0"},
    {"(asin 2)", "#C(1.5707964 -1.3169578)"},
    {"(acos 2d0)", "#C(0.0d0 1.3169578969248166d0)"},
    {"(atan 1 2)", "0.4636476"},
    {"(atan -0.0 -1)", "-3.1415927"},
    {"(atan #c(0 1))", "#C(0.7853982 177.0991)"},
    {"(acosh 0.5)", "#C(0.0 1.0471976)"},
    {"(atanh 2)", "#C(0.54930615 1.5707964)"},
    {"(sinh #c(1 1))", "#C(0.63496387 1.2984576)"},
    {"(tanh #c(1 1))", "#C(1.0839233 0.2717526)"},
    {"(cis 1d0)", "#C(0.5403023058681398d0 0.8414709848078965d0)"},
    {"(phase -1)", "3.1415927"},
    {"(phase #c(0 1))", "1.5707964"},
    {"pi", "3.141592653589793d0"},
};

static const Case float_cases[] = {
    {"(list 1.0 1.5d0 1.0e10 1.2345678e7 1.0d-4 123456.7 -0.0 1.0e-5 #C(1 2) #C(0.0 1.0))",
     "(1.0 1.5d0 1.0e10 1.2345678e7 1.0d-4 123456.7 -0.0 1.0e-5 #C(1 2) #C(0.0 1.0))"},
    {"(list 1e7 9999999.0 0.001 0.0001 1d7 1d-3 123456789d0 1d23)",
     "(1.0e7 9999999.0 0.001 1.0e-4 1.0d7 0.001d0 1.23456789d8 1.0d23)"},
    {"(list most-positive-single-float least-positive-single-float least-positive-normalized-single-float)",
     "(3.4028235e38 1.4012985e-45 1.1754944e-38)"},
    {"(list single-float-epsilon single-float-negative-epsilon double-float-epsilon)",
     "(5.960465e-8 2.9802326e-8 1.1102230246251568d-16)"},
    {"most-positive-double-float", "1.7976931348623157d308"},
    {"least-positive-double-float", "4.9406564584124654d-324"},
    {"(float 1/3 1d0)", "0.3333333333333333d0"},
    {"(float (/ 3 (expt 2 151)))", "0.0"},
    {"(float 16777219)", "1.677722e7"},
    {"(rational 0.1)", "13421773/134217728"},
    {"(rationalize 0.1)", "1/10"},
    {"(rationalize 3.14159)", "9563/3044"},
    {"(rationalize least-positive-single-float)", "1/475749230901986627019428656483165045460915542"},
    {"(multiple-value-list (decode-float -1.5d0))", "(0.75d0 1 -1.0d0)"},
    {"(multiple-value-list (integer-decode-float 1.0))", "(8388608 -23 1)"},
    {"(multiple-value-list (integer-decode-float least-positive-double-float))", "(1 -1074 1)"},
    {"(float-sign 2.0 -3.0d0)", "3.0d0"},
    {"(float-precision least-positive-single-float)", "1"},
    {"(scale-float 1.0 10)", "1024.0"},
    {"(scale-float 2.5 -149)", "2.802597e-45"},
    {"(let ((*read-default-float-format* 'double-float)) (prin1-to-string (list 1.0 1d0 1.5f10 0.0)))",
     "\"(1.0f0 1.0 1.5f10 0.0f0)\""},
    {"(let ((*print-base* 16) (*print-radix* t)) (prin1-to-string (list 255 -255 1/16 (expt 2 70) 1.5)))",
     "\"(#xFF #x-FF #x1/10 #x400000000000000000 1.5)\""},
    {"(let ((*print-radix* t)) (prin1-to-string (list 255 1/16 #c(1 2))))", "\"(255. #10r1/16 #C(1. 2.))\""},
    {"(let ((*print-base* 3) (*print-radix* t)) (prin1-to-string (list 255 1/3)))", "\"(#3r100110 #3r1/10)\""},
};

static const Case bit_cases[] = {
    {"(ash -5 -1)", "-3"},
    {"(ash 1 100)", "1267650600228229401496703205376"},
    {"(ash -5 -100)", "-1"},
    {"(logand)", "-1"},
    {"(logeqv 5 3)", "-7"},
    {"(lognot (expt 2 70))", "-1180591620717411303425"},
    {"(logand (- (expt 2 70)) (1- (expt 2 72)))", "3541774862152233910272"},
    {"(logorc2 5 3)", "-3"},
    {"(logcount -13)", "2"},
    {"(integer-length -257)", "9"},
    {"(logbitp 100 -1)", "T"},
    {"(ldb (byte 8 4) #xABCD)", "188"},
    {"(ldb (byte 8 100) -1)", "255"},
    {"(dpb -1 (byte 8 60) 0)", "293994983674745978880"},
    {"(deposit-field #xABC (byte 4 4) 0)", "176"},
    {"(mask-field (byte 4 4) #xFFF)", "240"},
    {"(byte 8 4)", "(8 . 4)"},
    {"(boole boole-orc1 12 10)", "-5"},
    {"(list boole-clr boole-set boole-andc1 boole-orc2)", "(0 1 12 15)"},
};

static const Case misc_cases[] = {
    {"(multiple-value-list (parse-integer \"  -123  \"))", "(-123 8)"},
    {"(multiple-value-list (parse-integer \"12a\" :junk-allowed t))", "(12 2)"},
    {"(multiple-value-list (parse-integer \"abc\" :start 1 :radix 16))", "(188 3)"},
    {"(multiple-value-list (parse-integer \" - \" :junk-allowed t))", "(NIL 2)"},
    {"(complex 1 0)", "1"},
    {"(complex 1.0)", "#C(1.0 0.0)"},
    {"(complex 1 2.0d0)", "#C(1.0d0 2.0d0)"},
    {"(imagpart -5.0d0)", "-0.0d0"},
    {"(conjugate #c(1.0 0.0))", "#C(1.0 -0.0)"},
    {"(numerator -6/4)", "-3"},
    {"(denominator 5)", "1"},
    {"(list (random-state-p *random-state*) (random-state-p (make-random-state t)) (random-state-p 1))", "(T T NIL)"},
    {"(let ((a (make-random-state nil)) (b nil)) (setq b (make-random-state a)) (= (random 1000000 a) (random 1000000 b)))", "T"},
    {"(let ((ok t)) (dotimes (i 1000 ok) (let ((r (random 7))) (unless (and (<= 0 r) (< r 7)) (setq ok nil)))))", "T"},
    {"(let ((ok t)) (dotimes (i 1000 ok) (let ((r (random 1.5d0))) (unless (and (<= 0 r) (< r 1.5d0)) (setq ok nil)))))", "T"},
    {"(let ((r (random (expt 10 30)))) (and (integerp r) (< -1 r (expt 10 30))))", "T"},
    {"(list (evenp 0) (oddp (expt 2 70)) (zerop -0.0) (plusp 1/2) (minusp -0.0))", "(T NIL T T NIL)"},
    {"(list (numberp 1) (integerp 1.0) (rationalp 1/2) (realp #c(1 2)) (floatp 1d0) (complexp #c(1 2)))", "(T NIL T NIL T T)"},
};

static const ErrCase error_cases[] = {
    {"(/ 1 0)", "DIVISION-BY-ZERO"},
    {"(/ 1.0 0.0)", "DIVISION-BY-ZERO"},
    {"(/ 0.0 0.0)", "FLOATING-POINT-INVALID-OPERATION"},
    {"(* 1e38 10.0)", "FLOATING-POINT-OVERFLOW"},
    {"(float (expt 10 50) 1.0)", "FLOATING-POINT-OVERFLOW"},
    {"(exp 1000)", "FLOATING-POINT-OVERFLOW"},
    {"(log 0)", "DIVISION-BY-ZERO"},
    {"(expt 0 -1)", "DIVISION-BY-ZERO"},
    {"(expt 0.0 -1)", "DIVISION-BY-ZERO"},
    {"(expt 0.0 0.0)", "ARITHMETIC-ERROR"},
    {"(floor 1 0)", "DIVISION-BY-ZERO"},
    {"(mod 5.0 0)", "DIVISION-BY-ZERO"},
    {"(atanh 1)", "DIVISION-BY-ZERO"},
    {"(scale-float 1.0 200)", "FLOATING-POINT-OVERFLOW"},
    {"(+ 1 'a)", "TYPE-ERROR"},
    {"(< 1 #c(1 2))", "TYPE-ERROR"},
    {"(floor #c(1 2))", "TYPE-ERROR"},
    {"(logand 1.0)", "TYPE-ERROR"},
    {"(isqrt -1)", "TYPE-ERROR"},
    {"(random 0)", "TYPE-ERROR"},
    {"(make-random-state 1)", "TYPE-ERROR"},
    {"(parse-integer \"12a\")", "PARSE-ERROR"},
    {"(parse-integer \"\")", "PARSE-ERROR"},
    {"(read-from-string \"1e39\")", "READER-ERROR"},
    {"(expt 2 (expt 2 40))", "STORAGE-CONDITION"},
    {"(ash 1 most-positive-fixnum)", "STORAGE-CONDITION"},
    {"(ash 1 (expt 10 30))", "STORAGE-CONDITION"},
    {"(expt 7/3 (expt 10 20))", "STORAGE-CONDITION"},
    {"(expt #c(1 1) (expt 10 15))", "STORAGE-CONDITION"},
    {"(dpb 1 (byte 1 (expt 10 15)) 0)", "STORAGE-CONDITION"},
    {"(ldb (byte (expt 10 15) 0) -1)", "STORAGE-CONDITION"},
};

START_TEST(test_lisp_arithmetic) { Lisp *L = unit_lisp(); RUN(L, arith_cases); }
END_TEST
START_TEST(test_lisp_division) { Lisp *L = unit_lisp(); RUN(L, division_cases); }
END_TEST
START_TEST(test_lisp_irrational) { Lisp *L = unit_lisp(); RUN(L, irrational_cases); }
END_TEST
START_TEST(test_lisp_floats) { Lisp *L = unit_lisp(); RUN(L, float_cases); }
END_TEST
START_TEST(test_lisp_bits) { Lisp *L = unit_lisp(); RUN(L, bit_cases); }
END_TEST
START_TEST(test_lisp_misc) { Lisp *L = unit_lisp(); RUN(L, misc_cases); }
END_TEST
START_TEST(test_lisp_errors) {
    Lisp *L = unit_lisp();
    RUN_ERRORS(L, error_cases);
    /* still usable afterwards */
    ck_assert_eval(L, "(+ 1 1)", "2");
}
END_TEST

static Suite *number_suite(void) {
    Suite *s = suite_create("number");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_c_construction);
    tcase_add_test(tc, test_c_arithmetic);
    tcase_add_test(tc, test_c_comparison_and_eql);
    tcase_add_test(tc, test_c_conversion);
    tcase_add_test(tc, test_c_print_and_parse);
    tcase_add_test(tc, test_lisp_arithmetic);
    tcase_add_test(tc, test_lisp_division);
    tcase_add_test(tc, test_lisp_irrational);
    tcase_add_test(tc, test_lisp_floats);
    tcase_add_test(tc, test_lisp_bits);
    tcase_add_test(tc, test_lisp_misc);
    tcase_add_test(tc, test_lisp_errors);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(number_suite)
