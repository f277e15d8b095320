/* abi.h: the check of the C-Lisp contract (runtime/lisp-abi.def) once the stdlib is loaded. */
#ifndef TINYCL_ABI_H
#define TINYCL_ABI_H

#include "state.h"

/* Whether every upcall lisp-abi.def declares is a global function accepting the arguments C
 * passes it. On a failure writes what is wrong into MSG (N bytes) and returns false; lisp_new
 * refuses to finish a boot that fails it, so a renamed or broken upcall stops the build (which
 * boots tinycl) instead of degrading some behaviour unnoticed. */
bool abi_check_upcalls(Lisp *L, char *msg, size_t n);

/* The function of upcall SYM (a symbol lisp-abi.def lists), for C to call. While the stdlib
 * loads it may not be defined yet: then NIL, and the caller takes its bootstrap path. After the
 * boot the check above guarantees it, so a missing one (a user's FMAKUNBOUND) is an error, not a
 * silent change of behaviour. */
Obj abi_upcall_missing(Lisp *L, Obj sym);
static inline Obj abi_upcall(Lisp *L, Obj sym) {
    Symbol *s = SYM(sym);
    if (LIKELY(is_function(s->function) && !(s->h.flags & SYM_MACRO))) return s->function;
    return abi_upcall_missing(L, sym);
}

#endif
