/* clos.h: the layout of CLOS metaobjects shared by runtime/clos.c and stdlib-lisp/clos.lisp,
 * CLASS-OF, and the generic-function entry point the evaluator calls.
 *
 * Every object CLOS manages is an instance (T_INSTANCE, or T_FUNCALLABLE for generic
 * functions) whose `layout` is its class, a class metaobject flagged INST_CLASS. An instance
 * of a standard class carries in its header's aux32 the class version it was made for; a
 * redefinition that changes the instance slots bumps the class's version, and the first slot
 * access to an older instance updates it (see %UPDATE-OBSOLETE-INSTANCE in clos.lisp).
 * The slot layouts are declared in lisp-abi.def, the one place both languages take them from. */
#ifndef TINYCL_CLOS_H
#define TINYCL_CLOS_H

#include "state.h"

/* The layouts (CL_*, SD_*, GF_*, M_*, EQLS_*, RS_*, PPD_* and their *_NSLOTS) and the EMF_* tags of
 * cached effective methods, declared in lisp-abi.def, which also gives stdlib-lisp its accessors. */
#define ABI_LAYOUT(id, lisp) enum {
#define ABI_SLOT(id, cname, lisp) cname,
#define ABI_END(id, cnslots) cnslots };
#include "lisp-abi.def"

static inline bool is_class_object(Obj o) {
    return is_type(o, T_INSTANCE) && (INST(o)->h.flags & INST_CLASS);
}

/* The class of any object (NIL before clos.lisp has made the built-in classes). */
Obj clos_class_of(Lisp *L, Obj o);

/* Whether CLS is SUPER or has it in its class precedence list. */
bool clos_class_inherits(Obj cls, Obj super);

/* A new instance of the class CLS, every slot unbound, with header FLAGS (INST_*). */
Obj clos_allocate_instance(Lisp *L, Obj cls, uint8_t flags);

/* The location of slot NAME in an up-to-date instance of CLS (an index or a class slot's cell), or NIL. */
Obj clos_slot_location(Obj cls, Obj name);

/* Call a generic function (a funcallable instance flagged INST_GENERIC). */
Obj clos_dispatch(Lisp *L, Obj gf, int nargs, Obj *args);

#endif
