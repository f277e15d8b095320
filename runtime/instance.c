/* instance.c: instances: the storage shared by conditions, structures and CLOS objects. */
#include "prim.h"
#include "eval.h"
#include "lstring.h"
#include <stdio.h>

static Obj check_instance(Lisp *L, Obj o) {
    if (!is_type(o, T_INSTANCE) && !is_type(o, T_FUNCALLABLE)) err_type(L, o, S(STANDARD_OBJECT));
    return o;
}

static size_t check_slot_index(Lisp *L, Obj inst, Obj index) {
    size_t i = check_index(L, index);
    if (i >= INST(inst)->nslots) err_index(L, inst, index, INST(inst)->nslots);
    return i;
}

static Obj alloc_instance(Lisp *L, HeapType t, Obj layout, Obj nslots_obj) {
    size_t n = check_index(L, nslots_obj);
    gc_check_request(L, n * sizeof(Obj));
    Instance *in = (Instance *)heap_alloc(L, t, sizeof(Instance));
    in->layout = layout;
    in->nslots = n;
    in->slots = (Obj *)gc_alloc(L, (n ? n : 1) * sizeof(Obj));
    for (size_t i = 0; i < n; i++) in->slots[i] = S(P_UNBOUND_SLOT);
    in->fn = NIL;
    return (Obj)in;
}

/* (sys:%make-instance layout nslots &optional flags) */
DEFPRIM(prim_pct_make_instance) {
    Obj o = alloc_instance(L, T_INSTANCE, args[0], args[1]);
    if (nargs > 2) INST(o)->h.flags = (uint8_t)check_fixnum(L, args[2]);
    return o;
}

/* (sys:%make-funcallable-instance layout nslots function) */
DEFPRIM(prim_pct_make_funcallable_instance) {
    UNUSED_ARGS;
    Obj o = alloc_instance(L, T_FUNCALLABLE, args[0], args[1]);
    INST(o)->fn = args[2];
    return o;
}

DEFPRIM(prim_pct_set_funcallable_instance_function) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_FUNCALLABLE)) err_type(L, args[0], S(GENERIC_FUNCTION));
    INST(args[0])->fn = check_function(L, args[1]);
    return args[1];
}

DEFPRIM(prim_pct_instance_p) { UNUSED_ARGS; return boolean(L, is_type(args[0], T_INSTANCE) || is_type(args[0], T_FUNCALLABLE)); }
DEFPRIM(prim_pct_instance_layout) { UNUSED_ARGS; return INST(check_instance(L, args[0]))->layout; }
DEFPRIM(prim_pct_set_instance_layout) { UNUSED_ARGS; INST(check_instance(L, args[0]))->layout = args[1]; return args[1]; }
DEFPRIM(prim_pct_instance_length) { UNUSED_ARGS; return FIX((intptr_t)INST(check_instance(L, args[0]))->nslots); }
DEFPRIM(prim_pct_instance_flags) { UNUSED_ARGS; return FIX(INST(check_instance(L, args[0]))->h.flags); }
DEFPRIM(prim_pct_set_instance_flags) {
    UNUSED_ARGS;
    INST(check_instance(L, args[0]))->h.flags = (uint8_t)check_fixnum(L, args[1]);
    return args[1];
}

DEFPRIM(prim_pct_instance_ref) {
    UNUSED_ARGS;
    Obj in = check_instance(L, args[0]);
    return INST(in)->slots[check_slot_index(L, in, args[1])];
}

DEFPRIM(prim_pct_instance_set) {
    UNUSED_ARGS;
    Obj in = check_instance(L, args[0]);
    INST(in)->slots[check_slot_index(L, in, args[1])] = args[2];
    return args[2];
}

/* (sys:%instance-boundp instance index) */
DEFPRIM(prim_pct_instance_boundp) {
    UNUSED_ARGS;
    Obj in = check_instance(L, args[0]);
    return boolean(L, INST(in)->slots[check_slot_index(L, in, args[1])] != S(P_UNBOUND_SLOT));
}

/* (sys:%resize-instance instance nslots): keep the first slots, new ones unbound */
DEFPRIM(prim_pct_resize_instance) {
    UNUSED_ARGS;
    Obj in = check_instance(L, args[0]);
    size_t n = check_index(L, args[1]);
    gc_check_request(L, n * sizeof(Obj));
    Obj *slots = (Obj *)gc_alloc(L, (n ? n : 1) * sizeof(Obj));
    for (size_t i = 0; i < n; i++) slots[i] = i < INST(in)->nslots ? INST(in)->slots[i] : S(P_UNBOUND_SLOT);
    INST(in)->slots = slots;
    INST(in)->nslots = n;
    return in;
}

DEFPRIM(prim_pct_copy_instance) {
    UNUSED_ARGS;
    Obj in = check_instance(L, args[0]);
    Instance *src = INST(in);
    Obj o = alloc_instance(L, heap_type(in), src->layout, FIX((intptr_t)src->nslots));
    memcpy(INST(o)->slots, src->slots, src->nslots * sizeof(Obj));
    INST(o)->h.flags = src->h.flags;
    INST(o)->fn = src->fn;
    return o;
}

/* (sys:%address-string object): the object's address in hex, for #<... {addr}> */
DEFPRIM(prim_pct_address_string) {
    UNUSED_ARGS;
    char buf[32];
    snprintf(buf, sizeof buf, "%lX", (unsigned long)WORD(args[0]));
    return string_from_cstr(L, buf);
}

const PrimDef instance_prims[] = {
    {"%ADDRESS-STRING", PK_SYS, prim_pct_address_string, 1, 1, 0, "(object)", NULL},
    {"%MAKE-INSTANCE", PK_SYS, prim_pct_make_instance, 2, 3, 0, "(layout nslots &optional flags)", NULL},
    {"%MAKE-FUNCALLABLE-INSTANCE", PK_SYS, prim_pct_make_funcallable_instance, 3, 3, 0, "(layout nslots function)", NULL},
    {"%SET-FUNCALLABLE-INSTANCE-FUNCTION", PK_SYS, prim_pct_set_funcallable_instance_function, 2, 2, 0, "(instance function)", NULL},
    {"%INSTANCE-P", PK_SYS, prim_pct_instance_p, 1, 1, 0, "(object)", NULL},
    {"%INSTANCE-LAYOUT", PK_SYS, prim_pct_instance_layout, 1, 1, 0, "(instance)", NULL},
    {"%SET-INSTANCE-LAYOUT", PK_SYS, prim_pct_set_instance_layout, 2, 2, 0, "(instance layout)", NULL},
    {"%INSTANCE-LENGTH", PK_SYS, prim_pct_instance_length, 1, 1, 0, "(instance)", NULL},
    {"%INSTANCE-FLAGS", PK_SYS, prim_pct_instance_flags, 1, 1, 0, "(instance)", NULL},
    {"%SET-INSTANCE-FLAGS", PK_SYS, prim_pct_set_instance_flags, 2, 2, 0, "(instance flags)", NULL},
    {"%INSTANCE-REF", PK_SYS, prim_pct_instance_ref, 2, 2, 0, "(instance index)", NULL},
    {"%INSTANCE-SET", PK_SYS, prim_pct_instance_set, 3, 3, 0, "(instance index value)", NULL},
    {"%INSTANCE-BOUNDP", PK_SYS, prim_pct_instance_boundp, 2, 2, 0, "(instance index)", NULL},
    {"%RESIZE-INSTANCE", PK_SYS, prim_pct_resize_instance, 2, 2, 0, "(instance nslots)", NULL},
    {"%COPY-INSTANCE", PK_SYS, prim_pct_copy_instance, 1, 1, 0, "(instance)", NULL},
    {0},
};

void instance_init(Lisp *L) {
    prims_register(L, instance_prims);
    SYM(S(P_UNBOUND_SLOT))->value = S(P_UNBOUND_SLOT);
    SYM(S(P_UNBOUND_SLOT))->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
}
