/* list.c: conses and lists (CLHS chapter 14): construction, access, and the list functions in C. */
#include "list.h"
#include "prim.h"
#include "hash.h"
#include "eval.h"

Obj list_from_array(Lisp *L, int n, Obj *v) {
    Obj r = NIL;
    for (int i = n - 1; i >= 0; i--) r = cons(L, v[i], r);
    return r;
}

size_t list_length_proper(Lisp *L, Obj l) {
    size_t n = 0;
    Obj slow = l;
    for (Obj x = l; x != NIL; x = CDR(x)) {
        if (!is_cons(x)) err_type(L, l, S(LIST));
        n++;
        if ((n & 1) == 0) {
            slow = CDR(slow);
            if (slow == CDR(x) && CDR(x) != NIL) err_type(L, l, S(LIST));
        }
    }
    return n;
}

Obj list_reverse(Lisp *L, Obj l) {
    Obj r = NIL;
    for (Obj x = l; x != NIL; x = CDR(x)) {
        if (!is_cons(x)) err_type(L, l, S(LIST));
        r = cons(L, CAR(x), r);
    }
    return r;
}

Obj list_copy(Lisp *L, Obj l) {
    Obj head = NIL, tail = NIL;
    Obj x = l;
    for (; is_cons(x); x = CDR(x)) {
        Obj c = cons(L, CAR(x), NIL);
        if (tail == NIL) head = c; else CDR(tail) = c;
        tail = c;
    }
    if (tail != NIL) CDR(tail) = x;
    else head = x;
    return head;
}

Obj list_nth(Obj l, size_t n) {
    while (n-- && is_cons(l)) l = CDR(l);
    return is_cons(l) ? CAR(l) : NIL;
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

DEFPRIM(prim_nth) {
    UNUSED_ARGS;
    size_t n = check_index(L, args[0]);
    Obj l = args[1];
    for (; n > 0 && l != NIL; n--) l = cdr_of(L, l);
    return car_of(L, l);
}

DEFPRIM(prim_nthcdr) {
    UNUSED_ARGS;
    size_t n = check_index(L, args[0]);
    Obj l = args[1];
    for (; n > 0 && l != NIL; n--) {
        l = cdr_of(L, l);
        if ((n & 0xFFFF) == 0) safe_point(L);
    }
    return l;
}

DEFPRIM(prim_append) {
    if (nargs == 0) return NIL;
    Obj head = NIL, tail = NIL;
    for (int i = 0; i < nargs - 1; i++) {
        Obj x;
        for (x = args[i]; is_cons(x); x = CDR(x)) {
            Obj c = cons(L, CAR(x), NIL);
            if (tail == NIL) head = c; else CDR(tail) = c;
            tail = c;
        }
        if (x != NIL) err_type(L, args[i], S(LIST));
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
        while (is_cons(CDR(x))) x = CDR(x);
        tail = x;
    }
    return head;
}

DEFPRIM(prim_copy_list) { UNUSED_ARGS; return list_copy(L, check_list(L, args[0])); }

DEFPRIM(prim_last) {
    Obj l = check_list(L, args[0]);
    size_t n = nargs > 1 ? check_index(L, args[1]) : 1;
    /* the last n conses: advance a lead pointer n conses first */
    Obj lead = l;
    for (size_t i = 0; i < n && is_cons(lead); i++) lead = CDR(lead);
    while (is_cons(lead)) { lead = CDR(lead); l = CDR(l); }
    return l;
}

DEFPRIM(prim_list_length) {
    UNUSED_ARGS;
    Obj l = check_list(L, args[0]);
    size_t n = 0;
    Obj fast = l, slow = l;
    for (;;) {
        if (fast == NIL) return FIX((intptr_t)n);
        if (!is_cons(fast)) err_type(L, args[0], S(LIST));
        fast = CDR(fast);
        n++;
        if (fast == NIL) return FIX((intptr_t)n);
        if (!is_cons(fast)) err_type(L, args[0], S(LIST));
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
    gc_check_request(L, n * sizeof(Cons));
    Obj r = NIL;
    for (size_t i = 0; i < n; i++) r = cons(L, init, r);
    return r;
}

static const PrimDef list_prims[] = {
    {"CONS", PK_CL, prim_cons, 2, 2, 0, "(car cdr)", "A fresh cons."},
    {"CAR", PK_CL, prim_car, 1, 1, 0, "(list)", NULL},
    {"CDR", PK_CL, prim_cdr, 1, 1, 0, "(list)", NULL},
    {"FIRST", PK_CL, prim_car, 1, 1, 0, "(list)", NULL},
    {"REST", PK_CL, prim_cdr, 1, 1, 0, "(list)", NULL},
    {"SECOND", PK_CL, prim_cadr, 1, 1, 0, "(list)", NULL},
    {"THIRD", PK_CL, prim_third, 1, 1, 0, "(list)", NULL},
    {"FOURTH", PK_CL, prim_fourth, 1, 1, 0, "(list)", NULL},
    {"FIFTH", PK_CL, prim_fifth, 1, 1, 0, "(list)", NULL},
    {"SIXTH", PK_CL, prim_sixth, 1, 1, 0, "(list)", NULL},
    {"SEVENTH", PK_CL, prim_seventh, 1, 1, 0, "(list)", NULL},
    {"EIGHTH", PK_CL, prim_eighth, 1, 1, 0, "(list)", NULL},
    {"NINTH", PK_CL, prim_ninth, 1, 1, 0, "(list)", NULL},
    {"TENTH", PK_CL, prim_tenth, 1, 1, 0, "(list)", NULL},
    {"CAAR", PK_CL, prim_caar, 1, 1, 0, "(list)", NULL}, {"CADR", PK_CL, prim_cadr, 1, 1, 0, "(list)", NULL},
    {"CDAR", PK_CL, prim_cdar, 1, 1, 0, "(list)", NULL}, {"CDDR", PK_CL, prim_cddr, 1, 1, 0, "(list)", NULL},
    {"CAAAR", PK_CL, prim_caaar, 1, 1, 0, "(list)", NULL}, {"CAADR", PK_CL, prim_caadr, 1, 1, 0, "(list)", NULL},
    {"CADAR", PK_CL, prim_cadar, 1, 1, 0, "(list)", NULL}, {"CADDR", PK_CL, prim_caddr, 1, 1, 0, "(list)", NULL},
    {"CDAAR", PK_CL, prim_cdaar, 1, 1, 0, "(list)", NULL}, {"CDADR", PK_CL, prim_cdadr, 1, 1, 0, "(list)", NULL},
    {"CDDAR", PK_CL, prim_cddar, 1, 1, 0, "(list)", NULL}, {"CDDDR", PK_CL, prim_cdddr, 1, 1, 0, "(list)", NULL},
    {"CAAAAR", PK_CL, prim_caaaar, 1, 1, 0, "(list)", NULL}, {"CAAADR", PK_CL, prim_caaadr, 1, 1, 0, "(list)", NULL},
    {"CAADAR", PK_CL, prim_caadar, 1, 1, 0, "(list)", NULL}, {"CAADDR", PK_CL, prim_caaddr, 1, 1, 0, "(list)", NULL},
    {"CADAAR", PK_CL, prim_cadaar, 1, 1, 0, "(list)", NULL}, {"CADADR", PK_CL, prim_cadadr, 1, 1, 0, "(list)", NULL},
    {"CADDAR", PK_CL, prim_caddar, 1, 1, 0, "(list)", NULL}, {"CADDDR", PK_CL, prim_cadddr, 1, 1, 0, "(list)", NULL},
    {"CDAAAR", PK_CL, prim_cdaaar, 1, 1, 0, "(list)", NULL}, {"CDAADR", PK_CL, prim_cdaadr, 1, 1, 0, "(list)", NULL},
    {"CDADAR", PK_CL, prim_cdadar, 1, 1, 0, "(list)", NULL}, {"CDADDR", PK_CL, prim_cdaddr, 1, 1, 0, "(list)", NULL},
    {"CDDAAR", PK_CL, prim_cddaar, 1, 1, 0, "(list)", NULL}, {"CDDADR", PK_CL, prim_cddadr, 1, 1, 0, "(list)", NULL},
    {"CDDDAR", PK_CL, prim_cdddar, 1, 1, 0, "(list)", NULL}, {"CDDDDR", PK_CL, prim_cddddr, 1, 1, 0, "(list)", NULL},
    {"LIST", PK_CL, prim_list, 0, REST, 0, "(&rest objects)", "A fresh list of OBJECTS."},
    {"LIST*", PK_CL, prim_list_star, 1, REST, 0, "(object &rest objects)", "Like LIST, but the last argument is the tail."},
    {"RPLACA", PK_CL, prim_rplaca, 2, 2, 0, "(cons object)", NULL},
    {"RPLACD", PK_CL, prim_rplacd, 2, 2, 0, "(cons object)", NULL},
    {"CONSP", PK_CL, prim_consp, 1, 1, 0, "(object)", NULL},
    {"LISTP", PK_CL, prim_listp, 1, 1, 0, "(object)", NULL},
    {"ATOM", PK_CL, prim_atom, 1, 1, 0, "(object)", NULL},
    {"NULL", PK_CL, prim_null, 1, 1, 0, "(object)", NULL},
    {"NOT", PK_CL, prim_null, 1, 1, 0, "(object)", NULL},
    {"ENDP", PK_CL, prim_endp, 1, 1, 0, "(list)", NULL},
    {"NTH", PK_CL, prim_nth, 2, 2, 0, "(n list)", NULL},
    {"NTHCDR", PK_CL, prim_nthcdr, 2, 2, 0, "(n list)", NULL},
    {"APPEND", PK_CL, prim_append, 0, REST, 0, "(&rest lists)", "Concatenate LISTS; the last is shared."},
    {"NCONC", PK_CL, prim_nconc, 0, REST, 0, "(&rest lists)", "Destructively concatenate LISTS."},
    {"COPY-LIST", PK_CL, prim_copy_list, 1, 1, 0, "(list)", NULL},
    {"LAST", PK_CL, prim_last, 1, 2, 0, "(list &optional n)", NULL},
    {"LIST-LENGTH", PK_CL, prim_list_length, 1, 1, 0, "(list)", "Length of LIST, or NIL if it is circular."},
    {"MAKE-LIST", PK_CL, prim_make_list, 1, REST, 0, "(size &key initial-element)", NULL},
    {0},
};

void list_init(Lisp *L) { prims_register(L, list_prims); }
