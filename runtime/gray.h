/* gray.h: Gray streams as the C stream functions see them: an instance of a
 * FUNDAMENTAL-STREAM subclass reaches runtime/stream.c wrapped in a stream of kind SK_GRAY
 * (see make_gray_stream), and each operation on that kind calls the protocol's generic
 * function here. stdlib-lisp/gray.lisp defines the protocol and fills SYS::*GRAY-PROTOCOL*, a
 * simple-vector indexed by GrayOp; before it loads there are no Gray streams. */
#ifndef TINYCL_GRAY_H
#define TINYCL_GRAY_H

#include "state.h"

typedef enum {
    GRAY_CLASS,               /* the class FUNDAMENTAL-STREAM */
    GRAY_READ_CHAR, GRAY_UNREAD_CHAR, GRAY_READ_CHAR_NO_HANG, GRAY_PEEK_CHAR, GRAY_LISTEN,
    GRAY_READ_LINE, GRAY_CLEAR_INPUT, GRAY_WRITE_CHAR, GRAY_LINE_COLUMN, GRAY_WRITE_STRING,
    GRAY_TERPRI, GRAY_FRESH_LINE, GRAY_FINISH_OUTPUT, GRAY_FORCE_OUTPUT, GRAY_CLEAR_OUTPUT,
    GRAY_READ_BYTE, GRAY_WRITE_BYTE, GRAY_READ_SEQUENCE, GRAY_WRITE_SEQUENCE, GRAY_FILE_POSITION,
    GRAY_ELEMENT_TYPE, GRAY_OPEN_P, GRAY_CLOSE, GRAY_INPUT_P, GRAY_OUTPUT_P, GRAY_INTERACTIVE_P,
    GRAY_NOPS
} GrayOp;

/* The name of the class FUNDAMENTAL-STREAM, or NIL before gray.lisp has made it. */
Obj gray_stream_class_name(Lisp *L);
/* Whether O is an instance of FUNDAMENTAL-STREAM (or a subclass). */
bool gray_instance_p(Lisp *L, Obj o);
/* Call the protocol's generic function OP on the instance and ARGS (at most 3 more). */
Obj gray_call(Lisp *L, GrayOp op, Obj instance, int nargs, const Obj *args);
static inline Obj gray_call0(Lisp *L, GrayOp op, Obj instance) { return gray_call(L, op, instance, 0, NULL); }
static inline Obj gray_call1(Lisp *L, GrayOp op, Obj instance, Obj a) { return gray_call(L, op, instance, 1, &a); }

/* Character input: a code, or -1 at end of file (the method returned :EOF). */
int gray_read_char(Lisp *L, Obj instance, GrayOp op);
/* Binary input: an integer, or NO_VALUE at end of file. */
Obj gray_read_byte(Lisp *L, Obj instance);
void gray_write_u32(Lisp *L, Obj instance, const uint32_t *chars, size_t n);

#endif
