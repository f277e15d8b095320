/* array.h: arrays and vectors (CLHS chapter 15): construction, element access, fill pointers. */
#ifndef TINYCL_ARRAY_H
#define TINYCL_ARRAY_H

#include "state.h"

bool is_array(Obj o);
bool is_vector(Obj o);                 /* any rank-1 array, strings and bit vectors included */
int array_rank(Obj a);
size_t array_dimension(Obj a, int axis);
size_t array_total(Obj a);             /* total size, ignoring the fill pointer */
size_t vector_length(Obj v);           /* active length (the fill pointer when there is one) */
EltType array_elt_type(Obj a);
Obj array_rm_ref(Lisp *L, Obj a, size_t i);            /* row-major, unchecked index */
void array_rm_set(Lisp *L, Obj a, size_t i, Obj v);    /* row-major; checks the element type */
Obj make_vector(Lisp *L, size_t n, Obj init);          /* simple-vector */
Obj make_bit_vector(Lisp *L, size_t n);
/* The element type specifier of an array as ARRAY-ELEMENT-TYPE returns it. */
Obj array_element_type_spec(Lisp *L, Obj a);

#endif
