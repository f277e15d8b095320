/* character.h: character names and classification shared by the reader, printer and string functions.
 * Everything follows SBCL: the Unicode tables (runtime/chardata.h) are generated from its behaviour
 * with `sbcl --script tools/gen-chardata.lisp > runtime/chardata.h`. */
#ifndef TINYCL_CHARACTER_H
#define TINYCL_CHARACTER_H

#include "state.h"

/* Room for any character name, NUL included. */
#define CHAR_NAME_MAX 128

/* CHAR-NAME of C (every character has one, e.g. "Space", "LATIN_SMALL_LETTER_A", "U378"),
 * written NUL-terminated to BUF (CHAR_NAME_MAX bytes); returns its length. */
size_t char_name_write(uint32_t c, char *buf);
/* The name the printer writes after #\ : CHAR-NAME for every character except the graphic
 * ASCII ones (NULL for #\! .. #\~; #\Space is printed as "#\ " by the printer). The string
 * lives in a per-thread buffer, valid until the next call. */
const char *char_name_of(uint32_t c);
/* The code NAME-CHAR finds for NAME (case-insensitive): -1 if there is none, -2 if NAME has
 * the form U+<hex> with a code beyond CHAR-CODE-LIMIT (SBCL signals a TYPE-ERROR then). */
int32_t char_from_name(const uint32_t *name, size_t n);

bool char_is_graphic(uint32_t c);       /* GRAPHIC-CHAR-P */
bool char_is_alpha(uint32_t c);         /* ALPHA-CHAR-P */
bool char_is_alphanumeric(uint32_t c);  /* ALPHANUMERICP */
bool char_is_standard(uint32_t c);      /* STANDARD-CHAR-P */
/* The weight of C as a digit in RADIX (2..36), or -1 (DIGIT-CHAR-P; Unicode decimal digits count). */
int char_digit_weight(uint32_t c, int radix);
bool char_is_upper(uint32_t c);         /* UPPER-CASE-P */
bool char_is_lower(uint32_t c);         /* LOWER-CASE-P */
bool char_has_case(uint32_t c);         /* BOTH-CASE-P */
uint32_t char_upcase(uint32_t c);       /* CHAR-UPCASE: only one-to-one case pairs map */
uint32_t char_downcase(uint32_t c);     /* CHAR-DOWNCASE */
/* CHAR-EQUAL of A and B. Like SBCL's it is not symmetric for the titlecase letters (U+01C5 ...):
 * A equals B when B is A, A's upcase or A's downcase. */
static inline bool char_equal_ci(uint32_t a, uint32_t b) {
    return a == b || char_upcase(a) == b || char_downcase(a) == b;
}
/* The key CHAR-LESSP and STRING-LESSP order characters by. */
static inline uint32_t char_fold(uint32_t c) { return char_downcase(c); }
bool char_is_whitespace(uint32_t c);   /* reader whitespace in the standard syntax */

#endif
