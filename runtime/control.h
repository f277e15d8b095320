/* control.h: the frame stack, non-local exits, unwinding and special (dynamic) bindings. */
#ifndef TINYCL_CONTROL_H
#define TINYCL_CONTROL_H

#include <string.h>

#include "state.h"
#include "gc.h"

/* Push a frame; then call FRAME_SETJMP in the same function (setjmp must not return
 * through a caller). Locals modified after FRAME_SETJMP and read after a jump must be volatile.
 * Only the exit points of the evaluator (nodes.c) and the protected regions below do this. */
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

static inline void frame_pop(Lisp *L, Frame *fr) { L->frames = fr->prev; }

/* Leave to `target`, running unwind-protect cleanups on the way; `code` is what
 * the target's FRAME_SETJMP returns. */
_Noreturn void unwind_to(Lisp *L, Frame *target, int code);

/* After an unwind-protect frame caught JUMP_UNWIND and ran its cleanup: go on. */
_Noreturn void unwind_continue(Lisp *L, Frame *target, int code);

/* ---- Protected regions: the one way C code catches a non-local exit ----
 *
 * A region runs its body under a frame. When the body ends normally the frame is popped and the
 * special bindings made in it are undone. When an exit lands in the frame (an error or interrupt
 * in a FR_TOPLEVEL frame, a THROW to a FR_CATCH tag, a RETURN-FROM to a FR_BLOCK, ...) the
 * dynamic state of the entry is back (special bindings, call records, error depth: see land() in
 * control.c), the frame is popped, and the handler runs with LISP_JUMP_CODE, the JUMP_* code.
 *
 *     Frame fr;
 *     LISP_TRY(L, &fr, FR_TOPLEVEL, NIL) {
 *         ... body ...
 *     } LISP_CATCH(L, &fr) {
 *         ... handler: LISP_JUMP_CODE says why ...
 *     } LISP_END_TRY;
 *
 * The body must end by falling through (no return, break or goto out of it: the frame would stay
 * pushed); the handler may leave as it likes. A local the body changes and the handler or the code
 * after the region reads must be volatile. The body's code runs in the scope of the macros'
 * block, so `break` and `continue` in the handler act on the enclosing loop. */
#define LISP_TRY(L, fr, kind_, tag_)                     \
    {                                                    \
        FRAME_PUSH(L, fr, kind_, tag_);                  \
        const int lisp_try_code_ = FRAME_SETJMP(fr);     \
        if (lisp_try_code_ == 0) {
#define LISP_CATCH(L, fr)                                \
            frame_pop(L, fr);                            \
            unbind_specials(L, (fr)->special_sp);        \
        } else {                                         \
            frame_pop(L, fr);
#define LISP_JUMP_CODE lisp_try_code_
#define LISP_END_TRY } }

/* Cleanup that runs however the body is left, as UNWIND-PROTECT:
 *
 *     Frame fr;
 *     LISP_UNWIND_PROTECT_BEGIN(L, &fr) {
 *         ... body ...
 *     } LISP_UNWIND_PROTECT_EXIT {
 *         ... cleanup: runs after the body ends, and when an exit passes through ...
 *     } LISP_UNWIND_PROTECT_END;
 *
 * The cleanup runs with the frame popped and the body's special bindings undone. After it an
 * exit that passed through goes on to its target. The body must fall through as in LISP_TRY; the cleanup may leave (a RETURN-FROM in a cleanup form replaces the
 * exit). LISP_UNWINDING is true in the cleanup when an exit passes through. */
#define LISP_UNWIND_PROTECT_BEGIN(L, fr)                 \
    {                                                    \
        Frame *const lisp_up_frame_ = (fr);              \
        Frame *volatile lisp_up_target_ = NULL;          \
        volatile int lisp_up_code_ = 0;                  \
        FRAME_PUSH(L, lisp_up_frame_, FR_UNWIND_PROTECT, NIL); \
        if (FRAME_SETJMP(lisp_up_frame_) == 0) {
#define LISP_UNWIND_PROTECT_EXIT                         \
            frame_pop(L, lisp_up_frame_);                \
            unbind_specials(L, lisp_up_frame_->special_sp); \
        } else {                                         \
            lisp_up_target_ = L->unwind_target;          \
            lisp_up_code_ = L->unwind_code;              \
            frame_pop(L, lisp_up_frame_);                \
        }                                                \
        {
#define LISP_UNWINDING (lisp_up_target_ != NULL)
#define LISP_UNWIND_PROTECT_END                          \
        }                                                \
        if (lisp_up_target_) unwind_continue(L, lisp_up_target_, lisp_up_code_); \
    }

/* The protected call (as Lua's luaD_rawrunprotected): FN(L, UD) in a frame of KIND (FR_TOPLEVEL:
 * errors and interrupts land here). Returns 0 when FN returned, else the JUMP_* code of the exit
 * that ended it; either way with the frame popped and the special bindings of the entry. State FN
 * leaves for the caller goes through UD, so no caller needs volatile locals. */
int lisp_pcall(Lisp *L, FrameKind kind, void (*fn)(Lisp *L, void *ud), void *ud);

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
