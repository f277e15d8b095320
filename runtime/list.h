/* list.h: list helpers shared by the C runtime. */
#ifndef TINYCL_LIST_H
#define TINYCL_LIST_H

#include "state.h"
#include "gc.h"

Obj list_from_array(Lisp *L, int n, Obj *v);
/* Length of a proper list; TYPE-ERROR for dotted or circular lists. */
size_t list_length_proper(Lisp *L, Obj l);
Obj list_reverse(Lisp *L, Obj l);
/* NRECONC: the proper list X reversed destructively onto TAIL. */
Obj list_nreconc(Lisp *L, Obj x, Obj tail);
Obj list_copy(Lisp *L, Obj l);
Obj list_nth(Obj l, size_t n);
static inline Obj list1(Lisp *L, Obj a) { return cons(L, a, NIL); }
static inline Obj list2(Lisp *L, Obj a, Obj b) { return cons(L, a, cons(L, b, NIL)); }
static inline Obj list3(Lisp *L, Obj a, Obj b, Obj c) { return cons(L, a, cons(L, b, cons(L, c, NIL))); }

#endif
