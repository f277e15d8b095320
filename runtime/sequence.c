/* sequence.c: the sequence functions (CLHS chapter 17) on lists and vectors. */
#include "prim.h"

static const PrimDef sequence_prims[] = {
    {0},
};

void sequence_init(Lisp *L) { prims_register(L, sequence_prims); }
