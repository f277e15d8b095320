/* xref.h: the cross-reference and source locations recorded while code is analysed. */
#ifndef TINYCL_XREF_H
#define TINYCL_XREF_H

#include "state.h"

/* What a definition does with a name; the order is that of SYS::%XREF-KIND-NAMES. */
enum { XREF_CALL, XREF_REF, XREF_SET, XREF_BIND, XREF_MACRO, XREF_KINDS };

void xref_note_slow(Lisp *L, int kind, Obj name);

/* Note that the definition being analysed calls, references, sets, binds or macroexpands NAME.
 * Nothing happens outside a definition (the common case costs one comparison). */
static inline void xref_note(Lisp *L, int kind, Obj name) {
    if (UNLIKELY(L->xref_caller != NIL)) xref_note_slow(L, kind, name);
}

/* A macro form FORM (head HEAD) is about to be expanded: note the macro use, and when HEAD is a
 * defining macro (DEFUN, DEFMETHOD, DEFVAR, ...) return the definition's key, e.g. (DEFUN FOO),
 * for xref_begin; otherwise NIL. */
Obj xref_macro_use(Lisp *L, Obj head, Obj form);

/* Start recording for definition KEY (NIL: stop recording, as lambda_force does for stdlib code
 * analysed on its first call); returns what xref_end needs to restore. */
Obj xref_begin(Lisp *L, Obj key);
/* Store what was recorded since the matching xref_begin under its key, with the current
 * source location, and restore the enclosing definition's recording. */
void xref_end(Lisp *L, Obj saved);
/* Restore the enclosing definition's recording, storing nothing (an analysis that failed). */
void xref_restore(Lisp *L, Obj saved);

/* While a definition is recorded and the reader placed the forms being read (L->form_positions),
 * analyze() brackets each list FORM with these: the notes made inside it get its line and column
 * as their site. Returns what xref_site_leave needs. */
Obj xref_site_enter(Lisp *L, Obj form);
static inline void xref_site_leave(Lisp *L, Obj outer) { L->xref_site = outer; }

/* Start placing the lists read from STREAM (L->form_positions) for the next top-level form;
 * returns the enclosing placing (a LOAD inside an evaluation), for xref_positions_end. Not at
 * boot. Lists read from other streams (by the code evaluated) are not placed. */
Obj xref_positions_begin(Lisp *L, Obj stream);
static inline void xref_positions_end(Lisp *L, Obj outer) {
    L->form_positions = outer;
    L->form_positions_stream = NIL;   /* the enclosing form is being evaluated, not read */
}

/* A global function named NAME is being installed (fdefinition_set): remember where, under the
 * key (FUNCTION name), for functions no defining macro names (structure accessors, class
 * readers, (setf fdefinition)). */
void xref_function_defined(Lisp *L, Obj name);

/* Decode the notes and sites of the compiled files' tables loaded since the last call
 * (xref_compile.c): every reader of the tables calls it first. */
void xref_complete_files(Lisp *L);

/* The source location of the top-level form about to be evaluated: (file line column) for a
 * loaded file, (:eval call source-text) for a form typed in, or NIL. Also forgets any recording
 * an error left half done. LOAD (runtime/load.c) and the session (src/session.c) call this. */
void xref_set_location(Lisp *L, Obj location);

/* A reference at SITE to the variable V of an outer frame: each lambda between them records it
 * in its closure_vars, so that inspect can name a closure's variables (finalize in analyze.c). */
struct ACtx; struct AScope; struct AVar;
void xref_closure_ref(struct ACtx *c, struct AScope *site, struct AVar *v);


#endif
