/* package.c: packages (CLHS chapter 11): symbol tables, lookup, interning, the package operations
 * with their name-conflict checks, package locks, package-local nicknames, DEFPACKAGE's engine. */
#include "package.h"
#include "snapshot.h"
#include "gc.h"
#include "lstring.h"
#include "error.h"
#include "control.h"
#include "printer.h"
#include "list.h"

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
    size_t cap = old ? (t->count * 2 + 2 > old / 2 ? old * 2 : old) : 16;
    /* allocate before touching the table: a heap error here must leave it as it was (a new
     * capacity with the old array made lookups read past it; found by the reader fuzzer) */
    Obj *syms = (Obj *)gc_alloc(L, cap * sizeof(Obj));
    for (size_t i = 0; i < cap; i++) syms[i] = NO_VALUE;
    t->cap = cap;
    t->syms = syms;
    t->count = 0;
    t->used = 0;
    for (size_t i = 0; i < old; i++)
        if (olds[i] != NO_VALUE && olds[i] != TOMBSTONE) { symtable_put_raw(L, t, olds[i]); t->count++; }
    gc_forget_array(olds, old, NO_VALUE);
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

static bool symtable_has(Lisp *L, SymTable *t, Obj sym) {
    Obj name = symbol_data(L, sym)->name;
    return symtable_get(L, t, STR(name)->data, STR(name)->len, sym_hash(L, sym)) == sym;
}

int package_symbol_status(Lisp *L, Obj pkg, Obj sym) {
    if (symtable_has(L, &PKG(pkg)->external, sym)) return 2;
    return symtable_has(L, &PKG(pkg)->internal, sym) ? 1 : 0;
}

/* Every change to a package's tables passes here first: while a system load is being captured,
 * the snapshot's journal notes which symbol of which package is about to change (snapshot.c). */
static inline void table_touch(Lisp *L, Obj pkg, Obj sym) {
    package_tables_changed(pkg);
    if (UNLIKELY(L->captures_open > 0)) snapshot_note_table_change(L, pkg, sym, package_symbol_status(L, pkg, sym));
}

void symtable_each(SymTable *t, void (*fn)(Lisp *, Obj, void *), Lisp *L, void *ctx) {
    for (size_t i = 0; i < t->cap; i++)
        if (t->syms[i] != NO_VALUE && t->syms[i] != TOMBSTONE) fn(L, t->syms[i], ctx);
}

/* Iterate over a table: for (SYMTABLE_EACH(t, i, sym)) { ... } */
#define SYMTABLE_EACH_BEGIN(t, sym)                                        \
    for (size_t _i = 0; _i < (t)->cap; _i++) {                             \
        Obj sym = (t)->syms[_i];                                           \
        if (sym == NO_VALUE || sym == TOMBSTONE) continue;
#define SYMTABLE_EACH_END }

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

/* ---- errors ---- */

/* MSG as a format control (tildes doubled) with no arguments, before INITARGS */
static Obj message_initargs(Lisp *L, Obj initargs, Obj msg) {
    String *s = STR(msg);
    size_t tildes = 0;
    for (size_t i = 0; i < s->len; i++) tildes += s->data[i] == '~';
    Obj ctl = msg;
    if (tildes) {
        StrBuf b;
        sb_init(L, &b, s->len + tildes);
        for (size_t i = 0; i < s->len; i++) {
            sb_putc(L, &b, s->data[i]);
            if (s->data[i] == '~') sb_putc(L, &b, '~');
        }
        ctl = sb_to_string(L, &b);
    }
    return cons(L, S(K_FORMAT_CONTROL), cons(L, ctl, cons(L, S(K_FORMAT_ARGUMENTS), cons(L, NIL, initargs))));
}

_Noreturn void err_with_message(Lisp *L, Obj type, Obj initargs, Obj msg) {
    err_condition(L, type, message_initargs(L, initargs, msg));
}

/* A correctable package error: returns when the CONTINUE restart (reported as CONT) is taken. */
static void cerror_with_message(Lisp *L, const char *cont, Obj type, Obj initargs, Obj msg) {
    err_continuable(L, string_from_cstr(L, cont), type, message_initargs(L, initargs, msg));   /* CONT has no tildes */
}

static Obj designator_type(Lisp *L) {
    return cons(L, S(OR), cons(L, S(STRING), cons(L, S(SYMBOL), cons(L, S(CHARACTER), cons(L, S(PACKAGE), NIL)))));
}

_Noreturn static void err_no_package(Lisp *L, Obj name) {
    err_with_message(L, S(EXT_PACKAGE_DOES_NOT_EXIST), list2(L, S(K_PACKAGE), name),
                     msg_format(L, "The name %S does not designate any package.", name));
}

_Noreturn static void pkg_error(Lisp *L, Obj pkg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Obj msg = msg_vformat(L, fmt, ap);
    va_end(ap);
    err_with_message(L, S(P_SIMPLE_PACKAGE_ERROR), list2(L, S(K_PACKAGE), pkg), msg);
}

static void pkg_cerror(Lisp *L, const char *cont, Obj pkg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Obj msg = msg_vformat(L, fmt, ap);
    va_end(ap);
    cerror_with_message(L, cont, S(P_SIMPLE_PACKAGE_ERROR), list2(L, S(K_PACKAGE), pkg), msg);
}

/* SYM printed with its package prefix whatever the current package (SBCL's print-symbol-with-prefix). */
static Obj qualified_name(Lisp *L, Obj sym) {
    size_t sp = L->special_sp;
    bind_special(L, S(PACKAGE_VAR), L->pkg_keyword);
    Obj s = prin1_to_string(L, sym);
    unbind_specials(L, sp);
    return s;
}

static Obj name_conflict_message(Lisp *L, Obj pkg, const char *fn, Obj datum, Obj syms, Obj *initargs) {
    StrBuf b;
    sb_init(L, &b, 128);
    sb_put_string(L, &b, msg_format(L, "%s %S causes name-conflicts in %S between the following symbols:\n  ",
                                     fn, datum, pkg));
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        sb_put_string(L, &b, qualified_name(L, CAR(l)));
        if (CDR(l) != NIL) sb_puts(L, &b, ", ");
    }
    *initargs = cons(L, S(K_PACKAGE), cons(L, pkg, cons(L, S(K_FUNCTION), cons(L, intern_cstr(L, L->pkg_cl, fn),
                     cons(L, S(K_DATUM), cons(L, datum, cons(L, S(K_SYMBOLS), cons(L, syms, NIL))))))));
    return sb_to_string(L, &b);
}

_Noreturn static void err_name_conflict(Lisp *L, Obj pkg, const char *fn, Obj datum, Obj syms) {
    Obj initargs;
    Obj msg = name_conflict_message(L, pkg, fn, datum, syms, &initargs);
    err_with_message(L, S(EXT_NAME_CONFLICT), initargs, msg);
}

/* Name conflicts are correctable (CLHS 11.1.1.2.5): returns when CONTINUE is taken. */
static void cerror_name_conflict(Lisp *L, const char *cont, Obj pkg, const char *fn, Obj datum, Obj syms) {
    Obj initargs;
    Obj msg = name_conflict_message(L, pkg, fn, datum, syms, &initargs);
    cerror_with_message(L, cont, S(EXT_NAME_CONFLICT), initargs, msg);
}

/* ---- package locks ---- */

bool package_locks_active(Lisp *L) {
    if (!L->boot_phase) return false;
    Obj v = SYM(S(P_IGNORE_PACKAGE_LOCKS))->value;
    return v == NIL || v == UNBOUND;
}

static Obj current_package_name(Lisp *L) {
    Obj cur = SYM(S(PACKAGE_VAR))->value;
    return is_type(cur, T_PACKAGE) && PKG(cur)->name != NIL ? PKG(cur)->name : string_from_cstr(L, "?");
}

/* PKG is locked (or, with PROTECTED, merely protected): signal PACKAGE-LOCKED-ERROR for WHAT. */
static void pkg_lock_check(Lisp *L, Obj pkg, bool protected_too, Obj what) {
    uint8_t f = ((Header *)pkg)->flags;
    bool prot = protected_too && (f & PKG_PROTECTED);
    bool lock = (f & PKG_LOCKED) && package_locks_active(L);
    if ((!prot && !lock) || !L->boot_phase) return;
    err_with_message(L, S(EXT_PACKAGE_LOCKED_ERROR), list2(L, S(K_PACKAGE), pkg),
                     msg_format(L, "Lock on package %A violated when %A while in package %A.",
                                PKG(pkg)->name, what, current_package_name(L)));
}

static bool pkg_locked(Lisp *L, Obj pkg) {
    return (((Header *)pkg)->flags & PKG_LOCKED) && package_locks_active(L);
}

void check_package_lock(Lisp *L, Obj sym, const char *what) {
    if (!package_locks_active(L)) return;
    Obj pkg = symbol_data(L, sym)->package;
    if (pkg != NIL && (((Header *)pkg)->flags & PKG_LOCKED))
        err_with_message(L, S(EXT_SYMBOL_PACKAGE_LOCKED_ERROR),
                         cons(L, S(K_PACKAGE), cons(L, pkg, list2(L, S(K_SYMBOL), sym))),
                         msg_format(L, "Lock on package %A violated when %s %S while in package %A.",
                                    PKG(pkg)->name, what, sym, current_package_name(L)));
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

static bool str_is(Obj str, const uint32_t *s, size_t n) {
    String *k = STR(str);
    return k->len == n && (n == 0 || memcmp(k->data, s, n * 4) == 0);
}

static bool package_has_name(Obj pkg, const uint32_t *s, size_t n) {
    Package *p = PKG(pkg);
    if (p->name == NIL) return false;
    if (str_is(p->name, s, n)) return true;
    for (Obj l = p->nicknames; l != NIL; l = CDR(l))
        if (str_is(CAR(l), s, n)) return true;
    return false;
}

/* By global name or nickname only. */
static Obj package_find_global(Lisp *L, Obj name) {
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        if (package_has_name(CAR(l), STR(name)->data, STR(name)->len)) return CAR(l);
    return NIL;
}

static Obj package_find_u32(Lisp *L, const uint32_t *s, size_t n) {
    /* package-local nicknames of the current package come first */
    Obj cur = SYM(S(PACKAGE_VAR))->value;
    if (is_type(cur, T_PACKAGE)) {
        for (Obj l = PKG(cur)->local_nicknames; l != NIL; l = CDR(l))
            if (str_is(CAR(CAR(l)), s, n)) return CDR(CAR(l));
    }
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        if (package_has_name(CAR(l), s, n)) return CAR(l);
    return NIL;
}

Obj package_find(Lisp *L, Obj name) { return package_find_u32(L, STR(name)->data, STR(name)->len); }

Obj package_find_cstr(Lisp *L, const char *name) { return package_find(L, string_from_cstr(L, name)); }

static Obj check_package_designator(Lisp *L, Obj d) {
    if (!is_any_string(d) && !is_symbol(d) && !is_char(d) && !is_type(d, T_PACKAGE)) err_type(L, d, designator_type(L));
    return d;
}

Obj package_designated(Lisp *L, Obj d) {
    if (is_type(d, T_PACKAGE)) {
        if (PKG(d)->name == NIL)
            err_with_message(L, S(EXT_PACKAGE_DOES_NOT_EXIST), list2(L, S(K_PACKAGE), d),
                             msg_format(L, "The package %S has been deleted.", d));
        return d;
    }
    check_package_designator(L, d);
    Obj name = string_designator(L, d);
    Obj p = package_find(L, name);
    if (p == NIL) err_no_package(L, string_from_u32(L, STR(name)->data, STR(name)->len));
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

static Obj find_by_name(Lisp *L, Obj pkg, Obj name, int *st) {
    return package_find_symbol(L, pkg, STR(name)->data, STR(name)->len, st);
}

/* The symbol named NAME present (internal or external) in PKG, or NO_VALUE. */
static Obj present_symbol(Lisp *L, Obj pkg, Obj name, bool *external) {
    uint64_t h = name_hash(STR(name)->data, STR(name)->len);
    Obj sym = symtable_get(L, &PKG(pkg)->external, STR(name)->data, STR(name)->len, h);
    if (sym != NO_VALUE) { if (external) *external = true; return sym; }
    if (external) *external = false;
    return symtable_get(L, &PKG(pkg)->internal, STR(name)->data, STR(name)->len, h);
}

void package_add_symbol(Lisp *L, Obj pkg, Obj sym, bool external) {
    table_touch(L, pkg, sym);
    symtable_put(L, external ? &PKG(pkg)->external : &PKG(pkg)->internal, sym);
}

bool package_remove_symbol(Lisp *L, Obj pkg, Obj sym) {
    table_touch(L, pkg, sym);
    bool a = symtable_remove(L, &PKG(pkg)->external, sym);
    bool b = symtable_remove(L, &PKG(pkg)->internal, sym);
    return a || b;
}

Obj package_intern(Lisp *L, Obj pkg, const uint32_t *s, size_t n, int *status) {
    Obj sym = package_find_symbol(L, pkg, s, n, status);
    if (*status != FIND_NONE) return sym;
    Obj name = string_from_u32(L, s, n);
    if (pkg_locked(L, pkg)) pkg_lock_check(L, pkg, false, msg_format(L, "interning %A", name));
    sym = symbol_new(L, name);
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

Obj find_symbol_cstr(Lisp *L, Obj pkg, const char *name) {
    uint32_t buf[64];
    size_t n = strlen(name);
    if (n > 64) return NIL;
    for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)name[i];
    int status = 0;
    Obj sym = package_find_symbol(L, pkg, buf, n, &status);
    return status ? sym : NIL;
}

Obj keyword(Lisp *L, const char *name) { return intern_cstr(L, L->pkg_keyword, name); }

/* Mechanisms without checks (boot). */
void package_export(Lisp *L, Obj pkg, Obj sym) {
    Package *p = PKG(pkg);
    table_touch(L, pkg, sym);
    symtable_remove(L, &p->internal, sym);
    symtable_remove(L, &p->external, sym);
    symtable_put(L, &p->external, sym);
}

void package_import(Lisp *L, Obj pkg, Obj sym) {
    Symbol *sd = symbol_data(L, sym);
    int st;
    package_find_symbol(L, pkg, STR(sd->name)->data, STR(sd->name)->len, &st);
    if (st == FIND_INTERNAL || st == FIND_EXTERNAL) return;
    table_touch(L, pkg, sym);
    symtable_put(L, &PKG(pkg)->internal, sym);
    if (sd->package == NIL) sd->package = pkg;
}

static bool memq(Obj x, Obj l) {
    for (; is_cons(l); l = CDR(l))
        if (CAR(l) == x) return true;
    return false;
}

static Obj delq(Obj x, Obj l) {
    Obj head = l, prev = NIL;
    for (; is_cons(l); l = CDR(l)) {
        if (CAR(l) == x) {
            if (prev == NIL) head = CDR(l);
            else CDR(prev) = CDR(l);
        } else {
            prev = l;
        }
    }
    return head;
}

/* The lists a package's state holds (its use list, shadowing symbols, local nicknames) are shared
 * with the session's snapshot and checkpoints (snapshot.c records them as they are): they are
 * replaced, never changed in place, or a reset would give back the change. */
static Obj without_fresh(Lisp *L, Obj x, Obj l) {
    if (!memq(x, l)) return l;
    Obj head = NIL, tail = NIL;
    for (; is_cons(l); l = CDR(l)) {
        if (CAR(l) == x) continue;
        Obj cell = cons(L, CAR(l), NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        tail = cell;
    }
    return head;
}

/* The entries (nickname . package) of NICKS but those naming PKG: NICKS itself when none does. */
static Obj without_nicknames_of(Lisp *L, Obj nicks, Obj pkg) {
    Obj n = nicks;
    while (n != NIL && CDR(CAR(n)) != pkg) n = CDR(n);
    if (n == NIL) return nicks;
    Obj head = NIL, tail = NIL;
    for (; is_cons(nicks); nicks = CDR(nicks)) {
        if (CDR(CAR(nicks)) == pkg) continue;
        Obj cell = cons(L, CAR(nicks), NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        tail = cell;
    }
    return head;
}

static Obj with_last_fresh(Lisp *L, Obj l, Obj x) {
    Obj head = cons(L, x, NIL), tail = NIL;
    for (; is_cons(l); l = CDR(l)) {
        Obj cell = cons(L, CAR(l), NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        tail = cell;
    }
    if (tail != NIL) CDR(tail) = cons(L, x, NIL);
    return head;
}

static Obj append1(Lisp *L, Obj list, Obj x) {
    Obj cell = cons(L, x, NIL);
    if (list == NIL) return cell;
    Obj l = list;
    while (CDR(l) != NIL) l = CDR(l);
    CDR(l) = cell;
    return list;
}

void package_use(Lisp *L, Obj pkg, Obj used) {
    if (memq(used, PKG(pkg)->use_list)) return;
    PKG(pkg)->use_list = with_last_fresh(L, PKG(pkg)->use_list, used);
    PKG(used)->used_by = cons(L, pkg, PKG(used)->used_by);
}

/* ---- the checked operations ---- */

static bool is_shadowing(Obj pkg, Obj sym) { return memq(sym, PKG(pkg)->shadowing); }

/* Make SYM present and internal in PKG (it was inherited or absent); give it a home if it has none. */
static void make_present(Lisp *L, Obj pkg, Obj sym) {
    if (!symtable_has(L, &PKG(pkg)->internal, sym) && !symtable_has(L, &PKG(pkg)->external, sym)) {
        table_touch(L, pkg, sym);
        symtable_put(L, &PKG(pkg)->internal, sym);
    }
    Symbol *sd = symbol_data(L, sym);
    if (sd->package == NIL) sd->package = pkg;
}

/* Remove SYM from PKG entirely (tables and shadowing list); it loses its home if PKG was it. */
static void remove_present(Lisp *L, Obj pkg, Obj sym) {
    package_remove_symbol(L, pkg, sym);
    PKG(pkg)->shadowing = without_fresh(L, sym, PKG(pkg)->shadowing);
    Symbol *sd = symbol_data(L, sym);
    if (sd->package == pkg) sd->package = NIL;
}

void package_export_checked(Lisp *L, Obj pkg, Obj syms) {
    Obj name;
    int st;
    if (pkg_locked(L, pkg))
        for (Obj l = syms; l != NIL; l = CDR(l))
            pkg_lock_check(L, pkg, false, msg_format(L, "exporting symbol %S", CAR(l)));
    Obj missing = NIL;
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        name = symbol_name(L, CAR(l));
        Obj found = find_by_name(L, pkg, name, &st);
        if (st == FIND_NONE || found != CAR(l)) missing = cons(L, CAR(l), missing);
    }
    if (missing != NIL)
        pkg_error(L, pkg, "These symbols are not accessible in the %A package:%S", PKG(pkg)->name,
                  list_reverse(L, missing));
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        Obj sym = CAR(l);
        name = symbol_name(L, sym);
        find_by_name(L, pkg, name, &st);
        if (st == FIND_EXTERNAL) continue;
        for (Obj u = PKG(pkg)->used_by; u != NIL; u = CDR(u)) {
            Obj other = find_by_name(L, CAR(u), name, &st);
            if (st != FIND_NONE && other != sym && !is_shadowing(CAR(u), other))
                err_name_conflict(L, CAR(u), "EXPORT", sym, list2(L, sym, other));
        }
    }
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        Obj sym = CAR(l);
        find_by_name(L, pkg, symbol_name(L, sym), &st);
        if (st == FIND_EXTERNAL) continue;
        table_touch(L, pkg, sym);
        symtable_remove(L, &PKG(pkg)->internal, sym);
        symtable_put(L, &PKG(pkg)->external, sym);
    }
}

static void shadowing_import1(Lisp *L, Obj pkg, Obj sym);

void package_import_checked(Lisp *L, Obj pkg, Obj syms) {
    int st;
    if (pkg_locked(L, pkg))
        for (Obj l = syms; l != NIL; l = CDR(l))
            pkg_lock_check(L, pkg, false, msg_format(L, "importing symbol %S", CAR(l)));
    Obj shadowing = NIL;   /* symbols whose conflict was continued: imported over the old one */
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        Obj sym = CAR(l), name = symbol_name(L, sym);
        for (Obj k = syms; k != l; k = CDR(k))
            if (CAR(k) != sym && string_eq(symbol_name(L, CAR(k)), name))
                err_name_conflict(L, pkg, "IMPORT", sym, list2(L, sym, CAR(k)));
        Obj found = find_by_name(L, pkg, name, &st);
        if (st != FIND_NONE && found != sym) {
            cerror_name_conflict(L, "Shadowing-import the symbol, uninterning the one it conflicts with.",
                                 pkg, "IMPORT", sym, list2(L, sym, found));
            shadowing = cons(L, sym, shadowing);
        }
    }
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        if (memq(CAR(l), shadowing)) shadowing_import1(L, pkg, CAR(l));
        else make_present(L, pkg, CAR(l));
    }
}

static void shadowing_import1(Lisp *L, Obj pkg, Obj sym) {
    if (pkg_locked(L, pkg)) pkg_lock_check(L, pkg, false, msg_format(L, "shadowing-importing symbol %S", sym));
    Obj old = present_symbol(L, pkg, symbol_name(L, sym), NULL);
    if (old != NO_VALUE && old != sym) remove_present(L, pkg, old);
    /* unlike IMPORT, SBCL's SHADOWING-IMPORT gives a homeless symbol no home package */
    if (!symtable_has(L, &PKG(pkg)->internal, sym) && !symtable_has(L, &PKG(pkg)->external, sym)) {
        table_touch(L, pkg, sym);
        symtable_put(L, &PKG(pkg)->internal, sym);
    }
    if (!is_shadowing(pkg, sym)) PKG(pkg)->shadowing = cons(L, sym, PKG(pkg)->shadowing);
}

static void shadow1(Lisp *L, Obj pkg, Obj name) {
    if (pkg_locked(L, pkg)) pkg_lock_check(L, pkg, false, msg_format(L, "shadowing symbol %A", name));
    Obj sym = present_symbol(L, pkg, name, NULL);
    if (sym == NO_VALUE) {
        sym = symbol_new(L, string_from_u32(L, STR(name)->data, STR(name)->len));
        SYM(sym)->package = pkg;
        table_touch(L, pkg, sym);
        symtable_put(L, &PKG(pkg)->internal, sym);
    }
    if (!is_shadowing(pkg, sym)) PKG(pkg)->shadowing = cons(L, sym, PKG(pkg)->shadowing);
}

bool package_unintern_checked(Lisp *L, Obj pkg, Obj sym) {
    if (pkg_locked(L, pkg)) pkg_lock_check(L, pkg, false, msg_format(L, "uninterning %S", sym));
    Obj name = symbol_name(L, sym);
    if (present_symbol(L, pkg, name, NULL) != sym) return false;
    if (is_shadowing(pkg, sym)) {
        /* removing a shadowing symbol may uncover a conflict between inherited symbols */
        Obj found = NIL;
        for (Obj u = PKG(pkg)->use_list; u != NIL; u = CDR(u)) {
            Obj e = symtable_get(L, &PKG(CAR(u))->external, STR(name)->data, STR(name)->len, name_hash(STR(name)->data, STR(name)->len));
            if (e != NO_VALUE && !memq(e, found)) found = append1(L, found, e);
        }
        if (found != NIL && CDR(found) != NIL) err_name_conflict(L, pkg, "UNINTERN", sym, found);
    }
    remove_present(L, pkg, sym);
    return true;
}

void package_use_checked(Lisp *L, Obj pkg, Obj used) {
    if (memq(used, PKG(pkg)->use_list)) return;
    if (pkg_locked(L, pkg)) pkg_lock_check(L, pkg, false, msg_format(L, "using package %S", used));
    SymTable *t = &PKG(used)->external;
    SYMTABLE_EACH_BEGIN(t, e)
        int st;
        Obj found = find_by_name(L, pkg, symbol_name(L, e), &st);
        if (st != FIND_NONE && found != e && !is_shadowing(pkg, found))
            err_name_conflict(L, pkg, "USE-PACKAGE", used, list2(L, e, found));
    SYMTABLE_EACH_END
    package_use(L, pkg, used);
}

static void unuse(Lisp *L, Obj pkg, Obj used) {
    if (!memq(used, PKG(pkg)->use_list)) return;
    if (pkg_locked(L, pkg)) pkg_lock_check(L, pkg, false, msg_format(L, "unusing package %S", used));
    PKG(pkg)->use_list = without_fresh(L, used, PKG(pkg)->use_list);
    PKG(used)->used_by = delq(pkg, PKG(used)->used_by);
}

/* ---- names ---- */

/* A fresh simple string naming a string designator. */
static Obj name_string(Lisp *L, Obj d) {
    if (!is_any_string(d) && !is_symbol(d) && !is_char(d))
        err_type(L, d, cons(L, S(OR), cons(L, S(STRING), cons(L, S(SYMBOL), cons(L, S(CHARACTER), NIL)))));
    Obj s = string_designator(L, d);
    return string_from_u32(L, STR(s)->data, STR(s)->len);
}

/* Check that NAME can become a name or nickname of PKG (NIL: a package being made called PNAME). */
/* Check that NAME can become a nickname of PKG (NIL: a package being made called PNAME); the
 * error is correctable (CLHS MAKE-PACKAGE): false when it was continued, to drop the nickname. */
static bool check_new_nickname(Lisp *L, Obj pkg, Obj pname, Obj name) {
    Obj other = package_find_global(L, name);
    if (other == NIL || other == pkg) return true;
    if (string_eq(PKG(other)->name, name))
        pkg_cerror(L, "Don't use it as a nickname.", name, "%S is a package name, so it cannot be a nickname for %S.",
                   name, pname);
    else
        pkg_cerror(L, "Don't use it as a nickname.", name, "%S is already a nickname for %S.", name, PKG(other)->name);
    return false;
}

static Obj nickname_list(Lisp *L, Obj pkg, Obj pname, Obj nicks) {
    Obj r = NIL;
    list_length_proper(L, nicks);
    for (Obj l = nicks; l != NIL; l = CDR(l)) {
        Obj n = name_string(L, CAR(l));
        if (!check_new_nickname(L, pkg, pname, n)) continue;
        bool dup = false;
        for (Obj k = r; k != NIL; k = CDR(k)) dup |= string_eq(CAR(k), n);
        if (!dup) r = cons(L, n, r);   /* SBCL keeps them in reverse order */
    }
    return r;
}

static Obj make_package(Lisp *L, Obj name_d, Obj nicks, Obj use) {
    Obj name = name_string(L, name_d);
    Obj existing = package_find_global(L, name);
    if (existing != NIL) {
        pkg_cerror(L, "Return the existing package.", name, "A package named %S already exists", name);
        return existing;
    }
    Obj nicklist = nickname_list(L, NIL, name, nicks);
    Obj uses = NIL;
    list_length_proper(L, use);
    for (Obj l = use; l != NIL; l = CDR(l)) uses = append1(L, uses, package_designated(L, CAR(l)));
    Obj pkg = package_new(L, name, nicklist);
    for (Obj l = uses; l != NIL; l = CDR(l)) package_use_checked(L, pkg, CAR(l));
    return pkg;
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

/* A designator for a list of symbols (EXPORT, IMPORT...): a symbol or a proper list of symbols. */
static Obj symbols_arg(Lisp *L, Obj o) {
    if (o == NIL) return NIL;
    if (is_symbol(o)) return list1(L, o);
    if (!is_cons(o)) err_type(L, o, cons(L, S(OR), cons(L, S(CONS), cons(L, S(SYMBOL), NIL))));
    list_length_proper(L, o);
    for (Obj l = o; l != NIL; l = CDR(l)) check_symbol(L, CAR(l));
    return o;
}

/* A designator for a list of string designators (SHADOW). */
static Obj names_arg(Lisp *L, Obj o) {
    Obj r = NIL;
    if (o == NIL) return NIL;
    if (!is_cons(o)) return list1(L, name_string(L, o));
    list_length_proper(L, o);
    for (Obj l = o; l != NIL; l = CDR(l)) r = append1(L, r, name_string(L, CAR(l)));
    return r;
}

DEFPRIM(prim_pct_string_designator) { UNUSED_ARGS; return name_string(L, args[0]); }

DEFPRIM(prim_find_package) {
    UNUSED_ARGS;
    if (is_type(args[0], T_PACKAGE)) return args[0];
    check_package_designator(L, args[0]);
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

DEFPRIM(prim_package_nicknames) { UNUSED_ARGS; return list_copy(L, PKG(package_designated(L, args[0]))->nicknames); }
DEFPRIM(prim_package_use_list) { UNUSED_ARGS; return list_copy(L, PKG(package_designated(L, args[0]))->use_list); }
DEFPRIM(prim_package_used_by_list) { UNUSED_ARGS; return list_copy(L, PKG(package_designated(L, args[0]))->used_by); }
DEFPRIM(prim_package_shadowing_symbols) { UNUSED_ARGS; return list_copy(L, PKG(package_designated(L, args[0]))->shadowing); }

DEFPRIM(prim_list_all_packages) {
    UNUSED_ARGS;
    Obj r = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        if (PKG(CAR(l))->name != NIL) r = cons(L, CAR(l), r);
    return r;
}

/* INTERN and FIND-SYMBOL take any string (SBCL refuses symbols): string_arg */

DEFPRIM(prim_intern) {
    Obj name = string_arg(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    int st;
    Obj sym = package_find_symbol(L, pkg, STR(name)->data, STR(name)->len, &st);
    if (st != FIND_NONE) return values2(L, sym, status_keyword(L, st));
    sym = package_intern(L, pkg, STR(name)->data, STR(name)->len, &st);
    return values2(L, sym, NIL);
}

DEFPRIM(prim_find_symbol) {
    Obj name = string_arg(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    int st;
    Obj sym = package_find_symbol(L, pkg, STR(name)->data, STR(name)->len, &st);
    return values2(L, sym, status_keyword(L, st));
}

/* (make-package name &key nicknames use) */
DEFPRIM(prim_make_package) {
    Obj keys[2] = {S(K_NICKNAMES), S(K_USE)}, out[2];
    parse_keys(L, nargs, args, 1, 2, keys, out);
    check_package_designator(L, args[0]);
    if (is_type(args[0], T_PACKAGE)) err_type(L, args[0], cons(L, S(OR), cons(L, S(STRING), cons(L, S(SYMBOL), cons(L, S(CHARACTER), NIL)))));
    return make_package(L, args[0], out[0] == NO_VALUE ? NIL : out[0], out[1] == NO_VALUE ? NIL : out[1]);
}

DEFPRIM(prim_export) {
    Obj syms = symbols_arg(L, args[0]);
    package_export_checked(L, pkg_arg(L, nargs, args, 1), syms);
    return S(T);
}

DEFPRIM(prim_unexport) {
    Obj syms = symbols_arg(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    int st;
    if (pkg_locked(L, pkg))
        for (Obj l = syms; l != NIL; l = CDR(l))
            pkg_lock_check(L, pkg, false, msg_format(L, "unexporting symbol %S", CAR(l)));
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        Obj found = find_by_name(L, pkg, symbol_name(L, CAR(l)), &st);
        if (st == FIND_NONE || found != CAR(l))
            pkg_error(L, pkg, "%S is not accessible in the %A package.", CAR(l), PKG(pkg)->name);
    }
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        table_touch(L, pkg, CAR(l));
        if (symtable_remove(L, &PKG(pkg)->external, CAR(l))) symtable_put(L, &PKG(pkg)->internal, CAR(l));
    }
    return S(T);
}

DEFPRIM(prim_import) {
    Obj syms = symbols_arg(L, args[0]);
    package_import_checked(L, pkg_arg(L, nargs, args, 1), syms);
    return S(T);
}

DEFPRIM(prim_shadowing_import) {
    Obj syms = symbols_arg(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    for (Obj l = syms; l != NIL; l = CDR(l)) shadowing_import1(L, pkg, CAR(l));
    return S(T);
}

DEFPRIM(prim_shadow) {
    Obj o = args[0];
    if (!is_list(o) && !is_any_string(o) && !is_symbol(o) && !is_char(o))
        err_type(L, o, cons(L, S(OR), cons(L, S(STRING), cons(L, S(CHARACTER), cons(L, S(CONS), cons(L, S(SYMBOL), NIL))))));
    Obj names = names_arg(L, o);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    for (Obj l = names; l != NIL; l = CDR(l)) shadow1(L, pkg, CAR(l));
    return S(T);
}

DEFPRIM(prim_unintern) {
    Obj sym = check_symbol(L, args[0]);
    return boolean(L, package_unintern_checked(L, pkg_arg(L, nargs, args, 1), sym));
}

static Obj packages_arg(Lisp *L, Obj o) {
    Obj r = NIL;
    if (is_cons(o)) {
        list_length_proper(L, o);
        for (Obj l = o; l != NIL; l = CDR(l)) r = append1(L, r, package_designated(L, CAR(l)));
        return r;
    }
    if (o == NIL) return NIL;
    return list1(L, package_designated(L, o));
}

DEFPRIM(prim_use_package) {
    Obj used = packages_arg(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    for (Obj l = used; l != NIL; l = CDR(l)) package_use_checked(L, pkg, CAR(l));
    return S(T);
}

DEFPRIM(prim_unuse_package) {
    Obj used = packages_arg(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    for (Obj l = used; l != NIL; l = CDR(l)) unuse(L, pkg, CAR(l));
    return S(T);
}

DEFPRIM(prim_delete_package) {
    UNUSED_ARGS;
    Obj d = args[0], pkg;
    if (is_type(d, T_PACKAGE)) {
        if (PKG(d)->name == NIL) return NIL;
        pkg = d;
    } else {
        check_package_designator(L, d);
        Obj name = name_string(L, d);
        pkg = package_find(L, name);
        if (pkg == NIL) {
            /* correctable, as in SBCL: continuing deletes nothing */
            pkg_cerror(L, "Ignore.", name, "There is no package named %S.", name);
            return NIL;
        }
    }
    pkg_lock_check(L, pkg, true, msg_format(L, "deleting package %S", pkg));
    Package *p = PKG(pkg);
    if (p->used_by != NIL) {
        Obj names = NIL;
        for (Obj l = p->used_by; l != NIL; l = CDR(l)) names = append1(L, names, PKG(CAR(l))->name);
        /* correctable (CLHS DELETE-PACKAGE): continuing makes the users stop using it */
        pkg_cerror(L, "Remove the dependency in other packages.", pkg, "Package %S is used by packages:%S",
                   p->name, names);
        while (p->used_by != NIL) unuse(L, CAR(p->used_by), pkg);
    }
    if (SYM(S(PACKAGE_VAR))->value == pkg) SYM(S(PACKAGE_VAR))->value = L->pkg_cl_user;
    while (p->use_list != NIL) {
        Obj u = CAR(p->use_list);
        PKG(u)->used_by = delq(pkg, PKG(u)->used_by);
        p->use_list = CDR(p->use_list);
    }
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        PKG(CAR(l))->local_nicknames = without_nicknames_of(L, PKG(CAR(l))->local_nicknames, pkg);
    SymTable *tables[2] = {&p->internal, &p->external};
    package_tables_changed(pkg);
    for (int k = 0; k < 2; k++) {
        SymTable *t = tables[k];
        SYMTABLE_EACH_BEGIN(t, sym)
            if (symbol_data(L, sym)->package == pkg) symbol_data(L, sym)->package = NIL;
        SYMTABLE_EACH_END
        t->count = t->used = t->cap = 0;
        t->syms = NULL;
    }
    L->packages = delq(pkg, L->packages);
    p->name = NIL;
    p->nicknames = NIL;
    p->shadowing = NIL;
    p->local_nicknames = NIL;
    return S(T);
}

DEFPRIM(prim_rename_package) {
    Obj pkg = package_designated(L, args[0]);
    Obj nd = args[1];
    Obj name = is_type(nd, T_PACKAGE) ? package_designated(L, nd) : nd;
    name = is_type(name, T_PACKAGE) ? PKG(name)->name : name_string(L, name);
    /* CL-USER may be renamed (the runtime holds it by pointer), not deleted */
    pkg_lock_check(L, pkg, pkg != L->pkg_cl_user, msg_format(L, "renaming as %A", name));
    Obj other = package_find_global(L, name);
    if (other != NIL && other != pkg) pkg_error(L, name, "A package named %S already exists.", name);
    Obj nicks = nickname_list(L, pkg, name, opt_arg(nargs, args, 2, NIL));
    PKG(pkg)->name = name;
    PKG(pkg)->nicknames = nicks;
    return pkg;
}

DEFPRIM(prim_find_all_symbols) {
    UNUSED_ARGS;
    Obj name = string_designator(L, args[0]);
    Obj r = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        Obj s = present_symbol(L, CAR(l), name, NULL);
        if (s != NO_VALUE && !memq(s, r)) r = cons(L, s, r);
    }
    return list_reverse(L, r);
}

/* ---- iteration: the lists behind DO-SYMBOLS and WITH-PACKAGE-ITERATOR ---- */

/* Whether an external E of USED (in PKG's use list) is inherited by PKG and USED is the first
 * used package providing it (so it is visited once). */
static bool inherited_here(Lisp *L, Obj pkg, Obj used, Obj e) {
    int st;
    Obj name = symbol_name(L, e);
    Obj found = find_by_name(L, pkg, name, &st);
    if (st != FIND_INHERITED || found != e) return false;
    for (Obj u = PKG(pkg)->use_list; u != NIL && CAR(u) != used; u = CDR(u))
        if (symtable_get(L, &PKG(CAR(u))->external, STR(name)->data, STR(name)->len,
                         name_hash(STR(name)->data, STR(name)->len)) != NO_VALUE)
            return false;
    return true;
}

/* (sys:%package-symbols package internal external inherited): list of (symbol status . package) */
DEFPRIM(prim_pct_package_symbols) {
    UNUSED_ARGS;
    Obj pkg = package_designated(L, args[0]);
    Obj r = NIL;
    if (args[2] != NIL) {
        SymTable *t = &PKG(pkg)->external;
        SYMTABLE_EACH_BEGIN(t, s) r = cons(L, cons(L, s, cons(L, S(K_EXTERNAL), pkg)), r); SYMTABLE_EACH_END
    }
    if (args[1] != NIL) {
        SymTable *t = &PKG(pkg)->internal;
        SYMTABLE_EACH_BEGIN(t, s) r = cons(L, cons(L, s, cons(L, S(K_INTERNAL), pkg)), r); SYMTABLE_EACH_END
    }
    if (args[3] != NIL) {
        for (Obj u = PKG(pkg)->use_list; u != NIL; u = CDR(u)) {
            SymTable *t = &PKG(CAR(u))->external;
            SYMTABLE_EACH_BEGIN(t, s)
                if (inherited_here(L, pkg, CAR(u), s)) r = cons(L, cons(L, s, cons(L, S(K_INHERITED), pkg)), r);
            SYMTABLE_EACH_END
        }
    }
    return list_reverse(L, r);
}

/* (sys:%all-present-symbols): every symbol present in some package (duplicates possible) */
DEFPRIM(prim_pct_all_present_symbols) {
    UNUSED_ARGS;
    Obj r = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        SymTable *tables[2] = {&PKG(CAR(l))->external, &PKG(CAR(l))->internal};
        for (int k = 0; k < 2; k++) {
            SymTable *t = tables[k];
            SYMTABLE_EACH_BEGIN(t, s) r = cons(L, s, r); SYMTABLE_EACH_END
        }
    }
    return r;
}

/* ---- package-local nicknames (SBCL's extension) ---- */

DEFPRIM(prim_add_package_local_nickname) {
    Obj nick = name_string(L, args[0]);
    Obj actual = package_designated(L, args[1]);
    Obj pkg = pkg_arg(L, nargs, args, 2);
    if (string_equal_cstr(nick, "COMMON-LISP") || string_equal_cstr(nick, "CL") || string_equal_cstr(nick, "KEYWORD"))
        pkg_error(L, pkg, "Attempt to use %S as a package local nickname (for %S) in package %S.",
                  nick, PKG(actual)->name, PKG(pkg)->name);
    for (Obj l = PKG(pkg)->local_nicknames; l != NIL; l = CDR(l)) {
        if (string_eq(CAR(CAR(l)), nick)) {
            if (CDR(CAR(l)) == actual) return pkg;
            pkg_error(L, pkg, "Cannot add %S as local nickname for %S in %S: already nickname for %S.",
                      nick, PKG(actual)->name, PKG(pkg)->name, PKG(CDR(CAR(l)))->name);
        }
    }
    PKG(pkg)->local_nicknames = with_last_fresh(L, PKG(pkg)->local_nicknames, cons(L, nick, actual));
    return pkg;
}

DEFPRIM(prim_remove_package_local_nickname) {
    Obj nick = name_string(L, args[0]);
    Obj pkg = pkg_arg(L, nargs, args, 1);
    for (Obj l = PKG(pkg)->local_nicknames; l != NIL; l = CDR(l)) {
        if (string_eq(CAR(CAR(l)), nick)) {
            PKG(pkg)->local_nicknames = without_fresh(L, CAR(l), PKG(pkg)->local_nicknames);
            return S(T);
        }
    }
    return NIL;
}

DEFPRIM(prim_package_local_nicknames) {
    UNUSED_ARGS;
    Obj r = NIL;
    for (Obj l = PKG(package_designated(L, args[0]))->local_nicknames; l != NIL; l = CDR(l))
        r = cons(L, cons(L, CAR(CAR(l)), CDR(CAR(l))), r);
    return list_reverse(L, r);
}

DEFPRIM(prim_package_locally_nicknamed_by_list) {
    UNUSED_ARGS;
    Obj pkg = package_designated(L, args[0]);
    Obj r = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        for (Obj n = PKG(CAR(l))->local_nicknames; n != NIL; n = CDR(n))
            if (CDR(CAR(n)) == pkg && !memq(CAR(l), r)) r = cons(L, CAR(l), r);
    return r;
}

/* ---- locks ---- */

DEFPRIM(prim_package_locked_p) { UNUSED_ARGS; return boolean(L, (((Header *)package_designated(L, args[0]))->flags & PKG_LOCKED) != 0); }
DEFPRIM(prim_lock_package) { UNUSED_ARGS; ((Header *)package_designated(L, args[0]))->flags |= PKG_LOCKED; return S(T); }
DEFPRIM(prim_unlock_package) { UNUSED_ARGS; ((Header *)package_designated(L, args[0]))->flags &= (uint8_t)~PKG_LOCKED; return S(T); }

/* ---- documentation ---- */

DEFPRIM(prim_pct_package_documentation) { UNUSED_ARGS; return PKG(package_designated(L, args[0]))->doc; }
DEFPRIM(prim_pct_set_package_documentation) {
    UNUSED_ARGS;
    Obj doc = args[1];
    if (doc != NIL) {
        if (!is_any_string(doc)) err_type(L, doc, cons(L, S(OR), list2(L, S(STRING), S(NULL))));
        doc = string_designator(L, doc);
    }
    PKG(package_designated(L, args[0]))->doc = doc;
    return args[1];
}

/* ---- DEFPACKAGE's engine ----
 * (sys:%defpackage name nicknames documentation use shadows shadowing-imports imports interns
 *                  exports local-nicknames)
 * Names are strings (the macro has checked the options); shadowing-imports and imports are lists
 * (package-name . symbol-names); local-nicknames a list (nick . package-name). */

static Obj names_to_symbols(Lisp *L, Obj src, Obj names) {
    Obj r = NIL;
    int st;
    for (Obj l = names; l != NIL; l = CDR(l)) {
        Obj s = find_by_name(L, src, CAR(l), &st);
        if (st == FIND_NONE) {
            /* correctable, as SBCL: continuing interns the name in the source package */
            pkg_cerror(L, "INTERN it.", src, "no symbol named %S in %S", CAR(l), PKG(src)->name);
            s = package_intern_string(L, src, name_string(L, CAR(l)), &st);
        }
        r = append1(L, r, s);
    }
    return r;
}

static bool string_member(Lisp *L, Obj s, Obj list) {
    (void)L;
    for (Obj l = list; l != NIL; l = CDR(l))
        if (string_eq(CAR(l), s)) return true;
    return false;
}

DEFPRIM(prim_pct_defpackage) {
    UNUSED_ARGS;
    Obj name = name_string(L, args[0]), nicks = args[1], doc = args[2], use = args[3], shadows = args[4],
        shimports = args[5], imports = args[6], interns = args[7], exports = args[8], lnicks = args[9];
    for (int i = 1; i < 10; i++) if (i != 2) list_length_proper(L, args[i]);
    Obj pkg = package_find(L, name);
    bool existing = pkg != NIL;
    if (existing) {
        if (!string_eq(PKG(pkg)->name, name))
            pkg_error(L, pkg, "%S is a nickname for the package %S", name, PKG(pkg)->name);
        Obj nl = nickname_list(L, pkg, name, nicks), added = NIL;
        for (Obj l = nl; l != NIL; l = CDR(l))
            if (!string_member(L, CAR(l), PKG(pkg)->nicknames)) added = cons(L, CAR(l), added);
        for (Obj l = added; l != NIL; l = CDR(l)) PKG(pkg)->nicknames = cons(L, CAR(l), PKG(pkg)->nicknames);
    } else {
        pkg = make_package(L, name, nicks, NIL);
    }
    /* 1. :shadow and :shadowing-import-from */
    Obj old_shadows = list_copy(L, PKG(pkg)->shadowing);
    for (Obj l = shadows; l != NIL; l = CDR(l)) shadow1(L, pkg, name_string(L, CAR(l)));
    Obj shnames = list_copy(L, shadows);
    for (Obj l = shimports; l != NIL; l = CDR(l)) {
        Obj src = package_designated(L, CAR(CAR(l)));
        for (Obj s = names_to_symbols(L, src, CDR(CAR(l))); s != NIL; s = CDR(s)) shadowing_import1(L, pkg, CAR(s));
        for (Obj s = CDR(CAR(l)); s != NIL; s = CDR(s)) shnames = cons(L, CAR(s), shnames);
    }
    if (existing) {
        Obj extra = NIL;
        for (Obj l = old_shadows; l != NIL; l = CDR(l))
            if (!string_member(L, symbol_name(L, CAR(l)), shnames)) extra = append1(L, extra, CAR(l));
        if (extra != NIL)
            warn_fmt(L, S(P_PACKAGE_AT_VARIANCE), "%A also shadows the following symbols:\n  %S", name, extra);
    }
    /* 2. :use */
    Obj uses = NIL;
    for (Obj l = use; l != NIL; l = CDR(l)) uses = append1(L, uses, package_designated(L, CAR(l)));
    if (existing) {
        Obj extra = NIL;
        for (Obj l = PKG(pkg)->use_list; l != NIL; l = CDR(l))
            if (!memq(CAR(l), uses)) extra = append1(L, extra, PKG(CAR(l))->name);
        if (extra != NIL)
            warn_fmt(L, S(P_PACKAGE_AT_VARIANCE), "%A also uses the following packages:\n  %A", name, extra);
    }
    for (Obj l = uses; l != NIL; l = CDR(l)) package_use_checked(L, pkg, CAR(l));
    /* 3. :import-from and :intern */
    for (Obj l = imports; l != NIL; l = CDR(l)) {
        Obj src = package_designated(L, CAR(CAR(l)));
        package_import_checked(L, pkg, names_to_symbols(L, src, CDR(CAR(l))));
    }
    for (Obj l = interns; l != NIL; l = CDR(l)) {
        int st;
        package_intern_string(L, pkg, name_string(L, CAR(l)), &st);
    }
    /* 4. :export */
    Obj old_exports = NIL;
    if (existing) {
        SymTable *t = &PKG(pkg)->external;
        SYMTABLE_EACH_BEGIN(t, s) old_exports = cons(L, s, old_exports); SYMTABLE_EACH_END
    }
    Obj esyms = NIL;
    for (Obj l = exports; l != NIL; l = CDR(l)) {
        int st;
        esyms = append1(L, esyms, package_intern_string(L, pkg, name_string(L, CAR(l)), &st));
    }
    package_export_checked(L, pkg, esyms);
    if (existing) {
        Obj extra = NIL;
        for (Obj l = old_exports; l != NIL; l = CDR(l))
            if (!string_member(L, symbol_name(L, CAR(l)), exports)) extra = cons(L, CAR(l), extra);
        if (extra != NIL)
            warn_fmt(L, S(P_PACKAGE_AT_VARIANCE), "%A also exports the following symbols:\n  %S", name, extra);
    }
    /* local nicknames replace the old ones */
    Obj newl = NIL;
    for (Obj l = lnicks; l != NIL; l = CDR(l)) {
        Obj nick = name_string(L, CAR(CAR(l)));
        newl = append1(L, newl, cons(L, nick, package_designated(L, CDR(CAR(l)))));
    }
    if (lnicks != NIL || existing) PKG(pkg)->local_nicknames = newl;
    PKG(pkg)->doc = doc;
    return pkg;
}

const PrimDef package_prims[] = {
    {"FIND-PACKAGE", PK_CL, prim_find_package, 1, 1, 0, "(name)", "The package named NAME, or NIL."},
    {"%STRING-DESIGNATOR", PK_SYS, prim_pct_string_designator, 1, 1, 0, "(designator)", "A fresh string naming a string designator."},
    {"%FIND-PACKAGE-OR-LOSE", PK_SYS, prim_pct_find_package_or_lose, 1, 1, 0, "(designator)", NULL},
    {"PACKAGEP", PK_CL, prim_packagep, 1, 1, 0, "(object)", "True when OBJECT is a package."},
    {"PACKAGE-NAME", PK_CL, prim_package_name, 1, 1, 0, "(package)", "The name of PACKAGE as a string, or NIL for a deleted package."},
    {"PACKAGE-NICKNAMES", PK_CL, prim_package_nicknames, 1, 1, 0, "(package)", "The list of PACKAGE's nicknames."},
    {"PACKAGE-USE-LIST", PK_CL, prim_package_use_list, 1, 1, 0, "(package)", "The list of packages whose external symbols PACKAGE inherits."},
    {"PACKAGE-USED-BY-LIST", PK_CL, prim_package_used_by_list, 1, 1, 0, "(package)", "The list of packages that use PACKAGE."},
    {"PACKAGE-SHADOWING-SYMBOLS", PK_CL, prim_package_shadowing_symbols, 1, 1, 0, "(package)", "The list of symbols of PACKAGE that were made shadowing symbols."},
    {"LIST-ALL-PACKAGES", PK_CL, prim_list_all_packages, 0, 0, 0, "()", "A fresh list of every registered package."},
    {"INTERN", PK_CL, prim_intern, 1, 2, FN_MV, "(string &optional package)", "The symbol named STRING accessible in PACKAGE, created there when missing; the second value is its status (:INTERNAL, :EXTERNAL, :INHERITED) or NIL when it was just created."},
    {"FIND-SYMBOL", PK_CL, prim_find_symbol, 1, 2, FN_MV, "(string &optional package)", "Looks up the symbol named STRING in PACKAGE without creating it; returns it and its status (:INTERNAL, :EXTERNAL or :INHERITED), or NIL and NIL."},
    {"MAKE-PACKAGE", PK_CL, prim_make_package, 1, REST, 0, "(name &key nicknames use)", "A new package named NAME, with NICKNAMES, inheriting from the packages in USE."},
    {"EXPORT", PK_CL, prim_export, 1, 2, 0, "(symbols &optional package)", "Makes SYMBOLS (a symbol or a list) external in PACKAGE (default the current package), so that packages using it see them. Returns T."},
    {"UNEXPORT", PK_CL, prim_unexport, 1, 2, 0, "(symbols &optional package)", "Makes SYMBOLS (a symbol or a list) internal again in PACKAGE. Returns T."},
    {"IMPORT", PK_CL, prim_import, 1, 2, 0, "(symbols &optional package)", "Makes SYMBOLS (a symbol or a list) present in PACKAGE as internal symbols; an error if that conflicts with a different accessible symbol of the same name. Returns T."},
    {"SHADOWING-IMPORT", PK_CL, prim_shadowing_import, 1, 2, 0, "(symbols &optional package)", "Imports SYMBOLS into PACKAGE as shadowing symbols, uninterning any different symbol of the same name that was present. Returns T."},
    {"SHADOW", PK_CL, prim_shadow, 1, 2, 0, "(symbol-names &optional package)", "Makes sure a symbol with each of SYMBOL-NAMES is present in PACKAGE, creating new internal symbols where needed, and lists them as shadowing symbols so that inherited ones of the same name are hidden. Returns T."},
    {"UNINTERN", PK_CL, prim_unintern, 1, 2, 0, "(symbol &optional package)", "Removes SYMBOL from PACKAGE (and from its shadowing list); when PACKAGE was its home, the symbol is left without a package. Returns true when something was removed."},
    {"USE-PACKAGE", PK_CL, prim_use_package, 1, 2, 0, "(packages-to-use &optional package)", "Makes PACKAGE inherit the external symbols of PACKAGES-TO-USE; an error on a name conflict. Returns T."},
    {"UNUSE-PACKAGE", PK_CL, prim_unuse_package, 1, 2, 0, "(packages-to-unuse &optional package)", "Stops PACKAGE from inheriting the external symbols of PACKAGES-TO-UNUSE. Returns T."},
    {"DELETE-PACKAGE", PK_CL, prim_delete_package, 1, 1, 0, "(package)", "Removes PACKAGE from the system so that its name can no longer be found; its symbols lose it as their home. Returns true when a package was deleted."},
    {"RENAME-PACKAGE", PK_CL, prim_rename_package, 2, 3, 0, "(package new-name &optional new-nicknames)", "Gives PACKAGE the name NEW-NAME and the nicknames NEW-NICKNAMES, replacing the old ones; returns the package."},
    {"FIND-ALL-SYMBOLS", PK_CL, prim_find_all_symbols, 1, 1, 0, "(string)", "A list of the symbols named STRING in every registered package."},
    {"%PACKAGE-SYMBOLS", PK_SYS, prim_pct_package_symbols, 4, 4, 0, "(package internal external inherited)", NULL},
    {"%ALL-PRESENT-SYMBOLS", PK_SYS, prim_pct_all_present_symbols, 0, 0, 0, "()", NULL},
    {"ADD-PACKAGE-LOCAL-NICKNAME", PK_EXT, prim_add_package_local_nickname, 2, 3, 0, "(local-nickname actual-package &optional package)", NULL},
    {"REMOVE-PACKAGE-LOCAL-NICKNAME", PK_EXT, prim_remove_package_local_nickname, 1, 2, 0, "(old-nickname &optional package)", NULL},
    {"PACKAGE-LOCAL-NICKNAMES", PK_EXT, prim_package_local_nicknames, 1, 1, 0, "(package)", NULL},
    {"PACKAGE-LOCALLY-NICKNAMED-BY-LIST", PK_EXT, prim_package_locally_nicknamed_by_list, 1, 1, 0, "(package)", NULL},
    {"PACKAGE-LOCKED-P", PK_EXT, prim_package_locked_p, 1, 1, 0, "(package)", NULL},
    {"LOCK-PACKAGE", PK_EXT, prim_lock_package, 1, 1, 0, "(package)", NULL},
    {"UNLOCK-PACKAGE", PK_EXT, prim_unlock_package, 1, 1, 0, "(package)", NULL},
    {"%PACKAGE-DOCUMENTATION", PK_SYS, prim_pct_package_documentation, 1, 1, 0, "(package)", NULL},
    {"%SET-PACKAGE-DOCUMENTATION", PK_SYS, prim_pct_set_package_documentation, 2, 2, 0, "(package doc)", NULL},
    {"%DEFPACKAGE", PK_SYS, prim_pct_defpackage, 10, 10, 0, "(name nicknames doc use shadows shadowing-imports imports interns exports local-nicknames)", NULL},
    {0},
};

void package_init(Lisp *L) {
    prims_register(L, package_prims);
    SYM(S(P_IGNORE_PACKAGE_LOCKS))->h.flags |= SYM_SPECIAL;
    SYM(S(P_IGNORE_PACKAGE_LOCKS))->value = NIL;
    Obj reexport[] = {S(EXT_NAME_CONFLICT), S(EXT_PACKAGE_DOES_NOT_EXIST), S(EXT_PACKAGE_LOCKED_ERROR),
                      S(EXT_SYMBOL_PACKAGE_LOCKED_ERROR), S(EXT_FILE_DOES_NOT_EXIST), S(EXT_FILE_EXISTS),
                      S(EXT_DELETE_FILE_ERROR)};
    for (size_t i = 0; i < sizeof reexport / sizeof *reexport; i++) {
        package_import(L, L->pkg_ext, reexport[i]);
        package_export(L, L->pkg_ext, reexport[i]);
    }
    Obj prot[] = {L->pkg_cl, L->pkg_keyword, L->pkg_system, L->pkg_ext, L->pkg_cl_user};
    for (size_t i = 0; i < sizeof prot / sizeof *prot; i++) ((Header *)prot[i])->flags |= PKG_PROTECTED;
}
