/* eval.h: pre-analysed evaluation: nodes, lexical environments, lambdas, and the call interface. */
#ifndef TINYCL_EVAL_H
#define TINYCL_EVAL_H

#include "state.h"
#include "control.h"

/* A runtime lexical frame: slots resolved at analysis time to (depth, index). */
typedef struct Env {
    struct Env *parent;
    Obj slots[];
} Env;

typedef struct Node Node;
typedef Obj (*EvalFn)(Lisp *L, Node *n, Env *env);
struct Node {
    EvalFn ev;
};
#define EVAL(L, n, env) ((n)->ev((L), (n), (env)))
/* A row of a table of evaluators (imagetab.h: an image names a node's evaluator by its row). */
typedef struct EvalDef { const char *name; EvalFn ev; } EvalDef;
#define EVALDEF(fn) {#fn, fn}

/* Evaluate a sub-node; pass a travelling local exit straight up. */
#define EVAL_OR_EXIT(var, L, n, env)               \
    do {                                           \
        (var) = EVAL(L, n, env);                   \
        if (UNLIKELY((var) == UNWIND_MARK)) return UNWIND_MARK; \
    } while (0)

/* ---- lambda lists ---- */
typedef enum { P_REQ, P_OPT, P_REST, P_KEY, P_AUX, P_WHOLE, P_ENV } ParamKind;

struct LambdaList;
typedef struct Param {
    ParamKind kind;
    Obj var;                 /* symbol (NIL when destructuring pattern) */
    int slot;                /* frame slot, -1 when special */
    int depth;               /* frame hops from the binding frame (nonzero only for heap sub-frames) */
    Node *init;              /* default (opt/key/aux), NULL = NIL */
    Obj svar;                /* supplied-p variable or NIL */
    int svar_slot;           /* -1 when special */
    int svar_depth;
    Obj keyword;             /* &key */
    struct LambdaList *pattern; /* destructuring (macro lambda lists), else NULL */
} Param;

typedef struct LambdaList {
    int nparams;
    Param *params;
    int nreq, nopt;
    bool has_rest, has_key, allow_other_keys, has_aux, has_specials;
    bool is_macro;           /* binds (form env): &whole, &environment, destructuring */
    bool dotted_rest;        /* pattern (a . rest) */
    Obj source;              /* the lambda list as written */
} LambdaList;

typedef struct Lambda {
    Obj name;                /* function name for backtraces (symbol or (setf x)) */
    LambdaList ll;
    int nslots;
    int track_slot;          /* 1 + the frame's slot holding the LetTrack chain, 0 = none */
    Obj *slot_names;         /* NSLOTS names, the lexical variable living in each slot of the frame or
                              * NIL (a local function, an exit point, a variable in a closure's frame);
                              * NULL when none: what a backtrace's locals show */
    bool system;             /* tinycl's own code: made while the stdlib loads, or analysed lazily
                              * from such a definition (TRACE shows no calls it makes) */
    bool heap_frame;         /* frame must outlive the call (captured by closures) */
    bool needs_env;          /* refers to enclosing lexical frames */
    bool simple;             /* required lexical params only */
    bool direct_args;        /* simple, a stack frame, and parameter I in slot I: a caller may
                              * evaluate the arguments straight into the frame (ev_call_global) */
    uint8_t direct_arity;    /* direct_args with a frame of at most DIRECT_SLOTS slots: 1 + the number
                              * of arguments the call nodes specialised by count take directly; else 0 */
    Node *body;
    Obj doc;
    Obj source;              /* (lambda ll . body) */
    Obj block_name;
    /* A stdlib function defined at boot in the null lexical environment is analysed on its
     * first call (most are never called in a session): until then LAZY is set, BODY is NULL and
     * LAZY_BLOCK / LAZY_PACKAGE keep what the analysis needs. */
    uint8_t lazy;            /* LAZY_NONE, LAZY_PENDING, LAZY_FORCING */
    bool lazy_macro;
    Obj lazy_block;
    Obj lazy_package;
    Obj closure_vars;        /* ((name depth . slot) ...) of outer variables it uses, from its closure's
                              * environment (xref.c, for inspect); 0 or NIL when none */
} Lambda;

/* A call record's arguments (see CallRecord): a direct call's are the first slots of its frame. */
static inline int callrec_nargs(const CallRecord *r) {
    return callrec_direct(r) ? CLOSURE(r->fn)->lambda->ll.nreq : r->nargs;
}
static inline Obj *callrec_args(const CallRecord *r) {
    return callrec_direct(r) ? ((Env *)r->env)->slots : r->args;
}

/* The most slots a frame made by a call node specialised by argument count may have. */
#define DIRECT_SLOTS 8

enum { LAZY_NONE = 0, LAZY_PENDING = 1, LAZY_FORCING = 2 };
/* Analyse a lazy Lambda now (no-op for an analysed one). */
void lambda_force(Lisp *L, Lambda *lam);
/* Analyse the stdlib function LAM (lazy or not) once more, only to record its cross-reference
 * under KEY with LOCATION (stdlib code is analysed lazily, with no recording, so that the boot
 * stays fast); false when LAM is not a stdlib function analysed lazily. */
bool analyze_for_xref(Lisp *L, Lambda *lam, Obj key, Obj location);
static inline Lambda *lambda_ready(Lisp *L, Lambda *lam) {
    if (__builtin_expect(lam->lazy != LAZY_NONE, 0)) lambda_force(L, lam);
    return lam;
}

/* ---- calling ---- */
/* Call FN (a function or a function name) with args; sets L->nvals. */
Obj funcall(Lisp *L, Obj fn, int nargs, Obj *args);
Obj funcall0(Lisp *L, Obj fn);
Obj funcall1(Lisp *L, Obj fn, Obj a);
Obj funcall2(Lisp *L, Obj fn, Obj a, Obj b);
Obj funcall3(Lisp *L, Obj fn, Obj a, Obj b, Obj c);
/* Call with the elements of LIST as arguments. */
Obj apply_list(Lisp *L, Obj fn, Obj list);
/* The function a designator names (symbol -> global function), or an error. */
Obj coerce_function(Lisp *L, Obj designator);
Obj apply_closure(Lisp *L, Obj fn, int nargs, Obj *args);

/* ---- evaluation ---- */
/* Evaluate FORM in the null lexical environment, processing top-level forms
 * (progn, locally, macrolet, eval-when) one at a time. */
Obj lisp_eval(Lisp *L, Obj form);
/* Analyse (macroexpand, resolve) FORM as the body of a fresh top-level lambda. */
Obj analyze_function(Lisp *L, Obj lambda_form, Obj env);

/* macroexpansion; env is an Environment object or NIL */
Obj macroexpand_1(Lisp *L, Obj form, Obj env, bool *expanded);
Obj macroexpand(Lisp *L, Obj form, Obj env, bool *expanded);
Obj macro_function(Lisp *L, Obj sym, Obj env);
bool special_operator_p(Lisp *L, Obj sym);

/* fdefinition of a function name (symbol or (setf sym)); UNBOUND if none */
Obj fdefinition_get(Lisp *L, Obj name);
void fdefinition_set(Lisp *L, Obj name, Obj fn);

/* The active interpreted calls as a list of (name . args), innermost first. */
Obj capture_backtrace(Lisp *L, int limit);
/* Record a warning (TYPE and MESSAGE strings) for the session's result, at the position of the
 * top-level form being evaluated. */
void session_warning_add(Lisp *L, Obj type, Obj message);

void eval_init(Lisp *L);

/* Node allocation for analysis */
void *node_alloc(Lisp *L, size_t size, EvalFn ev);

#endif
