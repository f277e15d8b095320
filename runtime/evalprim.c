/* evalprim.c: the evaluator as Lisp sees it: eval, funcall, apply, values, macros, defun/defmacro, backquote. */
#include "prim.h"
#include "eval.h"
#include "node.h"
#include "package.h"
#include "lstring.h"
#include "hash.h"
#include "sequence.h"
#include "printer.h"
#include "stream.h"
#include "docs.h"
#include "types.h"
#include <stdlib.h>

static Obj list2(Lisp *L, Obj a, Obj b) { return cons(L, a, cons(L, b, NIL)); }
static Obj list3(Lisp *L, Obj a, Obj b, Obj c) { return cons(L, a, cons(L, b, cons(L, c, NIL))); }
static Obj second(Obj l) { return is_cons(l) && is_cons(CDR(l)) ? CAR(CDR(l)) : NIL; }

DEFPRIM(prim_eval) { UNUSED_ARGS; return lisp_eval(L, args[0]); }

DEFPRIM(prim_funcall) { return funcall(L, args[0], nargs - 1, args + 1); }

DEFPRIM(prim_apply) {
    if (nargs == 1) return apply_list(L, args[0], NIL);
    Obj last = args[nargs - 1];
    size_t n = 0;
    Obj x;
    /* the count stops past the limit, so a circular list ends in the error too */
    for (x = last; is_cons(x) && n <= CALL_ARGUMENTS_LIMIT; x = CDR(x)) n++;
    size_t total = (size_t)(nargs - 2) + n;
    if (total > CALL_ARGUMENTS_LIMIT)
        err_program(L, "Too many arguments to APPLY: more than %zu", (size_t)CALL_ARGUMENTS_LIMIT);
    if (x != NIL) err_type(L, last, S(LIST));
    Obj small[32];
    Obj *v = total <= 32 ? small : (Obj *)gc_alloc(L, sizeof(Obj) * total);
    size_t k = 0;
    for (int i = 1; i < nargs - 1; i++) v[k++] = args[i];
    for (x = last; is_cons(x); x = CDR(x)) v[k++] = CAR(x);
    return funcall(L, args[0], (int)total, v);
}

DEFPRIM(prim_values) {
    if (nargs == 1) return values1(L, args[0]);
    if (nargs > MULTIPLE_VALUES_LIMIT) err_program(L, "Too many values: %d", nargs);
    for (int i = 0; i < nargs; i++) L->values[i] = args[i];
    L->nvals = nargs;
    return nargs ? args[0] : NIL;
}

DEFPRIM(prim_values_list) {
    UNUSED_ARGS;
    int n = 0;
    Obj x;
    for (x = args[0]; is_cons(x); x = CDR(x)) {
        if (n >= MULTIPLE_VALUES_LIMIT) err_program(L, "Too many values in VALUES-LIST");
        L->values[n++] = CAR(x);
    }
    if (x != NIL) err_type(L, x, S(LIST));   /* the datum is the atom ending the list, as SBCL */
    L->nvals = n;
    return n ? L->values[0] : NIL;
}

DEFPRIM(prim_macroexpand_1) {
    bool ex;
    Obj r = macroexpand_1(L, args[0], opt_arg(nargs, args, 1, NIL), &ex);
    return values2(L, r, boolean(L, ex));
}

DEFPRIM(prim_macroexpand) {
    bool ex;
    Obj r = macroexpand(L, args[0], opt_arg(nargs, args, 1, NIL), &ex);
    return values2(L, r, boolean(L, ex));
}

DEFPRIM(prim_macro_function) {
    check_symbol(L, args[0]);
    return macro_function(L, args[0], opt_arg(nargs, args, 1, NIL));
}

/* (sys:%set-macro-function symbol function) */
DEFPRIM(prim_pct_set_macro_function) {
    UNUSED_ARGS;
    Obj sym = check_symbol(L, args[0]);
    check_package_lock(L, sym, "defining a macro named");
    Symbol *s = symbol_data(L, sym);
    if (args[1] == NIL) {
        if (s->h.flags & SYM_MACRO) { s->function = UNBOUND; s->h.flags &= (uint8_t)~SYM_MACRO; }
        return NIL;
    }
    check_function(L, args[1]);
    s->function = args[1];
    s->h.flags |= SYM_MACRO;
    return args[1];
}

DEFPRIM(prim_special_operator_p) {
    UNUSED_ARGS;
    return boolean(L, special_operator_p(L, check_symbol(L, args[0])));
}

static Obj check_fname(Lisp *L, Obj name) {
    if (is_symbol(name)) return name;
    if (is_cons(name) && CAR(name) == S(SETF) && is_cons(CDR(name)) && is_symbol(CAR(CDR(name))) && CDR(CDR(name)) == NIL)
        return name;
    err_type(L, name, list3(L, S(OR), S(SYMBOL), list3(L, S(CONS), list2(L, S(MEMBER), S(SETF)), NIL)));
}

DEFPRIM(prim_fboundp) {
    UNUSED_ARGS;
    Obj name = check_fname(L, args[0]);
    if (is_symbol(name) && (symbol_data(L, name)->h.flags & SYM_SPECIAL_OP)) return S(T);
    return boolean(L, fdefinition_get(L, name) != UNBOUND);
}

/* What SYMBOL-FUNCTION and FDEFINITION return for a special operator (CLHS: an
 * implementation-dependent object): a function that refuses to be called. */
DEFPRIM(prim_pct_special_operator_called) {
    UNUSED_ARGS;
    err_program(L, "A special operator cannot be called as a function.");
}

DEFPRIM(prim_fdefinition) {
    UNUSED_ARGS;
    Obj name = check_fname(L, args[0]);
    Obj f = fdefinition_get(L, name);
    if (f == UNBOUND && is_symbol(name) && (symbol_data(L, name)->h.flags & SYM_SPECIAL_OP))
        return SYM(S(P_SPECIAL_OPERATOR_CALLED))->function;
    if (f == UNBOUND) err_undefined_function(L, name);
    return f;
}

/* (sys:%set-fdefinition name function) */
DEFPRIM(prim_pct_set_fdefinition) {
    UNUSED_ARGS;
    Obj name = check_fname(L, args[0]);
    check_package_lock(L, is_cons(name) ? CAR(CDR(name)) : name, "setting the fdefinition of");
    check_function(L, args[1]);
    fdefinition_set(L, name, args[1]);
    return args[1];
}

DEFPRIM(prim_fmakunbound) {
    UNUSED_ARGS;
    Obj name = check_fname(L, args[0]);
    check_package_lock(L, is_cons(name) ? CAR(CDR(name)) : name, "removing the function definition of");
    if (is_symbol(name)) {
        Symbol *s = symbol_data(L, name);
        s->function = UNBOUND;
        s->h.flags &= (uint8_t)~SYM_MACRO;
    } else {
        symbol_data(L, CAR(CDR(name)))->setf_function = UNBOUND;
    }
    return name;
}

/* (sys:%defun name function) */
DEFPRIM(prim_pct_defun) {
    UNUSED_ARGS;
    Obj name = check_fname(L, args[0]);
    Obj base = is_cons(name) ? CAR(CDR(name)) : name;
    check_package_lock(L, base, "defining");
    if (is_symbol(name) && (symbol_data(L, name)->h.flags & SYM_SPECIAL_OP))
        err_program(L, "%S names a special operator and cannot be redefined as a function.", name);
    fdefinition_set(L, name, args[1]);
    Obj hook = SYM(S(P_DEFINITION_HOOK))->value;
    if (is_function(hook)) funcall2(L, hook, S(DEFUN), name);
    return name;
}

/* (sys:%defmacro name expander) */
DEFPRIM(prim_pct_defmacro) {
    UNUSED_ARGS;
    Obj name = check_symbol(L, args[0]);
    check_package_lock(L, name, "defining a macro named");
    if (symbol_data(L, name)->h.flags & SYM_SPECIAL_OP)
        err_program(L, "%S names a special operator and cannot be redefined as a macro.", name);
    Symbol *s = symbol_data(L, name);
    s->function = args[1];
    s->h.flags |= SYM_MACRO;
    Obj hook = SYM(S(P_DEFINITION_HOOK))->value;
    if (is_function(hook)) funcall2(L, hook, S(DEFMACRO), name);
    return name;
}

DEFPRIM(prim_functionp) { UNUSED_ARGS; return boolean(L, is_function(args[0])); }
DEFPRIM(prim_compiled_function_p) { UNUSED_ARGS; return boolean(L, is_function(args[0])); }

DEFPRIM(prim_compile) {
    Obj name = args[0];
    Obj def = opt_arg(nargs, args, 1, NO_VALUE);
    Obj fn;
    if (def == NO_VALUE) {
        if (name == NIL) err_simple(L, "COMPILE needs a definition when NAME is NIL.");
        fn = macro_function(L, name, NIL);
        if (fn == NIL) {
            fn = fdefinition_get(L, check_fname(L, name));
            if (fn == UNBOUND) err_undefined_function(L, name);
        }
    } else {
        fn = is_function(def) ? def : lisp_eval(L, list2(L, S(FUNCTION), def));
        if (name != NIL) {
            if (is_symbol(name) && (symbol_data(L, name)->h.flags & SYM_MACRO)) symbol_data(L, name)->function = fn;
            else fdefinition_set(L, check_fname(L, name), fn);
        }
    }
    return values3(L, name != NIL ? name : fn, NIL, NIL);
}

DEFPRIM(prim_function_lambda_expression) {
    UNUSED_ARGS;
    Obj fn = check_function(L, args[0]);
    if (is_type(fn, T_CLOSURE)) {
        Closure *c = CLOSURE(fn);
        return values3(L, c->env ? NIL : c->lambda->source, boolean(L, c->env != NULL), c->name);
    }
    if (is_type(fn, T_PRIMITIVE)) return values3(L, NIL, NIL, PRIM(fn)->name);
    return values3(L, NIL, S(T), NIL);
}

/* (sys:%function-lambda-list fn) -> the lambda list as written, or :unknown */
DEFPRIM(prim_pct_function_lambda_list) {
    UNUSED_ARGS;
    Obj fn = args[0];
    if (is_type(fn, T_CLOSURE)) return CLOSURE(fn)->lambda->ll.source;
    if (is_type(fn, T_PRIMITIVE) && PRIM(fn)->lambda_list) {
        Obj s = string_from_cstr(L, PRIM(fn)->lambda_list);
        bind_special(L, S(PACKAGE_VAR), L->pkg_system);
        size_t sp = L->special_sp - 1;
        Obj r = funcall1(L, intern_cstr(L, L->pkg_cl, "READ-FROM-STRING"), s);
        unbind_specials(L, sp);
        L->nvals = 1;
        return r;
    }
    return keyword(L, "UNKNOWN");
}

DEFPRIM(prim_pct_function_name) {
    UNUSED_ARGS;
    Obj fn = args[0];
    if (is_type(fn, T_CLOSURE)) return CLOSURE(fn)->name;
    if (is_type(fn, T_PRIMITIVE)) return PRIM(fn)->name;
    return NIL;
}

DEFPRIM(prim_pct_function_documentation) {
    UNUSED_ARGS;
    Obj fn = args[0];
    if (is_type(fn, T_CLOSURE)) return CLOSURE(fn)->lambda->doc;
    if (is_type(fn, T_PRIMITIVE) && PRIM(fn)->doc) return string_from_cstr(L, PRIM(fn)->doc);
    return NIL;
}

/* (sys:%set-function-name fn name) */
DEFPRIM(prim_pct_set_function_name) {
    UNUSED_ARGS;
    if (is_type(args[0], T_CLOSURE)) CLOSURE(args[0])->name = args[1];
    return args[0];
}

/* (sys:%toplevel-abort condition): the end of an unhandled error; unwinds to the top level. */
DEFPRIM(prim_pct_toplevel_abort) {
    UNUSED_ARGS;
    L->last_error = args[0];
    L->error_depth = 0;
    if (nargs > 1) L->last_backtrace = args[1];
    Frame *top = frame_toplevel(L);
    if (!top) {
        fprintf(stderr, "tinycl: unhandled condition: %s\n", error_describe_bootstrap(L, args[0]));
        exit(70);
    }
    unwind_to(L, top, JUMP_ERROR);
}

/* The name a backtrace shows for a call record's function. */
static Obj call_record_name(Lisp *L, CallRecord *r) {
    Obj fnname = is_type(r->fn, T_CLOSURE) ? CLOSURE(r->fn)->name : is_type(r->fn, T_PRIMITIVE) ? PRIM(r->fn)->name : r->fn;
    if (fnname == NIL && is_type(r->fn, T_CLOSURE)) fnname = cons(L, S(LAMBDA), cons(L, CLOSURE(r->fn)->lambda->ll.source, NIL));
    return fnname;
}

/* Where the user's frames end: the session's evaluation of a top-level form, or the REPL
 * debugger's evaluation of a line typed at its prompt. */
static bool backtrace_boundary(Lisp *L, Obj fnname) {
    if (fnname == S(P_SESSION_EVAL)) return true;
    return is_symbol(fnname) && SYM(fnname)->package == L->pkg_system && string_equal_cstr(SYM(fnname)->name, "%DEBUGGER-EVAL");
}

/* The lexical variables of an interpreted call's frame that are bound now (parameters, then LET
 * and LET* variables and the like in the order they appear) with their current values, as
 * ((var . value) ...). A slot holds 0 until its variable is bound and again once a LET's body
 * is left; then the variables of the LETs that have frames of their own (a closure captured one
 * of their variables) and are entered, outermost first, found through the frame's LetTrack chain. */
static Obj call_record_locals(Lisp *L, CallRecord *r) {
    if (!r->env || !is_type(r->fn, T_CLOSURE)) return NIL;
    Lambda *lam = CLOSURE(r->fn)->lambda;
    if (lam->lazy || !lam->slot_names) return NIL;
    Env *e = (Env *)r->env;
    Obj head = NIL, tail = NIL;
    for (int i = 0; i < lam->nslots; i++) {
        Obj var = lam->slot_names[i], v = e->slots[i];
        if (var == NIL || v == OBJ(0) || v == UNWIND_MARK) continue;
        Obj cell = cons(L, cons(L, var, v), NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        tail = cell;
    }
    if (lam->track_slot && lam->track_slot <= lam->nslots && e->slots[lam->track_slot - 1] != OBJ(0)) {
        LetTrack *chain[64];   /* innermost first; shown outermost first */
        int n = 0;
        for (LetTrack *t = (LetTrack *)e->slots[lam->track_slot - 1]; t && n < 64; t = t->prev) chain[n++] = t;
        while (n-- > 0) {
            LetNode *ln = chain[n]->let;
            for (int i = 0; i < ln->count; i++) {
                Binding *b = &ln->b[i];
                if (b->special || b->depth != 0 || !is_type(b->sym, T_SYMBOL) || SYM(b->sym)->package == NIL)
                    continue;   /* (nor a macro's gensym) */
                Obj v = chain[n]->env->slots[b->index];
                if (v == OBJ(0) || v == UNWIND_MARK) continue;
                Obj cell = cons(L, cons(L, b->sym, v), NIL);
                if (tail == NIL) head = cell; else CDR(tail) = cell;
                tail = cell;
            }
        }
    }
    return head;
}

/* The active calls, innermost first: (name . args) each, or with LOCALS ((name . args) . locals). */
static Obj capture_frames(Lisp *L, int limit, bool locals) {
    Obj head = NIL, tail = NIL, before_tail = NIL;
    int n = 0;
    for (CallRecord *r = L->calls; r && n < limit; r = callrec_prev(r), n++) {
        Obj fnname = call_record_name(L, r);
        if (backtrace_boundary(L, fnname)) {
            /* the EVAL through which the session ran the form is the session's, not the user's */
            Obj last = tail != NIL ? CAR(CAR(tail)) : NIL;
            if (locals && is_cons(last)) last = CAR(last);
            if (tail != NIL && last == S(EVAL)) {
                if (before_tail == NIL) head = NIL; else CDR(before_tail) = NIL;
            }
            break;
        }
        Obj a = NIL;
        int na = callrec_nargs(r);
        Obj *args = callrec_args(r);
        if (na > 16) na = 16;
        for (int i = na - 1; i >= 0; i--) a = cons(L, args[i], a);
        Obj frame = cons(L, fnname, a);
        if (locals) frame = cons(L, frame, call_record_locals(L, r));
        Obj cell = cons(L, frame, NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        before_tail = tail;
        tail = cell;
    }
    return head;
}

Obj capture_backtrace(Lisp *L, int limit) { return capture_frames(L, limit, false); }

void session_warning_add(Lisp *L, Obj type, Obj message) {
    /* (type message line column file): where the top-level form being evaluated began, in the
     * session's code (FILE NIL) or in a file being loaded */
    Obj entry = cons(L, type, cons(L, message, cons(L, FIX(L->form_line), cons(L, FIX(L->form_column), cons(L, L->form_file, NIL)))));
    L->session_warnings = cons(L, entry, L->session_warnings);
}

/* (sys:%session-note-warning type message): record a warning for the session's result */
DEFPRIM(prim_pct_session_note_warning) {
    UNUSED_ARGS;
    Obj type = args[0];
    session_warning_add(L, is_string(type) ? type : prin1_to_string(L, type), check_string(L, args[1]));
    return NIL;
}

/* (sys:%read-line-interactive prompt) -> a line typed by the user, or NIL at end of input or when
 * there is no interactive terminal (the REPL installs the hook) */
DEFPRIM(prim_pct_read_line_interactive) {
    UNUSED_ARGS;
    if (!L->read_line_hook) return NIL;
    char *prompt = string_to_utf8(L, check_string(L, args[0]), NULL);
    /* flush Lisp output so that it appears before the prompt */
    Obj out = SYM(S(STANDARD_OUTPUT))->value;
    if (is_stream(out)) stream_finish_output(L, out);
    char *line = L->read_line_hook(L->read_line_ctx, prompt);
    if (!line) return NIL;
    Obj r = string_from_cstr(L, line);
    free(line);
    return r;
}

/* (sys:%session-abort): the ABORT restart of a top-level form */
DEFPRIM(prim_pct_session_abort) {
    UNUSED_ARGS;
    L->last_error = keyword(L, "ABORT");
    L->last_backtrace = NIL;
    Frame *top = frame_toplevel(L);
    if (!top) exit(1);
    unwind_to(L, top, JUMP_ERROR);
}

/* (sys:%backtrace &optional (limit 20)) -> list of (name . args) for active interpreted calls */
DEFPRIM(prim_pct_backtrace) {
    intptr_t limit = nargs > 0 ? check_fixnum(L, args[0]) : 20;
    return capture_backtrace(L, (int)limit);
}

/* (sys:%backtrace-locals &optional (limit 20)) -> list of ((name . args) . ((var . value) ...)) */
DEFPRIM(prim_pct_backtrace_locals) {
    intptr_t limit = nargs > 0 ? check_fixnum(L, args[0]) : 20;
    return capture_frames(L, (int)limit, true);
}

/* (sys:%trace-caller-system-p): called by a TRACE wrapper, whether the call it wraps was made by
 * tinycl's own Lisp code (the nearest interpreted function below the wrapper is a system one), so
 * that tracing CAR shows the user's calls only, as in SBCL, where the system's code is compiled
 * and never goes through the traced definition. A call from a top-level form (of the session, EVAL
 * or LOAD) is the user's. */
DEFPRIM(prim_pct_trace_caller_system_p) {
    UNUSED_ARGS;
    CallRecord *r = L->calls;
    while (r && !is_type(r->fn, T_CLOSURE)) r = callrec_prev(r);   /* this primitive's own record */
    if (r) r = callrec_prev(r);                                     /* the wrapper's */
    for (; r; r = callrec_prev(r)) {
        if (backtrace_boundary(L, call_record_name(L, r))) return NIL;
        if (is_type(r->fn, T_PRIMITIVE)) {
            /* EVAL and LOAD's loop run the user's forms */
            Obj pn = PRIM(r->fn)->name;
            if (pn == S(EVAL) || (is_symbol(pn) && SYM(pn)->package == L->pkg_system && string_equal_cstr(SYM(pn)->name, "%LOAD-STREAM")))
                return NIL;
            continue;
        }
        if (is_type(r->fn, T_CLOSURE)) return boolean(L, CLOSURE(r->fn)->lambda->system);
    }
    return NIL;
}

DEFPRIM(prim_proclaim) {
    UNUSED_ARGS;
    Obj spec = args[0];
    if (!is_cons(spec)) err_type(L, spec, S(CONS));
    proper_list_length(L, spec);   /* a dotted or circular specifier is a TYPE-ERROR */
    if ((CAR(spec) == S(TYPE) || CAR(spec) == S(FTYPE)) && !is_cons(CDR(spec)))
        err_program(L, "Malformed declaration specifier: %S", spec);
    if (CAR(spec) == S(SPECIAL)) {
        for (Obj l = CDR(spec); is_cons(l); l = CDR(l)) {
            Obj s = check_symbol(L, CAR(l));
            if (s != NIL) SYM(s)->h.flags |= SYM_SPECIAL;
        }
    }
    if (CAR(spec) == S(DECLARATION))
        for (Obj l = CDR(spec); is_cons(l); l = CDR(l)) type_proclaim_declaration(L, check_symbol(L, CAR(l)));
    if (CAR(spec) == S(NOTINLINE) || CAR(spec) == S(INLINE)) {
        /* a global NOTINLINE keeps the analysis from expanding the function's compiler macro */
        Obj value = CAR(spec) == S(NOTINLINE) ? S(T) : NIL;
        for (Obj l = CDR(spec); is_cons(l); l = CDR(l)) {
            if (!is_type(CAR(l), T_SYMBOL)) continue;   /* (setf f): its compiler macro is not expanded anyway */
            Symbol *s = SYM(CAR(l));
            bool found = false;
            for (Obj p = s->plist; is_cons(p) && is_cons(CDR(p)); p = CDR(CDR(p)))
                if (CAR(p) == S(P_NOTINLINE)) { CAR(CDR(p)) = value; found = true; break; }
            if (!found && value != NIL) s->plist = cons(L, S(P_NOTINLINE), cons(L, value, s->plist));
        }
    }
    return NIL;
}

DEFPRIM(prim_identity) { UNUSED_ARGS; return args[0]; }

/* ---- macros implemented in C: the ones the stdlib needs before it can define macros ---- */

/* (defun name lambda-list . body) =>
 *   (progn (eval-when (:compile-toplevel) (sys:%compiler-defun 'name)) (sys:%defun 'name #'(named-lambda ...)))
 * COMPILE-FILE notes the name as defined by the file (no undefined-function warning) without
 * defining it: the function exists once the file is loaded (CLHS DEFUN). */
DEFPRIM(mac_defun) {
    UNUSED_ARGS;
    Obj form = args[0];
    if (!is_cons(CDR(form)) || !is_cons(CDR(CDR(form)))) err_program(L, "Malformed DEFUN: %S", form);
    Obj name = CAR(CDR(form));
    Obj rest = CDR(CDR(form));
    Obj quoted = list2(L, S(QUOTE), name);
    Obj lam = cons(L, S(NAMED_LAMBDA), cons(L, name, rest));
    Obj note = list3(L, S(EVAL_WHEN), cons(L, S(K_COMPILE_TOPLEVEL), NIL), list2(L, S(P_COMPILER_DEFUN), quoted));
    return list3(L, S(PROGN), note, list3(L, S(P_DEFUN), quoted, list2(L, S(FUNCTION), lam)));
}

/* (defmacro name lambda-list . body) =>
 *   (eval-when (:compile-toplevel :load-toplevel :execute) (sys:%defmacro 'name #'(macro-lambda ...)))
 * so that the rest of a file COMPILE-FILE processes can use the macro (CLHS 3.2.3.1.1). */
DEFPRIM(mac_defmacro) {
    UNUSED_ARGS;
    Obj form = args[0];
    if (!is_cons(CDR(form)) || !is_cons(CDR(CDR(form))) || !is_symbol(CAR(CDR(form))))
        err_program(L, "Malformed DEFMACRO: %S", form);
    Obj name = CAR(CDR(form));
    Obj lam = cons(L, S(MACRO_LAMBDA), cons(L, name, CDR(CDR(form))));
    Obj def = list3(L, S(P_DEFMACRO), list2(L, S(QUOTE), name), list2(L, S(FUNCTION), lam));
    return list3(L, S(EVAL_WHEN), list3(L, S(K_COMPILE_TOPLEVEL), S(K_LOAD_TOPLEVEL), S(K_EXECUTE)), def);
}

/* (lambda lambda-list . body) => #'(lambda ...) */
DEFPRIM(mac_lambda) {
    UNUSED_ARGS;
    return list2(L, S(FUNCTION), args[0]);
}

/* ---- backquote ---- */

static bool is_qq_form(Obj x, Obj head) { return is_cons(x) && CAR(x) == head && is_cons(CDR(x)) && CDR(CDR(x)) == NIL; }

static bool self_evaluating(Lisp *L, Obj x) {
    if (x == NIL || x == S(T)) return true;
    if (is_type(x, T_SYMBOL)) return is_keyword(L, x);
    return !is_cons(x);
}

static Obj qq(Lisp *L, Obj x, int level);

static Obj qq_list(Lisp *L, Obj x, int level) {
    Obj parts = NIL;      /* reversed list of part forms */
    Obj items = NIL;      /* reversed items of the current (list ...) part */
    bool items_open = false;
    Obj p = x;
    while (is_cons(p)) {
        if (CAR(p) == S(UNQUOTE) && is_qq_form(p, S(UNQUOTE))) break;         /* dotted ,y tail */
        if (CAR(p) == S(QUASIQUOTE) && is_qq_form(p, S(QUASIQUOTE))) break;
        Obj e = CAR(p);
        if ((is_qq_form(e, S(UNQUOTE_SPLICING)) || is_qq_form(e, S(UNQUOTE_NSPLICING))) && level == 0) {
            if (items_open) {
                Obj r = NIL;
                for (Obj i = items; i != NIL; i = CDR(i)) r = cons(L, CAR(i), r);
                parts = cons(L, cons(L, S(LIST), r), parts);
                items = NIL;
                items_open = false;
            }
            parts = cons(L, second(e), parts);
        } else if (level == 1 && (is_qq_form(e, S(UNQUOTE)) || is_qq_form(e, S(UNQUOTE_SPLICING))) &&
                   (is_qq_form(second(e), S(UNQUOTE_SPLICING)) || is_qq_form(second(e), S(UNQUOTE_NSPLICING)))) {
            /* ,,@x or ,@,@x: one inner unquote per element of x */
            if (items_open) {
                Obj r = NIL;
                for (Obj i = items; i != NIL; i = CDR(i)) r = cons(L, CAR(i), r);
                parts = cons(L, cons(L, S(LIST), r), parts);
                items = NIL;
                items_open = false;
            }
            parts = cons(L, list3(L, S(P_QQ_WRAP), list2(L, S(QUOTE), CAR(e)), second(second(e))), parts);
        } else {
            Obj item;
            if (is_qq_form(e, S(UNQUOTE_SPLICING)) || is_qq_form(e, S(UNQUOTE_NSPLICING)))
                item = list3(L, S(LIST), list2(L, S(QUOTE), CAR(e)), qq(L, second(e), level - 1));
            else
                item = qq(L, e, level);
            items = cons(L, item, items);
            items_open = true;
        }
        p = CDR(p);
    }
    /* reverse items into a (list ...) part */
    if (items_open) {
        Obj r = NIL;
        for (Obj i = items; i != NIL; i = CDR(i)) r = cons(L, CAR(i), r);
        parts = cons(L, cons(L, S(LIST), r), parts);
    }
    Obj tail = p == NIL ? NO_VALUE : qq(L, p, level);
    /* parts is reversed */
    Obj fwd = NIL;
    int nparts = 0;
    for (Obj i = parts; i != NIL; i = CDR(i)) { fwd = cons(L, CAR(i), fwd); nparts++; }
    if (nparts == 0) return tail == NO_VALUE ? NIL : tail;
    if (nparts == 1 && is_cons(CAR(fwd)) && CAR(CAR(fwd)) == S(LIST) && fwd != NIL) {
        Obj lst = CAR(fwd);
        if (tail == NO_VALUE) return lst;
        /* (list* a b tail) */
        Obj args2 = NIL, t2 = NIL;
        for (Obj i = CDR(lst); i != NIL; i = CDR(i)) {
            Obj c = cons(L, CAR(i), NIL);
            if (t2 == NIL) args2 = c; else CDR(t2) = c;
            t2 = c;
        }
        CDR(t2) = cons(L, tail, NIL);
        return cons(L, S(LISTSTAR), args2);
    }
    Obj r = cons(L, S(APPEND), fwd);
    if (tail != NO_VALUE) {
        Obj last = r;
        while (CDR(last) != NIL) last = CDR(last);
        CDR(last) = cons(L, tail, NIL);
    } else if (nparts == 1) {
        /* `(,@x) copies x */
        CDR(CDR(r)) = cons(L, NIL, NIL);
    }
    return r;
}

static Obj qq(Lisp *L, Obj x, int level) {
    stack_check(L);
    if (!is_cons(x)) {
        if (is_type(x, T_VECTOR)) {
            Obj lst = NIL;
            for (size_t i = VEC(x)->len; i > 0; i--) lst = cons(L, VEC(x)->data[i - 1], lst);
            return list3(L, S(APPLY), list2(L, S(FUNCTION), S(VECTOR)), qq_list(L, lst, level));
        }
        return self_evaluating(L, x) ? x : list2(L, S(QUOTE), x);
    }
    if (is_qq_form(x, S(UNQUOTE))) {
        if (level == 0) return second(x);
        return list3(L, S(LIST), list2(L, S(QUOTE), S(UNQUOTE)), qq(L, second(x), level - 1));
    }
    if (is_qq_form(x, S(QUASIQUOTE)))
        return list3(L, S(LIST), list2(L, S(QUOTE), S(QUASIQUOTE)), qq(L, second(x), level + 1));
    if ((is_qq_form(x, S(UNQUOTE_SPLICING)) || is_qq_form(x, S(UNQUOTE_NSPLICING))) && level == 0)
        err_simple(L, ",@ or ,. after backquote in %S", x);
    return qq_list(L, x, level);
}

/* (sys:%qq-wrap head list) => ((head x1) (head x2) ...) */
DEFPRIM(prim_pct_qq_wrap) {
    UNUSED_ARGS;
    Obj head = NIL, tail = NIL;
    for (Obj x = args[1]; is_cons(x); x = CDR(x)) {
        Obj c = cons(L, list2(L, args[0], CAR(x)), NIL);
        if (tail == NIL) head = c; else CDR(tail) = c;
        tail = c;
    }
    return head;
}

DEFPRIM(mac_quasiquote) {
    UNUSED_ARGS;
    Obj form = args[0];
    if (!is_qq_form(form, S(QUASIQUOTE))) err_program(L, "Malformed backquote form: %S", form);
    return qq(L, second(form), 0);
}

const PrimDef evalprim_prims[] = {
    {"EVAL", PK_CL, prim_eval, 1, 1, FN_MV, "(form)", "Evaluates FORM in the current dynamic environment and the null lexical environment and returns its values."},
    {"FUNCALL", PK_CL, prim_funcall, 1, REST, FN_MV, "(function &rest arguments)", "Call FUNCTION with ARGUMENTS."},
    {"APPLY", PK_CL, prim_apply, 1, REST, FN_MV, "(function &rest arguments)", "Calls FUNCTION with ARGUMENTS, the last of which is a list whose elements are passed as further arguments."},
    {"VALUES", PK_CL, prim_values, 0, REST, FN_MV, "(&rest objects)", "Return OBJECTS as multiple values."},
    {"VALUES-LIST", PK_CL, prim_values_list, 1, 1, FN_MV, "(list)", "Return the elements of LIST as multiple values."},
    {"MACROEXPAND-1", PK_CL, prim_macroexpand_1, 1, 2, FN_MV, "(form &optional env)", "Expands FORM once in ENV if it is a macro form or symbol macro; returns the expansion and whether it expanded."},
    {"MACROEXPAND", PK_CL, prim_macroexpand, 1, 2, FN_MV, "(form &optional env)", "Expands FORM repeatedly in ENV until it is no longer a macro form; returns the expansion and whether any expansion happened."},
    {"MACRO-FUNCTION", PK_CL, prim_macro_function, 1, 2, 0, "(symbol &optional environment)", "The expander function of the macro named SYMBOL in ENVIRONMENT, or NIL when SYMBOL does not name a macro; SETF-able."},
    {"%SET-MACRO-FUNCTION", PK_SYS, prim_pct_set_macro_function, 2, 2, 0, "(symbol function)", NULL},
    {"SPECIAL-OPERATOR-P", PK_CL, prim_special_operator_p, 1, 1, 0, "(symbol)", "True when SYMBOL names a special operator."},
    {"FBOUNDP", PK_CL, prim_fboundp, 1, 1, 0, "(name)", "True when NAME (a symbol or a list (SETF symbol)) has a global function, macro or special operator definition."},
    {"FDEFINITION", PK_CL, prim_fdefinition, 1, 1, 0, "(name)", "The global function named NAME (a symbol or (SETF symbol)); SETF-able."},
    {"%SPECIAL-OPERATOR-CALLED", PK_SYS, prim_pct_special_operator_called, 0, REST, 0, "(&rest args)", NULL},
    {"%SET-FDEFINITION", PK_SYS, prim_pct_set_fdefinition, 2, 2, 0, "(name function)", NULL},
    {"FMAKUNBOUND", PK_CL, prim_fmakunbound, 1, 1, 0, "(name)", "Removes the global function or macro definition of NAME and returns NAME."},
    {"%DEFUN", PK_SYS, prim_pct_defun, 2, 2, 0, "(name function)", NULL},
    {"%DEFMACRO", PK_SYS, prim_pct_defmacro, 2, 2, 0, "(name expander)", NULL},
    {"FUNCTIONP", PK_CL, prim_functionp, 1, 1, 0, "(object)", "True when OBJECT is a function."},
    {"COMPILED-FUNCTION-P", PK_CL, prim_compiled_function_p, 1, 1, 0, "(object)", "True when OBJECT is a compiled function; in tinycl every function object is one."},
    {"COMPILE", PK_CL, prim_compile, 1, 2, FN_MV, "(name &optional definition)", "Makes DEFINITION (a lambda expression or function) a function, installed as NAME's global definition when NAME is not NIL; without DEFINITION, NAME's own definition is used. tinycl analyses code when it is defined, so nothing else happens. Returns the function (NAME when NAME is given), NIL and NIL."},
    {"FUNCTION-LAMBDA-EXPRESSION", PK_CL, prim_function_lambda_expression, 1, 1, FN_MV, "(function)", "Three values describing FUNCTION: its lambda expression or NIL, whether it closes over a non-null lexical environment, and its name."},
    {"%FUNCTION-LAMBDA-LIST", PK_SYS, prim_pct_function_lambda_list, 1, 1, 0, "(function)", NULL},
    {"%FUNCTION-NAME", PK_SYS, prim_pct_function_name, 1, 1, 0, "(function)", NULL},
    {"%FUNCTION-DOCUMENTATION", PK_SYS, prim_pct_function_documentation, 1, 1, 0, "(function)", NULL},
    {"%SET-FUNCTION-NAME", PK_SYS, prim_pct_set_function_name, 2, 2, 0, "(function name)", NULL},
    {"%TOPLEVEL-ABORT", PK_SYS, prim_pct_toplevel_abort, 1, 2, 0, "(condition &optional backtrace)", NULL},
    {"%SESSION-NOTE-WARNING", PK_SYS, prim_pct_session_note_warning, 2, 2, 0, "(type message)", NULL},
    {"%READ-LINE-INTERACTIVE", PK_SYS, prim_pct_read_line_interactive, 1, 1, 0, "(prompt)", NULL},
    {"%SESSION-ABORT", PK_SYS, prim_pct_session_abort, 0, 0, 0, "()", NULL},
    {"%BACKTRACE", PK_SYS, prim_pct_backtrace, 0, 1, 0, "(&optional limit)", NULL},
    {"%TRACE-CALLER-SYSTEM-P", PK_SYS, prim_pct_trace_caller_system_p, 0, 0, 0, "()",
     "Whether the call a TRACE wrapper is running was made by tinycl's own code."},
    {"%BACKTRACE-LOCALS", PK_SYS, prim_pct_backtrace_locals, 0, 1, 0, "(&optional limit)",
     "The active calls, innermost first, each as ((name . arguments) . ((variable . value) ...)): the local variables bound now."},
    {"PROCLAIM", PK_CL, prim_proclaim, 1, 1, 0, "(declaration-specifier)", "Makes DECLARATION-SPECIFIER (such as (SPECIAL x) or (OPTIMIZE ...)) hold globally."},
    {"IDENTITY", PK_CL, prim_identity, 1, 1, 0, "(object)", "Returns OBJECT unchanged."},
    {"DEFUN", PK_CL, mac_defun, 2, 2, FN_MACRO_EXPANDER, "(name lambda-list &body body)", "Defines NAME as a global function taking LAMBDA-LIST, whose BODY runs inside a block NAME; a leading string in BODY is its documentation. Returns NAME."},
    {"DEFMACRO", PK_CL, mac_defmacro, 2, 2, FN_MACRO_EXPANDER, "(name lambda-list &body body)", "Defines NAME as a global macro: its expander binds LAMBDA-LIST (which may be nested and use &WHOLE, &ENVIRONMENT and &BODY) to the parts of a call and runs BODY to build the expansion. Returns NAME."},
    {"LAMBDA", PK_CL, mac_lambda, 2, 2, FN_MACRO_EXPANDER, "(lambda-list &body body)", "Macro: (LAMBDA lambda-list . body) is short for (FUNCTION (LAMBDA lambda-list . body)), a closure."},
    {"%QQ-WRAP", PK_SYS, prim_pct_qq_wrap, 2, 2, 0, "(head list)", NULL},
    {"QUASIQUOTE", PK_SYS, mac_quasiquote, 2, 2, FN_MACRO_EXPANDER, "(form)", NULL},
    {0},
};

static void defconstant_c(Obj sym, Obj value) {
    SYM(sym)->value = value;
    SYM(sym)->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
}

/* documentation of the constants evalprim_init defines (docs.h) */
const DocRow evalprim_variable_docs[] = {
    {"CALL-ARGUMENTS-LIMIT", "One more than the largest number of arguments a function call (or APPLY) can pass."},
    {"LAMBDA-PARAMETERS-LIMIT", "One more than the largest number of parameters a lambda list can have."},
    {"MULTIPLE-VALUES-LIMIT", "One more than the largest number of values a form can return."},
    {"LAMBDA-LIST-KEYWORDS", "The list of the lambda list keywords tinycl understands, such as &OPTIONAL, &REST, &KEY and &BODY."},
    {0},
};

void evalprim_init(Lisp *L) {
    prims_register(L, evalprim_prims);
    defconstant_c(S(CALL_ARGUMENTS_LIMIT), FIX((intptr_t)CALL_ARGUMENTS_LIMIT));
    defconstant_c(S(LAMBDA_PARAMETERS_LIMIT_SYM), FIX(LAMBDA_PARAMETERS_LIMIT));
    defconstant_c(S(MULTIPLE_VALUES_LIMIT_SYM), FIX(MULTIPLE_VALUES_LIMIT));
    Obj kw = NIL;
    Obj names[] = {S(AND_WHOLE), S(AND_ENVIRONMENT), S(AND_AUX), S(AND_ALLOW_OTHER_KEYS), S(AND_KEY),
                   S(AND_BODY), S(AND_REST), S(AND_OPTIONAL)};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) kw = cons(L, names[i], kw);
    defconstant_c(S(LAMBDA_LIST_KEYWORDS), kw);
}
