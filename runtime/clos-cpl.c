/* clos-cpl.c: the class precedence list (CLHS 4.3.5), computed when a class is finalized: a
 * topological sort of the class, its superclasses and their local precedence orders, where among
 * the classes free to come next the one with a direct subclass rightmost in the list so far wins.
 * stdlib-lisp/conditions.lisp (%COMPUTE-CPL) signals the error of an inconsistent order; this is
 * its loop, which ran in Lisp for every DEFCLASS and DEFINE-CONDITION. */
#include "prim.h"
#include "list.h"
#include "control.h"
#include "clos.h"

static inline Obj direct_supers(Obj c) {
    return is_class_object(c) ? INST(c)->slots[CL_DIRECT_SUPERS] : NIL;
}

static int index_of(Obj x, const Obj *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i] == x) return i;
    return -1;
}

/* (sys:%cpl-order class) -> the class precedence list of CLASS, or NIL and the classes left
 * unordered when the local precedence orders are inconsistent */
DEFPRIM(prim_pct_cpl_order) {
    UNUSED_ARGS;
    Obj class = args[0];
    /* the classes, in the order a depth-first walk of the direct superclasses first meets them */
    size_t cap = 32;
    Obj *cls = (Obj *)gc_alloc(L, sizeof(Obj) * cap);
    int n = 0;
    cls[n++] = class;
    Obj pending = direct_supers(class);
    while (is_cons(pending)) {
        Obj c = CAR(pending);
        pending = CDR(pending);
        if (index_of(c, cls, n) >= 0) continue;
        if ((size_t)n == cap) {
            Obj *bigger = (Obj *)gc_alloc(L, sizeof(Obj) * cap * 2);
            memcpy(bigger, cls, sizeof(Obj) * cap);
            cls = bigger;
            cap *= 2;
        }
        cls[n++] = c;
        Obj ds = direct_supers(c);
        if (is_cons(ds)) pending = list_nreconc(L, list_reverse(L, ds), pending);
    }
    /* the constraints (before . after) of each local precedence order, by index */
    int ncons = 0;
    for (int i = 0; i < n; i++)
        for (Obj s = direct_supers(cls[i]); is_cons(s); s = CDR(s)) ncons++;
    int *before = (int *)gc_alloc_atomic(L, sizeof(int) * (size_t)(2 * ncons + 3 * n + 1));
    int *after = before + ncons;
    int *chosen_order = after + ncons;     /* the result, by index */
    int *candidates = chosen_order + n;
    char *left = (char *)(candidates + n);  /* n flags, within the last n ints */
    int k = 0;
    for (int i = 0; i < n; i++) {
        int prev = i;
        for (Obj s = direct_supers(cls[i]); is_cons(s); s = CDR(s)) {
            int j = index_of(CAR(s), cls, n);
            before[k] = prev;
            after[k] = j;
            k++;
            prev = j;
        }
    }
    for (int i = 0; i < n; i++) left[i] = 1;
    for (int done = 0; done < n; done++) {
        /* the classes left that no constraint from a class left holds back, in walk order */
        int nc = 0;
        for (int i = 0; i < n; i++) {
            if (!left[i]) continue;
            bool blocked = false;
            for (int c = 0; c < ncons && !blocked; c++)
                if (after[c] == i && left[before[c]]) blocked = true;
            if (!blocked) candidates[nc++] = i;
        }
        if (nc == 0) {
            Obj rest = NIL;
            for (int i = n - 1; i >= 0; i--)
                if (left[i]) rest = cons(L, cls[i], rest);
            return values2(L, NIL, rest);
        }
        int chosen = candidates[0];
        if (nc > 1) {
            /* the candidate that is a direct superclass of the rightmost class so far */
            for (int r = done - 1; r >= 0; r--) {
                Obj ds = direct_supers(cls[chosen_order[r]]);
                int found = -1;
                for (int c = 0; c < nc && found < 0; c++)
                    for (Obj s = ds; is_cons(s); s = CDR(s))
                        if (CAR(s) == cls[candidates[c]]) { found = candidates[c]; break; }
                if (found >= 0) { chosen = found; break; }
            }
        }
        chosen_order[done] = chosen;
        left[chosen] = 0;
    }
    Obj cpl = NIL;
    for (int i = n - 1; i >= 0; i--) cpl = cons(L, cls[chosen_order[i]], cpl);
    return values2(L, cpl, NIL);
}

const PrimDef clos_cpl_prims[] = {
    {"%CPL-ORDER", PK_SYS, prim_pct_cpl_order, 1, 1, FN_MV, "(class)", NULL},
    {0},
};

void clos_cpl_init(Lisp *L) {
    prims_register(L, clos_cpl_prims);
}
