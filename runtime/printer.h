/* printer.h: the Lisp printer (print-object dispatch for built-in types, print variables) and the pretty printer. */
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
/* CHAR-NAME of C as a Lisp string (SBCL's names). */
Obj printer_char_name(Lisp *L, uint32_t c);

/* ---- the pretty printer (CLHS 22.2) ----
 * A logical block writes into a pretty stream (a string output stream the printer tracks);
 * when the outermost block ends, its text is laid out (conditional newlines taken or not,
 * indentation, per-line prefixes) and written to the real stream. */
enum { PP_LINEAR, PP_FILL, PP_MISER, PP_MANDATORY, PP_LITERAL };
enum { PP_INDENT_BLOCK, PP_INDENT_CURRENT };
enum { PP_TAB_LINE, PP_TAB_SECTION, PP_TAB_LINE_RELATIVE, PP_TAB_SECTION_RELATIVE };

/* The body of a logical block: STREAM is the pretty stream to write to, LIST the block's object. */
typedef void (*PPBody)(Lisp *L, Obj stream, Obj list, void *data);

/* True when STREAM is a pretty stream of an active logical block. */
bool pp_stream_p(Lisp *L, Obj stream);
/* PPRINT-LOGICAL-BLOCK: if OBJECT is not a list it is printed with WRITE and BODY is skipped;
 * likewise when *print-level* is exceeded ("#") or OBJECT is a circular reference ("#n#"). */
void pp_logical_block(Lisp *L, Obj stream, Obj object, Obj prefix, bool per_line, Obj suffix, PPBody body, void *data);
/* The checks PPRINT-POP makes before taking the next element of LIST (COUNT taken so far):
 * prints ". tail" or "..." and returns true when the block must end. */
bool pp_pop_check(Lisp *L, Obj stream, Obj list, long count);
/* PPRINT-NEWLINE, PPRINT-INDENT, PPRINT-TAB: no effect unless STREAM is a pretty stream and
 * *print-pretty* is true. */
void pp_newline(Lisp *L, Obj stream, int kind);
void pp_indent(Lisp *L, Obj stream, int kind, long n);
void pp_tab(Lisp *L, Obj stream, int kind, long colnum, long colinc);

void printer_init(Lisp *L);

#endif
