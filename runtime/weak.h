/* weak.h: weak references and finalizers on the collector (weak hash tables, weak pointers, FINALIZE). */
#ifndef TINYCL_WEAK_H
#define TINYCL_WEAK_H

#include "state.h"
#include <stdatomic.h>

/* SLOT holds O without keeping it alive: the collector clears SLOT (to 0) when O becomes
 * unreachable. SLOT must lie in memory the collector does not scan (an atomic block). Objects
 * that are never collected (immediates, the boot image's) are not registered: they never die. */
void weak_link(Obj *slot, Obj o);
void weak_unlink(Obj *slot);

/* Collections so far: a weak table sweeps its cleared entries once after each. */
unsigned long weak_gc_count(void);

/* Finalizations queued by the collector and not yet taken by their interpreter (any interpreter's):
 * the safe point polls this before asking Lisp to run them. */
extern atomic_long weak_finalized_pending;

/* At a safe point: let the collector queue what its last collections found dead, then run L's
 * queued finalizers (through the %RUN-FINALIZERS upcall). Cheap when there are none. */
void weak_run_finalizers(Lisp *L);

/* L is freed: its queued finalizations go. */
void weak_forget_interpreter(Lisp *L);

#endif
