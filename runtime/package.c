/* package.c: packages and symbol tables: creation, lookup, interning, export, import, use. */
#include "package.h"
#include "gc.h"
#include "lstring.h"
#include "error.h"
#include "control.h"

/* ---- symbol tables ---- */

static uint64_t name_hash(const uint32_t *s, size_t n) { return string_hash_u32(s, n); }

static bool sym_name_is(Obj sym, const uint32_t *s, size_t n) {
    Obj name = sym == NIL ? NULL : SYM(sym)->name;
    String *str = name ? STR(name) : NULL;
    if (!str) { /* NIL */
        static const uint32_t nil_name[] = {'N', 'I', 'L'};
        return n == 3 && memcmp(s, nil_name, 12) == 0;
    }
    return str->len == n && (n == 0 || memcmp(str->data, s, n * 4) == 0);
}

static uint64_t sym_hash(Lisp *L, Obj sym) {
    return symbol_data(L, sym)->hash;
}

static Obj symtable_get(Lisp *L, SymTable *t, const uint32_t *s, size_t n, uint64_t h) {
    (void)L;
    if (!t->cap) return NO_VALUE;
    size_t mask = t->cap - 1;
    for (size_t i = h & mask, k = 0; k < t->cap; i = (i + 1) & mask, k++) {
        Obj e = t->syms[i];
        if (e == NO_VALUE) return NO_VALUE;
        if (e != TOMBSTONE && sym_name_is(e, s, n)) return e;
    }
    return NO_VALUE;
}

static void symtable_put_raw(Lisp *L, SymTable *t, Obj sym) {
    size_t mask = t->cap - 1;
    for (size_t i = sym_hash(L, sym) & mask;; i = (i + 1) & mask) {
        if (t->syms[i] == NO_VALUE) { t->syms[i] = sym; t->used++; return; }
        if (t->syms[i] == TOMBSTONE) { t->syms[i] = sym; return; }
    }
}

static void symtable_grow(Lisp *L, SymTable *t) {
    size_t old = t->cap;
    Obj *olds = t->syms;
    t->cap = old ? (t->count * 2 + 2 > old / 2 ? old * 2 : old) : 16;
    t->syms = (Obj *)gc_alloc(L, t->cap * sizeof(Obj));
    for (size_t i = 0; i < t->cap; i++) t->syms[i] = NO_VALUE;
    t->count = 0;
    t->used = 0;
    for (size_t i = 0; i < old; i++)
        if (olds[i] != NO_VALUE && olds[i] != TOMBSTONE) { symtable_put_raw(L, t, olds[i]); t->count++; }
}

static void symtable_put(Lisp *L, SymTable *t, Obj sym) {
    if ((t->used + 1) * 4 >= t->cap * 3) symtable_grow(L, t);
    symtable_put_raw(L, t, sym);
    t->count++;
}

static bool symtable_remove(Lisp *L, SymTable *t, Obj sym) {
    if (!t->cap) return false;
    size_t mask = t->cap - 1;
    for (size_t i = sym_hash(L, sym) & mask, k = 0; k < t->cap; i = (i + 1) & mask, k++) {
        Obj e = t->syms[i];
        if (e == NO_VALUE) return false;
        if (e == sym) { t->syms[i] = TOMBSTONE; t->count--; return true; }
    }
    return false;
}

void symtable_each(SymTable *t, void (*fn)(Lisp *, Obj, void *), Lisp *L, void *ctx) {
    for (size_t i = 0; i < t->cap; i++)
        if (t->syms[i] != NO_VALUE && t->syms[i] != TOMBSTONE) fn(L, t->syms[i], ctx);
}

/* ---- symbols ---- */

Obj symbol_new(Lisp *L, Obj name) {
    Symbol *s = (Symbol *)heap_alloc(L, T_SYMBOL, sizeof(Symbol));
    s->name = name;
    s->package = NIL;
    s->value = UNBOUND;
    s->function = UNBOUND;
    s->plist = NIL;
    s->setf_function = UNBOUND;
    s->hash = name_hash(STR(name)->data, STR(name)->len);
    return (Obj)s;
}

Symbol *symbol_data(Lisp *L, Obj sym) {
    return sym == NIL ? &L->nil_sym : SYM(sym);
}

bool is_keyword(Lisp *L, Obj sym) {
    return is_type(sym, T_SYMBOL) && SYM(sym)->package == L->pkg_keyword;
}

void check_package_lock(Lisp *L, Obj sym, const char *what) {
    if (!L->boot_phase) return;
    Obj pkg = symbol_data(L, sym)->package;
    if (pkg != NIL && (((Header *)pkg)->flags & PKG_LOCKED))
        err_package(L, pkg, "Lock on package %A violated when %s %S.", PKG(pkg)->name, what, sym);
}

/* ---- packages ---- */

Obj package_new(Lisp *L, Obj name, Obj nicknames) {
    Package *p = (Package *)heap_alloc(L, T_PACKAGE, sizeof(Package));
    p->name = name;
    p->nicknames = nicknames;
    p->use_list = p->used_by = p->shadowing = NIL;
    p->doc = NIL;
    p->local_nicknames = NIL;
    p->serial = ++L->package_serial;
    Obj pkg = (Obj)p;
    L->packages = cons(L, pkg, L->packages);
    return pkg;
}

static bool package_has_name(Obj pkg, const uint32_t *s, size_t n) {
    Package *p = PKG(pkg);
    if (p->name == NIL) return false;
    String *nm = STR(p->name);
    if (nm->len == n && memcmp(nm->data, s, n * 4) == 0) return true;
    for (Obj l = p->nicknames; l != NIL; l = CDR(l)) {
        String *k = STR(CAR(l));
        if (k->len == n && memcmp(k->data, s, n * 4) == 0) return true;
    }
    return false;
}

static Obj package_find_u32(Lisp *L, const uint32_t *s, size_t n) {
    /* package-local nicknames of the current package come first */
    Obj cur = SYM(S(PACKAGE_VAR))->value;
    if (is_type(cur, T_PACKAGE)) {
        for (Obj l = PKG(cur)->local_nicknames; l != NIL; l = CDR(l)) {
            String *k = STR(CAR(CAR(l)));
            if (k->len == n && memcmp(k->data, s, n * 4) == 0) return CDR(CAR(l));
        }
    }
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        if (package_has_name(CAR(l), s, n)) return CAR(l);
    return NIL;
}

Obj package_find(Lisp *L, Obj name) { return package_find_u32(L, STR(name)->data, STR(name)->len); }

Obj package_find_cstr(Lisp *L, const char *name) { return package_find(L, string_from_cstr(L, name)); }

Obj package_designated(Lisp *L, Obj d) {
    if (is_type(d, T_PACKAGE)) {
        if (PKG(d)->name == NIL) err_package(L, d, "The package %S has been deleted.", d);
        return d;
    }
    if (!is_string(d) && !is_symbol(d) && !is_char(d)) err_type(L, d, S(PACKAGE));
    Obj name = string_designator(L, d);
    Obj p = package_find(L, name);
    if (p == NIL) err_package(L, name, "The name %S does not designate any package.", name);
    return p;
}

Obj current_package(Lisp *L) {
    Obj p = SYM(S(PACKAGE_VAR))->value;
    if (!is_type(p, T_PACKAGE) || PKG(p)->name == NIL) {
        /* never let a bad *package* wedge the system */
        SYM(S(PACKAGE_VAR))->value = L->pkg_cl_user;
        err_type(L, p, S(PACKAGE));
    }
    return p;
}

Obj package_find_symbol(Lisp *L, Obj pkg, const uint32_t *s, size_t n, int *status) {
    Package *p = PKG(pkg);
    uint64_t h = name_hash(s, n);
    Obj sym = symtable_get(L, &p->external, s, n, h);
    if (sym != NO_VALUE) { *status = FIND_EXTERNAL; return sym; }
    sym = symtable_get(L, &p->internal, s, n, h);
    if (sym != NO_VALUE) { *status = FIND_INTERNAL; return sym; }
    for (Obj l = p->use_list; l != NIL; l = CDR(l)) {
        sym = symtable_get(L, &PKG(CAR(l))->external, s, n, h);
        if (sym != NO_VALUE) { *status = FIND_INHERITED; return sym; }
    }
    *status = FIND_NONE;
    return NIL;
}

void package_add_symbol(Lisp *L, Obj pkg, Obj sym, bool external) {
    symtable_put(L, external ? &PKG(pkg)->external : &PKG(pkg)->internal, sym);
}

bool package_remove_symbol(Lisp *L, Obj pkg, Obj sym) {
    bool a = symtable_remove(L, &PKG(pkg)->external, sym);
    bool b = symtable_remove(L, &PKG(pkg)->internal, sym);
    return a || b;
}

Obj package_intern(Lisp *L, Obj pkg, const uint32_t *s, size_t n, int *status) {
    Obj sym = package_find_symbol(L, pkg, s, n, status);
    if (*status != FIND_NONE) return sym;
    sym = symbol_new(L, string_from_u32(L, s, n));
    SYM(sym)->package = pkg;
    if (pkg == L->pkg_keyword) {
        SYM(sym)->value = sym;
        SYM(sym)->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
        package_add_symbol(L, pkg, sym, true);
    } else {
        package_add_symbol(L, pkg, sym, false);
    }
    return sym;
}

Obj package_intern_string(Lisp *L, Obj pkg, Obj name, int *status) {
    return package_intern(L, pkg, STR(name)->data, STR(name)->len, status);
}

Obj intern_cstr(Lisp *L, Obj pkg, const char *name) {
    Obj str = string_from_cstr(L, name);
    int st;
    return package_intern_string(L, pkg, str, &st);
}

Obj keyword(Lisp *L, const char *name) { return intern_cstr(L, L->pkg_keyword, name); }

/* Name conflicts are checked by the Lisp-visible operations; these are the mechanisms. */
void package_export(Lisp *L, Obj pkg, Obj sym) {
    Package *p = PKG(pkg);
    symtable_remove(L, &p->internal, sym);
    symtable_remove(L, &p->external, sym);
    symtable_put(L, &p->external, sym);
}

void package_import(Lisp *L, Obj pkg, Obj sym) {
    Symbol *sd = symbol_data(L, sym);
    int st;
    package_find_symbol(L, pkg, STR(sd->name)->data, STR(sd->name)->len, &st);
    if (st == FIND_INTERNAL || st == FIND_EXTERNAL) return;
    symtable_put(L, &PKG(pkg)->internal, sym);
    if (sd->package == NIL) sd->package = pkg;
}

void package_use(Lisp *L, Obj pkg, Obj used) {
    for (Obj l = PKG(pkg)->use_list; l != NIL; l = CDR(l))
        if (CAR(l) == used) return;
    PKG(pkg)->use_list = cons(L, used, PKG(pkg)->use_list);
    PKG(used)->used_by = cons(L, pkg, PKG(used)->used_by);
}

/* ---- primitives ---- */
#include "prim.h"

static Obj status_keyword(Lisp *L, int st) {
    switch (st) {
    case FIND_INTERNAL: return S(K_INTERNAL);
    case FIND_EXTERNAL: return S(K_EXTERNAL);
    case FIND_INHERITED: return S(K_INHERITED);
    default: return NIL;
    }
}

static Obj pkg_arg(Lisp *L, int nargs, Obj *args, int i) {
    return i < nargs ? package_designated(L, args[i]) : current_package(L);
}

DEFPRIM(prim_find_package) {
    UNUSED_ARGS;
    if (is_type(args[0], T_PACKAGE)) return args[0];
    return package_find(L, string_designator(L, args[0]));
}

DEFPRIM(prim_pct_find_package_or_lose) { UNUSED_ARGS; return package_designated(L, args[0]); }
DEFPRIM(prim_packagep) { UNUSED_ARGS; return boolean(L, is_type(args[0], T_PACKAGE)); }

DEFPRIM(prim_package_name) {
    UNUSED_ARGS;
    Obj p = args[0];
    if (!is_type(p, T_PACKAGE)) p = package_designated(L, p);
    return PKG(p)->name;
}

DEFPRIM(prim_list_all_packages) {
    UNUSED_ARGS;
    Obj r = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) r = cons(L, CAR(l), r);
    return r;
}

DEFPRIM(prim_intern) {
    Obj name = check_string(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    int st;
    Obj sym = package_find_symbol(L, pkg, STR(name)->data, STR(name)->len, &st);
    if (st != FIND_NONE) return values2(L, sym, status_keyword(L, st));
    sym = package_intern(L, pkg, STR(name)->data, STR(name)->len, &st);
    return values2(L, sym, NIL);
}

DEFPRIM(prim_find_symbol) {
    Obj name = check_string(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    int st;
    Obj sym = package_find_symbol(L, pkg, STR(name)->data, STR(name)->len, &st);
    return values2(L, sym, status_keyword(L, st));
}

static const PrimDef package_prims[] = {
    {"FIND-PACKAGE", PK_CL, prim_find_package, 1, 1, 0, "(name)", NULL},
    {"%FIND-PACKAGE-OR-LOSE", PK_SYS, prim_pct_find_package_or_lose, 1, 1, 0, "(designator)", NULL},
    {"PACKAGEP", PK_CL, prim_packagep, 1, 1, 0, "(object)", NULL},
    {"PACKAGE-NAME", PK_CL, prim_package_name, 1, 1, 0, "(package)", NULL},
    {"LIST-ALL-PACKAGES", PK_CL, prim_list_all_packages, 0, 0, 0, "()", NULL},
    {"INTERN", PK_CL, prim_intern, 1, 2, FN_MV, "(string &optional package)", NULL},
    {"FIND-SYMBOL", PK_CL, prim_find_symbol, 1, 2, FN_MV, "(string &optional package)", NULL},
    {0},
};

void package_init(Lisp *L) { prims_register(L, package_prims); }
