/* lstring.h: C-level string helpers: construction, UTF-8 at the edges, and growable buffers. */
#ifndef TINYCL_LSTRING_H
#define TINYCL_LSTRING_H

#include "state.h"
#include "gc.h"

/* A fresh simple string of LEN characters (contents zero). */
Obj string_new(Lisp *L, size_t len);
Obj string_from_utf8(Lisp *L, const char *s, size_t n);
Obj string_from_cstr(Lisp *L, const char *s);
Obj string_from_u32(Lisp *L, const uint32_t *s, size_t n);
/* UTF-8 copy in collected (atomic) memory, NUL-terminated; *len_out may be NULL. */
char *string_to_utf8(Lisp *L, Obj str, size_t *len_out);
/* Like string_to_utf8 but malloc'd (caller frees); for memory that leaves Lisp. */
char *string_to_utf8_malloc(Obj str, size_t *len_out);
bool string_equal_cstr(Obj str, const char *ascii);
bool string_eq(Obj a, Obj b);
uint64_t string_hash_u32(const uint32_t *s, size_t n);
static inline size_t string_length(Obj s) { return STR(s)->len; }
static inline uint32_t string_ref(Obj s, size_t i) { return STR(s)->data[i]; }
/* The name of a string designator (string, symbol, character) as a T_STRING: a string that is
 * not a T_STRING (a displaced or adjustable character array) is copied. Anything else signals
 * a TYPE-ERROR expecting (OR STRING SYMBOL CHARACTER). */
Obj string_designator(Lisp *L, Obj o);
_Noreturn void err_string_designator(Lisp *L, Obj o);

/* A string argument as a T_STRING: O itself when it is one, a fresh copy of the active
 * characters of any other string; anything else signals a TYPE-ERROR expecting STRING. */
Obj string_arg(Lisp *L, Obj o);

/* Any string: a T_STRING, or a rank-1 array whose element type is CHARACTER. */
bool is_any_string(Obj o);
/* The active characters (up to the fill pointer) of any string S and their count. The pointer is
 * into S's storage when possible, else to a fresh copy: treat it as read-only. */
const uint32_t *string_data(Lisp *L, Obj s, size_t *len);
/* Writable code points of any string S (active length in *len), or NULL when S's elements
 * cannot be reached directly (then use array_rm_set). */
uint32_t *string_storage(Obj s, size_t *len);
/* Element I (below the dimension, unchecked) of any string S, ignoring the fill pointer; a
 * displacement to an array grown too small signals an error instead of reading past it. */
uint32_t string_ref_any(Lisp *L, Obj s, size_t i);
/* Store C as element I of any string S (a base string refuses non-base characters). */
void string_set_any(Lisp *L, Obj s, size_t i, uint32_t c);
/* A fresh simple string holding the characters of strings[0..n) (any strings) in order. */
Obj string_concat(Lisp *L, size_t n, const Obj *strings);
/* A fresh simple string of the characters [start, end) of any string S (bounds unchecked). */
Obj string_substring(Lisp *L, Obj s, size_t start, size_t end);

/* UTF-8 decoding of one code point; returns bytes used. Anything that is not well-formed UTF-8
 * (a stray continuation byte, a cut sequence, an overlong form such as C0 AF for "/", a UTF-16
 * surrogate, a code point past U+10FFFF) decodes as U+FFFD, one per byte, as SBCL's utf-8 external
 * format does with a replacement character. */
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* A Lisp string from N bytes of generalized UTF-8: a lone surrogate's three-byte form is that
 * character (the session API's results write surrogates so); other bytes as string_from_utf8. */
Obj string_from_wtf8(Lisp *L, const char *s, size_t n);
/* Encode one code point; returns bytes written (buf has room for 4). */
int utf8_encode(uint32_t cp, char *buf);

/* A growable buffer of code points, in collected memory, or at first in the caller's own array
 * (sb_init_local: nothing allocated while the text fits, as when printing a number). */
typedef struct StrBuf {
    uint32_t *data;
    size_t len, cap;
    bool local;              /* data is the caller's array: growing copies it to the heap */
} StrBuf;
void sb_init(Lisp *L, StrBuf *b, size_t cap);
void sb_init_local(StrBuf *b, uint32_t *buf, size_t cap);
void sb_putc(Lisp *L, StrBuf *b, uint32_t c);
void sb_puts(Lisp *L, StrBuf *b, const char *utf8);
void sb_putn(Lisp *L, StrBuf *b, const uint32_t *s, size_t n);
void sb_put_string(Lisp *L, StrBuf *b, Obj str);
Obj sb_to_string(Lisp *L, StrBuf *b);

#endif
