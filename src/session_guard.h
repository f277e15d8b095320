/* session_guard.h: repairs to the standard variables that would leave a session unusable. */
#ifndef TINYCL_SESSION_GUARD_H
#define TINYCL_SESSION_GUARD_H

#include "../runtime/state.h"

/* Remember the session's standard streams (call once the session has set them up). */
void session_guard_save_streams(Lisp *L);
/* The saved streams (a Lisp vector), and putting them back as the saved streams and the values of
 * the standard stream variables: a checkpoint restore keeps the session's own channels. */
Obj session_guard_saved_streams(Lisp *L);
void session_guard_reinstall_streams(Lisp *L, Obj saved);
/* Put back what no call could work with: *READ-BASE* and *PRINT-BASE* outside 2..36, a
 * *READTABLE* that is not a readtable, an unknown *READ-DEFAULT-FLOAT-FORMAT*, and standard
 * stream variables that hold no stream. Each repair adds a warning to the call's result, as
 * does *READ-SUPPRESS* left on as a call starts (see session_guard_read). Called as a call
 * starts, and ENDING: before its values or its error are printed (with sane settings) and its
 * output is taken. Idempotent; never signals. */
void session_guard_repair(Lisp *L, bool ending);
/* Read the next form of a call's source as READ would, but with *READ-SUPPRESS* off, so that a
 * call can always turn it off again. */
Obj session_guard_read(Lisp *L, Obj stream, Obj eof_value);

#endif
