/* prim.h: defining primitives (C functions callable from Lisp) and checking their arguments. */
#ifndef TINYCL_PRIM_H
#define TINYCL_PRIM_H

#include "state.h"
#include "gc.h"
#include "error.h"
#include "control.h"

typedef enum { PK_CL, PK_SYS, PK_EXT, PK_KW } PrimPackage;

/* One row of a module's primitive table. The C function for Lisp name NAME is
 * prim_<name> with the mapping in docs/internals.md ("-" -> "_", "*" -> "star",
 * "%" -> "pct_", "+" -> "plus", "/" -> "slash", "<" -> "lt", ">" -> "gt",
 * "=" -> "eq", "1+" -> "one_plus", "1-" -> "one_minus", "&" -> "and"). */
typedef struct PrimDef {
    const char *name;
    PrimPackage pkg;
    PrimFn fn;
    int16_t min_args, max_args;   /* max -1: &rest */
    uint8_t flags;                /* FN_MV: the primitive sets L->nvals */
    const char *lambda_list;
    const char *doc;
} PrimDef;

/* A primitive table as a row of the registry of image tables (imagetab.h): an image names a
 * primitive's function, lambda list and documentation by (table, row, field). */
#define PRIMDEF_IMAGE_TABLE(label, rows)                                                                   \
    {label, rows, sizeof(PrimDef), offsetof(PrimDef, name), 3,                                            \
     {offsetof(PrimDef, fn), offsetof(PrimDef, lambda_list), offsetof(PrimDef, doc)}}

#define REST (-1)
/* Register a table terminated by {0}. */
void prims_register(Lisp *L, const PrimDef *defs);
/* Make a primitive function object without naming it globally. */
Obj make_primitive(Lisp *L, Obj name, PrimFn fn, int min, int max, int flags);

#define DEFPRIM(cname) static Obj cname(Lisp *L, int nargs, Obj *args)
#define UNUSED_ARGS (void)L; (void)nargs; (void)args

/* ---- argument checks: each signals TYPE-ERROR with the datum and expected type ---- */
static inline Obj check_symbol(Lisp *L, Obj o) { if (!is_symbol(o)) err_type(L, o, S(SYMBOL)); return o; }
static inline Obj check_cons(Lisp *L, Obj o) { if (!is_cons(o)) err_type(L, o, S(CONS)); return o; }
static inline Obj check_list(Lisp *L, Obj o) { if (!is_list(o)) err_type(L, o, S(LIST)); return o; }
static inline Obj check_string(Lisp *L, Obj o) { if (!is_string(o)) err_type(L, o, S(STRING)); return o; }
static inline Obj check_char(Lisp *L, Obj o) { if (!is_char(o)) err_type(L, o, S(CHARACTER)); return o; }
static inline Obj check_function(Lisp *L, Obj o) { if (!is_function(o)) err_type(L, o, S(FUNCTION)); return o; }
static inline intptr_t check_fixnum(Lisp *L, Obj o) { if (!is_fixnum(o)) err_type(L, o, S(FIXNUM)); return fixnum_val(o); }
static inline Obj check_integer(Lisp *L, Obj o) { if (!is_integer(o)) err_type(L, o, S(INTEGER)); return o; }
static inline Obj check_number(Lisp *L, Obj o) { if (!is_number(o)) err_type(L, o, S(NUMBER)); return o; }
static inline Obj check_real(Lisp *L, Obj o) { if (!is_real(o)) err_type(L, o, S(REAL)); return o; }
/* A non-negative fixnum index (type (integer 0 most-positive-fixnum)). */
size_t check_index(Lisp *L, Obj o);
/* A non-negative index not above `limit` (for :start/:end). */
size_t check_bound(Lisp *L, Obj o, size_t limit);

/* Parse &key arguments args[start..nargs) into out[i] for keys[i] (NO_VALUE when absent).
 * Signals PROGRAM-ERROR for an odd count or an unknown key unless :allow-other-keys. */
void parse_keys(Lisp *L, int nargs, Obj *args, int start, int nkeys, const Obj *keys, Obj *out);

static inline Obj boolean(Lisp *L, bool b) { return b ? S(T) : NIL; }
static inline Obj opt_arg(int nargs, Obj *args, int i, Obj dflt) { return i < nargs ? args[i] : dflt; }

#endif
