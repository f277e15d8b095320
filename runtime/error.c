/* error.c: signalling typed conditions from C, and the bootstrap path used before CL:ERROR exists. */
#include "error.h"
#include "control.h"
#include "eval.h"
#include "lstring.h"
#include "printer.h"
#include "package.h"
#include "stream.h"
#include "docs.h"
#include <stdio.h>
#include <stdlib.h>

/* Documentation of the readers of the standard condition types' slots, which the errors signalled
 * here fill. Their DEFINE-CONDITION forms (stdlib-lisp/conditions.lisp) have no place for a
 * reader's docstring (docs.h). */
const DocRow error_condition_reader_docs[] = {
    {"CELL-ERROR-NAME", "The name of the cell (variable, function or slot) involved in the CELL-ERROR CONDITION."},
    {"TYPE-ERROR-DATUM", "The object that was not of the expected type in the TYPE-ERROR CONDITION."},
    {"TYPE-ERROR-EXPECTED-TYPE", "The type that the datum of the TYPE-ERROR CONDITION should have had."},
    {"ARITHMETIC-ERROR-OPERATION", "The function whose call signalled the ARITHMETIC-ERROR CONDITION."},
    {"ARITHMETIC-ERROR-OPERANDS", "The list of arguments of the operation that signalled the ARITHMETIC-ERROR CONDITION."},
    {"FILE-ERROR-PATHNAME", "The pathname or stream involved in the FILE-ERROR CONDITION."},
    {"PACKAGE-ERROR-PACKAGE", "The package or package name involved in the PACKAGE-ERROR CONDITION."},
    {"PRINT-NOT-READABLE-OBJECT", "The object that could not be printed readably in the PRINT-NOT-READABLE CONDITION."},
    {"SIMPLE-CONDITION-FORMAT-CONTROL", "The format control of the simple CONDITION."},
    {"SIMPLE-CONDITION-FORMAT-ARGUMENTS", "The list of format arguments of the simple CONDITION."},
    {"STREAM-ERROR-STREAM", "The stream involved in the STREAM-ERROR CONDITION."},
    {"UNBOUND-SLOT-INSTANCE", "The instance whose slot was unbound in the UNBOUND-SLOT CONDITION."},
    {0},
};

Obj msg_vformat(Lisp *L, const char *fmt, va_list ap) {
    StrBuf b;
    sb_init(L, &b, 64);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            /* copy one UTF-8 sequence */
            uint32_t cp;
            int k = utf8_decode((const unsigned char *)p, strlen(p), &cp);
            sb_putc(L, &b, cp);
            p += k - 1;
            continue;
        }
        p++;
        char tmp[64];
        switch (*p) {
        case 's': sb_puts(L, &b, va_arg(ap, const char *)); break;
        case 'd': snprintf(tmp, sizeof tmp, "%d", va_arg(ap, int)); sb_puts(L, &b, tmp); break;
        case 'c': sb_putc(L, &b, (uint32_t)va_arg(ap, int)); break;
        case 'l':
            if (p[1] == 'd') { p++; snprintf(tmp, sizeof tmp, "%ld", va_arg(ap, long)); sb_puts(L, &b, tmp); }
            break;
        case 'z':
            if (p[1] == 'u') { p++; snprintf(tmp, sizeof tmp, "%zu", va_arg(ap, size_t)); sb_puts(L, &b, tmp); }
            break;
        case 'S': case 'A': {
            /* a message is for people: an object in it need not print readably, and must not
             * signal PRINT-NOT-READABLE under WITH-STANDARD-IO-SYNTAX; it is bounded as the
             * session's printed values are, since the datum of an error may be circular */
            Obj o = va_arg(ap, Obj);
            size_t sp = L->special_sp;
            if (SYM(S(PRINT_READABLY))->value != NIL) bind_special(L, S(PRINT_READABLY), NIL);
            if (is_cons(o) || is_heap(o)) {
                if (SYM(S(PRINT_LENGTH))->value == NIL) bind_special(L, S(PRINT_LENGTH), FIX(L->cfg.print_length));
                if (SYM(S(PRINT_LEVEL))->value == NIL) bind_special(L, S(PRINT_LEVEL), FIX(L->cfg.print_level));
            }
            sb_put_string(L, &b, *p == 'S' ? prin1_to_string(L, o) : princ_to_string(L, o));
            unbind_specials(L, sp);
            break;
        }
        case '%': sb_putc(L, &b, '%'); break;
        default: sb_putc(L, &b, '%'); if (*p) sb_putc(L, &b, (uint32_t)*p); else p--; break;
        }
    }
    return sb_to_string(L, &b);
}

Obj msg_format(Lisp *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Obj s = msg_vformat(L, fmt, ap);
    va_end(ap);
    return s;
}

/* Escape tildes so a C message can serve as a format control. */
static Obj as_format_control(Lisp *L, Obj msg) {
    String *s = STR(msg);
    size_t tildes = 0;
    for (size_t i = 0; i < s->len; i++) tildes += s->data[i] == '~';
    if (!tildes) return msg;
    StrBuf b;
    sb_init(L, &b, s->len + tildes);
    for (size_t i = 0; i < s->len; i++) {
        sb_putc(L, &b, s->data[i]);
        if (s->data[i] == '~') sb_putc(L, &b, '~');
    }
    return sb_to_string(L, &b);
}

static Obj list2(Lisp *L, Obj a, Obj b) { return cons(L, a, cons(L, b, NIL)); }

_Noreturn static void bootstrap_error(Lisp *L, Obj err) {
    L->last_error = err;
    L->last_backtrace = capture_backtrace(L, 40);
    Frame *top = frame_toplevel(L);
    L->error_depth = 0;
    if (!top) {
        fprintf(stderr, "tinycl: unhandled error with no top level: %s\n", error_describe_bootstrap(L, err));
        exit(70);
    }
    unwind_to(L, top, JUMP_ERROR);
}

/* The condition system's upcalls (lisp-abi.def) are not fetched with abi_upcall, which signals
 * when one is missing: the error path must not depend on itself. Their C fallback is the
 * bootstrap path, taken while the stdlib loads, for errors nested 8 deep, and (the boot check
 * guaranteeing them otherwise) if a user removes one. */
_Noreturn void err_condition(Lisp *L, Obj type, Obj initargs) {
    Obj hook = SYM(S(P_SIGNAL_ERROR))->function;
    if (is_function(hook) && L->error_depth < 8) {
        L->error_depth++;
        Obj args[2] = {type, initargs};
        funcall(L, hook, 2, args);
        /* %signal-error never returns; if it does, fall through */
    }
    bootstrap_error(L, cons(L, type, initargs));
}

void err_continuable(Lisp *L, Obj continue_ctl, Obj type, Obj initargs) {
    Obj hook = SYM(S(P_SIGNAL_CERROR))->function;
    if (!is_function(hook) || L->error_depth >= 8) err_condition(L, type, initargs);
    int depth = L->error_depth++;
    Obj args[3] = {continue_ctl, type, initargs};
    funcall(L, hook, 3, args);
    L->error_depth = depth;   /* continued */
}

static _Noreturn void err_vmsg(Lisp *L, Obj type, Obj extra, const char *fmt, va_list ap) {
    Obj msg = msg_vformat(L, fmt, ap);
    Obj initargs = cons(L, S(K_FORMAT_CONTROL), cons(L, as_format_control(L, msg),
                        cons(L, S(K_FORMAT_ARGUMENTS), cons(L, NIL, extra))));
    err_condition(L, type, initargs);
}

_Noreturn void err_fmt(Lisp *L, Obj type, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_vmsg(L, type, NIL, fmt, ap);
}

_Noreturn void err_type(Lisp *L, Obj datum, Obj expected) {
    err_condition(L, S(TYPE_ERROR),
                  cons(L, S(K_DATUM), cons(L, datum, list2(L, S(K_EXPECTED_TYPE), expected))));
}

#define DEFINE_FMT_ERROR(fname, sym)                     \
    _Noreturn void fname(Lisp *L, const char *fmt, ...) { \
        va_list ap;                                      \
        va_start(ap, fmt);                               \
        err_vmsg(L, S(sym), NIL, fmt, ap);               \
    }
DEFINE_FMT_ERROR(err_simple, SIMPLE_ERROR)
DEFINE_FMT_ERROR(err_program, PROGRAM_ERROR)
DEFINE_FMT_ERROR(err_control, CONTROL_ERROR)
DEFINE_FMT_ERROR(err_storage, STORAGE_CONDITION)

_Noreturn void err_unbound_variable(Lisp *L, Obj sym) {
    err_condition(L, S(UNBOUND_VARIABLE), list2(L, S(K_NAME), sym));
}

_Noreturn void err_undefined_function(Lisp *L, Obj name) {
    err_condition(L, S(UNDEFINED_FUNCTION), list2(L, S(K_NAME), name));
}

_Noreturn void err_package(Lisp *L, Obj package, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_vmsg(L, S(PACKAGE_ERROR), list2(L, S(K_PACKAGE), package), fmt, ap);
}

_Noreturn void err_arith(Lisp *L, Obj type, Obj operation, Obj operands) {
    err_condition(L, type, cons(L, S(K_OPERATION), cons(L, operation, list2(L, S(K_OPERANDS), operands))));
}

_Noreturn void err_division_by_zero(Lisp *L, Obj operation, Obj operands) {
    err_arith(L, S(DIVISION_BY_ZERO), operation, operands);
}

_Noreturn void err_reader(Lisp *L, Obj stream, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_vmsg(L, S(READER_ERROR), list2(L, S(K_STREAM), stream_visible(stream)), fmt, ap);
}

_Noreturn void err_eof(Lisp *L, Obj stream) {
    err_condition(L, S(END_OF_FILE), list2(L, S(K_STREAM), stream_visible(stream)));
}

_Noreturn void err_stream(Lisp *L, Obj stream, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_vmsg(L, S(STREAM_ERROR), list2(L, S(K_STREAM), stream_visible(stream)), fmt, ap);
}

_Noreturn void err_file(Lisp *L, Obj pathname, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_vmsg(L, S(FILE_ERROR), list2(L, S(K_PATHNAME), pathname), fmt, ap);
}

_Noreturn void err_arg_count(Lisp *L, Obj fn, int nargs) {
    Obj name = fn;
    if (is_type(fn, T_PRIMITIVE)) name = PRIM(fn)->name;
    else if (is_type(fn, T_CLOSURE)) name = CLOSURE(fn)->name;
    err_program(L, "invalid number of arguments to %S: %d", name, nargs);
}

_Noreturn void err_index(Lisp *L, Obj seq, Obj index, size_t limit) {
    (void)seq;
    Obj expected = cons(L, S(INTEGER), cons(L, FIX(0), cons(L, FIX((intptr_t)limit - 1), NIL)));
    if (limit == 0) expected = cons(L, S(INTEGER), cons(L, FIX(0), cons(L, cons(L, FIX(0), NIL), NIL)));
    err_type(L, index, expected);
}

void warn_fmt(Lisp *L, Obj type, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Obj msg = msg_vformat(L, fmt, ap);
    va_end(ap);
    Obj warn = SYM(S(WARN))->function;
    if (is_function(warn) && is_function(SYM(S(P_SIGNAL_ERROR))->function)) {
        Obj args[5] = {type, S(K_FORMAT_CONTROL), as_format_control(L, msg), S(K_FORMAT_ARGUMENTS), NIL};
        funcall(L, warn, 5, args);
        return;
    }
    fprintf(stderr, "WARNING: %s\n", string_to_utf8(L, msg, NULL));
}

static Obj plist_get(Obj plist, Obj key) {
    for (; is_cons(plist) && is_cons(CDR(plist)); plist = CDR(CDR(plist)))
        if (CAR(plist) == key) return CAR(CDR(plist));
    return NO_VALUE;
}

char *error_describe_bootstrap(Lisp *L, Obj err) {
    if (!is_cons(err)) return prin1_cstr(L, err);
    Obj type = CAR(err), initargs = CDR(err);
    Obj ctl = plist_get(initargs, S(K_FORMAT_CONTROL));
    Obj msg;
    if (ctl != NO_VALUE && is_string(ctl)) msg = ctl;
    else if (type == S(TYPE_ERROR))
        msg = msg_format(L, "The value %S is not of type %S", plist_get(initargs, S(K_DATUM)),
                         plist_get(initargs, S(K_EXPECTED_TYPE)));
    else if (type == S(UNBOUND_VARIABLE))
        msg = msg_format(L, "The variable %S is unbound.", plist_get(initargs, S(K_NAME)));
    else if (type == S(UNDEFINED_FUNCTION))
        msg = msg_format(L, "The function %S is undefined.", plist_get(initargs, S(K_NAME)));
    else
        msg = prin1_to_string(L, initargs);
    return string_to_utf8(L, msg_format(L, "%S: %A", type, msg), NULL);
}
