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
void printer_rec(Lisp *L, PState *ps, Obj o, long depth);
void printer_state_init(Lisp *L, PState *ps, Obj stream, bool escape);
/* The value of a *PRINT-LENGTH*-like variable: -1 when NIL or not a non-negative integer. */
long printer_limit_var(Lisp *L, Obj sym);
/* How deep in logical blocks and lists the printer is now (for *PRINT-LEVEL*). */
long printer_depth(Lisp *L);
/* Mark in TABLE (EQ) the objects the printer (with PS's limits) reaches twice in O, printed at
 * list depth DEPTH (*PRINT-CIRCLE*). */
void printer_circ_scan(Lisp *L, PState *ps, Obj table, Obj o, long depth);
/* Print #n# (true) or, before a shared object's first occurrence, #n= (false). */
bool printer_circ_label(Lisp *L, PState *ps, Obj o);
/* The reader-macro prefix ('  #'  `  ,  ,@) that O, a cons, prints as, or NULL. */
const char *printer_quote_prefix(Lisp *L, Obj o);
/* Whether O is a (comma ...) form, which ends a dotted list as ". ,x". */
bool printer_unquote_form(Lisp *L, Obj o);
/* Element I of an array's storage vector, whatever its element type. */
Obj printer_array_elt(Lisp *L, Obj storage, size_t i);

/* pprint.c */
void pprint_list(Lisp *L, PState *ps, Obj o, long depth);
void pprint_array(Lisp *L, PState *ps, Obj storage, size_t offset, size_t *dims, int rank, bool vector, long depth);
void pprint_init(Lisp *L);

#endif
