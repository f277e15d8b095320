/* symbol.c: symbols (CLHS chapter 10): names, values, function cells, property lists, gensyms. */
#include "prim.h"
#include "package.h"
#include "lstring.h"
#include "list.h"
#include "hash.h"

DEFPRIM(prim_symbolp) { UNUSED_ARGS; return boolean(L, is_symbol(args[0])); }
DEFPRIM(prim_keywordp) { UNUSED_ARGS; return boolean(L, is_keyword(L, args[0])); }
DEFPRIM(prim_symbol_name) { UNUSED_ARGS; return symbol_name(L, check_symbol(L, args[0])); }
DEFPRIM(prim_symbol_package) { UNUSED_ARGS; return symbol_data(L, check_symbol(L, args[0]))->package; }

DEFPRIM(prim_symbol_value) {
    UNUSED_ARGS;
    Obj v = symbol_data(L, check_symbol(L, args[0]))->value;
    if (v == UNBOUND) err_unbound_variable(L, args[0]);
    return v;
}

DEFPRIM(prim_boundp) { UNUSED_ARGS; return boolean(L, symbol_data(L, check_symbol(L, args[0]))->value != UNBOUND); }

DEFPRIM(prim_set) {
    UNUSED_ARGS;
    Obj sym = check_symbol(L, args[0]);
    Symbol *s = symbol_data(L, sym);
    if (s->h.flags & SYM_CONSTANT) err_program(L, "Can't set the constant %S", sym);
    s->value = args[1];
    return args[1];
}

DEFPRIM(prim_makunbound) {
    UNUSED_ARGS;
    Obj sym = check_symbol(L, args[0]);
    Symbol *s = symbol_data(L, sym);
    if (s->h.flags & SYM_CONSTANT) err_program(L, "Can't make the constant %S unbound", sym);
    s->value = UNBOUND;
    return sym;
}

DEFPRIM(prim_symbol_function) {
    UNUSED_ARGS;
    Obj sym = check_symbol(L, args[0]);
    Symbol *s = symbol_data(L, sym);
    if (s->function == UNBOUND) err_undefined_function(L, sym);
    return s->function;
}

DEFPRIM(prim_symbol_plist) { UNUSED_ARGS; return symbol_data(L, check_symbol(L, args[0]))->plist; }

/* (sys:%set-symbol-plist symbol plist) */
DEFPRIM(prim_pct_set_symbol_plist) {
    UNUSED_ARGS;
    symbol_data(L, check_symbol(L, args[0]))->plist = check_list(L, args[1]);
    return args[1];
}

static Obj plist_find(Obj plist, Obj key) {
    for (Obj p = plist; is_cons(p) && is_cons(CDR(p)); p = CDR(CDR(p)))
        if (CAR(p) == key) return p;
    return NIL;
}

DEFPRIM(prim_get) {
    Obj p = plist_find(symbol_data(L, check_symbol(L, args[0]))->plist, args[1]);
    return p != NIL ? CAR(CDR(p)) : opt_arg(nargs, args, 2, NIL);
}

/* (sys:%put symbol indicator value) */
DEFPRIM(prim_pct_put) {
    UNUSED_ARGS;
    Symbol *s = symbol_data(L, check_symbol(L, args[0]));
    Obj p = plist_find(s->plist, args[1]);
    if (p != NIL) CAR(CDR(p)) = args[2];
    else s->plist = cons(L, args[1], cons(L, args[2], s->plist));
    return args[2];
}

DEFPRIM(prim_remprop) {
    UNUSED_ARGS;
    Symbol *s = symbol_data(L, check_symbol(L, args[0]));
    Obj prev = NIL;
    for (Obj p = s->plist; is_cons(p) && is_cons(CDR(p)); prev = CDR(p), p = CDR(CDR(p))) {
        if (CAR(p) == args[1]) {
            if (prev == NIL) s->plist = CDR(CDR(p));
            else CDR(prev) = CDR(CDR(p));
            return S(T);
        }
    }
    return NIL;
}

DEFPRIM(prim_make_symbol) { UNUSED_ARGS; return symbol_new(L, string_from_u32(L, STR(check_string(L, args[0]))->data, STR(args[0])->len)); }

DEFPRIM(prim_copy_symbol) {
    Obj sym = check_symbol(L, args[0]);
    Symbol *s = symbol_data(L, sym);
    Obj n = symbol_new(L, s->name);
    if (nargs > 1 && args[1] != NIL) {
        SYM(n)->value = s->value;
        SYM(n)->function = s->function;
        SYM(n)->plist = list_copy(L, s->plist);
        SYM(n)->h.flags = s->h.flags & (SYM_MACRO);
    }
    return n;
}

DEFPRIM(prim_gensym) {
    Obj prefix = string_from_cstr(L, "G");
    Obj counter = SYM(S(GENSYM_COUNTER))->value;
    Obj x = opt_arg(nargs, args, 0, NO_VALUE);
    if (x != NO_VALUE) {
        if (is_string(x)) prefix = x;
        else if (is_fixnum(x) && fixnum_val(x) >= 0) counter = x;
        else err_type(L, x, cons(L, S(OR), cons(L, S(STRING), cons(L, cons(L, S(INTEGER), cons(L, FIX(0), cons(L, S(STAR), NIL))), NIL))));
    }
    if (!is_fixnum(counter)) err_type(L, counter, S(INTEGER));
    if (x == NO_VALUE || is_string(x)) SYM(S(GENSYM_COUNTER))->value = FIX(fixnum_val(counter) + 1);
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", (long)fixnum_val(counter));
    StrBuf b;
    sb_init(L, &b, 16);
    sb_put_string(L, &b, prefix);
    sb_puts(L, &b, buf);
    return symbol_new(L, sb_to_string(L, &b));
}

DEFPRIM(prim_gentemp) {
    Obj prefix = nargs > 0 ? check_string(L, args[0]) : string_from_cstr(L, "T");
    Obj pkg = nargs > 1 ? package_designated(L, args[1]) : current_package(L);
    for (;;) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)++L->gensym_counter);
        StrBuf b;
        sb_init(L, &b, 16);
        sb_put_string(L, &b, prefix);
        sb_puts(L, &b, buf);
        int st;
        package_find_symbol(L, pkg, b.data, b.len, &st);
        if (st == FIND_NONE) return package_intern(L, pkg, b.data, b.len, &st);
    }
}

/* (sys:%proclaim-special symbol) */
DEFPRIM(prim_pct_proclaim_special) {
    UNUSED_ARGS;
    Obj sym = check_symbol(L, args[0]);
    if (sym == NIL || sym == S(T) || is_keyword(L, sym)) err_program(L, "Can't declare the constant %S special.", sym);
    if (!(SYM(sym)->h.flags & SYM_SPECIAL)) check_package_lock(L, sym, "proclaiming special");
    SYM(sym)->h.flags |= SYM_SPECIAL;
    return sym;
}

/* (sys:%defconstant symbol value): establish or confirm a constant */
DEFPRIM(prim_pct_defconstant) {
    UNUSED_ARGS;
    Obj sym = check_symbol(L, args[0]);
    Symbol *s = symbol_data(L, sym);
    if (s->h.flags & SYM_CONSTANT) {
        if (s->value != args[1] && !lisp_eql(s->value, args[1]))
            err_simple(L, "The constant %S is being redefined (from %S to %S)", sym, s->value, args[1]);
        return sym;
    }
    check_package_lock(L, sym, "defining as a constant");
    s->value = args[1];
    s->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
    return sym;
}

DEFPRIM(prim_constantp_symbol) {
    UNUSED_ARGS;
    Obj o = args[0];
    if (is_symbol(o)) return boolean(L, (symbol_data(L, o)->h.flags & SYM_CONSTANT) != 0);
    if (is_cons(o)) return boolean(L, CAR(o) == S(QUOTE));
    return S(T);
}

/* (sys:%symbol-special-p symbol) */
DEFPRIM(prim_pct_symbol_special_p) {
    UNUSED_ARGS;
    return boolean(L, (symbol_data(L, check_symbol(L, args[0]))->h.flags & SYM_SPECIAL) != 0);
}

/* (sys:%define-symbol-macro symbol expansion) */
DEFPRIM(prim_pct_define_symbol_macro) {
    UNUSED_ARGS;
    Obj sym = check_symbol(L, args[0]);
    Symbol *s = symbol_data(L, sym);
    if (s->h.flags & (SYM_SPECIAL | SYM_CONSTANT)) err_program(L, "Symbol %S is already defined as a variable.", sym);
    Obj p = plist_find(s->plist, S(P_SYMBOL_MACRO));
    if (p != NIL) CAR(CDR(p)) = args[1];
    else s->plist = cons(L, S(P_SYMBOL_MACRO), cons(L, args[1], s->plist));
    s->h.flags |= SYM_GLOBAL_LEX;
    return sym;
}

static const PrimDef symbol_prims[] = {
    {"SYMBOLP", PK_CL, prim_symbolp, 1, 1, 0, "(object)", NULL},
    {"KEYWORDP", PK_CL, prim_keywordp, 1, 1, 0, "(object)", NULL},
    {"SYMBOL-NAME", PK_CL, prim_symbol_name, 1, 1, 0, "(symbol)", NULL},
    {"SYMBOL-PACKAGE", PK_CL, prim_symbol_package, 1, 1, 0, "(symbol)", NULL},
    {"SYMBOL-VALUE", PK_CL, prim_symbol_value, 1, 1, 0, "(symbol)", NULL},
    {"BOUNDP", PK_CL, prim_boundp, 1, 1, 0, "(symbol)", NULL},
    {"SET", PK_CL, prim_set, 2, 2, 0, "(symbol value)", NULL},
    {"MAKUNBOUND", PK_CL, prim_makunbound, 1, 1, 0, "(symbol)", NULL},
    {"SYMBOL-FUNCTION", PK_CL, prim_symbol_function, 1, 1, 0, "(symbol)", NULL},
    {"SYMBOL-PLIST", PK_CL, prim_symbol_plist, 1, 1, 0, "(symbol)", NULL},
    {"%SET-SYMBOL-PLIST", PK_SYS, prim_pct_set_symbol_plist, 2, 2, 0, "(symbol plist)", NULL},
    {"GET", PK_CL, prim_get, 2, 3, 0, "(symbol indicator &optional default)", NULL},
    {"%PUT", PK_SYS, prim_pct_put, 3, 3, 0, "(symbol indicator value)", NULL},
    {"REMPROP", PK_CL, prim_remprop, 2, 2, 0, "(symbol indicator)", NULL},
    {"MAKE-SYMBOL", PK_CL, prim_make_symbol, 1, 1, 0, "(name)", NULL},
    {"COPY-SYMBOL", PK_CL, prim_copy_symbol, 1, 2, 0, "(symbol &optional copy-properties)", NULL},
    {"GENSYM", PK_CL, prim_gensym, 0, 1, 0, "(&optional x)", NULL},
    {"GENTEMP", PK_CL, prim_gentemp, 0, 2, 0, "(&optional prefix package)", NULL},
    {"%PROCLAIM-SPECIAL", PK_SYS, prim_pct_proclaim_special, 1, 1, 0, "(symbol)", NULL},
    {"%DEFCONSTANT", PK_SYS, prim_pct_defconstant, 2, 2, 0, "(symbol value)", NULL},
    {"%CONSTANT-FORM-P", PK_SYS, prim_constantp_symbol, 1, 1, 0, "(form)", NULL},
    {"%SYMBOL-SPECIAL-P", PK_SYS, prim_pct_symbol_special_p, 1, 1, 0, "(symbol)", NULL},
    {"%DEFINE-SYMBOL-MACRO", PK_SYS, prim_pct_define_symbol_macro, 2, 2, 0, "(symbol expansion)", NULL},
    {0},
};

void symbol_init(Lisp *L) { prims_register(L, symbol_prims); }
