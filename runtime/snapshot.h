/* snapshot.h: capture the boot state of packages and symbols; restore it for an exact reset. */
#ifndef TINYCL_SNAPSHOT_H
#define TINYCL_SNAPSHOT_H

#include "state.h"

/* The state now. On the boot image mapped from the executable, built from L->image_snapshot and
 * what was written since; TINYCL_SNAPSHOT_CHECK=1 checks it against the state (snapshot_verify)
 * and reports on stderr. */
Obj snapshot_take(Lisp *L);
/* The snapshot the boot image's writer keeps in L->image_snapshot: snapshot_take's, with the
 * vector of its symbols that snapshot_take reads instead of every record. */
Obj snapshot_take_base(Lisp *L);
/* True when SNAP records exactly the packages and symbols as they are now; else WHY says what differs. */
bool snapshot_verify(Lisp *L, Obj snap, char *why, size_t n);
/* Back to SNAP: packages created since are deleted unless listed in KEEP_PACKAGES. */
void snapshot_restore(Lisp *L, Obj snap, Obj keep_packages);
bool snapshot_boot_package_p(Lisp *L, Obj snap, Obj pkg);
/* While a system load is captured: SYM's presence in PKG is about to change; BEFORE is its
 * status now (package_symbol_status). */
void snapshot_note_table_change(Lisp *L, Obj pkg, Obj sym, int before);
/* A keyword stdlib code analysed after the boot refers to becomes part of the reset state. */
void snapshot_adopt_keyword(Lisp *L, Obj sym);

#endif
