/* sequence.c: the sequence functions (CLHS chapter 17) on lists and vectors. */
#include "sequence.h"
#include "abi.h"
#include "list.h"
#include "lstring.h"
#include "number.h"
#include "package.h"
#include "types.h"

/* ------------------------------------------------------------------ */
/* Errors                                                              */

_Noreturn void err_circular_list(Lisp *L, Obj list) {
    err_condition(L, S(P_CIRCULAR_LIST_ERROR),
                  cons(L, S(K_DATUM), cons(L, list, list2(L, S(K_EXPECTED_TYPE), S(LIST)))));
}

static Obj fix_size(size_t n) { return FIX((intptr_t)n); }

_Noreturn void err_bounding_indices(Lisp *L, Obj seq, size_t start, Obj end, size_t len) {
    Obj datum = cons(L, fix_size(start), end);
    Obj expected = list3(L, S(CONS), list3(L, S(INTEGER), FIX(0), fix_size(len)),
                         list3(L, S(INTEGER), fix_size(start), fix_size(len)));
    Obj initargs = cons(L, S(K_DATUM), cons(L, datum, cons(L, S(K_EXPECTED_TYPE), cons(L, expected,
                        list2(L, S(K_SEQUENCE), seq)))));
    err_condition(L, S(P_BOUNDING_INDICES_BAD_ERROR), initargs);
}

_Noreturn void err_index_too_large(Lisp *L, Obj seq, Obj index, size_t len) {
    Obj expected = len ? list3(L, S(INTEGER), FIX(0), fix_size(len - 1))
                       : list3(L, S(INTEGER), FIX(0), list1(L, FIX(0)));
    Obj initargs = cons(L, S(K_DATUM), cons(L, index, cons(L, S(K_EXPECTED_TYPE), cons(L, expected,
                        list2(L, S(K_SEQUENCE), seq)))));
    err_condition(L, S(P_INDEX_TOO_LARGE_ERROR), initargs);
}

_Noreturn void err_test_and_test_not(Lisp *L) { err_simple(L, ":TEST and :TEST-NOT were both supplied."); }

/* ------------------------------------------------------------------ */
/* Lists                                                               */

size_t proper_list_length(Lisp *L, Obj list) {
    size_t n = 0;
    Hare h;
    hare_init(&h, list);
    Obj x = list;
    while (is_cons(x)) {
        x = CDR(x);
        n++;
        if (is_cons(x)) hare_step(L, &h, x, list);
    }
    if (x != NIL) err_type(L, x, S(LIST));
    return n;
}

void hare_slow(Lisp *L, Hare *h, Obj x) {
    h->mark = x;
    h->lam = 0;
    if (h->power >= 0x4000) safe_point(L);
    if (h->power < ((size_t)1 << 62)) h->power <<= 1;
}

intptr_t list_length_or_circular(Obj list) {
    intptr_t n = 0;
    Obj mark = list, x = list;
    size_t lam = 0, power = 1;
    while (is_cons(x)) {
        x = CDR(x);
        n++;
        if (x == mark && is_cons(x)) return -1;
        if (++lam == power) {
            mark = x;
            lam = 0;
            power <<= 1;
        }
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Matching                                                            */

Obj seq_key_fn(Lisp *L, Obj key) {
    if (key == NO_VALUE || key == NIL) return NIL;
    Obj f = coerce_function(L, key);
    if (f == SYM(S(IDENTITY))->function) return NIL;
    return f;
}

static MatchKind test_kind(Lisp *L, Obj f) {
    if (f == SYM(S(EQL))->function) return MT_EQL;
    if (f == SYM(S(EQ))->function) return MT_EQ;
    if (f == SYM(S(EQUAL))->function) return MT_EQUAL;
    if (f == SYM(S(EQUALP))->function) return MT_EQUALP;
    return MT_FN2;
}

void matcher_init_test(Lisp *L, Matcher *m, Obj item, Obj test, Obj test_not, Obj key, BothPolicy both) {
    m->item = item;
    m->key = seq_key_fn(L, key);
    m->negate = false;
    m->fn = NIL;
    m->kind = MT_EQL;
    if (test != NO_VALUE && test_not != NO_VALUE) {
        if (both == BOTH_ERROR_LIST) err_test_and_test_not(L);
        if (both == BOTH_ERROR_SEQ) err_simple(L, "can't specify both :TEST and :TEST-NOT");
        test = NO_VALUE;
    }
    if (test_not != NO_VALUE) {
        m->fn = coerce_function(L, test_not);
        m->kind = test_kind(L, m->fn);
        m->negate = true;
    } else if (test != NO_VALUE) {
        m->fn = coerce_function(L, test);
        m->kind = test_kind(L, m->fn);
    }
}

void matcher_init_pred(Lisp *L, Matcher *m, Obj pred, Obj key, bool negate) {
    m->item = NIL;
    m->key = seq_key_fn(L, key);
    m->negate = negate;
    m->fn = coerce_function(L, pred);
    m->kind = MT_PRED;
}

/* ------------------------------------------------------------------ */
/* Vectors                                                             */

void vecview_init(Lisp *L, VecView *v, Obj vec) {
    (void)L;
    v->len = vector_length(vec);
    v->vec = vec;
    v->objs = NULL;
    v->chars = NULL;
    v->bits = NULL;
    size_t off = 0;
    Obj base = vec;
    for (int depth = 0; is_type(base, T_ARRAY); depth++) {
        if (depth > 64) { v->kind = VV_GENERIC; return; }
        off += ARR(base)->offset;
        base = ARR(base)->storage;
    }
    if (is_type(vec, T_ARRAY) && ARR(vec)->h.aux32 == ELT_NIL) { v->kind = VV_GENERIC; return; }
    switch (is_heap(base) ? heap_type(base) : T_NONE) {
    case T_VECTOR: v->kind = VV_T; v->objs = VEC(base)->data + off; return;
    case T_STRING: v->kind = VV_CHAR; v->chars = STR(base)->data + off; return;
    case T_BITVECTOR: v->kind = VV_BIT; v->bits = BITV(base)->data + off; return;
    default: v->kind = VV_GENERIC; return;
    }
}

Obj vecview_ref_slow(Lisp *L, const VecView *v, size_t i) { return array_rm_ref(L, v->vec, i); }
void vecview_set_slow(Lisp *L, const VecView *v, size_t i, Obj x) { array_rm_set(L, v->vec, i, x); }

static bool is_base_string(Obj v) {
    return (is_string(v) && (STR(v)->h.flags & ARR_BASE)) || (is_type(v, T_ARRAY) && (ARR(v)->h.flags & ARR_BASE));
}

static Obj make_seq_vector(Lisp *L, EltType et, bool base, size_t n) {
    if (n > ARRAY_TOTAL_SIZE_LIMIT) gc_heap_exhausted(L, SIZE_MAX);
    switch (et) {
    case ELT_CHARACTER: {
        Obj s = string_new(L, n);
        if (base) STR(s)->h.flags |= ARR_BASE;
        return s;
    }
    case ELT_BIT: return make_bit_vector(L, n);
    case ELT_UB8: {
        size_t dims[1] = {n};
        return array_create(L, 1, dims, UE_UB8, false, -1, NIL, 0);
    }
    default: return make_vector(L, n, NIL);
    }
}

Obj seq_make_like(Lisp *L, Obj vec, size_t n) {
    return make_seq_vector(L, array_elt_type(vec), is_base_string(vec), n);
}

/* ------------------------------------------------------------------ */
/* Arguments                                                           */

size_t seq_length(Lisp *L, Obj seq) {
    if (is_list(seq)) return proper_list_length(L, seq);
    if (is_vector(seq)) return vector_length(seq);
    err_type(L, seq, S(SEQUENCE));
}

static Obj check_sequence(Lisp *L, Obj seq) {
    if (!is_sequence(seq)) err_type(L, seq, S(SEQUENCE));
    return seq;
}

size_t seq_start_arg(Lisp *L, Obj start) {
    if (start == NO_VALUE) return 0;
    return check_index(L, start);
}

static Obj end_arg(Lisp *L, Obj end) {
    if (end == NO_VALUE || end == NIL) return NIL;
    check_index(L, end);
    return end;
}

void seq_bounds(Lisp *L, Obj seq, Obj start, Obj end, size_t len, size_t *s, size_t *e) {
    size_t st = seq_start_arg(L, start);
    Obj en = end_arg(L, end);
    size_t ed = en == NIL ? len : (size_t)fixnum_val(en);
    if (ed > len || st > ed) err_bounding_indices(L, seq, st, en, len);
    *s = st;
    *e = ed;
}

bool seq_count_arg(Lisp *L, Obj count, size_t *out) {
    if (count == NO_VALUE || count == NIL) return false;
    if (is_fixnum(count)) {
        intptr_t c = fixnum_val(count);
        *out = c < 0 ? 0 : (size_t)c;
        return true;
    }
    if (is_bignum(count)) {
        *out = mpz_sgn(BIG(count)) < 0 ? 0 : SIZE_MAX;
        return true;
    }
    err_type(L, count, S(INTEGER));
}

Obj seq_elt_unchecked(Lisp *L, Obj seq, size_t i) {
    if (is_list(seq)) return list_nth(seq, i);
    return array_rm_ref(L, seq, i);
}

/* The sub-range [s, e) of a list as a C array of its elements (for from-end and random access).
 * LIST is the whole list; the list must have at least e elements (checked by the caller). */
static Obj *list_range_array(Lisp *L, Obj list, size_t s, size_t e) {
    size_t n = e - s;
    Obj *a = (Obj *)gc_alloc(L, (n ? n : 1) * sizeof(Obj));
    Obj x = list;
    for (size_t i = 0; i < s; i++) x = CDR(x);
    for (size_t i = 0; i < n; i++, x = CDR(x)) a[i] = CAR(x);
    return a;
}

/* The elements of a sequence's range [s, e) copied into a fresh C array. */
static Obj *seq_range_array(Lisp *L, Obj seq, size_t s, size_t e) {
    if (is_list(seq)) return list_range_array(L, seq, s, e);
    size_t n = e - s;
    Obj *a = (Obj *)gc_alloc(L, (n ? n : 1) * sizeof(Obj));
    VecView v;
    vecview_init(L, &v, seq);
    for (size_t i = 0; i < n; i++) a[i] = vv_ref(L, &v, s + i);
    return a;
}

/* Bounds for a list when :end may run past the list: validates against the proper length. */
static void list_bounds(Lisp *L, Obj list, Obj start, Obj end, size_t *s, size_t *e, size_t *len) {
    size_t n = proper_list_length(L, list);
    seq_bounds(L, list, start, end, n, s, e);
    if (len) *len = n;
}

/* Bounds of any sequence (computes the length of lists). */
static size_t any_bounds(Lisp *L, Obj seq, Obj start, Obj end, size_t *s, size_t *e) {
    size_t n = seq_length(L, seq);
    seq_bounds(L, seq, start, end, n, s, e);
    return n;
}

/* ------------------------------------------------------------------ */
/* Building lists                                                      */

typedef struct ListBuilder { Obj head, tail; } ListBuilder;
static inline void lb_init(ListBuilder *b) { b->head = b->tail = NIL; }
static inline void lb_add(Lisp *L, ListBuilder *b, Obj x) {
    Obj c = cons(L, x, NIL);
    if (b->tail == NIL) b->head = c; else CDR(b->tail) = c;
    b->tail = c;
}
static inline void lb_add_cons(ListBuilder *b, Obj c) {
    if (b->tail == NIL) b->head = c; else CDR(b->tail) = c;
    b->tail = c;
}

/* ------------------------------------------------------------------ */
/* LENGTH ELT SUBSEQ COPY-SEQ REVERSE NREVERSE FILL REPLACE            */

DEFPRIM(prim_length) {
    UNUSED_ARGS;
    Obj s = args[0];
    if (is_list(s)) return fix_size(proper_list_length(L, s));
    if (is_vector(s)) return fix_size(vector_length(s));
    err_type(L, s, S(SEQUENCE));
}

/* The cons holding element INDEX of LIST, or an index/type error. No circularity check:
 * the walk is bounded by the index (as in SBCL, a circular list has every index). */
static Obj list_elt_cons(Lisp *L, Obj list, Obj index) {
    size_t i = check_index(L, index);
    Obj x = list;
    size_t k = 0;
    while (k < i && is_cons(x)) {
        x = CDR(x);
        k++;
        if ((k & 0xFFFF) == 0) safe_point(L);
    }
    if (is_cons(x)) return x;
    if (x == NIL) err_index_too_large(L, list, index, k);
    err_type(L, x, S(LIST));
}

static size_t vector_index(Lisp *L, Obj v, Obj index) {
    size_t i = check_index(L, index);
    size_t n = vector_length(v);
    if (i >= n) err_index_too_large(L, v, index, n);
    return i;
}

DEFPRIM(prim_elt) {
    UNUSED_ARGS;
    Obj s = args[0];
    if (is_list(s)) return CAR(list_elt_cons(L, s, args[1]));
    if (is_vector(s)) return array_rm_ref(L, s, vector_index(L, s, args[1]));
    err_type(L, s, S(SEQUENCE));
}

DEFPRIM(prim_setf_elt) {
    UNUSED_ARGS;
    Obj v = args[0], s = args[1];
    if (is_list(s)) { CAR(list_elt_cons(L, s, args[2])) = v; return v; }
    if (is_vector(s)) { array_rm_set(L, s, vector_index(L, s, args[2]), v); return v; }
    err_type(L, s, S(SEQUENCE));
}

/* Copy N elements between vector views (regions may overlap when both are the same storage). */
static void vv_copy(Lisp *L, const VecView *dst, size_t ds, const VecView *src, size_t ss, size_t n) {
    if (n == 0) return;
    if (dst->kind == VV_T && src->kind == VV_T) { memmove(dst->objs + ds, src->objs + ss, n * sizeof(Obj)); return; }
    if (dst->kind == VV_CHAR && src->kind == VV_CHAR) { memmove(dst->chars + ds, src->chars + ss, n * 4); return; }
    if (dst->kind == VV_BIT && src->kind == VV_BIT) { memmove(dst->bits + ds, src->bits + ss, n); return; }
    if (dst->vec == src->vec && ds > ss) {
        for (size_t i = n; i-- > 0;) vv_set(L, dst, ds + i, vv_ref(L, src, ss + i));
    } else {
        for (size_t i = 0; i < n; i++) vv_set(L, dst, ds + i, vv_ref(L, src, ss + i));
    }
}

/* A fresh simple vector like V holding V[s..e). */
static Obj vector_subseq(Lisp *L, Obj v, size_t s, size_t e) {
    Obj r = seq_make_like(L, v, e - s);
    VecView src, dst;
    vecview_init(L, &src, v);
    vecview_init(L, &dst, r);
    vv_copy(L, &dst, 0, &src, s, e - s);
    return r;
}

static Obj list_subseq(Lisp *L, Obj list, size_t start, Obj end) {
    Obj x = list;
    size_t k = 0;
    for (; k < start; k++) {
        if (!is_cons(x)) {
            if (x != NIL) err_type(L, x, S(LIST));
            err_bounding_indices(L, list, start, end, k);
        }
        x = CDR(x);
        if ((k & 0xFFFF) == 0xFFFF) safe_point(L);
    }
    ListBuilder b;
    lb_init(&b);
    if (end == NIL) {
        Hare h;
        hare_init(&h, x);
        Obj from = x;
        while (is_cons(x)) {
            lb_add(L, &b, CAR(x));
            x = CDR(x);
            if (is_cons(x)) hare_step(L, &h, x, from);
        }
        if (x != NIL) err_type(L, x, S(LIST));
        if (k < start) err_bounding_indices(L, list, start, end, k);
        return b.head;
    }
    size_t e = (size_t)fixnum_val(end);
    if (e < start) err_bounding_indices(L, list, start, end, proper_list_length(L, list));
    for (; k < e; k++) {
        if (!is_cons(x)) {
            if (x != NIL) err_type(L, x, S(LIST));
            err_bounding_indices(L, list, start, end, k);
        }
        lb_add(L, &b, CAR(x));
        x = CDR(x);
        if ((k & 0xFFFF) == 0xFFFF) safe_point(L);
    }
    return b.head;
}

DEFPRIM(prim_subseq) {
    Obj s = args[0];
    size_t start = check_index(L, args[1]);
    Obj end = end_arg(L, opt_arg(nargs, args, 2, NIL));
    if (is_list(s)) return list_subseq(L, s, start, end);
    if (!is_vector(s)) err_type(L, s, S(SEQUENCE));
    size_t n = vector_length(s);
    size_t e = end == NIL ? n : (size_t)fixnum_val(end);
    if (e > n || start > e) err_bounding_indices(L, s, start, end, n);
    return vector_subseq(L, s, start, e);
}

/* REPLACE's work: copy from seq2[s2..e2) into seq1[s1..e1), as many as fit. */
static void replace_range(Lisp *L, Obj s1, size_t b1, size_t e1, Obj s2, size_t b2, size_t e2) {
    size_t n = e1 - b1 < e2 - b2 ? e1 - b1 : e2 - b2;
    if (n == 0) return;
    if (s1 == s2 && is_list(s1)) {
        if (b1 == b2) return;
        /* overlapping list regions: go through a copy */
        Obj *tmp = list_range_array(L, s2, b2, b2 + n);
        Obj x = s1;
        for (size_t i = 0; i < b1; i++) x = CDR(x);
        for (size_t i = 0; i < n; i++, x = CDR(x)) CAR(x) = tmp[i];
        return;
    }
    if (is_list(s1)) {
        Obj x = s1;
        for (size_t i = 0; i < b1; i++) x = CDR(x);
        if (is_list(s2)) {
            Obj y = s2;
            for (size_t i = 0; i < b2; i++) y = CDR(y);
            for (size_t i = 0; i < n; i++, x = CDR(x), y = CDR(y)) CAR(x) = CAR(y);
        } else {
            VecView v;
            vecview_init(L, &v, s2);
            for (size_t i = 0; i < n; i++, x = CDR(x)) CAR(x) = vv_ref(L, &v, b2 + i);
        }
        return;
    }
    VecView d;
    vecview_init(L, &d, s1);
    if (is_list(s2)) {
        Obj y = s2;
        for (size_t i = 0; i < b2; i++) y = CDR(y);
        for (size_t i = 0; i < n; i++, y = CDR(y)) vv_set(L, &d, b1 + i, CAR(y));
        return;
    }
    VecView v;
    vecview_init(L, &v, s2);
    if ((d.kind != VV_GENERIC && d.kind == v.kind) || s1 == s2) {
        vv_copy(L, &d, b1, &v, b2, n);   /* memmove, or a direction-aware loop on one vector */
        return;
    }
    /* different representations (possibly displaced onto the same storage): through a buffer */
    Obj *tmp = seq_range_array(L, s2, b2, b2 + n);
    for (size_t i = 0; i < n; i++) vv_set(L, &d, b1 + i, tmp[i]);
}

DEFPRIM(prim_setf_subseq) {
    Obj nv = args[0], s = args[1];
    check_sequence(L, s);
    check_sequence(L, nv);
    size_t start = check_index(L, args[2]);
    Obj end = end_arg(L, opt_arg(nargs, args, 3, NIL));
    size_t b1, e1, b2, e2;
    any_bounds(L, s, FIX((intptr_t)start), end, &b1, &e1);
    any_bounds(L, nv, NO_VALUE, NO_VALUE, &b2, &e2);
    replace_range(L, s, b1, e1, nv, b2, e2);
    return nv;
}

DEFPRIM(prim_replace) {
    Obj s1 = check_sequence(L, args[0]), s2 = check_sequence(L, args[1]);
    Obj keys[4] = {S(K_START1), S(K_END1), S(K_START2), S(K_END2)}, k[4];
    parse_keys(L, nargs, args, 2, 4, keys, k);
    size_t b1, e1, b2, e2;
    any_bounds(L, s1, k[0], k[1], &b1, &e1);
    any_bounds(L, s2, k[2], k[3], &b2, &e2);
    replace_range(L, s1, b1, e1, s2, b2, e2);
    return s1;
}

DEFPRIM(prim_copy_seq) {
    UNUSED_ARGS;
    Obj s = args[0];
    if (is_list(s)) {
        ListBuilder b;
        lb_init(&b);
        Hare h;
        hare_init(&h, s);
        Obj x = s;
        while (is_cons(x)) {
            lb_add(L, &b, CAR(x));
            x = CDR(x);
            if (is_cons(x)) hare_step(L, &h, x, s);
        }
        if (x != NIL) err_type(L, x, S(LIST));
        return b.head;
    }
    if (!is_vector(s)) err_type(L, s, S(SEQUENCE));
    return vector_subseq(L, s, 0, vector_length(s));
}

Obj seq_reverse(Lisp *L, Obj s) {
    if (is_list(s)) return list_reverse(L, s);
    if (!is_vector(s)) err_type(L, s, S(SEQUENCE));
    size_t n = vector_length(s);
    Obj r = seq_make_like(L, s, n);
    VecView src, dst;
    vecview_init(L, &src, s);
    vecview_init(L, &dst, r);
    if (src.kind == VV_T && dst.kind == VV_T) {
        for (size_t i = 0; i < n; i++) dst.objs[i] = src.objs[n - 1 - i];
    } else if (src.kind == VV_CHAR && dst.kind == VV_CHAR) {
        for (size_t i = 0; i < n; i++) dst.chars[i] = src.chars[n - 1 - i];
    } else {
        for (size_t i = 0; i < n; i++) vv_set(L, &dst, i, vv_ref(L, &src, n - 1 - i));
    }
    return r;
}

static void vector_reverse_in_place(Lisp *L, Obj s, size_t from, size_t to) {
    VecView v;
    vecview_init(L, &v, s);
    if (to == 0) return;
    for (size_t i = from, j = to - 1; i < j; i++, j--) {
        Obj a = vv_ref(L, &v, i);
        vv_set(L, &v, i, vv_ref(L, &v, j));
        vv_set(L, &v, j, a);
    }
}

Obj seq_nreverse(Lisp *L, Obj s) {
    if (is_list(s)) return list_nreconc(L, s, NIL);
    if (!is_vector(s)) err_type(L, s, S(SEQUENCE));
    vector_reverse_in_place(L, s, 0, vector_length(s));
    return s;
}

DEFPRIM(prim_reverse) { UNUSED_ARGS; return seq_reverse(L, args[0]); }
DEFPRIM(prim_nreverse) { UNUSED_ARGS; return seq_nreverse(L, args[0]); }

DEFPRIM(prim_fill) {
    Obj s = check_sequence(L, args[0]), item = args[1];
    Obj keys[2] = {S(K_START), S(K_END)}, k[2];
    parse_keys(L, nargs, args, 2, 2, keys, k);
    size_t b, e;
    any_bounds(L, s, k[0], k[1], &b, &e);
    if (is_list(s)) {
        Obj x = s;
        for (size_t i = 0; i < b; i++) x = CDR(x);
        for (size_t i = b; i < e; i++, x = CDR(x)) CAR(x) = item;
        return s;
    }
    VecView v;
    vecview_init(L, &v, s);
    if (v.kind == VV_T) {
        for (size_t i = b; i < e; i++) v.objs[i] = item;
    } else if (b < e) {
        vv_set(L, &v, b, item);   /* type check once */
        for (size_t i = b + 1; i < e; i++) vv_set(L, &v, i, item);
    }
    return s;
}

/* ------------------------------------------------------------------ */
/* FIND POSITION COUNT                                                 */

typedef enum { SCAN_FIND, SCAN_POSITION, SCAN_COUNT } ScanMode;

/* Whether X is EQL to ITEM, when ITEM_EQ says EQL is EQ for this item. */
static inline bool fast_eql(Obj item, bool item_eq, Obj x) {
    return x == item || (!item_eq && lisp_eql(item, x));
}

/* EQL reduces to EQ unless the item is a boxed number. */
static inline bool eql_is_eq(Obj item) {
    return !is_heap(item) || !(heap_type(item) == T_BIGNUM || heap_type(item) == T_RATIO ||
                               heap_type(item) == T_DOUBLE || heap_type(item) == T_COMPLEX);
}

/* Whether the matcher is a plain EQ/EQL test on the elements themselves. */
static inline bool matcher_plain_eql(const Matcher *m) {
    return (m->kind == MT_EQL || m->kind == MT_EQ) && m->key == NIL && !m->negate;
}

static Obj scan_result(Lisp *L, ScanMode mode, bool found, Obj elt, size_t pos, size_t count) {
    (void)L;
    switch (mode) {
    case SCAN_FIND: return found ? elt : NIL;
    case SCAN_POSITION: return found ? fix_size(pos) : NIL;
    default: return fix_size(count);
    }
}

static Obj list_scan(Lisp *L, Obj seq, const Matcher *m, Obj start, Obj end, bool from_end, ScanMode mode) {
    size_t s = seq_start_arg(L, start);
    Obj en = end_arg(L, end);
    if (mode == SCAN_COUNT && from_end && !matcher_plain_eql(m)) {
        /* the key and test see the elements from the end (as SBCL) */
        size_t b, e;
        list_bounds(L, seq, start, en, &b, &e, NULL);
        Obj *a = list_range_array(L, seq, b, e);
        size_t count = 0;
        for (size_t i = e - b; i-- > 0;) count += matcher_match(L, m, a[i]);
        return fix_size(count);
    }
    if (mode == SCAN_COUNT && (en != NIL || s > 0)) {
        size_t b, e;
        list_bounds(L, seq, start, en, &b, &e, NULL);
    }
    Obj x = seq;
    size_t i = 0;
    for (; i < s; i++) {
        if (!is_cons(x)) {
            if (x != NIL) err_type(L, x, S(LIST));
            if (en == NIL) return scan_result(L, mode, false, NIL, 0, 0);
            err_bounding_indices(L, seq, s, en, proper_list_length(L, seq));
        }
        x = CDR(x);
        if ((i & 0xFFFF) == 0xFFFF) safe_point(L);
    }
    size_t e = en == NIL ? SIZE_MAX : (size_t)fixnum_val(en);
    if (e < s) err_bounding_indices(L, seq, s, en, proper_list_length(L, seq));
    bool found = false;
    Obj felt = NIL;
    size_t fpos = 0, count = 0;
    Hare h;
    hare_init(&h, x);
    Obj from = x;
    bool plain = matcher_plain_eql(m);
    bool item_eq = m->kind == MT_EQ || eql_is_eq(m->item);
    for (; i < e; i++) {
        if (!is_cons(x)) {
            if (x != NIL) err_type(L, x, S(LIST));
            if (en == NIL) break;
            err_bounding_indices(L, seq, s, en, i);
        }
        Obj el = CAR(x);
        bool hit = plain ? fast_eql(m->item, item_eq, el) : matcher_match(L, m, el);
        if (hit) {
            if (mode == SCAN_COUNT) count++;
            else {
                found = true;
                felt = el;
                fpos = i;
                if (!from_end) break;
            }
        }
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, from);
    }
    return scan_result(L, mode, found, felt, fpos, count);
}

static Obj vector_scan(Lisp *L, Obj seq, const Matcher *m, Obj start, Obj end, bool from_end, ScanMode mode) {
    size_t b, e;
    seq_bounds(L, seq, start, end, vector_length(seq), &b, &e);
    VecView v;
    vecview_init(L, &v, seq);
    size_t count = 0;
    if (matcher_plain_eql(m) && v.kind == VV_CHAR) {
        if (!is_char(m->item)) return scan_result(L, mode, false, NIL, 0, 0);
        uint32_t c = char_code(m->item);
        if (mode == SCAN_COUNT) {
            for (size_t i = b; i < e; i++) count += v.chars[i] == c;
            return fix_size(count);
        }
        if (from_end) {
            for (size_t i = e; i-- > b;)
                if (v.chars[i] == c) return scan_result(L, mode, true, m->item, i, 0);
        } else {
            for (size_t i = b; i < e; i++)
                if (v.chars[i] == c) return scan_result(L, mode, true, m->item, i, 0);
        }
        return scan_result(L, mode, false, NIL, 0, 0);
    }
    if (matcher_plain_eql(m) && v.kind == VV_T) {
        bool item_eq = m->kind == MT_EQ || eql_is_eq(m->item);
        if (mode == SCAN_COUNT) {
            for (size_t i = b; i < e; i++) count += fast_eql(m->item, item_eq, v.objs[i]);
            return fix_size(count);
        }
        if (from_end) {
            for (size_t i = e; i-- > b;)
                if (fast_eql(m->item, item_eq, v.objs[i])) return scan_result(L, mode, true, v.objs[i], i, 0);
        } else {
            for (size_t i = b; i < e; i++)
                if (fast_eql(m->item, item_eq, v.objs[i])) return scan_result(L, mode, true, v.objs[i], i, 0);
        }
        return scan_result(L, mode, false, NIL, 0, 0);
    }
    if (mode == SCAN_COUNT) {
        if (from_end) for (size_t i = e; i-- > b;) count += matcher_match(L, m, vv_ref(L, &v, i));
        else for (size_t i = b; i < e; i++) count += matcher_match(L, m, vv_ref(L, &v, i));
        return fix_size(count);
    }
    if (from_end) {
        for (size_t i = e; i-- > b;) {
            Obj el = vv_ref(L, &v, i);
            if (matcher_match(L, m, el)) return scan_result(L, mode, true, el, i, 0);
        }
    } else {
        for (size_t i = b; i < e; i++) {
            Obj el = vv_ref(L, &v, i);
            if (matcher_match(L, m, el)) return scan_result(L, mode, true, el, i, 0);
        }
    }
    return scan_result(L, mode, false, NIL, 0, 0);
}

static Obj seq_scan(Lisp *L, Obj seq, const Matcher *m, Obj start, Obj end, Obj from_end, ScanMode mode) {
    bool fe = from_end != NO_VALUE && from_end != NIL;
    if (is_list(seq)) return list_scan(L, seq, m, start, end, fe, mode);
    if (is_vector(seq)) return vector_scan(L, seq, m, start, end, fe, mode);
    err_type(L, seq, S(SEQUENCE));
}

/* (op item sequence &key from-end test test-not start end key) */
static Obj scan_item(Lisp *L, int nargs, Obj *args, ScanMode mode) {
    Obj keys[6] = {S(K_FROM_END), S(K_TEST), S(K_TEST_NOT), S(K_START), S(K_END), S(K_KEY)}, k[6];
    parse_keys(L, nargs, args, 2, 6, keys, k);
    Matcher m;
    matcher_init_test(L, &m, args[0], k[1], k[2], k[5], BOTH_ERROR_SEQ);
    return seq_scan(L, args[1], &m, k[3], k[4], k[0], mode);
}

/* (op predicate sequence &key from-end start end key) */
static Obj scan_pred(Lisp *L, int nargs, Obj *args, ScanMode mode, bool negate) {
    Obj keys[4] = {S(K_FROM_END), S(K_START), S(K_END), S(K_KEY)}, k[4];
    parse_keys(L, nargs, args, 2, 4, keys, k);
    Matcher m;
    matcher_init_pred(L, &m, args[0], k[3], negate);
    return seq_scan(L, args[1], &m, k[1], k[2], k[0], mode);
}

DEFPRIM(prim_find) { return scan_item(L, nargs, args, SCAN_FIND); }
DEFPRIM(prim_find_if) { return scan_pred(L, nargs, args, SCAN_FIND, false); }
DEFPRIM(prim_find_if_not) { return scan_pred(L, nargs, args, SCAN_FIND, true); }
DEFPRIM(prim_position) { return scan_item(L, nargs, args, SCAN_POSITION); }
DEFPRIM(prim_position_if) { return scan_pred(L, nargs, args, SCAN_POSITION, false); }
DEFPRIM(prim_position_if_not) { return scan_pred(L, nargs, args, SCAN_POSITION, true); }
DEFPRIM(prim_count) { return scan_item(L, nargs, args, SCAN_COUNT); }
DEFPRIM(prim_count_if) { return scan_pred(L, nargs, args, SCAN_COUNT, false); }
DEFPRIM(prim_count_if_not) { return scan_pred(L, nargs, args, SCAN_COUNT, true); }

/* ------------------------------------------------------------------ */
/* REMOVE DELETE SUBSTITUTE NSUBSTITUTE                                */

static bool has_fill_pointer(Obj v) {
    return is_heap(v) && (((Header *)v)->flags & ARR_FILL_POINTER) &&
           (heap_type(v) == T_ARRAY || heap_type(v) == T_STRING || heap_type(v) == T_BITVECTOR);
}

static void set_fill_pointer(Obj v, size_t n) {
    switch (heap_type(v)) {
    case T_STRING: STR(v)->len = n; break;
    case T_BITVECTOR: BITV(v)->len = n; break;
    default: ARR(v)->fill = n; break;
    }
}

/* Elements of a sequence range, by index relative to the range start. */
typedef struct ElSrc { Obj *arr; VecView vv; size_t base; } ElSrc;
static inline Obj el_get(Lisp *L, const ElSrc *s, size_t i) {
    return s->arr ? s->arr[i] : vv_ref(L, &s->vv, s->base + i);
}
static void elsrc_init(Lisp *L, ElSrc *s, Obj seq, size_t b, size_t e) {
    s->base = b;
    if (is_list(seq)) s->arr = list_range_array(L, seq, b, e);
    else {
        s->arr = NULL;
        vecview_init(L, &s->vv, seq);
    }
}

/* Mark the elements of a range (n of them) that match, at most LIMIT of them, the last ones when
 * FROM_END. Returns how many were marked. */
static size_t mark_matches(Lisp *L, const ElSrc *src, size_t n, const Matcher *m, size_t limit, bool from_end,
                           uint8_t *flags) {
    size_t marked = 0;
    memset(flags, 0, n ? n : 1);
    if (from_end) {
        for (size_t i = n; i-- > 0 && marked < limit;)
            if (matcher_match(L, m, el_get(L, src, i))) { flags[i] = 1; marked++; }
    } else {
        for (size_t i = 0; i < n && marked < limit; i++)
            if (matcher_match(L, m, el_get(L, src, i))) { flags[i] = 1; marked++; }
    }
    return marked;
}

typedef enum { EDIT_REMOVE, EDIT_DELETE, EDIT_SUBSTITUTE, EDIT_NSUBSTITUTE } EditOp;

/* Lists, one pass (no from-end count): copy or relink, removing or substituting matches. */
static Obj list_edit_forward(Lisp *L, Obj seq, const Matcher *m, size_t b, size_t e, bool bounded, size_t limit,
                             EditOp op, Obj newitem) {
    ListBuilder out;
    lb_init(&out);
    Obj head = seq, prev = NIL;
    Obj x = seq;
    size_t i = 0, done = 0;
    Hare h;
    hare_init(&h, seq);
    bool plain = matcher_plain_eql(m);
    bool item_eq = m->kind == MT_EQ || eql_is_eq(m->item);
    /* DELETE relinks conses as it goes, which would mislead the tortoise: check the list first */
    bool watch = op != EDIT_DELETE;
    if (!watch && !bounded) proper_list_length(L, seq);
    while (is_cons(x)) {
        Obj el = CAR(x);
        Obj next = CDR(x);
        bool hit = false;
        if (i >= b && (!bounded || i < e) && done < limit) {
            hit = plain ? fast_eql(m->item, item_eq, el) : matcher_match(L, m, el);
            if (hit) done++;
        }
        switch (op) {
        case EDIT_REMOVE: if (!hit) lb_add(L, &out, el); break;
        case EDIT_SUBSTITUTE: lb_add(L, &out, hit ? newitem : el); break;
        case EDIT_NSUBSTITUTE: if (hit) CAR(x) = newitem; break;
        case EDIT_DELETE:
            if (hit) {
                if (prev == NIL) head = next; else CDR(prev) = next;
            } else prev = x;
            break;
        }
        x = next;
        i++;
        if (watch && is_cons(x)) hare_step(L, &h, x, seq);
    }
    if (x != NIL) err_type(L, x, S(LIST));
    switch (op) {
    case EDIT_REMOVE: case EDIT_SUBSTITUTE: return out.head;
    case EDIT_NSUBSTITUTE: return seq;
    default: return head;
    }
}

/* The vector SEQ (viewed as V, LEN long) without the elements of [B, E) whose FLAGS are set (NDROP of
 * them): DESTRUCTIVE and with a fill pointer, SEQ itself compacted; otherwise a fresh vector. */
static Obj vector_without_flagged(Lisp *L, Obj seq, VecView *v, size_t len, size_t b, size_t e,
                                  const uint8_t *flags, size_t ndrop, bool destructive) {
    size_t n = e - b;
    if (destructive && has_fill_pointer(seq)) {
        size_t w = b;
        for (size_t i = 0; i < n; i++)
            if (!flags[i]) vv_set(L, v, w++, vv_ref(L, v, b + i));
        for (size_t i = e; i < len; i++) vv_set(L, v, w++, vv_ref(L, v, i));
        set_fill_pointer(seq, w);
        return seq;
    }
    Obj r = seq_make_like(L, seq, len - ndrop);
    VecView d;
    vecview_init(L, &d, r);
    vv_copy(L, &d, 0, v, 0, b);
    size_t w = b;
    for (size_t i = 0; i < n; i++)
        if (!flags[i]) vv_set(L, &d, w++, vv_ref(L, v, b + i));
    vv_copy(L, &d, w, v, e, len - e);
    return r;
}

static Obj seq_edit(Lisp *L, Obj seq, const Matcher *m, Obj start, Obj end, Obj from_end, Obj count, EditOp op,
                    Obj newitem) {
    check_sequence(L, seq);
    size_t limit = SIZE_MAX;
    bool has_count = seq_count_arg(L, count, &limit);
    bool fe = from_end != NO_VALUE && from_end != NIL;
    bool bounded = (start != NO_VALUE && start != FIX(0)) || (end != NO_VALUE && end != NIL);
    size_t b = 0, e = 0, len = 0;
    if (is_list(seq)) {
        if (bounded) list_bounds(L, seq, start, end, &b, &e, &len);
        else seq_start_arg(L, start);
        /* from the end, a count or a test or key function (which must see the elements from
         * the end) needs the marking pass */
        if (!(fe && (has_count || !matcher_plain_eql(m))))
            return list_edit_forward(L, seq, m, b, e, bounded, limit, op, newitem);
        if (!bounded) { len = proper_list_length(L, seq); b = 0; e = len; }
    } else {
        len = vector_length(seq);
        seq_bounds(L, seq, start, end, len, &b, &e);
    }
    size_t n = e - b;
    ElSrc src;
    elsrc_init(L, &src, seq, b, e);
    uint8_t *flags = (uint8_t *)gc_alloc_atomic(L, n ? n : 1);
    size_t marked = mark_matches(L, &src, n, m, limit, fe, flags);
    if (is_list(seq)) {
        /* from-end with a count */
        ListBuilder out;
        lb_init(&out);
        Obj head = seq, prev = NIL, x = seq;
        for (size_t i = 0; i < len; i++) {
            Obj next = CDR(x);
            bool hit = i >= b && i < e && flags[i - b];
            switch (op) {
            case EDIT_REMOVE: if (!hit) lb_add(L, &out, CAR(x)); break;
            case EDIT_SUBSTITUTE: lb_add(L, &out, hit ? newitem : CAR(x)); break;
            case EDIT_NSUBSTITUTE: if (hit) CAR(x) = newitem; break;
            case EDIT_DELETE:
                if (hit) {
                    if (prev == NIL) head = next; else CDR(prev) = next;
                } else prev = x;
                break;
            }
            x = next;
        }
        switch (op) {
        case EDIT_REMOVE: case EDIT_SUBSTITUTE: return out.head;
        case EDIT_NSUBSTITUTE: return seq;
        default: return head;
        }
    }
    VecView v = src.vv;
    if (op == EDIT_NSUBSTITUTE || op == EDIT_SUBSTITUTE) {
        Obj target = seq;
        VecView t = v;
        if (op == EDIT_SUBSTITUTE) {
            target = vector_subseq(L, seq, 0, len);
            vecview_init(L, &t, target);
        }
        if (marked)
            for (size_t i = 0; i < n; i++)
                if (flags[i]) vv_set(L, &t, b + i, newitem);
        return target;
    }
    return vector_without_flagged(L, seq, &v, len, b, e, flags, marked, op == EDIT_DELETE);
}

/* (op item sequence &key from-end test test-not start end count key) */
static Obj edit_item(Lisp *L, int nargs, Obj *args, int first, EditOp op, Obj newitem) {
    Obj keys[7] = {S(K_FROM_END), S(K_TEST), S(K_TEST_NOT), S(K_START), S(K_END), S(K_COUNT), S(K_KEY)}, k[7];
    parse_keys(L, nargs, args, first + 2, 7, keys, k);
    Matcher m;
    matcher_init_test(L, &m, args[first], k[1], k[2], k[6], BOTH_TEST_NOT_WINS);
    return seq_edit(L, args[first + 1], &m, k[3], k[4], k[0], k[5], op, newitem);
}

/* (op predicate sequence &key from-end start end count key) */
static Obj edit_pred(Lisp *L, int nargs, Obj *args, int first, EditOp op, Obj newitem, bool negate) {
    Obj keys[5] = {S(K_FROM_END), S(K_START), S(K_END), S(K_COUNT), S(K_KEY)}, k[5];
    parse_keys(L, nargs, args, first + 2, 5, keys, k);
    Matcher m;
    matcher_init_pred(L, &m, args[first], k[4], negate);
    return seq_edit(L, args[first + 1], &m, k[1], k[2], k[0], k[3], op, newitem);
}

DEFPRIM(prim_remove) { return edit_item(L, nargs, args, 0, EDIT_REMOVE, NIL); }
DEFPRIM(prim_remove_if) { return edit_pred(L, nargs, args, 0, EDIT_REMOVE, NIL, false); }
DEFPRIM(prim_remove_if_not) { return edit_pred(L, nargs, args, 0, EDIT_REMOVE, NIL, true); }
DEFPRIM(prim_delete) { return edit_item(L, nargs, args, 0, EDIT_DELETE, NIL); }
DEFPRIM(prim_delete_if) { return edit_pred(L, nargs, args, 0, EDIT_DELETE, NIL, false); }
DEFPRIM(prim_delete_if_not) { return edit_pred(L, nargs, args, 0, EDIT_DELETE, NIL, true); }
DEFPRIM(prim_substitute) { return edit_item(L, nargs, args, 1, EDIT_SUBSTITUTE, args[0]); }
DEFPRIM(prim_substitute_if) { return edit_pred(L, nargs, args, 1, EDIT_SUBSTITUTE, args[0], false); }
DEFPRIM(prim_substitute_if_not) { return edit_pred(L, nargs, args, 1, EDIT_SUBSTITUTE, args[0], true); }
DEFPRIM(prim_nsubstitute) { return edit_item(L, nargs, args, 1, EDIT_NSUBSTITUTE, args[0]); }
DEFPRIM(prim_nsubstitute_if) { return edit_pred(L, nargs, args, 1, EDIT_NSUBSTITUTE, args[0], false); }
DEFPRIM(prim_nsubstitute_if_not) { return edit_pred(L, nargs, args, 1, EDIT_NSUBSTITUTE, args[0], true); }

/* ------------------------------------------------------------------ */
/* REMOVE-DUPLICATES DELETE-DUPLICATES                                 */

static Obj seq_remove_duplicates(Lisp *L, int nargs, Obj *args, bool destructive) {
    Obj seq = check_sequence(L, args[0]);
    Obj keys[6] = {S(K_FROM_END), S(K_TEST), S(K_TEST_NOT), S(K_START), S(K_END), S(K_KEY)}, k[6];
    parse_keys(L, nargs, args, 1, 6, keys, k);
    Matcher m;
    matcher_init_test(L, &m, NIL, k[1], k[2], k[5], BOTH_TEST_NOT_WINS);
    bool fe = k[0] != NO_VALUE && k[0] != NIL;
    size_t b, e;
    size_t len = any_bounds(L, seq, k[3], k[4], &b, &e);
    size_t n = e - b;
    ElSrc src;
    elsrc_init(L, &src, seq, b, e);
    Obj *keyv = (Obj *)gc_alloc(L, (n ? n : 1) * sizeof(Obj));
    for (size_t i = 0; i < n; i++) keyv[i] = seq_apply_key(L, m.key, el_get(L, &src, i));
    uint8_t *drop = (uint8_t *)gc_alloc_atomic(L, n ? n : 1);
    memset(drop, 0, n ? n : 1);
    size_t ndrop = 0;
    HashTest ht;
    if (n > 20 && matcher_hashable(&m, &ht)) {
        Obj table = hash_new(L, ht, n);
        if (fe) {
            for (size_t i = 0; i < n; i++) {
                if (hash_get(L, table, keyv[i], NO_VALUE) != NO_VALUE) { drop[i] = 1; ndrop++; }
                else hash_put(L, table, keyv[i], S(T));
            }
        } else {
            for (size_t i = n; i-- > 0;) {
                if (hash_get(L, table, keyv[i], NO_VALUE) != NO_VALUE) { drop[i] = 1; ndrop++; }
                else hash_put(L, table, keyv[i], S(T));
            }
        }
    } else if (fe) {
        /* keep the first occurrence: compare each element with the earlier kept ones */
        for (size_t j = 0; j < n; j++) {
            for (size_t i = 0; i < j; i++) {
                if (drop[i]) continue;
                if (matcher_test2(L, &m, keyv[j], keyv[i])) { drop[j] = 1; ndrop++; break; }
            }
            if ((j & 0xFF) == 0xFF) safe_point(L);
        }
    } else {
        /* keep the last occurrence: drop an element that matches a later one */
        for (size_t i = 0; i < n; i++) {
            for (size_t j = i + 1; j < n; j++)
                if (matcher_test2(L, &m, keyv[i], keyv[j])) { drop[i] = 1; ndrop++; break; }
            if ((i & 0xFF) == 0xFF) safe_point(L);
        }
    }
    if (is_list(seq)) {
        if (destructive) {
            Obj head = seq, prev = NIL, x = seq;
            for (size_t i = 0; i < len; i++) {
                Obj next = CDR(x);
                if (i >= b && i < e && drop[i - b]) {
                    if (prev == NIL) head = next; else CDR(prev) = next;
                } else prev = x;
                x = next;
            }
            return head;
        }
        ListBuilder out;
        lb_init(&out);
        Obj x = seq;
        for (size_t i = 0; i < len; i++, x = CDR(x))
            if (!(i >= b && i < e && drop[i - b])) lb_add(L, &out, CAR(x));
        return out.head;
    }
    VecView v = src.vv;
    return vector_without_flagged(L, seq, &v, len, b, e, drop, ndrop, destructive);
}

DEFPRIM(prim_remove_duplicates) { return seq_remove_duplicates(L, nargs, args, false); }
DEFPRIM(prim_delete_duplicates) { return seq_remove_duplicates(L, nargs, args, true); }

/* ------------------------------------------------------------------ */
/* Result types (MAKE-SEQUENCE CONCATENATE MAP MERGE)                  */

typedef struct SeqType {
    bool is_list;
    EltType elt;
    bool base;
    intptr_t size;      /* required length, -1 = any */
    int list_kind;      /* 0 list, 1 cons (length >= 1), 2 null (length 0) */
} SeqType;

_Noreturn static void err_bad_seq_type(Lisp *L, Obj spec) {
    err_type(L, spec, list2(L, S(SATISFIES), S(P_VALID_SEQUENCE_TYPE)));
}

static Obj plist_get_sym(Lisp *L, Obj sym, Obj ind) {
    if (!is_symbol(sym)) return NIL;
    Obj p = symbol_data(L, sym)->plist;
    for (int n = 0; is_cons(p) && is_cons(CDR(p)) && n < 100000; p = CDR(CDR(p)), n++)
        if (CAR(p) == ind) return CAR(CDR(p));
    return NIL;
}

/* The upgraded element type of a vector type's element type specifier. */
static EltType upgraded_elt(Lisp *L, Obj et, bool *base) {
    *base = false;
    for (int n = 0; n < 100; n++) {
        if (et == S(CHARACTER) || et == S(EXTENDED_CHAR)) return ELT_CHARACTER;
        if (et == S(BASE_CHAR) || et == S(STANDARD_CHAR)) { *base = true; return ELT_CHARACTER; }
        if (et == S(BIT)) return ELT_BIT;
        if (is_cons(et)) {
            Obj h = CAR(et), a = CDR(et);
            if (h == S(UNSIGNED_BYTE) && is_cons(a) && CAR(a) == FIX(1)) return ELT_BIT;
            if (h == S(MOD) && is_cons(a) && CAR(a) == FIX(2)) return ELT_BIT;
            if (h == S(INTEGER) && is_cons(a) && CAR(a) == FIX(0) && is_cons(CDR(a)) && CAR(CDR(a)) == FIX(1))
                return ELT_BIT;
            if (h == S(MEMBER) || h == S(EQL)) return ELT_T;
            bool certain = false;
            if (type_subtypep(L, et, uelt_spec(L, UE_UB8), &certain) && certain) return ELT_UB8;
        }
        Obj head = is_cons(et) ? CAR(et) : et;
        Obj exp = plist_get_sym(L, head, S(P_TYPE_EXPANDER));
        if (!is_function(exp) || !is_type(head, T_SYMBOL)) return ELT_T;
        et = funcall2(L, exp, is_cons(et) ? et : list1(L, et), NIL);
    }
    return ELT_T;
}

/* A size in a vector type: -1 for *, -2 when malformed. */
static intptr_t size_spec(Lisp *L, Obj s) {
    if (s == S(STAR)) return -1;
    if (is_fixnum(s) && fixnum_val(s) >= 0) return fixnum_val(s);
    return -2;
}

/* The proper name of a class object (CLOS's SYS::%CLASS-PROPER-NAME, when CLOS is loaded), else NIL:
 * a class with a proper name stands for that type name. */
static Obj class_proper_name(Lisp *L, Obj spec) {
    if (!is_type(spec, T_INSTANCE)) return NIL;
    Obj hook = abi_upcall(L, S(P_CLASS_PROPER_NAME));
    if (hook == NIL) return NIL;                     /* the stdlib is loading */
    Obj name = funcall1(L, hook, spec);
    return is_symbol(name) ? name : NIL;
}

/* Parse a sequence type specifier; false when it names no sequence type tinycl can make. */
static bool parse_seq_type_p(Lisp *L, Obj spec, SeqType *t, int depth) {
    t->is_list = false;
    t->elt = ELT_T;
    t->base = false;
    t->size = -1;
    t->list_kind = 0;
    Obj star = S(STAR);
    for (int n = 0;; n++) {
        if (n > 100 || depth > 20) return false;
        if (is_type(spec, T_INSTANCE)) {
            spec = class_proper_name(L, spec);
            if (spec == NIL) return false;
        }
        Obj head = is_cons(spec) ? CAR(spec) : spec;
        Obj args = is_cons(spec) ? CDR(spec) : NIL;
        if (head == S(LIST)) { t->is_list = true; return true; }
        if (head == S(CONS)) { t->is_list = true; t->list_kind = 1; return true; }
        if (head == S(NULL)) { t->is_list = true; t->list_kind = 2; return true; }
        if (head == S(AND) && is_cons(spec)) {
            /* the first component that is a sequence type decides */
            for (Obj a = args; is_cons(a); a = CDR(a))
                if (parse_seq_type_p(L, CAR(a), t, depth + 1)) return true;
            return false;
        }
        if (head == S(SIMPLE_VECTOR)) {
            if (is_cons(args)) t->size = size_spec(L, CAR(args));
            return t->size != -2;
        }
        if (head == S(VECTOR)) {
            if (is_cons(args)) {
                if (CAR(args) != star) t->elt = upgraded_elt(L, CAR(args), &t->base);
                if (is_cons(CDR(args))) t->size = size_spec(L, CAR(CDR(args)));
            }
            return t->size != -2;
        }
        if (head == S(STRING) || head == S(SIMPLE_STRING) || head == S(BASE_STRING) || head == S(SIMPLE_BASE_STRING)) {
            t->elt = ELT_CHARACTER;
            t->base = head == S(BASE_STRING) || head == S(SIMPLE_BASE_STRING);
            if (is_cons(args)) t->size = size_spec(L, CAR(args));
            return t->size != -2;
        }
        if (head == S(BIT_VECTOR) || head == S(SIMPLE_BIT_VECTOR)) {
            t->elt = ELT_BIT;
            if (is_cons(args)) t->size = size_spec(L, CAR(args));
            return t->size != -2;
        }
        if ((head == S(ARRAY) || head == S(SIMPLE_ARRAY)) && is_cons(args) && is_cons(CDR(args))) {
            Obj dims = CAR(CDR(args));
            if (dims == FIX(1)) { /* rank 1 */ }
            else if (is_cons(dims) && CDR(dims) == NIL) t->size = size_spec(L, CAR(dims));
            else return false;
            if (CAR(args) != star) t->elt = upgraded_elt(L, CAR(args), &t->base);
            return t->size != -2;
        }
        Obj exp = plist_get_sym(L, head, S(P_TYPE_EXPANDER));
        if (!is_type(head, T_SYMBOL) || !is_function(exp)) return false;
        spec = funcall2(L, exp, is_cons(spec) ? spec : list1(L, spec), NIL);
    }
}

static void parse_seq_type(Lisp *L, Obj spec, SeqType *t) {
    if (!parse_seq_type_p(L, spec, t, 0)) err_bad_seq_type(L, spec);
}

/* (sys::is-a-valid-sequence-type-specifier-p spec): the type in the errors above */
DEFPRIM(prim_valid_sequence_type_p) {
    UNUSED_ARGS;
    SeqType t;
    return boolean(L, parse_seq_type_p(L, args[0], &t, 0));
}

_Noreturn static void err_length_mismatch(Lisp *L, size_t n, Obj expected, Obj type) {
    Obj msg = msg_format(L, "The length requested (%zu) does not match the type restriction in %S.", n, type);
    err_condition(L, S(SIMPLE_TYPE_ERROR),
                  cons(L, S(K_DATUM), cons(L, fix_size(n), cons(L, S(K_EXPECTED_TYPE), cons(L, expected,
                       cons(L, S(K_FORMAT_CONTROL), list3(L, msg, S(K_FORMAT_ARGUMENTS), NIL)))))));
}

/* Signal the error SBCL gives when a result's length does not fit the type. */
static void check_seq_type_length(Lisp *L, const SeqType *t, size_t n) {
    if (t->is_list) {
        if (t->list_kind == 1 && n == 0) err_length_mismatch(L, n, list2(L, S(INTEGER), FIX(1)), S(CONS));
        if (t->list_kind == 2 && n != 0) err_length_mismatch(L, n, list2(L, S(EQL), FIX(0)), S(NULL));
        return;
    }
    if (t->size >= 0 && (size_t)t->size != n)
        err_length_mismatch(L, n, list2(L, S(EQL), FIX(t->size)), S(VECTOR));
}

/* A fresh sequence of the type, of length n, elements unset (NIL / 0 / #\Nul). */
static Obj make_typed_sequence(Lisp *L, const SeqType *t, size_t n, Obj init) {
    check_seq_type_length(L, t, n);
    if (t->is_list) {
        gc_check_request(L, n > ARRAY_TOTAL_SIZE_LIMIT ? SIZE_MAX : n * sizeof(Cons));
        Obj r = NIL;
        for (size_t i = 0; i < n; i++) {
            r = cons(L, init, r);
            if ((i & 0xFFFF) == 0xFFFF) safe_point(L);
        }
        return r;
    }
    Obj v = make_seq_vector(L, t->elt, t->base, n);
    if (init != NO_VALUE && n > 0) {
        VecView vv;
        vecview_init(L, &vv, v);
        for (size_t i = 0; i < n; i++) vv_set(L, &vv, i, init);
    } else if (t->elt == ELT_T) {
        for (size_t i = 0; i < n; i++) VEC(v)->data[i] = FIX(0);
    }
    return v;
}

DEFPRIM(prim_make_sequence) {
    Obj keys[1] = {S(K_INITIAL_ELEMENT)}, k[1];
    parse_keys(L, nargs, args, 2, 1, keys, k);
    size_t n = check_index(L, args[1]);
    SeqType t;
    parse_seq_type(L, args[0], &t);
    Obj init = k[0];
    if (t.is_list && init == NO_VALUE) init = NIL;
    return make_typed_sequence(L, &t, n, init);
}

/* Fill a fresh result sequence R (list or vector) from an array of N elements. */
static void fill_from_array(Lisp *L, Obj r, Obj *elts, size_t n) {
    if (is_list(r)) {
        Obj x = r;
        for (size_t i = 0; i < n; i++, x = CDR(x)) CAR(x) = elts[i];
        return;
    }
    VecView v;
    vecview_init(L, &v, r);
    for (size_t i = 0; i < n; i++) vv_set(L, &v, i, elts[i]);
}

DEFPRIM(prim_concatenate) {
    SeqType t;
    parse_seq_type(L, args[0], &t);
    size_t total = 0;
    for (int i = 1; i < nargs; i++) {
        size_t n = seq_length(L, args[i]);
        if (total + n < total) gc_heap_exhausted(L, SIZE_MAX);
        total += n;
    }
    if (t.is_list) {
        check_seq_type_length(L, &t, total);
        ListBuilder b;
        lb_init(&b);
        for (int i = 1; i < nargs; i++) {
            Obj s = args[i];
            if (is_list(s)) {
                for (Obj x = s; is_cons(x); x = CDR(x)) lb_add(L, &b, CAR(x));
            } else {
                VecView v;
                vecview_init(L, &v, s);
                for (size_t j = 0; j < v.len; j++) lb_add(L, &b, vv_ref(L, &v, j));
            }
        }
        return b.head;
    }
    Obj r = make_typed_sequence(L, &t, total, NO_VALUE);
    VecView d;
    vecview_init(L, &d, r);
    size_t w = 0;
    for (int i = 1; i < nargs; i++) {
        Obj s = args[i];
        if (is_list(s)) {
            for (Obj x = s; is_cons(x); x = CDR(x)) vv_set(L, &d, w++, CAR(x));
        } else {
            VecView v;
            vecview_init(L, &v, s);
            if (v.kind == d.kind && v.kind != VV_GENERIC) vv_copy(L, &d, w, &v, 0, v.len);
            else for (size_t j = 0; j < v.len; j++) vv_set(L, &d, w + j, vv_ref(L, &v, j));
            w += v.len;
        }
    }
    return r;
}

/* ------------------------------------------------------------------ */
/* Walking several sequences in step                                    */

void mi_init(Lisp *L, MultiIter *it, int n, Obj *seqs) {
    it->n = n;
    it->seqs = seqs;
    it->i = 0;
    it->limit = SIZE_MAX;
    if (n <= MI_SMALL) {
        it->cur = it->small_cur;
        it->vv = it->small_vv;
    } else {
        it->cur = (Obj *)gc_alloc(L, (size_t)n * sizeof(Obj));
        it->vv = (VecView *)gc_alloc(L, (size_t)n * sizeof(VecView));
    }
    bool all_lists = n > 0;
    for (int k = 0; k < n; k++) {
        Obj s = seqs[k];
        if (is_list(s)) {
            it->cur[k] = s;
        } else if (is_vector(s)) {
            it->cur[k] = NO_VALUE;
            vecview_init(L, &it->vv[k], s);
            if (it->vv[k].len < it->limit) it->limit = it->vv[k].len;
            all_lists = false;
        } else {
            err_type(L, s, S(SEQUENCE));
        }
    }
    it->watch = all_lists;
    if (all_lists) hare_init(&it->hare, seqs[0]);
}

static void mi_circular(Lisp *L, MultiIter *it) {
    for (int k = 1; k < it->n; k++)
        if (list_length_or_circular(it->cur[k]) >= 0) { it->watch = false; return; }
    err_circular_list(L, it->seqs[0]);
}

bool mi_next(Lisp *L, MultiIter *it, Obj *out) {
    if (it->i >= it->limit) return false;
    int n = it->n;
    for (int k = 0; k < n; k++) {
        Obj c = it->cur[k];
        if (c == NO_VALUE) out[k] = vv_ref(L, &it->vv[k], it->i);
        else if (is_cons(c)) out[k] = CAR(c);
        else {
            if (c != NIL) err_type(L, c, S(LIST));
            return false;
        }
    }
    for (int k = 0; k < n; k++)
        if (it->cur[k] != NO_VALUE) it->cur[k] = CDR(it->cur[k]);
    it->i++;
    if (it->watch && is_cons(it->cur[0]) && hare_step_p(L, &it->hare, it->cur[0])) mi_circular(L, it);
    if ((it->i & 0x3FFF) == 0) safe_point(L);
    return true;
}

/* ------------------------------------------------------------------ */
/* MAP MAP-INTO EVERY SOME NOTANY NOTEVERY                             */

DEFPRIM(prim_map) {
    Obj rtype = args[0];
    Obj fn = coerce_function(L, args[1]);
    int ns = nargs - 2;
    Obj *seqs = args + 2;
    Obj small[8];
    Obj *tuple = arg_buffer(L, small, 8, ns);
    MultiIter it;
    mi_init(L, &it, ns, seqs);
    if (rtype == NIL) {
        while (mi_next(L, &it, tuple)) funcall(L, fn, ns, tuple);
        return NIL;
    }
    SeqType t;
    parse_seq_type(L, rtype, &t);
    ListBuilder b;
    lb_init(&b);
    while (mi_next(L, &it, tuple)) lb_add(L, &b, funcall(L, fn, ns, tuple));
    if (t.is_list) {
        check_seq_type_length(L, &t, it.i);
        return b.head;
    }
    Obj r = make_typed_sequence(L, &t, it.i, NO_VALUE);
    VecView d;
    vecview_init(L, &d, r);
    size_t i = 0;
    for (Obj x = b.head; is_cons(x); x = CDR(x)) vv_set(L, &d, i++, CAR(x));
    return r;
}

DEFPRIM(prim_map_into) {
    Obj result = args[0];
    Obj fn = coerce_function(L, args[1]);
    int ns = nargs - 2;
    Obj *seqs = args + 2;
    Obj small[8];
    Obj *tuple = arg_buffer(L, small, 8, ns);
    check_sequence(L, result);
    MultiIter it;
    mi_init(L, &it, ns, seqs);
    if (is_list(result)) {
        Hare h;
        hare_init(&h, result);
        Obj x = result;
        while (is_cons(x)) {
            if (!mi_next(L, &it, tuple)) break;
            CAR(x) = funcall(L, fn, ns, tuple);
            x = CDR(x);
            if (is_cons(x)) hare_step(L, &h, x, result);
        }
        return result;
    }
    size_t cap = has_fill_pointer(result) ? array_total(result) : vector_length(result);
    VecView d;
    vecview_init(L, &d, result);
    size_t i = 0;
    while (i < cap && mi_next(L, &it, tuple)) {
        Obj v = funcall(L, fn, ns, tuple);
        if (has_fill_pointer(result)) array_rm_set(L, result, i, v);
        else vv_set(L, &d, i, v);
        i++;
    }
    if (has_fill_pointer(result)) set_fill_pointer(result, i);
    return result;
}

typedef enum { Q_EVERY, Q_SOME, Q_NOTANY, Q_NOTEVERY } Quantifier;

static Obj quantify(Lisp *L, int nargs, Obj *args, Quantifier q) {
    Obj fn = coerce_function(L, args[0]);
    int ns = nargs - 1;
    Obj small[8];
    Obj *tuple = arg_buffer(L, small, 8, ns);
    MultiIter it;
    mi_init(L, &it, ns, args + 1);
    while (mi_next(L, &it, tuple)) {
        Obj v = funcall(L, fn, ns, tuple);
        switch (q) {
        case Q_EVERY: if (v == NIL) return NIL; break;
        case Q_SOME: if (v != NIL) return v; break;
        case Q_NOTANY: if (v != NIL) return NIL; break;
        case Q_NOTEVERY: if (v == NIL) return S(T); break;
        }
    }
    return (q == Q_EVERY || q == Q_NOTANY) ? S(T) : NIL;
}

DEFPRIM(prim_every) { return quantify(L, nargs, args, Q_EVERY); }
DEFPRIM(prim_some) { return quantify(L, nargs, args, Q_SOME); }
DEFPRIM(prim_notany) { return quantify(L, nargs, args, Q_NOTANY); }
DEFPRIM(prim_notevery) { return quantify(L, nargs, args, Q_NOTEVERY); }

/* ------------------------------------------------------------------ */
/* REDUCE                                                              */

/* One step of the reduction: (fn a b), with #'+ done inline. */
static inline Obj reduce_step(Lisp *L, Obj fn, bool plus, Obj a, Obj b) {
    if (plus) {
        intptr_t r;
        if (is_fixnum(a) && is_fixnum(b) && !__builtin_add_overflow(fixnum_val(a), fixnum_val(b), &r) && fixnum_fits(r))
            return FIX(r);
        if (is_number(a) && is_number(b)) return num_add(L, a, b);
    }
    safe_point(L);
    Obj v[2] = {a, b};
    return funcall(L, fn, 2, v);
}

DEFPRIM(prim_reduce) {
    Obj fn = coerce_function(L, args[0]);
    Obj seq = check_sequence(L, args[1]);
    Obj keys[5] = {S(K_KEY), S(K_FROM_END), S(K_START), S(K_END), S(K_INITIAL_VALUE)}, k[5];
    parse_keys(L, nargs, args, 2, 5, keys, k);
    Obj key = seq_key_fn(L, k[0]);
    bool fe = k[1] != NO_VALUE && k[1] != NIL;
    Obj iv = k[4];
    bool plus = fn == SYM(S(REPL_PLUS))->function;
    size_t b, e;
    if (is_list(seq) && !fe) {
        /* walk the list directly */
        bool bounded = (k[2] != NO_VALUE && k[2] != FIX(0)) || (k[3] != NO_VALUE && k[3] != NIL);
        if (bounded) list_bounds(L, seq, k[2], k[3], &b, &e, NULL);
        else { seq_start_arg(L, k[2]); b = 0; e = SIZE_MAX; }
        Obj x = seq;
        for (size_t i = 0; i < b; i++) x = CDR(x);
        Hare h;
        hare_init(&h, x);
        Obj from = x;
        Obj acc = iv;
        size_t i = b;
        if (acc == NO_VALUE) {
            if (!is_cons(x) || i >= e) {
                if (!bounded && x != NIL) err_type(L, x, S(LIST));
                return funcall(L, fn, 0, NULL);
            }
            acc = seq_apply_key(L, key, CAR(x));
            x = CDR(x);
            i++;
        }
        while (i < e && is_cons(x)) {
            acc = reduce_step(L, fn, plus, acc, seq_apply_key(L, key, CAR(x)));
            x = CDR(x);
            i++;
            if (is_cons(x)) hare_step(L, &h, x, from);
        }
        if (!bounded && x != NIL) err_type(L, x, S(LIST));
        return acc;
    }
    any_bounds(L, seq, k[2], k[3], &b, &e);
    size_t n = e - b;
    ElSrc src;
    elsrc_init(L, &src, seq, b, e);
    if (n == 0) return iv != NO_VALUE ? iv : funcall(L, fn, 0, NULL);
    Obj acc;
    if (fe) {
        size_t i = n;
        if (iv != NO_VALUE) acc = iv;
        else acc = seq_apply_key(L, key, el_get(L, &src, --i));
        while (i-- > 0) acc = reduce_step(L, fn, plus, seq_apply_key(L, key, el_get(L, &src, i)), acc);
    } else {
        size_t i = 0;
        if (iv != NO_VALUE) acc = iv;
        else acc = seq_apply_key(L, key, el_get(L, &src, i++));
        for (; i < n; i++) acc = reduce_step(L, fn, plus, acc, seq_apply_key(L, key, el_get(L, &src, i)));
    }
    return acc;
}

/* ------------------------------------------------------------------ */
/* SEARCH MISMATCH                                                     */

static inline bool elements_match(Lisp *L, const Matcher *m, Obj a, Obj b) {
    if (m->key != NIL) {
        a = seq_apply_key(L, m->key, a);
        b = seq_apply_key(L, m->key, b);
    }
    return matcher_test2(L, m, a, b);
}

typedef struct TwoSeqs {
    Obj s1, s2;
    size_t b1, e1, b2, e2;
    ElSrc a, b;
    Matcher m;
    bool from_end;
} TwoSeqs;

/* Parse (seq1 seq2 &key from-end test test-not key start1 end1 start2 end2). */
static void two_seqs_parse(Lisp *L, int nargs, Obj *args, TwoSeqs *t) {
    t->s1 = check_sequence(L, args[0]);
    t->s2 = check_sequence(L, args[1]);
    Obj keys[8] = {S(K_FROM_END), S(K_TEST), S(K_TEST_NOT), S(K_KEY), S(K_START1), S(K_END1), S(K_START2), S(K_END2)}, k[8];
    parse_keys(L, nargs, args, 2, 8, keys, k);
    matcher_init_test(L, &t->m, NIL, k[1], k[2], k[3], BOTH_TEST_NOT_WINS);
    t->from_end = k[0] != NO_VALUE && k[0] != NIL;
    any_bounds(L, t->s1, k[4], k[5], &t->b1, &t->e1);
    any_bounds(L, t->s2, k[6], k[7], &t->b2, &t->e2);
    elsrc_init(L, &t->a, t->s1, t->b1, t->e1);
    elsrc_init(L, &t->b, t->s2, t->b2, t->e2);
}

DEFPRIM(prim_search) {
    TwoSeqs t;
    two_seqs_parse(L, nargs, args, &t);
    size_t n1 = t.e1 - t.b1, n2 = t.e2 - t.b2;
    if (n1 > n2) return NIL;
    size_t last = n2 - n1;
    bool plain = (t.m.kind == MT_EQL || t.m.kind == MT_EQ) && t.m.key == NIL && !t.m.negate;
    if (plain && !t.a.arr && !t.b.arr && t.a.vv.kind == VV_CHAR && t.b.vv.kind == VV_CHAR) {
        const uint32_t *p = t.a.vv.chars + t.b1, *q = t.b.vv.chars + t.b2;
        for (size_t k = 0; k <= last; k++) {
            size_t pos = t.from_end ? last - k : k;
            if (memcmp(p, q + pos, n1 * 4) == 0) return fix_size(t.b2 + pos);
        }
        return NIL;
    }
    for (size_t k = 0; k <= last; k++) {
        size_t pos = t.from_end ? last - k : k;
        size_t j = 0;
        for (; j < n1; j++) {
            Obj x = el_get(L, &t.a, j), y = el_get(L, &t.b, pos + j);
            if (plain ? !(x == y || lisp_eql(x, y)) : !elements_match(L, &t.m, x, y)) break;
        }
        if (j == n1) return fix_size(t.b2 + pos);
        if ((k & 0xFFF) == 0xFFF) safe_point(L);
    }
    return NIL;
}

DEFPRIM(prim_mismatch) {
    TwoSeqs t;
    two_seqs_parse(L, nargs, args, &t);
    size_t n1 = t.e1 - t.b1, n2 = t.e2 - t.b2;
    size_t n = n1 < n2 ? n1 : n2;
    size_t k = 0;
    if (t.from_end) {
        for (; k < n; k++)
            if (!elements_match(L, &t.m, el_get(L, &t.a, n1 - 1 - k), el_get(L, &t.b, n2 - 1 - k))) break;
        if (k == n && n1 == n2) return NIL;
        return fix_size(t.e1 - k);
    }
    for (; k < n; k++)
        if (!elements_match(L, &t.m, el_get(L, &t.a, k), el_get(L, &t.b, k))) break;
    if (k == n && n1 == n2) return NIL;
    return fix_size(t.b1 + k);
}

/* ------------------------------------------------------------------ */
/* SORT STABLE-SORT MERGE                                              */

typedef enum { FAST_NONE, FAST_FIX_LT, FAST_FIX_GT, FAST_REAL_LT, FAST_REAL_GT, FAST_CHAR_LT, FAST_CHAR_GT,
               FAST_STR_LT, FAST_STR_GT } FastPred;

typedef struct Sorter { Obj pred; Obj key; FastPred fast; } Sorter;
typedef struct Pair { Obj key, elt; } Pair;

static int str_compare(Obj a, Obj b) {
    String *x = STR(a), *y = STR(b);
    size_t n = x->len < y->len ? x->len : y->len;
    for (size_t i = 0; i < n; i++)
        if (x->data[i] != y->data[i]) return x->data[i] < y->data[i] ? -1 : 1;
    return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

static inline bool sorter_less(Lisp *L, const Sorter *s, Obj a, Obj b) {
    switch (s->fast) {
    case FAST_FIX_LT: return fixnum_less(a, b);
    case FAST_FIX_GT: return fixnum_less(b, a);
    case FAST_REAL_LT: return num_compare(L, a, b) < 0;
    case FAST_REAL_GT: return num_compare(L, a, b) > 0;
    case FAST_CHAR_LT: return char_code(a) < char_code(b);
    case FAST_CHAR_GT: return char_code(a) > char_code(b);
    case FAST_STR_LT: return str_compare(a, b) < 0;
    case FAST_STR_GT: return str_compare(a, b) > 0;
    default: {
        safe_point(L);
        Obj v[2] = {a, b};
        return funcall(L, s->pred, 2, v) != NIL;
    }
    }
}

/* Choose an inline comparison when the predicate is a standard one and every key suits it. */
static void sorter_choose_fast(Lisp *L, Sorter *s, const Pair *p, size_t n, const Pair *q, size_t m) {
    s->fast = FAST_NONE;
    Obj f = s->pred;
    int which;   /* 0 numbers, 1 chars, 2 strings */
    bool gt;
    if (f == SYM(S(NUM_LT))->function) { which = 0; gt = false; }
    else if (f == SYM(S(NUM_GT))->function) { which = 0; gt = true; }
    else if (f == SYM(S(CHAR_LT))->function) { which = 1; gt = false; }
    else if (f == SYM(S(CHAR_GT))->function) { which = 1; gt = true; }
    else if (f == SYM(S(STRING_LT))->function) { which = 2; gt = false; }
    else if (f == SYM(S(STRING_GT))->function) { which = 2; gt = true; }
    else return;
    bool all_fix = true, all_real = true, all_char = true, all_str = true;
    for (int pass = 0; pass < 2; pass++) {
        const Pair *a = pass ? q : p;
        size_t k = pass ? m : n;
        for (size_t i = 0; i < k; i++) {
            Obj x = a[i].key;
            if (!is_fixnum(x)) all_fix = false;
            if (!is_real(x) || (is_float(x) && number_to_double(L, x) != number_to_double(L, x))) all_real = false;
            if (!is_char(x)) all_char = false;
            if (!is_string(x)) all_str = false;
        }
    }
    if (which == 0 && all_fix) s->fast = gt ? FAST_FIX_GT : FAST_FIX_LT;
    else if (which == 0 && all_real) s->fast = gt ? FAST_REAL_GT : FAST_REAL_LT;
    else if (which == 1 && all_char) s->fast = gt ? FAST_CHAR_GT : FAST_CHAR_LT;
    else if (which == 2 && all_str) s->fast = gt ? FAST_STR_GT : FAST_STR_LT;
}

/* Stable merge sort of p[0..n) using tmp (same size); the result ends in p. */
static void merge_sort_pairs(Lisp *L, const Sorter *s, Pair *p, Pair *tmp, size_t n) {
    /* insertion sort runs of 8 */
    const size_t RUN = 8;
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            Pair x = p[i];
            size_t j = i;
            while (j > lo && sorter_less(L, s, x.key, p[j - 1].key)) {
                p[j] = p[j - 1];
                j--;
            }
            p[j] = x;
        }
    }
    Pair *src = p, *dst = tmp;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            if (mid < hi && mid > lo && !sorter_less(L, s, src[mid].key, src[mid - 1].key)) {
                /* already in order */
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof(Pair));
                continue;
            }
            while (i < mid && j < hi) {
                if (sorter_less(L, s, src[j].key, src[i].key)) dst[k++] = src[j++];
                else dst[k++] = src[i++];
            }
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        Pair *t = src;
        src = dst;
        dst = t;
        safe_point(L);
    }
    if (src != p) memcpy(p, src, n * sizeof(Pair));
}

static Pair *pairs_of(Lisp *L, Obj seq, size_t n, Obj key) {
    gc_check_request(L, n > ARRAY_TOTAL_SIZE_LIMIT ? SIZE_MAX : n * sizeof(Pair) * 2);
    Pair *p = (Pair *)gc_alloc(L, (n ? n : 1) * sizeof(Pair));
    if (is_list(seq)) {
        Obj x = seq;
        for (size_t i = 0; i < n; i++, x = CDR(x)) p[i].elt = CAR(x);
    } else {
        VecView v;
        vecview_init(L, &v, seq);
        for (size_t i = 0; i < n; i++) p[i].elt = vv_ref(L, &v, i);
    }
    for (size_t i = 0; i < n; i++) p[i].key = seq_apply_key(L, key, p[i].elt);
    return p;
}

static Obj seq_sort(Lisp *L, int nargs, Obj *args) {
    Obj seq = args[0];
    Obj keys[1] = {S(K_KEY)}, k[1];
    parse_keys(L, nargs, args, 2, 1, keys, k);
    Sorter s;
    s.pred = coerce_function(L, args[1]);
    s.key = seq_key_fn(L, k[0]);
    size_t n = seq_length(L, seq);
    if (n < 2) return seq;
    Pair *p = pairs_of(L, seq, n, s.key);
    sorter_choose_fast(L, &s, p, n, NULL, 0);
    Pair *tmp = (Pair *)gc_alloc(L, n * sizeof(Pair));
    merge_sort_pairs(L, &s, p, tmp, n);
    /* write back only now: a predicate that exits leaves the sequence as it was */
    if (is_list(seq)) {
        Obj x = seq;
        for (size_t i = 0; i < n; i++, x = CDR(x)) CAR(x) = p[i].elt;
    } else {
        VecView v;
        vecview_init(L, &v, seq);
        for (size_t i = 0; i < n; i++) vv_set(L, &v, i, p[i].elt);
    }
    return seq;
}

DEFPRIM(prim_sort) { return seq_sort(L, nargs, args); }
DEFPRIM(prim_stable_sort) { return seq_sort(L, nargs, args); }

DEFPRIM(prim_merge) {
    Obj rtype = args[0], s1 = check_sequence(L, args[1]), s2 = check_sequence(L, args[2]);
    Obj keys[1] = {S(K_KEY)}, k[1];
    parse_keys(L, nargs, args, 4, 1, keys, k);
    Sorter s;
    s.pred = coerce_function(L, args[3]);
    s.key = seq_key_fn(L, k[0]);
    s.fast = FAST_NONE;
    SeqType t;
    parse_seq_type(L, rtype, &t);
    size_t n1 = seq_length(L, s1), n2 = seq_length(L, s2);
    if (t.is_list && is_list(s1) && is_list(s2)) {
        check_seq_type_length(L, &t, n1 + n2);
        /* destructive, stable: relink the conses */
        Obj a = s1, b = s2, head = NIL, tail = NIL;
        while (is_cons(a) && is_cons(b)) {
            Obj ka = seq_apply_key(L, s.key, CAR(a)), kb = seq_apply_key(L, s.key, CAR(b));
            Obj pick;
            if (sorter_less(L, &s, kb, ka)) { pick = b; b = CDR(b); }
            else { pick = a; a = CDR(a); }
            if (tail == NIL) head = pick; else CDR(tail) = pick;
            tail = pick;
        }
        Obj rest = is_cons(a) ? a : b;
        if (tail == NIL) return rest;
        CDR(tail) = rest;
        return head;
    }
    Pair *p = pairs_of(L, s1, n1, s.key), *q = pairs_of(L, s2, n2, s.key);
    sorter_choose_fast(L, &s, p, n1, q, n2);
    Obj *out = (Obj *)gc_alloc(L, (n1 + n2 ? n1 + n2 : 1) * sizeof(Obj));
    size_t i = 0, j = 0, w = 0;
    while (i < n1 && j < n2) {
        if (sorter_less(L, &s, q[j].key, p[i].key)) out[w++] = q[j++].elt;
        else out[w++] = p[i++].elt;
    }
    while (i < n1) out[w++] = p[i++].elt;
    while (j < n2) out[w++] = q[j++].elt;
    Obj r = make_typed_sequence(L, &t, w, t.is_list ? NIL : NO_VALUE);
    fill_from_array(L, r, out, w);
    return r;
}

/* ------------------------------------------------------------------ */

#define SEQ_KEYS_ITEM "(item sequence &key from-end test test-not start end key)"
#define SEQ_KEYS_PRED "(predicate sequence &key from-end start end key)"
#define SEQ_KEYS_EDIT "(item sequence &key from-end test test-not start end count key)"
#define SEQ_KEYS_EDIT_PRED "(predicate sequence &key from-end start end count key)"
#define SEQ_KEYS_SUBST "(newitem olditem sequence &key from-end test test-not start end count key)"
#define SEQ_KEYS_SUBST_PRED "(newitem predicate sequence &key from-end start end count key)"
#define SEQ_KEYS_TWO "(sequence-1 sequence-2 &key from-end test test-not key start1 end1 start2 end2)"

const PrimDef sequence_prims[] = {
    {"LENGTH", PK_CL, prim_length, 1, 1, 0, "(sequence)", "The number of elements of SEQUENCE (the fill pointer for vectors)."},
    {"ELT", PK_CL, prim_elt, 2, 2, 0, "(sequence index)", "The element of SEQUENCE at INDEX."},
    {"(SETF ELT)", PK_CL, prim_setf_elt, 3, 3, 0, "(new-value sequence index)", NULL},
    {"SUBSEQ", PK_CL, prim_subseq, 2, 3, 0, "(sequence start &optional end)", "A fresh copy of the elements from START below END."},
    {"(SETF SUBSEQ)", PK_CL, prim_setf_subseq, 3, 4, 0, "(new-sequence sequence start &optional end)", NULL},
    {"COPY-SEQ", PK_CL, prim_copy_seq, 1, 1, 0, "(sequence)", "A fresh copy of SEQUENCE."},
    {"REVERSE", PK_CL, prim_reverse, 1, 1, 0, "(sequence)", "A fresh sequence with the elements in reverse order."},
    {"NREVERSE", PK_CL, prim_nreverse, 1, 1, 0, "(sequence)", "Reverse SEQUENCE, destroying it."},
    {"FILL", PK_CL, prim_fill, 2, REST, 0, "(sequence item &key start end)", "Store ITEM in the elements from START below END."},
    {"REPLACE", PK_CL, prim_replace, 2, REST, 0, "(sequence-1 sequence-2 &key start1 end1 start2 end2)",
     "Copy elements of SEQUENCE-2 into SEQUENCE-1."},
    {"MAKE-SEQUENCE", PK_CL, prim_make_sequence, 2, REST, 0, "(result-type size &key initial-element)", "A fresh sequence of RESULT-TYPE and SIZE, filled with INITIAL-ELEMENT."},
    {"CONCATENATE", PK_CL, prim_concatenate, 1, REST, 0, "(result-type &rest sequences)", "A fresh sequence of RESULT-TYPE holding the elements of SEQUENCES in order."},
    {"MAP", PK_CL, prim_map, 3, REST, 0, "(result-type function first-sequence &rest more-sequences)", "A sequence of RESULT-TYPE of the results of FUNCTION on successive elements (NIL: results discarded)."},
    {"MAP-INTO", PK_CL, prim_map_into, 2, REST, 0, "(result-sequence function &rest sequences)", "Store the results of FUNCTION on successive elements into RESULT-SEQUENCE."},
    {"EVERY", PK_CL, prim_every, 2, REST, 0, "(predicate first-sequence &rest more-sequences)", "True if PREDICATE is true of every tuple of elements."},
    {"SOME", PK_CL, prim_some, 2, REST, 0, "(predicate first-sequence &rest more-sequences)", "The first true value of PREDICATE on the tuples of elements."},
    {"NOTANY", PK_CL, prim_notany, 2, REST, 0, "(predicate first-sequence &rest more-sequences)", "True if PREDICATE is false of every tuple of elements."},
    {"NOTEVERY", PK_CL, prim_notevery, 2, REST, 0, "(predicate first-sequence &rest more-sequences)", "True if PREDICATE is false of some tuple of elements."},
    {"REDUCE", PK_CL, prim_reduce, 2, REST, 0, "(function sequence &key key from-end start end initial-value)", "Combine the elements of SEQUENCE with the binary FUNCTION."},
    {"FIND", PK_CL, prim_find, 2, REST, 0, SEQ_KEYS_ITEM, "The first element of SEQUENCE matching ITEM, or NIL."},
    {"FIND-IF", PK_CL, prim_find_if, 2, REST, 0, SEQ_KEYS_PRED, "The first element satisfying PREDICATE, or NIL."},
    {"FIND-IF-NOT", PK_CL, prim_find_if_not, 2, REST, 0, SEQ_KEYS_PRED, "The first element not satisfying PREDICATE, or NIL."},
    {"POSITION", PK_CL, prim_position, 2, REST, 0, SEQ_KEYS_ITEM, "The index of the first element matching ITEM, or NIL."},
    {"POSITION-IF", PK_CL, prim_position_if, 2, REST, 0, SEQ_KEYS_PRED, "The index of the first element satisfying PREDICATE."},
    {"POSITION-IF-NOT", PK_CL, prim_position_if_not, 2, REST, 0, SEQ_KEYS_PRED, "The index of the first element not satisfying PREDICATE."},
    {"IS-A-VALID-SEQUENCE-TYPE-SPECIFIER-P", PK_SYS, prim_valid_sequence_type_p, 1, 1, 0, "(type-specifier)", NULL},
    {"COUNT", PK_CL, prim_count, 2, REST, 0, SEQ_KEYS_ITEM, "The number of elements matching ITEM."},
    {"COUNT-IF", PK_CL, prim_count_if, 2, REST, 0, SEQ_KEYS_PRED, "The number of elements satisfying PREDICATE."},
    {"COUNT-IF-NOT", PK_CL, prim_count_if_not, 2, REST, 0, SEQ_KEYS_PRED, "The number of elements not satisfying PREDICATE."},
    {"REMOVE", PK_CL, prim_remove, 2, REST, 0, SEQ_KEYS_EDIT, "A sequence like SEQUENCE without the elements matching ITEM."},
    {"REMOVE-IF", PK_CL, prim_remove_if, 2, REST, 0, SEQ_KEYS_EDIT_PRED, "SEQUENCE without the elements satisfying PREDICATE."},
    {"REMOVE-IF-NOT", PK_CL, prim_remove_if_not, 2, REST, 0, SEQ_KEYS_EDIT_PRED, "SEQUENCE without the elements not satisfying PREDICATE."},
    {"DELETE", PK_CL, prim_delete, 2, REST, 0, SEQ_KEYS_EDIT, "REMOVE, possibly destroying SEQUENCE."},
    {"DELETE-IF", PK_CL, prim_delete_if, 2, REST, 0, SEQ_KEYS_EDIT_PRED, "REMOVE-IF, possibly destroying SEQUENCE."},
    {"DELETE-IF-NOT", PK_CL, prim_delete_if_not, 2, REST, 0, SEQ_KEYS_EDIT_PRED, "REMOVE-IF-NOT, possibly destroying SEQUENCE."},
    {"SUBSTITUTE", PK_CL, prim_substitute, 3, REST, 0, SEQ_KEYS_SUBST, "A copy of SEQUENCE with the elements matching OLDITEM replaced by NEWITEM."},
    {"SUBSTITUTE-IF", PK_CL, prim_substitute_if, 3, REST, 0, SEQ_KEYS_SUBST_PRED, "A copy of SEQUENCE with the elements satisfying PREDICATE replaced by NEWITEM."},
    {"SUBSTITUTE-IF-NOT", PK_CL, prim_substitute_if_not, 3, REST, 0, SEQ_KEYS_SUBST_PRED, "A copy of SEQUENCE with the elements not satisfying PREDICATE replaced by NEWITEM."},
    {"NSUBSTITUTE", PK_CL, prim_nsubstitute, 3, REST, 0, SEQ_KEYS_SUBST, "Replace the elements matching OLDITEM by NEWITEM in SEQUENCE itself."},
    {"NSUBSTITUTE-IF", PK_CL, prim_nsubstitute_if, 3, REST, 0, SEQ_KEYS_SUBST_PRED, "Replace the elements satisfying PREDICATE by NEWITEM in SEQUENCE itself."},
    {"NSUBSTITUTE-IF-NOT", PK_CL, prim_nsubstitute_if_not, 3, REST, 0, SEQ_KEYS_SUBST_PRED, "Replace the elements not satisfying PREDICATE by NEWITEM in SEQUENCE itself."},
    {"REMOVE-DUPLICATES", PK_CL, prim_remove_duplicates, 1, REST, 0,
     "(sequence &key from-end test test-not start end key)", "A copy of SEQUENCE in which only one of each group of elements matching under TEST (with KEY) is kept: the last one, or the first with FROM-END. START and END limit the part examined."},
    {"DELETE-DUPLICATES", PK_CL, prim_delete_duplicates, 1, REST, 0,
     "(sequence &key from-end test test-not start end key)", "Like REMOVE-DUPLICATES, but may destroy SEQUENCE to build the result."},
    {"SEARCH", PK_CL, prim_search, 2, REST, 0, SEQ_KEYS_TWO, "The index in SEQUENCE-2 where a subsequence matching SEQUENCE-1 starts, or NIL."},
    {"MISMATCH", PK_CL, prim_mismatch, 2, REST, 0, SEQ_KEYS_TWO, "The index in SEQUENCE-1 where the two sequences first differ, or NIL."},
    {"SORT", PK_CL, prim_sort, 2, REST, 0, "(sequence predicate &key key)", "SEQUENCE sorted by PREDICATE (destructively; stable here)."},
    {"STABLE-SORT", PK_CL, prim_stable_sort, 2, REST, 0, "(sequence predicate &key key)", "SEQUENCE sorted by PREDICATE, keeping the order of equal elements."},
    {"MERGE", PK_CL, prim_merge, 4, REST, 0, "(result-type sequence-1 sequence-2 predicate &key key)", "The merge of two sequences sorted by PREDICATE, as RESULT-TYPE."},
    {0},
};

void sequence_init(Lisp *L) { prims_register(L, sequence_prims); }
