/* nodes-test.c: fused tests: an IF whose test calls a common CL predicate decides its branch from a C
 * boolean, without making T or NIL for the IF to test again. */
#include "node.h"
#include "lstring.h"

/* The branch for the boolean B of the predicate call. With a NOT or NULL around the call the
 * branches were swapped at analysis; should that NOT no longer be CL's (it cannot be redefined,
 * but the check is one compare), it is called on the predicate's value the general way. The
 * slow paths are out of line: an argument array whose address escapes would keep the fast
 * path from ending in a tail call of the branch. */
static __attribute__((noinline)) Obj if_branch_neg(Lisp *L, IfNode *i, bool b, Env *env) {
    Obj v = b ? S(T) : NIL;
    Obj r = prim_call_slow(L, i->neg, 1, &v);
    if (r == UNWIND_MARK) return r;
    return r != NIL ? EVAL(L, i->els, env) : EVAL(L, i->then, env);
}

static inline __attribute__((always_inline)) Obj if_branch(Lisp *L, IfNode *i, bool b, Env *env) {
    CallNode *neg = i->neg;
    if (UNLIKELY(neg != NULL) && UNLIKELY(SYM(neg->fname)->function != neg->cached))
        return if_branch_neg(L, i, b, env);
    return b ? EVAL(L, i->then, env) : EVAL(L, i->els, env);
}

/* The predicate called the general way with its NA arguments A and X. */
static __attribute__((noinline)) Obj if_slow(Lisp *L, IfNode *i, int na, Obj a, Obj x, Env *env) {
    Obj args[2] = {a, x};
    Obj r = prim_call_slow(L, i->call, na, args);
    if (UNLIKELY(r == UNWIND_MARK)) return r;
    return if_branch(L, i, r != NIL, env);
}

/* One evaluator per predicate. FAST decides B and jumps to decided when it can (the symbol still
 * names the primitive seen at analysis and the arguments are of the types it handles); otherwise
 * the primitive (or whatever the symbol names now) is called, and signals what it signals. */
#define DEFINE_TEST1(name, fast)                                                    \
    Obj name(Lisp *L, Node *n, Env *env) {                                          \
        IfNode *i = (IfNode *)n;                                                    \
        CallNode *c = i->call;                                                      \
        Obj a;                                                                      \
        bool b;                                                                     \
        ARG_OR_EXIT(a, L, c->args[0], env);                                         \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { fast }                  \
        return if_slow(L, i, 1, a, NIL, env);                                       \
    decided:                                                                        \
        return if_branch(L, i, b, env);                                             \
    }

#define DEFINE_TEST2(name, fast)                                                    \
    Obj name(Lisp *L, Node *n, Env *env) {                                          \
        IfNode *i = (IfNode *)n;                                                    \
        CallNode *c = i->call;                                                      \
        Obj a, x;                                                                   \
        bool b;                                                                     \
        ARG_OR_EXIT(a, L, c->args[0], env);                                         \
        ARG_OR_EXIT(x, L, c->args[1], env);                                         \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { fast }                  \
        return if_slow(L, i, 2, a, x, env);                                         \
    decided:                                                                        \
        return if_branch(L, i, b, env);                                             \
    }

#define DECIDE(test) do { b = (test); goto decided; } while (0)
#define FIXNUMS (is_fixnum(a) && is_fixnum(x))

/* The fused predicates: each evaluator's name and what its fast path decides of A (and X, the
 * second argument), listed once and expanded into every variant below. */
#define IF_TESTS1(X)                                                          \
    X(ev_if_null, DECIDE(a == NIL);)                                          \
    X(ev_if_consp, DECIDE(is_cons(a));)                                       \
    X(ev_if_atom, DECIDE(!is_cons(a));)                                       \
    X(ev_if_listp, DECIDE(a == NIL || is_cons(a));)                           \
    X(ev_if_symbolp, DECIDE(is_symbol(a));)                                   \
    X(ev_if_numberp, DECIDE(is_number(a));)                                   \
    X(ev_if_endp, if (is_cons(a)) DECIDE(false); if (a == NIL) DECIDE(true);) \
    X(ev_if_zerop, if (is_fixnum(a)) DECIDE(a == FIX(0));)                    \
    X(ev_if_plusp, if (is_fixnum(a)) DECIDE(fixnum_less(FIX(0), a));)         \
    X(ev_if_minusp, if (is_fixnum(a)) DECIDE(fixnum_less(a, FIX(0)));)
#define IF_TESTS2(X)                                              \
    X(ev_if_eq, DECIDE(a == x);)                                  \
    X(ev_if_eql, int e = eql_quick(a, x); if (e >= 0) DECIDE(e);) \
    X(ev_if_lt, if (FIXNUMS) DECIDE(fixnum_less(a, x));)          \
    X(ev_if_gt, if (FIXNUMS) DECIDE(fixnum_less(x, a));)          \
    X(ev_if_le, if (FIXNUMS) DECIDE(!fixnum_less(x, a));)         \
    X(ev_if_ge, if (FIXNUMS) DECIDE(!fixnum_less(a, x));)         \
    X(ev_if_numeq, if (FIXNUMS) DECIDE(a == x);)                  \
    X(ev_if_numne, if (FIXNUMS) DECIDE(a != x);)

IF_TESTS1(DEFINE_TEST1)
IF_TESTS2(DEFINE_TEST2)

/* The same with the argument a variable of the current frame, read in place from the slot
 * VAR_INDEX (fuse_if_var). Each comes twice: NAME for a test with a NOT or NULL around it (NEG),
 * NAME_pos without, which need not look at NEG (two instructions of about fifteen). */
#define DEFINE_TEST1_VAR(name, fast)                                                \
    static Obj name(Lisp *L, Node *n, Env *env) {                                   \
        IfNode *i = (IfNode *)n;                                                    \
        CallNode *c = i->call;                                                      \
        Obj a = env->slots[i->var_index];                                           \
        bool b;                                                                     \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { fast }                  \
        return if_slow(L, i, 1, a, NIL, env);                                       \
    decided:                                                                        \
        return if_branch(L, i, b, env);                                             \
    }                                                                               \
    static Obj name##_pos(Lisp *L, Node *n, Env *env) {                             \
        IfNode *i = (IfNode *)n;                                                    \
        CallNode *c = i->call;                                                      \
        Obj a = env->slots[i->var_index];                                           \
        bool b;                                                                     \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { fast }                  \
        return if_slow(L, i, 1, a, NIL, env);                                       \
    decided:                                                                        \
        return b ? EVAL(L, i->then, env) : EVAL(L, i->els, env);                    \
    }

#define DEFINE_TEST1_VAR_OF(name, fast) DEFINE_TEST1_VAR(name##_var, fast)
IF_TESTS1(DEFINE_TEST1_VAR_OF)
#undef DEFINE_TEST1_VAR_OF

/* Two arguments, each a variable of the current frame or a constant ((eql key 'sym) of CASE,
 * (>= i n) of DOTIMES), read in place: no node call, so no register is saved. */
#define DEFINE_TEST2_VV(name, read_args, fast)                                      \
    static Obj name(Lisp *L, Node *n, Env *env) {                                   \
        IfNode *i = (IfNode *)n;                                                    \
        CallNode *c = i->call;                                                      \
        read_args                                                                   \
        bool b;                                                                     \
        if (LIKELY(SYM(c->fname)->function == c->cached)) { fast }                  \
        return if_slow(L, i, 2, a, x, env);                                         \
    decided:                                                                        \
        return if_branch(L, i, b, env);                                             \
    }

/* Each comes three times: NAME_vv for a variable or a constant in either place, NAME_ll for two
 * variables and NAME_lc for a variable and a constant, whose slots are in the IF node
 * (VAR_INDEX, VAR_INDEX2: no test of what the argument is, no load of its node). */
#define DEFINE_TEST2_IN_PLACE(name, fast)                                                           \
    DEFINE_TEST2_VV(name##_vv, Obj a = in_place_arg(c->args[0], env);                               \
                    Obj x = in_place_arg(c->args[1], env);, fast)                                   \
    DEFINE_TEST2_VV(name##_ll, Obj a = env->slots[i->var_index]; Obj x = env->slots[i->var_index2];, \
                    fast)                                                                           \
    DEFINE_TEST2_VV(name##_lc, Obj a = env->slots[i->var_index];                                    \
                    Obj x = ((ConstNode *)c->args[1])->value;, fast)

IF_TESTS2(DEFINE_TEST2_IN_PLACE)
#undef DEFINE_TEST2_IN_PLACE

#undef FIXNUMS
#undef IF_TESTS1
#undef IF_TESTS2
#undef DECIDE
#undef DEFINE_TEST1
#undef DEFINE_TEST1_VAR
#undef DEFINE_TEST2
#undef DEFINE_TEST2_VV

/* (if VAR ...) with VAR in the current frame: the slot is tested in place. */
static Obj ev_if_lref0(Lisp *L, Node *n, Env *env) {
    IfNode *i = (IfNode *)n;
    return env->slots[i->var_index] != NIL ? EVAL(L, i->then, env) : EVAL(L, i->els, env);
}

/* The predicates fused, by name in CL and argument count. */
static const struct { const char *name; int nargs; EvalFn ev; } fused_tests[] = {
    {"NULL", 1, ev_if_null}, {"NOT", 1, ev_if_null}, {"CONSP", 1, ev_if_consp}, {"ATOM", 1, ev_if_atom},
    {"LISTP", 1, ev_if_listp}, {"SYMBOLP", 1, ev_if_symbolp}, {"NUMBERP", 1, ev_if_numberp},
    {"ENDP", 1, ev_if_endp},
    {"ZEROP", 1, ev_if_zerop}, {"PLUSP", 1, ev_if_plusp}, {"MINUSP", 1, ev_if_minusp},
    {"EQ", 2, ev_if_eq}, {"EQL", 2, ev_if_eql}, {"<", 2, ev_if_lt}, {">", 2, ev_if_gt},
    {"<=", 2, ev_if_le}, {">=", 2, ev_if_ge}, {"=", 2, ev_if_numeq}, {"/=", 2, ev_if_numne},
};

static EvalFn fused_evaluator(Lisp *L, CallNode *c) {
    if (!c->cached || c->fn || !is_type(c->fname, T_SYMBOL)) return NULL;
    for (size_t k = 0; k < sizeof fused_tests / sizeof *fused_tests; k++)
        if (fused_tests[k].nargs == c->nargs && string_equal_cstr(SYM(c->fname)->name, fused_tests[k].name))
            return fused_tests[k].ev;
    (void)L;
    return NULL;
}

/* The predicates that have a variant reading a variable in place. */
#define VAR_TEST(p) {ev_if_##p, ev_if_##p##_var, ev_if_##p##_var_pos}
static const struct { EvalFn ev, var, pos; } fused_var_tests[] = {
    VAR_TEST(null), VAR_TEST(consp), VAR_TEST(atom), VAR_TEST(endp), VAR_TEST(listp), VAR_TEST(symbolp),
    VAR_TEST(numberp), VAR_TEST(zerop), VAR_TEST(plusp), VAR_TEST(minusp),
};
#undef VAR_TEST
/* The same for two arguments, each a variable or a constant. */
#define VV_TEST(p) {ev_if_##p, ev_if_##p##_vv, ev_if_##p##_ll, ev_if_##p##_lc}
static const struct { EvalFn ev, var, ll, lc; } fused_vv_tests[] = {
    VV_TEST(eq), VV_TEST(eql), VV_TEST(lt), VV_TEST(gt), VV_TEST(le), VV_TEST(ge), VV_TEST(numeq), VV_TEST(numne),
};
#undef VV_TEST

Obj ev_lref(Lisp *L, Node *n, Env *env);
Obj ev_if(Lisp *L, Node *n, Env *env);
extern const EvalDef nodes_test_evaluators[];

bool if_tests_var(IfNode *i) {
    if (i->n.ev == ev_if) return i->test->ev == ev_lref;
    for (size_t k = 0; k < sizeof fused_var_tests / sizeof *fused_var_tests; k++)
        if (i->n.ev == fused_var_tests[k].ev) return i->call->args[0]->ev == ev_lref;
    for (size_t k = 0; k < sizeof fused_vv_tests / sizeof *fused_vv_tests; k++)
        if (i->n.ev == fused_vv_tests[k].ev) return args_in_place(i->call->args[0], i->call->args[1], ev_lref);
    return false;
}

void fuse_if_var(IfNode *i) {
    if (i->n.ev == ev_if) {
        if (i->test->ev == ev_lref0) {
            i->var_index = ((VarNode *)i->test)->index;
            i->n.ev = ev_if_lref0;
        }
        return;
    }
    if (i->call->nargs == 2) {
        Node *a = i->call->args[0], *x = i->call->args[1];
        if (!args_in_place(a, x, ev_lref0)) return;
        for (size_t k = 0; k < sizeof fused_vv_tests / sizeof *fused_vv_tests; k++) {
            if (i->n.ev != fused_vv_tests[k].ev) continue;
            if (a->ev == ev_lref0 && x->ev == ev_lref0) {
                i->var_index = ((VarNode *)a)->index;
                i->var_index2 = ((VarNode *)x)->index;
                i->n.ev = fused_vv_tests[k].ll;
            } else if (a->ev == ev_lref0) {
                i->var_index = ((VarNode *)a)->index;
                i->n.ev = fused_vv_tests[k].lc;
            } else {
                i->n.ev = fused_vv_tests[k].var;
            }
            return;
        }
        return;
    }
    if (i->call->args[0]->ev != ev_lref0) return;
    i->var_index = ((VarNode *)i->call->args[0])->index;
    for (size_t k = 0; k < sizeof fused_var_tests / sizeof *fused_var_tests; k++)
        if (i->n.ev == fused_var_tests[k].ev) {
            i->n.ev = i->neg ? fused_var_tests[k].var : fused_var_tests[k].pos;
            return;
        }
}

/* The in-place tests by their LOOP_ kind, for the loops of self tail calls (nodes-selfloop.c). */
static const struct { EvalFn ev; int kind; } loop_tests[] = {
    {ev_if_lref0, LOOP_TRUE},
    {ev_if_null_var, LOOP_NULL}, {ev_if_null_var_pos, LOOP_NULL},
    {ev_if_consp_var, LOOP_CONSP}, {ev_if_consp_var_pos, LOOP_CONSP},
    {ev_if_atom_var, LOOP_ATOM}, {ev_if_atom_var_pos, LOOP_ATOM},
    {ev_if_listp_var, LOOP_LISTP}, {ev_if_listp_var_pos, LOOP_LISTP},
    {ev_if_symbolp_var, LOOP_SYMBOLP}, {ev_if_symbolp_var_pos, LOOP_SYMBOLP},
    {ev_if_numberp_var, LOOP_NUMBERP}, {ev_if_numberp_var_pos, LOOP_NUMBERP},
    {ev_if_endp_var, LOOP_ENDP}, {ev_if_endp_var_pos, LOOP_ENDP},
    {ev_if_zerop_var, LOOP_ZEROP}, {ev_if_zerop_var_pos, LOOP_ZEROP},
    {ev_if_plusp_var, LOOP_PLUSP}, {ev_if_plusp_var_pos, LOOP_PLUSP},
    {ev_if_minusp_var, LOOP_MINUSP}, {ev_if_minusp_var_pos, LOOP_MINUSP},
    {ev_if_eq_ll, LOOP_EQ_LL}, {ev_if_eq_lc, LOOP_EQ_LC},
    {ev_if_eql_ll, LOOP_EQL_LL}, {ev_if_eql_lc, LOOP_EQL_LC},
    {ev_if_lt_ll, LOOP_LT_LL}, {ev_if_lt_lc, LOOP_LT_LC},
    {ev_if_gt_ll, LOOP_GT_LL}, {ev_if_gt_lc, LOOP_GT_LC},
    {ev_if_le_ll, LOOP_LE_LL}, {ev_if_le_lc, LOOP_LE_LC},
    {ev_if_ge_ll, LOOP_GE_LL}, {ev_if_ge_lc, LOOP_GE_LC},
    {ev_if_numeq_ll, LOOP_NUMEQ_LL}, {ev_if_numeq_lc, LOOP_NUMEQ_LC},
    {ev_if_numne_ll, LOOP_NUMNE_LL}, {ev_if_numne_lc, LOOP_NUMNE_LC},
};

int if_loop_test(IfNode *i) {
    for (size_t k = 0; k < sizeof loop_tests / sizeof *loop_tests; k++)
        if (i->n.ev == loop_tests[k].ev) return loop_tests[k].kind;
    return -1;
}

void fuse_if_test(Lisp *L, IfNode *i) {
    Node *t = i->test;
    if (!call_node_bound(t)) return;
    CallNode *c = (CallNode *)t;
    EvalFn ev = fused_evaluator(L, c);
    if (!ev) return;
    /* (if (not (pred ...)) a b): test pred and swap the branches */
    if (ev == ev_if_null && call_node_bound(c->args[0])) {
        CallNode *inner = (CallNode *)c->args[0];
        EvalFn iev = fused_evaluator(L, inner);
        if (iev) {
            i->neg = c;
            c = inner;
            ev = iev;
            Node *then = i->then;
            i->then = i->els;
            i->els = then;
        }
    }
    i->call = c;
    i->n.ev = ev;
}

bool if_node_p(Node *n) {
    if (n->ev == ev_if) return true;
    for (const EvalDef *d = nodes_test_evaluators; d->ev; d++)
        if (n->ev == d->ev) return true;
    return false;
}

/* The evaluators of this file, for images (imagetab.h). */
const EvalDef nodes_test_evaluators[] = {
    EVALDEF(ev_if_null), EVALDEF(ev_if_consp), EVALDEF(ev_if_atom), EVALDEF(ev_if_listp), EVALDEF(ev_if_symbolp),
    EVALDEF(ev_if_endp), EVALDEF(ev_if_zerop), EVALDEF(ev_if_plusp), EVALDEF(ev_if_minusp), EVALDEF(ev_if_eq),
    EVALDEF(ev_if_eql), EVALDEF(ev_if_lt), EVALDEF(ev_if_gt), EVALDEF(ev_if_le), EVALDEF(ev_if_ge),
    EVALDEF(ev_if_numeq), EVALDEF(ev_if_numne), EVALDEF(ev_if_lref0), EVALDEF(ev_if_numberp),
    EVALDEF(ev_if_null_var), EVALDEF(ev_if_consp_var), EVALDEF(ev_if_atom_var), EVALDEF(ev_if_endp_var),
    EVALDEF(ev_if_listp_var), EVALDEF(ev_if_symbolp_var), EVALDEF(ev_if_numberp_var), EVALDEF(ev_if_zerop_var),
    EVALDEF(ev_if_plusp_var), EVALDEF(ev_if_minusp_var), EVALDEF(ev_if_eq_vv), EVALDEF(ev_if_eql_vv),
    EVALDEF(ev_if_lt_vv), EVALDEF(ev_if_gt_vv), EVALDEF(ev_if_le_vv), EVALDEF(ev_if_ge_vv),
    EVALDEF(ev_if_numeq_vv), EVALDEF(ev_if_numne_vv),
    EVALDEF(ev_if_null_var_pos), EVALDEF(ev_if_consp_var_pos), EVALDEF(ev_if_atom_var_pos),
    EVALDEF(ev_if_endp_var_pos), EVALDEF(ev_if_listp_var_pos), EVALDEF(ev_if_symbolp_var_pos),
    EVALDEF(ev_if_numberp_var_pos), EVALDEF(ev_if_zerop_var_pos), EVALDEF(ev_if_plusp_var_pos),
    EVALDEF(ev_if_minusp_var_pos),
    EVALDEF(ev_if_eq_ll), EVALDEF(ev_if_eq_lc), EVALDEF(ev_if_eql_ll), EVALDEF(ev_if_eql_lc),
    EVALDEF(ev_if_lt_ll), EVALDEF(ev_if_lt_lc), EVALDEF(ev_if_gt_ll), EVALDEF(ev_if_gt_lc),
    EVALDEF(ev_if_le_ll), EVALDEF(ev_if_le_lc), EVALDEF(ev_if_ge_ll), EVALDEF(ev_if_ge_lc),
    EVALDEF(ev_if_numeq_ll), EVALDEF(ev_if_numeq_lc), EVALDEF(ev_if_numne_ll), EVALDEF(ev_if_numne_lc),
    {0},
};
