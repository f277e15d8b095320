/* docs.c: looks up the documentation strings kept in C tables (see docs.h) for a symbol of the
 * COMMON-LISP package; CL:DOCUMENTATION falls back to it (stdlib-lisp/macros.lisp). */
#include "docs.h"
#include "prim.h"
#include "lstring.h"
#include "package.h"

static const DocRow *const function_tables[] = {analyze_special_operator_docs, error_condition_reader_docs,
                                                stdlib_docs, NULL};
static const DocRow *const variable_tables[] = {init_variable_docs, number_variable_docs, array_variable_docs,
                                                evalprim_variable_docs, character_variable_docs,
                                                stream_variable_docs, reader_variable_docs,
                                                pathname_variable_docs, system_variable_docs, NULL};
static const DocRow *const type_tables[] = {types_type_docs, NULL};

static const char *docs_find(const DocRow *const *tables, Obj name) {
    for (; *tables; tables++)
        for (const DocRow *r = *tables; r->name; r++)
            if (string_equal_cstr(name, r->name)) return r->doc;
    return NULL;
}

/* (sys:%builtin-documentation symbol doc-type): the string for a CL symbol and FUNCTION, VARIABLE
 * or TYPE, or NIL. */
DEFPRIM(prim_pct_builtin_documentation) {
    UNUSED_ARGS;
    Obj sym = args[0], kind = args[1];
    if (!is_symbol(sym)) return NIL;
    if (symbol_data(L, sym)->package != L->pkg_cl || !is_symbol(kind) || kind == NIL) return NIL;
    Obj name = symbol_data(L, sym)->name, kname = symbol_data(L, kind)->name;
    const DocRow *const *tables = string_equal_cstr(kname, "FUNCTION") ? function_tables
                                : string_equal_cstr(kname, "VARIABLE") ? variable_tables
                                : string_equal_cstr(kname, "TYPE") ? type_tables : NULL;
    const char *doc = tables ? docs_find(tables, name) : NULL;
    return doc ? string_from_cstr(L, doc) : NIL;
}

const PrimDef docs_prims[] = {
    {"%BUILTIN-DOCUMENTATION", PK_SYS, prim_pct_builtin_documentation, 2, 2, 0, "(symbol doc-type)", NULL},
    {0},
};

void docs_init(Lisp *L) { prims_register(L, docs_prims); }
