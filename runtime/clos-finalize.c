/* clos-finalize.c: what finalizing a class computes (stdlib-lisp/conditions.lisp, %FINALIZE-CLASS),
 * for every DEFCLASS and DEFINE-CONDITION: the class precedence list (CLHS 4.3.5), a topological
 * sort of the class, its superclasses and their local precedence orders, where among the classes
 * free to come next the one with a direct subclass rightmost in the list so far wins; and the
 * effective slots (CLHS 7.5.3). conditions.lisp signals the error of an inconsistent order. */
#include "prim.h"
#include "list.h"
#include "control.h"
#include "clos.h"

static inline Obj direct_supers(Obj c) {
    return is_class_object(c) ? INST(c)->slots[CL_DIRECT_SUPERS] : NIL;
}

static inline bool memq(Obj x, Obj list) {
    for (; is_cons(list); list = CDR(list))
        if (CAR(list) == x) return true;
    return false;
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

static inline Obj *slotd(Lisp *L, Obj d) {
    if (!is_type(d, T_INSTANCE) || INST(d)->nslots < SD_NSLOTS) err_type(L, d, S(STANDARD_OBJECT));
    return INST(d)->slots;
}

/* (sys:%compute-slots class) -> the effective slot definitions of CLASS, whose precedence list is
 * computed, and the number of instance slots: one per name, the least specific classes' names
 * first (the order SBCL gives them); the most specific definition gives the allocation, the first
 * with an initfunction the initform, the first with a type or documentation those, the initargs
 * accumulate most specific first, and any read-only definition makes it read-only. Instance slots
 * get consecutive indices; a class slot shares the cell its most specific definition keeps. */
DEFPRIM(prim_pct_compute_slots) {
    UNUSED_ARGS;
    Obj class = args[0];
    if (!is_class_object(class)) err_type(L, class, S(CLASS));
    Obj cpl = INST(class)->slots[CL_CPL];
    int ncls = 0;
    for (Obj c = cpl; is_cons(c); c = CDR(c)) ncls++;
    Obj *cls = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(ncls ? ncls : 1));
    int ndefs = 0;
    {
        int i = 0;
        for (Obj c = cpl; is_cons(c); c = CDR(c)) {
            cls[i++] = CAR(c);
            if (!is_class_object(CAR(c))) err_type(L, CAR(c), S(CLASS));
            for (Obj d = INST(CAR(c))->slots[CL_DIRECT_SLOTS]; is_cons(d); d = CDR(d)) ndefs++;
        }
    }
    /* every direct definition, most specific class first, and the names in their order */
    Obj *defs = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(2 * ndefs + 1));
    Obj *names = defs + ndefs;
    int nd = 0, nn = 0;
    for (int i = 0; i < ncls; i++)
        for (Obj d = INST(cls[i])->slots[CL_DIRECT_SLOTS]; is_cons(d); d = CDR(d)) defs[nd++] = CAR(d);
    /* names from the least specific class's first: walk the classes backwards, each class's
     * slots in their own order */
    for (int i = ncls - 1; i >= 0; i--)
        for (Obj d = INST(cls[i])->slots[CL_DIRECT_SLOTS]; is_cons(d); d = CDR(d)) {
            Obj name = slotd(L, CAR(d))[SD_NAME];
            bool seen = false;
            for (int j = 0; j < nn && !seen; j++) seen = names[j] == name;
            if (!seen) names[nn++] = name;
        }
    Obj effective_class = SYM(S(P_EFFECTIVE_SLOT_DEFINITION_CLASS))->value;
    Obj head = NIL, tail = NIL;
    intptr_t index = 0;
    for (int n = 0; n < nn; n++) {
        Obj name = names[n];
        Obj *first = NULL;
        Obj initargs = NIL, itail = NIL, initform = NIL, initfunction = NIL, type = NIL, doc = NIL;
        bool read_only = false;
        for (int k = 0; k < nd; k++) {
            Obj *d = slotd(L, defs[k]);
            if (d[SD_NAME] != name) continue;
            if (!first) first = d;
            for (Obj a = d[SD_INITARGS]; is_cons(a); a = CDR(a)) {
                if (memq(CAR(a), initargs)) continue;
                Obj cell = cons(L, CAR(a), NIL);
                if (itail == NIL) initargs = cell; else CDR(itail) = cell;
                itail = cell;
            }
            if (initfunction == NIL && d[SD_INITFUNCTION] != NIL) {
                initfunction = d[SD_INITFUNCTION];
                initform = d[SD_INITFORM];
            }
            if (type == NIL && d[SD_TYPE] != NIL) type = d[SD_TYPE];
            if (doc == NIL && d[SD_DOCUMENTATION] != NIL) doc = d[SD_DOCUMENTATION];
            if (d[SD_READ_ONLY] != NIL) read_only = true;
        }
        Instance *e = (Instance *)heap_alloc(L, T_INSTANCE, sizeof(Instance));
        e->layout = effective_class;
        e->nslots = SD_NSLOTS;
        e->slots = (Obj *)gc_alloc(L, SD_NSLOTS * sizeof(Obj));
        e->fn = NIL;
        Obj *es = e->slots;
        es[SD_NAME] = name;
        es[SD_INITARGS] = initargs;
        es[SD_INITFORM] = initform;
        es[SD_INITFUNCTION] = initfunction;
        es[SD_READERS] = NIL;
        es[SD_WRITERS] = NIL;
        es[SD_ALLOCATION] = first[SD_ALLOCATION];
        es[SD_TYPE] = type == NIL ? S(T) : type;
        es[SD_DOCUMENTATION] = doc;
        es[SD_READ_ONLY] = boolean(L, read_only);
        if (first[SD_ALLOCATION] == S(K_CLASS)) {
            /* the cell lives in the defining class's direct slot definition */
            if (!is_cons(first[SD_LOCATION])) first[SD_LOCATION] = cons(L, name, S(P_UNBOUND_SLOT));
            es[SD_LOCATION] = first[SD_LOCATION];
        } else {
            es[SD_LOCATION] = FIX(index);
            index++;
        }
        Obj cell = cons(L, (Obj)e, NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        tail = cell;
    }
    return values2(L, head, FIX(index));
}


const PrimDef clos_finalize_prims[] = {
    {"%CPL-ORDER", PK_SYS, prim_pct_cpl_order, 1, 1, FN_MV, "(class)", NULL},
    {"%COMPUTE-SLOTS", PK_SYS, prim_pct_compute_slots, 1, 1, FN_MV, "(class)", NULL},
    {0},
};

void clos_finalize_init(Lisp *L) {
    prims_register(L, clos_finalize_prims);
}
