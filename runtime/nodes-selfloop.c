/* nodes-selfloop.c: a function's self tail calls as one C loop: a body that is a tree of in-place
 * tests with simple self tail calls among its leaves runs its rounds over a small array of ops. */
#include "node.h"
#include "gc.h"
#include <stdlib.h>
#include <string.h>

/* A global function whose body is a tree of IFs that test variables of its frame in place
 * (if_loop_test), whose leaves are constants, variables, other forms and self tail calls of simple
 * arguments (ev_call_self_tail_simpleN: variables, constants, CAR or CDR of variables), such as
 *     (defun list-shorter-p (a b) (cond ((null b) nil) ((null a) t) (t (list-shorter-p (cdr a) (cdr b)))))
 * gets a SelfLoopNode around its body: its rounds are one C loop over a small array of ops, one
 * per IF and leaf, without a node call, a TAIL_MARK or a pass through the call's runner per round.
 * What each op's node checks at every evaluation (the name still names the function of the
 * innermost call, whose frame this is, the profiler off; the predicates, CAR and CDR still CL's) is
 * checked once on entering the loop: inside it no code runs that could change any of it. The
 * loop leaves at its safe point when that would take its slow path, by returning TAIL_MARK: the
 * runner passes the safe point and runs the body again, which checks again. Whatever an op cannot
 * decide in place (ENDP or CDR of a non-list, < of non-fixnums, a leaf that is another form) is
 * its node's to evaluate: the ops before it had no effect, so the node does what the body would. */
enum { ARG_CDR, ARG_VAR, ARG_CAR, ARG_CONST };
#define SELF_LOOP_ARGS 6
#define SELF_LOOP_OPS 32
typedef struct LoopOp {
    uint8_t kind;              /* LOOP_ (node.h) */
    uint8_t a, b;              /* the slots it tests, or LOOP_VAR's */
    uint8_t then;              /* a test's true branch: an op's index (its false branch is the next op) */
    uint8_t argk[SELF_LOOP_ARGS], args[SELF_LOOP_ARGS];   /* LOOP_SELF: each argument's ARG_ and slot */
    Obj k;                     /* LOOP_CONST's value, an _LC test's constant */
    Node *node;                /* what the op stands for: evaluated when it cannot decide in place */
} LoopOp;
typedef struct SelfLoopNode {
    Node n;
    Node *body;                /* the body as analysed: what runs whenever the loop cannot */
    Obj fname;
    int nslots;                /* the frame's: those past the arguments are cleared each round */
    int nchecks;               /* the predicates', CARs' and CDRs' symbols and the primitives */
    Obj *check_syms, *check_fns;
    LoopOp *ops;               /* ops[0] is the body's first test */
} SelfLoopNode;

static inline __attribute__((always_inline)) bool self_loop_ready(Lisp *L, SelfLoopNode *s, Env *env) {
    if (UNLIKELY(!self_tail_loops(L, s->fname, env))) return false;
    for (int k = 0; k < s->nchecks; k++)
        if (UNLIKELY(SYM(s->check_syms[k])->function != s->check_fns[k])) return false;
    return true;
}

/* Argument I of LOOP_SELF op O into X; false when it is CAR or CDR of a non-list. */
static inline __attribute__((always_inline)) bool self_loop_arg(const LoopOp *o, Obj *slots, int i, Obj *x) {
    Obj v = slots[o->args[i]];
    int k = o->argk[i];
    if (LIKELY(k == ARG_CDR)) {   /* the commonest: a loop over a list */
        if (LIKELY(is_cons(v))) v = CDR(v);
        else if (UNLIKELY(v != NIL)) return false;
    } else if (k == ARG_CAR) {
        if (LIKELY(is_cons(v))) v = CAR(v);
        else if (UNLIKELY(v != NIL)) return false;
    } else if (k == ARG_CONST) {
        v = ((ConstNode *)((CallNode *)o->node)->args[i])->value;
    }
    *x = v;
    return true;
}

/* The ops are threaded by computed gotos, one indirect jump per op; a self tail call's op is
 * LOOP_SELF + its argument count less 1, so that each count has its code (the arguments in
 * registers, the loops unrolled). */
#define FIXNUMS(a, x) (is_fixnum(a) && is_fixnum(x))
Obj ev_self_loop(Lisp *L, Node *n, Env *env) {
    SelfLoopNode *s = (SelfLoopNode *)n;
    if (UNLIKELY(!self_loop_ready(L, s, env))) return EVAL(L, s->body, env);
#define KIND1(p) [LOOP_##p] = &&k_##p,
#define KIND2(p) [LOOP_##p##_LL] = &&k_##p##_LL, [LOOP_##p##_LC] = &&k_##p##_LC,
    static const void *const jump[LOOP_NKINDS] = {
        [LOOP_TRUE] = &&k_TRUE, LOOP_TESTS1(KIND1) LOOP_TESTS2(KIND2)
        [LOOP_CONST] = &&k_CONST, [LOOP_VAR] = &&k_VAR, [LOOP_NODE] = &&k_NODE, [LOOP_SELF] = &&k_SELF1,
        [LOOP_SELF + 1] = &&k_SELF2, [LOOP_SELF + 2] = &&k_SELF3, [LOOP_SELF + 3] = &&k_SELF4,
        [LOOP_SELF + 4] = &&k_SELF5, [LOOP_SELF + 5] = &&k_SELF6, [LOOP_SELF_CDR] = &&k_CDR1,
        [LOOP_SELF_CDR + 1] = &&k_CDR2, [LOOP_SELF_CDR + 2] = &&k_CDR3, [LOOP_SELF_CDR + 3] = &&k_CDR4,
        [LOOP_SELF_CDR + 4] = &&k_CDR5, [LOOP_SELF_CDR + 5] = &&k_CDR6,
    };
#undef KIND1
#undef KIND2
    Obj *slots = env->slots;
    const LoopOp *ops = s->ops, *o = ops;
    Obj x, y;
#define NEXT(b) do { if (b) o = &ops[o->then]; else o++; goto *jump[o->kind]; } while (0)
#define GENERAL() return EVAL(L, o->node, env)
    goto *jump[o->kind];
k_TRUE: NEXT(slots[o->a] != NIL);
k_NULL: NEXT(slots[o->a] == NIL);
k_CONSP: NEXT(is_cons(slots[o->a]));
k_ATOM: NEXT(!is_cons(slots[o->a]));
k_LISTP: x = slots[o->a]; NEXT(x == NIL || is_cons(x));
k_SYMBOLP: NEXT(is_symbol(slots[o->a]));
k_NUMBERP: NEXT(is_number(slots[o->a]));
k_ENDP: x = slots[o->a]; if (UNLIKELY(!is_cons(x) && x != NIL)) GENERAL(); NEXT(x == NIL);
k_ZEROP: x = slots[o->a]; if (UNLIKELY(!is_fixnum(x))) GENERAL(); NEXT(x == FIX(0));
k_PLUSP: x = slots[o->a]; if (UNLIKELY(!is_fixnum(x))) GENERAL(); NEXT(fixnum_less(FIX(0), x));
k_MINUSP: x = slots[o->a]; if (UNLIKELY(!is_fixnum(x))) GENERAL(); NEXT(fixnum_less(x, FIX(0)));
#define TEST2(P, READ, cond)                                                              \
k_##P##_LL: x = slots[o->a]; y = slots[o->b]; { READ NEXT(cond); }                        \
k_##P##_LC: x = slots[o->a]; y = o->k; { READ NEXT(cond); }
#define NUMS if (UNLIKELY(!FIXNUMS(x, y))) GENERAL();
    TEST2(EQ, , x == y)
    TEST2(EQL, int e = eql_quick(x, y); if (UNLIKELY(e < 0)) GENERAL();, e)
    TEST2(LT, NUMS, fixnum_less(x, y))
    TEST2(GT, NUMS, fixnum_less(y, x))
    TEST2(LE, NUMS, !fixnum_less(y, x))
    TEST2(GE, NUMS, !fixnum_less(x, y))
    TEST2(NUMEQ, NUMS, x == y)
    TEST2(NUMNE, NUMS, x != y)
#undef NUMS
#undef TEST2
k_CONST: L->nvals = 1; return o->k;
k_VAR: L->nvals = 1; return slots[o->a];
k_NODE: GENERAL();
#define SELF(NA)                                                                            \
    k_SELF##NA: {                                                                           \
        Obj a[NA];                                                                          \
        _Pragma("GCC unroll 6")                                                             \
        for (int i = 0; i < NA; i++)                                                        \
            if (UNLIKELY(!self_loop_arg(o, slots, i, &a[i]))) GENERAL();                    \
        _Pragma("GCC unroll 6")                                                             \
        for (int i = 0; i < NA; i++) slots[i] = a[i];                                       \
        for (int i = NA; i < s->nslots; i++) slots[i] = OBJ(0);   /* see direct_run */      \
        /* the call's safe point: its slow path is the runner's, after a TAIL_MARK */       \
        if (UNLIKELY((const char *)env < L->poll_limit)) return TAIL_MARK;                  \
        o = ops;                                                                            \
        goto *jump[o->kind];                                                                \
    }
    SELF(1) SELF(2) SELF(3) SELF(4) SELF(5) SELF(6)
#undef SELF
/* The same when every argument is CDR of a variable and the frame has no other slot. */
#define CDRS(NA)                                                                            \
    k_CDR##NA: {                                                                            \
        Obj a[NA];                                                                          \
        _Pragma("GCC unroll 6")                                                             \
        for (int i = 0; i < NA; i++) {                                                      \
            x = slots[o->args[i]];                                                          \
            if (LIKELY(is_cons(x))) a[i] = CDR(x);                                          \
            else if (x == NIL) a[i] = NIL;                                                  \
            else GENERAL();                                                                 \
        }                                                                                   \
        _Pragma("GCC unroll 6")                                                             \
        for (int i = 0; i < NA; i++) slots[i] = a[i];                                       \
        if (UNLIKELY((const char *)env < L->poll_limit)) return TAIL_MARK;                  \
        o = ops;                                                                            \
        goto *jump[o->kind];                                                                \
    }
    CDRS(1) CDRS(2) CDRS(3) CDRS(4) CDRS(5) CDRS(6)
#undef CDRS
#undef NEXT
#undef GENERAL
}
#undef FIXNUMS


Obj ev_progn(Lisp *L, Node *n, Env *env);
Obj ev_the(Lisp *L, Node *n, Env *env);
Obj ev_inline_car_var(Lisp *L, Node *n, Env *env);
Obj ev_call_self_tail_simple1(Lisp *L, Node *n, Env *env);
Obj ev_call_self_tail_simple2(Lisp *L, Node *n, Env *env);
Obj ev_call_self_tail_simple3(Lisp *L, Node *n, Env *env);
Obj ev_call_self_tail_simple4(Lisp *L, Node *n, Env *env);
Obj ev_call_self_tail_simple5(Lisp *L, Node *n, Env *env);
Obj ev_call_self_tail_simple6(Lisp *L, Node *n, Env *env);

typedef struct LoopBuild {
    LoopOp ops[SELF_LOOP_OPS];
    int nops;
    Obj syms[2 * SELF_LOOP_OPS], fns[2 * SELF_LOOP_OPS];
    int nchecks;
    bool self;                 /* a LOOP_SELF was made */
    int nslots;                /* the frame's */
} LoopBuild;

static bool loop_check(LoopBuild *lb, CallNode *c) {
    for (int k = 0; k < lb->nchecks; k++)
        if (lb->syms[k] == c->fname && lb->fns[k] == c->cached) return true;
    if (lb->nchecks == 2 * SELF_LOOP_OPS || !c->cached) return false;
    lb->syms[lb->nchecks] = c->fname;
    lb->fns[lb->nchecks++] = c->cached;
    return true;
}

static bool self_tail_simple_p(Node *n) {
    EvalFn ev = n->ev;
    return ev == ev_call_self_tail_simple1 || ev == ev_call_self_tail_simple2 || ev == ev_call_self_tail_simple3 ||
           ev == ev_call_self_tail_simple4 || ev == ev_call_self_tail_simple5 || ev == ev_call_self_tail_simple6;
}

/* The op for node N and those of its branches: its index, or -1 when the loop cannot be made. */
static int loop_op(LoopBuild *lb, Node *n) {
    while ((n->ev == ev_progn && ((SeqNode *)n)->count == 1) || n->ev == ev_the)
        n = n->ev == ev_the ? ((TheNode *)n)->form : ((SeqNode *)n)->forms[0];
    if (lb->nops == SELF_LOOP_OPS) return -1;
    int at = lb->nops++;
    LoopOp *o = &lb->ops[at];
    memset(o, 0, sizeof *o);
    o->node = n;
    int kind = if_node_p(n) ? if_loop_test((IfNode *)n) : -1;
    if (kind >= 0) {
        IfNode *i = (IfNode *)n;
        o->kind = (uint8_t)kind;
        o->a = (uint8_t)i->var_index;
        o->b = (uint8_t)i->var_index2;
        if (kind != LOOP_TRUE) {
            if (!loop_check(lb, i->call)) return -1;
            if (i->call->nargs == 2 && i->call->args[1]->ev == ev_const) o->k = ((ConstNode *)i->call->args[1])->value;
        }
        if (i->neg && !loop_check(lb, i->neg)) return -1;
        if (loop_op(lb, i->els) != at + 1) return -1;   /* the false branch next */
        int then = loop_op(lb, i->then);
        if (then < 0) return -1;
        o = &lb->ops[at];
        o->then = (uint8_t)then;
    } else if (n->ev == ev_const) {
        o->kind = LOOP_CONST;
        o->k = ((ConstNode *)n)->value;
    } else if (n->ev == ev_lref0) {
        o->kind = LOOP_VAR;
        o->a = (uint8_t)((VarNode *)n)->index;
    } else if (self_tail_simple_p(n)) {
        CallNode *c = (CallNode *)n;
        o->kind = (uint8_t)(LOOP_SELF + c->nargs - 1);
        for (int k = 0; k < c->nargs; k++) {
            Node *a = c->args[k];
            if (a->ev == ev_lref0) { o->argk[k] = ARG_VAR; o->args[k] = (uint8_t)((VarNode *)a)->index; continue; }
            if (a->ev == ev_const) { o->argk[k] = ARG_CONST; continue; }
            o->argk[k] = a->ev == ev_inline_car_var ? ARG_CAR : ARG_CDR;
            o->args[k] = (uint8_t)((CallNode *)a)->slot0;
            if (!loop_check(lb, (CallNode *)a)) return -1;
        }
        bool cdrs = lb->nslots == c->nargs;
        for (int k = 0; k < c->nargs; k++) cdrs = cdrs && o->argk[k] == ARG_CDR;
        if (cdrs) o->kind = (uint8_t)(LOOP_SELF_CDR + c->nargs - 1);
        lb->self = true;
    } else {
        o->kind = LOOP_NODE;
    }
    return at;
}

void self_loop_build(Lisp *L, Lambda *lam) {
    /* the slots are bytes in the ops */
    if (!lam->body || !lam->direct_args || lam->ll.nreq < 1 || lam->ll.nreq > SELF_LOOP_ARGS ||
        lam->nslots > 255 || !is_type(lam->name, T_SYMBOL))
        return;
    LoopBuild *lb = (LoopBuild *)malloc(sizeof *lb);
    if (!lb) return;
    lb->nops = lb->nchecks = 0;
    lb->self = false;
    lb->nslots = lam->nslots;
    if (loop_op(lb, lam->body) == 0 && lb->self && lb->ops[0].kind < LOOP_CONST) {
        SelfLoopNode *s = (SelfLoopNode *)gc_alloc(L, sizeof *s);
        s->n = *lam->body;
        s->n.ev = ev_self_loop;
        s->body = lam->body;
        s->fname = lam->name;
        s->nslots = lam->nslots;
        s->nchecks = lb->nchecks;
        s->check_syms = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(lb->nchecks + 1));
        s->check_fns = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(lb->nchecks + 1));
        memcpy(s->check_syms, lb->syms, sizeof(Obj) * (size_t)lb->nchecks);
        memcpy(s->check_fns, lb->fns, sizeof(Obj) * (size_t)lb->nchecks);
        s->ops = (LoopOp *)gc_alloc(L, sizeof(LoopOp) * (size_t)lb->nops);
        memcpy(s->ops, lb->ops, sizeof(LoopOp) * (size_t)lb->nops);
        lam->body = &s->n;
    }
    free(lb);
}

/* The evaluators of this file, for images (imagetab.h). */
const EvalDef nodes_selfloop_evaluators[] = {
    EVALDEF(ev_self_loop),
    {0},
};
