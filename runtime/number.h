/* number.h: the numeric tower: fixnums, bignums, ratios, floats, complexes; arithmetic, printing, parsing. */
#ifndef TINYCL_NUMBER_H
#define TINYCL_NUMBER_H

#include "state.h"
#include "lstring.h"

Obj make_int64(Lisp *L, int64_t v);
Obj make_uint64(Lisp *L, uint64_t v);
Obj make_bignum_from_mpz(Lisp *L, const mpz_t z);   /* normalises to a fixnum when it fits */
Obj make_double(Lisp *L, double d);
Obj make_ratio(Lisp *L, Obj num, Obj den);          /* normalises; den != 0 */
/* Integer value as int64 if it fits (returns false otherwise). */
bool integer_to_int64(Obj o, int64_t *out);
void integer_to_mpz(Obj o, mpz_t out);              /* out must be initialised */
double number_to_double(Lisp *L, Obj o);            /* any real */

Obj num_add(Lisp *L, Obj a, Obj b);
Obj num_sub(Lisp *L, Obj a, Obj b);
Obj num_mul(Lisp *L, Obj a, Obj b);
Obj num_div(Lisp *L, Obj a, Obj b);
Obj num_negate(Lisp *L, Obj a);
/* -1, 0, 1 for reals; signals TYPE-ERROR for non-reals */
int num_compare(Lisp *L, Obj a, Obj b);
bool num_equal(Lisp *L, Obj a, Obj b);              /* = */
bool num_zerop(Lisp *L, Obj a);
bool num_eql(Obj a, Obj b);                          /* eql on numbers of any type */
uint64_t num_hash(Obj o);                            /* consistent with num_eql */
uint64_t num_hash_equalp(Lisp *L, Obj o);            /* consistent with = across types */

/* Print a number as the printer does (honouring base and radix for rationals). */
void number_print(Lisp *L, Obj n, StrBuf *out, int base, bool radix);
/* Parse a token as a number in BASE; false if the token is not numeric syntax. */
bool number_parse_token(Lisp *L, const uint32_t *tok, size_t n, int base, Obj *out);

#endif
