/* analyze.c: turns a form into a node tree once: macroexpansion, lexical resolution, special operators. */
#include "warnings.h"
#include "abi.h"
#include "node.h"
#include "gc.h"
#include "error.h"
#include "package.h"
#include "lstring.h"
#include "printer.h"
#include "docs.h"
#include "xref.h"
#include "thread.h"
#include "list.h"
#include "sequence.h"
#include <stdlib.h>

/* node evaluators live in nodes.c */
Obj ev_lref0(Lisp *, Node *, Env *);
Obj ev_lref(Lisp *, Node *, Env *);
Obj ev_lset(Lisp *, Node *, Env *), ev_lset0(Lisp *, Node *, Env *);
Obj ev_gref(Lisp *, Node *, Env *);
Obj ev_gset(Lisp *, Node *, Env *);
Obj ev_if(Lisp *, Node *, Env *);
Obj ev_progn(Lisp *, Node *, Env *);
Obj ev_let(Lisp *, Node *, Env *);
Obj ev_let_local(Lisp *, Node *, Env *), ev_let_local1(Lisp *, Node *, Env *), ev_let_local2(Lisp *, Node *, Env *);
Obj ev_let_special1(Lisp *, Node *, Env *);
Obj ev_call_global(Lisp *, Node *, Env *);
Obj ev_call_node(Lisp *, Node *, Env *), ev_funcall(Lisp *, Node *, Env *);
Obj ev_call_prim(Lisp *, Node *, Env *);
/* the same by argument count (nodes.c) */
Obj ev_call_prim1(Lisp *, Node *, Env *), ev_call_prim2(Lisp *, Node *, Env *), ev_call_prim3(Lisp *, Node *, Env *),
    ev_call_prim4(Lisp *, Node *, Env *);
static const EvalFn prim_by_count[] = {ev_call_prim, ev_call_prim1, ev_call_prim2, ev_call_prim3, ev_call_prim4};
Obj ev_call_global0(Lisp *, Node *, Env *), ev_call_global1(Lisp *, Node *, Env *),
    ev_call_global2(Lisp *, Node *, Env *), ev_call_global3(Lisp *, Node *, Env *),
    ev_call_global4(Lisp *, Node *, Env *), ev_call_global5(Lisp *, Node *, Env *),
    ev_call_global6(Lisp *, Node *, Env *),
    ev_call_local0(Lisp *, Node *, Env *), ev_call_local1(Lisp *, Node *, Env *),
    ev_call_local2(Lisp *, Node *, Env *), ev_call_local3(Lisp *, Node *, Env *),
    ev_call_local4(Lisp *, Node *, Env *), ev_call_local5(Lisp *, Node *, Env *),
    ev_call_local6(Lisp *, Node *, Env *);
Obj ev_lambda(Lisp *, Node *, Env *);
Obj ev_flet(Lisp *, Node *, Env *);
Obj ev_block(Lisp *, Node *, Env *);
Obj ev_block_nl(Lisp *, Node *, Env *);
Obj ev_return(Lisp *, Node *, Env *);
Obj ev_return_nl(Lisp *, Node *, Env *);
Obj ev_tagbody(Lisp *, Node *, Env *);
Obj ev_tagbody_nl(Lisp *, Node *, Env *);
Obj ev_go(Lisp *, Node *, Env *);
Obj ev_go_nl(Lisp *, Node *, Env *);
Obj ev_catch(Lisp *, Node *, Env *);
Obj ev_throw(Lisp *, Node *, Env *);
Obj ev_unwind_protect(Lisp *, Node *, Env *);
Obj ev_mvcall(Lisp *, Node *, Env *);
Obj ev_mvprog1(Lisp *, Node *, Env *);
Obj ev_progv(Lisp *, Node *, Env *);
Obj ev_the(Lisp *, Node *, Env *);
Obj ev_function(Lisp *, Node *, Env *);
Obj ev_local_fn(Lisp *, Node *, Env *);
Obj ev_dbind(Lisp *, Node *, Env *);

void *node_alloc(Lisp *L, size_t size, EvalFn ev) {
    Node *n = (Node *)gc_alloc(L, size);
    n->ev = ev;
    L->node_count++;
    return n;
}

#define NEW(c, type, ev) ((type *)node_alloc((c)->L, sizeof(type), (ev)))

static Node *const_node(ACtx *c, Obj v) {
    ConstNode *n = NEW(c, ConstNode, ev_const);
    n->value = v;
    return &n->n;
}

/* ---- small list helpers ---- */
/* The length of the proper list L, part of FORM; a dotted or circular list is a PROGRAM-ERROR
 * (a circular form would otherwise keep the analysis looping, past the time limit). */
static int list_length_checked(Lisp *L, Obj l, Obj form) {
    int n = 0;
    Hare h;
    hare_init(&h, l);
    for (Obj x = l; x != NIL; x = CDR(x)) {
        if (!is_cons(x)) err_program(L, "Malformed form (dotted list): %S", form);
        if (n > 0 && hare_step_p(L, &h, x))
            err_program(L, "Malformed form (circular list) beginning with %S", is_cons(form) ? CAR(form) : form);
        n++;
    }
    return n;
}
static Obj second(Obj l) { return is_cons(l) && is_cons(CDR(l)) ? CAR(CDR(l)) : NIL; }

/* ---- scopes and bindings ---- */

static AScope *scope_new(ACtx *c, bool is_lambda) {
    AScope *s = (AScope *)gc_alloc(c->L, sizeof(AScope));
    s->parent = c->scope;
    s->owner = c->lambda;
    s->is_lambda = is_lambda;
    s->runtime = is_lambda;
    return s;
}

AVar *avar_new(ACtx *c, Obj name) {
    AVar *v = (AVar *)gc_alloc(c->L, sizeof(AVar));
    v->name = name;
    v->scope = c->scope;
    v->slot = -1;
    v->next_all = c->vars;
    c->vars = v;
    return v;
}

void ctx_push_bind(ACtx *c, BindKind kind, Obj name, AVar *var) {
    ABind *b = (ABind *)gc_alloc(c->L, sizeof(ABind));
    b->next = c->env;
    b->kind = kind;
    b->name = name;
    b->var = var;
    b->lambda = c->lambda;
    c->env = b;
}

/* FIELD, of a node, points to a structure only the analysis uses: finalize clears it (step 8). */
static void drop_later(ACtx *c, void **field) {
    if (c->ndrops == c->drops_cap) {
        size_t cap = c->drops_cap ? c->drops_cap * 2 : 64;
        void ***d = (void ***)gc_alloc(c->L, cap * sizeof *d);
        if (c->ndrops) memcpy(d, c->drops, c->ndrops * sizeof *d);
        c->drops = d;
        c->drops_cap = cap;
    }
    c->drops[c->ndrops++] = field;
}

static void add_fixup(ACtx *c, Node *node, AVar *var, int kind) {
    Fixup *f = (Fixup *)gc_alloc(c->L, sizeof(Fixup));
    f->node = node;
    f->var = var;
    f->site = c->scope;
    f->kind = kind;
    f->next = c->fixups;
    c->fixups = f;
}

bool globally_special(Lisp *L, Obj sym) {
    return is_type(sym, T_SYMBOL) && (SYM(sym)->h.flags & (SYM_SPECIAL | SYM_CONSTANT));
    (void)L;
}

/* Is SYM declared special by a (special ...) in DECLS? */
bool declared_special(ACtx *c, Obj decls, Obj sym) {
    Lisp *L = c->L;
    for (Obj d = decls; d != NIL; d = CDR(d)) {
        Obj spec = CAR(d);
        if (is_cons(spec) && CAR(spec) == S(SPECIAL))
            for (Obj v = CDR(spec); is_cons(v); v = CDR(v))
                if (CAR(v) == sym) return true;
    }
    return false;
}

/* Free special declarations: (declare (special x)) for x not bound here. */
void push_special_decls(ACtx *c, Obj decls, Obj bound) {
    Lisp *L = c->L;
    for (Obj d = decls; d != NIL; d = CDR(d)) {
        Obj spec = CAR(d);
        if (is_cons(spec) && (CAR(spec) == S(NOTINLINE) || CAR(spec) == S(INLINE))) {
            /* they decide whether compiler macros expand in this scope */
            for (Obj v = CDR(spec); is_cons(v); v = CDR(v)) {
                ctx_push_bind(c, B_DECL_NOTINLINE, CAR(v), NULL);
                c->env->value = CAR(spec) == S(NOTINLINE) ? S(T) : NIL;
            }
            continue;
        }
        if (!is_cons(spec) || CAR(spec) != S(SPECIAL)) continue;
        for (Obj v = CDR(spec); is_cons(v); v = CDR(v)) {
            bool is_bound = false;
            for (Obj b = bound; b != NIL; b = CDR(b))
                if (CAR(b) == CAR(v)) is_bound = true;
            if (!is_bound) ctx_push_bind(c, B_DECL_SPECIAL, CAR(v), NULL);
        }
    }
}

Obj parse_body(Lisp *L, Obj body, Obj *decls, Obj *doc, bool allow_doc) {
    *decls = NIL;
    if (doc) *doc = NIL;
    Obj dtail = NIL;
    list_length_checked(L, body, body);
    while (is_cons(body)) {
        Obj f = CAR(body);
        if (is_cons(f) && CAR(f) == S(DECLARE)) {
            list_length_checked(L, CDR(f), f);
            for (Obj s = CDR(f); is_cons(s); s = CDR(s)) {
                if (is_cons(CAR(s))) list_length_checked(L, CAR(s), f);   /* (special a b ...) is walked later */
                Obj cell = cons(L, CAR(s), NIL);
                if (dtail == NIL) *decls = cell; else CDR(dtail) = cell;
                dtail = cell;
            }
        } else if (allow_doc && is_string(f) && doc && *doc == NIL && is_cons(CDR(body))) {
            *doc = f;
        } else {
            break;
        }
        body = CDR(body);
    }
    warnings_declarations(L, *decls);
    return body;
}

static ABind *lookup_var(ACtx *c, Obj sym) {
    for (ABind *b = c->env; b; b = b->next) {
        if (b->name != sym) continue;
        if (b->kind == B_VAR || b->kind == B_SPECIAL || b->kind == B_SYMMACRO || b->kind == B_DECL_SPECIAL)
            return b;
    }
    return NULL;
}

static bool fn_name_eq(Obj a, Obj b) {
    if (a == b) return true;
    return is_cons(a) && is_cons(b) && CAR(a) == CAR(b) && second(a) == second(b);
}

static ABind *lookup_fn(ACtx *c, Obj name) {
    for (ABind *b = c->env; b; b = b->next)
        if ((b->kind == B_FUNC || b->kind == B_MACRO) && fn_name_eq(b->name, name)) return b;
    return NULL;
}

/* ---- environments as Lisp objects (for &environment and macroexpand) ---- */

static Obj env_object(ACtx *c) {
    Environment *e = (Environment *)heap_alloc(c->L, T_ENVIRONMENT, sizeof(Environment));
    e->aenv = c->env;
    return (Obj)e;
}

static ABind *env_binds(Obj env) {
    return is_type(env, T_ENVIRONMENT) ? (ABind *)((Environment *)env)->aenv : NULL;
}

Obj macro_function(Lisp *L, Obj sym, Obj env) {
    (void)L;
    for (ABind *b = env_binds(env); b; b = b->next) {
        if ((b->kind == B_FUNC || b->kind == B_MACRO) && b->name == sym)
            return b->kind == B_MACRO ? b->value : NIL;
    }
    if (!is_type(sym, T_SYMBOL)) return NIL;
    if ((SYM(sym)->h.flags & SYM_MACRO) && SYM(sym)->function != UNBOUND) return SYM(sym)->function;
    return NIL;
}

bool special_operator_p(Lisp *L, Obj sym) {
    (void)L;
    return is_type(sym, T_SYMBOL) && (SYM(sym)->h.flags & SYM_SPECIAL_OP);
}

static Obj symbol_macro_expansion(Lisp *L, Obj sym, Obj env) {
    for (ABind *b = env_binds(env); b; b = b->next) {
        if (b->name != sym) continue;
        if (b->kind == B_SYMMACRO) return b->value;
        if (b->kind == B_VAR || b->kind == B_SPECIAL || b->kind == B_DECL_SPECIAL) return NO_VALUE;
    }
    if (is_type(sym, T_SYMBOL) && (SYM(sym)->h.flags & SYM_GLOBAL_LEX)) {
        for (Obj p = SYM(sym)->plist; is_cons(p) && is_cons(CDR(p)); p = CDR(CDR(p)))
            if (CAR(p) == S(P_SYMBOL_MACRO)) return CAR(CDR(p));
    }
    return NO_VALUE;
}

static Obj call_expander(Lisp *L, Obj expander, Obj form, Obj env) {
    Obj hook = SYM(S(MACROEXPAND_HOOK))->value;
    Obj r;
    if (hook == UNBOUND || hook == NIL || hook == S(FUNCALL) ||
        (is_type(hook, T_PRIMITIVE) && PRIM(hook)->name == S(FUNCALL)))
        r = funcall2(L, expander, form, env);
    else
        r = funcall3(L, hook, expander, form, env);
    L->nvals = 1;
    return r;
}

Obj macroexpand_1(Lisp *L, Obj form, Obj env, bool *expanded) {
    *expanded = false;
    if (is_cons(form) && is_symbol(CAR(form))) {
        Obj m = macro_function(L, CAR(form), env);
        if (m != NIL) {
            *expanded = true;
            return call_expander(L, m, form, env);
        }
    } else if (is_type(form, T_SYMBOL)) {
        Obj e = symbol_macro_expansion(L, form, env);
        if (e != NO_VALUE) {
            *expanded = true;
            return e;
        }
    }
    return form;
}

Obj macroexpand(Lisp *L, Obj form, Obj env, bool *expanded) {
    bool any = false, once;
    for (;;) {
        form = macroexpand_1(L, form, env, &once);
        if (!once) break;
        any = true;
        safe_point(L);
    }
    *expanded = any;
    return form;
}

/* ---- analysis of forms ---- */

typedef Node *(*SpecialFn)(ACtx *c, Obj form);
/* the analyser of the special operator whose symbol's aux is I + 1 (special_ops[], below) */
static SpecialFn special_op_fn(int i);

static Node *analyze_symbol(ACtx *c, Obj sym) {
    Lisp *L = c->L;
    if (sym == NIL || sym == S(T) || is_keyword(L, sym)) return const_node(c, sym);
    ABind *b = lookup_var(c, sym);
    if (b && b->kind == B_SYMMACRO) return analyze(c, b->value);
    if (b && b->kind == B_VAR) {
        VarNode *n = NEW(c, VarNode, ev_lref);
        n->name = sym;
        add_fixup(c, &n->n, b->var, FX_REF);
        return &n->n;
    }
    xref_note(L, XREF_REF, sym);   /* a free or special reference */
    if (!b) {
        Obj e = symbol_macro_expansion(L, sym, NIL);
        if (e != NO_VALUE) return analyze(c, e);
        if ((SYM(sym)->h.flags & SYM_CONSTANT) && SYM(sym)->value != UNBOUND) {
            Obj v = SYM(sym)->value;
            /* fold constants whose identity cannot matter */
            if (!is_heap(v) || is_symbol(v) || is_number(v)) return const_node(c, v);
        }
    }
    if (!b && warnings_active(c)) warnings_variable_ref(c, sym);
    SymNode *n = NEW(c, SymNode, ev_gref);
    n->sym = sym;
    return &n->n;
}

static Node *analyze_setq_pair(ACtx *c, Obj sym, Obj valform, Obj form) {
    Lisp *L = c->L;
    if (!is_type(sym, T_SYMBOL)) err_program(L, "Variable name is not a symbol: %S in %S", sym, form);
    ABind *b = lookup_var(c, sym);
    if ((b && b->kind == B_SYMMACRO) || (!b && symbol_macro_expansion(L, sym, NIL) != NO_VALUE)) {
        Obj place = b ? b->value : symbol_macro_expansion(L, sym, NIL);
        return analyze(c, cons(L, S(SETF), cons(L, place, cons(L, valform, NIL))));
    }
    Node *val = analyze(c, valform);
    if (b && b->kind == B_VAR) {
        VarNode *n = NEW(c, VarNode, ev_lset);
        n->name = sym;
        n->value = val;
        add_fixup(c, &n->n, b->var, FX_SET);
        return &n->n;
    }
    if (SYM(sym)->h.flags & SYM_CONSTANT) err_program(L, "Can't set the constant %S", sym);
    if (!b && warnings_active(c)) warnings_variable_ref(c, sym);
    xref_note(L, XREF_SET, sym);
    SymNode *n = NEW(c, SymNode, ev_gset);
    n->sym = sym;
    n->value = val;
    return &n->n;
}

static Node *an_setq(ACtx *c, Obj form) {
    Lisp *L = c->L;
    int len = list_length_checked(L, CDR(form), form);
    if (len % 2) err_program(L, "Odd number of arguments to SETQ: %S", form);
    if (len == 0) return const_node(c, NIL);
    if (len == 2) return analyze_setq_pair(c, CAR(CDR(form)), CAR(CDR(CDR(form))), form);
    SeqNode *s = NEW(c, SeqNode, ev_progn);
    s->count = len / 2;
    s->forms = (Node **)gc_alloc(L, sizeof(Node *) * (size_t)s->count);
    int i = 0;
    for (Obj p = CDR(form); p != NIL; p = CDR(CDR(p))) s->forms[i++] = analyze_setq_pair(c, CAR(p), CAR(CDR(p)), form);
    return &s->n;
}

/* Under COMPILE-FILE (SYS::*FASL-LTV-CELLS* a list) a LOAD-TIME-VALUE form, or a literal made by
 * MAKE-LOAD-FORM, is evaluated when the compiled file is loaded: its function and value share a
 * cell (value the cell itself until then) that COMPILE-FILE puts before the top-level form, so
 * that LOAD fills it before running the form. */
typedef struct LtvNode { Node n; Obj cell; } LtvNode;

static Obj ev_ltv(Lisp *L, Node *n, Env *env) {
    (void)env;
    Obj cell = ((LtvNode *)n)->cell;
    if (CDR(cell) == cell) CDR(cell) = funcall0(L, CAR(cell));
    return values1(L, CDR(cell));
}

static Obj fasl_cells_var(Lisp *L) {
    Obj cells = intern_cstr(L, L->pkg_system, "*FASL-LTV-CELLS*");
    return SYM(cells)->value != UNBOUND && is_list(SYM(cells)->value) ? cells : NIL;
}

bool analysing_for_fasl(Lisp *L) { return fasl_cells_var(L) != NIL; }

/* A literal a compiled file cannot hold as it is: an instance other than a class (it is rebuilt
 * by MAKE-LOAD-FORM), or a list or vector holding one; BUDGET bounds the walk. */
static bool holds_instance(Obj v, int *budget) {
    while ((*budget)-- > 0) {
        if (is_cons(v)) {
            if (holds_instance(CAR(v), budget)) return true;
            v = CDR(v);
            continue;
        }
        if (is_type(v, T_INSTANCE)) return !(INST(v)->h.flags & INST_CLASS);
        if (is_type(v, T_VECTOR)) {
            for (size_t i = 0; i < VEC(v)->len; i++)
                if (holds_instance(VEC(v)->data[i], budget)) return true;
        }
        return false;
    }
    return false;
}

static Node *literal_node(ACtx *c, Obj v) {
    Lisp *L = c->L;
    int budget = 10000;
    if ((is_cons(v) || is_type(v, T_INSTANCE) || is_type(v, T_VECTOR)) && holds_instance(v, &budget) &&
        fasl_cells_var(L) != NIL) {
        LtvNode *n = NEW(c, LtvNode, ev_ltv);
        n->cell = funcall1(L, intern_cstr(L, L->pkg_system, "%FASL-CONSTANT-CELL"), v);
        return &n->n;
    }
    return const_node(c, v);
}

static Node *an_quote(ACtx *c, Obj form) {
    if (!is_cons(CDR(form)) || CDR(CDR(form)) != NIL) err_program(c->L, "Malformed QUOTE: %S", form);
    return literal_node(c, CAR(CDR(form)));
}

Node *analyze_body(ACtx *c, Obj body) {
    Lisp *L = c->L;
    int n = list_length_checked(L, body, body);
    if (n == 0) return const_node(c, NIL);
    if (n == 1) return analyze(c, CAR(body));
    SeqNode *s = NEW(c, SeqNode, ev_progn);
    s->count = n;
    s->forms = (Node **)gc_alloc(L, sizeof(Node *) * (size_t)n);
    int i = 0;
    for (Obj p = body; p != NIL; p = CDR(p)) s->forms[i++] = analyze(c, CAR(p));
    return &s->n;
}

static Node *an_progn(ACtx *c, Obj form) { return analyze_body(c, CDR(form)); }

static Node *an_if(ACtx *c, Obj form) {
    Lisp *L = c->L;
    int n = list_length_checked(L, CDR(form), form);
    if (n < 2 || n > 3) err_program(L, "Malformed IF: %S", form);
    IfNode *i = NEW(c, IfNode, ev_if);
    Obj a = CDR(form);
    i->test = analyze(c, CAR(a));
    i->then = analyze(c, CAR(CDR(a)));
    i->els = n == 3 ? analyze(c, CAR(CDR(CDR(a)))) : const_node(c, NIL);
    fuse_if_test(L, i);
    if (if_tests_var(i)) { i->next_var = c->if_vars; c->if_vars = i; }
    return &i->n;
}

/* Body with declarations: special declarations apply to the body. */
static Node *analyze_decl_body(ACtx *c, Obj body, Obj bound) {
    Obj decls;
    Obj forms = parse_body(c->L, body, &decls, NULL, false);
    ABind *saved = c->env;
    push_special_decls(c, decls, bound);
    Node *n = analyze_body(c, forms);
    c->env = saved;
    return n;
}

static Node *an_locally(ACtx *c, Obj form) { return analyze_decl_body(c, CDR(form), NIL); }

static void check_bindable(ACtx *c, Obj sym, Obj form) {
    Lisp *L = c->L;
    if (!is_type(sym, T_SYMBOL) || sym == S(T) || is_keyword(L, sym))
        err_program(L, "Can't bind %S as a variable in %S", sym, form);
    if (SYM(sym)->h.flags & SYM_CONSTANT) err_program(L, "Can't bind the constant %S in %S", sym, form);
}

static Node *an_let(ACtx *c, Obj form) {
    Lisp *L = c->L;
    bool seq = CAR(form) == S(LETSTAR);
    if (!is_cons(CDR(form))) err_program(L, "Malformed %S: %S", CAR(form), form);
    Obj bindings = CAR(CDR(form));
    Obj decls;
    Obj forms = parse_body(L, CDR(CDR(form)), &decls, NULL, false);
    int n = list_length_checked(L, bindings, form);
    LetNode *ln = NEW(c, LetNode, ev_let);
    ln->count = n;
    ln->sequential = seq;
    ln->b = (Binding *)gc_alloc(L, sizeof(Binding) * (size_t)(n ? n : 1));
    AScope *outer = c->scope;
    ABind *saved_env = c->env;
    AScope *sc = scope_new(c, false);
    ln->scope = sc;
    drop_later(c, (void **)&ln->scope);
    Obj bound = NIL;
    int i = 0;
    /* let: inits see the outer scope; let*: each init sees the previous bindings */
    if (seq) c->scope = sc;
    for (Obj p = bindings; p != NIL; p = CDR(p), i++) {
        Obj b = CAR(p), sym, init = NIL;
        if (is_cons(b)) {
            sym = CAR(b);
            if (is_cons(CDR(b))) {
                init = CAR(CDR(b));
                if (CDR(CDR(b)) != NIL) err_program(L, "Malformed binding %S in %S", b, form);
            } else if (CDR(b) != NIL) err_program(L, "Malformed binding %S in %S", b, form);
        } else sym = b;
        check_bindable(c, sym, form);
        Binding *bd = &ln->b[i];
        bd->sym = sym;
        bd->init = (is_cons(b) && is_cons(CDR(b))) ? analyze(c, init) : NULL;
        bound = cons(L, sym, bound);
        if (globally_special(L, sym) || declared_special(c, decls, sym)) {
            bd->special = true;
            ln->has_special = true;
            xref_note(L, XREF_BIND, sym);
            if (seq) ctx_push_bind(c, B_SPECIAL, sym, NULL);
        } else {
            AScope *keep = c->scope;
            c->scope = sc;
            bd->var = avar_new(c, sym);
            drop_later(c, (void **)&bd->var);
            bd->var->is_var = true;
            if (warnings_active(c)) warnings_bind_var(c, bd->var, decls);
            c->scope = keep;
            if (seq) ctx_push_bind(c, B_VAR, sym, bd->var);
        }
    }
    c->scope = sc;
    if (!seq) {
        for (i = 0; i < n; i++) {
            Binding *bd = &ln->b[i];
            if (bd->special) ctx_push_bind(c, B_SPECIAL, bd->sym, NULL);
            else ctx_push_bind(c, B_VAR, bd->sym, bd->var);
        }
    }
    push_special_decls(c, decls, bound);
    ln->body = analyze_body(c, forms);
    c->scope = outer;
    c->env = saved_env;
    ln->next_let = c->lets;
    c->lets = ln;
    return &ln->n;
}

/* (function x) */
static Node *analyze_function_name(ACtx *c, Obj name, Obj form) {
    Lisp *L = c->L;
    ABind *b = lookup_fn(c, name);
    if (b && b->kind == B_FUNC) {
        LocalFnNode *n = NEW(c, LocalFnNode, ev_local_fn);
        add_fixup(c, &n->n, b->var, FX_REF);
        return &n->n;
    }
    if (b && b->kind == B_MACRO) err_program(L, "%S names a local macro, not a function: %S", name, form);
    xref_note(L, XREF_CALL, name);
    FunctionNode *n = NEW(c, FunctionNode, ev_function);
    n->name = name;
    if (warnings_active(c)) warnings_function_ref(c, name);
    return &n->n;
}

static bool is_function_name(Lisp *L, Obj x) {
    if (is_type(x, T_SYMBOL) || x == NIL) return true;
    return is_cons(x) && CAR(x) == S(SETF) && is_cons(CDR(x)) && is_symbol(CAR(CDR(x))) && CDR(CDR(x)) == NIL;
}

static Node *lambda_node(ACtx *c, Obj name, Obj ll, Obj body) {
    LambdaNode *n = NEW(c, LambdaNode, ev_lambda);
    Obj block = NO_VALUE;
    if (name != NIL) block = is_cons(name) ? second(name) : name;
    n->lambda = analyze_lambda(c, name, ll, body, false, block);
    return &n->n;
}

static Node *an_function(ACtx *c, Obj form) {
    Lisp *L = c->L;
    if (!is_cons(CDR(form)) || CDR(CDR(form)) != NIL) err_program(L, "Malformed FUNCTION: %S", form);
    Obj x = CAR(CDR(form));
    if (is_function_name(L, x)) return analyze_function_name(c, x, form);
    if (is_cons(x) && CAR(x) == S(LAMBDA) && is_cons(CDR(x)))
        return lambda_node(c, NIL, CAR(CDR(x)), CDR(CDR(x)));
    if (is_cons(x) && (CAR(x) == S(NAMED_LAMBDA) || CAR(x) == S(MACRO_LAMBDA)) && is_cons(CDR(x)) && is_cons(CDR(CDR(x)))) {
        LambdaNode *n = NEW(c, LambdaNode, ev_lambda);
        Obj name = CAR(CDR(x));
        Obj block = is_cons(name) ? second(name) : name;
        n->lambda = analyze_lambda(c, name, CAR(CDR(CDR(x))), CDR(CDR(CDR(x))), CAR(x) == S(MACRO_LAMBDA), block);
        return &n->n;
    }
    err_program(L, "%S is not a legal function name.", x);
}

static Node *an_block(ACtx *c, Obj form) {
    Lisp *L = c->L;
    if (!is_cons(CDR(form)) || !is_symbol(CAR(CDR(form)))) err_program(L, "Malformed BLOCK: %S", form);
    BlockNode *n = NEW(c, BlockNode, ev_block);
    n->name = CAR(CDR(form));
    n->scope = c->scope;
    drop_later(c, (void **)&n->scope);
    drop_later(c, (void **)&n->var);
    ABind *saved = c->env;
    ctx_push_bind(c, B_BLOCK, n->name, NULL);
    c->env->target = &n->n;
    n->body = analyze_body(c, CDR(CDR(form)));
    /* the AVar exists only when a closure returns from this block (set by an_return_from) */
    c->env = saved;
    /* a block nothing returns from (most implicit DEFUN blocks) costs nothing at run time */
    if (!n->used) return n->body;
    return &n->n;
}

/* The marker of a block or tagbody that a closure exits to: a variable in the
 * scope where the block was entered, captured by the closure. */
static AVar *exit_marker(ACtx *c, AVar **slot, AScope *scope, Node *node) {
    if (!*slot) {
        AScope *keep = c->scope;
        c->scope = scope;
        *slot = avar_new(c, NIL);
        c->scope = keep;
        /* the block itself stores its tag there: a reference from its own scope */
        Fixup *f = (Fixup *)gc_alloc(c->L, sizeof(Fixup));
        f->node = node;
        f->var = *slot;
        f->site = scope;
        f->kind = FX_MARK;
        f->next = c->fixups;
        c->fixups = f;
    }
    return *slot;
}

static Node *an_return_from(ACtx *c, Obj form) {
    Lisp *L = c->L;
    int len = list_length_checked(L, CDR(form), form);
    if (len < 1 || len > 2 || !is_symbol(CAR(CDR(form)))) err_program(L, "Malformed RETURN-FROM: %S", form);
    Obj name = CAR(CDR(form));
    ABind *b;
    for (b = c->env; b; b = b->next)
        if (b->kind == B_BLOCK && b->name == name) break;
    if (!b) err_program(L, "Return for unknown block: %S", name);
    ReturnNode *n = NEW(c, ReturnNode, ev_return);
    n->target = (BlockNode *)b->target;
    n->target->used = true;
    n->value = len == 2 ? analyze(c, CAR(CDR(CDR(form)))) : const_node(c, NIL);
    if (b->lambda != c->lambda) {
        BlockNode *bn = n->target;
        exit_marker(c, &bn->var, bn->scope, &bn->n);
        n->nonlocal = true;
        n->n.ev = ev_return_nl;
        add_fixup(c, &n->n, bn->var, FX_EXIT);
    }
    return &n->n;
}

static Node *an_tagbody(ACtx *c, Obj form) {
    Lisp *L = c->L;
    TagbodyNode *n = NEW(c, TagbodyNode, ev_tagbody);
    n->scope = c->scope;
    drop_later(c, (void **)&n->scope);
    drop_later(c, (void **)&n->var);
    int nstmts = 0, ntags = 0;
    list_length_checked(L, CDR(form), form);
    for (Obj p = CDR(form); p != NIL; p = CDR(p)) {
        if (is_cons(CAR(p))) nstmts++;
        else if (is_symbol(CAR(p)) || is_integer(CAR(p))) ntags++;
        else err_program(L, "%S is not a valid tag in %S", CAR(p), form);
    }
    n->count = nstmts;
    n->ntags = ntags;
    n->stmts = (Node **)gc_alloc(L, sizeof(Node *) * (size_t)(nstmts ? nstmts : 1));
    n->tag_pos = (int *)gc_alloc_atomic(L, sizeof(int) * (size_t)(ntags ? ntags : 1));
    Obj tags = NIL, tail = NIL;
    int t = 0, s = 0;
    for (Obj p = CDR(form); p != NIL; p = CDR(p)) {
        if (is_cons(CAR(p))) { s++; continue; }
        Obj cell = cons(L, CAR(p), NIL);
        if (tail == NIL) tags = cell; else CDR(tail) = cell;
        tail = cell;
        n->tag_pos[t++] = s;
    }
    ABind *saved = c->env;
    ctx_push_bind(c, B_TAGBODY, NIL, NULL);
    c->env->target = &n->n;
    c->env->tags = tags;
    s = 0;
    for (Obj p = CDR(form); p != NIL; p = CDR(p)) {
        if (!is_cons(CAR(p))) continue;
        Node *st = analyze(c, CAR(p));
        TagbodyNode *in = (TagbodyNode *)st;
        if (st->ev == ev_tagbody && in->ntags == 0) {
            /* a TAGBODY without tags (the body of DO, DOLIST, DOTIMES) among the statements: its
             * statements go in its place (no GO can land in it, its value is not used) */
            Node **more = (Node **)gc_alloc(L, sizeof(Node *) * (size_t)(n->count + in->count + 1));
            memcpy(more, n->stmts, sizeof(Node *) * (size_t)s);
            memcpy(more + s, in->stmts, sizeof(Node *) * (size_t)in->count);
            n->stmts = more;
            for (int k = 0; k < ntags; k++) if (n->tag_pos[k] > s) n->tag_pos[k] += in->count - 1;
            n->count += in->count - 1;
            s += in->count;
            continue;
        }
        n->stmts[s++] = st;
    }
    c->env = saved;
    EvalFn loop = loop_evaluator(n);
    if (loop) { n->n.ev = loop; n->next_loop = c->loops; c->loops = n; }
    return &n->n;
}

static bool tag_eql(Obj a, Obj b) {
    if (a == b) return true;
    if (is_bignum(a) && is_bignum(b)) return mpz_cmp(BIG(a), BIG(b)) == 0;
    return false;
}

static Node *an_go(ACtx *c, Obj form) {
    Lisp *L = c->L;
    if (!is_cons(CDR(form)) || CDR(CDR(form)) != NIL) err_program(L, "Malformed GO: %S", form);
    Obj tag = CAR(CDR(form));
    for (ABind *b = c->env; b; b = b->next) {
        if (b->kind != B_TAGBODY) continue;
        int i = 0;
        for (Obj t = b->tags; t != NIL; t = CDR(t), i++) {
            if (!tag_eql(CAR(t), tag)) continue;
            GoNode *n = NEW(c, GoNode, ev_go);
            n->target = (TagbodyNode *)b->target;
            n->tag = i;
            if (b->lambda != c->lambda) {
                TagbodyNode *tb = n->target;
                exit_marker(c, &tb->var, tb->scope, &tb->n);
                n->nonlocal = true;
                n->n.ev = ev_go_nl;
                add_fixup(c, &n->n, tb->var, FX_EXIT);
            }
            return &n->n;
        }
    }
    err_program(L, "Attempt to GO to nonexistent tag: %S", tag);
}

static Node *an_catch(ACtx *c, Obj form) {
    if (!is_cons(CDR(form))) err_program(c->L, "Malformed CATCH: %S", form);
    CatchNode *n = NEW(c, CatchNode, ev_catch);
    n->tag = analyze(c, CAR(CDR(form)));
    n->body = analyze_body(c, CDR(CDR(form)));
    return &n->n;
}

static Node *an_throw(ACtx *c, Obj form) {
    if (list_length_checked(c->L, CDR(form), form) != 2) err_program(c->L, "Malformed THROW: %S", form);
    ThrowNode *n = NEW(c, ThrowNode, ev_throw);
    n->tag = analyze(c, CAR(CDR(form)));
    n->value = analyze(c, CAR(CDR(CDR(form))));
    return &n->n;
}

static Node *an_unwind_protect(ACtx *c, Obj form) {
    if (!is_cons(CDR(form))) err_program(c->L, "Malformed UNWIND-PROTECT: %S", form);
    UnwindNode *n = NEW(c, UnwindNode, ev_unwind_protect);
    n->protected_form = analyze(c, CAR(CDR(form)));
    n->cleanup = analyze_body(c, CDR(CDR(form)));
    return &n->n;
}

static Node *an_mvcall(ACtx *c, Obj form) {
    Lisp *L = c->L;
    int len = list_length_checked(L, CDR(form), form);
    if (len < 1) err_program(L, "Malformed MULTIPLE-VALUE-CALL: %S", form);
    MvCallNode *n = NEW(c, MvCallNode, ev_mvcall);
    n->fn = analyze(c, CAR(CDR(form)));
    n->count = len - 1;
    n->forms = (Node **)gc_alloc(L, sizeof(Node *) * (size_t)(len));
    int i = 0;
    for (Obj p = CDR(CDR(form)); p != NIL; p = CDR(p)) n->forms[i++] = analyze(c, CAR(p));
    return &n->n;
}

static Node *an_mvprog1(ACtx *c, Obj form) {
    if (!is_cons(CDR(form))) err_program(c->L, "Malformed MULTIPLE-VALUE-PROG1: %S", form);
    Mvp1Node *n = NEW(c, Mvp1Node, ev_mvprog1);
    n->first = analyze(c, CAR(CDR(form)));
    n->rest = analyze_body(c, CDR(CDR(form)));
    return &n->n;
}

static Node *an_progv(ACtx *c, Obj form) {
    if (list_length_checked(c->L, CDR(form), form) < 2) err_program(c->L, "Malformed PROGV: %S", form);
    ProgvNode *n = NEW(c, ProgvNode, ev_progv);
    n->syms = analyze(c, CAR(CDR(form)));
    n->vals = analyze(c, CAR(CDR(CDR(form))));
    n->body = analyze_body(c, CDR(CDR(CDR(form))));
    return &n->n;
}

static Node *an_the(ACtx *c, Obj form) {
    if (list_length_checked(c->L, CDR(form), form) != 2) err_program(c->L, "Malformed THE: %S", form);
    TheNode *n = NEW(c, TheNode, ev_the);
    n->type = CAR(CDR(form));
    n->form = analyze(c, CAR(CDR(CDR(form))));
    return &n->n;
}

static bool situation_has(Lisp *L, Obj sits, Obj kw, const char *old) {
    for (Obj p = sits; is_cons(p); p = CDR(p)) {
        Obj s = CAR(p);
        if (s == kw) return true;
        if (is_type(s, T_SYMBOL) && string_equal_cstr(SYM(s)->name, old)) return true;
    }
    (void)L;
    return false;
}

static Node *an_eval_when(ACtx *c, Obj form) {
    Lisp *L = c->L;
    if (!is_cons(CDR(form)) || !is_list(CAR(CDR(form)))) err_program(L, "Malformed EVAL-WHEN: %S", form);
    if (situation_has(L, CAR(CDR(form)), S(K_EXECUTE), "EVAL")) return analyze_body(c, CDR(CDR(form)));
    return const_node(c, NIL);
}

static Node *an_load_time_value(ACtx *c, Obj form) {
    Lisp *L = c->L;
    int len = list_length_checked(L, CDR(form), form);
    if (len < 1 || len > 2) err_program(L, "Malformed LOAD-TIME-VALUE: %S", form);
    Obj cells = fasl_cells_var(L);
    if (cells != NIL) {
        Obj fn = analyze_function(L, list2(L, S(FUNCTION), list3(L, S(LAMBDA), NIL, CAR(CDR(form)))), NIL);
        Obj cell = cons(L, fn, NIL);
        CDR(cell) = cell;
        SYM(cells)->value = cons(L, cell, SYM(cells)->value);
        LtvNode *n = NEW(c, LtvNode, ev_ltv);
        n->cell = cell;
        return &n->n;
    }
    Obj v = lisp_eval(L, CAR(CDR(form)));
    return const_node(c, v);
}

/* flet / labels */
static Node *an_flet(ACtx *c, Obj form) {
    Lisp *L = c->L;
    bool labels = CAR(form) == S(LABELS);
    if (!is_cons(CDR(form))) err_program(L, "Malformed %S: %S", CAR(form), form);
    Obj defs = CAR(CDR(form));
    int n = list_length_checked(L, defs, form);
    FletNode *fn = NEW(c, FletNode, ev_flet);
    fn->count = n;
    fn->labels = labels;
    fn->vars = (AVar **)gc_alloc(L, sizeof(AVar *) * (size_t)(n ? n : 1));
    fn->depth = (int *)gc_alloc_atomic(L, sizeof(int) * (size_t)(n ? n : 1));
    fn->index = (int *)gc_alloc_atomic(L, sizeof(int) * (size_t)(n ? n : 1));
    fn->fns = (LambdaNode **)gc_alloc(L, sizeof(LambdaNode *) * (size_t)(n ? n : 1));
    AScope *outer = c->scope;
    ABind *saved = c->env;
    AScope *sc = scope_new(c, false);
    fn->scope = sc;
    drop_later(c, (void **)&fn->scope);
    drop_later(c, (void **)&fn->vars);
    c->scope = sc;
    int i = 0;
    for (Obj p = defs; p != NIL; p = CDR(p), i++) {
        Obj d = CAR(p);
        if (!is_cons(d) || !is_function_name(L, CAR(d)) || !is_cons(CDR(d)))
            err_program(L, "Malformed %S definition: %S", CAR(form), d);
        fn->vars[i] = avar_new(c, CAR(d));
    }
    ABind *inner_env = c->env;
    for (i = 0; i < n; i++) {
        ctx_push_bind(c, B_FUNC, fn->vars[i]->name, fn->vars[i]);
    }
    inner_env = c->env;
    if (!labels) c->env = saved;
    c->scope = labels ? sc : outer;
    i = 0;
    for (Obj p = defs; p != NIL; p = CDR(p), i++) {
        Obj d = CAR(p);
        Obj name = CAR(d);
        LambdaNode *ln = NEW(c, LambdaNode, ev_lambda);
        ln->lambda = analyze_lambda(c, name, CAR(CDR(d)), CDR(CDR(d)), false, is_cons(name) ? second(name) : name);
        fn->fns[i] = ln;
    }
    c->env = inner_env;
    c->scope = sc;
    Obj decls;
    Obj forms = parse_body(L, CDR(CDR(form)), &decls, NULL, false);
    push_special_decls(c, decls, NIL);
    fn->body = analyze_body(c, forms);
    c->scope = outer;
    c->env = saved;
    /* reuse the LetNode list for finalisation: wrap in a pseudo let record */
    LetNode *rec = (LetNode *)gc_alloc(L, sizeof(LetNode));
    rec->n.ev = NULL;
    rec->scope = sc;
    rec->body = (Node *)fn;
    rec->next_let = c->lets;
    c->lets = rec;
    return &fn->n;
}

/* Make a macro expander from a macrolet definition, visible macros only. */
static Obj make_local_macro(ACtx *c, Obj def) {
    Lisp *L = c->L;
    if (!is_cons(def) || !is_symbol(CAR(def)) || !is_cons(CDR(def))) err_program(L, "Malformed MACROLET definition: %S", def);
    Obj lam = cons(L, S(MACRO_LAMBDA), cons(L, CAR(def), CDR(def)));
    /* the expander is analysed in an environment holding only the enclosing macros */
    ABind *macros = NULL, **tail = &macros;
    for (ABind *b = c->env; b; b = b->next) {
        if (b->kind != B_MACRO && b->kind != B_SYMMACRO) continue;
        ABind *copy = (ABind *)gc_alloc(L, sizeof(ABind));
        *copy = *b;
        copy->next = NULL;
        *tail = copy;
        tail = &copy->next;
    }
    Environment *e = (Environment *)heap_alloc(L, T_ENVIRONMENT, sizeof(Environment));
    e->aenv = macros;
    return analyze_function(L, cons(L, S(FUNCTION), cons(L, lam, NIL)), (Obj)e);
}

static Node *an_macrolet(ACtx *c, Obj form) {
    Lisp *L = c->L;
    if (!is_cons(CDR(form))) err_program(L, "Malformed MACROLET: %S", form);
    ABind *saved = c->env;
    Obj defs = CAR(CDR(form));
    list_length_checked(L, defs, form);
    ABind *newb = NULL;
    for (Obj p = defs; p != NIL; p = CDR(p)) {
        Obj fnobj = make_local_macro(c, CAR(p));
        ABind *b = (ABind *)gc_alloc(L, sizeof(ABind));
        b->kind = B_MACRO;
        b->name = CAR(CAR(p));
        b->value = fnobj;
        b->lambda = c->lambda;
        b->next = newb;
        newb = b;
    }
    while (newb) {
        ABind *nx = newb->next;
        newb->next = c->env;
        c->env = newb;
        newb = nx;
    }
    Node *n = analyze_decl_body(c, CDR(CDR(form)), NIL);
    c->env = saved;
    return n;
}

static Node *an_symbol_macrolet(ACtx *c, Obj form) {
    Lisp *L = c->L;
    if (!is_cons(CDR(form))) err_program(L, "Malformed SYMBOL-MACROLET: %S", form);
    ABind *saved = c->env;
    Obj decls;
    parse_body(L, CDR(CDR(form)), &decls, NULL, false);
    for (Obj p = CAR(CDR(form)); is_cons(p); p = CDR(p)) {
        Obj d = CAR(p);
        if (!is_cons(d) || !is_type(CAR(d), T_SYMBOL) || !is_cons(CDR(d)))
            err_program(L, "Malformed SYMBOL-MACROLET binding: %S", d);
        if (globally_special(L, CAR(d)))
            err_program(L, "Attempt to bind a special variable with SYMBOL-MACROLET: %S", CAR(d));
        if (declared_special(c, decls, CAR(d)))
            err_program(L, "A symbol macro may not be declared SPECIAL: %S", CAR(d));
        ctx_push_bind(c, B_SYMMACRO, CAR(d), NULL);
        c->env->value = CAR(CDR(d));
    }
    Node *n = analyze_decl_body(c, CDR(CDR(form)), NIL);
    c->env = saved;
    return n;
}

/* (sys::%destructuring-bind pattern value . body) */
static Node *an_dbind(ACtx *c, Obj form) {
    Lisp *L = c->L;
    if (list_length_checked(L, CDR(form), form) < 2) err_program(L, "Malformed DESTRUCTURING-BIND: %S", form);
    Obj pattern = CAR(CDR(form));
    Node *value = analyze(c, CAR(CDR(CDR(form))));
    Obj decls;
    Obj forms = parse_body(L, CDR(CDR(CDR(form))), &decls, NULL, false);
    AScope *outer = c->scope;
    ABind *saved = c->env;
    AScope *sc = scope_new(c, false);
    c->scope = sc;
    Pending *pend;
    LambdaList *ll = analyze_pattern(c, pattern, &pend, decls);
    (void)pend;
    push_special_decls(c, decls, NIL);
    DBindNode *n = (DBindNode *)node_alloc(L, sizeof(DBindNode), ev_dbind);
    n->ll = ll;
    n->value = value;
    n->body = analyze_body(c, forms);
    c->scope = outer;
    c->env = saved;
    LetNode *rec = (LetNode *)gc_alloc(L, sizeof(LetNode));
    rec->n.ev = NULL;
    rec->scope = sc;
    rec->body = (Node *)n;
    rec->count = -1; /* marks a destructuring record */
    rec->next_let = c->lets;
    c->lets = rec;
    return &n->n;
}

/* Calls to CL primitives (whose definitions the package lock protects) go straight to the C
 * function; each call still checks that the symbol's function is the one seen here. */
static const struct { const char *name; int nargs; int op; } inline_ops[] = {
    {"CAR", 1, INLINE_CAR}, {"CDR", 1, INLINE_CDR}, {"FIRST", 1, INLINE_CAR}, {"REST", 1, INLINE_CDR},
    {"1+", 1, INLINE_1PLUS}, {"1-", 1, INLINE_1MINUS}, {"NULL", 1, INLINE_NULL}, {"NOT", 1, INLINE_NULL},
    {"CONSP", 1, INLINE_CONSP}, {"ZEROP", 1, INLINE_ZEROP},
    {"+", 2, INLINE_ADD}, {"-", 2, INLINE_SUB}, {"<", 2, INLINE_LT}, {">", 2, INLINE_GT},
    {"<=", 2, INLINE_LE}, {">=", 2, INLINE_GE}, {"=", 2, INLINE_NUMEQ}, {"EQ", 2, INLINE_EQ},
    {"EQL", 2, INLINE_EQL}, {"CONS", 2, INLINE_CONS}, {"*", 2, INLINE_MUL}, {"MOD", 2, INLINE_MOD},
    {"+", 3, INLINE_ADD3}, {"CADR", 1, INLINE_CADR}, {"SECOND", 1, INLINE_CADR}, {"CDDR", 1, INLINE_CDDR},
    {"CAAR", 1, INLINE_CAAR}, {"CDAR", 1, INLINE_CDAR}, {"CADDR", 1, INLINE_CADDR}, {"THIRD", 1, INLINE_CADDR},
};

/* the evaluators of the inline primitives (nodes.c) */
Obj ev_inline_car(Lisp *, Node *, Env *), ev_inline_cdr(Lisp *, Node *, Env *), ev_inline_null(Lisp *, Node *, Env *),
    ev_inline_consp(Lisp *, Node *, Env *), ev_inline_1plus(Lisp *, Node *, Env *), ev_inline_1minus(Lisp *, Node *, Env *),
    ev_inline_zerop(Lisp *, Node *, Env *), ev_inline_add(Lisp *, Node *, Env *), ev_inline_sub(Lisp *, Node *, Env *),
    ev_inline_lt(Lisp *, Node *, Env *), ev_inline_gt(Lisp *, Node *, Env *), ev_inline_le(Lisp *, Node *, Env *),
    ev_inline_ge(Lisp *, Node *, Env *), ev_inline_numeq(Lisp *, Node *, Env *), ev_inline_eq(Lisp *, Node *, Env *),
    ev_inline_eql(Lisp *, Node *, Env *), ev_inline_cons(Lisp *, Node *, Env *), ev_inline_mul(Lisp *, Node *, Env *),
    ev_inline_mod(Lisp *, Node *, Env *), ev_inline_add3(Lisp *, Node *, Env *), ev_inline_cadr(Lisp *, Node *, Env *),
    ev_inline_cddr(Lisp *, Node *, Env *), ev_inline_caar(Lisp *, Node *, Env *), ev_inline_cdar(Lisp *, Node *, Env *),
    ev_inline_caddr(Lisp *, Node *, Env *), ev_inline_car_var(Lisp *, Node *, Env *),
    ev_inline_cdr_var(Lisp *, Node *, Env *);

static EvalFn inline_evaluator(int op) {
    switch (op) {
    case INLINE_CAR: return ev_inline_car;
    case INLINE_CDR: return ev_inline_cdr;
    case INLINE_NULL: return ev_inline_null;
    case INLINE_CONSP: return ev_inline_consp;
    case INLINE_1PLUS: return ev_inline_1plus;
    case INLINE_1MINUS: return ev_inline_1minus;
    case INLINE_ZEROP: return ev_inline_zerop;
    case INLINE_ADD: return ev_inline_add;
    case INLINE_SUB: return ev_inline_sub;
    case INLINE_LT: return ev_inline_lt;
    case INLINE_GT: return ev_inline_gt;
    case INLINE_LE: return ev_inline_le;
    case INLINE_GE: return ev_inline_ge;
    case INLINE_NUMEQ: return ev_inline_numeq;
    case INLINE_EQ: return ev_inline_eq;
    case INLINE_EQL: return ev_inline_eql;
    case INLINE_CONS: return ev_inline_cons;
    case INLINE_MUL: return ev_inline_mul;
    case INLINE_MOD: return ev_inline_mod;
    case INLINE_ADD3: return ev_inline_add3;
    case INLINE_CADR: return ev_inline_cadr;
    case INLINE_CDDR: return ev_inline_cddr;
    case INLINE_CAAR: return ev_inline_caar;
    case INLINE_CDAR: return ev_inline_cdar;
    case INLINE_CADDR: return ev_inline_caddr;
    default: return ev_call_prim;
    }
}

bool call_node_bound(Node *n) {
    for (size_t i = 0; i < sizeof prim_by_count / sizeof *prim_by_count; i++)
        if (n->ev == prim_by_count[i]) return true;
    for (size_t i = 0; i < sizeof inline_ops / sizeof *inline_ops; i++)
        if (n->ev == inline_evaluator(inline_ops[i].op)) return true;
    return false;
}

static void bind_primitive(ACtx *c, CallNode *n) {
    Lisp *L = c->L;
    Obj sym = n->fname;
    if (!is_type(sym, T_SYMBOL) || SYM(sym)->package != L->pkg_cl) return;
    if (SYM(sym)->h.flags & (SYM_MACRO | SYM_SPECIAL_OP)) return;
    Obj fn = SYM(sym)->function;
    if (!is_type(fn, T_PRIMITIVE)) return;
    Primitive *p = PRIM(fn);
    if (n->nargs < p->min_args || (p->max_args >= 0 && n->nargs > p->max_args)) return;
    n->cached = fn;
    n->n.ev = ev_call_prim;
    /* F and at most 6 arguments (ev_funcall, nodes.c) */
    if (n->nargs >= 1 && n->nargs <= 7 && string_equal_cstr(SYM(sym)->name, "FUNCALL")) {
        n->n.ev = ev_funcall;
        return;
    }
    for (size_t i = 0; i < sizeof inline_ops / sizeof *inline_ops; i++) {
        if (inline_ops[i].nargs == n->nargs && string_equal_cstr(SYM(sym)->name, inline_ops[i].name)) {
            n->op = inline_ops[i].op;
            n->n.ev = inline_evaluator(n->op);
            return;
        }
    }
    if (n->nargs < (int)(sizeof prim_by_count / sizeof *prim_by_count)) n->n.ev = prim_by_count[n->nargs];
}

static Node *analyze_call(ACtx *c, Obj form) {
    Lisp *L = c->L;
    Obj head = CAR(form);
    int nargs = list_length_checked(L, CDR(form), form);
    if (nargs > 100000) err_program(L, "Too many arguments in call: %d", nargs);
    /* a global call with few arguments is specialised by their count (nodes.c) */
    static const EvalFn global_by_count[] = {ev_call_global0, ev_call_global1, ev_call_global2, ev_call_global3,
                                             ev_call_global4, ev_call_global5, ev_call_global6};
    static const EvalFn local_by_count[] = {ev_call_local0, ev_call_local1, ev_call_local2, ev_call_local3,
                                            ev_call_local4, ev_call_local5, ev_call_local6};
    enum { SPECIALISED = sizeof global_by_count / sizeof *global_by_count };
    EvalFn local_call = nargs < SPECIALISED ? local_by_count[nargs] : ev_call_node;
    CallNode *n = NEW(c, CallNode, nargs < SPECIALISED ? global_by_count[nargs] : ev_call_global);
    n->nargs = nargs;
    n->args = (Node **)gc_alloc(L, sizeof(Node *) * (size_t)(nargs ? nargs : 1));
    if (is_symbol(head)) {
        ABind *b = lookup_fn(c, head);
        if (b && b->kind == B_FUNC) {
            LocalFnNode *f = NEW(c, LocalFnNode, ev_local_fn);
            add_fixup(c, &f->n, b->var, FX_REF);
            n->fn = &f->n;
            n->n.ev = local_call;
        } else {
            if (head == NIL) err_program(L, "Illegal function call: %S", form);
            n->fname = head;
            xref_note(L, XREF_CALL, head);
        }
    } else if (is_cons(head) && CAR(head) == S(LAMBDA)) {
        n->fn = analyze(c, cons(L, S(FUNCTION), cons(L, head, NIL)));
        n->n.ev = local_call;
    } else {
        err_program(L, "Illegal function call: %S", form);
    }
    int i = 0;
    for (Obj p = CDR(form); p != NIL; p = CDR(p)) n->args[i++] = analyze(c, CAR(p));
    if (warnings_active(c)) {
        if (is_cons(head)) warnings_check_lambda_call(c, head, CDR(form), nargs);
        else if (n->fname != NIL) warnings_check_call(c, n->fname, CDR(form), nargs);
    }
    bind_primitive(c, n);
    EvalFn global = inline_global_variant(n);
    if (global) n->n.ev = global;
    bool in_place = inline_reads_var(n);
    if (nargs == 2 && inline_vv_variant(n->n.ev))
        in_place = args_in_place(n->args[0], n->args[1], ev_lref);
    if (in_place) {
        n->next_var = c->call_vars;
        c->call_vars = n;
    }
    return &n->n;
}

/* Expand a macro call met inside code being analysed. After the boot, an error signalled by the
 * expander does not stop the analysis: as SBCL's compiler does, SYS::%EXPAND-OR-ERROR reports it
 * on *ERROR-OUTPUT* and returns a form that signals a COMPILED-PROGRAM-ERROR when it runs. */
static Obj expand_in_analysis(ACtx *c, Obj expander, Obj form) {
    Lisp *L = c->L;
    Obj env = env_object(c);
    if (L->boot_phase && !c->eager) {   /* not for stdlib code analysed lazily */
        Obj guard = abi_upcall(L, S(P_EXPAND_OR_ERROR));
        Obj r = funcall3(L, guard, expander, form, env);
        L->nvals = 1;
        return r;
    }
    return call_expander(L, expander, form, env);
}

/* Analyse FORM, the expansion of a defining macro, recording its cross-reference under DEF. */
static Node *analyze_definition(ACtx *c, Obj def, Obj form) {
    Obj saved = xref_begin(c->L, def);
    Node *n = analyze(c, form);
    xref_end(c->L, saved);
    return n;
}

/* Whether SYM, as a form here, is a symbol macro (a local one first); its expansion in *OUT. */
static bool symbol_macro_step(ACtx *c, Obj sym, Obj *out) {
    Lisp *L = c->L;
    if (sym == NIL || sym == S(T) || is_keyword(L, sym)) return false;
    ABind *b = lookup_var(c, sym);
    if (b) {
        if (b->kind != B_SYMMACRO) return false;
        *out = b->value;
        return true;
    }
    Obj e = symbol_macro_expansion(L, sym, NIL);
    if (e == NO_VALUE) return false;
    xref_note(L, XREF_REF, sym);
    *out = e;
    return true;
}

static Node *analyze_form(ACtx *c, Obj form);

/* The value of PROP on SYM's property list, or NIL. */
static Obj plist_value(Obj sym, Obj prop) {
    for (Obj p = SYM(sym)->plist; is_cons(p) && is_cons(CDR(p)); p = CDR(CDR(p)))
        if (CAR(p) == prop) return CAR(CDR(p));
    return NIL;
}

/* A call of the global function HEAD with a compiler macro (DEFINE-COMPILER-MACRO): its
 * expansion, as SBCL's compiler uses it, or FORM itself when the macro declines (returns the
 * form), fails (SYS::%COMPILER-MACRO-EXPAND warns and keeps the form), or the function is declared
 * NOTINLINE here or globally. A FUNCALL of #'NAME or 'NAME counts as a call of NAME, and its
 * compiler macro is given the whole FUNCALL form (CLHS 3.2.2.1.3); so is one of #'(SETF NAME),
 * which is how SETF of a place with a setf function expands. Only after the boot: the stdlib has
 * no compiler macros. */
static Obj compiler_macro_step(ACtx *c, Obj head, Obj form) {
    Lisp *L = c->L;
    if (!L->boot_phase || c->eager || !is_type(head, T_SYMBOL)) return form;
    Obj name = head, cm;
    if (head == S(FUNCALL)) {
        Obj f = is_cons(CDR(form)) ? CAR(CDR(form)) : NIL;
        if (!is_cons(f) || (CAR(f) != S(FUNCTION) && CAR(f) != S(QUOTE)) || !is_cons(CDR(f)) || CDR(CDR(f)) != NIL)
            return form;
        name = CAR(CDR(f));
        /* #'NAME names a local function where FLET or LABELS binds NAME ('NAME never does) */
        if (CAR(f) == S(FUNCTION) && lookup_fn(c, name)) return form;
        if (is_type(name, T_SYMBOL)) cm = plist_value(name, S(P_COMPILER_MACRO));
        else if (CAR(f) == S(FUNCTION) && is_cons(name) && CAR(name) == S(SETF) && is_cons(CDR(name)) &&
                 is_type(CAR(CDR(name)), T_SYMBOL) && CDR(CDR(name)) == NIL)
            cm = plist_value(CAR(CDR(name)), S(P_SETF_COMPILER_MACRO));
        else return form;
    } else
        cm = plist_value(head, S(P_COMPILER_MACRO));
    if (!is_function(cm)) return form;
    for (ABind *b = c->env; b; b = b->next)
        if (b->kind == B_DECL_NOTINLINE && fn_name_eq(b->name, name)) {
            if (b->value != NIL) return form;
            goto expand;
        }
    if (is_type(name, T_SYMBOL) && plist_value(name, S(P_NOTINLINE)) != NIL) return form;
expand:;
    Obj fn = SYM(S(P_COMPILER_MACRO_EXPAND))->function;
    if (!is_function(fn)) return form;
    Obj r = funcall3(L, fn, cm, form, env_object(c));
    L->nvals = 1;
    return r;
}

Node *analyze(ACtx *c, Obj form) {
    Lisp *L = c->L;
    /* a definition recorded from forms the reader placed: its notes get their sites */
    if (UNLIKELY(L->form_positions != NIL) && L->xref_caller != NIL && is_cons(form)) {
        Obj outer = xref_site_enter(L, form);
        Node *n = analyze_form(c, form);
        xref_site_leave(L, outer);
        return n;
    }
    return analyze_form(c, form);
}

static Node *analyze_form(ACtx *c, Obj form) {
    Lisp *L = c->L;
    safe_point(L);
    for (;;) {
        if (is_symbol(form)) {
            /* symbol macros expand in this loop, with a safe point each time: one expanding to
             * itself ((define-symbol-macro sm sm) sm) runs to the time limit without using stack */
            Obj e;
            if (!symbol_macro_step(c, form, &e)) return analyze_symbol(c, form);
            form = e;
            safe_point(L);
            continue;
        }
        if (!is_cons(form)) return literal_node(c, form);
        Obj head = CAR(form);
        if (!is_symbol(head)) return analyze_call(c, form);
        ABind *b = lookup_fn(c, head);
        if (b && b->kind == B_FUNC) return analyze_call(c, form);
        if (b && b->kind == B_MACRO) {
            form = expand_in_analysis(c, b->value, form);
            continue;
        }
        if (is_type(head, T_SYMBOL) && (SYM(head)->h.flags & SYM_SPECIAL_OP) && SYM(head)->h.aux)
            return special_op_fn(SYM(head)->h.aux - 1)(c, form);
        if (is_type(head, T_SYMBOL) && (SYM(head)->h.flags & SYM_MACRO) && SYM(head)->function != UNBOUND) {
            Obj def = xref_macro_use(L, head, form);
            form = expand_in_analysis(c, SYM(head)->function, form);
            safe_point(L);
            if (def != NIL) return analyze_definition(c, def, form);
            continue;
        }
        Obj expanded = compiler_macro_step(c, head, form);
        if (expanded != form) { form = expanded; safe_point(L); continue; }
        return analyze_call(c, form);
    }
}

/* ---- finalisation: decide frames, assign slots, resolve references ---- */

static int depth_between(AScope *site, AScope *target) {
    int d = 0;
    for (AScope *s = site; s && s != target; s = s->parent)
        if (s->runtime) d++;
    return d;
}

/* Block/tagbody markers were created without a scope; they live where the block is. */
static void finalize(ACtx *c) {
    /* 1. captures: a variable referenced from another lambda lives in a heap frame,
     * and every lambda between the reference and the binding keeps its environment */
    for (Fixup *f = c->fixups; f; f = f->next) {
        AVar *v = f->var;
        ALambda *site_l = f->site->owner, *var_l = v->scope->owner;
        if (site_l == var_l) continue;
        v->captured = true;
        v->scope->runtime = true;
        v->scope->heap = true;
        for (ALambda *al = site_l; al && al != var_l; al = al->parent) {
            al->needs_env = true;
            if (al != site_l) al->scope->heap = true;
        }
    }
    /* 2. slots, in creation order */
    AVar *rev = NULL;
    for (AVar *v = c->vars; v;) {
        AVar *nx = v->next_all;
        v->next_all = rev;
        rev = v;
        v = nx;
    }
    for (AVar *v = rev; v; v = v->next_all) {
        AScope *rs;
        if (v->scope->is_lambda || v->captured) rs = v->scope;
        else rs = v->scope->owner->scope;
        v->rscope = rs;
        v->slot = rs->nslots++;
    }
    /* a LET with a frame of its own gets a hidden slot in its lambda's frame (LetTrack) */
    for (LetNode *ln = c->lets; ln; ln = ln->next_let) {
        if (ln->n.ev != ev_let || !ln->scope->runtime || ln->scope->nslots == 0) continue;
        ALambda *al = ln->scope->owner;
        if (!al->track_slot) al->track_slot = 1 + al->scope->nslots++;
    }
    /* the names of a lambda frame's variables, for the locals of a backtrace */
    for (AVar *v = rev; v; v = v->next_all) {
        AScope *rs = v->rscope;
        if (!v->is_var || !rs->is_lambda) continue;
        if (!rs->names) {
            rs->names = (Obj *)gc_alloc(c->L, sizeof(Obj) * (size_t)rs->nslots);
            for (int i = 0; i < rs->nslots; i++) rs->names[i] = NIL;
        }
        rs->names[v->slot] = v->name;
    }
    /* 3. references */
    for (Fixup *f = c->fixups; f; f = f->next) {
        AVar *v = f->var;
        int d = depth_between(f->site, v->rscope);
        if (f->kind == FX_REF) v->used = true;
        else if (f->kind == FX_SET) v->assigned = true;
        switch (f->kind) {
        case FX_REF: case FX_SET: {
            Node *n = f->node;
            if (d > 0 && n->ev != ev_local_fn) xref_closure_ref(c, f->site, v);
            if (n->ev == ev_local_fn) { ((LocalFnNode *)n)->depth = d; ((LocalFnNode *)n)->index = v->slot; }
            else {
                VarNode *vn = (VarNode *)n;
                vn->depth = d;
                vn->index = v->slot;
                if (n->ev == ev_lref && d == 0) n->ev = ev_lref0;
                else if (n->ev == ev_lset && d == 0) n->ev = ev_lset0;
            }
            break;
        }
        case FX_EXIT:
            if (f->node->ev == ev_return_nl) { ((ReturnNode *)f->node)->depth = d; ((ReturnNode *)f->node)->index = v->slot; }
            else { ((GoNode *)f->node)->depth = d; ((GoNode *)f->node)->index = v->slot; }
            break;
        case FX_MARK:
            if (f->node->ev == ev_block) {
                BlockNode *bn = (BlockNode *)f->node;
                bn->depth = d; bn->index = v->slot; bn->n.ev = ev_block_nl;
            } else {
                TagbodyNode *tn = (TagbodyNode *)f->node;
                tn->depth = d; tn->index = v->slot; tn->n.ev = ev_tagbody_nl;
            }
            break;
        }
    }
    /* 4. let-like records */
    for (LetNode *ln = c->lets; ln; ln = ln->next_let) {
        AScope *sc = ln->scope;
        int fsize = sc->runtime ? sc->nslots : 0;
        if (ln->n.ev == ev_let) {
            ln->frame_size = fsize;
            if (fsize) {
                ln->track_index = sc->owner->track_slot - 1;
                ln->track_depth = depth_between(sc, sc->owner->scope);
            }
            bool simple = fsize == 0 && !ln->has_special;
            for (int i = 0; i < ln->count; i++) {
                Binding *b = &ln->b[i];
                if (b->special) continue;
                b->depth = depth_between(sc, b->var->rscope);
                b->index = b->var->slot;
                if (b->depth != 0) simple = false;
            }
            if (simple) {
                ln->n.ev = ln->count == 1 ? ev_let_local1 : ev_let_local;
                fuse_psetq(ln);
                if (ln->n.ev == ev_let_local && ln->count == 2) ln->n.ev = ev_let_local2;
            }
            else if (fsize == 0 && ln->count == 1 && ln->b[0].special) ln->n.ev = ev_let_special1;
        } else if (ln->count == -1) {
            ((DBindNode *)ln->body)->frame_size = fsize;
        } else {
            FletNode *fn = (FletNode *)ln->body;
            fn->frame_size = fsize;
            for (int i = 0; i < fn->count; i++) {
                fn->depth[i] = depth_between(sc, fn->vars[i]->rscope);
                fn->index[i] = fn->vars[i]->slot;
            }
        }
    }
    /* 5. lambdas and lambda lists */
    for (Pending *p = c->pending; p; p = p->next) {
        LambdaList *ll = p->ll;
        for (int i = 0; i < ll->nparams; i++) {
            Param *pr = &ll->params[i];
            AVar *v = p->param_vars[i];
            if (v) { pr->slot = v->slot; pr->depth = depth_between(p->bind_scope, v->rscope); }
            AVar *sv = p->svar_vars[i];
            if (sv) { pr->svar_slot = sv->slot; pr->svar_depth = depth_between(p->bind_scope, sv->rscope); }
        }
        if (p->lambda) {
            Lambda *lam = p->lambda;
            lam->nslots = p->al->scope->nslots;
            lam->slot_names = p->al->scope->names;
            lam->track_slot = p->al->track_slot;
            lam->needs_env = p->al->needs_env;
            lam->heap_frame = p->al->scope->heap;
            bool in_order = lam->simple && !lam->heap_frame && lam->nslots >= lam->ll.nparams;
            for (int i = 0; i < lam->ll.nparams && in_order; i++)
                if (lam->ll.params[i].slot != i || lam->ll.params[i].depth != 0) in_order = false;
            lam->direct_args = in_order;
            lam->direct_arity = (uint8_t)(in_order && lam->nslots <= DIRECT_SLOTS ? lam->ll.nreq + 1 : 0);
        }
    }
    /* 6. tests and CAR/CDR of a variable of the current frame read its slot in place */
    for (IfNode *i = c->if_vars; i; i = i->next_var) fuse_if_var(i);
    c->if_vars = NULL;
    for (CallNode *n = c->call_vars; n; n = n->next_var) {
        if (n->nargs == 2 && inline_vv_variant(n->n.ev)) {
            inline_two_in_place(n);
        } else {
            inline_in_place(n);
        }
    }
    c->call_vars = NULL;
    for (Pending *p = c->pending; p; p = p->next)
        if (p->lambda) {
            mark_self_tail_calls(p->lambda);
            self_loop_build(c->L, p->lambda);
        }
    for (TagbodyNode *t = c->loops; t; t = t->next_loop) fuse_loop(t);
    c->loops = NULL;
    /* 7. variables bound and never used: reported last, once the nodes are complete */
    if (warnings_active(c)) warnings_unused(c, rev);
    /* 8. the nodes keep no scope or variable of the analysis (nothing runs with them): they would
     * otherwise keep every variable of the form alive (AVar's NEXT_ALL), and compiled files
     * would hold them */
    for (size_t i = 0; i < c->ndrops; i++) *c->drops[i] = NULL;
    c->ndrops = 0;
    for (LetNode *ln = c->lets, *next; ln; ln = next) {
        next = ln->next_let;
        ln->next_let = NULL;
    }
    c->lets = NULL;
}

/* ---- entry points ---- */

static void ctx_init(ACtx *c, Lisp *L, Obj env) {
    memset(c, 0, sizeof *c);
    c->L = L;
    ALambda *al = (ALambda *)gc_alloc(L, sizeof(ALambda));
    c->lambda = al;
    c->scope = NULL;
    AScope *s = scope_new(c, true);
    al->scope = s;
    c->scope = s;
    c->env = env_binds(env);
}

typedef struct TopNode { Node n; Node *body; int nslots; bool heap; } TopNode;

static Obj run_top(Lisp *L, TopNode *t) {
    int n = t->nslots ? t->nslots : 1;
    Env *e = (Env *)gc_alloc(L, sizeof(Env) + sizeof(Obj) * (size_t)n);
    Obj r = EVAL(L, t->body, e);
    if (r == UNWIND_MARK) err_control(L, "internal: local exit escaped a top-level form");
    return r;
}

static TopNode *analyze_top(Lisp *L, Obj form, Obj env) {
    ACtx c;
    ctx_init(&c, L, env);
    Node *body = analyze(&c, form);
    finalize(&c);
    TopNode *t = (TopNode *)gc_alloc(L, sizeof(TopNode));
    t->body = body;
    t->nslots = c.lambda->scope->nslots;
    return t;
}

void lambda_force(Lisp *L, Lambda *lam) {
    if (lam->lazy == LAZY_NONE) return;
    if (lam->lazy == LAZY_FORCING)
        err_program(L, "The function %S was called while its own definition was being analysed.", lam->name);
    lam->lazy = LAZY_FORCING;
    /* no other thread runs meanwhile: it could call the function being analysed */
    threads_inhibit(L, 1);
    size_t sp = L->special_sp;
    /* as at boot: the definition's package, no user macroexpansion hook */
    bind_special(L, S(PACKAGE_VAR), lam->lazy_package);
    bind_special(L, S(MACROEXPAND_HOOK), S(FUNCALL));
    /* a stdlib function first called while COMPILE-FILE runs is not part of the file */
    Obj cells = fasl_cells_var(L);
    if (cells != NIL) bind_special(L, cells, intern_cstr(L, L->pkg_keyword, "NONE"));
    ACtx c;
    ctx_init(&c, L, NIL);
    c.eager = true;
    Obj xref_saved = xref_begin(L, NIL);   /* stdlib code analysed on its first call is no caller's */
    Frame guard;
    Lambda *volatile full = NULL;
    LISP_UNWIND_PROTECT_BEGIN(L, &guard) {
        Obj src = lam->source;
        full = analyze_lambda(&c, lam->name, CAR(CDR(src)), CDR(CDR(src)), lam->lazy_macro, lam->lazy_block);
        finalize(&c);
    } LISP_UNWIND_PROTECT_EXIT {
        /* an error or an interrupt during the analysis: stay lazy, try again on the next call */
        if (LISP_UNWINDING) lam->lazy = LAZY_PENDING;
        xref_end(L, xref_saved);
        unbind_specials(L, sp);
        threads_inhibit(L, -1);
    } LISP_UNWIND_PROTECT_END;
    full->source = lam->source;
    /* what the analysis started from stays, for xref_analyse_stdlib's second look */
    full->lazy_macro = lam->lazy_macro;
    full->lazy_block = lam->lazy_block;
    full->lazy_package = lam->lazy_package;
    *lam = *full;   /* one struct copy: the closures that share LAM see the analysed function */
}

bool analyze_for_xref(Lisp *L, Lambda *lam, Obj key, Obj location) {
    if (!lam->system || !is_type(lam->lazy_package, T_PACKAGE) || !is_cons(lam->source) || !is_cons(CDR(lam->source)))
        return false;
    size_t sp = L->special_sp;
    bind_special(L, S(PACKAGE_VAR), lam->lazy_package);
    bind_special(L, S(MACROEXPAND_HOOK), S(FUNCALL));
    Obj outer_location = L->source_location;
    L->source_location = location;
    ACtx c;
    ctx_init(&c, L, NIL);
    c.eager = true;
    Obj xref_saved = xref_begin(L, key);
    Frame guard;
    LISP_UNWIND_PROTECT_BEGIN(L, &guard)
        Obj src = lam->source;
        analyze_lambda(&c, lam->name, CAR(CDR(src)), CDR(CDR(src)), lam->lazy_macro, lam->lazy_block);
        finalize(&c);
    LISP_UNWIND_PROTECT_EXIT
        if (LISP_UNWINDING) xref_restore(L, xref_saved);   /* drop the half-made record */
        else xref_end(L, xref_saved);
        L->source_location = outer_location;
        unbind_specials(L, sp);
    LISP_UNWIND_PROTECT_END
    return true;
}

Obj analyze_function(Lisp *L, Obj form, Obj env) {
    /* evaluate FORM (typically (function (lambda ...))) in ENV's macro environment */
    TopNode *t = analyze_top(L, form, env);
    return run_top(L, t);
}

static bool toplevel_op(Lisp *L, Obj head) {
    return head == S(PROGN) || head == S(EVAL_WHEN) || head == S(LOCALLY);
}

Obj lisp_eval(Lisp *L, Obj form) {
    for (;;) {
        safe_point(L);
        if (is_cons(form) && is_type(CAR(form), T_SYMBOL) && (SYM(CAR(form))->h.flags & SYM_MACRO) &&
            !toplevel_op(L, CAR(form))) {
            bool ex;
            Obj def = xref_macro_use(L, CAR(form), form);
            form = macroexpand_1(L, form, NIL, &ex);
            if (def != NIL) {
                Obj saved = xref_begin(L, def);
                Obj r = lisp_eval(L, form);
                xref_end(L, saved);
                return r;
            }
            if (ex) continue;
        }
        break;
    }
    if (is_cons(form) && CAR(form) == S(PROGN)) {
        Obj r = values1(L, NIL);
        for (Obj p = CDR(form); is_cons(p); p = CDR(p)) r = lisp_eval(L, CAR(p));
        return r;
    }
    if (is_cons(form) && CAR(form) == S(EVAL_WHEN) && is_cons(CDR(form))) {
        Obj sits = CAR(CDR(form));
        if (situation_has(L, sits, S(K_EXECUTE), "EVAL"))
            return lisp_eval(L, cons(L, S(PROGN), CDR(CDR(form))));
        return values1(L, NIL);
    }
    /* fast paths for atoms */
    if (is_type(form, T_SYMBOL) && !(SYM(form)->h.flags & SYM_GLOBAL_LEX)) {
        Obj v = SYM(form)->value;
        if (v == UNBOUND) err_unbound_variable(L, form);
        return values1(L, v);
    }
    if (!is_cons(form) && !is_type(form, T_SYMBOL)) return values1(L, form);
    TopNode *t = analyze_top(L, form, NIL);
    return run_top(L, t);
}

/* ---- registration of special operators ---- */

/* Constant data shared by every interpreter (as Janet's janetc_specials[]): eval_init only marks
 * each symbol with its row. A row names its symbol by its symbols.def id, or by its name in
 * SYSTEM when it is tinycl's own (sym < 0). */
static const struct SpecialOp { int sym; const char *sys_name; SpecialFn fn; } special_ops[] = {
    {SY_QUOTE, NULL, an_quote},
    {SY_FUNCTION, NULL, an_function},
    {SY_PROGN, NULL, an_progn},
    {SY_IF, NULL, an_if},
    {SY_LET, NULL, an_let},
    {SY_LETSTAR, NULL, an_let},
    {SY_SETQ, NULL, an_setq},
    {SY_BLOCK, NULL, an_block},
    {SY_RETURN_FROM, NULL, an_return_from},
    {SY_TAGBODY, NULL, an_tagbody},
    {SY_GO, NULL, an_go},
    {SY_CATCH, NULL, an_catch},
    {SY_THROW, NULL, an_throw},
    {SY_UNWIND_PROTECT, NULL, an_unwind_protect},
    {SY_FLET, NULL, an_flet},
    {SY_LABELS, NULL, an_flet},
    {SY_MACROLET, NULL, an_macrolet},
    {SY_SYMBOL_MACROLET, NULL, an_symbol_macrolet},
    {SY_MULTIPLE_VALUE_CALL, NULL, an_mvcall},
    {SY_MULTIPLE_VALUE_PROG1, NULL, an_mvprog1},
    {SY_EVAL_WHEN, NULL, an_eval_when},
    {SY_LOAD_TIME_VALUE, NULL, an_load_time_value},
    {SY_LOCALLY, NULL, an_locally},
    {SY_THE, NULL, an_the},
    {SY_PROGV, NULL, an_progv},
    {-1, "%DESTRUCTURING-BIND", an_dbind},   /* tinycl's own: the analysed core of DESTRUCTURING-BIND */
};

static SpecialFn special_op_fn(int i) { return special_ops[i].fn; }

/* documentation of the special operators eval_init registers (docs.h) */
const DocRow analyze_special_operator_docs[] = {
    {"QUOTE", "(QUOTE object) returns OBJECT itself, unevaluated; 'x is read as (QUOTE x)."},
    {"FUNCTION", "(FUNCTION name) returns the function NAME denotes in the current lexical scope (a symbol, (SETF symbol) or a lambda expression, which makes a closure); #'x is read as (FUNCTION x)."},
    {"PROGN", "Evaluates its forms in order and returns the values of the last one (NIL when there are none)."},
    {"IF", "(IF test then [else]) evaluates TEST, then THEN when it is true or ELSE (default NIL) when it is false, returning that form's values."},
    {"LET", "(LET ((var value)...) body...) evaluates all the values first, then binds each variable to its value and evaluates BODY."},
    {"LET*", "(LET* ((var value)...) body...) binds the variables one after another, so each value form sees the variables bound before it, then evaluates BODY."},
    {"SETQ", "(SETQ var value...) assigns each variable the value of its form, in order, and returns the last value; a symbol macro is assigned as by SETF."},
    {"BLOCK", "(BLOCK name body...) evaluates BODY with a block NAME that RETURN-FROM can exit from with values; otherwise returns the values of the last form."},
    {"RETURN-FROM", "(RETURN-FROM name [result]) leaves the lexically enclosing block NAME at once, returning the values of RESULT (default NIL) from it."},
    {"TAGBODY", "(TAGBODY {tag | statement}...) evaluates the statements in order; symbols and integers among them are tags that GO can jump to. Returns NIL."},
    {"GO", "(GO tag) transfers control to TAG in the lexically enclosing TAGBODY."},
    {"CATCH", "(CATCH tag body...) evaluates BODY; a THROW to the value of TAG (compared with EQ) during that evaluation returns its values from the CATCH."},
    {"THROW", "(THROW tag result) unwinds to the most recent dynamically active CATCH whose tag is EQ to the value of TAG and returns the values of RESULT from it."},
    {"UNWIND-PROTECT", "(UNWIND-PROTECT protected cleanup...) evaluates PROTECTED and returns its values, always running the CLEANUP forms afterwards, even when control leaves by a non-local exit."},
    {"FLET", "(FLET ((name lambda-list body...)...) body...) defines local functions visible in BODY but not in their own definitions."},
    {"LABELS", "(LABELS ((name lambda-list body...)...) body...) defines local functions visible in BODY and in each other's definitions, so they can be recursive."},
    {"MACROLET", "(MACROLET ((name lambda-list body...)...) body...) defines local macros for BODY, written like DEFMACRO."},
    {"SYMBOL-MACROLET", "(SYMBOL-MACROLET ((symbol expansion)...) body...) makes each symbol stand for its expansion form within BODY."},
    {"MULTIPLE-VALUE-CALL", "(MULTIPLE-VALUE-CALL function form...) calls FUNCTION with all the values of every FORM as its arguments."},
    {"MULTIPLE-VALUE-PROG1", "(MULTIPLE-VALUE-PROG1 first form...) evaluates FIRST, then the other forms, and returns all the values of FIRST."},
    {"EVAL-WHEN", "(EVAL-WHEN (situation...) body...) evaluates BODY only in the listed situations, :COMPILE-TOPLEVEL, :LOAD-TOPLEVEL and :EXECUTE; when code is evaluated or loaded from source, only :EXECUTE counts."},
    {"LOAD-TIME-VALUE", "(LOAD-TIME-VALUE form [read-only-p]) evaluates FORM once, when the code containing it is prepared, and returns that same value each time it is reached."},
    {"LOCALLY", "(LOCALLY declaration... body...) evaluates BODY with the declarations in effect, like a PROGN that accepts declarations."},
    {"THE", "(THE type form) returns the values of FORM, declaring that they are of TYPE; tinycl trusts the declaration and does not check it."},
    {"PROGV", "(PROGV symbols values body...) binds the special variables listed by the value of SYMBOLS to the values listed by VALUES, dynamically, while BODY runs; symbols without a value become unbound."},
    {0},
};

void eval_init(Lisp *L) {
    for (size_t i = 0; i < sizeof special_ops / sizeof *special_ops; i++) {
        const struct SpecialOp *op = &special_ops[i];
        Obj sym = op->sym >= 0 ? L->syms[op->sym] : intern_cstr(L, L->pkg_system, op->sys_name);
        SYM(sym)->h.flags |= SYM_SPECIAL_OP;
        SYM(sym)->h.aux = (uint16_t)(i + 1);
    }
}

/* The evaluators this file defines itself, for images (imagetab.h; the others are in nodes.c). */
const EvalDef analyze_evaluators[] = {
    EVALDEF(ev_ltv),
    {0},
};
