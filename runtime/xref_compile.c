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

/* The parts of a compiled file's table, #(:xref names defs codes locations), or false. */
static bool table_parts(Obj item, const Vector **names, const Vector **defs, const Vector **codes) {
    if (!is_type(item, T_VECTOR) || VEC(item)->len != 5) return false;
    Obj nv = VEC(item)->data[1], dv = VEC(item)->data[2], cv = VEC(item)->data[3];
    if (!is_type(nv, T_VECTOR) || !is_type(dv, T_VECTOR) || !is_type(cv, T_VECTOR)) return false;
    *names = VEC(nv), *defs = VEC(dv), *codes = VEC(cv);
    return true;
}

/* Walks a compiled file's table, definition by definition. With DECODE false it only checks the
 * codes (no allocation) and *notes and *sites stay NIL; with DECODE true it builds them. Returns
 * WALK_END at the end or at a damaged definition, WALK_NOTES for a definition whose sites are
 * damaged (it goes in, without them, and the walk ends), WALK_ALL otherwise: both walks stop at
 * the same place, where the table was damaged. */
typedef struct TableWalk { const Vector *names, *defs, *codes; size_t at; bool ended; } TableWalk;
enum { WALK_END, WALK_NOTES, WALK_ALL };

static int walk_next(Lisp *L, TableWalk *w, size_t d, bool decode, Obj *notes, Obj *sites) {
    const Vector *codes = w->codes;
    *notes = *sites = NIL;
    if (w->ended || d + 1 >= w->defs->len) return WALK_END;
    size_t at = w->at;
    if (at >= codes->len || !is_fixnum(codes->data[at])) return WALK_END;
    intptr_t n = fixnum_val(codes->data[at++]);
    Obj tail = NIL, note;
    for (intptr_t i = 0; i < n; i++) {
        Obj code = at < codes->len ? codes->data[at++] : NIL;
        if (!decode) {
            if (!is_fixnum(code) || fixnum_val(code) < 0 || (size_t)(fixnum_val(code) >> 3) >= w->names->len)
                return WALK_END;
        } else {
            if (!note_of(L, code, w->names, &note)) return WALK_END;
            append(L, notes, &tail, note);
        }
    }
    w->ended = true;   /* from here on, a damaged site ends the walk after this definition */
    if (at >= codes->len || !is_fixnum(codes->data[at])) return WALK_NOTES;
    n = fixnum_val(codes->data[at++]);
    Obj head = NIL;
    tail = NIL;
    for (intptr_t i = 0; i < n; i++) {
        Obj code = at < codes->len ? codes->data[at++] : NIL;
        if (!is_fixnum(code) || fixnum_val(code) < 0) return WALK_NOTES;
        intptr_t c = fixnum_val(code);
        if (!decode) {
            if ((size_t)((c >> 40) >> 3) >= w->names->len) return WALK_NOTES;
            continue;
        }
        if (!note_of(L, FIX(c >> 40), w->names, &note)) return WALK_NOTES;
        Obj place = cons(L, FIX((c >> 16) & 0xFFFFFF), FIX(c & 0xFFFF));
        append(L, &head, &tail, cons(L, CAR(note), cons(L, CDR(note), place)));
    }
    *sites = head;
    w->at = at;
    w->ended = false;
    return WALK_ALL;
}

/* (sys:%xref-install item): put a compiled file's table, #(:xref names defs codes locations)
 * (stdlib-lisp/compile-file.lisp says how it is coded), into the cross-reference; a damaged table
 * is ignored from where it is damaged. Only each definition's key and location go in now, as
 * (location); its notes and sites are decoded when a question first reads the tables
 * (xref_complete_files): a load from the cache builds none of their conses. The item waits in
 * L->xref_deferred, a registry as the tables are, so a reset or a checkpoint keeps or drops it
 * with the definitions it names. */
DEFPRIM(prim_pct_xref_install) {
    UNUSED_ARGS;
    Obj item = args[0];
    TableWalk w = {0};
    if (!table_parts(item, &w.names, &w.defs, &w.codes)) return NIL;
    Obj notes, sites;
    bool any = false;
    for (size_t d = 0; walk_next(L, &w, d, false, &notes, &sites) != WALK_END; d += 2) {
        hash_put(L, L->xref_table, w.defs->data[d], cons(L, w.defs->data[d + 1], NIL));
        any = true;
    }
    if (any) hash_put(L, L->xref_deferred, item, S(T));
    return S(T);
}

/* Decode one deferred table: a definition still recorded as the file left it (its location the
 * very object the table holds) gets its notes and sites; one defined again since (from source,
 * another compiled file, a reload: each has a location of its own) keeps what that gave it. A
 * table decoded before a reset is decoded again after it (the reset put back the entries the
 * system's load made, notes included, but not the sites the decoding added): the same lists. */
static void complete_one(Lisp *L, Obj item) {
    TableWalk w = {0};
    if (!table_parts(item, &w.names, &w.defs, &w.codes)) return;
    Obj notes, sites;
    for (size_t d = 0; walk_next(L, &w, d, true, &notes, &sites) != WALK_END; d += 2) {
        Obj key = w.defs->data[d], v = hash_get(L, L->xref_table, key, NIL);
        if (!is_cons(v) || CAR(v) != w.defs->data[d + 1]) continue;
        CONS(v)->cdr = notes;
        if (sites != NIL) hash_put(L, L->xref_sites, key, sites);
    }
}

void xref_complete_files(Lisp *L) {
    Obj table = L->xref_deferred;
    if (!is_type(table, T_HASHTABLE) || HT(table)->count == 0) return;
    Obj items = NIL;
    for (size_t i = 0; i < HT(table)->cap; i++) {
        Obj k = HT(table)->entries[i].key;
        if (k != NO_VALUE && k != TOMBSTONE) items = cons(L, k, items);
    }
    hash_clear(L, table);
    for (Obj p = items; is_cons(p); p = CDR(p)) complete_one(L, CAR(p));
}

/* (sys:%xref-deferred): compiled files' tables not decoded yet: item -> T (a registry). */
DEFPRIM(prim_pct_xref_deferred) { UNUSED_ARGS; return L->xref_deferred; }

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
     "Put the cross-reference table of a compiled file into the session's (its notes and sites when first read)."},
    {"%XREF-DEFERRED", PK_SYS, prim_pct_xref_deferred, 0, 0, 0, "()",
     "The compiled files' cross-reference tables whose notes and sites are not decoded yet: item -> T."},
    {"%PRIMITIVE-FUNCTION-P", PK_SYS, prim_pct_primitive_function_p, 1, 1, 0, "(object)",
     "True when OBJECT is a function written in C."},
    {0},
};

void xref_compile_init(Lisp *L) { prims_register(L, xref_compile_prims); }
