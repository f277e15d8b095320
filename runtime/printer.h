/* printer.h: the Lisp printer (print-object dispatch for built-in types, print variables). */
#ifndef TINYCL_PRINTER_H
#define TINYCL_PRINTER_H

#include "state.h"

/* Print O to STREAM honouring the *print-...* variables, with *print-escape* = ESCAPE. */
void print_obj(Lisp *L, Obj o, Obj stream, bool escape);
/* Print using the current value of *print-escape*. */
void print_write(Lisp *L, Obj o, Obj stream);
Obj prin1_to_string(Lisp *L, Obj o);
Obj princ_to_string(Lisp *L, Obj o);
/* UTF-8 in collected memory, for C messages. */
char *prin1_cstr(Lisp *L, Obj o);
char *princ_cstr(Lisp *L, Obj o);

void printer_init(Lisp *L);

#endif
