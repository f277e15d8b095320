/* clos.h: the layout of CLOS metaobjects shared by runtime/clos.c and stdlib-lisp/clos.lisp,
 * CLASS-OF, and the generic-function entry point the evaluator calls.
 *
 * Every object CLOS manages is an instance (T_INSTANCE, or T_FUNCALLABLE for generic
 * functions) whose `layout` is its class, a class metaobject flagged INST_CLASS. An instance
 * of a standard class carries in its header's aux32 the class version it was made for; a
 * redefinition that changes the instance slots bumps the class's version, and the first slot
 * access to an older instance updates it (see %UPDATE-OBSOLETE-INSTANCE in clos.lisp).
 * The slot indices below are repeated as literal numbers in stdlib-lisp/conditions.lisp and
 * stdlib-lisp/clos.lisp: change them together. */
#ifndef TINYCL_CLOS_H
#define TINYCL_CLOS_H

#include "state.h"

/* class metaobjects */
enum {
    CL_NAME,                 /* symbol */
    CL_DIRECT_SUPERS,        /* list of classes */
    CL_CPL,                  /* class precedence list, the class first */
    CL_DIRECT_SLOTS,         /* list of slot definitions */
    CL_SLOTS,                /* effective slot definitions */
    CL_DIRECT_DEFAULT_INITARGS, /* ((key form function) ...) */
    CL_DEFAULT_INITARGS,     /* effective, same shape */
    CL_DOCUMENTATION,
    CL_KIND,                 /* :standard :built-in :structure :condition :funcallable :forward */
    CL_DIRECT_SUBCLASSES,
    CL_VERSION,              /* fixnum: instances with another version are obsolete */
    CL_OBSOLETE_LAYOUTS,     /* ((version . instance-slot-names) ...) */
    CL_FINALIZED,
    CL_PROTOTYPE,
    CL_DIRECT_METHODS,
    CL_INITARGS_CACHE,       /* (epoch . valid-initargs) or NIL */
    CL_PLIST,                /* :report, :structure description, ... */
    CL_INSTANCE_SIZE,        /* fixnum: number of instance-allocated slots */
    CL_NSLOTS
};

/* slot definitions (direct and effective) */
enum {
    SD_NAME, SD_INITARGS, SD_INITFORM, SD_INITFUNCTION, SD_READERS, SD_WRITERS,
    SD_ALLOCATION, SD_TYPE, SD_DOCUMENTATION, SD_LOCATION, SD_READ_ONLY, SD_NSLOTS
};

/* generic functions */
enum {
    GF_NAME, GF_LAMBDA_LIST, GF_METHODS, GF_METHOD_COMBINATION, GF_DOCUMENTATION,
    GF_APO, GF_DECLARATIONS, GF_METHOD_CLASS,
    GF_CACHE,                /* simple-vector: [epoch count entries...], entry = k keys + emf */
    GF_DISPATCH,             /* simple-vector of the argument positions the cache keys on */
    GF_EQL_TABLES,           /* NIL or simple-vector (per required position) of NIL or EQL table */
    GF_INFO,                 /* (nreq nopt restp keys allow-other-keys-p) of the lambda list */
    GF_NREQ,                 /* fixnum */
    GF_PLIST,
    GF_INITIAL_METHODS,      /* methods made by DEFGENERIC's :method options */
    GF_NSLOTS
};

/* methods */
enum {
    M_GF, M_QUALIFIERS, M_SPECIALIZERS, M_LAMBDA_LIST,
    M_FUNCTION,              /* (lambda (chain arglist . lambda-list) ...) or NIL */
    M_FAST_FUNCTION,         /* (lambda lambda-list ...) when the body never calls the next method */
    M_DOCUMENTATION, M_SLOT_NAME, M_PLIST, M_NSLOTS
};

/* effective methods kept in the caches: a function, or a simple-vector headed by one of */
enum {
    EMF_READER = 0,          /* [tag class location fallback-function] */
    EMF_WRITER = 1,          /* [tag class location fallback-function] */
    EMF_CHAIN = 2,           /* [tag chain allowed-keys-or-T first-key-position] */
    EMF_INNER = 3,           /* chain element: [tag befores primaries afters] */
};

static inline bool is_class_object(Obj o) {
    return is_type(o, T_INSTANCE) && (INST(o)->h.flags & INST_CLASS);
}

/* The class of any object (NIL before clos.lisp has made the built-in classes). */
Obj clos_class_of(Lisp *L, Obj o);

/* Call a generic function (a funcallable instance flagged INST_GENERIC). */
Obj clos_dispatch(Lisp *L, Obj gf, int nargs, Obj *args);

#endif
