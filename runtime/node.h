/* node.h: private to the evaluator: node kinds, analysis scopes and the analysis context. */
#ifndef TINYCL_NODE_H
#define TINYCL_NODE_H

#include "eval.h"

/* ---- analysis-time structures ---- */

typedef struct AScope AScope;
typedef struct ALambda ALambda;

/* A scope is a place where variables are bound. A lambda scope is always a runtime
 * frame; a sub scope (let, flet, ...) becomes its own heap frame only when a closure
 * captures one of its variables; otherwise its variables live in the lambda frame. */
struct AScope {
    AScope *parent;
    ALambda *owner;
    bool is_lambda;
    bool runtime;          /* a frame exists at run time (decided at finalisation) */
    bool heap;             /* that frame must be heap-allocated */
    int nslots;            /* slots of this runtime frame */
    Obj *names;            /* a lambda scope: the variable in each slot (finalisation) */
};

struct ALambda {
    ALambda *parent;
    AScope *scope;         /* the lambda scope */
    Lambda *lambda;        /* filled in at the end */
    bool needs_env;        /* refers to variables of enclosing lambdas */
    int track_slot;        /* 1 + the hidden slot of its frame where the LETs that have frames of
                            * their own keep their chain (LetTrack), 0 = none (finalisation) */
};

/* A lexical variable, local function, or exit point (block/tagbody) that may be captured. */
typedef struct AVar {
    Obj name;
    AScope *scope;         /* where bound */
    AScope *rscope;        /* runtime frame holding its slot (finalisation) */
    int slot;
    bool captured;         /* referenced from another lambda */
    bool is_var, used, assigned, ignored;   /* a variable: read, assigned, IGNORE(ABLE) (warnings.c) */
    struct AVar *next_all;
} AVar;

typedef enum { B_VAR, B_SPECIAL, B_SYMMACRO, B_FUNC, B_MACRO, B_BLOCK, B_TAGBODY, B_DECL_SPECIAL,
               B_DECL_NOTINLINE /* value T: (notinline name), NIL: (inline name) */ } BindKind;

/* The lexical environment as the analyser sees it: a chain of bindings. */
typedef struct ABind {
    struct ABind *next;
    BindKind kind;
    Obj name;              /* symbol, or (setf x) for functions */
    AVar *var;             /* B_VAR, B_FUNC, B_BLOCK, B_TAGBODY */
    Obj value;             /* B_SYMMACRO: expansion; B_MACRO: expander function */
    struct Node *target;   /* B_BLOCK/B_TAGBODY: the node */
    ALambda *lambda;       /* lambda in which the binding was made */
    Obj tags;              /* B_TAGBODY: list of tags (index = position) */
} ABind;

/* A reference needing (depth, index) once all captures are known. */
typedef struct Fixup {
    struct Fixup *next;
    struct Node *node;
    AVar *var;
    AScope *site;
    int kind;              /* FX_REF, FX_SET, FX_BIND, FX_EXIT */
} Fixup;
enum { FX_REF, FX_SET, FX_EXIT, FX_MARK };

typedef struct ACtx {
    Lisp *L;
    AScope *scope;         /* current scope */
    ALambda *lambda;       /* current lambda */
    ABind *env;            /* current lexical bindings */
    AVar *vars;            /* every AVar created, newest first */
    Fixup *fixups;
    struct LetNode *lets;  /* sub-scope nodes to finalise */
    struct IfNode *if_vars;  /* IFs testing a variable, to specialise once its slot is known */
    struct CallNode *call_vars; /* the same for inline calls of variables (inline_reads_var) */
    struct TagbodyNode *loops; /* TAGBODYs run as loops, to specialise once the slots are known */
    struct Pending *pending; /* lambdas and lambda lists to finalise */
    ALambda *lambdas;
    bool eager;            /* analyse every lambda now (the analysis that forces a lazy one) */
    void ***drops;         /* fields of nodes that point to analysis-time structures (scopes,
                            * variables): cleared once finalised (finalize, step 8) */
    size_t ndrops, drops_cap;
} ACtx;

/* ---- node kinds ---- */

typedef struct ConstNode { Node n; Obj value; } ConstNode;

typedef struct VarNode {       /* lexical reference / assignment */
    Node n;
    int depth, index;
    Node *value;               /* assignment only */
    Obj name;
} VarNode;

typedef struct SymNode {       /* special/global variable */
    Node n;
    Obj sym;
    Node *value;
} SymNode;

/* CALL: a fused test (nodes-test.c), the predicate call the test is or that NEG (a NOT or NULL
 * around it, whose branches are then swapped) takes; else NULL. */
/* NEXT_VAR: the analysis context's list of IFs whose test reads a variable (fuse_if_var). */
/* VAR_INDEX, VAR_INDEX2: the slots of the variables a test of variables reads in place (fuse_if_var). */
typedef struct IfNode {
    Node n;
    Node *test, *then, *els;
    struct CallNode *call, *neg;
    struct IfNode *next_var;
    int var_index, var_index2;
} IfNode;

typedef struct SeqNode { Node n; int count; Node **forms; } SeqNode;

/* One binding made by a let-like node. */
typedef struct Binding {
    Obj sym;
    bool special;
    AVar *var;                 /* lexical */
    int depth, index;          /* resolved: where to store, relative to the body env */
    Node *init;
} Binding;

typedef struct LetNode {
    Node n;
    int count;
    Binding *b;
    bool sequential;           /* let* */
    bool has_special;
    AScope *scope;             /* the sub scope */
    int frame_size;            /* >0: push a heap frame of this size */
    int track_depth, track_index;  /* frame_size > 0: the lambda frame's hidden slot, from the body env */
    Node *body;
    struct LetNode *next_let;
} LetNode;

/* A LET whose frame is its own (a closure captured one of its variables), entered and not yet
 * left: the lambda frame's hidden slot holds the innermost, so that a backtrace can show these
 * variables among the call's locals. */
typedef struct LetTrack {
    struct LetTrack *prev;
    struct Env *env;
    LetNode *let;
} LetTrack;

typedef struct CallNode {
    Node n;
    Obj fname;                 /* global: the symbol */
    Node *fn;                  /* local / computed function */
    int nargs;
    Node **args;
    Obj cached;                /* a CL primitive the call was bound to at analysis (checked at each call) */
    int op;                    /* INLINE_*: a fixnum fast path for the commonest primitives */
    struct CallNode *next_var; /* the analysis context's list of inline calls of variables */
    int slot0, slot1;          /* a two-argument inline call of variables: their slots (inline_two_in_place) */
} CallNode;

enum { INLINE_NONE, INLINE_CAR, INLINE_CDR, INLINE_1PLUS, INLINE_1MINUS, INLINE_NULL, INLINE_CONSP,
       INLINE_ZEROP, INLINE_ADD, INLINE_SUB, INLINE_LT, INLINE_GT, INLINE_LE, INLINE_GE,
       INLINE_NUMEQ, INLINE_EQ, INLINE_EQL, INLINE_CONS, INLINE_MUL, INLINE_MOD, INLINE_ADD3,
       INLINE_CADR, INLINE_CDDR, INLINE_CAAR, INLINE_CDAR, INLINE_CADDR };

typedef struct LambdaNode { Node n; Lambda *lambda; } LambdaNode;
typedef struct DBindNode { Node n; LambdaList *ll; Node *value; int frame_size; Node *body; } DBindNode;

typedef struct FletNode {
    Node n;
    int count;
    AVar **vars;
    int *depth, *index;
    LambdaNode **fns;
    bool labels;
    AScope *scope;
    int frame_size;
    Node *body;
} FletNode;

typedef struct BlockNode {
    Node n;
    Obj name;
    Node *body;
    AVar *var;                 /* non-NULL when a closure may return from it */
    AScope *scope;             /* scope at the block, where the marker lives */
    int depth, index;
    bool used;                 /* some RETURN-FROM names it (else the block is dropped) */
} BlockNode;

typedef struct ReturnNode {
    Node n;
    BlockNode *target;
    bool nonlocal;
    int depth, index;
    Node *value;
} ReturnNode;

typedef struct TagbodyNode {
    Node n;
    int count;                 /* statements */
    Node **stmts;
    int ntags;
    int *tag_pos;              /* statement index each tag starts at */
    AVar *var;
    AScope *scope;
    int depth, index;
    int loop_pos;              /* ev_tagbody_loop: where the tag its last statement goes to is */
    struct LetNode *elt;       /* ev_tagbody_dolist: the LET binding the element, or NULL */
    struct TagbodyNode *next_loop; /* the analysis context's list of loops (fuse_loop) */
} TagbodyNode;

typedef struct GoNode {
    Node n;
    TagbodyNode *target;
    int tag;
    bool nonlocal;
    int depth, index;
} GoNode;

typedef struct CatchNode { Node n; Node *tag; Node *body; } CatchNode;
typedef struct ThrowNode { Node n; Node *tag; Node *value; } ThrowNode;
typedef struct UnwindNode { Node n; Node *protected_form; Node *cleanup; } UnwindNode;
typedef struct MvCallNode { Node n; Node *fn; int count; Node **forms; } MvCallNode;
typedef struct Mvp1Node { Node n; Node *first; Node *rest; } Mvp1Node;
typedef struct ProgvNode { Node n; Node *syms, *vals, *body; } ProgvNode;
typedef struct TheNode { Node n; Obj type; Node *form; } TheNode;
typedef struct FunctionNode { Node n; Obj name; } FunctionNode;
typedef struct LocalFnNode { Node n; int depth, index; } LocalFnNode;

/* Lambda-list bindings are resolved after analysis too. */
typedef struct Pending {
    struct Pending *next;
    Lambda *lambda;          /* NULL for a destructuring pattern */
    ALambda *al;
    AScope *bind_scope;      /* where the parameters are bound */
    LambdaList *ll;
    AVar **param_vars;     /* per param; NULL for special */
    AVar **svar_vars;
} Pending;

/* Whether N is a call node bound to a CL primitive at analysis (analyze.c). */
bool call_node_bound(Node *n);
/* Whether N is an IF node (any of its evaluators). */
bool if_node_p(Node *n);
/* Give IF node I a fused test when its test is a call of a common CL predicate (nodes-test.c). */
void fuse_if_test(Lisp *L, IfNode *i);
/* Whether IF's test, or the one argument of its fused predicate, is a lexical variable reference. */
bool if_tests_var(IfNode *i);
/* Once the variables' slots are known (finalisation): an IF testing a variable of the current
 * frame, or a fused predicate of one, reads the slot in place. */
void fuse_if_var(IfNode *i);

/* Whether inline call C of one argument (CAR, CDR, 1+, 1-) has a variant reading it in place, should
 * it be a variable of the current frame; once the slots are known, choose it (nodes.c). The
 * two-argument ones have inline_vv_variant. */
bool inline_reads_var(CallNode *c);
void inline_in_place(CallNode *c);
/* Calls of LAM's own name in tail position of its body become loops (nodes.c, at finalisation). */
void mark_self_tail_calls(Lambda *lam);
/* What a self tail call returns to its function's runner: run the body again (an immediate no
 * other marker uses: see object.h, reader.c, load.c, session.c). */
#define TAIL_MARK OBJ(0xB06)
/* A TAGBODY ending in a GO to one of its own tags runs as a loop (nodes-loop.c): at analysis, the
 * evaluator for it or NULL; once the variables' slots are known, a DOLIST's loop gets its own. */
EvalFn loop_evaluator(TagbodyNode *t);
void fuse_loop(TagbodyNode *t);
/* Once the slots are known, a LET that is a PSETQ of variables of the current frame (DO's step)
 * gets an evaluator without temporaries (at most PSETQ_MAX variables). */
#define PSETQ_MAX 8
void fuse_psetq(LetNode *ln);

/* A function whose body is a tree of IFs testing variables in place, with self tail calls of simple
 * arguments among its leaves, runs its rounds as one C loop (nodes-selfloop.c, self_loop_build, at the
 * end of finalisation): the tests one op each. The kinds of test an op can make (if_loop_test): */
#define LOOP_TESTS1(X) X(NULL) X(CONSP) X(ATOM) X(LISTP) X(SYMBOLP) X(NUMBERP) X(ENDP) X(ZEROP) X(PLUSP) X(MINUSP)
#define LOOP_TESTS2(X) X(EQ) X(EQL) X(LT) X(GT) X(LE) X(GE) X(NUMEQ) X(NUMNE)
#define LOOP_KIND1(p) LOOP_##p,
#define LOOP_KIND2(p) LOOP_##p##_LL, LOOP_##p##_LC,
enum { LOOP_TRUE, LOOP_TESTS1(LOOP_KIND1) LOOP_TESTS2(LOOP_KIND2)
       LOOP_CONST, LOOP_VAR, LOOP_NODE, LOOP_SELF, LOOP_SELF_CDR = LOOP_SELF + 6,
       LOOP_NKINDS = LOOP_SELF_CDR + 6 };
#undef LOOP_KIND1
#undef LOOP_KIND2
/* The LOOP_ kind of the test IF node I makes on variables of the current frame read in place
 * (with its slots in I: var_index, var_index2, the constant of an _LC test in its call), or -1. */
int if_loop_test(IfNode *i);
/* Give LAM's body that loop, when it has that shape (at the end of finalisation). */
void self_loop_build(Lisp *L, Lambda *lam);

/* Can a self tail call of FNAME in frame ENV loop: FNAME still names the closure of the innermost
 * call (L->calls is never NULL there: the function whose body holds the call pushed a record),
 * whose frame ENV is, and the profiler is not counting calls? (nodes.c's self tail calls and
 * nodes-selfloop.c's loops.) */
static inline __attribute__((always_inline)) bool self_tail_loops(Lisp *L, Obj fname, Env *env) {
    CallRecord *rec = L->calls;
    Symbol *sym = SYM(fname);
    return LIKELY(sym->function == rec->fn) && LIKELY(rec->env == env) && LIKELY(!L->profiling) &&
           LIKELY(!(sym->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)));
}

/* analysis entry points shared between analyze.c and lambda.c */
Node *analyze(ACtx *c, Obj form);
Node *analyze_body(ACtx *c, Obj body);      /* implicit progn */
AVar *avar_new(ACtx *c, Obj name);
void ctx_push_bind(ACtx *c, BindKind kind, Obj name, AVar *var);
bool declared_special(ACtx *c, Obj decls, Obj sym);
bool globally_special(Lisp *L, Obj sym);
/* Split BODY into declarations (list of decl specifiers), docstring and forms. */
Obj parse_body(Lisp *L, Obj body, Obj *decls, Obj *doc, bool allow_doc);
/* Bind the free special declarations of DECLS in the current env. */
void push_special_decls(ACtx *c, Obj decls, Obj bound_vars);
Lambda *analyze_lambda(ACtx *c, Obj name, Obj ll, Obj body, bool is_macro, Obj block_name);
/* COMPILE-FILE is analysing a form for its compiled file (SYS::*FASL-LTV-CELLS* a list). */
bool analysing_for_fasl(Lisp *L);
/* Analyse a destructuring pattern as a lambda list bound into the current scope. */
LambdaList *analyze_pattern(ACtx *c, Obj pattern, Pending **pend_out, Obj decls);
/* Bind a list against a lambda list at runtime. */
void bind_list(Lisp *L, LambdaList *ll, Env *frame, Obj list, Obj whole, Obj env_obj, Obj fn_name);
void bind_args(Lisp *L, Lambda *lam, Env *frame, int nargs, Obj *args, Obj fn);

/* The frame DEPTH lexical levels up from E: inline, since every variable access outside the
 * current frame goes through it. */
static inline Env *env_up(Env *e, int depth) {
    while (depth--) e = e->parent;
    return e;
}

Obj ev_const(Lisp *L, Node *n, Env *env);
Obj ev_lref0(Lisp *L, Node *n, Env *env);

/* Whether arguments A and X, each a variable or a constant and at least one a variable, can be read
 * in place (REF: the evaluator of a variable of the current frame at that point, ev_lref while
 * analysing, ev_lref0 once the slots are known); the two-argument inline calls and fused tests
 * then take their _vv variants, which read them with in_place_arg. */
static inline bool args_in_place(Node *a, Node *x, EvalFn ref) {
    return (a->ev == ref || a->ev == ev_const) && (x->ev == ref || x->ev == ev_const) &&
           (a->ev == ref || x->ev == ref);
}
static inline Obj in_place_arg(Node *arg, Env *env) {
    return arg->ev == ev_const ? ((ConstNode *)arg)->value : env->slots[((VarNode *)arg)->index];
}

/* Evaluate an argument: a variable of the current frame or a constant is read in place, without
 * a call through the node (most arguments are one or the other). Unlike EVAL it leaves L->nvals
 * alone: a caller of this sets it itself. */
#define ARG_OR_EXIT(var, L, node, env)                                              \
    do {                                                                            \
        Node *arg_ = (node);                                                        \
        if (arg_->ev == ev_lref0) (var) = (env)->slots[((VarNode *)arg_)->index];   \
        else if (arg_->ev == ev_const) (var) = ((ConstNode *)arg_)->value;          \
        else EVAL_OR_EXIT(var, L, arg_, env);                                       \
    } while (0)

/* EQL decided in place where it can be: 1 or 0, or -1 for two numbers of one heap type (bignums,
 * ratios, doubles, complexes), which the primitive compares by value. */
static inline int eql_quick(Obj a, Obj b) {
    if (a == b) return 1;
    if (!is_heap(a) || !is_heap(b) || heap_type(a) != heap_type(b)) return 0;
    HeapType t = heap_type(a);
    return t == T_BIGNUM || t == T_RATIO || t == T_DOUBLE || t == T_COMPLEX ? -1 : 0;
}

/* The variant of the two-argument inline evaluator EV that reads arguments that are each a
 * variable of the current frame or a constant in place, or NULL (nodes.c). */
EvalFn inline_vv_variant(EvalFn ev);
/* Once the slots are known: give the two-argument inline call C (one with inline_vv_variant) the
 * variant reading its arguments in place, if they are variables of the current frame or constants:
 * _ll for two variables, _lc for a variable and a constant (their slots in C), else _vv. */
void inline_two_in_place(CallNode *c);
/* At analysis: the variant of inline call C that reads a global or special variable first argument
 * in place when the second is a constant ((+ *x* 1)), or NULL (nodes.c). */
EvalFn inline_global_variant(CallNode *c);

/* The call of a CL primitive node C with its evaluated ARGS the general way: the primitive seen at
 * analysis, or whatever the symbol names now (the inline evaluators' slow path). */
Obj prim_call_slow(Lisp *L, CallNode *c, int na, Obj *args);

#endif
