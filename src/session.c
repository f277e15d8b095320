/* session.c: the one engine behind every face: evaluate source text, capture output, report results. */
#include "tinycl.h"
#include "session.h"
#include "session_guard.h"
#include "../runtime/state.h"
#include "../runtime/gc.h"
#include "../runtime/eval.h"
#include "../runtime/reader.h"
#include "../runtime/printer.h"
#include "../runtime/stream.h"
#include "../runtime/package.h"
#include "../runtime/lstring.h"
#include "../runtime/error.h"
#include "../runtime/snapshot.h"
#include "../runtime/prim.h"
#include "../runtime/hash.h"
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#define EOF_VALUE OBJ(0xA06)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *xstrdup(const char *s) {
    size_t n = strlen(s);
    char *d = (char *)malloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

static char *lisp_to_malloc(Obj str) {
    char *s = string_to_utf8_malloc(str, NULL);
    return s ? s : xstrdup("");
}

/* Make sure the interpreter knows the stack of the thread calling it. */
static void enter(TclSession *s) {
    Lisp *L = s->L;
    gc_current = L;
    pthread_t self = pthread_self();
    if (!s->thread_known || !pthread_equal(self, s->thread)) {
        lisp_set_stack_limits(L);
        s->thread = self;
        s->thread_known = true;
    }
}

static void setup_capture_streams(TclSession *s) {
    Lisp *L = s->L;
    /* in capture mode nothing may reach fd 1: *terminal-io* reads nothing and writes to *standard-output* */
    Obj in = make_string_input_stream(L, string_new(L, 0), 0, 0);
    Obj term = make_two_way_stream(L, in, make_synonym_stream(L, S(STANDARD_OUTPUT)));
    SYM(S(TERMINAL_IO))->value = term;
    SYM(S(STANDARD_INPUT))->value = in;
    SYM(S(STANDARD_OUTPUT))->value = make_capped_output_stream(L, s->opt.output_cap);
    SYM(S(ERROR_OUTPUT))->value = make_capped_output_stream(L, s->opt.output_cap);
    SYM(S(TRACE_OUTPUT))->value = make_synonym_stream(L, S(STANDARD_OUTPUT));
}

/* The state a reset returns to: Lisp-level registries first (their restorers live in symbols), then every symbol. */
static void take_snapshot(TclSession *s) {
    Lisp *L = s->L;
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {
        frame_pop(L, &fr);
        fprintf(stderr, "tinycl: could not snapshot the session state\n");
        return;
    }
    Obj hook = SYM(intern_cstr(L, L->pkg_system, "%SESSION-SNAPSHOT"))->function;
    if (is_function(hook)) funcall0(L, hook);
    L->boot_snapshot = snapshot_take(L);
    L->boot_symbols = NIL;
    frame_pop(L, &fr);
}

/* ---- progress from Lisp: (sys:%session-progress message) calls the session's handler ---- */

#define MAX_LIVE_SESSIONS 256
static TclSession *live_sessions[MAX_LIVE_SESSIONS];
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void live_add(TclSession *s) {
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < MAX_LIVE_SESSIONS; i++)
        if (!live_sessions[i]) { live_sessions[i] = s; break; }
    pthread_mutex_unlock(&live_lock);
}

static void live_remove(TclSession *s) {
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < MAX_LIVE_SESSIONS; i++)
        if (live_sessions[i] == s) live_sessions[i] = NULL;
    pthread_mutex_unlock(&live_lock);
}

static TclSession *session_of(Lisp *L) {
    TclSession *found = NULL;
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < MAX_LIVE_SESSIONS && !found; i++)
        if (live_sessions[i] && live_sessions[i]->L == L) found = live_sessions[i];
    pthread_mutex_unlock(&live_lock);
    return found;
}

/* (sys:%session-progress message) -> T when a progress handler took the message */
static Obj prim_pct_session_progress(Lisp *L, int nargs, Obj *args) {
    (void)nargs;
    TclSession *s = session_of(L);
    if (!s || !s->progress || !is_string(args[0])) return NIL;
    char *msg = string_to_utf8_malloc(args[0], NULL);
    if (msg) {
        s->progress(s->progress_ctx, msg);
        free(msg);
    }
    return S(T);
}

static const PrimDef session_prims[] = {
    {"%SESSION-PROGRESS", PK_SYS, prim_pct_session_progress, 1, 1, 0, "(message)",
     "Report progress of a long operation to the session's progress handler."},
    {0},
};

void tcl_set_progress_handler(TclSession *s, void (*handler)(void *ctx, const char *message), void *ctx) {
    s->progress = handler;
    s->progress_ctx = ctx;
}

TclSession *tcl_session_new(const TclOptions *opt) {
    TclSession *s = (TclSession *)calloc(1, sizeof *s);
    if (!s) return NULL;
    if (opt) s->opt = *opt;
    if (!s->opt.output_cap) s->opt.output_cap = DEFAULT_OUTPUT_CAP;
    Config cfg;
    config_defaults(&cfg);
    if (s->opt.max_heap) cfg.max_heap = s->opt.max_heap;
    cfg.timeout = s->opt.timeout;
    cfg.output_cap = s->opt.output_cap;
    s->L = lisp_new(&cfg);
    if (!s->L) { free(s); return NULL; }
    s->thread = pthread_self();
    s->thread_known = true;
    if (s->opt.capture_output) {
        Lisp *L = s->L;
        setup_capture_streams(s);
        SYM(S(P_SESSION_COLLECT_WARNINGS))->value = S(T);
    }
    prims_register(s->L, session_prims);
    session_guard_save_streams(s->L);
    take_snapshot(s);
    live_add(s);
    return s;
}

void tcl_session_free(TclSession *s) {
    if (!s) return;
    live_remove(s);
    lisp_free(s->L);
    free(s);
}

void tcl_set_line_reader(TclSession *s, char *(*read_line)(void *ctx, const char *prompt), void *ctx) {
    Lisp *L = s->L;
    enter(s);
    L->read_line_hook = read_line;
    L->read_line_ctx = ctx;
    Obj var = intern_cstr(L, L->pkg_system, "*INTERACTIVE-DEBUGGER*");
    Obj fn = SYM(intern_cstr(L, L->pkg_system, "%REPL-DEBUGGER"))->function;
    SYM(var)->value = read_line && is_function(fn) ? fn : NIL;
}

void tcl_interrupt(TclSession *s) {
    s->L->interrupt_kind = INTERRUPT_USER;
    s->L->interrupt_pending = 1;
}

void tcl_cancel(TclSession *s) {
    s->L->interrupt_kind = INTERRUPT_CANCEL;
    s->L->interrupt_pending = 1;
}

const char *tcl_current_package(TclSession *s) {
    Lisp *L = s->L;
    Obj p = SYM(S(PACKAGE_VAR))->value;
    const char *name = "COMMON-LISP-USER";
    if (is_type(p, T_PACKAGE) && PKG(p)->name != NIL) name = string_to_utf8(L, PKG(p)->name, NULL);
    snprintf(s->pkgname, sizeof s->pkgname, "%s", name);
    return s->pkgname;
}

const char *tcl_prompt_package(TclSession *s) {
    Lisp *L = s->L;
    Obj p = SYM(S(PACKAGE_VAR))->value;
    if (!is_type(p, T_PACKAGE) || PKG(p)->name == NIL) return tcl_current_package(s);
    Obj best = PKG(p)->name;
    for (Obj n = PKG(p)->nicknames; is_cons(n); n = CDR(n))
        if (STR(CAR(n))->len < STR(best)->len) best = CAR(n);
    snprintf(s->pkgname, sizeof s->pkgname, "%s", string_to_utf8(L, best, NULL));
    return s->pkgname;
}

/* The type of an error as a string: printed as PRIN1 would in the current package, so CL
 * types are bare and types from packages not used there are qualified. */
static char *type_name_of(Lisp *L, Obj type) {
    size_t sp = L->special_sp;
    bind_special(L, S(PRINT_ESCAPE), S(T));
    bind_special(L, S(PRINT_READABLY), NIL);
    /* a package that does not use CL (KEYWORD, say) would qualify every standard type */
    Obj cur = SYM(S(PACKAGE_VAR))->value;
    bool uses_cl = cur == L->pkg_cl;
    if (is_type(cur, T_PACKAGE))
        for (Obj u = PKG(cur)->use_list; is_cons(u); u = CDR(u)) if (CAR(u) == L->pkg_cl) uses_cl = true;
    if (!uses_cl) bind_special(L, S(PACKAGE_VAR), L->pkg_cl_user);
    Obj s = prin1_to_string(L, type);
    unbind_specials(L, sp);
    return lisp_to_malloc(s);
}

#define REPORT_GRACE 2.0   /* seconds a condition's report may take to print */

/* The report of the condition ERR, for the result: printed as the user's settings say but
 * bounded, since a report may print a huge or circular datum; when that fails or runs out of
 * time, again with *PRINT-CIRCLE* and tight bounds. NULL when neither works. */
static char *report_text(Lisp *L, Obj err) {
    double saved_deadline = L->deadline;
    bool saved_cleanup = L->in_cleanup;
    char *volatile text = NULL;
    for (volatile int attempt = 0; attempt < 2 && !text; attempt++) {
        L->deadline = lisp_monotonic_now() + REPORT_GRACE;
        L->in_cleanup = false;
        L->poll_countdown = 1;
        Frame fr;
        FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
        if (FRAME_SETJMP(&fr)) {
            frame_pop(L, &fr);
            L->stack_limit = L->stack_soft_limit;
            gc_restore_cap(L);
            continue;
        }
        bind_special(L, S(PRINT_ESCAPE), NIL);
        bind_special(L, S(PRINT_READABLY), NIL);
        if (attempt == 0) {
            if (SYM(S(PRINT_LENGTH))->value == NIL) bind_special(L, S(PRINT_LENGTH), FIX(L->cfg.print_length));
            if (SYM(S(PRINT_LEVEL))->value == NIL) bind_special(L, S(PRINT_LEVEL), FIX(L->cfg.print_level));
        } else {
            bind_special(L, S(PRINT_CIRCLE), S(T));
            bind_special(L, S(PRINT_LENGTH), FIX(50));
            bind_special(L, S(PRINT_LEVEL), FIX(5));
        }
        Obj out = make_capped_output_stream(L, L->cfg.print_max_chars);
        print_obj(L, err, out, false);
        text = lisp_to_malloc(get_output_stream_string(L, out));
        unbind_specials(L, fr.special_sp);
        frame_pop(L, &fr);
    }
    L->deadline = saved_deadline;
    L->in_cleanup = saved_cleanup;
    return text;
}

/* Describe L->last_error into the result, guarding against errors while describing. */
static void describe_error(TclSession *s, TclResult *r) {
    Lisp *L = s->L;
    session_guard_repair(L, true);   /* describe with a readtable and radix that work */
    Obj err = L->last_error;
    Obj bt = L->last_backtrace;
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {
        frame_pop(L, &fr);
        L->stack_limit = L->stack_soft_limit;
        gc_restore_cap(L);
        if (!r->error_type) r->error_type = xstrdup("ERROR");
        goto report;
    }
    if (is_type(err, T_SYMBOL) && is_keyword(L, err)) {
        /* (abort) or another restart that returned to the top level */
        r->error_type = xstrdup("ABORT");
        r->error_message = xstrdup("Evaluation aborted: the ABORT restart was invoked.");
    } else if (err == S(STORAGE_CONDITION)) {
        /* gc.c: the heap ran out again while a handler used the reserve; nothing was allocated */
        r->error_type = xstrdup("STORAGE-CONDITION");
        r->error_message = xstrdup("Heap exhausted, and again in a handler of that error: the evaluation was ended "
                                   "without running further handlers.");
    } else if (is_cons(err)) {
        r->error_type = type_name_of(L, CAR(err));
        char *desc = error_describe_bootstrap(L, err);
        /* error_describe_bootstrap gives "TYPE: message"; keep the message */
        char *colon = strstr(desc, ": ");
        r->error_message = xstrdup(colon ? colon + 2 : desc);
    } else {
        Obj tf = intern_cstr(L, L->pkg_system, "%CONDITION-DISPLAY-TYPE");
        Obj type = is_function(SYM(tf)->function) ? funcall1(L, tf, err) : funcall1(L, intern_cstr(L, L->pkg_cl, "TYPE-OF"), err);
        r->error_type = type_name_of(L, type);
    }
    int n = 0;
    for (Obj x = bt; is_cons(x); x = CDR(x)) n++;
    if (n) {
        r->backtrace = (char **)calloc((size_t)n, sizeof(char *));
        bind_special(L, S(PRINT_LENGTH), FIX(8));
        bind_special(L, S(PRINT_LEVEL), FIX(3));
        bind_special(L, S(PRINT_CIRCLE), S(T));
        for (Obj x = bt; is_cons(x); x = CDR(x)) r->backtrace[r->nbacktrace++] = lisp_to_malloc(prin1_to_string(L, CAR(x)));
    }
    frame_pop(L, &fr);
    unbind_specials(L, fr.special_sp);
report:
    /* the report runs user code (a :REPORT function, PRINT-OBJECT methods): outside the frame
     * above, so that its time limit lands in report_text's own frame */
    if (!r->error_message && is_heap(err) && !is_symbol(err)) r->error_message = report_text(L, err);
    if (!r->error_message) {
        char msg[400];
        snprintf(msg, sizeof msg, "A condition of type %.200s was signalled; its report could not be printed "
                                  "(printing it signalled an error or did not finish).", r->error_type);
        r->error_message = xstrdup(msg);
    }
}

/* Does V contain a cycle (as opposed to merely shared structure)? Results are printed with
 * *print-circle* only then, as a person would see them in SBCL otherwise. Past a budget of
 * nodes the answer is "maybe", which prints with *print-circle* to be safe. */
static bool value_may_be_circular(Lisp *L, Obj v) {
    enum { BUDGET = 200000 };
    if (!is_cons(v) && !is_type(v, T_VECTOR) && !is_type(v, T_INSTANCE) && !is_type(v, T_ARRAY)) return false;
    Obj state = hash_new(L, HT_EQ, 64);     /* object -> T while on the path, NIL when finished */
    size_t cap = 256, top = 0;
    Obj *stack = (Obj *)gc_alloc(L, cap * sizeof(Obj));
    size_t *next = (size_t *)gc_alloc_atomic(L, cap * sizeof(size_t));
    stack[top] = v; next[top] = 0; top++;
    hash_put(L, state, v, S(T));
    size_t visited = 1;
    while (top > 0) {
        Obj o = stack[top - 1];
        size_t i = next[top - 1]++;
        Obj child = NO_VALUE;
        if (is_cons(o)) { if (i == 0) child = CAR(o); else if (i == 1) child = CDR(o); }
        else if (is_type(o, T_VECTOR)) { if (i < VEC(o)->len) child = VEC(o)->data[i]; }
        else if (is_type(o, T_INSTANCE)) { if (i < INST(o)->nslots) child = INST(o)->slots[i]; }
        else if (is_type(o, T_ARRAY)) { if (i == 0) child = ARR(o)->storage; }
        if (child == NO_VALUE) {
            hash_put(L, state, o, NIL);
            top--;
            continue;
        }
        if (!is_cons(child) && !is_type(child, T_VECTOR) && !is_type(child, T_INSTANCE) && !is_type(child, T_ARRAY)) continue;
        Obj st = hash_get(L, state, child, NO_VALUE);
        if (st == S(T)) return true;        /* back edge: a cycle */
        if (st == NIL) continue;            /* finished earlier: shared, not circular */
        if (++visited > BUDGET) return true;
        if (top == cap) {
            Obj *ns = (Obj *)gc_alloc(L, cap * 2 * sizeof(Obj));
            size_t *nn = (size_t *)gc_alloc_atomic(L, cap * 2 * sizeof(size_t));
            memcpy(ns, stack, cap * sizeof(Obj));
            memcpy(nn, next, cap * sizeof(size_t));
            stack = ns; next = nn; cap *= 2;
        }
        hash_put(L, state, child, S(T));
        stack[top] = child; next[top] = 0; top++;
    }
    return false;
}

static char *print_value(Lisp *L, Obj v, size_t cap) {
    Obj out = make_capped_output_stream(L, cap);
    size_t sp = L->special_sp;
    if (SYM(S(PRINT_CIRCLE))->value == NIL && value_may_be_circular(L, v)) bind_special(L, S(PRINT_CIRCLE), S(T));
    print_obj(L, v, out, true);
    unbind_specials(L, sp);
    bool trunc = STREAM(out)->truncated;
    Obj str = get_output_stream_string(L, out);
    char *c = lisp_to_malloc(str);
    if (trunc) {
        size_t n = strlen(c);
        char *d = (char *)realloc(c, n + 4);
        if (d) { memcpy(d + n, "...", 4); c = d; }
    }
    return c;
}

static void take_output(TclSession *s, TclResult *r) {
    Lisp *L = s->L;
    if (!s->opt.capture_output) return;
    Obj out = SYM(S(STANDARD_OUTPUT))->value, err = SYM(S(ERROR_OUTPUT))->value;
    if (is_stream(out) && STREAM(out)->h.aux == SK_STRING_OUT) {
        r->out_truncated = STREAM(out)->truncated;
        r->out = lisp_to_malloc(get_output_stream_string(L, out));
    } else r->out = xstrdup("");
    if (is_stream(err) && STREAM(err)->h.aux == SK_STRING_OUT) {
        r->out_truncated = r->out_truncated || STREAM(err)->truncated;
        r->err = lisp_to_malloc(get_output_stream_string(L, err));
    } else r->err = xstrdup("");
}

static void take_warnings(Lisp *L, TclResult *r) {
    int n = 0;
    for (Obj w = L->session_warnings; is_cons(w); w = CDR(w)) n++;
    if (!n) return;
    r->warnings = (TclWarning *)calloc((size_t)n, sizeof(TclWarning));
    /* the list is newest first */
    int i = n;
    for (Obj w = L->session_warnings; is_cons(w); w = CDR(w)) {
        i--;
        r->warnings[i].type = lisp_to_malloc(CAR(CAR(w)));
        r->warnings[i].message = lisp_to_malloc(CDR(CAR(w)));
    }
    r->nwarnings = n;
    L->session_warnings = NIL;
}

static void flush_std(Lisp *L) {
    Obj vars[3] = {S(STANDARD_OUTPUT), S(ERROR_OUTPUT), S(TRACE_OUTPUT)};
    for (int i = 0; i < 3; i++) {
        Obj st = SYM(vars[i])->value;
        if (is_stream(st) && STREAM(st)->h.aux == SK_FD && (STREAM(st)->flags & ST_OPEN)) stream_finish_output(L, st);
    }
}

static bool condition_is(Lisp *L, Obj err, Obj type) {
    if (is_cons(err)) return CAR(err) == type;
    Obj typep = intern_cstr(L, L->pkg_cl, "TYPEP");
    if (!is_function(SYM(typep)->function)) return false;
    return funcall2(L, typep, err, type) != NIL;
}

/* The result of a call stopped by its time limit or an interrupt. */
static void interrupted_result(Lisp *L, TclResult *r, double timeout) {
    r->status = L->interrupt_kind == INTERRUPT_TIMEOUT ? TCL_TIMEOUT : TCL_INTERRUPTED;
    char msg[160];
    if (r->status == TCL_TIMEOUT)
        snprintf(msg, sizeof msg, "Evaluation timed out after %g seconds (the time limit); the session is intact.", timeout);
    else
        snprintf(msg, sizeof msg, "Evaluation interrupted; the session is intact.");
    r->error_type = xstrdup(r->status == TCL_TIMEOUT ? "TIMEOUT" : "INTERRUPTED");
    r->error_message = xstrdup(msg);
}

/* Evaluate the forms read from CODE, or (CODE NULL) the one form FORM, as a session call. */
static TclResult *eval_call(TclSession *s, const char *code, Obj form_arg, const char *package, double timeout_arg);

TclResult *tcl_eval(TclSession *s, const char *code, const char *package, double timeout_arg) {
    return eval_call(s, code, NIL, package, timeout_arg);
}

static TclResult *eval_call(TclSession *s, const char *code, Obj form_arg, const char *package, double timeout_arg) {
    Lisp *L = s->L;
    volatile double timeout = timeout_arg;
    enter(s);
    TclResult *volatile r = (TclResult *)calloc(1, sizeof *r);
    double t0 = now_ms();
    Obj saved_pkg = SYM(S(PACKAGE_VAR))->value;
    if (timeout < 0) timeout = s->opt.timeout;
    L->last_error = NIL;
    L->last_backtrace = NIL;
    L->session_warnings = NIL;
    session_guard_repair(L, false);

    Frame outer;
    FRAME_PUSH(L, &outer, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&outer)) {
        /* failure before any form ran (bad package name) */
        frame_pop(L, &outer);
        r->status = TCL_ERROR;
        describe_error(s, r);
        goto done;
    }
    if (package) {
        Obj p = package_find(L, string_from_cstr(L, package));
        if (p == NIL) {
            Obj name = string_from_cstr(L, package);
            err_package(L, name, "The name %S does not designate any package.", name);
        }
        SYM(S(PACKAGE_VAR))->value = p;
    }
    Obj text = code ? string_from_utf8(L, code, strlen(code)) : string_new(L, 0);
    Obj stream = make_string_input_stream(L, text, 0, STR(text)->len);
    volatile Obj pending = code ? NIL : form_arg;  /* the one form to evaluate when there is no text */
    frame_pop(L, &outer);

    L->deadline = timeout > 0 ? lisp_monotonic_now() + timeout : 0;
    L->in_cleanup = false;
    L->interrupt_pending = 0;
    L->poll_countdown = 1;

    volatile int nvals = 0;
    Obj *volatile vals = NULL;
    for (;;) {
        volatile bool reading = true;
        Frame top;
        FRAME_PUSH(L, &top, FR_TOPLEVEL, NIL);
        int code_ = FRAME_SETJMP(&top);
        if (code_) {
            frame_pop(L, &top);
            L->stack_limit = L->stack_soft_limit;
            gc_restore_cap(L);
            if (code_ == JUMP_INTERRUPT) {
                interrupted_result(L, r, timeout);
            } else if (code_ == JUMP_EXIT) {
                r->status = TCL_EXIT;
                r->exit_code = L->exit_code;
            } else if (reading && condition_is(L, L->last_error, S(END_OF_FILE))) {
                r->status = TCL_INCOMPLETE;
            } else {
                r->status = TCL_ERROR;
                describe_error(s, r);
            }
            break;
        }
        Obj form;
        if (code) form = session_guard_read(L, stream, EOF_VALUE);
        else { form = pending != NIL ? pending : EOF_VALUE; pending = NIL; }
        reading = false;
        if (form == EOF_VALUE) {
            frame_pop(L, &top);
            break;
        }
        Obj sev = SYM(S(P_SESSION_EVAL))->function;
        Obj v = is_function(sev) ? funcall1(L, sev, form) : lisp_eval(L, form);
        r->forms++;
        int n = L->nvals;
        Obj *buf = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(n ? n : 1));
        values_save(L, v, buf);
        vals = buf;
        nvals = n;
        SYM(S(REPL_MINUS))->value = form;
        frame_pop(L, &top);
    }
    session_guard_repair(L, true);

    if (r->status == TCL_OK && nvals > 0) {
        /* print the values of the last form, bounded and circle-aware; printing is part of the
         * evaluation (a PRINT-OBJECT method may loop): the time limit and interrupts still apply */
        Frame pf;
        FRAME_PUSH(L, &pf, FR_TOPLEVEL, NIL);
        int pcode = FRAME_SETJMP(&pf);
        if (pcode) {
            frame_pop(L, &pf);
            L->stack_limit = L->stack_soft_limit;
            gc_restore_cap(L);
            for (int i = 0; i < r->nvalues; i++) free(r->values[i]);
            free(r->values);
            r->values = NULL;
            r->nvalues = 0;
            if (pcode == JUMP_INTERRUPT) interrupted_result(L, r, timeout);
            else if (pcode == JUMP_EXIT) {
                r->status = TCL_EXIT;
                r->exit_code = L->exit_code;
            } else {
                r->status = TCL_ERROR;
                describe_error(s, r);
            }
        } else {
            bind_special(L, S(PRINT_READABLY), NIL);
            if (SYM(S(PRINT_LENGTH))->value == NIL) bind_special(L, S(PRINT_LENGTH), FIX(L->cfg.print_length));
            if (SYM(S(PRINT_LEVEL))->value == NIL) bind_special(L, S(PRINT_LEVEL), FIX(L->cfg.print_level));
            r->values = (char **)calloc((size_t)nvals, sizeof(char *));
            for (int i = 0; i < nvals; i++) {
                r->values[i] = print_value(L, vals[i], L->cfg.print_max_chars);
                r->nvalues++;
            }
            frame_pop(L, &pf);
            unbind_specials(L, pf.special_sp);
        }
    }
    L->deadline = 0;
    L->in_cleanup = false;
    if (r->status == TCL_OK && nvals > 0) {
        /* REPL history variables */
        Obj prim = vals[0];
        Obj all = NIL;
        for (int i = nvals - 1; i >= 0; i--) all = cons(L, vals[i], all);
        SYM(S(REPL_STAR3))->value = SYM(S(REPL_STAR2))->value;
        SYM(S(REPL_STAR2))->value = SYM(S(REPL_STAR))->value;
        SYM(S(REPL_STAR))->value = prim;
        SYM(S(REPL_SLASH3))->value = SYM(S(REPL_SLASH2))->value;
        SYM(S(REPL_SLASH2))->value = SYM(S(REPL_SLASH))->value;
        SYM(S(REPL_SLASH))->value = all;
    }
done:
    if (package) SYM(S(PACKAGE_VAR))->value = saved_pkg;
    session_guard_repair(L, true);
    if (!is_type(SYM(S(PACKAGE_VAR))->value, T_PACKAGE) || PKG(SYM(S(PACKAGE_VAR))->value)->name == NIL)
        SYM(S(PACKAGE_VAR))->value = L->pkg_cl_user;
    flush_std(L);
    take_output(s, r);
    take_warnings(L, r);
    r->package = xstrdup(tcl_current_package(s));
    r->elapsed_ms = now_ms() - t0;
    L->last_error = NIL;
    L->last_backtrace = NIL;
    return r;
}

bool tcl_input_complete(TclSession *s, const char *code) {
    Lisp *L = s->L;
    enter(s);
    volatile bool complete = true;
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {
        frame_pop(L, &fr);
        /* any reader error other than end of file means "complete, but wrong": let eval report it */
        complete = !condition_is(L, L->last_error, S(END_OF_FILE));
        L->last_error = NIL;
        return complete;
    }
    Obj text = string_from_utf8(L, code, strlen(code));
    Obj stream = make_string_input_stream(L, text, 0, STR(text)->len);
    bind_special(L, S(READ_SUPPRESS), S(T));
    /* a reader error here is an answer, not something to debug */
    bind_special(L, intern_cstr(L, L->pkg_system, "*INTERACTIVE-DEBUGGER*"), NIL);
    for (;;) {
        Obj f = reader_read(L, stream, false, EOF_VALUE, false, false);
        if (f == EOF_VALUE) break;
    }
    unbind_specials(L, fr.special_sp);
    frame_pop(L, &fr);
    return complete;
}

void tcl_result_free(TclResult *r) {
    if (!r) return;
    for (int i = 0; i < r->nvalues; i++) free(r->values[i]);
    free(r->values);
    free(r->out);
    free(r->err);
    for (int i = 0; i < r->nwarnings; i++) { free(r->warnings[i].type); free(r->warnings[i].message); }
    free(r->warnings);
    free(r->error_type);
    free(r->error_message);
    for (int i = 0; i < r->nbacktrace; i++) free(r->backtrace[i]);
    free(r->backtrace);
    for (int i = 0; i < r->nrestarts; i++) free(r->restarts[i]);
    free(r->restarts);
    free(r->package);
    free(r);
}

TclResult *tcl_load_file(TclSession *s, const char *path) {
    Lisp *L = s->L;
    enter(s);
    Obj p = string_from_cstr(L, path);
    Obj form = cons(L, intern_cstr(L, L->pkg_cl, "LOAD"), cons(L, p, NIL));
    Obj printed = prin1_to_string(L, form);
    char *code = string_to_utf8_malloc(printed, NULL);
    TclResult *r = tcl_eval(s, code, NULL, -1);
    free(code);
    return r;
}

void tcl_reset(TclSession *s, bool drop_systems) {
    enter(s);
    if (drop_systems) {
        /* exactly a new process: a fresh interpreter */
        TclSession *fresh = tcl_session_new(&s->opt);
        if (fresh) {
            live_remove(fresh);
            lisp_free(s->L);
            s->L = fresh->L;
            free(fresh);
            s->thread_known = false;
            enter(s);
            return;
        }
    }
    Lisp *L = s->L;
    if (L->boot_snapshot == NIL) return;
    snapshot_restore(L, L->boot_snapshot, L->system_packages);
    L->boot_symbols = NIL;
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {
        frame_pop(L, &fr);
        fprintf(stderr, "tinycl: a reset hook failed; the symbol state was restored anyway\n");
    } else {
        Obj hook = SYM(intern_cstr(L, L->pkg_system, "%SESSION-RESET"))->function;
        if (is_function(hook)) funcall0(L, hook);
        frame_pop(L, &fr);
    }
    SYM(S(PACKAGE_VAR))->value = L->pkg_cl_user;
}

TclDefinitions *tcl_list_definitions(TclSession *s, const char *type, const char *package) {
    Lisp *L = s->L;
    enter(s);
    TclDefinitions *volatile d = (TclDefinitions *)calloc(1, sizeof *d);
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {
        frame_pop(L, &fr);
        TclResult tmp;
        memset(&tmp, 0, sizeof tmp);
        describe_error(s, &tmp);
        d->error_type = tmp.error_type;
        d->error_message = tmp.error_message;
        for (int i = 0; i < tmp.nbacktrace; i++) free(tmp.backtrace[i]);
        free(tmp.backtrace);
        L->last_error = NIL;
        return d;
    }
    Obj fn = SYM(intern_cstr(L, L->pkg_system, "%LIST-DEFINITIONS"))->function;
    Obj t = type ? string_from_cstr(L, type) : NIL;
    Obj p = package ? string_from_cstr(L, package) : NIL;
    Obj text = funcall2(L, fn, t, p);
    Obj entries = L->nvals > 1 ? L->values[1] : NIL;
    d->text = lisp_to_malloc(text);
    int n = 0;
    for (Obj e = entries; is_cons(e); e = CDR(e)) n++;
    d->items = (TclDefinition *)calloc((size_t)(n ? n : 1), sizeof(TclDefinition));
    for (Obj e = entries; is_cons(e); e = CDR(e)) {
        Obj f = CAR(e);
        TclDefinition *it = &d->items[d->count++];
        it->kind = lisp_to_malloc(CAR(f));
        it->name = lisp_to_malloc(CAR(CDR(f)));
        it->detail = lisp_to_malloc(CAR(CDR(CDR(f))));
        it->package = lisp_to_malloc(CAR(CDR(CDR(CDR(f)))));
    }
    frame_pop(L, &fr);
    return d;
}

void tcl_definitions_free(TclDefinitions *d) {
    if (!d) return;
    free(d->text);
    for (int i = 0; i < d->count; i++) {
        free(d->items[i].kind); free(d->items[i].name); free(d->items[i].detail); free(d->items[i].package);
    }
    free(d->items);
    free(d->error_type);
    free(d->error_message);
    free(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct CompleteCtx { const uint32_t *prefix; size_t n; char **out; int count, max; Lisp *L; } CompleteCtx;

static void complete_one(Lisp *L, Obj sym, void *vctx) {
    CompleteCtx *c = (CompleteCtx *)vctx;
    if (c->count >= c->max) return;
    Obj name = symbol_data(L, sym)->name;
    if (STR(name)->len < c->n) return;
    for (size_t i = 0; i < c->n; i++) {
        uint32_t a = STR(name)->data[i], b = c->prefix[i];
        if (b >= 'a' && b <= 'z') b -= 32;
        if (a != b) return;
    }
    for (int i = 0; i < c->count; i++)
        if (strcmp(c->out[i], string_to_utf8(L, name, NULL)) == 0) return;
    c->out[c->count++] = lisp_to_malloc(name);
}

char **tcl_complete(TclSession *s, const char *prefix, int max) {
    Lisp *L = s->L;
    enter(s);
    char **out = (char **)calloc((size_t)max + 1, sizeof(char *));
    if (!out) return NULL;
    Obj p = string_from_cstr(L, prefix);
    CompleteCtx c = {STR(p)->data, STR(p)->len, out, 0, max, L};
    Obj pkg = SYM(S(PACKAGE_VAR))->value;
    if (is_type(pkg, T_PACKAGE)) {
        symtable_each(&PKG(pkg)->internal, complete_one, L, &c);
        symtable_each(&PKG(pkg)->external, complete_one, L, &c);
        for (Obj u = PKG(pkg)->use_list; is_cons(u); u = CDR(u)) symtable_each(&PKG(CAR(u))->external, complete_one, L, &c);
    }
    qsort(out, (size_t)c.count, sizeof(char *), cmp_str);
    return out;
}

typedef struct BigStackCall { int (*fn)(void *); void *arg; int result; } BigStackCall;

static void *big_stack_main(void *p) {
    BigStackCall *c = (BigStackCall *)p;
    c->result = c->fn(c->arg);
    return NULL;
}

int tcl_run_with_big_stack(int (*fn)(void *), void *arg) {
    gc_process_init();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, EVAL_THREAD_STACK);
    BigStackCall c = {fn, arg, 0};
    pthread_t t;
    if (gc_thread_create(&t, &attr, big_stack_main, &c) != 0) {
        pthread_attr_destroy(&attr);
        return fn(arg);
    }
    pthread_attr_destroy(&attr);
    pthread_join(t, NULL);
    return c.result;
}

/* ---- Systems: each call evaluates a form of stdlib-lisp/asdf.lisp, which leaves its report in
 * SYS::*SYSTEM-REPORT* as (text . json) ---- */

static TclReport *system_call(TclSession *s, Obj form, double timeout) {
    Lisp *L = s->L;
    Obj report_var = intern_cstr(L, L->pkg_system, "*SYSTEM-REPORT*");
    Obj saved_minus = SYM(S(REPL_MINUS))->value;
    SYM(report_var)->value = NIL;
    TclReport *rep = (TclReport *)calloc(1, sizeof *rep);
    rep->result = eval_call(s, NULL, form, NULL, timeout);
    L = s->L;
    Obj report = SYM(report_var)->value;
    if (is_cons(report)) {
        if (is_string(CAR(report))) rep->text = lisp_to_malloc(CAR(report));
        if (is_string(CDR(report))) rep->json = lisp_to_malloc(CDR(report));
    }
    SYM(report_var)->value = NIL;
    SYM(S(REPL_MINUS))->value = saved_minus;
    return rep;
}

static Obj sys_fn(Lisp *L, const char *name) { return intern_cstr(L, L->pkg_system, name); }
static Obj lstr(Lisp *L, const char *c) { return c ? string_from_cstr(L, c) : NIL; }
static Obj list3(Lisp *L, Obj a, Obj b, Obj c) { return cons(L, a, cons(L, b, cons(L, c, NIL))); }

TclReport *tcl_load_system(TclSession *s, const char *system, bool force, bool quickload, double timeout) {
    enter(s);
    Lisp *L = s->L;
    Obj form = cons(L, sys_fn(L, "%TOOL-LOAD-SYSTEM"),
                    list3(L, lstr(L, system), boolean(L, force), boolean(L, quickload)));
    return system_call(s, form, timeout);
}

TclReport *tcl_describe_system(TclSession *s, const char *system) {
    enter(s);
    Lisp *L = s->L;
    return system_call(s, cons(L, sys_fn(L, "%TOOL-DESCRIBE-SYSTEM"), cons(L, lstr(L, system), NIL)), -1);
}

TclReport *tcl_list_local_systems(TclSession *s, const char *filter, int offset, int limit) {
    enter(s);
    Lisp *L = s->L;
    Obj form = cons(L, sys_fn(L, "%TOOL-LIST-LOCAL-SYSTEMS"), list3(L, lstr(L, filter), FIX(offset), FIX(limit)));
    return system_call(s, form, -1);
}

TclReport *tcl_list_loaded_systems(TclSession *s) {
    enter(s);
    Lisp *L = s->L;
    return system_call(s, cons(L, sys_fn(L, "%TOOL-LIST-LOADED-SYSTEMS"), NIL), -1);
}

TclReport *tcl_system_dependencies(TclSession *s, const char *system, bool transitive) {
    enter(s);
    Lisp *L = s->L;
    Obj form = cons(L, sys_fn(L, "%TOOL-SYSTEM-DEPENDENCIES"), cons(L, lstr(L, system), cons(L, boolean(L, transitive), NIL)));
    return system_call(s, form, -1);
}

void tcl_report_free(TclReport *r) {
    if (!r) return;
    tcl_result_free(r->result);
    free(r->text);
    free(r->json);
    free(r);
}
