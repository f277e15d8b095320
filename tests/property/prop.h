/* prop.h: what the property benches share: reproducible random numbers and a growing text buffer.
 * Each bench is one translation unit (tests/run-property.sh), so the state here is its own. */
#ifndef PROP_H
#define PROP_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* xorshift: the whole run follows from the seed put in rng_state */
static unsigned long long rng_state;
static inline unsigned rnd(unsigned n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

/* A text built by printf-like appends; s is malloc'd (NULL until the first put). */
typedef struct Buf { char *s; size_t len, cap; } Buf;
static inline void put(Buf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if ((size_t)n < b->cap - b->len) { b->len += (size_t)n; return; }
        b->cap = b->cap * 2 + (size_t)n + 64;
        b->s = (char *)realloc(b->s, b->cap);
    }
}
#endif
