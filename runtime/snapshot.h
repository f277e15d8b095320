/* snapshot.h: capture the boot state of packages and symbols; restore it for an exact reset. */
#ifndef TINYCL_SNAPSHOT_H
#define TINYCL_SNAPSHOT_H

#include "state.h"

Obj snapshot_take(Lisp *L);
/* Back to SNAP: packages created since are deleted unless listed in KEEP_PACKAGES. */
void snapshot_restore(Lisp *L, Obj snap, Obj keep_packages);
bool snapshot_boot_package_p(Lisp *L, Obj snap, Obj pkg);

#endif
