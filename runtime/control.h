/* control.h: the frame stack, non-local exits, unwinding and special (dynamic) bindings. */
#ifndef TINYCL_CONTROL_H
#define TINYCL_CONTROL_H

#include <string.h>

#include "state.h"
#include "gc.h"

/* Push a frame; then call FRAME_SETJMP in the same function (setjmp must not return
 * through a caller). Locals modified after FRAME_SETJMP and read after a jump must be volatile. */
#define FRAME_PUSH(L, fr, kind_, tag_)         \
    do {                                       \
        (fr)->prev = (L)->frames;              \
        (fr)->kind = (kind_);                  \
        (fr)->tag = (tag_);                    \
        (fr)->special_sp = (L)->special_sp;    \
        (fr)->calls = (L)->calls;              \
        (fr)->error_depth = (L)->error_depth;  \
        (L)->frames = (fr);                    \
    } while (0)
#define FRAME_SETJMP(fr) sigsetjmp((fr)->jb, 0)

static inline void frame_pop(Lisp *L, Frame *fr) { L->frames = fr->prev; }

/* Leave to `target`, running unwind-protect cleanups on the way; `code` is what
 * the target's FRAME_SETJMP returns. */
_Noreturn void unwind_to(Lisp *L, Frame *target, int code);

/* After an unwind-protect frame caught JUMP_UNWIND and ran its cleanup: go on. */
_Noreturn void unwind_continue(Lisp *L, Frame *target, int code);

/* The innermost and outermost FR_TOPLEVEL frames, or NULL. */
/* Whether TARGET is on the frame stack of this evaluation (not, say, of one suspended in the debugger). */
bool frame_reachable(Lisp *L, Frame *target);
Frame *frame_toplevel(Lisp *L);
Frame *frame_outermost_toplevel(Lisp *L);

/* catch/throw */
_Noreturn void throw_to_tag(Lisp *L, Obj tag, Obj value);

/* special bindings */
void special_grow(Lisp *L);
static inline void bind_special(Lisp *L, Obj sym, Obj val) {
    if (UNLIKELY(L->special_sp == L->special_cap)) special_grow(L);
    SpecialBinding *b = &L->specials[L->special_sp++];
    b->sym = sym;
    b->old = SYM(sym)->value;
    SYM(sym)->value = val;
}
static inline void unbind_specials(Lisp *L, size_t to) {
    while (L->special_sp > to) {
        SpecialBinding *b = &L->specials[--L->special_sp];
        SYM(b->sym)->value = b->old;
    }
}

/* Forget the bindings above the stack's top: unbinding leaves them in place, and the collector
 * would keep alive what their old values hold (a handler's closure over a huge list, say) until
 * later bindings overwrite them. The session calls this between evaluations. */
static inline void specials_clear_stale(Lisp *L) {
    if (L->special_cap > L->special_sp)
        memset(&L->specials[L->special_sp], 0, (L->special_cap - L->special_sp) * sizeof L->specials[0]);
}

/* Multiple values: L->nvals is valid after every evaluation. When nvals == 1 the
 * value is the returned Obj and values[] may be stale; otherwise values[0..nvals-1]. */
static inline Obj values1(Lisp *L, Obj v) { L->nvals = 1; return v; }
static inline Obj values0(Lisp *L) { L->nvals = 0; return NIL; }
static inline Obj values2(Lisp *L, Obj a, Obj b) {
    L->values[0] = a; L->values[1] = b; L->nvals = 2; return a;
}
static inline Obj values3(Lisp *L, Obj a, Obj b, Obj c) {
    L->values[0] = a; L->values[1] = b; L->values[2] = c; L->nvals = 3; return a;
}
/* Copy the current values (primary `v`) into out[] (room for MULTIPLE_VALUES_LIMIT); returns count. */
int values_save(Lisp *L, Obj v, Obj *out);
/* Reinstate saved values; returns the primary. */
Obj values_restore(Lisp *L, int n, Obj *saved);
/* The current values as a fresh list. */
Obj values_list(Lisp *L, Obj primary);

/* A BlockTag marks a live block or tagbody for non-local exits from closures. */
typedef struct BlockTag { Frame *frame; bool live; } BlockTag;

#endif
