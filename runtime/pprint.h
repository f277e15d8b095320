/* pprint.h: what the plain printer (printer.c) and the pretty printer (pprint.c) share: the
 * state of one printing operation and the steps each calls in the other. Internal to the two. */
#ifndef TINYCL_PPRINT_H
#define TINYCL_PPRINT_H

#include "printer.h"

typedef struct PState {
    Obj stream;
    bool escape, readably, circle, gensym, array, pretty;
    int base;
    bool radix;
    Obj pcase;
    long length, level;        /* -1 = unlimited */
    Obj circ;                  /* (table . counter) while *print-circle* printing, else NIL */
} PState;

/* printer.c */
void print_rec(Lisp *L, PState *ps, Obj o, long depth);
void pstate_init(Lisp *L, PState *ps, Obj stream, bool escape);
/* The value of a *PRINT-LENGTH*-like variable: -1 when NIL or not a non-negative integer. */
long limit_var(Lisp *L, Obj sym);
/* How deep in logical blocks and lists the printer is now (for *PRINT-LEVEL*). */
long current_depth(Lisp *L);
/* Mark in TABLE (EQ) the objects reachable from O that are reached twice (*PRINT-CIRCLE*). */
void circ_scan(Lisp *L, Obj table, Obj o);
/* Print #n# (true) or, before a shared object's first occurrence, #n= (false). */
bool circ_label(Lisp *L, PState *ps, Obj o);
/* The reader-macro prefix ('  #'  `  ,  ,@) that O, a cons, prints as, or NULL. */
const char *quote_prefix(Lisp *L, Obj o);
/* Whether O is a (comma ...) form, which ends a dotted list as ". ,x". */
bool unquote_form(Lisp *L, Obj o);
/* Element I of an array's storage vector, whatever its element type. */
Obj array_elt(Lisp *L, Obj storage, size_t i);

/* pprint.c */
void print_list_pretty(Lisp *L, PState *ps, Obj o, long depth);
void print_array_pretty(Lisp *L, PState *ps, Obj storage, size_t offset, size_t *dims, int rank, bool vector, long depth);
void pprint_init(Lisp *L);

#endif
