/* xref_compile.c: the cross-reference and source locations of a file COMPILE-FILE compiles.
 * COMPILE-FILE (stdlib-lisp/compile-file.lisp) reads and expands the top-level forms itself, so
 * it places each form and opens the definition scope a defining macro names here, as LOAD
 * (load.c) and lisp_eval (analyze.c) do for source; the entries go into the compiled file. */
#include "xref.h"
#include "prim.h"
#include "list.h"
#include "formstart.h"
#include "array.h"
#include "hash.h"

/* (sys:%xref-save-state) -> the whole recording state, for %xref-restore-state: COMPILE-FILE
 * may run inside a definition being recorded (a DEFPARAMETER whose value compiles a file). */
DEFPRIM(prim_pct_xref_save_state) {
    UNUSED_ARGS;
    Obj v = make_vector(L, 7, NIL);
    Obj *s = VEC(v)->data;
    s[0] = L->source_location;
    s[1] = L->xref_caller;
    s[2] = L->xref_pending;
    s[3] = L->xref_pending_sites;
    s[4] = L->xref_site;
    s[5] = L->form_positions;
    s[6] = L->form_positions_stream;
    return v;
}

DEFPRIM(prim_pct_xref_restore_state) {
    UNUSED_ARGS;
    Obj v = args[0];
    if (!is_type(v, T_VECTOR) || VEC(v)->len != 7) return NIL;
    Obj *s = VEC(v)->data;
    L->source_location = s[0];
    L->xref_caller = s[1];
    L->xref_pending = s[2];
    L->xref_pending_sites = s[3];
    L->xref_site = s[4];
    L->form_positions = s[5];
    L->form_positions_stream = s[6];
    return NIL;
}

/* (sys:%xref-form-begin stream file): the next form of STREAM gets the location (FILE line
 * column) and its lists their places, as load_stream gives them; %xref-restore-state ends it. */
DEFPRIM(prim_pct_xref_form_begin) {
    UNUSED_ARGS;
    long line = 0, column = 0;
    form_locate(L, args[0], &line, &column);
    xref_set_location(L, list3(L, args[1], FIX(line), FIX(column)));
    xref_positions_begin(L, args[0]);
    return NIL;
}

/* (sys:%xref-definition-begin form) -> NIL, or, when FORM's head is a defining macro, what
 * %xref-definition-end needs: the definition's notes are recorded until then. */
DEFPRIM(prim_pct_xref_definition_begin) {
    UNUSED_ARGS;
    Obj form = args[0];
    if (!is_cons(form) || !is_type(CAR(form), T_SYMBOL)) return NIL;
    Obj key = xref_macro_use(L, CAR(form), form);
    return key == NIL ? NIL : xref_begin(L, key);
}

/* (sys:%xref-pause) -> NIL outside a definition; inside one, what %xref-definition-end (OK NIL)
 * needs to go on recording it: until then nothing is recorded (COMPILE-FILE's own expansions,
 * the local macros of a top-level MACROLET, which the definition does not call). */
DEFPRIM(prim_pct_xref_pause) {
    UNUSED_ARGS;
    return L->xref_caller == NIL ? NIL : xref_begin(L, NIL);
}

/* (sys:%xref-definition-end saved ok): store the definition (OK) or drop it (an error); after
 * %xref-pause, go on recording the definition that was paused. */
DEFPRIM(prim_pct_xref_definition_end) {
    UNUSED_ARGS;
    if (!is_cons(args[0])) return NIL;
    if (args[1] != NIL) xref_end(L, args[0]);
    else xref_restore(L, args[0]);
    return NIL;
}

/* One code of a compiled file's table: (kind . name) of a note. False when it is damaged. */
static bool note_of(Lisp *L, Obj code, const Vector *names, Obj *out) {
    if (!is_fixnum(code) || fixnum_val(code) < 0) return false;
    intptr_t c = fixnum_val(code);
    if ((size_t)(c >> 3) >= names->len) return false;
    *out = cons(L, FIX(c & 7), names->data[c >> 3]);
    return true;
}

static void append(Lisp *L, Obj *head, Obj *tail, Obj x) {
    Obj cell = cons(L, x, NIL);
    if (*head == NIL) *head = cell;
    else CONS(*tail)->cdr = cell;
    *tail = cell;
}

/* (sys:%xref-install item): put the entries and sites of a compiled file's table,
 * #(:xref names defs codes locations) (stdlib-lisp/compile-file.lisp says how it is coded), into
 * the cross-reference; a damaged table is ignored from where it is damaged. */
DEFPRIM(prim_pct_xref_install) {
    UNUSED_ARGS;
    Obj item = args[0];
    if (!is_type(item, T_VECTOR) || VEC(item)->len != 5) return NIL;
    Obj nv = VEC(item)->data[1], dv = VEC(item)->data[2], cv = VEC(item)->data[3];
    if (!is_type(nv, T_VECTOR) || !is_type(dv, T_VECTOR) || !is_type(cv, T_VECTOR)) return NIL;
    const Vector *names = VEC(nv), *defs = VEC(dv), *codes = VEC(cv);
    size_t at = 0;
    for (size_t d = 0; d + 1 < defs->len; d += 2) {
        Obj key = defs->data[d], loc = defs->data[d + 1];
        if (at >= codes->len || !is_fixnum(codes->data[at])) return NIL;
        intptr_t n = fixnum_val(codes->data[at++]);
        Obj head = NIL, tail = NIL, note;
        for (intptr_t i = 0; i < n; i++) {
            if (at >= codes->len || !note_of(L, codes->data[at++], names, &note)) return NIL;
            append(L, &head, &tail, note);
        }
        hash_put(L, L->xref_table, key, cons(L, loc, head));
        if (at >= codes->len || !is_fixnum(codes->data[at])) return NIL;
        n = fixnum_val(codes->data[at++]);
        head = tail = NIL;
        for (intptr_t i = 0; i < n; i++) {
            Obj code = at < codes->len ? codes->data[at++] : NIL;
            if (!is_fixnum(code) || fixnum_val(code) < 0) return NIL;
            intptr_t c = fixnum_val(code);
            if (!note_of(L, FIX(c >> 40), names, &note)) return NIL;
            Obj place = cons(L, FIX((c >> 16) & 0xFFFFFF), FIX(c & 0xFFFF));
            append(L, &head, &tail, cons(L, CAR(note), cons(L, CDR(note), place)));
        }
        if (head != NIL) hash_put(L, L->xref_sites, key, head);
    }
    return S(T);
}

/* (sys:%primitive-function-p object): true when OBJECT is a function written in C */
DEFPRIM(prim_pct_primitive_function_p) { UNUSED_ARGS; return boolean(L, is_type(args[0], T_PRIMITIVE)); }

const PrimDef xref_compile_prims[] = {
    {"%XREF-SAVE-STATE", PK_SYS, prim_pct_xref_save_state, 0, 0, 0, "()",
     "The cross-reference's recording state, for %XREF-RESTORE-STATE."},
    {"%XREF-RESTORE-STATE", PK_SYS, prim_pct_xref_restore_state, 1, 1, 0, "(state)",
     "Restore the recording state %XREF-SAVE-STATE returned."},
    {"%XREF-FORM-BEGIN", PK_SYS, prim_pct_xref_form_begin, 2, 2, 0, "(stream file)",
     "Place the next top-level form of STREAM (its location and its lists') for the cross-reference."},
    {"%XREF-DEFINITION-BEGIN", PK_SYS, prim_pct_xref_definition_begin, 1, 1, 0, "(form)",
     "Start recording the definition a defining macro FORM names, or return NIL."},
    {"%XREF-DEFINITION-END", PK_SYS, prim_pct_xref_definition_end, 2, 2, 0, "(saved ok)",
     "Store (OK) or drop the definition %XREF-DEFINITION-BEGIN started."},
    {"%XREF-PAUSE", PK_SYS, prim_pct_xref_pause, 0, 0, 0, "()",
     "Stop recording the definition being recorded until %XREF-DEFINITION-END (OK NIL)."},
    {"%XREF-INSTALL", PK_SYS, prim_pct_xref_install, 1, 1, 0, "(item)",
     "Put the cross-reference table of a compiled file into the session's."},
    {"%PRIMITIVE-FUNCTION-P", PK_SYS, prim_pct_primitive_function_p, 1, 1, 0, "(object)",
     "True when OBJECT is a function written in C."},
    {0},
};

void xref_compile_init(Lisp *L) { prims_register(L, xref_compile_prims); }
