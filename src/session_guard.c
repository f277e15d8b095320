/* session_guard.c: keeps a session usable whatever a call does to the standard variables the
 * session itself reads, prints and writes with, and says so in a warning when it steps in. */
#include "session_guard.h"
#include "../runtime/gc.h"
#include "../runtime/eval.h"
#include "../runtime/reader.h"
#include "../runtime/printer.h"
#include "../runtime/stream.h"
#include "../runtime/package.h"
#include "../runtime/lstring.h"
#include <stdio.h>

/* The standard stream variables, in the order of the saved vector. */
static const int stream_vars[] = {SY_STANDARD_OUTPUT, SY_STANDARD_INPUT, SY_ERROR_OUTPUT, SY_TRACE_OUTPUT,
                                  SY_TERMINAL_IO, SY_DEBUG_IO, SY_QUERY_IO};
#define NSTREAM_VARS ((int)(sizeof stream_vars / sizeof stream_vars[0]))

/* Where the session's own streams are kept: a Lisp vector, so the collector sees them. */
static Obj saved_streams_symbol(Lisp *L) {
    return intern_cstr(L, L->pkg_system, "*SESSION-STANDARD-STREAMS*");
}

void session_guard_save_streams(Lisp *L) {
    Obj v = heap_alloc(L, T_VECTOR, sizeof(Vector) + sizeof(Obj) * NSTREAM_VARS);
    VEC(v)->len = NSTREAM_VARS;
    for (int i = 0; i < NSTREAM_VARS; i++) VEC(v)->data[i] = SYM(L->syms[stream_vars[i]])->value;
    SYM(saved_streams_symbol(L))->value = v;
}

/* A value the user put in a standard variable, for a message: only what prints without
 * running user code (a PRINT-OBJECT method could loop or fail), bounded. */
static const char *shown(Lisp *L, Obj v) {
    if (!(is_fixnum(v) || is_symbol(v) || is_char(v) || (is_string(v) && STR(v)->len <= 40))) return "another object";
    size_t sp = L->special_sp;
    bind_special(L, S(PRINT_READABLY), NIL);
    bind_special(L, S(PRINT_BASE), FIX(10));
    bind_special(L, S(PRINT_RADIX), NIL);
    char *text = prin1_cstr(L, v);
    unbind_specials(L, sp);
    return text;
}

static void note(Lisp *L, const char *fmt, Obj var, Obj value) {
    char msg[600];
    snprintf(msg, sizeof msg, fmt, string_to_utf8(L, symbol_name(L, var), NULL), shown(L, value));
    session_warning_add(L, string_from_cstr(L, "WARNING"), string_from_cstr(L, msg));
}

static bool valid_radix(Obj v) { return is_fixnum(v) && fixnum_val(v) >= 2 && fixnum_val(v) <= 36; }

static bool valid_float_format(Lisp *L, Obj v) {
    return v == S(SINGLE_FLOAT) || v == S(DOUBLE_FLOAT) || v == S(SHORT_FLOAT) || v == S(LONG_FLOAT);
    (void)L;
}

static void repair(Lisp *L, void *ud) {
    bool ending = *(const bool *)ud;
    /* each repair comes before its note: the note prints with the repaired settings */
    Symbol *rb = SYM(S(READ_BASE)), *pb = SYM(S(PRINT_BASE)), *rt = SYM(S(READTABLE_VAR));
    Symbol *ff = SYM(S(READ_DEFAULT_FLOAT_FORMAT));
    Obj old;
    if (!is_type(rt->value, T_READTABLE)) {
        old = rt->value;
        rt->value = funcall1(L, intern_cstr(L, L->pkg_cl, "COPY-READTABLE"), NIL);
        note(L, "%s was %s, not a readtable; the session set it to a copy of the standard readtable.",
             S(READTABLE_VAR), old);
    }
    if (!valid_radix(rb->value)) {
        old = rb->value;
        rb->value = FIX(10);
        note(L, "%s was %s, not a radix from 2 to 36; the session set it back to 10.", S(READ_BASE), old);
    }
    if (!valid_radix(pb->value)) {
        old = pb->value;
        pb->value = FIX(10);
        note(L, "%s was %s, not a radix from 2 to 36; the session set it back to 10.", S(PRINT_BASE), old);
    }
    if (!valid_float_format(L, ff->value)) {
        old = ff->value;
        ff->value = S(SINGLE_FLOAT);
        note(L, "%s was %s, not a float format; the session set it back to SINGLE-FLOAT.",
             S(READ_DEFAULT_FLOAT_FORMAT), old);
    }
    if (!ending && SYM(S(READ_SUPPRESS))->value != NIL)
        note(L, "%s is %s: the session reads the forms of a call with it off (it stays on for READ).",
             S(READ_SUPPRESS), SYM(S(READ_SUPPRESS))->value);
    Obj saved = SYM(saved_streams_symbol(L))->value;
    if (is_type(saved, T_VECTOR) && VEC(saved)->len == NSTREAM_VARS) {
        for (int i = 0; i < NSTREAM_VARS; i++) {
            Obj var = L->syms[stream_vars[i]];
            Obj orig = VEC(saved)->data[i];
            if (is_stream(SYM(var)->value) || !is_stream(orig)) continue;
            old = SYM(var)->value;
            SYM(var)->value = orig;
            note(L, "%s was %s, not a stream; the session restored its own stream.", var, old);
        }
    }
}

void session_guard_repair(Lisp *L, bool ending) {
    /* a failure here (no memory left) must not end the call: the repair waits for the next */
    lisp_pcall(L, FR_TOPLEVEL, repair, &ending);
}

Obj session_guard_read(Lisp *L, Obj stream, Obj eof_value) {
    /* a form of this call may have just broken the settings the next one is read with */
    if (!is_type(SYM(S(READTABLE_VAR))->value, T_READTABLE) || !valid_radix(SYM(S(READ_BASE))->value) ||
        !valid_float_format(L, SYM(S(READ_DEFAULT_FLOAT_FORMAT))->value))
        session_guard_repair(L, true);
    if (SYM(S(READ_SUPPRESS))->value == NIL) return reader_read(L, stream, false, eof_value, false, false);
    /* *READ-SUPPRESS* on would read every form of every later call as NIL, the SETF that turns
     * it off included: the call's own source is read with it off */
    size_t sp = L->special_sp;
    bind_special(L, S(READ_SUPPRESS), NIL);
    Obj form = reader_read(L, stream, false, eof_value, false, false);
    unbind_specials(L, sp);
    return form;
}

Obj session_guard_saved_streams(Lisp *L) { return SYM(saved_streams_symbol(L))->value; }

void session_guard_reinstall_streams(Lisp *L, Obj saved) {
    if (!is_type(saved, T_VECTOR) || VEC(saved)->len != NSTREAM_VARS) return;
    SYM(saved_streams_symbol(L))->value = saved;
    for (int i = 0; i < NSTREAM_VARS; i++) SYM(L->syms[stream_vars[i]])->value = VEC(saved)->data[i];
}
