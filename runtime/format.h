/* format.h: FORMAT (CLHS 22.3): the directive interpreter and the float strings it makes. */
#ifndef TINYCL_FORMAT_H
#define TINYCL_FORMAT_H

#include "state.h"
#include "lstring.h"

/* Format CONTROL (a string or a function) to STREAM (a stream object) with the argument
 * list ARGS; returns the arguments left unconsumed. */
Obj format_to_stream(Lisp *L, Obj stream, Obj control, Obj args);

/* FORMAT with a destination designator (NIL, T, a stream, a string with a fill pointer);
 * returns the string for NIL, else NIL. */
Obj format_dest(Lisp *L, Obj dest, Obj control, Obj args);

/* The decimal string SBCL's FLONUM-TO-STRING makes for the non-negative float X
 * (LONG_MIN for width, fdigits or fmin means "not given"). Sets *lpoint and *tpoint when the
 * string starts/ends with the point and *pointpos to the point's index. */
char *flonum_to_string(Lisp *L, double x, bool single, long width, long fdigits, bool has_scale, long scale,
                       long fmin, bool *lpoint, bool *tpoint, long *pointpos);

#endif
