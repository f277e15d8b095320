/* abi.h: the check of the C-Lisp contract (runtime/lisp-abi.def) once the stdlib is loaded. */
#ifndef TINYCL_ABI_H
#define TINYCL_ABI_H

#include "state.h"

/* Whether every upcall lisp-abi.def declares is a global function accepting the arguments C
 * passes it. On a failure writes what is wrong into MSG (N bytes) and returns false; lisp_new
 * refuses to finish a boot that fails it, so a renamed or broken upcall stops the build (which
 * boots tinycl) instead of degrading some behaviour unnoticed. */
bool abi_check_upcalls(Lisp *L, char *msg, size_t n);

#endif
