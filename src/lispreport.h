/* lispreport.h: reading the lists the Lisp side of the file tools leaves in SYS::*FILES-REPORT*
 * into C values and text (private to src/: fileload.c and testrun.c). */
#ifndef TINYCL_LISPREPORT_H
#define TINYCL_LISPREPORT_H

#include "../runtime/state.h"
#include "../runtime/lstring.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline char *report_strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s);
    char *d = (char *)malloc(n + 1);
    memcpy(d, s, n + 1);
    return d;
}

/* Element I of LIST, or NIL. */
static inline Obj report_nth(Obj list, int i) {
    for (; i > 0 && is_cons(list); i--) list = CDR(list);
    return is_cons(list) ? CAR(list) : NIL;
}
/* A string's UTF-8 (malloc'd), NULL for anything else; a fixnum's value, -1 for anything else. */
static inline char *report_cstr(Obj o) { return is_string(o) ? string_to_utf8_malloc(o, NULL) : NULL; }
static inline int report_int(Obj o) { return is_fixnum(o) ? (int)FIXVAL(o) : -1; }
static inline int report_len(Obj l) { int n = 0; for (; is_cons(l); l = CDR(l)) n++; return n; }

/* Append printf-style text to the malloc'd *T of *LEN bytes. */
static inline void report_text_add(char **t, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void report_text_add(char **t, size_t *len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    *t = (char *)realloc(*t, *len + (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(*t + *len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *len += (size_t)n;
}

#endif
