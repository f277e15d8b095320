/* control.c: unwinding through the frame stack, catch/throw, special bindings, values. */
#include "control.h"
#include "error.h"
#include <stdio.h>
#include <stdlib.h>

/* Land in frame F: restore the dynamic state it saved. F stays pushed. */
static inline __attribute__((always_inline)) void land(Lisp *L, Frame *f) {
    if (L->special_sp > f->special_sp) unbind_specials(L, f->special_sp);
    /* once unwound well above the soft stack limit, the headroom is reserved again (a limit above
     * the soft one is the collector's depth probe: it stays) */
    if (L->stack_limit < L->stack_soft_limit && (char *)f > L->stack_soft_limit + L->cfg.stack_headroom) {
        L->stack_limit = L->stack_soft_limit;
        lisp_request_poll(L);   /* the safe point's compare takes the new limit */
    }
    L->calls = f->calls;
    L->error_depth = f->error_depth;
    L->frames = f;
}

_Noreturn void unwind_to(Lisp *L, Frame *target, int code) {
    for (Frame *f = L->frames; f != target; f = f->prev) {
        if (!f) {
            fputs("tinycl: internal error: unwind target is not on the frame stack\n", stderr);
            abort();
        }
        if (f->kind == FR_UNWIND_PROTECT) {
            L->unwind_target = target;
            L->unwind_code = code;
            land(L, f);
            FRAME_LONGJMP(f, JUMP_UNWIND);
        }
    }
    land(L, target);
    FRAME_LONGJMP(target, code);
}

_Noreturn void unwind_continue(Lisp *L, Frame *target, int code) { unwind_to(L, target, code); }

int lisp_pcall(Lisp *L, FrameKind kind, void (*fn)(Lisp *L, void *ud), void *ud) {
    Frame fr;
    int code = 0;
    LISP_TRY(L, &fr, kind, NIL) {
        fn(L, ud);
    } LISP_CATCH(L, &fr) {
        code = LISP_JUMP_CODE;
    } LISP_END_TRY;
    return code;
}

bool frame_reachable(Lisp *L, Frame *target) {
    for (Frame *f = L->frames; f; f = f->prev)
        if (f == target) return true;
    return false;
}

Frame *frame_toplevel(Lisp *L) {
    for (Frame *f = L->frames; f; f = f->prev)
        if (f->kind == FR_TOPLEVEL) return f;
    return NULL;
}

Frame *frame_outermost_toplevel(Lisp *L) {
    Frame *found = NULL;
    for (Frame *f = L->frames; f; f = f->prev)
        if (f->kind == FR_TOPLEVEL) found = f;
    return found;
}

/* One walk finds the catch and sees whether an UNWIND-PROTECT lies between: without one (the
 * common case) the throw lands at once, instead of unwind_to walking the frames again. The tag
 * must be found before any cleanup runs (CLHS THROW), so a cleanup on the way defers to unwind_to. */
_Noreturn void throw_to_tag(Lisp *L, Obj tag, Obj value) {
    bool cleanup = false;
    for (Frame *f = L->frames; f; f = f->prev) {
        if (f->kind == FR_CATCH && f->tag == tag) {
            /* values are already in L->values / nvals; keep the primary there too */
            if (L->nvals == 1) L->values[0] = value;
            if (UNLIKELY(cleanup)) unwind_to(L, f, JUMP_RETURN);
            land(L, f);
            FRAME_LONGJMP(f, JUMP_RETURN);
        }
        if (f->kind == FR_UNWIND_PROTECT) cleanup = true;
    }
    err_control(L, "Attempt to THROW to a tag that does not exist: %S", tag);
}

void special_grow(Lisp *L) {
    size_t cap = L->special_cap ? L->special_cap * 2 : 256;
    SpecialBinding *n = (SpecialBinding *)gc_alloc(L, cap * sizeof(SpecialBinding));
    if (L->special_sp) memcpy(n, L->specials, L->special_sp * sizeof(SpecialBinding));
    L->specials = n;
    L->special_cap = cap;
}

int values_save(Lisp *L, Obj v, Obj *out) {
    int n = L->nvals;
    if (n == 1) out[0] = v;
    else memcpy(out, L->values, (size_t)n * sizeof(Obj));
    return n;
}

Obj values_restore(Lisp *L, int n, Obj *saved) {
    L->nvals = n;
    if (n == 1) return saved[0];
    memcpy(L->values, saved, (size_t)n * sizeof(Obj));
    return n ? saved[0] : NIL;
}

Obj values_list(Lisp *L, Obj primary) {
    if (L->nvals == 1) return cons(L, primary, NIL);
    Obj r = NIL;
    for (int i = L->nvals - 1; i >= 0; i--) r = cons(L, L->values[i], r);
    return r;
}
