/* list.c: conses and lists (CLHS chapter 14): construction, access, and the list functions in C. */
#include "list.h"
#include "prim.h"
#include "hash.h"
#include "eval.h"
#include "sequence.h"
#include "lstring.h"

Obj list_from_array(Lisp *L, int n, Obj *v) {
    Obj r = NIL;
    for (int i = n - 1; i >= 0; i--) r = cons(L, v[i], r);
    return r;
}

size_t list_length_proper(Lisp *L, Obj l) { return proper_list_length(L, l); }

Obj list_reverse(Lisp *L, Obj l) {
    Obj r = NIL;
    Hare h;
    hare_init(&h, l);
    Obj x = l;
    while (is_cons(x)) {
        r = cons(L, CAR(x), r);
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, l);
    }
    if (x != NIL) err_type(L, x, S(LIST));
    return r;
}

Obj list_copy(Lisp *L, Obj l) {
    Obj head = NIL, tail = NIL;
    Obj x = l;
    Hare h;
    hare_init(&h, l);
    while (is_cons(x)) {
        Obj c = cons(L, CAR(x), NIL);
        if (tail == NIL) head = c; else CDR(tail) = c;
        tail = c;
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, l);
    }
    if (tail != NIL) CDR(tail) = x;
    else head = x;
    return head;
}

Obj list_nth(Obj l, size_t n) {
    while (n-- && is_cons(l)) l = CDR(l);
    return is_cons(l) ? CAR(l) : NIL;
}

typedef struct ListBuilder { Obj head, tail; } ListBuilder;
static inline void lb_push(Lisp *L, ListBuilder *b, Obj x) {
    Obj c = cons(L, x, NIL);
    if (b->tail == NIL) b->head = c; else CDR(b->tail) = c;
    b->tail = c;
}

static Obj car_of(Lisp *L, Obj o) {
    if (is_cons(o)) return CAR(o);
    if (o == NIL) return NIL;
    err_type(L, o, S(LIST));
}
static Obj cdr_of(Lisp *L, Obj o) {
    if (is_cons(o)) return CDR(o);
    if (o == NIL) return NIL;
    err_type(L, o, S(LIST));
}

DEFPRIM(prim_cons) { UNUSED_ARGS; return cons(L, args[0], args[1]); }
DEFPRIM(prim_car) { UNUSED_ARGS; return car_of(L, args[0]); }
DEFPRIM(prim_cdr) { UNUSED_ARGS; return cdr_of(L, args[0]); }

/* c[ad]{2,4}r: the path is read right to left */
static Obj cxr(Lisp *L, Obj o, const char *path) {
    for (int i = (int)strlen(path) - 1; i >= 0; i--) o = path[i] == 'a' ? car_of(L, o) : cdr_of(L, o);
    return o;
}
#define CXR(cname, path) DEFPRIM(cname) { UNUSED_ARGS; return cxr(L, args[0], path); }
CXR(prim_caar, "aa") CXR(prim_cadr, "ad") CXR(prim_cdar, "da") CXR(prim_cddr, "dd")
CXR(prim_caaar, "aaa") CXR(prim_caadr, "aad") CXR(prim_cadar, "ada") CXR(prim_caddr, "add")
CXR(prim_cdaar, "daa") CXR(prim_cdadr, "dad") CXR(prim_cddar, "dda") CXR(prim_cdddr, "ddd")
CXR(prim_caaaar, "aaaa") CXR(prim_caaadr, "aaad") CXR(prim_caadar, "aada") CXR(prim_caaddr, "aadd")
CXR(prim_cadaar, "adaa") CXR(prim_cadadr, "adad") CXR(prim_caddar, "adda") CXR(prim_cadddr, "addd")
CXR(prim_cdaaar, "daaa") CXR(prim_cdaadr, "daad") CXR(prim_cdadar, "dada") CXR(prim_cdaddr, "dadd")
CXR(prim_cddaar, "ddaa") CXR(prim_cddadr, "ddad") CXR(prim_cdddar, "ddda") CXR(prim_cddddr, "dddd")

static Obj nth_of(Lisp *L, Obj l, size_t n) {
    for (; n > 0; n--) l = cdr_of(L, l);
    return car_of(L, l);
}
#define NTH(cname, k) DEFPRIM(cname) { UNUSED_ARGS; return nth_of(L, args[0], k); }
NTH(prim_third, 2) NTH(prim_fourth, 3) NTH(prim_fifth, 4) NTH(prim_sixth, 5)
NTH(prim_seventh, 6) NTH(prim_eighth, 7) NTH(prim_ninth, 8) NTH(prim_tenth, 9)

DEFPRIM(prim_list) { return list_from_array(L, nargs, args); }

DEFPRIM(prim_list_star) {
    Obj r = args[nargs - 1];
    for (int i = nargs - 2; i >= 0; i--) r = cons(L, args[i], r);
    return r;
}

DEFPRIM(prim_rplaca) { UNUSED_ARGS; CAR(check_cons(L, args[0])) = args[1]; return args[0]; }
DEFPRIM(prim_rplacd) { UNUSED_ARGS; CDR(check_cons(L, args[0])) = args[1]; return args[0]; }
DEFPRIM(prim_consp) { UNUSED_ARGS; return boolean(L, is_cons(args[0])); }
DEFPRIM(prim_listp) { UNUSED_ARGS; return boolean(L, is_list(args[0])); }
DEFPRIM(prim_atom) { UNUSED_ARGS; return boolean(L, !is_cons(args[0])); }
DEFPRIM(prim_null) { UNUSED_ARGS; return boolean(L, args[0] == NIL); }
DEFPRIM(prim_endp) { UNUSED_ARGS; return boolean(L, check_list(L, args[0]) == NIL); }

/* A count argument of type UNSIGNED-BYTE: its value, SIZE_MAX for bignums. */
static size_t unsigned_arg(Lisp *L, Obj n) {
    if (is_fixnum(n) && fixnum_val(n) >= 0) return (size_t)fixnum_val(n);
    if (is_bignum(n) && mpz_sgn(BIG(n)) > 0) return SIZE_MAX;
    err_type(L, n, S(UNSIGNED_BYTE));
}

/* The tail of LIST after N cdrs (N an unsigned integer, possibly a bignum). A circular list is
 * followed around its cycle by arithmetic rather than N steps. */
static Obj list_nthcdr(Lisp *L, Obj list, Obj n) {
    size_t target = unsigned_arg(L, n);
    Obj x = check_list(L, list);
    Hare h;
    hare_init(&h, list);
    for (size_t k = 0; k < target;) {
        if (!is_cons(x)) {
            if (x == NIL) return NIL;
            err_type(L, x, S(LIST));
        }
        x = CDR(x);
        k++;
        if (!is_cons(x) || k == target) continue;
        if (x == h.mark) {
            /* a cycle of length lam + 1: only the remainder of the steps matters */
            size_t cycle = h.lam + 1, rest;
            if (is_bignum(n)) {
                mpz_t r;
                mpz_init(r);
                mpz_sub_ui(r, BIG(n), k);
                rest = mpz_fdiv_ui(r, cycle);
                mpz_clear(r);
            } else {
                rest = (target - k) % cycle;
            }
            for (size_t i = 0; i < rest; i++) x = CDR(x);
            return x;
        }
        if (++h.lam == h.power) hare_slow(L, &h, x);
    }
    return x;
}

DEFPRIM(prim_nth) { UNUSED_ARGS; return car_of(L, list_nthcdr(L, args[1], args[0])); }
DEFPRIM(prim_nthcdr) { UNUSED_ARGS; return list_nthcdr(L, args[1], args[0]); }

DEFPRIM(prim_append) {
    if (nargs == 0) return NIL;
    Obj head = NIL, tail = NIL;
    for (int i = 0; i < nargs - 1; i++) {
        Obj x = args[i];
        Hare h;
        hare_init(&h, x);
        while (is_cons(x)) {
            Obj c = cons(L, CAR(x), NIL);
            if (tail == NIL) head = c; else CDR(tail) = c;
            tail = c;
            x = CDR(x);
            if (is_cons(x)) hare_step(L, &h, x, args[i]);
        }
        if (x != NIL) err_type(L, x, S(LIST));
    }
    if (tail == NIL) return args[nargs - 1];
    CDR(tail) = args[nargs - 1];
    return head;
}

DEFPRIM(prim_nconc) {
    Obj head = NIL, tail = NIL;
    for (int i = 0; i < nargs; i++) {
        Obj x = args[i];
        if (x == NIL) continue;
        if (i == nargs - 1 || !is_cons(x)) {
            if (i != nargs - 1) err_type(L, x, S(LIST));
            if (tail == NIL) return x;
            CDR(tail) = x;
            return head;
        }
        if (tail == NIL) head = x; else CDR(tail) = x;
        Obj start = x;
        Hare h;
        hare_init(&h, x);
        while (is_cons(CDR(x))) {
            x = CDR(x);
            hare_step(L, &h, x, start);
        }
        tail = x;
    }
    return head;
}

DEFPRIM(prim_copy_list) { UNUSED_ARGS; return list_copy(L, check_list(L, args[0])); }

DEFPRIM(prim_last) {
    Obj l = check_list(L, args[0]);
    size_t n = nargs > 1 ? unsigned_arg(L, args[1]) : 1;
    /* the last n conses: advance a lead pointer n conses first */
    Obj lead = l;
    Hare h;
    hare_init(&h, l);
    for (size_t i = 0; i < n && is_cons(lead); i++) {
        lead = CDR(lead);
        if (is_cons(lead)) hare_step(L, &h, lead, args[0]);
    }
    while (is_cons(lead)) {
        lead = CDR(lead);
        l = CDR(l);
        if (is_cons(lead)) hare_step(L, &h, lead, args[0]);
    }
    return l;
}

DEFPRIM(prim_list_length) {
    UNUSED_ARGS;
    Obj l = check_list(L, args[0]);
    size_t n = 0;
    Obj fast = l, slow = l;
    for (;;) {
        if (fast == NIL) return FIX((intptr_t)n);
        if (!is_cons(fast)) err_type(L, fast, S(LIST));
        fast = CDR(fast);
        n++;
        if (fast == NIL) return FIX((intptr_t)n);
        if (!is_cons(fast)) err_type(L, fast, S(LIST));
        fast = CDR(fast);
        n++;
        slow = CDR(slow);
        if (fast == slow) return NIL;
    }
}

DEFPRIM(prim_make_list) {
    size_t n = check_index(L, args[0]);
    Obj keys[1] = {S(K_INITIAL_ELEMENT)}, out[1];
    parse_keys(L, nargs, args, 1, 1, keys, out);
    Obj init = out[0] == NO_VALUE ? NIL : out[0];
    gc_check_request(L, n > ((size_t)1 << 40) ? SIZE_MAX : n * sizeof(Cons));
    Obj r = NIL;
    for (size_t i = 0; i < n; i++) {
        r = cons(L, init, r);
        if ((i & 0xFFFF) == 0xFFFF) safe_point(L);
    }
    return r;
}

/* ------------------------------------------------------------------ */
/* Setf functions for the accessors (faster than interpreted ones)     */

DEFPRIM(prim_pct_setf_car) { UNUSED_ARGS; CAR(check_cons(L, args[1])) = args[0]; return args[0]; }
DEFPRIM(prim_pct_setf_cdr) { UNUSED_ARGS; CDR(check_cons(L, args[1])) = args[0]; return args[0]; }

/* (setf c[ad]+r): the path's last letter is the cell to set, the rest is read */
static Obj setf_cxr(Lisp *L, Obj v, Obj o, const char *path) {
    Obj cell = cxr(L, o, path + 1);
    if (path[0] == 'a') CAR(check_cons(L, cell)) = v;
    else CDR(check_cons(L, cell)) = v;
    return v;
}
#define SETF_CXR(cname, path) DEFPRIM(cname) { UNUSED_ARGS; return setf_cxr(L, args[0], args[1], path); }
SETF_CXR(prim_pct_setf_caar, "aa") SETF_CXR(prim_pct_setf_cadr, "ad") SETF_CXR(prim_pct_setf_cdar, "da")
SETF_CXR(prim_pct_setf_cddr, "dd") SETF_CXR(prim_pct_setf_caddr, "add") SETF_CXR(prim_pct_setf_cdddr, "ddd")
SETF_CXR(prim_pct_setf_cadddr, "addd")

static Obj setf_nth(Lisp *L, Obj v, Obj list, size_t n) {
    Obj x = list;
    for (size_t i = 0; i < n; i++) {
        x = cdr_of(L, x);
        if ((i & 0xFFFF) == 0xFFFF) safe_point(L);
    }
    CAR(check_cons(L, x)) = v;
    return v;
}
#define SETF_NTH(cname, k) DEFPRIM(cname) { UNUSED_ARGS; return setf_nth(L, args[0], args[1], k); }
SETF_NTH(prim_pct_setf_third, 2) SETF_NTH(prim_pct_setf_fourth, 3) SETF_NTH(prim_pct_setf_fifth, 4)
SETF_NTH(prim_pct_setf_sixth, 5) SETF_NTH(prim_pct_setf_seventh, 6) SETF_NTH(prim_pct_setf_eighth, 7)
SETF_NTH(prim_pct_setf_ninth, 8) SETF_NTH(prim_pct_setf_tenth, 9)
DEFPRIM(prim_pct_setf_nth) { UNUSED_ARGS; return setf_nth(L, args[0], args[2], check_index(L, args[1])); }

/* ------------------------------------------------------------------ */
/* Lists, trees and tails                                              */

DEFPRIM(prim_copy_alist) {
    UNUSED_ARGS;
    Obj al = args[0];
    ListBuilder b = {NIL, NIL};
    Hare h;
    hare_init(&h, al);
    Obj x = check_list(L, al);
    while (is_cons(x)) {
        Obj e = CAR(x);
        lb_push(L, &b, is_cons(e) ? cons(L, CAR(e), CDR(e)) : e);
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, al);
    }
    if (x != NIL) err_type(L, x, S(LIST));
    return b.head;
}

static Obj copy_tree(Lisp *L, Obj t) {
    if (!is_cons(t)) return t;
    stack_check(L);
    ListBuilder b = {NIL, NIL};
    Hare h;
    hare_init(&h, t);
    Obj x = t;
    while (is_cons(x)) {
        lb_push(L, &b, copy_tree(L, CAR(x)));
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, t);
    }
    CDR(b.tail) = x;
    return b.head;
}
DEFPRIM(prim_copy_tree) { UNUSED_ARGS; return copy_tree(L, args[0]); }

static bool tree_equal(Lisp *L, const Matcher *m, Obj a, Obj b) {
    stack_check(L);
    Hare h;
    hare_init(&h, a);
    Obj start = a;
    while (is_cons(a)) {
        if (!is_cons(b)) return false;
        if (!tree_equal(L, m, CAR(a), CAR(b))) return false;
        a = CDR(a);
        b = CDR(b);
        if (is_cons(a)) hare_step(L, &h, a, start);
    }
    if (is_cons(b)) return false;
    return matcher_test2(L, m, a, b);
}

DEFPRIM(prim_tree_equal) {
    Obj keys[2] = {S(K_TEST), S(K_TEST_NOT)}, k[2];
    parse_keys(L, nargs, args, 2, 2, keys, k);
    Matcher m;
    matcher_init_test(L, &m, NIL, k[0], k[1], NO_VALUE, BOTH_ERROR_LIST);
    return boolean(L, tree_equal(L, &m, args[0], args[1]));
}

/* SUBST and SUBLIS: what replaces a subtree (NO_VALUE for nothing). */
typedef struct TreeSubst {
    Matcher m;          /* SUBST: the test against OLD, or the predicate */
    Obj newval;
    Obj alist;          /* SUBLIS: the alist (m then holds only test and key) */
    bool is_sublis;
} TreeSubst;

static Obj subst_lookup(Lisp *L, const TreeSubst *ts, Obj tree) {
    if (!ts->is_sublis) return matcher_match(L, &ts->m, tree) ? ts->newval : NO_VALUE;
    Obj k = seq_apply_key(L, ts->m.key, tree);
    for (Obj a = ts->alist; is_cons(a); a = CDR(a)) {
        Obj pair = CAR(a);
        if (is_cons(pair) && matcher_test2(L, &ts->m, k, CAR(pair))) return CDR(pair);
    }
    return NO_VALUE;
}

/* Non-destructive: shares unchanged subtrees; walks list spines iteratively. */
static Obj subst_tree(Lisp *L, const TreeSubst *ts, Obj tree) {
    Obj r = subst_lookup(L, ts, tree);
    if (r != NO_VALUE) return r;
    if (!is_cons(tree)) return tree;
    stack_check(L);
    /* the spine: conses x0, x1, ... and their new cars */
    size_t cap = 16, n = 0;
    Obj small[32];
    Obj *buf = small;   /* pairs: spine cons, new car */
    Obj x = tree, tail;
    Hare h;
    hare_init(&h, tree);
    for (;;) {
        if (n == cap) {
            Obj *nb = (Obj *)gc_alloc(L, cap * 4 * sizeof(Obj));
            memcpy(nb, buf, cap * 2 * sizeof(Obj));
            buf = nb;
            cap *= 2;
        }
        buf[2 * n] = x;
        buf[2 * n + 1] = subst_tree(L, ts, CAR(x));
        n++;
        Obj next = CDR(x);
        r = subst_lookup(L, ts, next);
        if (r != NO_VALUE) { tail = r; break; }
        if (!is_cons(next)) { tail = next; break; }
        x = next;
        hare_step(L, &h, x, tree);
    }
    Obj result = tail;
    for (size_t i = n; i-- > 0;) {
        Obj c = buf[2 * i], a = buf[2 * i + 1];
        if (a == CAR(c) && result == CDR(c)) result = c;
        else result = cons(L, a, result);
    }
    return result;
}

static Obj nsubst_tree(Lisp *L, const TreeSubst *ts, Obj tree) {
    Obj r = subst_lookup(L, ts, tree);
    if (r != NO_VALUE) return r;
    if (!is_cons(tree)) return tree;
    stack_check(L);
    Obj x = tree;
    Hare h;
    hare_init(&h, tree);
    for (;;) {
        CAR(x) = nsubst_tree(L, ts, CAR(x));
        Obj next = CDR(x);
        r = subst_lookup(L, ts, next);
        if (r != NO_VALUE) { CDR(x) = r; break; }
        if (!is_cons(next)) break;
        x = next;
        hare_step(L, &h, x, tree);
    }
    return tree;
}

/* (subst new old tree &key key test test-not) and (subst-if new predicate tree &key key) */
static Obj subst_common(Lisp *L, int nargs, Obj *args, int mode, bool destructive) {
    TreeSubst ts;
    ts.newval = args[0];
    ts.alist = NIL;
    ts.is_sublis = false;
    if (mode == 0) {
        Obj keys[3] = {S(K_KEY), S(K_TEST), S(K_TEST_NOT)}, k[3];
        parse_keys(L, nargs, args, 3, 3, keys, k);
        matcher_init_test(L, &ts.m, args[1], k[1], k[2], k[0], BOTH_ERROR_LIST);
    } else {
        Obj keys[1] = {S(K_KEY)}, k[1];
        parse_keys(L, nargs, args, 3, 1, keys, k);
        matcher_init_pred(L, &ts.m, args[1], k[0], mode == 2);
    }
    return destructive ? nsubst_tree(L, &ts, args[2]) : subst_tree(L, &ts, args[2]);
}
DEFPRIM(prim_subst) { return subst_common(L, nargs, args, 0, false); }
DEFPRIM(prim_subst_if) { return subst_common(L, nargs, args, 1, false); }
DEFPRIM(prim_subst_if_not) { return subst_common(L, nargs, args, 2, false); }
DEFPRIM(prim_nsubst) { return subst_common(L, nargs, args, 0, true); }
DEFPRIM(prim_nsubst_if) { return subst_common(L, nargs, args, 1, true); }
DEFPRIM(prim_nsubst_if_not) { return subst_common(L, nargs, args, 2, true); }

static Obj sublis_common(Lisp *L, int nargs, Obj *args, bool destructive) {
    Obj keys[3] = {S(K_KEY), S(K_TEST), S(K_TEST_NOT)}, k[3];
    parse_keys(L, nargs, args, 2, 3, keys, k);
    TreeSubst ts;
    ts.alist = args[0];
    proper_list_length(L, ts.alist);
    ts.is_sublis = true;
    ts.newval = NIL;
    matcher_init_test(L, &ts.m, NIL, k[1], k[2], k[0], BOTH_ERROR_LIST);
    return destructive ? nsubst_tree(L, &ts, args[1]) : subst_tree(L, &ts, args[1]);
}
DEFPRIM(prim_sublis) { return sublis_common(L, nargs, args, false); }
DEFPRIM(prim_nsublis) { return sublis_common(L, nargs, args, true); }

static size_t butlast_count(Lisp *L, int nargs, Obj *args) {
    return nargs < 2 ? 1 : unsigned_arg(L, args[1]);
}

/* The number of conses of a list (dotted allowed), or a circular-list error. */
static size_t cons_count(Lisp *L, Obj list) {
    intptr_t n = list_length_or_circular(list);
    if (n < 0) err_circular_list(L, list);
    return (size_t)n;
}

DEFPRIM(prim_butlast) {
    Obj list = check_list(L, args[0]);
    size_t n = butlast_count(L, nargs, args);
    size_t len = cons_count(L, list);
    if (n >= len) return NIL;
    ListBuilder b = {NIL, NIL};
    Obj x = list;
    for (size_t i = 0; i < len - n; i++, x = CDR(x)) lb_push(L, &b, CAR(x));
    return b.head;
}

DEFPRIM(prim_nbutlast) {
    Obj list = check_list(L, args[0]);
    size_t n = butlast_count(L, nargs, args);
    size_t len = cons_count(L, list);
    if (n >= len) return NIL;
    Obj x = list;
    for (size_t i = 1; i < len - n; i++) x = CDR(x);
    CDR(x) = NIL;
    return list;
}

DEFPRIM(prim_ldiff) {
    UNUSED_ARGS;
    Obj list = check_list(L, args[0]), obj = args[1];
    ListBuilder b = {NIL, NIL};
    Hare h;
    hare_init(&h, list);
    Obj x = list;
    while (is_cons(x)) {
        if (x == obj) return b.head;
        lb_push(L, &b, CAR(x));
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, list);
    }
    if (lisp_eql(x, obj)) return b.head;
    if (b.tail == NIL) return x;
    CDR(b.tail) = x;
    return b.head;
}

DEFPRIM(prim_tailp) {
    UNUSED_ARGS;
    Obj obj = args[0], list = check_list(L, args[1]);
    Hare h;
    hare_init(&h, list);
    Obj x = list;
    while (is_cons(x)) {
        if (x == obj) return S(T);
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, list);
    }
    return boolean(L, lisp_eql(x, obj));
}

DEFPRIM(prim_revappend) {
    UNUSED_ARGS;
    Obj x = check_list(L, args[0]), r = args[1];
    Hare h;
    hare_init(&h, x);
    Obj start = x;
    while (is_cons(x)) {
        r = cons(L, CAR(x), r);
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, start);
    }
    if (x != NIL) err_type(L, x, S(LIST));
    return r;
}

Obj list_nreconc(Lisp *L, Obj x, Obj tail) {
    proper_list_length(L, x);
    Obj r = tail;
    while (x != NIL) {
        Obj next = CDR(x);
        CDR(x) = r;
        r = x;
        x = next;
    }
    return r;
}

DEFPRIM(prim_nreconc) {
    UNUSED_ARGS;
    return list_nreconc(L, check_list(L, args[0]), args[1]);
}

/* ------------------------------------------------------------------ */
/* MEMBER ASSOC RASSOC                                                 */

/* Walk LIST with the matcher; SELECT picks what is matched: 0 the element, 1 its car, 2 its cdr
 * (NIL elements are skipped by ASSOC/RASSOC). Returns the tail (0) or the element (1, 2). */
static Obj list_search(Lisp *L, Obj list, const Matcher *m, int select) {
    check_list(L, list);
    Hare h;
    hare_init(&h, list);
    Obj x = list;
    bool plain = (m->kind == MT_EQL || m->kind == MT_EQ) && m->key == NIL && !m->negate;
    Obj item = m->item;
    bool item_eq = m->kind == MT_EQ || !is_heap(item) || is_type(item, T_SYMBOL) || is_type(item, T_STRING);
    while (is_cons(x)) {
        Obj e = CAR(x);
        Obj v;
        if (select == 0) v = e;
        else if (e == NIL) goto next;
        else if (!is_cons(e)) err_type(L, e, S(LIST));
        else v = select == 1 ? CAR(e) : CDR(e);
        if (plain ? (v == item || (!item_eq && lisp_eql(item, v))) : matcher_match(L, m, v))
            return select == 0 ? x : e;
    next:
        x = CDR(x);
        if (is_cons(x)) hare_step(L, &h, x, list);
    }
    if (x != NIL) err_type(L, x, S(LIST));
    return NIL;
}

/* (op item list &key key test test-not) */
static Obj search_item(Lisp *L, int nargs, Obj *args, int select) {
    Obj keys[3] = {S(K_KEY), S(K_TEST), S(K_TEST_NOT)}, k[3];
    parse_keys(L, nargs, args, 2, 3, keys, k);
    Matcher m;
    matcher_init_test(L, &m, args[0], k[1], k[2], k[0], BOTH_ERROR_LIST);
    return list_search(L, args[1], &m, select);
}

/* (op predicate list &key key) */
static Obj search_pred(Lisp *L, int nargs, Obj *args, int select, bool negate) {
    Obj keys[1] = {S(K_KEY)}, k[1];
    parse_keys(L, nargs, args, 2, 1, keys, k);
    Matcher m;
    matcher_init_pred(L, &m, args[0], k[0], negate);
    return list_search(L, args[1], &m, select);
}

DEFPRIM(prim_member) {
    if (nargs == 2) {
        /* the common case: EQL, no key */
        Obj item = args[0], list = check_list(L, args[1]);
        bool item_eq = !is_heap(item) || is_type(item, T_SYMBOL);
        Hare h;
        hare_init(&h, list);
        Obj x = list;
        while (is_cons(x)) {
            Obj e = CAR(x);
            if (e == item || (!item_eq && lisp_eql(item, e))) return x;
            x = CDR(x);
            if (is_cons(x)) hare_step(L, &h, x, list);
        }
        if (x != NIL) err_type(L, x, S(LIST));
        return NIL;
    }
    return search_item(L, nargs, args, 0);
}
DEFPRIM(prim_member_if) { return search_pred(L, nargs, args, 0, false); }
DEFPRIM(prim_member_if_not) { return search_pred(L, nargs, args, 0, true); }
DEFPRIM(prim_assoc) { return search_item(L, nargs, args, 1); }
DEFPRIM(prim_assoc_if) { return search_pred(L, nargs, args, 1, false); }
DEFPRIM(prim_assoc_if_not) { return search_pred(L, nargs, args, 1, true); }
DEFPRIM(prim_rassoc) { return search_item(L, nargs, args, 2); }
DEFPRIM(prim_rassoc_if) { return search_pred(L, nargs, args, 2, false); }
DEFPRIM(prim_rassoc_if_not) { return search_pred(L, nargs, args, 2, true); }

DEFPRIM(prim_acons) { UNUSED_ARGS; return cons(L, cons(L, args[0], args[1]), args[2]); }

DEFPRIM(prim_pairlis) {
    Obj keys = check_list(L, args[0]), data = check_list(L, args[1]);
    Obj r = nargs > 2 ? args[2] : NIL;
    size_t n1 = proper_list_length(L, keys), n2 = proper_list_length(L, data);
    if (n1 != n2) err_simple(L, "The lists of keys and data are of unequal length.");
    for (Obj k = keys, d = data; is_cons(k); k = CDR(k), d = CDR(d)) r = cons(L, cons(L, CAR(k), CAR(d)), r);
    return r;
}

/* ------------------------------------------------------------------ */
/* Sets: ADJOIN UNION INTERSECTION SET-DIFFERENCE SET-EXCLUSIVE-OR SUBSETP */

/* Membership of an already keyed value in a list, by (test k (key y)) or (test (key y) k). */
typedef struct SetIndex {
    const Matcher *m;
    Obj list;
    Obj table;          /* hash table of keys when the test allows it and the list is long, else NIL */
} SetIndex;

#define SET_HASH_MIN 20

static void set_index_init(Lisp *L, SetIndex *si, const Matcher *m, Obj list, size_t len) {
    si->m = m;
    si->list = list;
    si->table = NIL;
    HashTest ht;
    if (len >= SET_HASH_MIN && matcher_hashable(m, &ht)) {
        si->table = hash_new(L, ht, len);
        for (Obj y = list; is_cons(y); y = CDR(y)) hash_put(L, si->table, seq_apply_key(L, m->key, CAR(y)), S(T));
    }
}

/* Whether some y of the list satisfies the test; K_FIRST: (test k (key y)), else (test (key y) k). */
static bool set_index_has(Lisp *L, const SetIndex *si, Obj k, bool k_first) {
    if (si->table != NIL) return hash_get(L, si->table, k, NO_VALUE) != NO_VALUE;
    const Matcher *m = si->m;
    for (Obj y = si->list; is_cons(y); y = CDR(y)) {
        Obj ky = seq_apply_key(L, m->key, CAR(y));
        if (k_first ? matcher_test2(L, m, k, ky) : matcher_test2(L, m, ky, k)) return true;
    }
    return false;
}

static void set_matcher(Lisp *L, Matcher *m, int nargs, Obj *args, int first_key) {
    Obj keys[3] = {S(K_KEY), S(K_TEST), S(K_TEST_NOT)}, k[3];
    parse_keys(L, nargs, args, first_key, 3, keys, k);
    matcher_init_test(L, m, NIL, k[1], k[2], k[0], BOTH_ERROR_LIST);
}

DEFPRIM(prim_adjoin) {
    Matcher m;
    set_matcher(L, &m, nargs, args, 2);
    Obj item = args[0], list = check_list(L, args[1]);
    proper_list_length(L, list);
    Obj k = seq_apply_key(L, m.key, item);
    SetIndex si = {&m, list, NIL};
    if (set_index_has(L, &si, k, true)) return list;
    return cons(L, item, list);
}

static Obj set_union(Lisp *L, int nargs, Obj *args, bool destructive) {
    Matcher m;
    set_matcher(L, &m, nargs, args, 2);
    Obj l1 = check_list(L, args[0]), l2 = check_list(L, args[1]);
    size_t n1 = proper_list_length(L, l1), n2 = proper_list_length(L, l2);
    Obj base = n1 < n2 ? l1 : l2, other = n1 < n2 ? l2 : l1;
    SetIndex si;
    set_index_init(L, &si, &m, base, n1 < n2 ? n1 : n2);
    Obj r = base;
    for (Obj x = other; is_cons(x);) {
        Obj next = CDR(x);
        if (!set_index_has(L, &si, seq_apply_key(L, m.key, CAR(x)), true)) {
            if (destructive) { CDR(x) = r; r = x; }
            else r = cons(L, CAR(x), r);
        }
        x = next;
    }
    return r;
}
DEFPRIM(prim_union) { return set_union(L, nargs, args, false); }
DEFPRIM(prim_nunion) { return set_union(L, nargs, args, true); }

/* INTERSECTION (keep = true) and SET-DIFFERENCE (keep = false): the kept elements of list1,
 * in reverse order as SBCL gives them. */
static Obj set_filter(Lisp *L, int nargs, Obj *args, bool keep, bool destructive) {
    Matcher m;
    set_matcher(L, &m, nargs, args, 2);
    Obj l1 = check_list(L, args[0]), l2 = check_list(L, args[1]);
    proper_list_length(L, l1);
    size_t n2 = proper_list_length(L, l2);
    if (!keep && l2 == NIL) return destructive ? l1 : list_copy(L, l1);
    SetIndex si;
    set_index_init(L, &si, &m, l2, n2);
    Obj r = NIL;
    for (Obj x = l1; is_cons(x);) {
        Obj next = CDR(x);
        if (set_index_has(L, &si, seq_apply_key(L, m.key, CAR(x)), true) == keep) {
            if (destructive) { CDR(x) = r; r = x; }
            else r = cons(L, CAR(x), r);
        }
        x = next;
    }
    return r;
}
DEFPRIM(prim_intersection) { return set_filter(L, nargs, args, true, false); }
DEFPRIM(prim_nintersection) { return set_filter(L, nargs, args, true, true); }
DEFPRIM(prim_set_difference) { return set_filter(L, nargs, args, false, false); }
DEFPRIM(prim_nset_difference) { return set_filter(L, nargs, args, false, true); }

DEFPRIM(prim_set_exclusive_or) {
    Matcher m;
    set_matcher(L, &m, nargs, args, 2);
    Obj l1 = check_list(L, args[0]), l2 = check_list(L, args[1]);
    size_t n1 = proper_list_length(L, l1), n2 = proper_list_length(L, l2);
    SetIndex s1, s2;
    set_index_init(L, &s2, &m, l2, n2);
    set_index_init(L, &s1, &m, l1, n1);
    Obj r = NIL;
    for (Obj x = l1; is_cons(x); x = CDR(x))
        if (!set_index_has(L, &s2, seq_apply_key(L, m.key, CAR(x)), true)) r = cons(L, CAR(x), r);
    for (Obj y = l2; is_cons(y); y = CDR(y))
        if (!set_index_has(L, &s1, seq_apply_key(L, m.key, CAR(y)), false)) r = cons(L, CAR(y), r);
    return r;
}

DEFPRIM(prim_nset_exclusive_or) {
    Matcher m;
    set_matcher(L, &m, nargs, args, 2);
    Obj l1 = check_list(L, args[0]), l2 = check_list(L, args[1]);
    size_t n1 = proper_list_length(L, l1), n2 = proper_list_length(L, l2);
    uint8_t *f1 = (uint8_t *)gc_alloc_atomic(L, n1 + 1), *f2 = (uint8_t *)gc_alloc_atomic(L, n2 + 1);
    memset(f1, 0, n1 + 1);
    memset(f2, 0, n2 + 1);
    HashTest ht;
    if (n1 + n2 >= SET_HASH_MIN && matcher_hashable(&m, &ht)) {
        Obj t1 = hash_new(L, ht, n1), t2 = hash_new(L, ht, n2);
        for (Obj x = l1; is_cons(x); x = CDR(x)) hash_put(L, t1, seq_apply_key(L, m.key, CAR(x)), S(T));
        for (Obj y = l2; is_cons(y); y = CDR(y)) hash_put(L, t2, seq_apply_key(L, m.key, CAR(y)), S(T));
        size_t i = 0;
        for (Obj x = l1; is_cons(x); x = CDR(x), i++)
            f1[i] = hash_get(L, t2, seq_apply_key(L, m.key, CAR(x)), NO_VALUE) != NO_VALUE;
        i = 0;
        for (Obj y = l2; is_cons(y); y = CDR(y), i++)
            f2[i] = hash_get(L, t1, seq_apply_key(L, m.key, CAR(y)), NO_VALUE) != NO_VALUE;
    } else {
        size_t i = 0;
        for (Obj x = l1; is_cons(x); x = CDR(x), i++) {
            Obj kx = seq_apply_key(L, m.key, CAR(x));
            size_t j = 0;
            for (Obj y = l2; is_cons(y); y = CDR(y), j++)
                if (matcher_test2(L, &m, kx, seq_apply_key(L, m.key, CAR(y)))) f1[i] = f2[j] = 1;
        }
    }
    Obj head = NIL, tail = NIL;
    size_t i = 0;
    for (Obj x = l1; is_cons(x); i++) {
        Obj next = CDR(x);
        if (!f1[i]) {
            if (tail == NIL) head = x; else CDR(tail) = x;
            tail = x;
        }
        x = next;
    }
    i = 0;
    for (Obj y = l2; is_cons(y); i++) {
        Obj next = CDR(y);
        if (!f2[i]) {
            if (tail == NIL) head = y; else CDR(tail) = y;
            tail = y;
        }
        y = next;
    }
    if (tail != NIL) CDR(tail) = NIL;
    return head;
}

DEFPRIM(prim_subsetp) {
    Matcher m;
    set_matcher(L, &m, nargs, args, 2);
    Obj l1 = check_list(L, args[0]), l2 = check_list(L, args[1]);
    proper_list_length(L, l1);
    size_t n2 = proper_list_length(L, l2);
    SetIndex si;
    set_index_init(L, &si, &m, l2, n2);
    for (Obj x = l1; is_cons(x); x = CDR(x))
        if (!set_index_has(L, &si, seq_apply_key(L, m.key, CAR(x)), true)) return NIL;
    return S(T);
}

/* ------------------------------------------------------------------ */
/* Property lists                                                      */

/* The cons of PLIST whose car is INDICATOR (its cdr's car is the value), or NIL.
 * Signals for malformed (odd-length, dotted, circular) property lists. */
static Obj plist_find(Lisp *L, Obj plist, Obj indicator) {
    Hare h;
    hare_init(&h, plist);
    Obj x = plist;
    while (is_cons(x)) {
        Obj v = CDR(x);
        if (!is_cons(v)) {
            if (v == NIL) err_condition(L, S(SIMPLE_TYPE_ERROR),
                cons(L, S(K_DATUM), cons(L, plist, cons(L, S(K_EXPECTED_TYPE), cons(L, S(CONS),
                     cons(L, S(K_FORMAT_CONTROL), list3(L, string_from_cstr(L, "malformed property list: ~S"),
                          S(K_FORMAT_ARGUMENTS), list1(L, plist))))))));
            err_type(L, v, S(LIST));
        }
        if (CAR(x) == indicator) return x;
        x = CDR(v);
        if (is_cons(x)) {
            hare_step(L, &h, v, plist);
            hare_step(L, &h, x, plist);
        }
    }
    if (x != NIL) err_type(L, x, S(LIST));
    return NIL;
}

DEFPRIM(prim_getf) {
    Obj c = plist_find(L, check_list(L, args[0]), args[1]);
    if (c == NIL) return nargs > 2 ? args[2] : NIL;
    return CAR(CDR(c));
}

/* (%putf plist indicator value): the plist with the indicator's value set (modified in place
 * when present, else a fresh pair in front). */
DEFPRIM(prim_pct_putf) {
    UNUSED_ARGS;
    Obj plist = check_list(L, args[0]);
    Obj c = plist_find(L, plist, args[1]);
    if (c != NIL) {
        CAR(CDR(c)) = args[2];
        return plist;
    }
    return cons(L, args[1], cons(L, args[2], plist));
}

/* (%remf plist indicator): values the new plist and whether the indicator was found. */
DEFPRIM(prim_pct_remf) {
    UNUSED_ARGS;
    Obj plist = check_list(L, args[0]);
    Obj c = plist_find(L, plist, args[1]);
    if (c == NIL) return values2(L, plist, NIL);
    if (c == plist) return values2(L, CDR(CDR(plist)), S(T));
    Obj x = plist;
    while (CDR(CDR(x)) != c) x = CDR(CDR(x));
    CDR(CDR(x)) = CDR(CDR(c));
    return values2(L, plist, S(T));
}

DEFPRIM(prim_get_properties) {
    UNUSED_ARGS;
    Obj plist = check_list(L, args[0]), inds = check_list(L, args[1]);
    list_length_proper(L, inds);   /* a dotted or circular indicator list is a TYPE-ERROR */
    Hare h;
    hare_init(&h, plist);
    Obj x = plist;
    while (is_cons(x)) {
        Obj v = CDR(x);
        if (!is_cons(v)) err_type(L, v, S(CONS));
        for (Obj i = inds; is_cons(i); i = CDR(i))
            if (CAR(i) == CAR(x)) return values3(L, CAR(x), CAR(v), x);
        x = CDR(v);
        if (is_cons(x)) {
            hare_step(L, &h, v, plist);
            hare_step(L, &h, x, plist);
        }
    }
    if (x != NIL) err_type(L, x, S(LIST));
    return values3(L, NIL, NIL, NIL);
}

/* ------------------------------------------------------------------ */
/* Mapping: MAPCAR MAPC MAPCAN MAPLIST MAPL MAPCON                     */

typedef enum { MAP_LIST, MAP_DISCARD, MAP_NCONC } MapCollect;

/* MAPCAN/MAPCON's joining of results: conses are chained; an atom result becomes the tail
 * of the last cons (or the result when no cons came). */
typedef struct NconcBuilder { Obj head, tail, last; } NconcBuilder;
static void nb_add(Lisp *L, NconcBuilder *b, Obj r) {
    if (b->tail != NIL) CDR(b->tail) = r;
    b->last = r;
    if (is_cons(r)) {
        if (b->head == NIL) b->head = r;
        Hare h;
        hare_init(&h, r);
        Obj x = r;
        while (is_cons(CDR(x))) {
            x = CDR(x);
            hare_step(L, &h, x, r);
        }
        b->tail = x;
    }
}
static Obj nb_result(const NconcBuilder *b) { return b->head != NIL ? b->head : b->last; }

/* The element mappers: each call receives the elements. */
static Obj map_elements(Lisp *L, int nargs, Obj *args, MapCollect how) {
    Obj fn = coerce_function(L, args[0]);
    ListBuilder lb = {NIL, NIL};
    NconcBuilder nb = {NIL, NIL, NIL};
    if (nargs == 2) {
        Obj list = check_list(L, args[1]);
        Hare h;
        hare_init(&h, list);
        Obj x = list;
        while (is_cons(x)) {
            Obj e = CAR(x);
            Obj v = funcall(L, fn, 1, &e);
            if (how == MAP_LIST) lb_push(L, &lb, v);
            else if (how == MAP_NCONC) nb_add(L, &nb, v);
            x = CDR(x);
            if (is_cons(x)) hare_step(L, &h, x, list);
        }
        if (x != NIL) err_type(L, x, S(LIST));
    } else {
        int ns = nargs - 1;
        for (int i = 1; i < nargs; i++) check_list(L, args[i]);
        Obj small[8];
        Obj *tuple = arg_buffer(L, small, 8, ns);
        MultiIter it;
        mi_init(L, &it, ns, args + 1);
        while (mi_next(L, &it, tuple)) {
            Obj v = funcall(L, fn, ns, tuple);
            if (how == MAP_LIST) lb_push(L, &lb, v);
            else if (how == MAP_NCONC) nb_add(L, &nb, v);
        }
    }
    switch (how) {
    case MAP_LIST: return lb.head;
    case MAP_NCONC: return nb_result(&nb);
    default: return args[1];
    }
}

/* The tail mappers: each call receives the successive tails. */
static Obj map_tails(Lisp *L, int nargs, Obj *args, MapCollect how) {
    Obj fn = coerce_function(L, args[0]);
    int ns = nargs - 1;
    Obj small[8];
    Obj *tails = arg_buffer(L, small, 8, ns);
    for (int i = 0; i < ns; i++) tails[i] = check_list(L, args[i + 1]);
    Obj small2[8];
    Obj *call = arg_buffer(L, small2, 8, ns);
    ListBuilder lb = {NIL, NIL};
    NconcBuilder nb = {NIL, NIL, NIL};
    Hare h;
    hare_init(&h, tails[0]);
    bool watch = true;
    for (;;) {
        for (int i = 0; i < ns; i++) {
            if (!is_cons(tails[i])) {
                if (tails[i] != NIL) err_type(L, tails[i], S(LIST));
                goto done;
            }
            call[i] = tails[i];
        }
        Obj v = funcall(L, fn, ns, call);
        if (how == MAP_LIST) lb_push(L, &lb, v);
        else if (how == MAP_NCONC) nb_add(L, &nb, v);
        for (int i = 0; i < ns; i++) tails[i] = CDR(tails[i]);
        if (watch && is_cons(tails[0]) && hare_step_p(L, &h, tails[0])) {
            watch = false;
            bool finite = false;
            for (int i = 1; i < ns; i++)
                if (list_length_or_circular(tails[i]) >= 0) finite = true;
            if (!finite) err_circular_list(L, args[1]);
        }
    }
done:
    switch (how) {
    case MAP_LIST: return lb.head;
    case MAP_NCONC: return nb_result(&nb);
    default: return args[1];
    }
}

DEFPRIM(prim_mapcar) { return map_elements(L, nargs, args, MAP_LIST); }
DEFPRIM(prim_mapc) { return map_elements(L, nargs, args, MAP_DISCARD); }
DEFPRIM(prim_mapcan) { return map_elements(L, nargs, args, MAP_NCONC); }
DEFPRIM(prim_maplist) { return map_tails(L, nargs, args, MAP_LIST); }
DEFPRIM(prim_mapl) { return map_tails(L, nargs, args, MAP_DISCARD); }
DEFPRIM(prim_mapcon) { return map_tails(L, nargs, args, MAP_NCONC); }

const PrimDef list_prims[] = {
    {"CONS", PK_CL, prim_cons, 2, 2, 0, "(car cdr)", "A fresh cons."},
    {"CAR", PK_CL, prim_car, 1, 1, 0, "(list)", "The first element of LIST (NIL for NIL)."},
    {"CDR", PK_CL, prim_cdr, 1, 1, 0, "(list)", "The rest of LIST after its first element (NIL for NIL)."},
    {"FIRST", PK_CL, prim_car, 1, 1, 0, "(list)", "The first element of LIST."},
    {"REST", PK_CL, prim_cdr, 1, 1, 0, "(list)", "The tail of LIST after its first element."},
    {"SECOND", PK_CL, prim_cadr, 1, 1, 0, "(list)", "The second element of LIST."},
    {"THIRD", PK_CL, prim_third, 1, 1, 0, "(list)", "The third element of LIST."},
    {"FOURTH", PK_CL, prim_fourth, 1, 1, 0, "(list)", "The fourth element of LIST."},
    {"FIFTH", PK_CL, prim_fifth, 1, 1, 0, "(list)", "The fifth element of LIST."},
    {"SIXTH", PK_CL, prim_sixth, 1, 1, 0, "(list)", "The sixth element of LIST."},
    {"SEVENTH", PK_CL, prim_seventh, 1, 1, 0, "(list)", "The seventh element of LIST."},
    {"EIGHTH", PK_CL, prim_eighth, 1, 1, 0, "(list)", "The eighth element of LIST."},
    {"NINTH", PK_CL, prim_ninth, 1, 1, 0, "(list)", "The ninth element of LIST."},
    {"TENTH", PK_CL, prim_tenth, 1, 1, 0, "(list)", "The tenth element of LIST."},
    {"CAAR", PK_CL, prim_caar, 1, 1, 0, "(list)", "The same as (CAR (CAR LIST)); SETF-able."}, {"CADR", PK_CL, prim_cadr, 1, 1, 0, "(list)", "The same as (CAR (CDR LIST)) (the second element); SETF-able."},
    {"CDAR", PK_CL, prim_cdar, 1, 1, 0, "(list)", "The same as (CDR (CAR LIST)); SETF-able."}, {"CDDR", PK_CL, prim_cddr, 1, 1, 0, "(list)", "The same as (CDR (CDR LIST)) (the list without its first two elements); SETF-able."},
    {"CAAAR", PK_CL, prim_caaar, 1, 1, 0, "(list)", "The same as (CAR (CAR (CAR LIST))); SETF-able."}, {"CAADR", PK_CL, prim_caadr, 1, 1, 0, "(list)", "The same as (CAR (CAR (CDR LIST))); SETF-able."},
    {"CADAR", PK_CL, prim_cadar, 1, 1, 0, "(list)", "The same as (CAR (CDR (CAR LIST))); SETF-able."}, {"CADDR", PK_CL, prim_caddr, 1, 1, 0, "(list)", "The same as (CAR (CDR (CDR LIST))) (the third element); SETF-able."},
    {"CDAAR", PK_CL, prim_cdaar, 1, 1, 0, "(list)", "The same as (CDR (CAR (CAR LIST))); SETF-able."}, {"CDADR", PK_CL, prim_cdadr, 1, 1, 0, "(list)", "The same as (CDR (CAR (CDR LIST))); SETF-able."},
    {"CDDAR", PK_CL, prim_cddar, 1, 1, 0, "(list)", "The same as (CDR (CDR (CAR LIST))); SETF-able."}, {"CDDDR", PK_CL, prim_cdddr, 1, 1, 0, "(list)", "The same as (CDR (CDR (CDR LIST))) (the list without its first three elements); SETF-able."},
    {"CAAAAR", PK_CL, prim_caaaar, 1, 1, 0, "(list)", "The same as (CAR (CAR (CAR (CAR LIST)))); SETF-able."}, {"CAAADR", PK_CL, prim_caaadr, 1, 1, 0, "(list)", "The same as (CAR (CAR (CAR (CDR LIST)))); SETF-able."},
    {"CAADAR", PK_CL, prim_caadar, 1, 1, 0, "(list)", "The same as (CAR (CAR (CDR (CAR LIST)))); SETF-able."}, {"CAADDR", PK_CL, prim_caaddr, 1, 1, 0, "(list)", "The same as (CAR (CAR (CDR (CDR LIST)))); SETF-able."},
    {"CADAAR", PK_CL, prim_cadaar, 1, 1, 0, "(list)", "The same as (CAR (CDR (CAR (CAR LIST)))); SETF-able."}, {"CADADR", PK_CL, prim_cadadr, 1, 1, 0, "(list)", "The same as (CAR (CDR (CAR (CDR LIST)))); SETF-able."},
    {"CADDAR", PK_CL, prim_caddar, 1, 1, 0, "(list)", "The same as (CAR (CDR (CDR (CAR LIST)))); SETF-able."}, {"CADDDR", PK_CL, prim_cadddr, 1, 1, 0, "(list)", "The same as (CAR (CDR (CDR (CDR LIST)))) (the fourth element); SETF-able."},
    {"CDAAAR", PK_CL, prim_cdaaar, 1, 1, 0, "(list)", "The same as (CDR (CAR (CAR (CAR LIST)))); SETF-able."}, {"CDAADR", PK_CL, prim_cdaadr, 1, 1, 0, "(list)", "The same as (CDR (CAR (CAR (CDR LIST)))); SETF-able."},
    {"CDADAR", PK_CL, prim_cdadar, 1, 1, 0, "(list)", "The same as (CDR (CAR (CDR (CAR LIST)))); SETF-able."}, {"CDADDR", PK_CL, prim_cdaddr, 1, 1, 0, "(list)", "The same as (CDR (CAR (CDR (CDR LIST)))); SETF-able."},
    {"CDDAAR", PK_CL, prim_cddaar, 1, 1, 0, "(list)", "The same as (CDR (CDR (CAR (CAR LIST)))); SETF-able."}, {"CDDADR", PK_CL, prim_cddadr, 1, 1, 0, "(list)", "The same as (CDR (CDR (CAR (CDR LIST)))); SETF-able."},
    {"CDDDAR", PK_CL, prim_cdddar, 1, 1, 0, "(list)", "The same as (CDR (CDR (CDR (CAR LIST)))); SETF-able."}, {"CDDDDR", PK_CL, prim_cddddr, 1, 1, 0, "(list)", "The same as (CDR (CDR (CDR (CDR LIST)))) (the list without its first four elements); SETF-able."},
    {"LIST", PK_CL, prim_list, 0, REST, 0, "(&rest objects)", "A fresh list of OBJECTS."},
    {"LIST*", PK_CL, prim_list_star, 1, REST, 0, "(object &rest objects)", "Like LIST, but the last argument is the tail."},
    {"RPLACA", PK_CL, prim_rplaca, 2, 2, 0, "(cons object)", "Replace the car of CONS with OBJECT; returns CONS."},
    {"RPLACD", PK_CL, prim_rplacd, 2, 2, 0, "(cons object)", "Replace the cdr of CONS with OBJECT; returns CONS."},
    {"CONSP", PK_CL, prim_consp, 1, 1, 0, "(object)", "True if OBJECT is a cons."},
    {"LISTP", PK_CL, prim_listp, 1, 1, 0, "(object)", "True if OBJECT is a cons or NIL."},
    {"ATOM", PK_CL, prim_atom, 1, 1, 0, "(object)", "True if OBJECT is not a cons."},
    {"NULL", PK_CL, prim_null, 1, 1, 0, "(object)", "True if OBJECT is NIL."},
    {"NOT", PK_CL, prim_null, 1, 1, 0, "(object)", "True if OBJECT is NIL."},
    {"ENDP", PK_CL, prim_endp, 1, 1, 0, "(list)", "True if LIST is NIL; a TYPE-ERROR for a non-list."},
    {"NTH", PK_CL, prim_nth, 2, 2, 0, "(n list)", "The element of LIST at index N (NIL past the end)."},
    {"NTHCDR", PK_CL, prim_nthcdr, 2, 2, 0, "(n list)", "The tail of LIST after N cdrs."},
    {"APPEND", PK_CL, prim_append, 0, REST, 0, "(&rest lists)", "Concatenate LISTS; the last is shared."},
    {"NCONC", PK_CL, prim_nconc, 0, REST, 0, "(&rest lists)", "Destructively concatenate LISTS."},
    {"COPY-LIST", PK_CL, prim_copy_list, 1, 1, 0, "(list)", "A copy of the top-level conses of LIST; a dotted tail is kept."},
    {"LAST", PK_CL, prim_last, 1, 2, 0, "(list &optional n)", "The last N conses of LIST (default 1)."},
    {"LIST-LENGTH", PK_CL, prim_list_length, 1, 1, 0, "(list)", "Length of LIST, or NIL if it is circular."},
    {"MAKE-LIST", PK_CL, prim_make_list, 1, REST, 0, "(size &key initial-element)", "A fresh list of SIZE elements, each INITIAL-ELEMENT."},
    {"%SETF-CAR", PK_SYS, prim_pct_setf_car, 2, 2, 0, "(new cons)", NULL},
    {"%SETF-CDR", PK_SYS, prim_pct_setf_cdr, 2, 2, 0, "(new cons)", NULL},
    {"%SETF-CAAR", PK_SYS, prim_pct_setf_caar, 2, 2, 0, "(new list)", NULL},
    {"%SETF-CADR", PK_SYS, prim_pct_setf_cadr, 2, 2, 0, "(new list)", NULL},
    {"%SETF-CDAR", PK_SYS, prim_pct_setf_cdar, 2, 2, 0, "(new list)", NULL},
    {"%SETF-CDDR", PK_SYS, prim_pct_setf_cddr, 2, 2, 0, "(new list)", NULL},
    {"%SETF-CADDR", PK_SYS, prim_pct_setf_caddr, 2, 2, 0, "(new list)", NULL},
    {"%SETF-CDDDR", PK_SYS, prim_pct_setf_cdddr, 2, 2, 0, "(new list)", NULL},
    {"%SETF-CADDDR", PK_SYS, prim_pct_setf_cadddr, 2, 2, 0, "(new list)", NULL},
    {"%SETF-THIRD", PK_SYS, prim_pct_setf_third, 2, 2, 0, "(new list)", NULL},
    {"%SETF-FOURTH", PK_SYS, prim_pct_setf_fourth, 2, 2, 0, "(new list)", NULL},
    {"%SETF-FIFTH", PK_SYS, prim_pct_setf_fifth, 2, 2, 0, "(new list)", NULL},
    {"%SETF-SIXTH", PK_SYS, prim_pct_setf_sixth, 2, 2, 0, "(new list)", NULL},
    {"%SETF-SEVENTH", PK_SYS, prim_pct_setf_seventh, 2, 2, 0, "(new list)", NULL},
    {"%SETF-EIGHTH", PK_SYS, prim_pct_setf_eighth, 2, 2, 0, "(new list)", NULL},
    {"%SETF-NINTH", PK_SYS, prim_pct_setf_ninth, 2, 2, 0, "(new list)", NULL},
    {"%SETF-TENTH", PK_SYS, prim_pct_setf_tenth, 2, 2, 0, "(new list)", NULL},
    {"%SETF-NTH", PK_SYS, prim_pct_setf_nth, 3, 3, 0, "(new n list)", NULL},
    {"COPY-ALIST", PK_CL, prim_copy_alist, 1, 1, 0, "(alist)", "A copy of ALIST and of each of its pairs."},
    {"COPY-TREE", PK_CL, prim_copy_tree, 1, 1, 0, "(tree)", "A copy of TREE: every cons is copied."},
    {"TREE-EQUAL", PK_CL, prim_tree_equal, 2, REST, 0, "(tree-1 tree-2 &key test test-not)", "True if the trees have the same shape and their leaves satisfy TEST (default EQL)."},
    {"SUBST", PK_CL, prim_subst, 3, REST, 0, "(new old tree &key key test test-not)", "A copy of TREE with every subtree matching OLD replaced by NEW (unchanged subtrees are shared)."},
    {"SUBST-IF", PK_CL, prim_subst_if, 3, REST, 0, "(new predicate tree &key key)", "A copy of TREE with every subtree satisfying PREDICATE replaced by NEW."},
    {"SUBST-IF-NOT", PK_CL, prim_subst_if_not, 3, REST, 0, "(new predicate tree &key key)", "A copy of TREE with every subtree not satisfying PREDICATE replaced by NEW."},
    {"NSUBST", PK_CL, prim_nsubst, 3, REST, 0, "(new old tree &key key test test-not)", "Destructively replace the subtrees of TREE matching OLD by NEW."},
    {"NSUBST-IF", PK_CL, prim_nsubst_if, 3, REST, 0, "(new predicate tree &key key)", "Destructively replace the subtrees of TREE satisfying PREDICATE by NEW."},
    {"NSUBST-IF-NOT", PK_CL, prim_nsubst_if_not, 3, REST, 0, "(new predicate tree &key key)", "Destructively replace the subtrees of TREE not satisfying PREDICATE by NEW."},
    {"SUBLIS", PK_CL, prim_sublis, 2, REST, 0, "(alist tree &key key test test-not)", "A copy of TREE with each subtree that is a key of ALIST replaced by its value."},
    {"NSUBLIS", PK_CL, prim_nsublis, 2, REST, 0, "(alist tree &key key test test-not)", "Destructively replace each subtree of TREE that is a key of ALIST by its value."},
    {"BUTLAST", PK_CL, prim_butlast, 1, 2, 0, "(list &optional n)", "A copy of LIST without its last N conses (default 1)."},
    {"NBUTLAST", PK_CL, prim_nbutlast, 1, 2, 0, "(list &optional n)", "LIST without its last N conses, destructively."},
    {"LDIFF", PK_CL, prim_ldiff, 2, 2, 0, "(list object)", "A copy of the part of LIST before its tail OBJECT."},
    {"TAILP", PK_CL, prim_tailp, 2, 2, 0, "(object list)", "True if OBJECT is a tail of LIST (EQL on the terminating atom)."},
    {"REVAPPEND", PK_CL, prim_revappend, 2, 2, 0, "(list tail)", "The elements of LIST reversed, followed by TAIL."},
    {"NRECONC", PK_CL, prim_nreconc, 2, 2, 0, "(list tail)", "LIST reversed destructively, followed by TAIL."},
    {"MEMBER", PK_CL, prim_member, 2, REST, 0, "(item list &key key test test-not)", "The tail of LIST starting with the first element matching ITEM, or NIL."},
    {"MEMBER-IF", PK_CL, prim_member_if, 2, REST, 0, "(predicate list &key key)", "The tail of LIST starting with the first element satisfying PREDICATE."},
    {"MEMBER-IF-NOT", PK_CL, prim_member_if_not, 2, REST, 0, "(predicate list &key key)", "The tail of LIST starting with the first element not satisfying PREDICATE."},
    {"ASSOC", PK_CL, prim_assoc, 2, REST, 0, "(item alist &key key test test-not)", "The first pair of ALIST whose car matches ITEM."},
    {"ASSOC-IF", PK_CL, prim_assoc_if, 2, REST, 0, "(predicate alist &key key)", "The first pair of ALIST whose car satisfies PREDICATE."},
    {"ASSOC-IF-NOT", PK_CL, prim_assoc_if_not, 2, REST, 0, "(predicate alist &key key)", "The first pair of ALIST whose car does not satisfy PREDICATE."},
    {"RASSOC", PK_CL, prim_rassoc, 2, REST, 0, "(item alist &key key test test-not)", "The first pair of ALIST whose cdr matches ITEM."},
    {"RASSOC-IF", PK_CL, prim_rassoc_if, 2, REST, 0, "(predicate alist &key key)", "The first pair of ALIST whose cdr satisfies PREDICATE."},
    {"RASSOC-IF-NOT", PK_CL, prim_rassoc_if_not, 2, REST, 0, "(predicate alist &key key)", "The first pair of ALIST whose cdr does not satisfy PREDICATE."},
    {"ACONS", PK_CL, prim_acons, 3, 3, 0, "(key datum alist)", "ALIST with the pair (KEY . DATUM) added in front."},
    {"PAIRLIS", PK_CL, prim_pairlis, 2, 3, 0, "(keys data &optional alist)", "ALIST extended with the pairs of KEYS and DATA."},
    {"ADJOIN", PK_CL, prim_adjoin, 2, REST, 0, "(item list &key key test test-not)", "LIST with ITEM added in front unless an element already matches it."},
    {"UNION", PK_CL, prim_union, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "The elements of both lists, each once if the lists have no duplicates."},
    {"NUNION", PK_CL, prim_nunion, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "UNION, reusing the conses of the lists."},
    {"INTERSECTION", PK_CL, prim_intersection, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "The elements of LIST-1 that match some element of LIST-2."},
    {"NINTERSECTION", PK_CL, prim_nintersection, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "INTERSECTION, reusing the conses of LIST-1."},
    {"SET-DIFFERENCE", PK_CL, prim_set_difference, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "The elements of LIST-1 that match no element of LIST-2."},
    {"NSET-DIFFERENCE", PK_CL, prim_nset_difference, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "SET-DIFFERENCE, reusing the conses of LIST-1."},
    {"SET-EXCLUSIVE-OR", PK_CL, prim_set_exclusive_or, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "The elements of each list that match no element of the other."},
    {"NSET-EXCLUSIVE-OR", PK_CL, prim_nset_exclusive_or, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "SET-EXCLUSIVE-OR, reusing the conses of the lists."},
    {"SUBSETP", PK_CL, prim_subsetp, 2, REST, 0, "(list-1 list-2 &key key test test-not)", "True if every element of LIST-1 matches some element of LIST-2."},
    {"GETF", PK_CL, prim_getf, 2, 3, 0, "(plist indicator &optional default)", "The value of INDICATOR in the property list PLIST, or DEFAULT."},
    {"%PUTF", PK_SYS, prim_pct_putf, 3, 3, 0, "(plist indicator value)", NULL},
    {"%REMF", PK_SYS, prim_pct_remf, 2, 2, FN_MV, "(plist indicator)", NULL},
    {"GET-PROPERTIES", PK_CL, prim_get_properties, 2, 2, FN_MV, "(plist indicator-list)", "The first indicator of PLIST in INDICATOR-LIST: values indicator, value and the tail of PLIST."},
    {"MAPCAR", PK_CL, prim_mapcar, 2, REST, 0, "(function list &rest more-lists)", "A list of the results of FUNCTION on successive elements of the lists."},
    {"MAPC", PK_CL, prim_mapc, 2, REST, 0, "(function list &rest more-lists)", "Call FUNCTION on successive elements of the lists; returns the first list."},
    {"MAPCAN", PK_CL, prim_mapcan, 2, REST, 0, "(function list &rest more-lists)", "The results of FUNCTION on successive elements, joined with NCONC."},
    {"MAPLIST", PK_CL, prim_maplist, 2, REST, 0, "(function list &rest more-lists)", "A list of the results of FUNCTION on successive tails of the lists."},
    {"MAPL", PK_CL, prim_mapl, 2, REST, 0, "(function list &rest more-lists)", "Call FUNCTION on successive tails of the lists; returns the first list."},
    {"MAPCON", PK_CL, prim_mapcon, 2, REST, 0, "(function list &rest more-lists)", "The results of FUNCTION on successive tails, joined with NCONC."},
    {0},
};

void list_init(Lisp *L) { prims_register(L, list_prims); }
