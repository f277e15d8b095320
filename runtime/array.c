/* array.c: arrays and vectors: representation-independent access and the CLHS chapter 15 functions. */
#include "array.h"
#include "prim.h"
#include "lstring.h"

bool is_array(Obj o) {
    if (!is_heap(o)) return false;
    HeapType t = heap_type(o);
    return t == T_VECTOR || t == T_STRING || t == T_BITVECTOR || t == T_ARRAY;
}

bool is_vector(Obj o) {
    if (!is_heap(o)) return false;
    HeapType t = heap_type(o);
    return t == T_VECTOR || t == T_STRING || t == T_BITVECTOR || (t == T_ARRAY && ARR(o)->h.aux == 1);
}

int array_rank(Obj a) { return is_type(a, T_ARRAY) ? ARR(a)->h.aux : 1; }

size_t array_dimension(Obj a, int axis) {
    switch (heap_type(a)) {
    case T_VECTOR: return VEC(a)->len;
    case T_STRING: return STR(a)->cap;
    case T_BITVECTOR: return BITV(a)->cap;
    default: return ARR(a)->dims[axis];
    }
}

size_t array_total(Obj a) {
    switch (heap_type(a)) {
    case T_VECTOR: return VEC(a)->len;
    case T_STRING: return STR(a)->cap;
    case T_BITVECTOR: return BITV(a)->cap;
    default: return ARR(a)->total;
    }
}

size_t vector_length(Obj v) {
    switch (heap_type(v)) {
    case T_VECTOR: return VEC(v)->len;
    case T_STRING: return STR(v)->len;
    case T_BITVECTOR: return BITV(v)->len;
    default: return (ARR(v)->h.flags & ARR_FILL_POINTER) ? ARR(v)->fill : ARR(v)->total;
    }
}

EltType array_elt_type(Obj a) {
    switch (heap_type(a)) {
    case T_STRING: return ELT_CHARACTER;
    case T_BITVECTOR: return ELT_BIT;
    case T_ARRAY: return (EltType)ARR(a)->h.aux32;
    default: return ELT_T;
    }
}

Obj array_rm_ref(Lisp *L, Obj a, size_t i) {
    switch (heap_type(a)) {
    case T_VECTOR: return VEC(a)->data[i];
    case T_STRING: return make_char(STR(a)->data[i]);
    case T_BITVECTOR: return FIX(BITV(a)->data[i]);
    default: return array_rm_ref(L, ARR(a)->storage, ARR(a)->offset + i);
    }
}

void array_rm_set(Lisp *L, Obj a, size_t i, Obj v) {
    switch (heap_type(a)) {
    case T_VECTOR: VEC(a)->data[i] = v; return;
    case T_STRING:
        if (!is_char(v)) err_type(L, v, S(CHARACTER));
        STR(a)->data[i] = char_code(v);
        return;
    case T_BITVECTOR:
        if (v != FIX(0) && v != FIX(1)) err_type(L, v, S(BIT));
        BITV(a)->data[i] = (uint8_t)fixnum_val(v);
        return;
    default: array_rm_set(L, ARR(a)->storage, ARR(a)->offset + i, v); return;
    }
}

Obj make_vector(Lisp *L, size_t n, Obj init) {
    gc_check_request(L, n * sizeof(Obj));
    Vector *v = (Vector *)heap_alloc(L, T_VECTOR, sizeof(Vector) + n * sizeof(Obj));
    v->len = n;
    for (size_t i = 0; i < n; i++) v->data[i] = init;
    return (Obj)v;
}

Obj make_bit_vector(Lisp *L, size_t n) {
    gc_check_request(L, n);
    BitVector *b = (BitVector *)heap_alloc(L, T_BITVECTOR, sizeof(BitVector));
    b->data = (uint8_t *)gc_alloc_atomic(L, n ? n : 1);
    memset(b->data, 0, n ? n : 1);
    b->len = b->cap = n;
    return (Obj)b;
}

Obj array_element_type_spec(Lisp *L, Obj a) {
    switch (array_elt_type(a)) {
    case ELT_CHARACTER: return S(CHARACTER);
    case ELT_BIT: return S(BIT);
    case ELT_NIL: return NIL;
    default: return S(T);
    }
}

static const PrimDef array_prims[] = {
    {0},
};

void array_init(Lisp *L) { prims_register(L, array_prims); }
