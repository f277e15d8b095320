/* string.c: strings (CLHS chapter 16): comparison, case, trimming, and the string functions. */
#include "prim.h"

static const PrimDef string_prims[] = {
    {0},
};

void string_init(Lisp *L) { prims_register(L, string_prims); }
