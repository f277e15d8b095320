/* error.h: how C code signals Lisp errors; every error is a typed condition with its slots. */
#ifndef TINYCL_ERROR_H
#define TINYCL_ERROR_H

#include <stdarg.h>
#include "state.h"

/* Signal a condition of TYPE (a symbol) with the initargs plist, via CL:ERROR. */
_Noreturn void err_condition(Lisp *L, Obj type, Obj initargs);
/* A correctable error: the condition is signalled with a CONTINUE restart (whose report is the
 * format control CONTINUE_CTL) and the call returns when that restart is taken. */
void err_continuable(Lisp *L, Obj continue_ctl, Obj type, Obj initargs);

/* TYPE with :format-control MESSAGE (built with the %-directives below) and no arguments.
 * Directives: %s C string, %d int, %ld long, %zu size_t, %c char, %S prin1 of an Obj, %A princ of an Obj, %% */
_Noreturn void err_fmt(Lisp *L, Obj type, const char *fmt, ...);

_Noreturn void err_type(Lisp *L, Obj datum, Obj expected_type);
_Noreturn void err_simple(Lisp *L, const char *fmt, ...);
_Noreturn void err_program(Lisp *L, const char *fmt, ...);
_Noreturn void err_control(Lisp *L, const char *fmt, ...);
_Noreturn void err_storage(Lisp *L, const char *fmt, ...);
_Noreturn void err_unbound_variable(Lisp *L, Obj sym);
_Noreturn void err_undefined_function(Lisp *L, Obj name);
_Noreturn void err_package(Lisp *L, Obj package, const char *fmt, ...);
_Noreturn void err_division_by_zero(Lisp *L, Obj operation, Obj operands);
_Noreturn void err_arith(Lisp *L, Obj type, Obj operation, Obj operands);
_Noreturn void err_reader(Lisp *L, Obj stream, const char *fmt, ...);
_Noreturn void err_eof(Lisp *L, Obj stream);
_Noreturn void err_stream(Lisp *L, Obj stream, const char *fmt, ...);
_Noreturn void err_file(Lisp *L, Obj pathname, const char *fmt, ...);
_Noreturn void err_arg_count(Lisp *L, Obj fn, int nargs);
_Noreturn void err_index(Lisp *L, Obj seq, Obj index, size_t limit);

/* Warnings: signal WARNING-TYPE with a message; returns after handlers decline. */
void warn_fmt(Lisp *L, Obj type, const char *fmt, ...);

/* Format a message with the directives above into a Lisp string. */
Obj msg_vformat(Lisp *L, const char *fmt, va_list ap);
Obj msg_format(Lisp *L, const char *fmt, ...);

/* A C string describing a bootstrap error (type and initargs), for use before the
 * condition system is loaded or when it fails. */
char *error_describe_bootstrap(Lisp *L, Obj err);

#endif
