/* pathname.c: pathnames (CLHS chapter 19) and the file system interface (chapter 20). */
#include "prim.h"

static const PrimDef pathname_prims[] = {
    {0},
};

void pathname_init(Lisp *L) { prims_register(L, pathname_prims); }
