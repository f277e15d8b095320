/* warnings.h: the warnings analysis gives, as SBCL's compiler does: undefined functions and
 * variables (deferred to the end of the compilation unit), wrong argument counts, unknown keyword
 * arguments, unused variables. The checks are called by the analyser (analyze.c, lambda.c); the session marks
 * where each top-level form begins and ends the compilation unit. */
#ifndef TINYCL_WARNINGS_H
#define TINYCL_WARNINGS_H

#include "state.h"

struct ACtx;
struct AVar;

/* Whether the checks run (C an ACtx *): after the boot, and not while a lazy stdlib function is analysed. */
#define warnings_active(c) ((c)->L->boot_phase && !(c)->eager)

/* A call of the global function NAME with the argument forms ARGS (NARGS of them). */
void warnings_check_call(struct ACtx *c, Obj name, Obj args, int nargs);
/* A call of the lambda expression LAMBDA-FORM, ((lambda ...) args...): counts and keywords. */
void warnings_check_lambda_call(struct ACtx *c, Obj lambda_form, Obj args, int nargs);
/* #'NAME of a global function. */
void warnings_function_ref(struct ACtx *c, Obj name);
/* A reference to, or assignment of, the global variable SYM (no lexical or special binding seen). */
void warnings_variable_ref(struct ACtx *c, Obj sym);
/* V is a lexical variable bound with declarations DECLS (IGNORE and IGNORABLE are honoured). */
void warnings_bind_var(struct ACtx *c, struct AVar *v, Obj decls);
/* DECLS, the declaration specifiers of one body: warn of each whose identifier is neither
 * standard, nor a type name, nor proclaimed with DECLARATION (SBCL's "unrecognized declaration"). */
void warnings_declarations(Lisp *L, Obj decls);
/* Called by finalisation once references are resolved: report the variables never used. */
void warnings_unused(struct ACtx *c, struct AVar *vars);

/* The shape of lambda list LL as written: required count, maximum (-1: any), whether it has
 * &key without &allow-other-keys. False when it is not worth guessing (&whole, &optional with &key). */
bool warnings_lambda_list_shape(Lisp *L, Obj ll, int *min, int *max, bool *keys);

/* The position of the next top-level form read from STREAM (a string input stream), for the
 * warnings its analysis gives. */
void warnings_form_start(Lisp *L, Obj stream);
/* Report the undefined functions and variables of the compilation unit that are still undefined
 * (the session calls this at the end of each evaluation). */
void warnings_end_unit(Lisp *L);

#endif
