/* nodes-loop.c: loops: a TAGBODY whose last statement goes back to one of its own tags (what DO,
 * DO*, DOLIST and DOTIMES expand to) runs as a C loop, DOLIST's test, element and step are done
 * in place, and DO's parallel step (PSETQ) assigns without its temporaries. */
#include "node.h"
#include "lstring.h"
#include "gc.h"
#include <stdlib.h>
#include <string.h>

Obj ev_go(Lisp *L, Node *n, Env *env);
Obj ev_tagbody(Lisp *L, Node *n, Env *env);
Obj ev_lset0(Lisp *L, Node *n, Env *env);
Obj ev_progn(Lisp *L, Node *n, Env *env);
Obj ev_let_local(Lisp *L, Node *n, Env *env);
Obj ev_let_local1(Lisp *L, Node *n, Env *env);
Obj ev_inline_car_var(Lisp *L, Node *n, Env *env);
Obj ev_inline_cdr_var(Lisp *L, Node *n, Env *env);
Obj ev_inline_1plus(Lisp *L, Node *n, Env *env);

/* The statements of loop T from statement I on, as ev_tagbody runs them, except that its last
 * statement, a GO to one of its tags, is not evaluated: the loop goes on from that tag
 * (loop_pos). A GO from inside lands as in ev_tagbody; one to a tag after the last statement
 * ends the loop. Each turn passes a safe point, as the GO did. */
static Obj loop_from(Lisp *L, TagbodyNode *t, Env *env, int i) {
    int last = t->count - 1;
    for (;;) {
        while (i < last) {
            Obj r = EVAL(L, t->stmts[i], env);
            if (UNLIKELY(r == UNWIND_MARK)) {
                if (L->exit_target != &t->n) return r;
                i = t->tag_pos[L->exit_tag];
                safe_point(L);
                continue;
            }
            i++;
        }
        if (i > last) break;
        i = t->loop_pos;
        safe_point(L);
    }
    L->nvals = 1;
    return NIL;
}

Obj ev_tagbody_loop(Lisp *L, Node *n, Env *env) { return loop_from(L, (TagbodyNode *)n, env, 0); }

/* DOLIST's loop: (tagbody top (if (endp g) (go end)) [(let ((x (car g))) ...)] ... (setq g (cdr g))
 * (go top) end), G a variable of the current frame. The test, the element's binding and the
 * step read and write G's slot in place while ENDP, CAR and CDR are still CL's and G holds a
 * cons; anything else (the end of a dotted list, a GO out of the body, a redefinition) goes on
 * the general way from the statement at hand, which signals what it signals. */
Obj ev_tagbody_dolist(Lisp *L, Node *n, Env *env) {
    TagbodyNode *t = (TagbodyNode *)n;
    CallNode *endp = ((IfNode *)t->stmts[0])->call;
    VarNode *step = (VarNode *)t->stmts[t->count - 2];
    CallNode *cdr = (CallNode *)step->value;
    LetNode *elt = t->elt;
    Obj *list = &env->slots[step->index];
    int body_end = t->count - 2;
    for (;;) {
        Obj x = *list;
        if (UNLIKELY(!is_cons(x)) || UNLIKELY(SYM(endp->fname)->function != endp->cached)) {
            if (x == NIL && SYM(endp->fname)->function == endp->cached) break;
            return loop_from(L, t, env, 0);
        }
        int i = 1;
        if (elt) {
            CallNode *car = (CallNode *)elt->b[0].init;
            if (LIKELY(SYM(car->fname)->function == car->cached)) {
                Obj *var = &env->slots[elt->b[0].index];
                *var = CAR(x);
                Obj r;
                if (elt->body->ev == ev_tagbody && ((TagbodyNode *)elt->body)->ntags == 0) {
                    /* DOLIST's body, a TAGBODY without tags: its statements run here */
                    TagbodyNode *in = (TagbodyNode *)elt->body;
                    r = NIL;
                    for (int k = 0; k < in->count && r != UNWIND_MARK; k++) r = EVAL(L, in->stmts[k], env);
                } else {
                    r = EVAL(L, elt->body, env);
                }
                *var = OBJ(0);   /* out of scope again, as ev_let_local1 leaves it */
                if (UNLIKELY(r == UNWIND_MARK)) goto unwound;
                i = 2;
            }
        }
        for (; i < body_end; i++) {
            Obj r = EVAL(L, t->stmts[i], env);
            if (UNLIKELY(r == UNWIND_MARK)) goto unwound;
        }
        x = *list;
        if (UNLIKELY(!is_cons(x)) || UNLIKELY(SYM(cdr->fname)->function != cdr->cached))
            return loop_from(L, t, env, body_end);
        *list = CDR(x);
        safe_point(L);
        continue;
    unwound:
        if (L->exit_target != n) return UNWIND_MARK;
        safe_point(L);
        return loop_from(L, t, env, t->tag_pos[L->exit_tag]);
    }
    L->nvals = 1;
    return NIL;
}

/* DOTIMES's loop: (tagbody top (if (>= i n) (go end)) ... (setq i (1+ i)) (go top) end), I a
 * variable of the current frame, N one or a constant. The test and the step are done in place
 * while I and N are fixnums (and I + 1 is one) and >= and 1+ are still CL's; anything else goes
 * on the general way from the statement at hand. */
Obj ev_tagbody_dotimes(Lisp *L, Node *n, Env *env) {
    TagbodyNode *t = (TagbodyNode *)n;
    CallNode *ge = ((IfNode *)t->stmts[0])->call;
    VarNode *step = (VarNode *)t->stmts[t->count - 2];
    CallNode *inc = (CallNode *)step->value;
    Obj *var = &env->slots[step->index];
    Node *limit = ge->args[1];
    int body_end = t->count - 2;
    for (;;) {
        Obj i = *var;
        Obj lim = limit->ev == ev_const ? ((ConstNode *)limit)->value : env->slots[((VarNode *)limit)->index];
        if (UNLIKELY(!is_fixnum(i) || !is_fixnum(lim)) || UNLIKELY(SYM(ge->fname)->function != ge->cached))
            return loop_from(L, t, env, 0);
        if (!fixnum_less(i, lim)) break;
        for (int k = 1; k < body_end; k++) {
            Obj r = EVAL(L, t->stmts[k], env);
            if (UNLIKELY(r == UNWIND_MARK)) {
                if (L->exit_target != n) return r;
                safe_point(L);
                return loop_from(L, t, env, t->tag_pos[L->exit_tag]);
            }
        }
        Obj next;
        if (UNLIKELY(SYM(inc->fname)->function != inc->cached) || !fixnum_add_checked(*var, FIX(1), &next))
            return loop_from(L, t, env, body_end);
        *var = next;
        safe_point(L);
    }
    L->nvals = 1;
    return NIL;
}

EvalFn loop_evaluator(TagbodyNode *t) {
    if (t->count < 1) return NULL;
    GoNode *g = (GoNode *)t->stmts[t->count - 1];
    if (g->n.ev != ev_go || g->target != t) return NULL;
    t->loop_pos = t->tag_pos[g->tag];
    return ev_tagbody_loop;
}

/* Whether C calls the CL function NAME, bound at analysis to its primitive. */
static bool named_call(CallNode *c, const char *name) {
    return c->cached && is_type(c->fname, T_SYMBOL) && string_equal_cstr(SYM(c->fname)->name, name);
}

/* The same of node N, evaluated by EV. */
static bool bound_call_of(Node *n, EvalFn ev, const char *name) {
    return n->ev == ev && named_call((CallNode *)n, name);
}

/* Whether IF node N is (if TEST (go end)) with END a tag after the last statement of T. */
static bool exit_test(TagbodyNode *t, Node *n) {
    if (!if_node_p(n)) return false;
    IfNode *test = (IfNode *)n;
    if (!test->call || test->neg) return false;
    GoNode *out = (GoNode *)test->then;
    if (out->n.ev != ev_go || out->target != t || t->tag_pos[out->tag] != t->count) return false;
    return test->els->ev == ev_const && ((ConstNode *)test->els)->value == NIL;
}

static void fuse_dotimes(TagbodyNode *t) {
    if (!exit_test(t, t->stmts[0])) return;
    CallNode *ge = ((IfNode *)t->stmts[0])->call;
    if (ge->nargs != 2 || !named_call(ge, ">=") || ge->args[0]->ev != ev_lref0 ||
        (ge->args[1]->ev != ev_lref0 && ge->args[1]->ev != ev_const))
        return;
    int i = ((VarNode *)ge->args[0])->index;
    VarNode *step = (VarNode *)t->stmts[t->count - 2];
    if (step->n.ev != ev_lset0 || step->index != i || !bound_call_of(step->value, ev_inline_1plus, "1+")) return;
    Node *arg = ((CallNode *)step->value)->args[0];
    if (arg->ev != ev_lref0 || ((VarNode *)arg)->index != i) return;
    t->n.ev = ev_tagbody_dotimes;
}

void fuse_loop(TagbodyNode *t) {
    if (t->n.ev != ev_tagbody_loop || t->loop_pos != 0 || t->count < 3) return;
    fuse_dotimes(t);
    if (t->n.ev != ev_tagbody_loop) return;
    /* the test: a fused (endp g) whose true branch goes to a tag after the last statement */
    if (!exit_test(t, t->stmts[0])) return;
    CallNode *endp = ((IfNode *)t->stmts[0])->call;
    if (endp->nargs != 1 || endp->args[0]->ev != ev_lref0 || !named_call(endp, "ENDP")) return;
    int g = ((VarNode *)endp->args[0])->index;
    /* the step: (setq g (cdr g)) */
    VarNode *step = (VarNode *)t->stmts[t->count - 2];
    if (step->n.ev != ev_lset0 || step->index != g) return;
    if (!bound_call_of(step->value, ev_inline_cdr_var, "CDR") ||
        ((VarNode *)((CallNode *)step->value)->args[0])->index != g)
        return;
    /* the element: (let ((x (car g))) ...) first in the body, when it is there */
    t->elt = NULL;
    LetNode *ln = (LetNode *)t->stmts[1];
    if (t->count > 3 && ln->n.ev == ev_let_local1 && ln->b[0].init &&
        bound_call_of(ln->b[0].init, ev_inline_car_var, "CAR") &&
        ((VarNode *)((CallNode *)ln->b[0].init)->args[0])->index == g && ln->b[0].index != g)
        t->elt = ln;
    t->n.ev = ev_tagbody_dolist;
}

/* PSETQ of variables of the current frame, DO's step of several variables: (let ((g1 v1) ...)
 * (setq a1 g1) ... nil) with the Gs in the frame. The values are computed in order into a C array,
 * then assigned in order; the Gs, which nothing else reads, are not written. */
Obj ev_psetq_local(Lisp *L, Node *n, Env *env) {
    LetNode *ln = (LetNode *)n;
    SeqNode *sets = (SeqNode *)ln->body;
    Obj vals[PSETQ_MAX];
    for (int i = 0; i < ln->count; i++) vals[i] = OBJ(0);   /* see ev_call_prim */
    for (int i = 0; i < ln->count; i++) ARG_OR_EXIT(vals[i], L, ln->b[i].init, env);
    for (int i = 0; i < ln->count; i++) env->slots[((VarNode *)sets->forms[i])->index] = vals[i];
    L->nvals = 1;
    return NIL;
}

void fuse_psetq(LetNode *ln) {
    if (ln->n.ev != ev_let_local || ln->count > PSETQ_MAX || ln->body->ev != ev_progn) return;
    SeqNode *sets = (SeqNode *)ln->body;
    if (sets->count != ln->count + 1) return;
    Node *last = sets->forms[ln->count];
    if (last->ev != ev_const || ((ConstNode *)last)->value != NIL) return;
    for (int i = 0; i < ln->count; i++) {
        VarNode *set = (VarNode *)sets->forms[i];
        if (!ln->b[i].init || set->n.ev != ev_lset0 || set->value->ev != ev_lref0 ||
            ((VarNode *)set->value)->index != ln->b[i].index)
            return;
        for (int j = 0; j < ln->count; j++)
            if (set->index == ln->b[j].index) return;
    }
    ln->n.ev = ev_psetq_local;
}

/* The evaluators of this file, for images (imagetab.h). */
const EvalDef nodes_loop_evaluators[] = {
    EVALDEF(ev_tagbody_loop), EVALDEF(ev_tagbody_dolist), EVALDEF(ev_psetq_local), EVALDEF(ev_tagbody_dotimes),
    {0},
};
