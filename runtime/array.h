/* array.h: arrays and vectors (CLHS chapter 15): construction, element access, fill pointers. */
#ifndef TINYCL_ARRAY_H
#define TINYCL_ARRAY_H

#include "state.h"

/* ARRAY-RANK-LIMIT and ARRAY-DIMENSION-LIMIT (= ARRAY-TOTAL-SIZE-LIMIT), as in SBCL. */
#define ARRAY_RANK_LIMIT 129
#define ARRAY_DIMENSION_LIMIT ((size_t)MOST_POSITIVE_FIXNUM - 2)

/* The upgraded element types this implementation distinguishes. */
typedef enum { UE_T, UE_CHARACTER, UE_BASE_CHAR, UE_BIT, UE_NIL, UE_UB8 } UElt;

bool is_array(Obj o);
bool is_vector(Obj o);                 /* any rank-1 array, strings and bit vectors included */
int array_rank(Obj a);
size_t array_dimension(Obj a, int axis);
size_t array_total(Obj a);             /* total size, ignoring the fill pointer */
size_t vector_length(Obj v);           /* active length (the fill pointer when there is one) */
EltType array_elt_type(Obj a);
UElt array_uelt(Obj a);                /* the upgraded element type, base-char told apart */
unsigned array_flags(Obj a);           /* ARR_* flags (0 for simple vectors) */
bool array_is_simple(Obj a);           /* not adjustable, no fill pointer, not displaced */
bool array_has_fill_pointer(Obj a);
Obj array_rm_ref(Lisp *L, Obj a, size_t i);            /* row-major, index below array_total */
void array_rm_set(Lisp *L, Obj a, size_t i, Obj v);    /* row-major; checks the element type */
Obj make_vector(Lisp *L, size_t n, Obj init);          /* simple-vector */
Obj make_bit_vector(Lisp *L, size_t n);
/* The element type specifier of an array as ARRAY-ELEMENT-TYPE returns it. */
Obj array_element_type_spec(Lisp *L, Obj a);

/* Element types: the upgraded element type of a type specifier (UPGRADED-ARRAY-ELEMENT-TYPE),
 * and the specifier naming an upgraded type. */
UElt upgrade_element_type(Lisp *L, Obj spec);
Obj uelt_spec(Lisp *L, UElt u);
/* Whether V may be stored in an array of upgraded element type U. */
bool uelt_accepts(UElt u, Obj v);

/* A fresh array: RANK dimensions DIMS, elements initialised to the type's default
 * (0, #\Nul or 0 as SBCL). FILL < 0: no fill pointer. DISPLACED_TO NIL: own storage. */
Obj array_create(Lisp *L, int rank, const size_t *dims, UElt u, bool adjustable, intptr_t fill,
                 Obj displaced_to, size_t offset);
/* A fresh simple vector of element type U holding the elements of the sequence SEQ
 * (a proper list or a vector). */
Obj vector_from_sequence(Lisp *L, Obj seq, UElt u);
/* The length of a sequence (proper list or vector); TYPE-ERROR otherwise. */
size_t sequence_length(Lisp *L, Obj seq);
/* A fresh list of the elements of a sequence (the active elements of a vector). */
Obj sequence_to_list(Lisp *L, Obj seq);

/* VECTOR-PUSH-EXTEND from C: append V to a vector with a fill pointer, growing it. */
void vector_push_extend(Lisp *L, Obj vec, Obj v, size_t extension);

#endif
