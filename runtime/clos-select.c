/* clos-select.c: the parts of method selection and method addition that run for every cache
 * miss and every DEFMETHOD: the applicable methods of a call in precedence order (CLHS 7.6.6.1),
 * the method of a generic function with given qualifiers and specializers, and the positions and
 * EQL tables a generic function's dispatch cache keys on. stdlib-lisp/clos.lisp decides what they
 * are for (the effective method, replacing a method, emptying the cache); these are its loops,
 * which a load runs some thousand times. */
#include "prim.h"
#include "hash.h"
#include "list.h"
#include "array.h"
#include "clos.h"
#include "package.h"
#include "lstring.h"
#include "eval.h"

/* EQL specializers are instances of the class in SYS::*EQL-SPECIALIZER-CLASS* (clos.lisp). */
static inline bool eql_specializer_p(Obj s, Obj eqlcls) {
    return is_type(s, T_INSTANCE) && INST(s)->layout == eqlcls;
}

static inline bool memq(Obj x, Obj list) {
    for (; is_cons(list); list = CDR(list))
        if (CAR(list) == x) return true;
    return false;
}

/* The position of X in LIST, or -1. */
static inline long position_eq(Obj x, Obj list) {
    long i = 0;
    for (; is_cons(list); list = CDR(list), i++)
        if (CAR(list) == x) return i;
    return -1;
}

static Obj check_gf(Lisp *L, Obj gf) {
    if (!is_type(gf, T_FUNCALLABLE) || INST(gf)->nslots < GF_NSLOTS) err_type(L, gf, S(GENERIC_FUNCTION));
    return gf;
}

/* Whether method M applies to the required arguments REQ of classes CLS (N of them): each
 * specializer is an EQL specializer of an EQL argument or a class in the argument's class
 * precedence list. */
static bool method_applicable(Obj m, int n, const Obj *req, const Obj *cls, Obj eqlcls, Obj tcls) {
    int i = 0;
    for (Obj specs = INST(m)->slots[M_SPECIALIZERS]; is_cons(specs); specs = CDR(specs), i++) {
        Obj s = CAR(specs);
        Obj arg = i < n ? req[i] : NIL, c = i < n ? cls[i] : NIL;
        if (eql_specializer_p(s, eqlcls)) {
            if (!lisp_eql(INST(s)->slots[EQLS_OBJECT], arg)) return false;
        } else if (s != tcls) {
            if (!is_class_object(c) || !memq(s, INST(c)->slots[CL_CPL])) return false;
        }
    }
    return true;
}

/* Whether M1 precedes M2 for arguments of classes CLS, position by position in the argument
 * precedence order APO: an EQL specializer first, then the class earlier in the argument's
 * class precedence list (as %MORE-SPECIFIC-P in clos.lisp). */
static bool more_specific(Obj m1, Obj m2, Obj apo, int n, const Obj *cls, Obj eqlcls) {
    Obj sp1 = INST(m1)->slots[M_SPECIALIZERS], sp2 = INST(m2)->slots[M_SPECIALIZERS];
    for (; is_cons(apo); apo = CDR(apo)) {
        Obj p = CAR(apo);
        if (!is_fixnum(p) || FIXVAL(p) < 0) continue;
        size_t i = (size_t)FIXVAL(p);
        Obj s1 = list_nth(sp1, i), s2 = list_nth(sp2, i);
        if (s1 == s2) continue;
        if (eql_specializer_p(s1, eqlcls)) return true;
        if (eql_specializer_p(s2, eqlcls)) return false;
        Obj cpl = i < (size_t)n && is_class_object(cls[i]) ? INST(cls[i])->slots[CL_CPL] : NIL;
        long a = position_eq(s1, cpl), b = position_eq(s2, cpl);
        if (a < 0) a = 1000000;
        if (b < 0) b = 1000000;
        return a < b;
    }
    return false;
}

/* (sys:%applicable-methods gf arguments): the methods of GF applicable to ARGUMENTS, most
 * specific first; methods of equal precedence keep the function's order (newest first). A
 * missing required argument counts as NIL. */
DEFPRIM(prim_pct_applicable_methods) {
    UNUSED_ARGS;
    Obj *gs = INST(check_gf(L, args[0]))->slots;
    Obj nreq = gs[GF_NREQ];
    int n = is_fixnum(nreq) && FIXVAL(nreq) > 0 ? (int)FIXVAL(nreq) : 0;
    Obj small[16];
    Obj *req = n * 2 <= 16 ? small : (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)n * 2);
    Obj *cls = req + n;
    Obj a = args[1];
    for (int i = 0; i < n; i++) {
        if (!is_list(a)) err_type(L, a, S(LIST));
        req[i] = is_cons(a) ? CAR(a) : NIL;
        a = is_cons(a) ? CDR(a) : NIL;
        cls[i] = clos_class_of(L, req[i]);
    }
    Obj eqlcls = SYM(S(P_EQL_SPECIALIZER_CLASS))->value, tcls = SYM(S(P_T_CLASS))->value;
    size_t count = 0;
    for (Obj ms = gs[GF_METHODS]; is_cons(ms); ms = CDR(ms)) count++;
    Obj buf[32];
    Obj *v = count <= 32 ? buf : (Obj *)gc_alloc(L, sizeof(Obj) * count);
    size_t k = 0;
    for (Obj ms = gs[GF_METHODS]; is_cons(ms) && k < count; ms = CDR(ms))
        if (method_applicable(CAR(ms), n, req, cls, eqlcls, tcls)) v[k++] = CAR(ms);
    /* a stable insertion sort: the applicable methods of a call are few */
    Obj apo = gs[GF_APO];
    for (size_t i = 1; i < k; i++) {
        Obj x = v[i];
        size_t j = i;
        while (j > 0 && more_specific(x, v[j - 1], apo, n, cls, eqlcls)) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
    return list_from_array(L, (int)k, v);
}

/* Whether the specializer lists A and B are the same objects in the same order. */
static bool same_specializers(Obj a, Obj b) {
    for (; is_cons(a) && is_cons(b); a = CDR(a), b = CDR(b))
        if (CAR(a) != CAR(b)) return false;
    return !is_cons(a) && !is_cons(b);
}

/* (sys:%find-method-1 gf qualifiers specializers): GF's method with QUALIFIERS (EQUAL) and
 * SPECIALIZERS (the same objects), or NIL */
DEFPRIM(prim_pct_find_method_1) {
    UNUSED_ARGS;
    Obj *gs = INST(check_gf(L, args[0]))->slots;
    for (Obj ms = gs[GF_METHODS]; is_cons(ms); ms = CDR(ms)) {
        Obj *m = INST(CAR(ms))->slots;
        if (same_specializers(m[M_SPECIALIZERS], args[2]) && lisp_equal(L, m[M_QUALIFIERS], args[1]))
            return CAR(ms);
    }
    return NIL;
}

/* (sys:%update-gf-dispatch gf): after a change of GF's methods or lambda list, the positions its
 * cache keys on (the required arguments some method specializes on something other than T), a
 * table per position of its EQL specializers by object, and an empty cache */
static void update_gf_dispatch(Lisp *L, Obj gf) {
    Obj *gs = INST(gf)->slots;
    Obj nreq = gs[GF_NREQ];
    int n = is_fixnum(nreq) && FIXVAL(nreq) > 0 ? (int)FIXVAL(nreq) : 0;
    Obj eqlcls = SYM(S(P_EQL_SPECIALIZER_CLASS))->value, tcls = SYM(S(P_T_CLASS))->value;
    bool smallv[16];
    bool *specialized = n <= 16 ? smallv : (bool *)gc_alloc_atomic(L, (size_t)n);
    for (int i = 0; i < n; i++) specialized[i] = false;
    Obj tables = NIL;
    for (Obj ms = gs[GF_METHODS]; is_cons(ms); ms = CDR(ms)) {
        int i = 0;
        for (Obj sp = INST(CAR(ms))->slots[M_SPECIALIZERS]; is_cons(sp); sp = CDR(sp), i++) {
            Obj s = CAR(sp);
            if (i < n && s != tcls) specialized[i] = true;
            if (eql_specializer_p(s, eqlcls)) {
                if (tables == NIL) tables = make_vector(L, (size_t)n, NIL);
                if (i >= n) continue;
                Obj *cell = &VEC(tables)->data[i];
                if (*cell == NIL) *cell = hash_new(L, HT_EQL, 0);
                hash_put(L, *cell, INST(s)->slots[EQLS_OBJECT], s);
            }
        }
    }
    int k = 0;
    for (int i = 0; i < n; i++) k += specialized[i];
    Obj positions = make_vector(L, (size_t)k, NIL);
    for (int i = 0, j = 0; i < n; i++)
        if (specialized[i]) VEC(positions)->data[j++] = FIX(i);
    gs[GF_DISPATCH] = positions;
    gs[GF_EQL_TABLES] = tables;
    gs[GF_CACHE] = NIL;
}

DEFPRIM(prim_pct_update_gf_dispatch) {
    UNUSED_ARGS;
    update_gf_dispatch(L, check_gf(L, args[0]));
    return args[0];
}

/* After any change of GF's methods: its dispatch tables made again and its cache emptied, the
 * initargs epoch bumped for the functions whose methods decide the valid initargs and the
 * standard path of MAKE-INSTANCE (clos.lisp, %VALID-INITARGS), and the MOP told
 * (SYS::*METHODS-CHANGED-HOOK*, mop-protocols.lisp). */
static void methods_changed(Lisp *L, Obj gf) {
    update_gf_dispatch(L, gf);
    Obj name = INST(gf)->slots[GF_NAME];
    if (name == S(CLOS_MAKE_INSTANCE) || name == S(CLOS_ALLOCATE_INSTANCE) || name == S(CLOS_INITIALIZE_INSTANCE) ||
        name == S(CLOS_SHARED_INITIALIZE) || name == S(CLOS_REINITIALIZE_INSTANCE)) {
        Symbol *e = SYM(S(P_INITARGS_EPOCH));
        e->value = is_fixnum(e->value) ? FIX(FIXVAL(e->value) + 1) : FIX(0);
    }
    Obj hook = SYM(S(P_METHODS_CHANGED_HOOK))->value;
    if (hook != NIL && hook != UNBOUND) funcall1(L, hook, gf);
}

/* (sys:%methods-changed gf) */
DEFPRIM(prim_pct_methods_changed) {
    UNUSED_ARGS;
    methods_changed(L, check_gf(L, args[0]));
    return NIL;
}

static Obj plist_value(Obj plist, Obj key) {
    for (; is_cons(plist) && is_cons(CDR(plist)); plist = CDR(CDR(plist)))
        if (CAR(plist) == key) return CAR(CDR(plist));
    return NIL;
}

/* (sys:%emf-keys gf methods): the keywords a call of the effective method of METHODS accepts
 * (CLHS 7.6.5): the generic function's and those of each method, in that order, or T when any
 * of them allows other keys or none of them has &KEY. An element of a lambda list's shape
 * (%PARSE-LAMBDA-LIST-INFO: (nreq nopt restp keys-or-:NONE allow-other-keys-p)) is read in
 * place, from the generic function's info slot and each method's :INFO. */
DEFPRIM(prim_pct_emf_keys) {
    UNUSED_ARGS;
    Obj *gs = INST(check_gf(L, args[0]))->slots;
    Obj info = gs[GF_INFO];
    if (list_nth(info, 4) != NIL) return S(T);
    Obj keys = list_nth(info, 3);
    bool anykey = keys != S(K_NONE), copied = false;
    if (!anykey) keys = NIL;
    Obj last = NIL;
    for (Obj ms = args[1]; is_cons(ms); ms = CDR(ms)) {
        Obj m = CAR(ms);
        if (!is_type(m, T_INSTANCE) || INST(m)->nslots < M_NSLOTS) err_type(L, m, S(METHOD));
        Obj mi = plist_value(INST(m)->slots[M_PLIST], S(K_INFO));
        if (list_nth(mi, 4) != NIL) return S(T);
        Obj mk = list_nth(mi, 3);
        if (mk == S(K_NONE)) continue;
        anykey = true;
        for (; is_cons(mk); mk = CDR(mk)) {
            if (memq(CAR(mk), keys)) continue;
            if (!copied) {   /* the generic function's list is shared: extend a copy */
                keys = list_copy(L, keys);
                last = keys;
                while (is_cons(last) && is_cons(CDR(last))) last = CDR(last);
                copied = true;
            }
            Obj cell = cons(L, CAR(mk), NIL);
            if (is_cons(last)) CDR(last) = cell; else keys = cell;
            last = cell;
        }
    }
    return anykey ? keys : S(T);
}


/* (sys:%generic-function-p object): whether OBJECT is an instance of STANDARD-GENERIC-FUNCTION
 * or a subclass (its class's precedence list holds it) */
static bool generic_function_p(Lisp *L, Obj x) {
    if (!is_type(x, T_INSTANCE) && !is_type(x, T_FUNCALLABLE)) return false;
    Obj c = INST(x)->layout;
    return is_class_object(c) && memq(SYM(S(P_STANDARD_GENERIC_FUNCTION_CLASS))->value, INST(c)->slots[CL_CPL]);
}

DEFPRIM(prim_pct_generic_function_p) {
    UNUSED_ARGS;
    return boolean(L, generic_function_p(L, args[0]));
}

/* (sys:%existing-gf name): the generic function NAME (a symbol or (SETF symbol)) names, when
 * %ENSURE-GF (clos.lisp) would return it as it is: no function is traced and no program's method
 * of ENSURE-GENERIC-FUNCTION-USING-CLASS exists; else NIL, and %ENSURE-GF decides */
DEFPRIM(prim_pct_existing_gf) {
    UNUSED_ARGS;
    Obj name = args[0], f;
    if (SYM(S(P_TRACED_FUNCTIONS))->value != NIL || SYM(S(P_PROGRAM_ENSURE_GF_METHODS_P))->value != NIL) return NIL;
    if (is_type(name, T_SYMBOL)) {
        if (SYM(name)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)) return NIL;
        f = SYM(name)->function;
    } else if (is_cons(name) && CAR(name) == S(SETF) && is_cons(CDR(name)) && CDR(CDR(name)) == NIL &&
               is_type(CAR(CDR(name)), T_SYMBOL)) {
        f = SYM(CAR(CDR(name)))->setf_function;
    } else return NIL;
    return generic_function_p(L, f) ? f : NIL;
}

/* LIST without X, a new list up to X's last occurrence sharing the rest (the direct-method lists
 * are never changed in place: a reset or a capture keeps the old ones) */
static Obj remove_eq(Lisp *L, Obj x, Obj list) {
    Obj last = NIL;
    for (Obj l = list; is_cons(l); l = CDR(l))
        if (CAR(l) == x) last = l;
    if (last == NIL) return list;
    Obj head = NIL, tail = NIL;
    for (Obj l = list; l != CDR(last); l = CDR(l)) {
        if (CAR(l) == x) continue;
        Obj c = cons(L, CAR(l), NIL);
        if (tail == NIL) head = c; else CDR(tail) = c;
        tail = c;
    }
    if (tail == NIL) return CDR(last);
    CDR(tail) = CDR(last);
    return head;
}

/* (sys:%note-direct-method specializers method add): METHOD added to (ADD true) or removed from
 * the direct methods of each class and EQL specializer in SPECIALIZERS; an added method comes
 * first, once */
static void note_direct_method(Lisp *L, Obj specializers, Obj method, bool add) {
    Obj eqlcls = SYM(S(P_EQL_SPECIALIZER_CLASS))->value;
    for (Obj sp = specializers; is_cons(sp); sp = CDR(sp)) {
        Obj s = CAR(sp);
        Obj *slot;
        if (is_class_object(s)) slot = &INST(s)->slots[CL_DIRECT_METHODS];
        else if (eql_specializer_p(s, eqlcls)) slot = &INST(s)->slots[EQLS_DIRECT_METHODS];
        else continue;
        Obj old = *slot;
        bool there = memq(method, old);
        if (!there) { if (add) *slot = cons(L, method, old); }
        else if (add) *slot = cons(L, method, remove_eq(L, method, old));
        else *slot = remove_eq(L, method, old);
    }
}

DEFPRIM(prim_pct_note_direct_method) {
    UNUSED_ARGS;
    note_direct_method(L, args[0], args[1], args[2] != NIL);
    return NIL;
}

/* (sys:%cl-union-eq a b): A followed by the elements of B not in it (nor earlier in B), a new list */
DEFPRIM(prim_pct_cl_union_eq) {
    UNUSED_ARGS;
    Obj head = list_copy(L, args[0]), tail = head;
    while (is_cons(tail) && is_cons(CDR(tail))) tail = CDR(tail);
    for (Obj b = args[1]; is_cons(b); b = CDR(b)) {
        if (memq(CAR(b), head)) continue;
        Obj c = cons(L, CAR(b), NIL);
        if (is_cons(tail)) CDR(tail) = c; else head = c;
        tail = c;
    }
    return head;
}


/* (sys:%parse-lambda-list-info lambda-list) -> (nreq nopt restp keys aok-p), the shape of a
 * generic function's or a method's lambda list that congruence (CLHS 7.6.4) and the keyword check
 * of a call (7.6.5) compare: KEYS the keywords of its &KEY parameters, or :NONE without &KEY */
DEFPRIM(prim_pct_parse_lambda_list_info) {
    UNUSED_ARGS;
    enum { LL_REQ, LL_OPT, LL_REST, LL_KEY, LL_AOK, LL_AUX } state = LL_REQ;
    intptr_t nreq = 0, nopt = 0;
    bool restp = false, aok = false;
    Obj keys = S(K_NONE), last = NIL;
    for (Obj l = args[0]; is_cons(l); l = CDR(l)) {
        Obj x = CAR(l);
        if (x == S(AND_OPTIONAL)) state = LL_OPT;
        else if (x == S(AND_REST) || x == S(AND_BODY)) { state = LL_REST; restp = true; }
        else if (x == S(AND_KEY)) { state = LL_KEY; if (keys == S(K_NONE)) keys = NIL; }
        else if (x == S(AND_ALLOW_OTHER_KEYS)) { aok = true; state = LL_AOK; }
        else if (x == S(AND_AUX)) state = LL_AUX;
        else if (state == LL_REQ) nreq++;
        else if (state == LL_OPT) nopt++;
        else if (state == LL_KEY) {
            Obj spec = is_cons(x) ? CAR(x) : x;
            Obj key;
            if (is_cons(spec)) key = CAR(spec);
            else {
                check_symbol(L, spec);
                int st;
                key = package_intern_string(L, L->pkg_keyword, symbol_name(L, spec), &st);
            }
            Obj cell = cons(L, key, NIL);
            if (last == NIL) keys = cell; else CDR(last) = cell;
            last = cell;
        }
    }
    Obj r[5] = {FIX(nreq), FIX(nopt), boolean(L, restp), keys, boolean(L, aok)};
    return list_from_array(L, 5, r);
}

static inline bool takes_more_args(Lisp *L, Obj info) {   /* &REST or &KEY */
    return list_nth(info, 2) != NIL || list_nth(info, 3) != S(K_NONE);
}

/* (sys:%congruence-problem gf-info method-info): NIL when a method of the lambda-list shape
 * METHOD-INFO is congruent with a generic function of GF-INFO (CLHS 7.6.4), else why not: a
 * string, or the keyword of the generic function's that the method does not accept */
static Obj congruence_problem(Lisp *L, Obj g, Obj m) {
    Obj gr = list_nth(g, 0), mr = list_nth(m, 0), go = list_nth(g, 1), mo = list_nth(m, 1);
    if (!is_fixnum(gr) || !is_fixnum(mr) || !is_fixnum(go) || !is_fixnum(mo)) err_type(L, m, S(LIST));
    const char *why = NULL;
    if (FIXVAL(mr) < FIXVAL(gr)) why = "the method has fewer required arguments than the generic function";
    else if (FIXVAL(mr) > FIXVAL(gr)) why = "the method has more required arguments than the generic function";
    else if (FIXVAL(mo) < FIXVAL(go)) why = "the method has fewer optional arguments than the generic function";
    else if (FIXVAL(mo) > FIXVAL(go)) why = "the method has more optional arguments than the generic function";
    else if (takes_more_args(L, g) != takes_more_args(L, m))
        why = takes_more_args(L, g) ? "the method does not accept &REST or &KEY arguments while the generic function does"
                                 : "the method accepts &REST or &KEY arguments while the generic function does not";
    if (why) return string_from_cstr(L, why);
    Obj gk = list_nth(g, 3), mk = list_nth(m, 3);
    if (gk != S(K_NONE) && mk != S(K_NONE) && list_nth(m, 4) == NIL)
        for (; is_cons(gk); gk = CDR(gk))
            if (!memq(CAR(gk), mk)) return CAR(gk);
    return NIL;
}

DEFPRIM(prim_pct_congruence_problem) {
    UNUSED_ARGS;
    return congruence_problem(L, args[0], args[1]);
}


/* (sys:%make-method class qualifiers specializers lambda-list function fast-function doc): a
 * method of CLASS, not yet in a generic function; its plist holds :INFO, its lambda list's shape */
DEFPRIM(prim_pct_make_method) {
    UNUSED_ARGS;
    Obj m = clos_allocate_instance(L, args[0], INST_STANDARD);
    if (INST(m)->nslots < M_NSLOTS) err_type(L, args[0], S(CLASS));
    Obj *ms = INST(m)->slots;
    ms[M_GF] = NIL;
    ms[M_QUALIFIERS] = args[1];
    ms[M_SPECIALIZERS] = args[2];
    ms[M_LAMBDA_LIST] = args[3];
    ms[M_FUNCTION] = args[4];
    ms[M_FAST_FUNCTION] = args[5];
    ms[M_DOCUMENTATION] = args[6];
    ms[M_SLOT_NAME] = NIL;
    Obj info = prim_pct_parse_lambda_list_info(L, 1, args + 3);
    ms = INST(m)->slots;
    ms[M_PLIST] = list2(L, S(K_INFO), info);
    return m;
}

static Obj list_of(Lisp *L, Obj *v, int n) { return list_from_array(L, n, v); }

static Obj vec(Lisp *L, int n, const Obj *v) {
    Obj r = make_vector(L, (size_t)n, NIL);
    memcpy(VEC(r)->data, v, sizeof(Obj) * (size_t)n);
    return r;
}

_Noreturn static void invalid_qualifiers(Lisp *L, Obj gf, Obj m) {
    funcall2(L, S(P_INVALID_QUALIFIERS_ERROR), gf, m);
    err_simple(L, "invalid qualifiers of the method %S", m);
}

/* The cached form of an accessor method M alone: reading or writing the slot directly while the
 * instance's class stays as it is now (a standard, finalized class without the slot protocol),
 * or NIL (as %SLOT-ACCESSOR-EMF did in clos.lisp). */
static Obj slot_accessor_emf(Lisp *L, Obj m, Obj args, bool reader) {
    Obj object = reader ? (is_cons(args) ? CAR(args) : NIL)
                        : (is_cons(args) && is_cons(CDR(args)) ? CAR(CDR(args)) : NIL);
    Obj cls = clos_class_of(L, object);
    if (!is_class_object(cls)) return NIL;
    Obj *cs = INST(cls)->slots;
    if (cs[CL_KIND] != S(K_STANDARD) || cs[CL_FINALIZED] == NIL || (INST(cls)->h.flags & INST_SLOT_PROTOCOL))
        return NIL;
    Obj loc = clos_slot_location(cls, INST(m)->slots[M_SLOT_NAME]);
    if (loc == NIL) return NIL;
    Obj v[4] = {FIX(reader ? EMF_READER : EMF_WRITER), cls, loc, INST(m)->slots[M_FAST_FUNCTION]};
    return vec(L, 4, v);
}

/* (sys:%standard-emf gf methods arguments): the effective method of the standard method
 * combination (CLHS 7.6.6.2) of METHODS, most specific first, for a call with ARGUMENTS, in the
 * forms runtime/clos.c runs (clos.lisp, above %EMF-KEYS): an accessor method alone as a slot
 * access, a method alone that never calls the next method as its function, else a chain */
DEFPRIM(prim_pct_standard_emf) {
    UNUSED_ARGS;
    Obj gf = args[0];
    Obj *gs = INST(check_gf(L, gf))->slots;
    int n = 0;
    for (Obj l = args[1]; is_cons(l); l = CDR(l)) n++;
    Obj *v = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(4 * n + 1));
    Obj *arounds = v, *befores = v + n, *primaries = v + 2 * n, *afters = v + 3 * n;
    int na = 0, nb = 0, np = 0, nf = 0;
    for (Obj l = args[1]; is_cons(l); l = CDR(l)) {
        Obj m = CAR(l);
        if (!is_type(m, T_INSTANCE) || INST(m)->nslots < M_NSLOTS) err_type(L, m, S(METHOD));
        Obj q = INST(m)->slots[M_QUALIFIERS];
        if (q == NIL) primaries[np++] = m;
        else if (!is_cons(q) || CDR(q) != NIL) invalid_qualifiers(L, gf, m);
        else if (CAR(q) == S(K_AROUND)) arounds[na++] = m;
        else if (CAR(q) == S(K_BEFORE)) befores[nb++] = m;
        else if (CAR(q) == S(K_AFTER)) afters[nf++] = m;
        else invalid_qualifiers(L, gf, m);
    }
    Obj two[2] = {gf, args[1]};
    Obj keys = prim_pct_emf_keys(L, 2, two);
    Obj info = gs[GF_INFO];
    Obj nreq = list_nth(info, 0), nopt = list_nth(info, 1);
    Obj start = FIX((is_fixnum(nreq) ? FIXVAL(nreq) : 0) + (is_fixnum(nopt) ? FIXVAL(nopt) : 0));
    if (na == 0 && nb == 0 && nf == 0) {
        if (np == 1 && keys == S(T)) {
            Obj *ms = INST(primaries[0])->slots;
            if (ms[M_SLOT_NAME] != NIL) {
                Obj emf = slot_accessor_emf(L, primaries[0], args[2],
                                            INST(primaries[0])->layout == SYM(S(P_STANDARD_READER_METHOD_CLASS))->value);
                if (emf != NIL) return emf;
            }
            if (ms[M_FAST_FUNCTION] != NIL) return ms[M_FAST_FUNCTION];
        }
        Obj c[4] = {FIX(EMF_CHAIN), list_of(L, primaries, np), keys, start};
        return vec(L, 4, c);
    }
    /* afters run least specific first */
    Obj bl = NIL, al = NIL;
    for (int i = nb - 1; i >= 0; i--) bl = cons(L, list1(L, befores[i]), bl);
    for (int i = 0; i < nf; i++) al = cons(L, list1(L, afters[i]), al);
    Obj in[5] = {FIX(EMF_INNER), bl, list_of(L, primaries, np), al, gf};
    arounds[na] = vec(L, 5, in);
    Obj c[4] = {FIX(EMF_CHAIN), list_of(L, arounds, na + 1), keys, start};
    return vec(L, 4, c);
}


/* (sys:%add-method gf method): METHOD added to GF (CLHS ADD-METHOD), replacing the method of the
 * same qualifiers and specializers; an incongruent lambda list goes to clos.lisp's
 * %CHECK-CONGRUENCE, which signals, or gives a function made without a lambda list its first
 * method's; the dependents of AMOP 5.5 are told (SYS::*METAOBJECT-CHANGED-HOOK*) */
DEFPRIM(prim_pct_add_method) {
    UNUSED_ARGS;
    Obj gf = check_gf(L, args[0]), method = args[1];
    if (!is_type(method, T_INSTANCE) || INST(method)->nslots < M_NSLOTS) err_type(L, method, S(METHOD));
    Obj owner = INST(method)->slots[M_GF];
    if (owner != NIL && owner != gf) funcall2(L, S(P_METHOD_IN_ANOTHER_GF), method, owner);
    Obj why = congruence_problem(L, INST(gf)->slots[GF_INFO], plist_value(INST(method)->slots[M_PLIST], S(K_INFO)));
    if (why != NIL) funcall2(L, S(P_CHECK_CONGRUENCE), gf, method);
    Obj *gs = INST(gf)->slots, *ms = INST(method)->slots;
    Obj old = NIL;
    for (Obj l = gs[GF_METHODS]; is_cons(l); l = CDR(l)) {
        Obj *o = INST(CAR(l))->slots;
        if (same_specializers(o[M_SPECIALIZERS], ms[M_SPECIALIZERS]) && lisp_equal(L, o[M_QUALIFIERS], ms[M_QUALIFIERS])) {
            old = CAR(l);
            break;
        }
    }
    if (old != NIL) {
        gs[GF_METHODS] = remove_eq(L, old, gs[GF_METHODS]);
        note_direct_method(L, INST(old)->slots[M_SPECIALIZERS], old, false);
        INST(old)->slots[M_GF] = NIL;
    }
    ms[M_GF] = gf;
    gs[GF_METHODS] = cons(L, method, gs[GF_METHODS]);
    note_direct_method(L, ms[M_SPECIALIZERS], method, true);
    methods_changed(L, gf);
    Obj hook = SYM(S(P_METAOBJECT_CHANGED_HOOK))->value;
    if (hook != NIL && hook != UNBOUND) funcall2(L, hook, gf, list2(L, S(CLOS_ADD_METHOD), method));
    return gf;
}

/* (sys:%resolve-specializers names) -> the specializers DEFMETHOD's specializer names designate:
 * classes and EQL specializers as they are, a symbol naming a class that class, anything else
 * through clos.lisp's %RESOLVE-SPECIALIZER (EQL forms, errors) */
DEFPRIM(prim_pct_resolve_specializers) {
    UNUSED_ARGS;
    Obj eqlcls = SYM(S(P_EQL_SPECIALIZER_CLASS))->value;
    Obj table = SYM(S(P_CLASS_TABLE))->value;
    Obj head = NIL, tail = NIL;
    for (Obj l = args[0]; is_cons(l); l = CDR(l)) {
        Obj s = CAR(l), r = NO_VALUE;
        if (is_class_object(s) || eql_specializer_p(s, eqlcls)) r = s;
        else if (is_symbol(s) && is_type(table, T_HASHTABLE)) {
            Obj c = hash_get(L, table, s, NIL);
            if (is_class_object(c)) r = c;
        }
        if (r == NO_VALUE) r = funcall1(L, S(P_RESOLVE_SPECIALIZER), s);
        Obj cell = cons(L, r, NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        tail = cell;
    }
    return head;
}


const PrimDef clos_select_prims[] = {
    {"%APPLICABLE-METHODS", PK_SYS, prim_pct_applicable_methods, 2, 2, 0, "(gf arguments)", NULL},
    {"%FIND-METHOD-1", PK_SYS, prim_pct_find_method_1, 3, 3, 0, "(gf qualifiers specializers)", NULL},
    {"%EMF-KEYS", PK_SYS, prim_pct_emf_keys, 2, 2, 0, "(gf methods)", NULL},
    {"%GENERIC-FUNCTION-P", PK_SYS, prim_pct_generic_function_p, 1, 1, 0, "(object)", NULL},
    {"%EXISTING-GF", PK_SYS, prim_pct_existing_gf, 1, 1, 0, "(name)", NULL},
    {"%NOTE-DIRECT-METHOD", PK_SYS, prim_pct_note_direct_method, 3, 3, 0, "(specializers method add)", NULL},
    {"%CL-UNION-EQ", PK_SYS, prim_pct_cl_union_eq, 2, 2, 0, "(a b)", NULL},
    {"%PARSE-LAMBDA-LIST-INFO", PK_SYS, prim_pct_parse_lambda_list_info, 1, 1, 0, "(lambda-list)", NULL},
    {"%CONGRUENCE-PROBLEM", PK_SYS, prim_pct_congruence_problem, 2, 2, 0, "(gf-info method-info)", NULL},
    {"%MAKE-METHOD", PK_SYS, prim_pct_make_method, 7, 7, 0, "(class qualifiers specializers lambda-list function fast-function doc)", NULL},
    {"%STANDARD-EMF", PK_SYS, prim_pct_standard_emf, 3, 3, 0, "(gf methods arguments)", NULL},
    {"%METHODS-CHANGED", PK_SYS, prim_pct_methods_changed, 1, 1, 0, "(gf)", NULL},
    {"%ADD-METHOD", PK_SYS, prim_pct_add_method, 2, 2, 0, "(gf method)", NULL},
    {"%RESOLVE-SPECIALIZERS", PK_SYS, prim_pct_resolve_specializers, 1, 1, 0, "(names)", NULL},
    {"%UPDATE-GF-DISPATCH", PK_SYS, prim_pct_update_gf_dispatch, 1, 1, 0, "(gf)", NULL},
    {0},
};

void clos_select_init(Lisp *L) {
    prims_register(L, clos_select_prims);
}
