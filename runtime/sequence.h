/* sequence.h: helpers shared by the list (chapter 14) and sequence (chapter 17) functions:
 * :test/:test-not/:key matching, circularity-safe list walking, vector views, bounds errors. */
#ifndef TINYCL_SEQUENCE_H
#define TINYCL_SEQUENCE_H

#include "state.h"
#include "gc.h"
#include "prim.h"
#include "eval.h"
#include "hash.h"
#include "array.h"

/* ---- errors ---- */

/* A circular list where a proper list is required (SYSTEM::CIRCULAR-LIST-ERROR, a TYPE-ERROR whose
 * report does not print the list). */
_Noreturn void err_circular_list(Lisp *L, Obj list);
/* Bad :start/:end for a sequence of length LEN (SYSTEM::BOUNDING-INDICES-BAD-ERROR, a TYPE-ERROR).
 * END is the end argument as given (NIL when absent). */
_Noreturn void err_bounding_indices(Lisp *L, Obj seq, size_t start, Obj end, size_t len);
/* Index out of range for ELT and friends (SYSTEM::INDEX-TOO-LARGE-ERROR, a TYPE-ERROR). */
_Noreturn void err_index_too_large(Lisp *L, Obj seq, Obj index, size_t len);
/* Both :test and :test-not given, as the chapter 14 functions report it. */
_Noreturn void err_test_and_test_not(Lisp *L);

/* ---- circularity-safe list walking ----
 * Brent's cycle detection: a mark left at the walker's position every power-of-two steps;
 * meeting it again means the list is circular. It costs a compare and a count per step and
 * no extra memory traffic. Call hare_step after each advance to the next cons X of WHOLE;
 * it signals a circular-list error and polls the safe point. */
typedef struct Hare { Obj mark; size_t lam, power; } Hare;
static inline void hare_init(Hare *h, Obj list) { h->mark = list; h->lam = 0; h->power = 1; }
void hare_slow(Lisp *L, Hare *h, Obj x);
static inline void hare_step(Lisp *L, Hare *h, Obj x, Obj whole) {
    if (UNLIKELY(x == h->mark)) err_circular_list(L, whole);
    if (UNLIKELY(++h->lam == h->power)) hare_slow(L, h, x);
}
/* The same check without signalling: true when X closes a cycle. */
static inline bool hare_step_p(Lisp *L, Hare *h, Obj x) {
    if (UNLIKELY(x == h->mark)) return true;
    if (UNLIKELY(++h->lam == h->power)) hare_slow(L, h, x);
    return false;
}

/* Length of a proper list: TYPE-ERROR (datum the terminating atom) for a dotted list,
 * a circular-list error for a circular one. */
size_t proper_list_length(Lisp *L, Obj list);
/* Length of a list or -1 when it is circular; a dotted list counts its conses. Never signals. */
intptr_t list_length_or_circular(Obj list);

/* ---- matching ---- */

typedef enum { MT_EQ, MT_EQL, MT_EQUAL, MT_EQUALP, MT_FN2, MT_PRED } MatchKind;

/* How a function reacts to both :test and :test-not. */
typedef enum { BOTH_ERROR_LIST, BOTH_ERROR_SEQ, BOTH_TEST_NOT_WINS } BothPolicy;

typedef struct Matcher {
    MatchKind kind;
    bool negate;      /* :test-not, or an -IF-NOT predicate */
    Obj item;
    Obj fn;           /* the test (MT_FN2) or predicate (MT_PRED) as a function */
    Obj key;          /* NIL = identity */
} Matcher;

/* The :key argument as a function, or NIL for identity (absent or NIL). */
Obj seq_key_fn(Lisp *L, Obj key);
/* From :test / :test-not / :key arguments (NO_VALUE when absent). */
void matcher_init_test(Lisp *L, Matcher *m, Obj item, Obj test, Obj test_not, Obj key, BothPolicy both);
/* From an -IF / -IF-NOT predicate and :key. */
void matcher_init_pred(Lisp *L, Matcher *m, Obj pred, Obj key, bool negate);

/* Calls of user functions and structural comparisons poll the safe point: a primitive
 * called through funcall does not, and an O(n*m) set operation must stay interruptible. */
static inline Obj seq_apply_key(Lisp *L, Obj key, Obj x) {
    if (key == NIL) return x;
    safe_point(L);
    return funcall(L, key, 1, &x);
}

/* The test on an already keyed value K: (test item k) or (pred k). */
static inline bool matcher_match_key(Lisp *L, const Matcher *m, Obj k) {
    bool r;
    switch (m->kind) {
    case MT_EQ: r = m->item == k; break;
    case MT_EQL: r = m->item == k || lisp_eql(m->item, k); break;
    case MT_EQUAL: safe_point(L); r = lisp_equal(L, m->item, k); break;
    case MT_EQUALP: safe_point(L); r = lisp_equalp(L, m->item, k); break;
    case MT_FN2: {
        safe_point(L);
        Obj a[2] = {m->item, k};
        r = funcall(L, m->fn, 2, a) != NIL;
        break;
    }
    default: safe_point(L); r = funcall(L, m->fn, 1, &k) != NIL; break;
    }
    return r != m->negate;
}

/* The test on an element X (the key applied first). */
static inline bool matcher_match(Lisp *L, const Matcher *m, Obj x) {
    return matcher_match_key(L, m, seq_apply_key(L, m->key, x));
}

/* The two-argument test on already keyed values (test a b); for MT_FN2..MT_EQUALP only. */
static inline bool matcher_test2(Lisp *L, const Matcher *m, Obj a, Obj b) {
    bool r;
    switch (m->kind) {
    case MT_EQ: r = a == b; break;
    case MT_EQL: r = a == b || lisp_eql(a, b); break;
    case MT_EQUAL: safe_point(L); r = lisp_equal(L, a, b); break;
    case MT_EQUALP: safe_point(L); r = lisp_equalp(L, a, b); break;
    default: {
        safe_point(L);
        Obj v[2] = {a, b};
        r = funcall(L, m->fn, 2, v) != NIL;
        break;
    }
    }
    return r != m->negate;
}

/* Whether a matcher's test is one a hash table can stand in for (EQ, EQL, EQUAL, EQUALP, not negated). */
static inline bool matcher_hashable(const Matcher *m, HashTest *t) {
    if (m->negate) return false;
    switch (m->kind) {
    case MT_EQ: *t = HT_EQ; return true;
    case MT_EQL: *t = HT_EQL; return true;
    case MT_EQUAL: *t = HT_EQUAL; return true;
    case MT_EQUALP: *t = HT_EQUALP; return true;
    default: return false;
    }
}

/* ---- vectors ---- */

/* Direct access to a vector's elements: its simple storage and offset, resolved once. */
typedef struct VecView {
    int kind;          /* VV_T, VV_CHAR, VV_BIT, VV_GENERIC */
    Obj *objs;
    uint32_t *chars;
    uint8_t *bits;
    Obj vec;           /* VV_GENERIC: the vector itself (array_rm_ref) */
    size_t len;        /* active length */
} VecView;
enum { VV_T, VV_CHAR, VV_BIT, VV_GENERIC };

void vecview_init(Lisp *L, VecView *v, Obj vec);
Obj vecview_ref_slow(Lisp *L, const VecView *v, size_t i);
void vecview_set_slow(Lisp *L, const VecView *v, size_t i, Obj x);
static inline Obj vv_ref(Lisp *L, const VecView *v, size_t i) {
    switch (v->kind) {
    case VV_T: return v->objs[i];
    case VV_CHAR: return make_char(v->chars[i]);
    case VV_BIT: return FIX(v->bits[i]);
    default: return vecview_ref_slow(L, v, i);
    }
}
static inline void vv_set(Lisp *L, const VecView *v, size_t i, Obj x) {
    switch (v->kind) {
    case VV_T: v->objs[i] = x; return;
    case VV_CHAR:
        if (UNLIKELY(!is_char(x))) err_type(L, x, S(CHARACTER));
        v->chars[i] = char_code(x);
        return;
    case VV_BIT:
        if (UNLIKELY(x != FIX(0) && x != FIX(1))) err_type(L, x, S(BIT));
        v->bits[i] = (uint8_t)fixnum_val(x);
        return;
    default: vecview_set_slow(L, v, i, x); return;
    }
}

/* A fresh simple vector of N elements of the same element type as VEC (string, bit vector or simple-vector). */
Obj seq_make_like(Lisp *L, Obj vec, size_t n);

/* ---- sequences ---- */

static inline bool is_sequence(Obj o) { return is_list(o) || is_vector(o); }
/* Length of a proper sequence; TYPE-ERROR (SEQUENCE) for anything else. */
size_t seq_length(Lisp *L, Obj seq);
/* Element I of a sequence (no bounds check for vectors; lists must be long enough). */
Obj seq_elt_unchecked(Lisp *L, Obj seq, size_t i);

/* :start/:end for a sequence of known length: START defaults to 0, END (NIL) to LEN. */
void seq_bounds(Lisp *L, Obj seq, Obj start, Obj end, size_t len, size_t *s, size_t *e);
/* :start as a size (type-checked). */
size_t seq_start_arg(Lisp *L, Obj start);
/* :count: returns false when unlimited (absent or NIL); negative counts count as 0. */
bool seq_count_arg(Lisp *L, Obj count, size_t *out);

/* ---- walking several sequences in step (MAP, EVERY, MAPCAR, ...) ----
 * Lists end at their first non-cons (a dotted tail is a TYPE-ERROR when reached), vectors at
 * their length. When every sequence is a list, the first is watched for circularity: if it is
 * circular and no other list is finite, a circular-list error is signalled instead of looping. */
#define MI_SMALL 8
typedef struct MultiIter {
    int n;
    Obj *seqs;
    Obj *cur;              /* list cursors (NO_VALUE for vectors) */
    VecView *vv;           /* vector views */
    size_t limit;          /* the shortest vector length (SIZE_MAX without vectors) */
    size_t i;              /* tuples produced so far */
    bool watch;
    Hare hare;
    Obj small_cur[MI_SMALL];
    VecView small_vv[MI_SMALL];
} MultiIter;
void mi_init(Lisp *L, MultiIter *it, int n, Obj *seqs);
/* The next tuple of elements into out[0..n); false when some sequence is exhausted. */
bool mi_next(Lisp *L, MultiIter *it, Obj *out);
/* Obj storage for N call arguments: SMALL when it fits, else collected memory. */
static inline Obj *arg_buffer(Lisp *L, Obj *small, int nsmall, int n) {
    return n <= nsmall ? small : (Obj *)gc_alloc(L, (size_t)n * sizeof(Obj));
}

Obj seq_reverse(Lisp *L, Obj s);
Obj seq_nreverse(Lisp *L, Obj s);

#endif
