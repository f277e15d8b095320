/* number.c: the numeric tower (CLHS chapter 12): representation and contagion, arithmetic and
 * comparison, rounding division, exponentials, logarithms and trigonometry (real and complex),
 * float decoding, bits and bytes, random numbers, PARSE-INTEGER, and reading and printing numbers.
 * Results, error types and printed forms follow SBCL (x86-64, default float traps). */
#include "number.h"
#include "prim.h"
#include "lstring.h"
#include "package.h"
#include "eval.h"
#include "array.h"
#include "docs.h"
#include <stdatomic.h>
#include <math.h>
#include <fenv.h>
#include <float.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <pthread.h>
#define GC_THREADS
#include <gc/gc.h>

/* ==== errors ==== */

static Obj cl_sym(Lisp *L, const char *name) { return intern_cstr(L, L->pkg_cl, name); }
static Obj list1(Lisp *L, Obj a) { return cons(L, a, NIL); }
static Obj list2(Lisp *L, Obj a, Obj b) { return cons(L, a, cons(L, b, NIL)); }
static Obj list3(Lisp *L, Obj a, Obj b, Obj c) { return cons(L, a, list2(L, b, c)); }

_Noreturn static void arith_error(Lisp *L, Obj type, const char *op, Obj a, Obj b) {
    err_arith(L, type, cl_sym(L, op), b == NO_VALUE ? list1(L, a) : list2(L, a, b));
}
#define DIV_ZERO(op, a, b) arith_error(L, S(DIVISION_BY_ZERO), op, a, b)
#define FP_OVERFLOW(op, a, b) arith_error(L, S(FLOATING_POINT_OVERFLOW), op, a, b)
#define FP_INVALID(op, a, b) arith_error(L, S(FLOATING_POINT_INVALID_OPERATION), op, a, b)

/* Refuse, before GMP is asked, a result of about BITS bits that cannot fit in the heap. */
static void check_bits(Lisp *L, double bits) {
    double bytes = bits / 8.0 + 64;
    if (bytes > 1e17) bytes = 1e17;
    gc_check_request(L, (size_t)bytes);
}

/* Thin wrappers over GMP, one place per operation. GMP's memory is collected, scanned memory (see
 * gc.c), so operations on large operands need no care beyond the size checks made before them. */

static void z_mul(Lisp *L, mpz_ptr r, mpz_srcptr a, mpz_srcptr b) {
    (void)L;
    mpz_mul(r, a, b);
}

static void z_tdiv_qr(Lisp *L, mpz_ptr q, mpz_ptr r, mpz_srcptr a, mpz_srcptr b) {
    (void)L;
    mpz_tdiv_qr(q, r, a, b);
}

static void z_pow_ui(Lisp *L, mpz_ptr r, mpz_srcptr b, unsigned long e, size_t result_limbs) {
    (void)L; (void)result_limbs;
    mpz_pow_ui(r, b, e);
}

static void z_sqrt(Lisp *L, mpz_ptr r, mpz_srcptr a) {
    (void)L;
    mpz_sqrt(r, a);
}

static void z_gcd(Lisp *L, mpz_ptr r, mpz_srcptr a, mpz_srcptr b, bool lcm) {
    (void)L;
    if (lcm) mpz_lcm(r, a, b);
    else mpz_gcd(r, a, b);
}

static void z_set_str(Lisp *L, mpz_ptr z, const char *str, int base, size_t len) {
    (void)L; (void)len;
    mpz_set_str(z, str, base);
}

static void z_get_str(Lisp *L, char *buf, int base, mpz_srcptr z) {
    (void)L;
    mpz_get_str(buf, base, z);
}

/* op: '+', '-', '*', '/', or 'c' to canonicalize A in place */
static void q_op(Lisp *L, int op, mpq_ptr r, mpq_srcptr a, mpq_srcptr b) {
    (void)L;
    switch (op) {
    case '+': mpq_add(r, a, b); break;
    case '-': mpq_sub(r, a, b); break;
    case '*': mpq_mul(r, a, b); break;
    case '/': mpq_div(r, a, b); break;
    default: mpq_canonicalize(r); break;
    }
}

static int q_cmp(Lisp *L, mpq_srcptr a, mpq_srcptr b) {
    (void)L;
    int c;
    c = mpq_cmp(a, b);
    return (c > 0) - (c < 0);
}

/* ==== construction ==== */

Obj make_double(Lisp *L, double d) {
    Double *o = (Double *)heap_alloc(L, T_DOUBLE, sizeof(Double));
    o->d = d;
    return (Obj)o;
}

/* Consume Z (whose limbs the collector owns): a fixnum when it fits, else a bignum taking its limbs. */
static Obj mpz_take(Lisp *L, mpz_t z) {
    if (mpz_fits_slong_p(z)) {
        long v = mpz_get_si(z);
        if (fixnum_fits(v)) return FIX(v);
    }
    Bignum *b = (Bignum *)heap_alloc(L, T_BIGNUM, sizeof(Bignum));
    b->z[0] = z[0];
    return (Obj)b;
}

Obj make_bignum_from_mpz(Lisp *L, const mpz_t z) {
    if (mpz_fits_slong_p(z)) {
        long v = mpz_get_si(z);
        if (fixnum_fits(v)) return FIX(v);
    }
    Bignum *b = (Bignum *)heap_alloc(L, T_BIGNUM, sizeof(Bignum));
    mpz_init_set(b->z, z);
    return (Obj)b;
}

Obj make_int64(Lisp *L, int64_t v) {
    if (fixnum_fits((intptr_t)v)) return FIX((intptr_t)v);
    Bignum *b = (Bignum *)heap_alloc(L, T_BIGNUM, sizeof(Bignum));
    mpz_init_set_si(b->z, (long)v);
    return (Obj)b;
}

Obj make_uint64(Lisp *L, uint64_t v) {
    if (v <= (uint64_t)MOST_POSITIVE_FIXNUM) return FIX((intptr_t)v);
    Bignum *b = (Bignum *)heap_alloc(L, T_BIGNUM, sizeof(Bignum));
    mpz_init_set_ui(b->z, (unsigned long)v);
    return (Obj)b;
}

bool integer_to_int64(Obj o, int64_t *out) {
    if (is_fixnum(o)) { *out = fixnum_val(o); return true; }
    if (is_bignum(o) && mpz_fits_slong_p(BIG(o))) { *out = mpz_get_si(BIG(o)); return true; }
    return false;
}

void integer_to_mpz(Obj o, mpz_t out) {
    if (is_fixnum(o)) mpz_set_si(out, (long)fixnum_val(o));
    else mpz_set(out, BIG(o));
}

/* A read-only mpz view of an integer, without allocating for fixnums. */
typedef struct { mp_limb_t limb; __mpz_struct z; } ZArg;
static mpz_srcptr zarg(ZArg *a, Obj o) {
    if (is_fixnum(o)) {
        intptr_t v = fixnum_val(o);
        a->limb = v < 0 ? (mp_limb_t)0 - (mp_limb_t)v : (mp_limb_t)v;
        return mpz_roinit_n(&a->z, &a->limb, v < 0 ? -1 : v > 0 ? 1 : 0);
    }
    return BIG(o);
}

static size_t int_bits(Obj o) {
    if (is_fixnum(o)) {
        intptr_t v = fixnum_val(o);
        uint64_t u = v < 0 ? ~(uint64_t)v : (uint64_t)v;
        return u ? (size_t)(64 - __builtin_clzll(u)) : 0;
    }
    return mpz_sizeinbase(BIG(o), 2);
}

static int int_sign(Obj o) {
    if (is_fixnum(o)) return (fixnum_val(o) > 0) - (fixnum_val(o) < 0);
    return mpz_sgn(BIG(o));
}

static Obj ratio_raw(Lisp *L, Obj num, Obj den) {
    Ratio *r = (Ratio *)heap_alloc(L, T_RATIO, sizeof(Ratio));
    r->num = num;
    r->den = den;
    return (Obj)r;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b) {
    while (b) { uint64_t t = a % b; a = b; b = t; }
    return a;
}

/* A canonical mpq (den > 0, lowest terms) as a rational object; consumes Q. */
static Obj mpq_take(Lisp *L, mpq_t q) {
    if (mpz_cmp_ui(mpq_denref(q), 1) == 0) return mpz_take(L, mpq_numref(q));
    Obj n = mpz_take(L, mpq_numref(q));
    return ratio_raw(L, n, mpz_take(L, mpq_denref(q)));
}

static void rational_to_mpq(Obj x, mpq_t q) {
    if (is_ratio(x)) {
        integer_to_mpz(RATIO(x)->num, mpq_numref(q));
        integer_to_mpz(RATIO(x)->den, mpq_denref(q));
    } else {
        integer_to_mpz(x, mpq_numref(q));
        mpz_set_ui(mpq_denref(q), 1);
    }
}

Obj make_ratio(Lisp *L, Obj num, Obj den) {
    if (is_fixnum(num) && is_fixnum(den)) {
        int64_t n = fixnum_val(num), d = fixnum_val(den);
        if (d < 0) { n = -n; d = -d; }   /* fixnums are 63 bits: no int64 overflow */
        uint64_t g = gcd_u64(n < 0 ? (uint64_t)-n : (uint64_t)n, (uint64_t)d);
        if (g > 1) { n /= (int64_t)g; d /= (int64_t)g; }
        if (d == 1) return make_int64(L, n);
        return ratio_raw(L, make_int64(L, n), make_int64(L, d));
    }
    mpq_t q;
    mpq_init(q);
    integer_to_mpz(num, mpq_numref(q));
    integer_to_mpz(den, mpq_denref(q));
    q_op(L, 'c', q, q, NULL);
    return mpq_take(L, q);
}

/* ==== kinds and contagion ==== */

enum { K_INT, K_RATIO, K_SINGLE, K_DOUBLE, K_COMPLEX };

static int kind_of(Obj o) {
    if (is_fixnum(o)) return K_INT;
    if (is_single(o)) return K_SINGLE;
    if (!is_heap(o)) return -1;
    switch (heap_type(o)) {
    case T_BIGNUM: return K_INT;
    case T_RATIO: return K_RATIO;
    case T_DOUBLE: return K_DOUBLE;
    case T_COMPLEX: return K_COMPLEX;
    default: return -1;
    }
}

static int kind(Lisp *L, Obj o) {
    int k = kind_of(o);
    if (k < 0) err_type(L, o, S(NUMBER));
    return k;
}

static int real_kind(Lisp *L, Obj o) {
    int k = kind_of(o);
    if (k < 0 || k == K_COMPLEX) err_type(L, o, S(REAL));
    return k;
}

static Obj ratio_num(Obj o) { return is_ratio(o) ? RATIO(o)->num : o; }
static Obj ratio_den(Obj o) { return is_ratio(o) ? RATIO(o)->den : FIX(1); }

/* ==== rational -> float, as SBCL: round half even, truncation below the normal range ==== */

/* |n|/d (d > 0) with PREC significant bits; ULPMIN the exponent of the smallest denormal,
 * EMAX the largest exponent. Returns the signed value (exact as a double); *ovf when too large. */
static double mpq_to_float_bits(Lisp *L, mpz_srcptr n, mpz_srcptr d, int prec, long ulpmin, long emax, bool *ovf) {
    *ovf = false;
    int sign = mpz_sgn(n);
    if (sign == 0) return 0.0;
    mpz_t a, q, r, m;
    mpz_init(a); mpz_init(q); mpz_init(r); mpz_init(m);
    mpz_abs(a, n);
    long nb = (long)mpz_sizeinbase(a, 2), db = (long)mpz_sizeinbase(d, 2);
    if (nb - db - 1 > emax) { *ovf = true; return 0.0; }
    if (nb - db + 1 < ulpmin) return sign < 0 ? -0.0 : 0.0;
    long s = prec + 3 - (nb - db);
    if (s >= 0) {
        mpz_mul_2exp(a, a, (mp_bitcnt_t)s);
        z_tdiv_qr(L, q, r, a, d);
    } else if (mpz_cmp_ui(d, 1) == 0) {
        /* an integer: shift, remembering whether nonzero bits were dropped */
        mpz_tdiv_q_2exp(q, a, (mp_bitcnt_t)-s);
        mpz_set_ui(r, (long)mpz_scan1(a, 0) < -s ? 1 : 0);
    } else {
        mpz_t t;
        mpz_init(t);
        mpz_mul_2exp(t, d, (mp_bitcnt_t)-s);
        z_tdiv_qr(L, q, r, a, t);
    }
    bool sticky = mpz_sgn(r) != 0;
    long qb = (long)mpz_sizeinbase(q, 2);
    long e = qb - 1 - s;             /* exponent of the leading bit */
    long u = e - (prec - 1);         /* exponent of the last kept bit */
    long drop = u + s;               /* >= 3 */
    mpz_tdiv_q_2exp(m, q, (mp_bitcnt_t)drop);
    bool half = mpz_tstbit(q, (mp_bitcnt_t)(drop - 1));
    bool lower = sticky || (long)mpz_scan1(q, 0) < drop - 1;
    if (half && (lower || mpz_odd_p(m))) {
        mpz_add_ui(m, m, 1);
        if ((long)mpz_sizeinbase(m, 2) > prec) { mpz_tdiv_q_2exp(m, m, 1); u++; }
    }
    if (u + prec - 1 > emax) { *ovf = true; return 0.0; }
    if (u < ulpmin) {
        /* below the normal range SBCL shifts the rounded significand right, truncating */
        if (ulpmin - u >= prec + 1) mpz_set_ui(m, 0);
        else mpz_tdiv_q_2exp(m, m, (mp_bitcnt_t)(ulpmin - u));
        u = ulpmin;
    }
    double v = ldexp(mpz_get_d(m), (int)u);
    return sign < 0 ? -v : v;
}

static double mpz_to_float_bits(Lisp *L, mpz_srcptr n, bool single, bool *ovf) {
    mpz_t one;
    mpz_init_set_ui(one, 1);
    return single ? mpq_to_float_bits(L, n, one, 24, -149, 127, ovf) : mpq_to_float_bits(L, n, one, 53, -1074, 1023, ovf);
}

/* A rational as a float of the given format (the value returned as a double). */
static double rational_to_fmt(Lisp *L, Obj x, bool single, bool *ovf) {
    *ovf = false;
    if (is_fixnum(x)) {
        int64_t v = fixnum_val(x);
        return single ? (double)(float)v : (double)v;
    }
    if (is_bignum(x)) return mpz_to_float_bits(L, BIG(x), single, ovf);
    Obj n = RATIO(x)->num, d = RATIO(x)->den;
    if (is_fixnum(n) && is_fixnum(d)) {
        int64_t a = fixnum_val(n), b = fixnum_val(d);
        int64_t lim = single ? ((int64_t)1 << 24) : ((int64_t)1 << 53);
        if (a <= lim && a >= -lim && b <= lim) {
            if (single) { volatile float f = (float)a / (float)b; return f; }
            return (double)a / (double)b;
        }
    }
    ZArg za, zb;
    mpz_srcptr pn = zarg(&za, n), pd = zarg(&zb, d);
    return single ? mpq_to_float_bits(L, pn, pd, 24, -149, 127, ovf) : mpq_to_float_bits(L, pn, pd, 53, -1074, 1023, ovf);
}

/* Any real as a double; rationals beyond the range signal FLOATING-POINT-OVERFLOW. */
static double to_double(Lisp *L, Obj x) {
    if (is_single(x)) return (double)single_val(x);
    if (is_double(x)) return DBL(x);
    if (!is_rational(x)) err_type(L, x, S(REAL));
    bool ovf;
    double d = rational_to_fmt(L, x, false, &ovf);
    if (ovf) FP_OVERFLOW("FLOAT", x, NO_VALUE);
    return d;
}

static float to_single(Lisp *L, Obj x) {
    if (is_single(x)) return single_val(x);
    if (is_double(x)) {
        double d = DBL(x);
        float f = (float)d;
        if (isinf(f) && !isinf(d)) FP_OVERFLOW("FLOAT", x, NO_VALUE);
        return f;
    }
    if (!is_rational(x)) err_type(L, x, S(REAL));
    bool ovf;
    double d = rational_to_fmt(L, x, true, &ovf);
    if (ovf) FP_OVERFLOW("FLOAT", x, NO_VALUE);
    return (float)d;
}

double number_to_double(Lisp *L, Obj o) { return to_double(L, o); }

/* A real as a float object of kind K (K_SINGLE or K_DOUBLE). */
static Obj to_float_kind(Lisp *L, Obj x, int k) {
    if (k == K_SINGLE) return is_single(x) ? x : make_single(to_single(L, x));
    return is_double(x) ? x : make_double(L, to_double(L, x));
}

Obj number_to_float(Lisp *L, Obj o, Obj prototype) {
    return to_float_kind(L, o, is_double(prototype) ? K_DOUBLE : K_SINGLE);
}

/* A double result as a float of kind K; a single that overflows signals FLOATING-POINT-OVERFLOW. */
static Obj float_kind_result(Lisp *L, int k, double d, const char *op, Obj a, Obj b) {
    if (k == K_SINGLE) {
        float f = (float)d;
        if (isinf(f) && !isinf(d)) FP_OVERFLOW(op, a, b);
        return make_single(f);
    }
    return make_double(L, d);
}

static double float_val(Obj x) { return is_single(x) ? (double)single_val(x) : DBL(x); }

/* ==== complexes ==== */

static Obj complex_raw(Lisp *L, Obj re, Obj im) {
    Complex *c = (Complex *)heap_alloc(L, T_COMPLEX, sizeof(Complex));
    c->re = re;
    c->im = im;
    return (Obj)c;
}

Obj make_complex(Lisp *L, Obj re, Obj im) {
    int kr = real_kind(L, re), ki = real_kind(L, im);
    if (kr <= K_RATIO && ki <= K_RATIO) return im == FIX(0) ? re : complex_raw(L, re, im);
    int k = kr > ki ? kr : ki;
    return complex_raw(L, to_float_kind(L, re, k), to_float_kind(L, im, k));
}

static Obj realpart(Obj z) { return is_complex(z) ? CPLX(z)->re : z; }
static Obj imagpart_exact(Obj z) { return is_complex(z) ? CPLX(z)->im : FIX(0); }

/* ==== integer arithmetic ==== */

static Obj int_add(Lisp *L, Obj a, Obj b) {
    ZArg x, y;
    mpz_t r;
    mpz_init(r);
    mpz_add(r, zarg(&x, a), zarg(&y, b));
    return mpz_take(L, r);
}

static Obj int_sub(Lisp *L, Obj a, Obj b) {
    ZArg x, y;
    mpz_t r;
    mpz_init(r);
    mpz_sub(r, zarg(&x, a), zarg(&y, b));
    return mpz_take(L, r);
}

static Obj int_mul(Lisp *L, Obj a, Obj b) {
    if (is_fixnum(a) && is_fixnum(b)) {
        __int128 p = (__int128)fixnum_val(a) * fixnum_val(b);
        if (p >= MOST_NEGATIVE_FIXNUM && p <= MOST_POSITIVE_FIXNUM) return FIX((intptr_t)p);
    } else {
        check_bits(L, (double)int_bits(a) + (double)int_bits(b));
    }
    ZArg x, y;
    mpz_t r;
    mpz_init(r);
    z_mul(L, r, zarg(&x, a), zarg(&y, b));
    return mpz_take(L, r);
}

static Obj int_neg(Lisp *L, Obj a) {
    if (is_fixnum(a)) return make_int64(L, -(int64_t)fixnum_val(a));
    mpz_t r;
    mpz_init(r);
    mpz_neg(r, BIG(a));
    return mpz_take(L, r);
}

static Obj int_abs(Lisp *L, Obj a) { return int_sign(a) < 0 ? int_neg(L, a) : a; }

static int int_compare(Obj a, Obj b) {
    if (is_fixnum(a) && is_fixnum(b)) return (fixnum_val(a) > fixnum_val(b)) - (fixnum_val(a) < fixnum_val(b));
    ZArg x, y;
    int c = mpz_cmp(zarg(&x, a), zarg(&y, b));
    return (c > 0) - (c < 0);
}

static bool int_oddp(Obj a) {
    if (is_fixnum(a)) return fixnum_val(a) & 1;
    return mpz_odd_p(BIG(a));
}

/* ==== rational arithmetic ==== */

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV } ArithOp;
static const char *const op_names[] = {"+", "-", "*", "/"};

static Obj rat_arith(Lisp *L, ArithOp op, Obj a, Obj b) {
    if (op == OP_DIV && (b == FIX(0))) DIV_ZERO("/", a, b);
    if (op == OP_MUL || op == OP_DIV)
        check_bits(L, (double)int_bits(ratio_num(a)) + (double)int_bits(ratio_den(a)) +
                          (double)int_bits(ratio_num(b)) + (double)int_bits(ratio_den(b)));
    mpq_t x, y;
    mpq_init(x); mpq_init(y);
    rational_to_mpq(a, x);
    rational_to_mpq(b, y);
    static const char ops[] = {'+', '-', '*', '/'};
    q_op(L, ops[op], x, x, y);
    return mpq_take(L, x);
}

/* ==== float arithmetic with SBCL's traps (overflow, invalid, division by zero) ==== */

static Obj float_arith(Lisp *L, ArithOp op, int k, Obj a, Obj b) {
    double x, y, r = 0;
    if (k == K_SINGLE) { x = to_single(L, a); y = to_single(L, b); }
    else { x = to_double(L, a); y = to_double(L, b); }
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV:
        if (y == 0) {
            if (isnan(x)) { r = x; break; }
            if (x == 0) FP_INVALID("/", a, b);
            if (!isinf(x)) DIV_ZERO("/", a, b);
        }
        r = x / y;
        break;
    }
    if (isnan(r) && !isnan(x) && !isnan(y)) FP_INVALID(op_names[op], a, b);
    if (isinf(r) && !isinf(x) && !isinf(y)) FP_OVERFLOW(op_names[op], a, b);
    return float_kind_result(L, k, r, op_names[op], a, b);
}

/* ==== complex arithmetic (the formulas of SBCL's generic arithmetic) ==== */

static Obj arith(Lisp *L, ArithOp op, Obj a, Obj b);
#define ADD(x, y) arith(L, OP_ADD, x, y)
#define SUB(x, y) arith(L, OP_SUB, x, y)
#define MUL(x, y) arith(L, OP_MUL, x, y)
#define DIV(x, y) arith(L, OP_DIV, x, y)

static Obj num_abs(Lisp *L, Obj x);

static Obj complex_arith(Lisp *L, ArithOp op, Obj a, Obj b) {
    bool ca = is_complex(a), cb = is_complex(b);
    Obj ar = realpart(a), br = realpart(b);
    switch (op) {
    case OP_ADD:
        if (ca && cb) { Obj re_ = ADD(ar, br); return make_complex(L, re_, ADD(CPLX(a)->im, CPLX(b)->im)); }
        if (ca) { Obj re_ = ADD(ar, b); return make_complex(L, re_, ADD(CPLX(a)->im, FIX(0))); }
        { Obj re_ = ADD(a, br); return make_complex(L, re_, ADD(FIX(0), CPLX(b)->im)); }
    case OP_SUB:
        if (ca && cb) { Obj re_ = SUB(ar, br); return make_complex(L, re_, SUB(CPLX(a)->im, CPLX(b)->im)); }
        if (ca) { Obj re_ = SUB(ar, b); return make_complex(L, re_, SUB(CPLX(a)->im, FIX(0))); }
        { Obj re_ = SUB(a, br); return make_complex(L, re_, SUB(FIX(0), CPLX(b)->im)); }
    case OP_MUL:
        if (ca && cb) {
            Obj ai = CPLX(a)->im, bi = CPLX(b)->im;
            { Obj re_ = SUB(MUL(ar, br), MUL(ai, bi)); return make_complex(L, re_, ADD(MUL(ar, bi), MUL(ai, br))); }
        }
        if (ca) { Obj re_ = MUL(ar, b); return make_complex(L, re_, MUL(CPLX(a)->im, b)); }
        { Obj re_ = MUL(a, br); return make_complex(L, re_, MUL(a, CPLX(b)->im)); }
    case OP_DIV:
        if (ca && cb) {
            Obj ai = CPLX(a)->im, bi = CPLX(b)->im;
            if (num_compare(L, num_abs(L, br), num_abs(L, bi)) == 1) {
                Obj r = DIV(bi, br);
                Obj dn = MUL(br, ADD(FIX(1), MUL(r, r)));
                { Obj re_ = DIV(ADD(ar, MUL(ai, r)), dn); return make_complex(L, re_, DIV(SUB(ai, MUL(ar, r)), dn)); }
            }
            Obj r = DIV(br, bi);
            Obj dn = MUL(bi, ADD(FIX(1), MUL(r, r)));
            { Obj re_ = DIV(ADD(MUL(ar, r), ai), dn); return make_complex(L, re_, DIV(SUB(MUL(ai, r), ar), dn)); }
        }
        if (ca) { Obj re_ = DIV(ar, b); return make_complex(L, re_, DIV(CPLX(a)->im, b)); }
        {
            Obj bi = CPLX(b)->im;
            if (num_compare(L, num_abs(L, bi), num_abs(L, br)) == 1) {
                Obj r = DIV(br, bi);
                Obj dn = MUL(bi, ADD(FIX(1), MUL(r, r)));
                { Obj re_ = DIV(MUL(a, r), dn); return make_complex(L, re_, DIV(num_negate(L, a), dn)); }
            }
            Obj r = DIV(bi, br);
            Obj dn = MUL(br, ADD(FIX(1), MUL(r, r)));
            { Obj re_ = DIV(a, dn); return make_complex(L, re_, DIV(num_negate(L, MUL(a, r)), dn)); }
        }
    }
    return NIL;
}

static Obj arith(Lisp *L, ArithOp op, Obj a, Obj b) {
    int ka = kind(L, a), kb = kind(L, b);
    int k = ka > kb ? ka : kb;
    if (k == K_COMPLEX) return complex_arith(L, op, a, b);
    if (k == K_INT) {
        switch (op) {
        case OP_ADD: return int_add(L, a, b);
        case OP_SUB: return int_sub(L, a, b);
        case OP_MUL: return int_mul(L, a, b);
        case OP_DIV:
            if (b == FIX(0)) DIV_ZERO("/", a, b);
            return make_ratio(L, a, b);
        }
    }
    if (k == K_RATIO) return rat_arith(L, op, a, b);
    return float_arith(L, op, k, a, b);
}

Obj num_add(Lisp *L, Obj a, Obj b) {
    Obj r;
    if (LIKELY(fixnum_add_checked(a, b, &r))) return r;
    return arith(L, OP_ADD, a, b);
}

Obj num_sub(Lisp *L, Obj a, Obj b) {
    Obj r;
    if (LIKELY(fixnum_sub_checked(a, b, &r))) return r;
    return arith(L, OP_SUB, a, b);
}

Obj num_mul(Lisp *L, Obj a, Obj b) {
    intptr_t r;
    if (LIKELY(is_fixnum(a) && is_fixnum(b)) && !__builtin_mul_overflow(fixnum_val(a), fixnum_val(b), &r) && fixnum_fits(r))
        return FIX(r);
    return arith(L, OP_MUL, a, b);
}

Obj num_div(Lisp *L, Obj a, Obj b) { return arith(L, OP_DIV, a, b); }

Obj num_negate(Lisp *L, Obj a) {
    switch (kind(L, a)) {
    case K_INT: return int_neg(L, a);
    case K_RATIO: return ratio_raw(L, int_neg(L, RATIO(a)->num), RATIO(a)->den);
    case K_SINGLE: return make_single(-single_val(a));
    case K_DOUBLE: return make_double(L, -DBL(a));
    default: return complex_raw(L, num_negate(L, CPLX(a)->re), num_negate(L, CPLX(a)->im));
    }
}

/* ==== comparison ==== */

int num_compare(Lisp *L, Obj a, Obj b) {
    if (is_fixnum(a) && is_fixnum(b)) return (fixnum_val(a) > fixnum_val(b)) - (fixnum_val(a) < fixnum_val(b));
    int ka = real_kind(L, a), kb = real_kind(L, b);
    if (ka == K_INT && kb == K_INT) return int_compare(a, b);
    if (ka <= K_RATIO && kb <= K_RATIO) {
        mpq_t p, q;
        mpq_init(p); mpq_init(q);
        rational_to_mpq(a, p);
        rational_to_mpq(b, q);
        return q_cmp(L, p, q);
    }
    if (ka >= K_SINGLE && kb >= K_SINGLE) {
        double x = float_val(a), y = float_val(b);
        if (isnan(x) || isnan(y)) return 2;
        return (x > y) - (x < y);
    }
    /* a float against a rational: exactly, as the rational the float denotes */
    bool swap = ka >= K_SINGLE;
    double f = float_val(swap ? a : b);
    Obj r = swap ? b : a;
    int c;
    if (isnan(f)) return 2;
    if (isinf(f)) c = f > 0 ? -1 : 1;
    else {
        mpq_t p, q;
        mpq_init(p); mpq_init(q);
        rational_to_mpq(r, p);
        mpq_set_d(q, f);
        c = q_cmp(L, p, q);
    }
    return swap ? -c : c;
}

bool num_equal(Lisp *L, Obj a, Obj b) {
    if (is_complex(a) || is_complex(b)) {
        kind(L, a); kind(L, b);
        return num_compare(L, realpart(a), realpart(b)) == 0 && num_compare(L, imagpart_exact(a), imagpart_exact(b)) == 0;
    }
    return num_compare(L, a, b) == 0;
}

bool num_zerop(Lisp *L, Obj a) {
    if (is_fixnum(a)) return a == FIX(0);
    switch (kind(L, a)) {
    case K_INT: case K_RATIO: return false;
    case K_SINGLE: return single_val(a) == 0;
    case K_DOUBLE: return DBL(a) == 0;
    default: return num_zerop(L, CPLX(a)->re) && num_zerop(L, CPLX(a)->im);
    }
}

bool num_minusp(Lisp *L, Obj a) {
    if (is_fixnum(a)) return fixnum_val(a) < 0;
    switch (real_kind(L, a)) {
    case K_INT: return mpz_sgn(BIG(a)) < 0;
    case K_RATIO: return int_sign(RATIO(a)->num) < 0;
    case K_SINGLE: return single_val(a) < 0;
    default: return DBL(a) < 0;
    }
}

static bool num_plusp(Lisp *L, Obj a) {
    if (is_fixnum(a)) return fixnum_val(a) > 0;
    switch (real_kind(L, a)) {
    case K_INT: return mpz_sgn(BIG(a)) > 0;
    case K_RATIO: return int_sign(RATIO(a)->num) > 0;
    case K_SINGLE: return single_val(a) > 0;
    default: return DBL(a) > 0;
    }
}

bool num_eql(Obj a, Obj b) {
    if (a == b) return true;
    if (is_single(a) || is_single(b)) return false; /* immediates: equal bits means eq */
    if (!is_heap(a) || !is_heap(b) || heap_type(a) != heap_type(b)) return false;
    switch (heap_type(a)) {
    case T_BIGNUM: return mpz_cmp(BIG(a), BIG(b)) == 0;
    case T_RATIO: return num_eql(RATIO(a)->num, RATIO(b)->num) && num_eql(RATIO(a)->den, RATIO(b)->den);
    case T_DOUBLE: return memcmp(&DBL(a), &DBL(b), sizeof(double)) == 0;
    case T_COMPLEX: return num_eql(CPLX(a)->re, CPLX(b)->re) && num_eql(CPLX(a)->im, CPLX(b)->im);
    default: return false;
    }
}

static uint64_t hmix(uint64_t h) {
    h ^= h >> 31;
    h *= 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    return h;
}

uint64_t num_hash(Obj o) {
    if (is_fixnum(o) || is_single(o)) return hmix(WORD(o));
    switch (heap_type(o)) {
    case T_BIGNUM: {
        uint64_t h = (uint64_t)mpz_size(BIG(o));
        for (size_t i = 0; i < mpz_size(BIG(o)); i++) h = hmix(h ^ mpz_getlimbn(BIG(o), (mp_size_t)i));
        return h ^ (uint64_t)(mpz_sgn(BIG(o)) < 0);
    }
    case T_RATIO: return hmix(num_hash(RATIO(o)->num) ^ (num_hash(RATIO(o)->den) << 1));
    case T_DOUBLE: { uint64_t bits; memcpy(&bits, &DBL(o), 8); return hmix(bits); }
    case T_COMPLEX: return hmix(num_hash(CPLX(o)->re) ^ (num_hash(CPLX(o)->im) << 1));
    default: return 0;
    }
}

uint64_t num_hash_equalp(Lisp *L, Obj o) {
    /* = across types: integral values hash as integers, others by their double value */
    if (is_complex(o)) {
        if (num_zerop(L, CPLX(o)->im)) return num_hash_equalp(L, CPLX(o)->re);
        return hmix(num_hash_equalp(L, CPLX(o)->re) ^ 0x77);
    }
    if (is_integer(o)) return num_hash(o);
    double d;
    if (is_float(o)) d = float_val(o);
    else { bool ovf; d = rational_to_fmt(L, o, false, &ovf); if (ovf) return 0x1234; }
    if (isnan(d) || isinf(d)) return 0x4321;
    if (d == floor(d) && fabs(d) < 9.2e18) return num_hash(make_int64(L, (int64_t)d));
    if (d == floor(d)) {
        mpz_t z;
        mpz_init(z);
        mpz_set_d(z, d);
        return num_hash(mpz_take(L, z));
    }
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return hmix(bits);
}

/* ==== rounding division: TRUNCATE and the functions derived from it as SBCL derives them ==== */

/* A float's integer part as an exact integer (%unary-truncate). */
static Obj float_trunc_integer(Lisp *L, double d, Obj orig) {
    if (isnan(d) || isinf(d)) err_simple(L, "Can't decode NaN or infinity: %S.", orig);
    double t = trunc(d);
    if (fabs(t) < 9.2e18) return make_int64(L, (int64_t)t);
    mpz_t z;
    mpz_init(z);
    mpz_set_d(z, t);
    return mpz_take(L, z);
}

static Obj float_round_integer(Lisp *L, double d, Obj orig) {
    if (isnan(d) || isinf(d)) err_simple(L, "Can't decode NaN or infinity: %S.", orig);
    return float_trunc_integer(L, nearbyint(d), orig);
}

static Obj trunc_float_div(Lisp *L, Obj n, Obj d, int rk, Obj *rem) {
    Obj fdiv = to_float_kind(L, d, rk);
    Obj quo = DIV(n, fdiv);
    Obj q = float_trunc_integer(L, float_val(quo), quo);
    if (rem) *rem = SUB(n, MUL(to_float_kind(L, q, rk), fdiv));
    return q;
}

Obj num_truncate(Lisp *L, Obj n, Obj d, Obj *rem) {
    if (is_fixnum(n) && is_fixnum(d)) {
        if (d == FIX(0)) DIV_ZERO("TRUNCATE", n, d);
        int64_t a = fixnum_val(n), b = fixnum_val(d);
        if (rem) *rem = FIX(a % b);
        return make_int64(L, a / b);
    }
    int kn = real_kind(L, n), kd = real_kind(L, d);
    if (kn == K_INT && kd == K_INT) {
        if (d == FIX(0)) DIV_ZERO("TRUNCATE", n, d);
        ZArg x, y;
        mpz_t q, r;
        mpz_init(q); mpz_init(r);
        z_tdiv_qr(L, q, r, zarg(&x, n), zarg(&y, d));
        if (rem) *rem = mpz_take(L, r);
        return mpz_take(L, q);
    }
    if (kn == K_INT && kd == K_RATIO) {
        Obj r, q = num_truncate(L, int_mul(L, n, RATIO(d)->den), RATIO(d)->num, &r);
        if (rem) *rem = make_ratio(L, r, RATIO(d)->den);
        return q;
    }
    if (kn == K_RATIO) {
        Obj q = num_truncate(L, RATIO(n)->num, MUL(RATIO(n)->den, d), NULL);
        if (rem) *rem = SUB(n, MUL(q, d));
        return q;
    }
    if (kn >= K_SINGLE) {
        if (d == FIX(1)) {
            Obj q = float_trunc_integer(L, float_val(n), n);
            if (rem) *rem = SUB(n, to_float_kind(L, q, kn));
            return q;
        }
        return trunc_float_div(L, n, d, (kn == K_DOUBLE || kd == K_DOUBLE) ? K_DOUBLE : K_SINGLE, rem);
    }
    return trunc_float_div(L, n, d, kd, rem);
}

/* From truncation to FLOOR and CEILING of N/D: when the remainder R is not zero and the quotient
 * was rounded the wrong way for the operation, move Q by one and R by D. */
static void floor_adjust(Lisp *L, Obj n, Obj d, Obj *q, Obj *r) {
    if (!num_zerop(L, *r) && (num_minusp(L, d) ? num_plusp(L, n) : num_minusp(L, n))) {
        *q = SUB(*q, FIX(1));
        *r = ADD(*r, d);
    }
}

static void ceiling_adjust(Lisp *L, Obj n, Obj d, Obj *q, Obj *r) {
    if (!num_zerop(L, *r) && (num_minusp(L, d) ? num_minusp(L, n) : num_plusp(L, n))) {
        *q = ADD(*q, FIX(1));
        *r = SUB(*r, d);
    }
}

Obj num_floor(Lisp *L, Obj n, Obj d, Obj *rem) {
    if (is_fixnum(n) && is_fixnum(d) && d != FIX(0)) {
        int64_t a = fixnum_val(n), b = fixnum_val(d), q = a / b, r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) { q--; r += b; }
        if (rem) *rem = FIX(r);
        return make_int64(L, q);
    }
    Obj r, q = num_truncate(L, n, d, &r);
    floor_adjust(L, n, d, &q, &r);
    if (rem) *rem = r;
    return q;
}

static Obj num_ceiling(Lisp *L, Obj n, Obj d, Obj *rem) {
    Obj r, q = num_truncate(L, n, d, &r);
    ceiling_adjust(L, n, d, &q, &r);
    *rem = r;
    return q;
}

static Obj num_round(Lisp *L, Obj n, Obj d, Obj *rem) {
    if (d == FIX(1) && is_float(n)) {
        Obj q = float_round_integer(L, float_val(n), n);
        *rem = SUB(n, to_float_kind(L, q, kind_of(n)));
        return q;
    }
    Obj r, q = num_truncate(L, n, d, &r);
    if (num_zerop(L, r)) { *rem = r; return q; }
    Obj thresh = DIV(num_abs(L, d), FIX(2));
    int c = num_compare(L, r, thresh);
    bool dneg = num_minusp(L, d);
    if (c > 0 || (c == 0 && int_oddp(q))) {
        if (dneg) { q = SUB(q, FIX(1)); r = ADD(r, d); }
        else { q = ADD(q, FIX(1)); r = SUB(r, d); }
    } else {
        int c2 = num_compare(L, r, num_negate(L, thresh));
        if (c2 < 0 || (c2 == 0 && int_oddp(q))) {
            if (dneg) { q = ADD(q, FIX(1)); r = SUB(r, d); }
            else { q = SUB(q, FIX(1)); r = ADD(r, d); }
        }
    }
    *rem = r;
    return q;
}

/* The float truncation of a float, keeping its format and sign (unary-ftruncate). */
static Obj float_ftrunc(Lisp *L, Obj x) {
    if (is_single(x)) return make_single(truncf(single_val(x)));
    return make_double(L, trunc(DBL(x)));
}

static Obj num_ftruncate(Lisp *L, Obj n, Obj d, Obj *rem) {
    int kn = real_kind(L, n), kd = real_kind(L, d);
    if (kn <= K_RATIO && kd <= K_RATIO) {
        Obj q = num_truncate(L, n, d, rem);
        return to_float_kind(L, q, K_SINGLE);
    }
    int rk;
    if (kn >= K_SINGLE) {
        if (d == FIX(1)) {
            Obj q = float_ftrunc(L, n);
            *rem = SUB(n, q);
            return q;
        }
        rk = (kn == K_DOUBLE || kd == K_DOUBLE) ? K_DOUBLE : K_SINGLE;
    } else rk = kd;
    Obj fdiv = to_float_kind(L, d, rk);
    Obj q = float_ftrunc(L, DIV(n, fdiv));
    *rem = SUB(n, MUL(q, fdiv));
    return q;
}

static Obj num_ffloor(Lisp *L, Obj n, Obj d, Obj *rem) {
    Obj r, q = num_ftruncate(L, n, d, &r);
    floor_adjust(L, n, d, &q, &r);
    *rem = r;
    return q;
}

static Obj num_fceiling(Lisp *L, Obj n, Obj d, Obj *rem) {
    Obj r, q = num_ftruncate(L, n, d, &r);
    ceiling_adjust(L, n, d, &q, &r);
    *rem = r;
    return q;
}

static Obj num_fround(Lisp *L, Obj n, Obj d, Obj *rem) {
    Obj q = num_round(L, n, d, rem);
    return to_float_kind(L, q, is_float(*rem) ? kind_of(*rem) : K_SINGLE);
}

typedef Obj (*DivFn)(Lisp *L, Obj n, Obj d, Obj *rem);

static Obj division_prim(Lisp *L, int nargs, Obj *args, DivFn fn) {
    Obj d = nargs > 1 ? args[1] : FIX(1);
    real_kind(L, args[0]);
    real_kind(L, d);
    Obj r, q = fn(L, args[0], d, &r);
    return values2(L, q, r);
}

static Obj floor_fn(Lisp *L, Obj n, Obj d, Obj *rem) { return num_floor(L, n, d, rem); }
static Obj truncate_fn(Lisp *L, Obj n, Obj d, Obj *rem) { return num_truncate(L, n, d, rem); }

DEFPRIM(prim_floor) { return division_prim(L, nargs, args, floor_fn); }
DEFPRIM(prim_ceiling) { return division_prim(L, nargs, args, num_ceiling); }
DEFPRIM(prim_truncate) { return division_prim(L, nargs, args, truncate_fn); }
DEFPRIM(prim_round) { return division_prim(L, nargs, args, num_round); }
DEFPRIM(prim_ffloor) { return division_prim(L, nargs, args, num_ffloor); }
DEFPRIM(prim_fceiling) { return division_prim(L, nargs, args, num_fceiling); }
DEFPRIM(prim_ftruncate) { return division_prim(L, nargs, args, num_ftruncate); }
DEFPRIM(prim_fround) { return division_prim(L, nargs, args, num_fround); }

DEFPRIM(prim_mod) {
    UNUSED_ARGS;
    Obj n = args[0], d = args[1];
    if (is_fixnum(n) && is_fixnum(d) && d != FIX(0)) {
        int64_t a = fixnum_val(n), b = fixnum_val(d), r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return FIX(r);
    }
    real_kind(L, n);
    real_kind(L, d);
    Obj r;
    num_truncate(L, n, d, &r);
    if (!num_zerop(L, r) && (num_minusp(L, d) ? num_plusp(L, n) : num_minusp(L, n))) r = ADD(r, d);
    return r;
}

DEFPRIM(prim_rem) {
    UNUSED_ARGS;
    Obj n = args[0], d = args[1];
    if (is_fixnum(n) && is_fixnum(d) && d != FIX(0)) return FIX(fixnum_val(n) % fixnum_val(d));
    real_kind(L, n);
    real_kind(L, d);
    Obj r;
    num_truncate(L, n, d, &r);
    return r;
}

/* ==== simple functions of one number ==== */

static Obj num_abs(Lisp *L, Obj x);
static Obj num_sqrt(Lisp *L, Obj x);

static Obj num_abs(Lisp *L, Obj x) {
    switch (kind(L, x)) {
    case K_INT: return int_abs(L, x);
    case K_RATIO: return int_sign(RATIO(x)->num) < 0 ? ratio_raw(L, int_neg(L, RATIO(x)->num), RATIO(x)->den) : x;
    case K_SINGLE: return make_single(fabsf(single_val(x)));
    case K_DOUBLE: return make_double(L, fabs(DBL(x)));
    default: {
        Obj re = CPLX(x)->re, im = CPLX(x)->im;
        if (is_rational(re)) return num_sqrt(L, ADD(MUL(re, re), MUL(im, im)));
        double h = hypot(float_val(re), float_val(im));
        return float_kind_result(L, kind_of(re), h, "ABS", x, NO_VALUE);
    }
    }
}

static Obj float_one(Lisp *L, int k, double v) { return k == K_DOUBLE ? make_double(L, v) : make_single((float)v); }

static Obj num_signum(Lisp *L, Obj x) {
    if (num_zerop(L, x)) return x;
    switch (kind(L, x)) {
    case K_INT: case K_RATIO: return num_minusp(L, x) ? FIX(-1) : FIX(1);
    case K_SINGLE: case K_DOUBLE: return float_one(L, kind_of(x), num_minusp(L, x) ? -1.0 : 1.0);
    default: return DIV(x, num_abs(L, x));
    }
}

/* ==== libm calls with SBCL's float traps ==== */

static void fp_check(Lisp *L, const char *op, Obj a, Obj b) {
    int ex = fetestexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_INVALID);
    if (!ex) return;
    feclearexcept(FE_ALL_EXCEPT);
    if (ex & FE_INVALID) FP_INVALID(op, a, b);
    if (ex & FE_DIVBYZERO) DIV_ZERO(op, a, b);
    FP_OVERFLOW(op, a, b);
}

typedef double (*D1)(double);
typedef double (*D2)(double, double);

static double call1(Lisp *L, D1 fn, double x, const char *op, Obj arg) {
    feclearexcept(FE_ALL_EXCEPT);
    volatile double r = fn(x);
    fp_check(L, op, arg, NO_VALUE);
    return r;
}

static double call2(Lisp *L, D2 fn, double x, double y, const char *op, Obj a, Obj b) {
    feclearexcept(FE_ALL_EXCEPT);
    volatile double r = fn(x, y);
    fp_check(L, op, a, b);
    return r;
}

/* A real function computed in double precision, the result in the argument's float format
 * (single for rationals), as SBCL's HANDLE-REALS. */
static Obj real_fn(Lisp *L, Obj x, D1 fn, const char *op) {
    int k = real_kind(L, x);
    double r = call1(L, fn, to_double(L, x), op, x);
    return float_kind_result(L, k == K_DOUBLE ? K_DOUBLE : K_SINGLE, r, op, x, NO_VALUE);
}

static double dlog(Lisp *L, double x, Obj arg) { return call1(L, log, x, "LOG", arg); }
static double ddiv(Lisp *L, double x, double y, const char *op, Obj a, Obj b) {
    if (y == 0) {
        if (x == 0 || isnan(x)) FP_INVALID(op, a, b);
        if (!isinf(x)) DIV_ZERO(op, a, b);
    }
    return x / y;
}

/* (atan y x) on doubles, with SBCL's treatment of zeros */
static double atan2_d(double y, double x) {
    if (x == 0) {
        if (y == 0) return signbit(x) ? copysign(M_PI, y) : y;
        return copysign(M_PI / 2, y);
    }
    return atan2(y, x);
}

/* (complex x y) of doubles in the format of Z's parts: double when Z's real part is a double */
static Obj complex_like(Lisp *L, double x, double y, Obj z) {
    if (is_double(realpart(z))) return complex_raw(L, make_double(L, x), make_double(L, y));
    Obj zz = z;
    return complex_raw(L, float_kind_result(L, K_SINGLE, x, "COMPLEX", zz, NO_VALUE),
                       float_kind_result(L, K_SINGLE, y, "COMPLEX", zz, NO_VALUE));
}

static double realpart_d(Lisp *L, Obj z) { return to_double(L, realpart(z)); }
static double imagpart_d(Lisp *L, Obj z) {
    if (is_complex(z)) return to_double(L, CPLX(z)->im);
    return is_float(z) ? copysign(0.0, float_val(z)) : 0.0;
}

/* ==== Kahan's complex functions ("Branch cuts for complex elementary functions"), as in SBCL ==== */

static int logb_finite(double x) {
    int e;
    frexp(x, &e);
    return e - 1;
}

/* |z|^2 scaled to avoid overflow and underflow: |z|^2 = rho * 2^(2k)... returned as rho and k */
static void cssqs(double x, double y, double *rho, int *k) {
    feclearexcept(FE_ALL_EXCEPT);
    volatile double r = x * x + y * y;
    int ex = fetestexcept(FE_OVERFLOW | FE_UNDERFLOW);
    feclearexcept(FE_ALL_EXCEPT);
    const double threshold = 4.450147717014402e-308; /* least-positive-double-float / epsilon */
    if ((isnan(r) || isinf(r)) && (isinf(x) || isinf(y))) { *rho = INFINITY; *k = 0; return; }
    if ((ex & FE_OVERFLOW) || ((ex & FE_UNDERFLOW) && r < threshold)) {
        int kk = -logb_finite(fmax(fabs(x), fabs(y)));
        double a = ldexp(x, kk), b = ldexp(y, kk);
        *rho = a * a + b * b;
        *k = -kk;
        return;
    }
    *rho = r;
    *k = 0;
}

static Obj complex_sqrt(Lisp *L, Obj z) {
    double x = realpart_d(L, z), y = imagpart_d(L, z);
    double rho;
    int k;
    cssqs(x, y, &rho, &k);
    if (!isnan(x)) rho = ldexp(fabs(x), -k) + sqrt(rho);
    int half = k >= 0 ? k / 2 : -((1 - k) / 2);  /* (ash k -1) */
    if (k & 1) k = half;
    else { k = half - 1; rho = rho + rho; }
    rho = ldexp(sqrt(rho), k);
    double eta = rho, nu = y;
    if (rho != 0) {
        if (!isinf(nu)) nu = (nu / rho) / 2;
        if (x < 0) { eta = fabs(nu); nu = copysign(rho, y); }
    }
    return complex_like(L, eta, nu, z);
}

static Obj complex_log_scaled(Lisp *L, Obj z, int j) {
    const double t0 = 1 / sqrt(2.0), t1 = 1.2, t2 = 3.0, ln2 = log(2.0);
    double x = realpart_d(L, z), y = imagpart_d(L, z);
    double rho;
    int k;
    cssqs(x, y, &rho, &k);
    double beta = fmax(fabs(x), fabs(y)), theta = fmin(fabs(x), fabs(y)), re;
    if (k == 0 && t0 < beta && (beta <= t1 || rho < t2))
        re = log1p((beta - 1.0) * (beta + 1.0) + theta * theta) / 2.0;
    else
        re = dlog(L, rho, z) / 2.0 + (k + j) * ln2;
    return complex_like(L, re, atan2_d(y, x), z);
}

static Obj complex_atanh(Lisp *L, Obj z) {
    const double theta = sqrt(DBL_MAX) / 4.0, rho = 4.0 / sqrt(DBL_MAX), half_pi = M_PI / 2.0;
    double rp = realpart_d(L, z);
    double beta = copysign(1.0, rp);
    double x = beta * rp, y = beta * -imagpart_d(L, z);
    double eta, nu;
    if (x > theta || fabs(y) > theta) {
        nu = copysign(half_pi, y);
        if (fabs(x) >= fabs(y)) { double r = y / x; eta = 1.0 / (x + y * r); }
        else { double r = x / y; eta = r / (x * r + y); }
    } else if (x == 1.0) {
        double t1 = 4.0 + y * y, t2 = fabs(y) + rho;
        eta = log(sqrt(sqrt(t1)) / sqrt(t2));
        nu = 0.5 * copysign(half_pi + atan(0.5 * t2), y);
    } else {
        double t1 = fabs(y) + rho;
        eta = 0.25 * log1p((4.0 * x) / ((1.0 - x) * (1.0 - x) + t1 * t1));
        nu = 0.5 * atan2_d(2.0 * y, (1.0 - x) * (1.0 + x) - t1 * t1);
    }
    return complex_like(L, beta * eta, -(beta * nu), z);
}

static Obj complex_tanh(Lisp *L, Obj z) {
    double x = realpart_d(L, z), y = imagpart_d(L, z);
    const double big = (log(2.0) + log(DBL_MAX)) / 4.0;
    if (fabs(x) > big) return complex_like(L, copysign(1.0, x), copysign(1.0, y), z);  /* sic: SBCL's result */
    double tv = call1(L, tan, y, "TANH", z);
    double beta = 1.0 + tv * tv;
    double s = call1(L, sinh, x, "TANH", z);
    double rho = sqrt(1.0 + s * s);
    if (isinf(fabs(tv))) return complex_like(L, rho / s, 1.0 / tv, z);
    double den = 1.0 + beta * s * s;
    return complex_like(L, (beta * rho * s) / den, tv / den, z);
}

/* i*z and the inverse rotation: (complex (- (imagpart z)) (realpart z)) */
static Obj times_i(Lisp *L, Obj z) {
    return make_complex(L, num_negate(L, imagpart_exact(z)), realpart(z));
}
static Obj rotate_back(Lisp *L, Obj r) {
    return make_complex(L, imagpart_exact(r), num_negate(L, realpart(r)));
}

static Obj num_atan2(Lisp *L, Obj y, Obj x);
static Obj num_atan(Lisp *L, Obj x);
static Obj num_asinh(Lisp *L, Obj x);
static Obj num_conjugate(Lisp *L, Obj x) {
    if (is_complex(x)) return complex_raw(L, CPLX(x)->re, num_negate(L, CPLX(x)->im));
    kind(L, x);
    return x;
}

/* Float division with the division-by-zero trap masked (SBCL's with-float-traps-masked) */
static Obj div_masked(Lisp *L, Obj a, Obj b) {
    int ka = real_kind(L, a), kb = real_kind(L, b), k = ka > kb ? ka : kb;
    if (k < K_SINGLE || !num_zerop(L, b)) return DIV(a, b);
    double x = k == K_SINGLE ? (double)to_single(L, a) : to_double(L, a);
    double y = k == K_SINGLE ? (double)to_single(L, b) : to_double(L, b);
    if (x == 0 || isnan(x)) FP_INVALID("/", a, b);
    return float_kind_result(L, k, x / y, "/", a, b);
}

static Obj complex_asin(Lisp *L, Obj z) {
    Obj s1mz = complex_sqrt(L, SUB(FIX(1), z)), s1pz = complex_sqrt(L, ADD(FIX(1), z));
    { Obj re_ = num_atan(L, div_masked(L, realpart(z), realpart(MUL(s1mz, s1pz)))); return make_complex(L, re_, num_asinh(L, imagpart_exact(MUL(num_conjugate(L, s1mz), s1pz)))); }
}

static Obj complex_acos(Lisp *L, Obj z) {
    Obj s1pz = complex_sqrt(L, ADD(FIX(1), z)), s1mz = complex_sqrt(L, SUB(FIX(1), z));
    { Obj re_ = MUL(FIX(2), num_atan(L, div_masked(L, realpart(s1mz), realpart(s1pz)))); return make_complex(L, re_, num_asinh(L, imagpart_exact(MUL(num_conjugate(L, s1pz), s1mz)))); }
}

static Obj complex_acosh(Lisp *L, Obj z) {
    Obj szm1 = complex_sqrt(L, SUB(z, FIX(1))), szp1 = complex_sqrt(L, ADD(z, FIX(1)));
    { Obj re_ = num_asinh(L, realpart(MUL(num_conjugate(L, szm1), szp1))); return make_complex(L, re_, MUL(FIX(2), num_atan(L, div_masked(L, imagpart_exact(szm1), realpart(szp1))))); }
}

static Obj complex_asinh(Lisp *L, Obj z) { return rotate_back(L, complex_asin(L, times_i(L, z))); }
static Obj complex_atan(Lisp *L, Obj z) { return rotate_back(L, complex_atanh(L, times_i(L, z))); }
static Obj complex_tan(Lisp *L, Obj z) { return rotate_back(L, complex_tanh(L, times_i(L, z))); }

/* ==== exponentials, logarithms, roots ==== */

static Obj pi_of(Lisp *L, int k) { return k == K_DOUBLE ? make_double(L, M_PI) : make_single((float)M_PI); }

static Obj num_cis(Lisp *L, Obj x) {
    { Obj re_ = real_fn(L, x, cos, "CIS"); return make_complex(L, re_, real_fn(L, x, sin, "CIS")); }
}

static Obj num_exp(Lisp *L, Obj x) {
    if (is_complex(x)) return MUL(num_exp(L, CPLX(x)->re), num_cis(L, CPLX(x)->im));
    kind(L, x);
    return real_fn(L, x, exp, "EXP");
}

static Obj num_log(Lisp *L, Obj x);

/* log2 of an integer as SBCL computes it: exact scaling for long integers */
static Obj log2_integer(Lisp *L, Obj x) {
    size_t n = int_bits(x);
    Obj log2d = make_double(L, log(2.0));
    if (n < 53) return DIV(num_log(L, make_double(L, to_double(L, x))), log2d);
    ZArg za;
    mpz_t f;
    mpz_init(f);
    mpz_fdiv_q_2exp(f, zarg(&za, x), n - 53);
    mpz_fdiv_r_2exp(f, f, 53);
    Obj y = make_double(L, ldexp(mpz_get_d(f), -53));
    return ADD(make_int64(L, (int64_t)n), DIV(num_log(L, y), log2d));
}

static double log2e_d(void) { return log(exp(1.0)) / log(2.0); }

static Obj num_log(Lisp *L, Obj x) {
    switch (kind(L, x)) {
    case K_INT:
        if (num_minusp(L, x)) return make_complex(L, num_log(L, num_negate(L, x)), pi_of(L, K_SINGLE));
        return float_kind_result(L, K_SINGLE, to_double(L, log2_integer(L, x)) / log2e_d(), "LOG", x, NO_VALUE);
    case K_RATIO: {
        if (num_minusp(L, x)) return make_complex(L, num_log(L, num_negate(L, x)), pi_of(L, K_SINGLE));
        Obj n = RATIO(x)->num, d = RATIO(x)->den;
        double r;
        if (int_bits(n) == int_bits(d)) r = log1p(to_double(L, SUB(x, FIX(1))));
        else r = (to_double(L, log2_integer(L, n)) - to_double(L, log2_integer(L, d))) / log2e_d();
        return float_kind_result(L, K_SINGLE, r, "LOG", x, NO_VALUE);
    }
    case K_SINGLE: case K_DOUBLE: {
        int k = kind_of(x);
        double v = float_val(x);
        if (signbit(v)) return make_complex(L, num_log(L, num_negate(L, x)), pi_of(L, k));
        return float_kind_result(L, k, dlog(L, v, x), "LOG", x, NO_VALUE);
    }
    default:
        return complex_log_scaled(L, x, 0);
    }
}

static Obj num_log_base(Lisp *L, Obj x, Obj base) {
    kind(L, x);
    kind(L, base);
    if (num_zerop(L, base)) return (is_double(x) || is_double(base)) ? make_double(L, 0.0) : make_single(0.0f);
    if (is_bignum(x) && mpz_sgn(BIG(x)) > 0 && is_integer(base) && int_sign(base) > 0) {
        /* SBCL 2.2.9 takes this exact path for positive bignums only */
        double a = to_double(L, log2_integer(L, x)), b = to_double(L, log2_integer(L, base));
        return float_kind_result(L, K_SINGLE, ddiv(L, a, b, "LOG", x, base), "LOG", x, base);
    }
    if (is_integer(x) && is_double(base))
        return DIV(log2_integer(L, x), num_log_base(L, base, make_double(L, 2.0)));
    if (is_double(x) && is_integer(base))
        return DIV(num_log_base(L, x, make_double(L, 2.0)), log2_integer(L, base));
    return DIV(num_log(L, x), num_log(L, base));
}

static Obj num_sqrt(Lisp *L, Obj x) {
    switch (kind(L, x)) {
    case K_INT: case K_RATIO:
        if (num_minusp(L, x)) return complex_sqrt(L, x);
        return float_kind_result(L, K_SINGLE, sqrt(to_double(L, x)), "SQRT", x, NO_VALUE);
    case K_SINGLE: case K_DOUBLE:
        if (float_val(x) < 0) return complex_sqrt(L, make_complex(L, x, FIX(0)));
        return float_kind_result(L, kind_of(x), sqrt(float_val(x)), "SQRT", x, NO_VALUE);
    default:
        return complex_sqrt(L, x);
    }
}

/* ==== EXPT ==== */

static Obj num_phase(Lisp *L, Obj x) {
    switch (kind(L, x)) {
    case K_INT: case K_RATIO: return num_minusp(L, x) ? pi_of(L, K_SINGLE) : make_single(0.0f);
    case K_SINGLE: return signbit(single_val(x)) ? pi_of(L, K_SINGLE) : make_single(0.0f);
    case K_DOUBLE: return signbit(DBL(x)) ? pi_of(L, K_DOUBLE) : make_double(L, 0.0);
    default: return num_atan2(L, CPLX(x)->im, CPLX(x)->re);
    }
}

/* fdlibm's yisint: 0 when Y is not an integer, 1 odd, 2 even */
static int yisint(double y) {
    if (fabs(y) >= 9007199254740992.0) return 2;
    if (y != trunc(y)) return 0;
    return fmod(fabs(y), 2.0) == 1.0 ? 1 : 2;
}

static Obj real_expt(Lisp *L, Obj xo, Obj yo, int rk) {
    double x = to_double(L, xo), y = to_double(L, yo);
    if (y == 0) return float_one(L, rk, 1.0);
    if (isnan(x) || isnan(y)) return float_kind_result(L, rk, x + y, "EXPT", xo, yo);
    int yi = signbit(x) ? yisint(y) : 0;
    double ax = fabs(x);
    if (isinf(y)) {
        double r;
        if (ax == 1) FP_INVALID("EXPT", xo, yo);
        else if (ax > 1) r = y > 0 ? y : 0;
        else r = y < 0 ? -y : 0;
        return float_kind_result(L, rk, r, "EXPT", xo, yo);
    }
    if (ax == 0 || isinf(ax) || ax == 1) {
        double z = ax;
        if (y < 0) z = ddiv(L, 1.0, ax, "EXPT", xo, yo);
        if (signbit(x)) {
            if (ax == 1 && yi == 0) {
                double ypi = y * M_PI;
                { Obj re_ = float_kind_result(L, rk, cos(ypi), "EXPT", xo, yo); return make_complex(L, re_, float_kind_result(L, rk, sin(ypi), "EXPT", xo, yo)); }
            }
            if (yi == 1) z = -z;
        }
        return float_kind_result(L, rk, z, "EXPT", xo, yo);
    }
    if (!signbit(x)) return float_kind_result(L, rk, call2(L, pow, x, y, "EXPT", xo, yo), "EXPT", xo, yo);
    double p = call2(L, pow, ax, y, "EXPT", xo, yo);
    if (yi == 1) return float_kind_result(L, rk, -1.0 * p, "EXPT", xo, yo);
    if (yi == 2) return float_kind_result(L, rk, p, "EXPT", xo, yo);
    double ypi = y * M_PI;
    { Obj re_ = float_kind_result(L, rk, p * cos(ypi), "EXPT", xo, yo); return make_complex(L, re_, float_kind_result(L, rk, p * sin(ypi), "EXPT", xo, yo)); }
}

static Obj int_pow(Lisp *L, Obj base, Obj power) {
    /* base an integer, power a non-negative integer */
    if (base == FIX(0) || base == FIX(1)) return base;
    if (base == FIX(-1)) return int_oddp(power) ? base : FIX(1);
    int64_t p;
    if (!integer_to_int64(power, &p)) { check_bits(L, 1e30); p = 0; }
    check_bits(L, (double)(int_bits(base) - 1) * (double)p);
    if (base == FIX(2)) return integer_ash(L, FIX(1), p);
    ZArg za;
    mpz_t r;
    mpz_init(r);
    z_pow_ui(L, r, zarg(&za, base), (unsigned long)p, (size_t)((double)int_bits(base) * (double)p / 64));
    return mpz_take(L, r);
}

/* BASE (rational or rational complex) to the integer POWER, exactly */
static Obj intexp(Lisp *L, Obj base, Obj power) {
    if (int_sign(power) < 0) return DIV(FIX(1), intexp(L, base, int_neg(L, power)));
    if (is_integer(base)) return int_pow(L, base, power);
    if (is_ratio(base)) {
        Obj n = int_pow(L, RATIO(base)->num, power);
        return ratio_raw(L, n, int_pow(L, RATIO(base)->den, power));
    }
    /* a rational complex: square and multiply */
    Obj re = CPLX(base)->re, im = CPLX(base)->im;
    bool unit = (re == FIX(0) || re == FIX(1) || re == FIX(-1)) && (im == FIX(0) || im == FIX(1) || im == FIX(-1)) &&
                (re == FIX(0) || im == FIX(0));
    mpz_t pz;
    mpz_init(pz);
    ZArg zp;
    mpz_set(pz, zarg(&zp, power));
    if (unit) mpz_fdiv_r_ui(pz, pz, 4);
    else {
        size_t bits = int_bits(ratio_num(re)) + int_bits(ratio_den(re)) + int_bits(ratio_num(im)) + int_bits(ratio_den(im)) + 1;
        if (!mpz_fits_slong_p(pz)) check_bits(L, 1e30);
        check_bits(L, (double)bits * (double)mpz_get_si(pz));
    }
    Obj total = FIX(1);
    while (mpz_sgn(pz) > 0) {
        safe_point(L);
        if (mpz_odd_p(pz)) total = MUL(base, total);
        mpz_fdiv_q_2exp(pz, pz, 1);
        if (mpz_sgn(pz) > 0) base = MUL(base, base);
    }
    return total;
}

static Obj num_expt(Lisp *L, Obj base, Obj power) {
    int kb = kind(L, base), kp = kind(L, power);
    if (num_zerop(L, power)) {
        if (num_zerop(L, base) && (kp == K_SINGLE || kp == K_DOUBLE))
            arith_error(L, S(ARITHMETIC_ERROR), "EXPT", base, power);
        return ADD(FIX(1), MUL(base, power));
    }
    bool rational_complex = kb == K_COMPLEX && is_rational(CPLX(base)->re);
    if (kp == K_INT && (kb <= K_RATIO || rational_complex)) return intexp(L, base, power);
    if ((kb == K_SINGLE || kb == K_DOUBLE) && kp <= K_RATIO) return real_expt(L, base, power, kb);
    if (kb <= K_SINGLE && (kp == K_RATIO || kp == K_SINGLE)) return real_expt(L, base, power, K_SINGLE);
    if (kb <= K_DOUBLE && kp == K_DOUBLE) return real_expt(L, base, power, K_DOUBLE);
    if (kb == K_DOUBLE && kp == K_SINGLE) return real_expt(L, base, power, K_DOUBLE);
    if (kb == K_COMPLEX && kp <= K_RATIO)
        return MUL(num_expt(L, num_abs(L, base), power), num_cis(L, MUL(power, num_phase(L, base))));
    if (num_zerop(L, base) && num_plusp(L, realpart(power))) return MUL(base, power);
    return num_exp(L, MUL(power, num_log(L, base)));
}

/* ==== trigonometric and hyperbolic functions ==== */

static Obj num_sin(Lisp *L, Obj x);
static Obj num_cos(Lisp *L, Obj x);
static Obj num_sinh(Lisp *L, Obj x);
static Obj num_cosh(Lisp *L, Obj x);

static Obj num_sin(Lisp *L, Obj x) {
    if (is_complex(x)) {
        Obj a = CPLX(x)->re, b = CPLX(x)->im;
        { Obj re_ = MUL(num_sin(L, a), num_cosh(L, b)); return make_complex(L, re_, MUL(num_cos(L, a), num_sinh(L, b))); }
    }
    kind(L, x);
    return real_fn(L, x, sin, "SIN");
}

static Obj num_cos(Lisp *L, Obj x) {
    if (is_complex(x)) {
        Obj a = CPLX(x)->re, b = CPLX(x)->im;
        { Obj re_ = MUL(num_cos(L, a), num_cosh(L, b)); return make_complex(L, re_, num_negate(L, MUL(num_sin(L, a), num_sinh(L, b)))); }
    }
    kind(L, x);
    return real_fn(L, x, cos, "COS");
}

static Obj num_tan(Lisp *L, Obj x) {
    if (is_complex(x)) return complex_tan(L, x);
    kind(L, x);
    return real_fn(L, x, tan, "TAN");
}

static Obj num_sinh(Lisp *L, Obj x) {
    if (is_complex(x)) {
        Obj a = CPLX(x)->re, b = CPLX(x)->im;
        { Obj re_ = MUL(num_sinh(L, a), num_cos(L, b)); return make_complex(L, re_, MUL(num_cosh(L, a), num_sin(L, b))); }
    }
    kind(L, x);
    return real_fn(L, x, sinh, "SINH");
}

static Obj num_cosh(Lisp *L, Obj x) {
    if (is_complex(x)) {
        Obj a = CPLX(x)->re, b = CPLX(x)->im;
        { Obj re_ = MUL(num_cosh(L, a), num_cos(L, b)); return make_complex(L, re_, MUL(num_sinh(L, a), num_sin(L, b))); }
    }
    kind(L, x);
    return real_fn(L, x, cosh, "COSH");
}

static Obj num_tanh(Lisp *L, Obj x) {
    if (is_complex(x)) return complex_tanh(L, x);
    kind(L, x);
    return real_fn(L, x, tanh, "TANH");
}

/* a float argument outside a real function's domain becomes a complex: (complex x) */
static Obj as_complex_arg(Lisp *L, Obj x) { return is_float(x) ? complex_raw(L, x, float_kind_result(L, kind_of(x), 0.0, "COMPLEX", x, NO_VALUE)) : x; }

static Obj num_asin(Lisp *L, Obj x) {
    int k = kind(L, x);
    if (k == K_COMPLEX) return complex_asin(L, x);
    if (num_compare(L, x, FIX(1)) == 1 || num_compare(L, x, FIX(-1)) == -1) return complex_asin(L, as_complex_arg(L, x));
    return real_fn(L, x, asin, "ASIN");
}

static Obj num_acos(Lisp *L, Obj x) {
    int k = kind(L, x);
    if (k == K_COMPLEX) return complex_acos(L, x);
    if (num_compare(L, x, FIX(1)) == 1 || num_compare(L, x, FIX(-1)) == -1) return complex_acos(L, as_complex_arg(L, x));
    return real_fn(L, x, acos, "ACOS");
}

static Obj num_atan2(Lisp *L, Obj y, Obj x) {
    int ky = real_kind(L, y), kx = real_kind(L, x);
    double r = atan2_d(to_double(L, y), to_double(L, x));
    return float_kind_result(L, (ky == K_DOUBLE || kx == K_DOUBLE) ? K_DOUBLE : K_SINGLE, r, "ATAN", y, x);
}

static Obj num_atan(Lisp *L, Obj x) {
    if (kind(L, x) == K_COMPLEX) return complex_atan(L, x);
    return real_fn(L, x, atan, "ATAN");
}

static Obj num_asinh(Lisp *L, Obj x) {
    if (kind(L, x) == K_COMPLEX) return complex_asinh(L, x);
    return real_fn(L, x, asinh, "ASINH");
}

static Obj num_acosh(Lisp *L, Obj x) {
    if (kind(L, x) == K_COMPLEX) return complex_acosh(L, x);
    if (num_compare(L, x, FIX(1)) == -1) return complex_acosh(L, as_complex_arg(L, x));
    return real_fn(L, x, acosh, "ACOSH");
}

static Obj num_atanh(Lisp *L, Obj x) {
    if (kind(L, x) == K_COMPLEX) return complex_atanh(L, x);
    if (num_compare(L, x, FIX(1)) == 1 || num_compare(L, x, FIX(-1)) == -1) return complex_atanh(L, as_complex_arg(L, x));
    return real_fn(L, x, atanh, "ATANH");
}

/* ==== floats: decoding, scaling, conversion to rationals ==== */

static void check_float(Lisp *L, Obj x) {
    if (!is_float(x)) err_type(L, x, S(FLOAT));
}

/* integer-decode-float: significand, exponent and sign; denormals keep their raw significand */
static void float_int_decode(Lisp *L, Obj x, uint64_t *m, int *e, int *sign) {
    if (is_single(x)) {
        float f = single_val(x);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        *sign = (bits >> 31) ? -1 : 1;
        int ef = (int)((bits >> 23) & 0xff);
        uint64_t frac = bits & 0x7fffff;
        if (ef == 0xff) err_simple(L, "Can't decode NaN or infinity: %S.", x);
        if (ef == 0) { *m = frac; *e = frac ? -149 : 0; }
        else { *m = frac | 0x800000; *e = ef - 150; }
    } else {
        double d = DBL(x);
        uint64_t bits;
        memcpy(&bits, &d, 8);
        *sign = (bits >> 63) ? -1 : 1;
        int ef = (int)((bits >> 52) & 0x7ff);
        uint64_t frac = bits & 0xfffffffffffffull;
        if (ef == 0x7ff) err_simple(L, "Can't decode NaN or infinity: %S.", x);
        if (ef == 0) { *m = frac; *e = frac ? -1074 : 0; }
        else { *m = frac | (1ull << 52); *e = ef - 1075; }
    }
}

/* m * 2^e as an exact rational */
static Obj scaled_rational(Lisp *L, uint64_t m, int e, int sign) {
    Obj mm = make_int64(L, sign < 0 ? -(int64_t)m : (int64_t)m);
    if (e >= 0) return integer_ash(L, mm, e);
    return make_ratio(L, mm, integer_ash(L, FIX(1), -e));
}

static Obj num_rational(Lisp *L, Obj x) {
    if (real_kind(L, x) <= K_RATIO) return x;
    uint64_t m;
    int e, sign;
    float_int_decode(L, x, &m, &e, &sign);
    if (m == 0) return FIX(0);
    return scaled_rational(L, m, e, sign);
}

/* The simplest rational within half an ulp of X (SBCL's algorithm, continued fractions). */
static Obj num_rationalize(Lisp *L, Obj x) {
    if (real_kind(L, x) <= K_RATIO) return x;
    uint64_t m;
    int e, sign;
    float_int_decode(L, x, &m, &e, &sign);
    if (m == 0) return FIX(0);
    if (e >= 0) return scaled_rational(L, m, e, sign);
    Obj scale = integer_ash(L, FIX(1), 1 - e);
    Obj a = ratio_raw(L, make_uint64(L, 2 * m - 1), scale);
    Obj b = ratio_raw(L, make_uint64(L, 2 * m + 1), scale);
    Obj p0 = FIX(0), q0 = FIX(1), p1 = FIX(1), q1 = FIX(0);
    for (;;) {
        safe_point(L);
        Obj r, c = num_ceiling(L, a, FIX(1), &r);
        if (num_compare(L, c, b) < 0) {
            Obj top = ADD(MUL(c, p1), p0), bot = ADD(MUL(c, q1), q0);
            return DIV(sign < 0 ? num_negate(L, top) : top, bot);
        }
        Obj k = SUB(c, FIX(1));
        Obj p2 = ADD(MUL(k, p1), p0), q2 = ADD(MUL(k, q1), q0);
        Obj na = DIV(FIX(1), SUB(b, k)), nb = DIV(FIX(1), SUB(a, k));
        a = na; b = nb;
        p0 = p1; q0 = q1; p1 = p2; q1 = q2;
    }
}

static Obj num_float(Lisp *L, Obj x, Obj proto) {
    int k = real_kind(L, x);
    if (proto == NO_VALUE) return k >= K_SINGLE ? x : to_float_kind(L, x, K_SINGLE);
    check_float(L, proto);
    return to_float_kind(L, x, kind_of(proto));
}

static Obj num_scale_float(Lisp *L, Obj x, Obj n) {
    check_float(L, x);
    check_integer(L, n);
    int64_t k;
    if (!integer_to_int64(n, &k)) k = int_sign(n) > 0 ? 100000 : -100000;
    if (k > 100000) k = 100000;
    if (k < -100000) k = -100000;
    double v = float_val(x);
    if (v == 0 || isinf(v) || isnan(v)) return x;
    bool single = is_single(x);
    uint64_t m;
    int e, sign;
    float_int_decode(L, x, &m, &e, &sign);
    int64_t ne = e + k;
    int prec = single ? 24 : 53, ulpmin = single ? -149 : -1074, emax = single ? 127 : 1023;
    int mb = 64 - __builtin_clzll(m);
    if (ne + mb - 1 > emax) FP_OVERFLOW("SCALE-FLOAT", x, n);
    (void)prec;
    double r;
    if (ne >= ulpmin) r = ldexp((double)m, (int)ne);
    else {
        int64_t shift = ulpmin - ne;
        r = shift >= 64 ? 0.0 : ldexp((double)(m >> shift), ulpmin);
    }
    if (sign < 0) r = -r;
    return single ? make_single((float)r) : make_double(L, r);
}

/* ==== bits ==== */

Obj integer_ash(Lisp *L, Obj n, intptr_t count) {
    if (count == 0 || n == FIX(0)) return n;
    if (count > 0) {
        if (is_fixnum(n) && count < 62) {
            intptr_t r;
            if (!__builtin_mul_overflow(fixnum_val(n), (intptr_t)1 << count, &r) && fixnum_fits(r)) return FIX(r);
        }
        check_bits(L, (double)int_bits(n) + (double)count);
        ZArg za;
        mpz_t r;
        mpz_init(r);
        mpz_mul_2exp(r, zarg(&za, n), (mp_bitcnt_t)count);
        return mpz_take(L, r);
    }
    uintptr_t sh = (uintptr_t)0 - (uintptr_t)count;
    if (is_fixnum(n)) return FIX(sh >= 63 ? (fixnum_val(n) < 0 ? -1 : 0) : fixnum_val(n) >> sh);
    if (sh > mpz_sizeinbase(BIG(n), 2)) return mpz_sgn(BIG(n)) < 0 ? FIX(-1) : FIX(0);
    mpz_t r;
    mpz_init(r);
    mpz_fdiv_q_2exp(r, BIG(n), sh);
    return mpz_take(L, r);
}

/* The 16 BOOLE operations on two integers, op numbered as the BOOLE-* constants. */
enum { B_CLR, B_SET, B_1, B_2, B_C1, B_C2, B_AND, B_IOR, B_XOR, B_EQV, B_NAND, B_NOR, B_ANDC1, B_ANDC2, B_ORC1, B_ORC2 };

static Obj logop(Lisp *L, int op, Obj a, Obj b) {
    if (is_fixnum(a) && is_fixnum(b)) {
        intptr_t x = fixnum_val(a), y = fixnum_val(b), r = 0;
        switch (op) {
        case B_CLR: r = 0; break;
        case B_SET: r = -1; break;
        case B_1: r = x; break;
        case B_2: r = y; break;
        case B_C1: r = ~x; break;
        case B_C2: r = ~y; break;
        case B_AND: r = x & y; break;
        case B_IOR: r = x | y; break;
        case B_XOR: r = x ^ y; break;
        case B_EQV: r = ~(x ^ y); break;
        case B_NAND: r = ~(x & y); break;
        case B_NOR: r = ~(x | y); break;
        case B_ANDC1: r = ~x & y; break;
        case B_ANDC2: r = x & ~y; break;
        case B_ORC1: r = ~x | y; break;
        case B_ORC2: r = x | ~y; break;
        }
        return FIX(r);
    }
    ZArg za, zb;
    mpz_srcptr x = zarg(&za, a), y = zarg(&zb, b);
    mpz_t r, t;
    mpz_init(r); mpz_init(t);
    switch (op) {
    case B_CLR: return FIX(0);
    case B_SET: return FIX(-1);
    case B_1: return a;
    case B_2: return b;
    case B_C1: mpz_com(r, x); break;
    case B_C2: mpz_com(r, y); break;
    case B_AND: mpz_and(r, x, y); break;
    case B_IOR: mpz_ior(r, x, y); break;
    case B_XOR: mpz_xor(r, x, y); break;
    case B_EQV: mpz_xor(r, x, y); mpz_com(r, r); break;
    case B_NAND: mpz_and(r, x, y); mpz_com(r, r); break;
    case B_NOR: mpz_ior(r, x, y); mpz_com(r, r); break;
    case B_ANDC1: mpz_com(t, x); mpz_and(r, t, y); break;
    case B_ANDC2: mpz_com(t, y); mpz_and(r, x, t); break;
    case B_ORC1: mpz_com(t, x); mpz_ior(r, t, y); break;
    case B_ORC2: mpz_com(t, y); mpz_ior(r, x, t); break;
    }
    return mpz_take(L, r);
}

static Obj logfold(Lisp *L, int nargs, Obj *args, int op, Obj init) {
    Obj r = init;
    for (int i = 0; i < nargs; i++) r = logop(L, op, r, check_integer(L, args[i]));
    return r;
}

/* Two fixnums, the usual call, combine on their tagged words: the tag bit (1) survives AND and OR,
 * and XOR clears it, so it is set again. */
static inline bool two_fixnums(int nargs, Obj *args) {
    return nargs == 2 && is_fixnum(args[0]) && is_fixnum(args[1]);
}
DEFPRIM(prim_logand) {
    if (two_fixnums(nargs, args)) return OBJ(WORD(args[0]) & WORD(args[1]));
    return logfold(L, nargs, args, B_AND, FIX(-1));
}
DEFPRIM(prim_logior) {
    if (two_fixnums(nargs, args)) return OBJ(WORD(args[0]) | WORD(args[1]));
    return logfold(L, nargs, args, B_IOR, FIX(0));
}
DEFPRIM(prim_logxor) {
    if (two_fixnums(nargs, args)) return OBJ((WORD(args[0]) ^ WORD(args[1])) | 1u);
    return logfold(L, nargs, args, B_XOR, FIX(0));
}
DEFPRIM(prim_logeqv) { return logfold(L, nargs, args, B_EQV, FIX(-1)); }

#define LOG2_PRIM(cname, op)                                                          \
    DEFPRIM(cname) {                                                                  \
        UNUSED_ARGS;                                                                  \
        return logop(L, op, check_integer(L, args[0]), check_integer(L, args[1]));    \
    }
LOG2_PRIM(prim_lognand, B_NAND)
LOG2_PRIM(prim_lognor, B_NOR)
LOG2_PRIM(prim_logandc1, B_ANDC1)
LOG2_PRIM(prim_logandc2, B_ANDC2)
LOG2_PRIM(prim_logorc1, B_ORC1)
LOG2_PRIM(prim_logorc2, B_ORC2)

DEFPRIM(prim_lognot) { UNUSED_ARGS; return logop(L, B_C1, check_integer(L, args[0]), FIX(0)); }

DEFPRIM(prim_logtest) {
    UNUSED_ARGS;
    return boolean(L, logop(L, B_AND, check_integer(L, args[0]), check_integer(L, args[1])) != FIX(0));
}

DEFPRIM(prim_boole) {
    UNUSED_ARGS;
    Obj op = args[0];
    if (!is_fixnum(op) || fixnum_val(op) < 0 || fixnum_val(op) > 15)
        err_type(L, op, list2(L, S(UNSIGNED_BYTE), FIX(4)));
    return logop(L, (int)fixnum_val(op), check_integer(L, args[1]), check_integer(L, args[2]));
}

DEFPRIM(prim_logbitp) {
    UNUSED_ARGS;
    Obj idx = args[0], n = check_integer(L, args[1]);
    if (!is_integer(idx)) err_type(L, idx, S(INTEGER));
    if (int_sign(idx) < 0) return NIL;
    int64_t i;
    if (!integer_to_int64(idx, &i) || (uint64_t)i >= int_bits(n)) return boolean(L, int_sign(n) < 0);
    ZArg za;
    return boolean(L, mpz_tstbit(zarg(&za, n), (mp_bitcnt_t)i));
}

DEFPRIM(prim_logcount) {
    UNUSED_ARGS;
    Obj n = check_integer(L, args[0]);
    if (is_fixnum(n)) {
        intptr_t v = fixnum_val(n);
        return FIX(__builtin_popcountll((uint64_t)(v < 0 ? ~v : v)));
    }
    if (mpz_sgn(BIG(n)) >= 0) return make_uint64(L, mpz_popcount(BIG(n)));
    mpz_t t;
    mpz_init(t);
    mpz_com(t, BIG(n));
    return make_uint64(L, mpz_popcount(t));
}

/* INTEGER-LENGTH: bits of N, or of (lognot N) when N is negative. int_bits is one too many for
 * a negative bignum whose magnitude is a power of two (-2^k needs k bits, not k + 1). */
DEFPRIM(prim_integer_length) {
    UNUSED_ARGS;
    Obj n = check_integer(L, args[0]);
    size_t bits = int_bits(n);
    if (!is_fixnum(n) && mpz_sgn(BIG(n)) < 0 && mpz_scan1(BIG(n), 0) == bits - 1) bits--;
    return make_uint64(L, bits);
}

DEFPRIM(prim_ash) {
    UNUSED_ARGS;
    Obj n = check_integer(L, args[0]), c = args[1];
    if (!is_real(c)) err_type(L, c, S(REAL));
    check_integer(L, c);
    if (!is_fixnum(c)) {
        if (n == FIX(0)) return n;
        if (int_sign(c) < 0) return int_sign(n) < 0 ? FIX(-1) : FIX(0);
        check_bits(L, 1e30);
    }
    return integer_ash(L, n, fixnum_val(c));
}

/* ---- byte specifiers: (size . position), as SBCL ---- */

#define BYTE_LIMIT ((intptr_t)4611686018427387841)

static intptr_t check_byte_field(Lisp *L, Obj v) {
    if (!is_fixnum(v) || fixnum_val(v) < 0 || fixnum_val(v) >= BYTE_LIMIT)
        err_type(L, v, list2(L, S(MOD), FIX(BYTE_LIMIT)));
    return fixnum_val(v);
}

static void byte_spec(Lisp *L, Obj spec, intptr_t *size, intptr_t *pos) {
    if (!is_cons(spec)) err_type(L, spec, S(CONS));
    *size = check_byte_field(L, CAR(spec));
    *pos = check_byte_field(L, CDR(spec));
}

DEFPRIM(prim_byte) {
    UNUSED_ARGS;
    check_byte_field(L, args[0]);
    check_byte_field(L, args[1]);
    return cons(L, args[0], args[1]);
}
DEFPRIM(prim_byte_size) { UNUSED_ARGS; intptr_t s, p; byte_spec(L, args[0], &s, &p); return FIX(s); }
DEFPRIM(prim_byte_position) { UNUSED_ARGS; intptr_t s, p; byte_spec(L, args[0], &s, &p); return FIX(p); }

/* (ldb (byte size pos) n) */
static Obj ldb(Lisp *L, intptr_t size, intptr_t pos, Obj n) {
    if (size == 0) return FIX(0);
    if (is_fixnum(n)) {
        intptr_t v = pos >= 63 ? (fixnum_val(n) < 0 ? -1 : 0) : fixnum_val(n) >> pos;
        if (size < 62) return FIX(v & (((intptr_t)1 << size) - 1));
        if (v >= 0) return FIX(v);
    }
    ZArg za;
    mpz_t t;
    mpz_init(t);
    mpz_fdiv_q_2exp(t, zarg(&za, n), (mp_bitcnt_t)pos);
    if (mpz_sgn(t) >= 0 && mpz_sizeinbase(t, 2) <= (size_t)size) return mpz_take(L, t);
    check_bits(L, (double)size);
    mpz_fdiv_r_2exp(t, t, (mp_bitcnt_t)size);
    return mpz_take(L, t);
}

static bool ldb_test(Lisp *L, intptr_t size, intptr_t pos, Obj n) {
    (void)L;
    if (size == 0) return false;
    ZArg za;
    mpz_t t;
    mpz_init(t);
    mpz_fdiv_q_2exp(t, zarg(&za, n), (mp_bitcnt_t)pos);
    if (mpz_sgn(t) == 0) return false;
    /* a positive rest that fits in the field has a bit in it; a negative one may not (its low
     * SIZE bits can all be zero), so it goes through the remainder below */
    if (mpz_sgn(t) > 0 && mpz_sizeinbase(t, 2) <= (size_t)size) return true;
    mpz_fdiv_r_2exp(t, t, (mp_bitcnt_t)size);
    return mpz_sgn(t) != 0;
}

/* N with the field (size, pos) replaced by the field's bits of FIELD, which is already
 * positioned (DEPOSIT-FIELD) or not (DPB). */
static Obj replace_field(Lisp *L, Obj field, bool positioned, intptr_t size, intptr_t pos, Obj n) {
    double top = (double)pos + (double)size;
    double nb = (double)int_bits(n), fb = (double)int_bits(field) - (positioned ? (double)pos : 0);
    double bits = int_sign(n) < 0 ? fmax(nb, top) : fmax(nb, (double)pos + (int_sign(field) < 0 ? (double)size : fmin((double)size, fb)));
    check_bits(L, bits + 2);
    ZArg za, zf;
    mpz_srcptr zn = zarg(&za, n), zfd = zarg(&zf, field);
    mpz_t low, high, mid;
    mpz_init(low); mpz_init(high); mpz_init(mid);
    mpz_fdiv_r_2exp(low, zn, (mp_bitcnt_t)pos);
    if (int_sign(n) >= 0 && (double)mpz_sizeinbase(zn, 2) <= top) mpz_set_ui(high, 0);
    else {
        mpz_fdiv_q_2exp(high, zn, (mp_bitcnt_t)(pos + size));
        mpz_mul_2exp(high, high, (mp_bitcnt_t)(pos + size));
    }
    if (positioned) mpz_fdiv_q_2exp(mid, zfd, (mp_bitcnt_t)pos);
    else mpz_set(mid, zfd);
    mpz_fdiv_r_2exp(mid, mid, (mp_bitcnt_t)size);
    mpz_mul_2exp(mid, mid, (mp_bitcnt_t)pos);
    mpz_add(high, high, mid);
    mpz_add(high, high, low);
    return mpz_take(L, high);
}

DEFPRIM(prim_ldb) {
    UNUSED_ARGS;
    intptr_t s, p;
    byte_spec(L, args[0], &s, &p);
    return ldb(L, s, p, check_integer(L, args[1]));
}

DEFPRIM(prim_ldb_test) {
    UNUSED_ARGS;
    intptr_t s, p;
    byte_spec(L, args[0], &s, &p);
    return boolean(L, ldb_test(L, s, p, check_integer(L, args[1])));
}

DEFPRIM(prim_mask_field) {
    UNUSED_ARGS;
    intptr_t s, p;
    byte_spec(L, args[0], &s, &p);
    Obj n = check_integer(L, args[1]);
    return integer_ash(L, ldb(L, s, p, n), p);
}

DEFPRIM(prim_dpb) {
    UNUSED_ARGS;
    intptr_t s, p;
    Obj nw = check_integer(L, args[0]);
    byte_spec(L, args[1], &s, &p);
    return replace_field(L, nw, false, s, p, check_integer(L, args[2]));
}

DEFPRIM(prim_deposit_field) {
    UNUSED_ARGS;
    intptr_t s, p;
    Obj nw = check_integer(L, args[0]);
    byte_spec(L, args[1], &s, &p);
    return replace_field(L, nw, true, s, p, check_integer(L, args[2]));
}

/* ==== random numbers: xoshiro256** ==== */

static uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rs_next(RandomState *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static Obj new_random_state(Lisp *L, uint64_t seed) {
    RandomState *r = (RandomState *)heap_alloc(L, T_RANDOM_STATE, sizeof(RandomState));
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
    return (Obj)r;
}

static uint64_t fresh_seed(void) {
    static _Atomic uint64_t counter;     /* shared by every interpreter: atomic, since threads share it */
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed) seed = 0;
        close(fd);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return seed ^ ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^ ((atomic_fetch_add(&counter, 1) + 1) << 40) ^ (uint64_t)getpid();
}

_Noreturn static void random_limit_error(Lisp *L, Obj limit) {
    Obj t1 = list2(L, S(INTEGER), FIX(1));
    Obj t2 = list2(L, S(FLOAT), list1(L, FIX(0)));
    err_type(L, limit, list3(L, S(OR), t1, t2));
}

static Obj num_random(Lisp *L, Obj limit, Obj state) {
    if (!is_type(state, T_RANDOM_STATE)) err_type(L, state, S(RANDOM_STATE));
    RandomState *rs = RSTATE(state);
    if (is_fixnum(limit) && fixnum_val(limit) > 0) {
        uint64_t n = (uint64_t)fixnum_val(limit), threshold = (0 - n) % n, r;
        do r = rs_next(rs); while (r < threshold);
        return FIX((intptr_t)(r % n));
    }
    if (is_bignum(limit) && mpz_sgn(BIG(limit)) > 0) {
        size_t bits = mpz_sizeinbase(BIG(limit), 2), words = (bits + 63) / 64;
        uint64_t *buf = (uint64_t *)gc_alloc_atomic(L, words * 8);
        mpz_t z;
        mpz_init(z);
        for (;;) {
            safe_point(L);
            for (size_t i = 0; i < words; i++) buf[i] = rs_next(rs);
            mpz_import(z, words, -1, 8, 0, 0, buf);
            mpz_fdiv_r_2exp(z, z, bits);
            if (mpz_cmp(z, BIG(limit)) < 0) return mpz_take(L, z);
        }
    }
    if (is_single(limit) && single_val(limit) > 0) {
        float f = single_val(limit), r;
        do r = (float)((double)(rs_next(rs) >> 40) * 0x1p-24 * f); while (r >= f);
        return make_single(r);
    }
    if (is_double(limit) && DBL(limit) > 0) {
        double d = DBL(limit), r;
        do r = (double)(rs_next(rs) >> 11) * 0x1p-53 * d; while (r >= d);
        return make_double(L, r);
    }
    random_limit_error(L, limit);
}

DEFPRIM(prim_random) {
    return num_random(L, args[0], nargs > 1 ? args[1] : SYM(S(RANDOM_STATE_VAR))->value);
}

DEFPRIM(prim_make_random_state) {
    Obj st = nargs > 0 ? args[0] : NIL;
    if (st == S(T)) return new_random_state(L, fresh_seed());
    if (st == NIL) st = SYM(S(RANDOM_STATE_VAR))->value;
    if (!is_type(st, T_RANDOM_STATE)) err_type(L, st, list3(L, S(OR), S(RANDOM_STATE), S(BOOLEAN)));
    RandomState *r = (RandomState *)heap_alloc(L, T_RANDOM_STATE, sizeof(RandomState));
    memcpy(r->s, RSTATE(st)->s, sizeof r->s);
    return (Obj)r;
}

/* (sys:%random-state-from-words w0 w1 w2 w3): the random state whose xoshiro256** state is
 * those four 64-bit words; how a random state is printed readably */
DEFPRIM(prim_pct_random_state_from_words) {
    UNUSED_ARGS;
    RandomState *r = (RandomState *)heap_alloc(L, T_RANDOM_STATE, sizeof(RandomState));
    for (int i = 0; i < 4; i++) {
        Obj w = args[i];
        if (!is_integer(w) || (is_fixnum(w) ? fixnum_val(w) < 0 : mpz_sgn(BIG(w)) < 0 || mpz_sizeinbase(BIG(w), 2) > 64))
            err_type(L, w, list2(L, S(UNSIGNED_BYTE), FIX(64)));
        if (is_fixnum(w)) r->s[i] = (uint64_t)fixnum_val(w);
        else {
            uint64_t v = 0;
            mpz_export(&v, NULL, 1, sizeof v, 0, 0, BIG(w));
            r->s[i] = v;
        }
    }
    return (Obj)r;
}

DEFPRIM(prim_random_state_p) { UNUSED_ARGS; return boolean(L, is_type(args[0], T_RANDOM_STATE)); }

/* ==== PARSE-INTEGER ==== */

static int digit_value(uint32_t c, int base) {
    int v;
    if (c >= '0' && c <= '9') v = (int)(c - '0');
    else if (c >= 'a' && c <= 'z') v = (int)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'Z') v = (int)(c - 'A' + 10);
    else return -1;
    return v < base ? v : -1;
}

/* Digits S[0..N) in BASE (all valid) as an integer. */
static Obj digits_to_integer(Lisp *L, const uint32_t *s, size_t n, int base, bool neg) {
    if (n <= 12) {
        intptr_t v = 0;
        for (size_t i = 0; i < n; i++) v = v * base + digit_value(s[i], base);
        return FIX(neg ? -v : v);
    }
    char *buf = (char *)gc_alloc_atomic(L, n + 2);
    size_t k = 0;
    if (neg) buf[k++] = '-';
    for (size_t i = 0; i < n; i++) buf[k++] = (char)s[i];
    buf[k] = 0;
    mpz_t z;
    mpz_init(z);
    z_set_str(L, z, buf, base, n);
    return mpz_take(L, z);
}

static bool whitespace1p(uint32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 11; }

static const Obj *parse_integer_keys(Lisp *L, Obj *keys) {
    keys[0] = S(K_START); keys[1] = S(K_END); keys[2] = S(K_RADIX); keys[3] = S(K_JUNK_ALLOWED);
    return keys;
}

DEFPRIM(prim_parse_integer) {
    Obj str = args[0];
    if (!is_string(str)) {
        if (!(is_vector(str) && array_elt_type(str) == ELT_CHARACTER)) err_type(L, str, S(STRING));
    }
    Obj keys[4], kv[4];
    parse_keys(L, nargs, args, 1, 4, parse_integer_keys(L, keys), kv);
    size_t len = is_string(str) ? STR(str)->len : vector_length(str);
    size_t start = kv[0] == NO_VALUE ? 0 : check_bound(L, kv[0], len);
    size_t end = (kv[1] == NO_VALUE || kv[1] == NIL) ? len : check_bound(L, kv[1], len);
    if (start > end) err_type(L, kv[0], list3(L, S(INTEGER), FIX(0), FIX((intptr_t)end)));
    int radix = 10;
    if (kv[2] != NO_VALUE) {
        if (!is_fixnum(kv[2]) || fixnum_val(kv[2]) < 2 || fixnum_val(kv[2]) > 36)
            err_type(L, kv[2], list3(L, S(INTEGER), FIX(2), FIX(36)));
        radix = (int)fixnum_val(kv[2]);
    }
    bool junk = kv[3] != NO_VALUE && kv[3] != NIL;
    uint32_t *s;
    if (is_string(str)) s = STR(str)->data;
    else {
        s = (uint32_t *)gc_alloc_atomic(L, (len + 1) * sizeof(uint32_t));
        for (size_t i = start; i < end; i++) s[i] = char_code(array_rm_ref(L, str, i));
    }
    size_t i = start;
    while (i < end && whitespace1p(s[i])) i++;
    bool neg = false;
    if (i < end && (s[i] == '+' || s[i] == '-')) { neg = s[i] == '-'; i++; }
    size_t d0 = i;
    while (i < end && digit_value(s[i], radix) >= 0) i++;
    size_t d1 = i;
    if (junk) {
        Obj v = d1 > d0 ? digits_to_integer(L, s + d0, d1 - d0, radix, neg) : NIL;
        return values2(L, v, FIX((intptr_t)i));
    }
    while (i < end && whitespace1p(s[i])) i++;
    Obj sub = string_from_u32(L, s + start, end - start);
    if (d1 == d0) err_fmt(L, S(PARSE_ERROR), "no digits in string %S", sub);
    if (i < end) err_fmt(L, S(PARSE_ERROR), "junk in string %S", sub);
    return values2(L, digits_to_integer(L, s + d0, d1 - d0, radix, neg), FIX((intptr_t)end));
}

/* ==== printing ==== */

static void print_integer(Lisp *L, Obj n, StrBuf *out, int base) {
    if (is_fixnum(n)) {
        intptr_t v = fixnum_val(n);
        char buf[80];
        int i = 79;
        buf[i] = 0;
        uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
        do {
            int d = (int)(u % (uint64_t)base);
            buf[--i] = (char)(d < 10 ? '0' + d : 'A' + d - 10);
            u /= (uint64_t)base;
        } while (u);
        if (v < 0) buf[--i] = '-';
        sb_puts(L, out, buf + i);
        return;
    }
    size_t n_chars = mpz_sizeinbase(BIG(n), base) + 2;
    char small[128];
    char *buf = n_chars <= sizeof small ? small : (char *)gc_alloc_atomic(L, n_chars);
    z_get_str(L, buf, -base, BIG(n));
    sb_puts(L, out, buf);
}

static void print_float_exponent(Lisp *L, StrBuf *out, bool is_default, char marker, int exp) {
    char eb[24];
    if (is_default) {
        if (exp == 0) return;
        snprintf(eb, sizeof eb, "e%d", exp);
    } else snprintf(eb, sizeof eb, "%c%d", marker, exp);
    sb_puts(L, out, eb);
}

static void print_float(Lisp *L, double d, bool single, StrBuf *out) {
    Obj deflt = SYM(S(READ_DEFAULT_FLOAT_FORMAT))->value;
    bool is_default = single ? (deflt == S(SINGLE_FLOAT) || deflt == S(SHORT_FLOAT))
                             : (deflt == S(DOUBLE_FLOAT) || deflt == S(LONG_FLOAT));
    char marker = single ? 'f' : 'd';
    if (isnan(d)) { sb_puts(L, out, single ? "#<SINGLE-FLOAT quiet NaN>" : "#<DOUBLE-FLOAT quiet NaN>"); return; }
    if (isinf(d)) {
        sb_puts(L, out, d > 0 ? (single ? "#.SB-EXT:SINGLE-FLOAT-POSITIVE-INFINITY" : "#.SB-EXT:DOUBLE-FLOAT-POSITIVE-INFINITY")
                              : (single ? "#.SB-EXT:SINGLE-FLOAT-NEGATIVE-INFINITY" : "#.SB-EXT:DOUBLE-FLOAT-NEGATIVE-INFINITY"));
        return;
    }
    if (signbit(d)) { sb_putc(L, out, '-'); d = -d; }
    if (d == 0) {
        sb_puts(L, out, "0.0");
        print_float_exponent(L, out, is_default, marker, 0);
        return;
    }
    long ek;
    char *digits = flonum_digits(L, d, single, false, 0, false, &ek);
    int nd = (int)strlen(digits), e = (int)ek;
    if (-3 < e && e < 8) {
        if (e > 0) {
            for (int i = 0; i < e; i++) sb_putc(L, out, (uint32_t)(i < nd ? digits[i] : '0'));
            sb_putc(L, out, '.');
            if (e < nd) sb_puts(L, out, digits + e);
            else sb_putc(L, out, '0');
        } else {
            sb_puts(L, out, "0.");
            for (int i = 0; i < -e; i++) sb_putc(L, out, '0');
            sb_puts(L, out, digits);
        }
        print_float_exponent(L, out, is_default, marker, 0);
        return;
    }
    sb_putc(L, out, (uint32_t)digits[0]);
    sb_putc(L, out, '.');
    if (nd > 1) sb_puts(L, out, digits + 1);
    else sb_putc(L, out, '0');
    print_float_exponent(L, out, false, is_default ? 'e' : marker, e - 1);
}

static void print_radix_prefix(Lisp *L, StrBuf *out, int base) {
    char pre[8];
    if (base == 2) strcpy(pre, "#b");
    else if (base == 8) strcpy(pre, "#o");
    else if (base == 16) strcpy(pre, "#x");
    else snprintf(pre, sizeof pre, "#%dr", base);
    sb_puts(L, out, pre);
}

void number_print(Lisp *L, Obj n, StrBuf *out, int base, bool radix) {
    if (is_integer(n)) {
        if (radix && base != 10) print_radix_prefix(L, out, base);
        print_integer(L, n, out, base);
        if (radix && base == 10) sb_putc(L, out, '.');
        return;
    }
    if (is_ratio(n)) {
        if (radix) print_radix_prefix(L, out, base);
        print_integer(L, RATIO(n)->num, out, base);
        sb_putc(L, out, '/');
        print_integer(L, RATIO(n)->den, out, base);
        return;
    }
    if (is_single(n)) { print_float(L, (double)single_val(n), true, out); return; }
    if (is_double(n)) { print_float(L, DBL(n), false, out); return; }
    if (is_complex(n)) {
        sb_puts(L, out, "#C(");
        number_print(L, CPLX(n)->re, out, base, radix);
        sb_putc(L, out, ' ');
        number_print(L, CPLX(n)->im, out, base, radix);
        sb_putc(L, out, ')');
    }
}

/* ==== reading ==== */

static bool is_exp_marker(uint32_t c) {
    c |= 0x20;
    return c == 'e' || c == 's' || c == 'f' || c == 'd' || c == 'l';
}

/* [sign] digits . digits [marker [sign] digits]: the value M * 10^X, made a float as SBCL's reader does. */
static Obj make_float_from_decimal(Lisp *L, const uint32_t *s, size_t n, bool neg, uint32_t marker) {
    bool single;
    if (marker == 0 || marker == 'e') {
        Obj d = SYM(S(READ_DEFAULT_FLOAT_FORMAT))->value;
        single = !(d == S(DOUBLE_FLOAT) || d == S(LONG_FLOAT));
    } else single = marker == 's' || marker == 'f';
    /* collect mantissa digits and the decimal exponent */
    char *buf = (char *)gc_alloc_atomic(L, n + 2);
    size_t nd = 0, i = 0;
    long frac = 0;
    bool point = false;
    for (; i < n && !is_exp_marker(s[i]); i++) {
        if (s[i] == '.') { point = true; continue; }
        if (nd == 0 && s[i] == '0') { if (point) frac++; continue; }   /* leading zeros */
        buf[nd++] = (char)s[i];
        if (point) frac++;
    }
    buf[nd] = 0;
    long x = 0;
    if (i < n) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-')) { eneg = s[i] == '-'; i++; }
        for (; i < n; i++) {
            if (x < 100000000) x = x * 10 + (long)(s[i] - '0');
        }
        if (eneg) x = -x;
    }
    x -= frac;
    if (nd == 0) return single ? make_single(neg ? -0.0f : 0.0f) : make_double(L, neg ? -0.0 : 0.0);
    long mag = (long)nd + x;   /* value < 10^mag */
    bool ovf = false;
    double v = 0;
    if (mag > 330) ovf = true;
    else if (mag < -330) v = 0;
    else {
        mpz_t m, p;
        mpz_init(m); mpz_init(p);
        z_set_str(L, m, buf, 10, nd);
        if (neg) mpz_neg(m, m);
        mpz_set_ui(p, 10);
        if (x >= 0) {
            z_pow_ui(L, p, p, (unsigned long)x, (size_t)x / 19);
            z_mul(L, m, m, p);
            mpz_set_ui(p, 1);
        } else z_pow_ui(L, p, p, (unsigned long)-x, (size_t)-x / 19);
        v = single ? mpq_to_float_bits(L, m, p, 24, -149, 127, &ovf) : mpq_to_float_bits(L, m, p, 53, -1074, 1023, &ovf);
    }
    if (ovf) err_reader(L, NIL, "floating-point-overflow: can't represent %s as a %s",
                        string_to_utf8(L, string_from_u32(L, s, n), NULL), single ? "SINGLE-FLOAT" : "DOUBLE-FLOAT");
    if (v == 0 && neg) v = -0.0;
    return single ? make_single((float)v) : make_double(L, v);
}

bool number_parse_token(Lisp *L, Obj stream, const uint32_t *s, size_t n, int base, Obj *out) {
    if (n == 0) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '+' || s[0] == '-') { neg = s[0] == '-'; i = 1; }
    if (i == n) return false;
    /* integer in base, or decimal integer with trailing point */
    size_t j = i;
    while (j < n && digit_value(s[j], base) >= 0) j++;
    if (j == n) { *out = digits_to_integer(L, s + i, j - i, base, neg); return true; }
    size_t k = i;
    while (k < n && digit_value(s[k], 10) >= 0) k++;
    if (k == n - 1 && k > i && s[k] == '.') { *out = digits_to_integer(L, s + i, k - i, 10, neg); return true; }
    /* ratio */
    if (j > i && s[j] == '/') {
        size_t m = j + 1;
        while (m < n && digit_value(s[m], base) >= 0) m++;
        if (m == n && m > j + 1) {
            Obj num = digits_to_integer(L, s + i, j - i, base, neg);
            Obj den = digits_to_integer(L, s + j + 1, m - j - 1, base, false);
            if (den == FIX(0)) err_reader(L, stream, "division by zero reading the ratio %s",
                                          string_to_utf8(L, string_from_u32(L, s, n), NULL));
            *out = make_ratio(L, num, den);
            return true;
        }
    }
    /* float: digits* [. digits*] [marker sign? digits+], with a digit and a point or exponent */
    size_t p = i, int_digits = 0, frac_digits = 0;
    while (p < n && s[p] >= '0' && s[p] <= '9') { p++; int_digits++; }
    bool point = false;
    if (p < n && s[p] == '.') {
        point = true;
        p++;
        while (p < n && s[p] >= '0' && s[p] <= '9') { p++; frac_digits++; }
    }
    if (int_digits + frac_digits == 0) return false;
    uint32_t marker = 0;
    if (p < n) {
        if (!is_exp_marker(s[p])) return false;
        if (int_digits == 0 && frac_digits == 0) return false;
        marker = s[p] | 0x20;
        p++;
        if (p < n && (s[p] == '+' || s[p] == '-')) p++;
        size_t ed = 0;
        while (p < n && s[p] >= '0' && s[p] <= '9') { p++; ed++; }
        if (ed == 0 || p != n) return false;
    } else if (!point || frac_digits == 0) {
        return false;
    }
    *out = make_float_from_decimal(L, s + i, n - i, neg, marker);
    return true;
}

/* ==== primitives ==== */

DEFPRIM(prim_plus) {
    if (nargs == 0) return FIX(0);
    Obj r = check_number(L, args[0]);
    for (int i = 1; i < nargs; i++) r = num_add(L, r, args[i]);
    return r;
}

DEFPRIM(prim_minus) {
    if (nargs == 1) return num_negate(L, args[0]);
    Obj r = args[0];
    for (int i = 1; i < nargs; i++) r = num_sub(L, r, args[i]);
    return r;
}

DEFPRIM(prim_star) {
    if (nargs == 0) return FIX(1);
    Obj r = check_number(L, args[0]);
    for (int i = 1; i < nargs; i++) r = num_mul(L, r, args[i]);
    return r;
}

DEFPRIM(prim_slash) {
    if (nargs == 1) return num_div(L, FIX(1), args[0]);
    Obj r = args[0];
    for (int i = 1; i < nargs; i++) r = num_div(L, r, args[i]);
    return r;
}

#define COMPARE_PRIM(cname, test)                                   \
    DEFPRIM(cname) {                                                \
        for (int i = 0; i < nargs; i++) real_kind(L, args[i]);      \
        for (int i = 0; i + 1 < nargs; i++) {                       \
            int c = num_compare(L, args[i], args[i + 1]);           \
            if (c == 2 || !(test)) return NIL;                      \
        }                                                           \
        return S(T);                                                \
    }
COMPARE_PRIM(prim_lt, c < 0)
COMPARE_PRIM(prim_gt, c > 0)
COMPARE_PRIM(prim_le, c <= 0)
COMPARE_PRIM(prim_ge, c >= 0)

DEFPRIM(prim_num_eq) {
    for (int i = 0; i < nargs; i++) kind(L, args[i]);
    for (int i = 0; i + 1 < nargs; i++)
        if (!num_equal(L, args[i], args[i + 1])) return NIL;
    return S(T);
}

DEFPRIM(prim_num_ne) {
    /* pairwise, stopping at the first equal pair (as SBCL: later arguments go unchecked) */
    kind(L, args[0]);
    for (int i = 0; i < nargs; i++) {
        if ((i & 255) == 255) safe_point(L);
        for (int j = i + 1; j < nargs; j++) {
            kind(L, args[j]);
            if (num_equal(L, args[i], args[j])) return NIL;
        }
    }
    return S(T);
}

DEFPRIM(prim_max) {
    Obj r = args[0];
    real_kind(L, r);
    for (int i = 1; i < nargs; i++) {
        real_kind(L, args[i]);
        if (num_compare(L, args[i], r) == 1) r = args[i];
    }
    return r;
}

DEFPRIM(prim_min) {
    Obj r = args[0];
    real_kind(L, r);
    for (int i = 1; i < nargs; i++) {
        real_kind(L, args[i]);
        if (num_compare(L, args[i], r) == -1) r = args[i];
    }
    return r;
}

DEFPRIM(prim_one_plus) { UNUSED_ARGS; return num_add(L, args[0], FIX(1)); }
DEFPRIM(prim_one_minus) { UNUSED_ARGS; return num_sub(L, args[0], FIX(1)); }
DEFPRIM(prim_zerop) { UNUSED_ARGS; return boolean(L, num_zerop(L, args[0])); }
DEFPRIM(prim_plusp) { UNUSED_ARGS; return boolean(L, num_plusp(L, args[0])); }
DEFPRIM(prim_minusp) { UNUSED_ARGS; return boolean(L, num_minusp(L, args[0])); }
DEFPRIM(prim_evenp) { UNUSED_ARGS; return boolean(L, !int_oddp(check_integer(L, args[0]))); }
DEFPRIM(prim_oddp) { UNUSED_ARGS; return boolean(L, int_oddp(check_integer(L, args[0]))); }
DEFPRIM(prim_numberp) { UNUSED_ARGS; return boolean(L, is_number(args[0])); }
DEFPRIM(prim_integerp) { UNUSED_ARGS; return boolean(L, is_integer(args[0])); }
DEFPRIM(prim_rationalp) { UNUSED_ARGS; return boolean(L, is_rational(args[0])); }
DEFPRIM(prim_floatp) { UNUSED_ARGS; return boolean(L, is_float(args[0])); }
DEFPRIM(prim_realp) { UNUSED_ARGS; return boolean(L, is_real(args[0])); }
DEFPRIM(prim_complexp) { UNUSED_ARGS; return boolean(L, is_complex(args[0])); }

DEFPRIM(prim_abs) { UNUSED_ARGS; return num_abs(L, args[0]); }
DEFPRIM(prim_signum) { UNUSED_ARGS; return num_signum(L, args[0]); }

DEFPRIM(prim_gcd) {
    if (nargs == 0) return FIX(0);
    Obj r = int_abs(L, check_integer(L, args[0]));
    for (int i = 1; i < nargs; i++) {
        Obj b = check_integer(L, args[i]);
        if (is_fixnum(r) && is_fixnum(b)) {
            intptr_t x = fixnum_val(b);
            r = make_uint64(L, gcd_u64((uint64_t)fixnum_val(r), x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x));
            continue;
        }
        ZArg za, zb;
        mpz_t g;
        mpz_init(g);
        z_gcd(L, g, zarg(&za, r), zarg(&zb, b), false);
        r = mpz_take(L, g);
    }
    return r;
}

DEFPRIM(prim_lcm) {
    if (nargs == 0) return FIX(1);
    Obj r = int_abs(L, check_integer(L, args[0]));
    for (int i = 1; i < nargs; i++) {
        Obj b = check_integer(L, args[i]);
        if (r == FIX(0) || b == FIX(0)) { r = FIX(0); continue; }
        check_bits(L, (double)int_bits(r) + (double)int_bits(b));
        ZArg za, zb;
        mpz_t g;
        mpz_init(g);
        z_gcd(L, g, zarg(&za, r), zarg(&zb, b), true);
        r = mpz_take(L, g);
    }
    return r;
}

DEFPRIM(prim_isqrt) {
    UNUSED_ARGS;
    Obj n = args[0];
    if (!is_integer(n) || int_sign(n) < 0) err_type(L, n, S(UNSIGNED_BYTE));
    ZArg za;
    mpz_t r;
    mpz_init(r);
    z_sqrt(L, r, zarg(&za, n));
    return mpz_take(L, r);
}

DEFPRIM(prim_sqrt) { UNUSED_ARGS; return num_sqrt(L, args[0]); }
DEFPRIM(prim_exp) { UNUSED_ARGS; return num_exp(L, args[0]); }
DEFPRIM(prim_expt) { UNUSED_ARGS; return num_expt(L, args[0], args[1]); }
DEFPRIM(prim_log) { return nargs > 1 ? num_log_base(L, args[0], args[1]) : num_log(L, args[0]); }
DEFPRIM(prim_sin) { UNUSED_ARGS; return num_sin(L, args[0]); }
DEFPRIM(prim_cos) { UNUSED_ARGS; return num_cos(L, args[0]); }
DEFPRIM(prim_tan) { UNUSED_ARGS; return num_tan(L, args[0]); }
DEFPRIM(prim_asin) { UNUSED_ARGS; return num_asin(L, args[0]); }
DEFPRIM(prim_acos) { UNUSED_ARGS; return num_acos(L, args[0]); }
DEFPRIM(prim_atan) { return nargs > 1 ? num_atan2(L, args[0], args[1]) : num_atan(L, args[0]); }
DEFPRIM(prim_sinh) { UNUSED_ARGS; return num_sinh(L, args[0]); }
DEFPRIM(prim_cosh) { UNUSED_ARGS; return num_cosh(L, args[0]); }
DEFPRIM(prim_tanh) { UNUSED_ARGS; return num_tanh(L, args[0]); }
DEFPRIM(prim_asinh) { UNUSED_ARGS; return num_asinh(L, args[0]); }
DEFPRIM(prim_acosh) { UNUSED_ARGS; return num_acosh(L, args[0]); }
DEFPRIM(prim_atanh) { UNUSED_ARGS; return num_atanh(L, args[0]); }
DEFPRIM(prim_cis) { UNUSED_ARGS; real_kind(L, args[0]); return num_cis(L, args[0]); }
DEFPRIM(prim_conjugate) { UNUSED_ARGS; return num_conjugate(L, args[0]); }
DEFPRIM(prim_phase) { UNUSED_ARGS; return num_phase(L, args[0]); }

DEFPRIM(prim_complex) {
    Obj re = args[0];
    int k = real_kind(L, re);
    if (nargs == 1) return k >= K_SINGLE ? complex_raw(L, re, float_one(L, k, 0.0)) : re;
    return make_complex(L, re, args[1]);
}

DEFPRIM(prim_realpart) { UNUSED_ARGS; kind(L, args[0]); return realpart(args[0]); }

DEFPRIM(prim_imagpart) {
    UNUSED_ARGS;
    Obj x = args[0];
    switch (kind(L, x)) {
    case K_INT: case K_RATIO: return FIX(0);
    case K_SINGLE: return make_single(copysignf(0.0f, single_val(x)));
    case K_DOUBLE: return make_double(L, copysign(0.0, DBL(x)));
    default: return CPLX(x)->im;
    }
}

DEFPRIM(prim_numerator) {
    UNUSED_ARGS;
    if (!is_rational(args[0])) err_type(L, args[0], S(RATIONAL));
    return ratio_num(args[0]);
}

DEFPRIM(prim_denominator) {
    UNUSED_ARGS;
    if (!is_rational(args[0])) err_type(L, args[0], S(RATIONAL));
    return ratio_den(args[0]);
}

DEFPRIM(prim_float) { return num_float(L, args[0], nargs > 1 ? args[1] : NO_VALUE); }
DEFPRIM(prim_rational) { UNUSED_ARGS; return num_rational(L, args[0]); }
DEFPRIM(prim_rationalize) { UNUSED_ARGS; return num_rationalize(L, args[0]); }

DEFPRIM(prim_float_sign) {
    Obj x = args[0];
    check_float(L, x);
    int k = kind_of(x);
    bool neg = signbit(float_val(x));
    if (nargs == 1) return float_one(L, k, neg ? -1.0 : 1.0);
    Obj y = args[1];
    check_float(L, y);
    return MUL(float_one(L, k, neg ? -1.0 : 1.0), num_abs(L, y));
}

DEFPRIM(prim_float_digits) { UNUSED_ARGS; check_float(L, args[0]); return FIX(is_single(args[0]) ? 24 : 53); }
DEFPRIM(prim_float_radix) { UNUSED_ARGS; check_float(L, args[0]); return FIX(2); }

DEFPRIM(prim_float_precision) {
    UNUSED_ARGS;
    Obj x = args[0];
    check_float(L, x);
    uint64_t m;
    int e, sign;
    float_int_decode(L, x, &m, &e, &sign);
    if (m == 0) return FIX(0);
    return FIX(64 - __builtin_clzll(m));
}

DEFPRIM(prim_decode_float) {
    UNUSED_ARGS;
    Obj x = args[0];
    check_float(L, x);
    int k = kind_of(x);
    double v = float_val(x);
    if (isnan(v) || isinf(v)) err_simple(L, "Can't decode NaN or infinity: %S.", x);
    Obj sign = float_one(L, k, signbit(v) ? -1.0 : 1.0);
    if (v == 0) return values3(L, float_one(L, k, 0.0), FIX(0), sign);
    int e;
    double m = frexp(fabs(v), &e);
    return values3(L, float_one(L, k, m), FIX(e), sign);
}

DEFPRIM(prim_integer_decode_float) {
    UNUSED_ARGS;
    Obj x = args[0];
    check_float(L, x);
    uint64_t m;
    int e, sign;
    float_int_decode(L, x, &m, &e, &sign);
    return values3(L, make_uint64(L, m), FIX(e), FIX(sign));
}

DEFPRIM(prim_scale_float) { UNUSED_ARGS; return num_scale_float(L, args[0], args[1]); }

const PrimDef number_prims[] = {
    {"+", PK_CL, prim_plus, 0, REST, 0, "(&rest numbers)", "Sum of NUMBERS."},
    {"-", PK_CL, prim_minus, 1, REST, 0, "(number &rest more-numbers)", "Difference, or negation of one number."},
    {"*", PK_CL, prim_star, 0, REST, 0, "(&rest numbers)", "Product of NUMBERS."},
    {"/", PK_CL, prim_slash, 1, REST, 0, "(number &rest more-numbers)", "Quotient, or reciprocal of one number."},
    {"<", PK_CL, prim_lt, 1, REST, 0, "(number &rest more-numbers)", "True when the real numbers are in strictly increasing order."},
    {">", PK_CL, prim_gt, 1, REST, 0, "(number &rest more-numbers)", "True when the real numbers are in strictly decreasing order."},
    {"<=", PK_CL, prim_le, 1, REST, 0, "(number &rest more-numbers)", "True when the real numbers are in non-decreasing order."},
    {">=", PK_CL, prim_ge, 1, REST, 0, "(number &rest more-numbers)", "True when the real numbers are in non-increasing order."},
    {"=", PK_CL, prim_num_eq, 1, REST, 0, "(number &rest more-numbers)", "True when all the numbers are numerically equal, whatever their types (so (= 1 1.0) is true)."},
    {"/=", PK_CL, prim_num_ne, 1, REST, 0, "(number &rest more-numbers)", "True when no two of the numbers are numerically equal."},
    {"MAX", PK_CL, prim_max, 1, REST, 0, "(number &rest more-numbers)", "The greatest argument (returned as given)."},
    {"MIN", PK_CL, prim_min, 1, REST, 0, "(number &rest more-numbers)", "The least argument (returned as given)."},
    {"1+", PK_CL, prim_one_plus, 1, 1, 0, "(number)", "NUMBER plus one."},
    {"1-", PK_CL, prim_one_minus, 1, 1, 0, "(number)", "NUMBER minus one."},
    {"ZEROP", PK_CL, prim_zerop, 1, 1, 0, "(number)", "True when NUMBER is zero."},
    {"PLUSP", PK_CL, prim_plusp, 1, 1, 0, "(real)", "True when REAL is above zero."},
    {"MINUSP", PK_CL, prim_minusp, 1, 1, 0, "(real)", "True when REAL is below zero."},
    {"EVENP", PK_CL, prim_evenp, 1, 1, 0, "(integer)", "True when INTEGER is even."},
    {"ODDP", PK_CL, prim_oddp, 1, 1, 0, "(integer)", "True when INTEGER is odd."},
    {"NUMBERP", PK_CL, prim_numberp, 1, 1, 0, "(object)", "True when OBJECT is a number."},
    {"INTEGERP", PK_CL, prim_integerp, 1, 1, 0, "(object)", "True when OBJECT is an integer."},
    {"RATIONALP", PK_CL, prim_rationalp, 1, 1, 0, "(object)", "True when OBJECT is an integer or a ratio."},
    {"FLOATP", PK_CL, prim_floatp, 1, 1, 0, "(object)", "True when OBJECT is a floating-point number."},
    {"REALP", PK_CL, prim_realp, 1, 1, 0, "(object)", "True when OBJECT is a real number (rational or float)."},
    {"COMPLEXP", PK_CL, prim_complexp, 1, 1, 0, "(object)", "True when OBJECT is a complex number."},
    {"FLOOR", PK_CL, prim_floor, 1, 2, FN_MV, "(number &optional (divisor 1))", "Quotient rounded toward negative infinity, and remainder."},
    {"CEILING", PK_CL, prim_ceiling, 1, 2, FN_MV, "(number &optional (divisor 1))", "Quotient rounded toward positive infinity, and remainder."},
    {"TRUNCATE", PK_CL, prim_truncate, 1, 2, FN_MV, "(number &optional (divisor 1))", "Quotient rounded toward zero, and remainder."},
    {"ROUND", PK_CL, prim_round, 1, 2, FN_MV, "(number &optional (divisor 1))", "Quotient rounded to the nearest integer (ties to even), and remainder."},
    {"FFLOOR", PK_CL, prim_ffloor, 1, 2, FN_MV, "(number &optional (divisor 1))", "Like FLOOR, but the quotient is returned as a float."},
    {"FCEILING", PK_CL, prim_fceiling, 1, 2, FN_MV, "(number &optional (divisor 1))", "Like CEILING, but the quotient is returned as a float."},
    {"FTRUNCATE", PK_CL, prim_ftruncate, 1, 2, FN_MV, "(number &optional (divisor 1))", "Like TRUNCATE, but the quotient is returned as a float."},
    {"FROUND", PK_CL, prim_fround, 1, 2, FN_MV, "(number &optional (divisor 1))", "Like ROUND, but the quotient is returned as a float."},
    {"MOD", PK_CL, prim_mod, 2, 2, 0, "(number divisor)", "Second value of FLOOR."},
    {"REM", PK_CL, prim_rem, 2, 2, 0, "(number divisor)", "Second value of TRUNCATE."},
    {"GCD", PK_CL, prim_gcd, 0, REST, 0, "(&rest integers)", "Greatest common divisor."},
    {"LCM", PK_CL, prim_lcm, 0, REST, 0, "(&rest integers)", "Least common multiple."},
    {"ABS", PK_CL, prim_abs, 1, 1, 0, "(number)", "The absolute value of NUMBER; for a complex number, its magnitude."},
    {"SIGNUM", PK_CL, prim_signum, 1, 1, 0, "(number)", "-1, 0 or 1 of NUMBER's type according to its sign; for a complex number, the number of magnitude one in its direction."},
    {"ISQRT", PK_CL, prim_isqrt, 1, 1, 0, "(natural)", "Greatest integer whose square is at most NATURAL."},
    {"SQRT", PK_CL, prim_sqrt, 1, 1, 0, "(number)", "The principal square root of NUMBER; complex for a negative real."},
    {"EXP", PK_CL, prim_exp, 1, 1, 0, "(number)", "e raised to the power NUMBER."},
    {"EXPT", PK_CL, prim_expt, 2, 2, 0, "(base power)", "BASE raised to the power POWER; exact when BASE is rational and POWER an integer."},
    {"LOG", PK_CL, prim_log, 1, 2, 0, "(number &optional base)", "The logarithm of NUMBER in base BASE, or the natural logarithm when BASE is not given."},
    {"SIN", PK_CL, prim_sin, 1, 1, 0, "(number)", "The sine of NUMBER, taken in radians."},
    {"COS", PK_CL, prim_cos, 1, 1, 0, "(number)", "The cosine of NUMBER, taken in radians."},
    {"TAN", PK_CL, prim_tan, 1, 1, 0, "(number)", "The tangent of NUMBER, taken in radians."},
    {"ASIN", PK_CL, prim_asin, 1, 1, 0, "(number)", "The arc sine of NUMBER in radians; complex when NUMBER is outside [-1, 1]."},
    {"ACOS", PK_CL, prim_acos, 1, 1, 0, "(number)", "The arc cosine of NUMBER in radians; complex when NUMBER is outside [-1, 1]."},
    {"ATAN", PK_CL, prim_atan, 1, 2, 0, "(y &optional x)", "The arc tangent of Y in radians; with X, the angle of the point (X, Y), between -pi and pi."},
    {"SINH", PK_CL, prim_sinh, 1, 1, 0, "(number)", "The hyperbolic sine of NUMBER."},
    {"COSH", PK_CL, prim_cosh, 1, 1, 0, "(number)", "The hyperbolic cosine of NUMBER."},
    {"TANH", PK_CL, prim_tanh, 1, 1, 0, "(number)", "The hyperbolic tangent of NUMBER."},
    {"ASINH", PK_CL, prim_asinh, 1, 1, 0, "(number)", "The inverse hyperbolic sine of NUMBER."},
    {"ACOSH", PK_CL, prim_acosh, 1, 1, 0, "(number)", "The inverse hyperbolic cosine of NUMBER."},
    {"ATANH", PK_CL, prim_atanh, 1, 1, 0, "(number)", "The inverse hyperbolic tangent of NUMBER."},
    {"CIS", PK_CL, prim_cis, 1, 1, 0, "(theta)", "The complex number of magnitude one at angle THETA radians: cos THETA + i sin THETA."},
    {"CONJUGATE", PK_CL, prim_conjugate, 1, 1, 0, "(number)", "The complex conjugate of NUMBER (a real number is its own conjugate)."},
    {"PHASE", PK_CL, prim_phase, 1, 1, 0, "(number)", "The angle of NUMBER in radians, between -pi and pi (zero for a positive real)."},
    {"COMPLEX", PK_CL, prim_complex, 1, 2, 0, "(realpart &optional imagpart)", "The number with real part REALPART and imaginary part IMAGPART (default 0); a rational is returned as is when the imaginary part is an exact zero."},
    {"REALPART", PK_CL, prim_realpart, 1, 1, 0, "(number)", "The real part of NUMBER (NUMBER itself when it is real)."},
    {"IMAGPART", PK_CL, prim_imagpart, 1, 1, 0, "(number)", "The imaginary part of NUMBER (zero of the right type for a real number)."},
    {"NUMERATOR", PK_CL, prim_numerator, 1, 1, 0, "(rational)", "The numerator of RATIONAL in lowest terms (RATIONAL itself for an integer)."},
    {"DENOMINATOR", PK_CL, prim_denominator, 1, 1, 0, "(rational)", "The denominator of RATIONAL in lowest terms (always positive; 1 for an integer)."},
    {"FLOAT", PK_CL, prim_float, 1, 2, 0, "(number &optional prototype)", "NUMBER converted to a float: of the same format as PROTOTYPE when given, otherwise single-float unless it is already a float."},
    {"RATIONAL", PK_CL, prim_rational, 1, 1, 0, "(number)", "The rational number exactly equal to NUMBER (a float converts to its exact binary value)."},
    {"RATIONALIZE", PK_CL, prim_rationalize, 1, 1, 0, "(number)", "A simple rational number that is within the precision of the float NUMBER (rationals are returned as they are)."},
    {"FLOAT-SIGN", PK_CL, prim_float_sign, 1, 2, 0, "(float1 &optional float2)", "A float with FLOAT1's sign and FLOAT2's magnitude (default 1.0 of FLOAT1's format)."},
    {"FLOAT-DIGITS", PK_CL, prim_float_digits, 1, 1, 0, "(float)", "The number of radix digits in FLOAT's format, counting the hidden bit."},
    {"FLOAT-PRECISION", PK_CL, prim_float_precision, 1, 1, 0, "(float)", "The number of significant radix digits in FLOAT (fewer than FLOAT-DIGITS for denormals, 0 for zero)."},
    {"FLOAT-RADIX", PK_CL, prim_float_radix, 1, 1, 0, "(float)", "The radix of FLOAT's representation, 2 in tinycl."},
    {"DECODE-FLOAT", PK_CL, prim_decode_float, 1, 1, FN_MV, "(float)", "Three values for FLOAT: its significand scaled into [1/radix, 1), its exponent, and its sign as 1.0 or -1.0."},
    {"INTEGER-DECODE-FLOAT", PK_CL, prim_integer_decode_float, 1, 1, FN_MV, "(float)", "Three integers for FLOAT: its significand, its exponent and its sign (1 or -1), so that FLOAT is significand times 2 to the exponent, times sign."},
    {"SCALE-FLOAT", PK_CL, prim_scale_float, 2, 2, 0, "(float integer)", "FLOAT multiplied by 2 raised to INTEGER, computed exactly."},
    {"ASH", PK_CL, prim_ash, 2, 2, 0, "(integer count)", "INTEGER shifted left by COUNT bits (right when COUNT is negative), as arithmetic on two's-complement integers."},
    {"LOGAND", PK_CL, prim_logand, 0, REST, 0, "(&rest integers)", "The bitwise AND of INTEGERS (-1 when there are none)."},
    {"LOGIOR", PK_CL, prim_logior, 0, REST, 0, "(&rest integers)", "The bitwise inclusive OR of INTEGERS (0 when there are none)."},
    {"LOGXOR", PK_CL, prim_logxor, 0, REST, 0, "(&rest integers)", "The bitwise exclusive OR of INTEGERS (0 when there are none)."},
    {"LOGEQV", PK_CL, prim_logeqv, 0, REST, 0, "(&rest integers)", "The bitwise equivalence (complement of exclusive or) of INTEGERS (-1 when there are none)."},
    {"LOGNAND", PK_CL, prim_lognand, 2, 2, 0, "(integer1 integer2)", "The complement of the bitwise AND of INTEGER1 and INTEGER2."},
    {"LOGNOR", PK_CL, prim_lognor, 2, 2, 0, "(integer1 integer2)", "The complement of the bitwise OR of INTEGER1 and INTEGER2."},
    {"LOGANDC1", PK_CL, prim_logandc1, 2, 2, 0, "(integer1 integer2)", "The bitwise AND of the complement of INTEGER1 with INTEGER2."},
    {"LOGANDC2", PK_CL, prim_logandc2, 2, 2, 0, "(integer1 integer2)", "The bitwise AND of INTEGER1 with the complement of INTEGER2."},
    {"LOGORC1", PK_CL, prim_logorc1, 2, 2, 0, "(integer1 integer2)", "The bitwise OR of the complement of INTEGER1 with INTEGER2."},
    {"LOGORC2", PK_CL, prim_logorc2, 2, 2, 0, "(integer1 integer2)", "The bitwise OR of INTEGER1 with the complement of INTEGER2."},
    {"LOGNOT", PK_CL, prim_lognot, 1, 1, 0, "(integer)", "The bitwise complement of INTEGER, that is -INTEGER - 1."},
    {"LOGTEST", PK_CL, prim_logtest, 2, 2, 0, "(integer1 integer2)", "True when INTEGER1 and INTEGER2 have any one bit in common."},
    {"LOGBITP", PK_CL, prim_logbitp, 2, 2, 0, "(index integer)", "True when bit INDEX of INTEGER (in two's complement) is set."},
    {"LOGCOUNT", PK_CL, prim_logcount, 1, 1, 0, "(integer)", "The number of one bits in INTEGER, or of zero bits when it is negative."},
    {"INTEGER-LENGTH", PK_CL, prim_integer_length, 1, 1, 0, "(integer)", "The number of bits needed to hold INTEGER in two's complement, not counting the sign bit."},
    {"BOOLE", PK_CL, prim_boole, 3, 3, 0, "(op integer1 integer2)", "Applies the bitwise operation OP (one of the BOOLE-... constants) to INTEGER1 and INTEGER2."},
    {"BYTE", PK_CL, prim_byte, 2, 2, 0, "(size position)", "A byte specifier for SIZE bits starting at bit POSITION, for LDB, DPB and friends."},
    {"BYTE-SIZE", PK_CL, prim_byte_size, 1, 1, 0, "(bytespec)", "The number of bits in the byte specifier BYTESPEC."},
    {"BYTE-POSITION", PK_CL, prim_byte_position, 1, 1, 0, "(bytespec)", "The position of the lowest bit of the byte specifier BYTESPEC."},
    {"LDB", PK_CL, prim_ldb, 2, 2, 0, "(bytespec integer)", "The bits of INTEGER selected by BYTESPEC, shifted down to bit 0; SETF-able."},
    {"LDB-TEST", PK_CL, prim_ldb_test, 2, 2, 0, "(bytespec integer)", "True when any bit of INTEGER selected by BYTESPEC is set."},
    {"MASK-FIELD", PK_CL, prim_mask_field, 2, 2, 0, "(bytespec integer)", "INTEGER with every bit outside BYTESPEC cleared, the kept bits left in place; SETF-able."},
    {"DPB", PK_CL, prim_dpb, 3, 3, 0, "(newbyte bytespec integer)", "INTEGER with the bits selected by BYTESPEC replaced by the low bits of NEWBYTE."},
    {"DEPOSIT-FIELD", PK_CL, prim_deposit_field, 3, 3, 0, "(newbyte bytespec integer)", "INTEGER with the bits selected by BYTESPEC replaced by the same bits of NEWBYTE."},
    {"RANDOM", PK_CL, prim_random, 1, 2, 0, "(limit &optional random-state)", "A pseudo-random number of LIMIT's type, at least zero and below LIMIT (a positive integer or float), drawn from RANDOM-STATE."},
    {"MAKE-RANDOM-STATE", PK_CL, prim_make_random_state, 0, 1, 0, "(&optional state)", "A new random state: a copy of STATE, or of the current *RANDOM-STATE* when STATE is NIL or absent, or a freshly seeded one when STATE is T."},
    {"RANDOM-STATE-P", PK_CL, prim_random_state_p, 1, 1, 0, "(object)", "True when OBJECT is a random state."},
    {"%RANDOM-STATE-FROM-WORDS", PK_SYS, prim_pct_random_state_from_words, 4, 4, 0, "(w0 w1 w2 w3)", NULL},
    {"PARSE-INTEGER", PK_CL, prim_parse_integer, 1, REST, FN_MV, "(string &key start end radix junk-allowed)", "Reads an integer in base RADIX (default 10) from STRING between START and END, skipping surrounding whitespace; returns it and the index where parsing stopped. With JUNK-ALLOWED, stops at the first bad character and returns NIL when no digits were found instead of signalling."},
    {0},
};

static void defconst(Lisp *L, const char *name, Obj value) {
    Obj sym = intern_cstr(L, L->pkg_cl, name);
    SYM(sym)->value = value;
    SYM(sym)->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
}

/* documentation of the constants and variables number_init defines (docs.h) */
const DocRow number_variable_docs[] = {
    {"MOST-POSITIVE-FIXNUM", "The largest fixnum, 2 to the power 62 minus 1 in tinycl; larger integers are bignums."},
    {"MOST-NEGATIVE-FIXNUM", "The smallest fixnum, minus 2 to the power 62 in tinycl."},
    {"PI", "The double-float nearest to pi, the ratio of a circle's circumference to its diameter."},
    {"MOST-POSITIVE-SHORT-FLOAT", "The largest finite short-float (the same as single-float in tinycl)."},
    {"MOST-NEGATIVE-SHORT-FLOAT", "The most negative finite short-float (the same as single-float in tinycl)."},
    {"LEAST-POSITIVE-SHORT-FLOAT", "The smallest positive short-float (the same as single-float in tinycl), a denormal."},
    {"LEAST-NEGATIVE-SHORT-FLOAT", "The negative short-float (the same as single-float in tinycl) closest to zero, a denormal."},
    {"LEAST-POSITIVE-NORMALIZED-SHORT-FLOAT", "The smallest positive normalized short-float (the same as single-float in tinycl)."},
    {"LEAST-NEGATIVE-NORMALIZED-SHORT-FLOAT", "The negative normalized short-float (the same as single-float in tinycl) closest to zero."},
    {"SHORT-FLOAT-EPSILON", "The smallest positive short-float (the same as single-float in tinycl) e such that (+ 1 e) differs from 1."},
    {"SHORT-FLOAT-NEGATIVE-EPSILON", "The smallest positive short-float (the same as single-float in tinycl) e such that (- 1 e) differs from 1."},
    {"MOST-POSITIVE-SINGLE-FLOAT", "The largest finite single-float."},
    {"MOST-NEGATIVE-SINGLE-FLOAT", "The most negative finite single-float."},
    {"LEAST-POSITIVE-SINGLE-FLOAT", "The smallest positive single-float, a denormal."},
    {"LEAST-NEGATIVE-SINGLE-FLOAT", "The negative single-float closest to zero, a denormal."},
    {"LEAST-POSITIVE-NORMALIZED-SINGLE-FLOAT", "The smallest positive normalized single-float."},
    {"LEAST-NEGATIVE-NORMALIZED-SINGLE-FLOAT", "The negative normalized single-float closest to zero."},
    {"SINGLE-FLOAT-EPSILON", "The smallest positive single-float e such that (+ 1 e) differs from 1."},
    {"SINGLE-FLOAT-NEGATIVE-EPSILON", "The smallest positive single-float e such that (- 1 e) differs from 1."},
    {"MOST-POSITIVE-DOUBLE-FLOAT", "The largest finite double-float."},
    {"MOST-NEGATIVE-DOUBLE-FLOAT", "The most negative finite double-float."},
    {"LEAST-POSITIVE-DOUBLE-FLOAT", "The smallest positive double-float, a denormal."},
    {"LEAST-NEGATIVE-DOUBLE-FLOAT", "The negative double-float closest to zero, a denormal."},
    {"LEAST-POSITIVE-NORMALIZED-DOUBLE-FLOAT", "The smallest positive normalized double-float."},
    {"LEAST-NEGATIVE-NORMALIZED-DOUBLE-FLOAT", "The negative normalized double-float closest to zero."},
    {"DOUBLE-FLOAT-EPSILON", "The smallest positive double-float e such that (+ 1 e) differs from 1."},
    {"DOUBLE-FLOAT-NEGATIVE-EPSILON", "The smallest positive double-float e such that (- 1 e) differs from 1."},
    {"MOST-POSITIVE-LONG-FLOAT", "The largest finite long-float (the same as double-float in tinycl)."},
    {"MOST-NEGATIVE-LONG-FLOAT", "The most negative finite long-float (the same as double-float in tinycl)."},
    {"LEAST-POSITIVE-LONG-FLOAT", "The smallest positive long-float (the same as double-float in tinycl), a denormal."},
    {"LEAST-NEGATIVE-LONG-FLOAT", "The negative long-float (the same as double-float in tinycl) closest to zero, a denormal."},
    {"LEAST-POSITIVE-NORMALIZED-LONG-FLOAT", "The smallest positive normalized long-float (the same as double-float in tinycl)."},
    {"LEAST-NEGATIVE-NORMALIZED-LONG-FLOAT", "The negative normalized long-float (the same as double-float in tinycl) closest to zero."},
    {"LONG-FLOAT-EPSILON", "The smallest positive long-float (the same as double-float in tinycl) e such that (+ 1 e) differs from 1."},
    {"LONG-FLOAT-NEGATIVE-EPSILON", "The smallest positive long-float (the same as double-float in tinycl) e such that (- 1 e) differs from 1."},
    {"BOOLE-CLR", "The BOOLE operation that ignores both integers and gives 0."},
    {"BOOLE-SET", "The BOOLE operation that ignores both integers and gives -1 (all bits set)."},
    {"BOOLE-1", "The BOOLE operation that gives the first integer."},
    {"BOOLE-2", "The BOOLE operation that gives the second integer."},
    {"BOOLE-C1", "The BOOLE operation that gives the complement of the first integer."},
    {"BOOLE-C2", "The BOOLE operation that gives the complement of the second integer."},
    {"BOOLE-AND", "The BOOLE operation that gives the bitwise AND of the integers."},
    {"BOOLE-IOR", "The BOOLE operation that gives the bitwise inclusive OR of the integers."},
    {"BOOLE-XOR", "The BOOLE operation that gives the bitwise exclusive OR of the integers."},
    {"BOOLE-EQV", "The BOOLE operation that gives the bitwise equivalence (complement of exclusive OR) of the integers."},
    {"BOOLE-NAND", "The BOOLE operation that gives the complement of the bitwise AND of the integers."},
    {"BOOLE-NOR", "The BOOLE operation that gives the complement of the bitwise OR of the integers."},
    {"BOOLE-ANDC1", "The BOOLE operation that gives the AND of the complement of the first integer with the second."},
    {"BOOLE-ANDC2", "The BOOLE operation that gives the AND of the first integer with the complement of the second."},
    {"BOOLE-ORC1", "The BOOLE operation that gives the OR of the complement of the first integer with the second."},
    {"BOOLE-ORC2", "The BOOLE operation that gives the OR of the first integer with the complement of the second."},
    {"*RANDOM-STATE*", "The random state RANDOM uses when it is given none."},
    {0},
};

void number_init(Lisp *L) {
    prims_register(L, number_prims);
    defconst(L, "MOST-POSITIVE-FIXNUM", FIX(MOST_POSITIVE_FIXNUM));
    defconst(L, "MOST-NEGATIVE-FIXNUM", FIX(MOST_NEGATIVE_FIXNUM));
    SYM(S(PI_CONST))->value = make_double(L, M_PI);
    SYM(S(PI_CONST))->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
    static const char *const fmts[] = {"SHORT", "SINGLE", "DOUBLE", "LONG"};
    char name[64];
    for (int i = 0; i < 4; i++) {
        bool single = i < 2;
        double vals[] = {single ? FLT_MAX : DBL_MAX, single ? 0x1p-149 : 0x1p-1074, single ? FLT_MIN : DBL_MIN,
                         single ? 0x1p-24 * (1 + 0x1p-23) : 0x1p-53 * (1 + 0x1p-52),
                         single ? 0x1p-25 * (1 + 0x1p-23) : 0x1p-54 * (1 + 0x1p-52)};
        const char *names[] = {"MOST-POSITIVE-%s-FLOAT", "LEAST-POSITIVE-%s-FLOAT", "LEAST-POSITIVE-NORMALIZED-%s-FLOAT",
                               "%s-FLOAT-EPSILON", "%s-FLOAT-NEGATIVE-EPSILON"};
        const char *negs[] = {"MOST-NEGATIVE-%s-FLOAT", "LEAST-NEGATIVE-%s-FLOAT", "LEAST-NEGATIVE-NORMALIZED-%s-FLOAT"};
        for (int j = 0; j < 5; j++) {
            snprintf(name, sizeof name, names[j], fmts[i]);
            defconst(L, name, single ? make_single((float)vals[j]) : make_double(L, vals[j]));
            if (j < 3) {
                snprintf(name, sizeof name, negs[j], fmts[i]);
                defconst(L, name, single ? make_single(-(float)vals[j]) : make_double(L, -vals[j]));
            }
        }
    }
    static const char *const booles[] = {"BOOLE-CLR", "BOOLE-SET", "BOOLE-1", "BOOLE-2", "BOOLE-C1", "BOOLE-C2",
                                         "BOOLE-AND", "BOOLE-IOR", "BOOLE-XOR", "BOOLE-EQV", "BOOLE-NAND",
                                         "BOOLE-NOR", "BOOLE-ANDC1", "BOOLE-ANDC2", "BOOLE-ORC1", "BOOLE-ORC2"};
    for (int i = 0; i < 16; i++) defconst(L, booles[i], FIX(i));
    Obj rs = S(RANDOM_STATE_VAR);
    SYM(rs)->value = new_random_state(L, 0x7469e7963c1b0d2bull);
    SYM(rs)->h.flags |= SYM_SPECIAL;
}
