/* nodes.c: running analysed code: one evaluator per node kind, function calls and closures. */
#include "profile.h"
#include "node.h"
#include "xref.h"
#include "gc.h"
#include "error.h"
#include "package.h"
#include "printer.h"
#include "clos.h"

Obj ev_const(Lisp *L, Node *n, Env *env) {
    (void)env;
    L->nvals = 1;
    return ((ConstNode *)n)->value;
}

Obj ev_lref0(Lisp *L, Node *n, Env *env) {
    L->nvals = 1;
    return env->slots[((VarNode *)n)->index];
}

Obj ev_lref(Lisp *L, Node *n, Env *env) {
    VarNode *v = (VarNode *)n;
    L->nvals = 1;
    return env_up(env, v->depth)->slots[v->index];
}

Obj ev_lset(Lisp *L, Node *n, Env *env) {
    VarNode *v = (VarNode *)n;
    Obj x;
    ARG_OR_EXIT(x, L, v->value, env);
    env_up(env, v->depth)->slots[v->index] = x;
    L->nvals = 1;
    return x;
}

/* An assignment of a variable of the current frame. */
Obj ev_lset0(Lisp *L, Node *n, Env *env) {
    VarNode *v = (VarNode *)n;
    Obj x;
    ARG_OR_EXIT(x, L, v->value, env);
    env->slots[v->index] = x;
    L->nvals = 1;
    return x;
}

Obj ev_gref(Lisp *L, Node *n, Env *env) {
    (void)env;
    Obj sym = ((SymNode *)n)->sym;
    Obj v = SYM(sym)->value;
    if (UNLIKELY(v == UNBOUND)) err_unbound_variable(L, sym);
    L->nvals = 1;
    return v;
}

Obj ev_gset(Lisp *L, Node *n, Env *env) {
    SymNode *s = (SymNode *)n;
    Obj x;
    EVAL_OR_EXIT(x, L, s->value, env);
    if (UNLIKELY(SYM(s->sym)->h.flags & SYM_CONSTANT)) err_program(L, "Can't set the constant %S", s->sym);
    SYM(s->sym)->value = x;
    L->nvals = 1;
    return x;
}

Obj ev_if(Lisp *L, Node *n, Env *env) {
    IfNode *i = (IfNode *)n;
    Obj t;
    EVAL_OR_EXIT(t, L, i->test, env);
    return t != NIL ? EVAL(L, i->then, env) : EVAL(L, i->els, env);
}

Obj ev_progn(Lisp *L, Node *n, Env *env) {
    SeqNode *s = (SeqNode *)n;
    int last = s->count - 1;
    for (int i = 0; i < last; i++) {
        Obj r = EVAL(L, s->forms[i], env);
        if (UNLIKELY(r == UNWIND_MARK)) return r;
    }
    return EVAL(L, s->forms[last], env);
}

static Env *new_frame(Lisp *L, Env *parent, int size) {
    Env *e = (Env *)gc_alloc(L, sizeof(Env) + sizeof(Obj) * (size_t)size);
    e->parent = parent;
    return e;
}

static Obj let_body(Lisp *L, LetNode *ln, Env *env, Env *body_env);

Obj ev_let(Lisp *L, Node *n, Env *env) {
    LetNode *ln = (LetNode *)n;
    if (!ln->frame_size) return let_body(L, ln, env, env);
    /* a frame of its own: chain it in the lambda frame's hidden slot while it is entered, for the
     * locals a backtrace shows (a non-local exit leaves the entry behind: it shows a LET left) */
    Env *body_env = new_frame(L, env, ln->frame_size);
    Obj *track = &env_up(body_env, ln->track_depth)->slots[ln->track_index];
    Obj outer = *track;
    LetTrack *t = (LetTrack *)gc_alloc(L, sizeof(LetTrack));
    t->prev = outer == OBJ(0) ? NULL : (LetTrack *)outer;
    t->env = body_env;
    t->let = ln;
    *track = (Obj)t;
    Obj r = let_body(L, ln, env, body_env);
    *track = outer;
    return r;
}

static Obj let_body(Lisp *L, LetNode *ln, Env *env, Env *body_env) {
    size_t sp = L->special_sp;
    if (ln->sequential) {
        for (int i = 0; i < ln->count; i++) {
            Binding *b = &ln->b[i];
            Obj v = NIL;
            if (b->init) {
                v = EVAL(L, b->init, body_env);
                if (UNLIKELY(v == UNWIND_MARK)) { unbind_specials(L, sp); return v; }
            }
            if (b->special) bind_special(L, b->sym, v);
            else env_up(body_env, b->depth)->slots[b->index] = v;
        }
    } else {
        Obj small[8];
        Obj *vals = ln->count <= 8 ? small : (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)ln->count);
        for (int i = 0; i < ln->count; i++) {
            Binding *b = &ln->b[i];
            vals[i] = NIL;
            if (b->init) EVAL_OR_EXIT(vals[i], L, b->init, env);
        }
        for (int i = 0; i < ln->count; i++) {
            Binding *b = &ln->b[i];
            if (b->special) bind_special(L, b->sym, vals[i]);
            else env_up(body_env, b->depth)->slots[b->index] = vals[i];
        }
    }
    Obj r = EVAL(L, ln->body, body_env);
    if (ln->has_special) unbind_specials(L, sp);
    return r;
}

/* LET and LET* whose variables are all lexical and live in the current frame: one pass, each
 * value stored in its slot as it is computed. For LET that is safe too: an init form cannot see
 * the new variables, and their slots belong to no variable an init form can see. */
Obj ev_let_local(Lisp *L, Node *n, Env *env) {
    LetNode *ln = (LetNode *)n;
    for (int i = 0; i < ln->count; i++) {
        Binding *b = &ln->b[i];
        Obj v = NIL;
        if (b->init) ARG_OR_EXIT(v, L, b->init, env);
        env->slots[b->index] = v;
    }
    Obj r = EVAL(L, ln->body, env);
    /* out of scope again: a backtrace's locals no longer show them */
    for (int i = 0; i < ln->count; i++) env->slots[ln->b[i].index] = OBJ(0);
    return r;
}

/* The same with two variables, unrolled. */
Obj ev_let_local2(Lisp *L, Node *n, Env *env) {
    LetNode *ln = (LetNode *)n;
    Binding *b0 = &ln->b[0], *b1 = &ln->b[1];
    Obj v = NIL;
    if (b0->init) ARG_OR_EXIT(v, L, b0->init, env);
    env->slots[b0->index] = v;
    v = NIL;
    if (b1->init) ARG_OR_EXIT(v, L, b1->init, env);
    env->slots[b1->index] = v;
    Obj r = EVAL(L, ln->body, env);
    env->slots[b0->index] = OBJ(0);
    env->slots[b1->index] = OBJ(0);
    return r;
}

/* The same with one variable, the commonest (DOLIST's, a temporary). */
Obj ev_let_local1(Lisp *L, Node *n, Env *env) {
    LetNode *ln = (LetNode *)n;
    Binding *b = &ln->b[0];
    Obj v = NIL;
    if (b->init) ARG_OR_EXIT(v, L, b->init, env);
    env->slots[b->index] = v;
    Obj r = EVAL(L, ln->body, env);
    env->slots[b->index] = OBJ(0);
    return r;
}

/* LET or LET* that binds one special variable and nothing else, the usual (let ((*x* v)) ...):
 * no frame, no value array, one binding made and undone. */
Obj ev_let_special1(Lisp *L, Node *n, Env *env) {
    LetNode *ln = (LetNode *)n;
    Binding *b = &ln->b[0];
    Obj v = NIL;
    if (b->init) ARG_OR_EXIT(v, L, b->init, env);
    size_t sp = L->special_sp;
    bind_special(L, b->sym, v);
    Obj r = EVAL(L, ln->body, env);
    unbind_specials(L, sp);
    return r;
}

/* ---- calls ---- */

_Noreturn static void undefined_function(Lisp *L, Obj name) { err_undefined_function(L, name); }

static inline Obj call_object(Lisp *L, Obj fn, int nargs, Obj *args, Obj name) {
    if (LIKELY(is_heap(fn))) {
        switch (heap_type(fn)) {
        case T_PRIMITIVE: {
            Primitive *p = PRIM(fn);
            /* a primitive's call is recorded too, so that a backtrace shows (CAR 5) */
            CallRecord rec = {L->calls, fn, NULL, nargs, args};
            L->calls = &rec;
            PROFILE_ENTER(L, &rec);
            if (UNLIKELY(nargs < p->min_args || (p->max_args >= 0 && nargs > p->max_args)))
                err_arg_count(L, fn, nargs);
            Obj r = p->fn(L, nargs, args);
            if (!(p->h.flags & FN_MV)) L->nvals = 1;
            PROFILE_EXIT(L, &rec);
            L->calls = rec.link;
            return r;
        }
        case T_CLOSURE:
            return apply_closure(L, fn, nargs, args);
        case T_FUNCALLABLE:
            if (INST(fn)->h.flags & INST_GENERIC) return clos_dispatch(L, fn, nargs, args);
            return funcall(L, INST(fn)->fn, nargs, args);
        default: break;
        }
    }
    if (fn == UNBOUND) undefined_function(L, name);
    err_type(L, fn, S(FUNCTION));
}

/* The body of LAM returned TAIL_MARK: a call of the function itself in tail position
 * (ev_call_self_tailN) put its arguments in FRAME's parameter slots; run the body again, as often
 * as it asks. Its other slots are cleared as a new call's are (see direct_run). */
static __attribute__((noinline)) Obj run_tail_calls(Lisp *L, Lambda *lam, Env *frame) {
    Obj r;
    do {
        for (int i = lam->ll.nreq; i < lam->nslots; i++) frame->slots[i] = OBJ(0);
        safe_point(L);
        r = EVAL(L, lam->body, frame);
    } while (r == TAIL_MARK);
    return r;
}

/* Run the body of closure FN (LAM, direct_args) in FRAME, whose first NA slots hold its arguments.
 * The callers clear the frame's other slots (a specialised call clears its fixed DIRECT_SLOTS
 * whole, before the arguments are evaluated into it): they hold 0 until bound, so that a
 * backtrace never reads garbage, and the collector, which scans the C stack, finds in them no
 * stale pointer left by an earlier call at this depth (that would keep garbage alive as long as
 * the call runs). */
static inline __attribute__((always_inline)) Obj direct_run(Lisp *L, Obj fn, Lambda *lam, Env *frame, int na) {
    (void)na;   /* lam->ll.nreq: the record finds it there */
    frame->parent = CLOSURE(fn)->env;
    safe_point_at(L, frame);
    /* a direct call's record: three words, its arguments read from the frame (see CallRecord) */
    CallRecord *caller = L->calls, rec;
    rec.link = (CallRecord *)((uintptr_t)caller | 1);
    rec.fn = fn;
    rec.env = frame;
    L->calls = &rec;
    PROFILE_ENTER(L, &rec);
    Obj r = EVAL(L, lam->body, frame);
    /* run_tail_calls inline: a loop over a list enters it on nearly every call */
    while (UNLIKELY(r == TAIL_MARK)) {
        for (int i = lam->ll.nreq; i < lam->nslots; i++) frame->slots[i] = OBJ(0);
        safe_point_at(L, frame);
        r = EVAL(L, lam->body, frame);
    }
    PROFILE_EXIT(L, &rec);
    L->calls = caller;
    return r;
}

/* A call of a global closure whose Lambda is direct_args: the arguments are evaluated straight
 * into the callee's frame and its body runs here, without apply_closure's second frame and copy.
 * Out of line, so that the frame is not part of ev_call_global's own. */
static __attribute__((noinline)) Obj call_direct(Lisp *L, CallNode *c, Obj fn, Lambda *lam, Env *env) {
    int na = c->nargs;
    Obj buf[lam->nslots + 1];
    Env *frame = (Env *)buf;
    for (int i = 0; i < na; i++) ARG_OR_EXIT(frame->slots[i], L, c->args[i], env);
    /* the other slots (LET variables) hold 0 until bound, so that a backtrace never reads garbage */
    for (int i = na; i < lam->nslots; i++) frame->slots[i] = OBJ(0);
    Symbol *s = SYM(c->fname);
    if (UNLIKELY(s->function != fn)) {
        /* the arguments redefined the function: call whatever it is now */
        if (s->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)) undefined_function(L, c->fname);
        return call_object(L, s->function, na, frame->slots, c->fname);
    }
    return direct_run(L, fn, lam, frame, na);
}

Obj ev_call_global(Lisp *L, Node *n, Env *env) {
    CallNode *c = (CallNode *)n;
    int na = c->nargs;
    Obj f = SYM(c->fname)->function;
    if (is_heap(f) && heap_type(f) == T_CLOSURE) {
        Lambda *lam = CLOSURE(f)->lambda;
        if (lam->direct_args && lam->ll.nreq == na && !(SYM(c->fname)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)))
            return call_direct(L, c, f, lam, env);
    }
    Obj args[na ? na : 1];
    memset(args, 0, sizeof args);   /* see ev_call_prim */
    for (int i = 0; i < na; i++) ARG_OR_EXIT(args[i], L, c->args[i], env);
    Obj sym = c->fname;
    Obj fn = SYM(sym)->function;
    if (UNLIKELY(SYM(sym)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP))) undefined_function(L, sym);
    return call_object(L, fn, na, args, sym);
}

/* ---- calls specialised by argument count ----
 * A call of a global function with 1 to 6 arguments: when the function is a closure whose
 * Lambda takes exactly that many arguments directly (direct_arity), each argument is evaluated
 * straight into the slot of a fixed-size frame, the loop unrolled; any other callee goes the
 * general way (ev_call_global), which checks the argument count and signals what it signals.
 * The direct half is inline in the evaluator: the general way then pays for its saved registers
 * and frame, and the direct way saves a call, its argument moves and a second prologue. */


/* The callee's frame is filled with the arguments: run its body, unless evaluating them changed
 * the function the symbol names (then that is called with them, the general way). */
static inline __attribute__((always_inline)) Obj direct_enter(Lisp *L, CallNode *c, Obj fn, Lambda *lam,
                                                                Env *frame, int na) {
    Symbol *s = SYM(c->fname);
    if (UNLIKELY(s->function != fn)) {
        if (s->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)) undefined_function(L, c->fname);
        return call_object(L, s->function, na, frame->slots, c->fname);
    }
    return direct_run(L, fn, lam, frame, na);
}

#define DEFINE_CALL_GLOBAL(name, N, STORE_ARGS)                                             \
    static inline __attribute__((always_inline)) Obj name##_direct(Lisp *L, CallNode *c, Obj fn, Lambda *lam, \
                                                       Env *env) {                          \
        Obj buf[1 + DIRECT_SLOTS] = {0};   /* see direct_run */                             \
        Env *frame = (Env *)buf;                                                            \
        (void)env;                                                                          \
        STORE_ARGS                                                                          \
        return direct_enter(L, c, fn, lam, frame, N);                                       \
    }                                                                                       \
    Obj name(Lisp *L, Node *n, Env *env) {                                                  \
        CallNode *c = (CallNode *)n;                                                        \
        Obj f = SYM(c->fname)->function;                                                    \
        if (LIKELY(is_heap(f)) && LIKELY(heap_type(f) == T_CLOSURE)) {                     \
            Lambda *lam = CLOSURE(f)->lambda;                                               \
            if (LIKELY(lam->direct_arity == N + 1) &&                                       \
                LIKELY(!(SYM(c->fname)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP))))           \
                return name##_direct(L, c, f, lam, env);                                    \
        }                                                                                   \
        return ev_call_global(L, n, env);                                                   \
    }

#define STORE_ARG(i) ARG_OR_EXIT(frame->slots[i], L, c->args[i], env);
/* No arguments: the general call_direct. A specialised one saved little here, and its larger frame
 * (never written in part) kept a dead key of a weak table alive past (tinycl:gc) in
 * tests/lisp/weak.lisp: the collector scans whole frames. */
Obj ev_call_global0(Lisp *L, Node *n, Env *env) { return ev_call_global(L, n, env); }
DEFINE_CALL_GLOBAL(ev_call_global1, 1, STORE_ARG(0))
DEFINE_CALL_GLOBAL(ev_call_global2, 2, STORE_ARG(0) STORE_ARG(1))
DEFINE_CALL_GLOBAL(ev_call_global3, 3, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2))
DEFINE_CALL_GLOBAL(ev_call_global4, 4, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2) STORE_ARG(3))
DEFINE_CALL_GLOBAL(ev_call_global5, 5, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2) STORE_ARG(3) STORE_ARG(4))
DEFINE_CALL_GLOBAL(ev_call_global6, 6, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2) STORE_ARG(3) STORE_ARG(4)
                                       STORE_ARG(5))
#undef DEFINE_CALL_GLOBAL

/* The same for a call of a local function (FLET, LABELS) or a lambda form: the function is the
 * value of its node, evaluated before the arguments. */
#define DEFINE_CALL_LOCAL(name, N, STORE_ARGS)                                              \
    static inline __attribute__((always_inline)) Obj name##_direct(Lisp *L, CallNode *c, Obj fn, Lambda *lam, \
                                                       Env *env) {                          \
        Obj buf[1 + DIRECT_SLOTS] = {0};   /* see direct_run */                             \
        Env *frame = (Env *)buf;                                                            \
        (void)env; (void)c;                                                                 \
        STORE_ARGS                                                                          \
        return direct_run(L, fn, lam, frame, N);                                            \
    }                                                                                       \
    Obj name(Lisp *L, Node *n, Env *env) {                                                  \
        CallNode *c = (CallNode *)n;                                                        \
        Obj f;                                                                              \
        EVAL_OR_EXIT(f, L, c->fn, env);                                                     \
        if (LIKELY(is_heap(f)) && LIKELY(heap_type(f) == T_CLOSURE) &&                      \
            LIKELY(CLOSURE(f)->lambda->direct_arity == N + 1))                              \
            return name##_direct(L, c, f, CLOSURE(f)->lambda, env);                         \
        return call_node_args(L, c, f, env);                                                \
    }

static Obj call_node_args(Lisp *L, CallNode *c, Obj fn, Env *env);
DEFINE_CALL_LOCAL(ev_call_local0, 0, )
DEFINE_CALL_LOCAL(ev_call_local1, 1, STORE_ARG(0))
DEFINE_CALL_LOCAL(ev_call_local2, 2, STORE_ARG(0) STORE_ARG(1))
DEFINE_CALL_LOCAL(ev_call_local3, 3, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2))
DEFINE_CALL_LOCAL(ev_call_local4, 4, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2) STORE_ARG(3))
DEFINE_CALL_LOCAL(ev_call_local5, 5, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2) STORE_ARG(3) STORE_ARG(4))
DEFINE_CALL_LOCAL(ev_call_local6, 6, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2) STORE_ARG(3) STORE_ARG(4)
                                     STORE_ARG(5))
#undef DEFINE_CALL_LOCAL
#undef STORE_ARG

/* (FUNCALL f a...) with 0 to 6 arguments after F: when F's value is a closure that takes exactly
 * that many arguments directly, they are evaluated straight into its frame as in a specialised
 * call; any other F is called the general way (funcall), which signals what it signals. As in
 * SBCL, where FUNCALL is open-coded, no FUNCALL call shows in a backtrace on either path. */
static __attribute__((noinline)) Obj funcall_direct(Lisp *L, CallNode *c, Obj fn, Lambda *lam, Env *env) {
    Obj buf[1 + DIRECT_SLOTS] = {0};   /* see direct_run */
    Env *frame = (Env *)buf;
    int na = c->nargs - 1;
    for (int i = 0; i < na; i++) ARG_OR_EXIT(frame->slots[i], L, c->args[i + 1], env);
    return direct_run(L, fn, lam, frame, na);
}

static __attribute__((noinline)) Obj funcall_general(Lisp *L, CallNode *c, Obj fn, Env *env) {
    int na = c->nargs - 1;
    Obj args[DIRECT_SLOTS] = {0};   /* see ev_call_prim */
    for (int i = 0; i < na; i++) ARG_OR_EXIT(args[i], L, c->args[i + 1], env);
    return funcall(L, fn, na, args);
}

Obj ev_call_prim(Lisp *L, Node *n, Env *env);

/* ---- calls of the function itself in tail position ----
 * A call of a global function by the name of the function whose body it ends (mark_self_tail_calls,
 * at analysis): when, once its arguments are evaluated, the name still names the closure whose
 * call is the innermost (its record is L->calls, its frame this one), the arguments replace the
 * parameters in place and TAIL_MARK goes up to the call's runner (direct_run, apply_closure),
 * which runs the body again: a loop, without a frame, a record or a C frame per call. As with
 * SBCL's tail calls, the calls so merged show as one frame in a backtrace (with the latest
 * arguments). Not while the profiler counts calls; a traced function's name names the TRACE
 * wrapper, so its calls go the general way and are all shown. */
static __attribute__((noinline)) Obj self_tail_general(Lisp *L, CallNode *c, int na, Obj a0, Obj a1, Obj a2,
                                                      Obj a3, Obj a4, Obj a5) {
    Obj args[6] = {a0, a1, a2, a3, a4, a5};
    Symbol *s = SYM(c->fname);
    if (s->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)) undefined_function(L, c->fname);
    return call_object(L, s->function, na, args, c->fname);
}

/* NA is a constant in each evaluator below: the loops unrolled, the arguments kept in registers
 * (the slow path takes them by value, so that no array's address escapes). */
static inline __attribute__((always_inline)) Obj self_tail(Lisp *L, Node *n, Env *env, const int na) {
    CallNode *c = (CallNode *)n;
    Obj a[6] = {0};
#pragma GCC unroll 6
    for (int i = 0; i < na; i++) ARG_OR_EXIT(a[i], L, c->args[i], env);
    if (self_tail_loops(L, c->fname, env)) {
#pragma GCC unroll 6
        for (int i = 0; i < na; i++) env->slots[i] = a[i];
        return TAIL_MARK;
    }
    return self_tail_general(L, c, na, a[0], a[1], a[2], a[3], a[4], a[5]);
}

Obj ev_call_self_tail1(Lisp *L, Node *n, Env *env) { return self_tail(L, n, env, 1); }
Obj ev_call_self_tail2(Lisp *L, Node *n, Env *env) { return self_tail(L, n, env, 2); }
Obj ev_call_self_tail3(Lisp *L, Node *n, Env *env) { return self_tail(L, n, env, 3); }
Obj ev_call_self_tail4(Lisp *L, Node *n, Env *env) { return self_tail(L, n, env, 4); }
Obj ev_call_self_tail5(Lisp *L, Node *n, Env *env) { return self_tail(L, n, env, 5); }
Obj ev_call_self_tail6(Lisp *L, Node *n, Env *env) { return self_tail(L, n, env, 6); }

Obj ev_inline_car_var(Lisp *L, Node *n, Env *env);
Obj ev_inline_cdr_var(Lisp *L, Node *n, Env *env);

/* ---- self tail calls whose arguments need no node call ----
 * When every argument of a self tail call is a variable of the current frame, a constant, or CAR or
 * CDR of a variable of the current frame (LIST-SHORTER-P's (cdr a) (cdr b)), the arguments are read
 * in place: the fast path calls nothing, so it saves no register. Such an argument has no side
 * effect, so when one cannot be read so (CAR of a non-list, CAR or CDR no longer CL's) or the call
 * cannot loop, the ordinary self tail call reads them all again, and signals what it signals. */
static bool simple_arg_p(Node *a) {
    return a->ev == ev_lref0 || a->ev == ev_const || a->ev == ev_inline_car_var || a->ev == ev_inline_cdr_var;
}

static inline __attribute__((always_inline)) bool simple_cxr(Node *a, Env *env, Obj *out, bool car) {
    CallNode *c = (CallNode *)a;
    Obj x = env->slots[c->slot0];
    if (UNLIKELY(SYM(c->fname)->function != c->cached)) return false;
    if (LIKELY(is_cons(x))) { *out = car ? CAR(x) : CDR(x); return true; }
    *out = NIL;
    return x == NIL;
}

/* CDR first: the commonest argument of a loop over a list (the others cost a compare more). */
static inline __attribute__((always_inline)) bool simple_arg(Node *a, Env *env, Obj *out) {
    EvalFn ev = a->ev;
    if (ev == ev_inline_cdr_var) return simple_cxr(a, env, out, false);
    if (ev == ev_lref0) { *out = env->slots[((VarNode *)a)->index]; return true; }
    if (ev == ev_inline_car_var) return simple_cxr(a, env, out, true);
    *out = ((ConstNode *)a)->value;   /* ev_const: simple_arg_p admits nothing else */
    return true;
}

#define DEFINE_SELF_TAIL_SIMPLE(name, general, N)                                              \
    Obj name(Lisp *L, Node *n, Env *env) {                                                     \
        CallNode *c = (CallNode *)n;                                                           \
        Obj a[N];                                                                              \
        _Pragma("GCC unroll 6")                                                                \
        for (int i = 0; i < N; i++)                                                            \
            if (UNLIKELY(!simple_arg(c->args[i], env, &a[i]))) return general(L, n, env);       \
        if (self_tail_loops(L, c->fname, env)) {                                               \
            _Pragma("GCC unroll 6")                                                            \
            for (int i = 0; i < N; i++) env->slots[i] = a[i];                                  \
            return TAIL_MARK;                                                                  \
        }                                                                                      \
        return general(L, n, env);                                                             \
    }
DEFINE_SELF_TAIL_SIMPLE(ev_call_self_tail_simple1, ev_call_self_tail1, 1)
DEFINE_SELF_TAIL_SIMPLE(ev_call_self_tail_simple2, ev_call_self_tail2, 2)
DEFINE_SELF_TAIL_SIMPLE(ev_call_self_tail_simple3, ev_call_self_tail3, 3)
DEFINE_SELF_TAIL_SIMPLE(ev_call_self_tail_simple4, ev_call_self_tail4, 4)
DEFINE_SELF_TAIL_SIMPLE(ev_call_self_tail_simple5, ev_call_self_tail5, 5)
DEFINE_SELF_TAIL_SIMPLE(ev_call_self_tail_simple6, ev_call_self_tail6, 6)
#undef DEFINE_SELF_TAIL_SIMPLE

Obj ev_if(Lisp *L, Node *n, Env *env);
Obj ev_block(Lisp *L, Node *n, Env *env);
Obj ev_the(Lisp *L, Node *n, Env *env);

/* Give the calls of LAM's own name in tail position of its body ev_call_self_tailN: through PROGN's
 * last form, both branches of IF (plain or fused), BLOCK without a non-local exit and THE. A LET
 * is not looked into (its variables are cleared after its body). */
static void mark_tail(Node *n, Lambda *lam) {
    if (n->ev == ev_progn) {
        SeqNode *s = (SeqNode *)n;
        if (s->count > 0) mark_tail(s->forms[s->count - 1], lam);
    } else if (if_node_p(n)) {
        mark_tail(((IfNode *)n)->then, lam);
        mark_tail(((IfNode *)n)->els, lam);
    } else if (n->ev == ev_block) {
        mark_tail(((BlockNode *)n)->body, lam);
    } else if (n->ev == ev_the) {
        mark_tail(((TheNode *)n)->form, lam);
    } else if (n->ev == ev_call_global1 || n->ev == ev_call_global2 || n->ev == ev_call_global3 ||
               n->ev == ev_call_global4 || n->ev == ev_call_global5 || n->ev == ev_call_global6) {
        CallNode *c = (CallNode *)n;
        static const EvalFn self[] = {ev_call_self_tail1, ev_call_self_tail2, ev_call_self_tail3,
                                      ev_call_self_tail4, ev_call_self_tail5, ev_call_self_tail6};
        static const EvalFn simple[] = {ev_call_self_tail_simple1, ev_call_self_tail_simple2,
                                        ev_call_self_tail_simple3, ev_call_self_tail_simple4,
                                        ev_call_self_tail_simple5, ev_call_self_tail_simple6};
        if (c->fname != lam->name || c->nargs != lam->ll.nreq) return;
        if (c->nargs < 1 || c->nargs > (int)(sizeof self / sizeof *self)) return;
        bool all_simple = true;
        for (int i = 0; i < c->nargs; i++) all_simple = all_simple && simple_arg_p(c->args[i]);
        c->n.ev = all_simple ? simple[c->nargs - 1] : self[c->nargs - 1];
    }
}

void mark_self_tail_calls(Lambda *lam) {
    if (lam->direct_arity > 1 && lam->body && is_type(lam->name, T_SYMBOL)) mark_tail(lam->body, lam);
}

Obj ev_funcall(Lisp *L, Node *n, Env *env) {
    CallNode *c = (CallNode *)n;
    if (UNLIKELY(SYM(c->fname)->function != c->cached)) return ev_call_prim(L, n, env);
    Obj f;
    ARG_OR_EXIT(f, L, c->args[0], env);
    if (LIKELY(is_heap(f)) && LIKELY(heap_type(f) == T_CLOSURE) &&
        LIKELY(CLOSURE(f)->lambda->direct_arity == c->nargs))
        return funcall_direct(L, c, f, CLOSURE(f)->lambda, env);
    return funcall_general(L, c, f, env);
}

/* Call the primitive a call node was bound to at analysis time, or whatever its symbol names now
 * if that has changed (a redefinition): the one path of ev_call_prim and the inline evaluators'
 * slow paths. */
static inline __attribute__((always_inline)) Obj ev_prim_cached(Lisp *L, CallNode *c, int na, Obj *args) {
    Obj fn = SYM(c->fname)->function;
    if (UNLIKELY(fn != c->cached)) {
        if (SYM(c->fname)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)) undefined_function(L, c->fname);
        return call_object(L, fn, na, args, c->fname);
    }
    Primitive *p = PRIM(fn);
    CallRecord rec = {L->calls, fn, NULL, na, args};
    L->calls = &rec;
    PROFILE_ENTER(L, &rec);
    Obj r = p->fn(L, na, args);
    if (!(p->h.flags & FN_MV)) L->nvals = 1;
    PROFILE_EXIT(L, &rec);
    L->calls = rec.link;
    return r;
}

Obj prim_call_slow(Lisp *L, CallNode *c, int na, Obj *args) { return ev_prim_cached(L, c, na, args); }

/* The inline evaluators' slow paths, out of line and with their arguments passed by value: an
 * argument array whose address escapes would make each fast path save registers and spill. */
static __attribute__((noinline)) Obj prim_slow1(Lisp *L, CallNode *c, Obj a) {
    return ev_prim_cached(L, c, 1, &a);
}
static __attribute__((noinline)) Obj prim_slow2(Lisp *L, CallNode *c, Obj a, Obj b) {
    Obj args[2] = {a, b};
    return ev_prim_cached(L, c, 2, args);
}
static __attribute__((noinline)) Obj prim_slow3(Lisp *L, CallNode *c, Obj a, Obj b, Obj x) {
    Obj args[3] = {a, b, x};
    return ev_prim_cached(L, c, 3, args);
}

/* A call bound to a CL primitive at analysis time. */
Obj ev_call_prim(Lisp *L, Node *n, Env *env) {
    CallNode *c = (CallNode *)n;
    int na = c->nargs;
    Obj args[na ? na : 1];
    /* the collector scans this frame while the arguments are evaluated: a slot not yet written
     * still holds whatever the previous call at this depth left there (the big array of the
     * last iteration of a loop, say) and would keep it alive */
    memset(args, 0, sizeof args);
    for (int i = 0; i < na; i++) ARG_OR_EXIT(args[i], L, c->args[i], env);
    return ev_prim_cached(L, c, na, args);
}

/* The same by argument count, 1 to 4 (chosen at analysis): a fixed array, cleared by stores
 * rather than a call of memset, and the loop unrolled. */
#define DEFINE_CALL_PRIM(name, N, STORE_ARGS)                           \
    Obj name(Lisp *L, Node *n, Env *env) {                              \
        CallNode *c = (CallNode *)n;                                    \
        Obj args[N] = {0};   /* see ev_call_prim */                     \
        STORE_ARGS                                                      \
        return ev_prim_cached(L, c, N, args);                           \
    }
#define STORE_ARG(i) ARG_OR_EXIT(args[i], L, c->args[i], env);
DEFINE_CALL_PRIM(ev_call_prim1, 1, STORE_ARG(0))
DEFINE_CALL_PRIM(ev_call_prim2, 2, STORE_ARG(0) STORE_ARG(1))
DEFINE_CALL_PRIM(ev_call_prim3, 3, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2))
DEFINE_CALL_PRIM(ev_call_prim4, 4, STORE_ARG(0) STORE_ARG(1) STORE_ARG(2) STORE_ARG(3))
#undef STORE_ARG
#undef DEFINE_CALL_PRIM

/* One evaluator per inline primitive, chosen at analysis (no switch at run time). Each takes its
 * fast path while the symbol still names the primitive seen at analysis, and otherwise calls
 * whatever the symbol names now. */
#define DEFINE_INLINE1(name, fast)                                      \
    Obj name(Lisp *L, Node *n, Env *env) {                              \
        CallNode *c = (CallNode *)n;                                    \
        Obj a;                                                          \
        ARG_OR_EXIT(a, L, c->args[0], env);                             \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { fast }      \
        return prim_slow1(L, c, a);                                     \
    }

DEFINE_INLINE1(ev_inline_car, if (is_cons(a)) { L->nvals = 1; return CAR(a); } if (a == NIL) { L->nvals = 1; return NIL; })
DEFINE_INLINE1(ev_inline_cdr, if (is_cons(a)) { L->nvals = 1; return CDR(a); } if (a == NIL) { L->nvals = 1; return NIL; })
DEFINE_INLINE1(ev_inline_null, L->nvals = 1; return a == NIL ? S(T) : NIL;)
DEFINE_INLINE1(ev_inline_consp, L->nvals = 1; return is_cons(a) ? S(T) : NIL;)
DEFINE_INLINE1(ev_inline_1plus, Obj r; if (fixnum_add_checked(a, FIX(1), &r)) { L->nvals = 1; return r; })
DEFINE_INLINE1(ev_inline_1minus, Obj r; if (fixnum_sub_checked(a, FIX(1), &r)) { L->nvals = 1; return r; })
DEFINE_INLINE1(ev_inline_zerop, if (is_fixnum(a)) { L->nvals = 1; return a == FIX(0) ? S(T) : NIL; })

/* CAR and CDR of a variable of the current frame, read in place (set at finalisation). */
#define DEFINE_INLINE1_VAR(name, fast)                                  \
    Obj name(Lisp *L, Node *n, Env *env) {                              \
        CallNode *c = (CallNode *)n;                                    \
        Obj a = env->slots[c->slot0];   /* inline_in_place */           \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { fast }      \
        return prim_slow1(L, c, a);                                     \
    }
DEFINE_INLINE1_VAR(ev_inline_car_var, if (is_cons(a)) { L->nvals = 1; return CAR(a); } if (a == NIL) { L->nvals = 1; return NIL; })
DEFINE_INLINE1_VAR(ev_inline_cdr_var, if (is_cons(a)) { L->nvals = 1; return CDR(a); } if (a == NIL) { L->nvals = 1; return NIL; })
#undef DEFINE_INLINE1_VAR

/* One step of a CAR/CDR chain: false when X is not a list (the primitive then signals). */
static inline bool cxr_step(Obj *x, bool car) {
    if (is_cons(*x)) { *x = car ? CAR(*x) : CDR(*x); return true; }
    return *x == NIL;
}
#define CXR(...) { Obj x = a; bool steps[] = {__VA_ARGS__}; bool ok = true;                  \
                   for (size_t k = sizeof steps; k-- > 0 && ok;) ok = cxr_step(&x, steps[k]); \
                   if (ok) { L->nvals = 1; return x; } }
DEFINE_INLINE1(ev_inline_cadr, CXR(true, false))
DEFINE_INLINE1(ev_inline_cddr, CXR(false, false))
DEFINE_INLINE1(ev_inline_caar, CXR(true, true))
DEFINE_INLINE1(ev_inline_cdar, CXR(false, true))
DEFINE_INLINE1(ev_inline_caddr, CXR(true, false, false))
#undef CXR

#undef DEFINE_INLINE1

/* The two-argument ones. Each has a variant (NAME_vv) for arguments that are each a variable of
 * the current frame or a constant, read in place (chosen at finalisation, inline_vv_variant):
 * without a node call the fast path saves no registers. */
#define DEFINE_INLINE2(name, ...)                                       \
    Obj name(Lisp *L, Node *n, Env *env) {                              \
        CallNode *c = (CallNode *)n;                                    \
        Obj a, b;                                                       \
        ARG_OR_EXIT(a, L, c->args[0], env);                             \
        ARG_OR_EXIT(b, L, c->args[1], env);                             \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { __VA_ARGS__ } \
        return prim_slow2(L, c, a, b);                                  \
    }                                                                   \
    static Obj name##_vv(Lisp *L, Node *n, Env *env) {                  \
        CallNode *c = (CallNode *)n;                                    \
        Obj a = in_place_arg(c->args[0], env), b = in_place_arg(c->args[1], env); \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { __VA_ARGS__ } \
        return prim_slow2(L, c, a, b);                                  \
    }                                                                   \
    static Obj name##_ll(Lisp *L, Node *n, Env *env) {                  \
        CallNode *c = (CallNode *)n;                                    \
        Obj a = env->slots[c->slot0], b = env->slots[c->slot1];         \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { __VA_ARGS__ } \
        return prim_slow2(L, c, a, b);                                  \
    }                                                                   \
    static Obj name##_lc(Lisp *L, Node *n, Env *env) {                  \
        CallNode *c = (CallNode *)n;                                    \
        Obj a = env->slots[c->slot0], b = ((ConstNode *)c->args[1])->value; \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { __VA_ARGS__ } \
        return prim_slow2(L, c, a, b);                                  \
    }
#define FIXNUMS (is_fixnum(a) && is_fixnum(b))
#define COMPARE(test) if (FIXNUMS) { L->nvals = 1; return (test) ? S(T) : NIL; }

DEFINE_INLINE2(ev_inline_add, Obj r; if (fixnum_add_checked(a, b, &r)) { L->nvals = 1; return r; })
DEFINE_INLINE2(ev_inline_sub, Obj r; if (fixnum_sub_checked(a, b, &r)) { L->nvals = 1; return r; })
DEFINE_INLINE2(ev_inline_lt, COMPARE(fixnum_less(a, b)))
DEFINE_INLINE2(ev_inline_gt, COMPARE(fixnum_less(b, a)))
DEFINE_INLINE2(ev_inline_le, COMPARE(!fixnum_less(b, a)))
DEFINE_INLINE2(ev_inline_ge, COMPARE(!fixnum_less(a, b)))
DEFINE_INLINE2(ev_inline_numeq, if (FIXNUMS) { L->nvals = 1; return a == b ? S(T) : NIL; })
DEFINE_INLINE2(ev_inline_eq, L->nvals = 1; return a == b ? S(T) : NIL;)
DEFINE_INLINE2(ev_inline_eql, int e = eql_quick(a, b); if (e >= 0) { L->nvals = 1; return e ? S(T) : NIL; })
DEFINE_INLINE2(ev_inline_cons, L->nvals = 1; return cons(L, a, b);)
DEFINE_INLINE2(ev_inline_mul,
    intptr_t p;
    if (FIXNUMS && !__builtin_mul_overflow(fixnum_val(a), fixnum_val(b), &p) && fixnum_fits(p)) {
        L->nvals = 1; return make_fixnum(p);
    })
DEFINE_INLINE2(ev_inline_mod,
    if (FIXNUMS && b != FIX(0)) {
        intptr_t x = fixnum_val(a), y = fixnum_val(b), r = x % y;
        if (r != 0 && (r < 0) != (y < 0)) r += y;
        L->nvals = 1; return make_fixnum(r);
    })

#undef COMPARE
#undef FIXNUMS
#undef DEFINE_INLINE2

#define IN_PLACE(op) {ev_inline_##op, ev_inline_##op##_vv, ev_inline_##op##_ll, ev_inline_##op##_lc}
static const struct { EvalFn ev, vv, ll, lc; } inline_vv[] = {
    IN_PLACE(add), IN_PLACE(sub), IN_PLACE(lt), IN_PLACE(gt), IN_PLACE(le), IN_PLACE(ge), IN_PLACE(numeq),
    IN_PLACE(eq), IN_PLACE(eql), IN_PLACE(cons), IN_PLACE(mul), IN_PLACE(mod),
};
#undef IN_PLACE

EvalFn inline_vv_variant(EvalFn ev) {
    for (size_t i = 0; i < sizeof inline_vv / sizeof *inline_vv; i++)
        if (inline_vv[i].ev == ev) return inline_vv[i].vv;
    return NULL;
}

void inline_two_in_place(CallNode *c) {
    Node *a = c->args[0], *b = c->args[1];
    if (!args_in_place(a, b, ev_lref0)) return;
    for (size_t i = 0; i < sizeof inline_vv / sizeof *inline_vv; i++) {
        if (inline_vv[i].ev != c->n.ev) continue;
        if (a->ev == ev_lref0 && b->ev == ev_lref0) {
            c->slot0 = ((VarNode *)a)->index;
            c->slot1 = ((VarNode *)b)->index;
            c->n.ev = inline_vv[i].ll;
        } else if (a->ev == ev_lref0) {
            c->slot0 = ((VarNode *)a)->index;
            c->n.ev = inline_vv[i].lc;
        } else {
            c->n.ev = inline_vv[i].vv;
        }
        return;
    }
}

/* (+ *x* 1), (- *x* 1): a global or special variable and a constant (a counter; INCF of a special
 * variable), the variable's value read in place. An unbound variable, a non-fixnum or an overflow
 * goes the general way, which reads the variable again and signals what it signals. */
#define DEFINE_INLINE_GC(name, general, op)                                             \
    static Obj name(Lisp *L, Node *n, Env *env) {                                       \
        CallNode *c = (CallNode *)n;                                                    \
        Obj a = SYM(((SymNode *)c->args[0])->sym)->value, b = ((ConstNode *)c->args[1])->value, r; \
        if (LIKELY(SYM(c->fname)->function == c->cached) && LIKELY(is_fixnum(a) && is_fixnum(b)) && \
            LIKELY(op(a, b, &r))) {                                                     \
            L->nvals = 1;                                                               \
            return r;                                                                   \
        }                                                                               \
        return general(L, n, env);                                                      \
    }
DEFINE_INLINE_GC(ev_inline_add_gc, ev_inline_add, fixnum_add_checked)
DEFINE_INLINE_GC(ev_inline_sub_gc, ev_inline_sub, fixnum_sub_checked)
#undef DEFINE_INLINE_GC

EvalFn inline_global_variant(CallNode *c) {
    if (c->nargs != 2 || c->args[0]->ev != ev_gref || c->args[1]->ev != ev_const) return NULL;
    if (c->n.ev == ev_inline_add) return ev_inline_add_gc;
    if (c->n.ev == ev_inline_sub) return ev_inline_sub_gc;
    return NULL;
}

/* (+ a b c) */
Obj ev_inline_add3(Lisp *L, Node *n, Env *env) {
    CallNode *c = (CallNode *)n;
    Obj a, b, x, r;
    ARG_OR_EXIT(a, L, c->args[0], env);
    ARG_OR_EXIT(b, L, c->args[1], env);
    ARG_OR_EXIT(x, L, c->args[2], env);
    if (LIKELY(SYM(c->fname)->function == c->cached) && fixnum_add_checked(a, b, &r) &&
        fixnum_add_checked(r, x, &r)) {
        L->nvals = 1;
        return r;
    }
    return prim_slow3(L, c, a, b, x);
}

/* ---- (1+ v) and (1- v) of a variable of the current frame, read in place ----
 * (inline_in_place, at finalisation; the two-argument calls have their _vv variants above): nothing
 * is evaluated through a node, so the fast path calls nothing and saves no register. */
#define DEFINE_INLINE_IN_PLACE1(name, op)                                                   \
    static Obj name(Lisp *L, Node *n, Env *env) {                                           \
        CallNode *c = (CallNode *)n;                                                        \
        Obj a = env->slots[c->slot0], r;   /* inline_in_place */                            \
        if (LIKELY(SYM(c->fname)->function == c->cached) && op(a, FIX(1), &r)) {           \
            L->nvals = 1;                                                                   \
            return r;                                                                       \
        }                                                                                   \
        return prim_slow1(L, c, a);                                                         \
    }
DEFINE_INLINE_IN_PLACE1(ev_inline_1plus_var, fixnum_add_checked)
DEFINE_INLINE_IN_PLACE1(ev_inline_1minus_var, fixnum_sub_checked)
#undef DEFINE_INLINE_IN_PLACE1

/* The one-argument inline calls with a variant reading a variable of the current frame in place:
 * the evaluator chosen at analysis, and that variant. */
static const struct { EvalFn ev, v; } inline_in_place_table[] = {
    {ev_inline_car, ev_inline_car_var}, {ev_inline_cdr, ev_inline_cdr_var},
    {ev_inline_1plus, ev_inline_1plus_var}, {ev_inline_1minus, ev_inline_1minus_var},
};

Obj ev_lref(Lisp *L, Node *n, Env *env);

bool inline_reads_var(CallNode *c) {
    for (size_t k = 0; k < sizeof inline_in_place_table / sizeof *inline_in_place_table; k++)
        if (c->n.ev == inline_in_place_table[k].ev) return c->nargs == 1 && c->args[0]->ev == ev_lref;
    return false;
}

void inline_in_place(CallNode *c) {
    if (c->nargs != 1 || c->args[0]->ev != ev_lref0) return;
    for (size_t k = 0; k < sizeof inline_in_place_table / sizeof *inline_in_place_table; k++)
        if (c->n.ev == inline_in_place_table[k].ev) {
            c->slot0 = ((VarNode *)c->args[0])->index;
            c->n.ev = inline_in_place_table[k].v;
            return;
        }
}

Obj ev_call_node(Lisp *L, Node *n, Env *env) {
    CallNode *c = (CallNode *)n;
    Obj fn;
    EVAL_OR_EXIT(fn, L, c->fn, env);
    return call_node_args(L, c, fn, env);
}

/* A call of a local function or lambda form with more arguments than the specialised evaluators
 * take, whose callee takes them directly: evaluated straight into its frame, as call_direct does
 * for a global one. */
static __attribute__((noinline)) Obj call_node_direct(Lisp *L, CallNode *c, Obj fn, Lambda *lam, Env *env) {
    int na = c->nargs;
    Obj buf[lam->nslots + 1];
    Env *frame = (Env *)buf;
    memset(buf, 0, sizeof buf);   /* see direct_run */
    for (int i = 0; i < na; i++) ARG_OR_EXIT(frame->slots[i], L, c->args[i], env);
    return direct_run(L, fn, lam, frame, na);
}

/* The arguments of call node C, then the call of FN with them the general way. */
static Obj call_node_args(Lisp *L, CallNode *c, Obj fn, Env *env) {
    int na = c->nargs;
    if (is_heap(fn) && heap_type(fn) == T_CLOSURE) {
        Lambda *lam = lambda_ready(L, CLOSURE(fn)->lambda);
        if (lam->direct_args && lam->ll.nreq == na) return call_node_direct(L, c, fn, lam, env);
    }
    Obj args[na ? na : 1];
    for (int i = 0; i < na; i++) EVAL_OR_EXIT(args[i], L, c->args[i], env);
    return call_object(L, fn, na, args, NIL);
}

Obj funcall(Lisp *L, Obj fn, int nargs, Obj *args) {
    Obj name = NIL;
    if (is_symbol(fn)) {
        name = fn;
        Symbol *s = symbol_data(L, fn);
        if (s->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)) undefined_function(L, fn);
        fn = s->function;
    }
    return call_object(L, fn, nargs, args, name);
}

Obj funcall0(Lisp *L, Obj fn) { return funcall(L, fn, 0, NULL); }
Obj funcall1(Lisp *L, Obj fn, Obj a) { return funcall(L, fn, 1, &a); }
Obj funcall2(Lisp *L, Obj fn, Obj a, Obj b) { Obj v[2] = {a, b}; return funcall(L, fn, 2, v); }
Obj funcall3(Lisp *L, Obj fn, Obj a, Obj b, Obj c) { Obj v[3] = {a, b, c}; return funcall(L, fn, 3, v); }

Obj apply_list(Lisp *L, Obj fn, Obj list) {
    size_t n = 0;
    Obj x;
    /* the count stops past the limit, so a circular list ends in the error too */
    for (x = list; is_cons(x) && n <= CALL_ARGUMENTS_LIMIT; x = CDR(x)) n++;
    if (n > CALL_ARGUMENTS_LIMIT) err_program(L, "Too many arguments to APPLY: more than %zu", (size_t)CALL_ARGUMENTS_LIMIT);
    if (x != NIL) err_type(L, list, S(LIST));
    Obj small[16];
    Obj *args = n <= 16 ? small : (Obj *)gc_alloc(L, sizeof(Obj) * n);
    size_t i = 0;
    for (x = list; is_cons(x); x = CDR(x)) args[i++] = CAR(x);
    return funcall(L, fn, (int)n, args);
}

Obj coerce_function(Lisp *L, Obj d) {
    if (is_function(d)) return d;
    if (is_symbol(d)) {
        Symbol *s = symbol_data(L, d);
        if (s->function == UNBOUND || (s->h.flags & (SYM_MACRO | SYM_SPECIAL_OP))) undefined_function(L, d);
        return s->function;
    }
    err_type(L, d, S(FUNCTION));
}

/* A call from C (funcall, APPLY, the sequence functions' predicates, MAPCAR...) of a closure that
 * takes exactly NARGS arguments directly: its arguments copied into a fixed-size frame and its
 * body run as a specialised call's is (direct_run), without the general path's frame of variable
 * size, its argument binding loop and its special-binding bookkeeping. */
static __attribute__((noinline)) Obj apply_direct(Lisp *L, Obj fn, Lambda *lam, int nargs, Obj *args) {
    Obj buf[1 + DIRECT_SLOTS] = {0};   /* see direct_run */
    Env *frame = (Env *)buf;
    for (int i = 0; i < nargs; i++) frame->slots[i] = args[i];
    return direct_run(L, fn, lam, frame, nargs);
}

Obj apply_closure(Lisp *L, Obj fnobj, int nargs, Obj *args) {
    Closure *c = CLOSURE(fnobj);
    /* a lazy Lambda's direct_arity is 0 until it is analysed */
    if (LIKELY(c->lambda->direct_arity == nargs + 1)) return apply_direct(L, fnobj, c->lambda, nargs, args);
    Lambda *lam = lambda_ready(L, c->lambda);
    safe_point(L);
    int ns = lam->nslots;
    Obj buf[lam->heap_frame ? 1 : ns + 1];
    Env *frame;
    if (lam->heap_frame) frame = new_frame(L, c->env, ns);
    else {
        frame = (Env *)buf;
        frame->parent = c->env;
        /* 0 until bound, as in a heap frame: a backtrace's locals skip such slots */
        for (int i = 0; i < ns; i++) frame->slots[i] = OBJ(0);
    }
    CallRecord rec = {L->calls, fnobj, NULL, nargs, args};
    L->calls = &rec;
    PROFILE_ENTER(L, &rec);
    size_t sp = L->special_sp;
    if (lam->simple) {
        if (UNLIKELY(nargs != lam->ll.nreq)) err_arg_count(L, fnobj, nargs);
        for (int i = 0; i < nargs; i++) frame->slots[lam->ll.params[i].slot] = args[i];
    } else if (lam->ll.is_macro) {
        if (nargs != 2) err_arg_count(L, fnobj, nargs);
        Obj form = args[0];
        bind_list(L, &lam->ll, frame, is_cons(form) ? CDR(form) : NIL, form, args[1], lam->name);
    } else {
        bind_args(L, lam, frame, nargs, args, fnobj);
    }
    rec.env = frame;
    Obj r = EVAL(L, lam->body, frame);
    if (UNLIKELY(r == TAIL_MARK)) r = run_tail_calls(L, lam, frame);
    if (lam->ll.has_specials) unbind_specials(L, sp);
    PROFILE_EXIT(L, &rec);
    L->calls = rec.link;
    return r;
}

Obj ev_lambda(Lisp *L, Node *n, Env *env) {
    Lambda *lam = ((LambdaNode *)n)->lambda;
    Closure *c = (Closure *)heap_alloc(L, T_CLOSURE, sizeof(Closure));
    c->name = lam->name;
    c->lambda = lam;
    c->env = lam->needs_env ? env : NULL;
    L->nvals = 1;
    return (Obj)c;
}

Obj ev_function(Lisp *L, Node *n, Env *env) {
    (void)env;
    Obj name = ((FunctionNode *)n)->name;
    Obj f = fdefinition_get(L, name);
    if (f == UNBOUND || (is_type(name, T_SYMBOL) && (SYM(name)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP))))
        undefined_function(L, name);
    L->nvals = 1;
    return f;
}

Obj ev_local_fn(Lisp *L, Node *n, Env *env) {
    LocalFnNode *f = (LocalFnNode *)n;
    L->nvals = 1;
    return env_up(env, f->depth)->slots[f->index];
}

Obj ev_flet(Lisp *L, Node *n, Env *env) {
    FletNode *f = (FletNode *)n;
    Env *body_env = f->frame_size ? new_frame(L, env, f->frame_size) : env;
    Env *fn_env = f->labels ? body_env : env;
    for (int i = 0; i < f->count; i++) {
        Obj clo = ev_lambda(L, &f->fns[i]->n, fn_env);
        env_up(body_env, f->depth[i])->slots[f->index[i]] = clo;
    }
    return EVAL(L, f->body, body_env);
}

Obj ev_dbind(Lisp *L, Node *n, Env *env) {
    DBindNode *d = (DBindNode *)n;
    Obj v;
    EVAL_OR_EXIT(v, L, d->value, env);
    Env *body_env = d->frame_size ? new_frame(L, env, d->frame_size) : env;
    size_t sp = L->special_sp;
    bind_list(L, d->ll, body_env, v, v, NIL, S(DESTRUCTURING_BIND));
    Obj r = EVAL(L, d->body, body_env);
    unbind_specials(L, sp);
    return r;
}

/* ---- blocks, tagbodies and exits ---- */

static inline Obj landed_values(Lisp *L) { return L->nvals > 0 ? L->values[0] : NIL; }

/* A local exit carries its values in L->values; a single value goes to values[0]. */
static inline Obj take_exit_values(Lisp *L) { return landed_values(L); }

Obj ev_block(Lisp *L, Node *n, Env *env) {
    Obj r = EVAL(L, ((BlockNode *)n)->body, env);
    if (UNLIKELY(r == UNWIND_MARK) && L->exit_target == n) return take_exit_values(L);
    return r;
}

Obj ev_block_nl(Lisp *L, Node *n, Env *env) {
    BlockNode *b = (BlockNode *)n;
    BlockTag *tag = (BlockTag *)gc_alloc(L, sizeof(BlockTag));
    Frame fr;
    Obj r;
    LISP_TRY(L, &fr, FR_BLOCK, (Obj)tag) {
        tag->frame = &fr;
        tag->live = true;
        env_up(env, b->depth)->slots[b->index] = (Obj)tag;
        r = EVAL(L, b->body, env);
        if (UNLIKELY(r == UNWIND_MARK) && L->exit_target == n) r = take_exit_values(L);
    } LISP_CATCH(L, &fr) {
        r = landed_values(L);   /* a RETURN-FROM from a closure */
    } LISP_END_TRY;
    tag->live = false;
    return r;
}

Obj ev_return(Lisp *L, Node *n, Env *env) {
    ReturnNode *r = (ReturnNode *)n;
    Obj v;
    EVAL_OR_EXIT(v, L, r->value, env);
    if (L->nvals == 1) L->values[0] = v;
    L->exit_target = r->target;
    return UNWIND_MARK;
}

/* A live exit point whose frame is not on this evaluation's stack belongs to an evaluation
 * suspended in the debugger (src/debugger.c): its stack cannot be entered from here. */
static const char *const unreachable_exit =
    "attempt to RETURN-FROM a block or GO to a tag of an evaluation suspended in the debugger "
    "(invoke one of its restarts with invoke-restart instead)";

Obj ev_return_nl(Lisp *L, Node *n, Env *env) {
    ReturnNode *r = (ReturnNode *)n;
    Obj v;
    EVAL_OR_EXIT(v, L, r->value, env);
    BlockTag *tag = (BlockTag *)env_up(env, r->depth)->slots[r->index];
    if (!tag || !tag->live)
        err_control(L, "attempt to RETURN-FROM a block or GO to a tag that no longer exists");
    if (!frame_reachable(L, tag->frame)) err_control(L, unreachable_exit);
    if (L->nvals == 1) L->values[0] = v;
    unwind_to(L, tag->frame, JUMP_RETURN);
}

Obj ev_tagbody(Lisp *L, Node *n, Env *env) {
    TagbodyNode *t = (TagbodyNode *)n;
    int i = 0;
    while (i < t->count) {
        Obj r = EVAL(L, t->stmts[i], env);
        if (UNLIKELY(r == UNWIND_MARK)) {
            if (L->exit_target != n) return r;
            i = t->tag_pos[L->exit_tag];
            safe_point(L);
            continue;
        }
        i++;
    }
    L->nvals = 1;
    return NIL;
}

Obj ev_tagbody_nl(Lisp *L, Node *n, Env *env) {
    TagbodyNode *t = (TagbodyNode *)n;
    BlockTag *tag = (BlockTag *)gc_alloc(L, sizeof(BlockTag));
    Frame fr;
    volatile int i = 0;
    FRAME_PUSH(L, &fr, FR_TAGBODY, (Obj)tag);
    tag->frame = &fr;
    tag->live = true;
    env_up(env, t->depth)->slots[t->index] = (Obj)tag;
    int code = FRAME_SETJMP(&fr);
    if (code >= JUMP_GO_BASE) {
        i = t->tag_pos[code - JUMP_GO_BASE];
        safe_point(L);
    }
    while (i < t->count) {
        Obj r = EVAL(L, t->stmts[i], env);
        if (UNLIKELY(r == UNWIND_MARK)) {
            if (L->exit_target != n) {
                tag->live = false;
                frame_pop(L, &fr);
                return r;
            }
            i = t->tag_pos[L->exit_tag];
            safe_point(L);
            continue;
        }
        i++;
    }
    tag->live = false;
    frame_pop(L, &fr);
    L->nvals = 1;
    return NIL;
}

Obj ev_go(Lisp *L, Node *n, Env *env) {
    (void)env;
    GoNode *g = (GoNode *)n;
    L->exit_target = g->target;
    L->exit_tag = g->tag;
    return UNWIND_MARK;
}

Obj ev_go_nl(Lisp *L, Node *n, Env *env) {
    GoNode *g = (GoNode *)n;
    BlockTag *tag = (BlockTag *)env_up(env, g->depth)->slots[g->index];
    if (!tag || !tag->live)
        err_control(L, "attempt to RETURN-FROM a block or GO to a tag that no longer exists");
    if (!frame_reachable(L, tag->frame)) err_control(L, unreachable_exit);
    unwind_to(L, tag->frame, JUMP_GO_BASE + g->tag);
}

Obj ev_catch(Lisp *L, Node *n, Env *env) {
    CatchNode *c = (CatchNode *)n;
    Obj tag;
    EVAL_OR_EXIT(tag, L, c->tag, env);
    Frame fr;
    Obj r;
    LISP_TRY(L, &fr, FR_CATCH, tag) {
        r = EVAL(L, c->body, env);
    } LISP_CATCH(L, &fr) {
        return landed_values(L);   /* a THROW to TAG */
    } LISP_END_TRY;
    return r;
}

Obj ev_throw(Lisp *L, Node *n, Env *env) {
    ThrowNode *t = (ThrowNode *)n;
    Obj tag, v;
    EVAL_OR_EXIT(tag, L, t->tag, env);
    EVAL_OR_EXIT(v, L, t->value, env);
    throw_to_tag(L, tag, v);
}

/* Saved values and pending exit while a cleanup form runs. */
typedef struct SavedState {
    int n;
    Obj small[8];
    Obj *vals;
    void *exit_target;
    int exit_tag;
} SavedState;

static void save_state(Lisp *L, Obj primary, SavedState *s) {
    s->n = L->nvals;
    s->vals = s->n <= 8 ? s->small : (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)s->n);
    if (s->n == 1) s->vals[0] = primary == UNWIND_MARK ? L->values[0] : primary;
    else memcpy(s->vals, L->values, sizeof(Obj) * (size_t)s->n);
    s->exit_target = L->exit_target;
    s->exit_tag = L->exit_tag;
}

static void restore_state(Lisp *L, SavedState *s) {
    L->nvals = s->n;
    memcpy(L->values, s->vals, sizeof(Obj) * (size_t)s->n);
    L->exit_target = s->exit_target;
    L->exit_tag = s->exit_tag;
}

Obj ev_unwind_protect(Lisp *L, Node *n, Env *env) {
    UnwindNode *u = (UnwindNode *)n;
    Frame fr;
    volatile Obj r = NIL;
    SavedState st;
    LISP_UNWIND_PROTECT_BEGIN(L, &fr) {
        r = EVAL(L, u->protected_form, env);
    } LISP_UNWIND_PROTECT_EXIT {
        /* the values (or the exit passing through) wait while the cleanup runs */
        if (LISP_UNWINDING) r = L->nvals ? L->values[0] : NIL;
        save_state(L, r, &st);
        Obj c = EVAL(L, u->cleanup, env);
        if (c == UNWIND_MARK) return c;   /* the cleanup itself transferred control */
        restore_state(L, &st);
    } LISP_UNWIND_PROTECT_END;
    if (r == UNWIND_MARK) return r;
    return st.n == 1 ? st.vals[0] : (st.n ? st.vals[0] : NIL);
}

Obj ev_mvcall(Lisp *L, Node *n, Env *env) {
    MvCallNode *m = (MvCallNode *)n;
    Obj fn;
    EVAL_OR_EXIT(fn, L, m->fn, env);
    size_t cap = 16, count = 0;
    Obj small[16];
    Obj *args = small;
    for (int i = 0; i < m->count; i++) {
        Obj v;
        EVAL_OR_EXIT(v, L, m->forms[i], env);
        int k = L->nvals;
        if (count + (size_t)k > cap) {
            size_t nc = cap * 2;
            while (nc < count + (size_t)k) nc *= 2;
            Obj *na = (Obj *)gc_alloc(L, sizeof(Obj) * nc);
            memcpy(na, args, sizeof(Obj) * count);
            args = na;
            cap = nc;
        }
        if (k == 1) args[count++] = v;
        else for (int j = 0; j < k; j++) args[count++] = L->values[j];
    }
    return funcall(L, fn, (int)count, args);
}

Obj ev_mvprog1(Lisp *L, Node *n, Env *env) {
    Mvp1Node *m = (Mvp1Node *)n;
    Obj r;
    EVAL_OR_EXIT(r, L, m->first, env);
    SavedState st;
    save_state(L, r, &st);
    Obj x = EVAL(L, m->rest, env);
    if (x == UNWIND_MARK) return x;
    restore_state(L, &st);
    return st.n ? st.vals[0] : NIL;
}

Obj ev_progv(Lisp *L, Node *n, Env *env) {
    ProgvNode *p = (ProgvNode *)n;
    Obj syms, vals;
    EVAL_OR_EXIT(syms, L, p->syms, env);
    EVAL_OR_EXIT(vals, L, p->vals, env);
    size_t sp = L->special_sp;
    for (Obj s = syms; s != NIL; s = CDR(s)) {
        if (!is_cons(s)) err_type(L, syms, S(LIST));
        Obj sym = CAR(s);
        if (!is_type(sym, T_SYMBOL) || (SYM(sym)->h.flags & SYM_CONSTANT)) err_type(L, sym, S(SYMBOL));
        if (is_cons(vals)) {
            bind_special(L, sym, CAR(vals));
            vals = CDR(vals);
        } else {
            bind_special(L, sym, UNBOUND);
        }
    }
    Obj r = EVAL(L, p->body, env);
    unbind_specials(L, sp);
    return r;
}

Obj ev_the(Lisp *L, Node *n, Env *env) {
    return EVAL(L, ((TheNode *)n)->form, env);
}

/* ---- function names ---- */

Obj fdefinition_get(Lisp *L, Obj name) {
    if (is_symbol(name)) return symbol_data(L, name)->function;
    if (is_cons(name) && CAR(name) == S(SETF) && is_cons(CDR(name)) && is_symbol(CAR(CDR(name))))
        return symbol_data(L, CAR(CDR(name)))->setf_function;
    err_type(L, name, cons(L, S(OR), cons(L, S(SYMBOL), cons(L, cons(L, S(CONS), NIL), NIL))));
}

void fdefinition_set(Lisp *L, Obj name, Obj fn) {
    /* where a function made by DEFSTRUCT, DEFCLASS, (SETF FDEFINITION)... was made */
    if (UNLIKELY(L->source_location != NIL) && L->boot_phase) xref_function_defined(L, name);
    if (is_symbol(name)) {
        Symbol *s = symbol_data(L, name);
        s->function = fn;
        s->h.flags &= (uint8_t)~SYM_MACRO;
        return;
    }
    if (is_cons(name) && CAR(name) == S(SETF) && is_cons(CDR(name)) && is_symbol(CAR(CDR(name)))) {
        symbol_data(L, CAR(CDR(name)))->setf_function = fn;
        return;
    }
    err_type(L, name, S(SYMBOL));
}

/* The evaluators of this file, for images (imagetab.h: a node's evaluator is written as its row). */
const EvalDef nodes_evaluators[] = {
    EVALDEF(ev_const), EVALDEF(ev_lref), EVALDEF(ev_lref0), EVALDEF(ev_lset), EVALDEF(ev_gref), EVALDEF(ev_gset),
    EVALDEF(ev_if), EVALDEF(ev_progn), EVALDEF(ev_let), EVALDEF(ev_let_local), EVALDEF(ev_let_special1),
    EVALDEF(ev_flet), EVALDEF(ev_local_fn), EVALDEF(ev_function), EVALDEF(ev_lambda), EVALDEF(ev_block),
    EVALDEF(ev_block_nl), EVALDEF(ev_return), EVALDEF(ev_return_nl), EVALDEF(ev_tagbody), EVALDEF(ev_tagbody_nl),
    EVALDEF(ev_go), EVALDEF(ev_go_nl), EVALDEF(ev_catch), EVALDEF(ev_throw), EVALDEF(ev_unwind_protect),
    EVALDEF(ev_progv), EVALDEF(ev_mvcall), EVALDEF(ev_mvprog1), EVALDEF(ev_the), EVALDEF(ev_dbind),
    EVALDEF(ev_call_node), EVALDEF(ev_call_global), EVALDEF(ev_call_global0), EVALDEF(ev_call_global1),
    EVALDEF(ev_call_global2), EVALDEF(ev_call_global3), EVALDEF(ev_call_local0), EVALDEF(ev_call_local1),
    EVALDEF(ev_call_local2), EVALDEF(ev_call_local3), EVALDEF(ev_call_prim),
    EVALDEF(ev_inline_car), EVALDEF(ev_inline_cdr), EVALDEF(ev_inline_null), EVALDEF(ev_inline_consp),
    EVALDEF(ev_inline_1plus), EVALDEF(ev_inline_1minus), EVALDEF(ev_inline_zerop), EVALDEF(ev_inline_add),
    EVALDEF(ev_inline_sub), EVALDEF(ev_inline_lt), EVALDEF(ev_inline_gt), EVALDEF(ev_inline_le),
    EVALDEF(ev_inline_ge), EVALDEF(ev_inline_numeq), EVALDEF(ev_inline_eq), EVALDEF(ev_inline_eql),
    EVALDEF(ev_inline_cons), EVALDEF(ev_inline_mul), EVALDEF(ev_inline_mod), EVALDEF(ev_inline_add3),
    EVALDEF(ev_inline_cadr), EVALDEF(ev_inline_cddr), EVALDEF(ev_inline_caar), EVALDEF(ev_inline_cdar),
    EVALDEF(ev_inline_caddr), EVALDEF(ev_call_global4), EVALDEF(ev_call_global5), EVALDEF(ev_call_global6),
    EVALDEF(ev_call_local4), EVALDEF(ev_call_local5), EVALDEF(ev_call_local6), EVALDEF(ev_funcall),
    EVALDEF(ev_inline_car_var), EVALDEF(ev_inline_cdr_var), EVALDEF(ev_let_local1), EVALDEF(ev_lset0),
    EVALDEF(ev_inline_1plus_var), EVALDEF(ev_inline_1minus_var),
    EVALDEF(ev_call_self_tail1), EVALDEF(ev_call_self_tail2), EVALDEF(ev_call_self_tail3),
    EVALDEF(ev_call_self_tail4), EVALDEF(ev_call_self_tail5), EVALDEF(ev_call_self_tail6),
    EVALDEF(ev_call_prim1), EVALDEF(ev_call_prim2), EVALDEF(ev_call_prim3), EVALDEF(ev_call_prim4),
    EVALDEF(ev_let_local2), EVALDEF(ev_inline_add_vv), EVALDEF(ev_inline_sub_vv), EVALDEF(ev_inline_lt_vv),
    EVALDEF(ev_inline_gt_vv), EVALDEF(ev_inline_le_vv), EVALDEF(ev_inline_ge_vv), EVALDEF(ev_inline_numeq_vv),
    EVALDEF(ev_inline_eq_vv), EVALDEF(ev_inline_eql_vv), EVALDEF(ev_inline_cons_vv), EVALDEF(ev_inline_mul_vv),
    EVALDEF(ev_inline_mod_vv),
    EVALDEF(ev_call_self_tail_simple1), EVALDEF(ev_call_self_tail_simple2), EVALDEF(ev_call_self_tail_simple3),
    EVALDEF(ev_call_self_tail_simple4), EVALDEF(ev_call_self_tail_simple5), EVALDEF(ev_call_self_tail_simple6),
    EVALDEF(ev_inline_add_ll), EVALDEF(ev_inline_add_lc), EVALDEF(ev_inline_sub_ll),
    EVALDEF(ev_inline_sub_lc), EVALDEF(ev_inline_lt_ll), EVALDEF(ev_inline_lt_lc), EVALDEF(ev_inline_gt_ll),
    EVALDEF(ev_inline_gt_lc), EVALDEF(ev_inline_le_ll), EVALDEF(ev_inline_le_lc), EVALDEF(ev_inline_ge_ll),
    EVALDEF(ev_inline_ge_lc), EVALDEF(ev_inline_numeq_ll), EVALDEF(ev_inline_numeq_lc),
    EVALDEF(ev_inline_eq_ll), EVALDEF(ev_inline_eq_lc), EVALDEF(ev_inline_eql_ll), EVALDEF(ev_inline_eql_lc),
    EVALDEF(ev_inline_cons_ll), EVALDEF(ev_inline_cons_lc), EVALDEF(ev_inline_mul_ll),
    EVALDEF(ev_inline_mul_lc), EVALDEF(ev_inline_mod_ll), EVALDEF(ev_inline_mod_lc),
    EVALDEF(ev_inline_add_gc), EVALDEF(ev_inline_sub_gc),
    {0},
};
