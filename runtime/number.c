/* number.c: the numeric tower core: representation, contagion, arithmetic, comparison, reading and printing numbers. */
#include "number.h"
#include "prim.h"
#include "lstring.h"
#include "package.h"
#include "eval.h"
#include <math.h>
#include <stdlib.h>
#include <stdio.h>

/* ---- construction ---- */

Obj make_double(Lisp *L, double d) {
    Double *o = (Double *)heap_alloc(L, T_DOUBLE, sizeof(Double));
    o->d = d;
    return (Obj)o;
}

static Obj bignum_alloc(Lisp *L) {
    Bignum *b = (Bignum *)heap_alloc(L, T_BIGNUM, sizeof(Bignum));
    mpz_init(b->z);
    return (Obj)b;
}

Obj make_bignum_from_mpz(Lisp *L, const mpz_t z) {
    if (mpz_fits_slong_p(z)) {
        long v = mpz_get_si(z);
        if (fixnum_fits(v)) return FIX(v);
    }
    Obj b = bignum_alloc(L);
    mpz_set(BIG(b), z);
    return b;
}

Obj make_int64(Lisp *L, int64_t v) {
    if (fixnum_fits((intptr_t)v)) return FIX((intptr_t)v);
    Obj b = bignum_alloc(L);
    mpz_set_si(BIG(b), (long)v);
    return b;
}

Obj make_uint64(Lisp *L, uint64_t v) {
    if (v <= (uint64_t)MOST_POSITIVE_FIXNUM) return FIX((intptr_t)v);
    Obj b = bignum_alloc(L);
    mpz_set_ui(BIG(b), (unsigned long)v);
    return b;
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

static Obj integer_gcd(Lisp *L, Obj a, Obj b) {
    mpz_t x, y;
    mpz_init(x); mpz_init(y);
    integer_to_mpz(a, x);
    integer_to_mpz(b, y);
    mpz_gcd(x, x, y);
    Obj r = make_bignum_from_mpz(L, x);
    mpz_clear(x); mpz_clear(y);
    return r;
}

static Obj int_neg(Lisp *L, Obj a);
static Obj int_div_exact(Lisp *L, Obj a, Obj b);

Obj make_ratio(Lisp *L, Obj num, Obj den) {
    if (num_compare(L, den, FIX(0)) < 0) {
        num = int_neg(L, num);
        den = int_neg(L, den);
    }
    Obj g = integer_gcd(L, num, den);
    if (g != FIX(1)) {
        num = int_div_exact(L, num, g);
        den = int_div_exact(L, den, g);
    }
    if (den == FIX(1)) return num;
    Ratio *r = (Ratio *)heap_alloc(L, T_RATIO, sizeof(Ratio));
    r->num = num;
    r->den = den;
    return (Obj)r;
}

double number_to_double(Lisp *L, Obj o) {
    if (is_fixnum(o)) return (double)fixnum_val(o);
    if (is_single(o)) return (double)single_val(o);
    if (is_double(o)) return DBL(o);
    if (is_bignum(o)) return mpz_get_d(BIG(o));
    if (is_ratio(o)) {
        mpq_t q;
        mpq_init(q);
        integer_to_mpz(RATIO(o)->num, mpq_numref(q));
        integer_to_mpz(RATIO(o)->den, mpq_denref(q));
        double d = mpq_get_d(q);
        mpq_clear(q);
        return d;
    }
    err_type(L, o, S(REAL));
}

/* ---- integer arithmetic ---- */

typedef void (*MpzOp)(mpz_ptr, mpz_srcptr, mpz_srcptr);

static Obj int_binop(Lisp *L, Obj a, Obj b, MpzOp op) {
    mpz_t x, y;
    mpz_init(x); mpz_init(y);
    integer_to_mpz(a, x);
    integer_to_mpz(b, y);
    op(x, x, y);
    Obj r = make_bignum_from_mpz(L, x);
    mpz_clear(x); mpz_clear(y);
    return r;
}

static Obj int_neg(Lisp *L, Obj a) {
    if (is_fixnum(a) && fixnum_val(a) != MOST_NEGATIVE_FIXNUM) return FIX(-fixnum_val(a));
    return int_binop(L, FIX(0), a, mpz_sub);
}

static Obj int_div_exact(Lisp *L, Obj a, Obj b) {
    if (is_fixnum(a) && is_fixnum(b)) return FIX(fixnum_val(a) / fixnum_val(b));
    return int_binop(L, a, b, mpz_divexact);
}

static int int_compare(Obj a, Obj b) {
    if (is_fixnum(a) && is_fixnum(b)) return (fixnum_val(a) > fixnum_val(b)) - (fixnum_val(a) < fixnum_val(b));
    mpz_t x, y;
    mpz_init(x); mpz_init(y);
    integer_to_mpz(a, x);
    integer_to_mpz(b, y);
    int c = mpz_cmp(x, y);
    mpz_clear(x); mpz_clear(y);
    return (c > 0) - (c < 0);
}

/* ---- generic arithmetic (reals; complexes are handled by the full tower) ---- */

enum { K_INT, K_RATIO, K_SINGLE, K_DOUBLE, K_COMPLEX };

static int kind(Lisp *L, Obj o) {
    if (is_fixnum(o) || is_bignum(o)) return K_INT;
    if (is_single(o)) return K_SINGLE;
    if (is_double(o)) return K_DOUBLE;
    if (is_ratio(o)) return K_RATIO;
    if (is_type(o, T_COMPLEX)) return K_COMPLEX;
    err_type(L, o, S(NUMBER));
}

static Obj ratio_num(Obj o) { return is_ratio(o) ? RATIO(o)->num : o; }
static Obj ratio_den(Obj o) { return is_ratio(o) ? RATIO(o)->den : FIX(1); }

static Obj float_result(Lisp *L, int k, double d) {
    if (k == K_SINGLE) return make_single((float)d);
    return make_double(L, d);
}

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV } ArithOp;

static Obj arith(Lisp *L, ArithOp op, Obj a, Obj b) {
    int ka = kind(L, a), kb = kind(L, b);
    if (ka == K_COMPLEX || kb == K_COMPLEX) {
        Obj fn = SYM(intern_cstr(L, L->pkg_system, "%COMPLEX-ARITH"))->function;
        if (!is_function(fn)) err_type(L, ka == K_COMPLEX ? a : b, S(REAL));
        Obj opsym = FIX(op);
        Obj v[3] = {opsym, a, b};
        return funcall(L, fn, 3, v);
    }
    int k = ka > kb ? ka : kb;
    if (k == K_INT) {
        switch (op) {
        case OP_ADD: return int_binop(L, a, b, mpz_add);
        case OP_SUB: return int_binop(L, a, b, mpz_sub);
        case OP_MUL: return int_binop(L, a, b, mpz_mul);
        case OP_DIV:
            if (b == FIX(0)) err_division_by_zero(L, S(REPL_SLASH), cons(L, a, cons(L, b, NIL)));
            return make_ratio(L, a, b);
        }
    }
    if (k == K_RATIO) {
        Obj an = ratio_num(a), ad = ratio_den(a), bn = ratio_num(b), bd = ratio_den(b);
        switch (op) {
        case OP_ADD: return make_ratio(L, arith(L, OP_ADD, arith(L, OP_MUL, an, bd), arith(L, OP_MUL, bn, ad)), arith(L, OP_MUL, ad, bd));
        case OP_SUB: return make_ratio(L, arith(L, OP_SUB, arith(L, OP_MUL, an, bd), arith(L, OP_MUL, bn, ad)), arith(L, OP_MUL, ad, bd));
        case OP_MUL: return make_ratio(L, arith(L, OP_MUL, an, bn), arith(L, OP_MUL, ad, bd));
        case OP_DIV:
            if (bn == FIX(0)) err_division_by_zero(L, S(REPL_SLASH), cons(L, a, cons(L, b, NIL)));
            return make_ratio(L, arith(L, OP_MUL, an, bd), arith(L, OP_MUL, ad, bn));
        }
    }
    double x = number_to_double(L, a), y = number_to_double(L, b), r = 0;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV:
        if (y == 0) err_division_by_zero(L, S(REPL_SLASH), cons(L, a, cons(L, b, NIL)));
        r = x / y;
        break;
    }
    if (isinf(r) && !isinf(x) && !isinf(y))
        err_arith(L, S(FLOATING_POINT_OVERFLOW), S(REPL_SLASH), cons(L, a, cons(L, b, NIL)));
    if (k == K_SINGLE && isinf((float)r) && !isinf(r))
        err_arith(L, S(FLOATING_POINT_OVERFLOW), S(REPL_SLASH), cons(L, a, cons(L, b, NIL)));
    return float_result(L, k, r);
}

Obj num_add(Lisp *L, Obj a, Obj b) {
    intptr_t r;
    if (LIKELY(is_fixnum(a) && is_fixnum(b)) && !__builtin_add_overflow((intptr_t)WORD(a) - 1, (intptr_t)WORD(b), &r))
        return OBJ(r);
    return arith(L, OP_ADD, a, b);
}

Obj num_sub(Lisp *L, Obj a, Obj b) {
    intptr_t r;
    if (LIKELY(is_fixnum(a) && is_fixnum(b)) && !__builtin_sub_overflow((intptr_t)WORD(a), (intptr_t)WORD(b) - 1, &r))
        return OBJ(r);
    return arith(L, OP_SUB, a, b);
}

Obj num_mul(Lisp *L, Obj a, Obj b) {
    intptr_t r;
    if (LIKELY(is_fixnum(a) && is_fixnum(b)) && !__builtin_mul_overflow(fixnum_val(a), fixnum_val(b), &r) && fixnum_fits(r))
        return FIX(r);
    return arith(L, OP_MUL, a, b);
}

Obj num_div(Lisp *L, Obj a, Obj b) { return arith(L, OP_DIV, a, b); }

Obj num_negate(Lisp *L, Obj a) { return num_sub(L, FIX(0), a); }

int num_compare(Lisp *L, Obj a, Obj b) {
    if (is_fixnum(a) && is_fixnum(b)) return (fixnum_val(a) > fixnum_val(b)) - (fixnum_val(a) < fixnum_val(b));
    int ka = kind(L, a), kb = kind(L, b);
    if (ka == K_COMPLEX) err_type(L, a, S(REAL));
    if (kb == K_COMPLEX) err_type(L, b, S(REAL));
    if (ka == K_INT && kb == K_INT) return int_compare(a, b);
    if (ka <= K_RATIO && kb <= K_RATIO) {
        Obj l = arith(L, OP_MUL, ratio_num(a), ratio_den(b));
        Obj r = arith(L, OP_MUL, ratio_num(b), ratio_den(a));
        return int_compare(l, r);
    }
    /* a float is compared exactly, as the rational it denotes */
    double x = number_to_double(L, a), y = number_to_double(L, b);
    if ((ka >= K_SINGLE) && (kb >= K_SINGLE)) return (x > y) - (x < y);
    if (isinf(x) || isinf(y) || isnan(x) || isnan(y)) return (x > y) - (x < y);
    /* mixed exact/float: convert the float to an exact rational via GMP */
    mpq_t p, q;
    mpq_init(p); mpq_init(q);
    if (ka >= K_SINGLE) mpq_set_d(p, x);
    else { integer_to_mpz(ratio_num(a), mpq_numref(p)); integer_to_mpz(ratio_den(a), mpq_denref(p)); mpq_canonicalize(p); }
    if (kb >= K_SINGLE) mpq_set_d(q, y);
    else { integer_to_mpz(ratio_num(b), mpq_numref(q)); integer_to_mpz(ratio_den(b), mpq_denref(q)); mpq_canonicalize(q); }
    int c = mpq_cmp(p, q);
    mpq_clear(p); mpq_clear(q);
    return (c > 0) - (c < 0);
}

bool num_equal(Lisp *L, Obj a, Obj b) {
    if (is_type(a, T_COMPLEX) || is_type(b, T_COMPLEX)) {
        Obj ar = is_type(a, T_COMPLEX) ? CPLX(a)->re : a, ai = is_type(a, T_COMPLEX) ? CPLX(a)->im : FIX(0);
        Obj br = is_type(b, T_COMPLEX) ? CPLX(b)->re : b, bi = is_type(b, T_COMPLEX) ? CPLX(b)->im : FIX(0);
        return num_compare(L, ar, br) == 0 && num_compare(L, ai, bi) == 0;
    }
    return num_compare(L, a, b) == 0;
}

bool num_zerop(Lisp *L, Obj a) {
    if (is_fixnum(a)) return a == FIX(0);
    return num_equal(L, a, FIX(0));
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
    /* = across types: hash integral values as integers, others by their double value */
    if (is_type(o, T_COMPLEX)) {
        if (num_zerop(L, CPLX(o)->im)) return num_hash_equalp(L, CPLX(o)->re);
        return hmix(num_hash_equalp(L, CPLX(o)->re) ^ 0x77);
    }
    if (is_integer(o)) return num_hash(o);
    double d = number_to_double(L, o);
    if (d == floor(d) && fabs(d) < 9.2e18) return num_hash(make_int64(L, (int64_t)d));
    if (d == 0) return num_hash(FIX(0));
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return hmix(bits);
}

/* ---- printing ---- */

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
    char *buf = (char *)gc_alloc_atomic(L, n_chars);
    mpz_get_str(buf, -base, BIG(n));
    sb_puts(L, out, buf);
}

/* Shortest decimal digits that read back as the same float; returns digits and exponent
 * such that value = 0.DIGITS * 10^exp. */
static void shortest_digits(double d, bool single, char *digits, int *exp10) {
    char buf[64];
    int maxp = single ? 9 : 17;
    for (int p = 1; p <= maxp; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, d);
        bool ok = single ? (float)strtod(buf, NULL) == (float)d && strtof(buf, NULL) == (float)d : strtod(buf, NULL) == d;
        if (ok || p == maxp) break;
    }
    /* buf: d.ddddde[+-]xx */
    int k = 0;
    char *p = buf;
    if (*p == '-') p++;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[k++] = *p;
    while (k > 1 && digits[k - 1] == '0') k--;
    digits[k] = 0;
    *exp10 = atoi(p + 1) + 1;
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
        if (!is_default) { sb_putc(L, out, (uint32_t)marker); sb_putc(L, out, '0'); }
        return;
    }
    char digits[40];
    int e;
    shortest_digits(d, single, digits, &e);
    int nd = (int)strlen(digits);
    if (d >= 1e-3 && d < 1e7) {
        if (e <= 0) {
            sb_puts(L, out, "0.");
            for (int i = 0; i < -e; i++) sb_putc(L, out, '0');
            sb_puts(L, out, digits);
        } else {
            for (int i = 0; i < e; i++) sb_putc(L, out, (uint32_t)(i < nd ? digits[i] : '0'));
            sb_putc(L, out, '.');
            if (e < nd) sb_puts(L, out, digits + e);
            else sb_putc(L, out, '0');
        }
        if (!is_default) { sb_putc(L, out, (uint32_t)marker); sb_putc(L, out, '0'); }
        return;
    }
    sb_putc(L, out, (uint32_t)digits[0]);
    sb_putc(L, out, '.');
    if (nd > 1) sb_puts(L, out, digits + 1);
    else sb_putc(L, out, '0');
    char eb[16];
    snprintf(eb, sizeof eb, "%c%d", is_default ? 'e' : marker, e - 1);
    sb_puts(L, out, eb);
}

void number_print(Lisp *L, Obj n, StrBuf *out, int base, bool radix) {
    if (is_integer(n)) {
        if (radix) {
            if (base == 10) { print_integer(L, n, out, 10); sb_putc(L, out, '.'); return; }
            char pre[8];
            if (base == 2) strcpy(pre, "#b");
            else if (base == 8) strcpy(pre, "#o");
            else if (base == 16) strcpy(pre, "#x");
            else snprintf(pre, sizeof pre, "#%dr", base);
            sb_puts(L, out, pre);
        }
        print_integer(L, n, out, base);
        return;
    }
    if (is_ratio(n)) {
        if (radix) {
            char pre[8];
            if (base == 2) strcpy(pre, "#b");
            else if (base == 8) strcpy(pre, "#o");
            else if (base == 16) strcpy(pre, "#x");
            else snprintf(pre, sizeof pre, "#%dr", base);
            sb_puts(L, out, pre);
        }
        print_integer(L, RATIO(n)->num, out, base);
        sb_putc(L, out, '/');
        print_integer(L, RATIO(n)->den, out, base);
        return;
    }
    if (is_single(n)) { print_float(L, (double)single_val(n), true, out); return; }
    if (is_double(n)) { print_float(L, DBL(n), false, out); return; }
    if (is_type(n, T_COMPLEX)) {
        sb_puts(L, out, "#C(");
        number_print(L, CPLX(n)->re, out, base, radix);
        sb_putc(L, out, ' ');
        number_print(L, CPLX(n)->im, out, base, radix);
        sb_putc(L, out, ')');
    }
}

/* ---- parsing ---- */

static int digit_value(uint32_t c, int base) {
    int v;
    if (c >= '0' && c <= '9') v = (int)(c - '0');
    else if (c >= 'a' && c <= 'z') v = (int)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'Z') v = (int)(c - 'A' + 10);
    else return -1;
    return v < base ? v : -1;
}

static Obj parse_integer_digits(Lisp *L, const uint32_t *s, size_t n, int base, bool neg) {
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
    mpz_set_str(z, buf, base);
    Obj r = make_bignum_from_mpz(L, z);
    mpz_clear(z);
    return r;
}

static bool is_exp_marker(uint32_t c) {
    c |= 0x20;
    return c == 'e' || c == 's' || c == 'f' || c == 'd' || c == 'l';
}

bool number_parse_token(Lisp *L, const uint32_t *s, size_t n, int base, Obj *out) {
    if (n == 0) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '+' || s[0] == '-') { neg = s[0] == '-'; i = 1; }
    if (i == n) return false;
    /* integer in base, or decimal integer with trailing point */
    size_t j = i;
    while (j < n && digit_value(s[j], base) >= 0) j++;
    if (j == n && j > i) { *out = parse_integer_digits(L, s + i, j - i, base, neg); return true; }
    size_t k = i;
    while (k < n && digit_value(s[k], 10) >= 0) k++;
    if (k == n - 1 && k > i && s[k] == '.') { *out = parse_integer_digits(L, s + i, k - i, 10, neg); return true; }
    /* ratio */
    if (j > i && j < n && s[j] == '/') {
        size_t m = j + 1;
        while (m < n && digit_value(s[m], base) >= 0) m++;
        if (m == n && m > j + 1) {
            Obj num = parse_integer_digits(L, s + i, j - i, base, neg);
            Obj den = parse_integer_digits(L, s + j + 1, m - j - 1, base, false);
            if (den == FIX(0)) err_division_by_zero(L, S(REPL_SLASH), cons(L, num, cons(L, den, NIL)));
            *out = make_ratio(L, num, den);
            return true;
        }
    }
    /* float: digits* [. digits*] [marker sign? digits+], with at least one digit and a point or exponent */
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
        marker = s[p] | 0x20;
        p++;
        if (p < n && (s[p] == '+' || s[p] == '-')) p++;
        size_t ed = 0;
        while (p < n && s[p] >= '0' && s[p] <= '9') { p++; ed++; }
        if (ed == 0 || p != n) return false;
    } else if (!point || frac_digits == 0) {
        return false;
    }
    char *buf = (char *)gc_alloc_atomic(L, n + 2);
    for (size_t q = 0; q < n; q++) buf[q] = is_exp_marker(s[q]) && q > i ? 'e' : (char)s[q];
    buf[n] = 0;
    bool single;
    if (marker == 0 || marker == 'e') {
        Obj d = SYM(S(READ_DEFAULT_FLOAT_FORMAT))->value;
        single = !(d == S(DOUBLE_FLOAT) || d == S(LONG_FLOAT));
    } else single = marker == 's' || marker == 'f';
    if (single) {
        float f = strtof(buf, NULL);
        if (isinf(f)) err_reader(L, NIL, "floating-point-overflow reading %s", buf);
        *out = make_single(f);
    } else {
        double d = strtod(buf, NULL);
        if (isinf(d)) err_reader(L, NIL, "floating-point-overflow reading %s", buf);
        *out = make_double(L, d);
    }
    return true;
}

/* ---- primitives ---- */

DEFPRIM(prim_plus) {
    Obj r = FIX(0);
    for (int i = 0; i < nargs; i++) r = num_add(L, r, check_number(L, args[i]));
    return r;
}

DEFPRIM(prim_minus) {
    if (nargs == 1) return num_negate(L, check_number(L, args[0]));
    Obj r = check_number(L, args[0]);
    for (int i = 1; i < nargs; i++) r = num_sub(L, r, check_number(L, args[i]));
    return r;
}

DEFPRIM(prim_star) {
    Obj r = FIX(1);
    for (int i = 0; i < nargs; i++) r = num_mul(L, r, check_number(L, args[i]));
    return r;
}

DEFPRIM(prim_slash) {
    if (nargs == 1) return num_div(L, FIX(1), check_number(L, args[0]));
    Obj r = check_number(L, args[0]);
    for (int i = 1; i < nargs; i++) r = num_div(L, r, check_number(L, args[i]));
    return r;
}

#define COMPARE_PRIM(cname, test)                                   \
    DEFPRIM(cname) {                                                \
        for (int i = 0; i < nargs; i++) check_real(L, args[i]);     \
        for (int i = 0; i + 1 < nargs; i++) {                       \
            int c = num_compare(L, args[i], args[i + 1]);           \
            if (!(test)) return NIL;                                \
        }                                                           \
        return S(T);                                                \
    }
COMPARE_PRIM(prim_lt, c < 0)
COMPARE_PRIM(prim_gt, c > 0)
COMPARE_PRIM(prim_le, c <= 0)
COMPARE_PRIM(prim_ge, c >= 0)

DEFPRIM(prim_num_eq) {
    for (int i = 0; i < nargs; i++) check_number(L, args[i]);
    for (int i = 0; i + 1 < nargs; i++)
        if (!num_equal(L, args[i], args[i + 1])) return NIL;
    return S(T);
}

DEFPRIM(prim_num_ne) {
    for (int i = 0; i < nargs; i++) check_number(L, args[i]);
    for (int i = 0; i < nargs; i++)
        for (int j = i + 1; j < nargs; j++)
            if (num_equal(L, args[i], args[j])) return NIL;
    return S(T);
}

DEFPRIM(prim_one_plus) { UNUSED_ARGS; return num_add(L, check_number(L, args[0]), FIX(1)); }
DEFPRIM(prim_one_minus) { UNUSED_ARGS; return num_sub(L, check_number(L, args[0]), FIX(1)); }
DEFPRIM(prim_zerop) { UNUSED_ARGS; return boolean(L, num_zerop(L, check_number(L, args[0]))); }
DEFPRIM(prim_plusp) { UNUSED_ARGS; return boolean(L, num_compare(L, check_real(L, args[0]), FIX(0)) > 0); }
DEFPRIM(prim_minusp) { UNUSED_ARGS; return boolean(L, num_compare(L, check_real(L, args[0]), FIX(0)) < 0); }
DEFPRIM(prim_numberp) { UNUSED_ARGS; return boolean(L, is_number(args[0])); }
DEFPRIM(prim_integerp) { UNUSED_ARGS; return boolean(L, is_integer(args[0])); }
DEFPRIM(prim_rationalp) { UNUSED_ARGS; return boolean(L, is_rational(args[0])); }
DEFPRIM(prim_floatp) { UNUSED_ARGS; return boolean(L, is_float(args[0])); }
DEFPRIM(prim_realp) { UNUSED_ARGS; return boolean(L, is_real(args[0])); }

static const PrimDef number_prims[] = {
    {"+", PK_CL, prim_plus, 0, REST, 0, "(&rest numbers)", "Sum of NUMBERS."},
    {"-", PK_CL, prim_minus, 1, REST, 0, "(number &rest more-numbers)", "Difference, or negation of one number."},
    {"*", PK_CL, prim_star, 0, REST, 0, "(&rest numbers)", "Product of NUMBERS."},
    {"/", PK_CL, prim_slash, 1, REST, 0, "(number &rest more-numbers)", "Quotient, or reciprocal of one number."},
    {"<", PK_CL, prim_lt, 1, REST, 0, "(number &rest more-numbers)", NULL},
    {">", PK_CL, prim_gt, 1, REST, 0, "(number &rest more-numbers)", NULL},
    {"<=", PK_CL, prim_le, 1, REST, 0, "(number &rest more-numbers)", NULL},
    {">=", PK_CL, prim_ge, 1, REST, 0, "(number &rest more-numbers)", NULL},
    {"=", PK_CL, prim_num_eq, 1, REST, 0, "(number &rest more-numbers)", NULL},
    {"/=", PK_CL, prim_num_ne, 1, REST, 0, "(number &rest more-numbers)", NULL},
    {"1+", PK_CL, prim_one_plus, 1, 1, 0, "(number)", NULL},
    {"1-", PK_CL, prim_one_minus, 1, 1, 0, "(number)", NULL},
    {"ZEROP", PK_CL, prim_zerop, 1, 1, 0, "(number)", NULL},
    {"PLUSP", PK_CL, prim_plusp, 1, 1, 0, "(real)", NULL},
    {"MINUSP", PK_CL, prim_minusp, 1, 1, 0, "(real)", NULL},
    {"NUMBERP", PK_CL, prim_numberp, 1, 1, 0, "(object)", NULL},
    {"INTEGERP", PK_CL, prim_integerp, 1, 1, 0, "(object)", NULL},
    {"RATIONALP", PK_CL, prim_rationalp, 1, 1, 0, "(object)", NULL},
    {"FLOATP", PK_CL, prim_floatp, 1, 1, 0, "(object)", NULL},
    {"REALP", PK_CL, prim_realp, 1, 1, 0, "(object)", NULL},
    {0},
};

void number_init(Lisp *L) { prims_register(L, number_prims); }
