/* load.c: loading source: the embedded stdlib at boot and the reading/evaluating loop of LOAD
 * (LOAD itself, with its pathname handling, is in stdlib-lisp/files.lisp). */
#include "formstart.h"
#include "prim.h"
#include "modules.h"
#include "eval.h"
#include "reader.h"
#include "stream.h"
#include "gray.h"
#include "lstring.h"
#include "package.h"
#include "printer.h"
#include "xref.h"
#include "list.h"

#define EOF_VALUE OBJ(0x906)

/* ";" repeated *load-depth* times (at least once), as SBCL prefixes LOAD's messages. */
static void put_semicolons(Lisp *L, Obj out) {
    Obj d = SYM(S(P_LOAD_DEPTH))->value;
    intptr_t n = is_fixnum(d) ? fixnum_val(d) : 0;
    if (n < 1) n = 1;
    if (n > 64) n = 64;
    for (intptr_t i = 0; i < n; i++) stream_write_char(L, out, ';');
}

/* Read and evaluate each form of STREAM with *package* and *readtable* rebound. While a form is
 * being read SYS::*LOAD-READING* is true (LOAD turns reader errors into INPUT-ERROR-IN-LOAD). */
static Obj load_stream(Lisp *L, Obj stream, bool print) {
    size_t sp = L->special_sp;
    /* the warnings of the file's forms carry their place in the file, not that of the LOAD form */
    int outer_line = L->form_line, outer_column = L->form_column;
    Obj outer_file = L->form_file;
    bind_special(L, S(PACKAGE_VAR), SYM(S(PACKAGE_VAR))->value);
    bind_special(L, S(READTABLE_VAR), SYM(S(READTABLE_VAR))->value);
    for (;;) {
        size_t rsp = L->special_sp;
        bind_special(L, S(P_LOAD_READING), S(T));
        Obj outer_positions = xref_positions_begin(L, stream);
        long line, column;
        form_locate(L, stream, &line, &column);
        Obj form = reader_read(L, stream, false, EOF_VALUE, false, false);
        unbind_specials(L, rsp);
        if (form == EOF_VALUE) { xref_positions_end(L, outer_positions); break; }
        /* where the definitions of this form come from (find-definitions, the cross-reference) */
        Obj file = SYM(S(P_SOURCE_FILE))->value;
        xref_set_location(L, is_string(file) ? list3(L, file, FIX(line), FIX(column)) : NIL);
        if (is_string(file)) {
            L->form_line = (int)line;
            L->form_column = (int)column;
            L->form_file = file;
        }
        Obj v = lisp_eval(L, form);
        xref_positions_end(L, outer_positions);
        if (print) {
            Obj vals = values_list(L, v);
            Obj out = stream_out(L, NIL);
            stream_fresh_line(L, out);
            put_semicolons(L, out);
            stream_write_char(L, out, ' ');
            for (Obj l = vals; l != NIL; l = CDR(l)) {
                print_obj(L, CAR(l), out, true);
                if (CDR(l) != NIL) stream_write_cstr(L, out, ", ");
            }
            stream_terpri(L, out);
        }
    }
    unbind_specials(L, sp);
    L->form_line = outer_line;
    L->form_column = outer_column;
    L->form_file = outer_file;
    xref_set_location(L, NIL);
    return S(T);
}

void load_source_text(Lisp *L, const char *name, const char *text, size_t len) {
    Obj str = string_from_utf8(L, text, len);
    Obj stream = make_string_input_stream(L, str, 0, STR(str)->len);
    size_t sp = L->special_sp;
    bind_special(L, S(P_SOURCE_FILE), string_from_cstr(L, name));
    load_stream(L, stream, false);
    unbind_specials(L, sp);
}

/* (sys:%load-stream stream print): the loop of LOAD; the caller binds the *LOAD-...* variables. */
DEFPRIM(prim_pct_load_stream) {
    UNUSED_ARGS;
    Obj s = args[0];
    if (!is_stream(s)) {
        if (!gray_instance_p(L, s)) err_type(L, s, S(STREAM));
        s = make_gray_stream(L, s);   /* LOAD of a Gray stream reads through its methods */
    }
    return load_stream(L, s, args[1] != NIL);
}

/* (sys:%load-semicolons stream): write LOAD's ";;" prefix */
DEFPRIM(prim_pct_load_semicolons) {
    UNUSED_ARGS;
    put_semicolons(L, stream_out(L, args[0]));
    return NIL;
}

const PrimDef load_prims[] = {
    {"%LOAD-STREAM", PK_SYS, prim_pct_load_stream, 2, 2, 0, "(stream print)", NULL},
    {"%LOAD-SEMICOLONS", PK_SYS, prim_pct_load_semicolons, 1, 1, 0, "(stream)", NULL},
    {0},
};

void load_init(Lisp *L) {
    prims_register(L, load_prims);
    SYM(S(P_LOAD_DEPTH))->h.flags |= SYM_SPECIAL;
    SYM(S(P_LOAD_DEPTH))->value = FIX(0);
    SYM(S(P_LOAD_READING))->h.flags |= SYM_SPECIAL;
    SYM(S(P_LOAD_READING))->value = NIL;
}
