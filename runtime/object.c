/* object.c: type names, primitive objects and their registration, shared argument parsing. */
#include "prim.h"
#include "package.h"
#include "lstring.h"
#include "imagetab.h"
#include <stdio.h>
#include <stdlib.h>

const char *const heap_type_names[T_COUNT] = {
    "NONE",
#define X(e, n) n,
    HEAP_TYPES(X)
#undef X
};

Obj make_primitive(Lisp *L, Obj name, PrimFn fn, int min, int max, int flags) {
    Primitive *p = (Primitive *)heap_alloc(L, T_PRIMITIVE, sizeof(Primitive));
    p->name = name;
    p->fn = fn;
    p->min_args = (int16_t)min;
    p->max_args = (int16_t)max;
    p->h.flags = (uint8_t)flags;
    return (Obj)p;
}

static Obj prim_package(Lisp *L, PrimPackage pk) {
    switch (pk) {
    case PK_CL: return L->pkg_cl;
    case PK_SYS: return L->pkg_system;
    case PK_EXT: return L->pkg_ext;
    case PK_KW: return L->pkg_keyword;
    }
    return L->pkg_system;
}

void prims_register(Lisp *L, const PrimDef *d) {
    /* checked while booting from the sources, where every runtime table is registered (a start from
     * the image registers only the session's two, declared beside it, and pays nothing) */
    if (L->boot_phase == 0 && !imagetab_declared(d)) {
        fprintf(stderr, "tinycl: the primitive table of %s is not declared in runtime/imagetab.c\n", d->name ? d->name : "(empty)");
        abort();
    }
    for (; d->name; d++) {
        Obj pkg = prim_package(L, d->pkg);
        /* "(SETF NAME)" registers the setf function of NAME */
        bool setf = strncmp(d->name, "(SETF ", 6) == 0;
        if (setf) {
            char buf[128];
            size_t n = strlen(d->name) - 7;
            if (n >= sizeof buf) n = sizeof buf - 1;
            memcpy(buf, d->name + 6, n);
            buf[n] = 0;
            Obj sym = intern_cstr(L, pkg, buf);
            Obj name = cons(L, S(SETF), cons(L, sym, NIL));
            Obj fn = make_primitive(L, name, d->fn, d->min_args, d->max_args, d->flags);
            PRIM(fn)->lambda_list = d->lambda_list;
            PRIM(fn)->doc = d->doc;
            symbol_data(L, sym)->setf_function = fn;
            continue;
        }
        Obj sym = intern_cstr(L, pkg, d->name);
        if (d->pkg == PK_EXT) package_export(L, pkg, sym);
        Obj fn = make_primitive(L, sym, d->fn, d->min_args, d->max_args, d->flags & ~FN_MACRO_EXPANDER);
        PRIM(fn)->lambda_list = d->lambda_list;
        PRIM(fn)->doc = d->doc;
        Symbol *s = symbol_data(L, sym);
        /* two tables naming one primitive: the later one would silently replace the earlier
         * (checked while booting from the sources, as above) */
        if (L->boot_phase == 0 && s->function != UNBOUND) {
            fprintf(stderr, "tinycl: the primitive %s is registered twice\n", d->name);
            abort();
        }
        s->function = fn;
        if (d->flags & FN_MACRO_EXPANDER) s->h.flags |= SYM_MACRO;
    }
}

size_t check_index(Lisp *L, Obj o) {
    if (!is_fixnum(o) || fixnum_val(o) < 0)
        err_type(L, o, cons(L, S(INTEGER), cons(L, FIX(0), cons(L, FIX(MOST_POSITIVE_FIXNUM), NIL))));
    return (size_t)fixnum_val(o);
}

size_t check_bound(Lisp *L, Obj o, size_t limit) {
    if (!is_fixnum(o) || fixnum_val(o) < 0 || (size_t)fixnum_val(o) > limit)
        err_type(L, o, cons(L, S(INTEGER), cons(L, FIX(0), cons(L, FIX((intptr_t)limit), NIL))));
    return (size_t)fixnum_val(o);
}

void parse_keys(Lisp *L, int nargs, Obj *args, int start, int nkeys, const Obj *keys, Obj *out) {
    for (int k = 0; k < nkeys; k++) out[k] = NO_VALUE;
    if (start >= nargs) return;
    if ((nargs - start) % 2) err_program(L, "odd number of &KEY arguments");
    bool allow = false;
    for (int i = start; i < nargs; i += 2)
        if (args[i] == S(K_ALLOW_OTHER_KEYS)) { allow = args[i + 1] != NIL; break; }   /* leftmost wins */
    for (int i = start; i < nargs; i += 2) {
        Obj k = args[i];
        int found = -1;
        for (int j = 0; j < nkeys; j++)
            if (keys[j] == k) { found = j; break; }
        if (found >= 0) {
            if (out[found] == NO_VALUE) out[found] = args[i + 1];   /* leftmost wins */
        } else if (!allow && k != S(K_ALLOW_OTHER_KEYS)) {
            err_program(L, "unknown &KEY argument: %S", k);
        }
    }
}
