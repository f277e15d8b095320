/* prop_selfloop.c: property test of the evaluator's fast paths chosen at analysis (fused and
 * in-place tests, in-place arithmetic, specialised calls, self tail calls, self tail call loops,
 * DOLIST, DOTIMES and DO as C loops): random functions of the shapes they take, and near misses, each
 * called on random arguments (by name, FUNCALL and APPLY, and as a LABELS function) and compared
 * with a reference of the same function that takes none of them (every predicate and operation
 * called through APPLY of its FDEFINITION, self tail calls run by a trampoline with a round
 * budget): all values, the class of the error, and termination. Each function must also run as a
 * self tail call loop exactly when its shape says so. Seeded; a failure is shrunk to a small
 * function and call and printed with its replay command (docs/internals.md, "Tests").
 * Usage: prop_selfloop [FUNCTIONS] [SEED] [FIRST]   (env PROPERTY_SEED overrides the seed; FIRST:
 * the index of the first function, to replay one; PROPERTY_VERBOSE=1 prints each function) */
#include "tinycl.h"
#include "prop.h"
#include "gc.h"
#include "package.h"
#include "node.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <time.h>

Obj ev_self_loop(Lisp *, Node *, Env *);   /* nodes-selfloop.c: only to count the functions that get it */

static bool chance(unsigned percent) { return rnd(100) < percent; }

/* ---- the functions: a pool of nodes, children by index ---- */
enum {
    N_IF,      /* kid 0 test, 1 then, 2 else; style: IF_ */
    N_NOT,     /* kid 0 test */
    N_TVAR,    /* a variable as a test */
    N_P1,      /* (op v), or (op (cdr v)) with style 1 */
    N_P2,      /* (op v w) style 0, (op v k) style 1, (op k v) style 2 */
    N_CONST,   /* constant k */
    N_VAR,     /* variable v */
    N_VALUES,  /* (values kids...) */
    N_SELF,    /* a call of the function itself, tail or not; kids are N_ARGs */
    N_ARG,     /* an argument of a self call: style ARG_ */
    N_CALL,    /* (op kids...) of another function */
    N_ERROR,   /* (error "..." v) */
    N_LOOP,    /* style 0: count of elements EQL to k in v by DOLIST; 1: sum below v by DOTIMES; 2: DO of
                * three variables stepped in parallel (PSETQ) down v */
    N_WRAP,    /* kid 0 under style WRAP_ */
    N_RETURN,  /* (return-from the-function kid 0) */
};
/* near misses around a branch or the body: THE, PROGN, BLOCK, a LET of another variable, a closure
 * (which moves the variables it reads out of the frame), an assignment of a parameter first, a LET
 * that shadows a parameter (its tests read another slot) */
enum { WRAP_THE, WRAP_PROGN, WRAP_BLOCK, WRAP_LET, WRAP_LAMBDA, WRAP_SETQ, WRAP_SHADOW, WRAPS };
enum { IF_IF, IF_COND, IF_WHEN, IF_UNLESS, IF_AND, IF_OR, IF_STYLES };
enum { ARG_VAR, ARG_CONST, ARG_CAR, ARG_CDR, ARG_CADR, ARG_CDDR, ARG_1PLUS, ARG_1MINUS, ARG_ADDK, ARG_SUBV, ARG_KINDS };

typedef struct N {
    unsigned char kind, style, op, v, w, k, nkid;
    short kid[6];
} N;

#define MAXN 160
#define MAXP 6
enum { TY_LIST, TY_NUM };
typedef struct Fn {
    int np;                 /* its parameters */
    unsigned char ty[MAXP]; /* what each mostly holds, so that most calls run several rounds */
    signed char special;    /* a parameter declared special, or -1 */
    bool optional;          /* an &optional parameter after them (a lambda list that is not direct) */
    N n[MAXN];
    int nn;
    int root;
} Fn;

static const char *const var_names[MAXP] = {"a", "b", "c", "d", "e", "g"};
static const char *const p1_ops[] = {"null", "endp", "consp", "atom", "listp", "symbolp", "numberp", "zerop", "plusp", "minusp", "not"};
static const char *const p2_ops[] = {"eq", "eql", "=", "<", ">", "<=", ">=", "/="};
/* other functions a leaf calls: name and argument count */
static const struct { const char *name; int nargs; } call_ops[] = {
    {"cons", 2}, {"list", 2}, {"car", 1}, {"cdr", 1}, {"cadr", 1}, {"cddr", 1}, {"1+", 1}, {"1-", 1},
    {"+", 2}, {"-", 2}, {"not", 1}, {"eql", 2}, {"*", 2}, {"mod", 2}, {"+", 3}, {"caar", 1}, {"cdar", 1},
    {"caddr", 1}, {"psl-undefined", 1},
};
#define NCALL_OPS (int)(sizeof call_ops / sizeof *call_ops)
#define NP1 (int)(sizeof p1_ops / sizeof *p1_ops)
#define NP2 (int)(sizeof p2_ops / sizeof *p2_ops)

/* Constants of the functions, the simplest first (shrinking moves down the table). The fixnum
 * limits are filled in from the session. */
static char mpf[32], mpf1[32], mnf[32], mnf1[32];
static const char *consts[] = {
    "nil", "0", "t", "1", "-1", "2", ":k", "'sym", "3", "-3", NULL, NULL, NULL, NULL,
    "1.5", "1/2", "\"str\"", "#\\a", "'(1 2)", "'(a . b)", "100000000000000000000", "-0.0",
};
#define NCONSTS (int)(sizeof consts / sizeof *consts)

/* Arguments the functions are called with, the simplest first: Lisp forms evaluated once per
 * call and passed to both the function and its reference. "@N" is the argument N before this one
 * (the same object), "@N/" its CDR. */
static const char *arg_forms[] = {
    "nil", "0", "1", "'(1 2 3)", "-1", "2", "5", "'a", ":k", "(list 1 2 3)", "'(nil nil)",
    "'(1 (2 3) 4)", "'(a b c d e)", "'(1 2 . 3)", "'(1 . 2)", "'((1 2) (3 4) (5))", "(psl-iota 25)",
    "(psl-circ (list 1 2 3))", "(psl-circ (list nil))", "\"s\"", "#\\c", "1.5", "-0.0", "1/3",
    "#(1 2)", NULL, NULL, NULL, NULL, "100000000000000000000", "-7", "'(3 2 1 0 -1)", "'(0 0 0 a)",
    "@0", "@1", "@0/", "@1/", "1/2", "(list 1.5 100000000000000000000 1/2 -0.0 1.5)",
};
#define NARG_FORMS (int)(sizeof arg_forms / sizeof *arg_forms)
/* the lists and the numbers among them, and the numbers among the constants */
static const int list_args[] = {0, 3, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 31, 32, 35, 36, 38};
static const int num_args[] = {1, 2, 4, 5, 6, 21, 22, 23, 25, 26, 27, 28, 29, 30, 33, 34, 37, 29, 21};
static const int num_consts[] = {1, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21};
/* numbers that live in the heap, which EQ does not compare as EQL, =, < and the rest do (the
 * arguments hold equal ones, other objects) */
static const int heap_consts[] = {11, 13, 14, 15, 20, 21};
#define PICK(t) t[rnd(sizeof t / sizeof *t)]

/* A variable, mostly one of type TY when there is one. */
static unsigned char pick_var(const Fn *f, int ty) {
    if (chance(90)) {
        int c[MAXP], n = 0;
        for (int k = 0; k < f->np; k++) if (f->ty[k] == ty) c[n++] = k;
        if (n) return (unsigned char)c[rnd((unsigned)n)];
    }
    return (unsigned char)rnd((unsigned)f->np);
}

static int node(Fn *f, int kind) {
    if (f->nn == MAXN) return -1;
    N *n = &f->n[f->nn];
    memset(n, 0, sizeof *n);
    n->kind = (unsigned char)kind;
    return f->nn++;
}

static int const_index(void) {
    if (chance(60)) return (int)rnd(10);   /* mostly fixnums, NIL, T, symbols */
    return (int)rnd(NCONSTS);
}

static int gen_test(Fn *f, int depth) {
    unsigned r = rnd(100);
    int i;
    if (r < 10 && depth < 3) {
        int inner = gen_test(f, depth + 1);
        if (inner < 0 || (i = node(f, N_NOT)) < 0) return -1;
        f->n[i].kid[0] = (short)inner;
        f->n[i].nkid = 1;
        return i;
    }
    if (r < 25) {
        if ((i = node(f, N_TVAR)) < 0) return -1;
        f->n[i].v = (unsigned char)rnd((unsigned)f->np);
        return i;
    }
    if (r < 60) {
        if ((i = node(f, N_P1)) < 0) return -1;
        f->n[i].op = (unsigned char)rnd(NP1);
        bool num = f->n[i].op >= 7 && f->n[i].op <= 9;   /* ZEROP, PLUSP, MINUSP */
        f->n[i].v = pick_var(f, num ? TY_NUM : TY_LIST);
        f->n[i].style = chance(8);   /* a near miss: a test of (cdr v), not in place */
        return i;
    }
    if ((i = node(f, N_P2)) < 0) return -1;
    f->n[i].op = (unsigned char)rnd(NP2);
    bool num = f->n[i].op >= 2 || chance(50);   /* EQ and EQL of either */
    f->n[i].v = pick_var(f, num ? TY_NUM : TY_LIST);
    f->n[i].w = pick_var(f, num ? TY_NUM : TY_LIST);
    f->n[i].k = (unsigned char)(num && chance(40) ? PICK(heap_consts) : num && chance(85) ? PICK(num_consts) : const_index());
    f->n[i].style = (unsigned char)(chance(45) ? 1 : chance(90) ? 0 : 2);
    return i;
}

/* Argument POS of a self call. */
static int gen_arg(Fn *f, int pos, bool simple) {
    int i = node(f, N_ARG);
    if (i < 0) return -1;
    N *n = &f->n[i];
    int ty = f->ty[pos];
    if (simple) n->style = (unsigned char)(chance(20) ? ARG_VAR : chance(10) ? ARG_CONST : ty == TY_LIST && chance(85) ? ARG_CDR : ARG_CAR);
    else if (ty == TY_NUM && chance(80)) n->style = (unsigned char)(ARG_1PLUS + rnd(4));
    else n->style = (unsigned char)rnd(ARG_KINDS);
    bool on_num = n->style >= ARG_1PLUS || (n->style == ARG_VAR && ty == TY_NUM);
    n->v = pick_var(f, on_num ? TY_NUM : TY_LIST);
    n->w = pick_var(f, TY_NUM);
    n->k = (unsigned char)(ty == TY_NUM && chance(80) ? PICK(num_consts) : const_index());
    return i;
}

static int gen_self(Fn *f, bool tail) {
    int i = node(f, N_SELF);
    if (i < 0) return -1;
    f->n[i].style = tail;
    bool simple = chance(70);
    int na = f->np;
    if (chance(3)) na = na == MAXP || (na > 1 && chance(50)) ? na - 1 : na + 1;   /* a near miss: a wrong count */
    for (int k = 0; k < na; k++) {
        int a = gen_arg(f, k % f->np, simple || !chance(30));
        if (a < 0) return -1;
        f->n[i].kid[k] = (short)a;
    }
    f->n[i].nkid = (unsigned char)na;
    return i;
}

static int gen_value(Fn *f, int depth);

static int gen_leaf(Fn *f, int depth) {
    unsigned r = rnd(100);
    int i;
    if (r < 40) return gen_self(f, true);
    if (r < 52) {
        if ((i = node(f, N_CONST)) < 0) return -1;
        f->n[i].k = (unsigned char)const_index();
        return i;
    }
    if (r < 62) {
        if ((i = node(f, N_VAR)) < 0) return -1;
        f->n[i].v = (unsigned char)rnd((unsigned)f->np);
        return i;
    }
    if (r < 70) {
        if ((i = node(f, N_VALUES)) < 0) return -1;
        int nv = (int)rnd(4);
        for (int k = 0; k < nv; k++) {
            int x = gen_value(f, depth + 1);
            if (x < 0) return -1;
            f->n[i].kid[k] = (short)x;
        }
        f->n[i].nkid = (unsigned char)nv;
        return i;
    }
    if (r < 85) return gen_value(f, depth);
    if (r < 90) {
        if ((i = node(f, N_ERROR)) < 0) return -1;
        f->n[i].v = (unsigned char)rnd((unsigned)f->np);
        return i;
    }
    if (r < 95) {
        if ((i = node(f, N_LOOP)) < 0) return -1;
        f->n[i].style = (unsigned char)rnd(3);
        f->n[i].v = (unsigned char)rnd((unsigned)f->np);
        f->n[i].k = (unsigned char)const_index();
        return i;
    }
    int x = gen_leaf(f, depth);
    if (x < 0 || (i = node(f, chance(30) ? N_RETURN : N_WRAP)) < 0) return -1;
    f->n[i].style = (unsigned char)rnd(WRAPS);
    f->n[i].v = (unsigned char)rnd((unsigned)f->np);
    f->n[i].kid[0] = (short)x;
    f->n[i].nkid = 1;
    return i;
}

/* A value: a variable, a constant, or a call of another function (now and then of the function
 * itself, not in tail position). */
static int gen_value(Fn *f, int depth) {
    int i;
    if (depth > 3 || chance(40)) {
        if ((i = node(f, chance(50) ? N_VAR : N_CONST)) < 0) return -1;
        f->n[i].v = (unsigned char)rnd((unsigned)f->np);
        f->n[i].k = (unsigned char)const_index();
        return i;
    }
    if (chance(8)) return gen_self(f, false);
    if ((i = node(f, N_CALL)) < 0) return -1;
    int op = (int)rnd(NCALL_OPS);
    if (op == NCALL_OPS - 1 && chance(70)) op = 0;   /* the undefined function: rarer */
    f->n[i].op = (unsigned char)op;
    for (int k = 0; k < call_ops[op].nargs; k++) {
        int x = gen_value(f, depth + 1);
        if (x < 0) return -1;
        f->n[i].kid[k] = (short)x;
    }
    f->n[i].nkid = (unsigned char)call_ops[op].nargs;
    return i;
}

/* A tree of tests in tail position. */
static int gen_tail(Fn *f, int depth, int maxdepth) {
    if (depth >= maxdepth || (depth > 0 && chance(30))) return gen_leaf(f, depth);
    if (depth > 0 && chance(6)) {   /* a near miss around a tree of tests */
        int w = node(f, N_WRAP), x = gen_tail(f, depth + 1, maxdepth);
        if (w < 0 || x < 0) return -1;
        f->n[w].style = (unsigned char)rnd(WRAPS);
        f->n[w].v = (unsigned char)rnd((unsigned)f->np);
        f->n[w].kid[0] = (short)x;
        f->n[w].nkid = 1;
        return w;
    }
    int i = node(f, N_IF);
    if (i < 0) return -1;
    int t = gen_test(f, 0), a = gen_tail(f, depth + 1, maxdepth), b = gen_tail(f, depth + 1, maxdepth);
    if (t < 0 || a < 0 || b < 0) return -1;
    N *n = &f->n[i];
    n->kid[0] = (short)t;
    n->kid[1] = (short)a;
    n->kid[2] = (short)b;
    n->nkid = 3;
    n->style = (unsigned char)rnd(IF_STYLES);
    /* the styles that need a NIL branch or a variable test get one now and then */
    if ((n->style == IF_WHEN || n->style == IF_AND) && chance(60)) { f->n[b].kind = N_CONST; f->n[b].k = 0; f->n[b].nkid = 0; }
    if (n->style == IF_UNLESS && chance(60)) { f->n[a].kind = N_CONST; f->n[a].k = 0; f->n[a].nkid = 0; }
    if (n->style == IF_OR && chance(60)) {
        f->n[t].kind = N_TVAR; f->n[t].nkid = 0;
        f->n[a].kind = N_VAR; f->n[a].nkid = 0; f->n[a].v = f->n[t].v;
    }
    return i;
}

static bool gen_fn(Fn *f) {
    f->nn = 0;
    f->np = 1 + (int)(chance(85) ? rnd(3) : rnd(MAXP));
    for (int k = 0; k < f->np; k++) f->ty[k] = (unsigned char)(chance(60) ? TY_LIST : TY_NUM);
    f->special = (signed char)(chance(4) ? (int)rnd((unsigned)f->np) : -1);
    f->optional = chance(4);
    f->root = gen_tail(f, 0, 1 + (int)rnd(5));
    if (f->root < 0) return false;
    if (chance(6)) {   /* a near miss at the root */
        int w = node(f, N_WRAP);
        if (w < 0) return false;
        f->n[w].style = (unsigned char)rnd(WRAPS);
        f->n[w].v = (unsigned char)rnd((unsigned)f->np);
        f->n[w].kid[0] = (short)f->root;
        f->n[w].nkid = 1;
        f->root = w;
    }
    return true;
}

/* ---- printing: the function as written (FAST) and its reference ---- */

static const char *cst(int k) { return consts[k]; }

static bool is_nil(const Fn *f, int i) { return f->n[i].kind == N_CONST && f->n[i].k == 0; }

/* A primitive's call: as written, or through FUNCALL of its FDEFINITION in the reference. */
static void op_open(Buf *b, bool ref, const char *op) {
    if (ref) put(b, "(psl-call %s", op);
    else put(b, "(%s", op);
}

static void print_node(Buf *b, const Fn *f, int i, bool ref);
static const char *self_call = "(psl-f";   /* how the function as written calls itself */

static void print_arg(Buf *b, const Fn *f, const N *n, bool ref) {
    const char *v = var_names[n->v], *w = var_names[n->w];
    static const char *const unary[] = {[ARG_CAR] = "car", [ARG_CDR] = "cdr", [ARG_CADR] = "cadr", [ARG_CDDR] = "cddr",
                                        [ARG_1PLUS] = "1+", [ARG_1MINUS] = "1-"};
    (void)f;
    switch (n->style) {
    case ARG_VAR: put(b, "%s", v); break;
    case ARG_CONST: put(b, "%s", cst(n->k)); break;
    case ARG_ADDK: op_open(b, ref, "+"); put(b, " %s %s)", v, cst(n->k)); break;
    case ARG_SUBV: op_open(b, ref, "-"); put(b, " %s %s)", v, w); break;
    default: op_open(b, ref, unary[n->style]); put(b, " %s)", v); break;
    }
}

static void print_test(Buf *b, const Fn *f, int i, bool ref) {
    const N *n = &f->n[i];
    switch (n->kind) {
    case N_NOT: op_open(b, ref, "not"); put(b, " "); print_test(b, f, n->kid[0], ref); put(b, ")"); break;
    case N_TVAR:
        if (ref) put(b, "(psl-call identity %s)", var_names[n->v]);
        else put(b, "%s", var_names[n->v]);
        break;
    case N_P1:
        op_open(b, ref, p1_ops[n->op]);
        if (n->style) { put(b, " "); op_open(b, ref, "cdr"); put(b, " %s))", var_names[n->v]); }
        else put(b, " %s)", var_names[n->v]);
        break;
    case N_P2:
        op_open(b, ref, p2_ops[n->op]);
        if (n->style == 0) put(b, " %s %s)", var_names[n->v], var_names[n->w]);
        else if (n->style == 1) put(b, " %s %s)", var_names[n->v], cst(n->k));
        else put(b, " %s %s)", cst(n->k), var_names[n->v]);
        break;
    default: print_node(b, f, i, ref); break;
    }
}

static void print_if(Buf *b, const Fn *f, int i, bool ref) {
    const N *n = &f->n[i];
    int t = n->kid[0], a = n->kid[1], e = n->kid[2];
    int style = ref ? IF_IF : n->style;
    if ((style == IF_WHEN || style == IF_AND) && !is_nil(f, e)) style = IF_IF;
    if (style == IF_UNLESS && !is_nil(f, a)) style = IF_IF;
    if (style == IF_OR && !(f->n[t].kind == N_TVAR && f->n[a].kind == N_VAR && f->n[a].v == f->n[t].v)) style = IF_IF;
    switch (style) {
    case IF_COND:
        put(b, "(cond (");
        for (;;) {
            print_test(b, f, t, ref);
            put(b, " ");
            print_node(b, f, a, ref);
            put(b, ")");
            if (f->n[e].kind != N_IF || f->n[e].style != IF_COND) break;
            t = f->n[e].kid[0], a = f->n[e].kid[1], e = f->n[e].kid[2];
            put(b, " (");
        }
        put(b, " (t ");
        print_node(b, f, e, ref);
        put(b, "))");
        return;
    case IF_WHEN: case IF_AND:
        put(b, style == IF_WHEN ? "(when " : "(and ");
        print_test(b, f, t, ref);
        put(b, " ");
        print_node(b, f, a, ref);
        put(b, ")");
        return;
    case IF_UNLESS:
        put(b, "(unless ");
        print_test(b, f, t, ref);
        put(b, " ");
        print_node(b, f, e, ref);
        put(b, ")");
        return;
    case IF_OR:
        put(b, "(or %s ", var_names[f->n[t].v]);
        print_node(b, f, e, ref);
        put(b, ")");
        return;
    default:
        put(b, "(if ");
        print_test(b, f, t, ref);
        put(b, " ");
        print_node(b, f, a, ref);
        put(b, " ");
        print_node(b, f, e, ref);
        put(b, ")");
    }
}

static void print_node(Buf *b, const Fn *f, int i, bool ref) {
    const N *n = &f->n[i];
    switch (n->kind) {
    case N_IF: print_if(b, f, i, ref); break;
    case N_NOT: case N_TVAR: case N_P1: case N_P2: print_test(b, f, i, ref); break;
    case N_CONST: put(b, "%s", cst(n->k)); break;
    case N_VAR: put(b, "%s", var_names[n->v]); break;
    case N_VALUES:
        put(b, "(values");
        for (int k = 0; k < n->nkid; k++) { put(b, " "); print_node(b, f, n->kid[k], ref); }
        put(b, ")");
        break;
    case N_SELF:
        /* the reference's self tail call goes back to its trampoline; another is a call */
        put(b, ref ? (n->style ? "(psl-again" : "(psl-r") : self_call);
        for (int k = 0; k < n->nkid; k++) { put(b, " "); print_arg(b, f, &f->n[n->kid[k]], ref); }
        put(b, ")");
        break;
    case N_ARG: print_arg(b, f, n, ref); break;
    case N_CALL:
        op_open(b, ref, call_ops[n->op].name);
        for (int k = 0; k < n->nkid; k++) { put(b, " "); print_node(b, f, n->kid[k], ref); }
        put(b, ")");
        break;
    case N_ERROR: put(b, "(error \"psl ~s\" %s)", var_names[n->v]); break;
    case N_RETURN:
        put(b, "(return-from %s ", ref ? "psl-r-step" : self_call + 1);
        print_node(b, f, n->kid[0], ref);
        put(b, ")");
        break;
    case N_LOOP:
        if (n->style == 0 && !ref)
            put(b, "(let ((n 0)) (dolist (x %s n) (when (eql x %s) (setq n (1+ n)))))", var_names[n->v], cst(n->k));
        else if (n->style == 0)
            put(b, "(let ((n 0)) (psl-walk %s (lambda (x) (when (psl-call eql x %s) (setq n (psl-call 1+ n))))) n)",
                var_names[n->v], cst(n->k));
        else if (n->style == 1 && !ref)
            put(b, "(let ((s 0)) (dotimes (i %s s) (setq s (+ s i))))", var_names[n->v]);
        else if (n->style == 1)
            put(b, "(let ((s 0)) (psl-times %s (lambda (i) (setq s (psl-call + s i)))) s)", var_names[n->v]);
        else if (!ref)
            put(b, "(do ((x %s (cdr x)) (y nil x) (n 0 (1+ n))) ((atom x) (values n y x)))", var_names[n->v]);
        else   /* the same steps, assigned one by one after all are computed: not PSETQ's shape */
            put(b, "(let ((x %s) (y nil) (n 0)) (loop (psl-tick) (when (psl-call atom x) (return (values n y x)))"
                   " (let ((nx (psl-call cdr x)) (ny x) (nn (psl-call 1+ n))) (setq x nx) (setq y ny) (setq n nn))))",
                var_names[n->v]);
        break;
    case N_WRAP:
        /* the reference keeps the wrapper: its meaning is the same, and no fast path is in it */
        switch (n->style) {
        case WRAP_THE: put(b, "(the t "); break;
        case WRAP_PROGN: put(b, "(progn "); break;
        case WRAP_BLOCK: put(b, "(block psl "); break;
        case WRAP_LAMBDA: put(b, "(funcall (lambda () "); break;
        case WRAP_SETQ:
            put(b, "(progn (setq %s ", var_names[n->v]);
            op_open(b, ref, "cdr");
            put(b, " %s)) ", var_names[n->v]);
            break;
        case WRAP_SHADOW:
            put(b, "(let ((%s ", var_names[n->v]);
            op_open(b, ref, "cdr");
            put(b, " %s))) ", var_names[n->v]);
            break;
        default: put(b, "(let ((tmp %s)) (declare (ignorable tmp)) ", var_names[n->v]); break;
        }
        print_node(b, f, n->kid[0], ref);
        put(b, n->style == WRAP_LAMBDA ? "))" : ")");
        break;
    }
}

/* The lambda list and the declarations of the function (and of its reference's step). */
static void params(Buf *b, const Fn *f) {
    put(b, "(");
    for (int k = 0; k < f->np; k++) put(b, k ? " %s" : "%s", var_names[k]);
    put(b, f->optional ? " &optional h)" : ")");
    if (f->optional) put(b, " (declare (ignorable h))");
    if (f->special >= 0) put(b, " (declare (special %s))", var_names[f->special]);
}

static void print_fast(Buf *b, const Fn *f) {
    put(b, "(defun psl-f ");
    params(b, f);
    put(b, " ");
    print_node(b, f, f->root, false);
    put(b, ")");
}

/* The same function as a local function (LABELS): no self tail call, nor loop of them, but its
 * own specialised local calls and the same fused tests. */
static void print_local(Buf *b, const Fn *f) {
    put(b, "(defun psl-l (");
    for (int k = 0; k < f->np; k++) put(b, k ? " %s" : "%s", var_names[k]);
    put(b, ") (labels ((psl-self ");
    params(b, f);
    put(b, " ");
    self_call = "(psl-self";
    print_node(b, f, f->root, false);
    self_call = "(psl-f";
    put(b, ")) (psl-self");
    for (int k = 0; k < f->np; k++) put(b, " %s", var_names[k]);
    put(b, ")))");
}

/* The reference: PSL-R runs PSL-R-STEP under the trampoline; each round spends one of its budget. */
static void print_ref(Buf *b, const Fn *f) {
    put(b, "(defun psl-r-step ");
    params(b, f);
    put(b, " ");
    print_node(b, f, f->root, true);
    /* any count of arguments: a wrong one is the step's to signal, after it counted the call */
    put(b, ")\n(defun psl-r (&rest args) (psl-drive #'psl-r-step args))");
}

/* The arguments bound to p0..pN-1 around BODY. */
static void print_args(Buf *b, const Fn *f, const int *args, const char *body) {
    put(b, "(let* (");
    for (int k = 0; k < f->np; k++) {
        const char *form = arg_forms[args[k]];
        if (form[0] == '@') {
            int j = form[1] - '0';
            if (j >= k) put(b, "(p%d nil)", k);
            else if (form[2] == '/') put(b, "(p%d (if (consp p%d) (cdr p%d) p%d))", k, j, j, j);
            else put(b, "(p%d p%d)", k, j);
        } else {
            put(b, "(p%d %s)", k, form);
        }
    }
    put(b, ") %s)", body);
}


/* ---- the session ---- */
static const char *const prelude =
    "(defvar *psl-fuel* 0)\n"
    "(defvar *psl-args* nil)\n"
    "(defvar *psl-again* (make-symbol \"AGAIN\"))\n"
    /* the arguments first, then the function, as a call of an undefined function does */
    "(defun psl-apply (op &rest args) (apply (fdefinition op) args))\n"
    "(defmacro psl-call (op &rest args) `(psl-apply ',op ,@args))\n"
    "(defun psl-tick () (when (< (setq *psl-fuel* (- *psl-fuel* 1)) 0) (throw 'psl-fuel :diverged)))\n"
    "(defun psl-again (&rest args) (setq *psl-args* args) *psl-again*)\n"
    "(defvar *psl-steps* 0)\n"
    "(defun psl-drive (step args)\n"
    "  (loop (psl-tick) (setq *psl-steps* (+ *psl-steps* 1))\n"
    "        (let ((vals (multiple-value-list (apply step args))))\n"
    "          (if (and vals (eq (car vals) *psl-again*))\n"
    "              (setq args *psl-args*)\n"
    "              (return (values-list vals))))))\n"
    "(defun psl-walk (l f)\n"
    "  (loop (psl-tick) (when (psl-call endp l) (return)) (funcall f (psl-call car l)) (setq l (psl-call cdr l))))\n"
    "(defun psl-times (n f)\n"
    "  (let ((i 0)) (loop (psl-tick) (when (psl-call >= i n) (return)) (funcall f i) (setq i (psl-call 1+ i)))))\n"
    "(defun psl-iota (n) (let ((l nil)) (dotimes (i n) (push (- n i) l)) l))\n"
    "(defun psl-circ (l) (setf (cdr (last l)) l) l)\n"
    "(defun psl-outcome (thunk)\n"
    "  (handler-case (cons :values (multiple-value-list (funcall thunk)))\n"
    "    (error (e) (list :error (type-of e)))))\n"
    "(defun psl-same (a b)\n"
    "  (or (eql a b)\n"
    "      (and (consp a) (consp b) (psl-same (car a) (car b)) (psl-same (cdr a) (cdr b)))\n"
    "      (and (stringp a) (stringp b) (string= a b))))\n"
    "(defun psl-same-outcome (r c)\n"
    "  (and (eq (car r) (car c)) (= (length r) (length c)) (every #'psl-same (cdr r) (cdr c))))\n"
    /* the local function's calls are not merged: a long run may exhaust the stack, then it is not compared */
    "(defun psl-check (fast local ref fuel)\n"
    "  (setq *psl-steps* 0)\n"
    "  (let ((r (handler-case (let ((*psl-fuel* fuel)) (catch 'psl-fuel (psl-outcome ref)))\n"
    "             (storage-condition () :diverged))))\n"
    "    (if (eq r :diverged)\n"
    "        :diverged\n"
    "        (let ((c (psl-outcome fast))\n"
    "              (l (handler-case (psl-outcome local) (storage-condition () nil))))\n"
    "          (let ((*print-circle* t) (*print-length* 12) (*print-level* 4))\n"
    "            (cond ((not (psl-same-outcome r c)) (format nil \"reference ~s, fast path ~s\" r c))\n"
    "                  ((and l (not (psl-same-outcome r l))) (format nil \"reference ~s, as a local function ~s\" r l))\n"
    "                  (t :ok)))))))\n";

static TclSession *session;
static Lisp *session_lisp;

static TclResult *eval(const char *code, double timeout) { return tcl_eval(session, code, NULL, timeout); }

/* The outcome of one call: NULL when it passed, else a malloc'd description. *DIVERGED when the
 * reference ran out of rounds and the fast function did too (as far as a short time limit sees). */
#define FUEL 20000
static int divergent_budget;   /* calls left for the check that a divergent function runs on */
/* " p0 p1 ..." for the function's parameters. */
static const char *pargs(const Fn *f) {
    static const char *const t[MAXP + 1] = {"", " p0", " p0 p1", " p0 p1 p2", " p0 p1 p2 p3", " p0 p1 p2 p3 p4",
                                            " p0 p1 p2 p3 p4 p5"};
    return t[f->np];
}

/* A check takes milliseconds; seconds are a fast path running on without end. While shrinking,
 * whose trials often run on without end, the limit is shorter. */
static double check_limit = 5;

/* The call of the function: by its name, FUNCALL of the symbol or APPLY of the function (the
 * runners differ: direct_run, apply_direct, apply_closure), and APPLY under the profiler (HOW 3). */
static int how_of(int k) { return k == 5 ? 3 : k % 3; }

static void call_form(char *call, size_t size, const Fn *f, int how) {
    if (how == 0) snprintf(call, size, "(psl-f%s)", pargs(f));
    else if (how == 1) snprintf(call, size, "(funcall 'psl-f%s)", pargs(f));
    else snprintf(call, size, "(apply #'psl-f (list%s))", pargs(f));
}

static char *run_call(const Fn *f, const int *args, int how, bool *diverged) {
    Buf b = {0};
    char body[400], call[96];
    call_form(call, sizeof call, f, how);
    snprintf(body, sizeof body, "(psl-check (lambda () %s) (lambda () (psl-l%s)) (lambda () (psl-r%s)) %d)", call, pargs(f),
             pargs(f), FUEL);
    print_args(&b, f, args, body);
    /* the calls by APPLY run under the profiler, which must count each round as a call of the
     * function (while it runs, no call is merged into a loop) */
    TclProfile *prof = how == 3 ? tcl_profile(session, b.s, NULL, check_limit) : NULL;
    TclResult *r = prof ? prof->result : eval(b.s, check_limit);
    char *why = NULL;
    *diverged = false;
    if (r->status != TCL_OK || r->nvalues < 1) {
        if (asprintf(&why, "the check did not finish: status %d %s %s", (int)r->status,
                     r->error_type ? r->error_type : "", r->error_message ? r->error_message : "") < 0) why = NULL;
    } else if (strcmp(r->values[0], ":DIVERGED") == 0) {
        *diverged = true;
    } else if (strcmp(r->values[0], ":OK") != 0) {
        why = strdup(r->values[0]);
    } else if (prof) {
        long calls = 0;
        for (int k = 0; k < prof->count; k++)
            if (strcmp(prof->entries[k].name, "PSL-F") == 0) calls = prof->entries[k].calls;
        TclResult *steps = eval("*psl-steps*", 5);
        long want = steps->status == TCL_OK && steps->nvalues ? atol(steps->values[0]) : -1;
        if (calls != want && asprintf(&why, "the profiler counted %ld calls of PSL-F, the reference made %ld", calls, want) < 0)
            why = NULL;
        tcl_result_free(steps);
    }
    if (prof) tcl_profile_free(prof);
    else tcl_result_free(r);
    if (*diverged && divergent_budget > 0) {
        /* the reference runs on without end: so must the function (or run out of stack) */
        divergent_budget--;
        b.len = 0;
        snprintf(body, sizeof body, "(psl-f%s)", pargs(f));
        print_args(&b, f, args, body);
        r = eval(b.s, 0.05);
        bool stack = r->status == TCL_ERROR && r->error_type && strstr(r->error_type, "STORAGE");
        if (r->status != TCL_TIMEOUT && !stack) {
            const char *v = r->status == TCL_OK && r->nvalues ? r->values[0] : r->error_type ? r->error_type : "?";
            /* unless a far larger budget lets the reference end too */
            b.len = 0;
            snprintf(body, sizeof body, "(let ((*psl-fuel* 2000000)) (catch 'psl-fuel (psl-outcome (lambda () (psl-r%s)))))",
                     pargs(f));
            print_args(&b, f, args, body);
            TclResult *r2 = eval(b.s, 60);
            if (r2->status == TCL_OK && r2->nvalues && strcmp(r2->values[0], ":DIVERGED") == 0 &&
                asprintf(&why, "the reference runs without end, the fast path gave %s (status %d)", v, (int)r->status) < 0)
                why = NULL;
            tcl_result_free(r2);
        }
        tcl_result_free(r);
    }
    free(b.s);
    return why;
}

/* Define the function and its reference; NULL, or why they could not be defined. */
static char *define(const Fn *f) {
    Buf b = {0};
    print_fast(&b, f);
    put(&b, "\n");
    print_local(&b, f);
    put(&b, "\n");
    print_ref(&b, f);
    TclResult *r = eval(b.s, 30);
    char *why = NULL;
    if (r->status != TCL_OK &&
        asprintf(&why, "could not define: %s %s", r->error_type ? r->error_type : "", r->error_message ? r->error_message : "") < 0)
        why = NULL;
    tcl_result_free(r);
    free(b.s);
    return why;
}

/* Whether the function as defined runs as a self tail call loop. */
static bool took_loop(void) {
    Obj sym = intern_cstr(session_lisp, current_package(session_lisp), "PSL-F");
    Obj fn = SYM(sym)->function;
    return is_type(fn, T_CLOSURE) && CLOSURE(fn)->lambda->body && CLOSURE(fn)->lambda->body->ev == ev_self_loop;
}

/* ---- which functions must run as a self tail call loop (docs/internals.md: a tree of IFs testing
 * frame variables in place, a self tail call of simple arguments among its leaves, at most 32 ops)
 * and which must not; PREDICT_UNKNOWN where this test does not say ---- */
enum { PREDICT_NO, PREDICT_YES, PREDICT_UNKNOWN };

/* Whether IF node I is written as OR, which binds a variable. */
static bool is_or(const Fn *f, int i) {
    const N *n = &f->n[i];
    int t = n->kid[0], a = n->kid[1];
    return n->style == IF_OR && f->n[t].kind == N_TVAR && f->n[a].kind == N_VAR && f->n[a].v == f->n[t].v;
}

/* Whether test node I is one the loop decides in place. */
static bool loop_test(const Fn *f, int i) {
    const N *n = &f->n[i];
    switch (n->kind) {
    case N_TVAR: return true;
    case N_P1: return n->style == 0;
    case N_P2: return n->style != 2;
    case N_NOT: {
        const N *x = &f->n[n->kid[0]];
        if (x->kind == N_NOT) return f->n[x->kid[0]].kind == N_TVAR;   /* (not (not v)) */
        return loop_test(f, n->kid[0]);
    }
    default: return false;
    }
}

typedef struct Predict { int ops; bool self, unknown; } Predict;

/* The op of node I and those of its branches, as self_loop_build makes them. */
static void predict_op(const Fn *f, int i, Predict *p) {
    const N *n = &f->n[i];
    while (n->kind == N_WRAP && n->style <= WRAP_BLOCK) n = &f->n[n->kid[0]];   /* THE, PROGN, BLOCK (unused: dropped) */
    p->ops++;
    if (n->kind == N_IF) {
        if (is_or(f, (int)(n - f->n)) || !loop_test(f, n->kid[0])) return;   /* OR binds its value first: another form */
        predict_op(f, n->kid[2], p);
        predict_op(f, n->kid[1], p);
        return;
    }
    if (n->kind == N_SELF && n->nkid == f->np) {   /* in tail position, as every node here */
        bool simple = true;
        for (int k = 0; k < n->nkid; k++) simple = simple && f->n[n->kid[k]].style <= ARG_CDR;
        p->self = p->self || simple;
    }
}

/* Whether node I or a node below it is of KIND (and STYLE, unless -1). */
static bool has(const Fn *f, int i, int kind, int style) {
    const N *n = &f->n[i];
    if (n->kind == kind && (style < 0 || n->style == style)) return true;
    for (int k = 0; k < n->nkid; k++)
        if (n->kind != N_P1 && n->kind != N_P2 && n->kind != N_TVAR && has(f, n->kid[k], kind, style)) return true;
    return false;
}

/* The most slots the frame can have: the parameters, and the variables of the leaves' LETs. */
static int max_slots(const Fn *f, int i) {
    const N *n = &f->n[i];
    int k = n->kind == N_LOOP ? (n->style == 0 ? 4 : n->style == 1 ? 3 : 6) : n->kind == N_WRAP && (n->style == WRAP_LET || n->style == WRAP_SHADOW) ? 1 : 0;
    if (n->kind == N_IF && is_or(f, i)) k++;   /* OR's variable */
    for (int j = 0; j < n->nkid; j++)
        if (n->kind != N_P1 && n->kind != N_P2 && n->kind != N_TVAR) k += max_slots(f, n->kid[j]);
    return k;
}

static int predict_loop(const Fn *f) {
    if (f->optional || has(f, f->root, N_RETURN, -1)) return PREDICT_NO;   /* not direct; a block kept */
    if (f->special >= 0 || has(f, f->root, N_WRAP, WRAP_LAMBDA)) return PREDICT_UNKNOWN;
    /* self tail calls are made only in a frame of at most DIRECT_SLOTS slots; this test does not
     * say how the LETs share theirs */
    if (f->np + max_slots(f, f->root) > DIRECT_SLOTS) return PREDICT_UNKNOWN;
    int r = f->root;
    while (f->n[r].kind == N_WRAP && f->n[r].style <= WRAP_BLOCK) r = f->n[r].kid[0];
    if (f->n[r].kind != N_IF || !loop_test(f, f->n[r].kid[0]) || is_or(f, r)) return PREDICT_NO;
    Predict p = {0, false, false};
    predict_op(f, f->root, &p);
    if (p.unknown) return PREDICT_UNKNOWN;
    return p.self && p.ops <= 32 ? PREDICT_YES : PREDICT_NO;
}

#define NCALLS 6
typedef struct Case { Fn f; int args[NCALLS][MAXP]; } Case;

static void random_args(const Fn *f, int *args) {
    for (int k = 0; k < f->np; k++) {
        args[k] = chance(25) ? (int)rnd(NARG_FORMS) : f->ty[k] == TY_LIST ? PICK(list_args) : PICK(num_args);
        /* "@N" refers to an earlier argument: keep it in range */
        if (arg_forms[args[k]][0] == '@' && arg_forms[args[k]][1] - '0' >= k) args[k] = (int)rnd(16);
    }
}

/* Run case C: NULL when every call passed, else why the first failing one failed (*AT: its index). */
/* Define the function and check that it runs as a self tail call loop when it must, and only then. */
static char *define_checked(const Fn *f) {
    char *why = define(f);
    if (why) return why;
    bool took = took_loop();
    int want = predict_loop(f);
    if (want == PREDICT_UNKNOWN || took == (want == PREDICT_YES)) return NULL;
    if (asprintf(&why, took ? "it runs as a self tail call loop, which it must not"
                            : "it does not run as a self tail call loop, which it must") < 0)
        why = strdup("?");
    return why;
}

static char *run_case(const Case *c, int *at, int *diverged) {
    char *why = define_checked(&c->f);
    if (why) { *at = 0; return why; }
    for (int k = 0; k < NCALLS; k++) {
        bool d;
        why = run_call(&c->f, c->args[k], how_of(k), &d);
        if (d && diverged) (*diverged)++;
        if (why) { *at = k; return why; }
    }
    return NULL;
}

/* One call of C alone: the failing one, after shrinking. */
static char *run_one(const Fn *f, const int *args, int how) {
    char *why = define_checked(f);
    if (why) return why;
    bool d;
    int keep = divergent_budget;
    divergent_budget = 1;
    why = run_call(f, args, how, &d);
    divergent_budget = keep;
    return why;
}

/* ---- shrinking: simpler functions and arguments while the call still fails ---- */
/* A shrunk call must fail as the call did: a trial that runs on without end does not stand for a
 * wrong answer. */
static bool timed_out(const char *why) { return strstr(why, "did not finish: status 3") != NULL; }

static int shrink_how;   /* how the failing call called the function */

static char *run_trial(const Fn *f, const int *args, const char *why) {
    char *w = run_one(f, args, shrink_how);
    if (w && timed_out(w) != timed_out(why)) { free(w); w = NULL; }
    return w;
}

static bool try_fn(Fn *best, const int *args, const Fn *trial, char **why) {
    char *w = run_trial(trial, args, *why);
    if (!w) return false;
    free(*why);
    *why = w;
    *best = *trial;
    return true;
}

static void shrink(Fn *f, int *args, char **why) {
    bool progress = true;
    int rounds = 0;
    while (progress && rounds++ < 200) {
        progress = false;
        /* a node replaced by one of its children, or by NIL */
        for (int i = 0; i < f->nn && !progress; i++) {
            N *n = &f->n[i];
            for (int k = n->kind == N_IF ? 1 : 0; k < n->nkid && !progress; k++) {
                if (n->kind == N_SELF || n->kind == N_ARG || n->kind == N_VALUES) break;
                Fn t = *f;
                t.n[i] = f->n[n->kid[k]];
                progress = try_fn(f, args, &t, why);
            }
            if (progress) break;
            if (n->kind == N_NOT) continue;
            if (n->kind != N_CONST && n->kind != N_ARG && n->kind != N_TVAR && n->kind != N_P1 && n->kind != N_P2 &&
                !(n->kind == N_VAR)) {
                Fn t = *f;
                memset(&t.n[i], 0, sizeof t.n[i]);
                t.n[i].kind = N_CONST;
                progress = try_fn(f, args, &t, why);
            }
            if (progress) break;
            /* a simpler form of the same kind: the first style, constant, operator */
            if (n->style && n->kind != N_SELF) {
                Fn t = *f;
                t.n[i].style = 0;
                if (t.n[i].kind == N_IF || t.n[i].kind == N_ARG || t.n[i].kind == N_P1 || t.n[i].kind == N_P2 ||
                    t.n[i].kind == N_WRAP)
                    progress = try_fn(f, args, &t, why);
            }
            if (!progress && n->k) {
                Fn t = *f;
                t.n[i].k = 0;
                progress = try_fn(f, args, &t, why);
            }
            if (!progress && n->kind == N_VALUES && n->nkid) {
                Fn t = *f;
                t.n[i].nkid--;
                progress = try_fn(f, args, &t, why);
            }
        }
        /* a plain lambda list */
        if (!progress && (f->special >= 0 || f->optional)) {
            Fn t = *f;
            if (t.special >= 0) t.special = -1;
            else t.optional = false;
            progress = try_fn(f, args, &t, why);
        }
        /* simpler arguments */
        for (int k = 0; k < f->np && !progress; k++)
            for (int j = 0; j < args[k] && !progress; j++) {
                if (!arg_forms[j] || arg_forms[j][0] == '@') continue;
                int save = args[k];
                args[k] = j;
                char *w = run_trial(f, args, *why);
                if (w) { free(*why); *why = w; progress = true; }
                else args[k] = save;
            }
    }
}

static void print_case(const Fn *f, const int *args, int how) {
    Buf b = {0};
    print_fast(&b, f);
    printf("    %s\n", b.s);
    b.len = 0;
    char call[96];
    call_form(call, sizeof call, f, how);
    print_args(&b, f, args, call);
    printf("    %s%s\n", b.s, how == 3 ? "   ; under the profiler (tcl_profile)" : "");
    free(b.s);
}

typedef struct Args { int functions; unsigned long long seed; int first; int result; } Args;

static int run(void *p) {
    Args *a = (Args *)p;
    TclOptions opt = {0};
    opt.capture_output = true;
    session = tcl_session_new(&opt);
    if (!session) { fprintf(stderr, "could not create a session\n"); return 2; }
    session_lisp = gc_current;
    TclResult *r = eval("(list most-positive-fixnum (1+ most-positive-fixnum) most-negative-fixnum (1- most-negative-fixnum))", 10);
    if (r->status != TCL_OK || sscanf(r->values[0], "(%31s %31s %31s %31[^)])", mpf, mpf1, mnf, mnf1) != 4) {
        fprintf(stderr, "could not read the fixnum limits\n");
        return 2;
    }
    tcl_result_free(r);
    consts[10] = mpf; consts[11] = mpf1; consts[12] = mnf; consts[13] = mnf1;
    arg_forms[25] = mpf; arg_forms[26] = mpf1; arg_forms[27] = mnf; arg_forms[28] = mnf1;
    r = eval(prelude, 10);
    if (r->status != TCL_OK) {
        fprintf(stderr, "the prelude failed: %s %s\n", r->error_type, r->error_message);
        return 2;
    }
    tcl_result_free(r);
    int passed = 0, failed = 0, loops = 0, diverged = 0, unknown = 0;
    const char *v = getenv("PROPERTY_VERBOSE");
    bool verbose = v && *v && strcmp(v, "0") != 0;
    divergent_budget = 40;
    static Case c;
    for (int i = a->first; i < a->first + a->functions; i++) {
        rng_state = a->seed * 6364136223846793005ULL + (unsigned long long)i * 1442695040888963407ULL + 1;
        while (!gen_fn(&c.f)) continue;   /* too many nodes: another draw */
        for (int k = 0; k < NCALLS; k++) random_args(&c.f, c.args[k]);
        if (verbose) { printf("function %d:\n", i); print_case(&c.f, c.args[0], 0); }
        int at;
        char *why = run_case(&c, &at, &diverged);
        if (!why) {
            passed++;
            loops += took_loop();
            unknown += predict_loop(&c.f) == PREDICT_UNKNOWN;
            continue;
        }
        failed++;
        printf("FAIL function %d (seed %llu): %s\n", i, a->seed, why);
        print_case(&c.f, c.args[at], how_of(at));
        Fn small = c.f;
        int args[MAXP];
        memcpy(args, c.args[at], sizeof args);
        check_limit = 0.5;
        shrink_how = how_of(at);
        shrink(&small, args, &why);
        check_limit = 5;
        printf("  shrunk to:\n");
        print_case(&small, args, shrink_how);
        printf("  failure: %s\n", why);
        printf("  replay: build/tests/prop_selfloop 1 %llu %d\n", a->seed, i);
        free(why);
        if (failed >= 3) break;
    }
    tcl_session_free(session);
    printf("property selfloop: %d functions passed (%d as self tail call loops, %d whose shape was not predicted, "
           "%d calls without end), %d failed (seed %llu)\n", passed, loops, unknown, diverged, failed, a->seed);
    /* the generator must keep producing the loop's shapes, or the test proves nothing */
    if (a->functions >= 200 && loops * 5 < passed) {
        printf("FAIL: only %d of %d functions ran as self tail call loops\n", loops, passed);
        failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    a->result = failed ? 1 : 0;
    return a->result;
}

int main(int argc, char **argv) {
    Args a = {1000, (unsigned long long)time(NULL), 0, 0};
    if (argc > 1) a.functions = atoi(argv[1]);
    if (argc > 2) a.seed = strtoull(argv[2], NULL, 10);
    if (argc > 3) a.first = atoi(argv[3]);
    const char *env = getenv("PROPERTY_SEED");
    if (env && *env) a.seed = strtoull(env, NULL, 10);
    return tcl_run_with_big_stack(run, &a);
}
