/* snapshot.c: the state of every package and symbol after boot, so that a session reset is exact. */
#include "snapshot.h"
#include "prim.h"
#include "package.h"
#include "hash.h"
#include "array.h"

/* A snapshot is a simple vector:
 *   [0] list of packages existing at boot
 *   [1] list of package records: (package name nicknames use-list shadowing (flags . doc) . ((symbol . external-p) ...))
 *   [2] simple vector of symbol records, 6 slots each: symbol value function plist setf-function flags+package
 * Everything lives in collected memory, reachable from L->boot_snapshot. */

typedef struct Collect { Lisp *L; Obj seen; Obj records; Obj present; bool external; Obj pkg; } Collect;

static void collect_symbol(Lisp *L, Obj sym, void *vctx) {
    Collect *c = (Collect *)vctx;
    c->present = cons(L, cons(L, sym, boolean(L, c->external)), c->present);
    if (hash_get(L, c->seen, sym, NIL) != NIL) return;
    hash_put(L, c->seen, sym, S(T));
    Symbol *s = symbol_data(L, sym);
    Obj rec = make_vector(L, 6, NIL);
    VEC(rec)->data[0] = sym;
    VEC(rec)->data[1] = s->value;
    VEC(rec)->data[2] = s->function;
    VEC(rec)->data[3] = s->plist;
    VEC(rec)->data[4] = s->setf_function;
    VEC(rec)->data[5] = cons(L, FIX(s->h.flags), s->package);
    c->records = cons(L, rec, c->records);
}

Obj snapshot_take(Lisp *L) {
    Collect c = {L, hash_new(L, HT_EQ, 8192), NIL, NIL, false, NIL};
    Obj pkgrecs = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        Obj p = CAR(l);
        c.present = NIL;
        c.pkg = p;
        c.external = false;
        symtable_each(&PKG(p)->internal, collect_symbol, L, &c);
        c.external = true;
        symtable_each(&PKG(p)->external, collect_symbol, L, &c);
        Obj rec = cons(L, p, cons(L, PKG(p)->name, cons(L, PKG(p)->nicknames, cons(L, PKG(p)->use_list,
                       cons(L, PKG(p)->shadowing, cons(L, cons(L, FIX(PKG(p)->h.flags), PKG(p)->doc), c.present))))));
        pkgrecs = cons(L, rec, pkgrecs);
    }
    Obj snap = make_vector(L, 3, NIL);
    Obj pkgs = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) pkgs = cons(L, CAR(l), pkgs);
    VEC(snap)->data[0] = pkgs;
    VEC(snap)->data[1] = pkgrecs;
    VEC(snap)->data[2] = c.records;
    return snap;
}

static bool member_eq(Obj x, Obj list) {
    for (; is_cons(list); list = CDR(list))
        if (CAR(list) == x) return true;
    return false;
}

static void clear_table(Lisp *L, SymTable *t) {
    (void)L;
    t->count = t->used = t->cap = 0;
    t->syms = NULL;
}

void snapshot_restore(Lisp *L, Obj snap, Obj keep_packages) {
    Obj boot_pkgs = VEC(snap)->data[0];
    /* 1. packages created since boot disappear, except those the caller keeps (loaded systems) */
    Obj kept = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        Obj p = CAR(l);
        if (member_eq(p, boot_pkgs) || member_eq(p, keep_packages)) kept = cons(L, p, kept);
        else PKG(p)->name = NIL; /* deleted: package objects still referenced see a deleted package */
    }
    L->packages = NIL;
    for (Obj l = kept; l != NIL; l = CDR(l)) L->packages = cons(L, CAR(l), L->packages);
    /* 2. boot packages get back their names, uses and exactly their boot symbols */
    for (Obj r = VEC(snap)->data[1]; r != NIL; r = CDR(r)) {
        Obj rec = CAR(r);
        Obj p = CAR(rec);
        Obj rest = CDR(rec);
        Package *pk = PKG(p);
        pk->name = CAR(rest); rest = CDR(rest);
        pk->nicknames = CAR(rest); rest = CDR(rest);
        pk->use_list = CAR(rest); rest = CDR(rest);
        pk->shadowing = CAR(rest); rest = CDR(rest);
        pk->h.flags = (uint8_t)fixnum_val(CAR(CAR(rest)));
        pk->doc = CDR(CAR(rest));
        rest = CDR(rest);
        pk->local_nicknames = NIL;
        clear_table(L, &pk->internal);
        clear_table(L, &pk->external);
        for (Obj s = rest; s != NIL; s = CDR(s)) package_add_symbol(L, p, CAR(CAR(s)), CDR(CAR(s)) != NIL);
    }
    /* kept system packages may use boot packages; used-by lists are rebuilt from use lists */
    for (Obj l = L->packages; l != NIL; l = CDR(l)) PKG(CAR(l))->used_by = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        for (Obj u = PKG(CAR(l))->use_list; u != NIL; u = CDR(u))
            PKG(CAR(u))->used_by = cons(L, CAR(l), PKG(CAR(u))->used_by);
    /* 3. every boot symbol gets back its cells */
    for (Obj r = VEC(snap)->data[2]; r != NIL; r = CDR(r)) {
        Obj rec = CAR(r);
        Symbol *s = symbol_data(L, VEC(rec)->data[0]);
        s->value = VEC(rec)->data[1];
        s->function = VEC(rec)->data[2];
        s->plist = VEC(rec)->data[3];
        s->setf_function = VEC(rec)->data[4];
        s->h.flags = (uint8_t)fixnum_val(CAR(VEC(rec)->data[5]));
        s->package = CDR(VEC(rec)->data[5]);
    }
}

bool snapshot_boot_package_p(Lisp *L, Obj snap, Obj pkg) {
    (void)L;
    return member_eq(pkg, VEC(snap)->data[0]);
}

/* (sys:%boot-packages) -> the packages that existed when the session started */
DEFPRIM(prim_pct_boot_packages) {
    UNUSED_ARGS;
    return L->boot_snapshot == NIL ? NIL : VEC(L->boot_snapshot)->data[0];
}

/* (sys:%boot-symbol-p symbol) -> true if SYMBOL existed when the session started */
DEFPRIM(prim_pct_boot_symbol_p) {
    UNUSED_ARGS;
    if (L->boot_snapshot == NIL) return NIL;
    if (L->boot_symbols == NIL) {
        Obj h = hash_new(L, HT_EQ, 8192);
        for (Obj r = VEC(L->boot_snapshot)->data[2]; r != NIL; r = CDR(r)) hash_put(L, h, VEC(CAR(r))->data[0], S(T));
        L->boot_symbols = h;
    }
    return hash_get(L, L->boot_symbols, args[0], NIL);
}

typedef struct Own { Obj pkg; Obj out; } Own;

static void collect_own(Lisp *L, Obj sym, void *vctx) {
    Own *o = (Own *)vctx;
    if (symbol_data(L, sym)->package == o->pkg) o->out = cons(L, sym, o->out);
}

/* (sys:%package-own-symbols package) -> the symbols whose home is PACKAGE */
DEFPRIM(prim_pct_package_own_symbols) {
    UNUSED_ARGS;
    Obj p = package_designated(L, args[0]);
    Own o = {p, NIL};
    symtable_each(&PKG(p)->internal, collect_own, L, &o);
    symtable_each(&PKG(p)->external, collect_own, L, &o);
    return o.out;
}

static const PrimDef snapshot_prims[] = {
    {"%BOOT-PACKAGES", PK_SYS, prim_pct_boot_packages, 0, 0, 0, "()", NULL},
    {"%BOOT-SYMBOL-P", PK_SYS, prim_pct_boot_symbol_p, 1, 1, 0, "(symbol)", NULL},
    {"%PACKAGE-OWN-SYMBOLS", PK_SYS, prim_pct_package_own_symbols, 1, 1, 0, "(package)", NULL},
    {0},
};

void snapshot_init(Lisp *L) {
    L->boot_snapshot = NIL;
    L->boot_symbols = NIL;
    prims_register(L, snapshot_prims);
}
