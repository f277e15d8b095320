/* types.h: the type system (CLHS chapter 4): TYPEP, SUBTYPEP, TYPE-OF, COERCE and DEFTYPE expansion. */
#ifndef TINYCL_TYPES_H
#define TINYCL_TYPES_H

#include "state.h"

/* TYPE-OF as SBCL answers it. */
Obj type_of(Lisp *L, Obj o);
/* (typep object type); signals for malformed or unknown type specifiers. */
bool type_typep(Lisp *L, Obj object, Obj type);
/* (subtypep t1 t2): the primary value; *certain gets the second value. */
bool type_subtypep(Lisp *L, Obj t1, Obj t2, bool *certain);
/* Expand DEFTYPE definitions at the head of SPEC until it is no longer a derived type. */
Obj type_expand(Lisp *L, Obj spec);
/* True when SPEC certainly holds an object that is neither a character nor an integer from 0 to
 * 255 (an array type, a list, (EQL -1), an OR with such a part, a DEFTYPE of one): such an
 * element type upgrades to T, with no SUBTYPEP. False means "not known", not "no". */
bool type_upgrades_to_t_p(Lisp *L, Obj spec);
/* Signal an error if SPEC (after expansion) names no known type. */
void type_check_known(Lisp *L, Obj spec);
/* Does the symbol SYM name a type: built in, a class or structure, or a DEFTYPE? */
bool type_name_p(Lisp *L, Obj sym);
/* CLHS TYPE: a symbol names a type or a declaration, not both. (proclaim '(declaration SYM))
 * records SYM, or signals when it names a type; type_declaration_name_p asks. */
void type_proclaim_declaration(Lisp *L, Obj sym);
bool type_declaration_name_p(Lisp *L, Obj sym);
/* (coerce object result-type) */
Obj type_coerce(Lisp *L, Obj object, Obj type);

#endif
