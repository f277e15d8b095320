/* snapshot.h: capture the boot state of packages and symbols; restore it for an exact reset. */
#ifndef TINYCL_SNAPSHOT_H
#define TINYCL_SNAPSHOT_H

#include "state.h"

Obj snapshot_take(Lisp *L);
/* Back to SNAP: packages created since are deleted unless listed in KEEP_PACKAGES. */
void snapshot_restore(Lisp *L, Obj snap, Obj keep_packages);
bool snapshot_boot_package_p(Lisp *L, Obj snap, Obj pkg);
/* While a system load is captured: SYM's presence in PKG is about to change; BEFORE is its
 * status now (package_symbol_status). */
void snapshot_note_table_change(Lisp *L, Obj pkg, Obj sym, int before);

#endif
