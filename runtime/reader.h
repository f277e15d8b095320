/* reader.h: the Lisp reader: readtables, tokens, macro characters, and read entry points. */
#ifndef TINYCL_READER_H
#define TINYCL_READER_H

#include "state.h"

typedef enum { SYN_CONSTITUENT, SYN_WHITESPACE, SYN_TERM_MACRO, SYN_NONTERM_MACRO,
               SYN_SINGLE_ESCAPE, SYN_MULTI_ESCAPE, SYN_INVALID } Syntax;
typedef enum { RCASE_UPCASE, RCASE_DOWNCASE, RCASE_PRESERVE, RCASE_INVERT } ReadCase;

#define RT_ASCII 128
typedef struct Readtable {
    Header h;
    uint8_t syntax[RT_ASCII];
    Obj macro[RT_ASCII];          /* macro function or NIL */
    Obj dispatch[RT_ASCII];       /* simple-vector of 128 sub-character functions, or NIL */
    Obj extra;                    /* alist (code . (syntax macro dispatch)) for non-ASCII characters */
    ReadCase rcase;
} Readtable;
#define RT(o) ((Readtable *)(o))

/* Read one object. At end of file: if eof_error, signal END-OF-FILE, else return eof_value. */
Obj reader_read(Lisp *L, Obj stream, bool eof_error, Obj eof_value, bool recursive, bool preserve_ws);
/* The standard readtable's syntax of C in the current readtable. */
Syntax reader_syntax(Lisp *L, Obj rt, uint32_t c);
Obj readtable_current(Lisp *L);
Obj readtable_copy(Lisp *L, Obj from, Obj to);

/* Read from a string; status tells the caller about incomplete input (used by the REPL). */
typedef enum { READ_OK, READ_EOF, READ_INCOMPLETE } ReadStatus;

#endif
