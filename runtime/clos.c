/* clos.c: CLOS support in C: CLASS-OF, generic-function dispatch through per-function caches,
 * effective methods, slot access and the allocation of instances. The policy (classes, method
 * selection, initialization protocols) is in stdlib-lisp/clos.lisp; see clos.h for the layouts. */
#include "prim.h"
#include "eval.h"
#include "hash.h"
#include "list.h"
#include "array.h"
#include "stream.h"
#include "clos.h"
#include "lstring.h"
#include "package.h"
#include "logical.h"

/* ------------------------------------------------------------------ */
/* Built-in classes: clos.lisp fills *BUILT-IN-CLASS-TABLE* by name     */

#define BUILTIN_CLASSES(X)                                                        \
    X(T, "T") X(FIXNUM, "FIXNUM") X(BIGNUM, "BIGNUM") X(RATIO, "RATIO")           \
    X(SINGLE_FLOAT, "SINGLE-FLOAT") X(DOUBLE_FLOAT, "DOUBLE-FLOAT")               \
    X(COMPLEX, "COMPLEX") X(CHARACTER, "CHARACTER") X(SYMBOL, "SYMBOL")          \
    X(NULL, "NULL") X(CONS, "CONS") X(STRING, "STRING")                           \
    X(SIMPLE_STRING, "SIMPLE-STRING") X(BASE_STRING, "BASE-STRING")               \
    X(SIMPLE_BASE_STRING, "SIMPLE-BASE-STRING") X(VECTOR, "VECTOR")               \
    X(SIMPLE_VECTOR, "SIMPLE-VECTOR") X(BIT_VECTOR, "BIT-VECTOR")                 \
    X(SIMPLE_BIT_VECTOR, "SIMPLE-BIT-VECTOR") X(ARRAY, "ARRAY")                   \
    X(SIMPLE_ARRAY, "SIMPLE-ARRAY") X(HASH_TABLE, "HASH-TABLE")                   \
    X(PACKAGE, "PACKAGE") X(FUNCTION, "FUNCTION") X(STREAM, "STREAM")             \
    X(FILE_STREAM, "FILE-STREAM") X(STRING_STREAM, "STRING-STREAM")               \
    X(BROADCAST_STREAM, "BROADCAST-STREAM")                                       \
    X(CONCATENATED_STREAM, "CONCATENATED-STREAM") X(ECHO_STREAM, "ECHO-STREAM")   \
    X(SYNONYM_STREAM, "SYNONYM-STREAM") X(TWO_WAY_STREAM, "TWO-WAY-STREAM")       \
    X(READTABLE, "READTABLE") X(RANDOM_STATE, "RANDOM-STATE")                     \
    X(PATHNAME, "PATHNAME") X(LOGICAL_PATHNAME, "LOGICAL-PATHNAME")

enum {
#define X(e, n) BC_##e,
    BUILTIN_CLASSES(X)
#undef X
    BC_COUNT
};

static const char *const builtin_class_names[BC_COUNT] = {
#define X(e, n) n,
    BUILTIN_CLASSES(X)
#undef X
};

static int array_class_index(Obj o) {
    HeapType t = heap_type(o);
    unsigned flags = ((Header *)o)->flags;
    bool simple = !(flags & (ARR_FILL_POINTER | ARR_ADJUSTABLE | ARR_DISPLACED));
    switch (t) {
    case T_STRING:
        if (flags & ARR_BASE) return simple ? BC_SIMPLE_BASE_STRING : BC_BASE_STRING;
        return simple ? BC_SIMPLE_STRING : BC_STRING;
    case T_VECTOR: return BC_SIMPLE_VECTOR;
    case T_BITVECTOR: return simple ? BC_SIMPLE_BIT_VECTOR : BC_BIT_VECTOR;
    default: break;
    }
    Array *a = ARR(o);
    if (a->h.aux == 1) {
        switch ((EltType)a->h.aux32) {
        case ELT_CHARACTER: return (flags & ARR_BASE) ? BC_BASE_STRING : BC_STRING;
        case ELT_BIT: return BC_BIT_VECTOR;
        default: return BC_VECTOR;
        }
    }
    return simple ? BC_SIMPLE_ARRAY : BC_ARRAY;
}

static int stream_class_index(Obj o) {
    Stream *s = STREAM(o);
    switch ((StreamKind)s->h.aux) {
    case SK_FD: return BC_FILE_STREAM;      /* the standard streams too, as SBCL's FD-STREAMs */
    case SK_STRING_IN: case SK_STRING_OUT: case SK_STRING_FILL: return BC_STRING_STREAM;
    case SK_SYNONYM: return BC_SYNONYM_STREAM;
    case SK_BROADCAST: return BC_BROADCAST_STREAM;
    case SK_TWO_WAY: return BC_TWO_WAY_STREAM;
    case SK_ECHO: return BC_ECHO_STREAM;
    case SK_CONCATENATED: return BC_CONCATENATED_STREAM;
    default: return BC_STREAM;
    }
}

Obj clos_class_of(Lisp *L, Obj o) {
    int i;
    if (is_fixnum(o)) i = BC_FIXNUM;
    else if (is_cons(o)) i = BC_CONS;
    else if (o == NIL) i = BC_NULL;
    else if (is_char(o)) i = BC_CHARACTER;
    else if (is_single(o)) i = BC_SINGLE_FLOAT;
    else if (!is_heap(o)) i = BC_T;
    else {
        switch (heap_type(o)) {
        case T_INSTANCE: case T_FUNCALLABLE: {
            Obj layout = INST(o)->layout;
            if (LIKELY(is_class_object(layout))) return layout;
            i = heap_type(o) == T_FUNCALLABLE ? BC_FUNCTION : BC_T;
            break;
        }
        case T_SYMBOL: i = BC_SYMBOL; break;
        case T_BIGNUM: i = BC_BIGNUM; break;
        case T_RATIO: i = BC_RATIO; break;
        case T_DOUBLE: i = BC_DOUBLE_FLOAT; break;
        case T_COMPLEX: i = BC_COMPLEX; break;
        case T_STRING: case T_VECTOR: case T_BITVECTOR: case T_ARRAY: i = array_class_index(o); break;
        case T_HASHTABLE: i = BC_HASH_TABLE; break;
        case T_PACKAGE: i = BC_PACKAGE; break;
        case T_PRIMITIVE: case T_CLOSURE: i = BC_FUNCTION; break;
        case T_STREAM: i = stream_class_index(o); break;
        case T_READTABLE: i = BC_READTABLE; break;
        case T_RANDOM_STATE: i = BC_RANDOM_STATE; break;
        case T_PATHNAME: i = logical_pathname_p(o) ? BC_LOGICAL_PATHNAME : BC_PATHNAME; break;
        default: i = BC_T; break;
        }
    }
    Obj table = SYM(S(P_BUILTIN_CLASS_TABLE))->value;
    if (UNLIKELY(!is_type(table, T_VECTOR) || VEC(table)->len != BC_COUNT)) return NIL;
    Obj c = VEC(table)->data[i];
    return c != NIL ? c : VEC(table)->data[BC_T];
}

DEFPRIM(prim_class_of) {
    UNUSED_ARGS;
    Obj c = clos_class_of(L, args[0]);
    if (c == NIL) err_simple(L, "CLASS-OF: the class system is not initialised yet");
    return c;
}

/* (sys:%built-in-class-names) -> the names clos.lisp must make classes for, in table order */
DEFPRIM(prim_pct_built_in_class_names) {
    UNUSED_ARGS;
    Obj r = NIL;
    for (int i = BC_COUNT - 1; i >= 0; i--) r = cons(L, intern_cstr(L, L->pkg_cl, builtin_class_names[i]), r);
    return r;
}

/* (sys:%set-built-in-class-table classes): a list of classes in the order above */
DEFPRIM(prim_pct_set_built_in_class_table) {
    UNUSED_ARGS;
    if (list_length_proper(L, args[0]) != BC_COUNT) err_simple(L, "wrong number of built-in classes");
    Obj v = make_vector(L, BC_COUNT, NIL);
    int i = 0;
    for (Obj x = args[0]; x != NIL; x = CDR(x)) VEC(v)->data[i++] = CAR(x);
    SYM(S(P_BUILTIN_CLASS_TABLE))->value = v;
    return v;
}

/* ------------------------------------------------------------------ */
/* Instances                                                           */

static inline Obj *class_slots(Obj c) { return INST(c)->slots; }

/* An instance whose class is a CLOS class, or NULL. */
static inline Obj clos_instance_class(Obj o) {
    if (!is_heap(o)) return NIL;
    HeapType t = heap_type(o);
    if (t != T_INSTANCE && t != T_FUNCALLABLE) return NIL;
    Obj c = INST(o)->layout;
    return is_class_object(c) ? c : NIL;
}

/* Bring an instance made before its class was redefined up to date. */
static inline void ensure_current(Lisp *L, Obj o, Obj cls) {
    Obj v = class_slots(cls)[CL_VERSION];
    if (UNLIKELY(is_fixnum(v) && (intptr_t)INST(o)->h.aux32 != FIXVAL(v))) {
        funcall1(L, S(P_UPDATE_OBSOLETE_INSTANCE), o);
    }
}

static Obj alloc_clos_instance(Lisp *L, HeapType t, Obj cls, uint8_t flags) {
    Obj n = class_slots(cls)[CL_INSTANCE_SIZE];
    size_t ns = is_fixnum(n) && FIXVAL(n) > 0 ? (size_t)FIXVAL(n) : 0;
    Instance *in = (Instance *)heap_alloc(L, t, sizeof(Instance));
    in->layout = cls;
    in->nslots = ns;
    in->slots = (Obj *)gc_alloc(L, (ns ? ns : 1) * sizeof(Obj));
    for (size_t i = 0; i < ns; i++) in->slots[i] = S(P_UNBOUND_SLOT);
    in->fn = NIL;
    in->h.flags = flags;
    Obj v = class_slots(cls)[CL_VERSION];
    in->h.aux32 = is_fixnum(v) ? (uint32_t)FIXVAL(v) : 0;
    return (Obj)in;
}

static Obj check_class(Lisp *L, Obj c) {
    if (!is_class_object(c)) err_type(L, c, S(CLASS));
    return c;
}

Obj clos_allocate_instance(Lisp *L, Obj cls, uint8_t flags) {
    return alloc_clos_instance(L, T_INSTANCE, check_class(L, cls), flags);
}

/* (sys:%allocate-instance class flags): every instance slot unbound */
DEFPRIM(prim_pct_allocate_instance) {
    UNUSED_ARGS;
    return alloc_clos_instance(L, T_INSTANCE, check_class(L, args[0]), (uint8_t)check_fixnum(L, args[1]));
}

/* (sys:%allocate-funcallable-instance class function flags) */
DEFPRIM(prim_pct_allocate_funcallable_instance) {
    UNUSED_ARGS;
    Obj o = alloc_clos_instance(L, T_FUNCALLABLE, check_class(L, args[0]), (uint8_t)check_fixnum(L, args[2]));
    INST(o)->fn = args[1];
    return o;
}

DEFPRIM(prim_pct_instance_version) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_INSTANCE) && !is_type(args[0], T_FUNCALLABLE)) err_type(L, args[0], S(STANDARD_OBJECT));
    return FIX((intptr_t)INST(args[0])->h.aux32);
}

DEFPRIM(prim_pct_set_instance_version) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_INSTANCE) && !is_type(args[0], T_FUNCALLABLE)) err_type(L, args[0], S(STANDARD_OBJECT));
    INST(args[0])->h.aux32 = (uint32_t)check_fixnum(L, args[1]);
    return args[1];
}

/* (sys:%swap-instance-slots a b): exchange class, slots and version (CHANGE-CLASS, updates) */
DEFPRIM(prim_pct_swap_instance_slots) {
    UNUSED_ARGS;
    Obj a = args[0], b = args[1];
    if (!is_type(a, T_INSTANCE) && !is_type(a, T_FUNCALLABLE)) err_type(L, a, S(STANDARD_OBJECT));
    if (!is_type(b, T_INSTANCE) && !is_type(b, T_FUNCALLABLE)) err_type(L, b, S(STANDARD_OBJECT));
    Instance *x = INST(a), *y = INST(b);
    Obj lay = x->layout; x->layout = y->layout; y->layout = lay;
    Obj *sl = x->slots; x->slots = y->slots; y->slots = sl;
    size_t n = x->nslots; x->nslots = y->nslots; y->nslots = n;
    uint32_t v = x->h.aux32; x->h.aux32 = y->h.aux32; y->h.aux32 = v;
    return a;
}

/* The location of slot NAME in an up-to-date instance of CLS: a fixnum index, a class-slot
 * cell (a cons), or NO_VALUE when the class has no such slot. */
static Obj slot_location(Obj cls, Obj name) {
    for (Obj s = class_slots(cls)[CL_SLOTS]; is_cons(s); s = CDR(s)) {
        Obj sd = CAR(s);
        if (INST(sd)->slots[SD_NAME] == name) return INST(sd)->slots[SD_LOCATION];
    }
    return NO_VALUE;
}

static Obj slot_missing(Lisp *L, Obj cls, Obj o, Obj name, Obj op, Obj value, bool with_value) {
    if (cls == NIL) cls = clos_class_of(L, o);
    Obj a[5] = {cls, o, name, op, value};
    return funcall(L, S(CLOS_SLOT_MISSING), with_value ? 5 : 4, a);
}

static inline Obj loc_ref(Obj o, Obj loc) {
    return is_fixnum(loc) ? INST(o)->slots[FIXVAL(loc)] : CDR(loc);
}

/* Whether slot access to instances of CLS goes through SLOT-VALUE-USING-CLASS and its kin: set
 * (mop.lisp, %UPDATE-SLOT-PROTOCOL-FLAGS) on the classes whose metaclass has a method of the
 * program's on one of them, so that every other class keeps the direct path below. */
static inline bool slot_protocol_p(Obj cls) {
    return UNLIKELY(INST(cls)->h.flags & INST_SLOT_PROTOCOL);
}

static Obj slot_protocol(Lisp *L, Obj op, Obj o, Obj name, Obj value) {
    Obj a[4] = {op, o, name, value};
    Obj r = funcall(L, S(P_SLOT_PROTOCOL), 4, a);
    L->nvals = 1;
    return r;
}

/* SLOT-VALUE and its kin; STD says to take the direct path even for a class flagged
 * INST_SLOT_PROTOCOL (the standard methods of SLOT-VALUE-USING-CLASS and its kin). Inlined into
 * each primitive, so that the primitives cost what they cost before the flag but its test. */
static inline __attribute__((always_inline)) Obj std_slot_value(Lisp *L, Obj o, Obj name, bool std) {
    Obj cls = clos_instance_class(o);
    if (cls == NIL) {
        Obj r = slot_missing(L, NIL, o, name, S(CLOS_SLOT_VALUE), NIL, false);
        L->nvals = 1;
        return r;
    }
    if (!std && slot_protocol_p(cls)) return slot_protocol(L, S(CLOS_SLOT_VALUE), o, name, NIL);
    ensure_current(L, o, cls);
    Obj loc = slot_location(cls, name);
    if (loc == NO_VALUE) {
        Obj r = slot_missing(L, cls, o, name, S(CLOS_SLOT_VALUE), NIL, false);
        L->nvals = 1;
        return r;
    }
    Obj v = loc_ref(o, loc);
    if (UNLIKELY(v == S(P_UNBOUND_SLOT))) {
        v = funcall3(L, S(CLOS_SLOT_UNBOUND), cls, o, name);
    }
    L->nvals = 1;
    return v;
}

DEFPRIM(prim_slot_value) {
    UNUSED_ARGS;
    return std_slot_value(L, args[0], check_symbol(L, args[1]), false);
}

static inline __attribute__((always_inline)) Obj std_set_slot_value(Lisp *L, Obj value, Obj o, Obj name, bool std) {
    Obj cls = clos_instance_class(o);
    if (cls == NIL) {
        slot_missing(L, NIL, o, name, S(SETF), value, true);
        return value;
    }
    if (!std && slot_protocol_p(cls)) {
        slot_protocol(L, S(SETF), o, name, value);
        return value;
    }
    ensure_current(L, o, cls);
    Obj loc = slot_location(cls, name);
    if (loc == NO_VALUE) {
        slot_missing(L, cls, o, name, S(SETF), value, true);
        return value;
    }
    if (is_fixnum(loc)) INST(o)->slots[FIXVAL(loc)] = value;
    else CDR(loc) = value;
    return value;
}

DEFPRIM(prim_setf_slot_value) {
    UNUSED_ARGS;
    return std_set_slot_value(L, args[0], args[1], check_symbol(L, args[2]), false);
}

/* (sys:%set-slot-value object slot-name new-value): (SETF SLOT-VALUE) with the arguments in the
 * order of a DEFSETF update function, so that (setf (slot-value o 'name) v) expands to a call of
 * this primitive rather than a FUNCALL of #'(SETF SLOT-VALUE) (stdlib-lisp/clos.lisp) */
DEFPRIM(prim_pct_set_slot_value) {
    UNUSED_ARGS;
    return std_set_slot_value(L, args[2], args[0], check_symbol(L, args[1]), false);
}

/* Where slot NAME of O (of class CLS, or NIL for a non-instance) lives once O is updated to its
 * class's current layout; NO_VALUE when there is no such slot. */
static Obj current_slot_location(Lisp *L, Obj o, Obj cls, Obj name) {
    if (cls == NIL) return NO_VALUE;
    ensure_current(L, o, cls);
    return slot_location(cls, name);
}

static inline __attribute__((always_inline)) Obj std_slot_boundp(Lisp *L, Obj o, Obj name, bool std) {
    Obj cls = clos_instance_class(o);
    if (!std && cls != NIL && slot_protocol_p(cls))
        return boolean(L, slot_protocol(L, S(CLOS_SLOT_BOUNDP), o, name, NIL) != NIL);
    Obj loc = current_slot_location(L, o, cls, name);
    if (loc == NO_VALUE)
        return boolean(L, slot_missing(L, cls, o, name, S(CLOS_SLOT_BOUNDP), NIL, false) != NIL);
    return boolean(L, loc_ref(o, loc) != S(P_UNBOUND_SLOT));
}

DEFPRIM(prim_slot_boundp) {
    UNUSED_ARGS;
    return std_slot_boundp(L, args[0], check_symbol(L, args[1]), false);
}

static inline __attribute__((always_inline)) Obj std_slot_makunbound(Lisp *L, Obj o, Obj name, bool std) {
    Obj cls = clos_instance_class(o);
    if (!std && cls != NIL && slot_protocol_p(cls)) {
        slot_protocol(L, S(CLOS_SLOT_MAKUNBOUND), o, name, NIL);
        return o;
    }
    Obj loc = current_slot_location(L, o, cls, name);
    if (loc == NO_VALUE) {
        slot_missing(L, cls, o, name, S(CLOS_SLOT_MAKUNBOUND), NIL, false);
        return o;
    }
    if (is_fixnum(loc)) INST(o)->slots[FIXVAL(loc)] = S(P_UNBOUND_SLOT);
    else CDR(loc) = S(P_UNBOUND_SLOT);
    return o;
}

DEFPRIM(prim_slot_makunbound) {
    UNUSED_ARGS;
    return std_slot_makunbound(L, args[0], check_symbol(L, args[1]), false);
}

/* (sys:%standard-slot-access operation object slot-name new-value): SLOT-VALUE, (SETF
 * SLOT-VALUE), SLOT-BOUNDP or SLOT-MAKUNBOUND (OPERATION, as SLOT-MISSING names them) without
 * the slot protocol: what the standard methods of SLOT-VALUE-USING-CLASS and its kin do */
DEFPRIM(prim_pct_standard_slot_access) {
    UNUSED_ARGS;
    Obj op = args[0], o = args[1], name = check_symbol(L, args[2]);
    if (op == S(CLOS_SLOT_VALUE)) return std_slot_value(L, o, name, true);
    if (op == S(SETF)) return std_set_slot_value(L, args[3], o, name, true);
    if (op == S(CLOS_SLOT_BOUNDP)) return std_slot_boundp(L, o, name, true);
    if (op == S(CLOS_SLOT_MAKUNBOUND)) return std_slot_makunbound(L, o, name, true);
    err_type(L, op, S(SYMBOL));
}

DEFPRIM(prim_slot_exists_p) {
    UNUSED_ARGS;
    Obj o = args[0], name = check_symbol(L, args[1]);
    return boolean(L, current_slot_location(L, o, clos_instance_class(o), name) != NO_VALUE);
}

Obj clos_slot_location(Obj cls, Obj name) {
    Obj loc = slot_location(cls, name);
    return loc == NO_VALUE ? NIL : loc;
}

/* (sys:%slot-location class name) -> index, class-slot cell, or NIL */
DEFPRIM(prim_pct_slot_location) {
    UNUSED_ARGS;
    Obj loc = slot_location(check_class(L, args[0]), args[1]);
    return loc == NO_VALUE ? NIL : loc;
}

/* (sys:%ensure-current-instance object): update an obsolete instance; returns it */
DEFPRIM(prim_pct_ensure_current_instance) {
    UNUSED_ARGS;
    Obj cls = clos_instance_class(args[0]);
    if (cls != NIL) ensure_current(L, args[0], cls);
    return args[0];
}

/* ------------------------------------------------------------------ */
/* MAKE-INSTANCE when only the standard initialization methods apply    */

static Obj list_append2(Lisp *L, Obj a, Obj b) {
    Obj head = NIL, tail = NIL;
    for (Obj x = a; is_cons(x); x = CDR(x)) {
        Obj c = cons(L, CAR(x), NIL);
        if (tail == NIL) head = c; else CDR(tail) = c;
        tail = c;
    }
    if (tail == NIL) return b;
    CDR(tail) = b;
    return head;
}

static Obj plist_find(Obj plist, Obj key) {
    for (Obj x = plist; is_cons(x) && is_cons(CDR(x)); x = CDR(CDR(x)))
        if (CAR(x) == key) return CAR(CDR(x));
    return NO_VALUE;
}

/* Fill the slots of O (of class CLS, current) from INITARGS, then those still unbound that SLOT_NAMES
 * (T, or a list) names from their initforms: the standard SHARED-INITIALIZE (CLHS 7.1.4), for an
 * instance of a class whose metaclass is STANDARD-CLASS (its slots are read and written directly). */
static void fill_slots(Lisp *L, Obj o, Obj cls, Obj slot_names, Obj initargs) {
    for (Obj s = class_slots(cls)[CL_SLOTS]; is_cons(s); s = CDR(s)) {
        Obj *sd = INST(CAR(s))->slots;
        Obj loc = sd[SD_LOCATION], value = NO_VALUE;
        if (sd[SD_INITARGS] != NIL) {
            for (Obj x = initargs; is_cons(x) && is_cons(CDR(x)) && value == NO_VALUE; x = CDR(CDR(x))) {
                for (Obj k = sd[SD_INITARGS]; is_cons(k); k = CDR(k))
                    if (CAR(k) == CAR(x)) { value = CAR(CDR(x)); break; }
            }
        }
        if (value == NO_VALUE) {
            if (sd[SD_INITFUNCTION] == NIL) continue;
            if (slot_names != S(T)) {
                Obj x = slot_names;
                while (is_cons(x) && CAR(x) != sd[SD_NAME]) x = CDR(x);
                if (!is_cons(x)) continue;
            }
            if (loc_ref(o, loc) != S(P_UNBOUND_SLOT)) continue;
            value = funcall0(L, sd[SD_INITFUNCTION]);
        }
        if (is_fixnum(loc)) INST(o)->slots[FIXVAL(loc)] = value;
        else CDR(loc) = value;
    }
}

/* (sys:%fill-standard-slots instance slot-names initargs): the standard SHARED-INITIALIZE's work
 * (after its checks) for an up-to-date instance of a class whose metaclass is STANDARD-CLASS */
DEFPRIM(prim_pct_fill_standard_slots) {
    UNUSED_ARGS;
    Obj cls = clos_instance_class(args[0]);
    if (cls == NIL) err_type(L, args[0], S(STANDARD_OBJECT));
    fill_slots(L, args[0], cls, args[1], args[2]);
    return args[0];
}

/* MAKE-INSTANCE's work for a finalized class on the standard path (see %STANDARD-PATH-P in
 * clos.lisp): check the initargs, add the default initargs, allocate, and fill the slots (CLHS
 * 7.1) or, when CALL_INIT (a program's methods of INITIALIZE-INSTANCE or SHARED-INITIALIZE
 * apply), call INITIALIZE-INSTANCE. VALID is the list of valid initargs, or T when any is. */
static Obj make_standard_instance(Lisp *L, Obj cls, Obj initargs, Obj valid, bool call_init) {
    size_t n = 0;
    for (Obj x = initargs; x != NIL; x = CDR(CDR(x))) {
        if (!is_cons(x)) err_program(L, "odd number of &KEY arguments");
        if (!is_symbol(CAR(x))) err_program(L, "keyword argument not a symbol: %S.", CAR(x));
        if (!is_cons(CDR(x))) err_program(L, "odd number of &KEY arguments");
        if (++n > 100000) err_program(L, "too many initialization arguments");
    }
    /* default initargs not supplied, in order */
    Obj extra = NIL, tail = NIL;
    for (Obj d = class_slots(cls)[CL_DEFAULT_INITARGS]; is_cons(d); d = CDR(d)) {
        Obj spec = CAR(d);
        Obj key = CAR(spec);
        if (plist_find(initargs, key) != NO_VALUE || plist_find(extra, key) != NO_VALUE) continue;
        Obj v = funcall0(L, CAR(CDR(CDR(spec))));
        Obj cell = cons(L, key, cons(L, v, NIL));
        if (tail == NIL) extra = cell; else CDR(tail) = cell;
        tail = CDR(cell);
    }
    if (extra != NIL) initargs = is_cons(initargs) ? list_append2(L, initargs, extra) : extra;
    /* validity (CLHS 7.1.2) */
    if (valid != S(T)) {
        Obj aok = plist_find(initargs, S(K_ALLOW_OTHER_KEYS));
        if (aok == NO_VALUE || aok == NIL) {
            Obj bad = NIL;
            for (Obj x = initargs; x != NIL; x = CDR(CDR(x))) {
                Obj k = CAR(x), v;
                for (v = valid; is_cons(v) && CAR(v) != k; v = CDR(v)) {}
                if (v == NIL) {
                    Obj b;
                    for (b = bad; is_cons(b) && CAR(b) != k; b = CDR(b)) {}
                    if (b == NIL) bad = cons(L, k, bad);
                }
            }
            if (bad != NIL) {
                funcall2(L, intern_cstr(L, L->pkg_system, "%INITARG-ERROR"), cls, list_reverse(L, bad));
                err_program(L, "invalid initialization arguments");
            }
        }
    }
    Obj o = alloc_clos_instance(L, T_INSTANCE, cls, INST_STANDARD);
    if (call_init) apply_list(L, S(CLOS_INITIALIZE_INSTANCE), cons(L, o, initargs));
    else fill_slots(L, o, cls, S(T), initargs);
    L->nvals = 1;
    return o;
}

/* (sys:%make-standard-instance-fast class initargs valid-initargs) */
DEFPRIM(prim_pct_make_standard_instance_fast) {
    UNUSED_ARGS;
    return make_standard_instance(L, check_class(L, args[0]), args[1], args[2], false);
}

/* The valid initargs of CLS when its plan, cached by %STANDARD-PATH-P in its initargs cache as
 * ((clos-epoch . initargs-epoch) path . valid-initargs), is current and its path is T or :CALL
 * (only the system's methods of MAKE-INSTANCE apply) or, when INSIDE (called from the system's
 * MAKE-INSTANCE method), :INIT or :CALL-INIT; NO_VALUE otherwise. *CALL_INIT tells the :CALL
 * paths (INITIALIZE-INSTANCE to be called) from the others (the slots filled here). */
static Obj standard_plan(Lisp *L, Obj cls, bool inside, bool *call_init) {
    Obj cache = class_slots(cls)[CL_INITARGS_CACHE];
    if (!is_cons(cache) || !is_cons(CAR(cache)) || !is_cons(CDR(cache))) return NO_VALUE;
    Obj stamp = CAR(cache);
    if (CAR(stamp) != SYM(S(P_CLOS_EPOCH))->value || CDR(stamp) != SYM(S(P_INITARGS_EPOCH))->value)
        return NO_VALUE;
    Obj path = CAR(CDR(cache));
    *call_init = path == S(K_CALL) || path == S(K_CALL_INIT);
    if (path == S(T) || path == S(K_CALL) || (inside && (path == S(K_INIT) || path == S(K_CALL_INIT))))
        return CDR(CDR(cache));
    return NO_VALUE;
}

/* (sys:%make-instance-on-standard-path class-or-name initargs &optional inside): the new instance
 * when the class (or the class the symbol names) has a current plan (standard_plan), else NIL: the
 * caller then takes the generic way, which computes the plan for the next call. */
DEFPRIM(prim_pct_make_instance_on_standard_path) {
    Obj cls = args[0];
    if (is_type(cls, T_SYMBOL)) {
        Obj table = SYM(S(P_CLASS_TABLE))->value;
        if (!is_type(table, T_HASHTABLE)) return NIL;
        cls = hash_get(L, table, cls, NIL);
    }
    if (!is_class_object(cls)) return NIL;
    bool call_init = false;
    Obj valid = standard_plan(L, cls, nargs > 2 && args[2] != NIL, &call_init);
    if (valid == NO_VALUE) return NIL;
    return make_standard_instance(L, cls, args[1], valid, call_init);
}

/* ------------------------------------------------------------------ */
/* Structures: accessors check the class by its precedence list        */

static inline bool class_inherits(Obj cls, Obj super) {
    if (cls == super) return true;
    for (Obj c = class_slots(cls)[CL_CPL]; is_cons(c); c = CDR(c))
        if (CAR(c) == super) return true;
    return false;
}

bool clos_class_inherits(Obj cls, Obj super) { return class_inherits(cls, super); }

static Obj check_structure(Lisp *L, Obj o, Obj cls) {
    if (LIKELY(is_type(o, T_INSTANCE))) {
        Obj c = INST(o)->layout;
        if (LIKELY(c == cls) || (is_class_object(c) && class_inherits(c, cls))) return o;
    }
    err_type(L, o, is_class_object(cls) ? class_slots(cls)[CL_NAME] : cls);
}

/* (sys:%structure-ref object class index) */
DEFPRIM(prim_pct_structure_ref) {
    UNUSED_ARGS;
    Obj o = check_structure(L, args[0], args[1]);
    size_t i = (size_t)check_fixnum(L, args[2]);
    if (i >= INST(o)->nslots) err_index(L, o, args[2], INST(o)->nslots);
    return INST(o)->slots[i];
}

/* (sys:%structure-set value object class index) */
DEFPRIM(prim_pct_structure_set) {
    UNUSED_ARGS;
    Obj o = check_structure(L, args[1], args[2]);
    size_t i = (size_t)check_fixnum(L, args[3]);
    if (i >= INST(o)->nslots) err_index(L, o, args[3], INST(o)->nslots);
    INST(o)->slots[i] = args[0];
    return args[0];
}

/* (sys:%make-structure class &rest values): a structure instance with these slot values */
DEFPRIM(prim_pct_make_structure) {
    Obj cls = check_class(L, args[0]);
    Obj o = alloc_clos_instance(L, T_INSTANCE, cls, INST_STRUCTURE);
    size_t n = INST(o)->nslots;
    for (int i = 1; i < nargs && (size_t)(i - 1) < n; i++) INST(o)->slots[i - 1] = args[i];
    return o;
}

/* (sys:%structure-check object class) -> OBJECT, or a TYPE-ERROR naming the structure */
DEFPRIM(prim_pct_structure_check) {
    UNUSED_ARGS;
    return check_structure(L, args[0], args[1]);
}

/* (sys:%structure-typep object class) */
DEFPRIM(prim_pct_structure_typep) {
    UNUSED_ARGS;
    Obj o = args[0];
    if (!is_type(o, T_INSTANCE)) return NIL;
    Obj c = INST(o)->layout;
    return boolean(L, c == args[1] || (is_class_object(c) && class_inherits(c, args[1])));
}

DEFPRIM(prim_pct_class_object_p) { UNUSED_ARGS; return boolean(L, is_class_object(args[0])); }

/* (sys:%class-typep object class): whether OBJECT is an instance of CLASS or a subclass */
DEFPRIM(prim_pct_class_typep) {
    UNUSED_ARGS;
    Obj c = clos_class_of(L, args[0]);
    if (c == NIL || !is_class_object(args[1])) return NIL;
    return boolean(L, class_inherits(c, args[1]));
}

/* ------------------------------------------------------------------ */
/* Generic function dispatch                                           */

#define MAX_DISPATCH_KEYS 32

/* A generic function's cache (GF_CACHE, NIL when empty or stale): a simple vector of
 *   [0] the *CLOS-EPOCH* it was made in, [1] its entry count,
 *   [2] the position of the one argument it is keyed on when that is all (one key, no EQL
 *       specializers: the path clos_dispatch takes without computing keys), else NIL,
 *   [3] the required argument count then,
 * then open-addressed entries of K keys (classes or EQL specializers) and the effective method.
 * Whatever changes the dispatch (methods, the lambda list, classes) sets the slot to NIL or bumps
 * the epoch, so [2] and [3] describe the generic function as long as the cache is current. */
#define CACHE_HDR 4

static inline uint64_t mix_key(uint64_t h, Obj k) {
    h ^= (uint64_t)WORD(k) >> 3;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static inline Obj dispatch_key(Lisp *L, Obj eqltabs, int pos, Obj arg) {
    if (eqltabs != NIL) {
        Obj t = VEC(eqltabs)->data[pos];
        if (t != NIL) {
            Obj e = hash_get(L, t, arg, NO_VALUE);
            if (e != NO_VALUE) return e;
        }
    }
    return clos_class_of(L, arg);
}

/* Fill keys[] for ARGS; returns the number of keys or -1 when the cache cannot be used. */
static int compute_keys(Lisp *L, Obj *gs, int nargs, Obj *args, Obj *keys, uint64_t *hash) {
    Obj disp = gs[GF_DISPATCH];
    if (!is_type(disp, T_VECTOR)) return -1;
    Obj nreq = gs[GF_NREQ];
    if (!is_fixnum(nreq) || nargs < FIXVAL(nreq)) return -1;
    int k = (int)VEC(disp)->len;
    if (k > MAX_DISPATCH_KEYS) return -1;
    Obj eqltabs = gs[GF_EQL_TABLES];
    uint64_t h = 0x12345678ull;
    for (int i = 0; i < k; i++) {
        int pos = (int)FIXVAL(VEC(disp)->data[i]);
        Obj key = dispatch_key(L, eqltabs, pos, args[pos]);
        if (key == NIL) return -1;
        keys[i] = key;
        h = mix_key(h, key);
    }
    *hash = h;
    return k;
}

static Obj cache_lookup(Lisp *L, Obj *gs, int k, Obj *keys, uint64_t h) {
    Obj cache = gs[GF_CACHE];
    if (!is_type(cache, T_VECTOR) || VEC(cache)->data[0] != SYM(S(P_CLOS_EPOCH))->value) return NO_VALUE;
    size_t w = (size_t)k + 1;
    size_t cap = (VEC(cache)->len - CACHE_HDR) / w;
    size_t idx = (size_t)(h >> 7) & (cap - 1);
    Obj *base = VEC(cache)->data + CACHE_HDR;
    for (size_t probes = 0; probes < cap; probes++) {
        Obj *e = base + idx * w;
        if (e[k] == NIL) return NO_VALUE;
        int i = 0;
        while (i < k && e[i] == keys[i]) i++;
        if (i == k) return e[k];
        idx = (idx + 1) & (cap - 1);
    }
    (void)L;
    return NO_VALUE;
}

static void cache_insert(Lisp *L, Obj gf, int k, Obj *keys, uint64_t h, Obj emf) {
    Obj *gs = INST(gf)->slots;
    Obj epoch = SYM(S(P_CLOS_EPOCH))->value;
    Obj cache = gs[GF_CACHE];
    size_t w = (size_t)k + 1;
    if (!is_type(cache, T_VECTOR) || VEC(cache)->data[0] != epoch || (VEC(cache)->len - CACHE_HDR) % w != 0) {
        cache = make_vector(L, CACHE_HDR + 4 * w, NIL);
        VEC(cache)->data[0] = epoch;
        VEC(cache)->data[1] = FIX(0);
        Obj disp = gs[GF_DISPATCH];
        if (k == 1 && gs[GF_EQL_TABLES] == NIL && is_type(disp, T_VECTOR) && VEC(disp)->len == 1 &&
            is_fixnum(gs[GF_NREQ])) {
            VEC(cache)->data[2] = VEC(disp)->data[0];
            VEC(cache)->data[3] = gs[GF_NREQ];
        }
        gs[GF_CACHE] = cache;
    }
    size_t cap = (VEC(cache)->len - CACHE_HDR) / w;
    size_t count = (size_t)FIXVAL(VEC(cache)->data[1]);
    if ((count + 1) * 2 > cap) {
        /* grow and rehash; a megamorphic function starts again rather than grow without bound */
        Obj old = cache;
        bool rehash = cap * 2 <= 4096;
        size_t ncap = rehash ? cap * 2 : cap;
        cache = make_vector(L, CACHE_HDR + ncap * w, NIL);
        VEC(cache)->data[0] = epoch;
        VEC(cache)->data[2] = VEC(old)->data[2];
        VEC(cache)->data[3] = VEC(old)->data[3];
        count = 0;
        if (rehash) {
            for (size_t j = 0; j < cap; j++) {
                Obj *e = VEC(old)->data + CACHE_HDR + j * w;
                if (e[k] == NIL) continue;
                uint64_t hh = 0x12345678ull;
                for (int i = 0; i < k; i++) hh = mix_key(hh, e[i]);
                size_t idx = (size_t)(hh >> 7) & (ncap - 1);
                while (VEC(cache)->data[CACHE_HDR + idx * w + (size_t)k] != NIL) idx = (idx + 1) & (ncap - 1);
                memcpy(VEC(cache)->data + CACHE_HDR + idx * w, e, w * sizeof(Obj));
                count++;
            }
        }
        cap = ncap;
        gs[GF_CACHE] = cache;
    }
    size_t idx = (size_t)(h >> 7) & (cap - 1);
    Obj *base = VEC(cache)->data + CACHE_HDR;
    while (base[idx * w + (size_t)k] != NIL) {
        Obj *e = base + idx * w;
        int i = 0;
        while (i < k && e[i] == keys[i]) i++;
        if (i == k) { e[k] = emf; VEC(cache)->data[1] = FIX((intptr_t)count); return; }
        idx = (idx + 1) & (cap - 1);
    }
    memcpy(base + idx * w, keys, (size_t)k * sizeof(Obj));
    base[idx * w + (size_t)k] = emf;
    VEC(cache)->data[1] = FIX((intptr_t)count + 1);
}

/* (sys:%gf-cache-add gf arglist emf): remember EMF for arguments like ARGLIST */
DEFPRIM(prim_pct_gf_cache_add) {
    UNUSED_ARGS;
    Obj gf = args[0];
    if (!is_type(gf, T_FUNCALLABLE)) err_type(L, gf, S(GENERIC_FUNCTION));
    Obj argv[64];
    int n = 0;
    for (Obj x = args[1]; is_cons(x) && n < 64; x = CDR(x)) argv[n++] = CAR(x);
    Obj keys[MAX_DISPATCH_KEYS];
    uint64_t h;
    int k = compute_keys(L, INST(gf)->slots, n, argv, keys, &h);
    if (k >= 0) cache_insert(L, gf, k, keys, h, args[2]);
    return args[2];
}

/* (sys:%gf-cache-emfs gf) -> the effective methods now cached (for tests) */
DEFPRIM(prim_pct_gf_cache_count) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_FUNCALLABLE)) err_type(L, args[0], S(GENERIC_FUNCTION));
    Obj cache = INST(args[0])->slots[GF_CACHE];
    if (!is_type(cache, T_VECTOR) || VEC(cache)->data[0] != SYM(S(P_CLOS_EPOCH))->value) return FIX(0);
    return VEC(cache)->data[1];   /* the entry count (see CACHE_HDR) */
}

/* ---- effective methods ---- */

static Obj run_chain(Lisp *L, Obj chain, int nargs, Obj *args, Obj arglist);

/* Methods' functions are closures: apply them without funcall's dispatch on the function's type. */
static inline Obj call_method_fn(Lisp *L, Obj fn, int nargs, Obj *args) {
    if (LIKELY(is_type(fn, T_CLOSURE))) return apply_closure(L, fn, nargs, args);
    return funcall(L, fn, nargs, args);
}

static Obj run_inner(Lisp *L, Obj inner, int nargs, Obj *args, Obj arglist) {
    Obj *d = VEC(inner)->data;
    for (Obj b = d[1]; is_cons(b); b = CDR(b)) run_chain(L, CAR(b), nargs, args, arglist);
    Obj r;
    if (d[2] == NIL) {
        if (arglist == NO_VALUE) arglist = list_from_array(L, nargs, args);
        r = funcall2(L, S(P_NO_PRIMARY_METHOD), VEC(inner)->len > 4 ? d[4] : NIL, arglist);
    } else {
        r = run_chain(L, d[2], nargs, args, arglist);
    }
    if (d[3] == NIL) return r;
    int nv = L->nvals;
    Obj small[8];
    Obj *saved = nv <= 8 ? small : (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)nv);
    if (nv == 1) saved[0] = r;
    else if (nv > 1) memcpy(saved, L->values, sizeof(Obj) * (size_t)nv);
    for (Obj a = d[3]; is_cons(a); a = CDR(a)) run_chain(L, CAR(a), nargs, args, arglist);
    L->nvals = nv;
    if (nv > 1) memcpy(L->values, saved, sizeof(Obj) * (size_t)nv);
    return nv ? saved[0] : NIL;
}

/* Run the first element of CHAIN (a method or an inner combination) with the rest as its
 * next methods. ARGLIST is the argument list when already made, or NO_VALUE. */
static Obj run_chain(Lisp *L, Obj chain, int nargs, Obj *args, Obj arglist) {
    Obj m = CAR(chain);
    if (is_type(m, T_VECTOR)) return run_inner(L, m, nargs, args, arglist);
    Obj *ms = INST(m)->slots;
    Obj fast = ms[M_FAST_FUNCTION];
    if (fast != NIL) return call_method_fn(L, fast, nargs, args);
    if (arglist == NO_VALUE) arglist = list_from_array(L, nargs, args);
    Obj small[18];
    Obj *a = nargs + 2 <= 18 ? small : (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(nargs + 2));
    a[0] = chain;
    a[1] = arglist;
    if (nargs) memcpy(a + 2, args, sizeof(Obj) * (size_t)nargs);
    return call_method_fn(L, ms[M_FUNCTION], nargs + 2, a);
}

_Noreturn static void key_error(Lisp *L, Obj key, Obj allowed) {
    funcall2(L, intern_cstr(L, L->pkg_system, "%INVALID-KEYWORD-ERROR"), key, allowed);
    err_program(L, "invalid keyword argument: %S", key);
}

static void check_keys(Lisp *L, Obj allowed, Obj start, int nargs, Obj *args) {
    int s = (int)FIXVAL(start);
    if (nargs <= s) return;
    if ((nargs - s) & 1) err_program(L, "odd number of &KEY arguments");
    /* the first :ALLOW-OTHER-KEYS counts (CLHS 3.4.1.4.1) */
    for (int i = s; i < nargs; i += 2)
        if (args[i] == S(K_ALLOW_OTHER_KEYS)) {
            if (args[i + 1] != NIL) return;
            break;
        }
    for (int i = s; i < nargs; i += 2) {
        Obj key = args[i];
        if (key == S(K_ALLOW_OTHER_KEYS)) continue;
        Obj x = allowed;
        while (is_cons(x) && CAR(x) != key) x = CDR(x);
        if (x == NIL) key_error(L, key, allowed);
    }
}

static Obj run_emf(Lisp *L, Obj emf, int nargs, Obj *args) {
    if (!is_type(emf, T_VECTOR)) return funcall(L, emf, nargs, args);
    Obj *d = VEC(emf)->data;
    switch (FIXVAL(d[0])) {
    case EMF_READER:
        if (LIKELY(nargs == 1)) {
            Obj o = args[0];
            if (is_heap(o) && (heap_type(o) == T_INSTANCE || heap_type(o) == T_FUNCALLABLE) &&
                INST(o)->layout == d[1] &&
                (intptr_t)INST(o)->h.aux32 == FIXVAL(class_slots(d[1])[CL_VERSION])) {
                Obj v = loc_ref(o, d[2]);
                if (LIKELY(v != S(P_UNBOUND_SLOT))) { L->nvals = 1; return v; }
            }
        }
        return funcall(L, d[3], nargs, args);
    case EMF_WRITER:
        if (LIKELY(nargs == 2)) {
            Obj o = args[1];
            if (is_heap(o) && (heap_type(o) == T_INSTANCE || heap_type(o) == T_FUNCALLABLE) &&
                INST(o)->layout == d[1] &&
                (intptr_t)INST(o)->h.aux32 == FIXVAL(class_slots(d[1])[CL_VERSION])) {
                if (is_fixnum(d[2])) INST(o)->slots[FIXVAL(d[2])] = args[0];
                else CDR(d[2]) = args[0];
                L->nvals = 1;
                return args[0];
            }
        }
        return funcall(L, d[3], nargs, args);
    case EMF_CHAIN:
        if (d[2] != S(T)) check_keys(L, d[2], d[3], nargs, args);
        return run_chain(L, d[1], nargs, args, NO_VALUE);
    default:
        err_simple(L, "bad effective method %S", emf);
    }
}

/* The class of an argument: instances of CLOS classes without a call. */
static inline Obj fast_class_of(Lisp *L, Obj o) {
    if (is_heap(o) && heap_type(o) == T_INSTANCE) {
        Obj layout = INST(o)->layout;
        if (LIKELY(is_type(layout, T_INSTANCE) && (INST(layout)->h.flags & INST_CLASS))) return layout;
    }
    return clos_class_of(L, o);
}

static inline Obj call_emf(Lisp *L, Obj emf, int nargs, Obj *args) {
    if (LIKELY(is_type(emf, T_CLOSURE))) return apply_closure(L, emf, nargs, args);
    return run_emf(L, emf, nargs, args);
}

/* Everything but a warm one-key cache: compute the keys, look them up, or ask %GF-MISS. */
static __attribute__((noinline)) Obj dispatch_general(Lisp *L, Obj gf, int nargs, Obj *args) {
    Obj *gs = INST(gf)->slots;
    Obj keys[MAX_DISPATCH_KEYS];
    uint64_t h = 0;
    int k = compute_keys(L, gs, nargs, args, keys, &h);
    if (LIKELY(k >= 0)) {
        Obj emf = cache_lookup(L, gs, k, keys, h);
        if (LIKELY(emf != NO_VALUE)) return call_emf(L, emf, nargs, args);
    }
    Obj emf = funcall2(L, S(P_GF_MISS), gf, list_from_array(L, nargs, args));
    return run_emf(L, emf, nargs, args);
}

/* Look KEY up in a one-key cache (see CACHE_HDR) and run what it holds, or go the general way. */
static inline __attribute__((always_inline)) Obj probe_one_key(Lisp *L, Obj gf, Obj cache, Obj key, int nargs, Obj *args) {
    Obj *d = VEC(cache)->data;
    size_t mask = (VEC(cache)->len - CACHE_HDR) / 2 - 1;
    size_t idx = (size_t)(mix_key(0x12345678ull, key) >> 7) & mask;
    Obj *base = d + CACHE_HDR;
    /* no bound on the probes: cache_insert keeps the table at most half full */
    for (;;) {
        Obj *e = base + idx * 2;
        if (e[1] == NIL) break;
        if (e[0] == key) return call_emf(L, e[1], nargs, args);
        idx = (idx + 1) & mask;
    }
    return dispatch_general(L, gf, nargs, args);
}

/* The one-key path for an argument that is not an instance of a standard class. */
static __attribute__((noinline)) Obj dispatch_one_key_other(Lisp *L, Obj gf, Obj cache, int nargs, Obj *args) {
    Obj key = clos_class_of(L, args[FIXVAL(VEC(cache)->data[2])]);
    return probe_one_key(L, gf, cache, key, nargs, args);
}

/* The one-key path: the argument's class looked up in the cache without computing keys. */
static __attribute__((noinline)) Obj dispatch_one_key(Lisp *L, Obj gf, Obj cache, int nargs, Obj *args) {
    Obj o = args[FIXVAL(VEC(cache)->data[2])];
    if (LIKELY(is_type(o, T_INSTANCE))) {
        Obj layout = INST(o)->layout;
        if (LIKELY(is_type(layout, T_INSTANCE) && (INST(layout)->h.flags & INST_CLASS)))
            return probe_one_key(L, gf, cache, layout, nargs, args);
    }
    return dispatch_one_key_other(L, gf, cache, nargs, args);
}

/* Which way a call goes, decided in few enough registers that neither way pays for saving any:
 * the one-key path when the cache is current and keyed on one argument alone (one specialised
 * argument, no EQL specializers), else the general one. */
Obj clos_dispatch(Lisp *L, Obj gf, int nargs, Obj *args) {
    Obj cache = INST(gf)->slots[GF_CACHE];
    if (LIKELY(is_type(cache, T_VECTOR))) {
        Obj *d = VEC(cache)->data;
        if (LIKELY(d[0] == SYM(S(P_CLOS_EPOCH))->value && is_fixnum(d[2]) && nargs >= FIXVAL(d[3])))
            return dispatch_one_key(L, gf, cache, nargs, args);
    }
    return dispatch_general(L, gf, nargs, args);
}

/* (sys:%standard-dispatch gf &rest arguments): the standard discriminating function of GF, also
 * when GF runs another one (COMPUTE-DISCRIMINATING-FUNCTION, mop-protocols.lisp) */
DEFPRIM(prim_pct_standard_dispatch) {
    Obj gf = args[0];
    if (!is_type(gf, T_FUNCALLABLE) || INST(gf)->nslots < GF_NSLOTS) err_type(L, gf, S(GENERIC_FUNCTION));
    return clos_dispatch(L, gf, nargs - 1, args + 1);
}

/* (sys:%run-emf emf arglist) */
DEFPRIM(prim_pct_run_emf) {
    UNUSED_ARGS;
    Obj small[16];
    size_t n = list_length_proper(L, args[1]);
    if (n > 1u << 20) err_program(L, "too many arguments: %zu", n);
    Obj *a = n <= 16 ? small : (Obj *)gc_alloc(L, sizeof(Obj) * n);
    size_t i = 0;
    for (Obj x = args[1]; x != NIL; x = CDR(x)) a[i++] = CAR(x);
    return run_emf(L, args[0], (int)n, a);
}

/* (sys:%call-next-method chain arglist): run the methods after the first of CHAIN */
DEFPRIM(prim_pct_call_next_method) {
    UNUSED_ARGS;
    Obj chain = args[0], arglist = args[1];
    if (!is_cons(chain)) err_type(L, chain, S(CONS));
    Obj next = CDR(chain);
    if (next == NIL) return funcall2(L, S(P_NO_NEXT_METHOD_CALL), CAR(chain), arglist);
    Obj small[16];
    /* the argument list is usually the short proper list run_chain made: copy it in one walk */
    size_t n = 0;
    Obj x = arglist;
    while (n < 16 && is_cons(x)) { small[n++] = CAR(x); x = CDR(x); }
    if (LIKELY(x == NIL)) return run_chain(L, next, (int)n, small, arglist);
    n = list_length_proper(L, arglist);
    if (n > 1u << 20) err_program(L, "too many arguments: %zu", n);
    Obj *a = (Obj *)gc_alloc(L, sizeof(Obj) * n);
    size_t i = 0;
    for (x = arglist; x != NIL; x = CDR(x)) a[i++] = CAR(x);
    return run_chain(L, next, (int)n, a, arglist);
}

/* (sys:%check-definition-lock name): a class, structure or generic function may not be named by
 * a symbol of a locked package (COMMON-LISP) once the session runs */
DEFPRIM(prim_pct_check_definition_lock) {
    UNUSED_ARGS;
    Obj name = args[0];
    if (is_cons(name) && is_cons(CDR(name))) name = CAR(CDR(name));
    if (is_symbol(name) && name != NIL) check_package_lock(L, name, "defining");
    return NIL;
}

/* (sys:%gf-flag gf): mark a funcallable instance as dispatched by clos_dispatch */
DEFPRIM(prim_pct_set_generic_flag) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_FUNCALLABLE)) err_type(L, args[0], S(GENERIC_FUNCTION));
    if (args[1] != NIL) INST(args[0])->h.flags |= INST_GENERIC;
    else INST(args[0])->h.flags &= (uint8_t)~INST_GENERIC;
    return args[0];
}

/* (sys:%clos-vector &rest objects) and (sys:%clos-vref vector index): simple vectors for the
 * effective methods, usable before the array functions are loaded */
DEFPRIM(prim_pct_clos_vector) {
    Obj v = make_vector(L, (size_t)nargs, NIL);
    if (nargs) memcpy(VEC(v)->data, args, sizeof(Obj) * (size_t)nargs);
    return v;
}

DEFPRIM(prim_pct_clos_vref) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_VECTOR)) err_type(L, args[0], S(SIMPLE_VECTOR));
    size_t i = check_index(L, args[1]);
    if (i >= VEC(args[0])->len) err_index(L, args[0], args[1], VEC(args[0])->len);
    return VEC(args[0])->data[i];
}

const PrimDef clos_prims[] = {
    {"%CLOS-VECTOR", PK_SYS, prim_pct_clos_vector, 0, REST, 0, "(&rest objects)", NULL},
    {"%CLOS-VREF", PK_SYS, prim_pct_clos_vref, 2, 2, 0, "(vector index)", NULL},
    {"CLASS-OF", PK_CL, prim_class_of, 1, 1, 0, "(object)", "Return the class of which OBJECT is a direct instance."},
    {"SLOT-VALUE", PK_CL, prim_slot_value, 2, 2, 0, "(object slot-name)", "Return the value of the slot named SLOT-NAME in OBJECT."},
    {"(SETF SLOT-VALUE)", PK_CL, prim_setf_slot_value, 3, 3, 0, "(new-value object slot-name)", NULL},
    {"%SET-SLOT-VALUE", PK_SYS, prim_pct_set_slot_value, 3, 3, 0, "(object slot-name new-value)", NULL},
    {"SLOT-BOUNDP", PK_CL, prim_slot_boundp, 2, 2, 0, "(instance slot-name)", "Whether the slot named SLOT-NAME of INSTANCE is bound."},
    {"SLOT-MAKUNBOUND", PK_CL, prim_slot_makunbound, 2, 2, 0, "(instance slot-name)", "Make the slot named SLOT-NAME of INSTANCE unbound."},
    {"SLOT-EXISTS-P", PK_CL, prim_slot_exists_p, 2, 2, 0, "(object slot-name)", "Whether OBJECT has a slot named SLOT-NAME."},
    {"%STANDARD-SLOT-ACCESS", PK_SYS, prim_pct_standard_slot_access, 4, 4, 0, "(operation object slot-name new-value)", NULL},
    {"%BUILT-IN-CLASS-NAMES", PK_SYS, prim_pct_built_in_class_names, 0, 0, 0, "()", NULL},
    {"%SET-BUILT-IN-CLASS-TABLE", PK_SYS, prim_pct_set_built_in_class_table, 1, 1, 0, "(classes)", NULL},
    {"%ALLOCATE-INSTANCE", PK_SYS, prim_pct_allocate_instance, 2, 2, 0, "(class flags)", NULL},
    {"%ALLOCATE-FUNCALLABLE-INSTANCE", PK_SYS, prim_pct_allocate_funcallable_instance, 3, 3, 0, "(class function flags)", NULL},
    {"%INSTANCE-VERSION", PK_SYS, prim_pct_instance_version, 1, 1, 0, "(instance)", NULL},
    {"%SET-INSTANCE-VERSION", PK_SYS, prim_pct_set_instance_version, 2, 2, 0, "(instance version)", NULL},
    {"%SWAP-INSTANCE-SLOTS", PK_SYS, prim_pct_swap_instance_slots, 2, 2, 0, "(a b)", NULL},
    {"%SLOT-LOCATION", PK_SYS, prim_pct_slot_location, 2, 2, 0, "(class slot-name)", NULL},
    {"%ENSURE-CURRENT-INSTANCE", PK_SYS, prim_pct_ensure_current_instance, 1, 1, 0, "(instance)", NULL},
    {"%MAKE-STANDARD-INSTANCE-FAST", PK_SYS, prim_pct_make_standard_instance_fast, 3, 3, 0, "(class initargs valid-initargs)", NULL},
    {"%MAKE-INSTANCE-ON-STANDARD-PATH", PK_SYS, prim_pct_make_instance_on_standard_path, 2, 3, 0, "(class-or-name initargs &optional inside)", NULL},
    {"%FILL-STANDARD-SLOTS", PK_SYS, prim_pct_fill_standard_slots, 3, 3, 0, "(instance slot-names initargs)", NULL},
    {"%STRUCTURE-REF", PK_SYS, prim_pct_structure_ref, 3, 3, 0, "(object class index)", NULL},
    {"%STRUCTURE-SET", PK_SYS, prim_pct_structure_set, 4, 4, 0, "(value object class index)", NULL},
    {"%MAKE-STRUCTURE", PK_SYS, prim_pct_make_structure, 1, REST, 0, "(class &rest values)", NULL},
    {"%STRUCTURE-CHECK", PK_SYS, prim_pct_structure_check, 2, 2, 0, "(object class)", NULL},
    {"%STRUCTURE-TYPEP", PK_SYS, prim_pct_structure_typep, 2, 2, 0, "(object class)", NULL},
    {"%CLASS-OBJECT-P", PK_SYS, prim_pct_class_object_p, 1, 1, 0, "(object)", NULL},
    {"%CLASS-TYPEP", PK_SYS, prim_pct_class_typep, 2, 2, 0, "(object class)", NULL},
    {"%GF-CACHE-ADD", PK_SYS, prim_pct_gf_cache_add, 3, 3, 0, "(gf arglist emf)", NULL},
    {"%GF-CACHE-COUNT", PK_SYS, prim_pct_gf_cache_count, 1, 1, 0, "(gf)", NULL},
    {"%STANDARD-DISPATCH", PK_SYS, prim_pct_standard_dispatch, 1, REST, FN_MV, "(gf &rest arguments)", NULL},
    {"%RUN-EMF", PK_SYS, prim_pct_run_emf, 2, 2, FN_MV, "(emf arglist)", NULL},
    {"%CALL-NEXT-METHOD", PK_SYS, prim_pct_call_next_method, 2, 2, FN_MV, "(chain arglist)", NULL},
    {"%CHECK-DEFINITION-LOCK", PK_SYS, prim_pct_check_definition_lock, 1, 1, 0, "(name)", NULL},
    {"%SET-GENERIC-FLAG", PK_SYS, prim_pct_set_generic_flag, 2, 2, 0, "(gf flag)", NULL},
    {0},
};

void clos_init(Lisp *L) {
    prims_register(L, clos_prims);
    SYM(S(P_CLOS_EPOCH))->value = FIX(0);
    SYM(S(P_CLOS_EPOCH))->h.flags |= SYM_SPECIAL;
    SYM(S(P_BUILTIN_CLASS_TABLE))->value = NIL;
    SYM(S(P_BUILTIN_CLASS_TABLE))->h.flags |= SYM_SPECIAL;
}
