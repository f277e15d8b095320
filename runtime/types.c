/* types.c: types (CLHS chapter 4): TYPE-OF, TYPEP on built-in and compound type specifiers. */
#include "prim.h"
#include "package.h"
#include "array.h"
#include "number.h"
#include "stream.h"
#include "eval.h"

Obj type_of(Lisp *L, Obj o) {
    if (is_fixnum(o)) return S(FIXNUM);
    if (is_cons(o)) return S(CONS);
    if (o == NIL) return S(NULL);
    if (is_char(o)) return S(CHARACTER);
    if (is_single(o)) return S(SINGLE_FLOAT);
    switch (heap_type(o)) {
    case T_SYMBOL: return o == S(T) ? S(BOOLEAN) : is_keyword(L, o) ? S(KEYWORD) : S(SYMBOL);
    case T_BIGNUM: return S(BIGNUM);
    case T_RATIO: return S(RATIO);
    case T_DOUBLE: return S(DOUBLE_FLOAT);
    case T_COMPLEX: return S(COMPLEX);
    case T_STRING: return S(STRING);
    case T_VECTOR: return S(SIMPLE_VECTOR);
    case T_BITVECTOR: return S(BIT_VECTOR);
    case T_ARRAY: return S(ARRAY);
    case T_HASHTABLE: return S(HASH_TABLE);
    case T_PACKAGE: return S(PACKAGE);
    case T_PRIMITIVE: return S(COMPILED_FUNCTION);
    case T_CLOSURE: return S(FUNCTION);
    case T_STREAM: return S(STREAM);
    case T_READTABLE: return S(READTABLE);
    case T_RANDOM_STATE: return S(RANDOM_STATE);
    case T_PATHNAME: return S(PATHNAME);
    case T_INSTANCE: case T_FUNCALLABLE: {
        Obj hook = SYM(S(P_INSTANCE_TYPE_OF))->function;
        if (is_function(hook)) {
            Obj r = funcall1(L, hook, o);
            L->nvals = 1;
            return r;
        }
        return S(STANDARD_OBJECT);
    }
    default: return S(T);
    }
}

DEFPRIM(prim_type_of) { UNUSED_ARGS; return type_of(L, args[0]); }

static const PrimDef types_prims[] = {
    {"TYPE-OF", PK_CL, prim_type_of, 1, 1, 0, "(object)", NULL},
    {0},
};

void types_init(Lisp *L) { prims_register(L, types_prims); }
