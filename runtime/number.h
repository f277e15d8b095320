/* number.h: the numeric tower: fixnums, bignums, ratios, floats, complexes; arithmetic, printing, parsing. */
#ifndef TINYCL_NUMBER_H
#define TINYCL_NUMBER_H

#include "state.h"
#include "lstring.h"

/* A random state (T_RANDOM_STATE): xoshiro256** */
typedef struct RandomState { Header h; uint64_t s[4]; } RandomState;
#define RSTATE(o) ((RandomState *)(o))

static inline bool is_complex(Obj o) { return is_type(o, T_COMPLEX); }

Obj make_int64(Lisp *L, int64_t v);
Obj make_uint64(Lisp *L, uint64_t v);
Obj make_bignum_from_mpz(Lisp *L, const mpz_t z);   /* normalises to a fixnum when it fits */
Obj make_double(Lisp *L, double d);
Obj make_ratio(Lisp *L, Obj num, Obj den);          /* normalises; den != 0 */
/* A canonical complex: float contagion between the parts; a rational complex with a zero
 * imaginary part is its real part. RE and IM must be reals. */
Obj make_complex(Lisp *L, Obj re, Obj im);
/* Integer value as int64 if it fits (returns false otherwise). */
bool integer_to_int64(Obj o, int64_t *out);
void integer_to_mpz(Obj o, mpz_t out);              /* out must be initialised */
/* Any real as a double; signals FLOATING-POINT-OVERFLOW for rationals beyond the double range. */
double number_to_double(Lisp *L, Obj o);
/* Any real as a float of the format of PROTOTYPE (a float), or a single-float when PROTOTYPE is NIL. */
Obj number_to_float(Lisp *L, Obj o, Obj prototype);

Obj num_add(Lisp *L, Obj a, Obj b);
Obj num_sub(Lisp *L, Obj a, Obj b);
Obj num_mul(Lisp *L, Obj a, Obj b);
Obj num_div(Lisp *L, Obj a, Obj b);
Obj num_negate(Lisp *L, Obj a);
/* -1, 0, 1 for reals (2 when a NaN makes them unordered); signals TYPE-ERROR for non-reals */
int num_compare(Lisp *L, Obj a, Obj b);
bool num_equal(Lisp *L, Obj a, Obj b);              /* = */
bool num_zerop(Lisp *L, Obj a);
bool num_minusp(Lisp *L, Obj a);                    /* a real */
bool num_eql(Obj a, Obj b);                          /* eql on numbers of any type */
uint64_t num_hash(Obj o);                            /* consistent with num_eql */
uint64_t num_hash_equalp(Lisp *L, Obj o);            /* consistent with = across types */

/* (truncate a b), (floor a b): quotient returned, remainder in *rem (may be NULL). */
Obj num_truncate(Lisp *L, Obj a, Obj b, Obj *rem);
Obj num_floor(Lisp *L, Obj a, Obj b, Obj *rem);
/* (ash n count) for an integer N. */
Obj integer_ash(Lisp *L, Obj n, intptr_t count);

/* Print a number as the printer does (honouring base and radix for rationals). */
void number_print(Lisp *L, Obj n, StrBuf *out, int base, bool radix);
/* Parse a token as a number in BASE; false if the token is not numeric syntax. */
bool number_parse_token(Lisp *L, Obj stream, const uint32_t *tok, size_t n, int base, Obj *out);

/* flonum.c: decimal digits of the non-negative float V (SINGLE selects single-float precision),
 * by the Burger-Dybvig algorithm as SBCL extends it: the shortest digits that read back as V
 * when !HAS_POS (PRINT), else rounded at 10^POSITION (absolute), or to POSITION significant
 * digits when RELATIVE (FORMAT). Returns the digits (NUL-terminated, in collected memory) and
 * sets *K so that V ~= 0.DIGITS x 10^K. */
char *flonum_digits(Lisp *L, double v, bool single, bool has_pos, long position, bool relative, long *k);

#endif
