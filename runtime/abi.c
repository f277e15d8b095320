/* abi.c: checks after the boot that the Lisp side of the C-Lisp contract is there: each
 * function lisp-abi.def lists as called from C is defined, is a function (not a macro) and
 * accepts the number of arguments C passes. */
#include <stdio.h>
#include "abi.h"
#include "clos.h"
#include "error.h"
#include "eval.h"
#include "package.h"
#include "prim.h"
#include "warnings.h"

typedef struct Upcall { const char *package, *name; int nargs; } Upcall;

static const Upcall upcalls[] = {
#define ABI_UPCALL(pkg, name, nargs) {pkg, name, nargs},
#include "lisp-abi.def"
};

/* The argument counts FN accepts: false when they cannot be told (a funcallable instance that
 * is not a generic function, a lambda list not worth reading). */
static bool abi_arity(Lisp *L, Obj fn, int *min, int *max) {
    bool keys;
    if (is_type(fn, T_PRIMITIVE)) {
        *min = PRIM(fn)->min_args;
        *max = PRIM(fn)->max_args;     /* REST is -1 */
        return true;
    }
    if (is_type(fn, T_CLOSURE)) {
        Lambda *lam = CLOSURE(fn)->lambda;
        if (lam->lazy) return warnings_lambda_list_shape(L, lam->ll.source, min, max, &keys);
        *min = lam->ll.nreq;
        *max = lam->ll.has_rest || lam->ll.has_key ? -1 : lam->ll.nreq + lam->ll.nopt;
        return true;
    }
    if (is_type(fn, T_FUNCALLABLE) && (INST(fn)->h.flags & INST_GENERIC))
        return warnings_lambda_list_shape(L, INST(fn)->slots[GF_LAMBDA_LIST], min, max, &keys);
    return false;
}

bool abi_check_upcalls(Lisp *L, char *msg, size_t n) {
    for (size_t i = 0; i < sizeof upcalls / sizeof *upcalls; i++) {
        const Upcall *u = &upcalls[i];
        Obj pkg = package_find_cstr(L, u->package);
        if (pkg == NIL) {
            snprintf(msg, n, "package %s of upcall %s is missing", u->package, u->name);
            return false;
        }
        Symbol *s = symbol_data(L, intern_cstr(L, pkg, u->name));
        if (s->function == UNBOUND || !is_function(s->function) || (s->h.flags & (SYM_MACRO | SYM_SPECIAL_OP))) {
            snprintf(msg, n, "%s::%s, which C calls, is not defined as a function", u->package, u->name);
            return false;
        }
        int min, max;
        if (abi_arity(L, s->function, &min, &max) && (u->nargs < min || (max >= 0 && u->nargs > max))) {
            char accepts[48];
            if (max < 0) snprintf(accepts, sizeof accepts, "at least %d", min);
            else snprintf(accepts, sizeof accepts, "%d to %d", min, max);
            snprintf(msg, n, "%s::%s is called from C with %d argument%s but accepts %s",
                     u->package, u->name, u->nargs, u->nargs == 1 ? "" : "s", accepts);
            return false;
        }
    }
    return true;
}

Obj abi_upcall_missing(Lisp *L, Obj sym) {
    if (!L->boot_phase) return NIL;
    err_program(L, "%S, a function tinycl's C code calls, is not defined as a function (see runtime/lisp-abi.def)", sym);
}
