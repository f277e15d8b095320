/* package.h: packages, symbol tables, interning and the package operations of CLHS chapter 11. */
#ifndef TINYCL_PACKAGE_H
#define TINYCL_PACKAGE_H

#include "state.h"

/* An open-addressed table of symbols keyed by name. */
typedef struct SymTable { size_t count, used, cap; Obj *syms; } SymTable;  /* used counts tombstones too */

typedef struct Package {
    Header h;               /* flags: PKG_LOCKED, PKG_PROTECTED */
    Obj name;               /* string, or NIL once deleted */
    Obj nicknames;          /* list of strings */
    SymTable internal, external;
    Obj use_list, used_by;  /* lists of packages (use_list in the order the packages were used) */
    Obj shadowing;          /* list of symbols */
    Obj doc;
    Obj local_nicknames;    /* alist (string . package) */
    uint64_t serial;        /* creation order, for the session's provenance */
} Package;
#define PKG(o) ((Package *)(o))
/* h.aux: PKG_TABLES_CHANGED once a symbol was added to, removed from or moved in the package's
 * tables since they last matched the reset snapshot's record of them (snapshot.c clears it when
 * it records or restores them): a reset rebuilds only the tables of packages that have it. */
#define PKG_TABLES_CHANGED 1
static inline void package_tables_changed(Obj pkg) {
    if (PKG(pkg)->h.aux != PKG_TABLES_CHANGED) PKG(pkg)->h.aux = PKG_TABLES_CHANGED;
}
/* PKG_LOCKED: the package lock of SBCL (no new symbols, no definitions on its symbols).
 * (CL-USER is protected too: the runtime falls back to it when *PACKAGE* is unusable.)
 * PKG_PROTECTED: the implementation needs it: it can be neither deleted nor renamed. */
enum { PKG_LOCKED = 1, PKG_PROTECTED = 2 };

enum { FIND_NONE = 0, FIND_INTERNAL, FIND_EXTERNAL, FIND_INHERITED };

Obj package_new(Lisp *L, Obj name, Obj nicknames);
/* Find a package by name or nickname (string), honouring the current package's local nicknames; NIL if none. */
Obj package_find(Lisp *L, Obj name);
Obj package_find_cstr(Lisp *L, const char *name);
/* A package designator (package, string, symbol, character) -> live package; signals
 * PACKAGE-DOES-NOT-EXIST (a PACKAGE-ERROR) or TYPE-ERROR. */
Obj package_designated(Lisp *L, Obj designator);
/* The current *package*, checked. */
Obj current_package(Lisp *L);

/* Find a symbol accessible in PKG by name; *status gets FIND_*. Returns NIL/status NONE if absent. */
Obj package_find_symbol(Lisp *L, Obj pkg, const uint32_t *name, size_t len, int *status);
/* Find or create; a new symbol in a locked package signals PACKAGE-LOCKED-ERROR (after boot). */
Obj package_intern(Lisp *L, Obj pkg, const uint32_t *name, size_t len, int *status);
Obj package_intern_string(Lisp *L, Obj pkg, Obj name, int *status);
/* Intern an ASCII/UTF-8 name from C. */
Obj intern_cstr(Lisp *L, Obj pkg, const char *name);
/* The symbol of that ASCII NAME (at most 64 characters) accessible in PKG, or NIL; interns nothing,
 * so the image writer can look names up without changing what it writes. */
Obj find_symbol_cstr(Lisp *L, Obj pkg, const char *name);
Obj keyword(Lisp *L, const char *name);
/* Mechanisms without conflict checks (boot and tables). */
void package_export(Lisp *L, Obj pkg, Obj sym);
void package_import(Lisp *L, Obj pkg, Obj sym);
void package_use(Lisp *L, Obj pkg, Obj used);
/* Add SYM to PKG's internal or external table without checks (boot, tables). */
void package_add_symbol(Lisp *L, Obj pkg, Obj sym, bool external);
bool package_remove_symbol(Lisp *L, Obj pkg, Obj sym);
/* 2: SYM is external in PKG, 1: internal, 0: not present */
int package_symbol_status(Lisp *L, Obj pkg, Obj sym);
/* Call fn on every symbol in the table. */
void symtable_each(SymTable *t, void (*fn)(Lisp *, Obj, void *), Lisp *L, void *ctx);

/* The CLHS operations with their conflict checks and package locks (what EXPORT, IMPORT... do). */
void package_export_checked(Lisp *L, Obj pkg, Obj syms);        /* syms: a list */
void package_import_checked(Lisp *L, Obj pkg, Obj syms);
void package_use_checked(Lisp *L, Obj pkg, Obj used);
bool package_unintern_checked(Lisp *L, Obj pkg, Obj sym);

/* Symbols */
Obj symbol_new(Lisp *L, Obj name);
Symbol *symbol_data(Lisp *L, Obj sym);   /* handles NIL */
static inline Obj symbol_name(Lisp *L, Obj sym) { return symbol_data(L, sym)->name; }
bool is_keyword(Lisp *L, Obj sym);
/* Signals SYMBOL-PACKAGE-LOCKED-ERROR if SYM belongs to a locked package (CL) and we are past boot.
 * WHAT completes "Lock on package CL violated when WHAT SYM while in package P." */
void check_package_lock(Lisp *L, Obj sym, const char *what);
/* Whether package locks are enforced now (after boot, outside WITHOUT-PACKAGE-LOCKS). */
bool package_locks_active(Lisp *L);

/* Signal a condition of TYPE whose report is the ready-made MESSAGE (tildes escaped here);
 * INITARGS are the other slots. Shared by the package, pathname, stream and load modules. */
_Noreturn void err_with_message(Lisp *L, Obj type, Obj initargs, Obj message);

void package_init(Lisp *L);

#endif
