/* format.c: FORMAT (CLHS 22.3): the directive interpreter. */
#include "prim.h"
#include "stream.h"
#include "printer.h"
#include "lstring.h"
#include "eval.h"

/* Minimal bootstrap: ~A ~S ~D ~% ~& ~~ (the full directive set comes with the format module). */
static void format_to(Lisp *L, Obj stream, Obj control, int nargs, Obj *args) {
    String *c = STR(control);
    int ai = 0;
    for (size_t i = 0; i < c->len; i++) {
        uint32_t ch = c->data[i];
        if (ch != '~' || i + 1 >= c->len) { stream_write_char(L, stream, ch); continue; }
        uint32_t d = c->data[++i];
        switch (d | 0x20) {
        case 'a': if (ai >= nargs) err_simple(L, "FORMAT: not enough arguments"); print_obj(L, args[ai++], stream, false); break;
        case 's': if (ai >= nargs) err_simple(L, "FORMAT: not enough arguments"); print_obj(L, args[ai++], stream, true); break;
        case 'd': if (ai >= nargs) err_simple(L, "FORMAT: not enough arguments"); print_obj(L, args[ai++], stream, false); break;
        default:
            if (d == '%') stream_terpri(L, stream);
            else if (d == '&') stream_fresh_line(L, stream);
            else if (d == '~') stream_write_char(L, stream, '~');
            else err_simple(L, "FORMAT: unsupported directive ~%c", (int)d);
        }
    }
}

DEFPRIM(prim_format) {
    Obj dest = args[0];
    Obj control = args[1];
    if (is_function(control)) {
        Obj s = dest == NIL ? make_string_output_stream(L) : stream_out(L, dest == S(T) ? NIL : dest);
        Obj rest = NIL;
        for (int i = nargs - 1; i >= 2; i--) rest = cons(L, args[i], rest);
        Obj a2[2] = {s, rest};
        (void)a2;
        apply_list(L, control, cons(L, s, rest));
        return dest == NIL ? get_output_stream_string(L, s) : NIL;
    }
    check_string(L, control);
    if (dest == NIL) {
        Obj s = make_string_output_stream(L);
        format_to(L, s, control, nargs - 2, args + 2);
        return get_output_stream_string(L, s);
    }
    Obj s = stream_out(L, dest == S(T) ? NIL : dest);
    format_to(L, s, control, nargs - 2, args + 2);
    return NIL;
}

static const PrimDef format_prims[] = {
    {"FORMAT", PK_CL, prim_format, 2, REST, 0, "(destination control-string &rest args)", "Formatted output."},
    {0},
};

void format_init(Lisp *L) { prims_register(L, format_prims); }
