/* gray.c: the calls from the C stream functions into the Gray stream protocol's generic
 * functions (see gray.h); only streams of kind SK_GRAY come here, so built-in streams never pay. */
#include "gray.h"
#include "clos.h"
#include "eval.h"
#include "error.h"
#include "lstring.h"
#include "object.h"
#include "list.h"

static Obj gray_protocol(Lisp *L) {
    Obj v = SYM(S(P_GRAY_PROTOCOL))->value;
    return is_type(v, T_VECTOR) && VEC(v)->len == GRAY_NOPS ? v : NIL;
}

Obj gray_stream_class_name(Lisp *L) {
    Obj v = gray_protocol(L);
    return v == NIL ? NIL : INST(VEC(v)->data[GRAY_CLASS])->slots[CL_NAME];
}

bool gray_instance_p(Lisp *L, Obj o) {
    if (!is_type(o, T_INSTANCE)) return false;
    Obj v = gray_protocol(L);
    if (v == NIL) return false;
    Obj cls = INST(o)->layout, super = VEC(v)->data[GRAY_CLASS];
    if (!is_class_object(cls)) return false;
    if (cls == super) return true;
    for (Obj c = INST(cls)->slots[CL_CPL]; is_cons(c); c = CDR(c))
        if (CAR(c) == super) return true;
    return false;
}

Obj gray_call(Lisp *L, GrayOp op, Obj instance, int nargs, const Obj *args) {
    Obj v = gray_protocol(L);
    if (v == NIL) err_type(L, instance, S(STREAM));
    Obj a[4] = {instance, NIL, NIL, NIL};
    for (int i = 0; i < nargs && i < 3; i++) a[i + 1] = args[i];
    return funcall(L, VEC(v)->data[op], nargs + 1, a);
}

int gray_read_char(Lisp *L, Obj instance, GrayOp op) {
    Obj c = gray_call0(L, op, instance);
    if (is_char(c)) return (int)char_code(c);
    if (c == S(K_EOF)) return -1;
    if (c == NIL && op == GRAY_READ_CHAR_NO_HANG) return -2;
    err_type(L, c, list3(L, S(OR), S(CHARACTER), list2(L, S(MEMBER), S(K_EOF))));
}

Obj gray_read_byte(Lisp *L, Obj instance) {
    Obj b = gray_call0(L, GRAY_READ_BYTE, instance);
    if (b == S(K_EOF)) return NO_VALUE;
    if (!is_integer(b)) err_type(L, b, list3(L, S(OR), S(INTEGER), list2(L, S(MEMBER), S(K_EOF))));
    return b;
}

void gray_write_u32(Lisp *L, Obj instance, const uint32_t *chars, size_t n) {
    if (n == 1) { gray_call1(L, GRAY_WRITE_CHAR, instance, make_char(chars[0])); return; }
    Obj str = string_from_u32(L, chars, n);
    Obj a[3] = {str, FIX(0), FIX((intptr_t)n)};
    gray_call(L, GRAY_WRITE_STRING, instance, 3, a);
}
