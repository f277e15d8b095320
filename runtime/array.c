/* array.c: arrays and vectors: representation-independent access and the CLHS chapter 15 functions. */
#include "array.h"
#include "prim.h"
#include "lstring.h"
#include "list.h"
#include "types.h"
#include "number.h"
#include "package.h"
#include "docs.h"

/* ------------------------------------------------------------------ */
/* representation                                                      */

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

unsigned array_flags(Obj a) { return is_type(a, T_VECTOR) ? 0u : ((Header *)a)->flags; }

UElt array_uelt(Obj a) {
    switch (array_elt_type(a)) {
    case ELT_CHARACTER: return (array_flags(a) & ARR_BASE) ? UE_BASE_CHAR : UE_CHARACTER;
    case ELT_BIT: return UE_BIT;
    case ELT_NIL: return UE_NIL;
    case ELT_UB8: return UE_UB8;
    default: return UE_T;
    }
}

bool array_is_simple(Obj a) { return !(array_flags(a) & (ARR_FILL_POINTER | ARR_ADJUSTABLE | ARR_DISPLACED)); }
bool array_has_fill_pointer(Obj a) { return (array_flags(a) & ARR_FILL_POINTER) != 0; }

static Obj list2_(Lisp *L, Obj a, Obj b) { return cons(L, a, cons(L, b, NIL)); }
static Obj list3_(Lisp *L, Obj a, Obj b, Obj c) { return cons(L, a, cons(L, b, cons(L, c, NIL))); }

/* (MOD 4611686018427387901): what an index must be before it is compared with a dimension */
static Obj index_type(Lisp *L) { return list2_(L, S(MOD), FIX((intptr_t)ARRAY_DIMENSION_LIMIT)); }

_Noreturn static void err_bad_index(Lisp *L, Obj index, size_t limit) {
    err_type(L, index, list3_(L, S(INTEGER), FIX(0), cons(L, FIX((intptr_t)limit), NIL)));
}

/* A non-negative fixnum below array-dimension-limit, or TYPE-ERROR (MOD limit). */
static size_t index_arg(Lisp *L, Obj o) {
    if (!is_fixnum(o) || fixnum_val(o) < 0 || (size_t)fixnum_val(o) >= ARRAY_DIMENSION_LIMIT)
        err_type(L, o, index_type(L));
    return (size_t)fixnum_val(o);
}

static Obj check_array(Lisp *L, Obj o) {
    if (!is_array(o)) err_type(L, o, S(ARRAY));
    return o;
}

static Obj fill_pointer_type(Lisp *L) {
    return list3_(L, S(AND), S(VECTOR), list2_(L, S(SATISFIES), S(ARRAY_HAS_FILL_POINTER_P)));
}

_Noreturn static void err_no_fill_pointer(Lisp *L, Obj o) {
    err_condition(L, S(SIMPLE_TYPE_ERROR),
                  list_from_array(L, 8, (Obj[]){S(K_DATUM), o, S(K_EXPECTED_TYPE), fill_pointer_type(L),
                                                S(K_FORMAT_CONTROL), string_from_cstr(L, "~S is not an array with a fill pointer."),
                                                S(K_FORMAT_ARGUMENTS), cons(L, o, NIL)}));
}

/* A displaced array whose target became too small: as SBCL does, set its dimensions to zero
 * (so that nothing reads through it again) and signal a TYPE-ERROR naming its former type. */
_Noreturn static void invalidate_displaced(Lisp *L, Obj a) {
    Obj type = type_of(L, a);
    Array *x = ARR(a);
    for (int k = 0; k < x->h.aux; k++) x->dims[k] = 0;
    x->total = 0;
    x->fill = 0;
    x->offset = 0;
    err_type(L, a, type);
}

/* Follow displacement: the array that owns the storage for row-major index *i of A. */
static Obj resolve(Lisp *L, Obj a, size_t *i) {
    int hops = 0;
    while (is_type(a, T_ARRAY)) {
        Array *x = ARR(a);
        Obj st = x->storage;
        size_t j = x->offset + *i;
        if (j >= array_total(st) || *i >= x->total) invalidate_displaced(L, a);
        *i = j;
        a = st;
        if ((++hops & 1023) == 0) safe_point(L);
    }
    return a;
}

Obj array_rm_ref(Lisp *L, Obj a, size_t i) {
    if (is_type(a, T_ARRAY) && ARR(a)->h.aux32 == ELT_NIL)
        err_simple(L, "An attempt to access an array of element-type NIL was made.");
    a = resolve(L, a, &i);
    switch (heap_type(a)) {
    case T_VECTOR: return VEC(a)->data[i];
    case T_STRING: return make_char(STR(a)->data[i]);
    case T_BITVECTOR: return FIX(BITV(a)->data[i]);
    default: return NIL;
    }
}

bool uelt_accepts(UElt u, Obj v) {
    switch (u) {
    case UE_T: return true;
    case UE_CHARACTER: return is_char(v);
    case UE_BASE_CHAR: return is_char(v) && char_code(v) < 128;
    case UE_BIT: return v == FIX(0) || v == FIX(1);
    case UE_UB8: return is_fixnum(v) && fixnum_val(v) >= 0 && fixnum_val(v) <= 255;
    default: return false;
    }
}

void array_rm_set(Lisp *L, Obj a, size_t i, Obj v) {
    UElt u = array_uelt(a);
    if (!uelt_accepts(u, v)) err_type(L, v, uelt_spec(L, u));
    a = resolve(L, a, &i);
    switch (heap_type(a)) {
    case T_VECTOR: VEC(a)->data[i] = v; return;
    case T_STRING:
        if ((STR(a)->h.flags & ARR_BASE) && char_code(v) >= 128) err_type(L, v, S(BASE_CHAR));
        STR(a)->data[i] = char_code(v);
        return;
    case T_BITVECTOR: BITV(a)->data[i] = (uint8_t)fixnum_val(v); return;
    default: return;
    }
}

/* Refuse sizes whose byte count overflows or can never fit. */
static void check_alloc(Lisp *L, size_t n, size_t elsize) {
    if (n > ARRAY_DIMENSION_LIMIT || n > SIZE_MAX / elsize) gc_check_request(L, SIZE_MAX);
    gc_check_request(L, n * elsize);
}

Obj make_vector(Lisp *L, size_t n, Obj init) {
    check_alloc(L, n, sizeof(Obj));
    Vector *v = (Vector *)heap_alloc(L, T_VECTOR, sizeof(Vector) + n * sizeof(Obj));
    v->len = n;
    for (size_t i = 0; i < n; i++) v->data[i] = init;
    return (Obj)v;
}

Obj make_bit_vector(Lisp *L, size_t n) {
    check_alloc(L, n, 1);
    BitVector *b = (BitVector *)heap_alloc(L, T_BITVECTOR, sizeof(BitVector));
    b->data = (uint8_t *)gc_alloc_atomic(L, n ? n : 1);
    memset(b->data, 0, n ? n : 1);
    b->len = b->cap = n;
    return (Obj)b;
}

static Obj make_simple_string(Lisp *L, size_t n, bool base) {
    check_alloc(L, n, 4);
    Obj s = string_new(L, n);
    if (base) STR(s)->h.flags |= ARR_BASE;
    return s;
}

/* Simple storage for N elements of type U, with default contents. */
static Obj alloc_storage(Lisp *L, UElt u, size_t n) {
    switch (u) {
    case UE_CHARACTER: return make_simple_string(L, n, false);
    case UE_BASE_CHAR: return make_simple_string(L, n, true);
    case UE_BIT: return make_bit_vector(L, n);
    default: return make_vector(L, n, FIX(0));
    }
}

Obj uelt_spec(Lisp *L, UElt u) {
    switch (u) {
    case UE_CHARACTER: return S(CHARACTER);
    case UE_BASE_CHAR: return S(BASE_CHAR);
    case UE_BIT: return S(BIT);
    case UE_NIL: return NIL;
    case UE_UB8: return cons(L, S(UNSIGNED_BYTE), cons(L, FIX(8), NIL));
    default: return S(T);
    }
}

Obj array_element_type_spec(Lisp *L, Obj a) { return uelt_spec(L, array_uelt(a)); }

UElt upgrade_element_type(Lisp *L, Obj spec) {
    if (spec == S(T)) return UE_T;
    if (spec == S(CHARACTER)) return UE_CHARACTER;
    if (spec == S(BASE_CHAR) || spec == S(STANDARD_CHAR)) return UE_BASE_CHAR;
    if (spec == S(BIT)) return UE_BIT;
    if (spec == NIL) return UE_NIL;
    if (spec == S(FIXNUM) || spec == S(INTEGER) || spec == S(SINGLE_FLOAT) || spec == S(DOUBLE_FLOAT) ||
        spec == S(FLOAT) || spec == S(NUMBER) || spec == S(REAL) || spec == S(SYMBOL) || spec == S(LIST) ||
        spec == S(STRING) || spec == S(FUNCTION))
        return UE_T;
    /* (UNSIGNED-BYTE n) and (SIGNED-BYTE n) without SUBTYPEP: the octet arrays' own type comes
     * back here on every SUBSEQ, COERCE or copy of such an array (ARRAY-ELEMENT-TYPE makes it) */
    if (is_cons(spec) && (CAR(spec) == S(UNSIGNED_BYTE) || CAR(spec) == S(SIGNED_BYTE)) &&
        is_cons(CDR(spec)) && CDR(CDR(spec)) == NIL && is_fixnum(CAR(CDR(spec))) && FIXVAL(CAR(CDR(spec))) >= 1) {
        intptr_t n = FIXVAL(CAR(CDR(spec)));
        if (CAR(spec) == S(SIGNED_BYTE)) return UE_T;
        return n == 1 ? UE_BIT : n <= 8 ? UE_UB8 : UE_T;
    }
    if (type_upgrades_to_t_p(L, spec)) return UE_T;
    bool certain;
    if (type_subtypep(L, spec, NIL, &certain) && certain) return UE_NIL;
    if (type_subtypep(L, spec, S(BIT), &certain) && certain) return UE_BIT;
    /* octets get their own arrays, as in SBCL (libraries tell octet vectors from others by type) */
    if (type_subtypep(L, spec, uelt_spec(L, UE_UB8), &certain) && certain) return UE_UB8;
    if (type_subtypep(L, spec, S(BASE_CHAR), &certain) && certain) return UE_BASE_CHAR;
    if (type_subtypep(L, spec, S(CHARACTER), &certain) && certain) return UE_CHARACTER;
    return UE_T;
}

/* ------------------------------------------------------------------ */
/* construction                                                        */

static Obj new_general(Lisp *L, int rank, const size_t *dims, size_t total, UElt u, unsigned flags) {
    Array *a = (Array *)heap_alloc(L, T_ARRAY, sizeof(Array));
    a->h.aux = (uint16_t)rank;
    a->h.aux32 = u == UE_T ? ELT_T : u == UE_BIT ? ELT_BIT : u == UE_NIL ? ELT_NIL : u == UE_UB8 ? ELT_UB8
               : ELT_CHARACTER;
    a->h.flags = (uint8_t)(flags | (u == UE_BASE_CHAR ? ARR_BASE : 0));
    a->dims = (size_t *)gc_alloc_atomic(L, sizeof(size_t) * (size_t)(rank ? rank : 1));
    for (int k = 0; k < rank; k++) a->dims[k] = dims[k];
    a->total = total;
    a->storage = NIL;
    return (Obj)a;
}

/* Product of dimensions, refusing totals beyond array-total-size-limit. */
static size_t dims_total(Lisp *L, int rank, const size_t *dims) {
    size_t total = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] == 0) return 0;
    }
    for (int k = 0; k < rank; k++) {
        if (__builtin_mul_overflow(total, dims[k], &total) || total >= ARRAY_DIMENSION_LIMIT)
            err_storage(L, "The total size of an array with dimensions of this size is too large.");
    }
    return total;
}

static bool displacement_reaches(Obj target, Obj a) {
    for (int n = 0; is_type(target, T_ARRAY) && n < 1000000; n++) {
        if (target == a) return true;
        target = ARR(target)->storage;
    }
    return target == a;
}

static void check_displacement(Lisp *L, Obj self, UElt u, size_t total, Obj target, size_t offset) {
    if (!is_array(target)) err_type(L, target, list3_(L, S(OR), S(ARRAY), S(NULL)));
    UElt tu = array_uelt(target);
    if (tu != u)
        err_simple(L, "Can't displace an array of type %S into another of type %S", uelt_spec(L, u), uelt_spec(L, tu));
    if (offset > array_total(target) || total > array_total(target) - offset)
        err_simple(L, "The :DISPLACED-TO array is too small.");
    if (self != NIL && displacement_reaches(target, self))
        err_simple(L, "Can't displace the array %S to itself.", self);
}

Obj array_create(Lisp *L, int rank, const size_t *dims, UElt u, bool adjustable, intptr_t fill,
                 Obj displaced_to, size_t offset) {
    size_t total = dims_total(L, rank, dims);
    unsigned flags = (adjustable ? ARR_ADJUSTABLE : 0) | (fill >= 0 ? ARR_FILL_POINTER : 0);
    if (displaced_to != NIL) {
        check_displacement(L, NIL, u, total, displaced_to, offset);
        Obj a = new_general(L, rank, dims, total, u, flags | ARR_DISPLACED);
        ARR(a)->storage = displaced_to;
        ARR(a)->offset = offset;
        ARR(a)->fill = fill >= 0 ? (size_t)fill : 0;
        return a;
    }
    if (rank == 1 && (u == UE_CHARACTER || u == UE_BASE_CHAR)) {
        Obj s = make_simple_string(L, total, u == UE_BASE_CHAR);
        STR(s)->h.flags |= (uint8_t)flags;
        if (fill >= 0) STR(s)->len = (size_t)fill;
        return s;
    }
    if (rank == 1 && u == UE_BIT) {
        Obj b = make_bit_vector(L, total);
        BITV(b)->h.flags |= (uint8_t)flags;
        if (fill >= 0) BITV(b)->len = (size_t)fill;
        return b;
    }
    if (rank == 1 && u == UE_T && !flags) return make_vector(L, total, FIX(0));
    Obj st = alloc_storage(L, u, total);
    Obj a = new_general(L, rank, dims, total, u, flags);
    ARR(a)->storage = st;
    ARR(a)->fill = fill >= 0 ? (size_t)fill : 0;
    return a;
}

/* ---- sequences (lists and vectors) as make-array and coerce need them ---- */

size_t sequence_length(Lisp *L, Obj seq) {
    if (is_list(seq)) return list_length_proper(L, seq);
    if (is_vector(seq)) return vector_length(seq);
    err_type(L, seq, S(SEQUENCE));
}

Obj sequence_to_list(Lisp *L, Obj seq) {
    if (is_list(seq)) { list_length_proper(L, seq); return list_copy(L, seq); }
    if (!is_vector(seq)) err_type(L, seq, S(SEQUENCE));
    Obj r = NIL;
    for (size_t i = vector_length(seq); i > 0; i--) {
        r = cons(L, array_rm_ref(L, seq, i - 1), r);
        if ((i & 4095) == 0) safe_point(L);
    }
    return r;
}

Obj vector_from_sequence(Lisp *L, Obj seq, UElt u) {
    size_t n = sequence_length(L, seq);
    size_t dims[1] = {n};
    Obj v = array_create(L, 1, dims, u, false, -1, NIL, 0);
    size_t i = 0;
    if (is_list(seq)) {
        for (Obj x = seq; is_cons(x); x = CDR(x), i++) array_rm_set(L, v, i, CAR(x));
    } else {
        for (; i < n; i++) array_rm_set(L, v, i, array_rm_ref(L, seq, i));
    }
    return v;
}

/* Fill A (rank RANK, DIMS) from nested sequences CONTENTS in row-major order. */
static void fill_contents_rec(Lisp *L, Obj a, int rank, const size_t *dims, int axis, Obj contents, size_t *pos) {
    stack_check(L);
    if (axis == rank) {
        array_rm_set(L, a, (*pos)++, contents);
        return;
    }
    if (!is_list(contents) && !is_vector(contents)) {
        if (rank == 1) err_type(L, contents, S(SEQUENCE));
        int more = rank - axis;
        err_simple(L, "malformed :INITIAL-CONTENTS: %S is not a sequence, but %d more layer%s needed.",
                   contents, more, more == 1 ? "" : "s");
    }
    size_t n = sequence_length(L, contents);
    if (n != dims[axis]) {
        if (rank == 1)
            err_simple(L, "There are %zu elements in the :INITIAL-CONTENTS, but the vector length is %zu.", n, dims[0]);
        err_simple(L, "malformed :INITIAL-CONTENTS: Dimension of axis %d is %zu, but %S is %zu long.",
                   axis, dims[axis], contents, n);
    }
    if (is_list(contents)) {
        for (Obj x = contents; is_cons(x); x = CDR(x)) fill_contents_rec(L, a, rank, dims, axis + 1, CAR(x), pos);
    } else {
        for (size_t i = 0; i < n; i++) {
            fill_contents_rec(L, a, rank, dims, axis + 1, array_rm_ref(L, contents, i), pos);
            if ((i & 4095) == 4095) safe_point(L);
        }
    }
}

static void fill_contents(Lisp *L, Obj a, int rank, const size_t *dims, Obj contents) {
    size_t pos = 0;
    fill_contents_rec(L, a, rank, dims, 0, contents, &pos);
}

static void fill_element(Lisp *L, Obj a, size_t from, size_t to, Obj init) {
    UElt u = array_uelt(a);
    if (!uelt_accepts(u, init)) err_type(L, init, uelt_spec(L, u));
    for (size_t i = from; i < to; i++) {
        array_rm_set(L, a, i, init);
        if ((i & 65535) == 65535) safe_point(L);
    }
}

/* Parse a dimension designator into dims[]; returns the rank. */
static int parse_dims(Lisp *L, Obj d, size_t *dims) {
    if (is_fixnum(d) || !is_list(d)) {
        if (!is_fixnum(d) || fixnum_val(d) < 0 || (size_t)fixnum_val(d) >= ARRAY_DIMENSION_LIMIT)
            err_type(L, d, list3_(L, S(OR), S(LIST), index_type(L)));
        dims[0] = (size_t)fixnum_val(d);
        return 1;
    }
    int rank = 0;
    Obj x = d;
    for (; is_cons(x); x = CDR(x)) {
        if (rank >= ARRAY_RANK_LIMIT - 1)
            err_type(L, FIX(ARRAY_RANK_LIMIT), list2_(L, S(MOD), FIX(ARRAY_RANK_LIMIT)));
        dims[rank++] = index_arg(L, CAR(x));
    }
    if (x != NIL) err_type(L, x, S(LIST));
    return rank;
}

/* (make-array dimensions &key element-type initial-element initial-contents adjustable
 *  fill-pointer displaced-to displaced-index-offset) */
DEFPRIM(prim_make_array) {
    static const int NK = 7;
    Obj keys[7] = {S(K_ELEMENT_TYPE), S(K_INITIAL_ELEMENT), S(K_INITIAL_CONTENTS), S(K_ADJUSTABLE),
                   S(K_FILL_POINTER), S(K_DISPLACED_TO), S(K_DISPLACED_INDEX_OFFSET)};
    Obj kv[7];
    parse_keys(L, nargs, args, 1, NK, keys, kv);
    size_t dims[ARRAY_RANK_LIMIT];
    int rank = parse_dims(L, args[0], dims);
    UElt u = kv[0] == NO_VALUE ? UE_T : upgrade_element_type(L, kv[0]);
    Obj init = kv[1], contents = kv[2];
    bool adjustable = kv[3] != NO_VALUE && kv[3] != NIL;
    Obj fp = kv[4] == NO_VALUE ? NIL : kv[4];
    Obj displaced = kv[5] == NO_VALUE ? NIL : kv[5];
    if (init != NO_VALUE && contents != NO_VALUE)
        err_simple(L, "Can't specify both :INITIAL-ELEMENT and :INITIAL-CONTENTS");
    intptr_t fill = -1;
    if (fp != NIL) {
        if (fp != S(T) && (!is_fixnum(fp) || fixnum_val(fp) < 0 || (size_t)fixnum_val(fp) >= ARRAY_DIMENSION_LIMIT))
            err_type(L, fp, list3_(L, S(OR), index_type(L), S(BOOLEAN)));
        if (rank != 1) err_simple(L, "Only vectors can have fill pointers.");
        fill = fp == S(T) ? (intptr_t)dims[0] : fixnum_val(fp);
        if ((size_t)fill > dims[0])
            err_simple(L, "Can't supply a value for :FILL-POINTER (%ld) that is larger than the size of the vector (%zu)",
                       (long)fill, dims[0]);
    }
    size_t offset = 0;
    if (kv[6] != NO_VALUE) {
        offset = index_arg(L, kv[6]);
        if (displaced == NIL) err_simple(L, "Can't specify :DISPLACED-INDEX-OFFSET without :DISPLACED-TO");
    }
    if (displaced != NIL && (init != NO_VALUE || contents != NO_VALUE))
        err_simple(L, "Can't specify :DISPLACED-TO and :INITIAL-ELEMENT or :INITIAL-CONTENTS");
    if (init != NO_VALUE && !uelt_accepts(u, init)) err_type(L, init, uelt_spec(L, u));
    Obj a = array_create(L, rank, dims, u, adjustable, fill, displaced, offset);
    if (contents != NO_VALUE) fill_contents(L, a, rank, dims, contents);
    else if (init != NO_VALUE && displaced == NIL) fill_element(L, a, 0, array_total(a), init);
    return a;
}

DEFPRIM(prim_vector) {
    UNUSED_ARGS;
    Obj v = make_vector(L, (size_t)nargs, NIL);
    for (int i = 0; i < nargs; i++) VEC(v)->data[i] = args[i];
    return v;
}

/* ------------------------------------------------------------------ */
/* access                                                              */

static size_t row_major_index(Lisp *L, Obj a, int nsubs, Obj *subs) {
    int rank = array_rank(a);
    if (nsubs != rank) err_simple(L, "Wrong number of subscripts, %d, for array of rank %d.", nsubs, rank);
    if (!is_type(a, T_ARRAY)) {
        size_t i = index_arg(L, subs[0]);
        size_t dim = array_dimension(a, 0);
        if (i >= dim) err_bad_index(L, subs[0], dim);
        return i;
    }
    size_t idx = 0;
    for (int k = 0; k < rank; k++) {
        size_t i = index_arg(L, subs[k]);
        size_t dim = ARR(a)->dims[k];
        if (i >= dim) err_bad_index(L, subs[k], dim);
        idx = idx * dim + i;
    }
    return idx;
}

DEFPRIM(prim_aref) {
    Obj a = check_array(L, args[0]);
    return array_rm_ref(L, a, row_major_index(L, a, nargs - 1, args + 1));
}

DEFPRIM(prim_setf_aref) {
    Obj a = check_array(L, args[1]);
    array_rm_set(L, a, row_major_index(L, a, nargs - 2, args + 2), args[0]);
    return args[0];
}

static Obj check_svector(Lisp *L, Obj o) {
    if (!is_type(o, T_VECTOR)) err_type(L, o, S(SIMPLE_VECTOR));
    return o;
}

static size_t vector_index(Lisp *L, Obj idx, size_t dim) {
    size_t i = index_arg(L, idx);
    if (i >= dim) err_bad_index(L, idx, dim);
    return i;
}

DEFPRIM(prim_svref) {
    UNUSED_ARGS;
    Obj v = check_svector(L, args[0]);
    return VEC(v)->data[vector_index(L, args[1], VEC(v)->len)];
}

DEFPRIM(prim_setf_svref) {
    UNUSED_ARGS;
    Obj v = check_svector(L, args[1]);
    VEC(v)->data[vector_index(L, args[2], VEC(v)->len)] = args[0];
    return args[0];
}

DEFPRIM(prim_row_major_aref) {
    UNUSED_ARGS;
    Obj a = check_array(L, args[0]);
    return array_rm_ref(L, a, vector_index(L, args[1], array_total(a)));
}

DEFPRIM(prim_setf_row_major_aref) {
    UNUSED_ARGS;
    Obj a = check_array(L, args[1]);
    array_rm_set(L, a, vector_index(L, args[2], array_total(a)), args[0]);
    return args[0];
}

static Obj check_bit_array(Lisp *L, Obj o, bool simple) {
    if (!is_array(o) || array_uelt(o) != UE_BIT || (simple && !array_is_simple(o)))
        err_type(L, o, list2_(L, simple ? S(SIMPLE_ARRAY) : S(ARRAY), S(BIT)));
    return o;
}

DEFPRIM(prim_bit) {
    Obj a = check_bit_array(L, args[0], false);
    return array_rm_ref(L, a, row_major_index(L, a, nargs - 1, args + 1));
}

DEFPRIM(prim_sbit) {
    Obj a = check_bit_array(L, args[0], true);
    return array_rm_ref(L, a, row_major_index(L, a, nargs - 1, args + 1));
}

DEFPRIM(prim_setf_bit) {
    Obj a = check_bit_array(L, args[1], false);
    array_rm_set(L, a, row_major_index(L, a, nargs - 2, args + 2), args[0]);
    return args[0];
}

DEFPRIM(prim_setf_sbit) {
    Obj a = check_bit_array(L, args[1], true);
    array_rm_set(L, a, row_major_index(L, a, nargs - 2, args + 2), args[0]);
    return args[0];
}

/* ------------------------------------------------------------------ */
/* attributes                                                          */

DEFPRIM(prim_array_rank) { UNUSED_ARGS; return FIX(array_rank(check_array(L, args[0]))); }

DEFPRIM(prim_array_dimension) {
    UNUSED_ARGS;
    Obj a = check_array(L, args[0]);
    Obj ax = args[1];
    if (!is_fixnum(ax) || fixnum_val(ax) < 0 || fixnum_val(ax) >= ARRAY_RANK_LIMIT)
        err_type(L, ax, list2_(L, S(MOD), FIX(ARRAY_RANK_LIMIT)));
    intptr_t k = fixnum_val(ax);
    int rank = array_rank(a);
    if (k >= rank) {
        if (rank == 1) err_simple(L, "Vector axis is not zero: %S", ax);
        err_simple(L, "Axis number %S is too big; %S only has %d dimension%s.", ax, a, rank, rank == 1 ? "" : "s");
    }
    return FIX((intptr_t)array_dimension(a, (int)k));
}

DEFPRIM(prim_array_dimensions) {
    UNUSED_ARGS;
    Obj a = check_array(L, args[0]);
    Obj r = NIL;
    for (int k = array_rank(a) - 1; k >= 0; k--) r = cons(L, FIX((intptr_t)array_dimension(a, k)), r);
    return r;
}

DEFPRIM(prim_array_total_size) { UNUSED_ARGS; return FIX((intptr_t)array_total(check_array(L, args[0]))); }

DEFPRIM(prim_array_in_bounds_p) {
    Obj a = check_array(L, args[0]);
    int rank = array_rank(a);
    if (nargs - 1 != rank) err_simple(L, "Wrong number of subscripts, %d, for array of rank %d.", nargs - 1, rank);
    bool ok = true;
    for (int k = 0; k < rank; k++) {
        Obj s = args[k + 1];
        if (!is_fixnum(s) || fixnum_val(s) < 0 || (size_t)fixnum_val(s) >= array_dimension(a, k)) ok = false;
    }
    return boolean(L, ok);
}

DEFPRIM(prim_array_row_major_index) {
    Obj a = check_array(L, args[0]);
    return FIX((intptr_t)row_major_index(L, a, nargs - 1, args + 1));
}

DEFPRIM(prim_array_element_type) { UNUSED_ARGS; return array_element_type_spec(L, check_array(L, args[0])); }

/* SBCL: every array that is not simple is adjustable in place. */
DEFPRIM(prim_adjustable_array_p) { UNUSED_ARGS; return boolean(L, !array_is_simple(check_array(L, args[0]))); }

DEFPRIM(prim_array_has_fill_pointer_p) {
    UNUSED_ARGS;
    return boolean(L, array_has_fill_pointer(check_array(L, args[0])));
}

DEFPRIM(prim_array_displacement) {
    UNUSED_ARGS;
    Obj a = check_array(L, args[0]);
    if (is_type(a, T_ARRAY) && (ARR(a)->h.flags & ARR_DISPLACED))
        return values2(L, ARR(a)->storage, FIX((intptr_t)ARR(a)->offset));
    return values2(L, NIL, FIX(0));
}

DEFPRIM(prim_arrayp) { UNUSED_ARGS; return boolean(L, is_array(args[0])); }
DEFPRIM(prim_vectorp) { UNUSED_ARGS; return boolean(L, is_vector(args[0])); }
DEFPRIM(prim_simple_vector_p) { UNUSED_ARGS; return boolean(L, is_type(args[0], T_VECTOR)); }
DEFPRIM(prim_bit_vector_p) { UNUSED_ARGS; return boolean(L, is_vector(args[0]) && array_uelt(args[0]) == UE_BIT); }
DEFPRIM(prim_simple_bit_vector_p) {
    UNUSED_ARGS;
    return boolean(L, is_type(args[0], T_BITVECTOR) && array_is_simple(args[0]));
}

/* ------------------------------------------------------------------ */
/* fill pointers                                                       */

static size_t get_fill(Obj v) {
    switch (heap_type(v)) {
    case T_STRING: return STR(v)->len;
    case T_BITVECTOR: return BITV(v)->len;
    default: return ARR(v)->fill;
    }
}

static void set_fill(Obj v, size_t n) {
    switch (heap_type(v)) {
    case T_STRING: STR(v)->len = n; return;
    case T_BITVECTOR: BITV(v)->len = n; return;
    default: ARR(v)->fill = n; return;
    }
}

static Obj check_fp_vector(Lisp *L, Obj v) {
    if (!is_vector(v) || !array_has_fill_pointer(v)) err_no_fill_pointer(L, v);
    return v;
}

/* VECTOR-PUSH and friends reject simple vectors with this type, as SBCL does. */
static Obj check_nonsimple_fp(Lisp *L, Obj v) {
    if (is_vector(v) && array_is_simple(v))
        err_type(L, v, list3_(L, S(AND), S(VECTOR), list2_(L, S(NOT), S(SIMPLE_ARRAY))));
    return check_fp_vector(L, v);
}

DEFPRIM(prim_fill_pointer) { UNUSED_ARGS; return FIX((intptr_t)get_fill(check_fp_vector(L, args[0]))); }

DEFPRIM(prim_setf_fill_pointer) {
    UNUSED_ARGS;
    Obj v = check_fp_vector(L, args[1]);
    size_t dim = array_total(v);
    Obj n = args[0];
    if (!is_fixnum(n) || fixnum_val(n) < 0 || (size_t)fixnum_val(n) > dim) {
        Obj type = list3_(L, S(INTEGER), FIX(0), FIX((intptr_t)dim));
        if (!is_integer(n)) err_type(L, n, type);
        err_condition(L, S(SIMPLE_TYPE_ERROR),
                      list_from_array(L, 8, (Obj[]){S(K_DATUM), n, S(K_EXPECTED_TYPE), type, S(K_FORMAT_CONTROL),
                                                    string_from_cstr(L, "The new fill pointer, ~S, is larger than the length of the vector (~S.)"),
                                                    S(K_FORMAT_ARGUMENTS), list2_(L, n, FIX((intptr_t)dim))}));
    }
    set_fill(v, (size_t)fixnum_val(n));
    return n;
}

DEFPRIM(prim_vector_push) {
    UNUSED_ARGS;
    Obj v = check_nonsimple_fp(L, args[1]);
    size_t f = get_fill(v);
    if (f >= array_total(v)) return NIL;
    array_rm_set(L, v, f, args[0]);
    set_fill(v, f + 1);
    return FIX((intptr_t)f);
}

/* Grow the storage of the (non-simple) vector V to NEWDIM elements, keeping its contents. */
static void grow_vector(Lisp *L, Obj v, size_t newdim) {
    size_t old = array_total(v);
    switch (heap_type(v)) {
    case T_STRING: {
        check_alloc(L, newdim, 4);
        uint32_t *d = (uint32_t *)gc_alloc_atomic(L, newdim * 4);
        memcpy(d, STR(v)->data, old * 4);
        memset(d + old, 0, (newdim - old) * 4);
        STR(v)->data = d;
        STR(v)->cap = newdim;
        if (!(STR(v)->h.flags & ARR_FILL_POINTER)) STR(v)->len = newdim;
        return;
    }
    case T_BITVECTOR: {
        check_alloc(L, newdim, 1);
        uint8_t *d = (uint8_t *)gc_alloc_atomic(L, newdim ? newdim : 1);
        memcpy(d, BITV(v)->data, old);
        memset(d + old, 0, newdim - old);
        BITV(v)->data = d;
        BITV(v)->cap = newdim;
        if (!(BITV(v)->h.flags & ARR_FILL_POINTER)) BITV(v)->len = newdim;
        return;
    }
    default: {
        UElt u = array_uelt(v);
        Obj st = alloc_storage(L, u, newdim);
        if (u != UE_NIL)
            for (size_t i = 0; i < old; i++) array_rm_set(L, st, i, array_rm_ref(L, v, i));
        ARR(v)->storage = st;
        ARR(v)->offset = 0;
        ARR(v)->h.flags &= (uint8_t)~ARR_DISPLACED;
        ARR(v)->dims[0] = newdim;
        ARR(v)->total = newdim;
        return;
    }
    }
}

void vector_push_extend(Lisp *L, Obj v, Obj x, size_t extension) {
    check_nonsimple_fp(L, v);
    size_t f = get_fill(v);
    size_t dim = array_total(v);
    if (f >= dim) {
        size_t ext = extension ? extension : (f > 1 ? f : 1);
        if (ext > ARRAY_DIMENSION_LIMIT - dim) err_storage(L, "Can't extend the vector beyond array-dimension-limit.");
        UElt u = array_uelt(v);
        if (!uelt_accepts(u, x)) err_type(L, x, uelt_spec(L, u));
        grow_vector(L, v, dim + ext);
    }
    array_rm_set(L, v, f, x);
    set_fill(v, f + 1);
}

DEFPRIM(prim_vector_push_extend) {
    size_t ext = 0;
    if (nargs > 2) {
        Obj e = args[2];
        if (!is_fixnum(e) || fixnum_val(e) < 1 || (size_t)fixnum_val(e) > ARRAY_DIMENSION_LIMIT - 1)
            err_type(L, e, list3_(L, S(INTEGER), FIX(1), FIX((intptr_t)ARRAY_DIMENSION_LIMIT - 1)));
        ext = (size_t)fixnum_val(e);
    }
    Obj v = args[1];
    vector_push_extend(L, v, args[0], ext);
    return FIX((intptr_t)get_fill(v) - 1);
}

DEFPRIM(prim_vector_pop) {
    UNUSED_ARGS;
    Obj v = check_nonsimple_fp(L, args[0]);
    size_t f = get_fill(v);
    if (f == 0) err_simple(L, "There is nothing left to pop.");
    set_fill(v, f - 1);
    return array_rm_ref(L, v, f - 1);
}

/* ------------------------------------------------------------------ */
/* adjust-array                                                        */

/* Copy the elements of OLD (dims odims) into NEW (dims ndims) where both are in bounds. */
static void copy_overlap(Lisp *L, Obj old, const size_t *odims, Obj new, const size_t *ndims, int rank) {
    size_t common[ARRAY_RANK_LIMIT], idx[ARRAY_RANK_LIMIT];
    for (int k = 0; k < rank; k++) {
        common[k] = odims[k] < ndims[k] ? odims[k] : ndims[k];
        if (common[k] == 0) return;
        idx[k] = 0;
    }
    size_t count = 0;
    for (;;) {
        size_t oi = 0, ni = 0;
        for (int k = 0; k < rank; k++) {
            oi = oi * odims[k] + idx[k];
            ni = ni * ndims[k] + idx[k];
        }
        array_rm_set(L, new, ni, array_rm_ref(L, old, oi));
        if ((++count & 4095) == 0) safe_point(L);
        int k = rank - 1;
        while (k >= 0 && ++idx[k] == common[k]) idx[k--] = 0;
        if (k < 0) break;
    }
}

/* (adjust-array array new-dimensions &key element-type initial-element initial-contents
 *  fill-pointer displaced-to displaced-index-offset) */
DEFPRIM(prim_adjust_array) {
    Obj keys[6] = {S(K_ELEMENT_TYPE), S(K_INITIAL_ELEMENT), S(K_INITIAL_CONTENTS), S(K_FILL_POINTER),
                   S(K_DISPLACED_TO), S(K_DISPLACED_INDEX_OFFSET)};
    Obj kv[6];
    Obj a = check_array(L, args[0]);
    parse_keys(L, nargs, args, 2, 6, keys, kv);
    size_t dims[ARRAY_RANK_LIMIT];
    int rank = parse_dims(L, args[1], dims);
    int orank = array_rank(a);
    if (rank != orank)
        err_simple(L, "Expected %d new dimension%s for array, but received %d.", orank, orank == 1 ? "" : "s", rank);
    UElt u = array_uelt(a);
    if (kv[0] != NO_VALUE && upgrade_element_type(L, kv[0]) != u)
        err_simple(L, "The new element type, %S, is incompatible with old type, %S.", kv[0], uelt_spec(L, u));
    Obj init = kv[1], contents = kv[2], fp = kv[3];
    Obj displaced = kv[4] == NO_VALUE ? NIL : kv[4];
    if (init != NO_VALUE && contents != NO_VALUE)
        err_simple(L, "Can't specify both :INITIAL-ELEMENT and :INITIAL-CONTENTS");
    if (displaced != NIL && (init != NO_VALUE || contents != NO_VALUE))
        err_simple(L, "Can't specify :DISPLACED-TO and :INITIAL-ELEMENT or :INITIAL-CONTENTS");
    size_t offset = 0;
    if (kv[5] != NO_VALUE) {
        offset = index_arg(L, kv[5]);
        if (displaced == NIL && offset != 0)
            err_simple(L, "Can't specify :DISPLACED-INDEX-OFFSET without :DISPLACED-TO");
    }
    if (init != NO_VALUE && !uelt_accepts(u, init)) err_type(L, init, uelt_spec(L, u));
    size_t total = dims_total(L, rank, dims);
    /* the new fill pointer */
    intptr_t fill = -1;
    bool has_fp = array_has_fill_pointer(a);
    if (fp != NO_VALUE && fp != NIL) {
        if (!has_fp) err_no_fill_pointer(L, a);
        if (fp == S(T)) fill = (intptr_t)total;
        else {
            if (!is_fixnum(fp) || fixnum_val(fp) < 0 || (size_t)fixnum_val(fp) >= ARRAY_DIMENSION_LIMIT)
                err_type(L, fp, list3_(L, S(OR), index_type(L), S(BOOLEAN)));
            fill = fixnum_val(fp);
            if ((size_t)fill > total)
                err_simple(L, "Can't supply a value for :FILL-POINTER (%ld) that is larger than the size of the vector (%zu)",
                           (long)fill, total);
        }
    } else if (has_fp) {
        fill = (intptr_t)get_fill(a);
        if ((size_t)fill > total)
            err_simple(L, "can't adjust vector %S to a size (%zu) smaller than its current fill pointer (%ld)",
                       a, total, (long)fill);
    }
    size_t odims[ARRAY_RANK_LIMIT];
    for (int k = 0; k < rank; k++) odims[k] = array_dimension(a, k);

    if (array_is_simple(a)) {
        /* not adjustable: a fresh array */
        Obj b = array_create(L, rank, dims, u, false, -1, displaced, offset);
        if (displaced != NIL) return b;
        if (contents != NO_VALUE) fill_contents(L, b, rank, dims, contents);
        else {
            if (init != NO_VALUE) fill_element(L, b, 0, total, init);
            if (u != UE_NIL) copy_overlap(L, a, odims, b, dims, rank);
        }
        return b;
    }

    if (displaced != NIL) {
        if (!is_type(a, T_ARRAY))
            err_simple(L, "Displacing the string or bit vector %S with ADJUST-ARRAY is not supported.", a);
        check_displacement(L, a, u, total, displaced, offset);
        Array *x = ARR(a);
        for (int k = 0; k < rank; k++) x->dims[k] = dims[k];
        x->total = total;
        x->storage = displaced;
        x->offset = offset;
        x->h.flags |= ARR_DISPLACED;
        if (fill >= 0) x->fill = (size_t)fill;
        return a;
    }

    /* build the new contents in fresh storage, then install it. The storage never shrinks:
     * arrays displaced to this one may still be read (by the printer, say) past its new size. */
    size_t phys = total, old_phys = 0;
    switch (heap_type(a)) {
    case T_STRING: old_phys = STR(a)->cap; break;
    case T_BITVECTOR: old_phys = BITV(a)->cap; break;
    default: if (!(ARR(a)->h.flags & ARR_DISPLACED)) old_phys = array_total(ARR(a)->storage); break;
    }
    if (old_phys > phys) phys = old_phys;
    Obj st = alloc_storage(L, u, phys);
    if (contents != NO_VALUE) fill_contents(L, st, rank, dims, contents);
    else {
        if (init != NO_VALUE) fill_element(L, st, 0, total, init);
        if (u != UE_NIL) copy_overlap(L, a, odims, st, dims, rank);
    }
    switch (heap_type(a)) {
    case T_STRING:
        STR(a)->data = STR(st)->data;
        STR(a)->cap = total;
        STR(a)->len = fill >= 0 ? (size_t)fill : total;
        break;
    case T_BITVECTOR:
        BITV(a)->data = BITV(st)->data;
        BITV(a)->cap = total;
        BITV(a)->len = fill >= 0 ? (size_t)fill : total;
        break;
    default: {
        Array *x = ARR(a);
        for (int k = 0; k < rank; k++) x->dims[k] = dims[k];
        x->total = total;
        x->storage = st;
        x->offset = 0;
        /* it stays actually adjustable (ADJUSTABLE-ARRAY-P) once no longer displaced */
        x->h.flags = (uint8_t)((x->h.flags & ~ARR_DISPLACED) | ARR_ADJUSTABLE);
        if (fill >= 0) x->fill = (size_t)fill;
        break;
    }
    }
    return a;
}

/* (upgraded-array-element-type typespec &optional environment) */
DEFPRIM(prim_upgraded_array_element_type) {
    UNUSED_ARGS;
    type_check_known(L, args[0]);
    return uelt_spec(L, upgrade_element_type(L, args[0]));
}

/* ------------------------------------------------------------------ */
/* bit arrays                                                          */

enum { B_AND, B_IOR, B_XOR, B_EQV, B_NAND, B_NOR, B_ANDC1, B_ANDC2, B_ORC1, B_ORC2, B_NOT };

static bool same_dims(Obj a, Obj b) {
    int r = array_rank(a);
    if (r != array_rank(b)) return false;
    for (int k = 0; k < r; k++)
        if (array_dimension(a, k) != array_dimension(b, k)) return false;
    return true;
}

static Obj bit_op(Lisp *L, int op, Obj a, Obj b, Obj opt) {
    check_bit_array(L, a, false);
    if (op != B_NOT) check_bit_array(L, b, false);
    Obj r;
    if (opt == NIL) {
        size_t dims[ARRAY_RANK_LIMIT];
        int rank = array_rank(a);
        for (int k = 0; k < rank; k++) dims[k] = array_dimension(a, k);
        if (op != B_NOT && !same_dims(a, b))
            err_simple(L, "Argument and/or result bit arrays are not the same length:~%  %S~%  %S", a, b);
        r = array_create(L, rank, dims, UE_BIT, false, -1, NIL, 0);
    } else {
        r = opt == S(T) ? a : check_bit_array(L, opt, false);
        if ((op != B_NOT && !same_dims(a, b)) || !same_dims(a, r)) {
            if (op == B_NOT) err_simple(L, "Argument and result bit arrays are not the same length:~%  %S~%  %S", a, r);
            err_simple(L, "Argument and/or result bit arrays are not the same length:~%  %S~%  %S~%  %S", a, b, r);
        }
    }
    size_t n = array_total(a);
    for (size_t i = 0; i < n; i++) {
        int x = (int)fixnum_val(array_rm_ref(L, a, i));
        int y = op == B_NOT ? 0 : (int)fixnum_val(array_rm_ref(L, b, i));
        int z;
        switch (op) {
        case B_AND: z = x & y; break;
        case B_IOR: z = x | y; break;
        case B_XOR: z = x ^ y; break;
        case B_EQV: z = !(x ^ y); break;
        case B_NAND: z = !(x & y); break;
        case B_NOR: z = !(x | y); break;
        case B_ANDC1: z = (!x) & y; break;
        case B_ANDC2: z = x & !y; break;
        case B_ORC1: z = (!x) | y; break;
        case B_ORC2: z = x | !y; break;
        default: z = !x; break;
        }
        array_rm_set(L, r, i, FIX(z));
        if ((i & 65535) == 65535) safe_point(L);
    }
    return r;
}

#define BITPRIM(cname, op) \
    DEFPRIM(cname) { return bit_op(L, op, args[0], args[1], opt_arg(nargs, args, 2, NIL)); }
BITPRIM(prim_bit_and, B_AND)
BITPRIM(prim_bit_ior, B_IOR)
BITPRIM(prim_bit_xor, B_XOR)
BITPRIM(prim_bit_eqv, B_EQV)
BITPRIM(prim_bit_nand, B_NAND)
BITPRIM(prim_bit_nor, B_NOR)
BITPRIM(prim_bit_andc1, B_ANDC1)
BITPRIM(prim_bit_andc2, B_ANDC2)
BITPRIM(prim_bit_orc1, B_ORC1)
BITPRIM(prim_bit_orc2, B_ORC2)
DEFPRIM(prim_bit_not) { return bit_op(L, B_NOT, args[0], NIL, opt_arg(nargs, args, 1, NIL)); }

const PrimDef array_prims[] = {
    {"MAKE-ARRAY", PK_CL, prim_make_array, 1, REST, 0,
     "(dimensions &key element-type initial-element initial-contents adjustable fill-pointer displaced-to displaced-index-offset)",
     "Create an array."},
    {"VECTOR", PK_CL, prim_vector, 0, REST, 0, "(&rest objects)", "A fresh simple vector of OBJECTS."},
    {"AREF", PK_CL, prim_aref, 1, REST, 0, "(array &rest subscripts)", "The element of ARRAY at the given SUBSCRIPTS, one per dimension; SETF-able."},
    {"(SETF AREF)", PK_CL, prim_setf_aref, 2, REST, 0, "(new array &rest subscripts)", NULL},
    {"SVREF", PK_CL, prim_svref, 2, 2, 0, "(simple-vector index)", "The element at INDEX of SIMPLE-VECTOR; SETF-able."},
    {"(SETF SVREF)", PK_CL, prim_setf_svref, 3, 3, 0, "(new simple-vector index)", NULL},
    {"ROW-MAJOR-AREF", PK_CL, prim_row_major_aref, 2, 2, 0, "(array index)", "The element of ARRAY at row-major position INDEX, treating it as one-dimensional; SETF-able."},
    {"(SETF ROW-MAJOR-AREF)", PK_CL, prim_setf_row_major_aref, 3, 3, 0, "(new array index)", NULL},
    {"BIT", PK_CL, prim_bit, 1, REST, 0, "(bit-array &rest subscripts)", "The bit at SUBSCRIPTS in BIT-ARRAY, an array of bits; SETF-able."},
    {"(SETF BIT)", PK_CL, prim_setf_bit, 2, REST, 0, "(new bit-array &rest subscripts)", NULL},
    {"SBIT", PK_CL, prim_sbit, 1, REST, 0, "(simple-bit-array &rest subscripts)", "The bit at SUBSCRIPTS in SIMPLE-BIT-ARRAY, a simple array of bits; SETF-able."},
    {"(SETF SBIT)", PK_CL, prim_setf_sbit, 2, REST, 0, "(new simple-bit-array &rest subscripts)", NULL},
    {"ARRAY-RANK", PK_CL, prim_array_rank, 1, 1, 0, "(array)", "The number of dimensions of ARRAY."},
    {"ARRAY-DIMENSION", PK_CL, prim_array_dimension, 2, 2, 0, "(array axis-number)", "The size of dimension AXIS-NUMBER (counting from 0) of ARRAY."},
    {"ARRAY-DIMENSIONS", PK_CL, prim_array_dimensions, 1, 1, 0, "(array)", "A list of the sizes of every dimension of ARRAY."},
    {"ARRAY-TOTAL-SIZE", PK_CL, prim_array_total_size, 1, 1, 0, "(array)", "The number of elements of ARRAY: the product of its dimensions, ignoring any fill pointer."},
    {"ARRAY-IN-BOUNDS-P", PK_CL, prim_array_in_bounds_p, 1, REST, 0, "(array &rest subscripts)", "True when SUBSCRIPTS are valid indices for ARRAY, one per dimension; never signals for out-of-range integers."},
    {"ARRAY-ROW-MAJOR-INDEX", PK_CL, prim_array_row_major_index, 1, REST, 0, "(array &rest subscripts)", "The position that the element at SUBSCRIPTS has when ARRAY's elements are taken in row-major order."},
    {"ARRAY-ELEMENT-TYPE", PK_CL, prim_array_element_type, 1, 1, 0, "(array)", "The type of element ARRAY can hold, after upgrading (for example T, CHARACTER or BIT)."},
    {"ADJUSTABLE-ARRAY-P", PK_CL, prim_adjustable_array_p, 1, 1, 0, "(array)", "True when ARRAY can be resized in place by ADJUST-ARRAY."},
    {"ARRAY-HAS-FILL-POINTER-P", PK_CL, prim_array_has_fill_pointer_p, 1, 1, 0, "(array)", "True when ARRAY is a vector with a fill pointer."},
    {"ARRAY-DISPLACEMENT", PK_CL, prim_array_displacement, 1, 1, FN_MV, "(array)", "Two values: the array ARRAY is displaced to and the offset into it, or NIL and 0 when ARRAY is not displaced."},
    {"ARRAYP", PK_CL, prim_arrayp, 1, 1, 0, "(object)", "True when OBJECT is an array of any rank, including vectors and strings."},
    {"VECTORP", PK_CL, prim_vectorp, 1, 1, 0, "(object)", "True when OBJECT is a one-dimensional array (a vector, string or bit vector)."},
    {"SIMPLE-VECTOR-P", PK_CL, prim_simple_vector_p, 1, 1, 0, "(object)", "True when OBJECT is a simple vector: one-dimensional, element type T, not adjustable, no fill pointer, not displaced."},
    {"BIT-VECTOR-P", PK_CL, prim_bit_vector_p, 1, 1, 0, "(object)", "True when OBJECT is a vector of bits."},
    {"SIMPLE-BIT-VECTOR-P", PK_CL, prim_simple_bit_vector_p, 1, 1, 0, "(object)", "True when OBJECT is a simple bit vector (one-dimensional, not adjustable, no fill pointer, not displaced)."},
    {"FILL-POINTER", PK_CL, prim_fill_pointer, 1, 1, 0, "(vector)", "The fill pointer of VECTOR, which must have one; SETF-able to any index up to the vector's size."},
    {"(SETF FILL-POINTER)", PK_CL, prim_setf_fill_pointer, 2, 2, 0, "(new vector)", NULL},
    {"VECTOR-PUSH", PK_CL, prim_vector_push, 2, 2, 0, "(new-element vector)", "Stores NEW-ELEMENT at VECTOR's fill pointer and increments it, returning the old fill pointer; returns NIL without storing when the vector is full."},
    {"VECTOR-PUSH-EXTEND", PK_CL, prim_vector_push_extend, 2, 3, 0, "(new-element vector &optional min-extension)", "Like VECTOR-PUSH, but grows the adjustable VECTOR (by at least MIN-EXTENSION elements) when it is full; returns the index of the new element."},
    {"VECTOR-POP", PK_CL, prim_vector_pop, 1, 1, 0, "(vector)", "Decrements the fill pointer of VECTOR and returns the element it then points at; an error when the fill pointer is zero."},
    {"ADJUST-ARRAY", PK_CL, prim_adjust_array, 2, REST, 0,
     "(array new-dimensions &key element-type initial-element initial-contents fill-pointer displaced-to displaced-index-offset)",
     "Changes the dimensions of ARRAY to NEW-DIMENSIONS, keeping the elements whose indices still fit and filling new places from INITIAL-ELEMENT or INITIAL-CONTENTS; returns ARRAY itself when it is adjustable, otherwise a new array. FILL-POINTER and DISPLACED-TO work as for MAKE-ARRAY."},
    {"UPGRADED-ARRAY-ELEMENT-TYPE", PK_CL, prim_upgraded_array_element_type, 1, 2, 0, "(typespec &optional environment)", "The element type an array actually gets when TYPESPEC is requested as its element type."},
    {"BIT-AND", PK_CL, prim_bit_and, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The bitwise AND of two bit arrays of the same dimensions. OPT-ARG chooses the result: NIL for a fresh array, T to store into BIT-ARRAY1, or a bit array to store into."},
    {"BIT-IOR", PK_CL, prim_bit_ior, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The bitwise inclusive OR of two bit arrays. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-XOR", PK_CL, prim_bit_xor, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The bitwise exclusive OR of two bit arrays. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-EQV", PK_CL, prim_bit_eqv, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The bitwise equivalence (complement of exclusive or) of two bit arrays. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-NAND", PK_CL, prim_bit_nand, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The complement of the bitwise AND of two bit arrays. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-NOR", PK_CL, prim_bit_nor, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The complement of the bitwise OR of two bit arrays. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-ANDC1", PK_CL, prim_bit_andc1, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The bitwise AND of the complement of BIT-ARRAY1 with BIT-ARRAY2. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-ANDC2", PK_CL, prim_bit_andc2, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The bitwise AND of BIT-ARRAY1 with the complement of BIT-ARRAY2. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-ORC1", PK_CL, prim_bit_orc1, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The bitwise OR of the complement of BIT-ARRAY1 with BIT-ARRAY2. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-ORC2", PK_CL, prim_bit_orc2, 2, 3, 0, "(bit-array1 bit-array2 &optional opt-arg)", "The bitwise OR of BIT-ARRAY1 with the complement of BIT-ARRAY2. OPT-ARG chooses the result array as for BIT-AND."},
    {"BIT-NOT", PK_CL, prim_bit_not, 1, 2, 0, "(bit-array &optional opt-arg)", "The bitwise complement of BIT-ARRAY. OPT-ARG chooses the result: NIL for a fresh array, T to store into BIT-ARRAY, or a bit array to store into."},
    {0},
};

static void defconstant_c(Lisp *L, Obj sym, Obj value) {
    (void)L;
    SYM(sym)->value = value;
    SYM(sym)->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
}

/* documentation of the constants array_init defines (docs.h) */
const DocRow array_variable_docs[] = {
    {"ARRAY-RANK-LIMIT", "One more than the largest number of dimensions an array can have."},
    {"ARRAY-DIMENSION-LIMIT", "One more than the largest size of any one dimension of an array."},
    {"ARRAY-TOTAL-SIZE-LIMIT", "One more than the largest number of elements an array can have."},
    {0},
};

void array_init(Lisp *L) {
    prims_register(L, array_prims);
    defconstant_c(L, S(ARRAY_RANK_LIMIT), FIX(ARRAY_RANK_LIMIT));
    defconstant_c(L, S(ARRAY_DIMENSION_LIMIT), FIX((intptr_t)ARRAY_DIMENSION_LIMIT));
    defconstant_c(L, S(ARRAY_TOTAL_SIZE_LIMIT), FIX((intptr_t)ARRAY_DIMENSION_LIMIT));
}
