/* lambda.c: lambda lists: analysis of ordinary, macro and destructuring lambda lists, and binding at run time. */
#include "warnings.h"
#include "node.h"
#include "snapshot.h"
#include "gc.h"
#include "error.h"
#include "package.h"
#include "lstring.h"
#include "xref.h"
#include "sequence.h"

typedef struct ParamBuf {
    Param *p;
    AVar **vars, **svars;
    int n, cap;
} ParamBuf;

static Param *pb_add(Lisp *L, ParamBuf *b) {
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 8;
        Param *np = (Param *)gc_alloc(L, sizeof(Param) * (size_t)cap);
        AVar **nv = (AVar **)gc_alloc(L, sizeof(AVar *) * (size_t)cap);
        AVar **ns = (AVar **)gc_alloc(L, sizeof(AVar *) * (size_t)cap);
        if (b->n) {
            memcpy(np, b->p, sizeof(Param) * (size_t)b->n);
            memcpy(nv, b->vars, sizeof(AVar *) * (size_t)b->n);
            memcpy(ns, b->svars, sizeof(AVar *) * (size_t)b->n);
        }
        b->p = np; b->vars = nv; b->svars = ns; b->cap = cap;
    }
    Param *p = &b->p[b->n];
    memset(p, 0, sizeof *p);
    p->slot = -1;
    p->svar_slot = -1;
    p->var = NIL;
    p->svar = NIL;
    p->keyword = NIL;
    b->vars[b->n] = NULL;
    b->svars[b->n] = NULL;
    b->n++;
    return p;
}

/* Bind VAR in the analysis environment: special or a fresh lexical variable. */
static AVar *bind_var(ACtx *c, Obj var, Obj decls, Obj ll) {
    Lisp *L = c->L;
    if (!is_type(var, T_SYMBOL) || var == S(T) || is_keyword(L, var))
        err_program(L, "%S is not a valid variable name in lambda list %S", var, ll);
    if (SYM(var)->h.flags & SYM_CONSTANT) err_program(L, "Can't bind the constant %S in lambda list %S", var, ll);
    if (globally_special(L, var) || declared_special(c, decls, var)) {
        ctx_push_bind(c, B_SPECIAL, var, NULL);
        return NULL;
    }
    AVar *v = avar_new(c, var);
    v->is_var = true;
    if (warnings_active(c)) warnings_bind_var(c, v, decls);
    ctx_push_bind(c, B_VAR, var, v);
    return v;
}

static bool is_ll_keyword(Lisp *L, Obj x) {
    return x == S(AND_OPTIONAL) || x == S(AND_REST) || x == S(AND_KEY) || x == S(AND_AUX) ||
           x == S(AND_ALLOW_OTHER_KEYS) || x == S(AND_BODY) || x == S(AND_WHOLE) || x == S(AND_ENVIRONMENT);
}

static LambdaList *parse_ll(ACtx *c, Obj ll, bool is_macro, bool destructuring, Obj decls, Pending **pend_out);

/* A variable position that may hold a nested pattern (macro/destructuring lists). */
static void bind_param_target(ACtx *c, ParamBuf *b, Param *p, int idx, Obj var, bool patterns, Obj decls, Obj ll) {
    /* in a macro or destructuring lambda list, () is an empty pattern rather than a variable */
    if (patterns && is_list(var)) {
        Pending *sub;
        p->pattern = parse_ll(c, var, false, true, decls, &sub);
        p->var = NIL;
        (void)sub;
        return;
    }
    p->var = var;
    b->vars[idx] = bind_var(c, var, decls, ll);
    if (!b->vars[idx]) p->slot = -1;
}

static LambdaList *parse_ll(ACtx *c, Obj ll, bool is_macro, bool destructuring, Obj decls, Pending **pend_out) {
    Lisp *L = c->L;
    enum { ST_REQ, ST_OPT, ST_REST, ST_AFTER_REST, ST_KEY, ST_AUX } st = ST_REQ;
    LambdaList *out = (LambdaList *)gc_alloc(L, sizeof(LambdaList));
    out->source = ll;
    out->is_macro = is_macro;
    ParamBuf b = {0};
    bool patterns = is_macro || destructuring;
    Obj p = ll;
    bool seen_whole = false, seen_env = false;
    if (is_macro) {
        /* the &environment variable is bound before the others, whatever its position, so
         * that init forms can use it (CLHS 3.4.4) */
        for (Obj q = ll; is_cons(q); q = CDR(q)) {
            if (CAR(q) != S(AND_ENVIRONMENT)) continue;
            if (!is_cons(CDR(q))) err_program(L, "&ENVIRONMENT needs a variable: %S", ll);
            int idx = b.n;
            Param *pr = pb_add(L, &b);
            pr->kind = P_ENV;
            bind_param_target(c, &b, pr, idx, CAR(CDR(q)), false, decls, ll);
            break;
        }
    }
    for (; is_cons(p); p = CDR(p)) {
        Obj x = CAR(p);
        stack_check(L);
        if (x == S(AND_WHOLE)) {
            if (!patterns || seen_whole || p != ll || !is_cons(CDR(p)))
                err_program(L, "&WHOLE must appear first in a macro lambda list: %S", ll);
            seen_whole = true;
            p = CDR(p);
            int idx = b.n;
            Param *pr = pb_add(L, &b);
            pr->kind = P_WHOLE;
            bind_param_target(c, &b, pr, idx, CAR(p), true, decls, ll);
            continue;
        }
        if (x == S(AND_ENVIRONMENT)) {
            if (!is_macro || !is_cons(CDR(p))) err_program(L, "&ENVIRONMENT is only allowed in DEFMACRO lambda lists: %S", ll);
            if (seen_env) err_program(L, "More than one &ENVIRONMENT in lambda list: %S", ll);
            seen_env = true;
            p = CDR(p);   /* bound above */
            continue;
        }
        if (x == S(AND_OPTIONAL)) {
            if (st != ST_REQ) err_program(L, "Misplaced &OPTIONAL in lambda list: %S", ll);
            st = ST_OPT;
            continue;
        }
        if (x == S(AND_REST) || x == S(AND_BODY)) {
            if (st > ST_OPT || !is_cons(CDR(p))) err_program(L, "Misplaced %S in lambda list: %S", x, ll);
            if (x == S(AND_BODY) && !patterns) err_program(L, "&BODY is not allowed in an ordinary lambda list: %S", ll);
            p = CDR(p);
            int idx = b.n;
            Param *pr = pb_add(L, &b);
            pr->kind = P_REST;
            out->has_rest = true;
            bind_param_target(c, &b, pr, idx, CAR(p), patterns, decls, ll);
            st = ST_AFTER_REST;
            continue;
        }
        if (x == S(AND_KEY)) {
            if (st > ST_AFTER_REST) err_program(L, "Misplaced &KEY in lambda list: %S", ll);
            st = ST_KEY;
            out->has_key = true;
            continue;
        }
        if (x == S(AND_ALLOW_OTHER_KEYS)) {
            if (st != ST_KEY) err_program(L, "Misplaced &ALLOW-OTHER-KEYS in lambda list: %S", ll);
            out->allow_other_keys = true;
            continue;
        }
        if (x == S(AND_AUX)) {
            if (st == ST_AUX) err_program(L, "Misplaced &AUX in lambda list: %S", ll);
            st = ST_AUX;
            out->has_aux = true;
            continue;
        }
        if (is_ll_keyword(L, x)) err_program(L, "Misplaced %S in lambda list: %S", x, ll);
        int idx = b.n;
        switch (st) {
        case ST_REQ: {
            Param *pr = pb_add(L, &b);
            pr->kind = P_REQ;
            out->nreq++;
            bind_param_target(c, &b, pr, idx, x, patterns, decls, ll);
            break;
        }
        case ST_OPT: case ST_KEY: {
            Param *pr = pb_add(L, &b);
            pr->kind = st == ST_OPT ? P_OPT : P_KEY;
            if (st == ST_OPT) out->nopt++;
            Obj var = x, init = NIL, svar = NIL;
            bool has_init = false;
            if (is_cons(x)) {
                var = CAR(x);
                if (is_cons(CDR(x))) {
                    init = CAR(CDR(x));
                    has_init = true;
                    if (is_cons(CDR(CDR(x)))) svar = CAR(CDR(CDR(x)));
                }
            }
            if (st == ST_KEY) {
                if (is_cons(var)) {
                    if (!is_cons(CDR(var))) err_program(L, "Malformed &KEY parameter %S in %S", x, ll);
                    pr->keyword = CAR(var);
                    var = CAR(CDR(var));
                } else {
                    if (!is_type(var, T_SYMBOL)) err_program(L, "Malformed &KEY parameter %S in %S", x, ll);
                    int s;
                    Obj nm = SYM(var)->name;
                    pr->keyword = package_intern(L, L->pkg_keyword, STR(nm)->data, STR(nm)->len, &s);
                    /* stdlib code analysed after the boot: a reset must keep the keyword */
                    if (c->eager) snapshot_adopt_keyword(L, pr->keyword);
                }
            }
            pr->init = has_init ? analyze(c, init) : NULL;
            bind_param_target(c, &b, pr, idx, var, patterns, decls, ll);
            if (svar != NIL) {
                pr->svar = svar;
                b.svars[idx] = bind_var(c, svar, decls, ll);
            }
            break;
        }
        case ST_AUX: {
            Param *pr = pb_add(L, &b);
            pr->kind = P_AUX;
            Obj var = x, init = NIL;
            bool has_init = false;
            if (is_cons(x)) {
                var = CAR(x);
                if (is_cons(CDR(x))) { init = CAR(CDR(x)); has_init = true; }
            }
            pr->init = has_init ? analyze(c, init) : NULL;
            bind_param_target(c, &b, pr, idx, var, false, decls, ll);
            break;
        }
        case ST_REST: case ST_AFTER_REST:
            err_program(L, "Lambda list element %S after &REST variable in %S", x, ll);
        }
    }
    if (p != NIL) {
        /* dotted: (a b . rest) */
        if (!patterns) err_program(L, "Malformed lambda list (dotted): %S", ll);
        if (st > ST_OPT) err_program(L, "Malformed lambda list: %S", ll);
        int idx = b.n;
        Param *pr = pb_add(L, &b);
        pr->kind = P_REST;
        out->has_rest = true;
        out->dotted_rest = true;
        bind_param_target(c, &b, pr, idx, p, false, decls, ll);
    }
    out->nparams = b.n;
    out->params = b.p;
    if (b.n && b.n < b.cap) {
        /* the parameters take their own size: the buffer's 8 would be most of a compiled file's
         * lambda lists, which are written as they are in memory */
        out->params = (Param *)gc_alloc(L, sizeof(Param) * (size_t)b.n);
        memcpy(out->params, b.p, sizeof(Param) * (size_t)b.n);
    }
    for (int i = 0; i < b.n; i++)
        if ((b.p[i].var != NIL && !b.vars[i] && b.p[i].kind != P_WHOLE) || (b.p[i].svar != NIL && !b.svars[i])) {
            out->has_specials = true;
            xref_note(L, XREF_BIND, b.p[i].var != NIL && !b.vars[i] ? b.p[i].var : b.p[i].svar);
        }
    for (int i = 0; i < b.n; i++)
        if (b.p[i].kind == P_WHOLE && b.p[i].var != NIL && !b.vars[i]) out->has_specials = true;
    Pending *pend = (Pending *)gc_alloc(L, sizeof(Pending));
    pend->ll = out;
    pend->param_vars = b.vars;
    pend->svar_vars = b.svars;
    pend->bind_scope = c->scope;
    pend->next = c->pending;
    c->pending = pend;
    *pend_out = pend;
    return out;
}

LambdaList *analyze_pattern(ACtx *c, Obj pattern, Pending **pend_out, Obj decls) {
    return parse_ll(c, pattern, false, true, decls, pend_out);
}

Lambda *analyze_lambda(ACtx *c, Obj name, Obj llform, Obj body, bool is_macro, Obj block_name) {
    Lisp *L = c->L;
    if (!is_list(llform)) err_program(L, "The lambda list %S is not a list.", llform);
    Lambda *lam = (Lambda *)gc_alloc(L, sizeof(Lambda));
    lam->name = name;
    /* FUNCTION-LAMBDA-EXPRESSION's answer; a function COMPILE-FILE writes has none, as in SBCL:
     * the source forms were a third of a compiled file, which LOAD reads whole */
    lam->source = analysing_for_fasl(L) ? NIL : cons(L, S(LAMBDA), cons(L, llform, body));
    lam->block_name = block_name == NO_VALUE ? NIL : block_name;
    lam->system = !L->boot_phase || c->eager;
    if (!L->boot_phase && !c->eager && c->env == NULL && c->lambda && c->lambda->parent == NULL) {
        /* booting, and nothing lexical is visible: analyse on the first call (lambda_force) */
        Obj decls, doc;
        parse_body(L, body, &decls, &doc, true);
        lam->ll.source = llform;
        lam->ll.is_macro = is_macro;
        lam->doc = doc;
        lam->lazy = LAZY_PENDING;
        lam->lazy_macro = is_macro;
        lam->lazy_block = block_name;
        lam->lazy_package = SYM(S(PACKAGE_VAR))->value;
        return lam;
    }
    ALambda *al = (ALambda *)gc_alloc(L, sizeof(ALambda));
    al->parent = c->lambda;
    AScope *saved_scope = c->scope;
    ALambda *saved_lambda = c->lambda;
    ABind *saved_env = c->env;
    c->lambda = al;
    AScope *ls = (AScope *)gc_alloc(L, sizeof(AScope));
    ls->parent = saved_scope;
    ls->owner = al;
    ls->is_lambda = true;
    ls->runtime = true;
    al->scope = ls;
    c->scope = ls;
    Obj decls, doc;
    Obj forms = parse_body(L, body, &decls, &doc, true);
    Pending *pend;
    LambdaList *ll = parse_ll(c, llform, is_macro, false, decls, &pend);
    lam->ll = *ll;
    pend->ll = &lam->ll;
    pend->lambda = lam;
    pend->al = al;
    pend->bind_scope = ls;
    push_special_decls(c, decls, NIL);
    if (block_name != NO_VALUE && is_symbol(block_name))
        lam->body = analyze(c, cons(L, S(BLOCK), cons(L, block_name, forms)));
    else
        lam->body = analyze_body(c, forms);
    lam->doc = doc;
    lam->simple = !is_macro && lam->ll.nparams == lam->ll.nreq && !lam->ll.has_specials &&
                  !lam->ll.has_key && !lam->ll.has_rest;   /* (&key) alone still takes keys */
    for (int i = 0; i < lam->ll.nparams && lam->simple; i++)
        if (lam->ll.params[i].pattern) lam->simple = false;
    c->scope = saved_scope;
    c->lambda = saved_lambda;
    c->env = saved_env;
    al->lambda = lam;
    return lam;
}

/* ---- binding at run time ---- */

static inline void store_param(Lisp *L, Env *frame, Param *p, Obj v) {
    if (p->slot >= 0) env_up(frame, p->depth)->slots[p->slot] = v;
    else bind_special(L, p->var, v);
}

static inline void store_svar(Lisp *L, Env *frame, Param *p, bool supplied) {
    if (p->svar == NIL) return;
    Obj v = supplied ? S(T) : NIL;
    if (p->svar_slot >= 0) env_up(frame, p->svar_depth)->slots[p->svar_slot] = v;
    else bind_special(L, p->svar, v);
}

static Obj param_init_value(Lisp *L, Param *p, Env *frame) {
    if (!p->init) return NIL;
    Obj v = EVAL(L, p->init, frame);
    return v;
}

static Obj fn_display_name(Obj fn) {
    if (is_type(fn, T_CLOSURE)) return CLOSURE(fn)->name;
    return fn;
}

/* Find KEY in the plist args[start..nargs); NO_VALUE if absent. */
static Obj find_key_arg(int nargs, Obj *args, int start, Obj key) {
    for (int i = start; i + 1 < nargs; i += 2)
        if (args[i] == key) return args[i + 1];
    return NO_VALUE;
}

static void check_keys(Lisp *L, LambdaList *ll, int nargs, Obj *args, int start, Obj fn) {
    if ((nargs - start) % 2) err_program(L, "odd number of &KEY arguments in call to %S", fn_display_name(fn));
    if (ll->allow_other_keys) return;
    Obj aok = find_key_arg(nargs, args, start, S(K_ALLOW_OTHER_KEYS));
    if (aok != NO_VALUE && aok != NIL) return;
    for (int i = start; i < nargs; i += 2) {
        Obj k = args[i];
        if (k == S(K_ALLOW_OTHER_KEYS)) continue;
        bool ok = false;
        for (int j = 0; j < ll->nparams && !ok; j++)
            if (ll->params[j].kind == P_KEY && ll->params[j].keyword == k) ok = true;
        if (!ok) err_program(L, "unknown &KEY argument %S in call to %S", k, fn_display_name(fn));
    }
}

void bind_args(Lisp *L, Lambda *lam, Env *frame, int nargs, Obj *args, Obj fn) {
    LambdaList *ll = &lam->ll;
    int i = 0;
    int key_start = -1;
    if (nargs < ll->nreq || (!ll->has_rest && !ll->has_key && nargs > ll->nreq + ll->nopt))
        err_arg_count(L, fn, nargs);
    for (int k = 0; k < ll->nparams; k++) {
        Param *p = &ll->params[k];
        switch (p->kind) {
        case P_REQ:
            store_param(L, frame, p, args[i++]);
            break;
        case P_OPT:
            if (i < nargs) {
                store_param(L, frame, p, args[i++]);
                store_svar(L, frame, p, true);
            } else {
                store_param(L, frame, p, param_init_value(L, p, frame));
                store_svar(L, frame, p, false);
            }
            break;
        case P_REST: {
            Obj r = NIL;
            for (int j = nargs - 1; j >= i; j--) r = cons(L, args[j], r);
            store_param(L, frame, p, r);
            break;
        }
        case P_KEY: {
            if (key_start < 0) {
                key_start = i;
                check_keys(L, ll, nargs, args, key_start, fn);
            }
            Obj v = find_key_arg(nargs, args, key_start, p->keyword);
            if (v != NO_VALUE) {
                store_param(L, frame, p, v);
                store_svar(L, frame, p, true);
            } else {
                store_param(L, frame, p, param_init_value(L, p, frame));
                store_svar(L, frame, p, false);
            }
            break;
        }
        case P_AUX:
            store_param(L, frame, p, param_init_value(L, p, frame));
            break;
        case P_WHOLE: case P_ENV:
            break;
        }
    }
    if (ll->has_key && key_start < 0) check_keys(L, ll, nargs, args, i < nargs ? i : nargs, fn);
}

_Noreturn static void dbind_error(Lisp *L, Obj fn_name, Obj list, LambdaList *ll, const char *what) {
    err_program(L, "error while parsing arguments to %A: %s in %S to satisfy lambda list %S",
                fn_name, what, list, ll->source);
}

static void bind_target(Lisp *L, Env *frame, Param *p, Obj v, Obj env_obj, Obj fn_name) {
    if (p->pattern) bind_list(L, p->pattern, frame, v, v, env_obj, fn_name);
    else store_param(L, frame, p, v);
}

void bind_list(Lisp *L, LambdaList *ll, Env *frame, Obj list, Obj whole, Obj env_obj, Obj fn_name) {
    stack_check(L);
    Obj rest = list;
    Obj key_plist = NO_VALUE;
    for (int k = 0; k < ll->nparams; k++) {
        Param *p = &ll->params[k];
        switch (p->kind) {
        case P_WHOLE: bind_target(L, frame, p, whole, env_obj, fn_name); break;
        case P_ENV: store_param(L, frame, p, env_obj); break;
        case P_REQ:
            if (!is_cons(rest)) dbind_error(L, fn_name, list, ll, "too few elements");
            bind_target(L, frame, p, CAR(rest), env_obj, fn_name);
            rest = CDR(rest);
            break;
        case P_OPT:
            if (is_cons(rest)) {
                bind_target(L, frame, p, CAR(rest), env_obj, fn_name);
                store_svar(L, frame, p, true);
                rest = CDR(rest);
            } else {
                bind_target(L, frame, p, param_init_value(L, p, frame), env_obj, fn_name);
                store_svar(L, frame, p, false);
            }
            break;
        case P_REST:
            bind_target(L, frame, p, rest, env_obj, fn_name);
            break;
        case P_KEY: {
            if (key_plist == NO_VALUE) {
                key_plist = rest;
                int n = 0;
                Obj x;
                Hare h;   /* a circular keyword list would keep the loops below going for ever */
                hare_init(&h, rest);
                for (x = rest; is_cons(x);) {
                    n++;
                    x = CDR(x);
                    if (is_cons(x) && hare_step_p(L, &h, x)) dbind_error(L, fn_name, list, ll, "circular list");
                }
                if (x != NIL) dbind_error(L, fn_name, list, ll, "dotted list");
                if (n % 2) dbind_error(L, fn_name, list, ll, "odd number of elements in keyword/value list");
                bool aok = ll->allow_other_keys;
                for (x = rest; is_cons(x); x = CDR(CDR(x)))
                    if (CAR(x) == S(K_ALLOW_OTHER_KEYS) && CAR(CDR(x)) != NIL) aok = true;
                if (!aok) {
                    for (x = rest; is_cons(x); x = CDR(CDR(x))) {
                        bool ok = CAR(x) == S(K_ALLOW_OTHER_KEYS);
                        for (int j = 0; j < ll->nparams && !ok; j++)
                            if (ll->params[j].kind == P_KEY && ll->params[j].keyword == CAR(x)) ok = true;
                        if (!ok) err_program(L, "error while parsing arguments to %A: unknown keyword %S in %S",
                                             fn_name, CAR(x), list);
                    }
                }
            }
            Obj found = NO_VALUE;
            for (Obj x = key_plist; is_cons(x) && is_cons(CDR(x)); x = CDR(CDR(x)))
                if (CAR(x) == p->keyword) { found = CAR(CDR(x)); break; }
            if (found != NO_VALUE) {
                bind_target(L, frame, p, found, env_obj, fn_name);
                store_svar(L, frame, p, true);
            } else {
                bind_target(L, frame, p, param_init_value(L, p, frame), env_obj, fn_name);
                store_svar(L, frame, p, false);
            }
            break;
        }
        case P_AUX:
            store_param(L, frame, p, param_init_value(L, p, frame));
            break;
        }
    }
    if (!ll->has_rest && !ll->has_key && rest != NIL) dbind_error(L, fn_name, list, ll, "too many elements");
    if (ll->has_key && key_plist == NO_VALUE && rest != NIL) {
        /* &key present but no key params processed (only &allow-other-keys) */
        intptr_t n = list_length_or_circular(rest);
        if (n < 0) dbind_error(L, fn_name, list, ll, "circular list");
        if (n % 2) dbind_error(L, fn_name, list, ll, "odd number of elements in keyword/value list");
    }
}
