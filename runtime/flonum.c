/* flonum.c: the one float-to-decimal digit generator, shared by the printer (shortest digits
 * that read back as the same float) and FORMAT's ~F ~E ~G ~$ (digits rounded at a position).
 * Burger and Dybvig's algorithm with Steele and White's fixed-format extension, as SBCL's
 * FLONUM-TO-DIGITS runs it, in exact (GMP) arithmetic. */
#include "number.h"
#include "gc.h"
#include <gmp.h>
#include <math.h>
#include <string.h>

static void mpz_mul_10(mpz_t z) { mpz_mul_ui(z, z, 10); }

/* The significand and exponent of the positive or zero float V, V = F * 2^E, as SBCL's
 * INTEGER-DECODE-FLOAT gives them, with a denormal's significand shifted up to full precision
 * (the digit algorithm then treats it as a normal float with a smaller exponent). */
static uint64_t flonum_decode(double v, bool single, long *e_out) {
    int p = single ? 24 : 53;
    uint64_t f;
    long e;
    if (v == 0) {
        *e_out = -p;
        return 0;
    }
    if (single) {
        float x = (float)v;
        uint32_t bits;
        memcpy(&bits, &x, 4);
        int ef = (int)((bits >> 23) & 0xff);
        f = bits & 0x7fffff;
        if (ef) { f |= 0x800000; e = ef - 150; } else e = -149;
    } else {
        uint64_t bits;
        memcpy(&bits, &v, 8);
        int ef = (int)((bits >> 52) & 0x7ff);
        f = bits & 0xfffffffffffffull;
        if (ef) { f |= 1ull << 52; e = ef - 1075; } else e = -1074;
    }
    while (f < (1ull << (p - 1))) { f <<= 1; e--; }
    *e_out = e;
    return f;
}


char *flonum_digits(Lisp *L, double v, bool single, bool has_pos, long position, bool relative, long *k_out) {
    int p = single ? 24 : 53;
    long e;
    uint64_t fbits = flonum_decode(v, single, &e);
    mpz_t f, r, s, mp, mm, t, u;
    mpz_inits(f, r, s, mp, mm, t, u, NULL);
    mpz_set_ui(f, fbits);
    bool high_ok = (fbits & 1) == 0, low_ok = high_ok;
    /* a power of two has a gap below it half the one above, except at SBCL's MIN-E (one below the
     * least normalized exponent, so never met: SBCL prints the least normalized float so) */
    bool at_boundary = fbits == (uint64_t)1 << (p - 1);
    long min_e = single ? -150 : -1075;
    if (e >= 0) {
        mpz_ui_pow_ui(t, 2, (unsigned long)e); /* be */
        if (!at_boundary) {
            mpz_mul(r, f, t);
            mpz_mul_2exp(r, r, 1);
            mpz_set_ui(s, 2);
            mpz_set(mp, t);
            mpz_set(mm, t);
        } else {
            mpz_set(mm, t);
            mpz_mul_2exp(mp, t, 1);
            mpz_mul(r, f, mp);
            mpz_mul_2exp(r, r, 1);
            mpz_set_ui(s, 4);
        }
    } else if (e == min_e || !at_boundary) {
        mpz_mul_2exp(r, f, 1);
        mpz_ui_pow_ui(s, 2, (unsigned long)(1 - e));
        mpz_set_ui(mp, 1);
        mpz_set_ui(mm, 1);
    } else {
        mpz_mul_2exp(r, f, 2);
        mpz_ui_pow_ui(s, 2, (unsigned long)(2 - e));
        mpz_set_ui(mp, 2);
        mpz_set_ui(mm, 1);
    }
    if (has_pos) {
        if (relative) {
            long k = 0;
            mpz_t l;
            mpz_init_set_ui(l, 1);
            mpz_add(t, r, mp);
            for (;;) {
                mpz_mul(u, s, l);
                if (mpz_cmp(u, t) >= 0) break;
                k++;
                mpz_mul_10(l);
            }
            /* r + s*10^(k-position)/2 < s*l, scaled by 2 (and 10^(position-k) when negative) */
            long ex = k - position;
            mpz_t lhs, rhs, pw;
            mpz_inits(lhs, rhs, pw, NULL);
            if (ex >= 0) {
                mpz_ui_pow_ui(pw, 10, (unsigned long)ex);
                mpz_mul(lhs, s, pw);
                mpz_addmul_ui(lhs, r, 2);
                mpz_mul(rhs, s, l);
                mpz_mul_2exp(rhs, rhs, 1);
            } else {
                mpz_ui_pow_ui(pw, 10, (unsigned long)(-ex));
                mpz_mul(lhs, r, pw);
                mpz_mul_2exp(lhs, lhs, 1);
                mpz_add(lhs, lhs, s);
                mpz_mul(rhs, s, l);
                mpz_mul(rhs, rhs, pw);
                mpz_mul_2exp(rhs, rhs, 1);
            }
            position = mpz_cmp(lhs, rhs) < 0 ? k - position : k - position - 1;
            mpz_clears(lhs, rhs, pw, l, NULL);
        }
        /* x = s * 10^position / 2; scale r, s, m+, m- so that x is an integer */
        mpz_t x;
        mpz_init(x);
        if (position >= 0) {
            mpz_ui_pow_ui(x, 10, (unsigned long)position);
            mpz_mul(x, x, s);
            mpz_mul_2exp(r, r, 1);
            mpz_mul_2exp(s, s, 1);
            mpz_mul_2exp(mp, mp, 1);
            mpz_mul_2exp(mm, mm, 1);
        } else {
            mpz_set(x, s);
            mpz_ui_pow_ui(t, 10, (unsigned long)(-position));
            mpz_mul_2exp(t, t, 1);
            mpz_mul(r, r, t);
            mpz_mul(s, s, t);
            mpz_mul(mp, mp, t);
            mpz_mul(mm, mm, t);
        }
        if (mpz_cmp(x, mm) > 0) mpz_set(mm, x);
        if (mpz_cmp(x, mp) > 0) mpz_set(mp, x);
        low_ok = high_ok = true;
        mpz_clear(x);
    }
    /* scale: for the shortest digits start from log10's estimate (far fewer multiplications for
     * large and small exponents); the two loops then find the exact k from any start */
    long k = 0;
    if (!has_pos && v > 0) {
        k = (long)ceil(log10(v) - 1e-10);
        if (k >= 0) {
            mpz_ui_pow_ui(t, 10, (unsigned long)k);
            mpz_mul(s, s, t);
        } else {
            mpz_ui_pow_ui(t, 10, (unsigned long)-k);
            mpz_mul(r, r, t);
            mpz_mul(mp, mp, t);
            mpz_mul(mm, mm, t);
        }
    }
    mpz_add(t, r, mp);
    for (;;) {
        int c = mpz_cmp(t, s);
        if (!(c > 0 || (high_ok && c == 0))) break;
        mpz_mul_10(s);
        k++;
    }
    for (;;) {
        if (mpz_cmp(r, mm) <= 0) break;
        mpz_add(t, r, mp);
        mpz_mul_10(t);
        int c = mpz_cmp(t, s);
        if (!(c < 0 || (!high_ok && c == 0))) break;
        k--;
        mpz_mul_10(r);
        mpz_mul_10(mp);
        mpz_mul_10(mm);
    }
    /* generate */
    size_t cap = 32, n = 0;
    char *digits = (char *)gc_alloc_atomic(L, cap);
    bool tc1, tc2;
    unsigned long dgt;
    for (;;) {
        mpz_mul_10(r);
        mpz_fdiv_qr(t, r, r, s);
        dgt = mpz_get_ui(t);
        mpz_mul_10(mp);
        mpz_mul_10(mm);
        int c1 = mpz_cmp(r, mm);
        tc1 = c1 < 0 || (low_ok && c1 == 0);
        mpz_add(u, r, mp);
        int c2 = mpz_cmp(u, s);
        tc2 = c2 > 0 || (high_ok && c2 == 0);
        if (tc1 || tc2) break;
        if (n + 2 >= cap) {
            char *nd = (char *)gc_alloc_atomic(L, cap * 2);
            memcpy(nd, digits, n);
            digits = nd;
            cap *= 2;
        }
        digits[n++] = (char)('0' + dgt);
        if ((n & 1023) == 0) safe_point(L);
    }
    if (tc1 && !tc2) { /* d */ }
    else if (!tc1 && tc2) dgt++;
    else {
        mpz_mul_2exp(u, r, 1);
        if (mpz_cmp(u, s) >= 0) dgt++;
    }
    if (n + 3 >= cap) {
        char *nd = (char *)gc_alloc_atomic(L, cap + 4);
        memcpy(nd, digits, n);
        digits = nd;
    }
    if (dgt >= 10) { /* carry (not expected from the algorithm's invariants) */
        long i = (long)n - 1;
        while (i >= 0 && digits[i] == '9') digits[i--] = '0';
        if (i >= 0) digits[i]++;
        else {
            memmove(digits + 1, digits, n);
            digits[0] = '1';
            n++;
            k++;
        }
        digits[n++] = '0';
    } else digits[n++] = (char)('0' + dgt);
    digits[n] = 0;
    mpz_clears(f, r, s, mp, mm, t, u, NULL);
    *k_out = k;
    return digits;
}
