/* symbol.c: symbols (CLHS chapter 10): names, values, function cells, property lists, gensyms. */
#include "prim.h"
#include "package.h"
#include "lstring.h"
#include "list.h"
#include "hash.h"
#include "number.h"

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
    if (s->function == UNBOUND && (s->h.flags & SYM_SPECIAL_OP))
        return SYM(S(P_SPECIAL_OPERATOR_CALLED))->function;
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

DEFPRIM(prim_make_symbol) {
    UNUSED_ARGS;
    Obj name = string_arg(L, args[0]);
    return symbol_new(L, string_from_u32(L, STR(name)->data, STR(name)->len));
}

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

static bool nonneg_integer(Lisp *L, Obj o) {
    return is_integer(o) && num_compare(L, o, FIX(0)) >= 0;
}

DEFPRIM(prim_gensym) {
    Obj prefix = string_from_cstr(L, "G");
    Obj counter = SYM(S(GENSYM_COUNTER))->value;
    Obj x = opt_arg(nargs, args, 0, NO_VALUE);
    if (x != NO_VALUE) {
        if (is_any_string(x)) prefix = string_arg(L, x);
        else if (nonneg_integer(L, x)) counter = x;
        else err_type(L, x, cons(L, S(OR), cons(L, S(STRING), cons(L, cons(L, S(INTEGER), cons(L, FIX(0), cons(L, S(STAR), NIL))), NIL))));
    }
    if (!nonneg_integer(L, counter))
        err_type(L, counter, cons(L, S(INTEGER), cons(L, FIX(0), cons(L, S(STAR), NIL))));
    if (x == NO_VALUE || is_any_string(x)) SYM(S(GENSYM_COUNTER))->value = num_add(L, counter, FIX(1));
    StrBuf b;
    sb_init(L, &b, 16);
    sb_put_string(L, &b, prefix);
    number_print(L, counter, &b, 10, false);
    return symbol_new(L, sb_to_string(L, &b));
}

DEFPRIM(prim_gentemp) {
    Obj prefix = nargs > 0 ? string_arg(L, args[0]) : string_from_cstr(L, "T");
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

/* (constantp form &optional environment): constant variables, self-evaluating objects and
 * QUOTE forms; no other compound form is recognised (CLHS allows either answer for them). */
DEFPRIM(prim_constantp) {
    UNUSED_ARGS;
    Obj o = args[0];
    if (is_symbol(o)) return boolean(L, (symbol_data(L, o)->h.flags & SYM_CONSTANT) != 0);
    if (is_cons(o))
        return boolean(L, CAR(o) == S(QUOTE) && is_cons(CDR(o)) && CDR(CDR(o)) == NIL);
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

const PrimDef symbol_prims[] = {
    {"SYMBOLP", PK_CL, prim_symbolp, 1, 1, 0, "(object)", "True when OBJECT is a symbol."},
    {"KEYWORDP", PK_CL, prim_keywordp, 1, 1, 0, "(object)", "True when OBJECT is a symbol of the KEYWORD package."},
    {"SYMBOL-NAME", PK_CL, prim_symbol_name, 1, 1, 0, "(symbol)", "The name of SYMBOL, a string."},
    {"SYMBOL-PACKAGE", PK_CL, prim_symbol_package, 1, 1, 0, "(symbol)", "The home package of SYMBOL, or NIL when it is uninterned."},
    {"SYMBOL-VALUE", PK_CL, prim_symbol_value, 1, 1, 0, "(symbol)", "The current dynamic value of SYMBOL (or the value of a constant); SETF-able."},
    {"BOUNDP", PK_CL, prim_boundp, 1, 1, 0, "(symbol)", "True when SYMBOL has a global (or current dynamic) value."},
    {"SET", PK_CL, prim_set, 2, 2, 0, "(symbol value)", "Sets the dynamic (special) value of SYMBOL to VALUE and returns VALUE."},
    {"MAKUNBOUND", PK_CL, prim_makunbound, 1, 1, 0, "(symbol)", "Makes SYMBOL have no value and returns SYMBOL."},
    {"SYMBOL-FUNCTION", PK_CL, prim_symbol_function, 1, 1, 0, "(symbol)", "The global function, macro or special operator definition of SYMBOL; SETF-able."},
    {"SYMBOL-PLIST", PK_CL, prim_symbol_plist, 1, 1, 0, "(symbol)", "The property list of SYMBOL; SETF-able."},
    {"%SET-SYMBOL-PLIST", PK_SYS, prim_pct_set_symbol_plist, 2, 2, 0, "(symbol plist)", NULL},
    {"GET", PK_CL, prim_get, 2, 3, 0, "(symbol indicator &optional default)", "The value of INDICATOR in SYMBOL's property list, or DEFAULT when absent; SETF-able."},
    {"%PUT", PK_SYS, prim_pct_put, 3, 3, 0, "(symbol indicator value)", NULL},
    {"REMPROP", PK_CL, prim_remprop, 2, 2, 0, "(symbol indicator)", "Removes INDICATOR and its value from SYMBOL's property list; true when it was there."},
    {"MAKE-SYMBOL", PK_CL, prim_make_symbol, 1, 1, 0, "(name)", "A new uninterned symbol whose name is the string NAME."},
    {"COPY-SYMBOL", PK_CL, prim_copy_symbol, 1, 2, 0, "(symbol &optional copy-properties)", "A new uninterned symbol with SYMBOL's name; with COPY-PROPERTIES true, also a copy of its value, function and property list."},
    {"GENSYM", PK_CL, prim_gensym, 0, 1, 0, "(&optional x)", "A new uninterned symbol named from a prefix (default G) and the counter *GENSYM-COUNTER*, which is then incremented; X is a string prefix, or an integer used instead of the counter."},
    {"GENTEMP", PK_CL, prim_gentemp, 0, 2, 0, "(&optional prefix package)", "A new symbol interned in PACKAGE, named PREFIX (default T) followed by a counter, chosen so that it did not exist before."},
    {"%PROCLAIM-SPECIAL", PK_SYS, prim_pct_proclaim_special, 1, 1, 0, "(symbol)", NULL},
    {"%DEFCONSTANT", PK_SYS, prim_pct_defconstant, 2, 2, 0, "(symbol value)", NULL},
    {"CONSTANTP", PK_CL, prim_constantp, 1, 2, 0, "(form &optional environment)", "True when FORM always evaluates to the same value."},
    {"%CONSTANT-FORM-P", PK_SYS, prim_constantp_symbol, 1, 1, 0, "(form)", NULL},
    {"%SYMBOL-SPECIAL-P", PK_SYS, prim_pct_symbol_special_p, 1, 1, 0, "(symbol)", NULL},
    {"%DEFINE-SYMBOL-MACRO", PK_SYS, prim_pct_define_symbol_macro, 2, 2, 0, "(symbol expansion)", NULL},
    {0},
};

void symbol_init(Lisp *L) { prims_register(L, symbol_prims); }
