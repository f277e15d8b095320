/* format.h: FORMAT (CLHS 22.3): the directive interpreter and the float digit generator it uses. */
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

/* Decimal digits of the positive float V (SINGLE selects single-float precision), by the
 * Burger-Dybvig algorithm as SBCL extends it: free-format (shortest) when !HAS_POS, else
 * rounded at 10^POSITION (absolute), or to POSITION significant digits when RELATIVE.
 * Returns the digits (NUL-terminated, in collected memory) and sets *K so that
 * V ~= 0.DIGITS x 10^K. */
char *float_digits(Lisp *L, double v, bool single, bool has_pos, long position, bool relative, long *k);

/* The decimal string SBCL's FLONUM-TO-STRING makes for the non-negative float X
 * (LONG_MIN for width, fdigits or fmin means "not given"). Sets *lpoint and *tpoint when the
 * string starts/ends with the point and *pointpos to the point's index. */
char *flonum_to_string(Lisp *L, double x, bool single, long width, long fdigits, bool has_scale, long scale,
                       long fmin, bool *lpoint, bool *tpoint, long *pointpos);

#endif
