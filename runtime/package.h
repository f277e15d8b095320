/* package.h: packages, symbol tables, interning and the package operations of CLHS chapter 11. */
#ifndef TINYCL_PACKAGE_H
#define TINYCL_PACKAGE_H

#include "state.h"

/* An open-addressed table of symbols keyed by name. */
typedef struct SymTable { size_t count, used, cap; Obj *syms; } SymTable;  /* used counts tombstones too */

typedef struct Package {
    Header h;               /* flags: PKG_LOCKED */
    Obj name;               /* string, or NIL once deleted */
    Obj nicknames;          /* list of strings */
    SymTable internal, external;
    Obj use_list, used_by;  /* lists of packages */
    Obj shadowing;          /* list of symbols */
    Obj doc;
    Obj local_nicknames;    /* alist (string . package) */
    uint64_t serial;        /* creation order, for the session's provenance */
} Package;
#define PKG(o) ((Package *)(o))
enum { PKG_LOCKED = 1 };

enum { FIND_NONE = 0, FIND_INTERNAL, FIND_EXTERNAL, FIND_INHERITED };

Obj package_new(Lisp *L, Obj name, Obj nicknames);
/* Find a package by name or nickname (string); NIL if none. */
Obj package_find(Lisp *L, Obj name);
Obj package_find_cstr(Lisp *L, const char *name);
/* A package designator (package, string, symbol, character) -> package; signals PACKAGE-ERROR. */
Obj package_designated(Lisp *L, Obj designator);
/* The current *package*, checked. */
Obj current_package(Lisp *L);

/* Find a symbol accessible in PKG by name; *status gets FIND_*. Returns NIL/status NONE if absent. */
Obj package_find_symbol(Lisp *L, Obj pkg, const uint32_t *name, size_t len, int *status);
Obj package_intern(Lisp *L, Obj pkg, const uint32_t *name, size_t len, int *status);
Obj package_intern_string(Lisp *L, Obj pkg, Obj name, int *status);
/* Intern an ASCII/UTF-8 name from C. */
Obj intern_cstr(Lisp *L, Obj pkg, const char *name);
Obj keyword(Lisp *L, const char *name);
void package_export(Lisp *L, Obj pkg, Obj sym);
void package_import(Lisp *L, Obj pkg, Obj sym);
void package_use(Lisp *L, Obj pkg, Obj used);
/* Add SYM to PKG's internal or external table without checks (boot, tables). */
void package_add_symbol(Lisp *L, Obj pkg, Obj sym, bool external);
bool package_remove_symbol(Lisp *L, Obj pkg, Obj sym);
/* Call fn on every symbol in the table. */
void symtable_each(SymTable *t, void (*fn)(Lisp *, Obj, void *), Lisp *L, void *ctx);

/* Symbols */
Obj symbol_new(Lisp *L, Obj name);
Symbol *symbol_data(Lisp *L, Obj sym);   /* handles NIL */
static inline Obj symbol_name(Lisp *L, Obj sym) { return symbol_data(L, sym)->name; }
bool is_keyword(Lisp *L, Obj sym);
/* Signals PACKAGE-ERROR if SYM belongs to a locked package (CL) and we are past boot. */
void check_package_lock(Lisp *L, Obj sym, const char *what);

void package_init(Lisp *L);

#endif
