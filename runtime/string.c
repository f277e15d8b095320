/* string.c: strings (CLHS chapter 16): comparison, case, trimming, and the string functions. */
#include "prim.h"

DEFPRIM(prim_stringp) { UNUSED_ARGS; return boolean(L, is_string(args[0]) || (is_type(args[0], T_ARRAY) && ARR(args[0])->h.aux == 1 && ARR(args[0])->h.aux32 == ELT_CHARACTER)); }

static const PrimDef string_prims[] = {
    {"STRINGP", PK_CL, prim_stringp, 1, 1, 0, "(object)", NULL},
    {0},
};

void string_init(Lisp *L) { prims_register(L, string_prims); }
