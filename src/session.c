/* session.c: the one engine behind every face: evaluate source text, capture output, report results. */
#include "tinycl.h"
#include "session.h"
#include "files.h"
#include "session_guard.h"
#include "../runtime/state.h"
#include "../runtime/gc.h"
#include "../runtime/eval.h"
#include "../runtime/thread.h"
#include "../runtime/reader.h"
#include "../runtime/printer.h"
#include "../runtime/stream.h"
#include "../runtime/package.h"
#include "../runtime/lstring.h"
#include "../runtime/error.h"
#include "../runtime/snapshot.h"
#include "../runtime/prim.h"
#include "../runtime/hash.h"
#include "../runtime/xref.h"
#include "../runtime/formstart.h"
#include "../runtime/list.h"
#include "../runtime/access.h"
#include "../runtime/warnings.h"
#include "../runtime/character.h"
#include "../runtime/abi.h"
#include "../runtime/imagetab.h"
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#define EOF_VALUE OBJ(0xA06)
#define BACKTRACE_LINE_CHARS 2000    /* one frame of a backtrace */
#define FORM_TEXT_CHARS 100          /* the first line of a form that failed */
#define MESSAGE_FLOOR 1000           /* an error message keeps this much even when the output took the budget */
#define VALUE_FLOOR 200              /* and the first value this much */

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

/* The UTF-8 of a Lisp string and its length in bytes (it may hold NUL characters). */
static char *lisp_to_malloc_n(Obj str, size_t *len) {
    char *s = string_to_utf8_malloc(str, len);
    if (s) return s;
    *len = 0;
    return xstrdup("");
}

/* Make sure the interpreter knows the stack of the thread calling it. */
static void enter(TclSession *s) { session_enter(s); }

void session_enter(TclSession *s) {
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
    STREAM(SYM(S(STANDARD_OUTPUT))->value)->flags |= ST_CAPTURE;
    STREAM(SYM(S(ERROR_OUTPUT))->value)->flags |= ST_CAPTURE;
    SYM(S(TRACE_OUTPUT))->value = make_synonym_stream(L, S(STANDARD_OUTPUT));
}

/* The function of the upcall SYS::NAME (runtime/lisp-abi.def); a missing one signals an error
 * that names it (abi_upcall), so the caller's protected region reports it. */
static Obj session_upcall(Lisp *L, const char *name) {
    return abi_upcall(L, intern_cstr(L, L->pkg_system, name));
}

/* The state a reset returns to: Lisp-level registries first (their restorers live in symbols), then every symbol. */
static void snapshot_step(Lisp *L, void *ud) {
    (void)ud;
    /* loaded from the boot image and nothing run since: the restorers made when it was written fit */
    if (L->image_heap.scanned && L->image_restorers != NIL && L->boot_snapshot == NIL)
        SYM(intern_cstr(L, L->pkg_system, "*SESSION-RESTORERS*"))->value = L->image_restorers;
    else
        funcall0(L, session_upcall(L, "%SESSION-SNAPSHOT"));
    L->boot_snapshot = snapshot_take(L);
    L->boot_symbols = NIL;
}

typedef struct UpcallQuery { const char *name; Obj fn; } UpcallQuery;

static void find_upcall_step(Lisp *L, void *ud) {
    UpcallQuery *q = (UpcallQuery *)ud;
    q->fn = session_upcall(L, q->name);
}

bool session_find_upcall(TclSession *s, const char *name, struct Object **fn) {
    UpcallQuery q = {name, NIL};
    if (lisp_pcall(s->L, FR_TOPLEVEL, find_upcall_step, &q)) return false;
    *fn = q.fn;
    return true;
}

static void take_snapshot(TclSession *s) {
    if (lisp_pcall(s->L, FR_TOPLEVEL, snapshot_step, NULL))
        fprintf(stderr, "tinycl: could not snapshot the session state\n");
}

/* ---- progress from Lisp: (sys:%session-progress message) calls the session's handler ---- */

/* The session an interpreter belongs to: its back pointer (debugger_attach sets it; a reset that
 * swaps interpreters moves it). No process-wide registry: sessions on many threads find their own. */
static TclSession *session_of(Lisp *L) { return (TclSession *)L->session; }

/* (sys:%session-progress message) -> T when a progress handler took the message;
 * (sys:%session-progress nil) -> T when there is a handler (the loader makes its messages only then) */
static Obj prim_pct_session_progress(Lisp *L, int nargs, Obj *args) {
    (void)nargs;
    TclSession *s = session_of(L);
    if (!s || !s->progress) return NIL;
    if (args[0] == NIL) return S(T);
    if (!is_string(args[0])) return NIL;
    char *msg = string_to_utf8_malloc(args[0], NULL);
    if (msg) {
        s->progress(s->progress_ctx, msg);
        free(msg);
    }
    return S(T);
}

/* (sys:%session-log level message) -> T when a log handler took the message; LEVEL is a keyword
 * naming a syslog level (:info, :notice, :warning...) */
static Obj prim_pct_session_log(Lisp *L, int nargs, Obj *args) {
    (void)nargs;
    TclSession *s = session_of(L);
    if (!s || !s->log || !is_symbol(args[0]) || !is_string(args[1])) return NIL;
    char *level = string_to_utf8_malloc(symbol_data(L, args[0])->name, NULL);
    char *msg = string_to_utf8_malloc(args[1], NULL);
    if (level && msg) {
        for (char *p = level; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        s->log(s->log_ctx, level, msg);
    }
    free(level);
    free(msg);
    return S(T);
}

const PrimDef session_prims[] = {
    {"%SESSION-PROGRESS", PK_SYS, prim_pct_session_progress, 1, 1, 0, "(message)",
     "Report progress of a long operation to the session's progress handler."},
    {"%SESSION-LOG", PK_SYS, prim_pct_session_log, 2, 2, 0, "(level message)",
     "Send MESSAGE to the session's log handler at LEVEL (a keyword such as :notice)."},
    {0},
};

void tcl_set_log_handler(TclSession *s, void (*handler)(void *ctx, const char *level, const char *message), void *ctx) {
    s->log = handler;
    s->log_ctx = ctx;
}

void tcl_set_progress_handler(TclSession *s, void (*handler)(void *ctx, const char *message), void *ctx) {
    s->progress = handler;
    s->progress_ctx = ctx;
}

/* The front end's words (TclOptions.call_label, exit_unavailable_report) into the variables the
 * stdlib prints them from; where it gives none, the stdlib's neutral defaults stay. Before the
 * snapshot, so that a reset keeps them. */
static void set_labels(TclSession *s) {
    Lisp *L = s->L;
    if (s->opt.call_label)
        SYM(intern_cstr(L, L->pkg_system, "*SESSION-CALL-LABEL*"))->value = string_from_cstr(L, s->opt.call_label);
    if (s->opt.exit_unavailable_report)
        SYM(intern_cstr(L, L->pkg_system, "*EXIT-NOT-AVAILABLE-REPORT*"))->value =
            string_from_cstr(L, s->opt.exit_unavailable_report);
}

extern const PrimDef debugger_prims[];   /* debugger.c */

void session_declare_tables(void) {
    static const ImageTable tables[] = {PRIMDEF_IMAGE_TABLE("session", session_prims),
                                        PRIMDEF_IMAGE_TABLE("debugger", debugger_prims)};
    imagetab_add(tables, sizeof tables / sizeof *tables);
}

TclSession *tcl_session_new(const TclOptions *opt) {
    session_declare_tables();
    TclSession *s = (TclSession *)calloc(1, sizeof *s);
    if (!s) return NULL;
    if (opt) s->opt = *opt;
    if (!s->opt.output_cap) s->opt.output_cap = DEFAULT_OUTPUT_CAP;
    Config cfg;
    config_defaults(&cfg);
    if (s->opt.max_heap) cfg.max_heap = s->opt.max_heap;
    cfg.timeout = s->opt.timeout;
    cfg.output_cap = s->opt.output_cap;
    if (s->opt.access) {
        s->access = access_copy(s->opt.access);
        if (!s->access) { free(s); return NULL; }
        s->opt.access = s->access;
    }
    s->L = lisp_new(&cfg);
    if (!s->L) { access_free(s->access); free(s); return NULL; }
    /* the policy holds from the first form the session evaluates */
    s->L->access = s->access;
    s->L->exit_unavailable = s->opt.exit_unavailable;
    s->L->output_left = SIZE_MAX;     /* outside a call nothing stops at the output limit */
    s->thread = pthread_self();
    s->thread_known = true;
    if (s->opt.capture_output) {
        Lisp *L = s->L;
        setup_capture_streams(s);
        SYM(S(P_SESSION_COLLECT_WARNINGS))->value = S(T);
    }
    prims_register(s->L, session_prims);
    debugger_attach(s);
    session_guard_save_streams(s->L);
    set_labels(s);
    take_snapshot(s);
    return s;
}

void tcl_session_free(TclSession *s) {
    if (!s) return;
    debugger_abandon(s);
    session_store_detach(s);
    lisp_free(s->L);
    session_store_free(s);
    access_free(s->access);
    files_state_free(s->files);
    free(s);
}

TclAccess *tcl_access_new(void) { return access_new(true); }
void tcl_access_free(TclAccess *a) { access_free(a); }
bool tcl_allow_read(TclAccess *a, const char *dir) { return access_allow_read(a, dir); }
bool tcl_allow_write(TclAccess *a, const char *dir) { return access_allow_write(a, dir); }
void tcl_allow_env(TclAccess *a, const char *name) { access_allow_env(a, name); }
void tcl_allow_system_sources(TclAccess *a) { access_allow_system_sources(a); }
const char *tcl_temp_directory(void) { return access_temp_directory(); }
char *tcl_access_describe(const TclAccess *a) { return access_describe(a); }

void tcl_protect_path(TclSession *s, const char *path) {
    if (!s->access) {
        s->access = access_new(false);
        if (!s->access) return;
        s->opt.access = s->access;
        s->L->access = s->access;
    }
    access_protect_path(s->access, path);
}

void tcl_protect_descriptor(TclSession *s, int fd) {
    if (!s->access) {
        /* unrestricted, but with this file protected */
        s->access = access_new(false);
        if (!s->access) return;
        s->opt.access = s->access;
        s->L->access = s->access;
    }
    access_protect_fd(s->access, fd);
}

void tcl_set_line_reader(TclSession *s, char *(*read_line)(void *ctx, const char *prompt), void *ctx) {
    Lisp *L = s->L;
    enter(s);
    L->read_line_hook = read_line;
    L->read_line_ctx = ctx;
    Obj var = intern_cstr(L, L->pkg_system, "*INTERACTIVE-DEBUGGER*");
    Obj fn = NIL;
    if (read_line && !session_find_upcall(s, "%REPL-DEBUGGER", &fn))
        fprintf(stderr, "tinycl: no debugger: %s\n", error_describe_bootstrap(L, L->last_error));
    SYM(var)->value = fn;
}

void tcl_interrupt(TclSession *s) {
    lisp_request_interrupt(s->L, INTERRUPT_USER);
}

void tcl_interrupt_clear(TclSession *s) {
    s->L->interrupt_pending = 0;
    s->L->interrupt_kind = INTERRUPT_NONE;
}

void tcl_cancel(TclSession *s) {
    lisp_request_interrupt(s->L, INTERRUPT_CANCEL);
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

/* Print V with PRIN1 into at most CAP characters ("..." marks the cut); its length in *LEN. */
static char *print_capped(Lisp *L, Obj v, size_t cap, size_t *len) {
    Obj out = make_capped_output_stream(L, cap ? cap : 1);
    print_obj(L, v, out, true);
    bool trunc = STREAM(out)->truncated;
    size_t n;
    char *c = lisp_to_malloc_n(get_output_stream_string(L, out), &n);
    if (trunc) {
        char *d = (char *)realloc(c, n + 4);
        if (d) { memcpy(d + n, "...", 4); c = d; n += 3; }
    }
    if (len) *len = n;
    return c;
}

/* After an exit ended a protected region of the session: the interpreter's limits are back to normal. */
static void call_recover(Lisp *L) {
    L->stack_limit = L->stack_soft_limit;
    lisp_request_poll(L);
    gc_restore_cap(L);
}

#define REPORT_GRACE 2.0   /* seconds a condition's report may take to print */

/* The report of the condition ERR, for the result: printed as the user's settings say but
 * bounded, since a report may print a huge or circular datum; when that fails or runs out of
 * time, again with *PRINT-CIRCLE* and tight bounds. NULL when neither works; its length in *LEN. */
static char *report_text(Lisp *L, Obj err, size_t *len) {
    double saved_deadline = L->deadline;
    bool saved_cleanup = L->in_cleanup;
    char *volatile text = NULL;
    for (volatile int attempt = 0; attempt < 2 && !text; attempt++) {
        L->deadline = lisp_monotonic_now() + REPORT_GRACE;
        L->in_cleanup = false;
        lisp_poll_soon(L);
        Frame fr;
        LISP_TRY(L, &fr, FR_TOPLEVEL, NIL) {
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
            text = lisp_to_malloc_n(get_output_stream_string(L, out), len);
        } LISP_CATCH(L, &fr) {
            call_recover(L);
        } LISP_END_TRY;
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
    /* describing runs Lisp (the condition's type, the backtrace's lines): it gets the report's grace
     * instead of what is left of the call's time limit, which the safe points see within ticks */
    double saved_deadline = L->deadline;
    L->deadline = lisp_monotonic_now() + REPORT_GRACE;
    lisp_poll_soon(L);
    Frame fr;
    LISP_TRY(L, &fr, FR_TOPLEVEL, NIL) {
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
        if (r->error_message && !r->error_message_len) r->error_message_len = strlen(r->error_message);
        int n = 0;
        for (Obj x = bt; is_cons(x); x = CDR(x)) n++;
        if (n) {
            r->backtrace = (char **)calloc((size_t)n, sizeof(char *));
            bind_special(L, S(PRINT_LENGTH), FIX(8));
            bind_special(L, S(PRINT_LEVEL), FIX(3));
            bind_special(L, S(PRINT_CIRCLE), S(T));
            /* a frame line is for reading: a huge argument is shown by its beginning */
            r->backtrace_lens = (size_t *)calloc((size_t)n, sizeof(size_t));
            for (Obj x = bt; is_cons(x); x = CDR(x)) {
                r->backtrace[r->nbacktrace] = print_capped(L, CAR(x), BACKTRACE_LINE_CHARS, &r->backtrace_lens[r->nbacktrace]);
                r->nbacktrace++;
            }
        }
    } LISP_CATCH(L, &fr) {
        call_recover(L);
        if (!r->error_type) r->error_type = xstrdup("ERROR");
    } LISP_END_TRY;
    L->deadline = saved_deadline;
    /* the report runs user code (a :REPORT function, PRINT-OBJECT methods): outside the frame
     * above, so that its time limit lands in report_text's own frame */
    if (!r->error_message && is_heap(err) && !is_symbol(err)) r->error_message = report_text(L, err, &r->error_message_len);
    if (!r->error_message) {
        char msg[400];
        snprintf(msg, sizeof msg, "A condition of type %.200s was signalled; its report could not be printed "
                                  "(printing it signalled an error or did not finish).", r->error_type);
        r->error_message = xstrdup(msg);
    }
    if (r->error_message && !r->error_message_len) r->error_message_len = strlen(r->error_message);
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

/* ---- the budget: one result carries at most output_limit characters of output, values,
 * warnings, error message and backtrace together ---- */

typedef struct Budget {
    size_t limit, left;
    bool out_cut, message_cut, value_cut;
    int values_dropped, warnings_dropped, frames_dropped;
} Budget;

static size_t utf8_chars(const char *s, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* Charge the text *S (*LEN bytes) to B, keeping at least FLOOR characters; a cut ends in "...".
 * Returns whether it was cut. */
static bool budget_take(Budget *b, char **s, size_t *len, size_t floor) {
    size_t allow = b->left > floor ? b->left : floor;
    size_t chars = 0, i = 0;
    for (; i < *len; i++) {
        if (((unsigned char)(*s)[i] & 0xC0) != 0x80) {
            if (chars == allow) break;
            chars++;
        }
    }
    b->left = b->left > chars ? b->left - chars : 0;
    if (i == *len) return false;
    char *d = (char *)realloc(*s, i + 4);
    if (!d) { (*s)[i] = 0; *len = i; return true; }
    memcpy(d + i, "...", 4);
    *s = d;
    *len = i + 3;
    return true;
}

static void take_output(TclSession *s, TclResult *r, Budget *b) {
    Lisp *L = s->L;
    if (!s->opt.capture_output) return;
    Obj out = SYM(S(STANDARD_OUTPUT))->value, err = SYM(S(ERROR_OUTPUT))->value;
    if (is_stream(out) && STREAM(out)->h.aux == SK_STRING_OUT) {
        r->out_truncated = STREAM(out)->truncated;
        r->out = lisp_to_malloc_n(get_output_stream_string(L, out), &r->out_len);
    } else r->out = xstrdup("");
    if (is_stream(err) && STREAM(err)->h.aux == SK_STRING_OUT) {
        r->out_truncated = r->out_truncated || STREAM(err)->truncated;
        r->err = lisp_to_malloc_n(get_output_stream_string(L, err), &r->err_len);
    } else r->err = xstrdup("");
    b->out_cut = r->out_truncated;
}

/* What the output took of the budget so far (the capture streams hold it until take_output). */
static void budget_charge_output(TclSession *s, Budget *b) {
    Lisp *L = s->L;
    size_t used = 0;
    if (s->opt.capture_output) {
        Obj vars[2] = {S(STANDARD_OUTPUT), S(ERROR_OUTPUT)};
        for (int i = 0; i < 2; i++) {
            Obj st = SYM(vars[i])->value;
            if (is_stream(st) && STREAM(st)->h.aux == SK_STRING_OUT) used += STREAM(st)->buf.len;
        }
    }
    b->left = b->limit > used ? b->limit - used : 0;
}

static void take_warnings(Lisp *L, TclResult *r, Budget *b) {
    int n = 0;
    for (Obj w = L->session_warnings; is_cons(w); w = CDR(w)) n++;
    if (!n) return;
    Obj *ws = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)n);
    /* the list is newest first */
    int i = n;
    for (Obj w = L->session_warnings; is_cons(w); w = CDR(w)) ws[--i] = CAR(w);
    L->session_warnings = NIL;
    r->warnings = (TclWarning *)calloc((size_t)n, sizeof(TclWarning));
    for (i = 0; i < n; i++) {
        if (b->left == 0) { b->warnings_dropped = n - i; break; }
        TclWarning *w = &r->warnings[r->nwarnings++];
        Obj e = ws[i];   /* (type message line column file): session_warning_add */
        w->type = lisp_to_malloc(CAR(e));
        w->message = lisp_to_malloc_n(CAR(CDR(e)), &w->message_len);
        w->line = (int)FIXVAL(CAR(CDR(CDR(e))));
        w->column = (int)FIXVAL(CAR(CDR(CDR(CDR(e)))));
        Obj file = CAR(CDR(CDR(CDR(CDR(e)))));
        if (is_string(file)) w->file = lisp_to_malloc(file);
        budget_take(b, &w->message, &w->message_len, 0);
    }
}

/* Say what the budget cut, in one sentence (NULL when nothing was). */
static char *budget_note(const Budget *b, const TclResult *r) {
    char parts[6][160];
    int np = 0;
    if (b->out_cut) snprintf(parts[np++], sizeof parts[0], "the output was cut");
    if (b->message_cut) snprintf(parts[np++], sizeof parts[0], "the error message was shortened");
    if (b->value_cut) snprintf(parts[np++], sizeof parts[0], "a value was shortened");
    if (b->values_dropped)
        snprintf(parts[np++], sizeof parts[0], "%d of %d values were left out", b->values_dropped, r->nvalues + b->values_dropped);
    if (b->frames_dropped)
        snprintf(parts[np++], sizeof parts[0], "%d of %d backtrace frames were left out", b->frames_dropped, r->nbacktrace + b->frames_dropped);
    if (b->warnings_dropped)
        snprintf(parts[np++], sizeof parts[0], "%d of %d warnings were left out", b->warnings_dropped, r->nwarnings + b->warnings_dropped);
    if (!np) return NULL;
    char *note = (char *)malloc(1200);
    if (!note) return NULL;
    int k = snprintf(note, 1200, "The result reached its limit of %zu characters (output, values, warnings and backtrace together): ", b->limit);
    for (int i = 0; i < np; i++) k += snprintf(note + k, 1200 - (size_t)k, "%s%s", i ? "; " : "", parts[i]);
    snprintf(note + k, 1200 - (size_t)k, ".");
    return note;
}

/* Charge the error message and the backtrace to the budget (the message first: it explains). */
static void budget_error(Budget *b, TclResult *r) {
    if (r->error_message) b->message_cut = budget_take(b, &r->error_message, &r->error_message_len, MESSAGE_FLOOR);
    for (int i = 0; i < r->nbacktrace; i++) {
        if (b->left == 0) {
            b->frames_dropped = r->nbacktrace - i;
            for (int j = i; j < r->nbacktrace; j++) free(r->backtrace[j]);
            r->nbacktrace = i;
            break;
        }
        budget_take(b, &r->backtrace[i], &r->backtrace_lens[i], 0);
    }
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

/* ---- positions in the source text of a call ---- */

/* (:eval CALL "text") for the form at START..END of TEXT, the text cut to a bounded length. */
static Obj source_location(Lisp *L, long call, Obj text, size_t start, size_t end) {
    enum { MAX_SOURCE = 2000 };
    if (end > STR(text)->len) end = STR(text)->len;
    if (start > end) start = end;
    Obj src = string_new(L, end - start > MAX_SOURCE ? MAX_SOURCE + 3 : end - start);
    size_t n = end - start > MAX_SOURCE ? MAX_SOURCE : end - start;
    memcpy(STR(src)->data, STR(text)->data + start, n * sizeof(uint32_t));
    if (n < end - start) for (int i = 0; i < 3; i++) STR(src)->data[n + i] = '.';
    return list3(L, intern_cstr(L, L->pkg_keyword, "EVAL"), FIX(call), src);
}

/* How far the reader has read in STREAM (a string input stream). */
static size_t read_position(Obj stream) {
    Stream *st = STREAM(stream);
    return st->unread >= 0 && st->pos > 0 ? st->pos - 1 : st->pos;
}

/* Record in R which form stopped the call: its index, start (character START, at LINE and COLUMN),
 * first line, where the reader stopped (STREAM's position) and whether text follows. */
static void note_form(Lisp *L, TclResult *r, Obj text, Obj stream, size_t start, long line, long column,
                      TclStage stage) {
    const uint32_t *d = STR(text)->data;
    size_t n = STR(text)->len;
    size_t stop = read_position(stream);
    r->stage = stage;
    r->form_index = r->forms + 1;
    if (start > n) start = n;
    if (stop > n) stop = n;
    r->form_line = (int)line;
    r->form_column = (int)column;
    r->stop_line = (int)STREAM(stream)->line;
    r->stop_column = (int)STREAM(stream)->col + 1;
    size_t end = start;
    while (end < n && d[end] != '\n' && end - start < FORM_TEXT_CHARS && (stage != TCL_STAGE_EVAL || end < stop)) end++;
    while (end > start && (d[end - 1] == ' ' || d[end - 1] == '\t' || d[end - 1] == '\r')) end--;
    size_t len;
    r->form_text = lisp_to_malloc_n(string_from_u32(L, d + start, end - start), &len);
    if (end < n && d[end] != '\n' && end - start >= FORM_TEXT_CHARS) {
        char *t = (char *)realloc(r->form_text, len + 4);
        if (t) { memcpy(t + len, "...", 4); r->form_text = t; len += 3; }
    }
    r->form_text_len = len;
    r->more_forms = stage == TCL_STAGE_EVAL && form_skip_blank(d, n, stop) < n;
}

/* Evaluate the forms read from CODE (LEN bytes), or (CODE NULL) the one form FORM, as a session call. */
static TclResult *eval_call(TclSession *s, const char *code, size_t len, Obj form_arg, const char *package,
                            double timeout_arg, size_t output_limit);

TclResult *tcl_eval(TclSession *s, const char *code, const char *package, double timeout_arg) {
    return eval_call(s, code, code ? strlen(code) : 0, NIL, package, timeout_arg, 0);
}

TclResult *tcl_eval_n(TclSession *s, const char *code, size_t len, const char *package, double timeout,
                      size_t output_limit) {
    return eval_call(s, code ? code : "", code ? len : 0, NIL, package, timeout, output_limit);
}

TclResult *session_eval_form(TclSession *s, struct Object *form, double timeout) {
    return eval_call(s, NULL, 0, form, NULL, timeout, 0);
}

/* The package NAME names, as the session's package: an exact name or nickname first, else NAME
 * as the reader reads a symbol's name (upcased), as (in-package #:name) would find it. The call
 * is not one of the user's: the REPL history variables keep their values. */
TclResult *tcl_set_package(TclSession *s, const char *name) {
    enter(s);
    Lisp *L = s->L;
    static const WellKnownSymbol history[] = {SY_REPL_PLUS, SY_REPL_PLUS2, SY_REPL_PLUS3, SY_REPL_STAR, SY_REPL_STAR2,
                                              SY_REPL_STAR3, SY_REPL_SLASH, SY_REPL_SLASH2, SY_REPL_SLASH3, SY_REPL_MINUS};
    enum { NHISTORY = sizeof history / sizeof history[0] };
    Obj saved[NHISTORY];
    for (int i = 0; i < NHISTORY; i++) saved[i] = SYM(L->syms[history[i]])->value;
    Obj designator = string_from_cstr(L, name ? name : "");
    if (package_find(L, designator) == NIL) {
        Obj up = string_new(L, STR(designator)->len);
        for (size_t i = 0; i < STR(designator)->len; i++) STR(up)->data[i] = char_upcase(STR(designator)->data[i]);
        designator = up;
    }
    Obj form = list2(L, intern_cstr(L, L->pkg_cl, "IN-PACKAGE"), designator);
    TclResult *r = eval_call(s, NULL, 0, form, NULL, -1, 0);
    L = s->L;
    for (int i = 0; i < NHISTORY; i++) SYM(L->syms[history[i]])->value = saved[i];
    return r;
}

/* Before a call: the capture streams take at most the call's budget, shared between them; with
 * STOP, output that reaches it stops the evaluation (a system load's notes only get cut). */
static void arm_capture(TclSession *s, size_t limit, bool stop) {
    Lisp *L = s->L;
    L->output_left = s->opt.capture_output && stop ? limit : SIZE_MAX;
    if (!s->opt.capture_output) return;
    Obj vars[2] = {S(STANDARD_OUTPUT), S(ERROR_OUTPUT)};
    for (int i = 0; i < 2; i++) {
        Obj st = SYM(vars[i])->value;
        if (is_stream(st) && STREAM(st)->h.aux == SK_STRING_OUT && (STREAM(st)->flags & ST_CAPTURE))
            STREAM(st)->cap = limit;
    }
}

/* One evaluation call, as its steps below share it. Obj fields live on the C stack (eval_call's
 * frame), where the collector finds them. */
typedef struct EvalCall {
    TclSession *s;
    TclResult *r;
    const char *code;         /* the source text, or NULL: evaluate FORM */
    size_t code_len;
    Obj form;                 /* the one form to evaluate when there is no text (NIL once taken) */
    const char *package;      /* the package to start in, or NULL */
    double timeout;
    double t0;
    Budget budget;
    Obj saved_pkg;            /* *PACKAGE* before the call (restored when PACKAGE was given) */
    Obj text, stream;         /* the code as a Lisp string, and a stream reading it */
    bool reading;             /* the form being handled was still being read */
    bool eof;                 /* every form was read */
    size_t form_start;        /* where that form starts in TEXT (before the blanks until they are skipped) */
    long form_line, form_column; /* and its line and column */
    Obj *vals;                /* the values of the last form evaluated */
    int nvals;
} EvalCall;

/* Step: find the starting package and open the source text. */
static void call_open(Lisp *L, void *ud) {
    EvalCall *c = (EvalCall *)ud;
    if (c->package) {
        Obj name = string_from_cstr(L, c->package);
        Obj p = package_find(L, name);
        if (p == NIL) err_package(L, name, "The name %S does not designate any package.", name);
        SYM(S(PACKAGE_VAR))->value = p;
    }
    c->text = c->code ? string_from_wtf8(L, c->code, c->code_len) : string_new(L, 0);
    c->stream = make_string_input_stream(L, c->text, 0, STR(c->text)->len);
}

/* Step: read the next form (or take the one form) and evaluate it, keeping its values. */
static void call_form(Lisp *L, void *ud) {
    EvalCall *c = (EvalCall *)ud;
    TclSession *s = c->s;
    Obj form;
    size_t start = 0;
    if (c->code) {
        long line, column;
        xref_positions_begin(L, c->stream);   /* the lists read get their places, for the cross-reference's sites */
        form_locate(L, c->stream, &line, &column);
        c->form_start = read_position(c->stream);
        c->form_line = line;
        c->form_column = column;
        /* the position the warnings of this form's analysis give */
        L->form_line = (int)line;
        L->form_column = (int)column;
        L->form_file = NIL;
        start = STREAM(c->stream)->pos;
        form = session_guard_read(L, c->stream, EOF_VALUE);
    } else {
        form = c->form != NIL ? c->form : EOF_VALUE;
        c->form = NIL;
    }
    c->reading = false;
    if (form == EOF_VALUE) { c->eof = true; return; }
    /* definitions typed in come from this call: its number and the form's text */
    xref_set_location(L, c->code ? source_location(L, s->calls, c->text, start, STREAM(c->stream)->pos) : NIL);
    Obj v = funcall1(L, abi_upcall(L, S(P_SESSION_EVAL)), form);
    int n = L->nvals;
    Obj *buf = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(n ? n : 1));
    values_save(L, v, buf);
    /* output that reached the limit stops the call here, even when no safe point came after it */
    safe_point(L);
    c->r->forms++;
    c->vals = buf;
    c->nvals = n;
    SYM(S(REPL_MINUS))->value = form;
}

/* A form's reading or evaluation stopped with the exit CODE: say why in the result. */
static void call_stopped(EvalCall *c, int code) {
    Lisp *L = c->s->L;
    TclResult *r = c->r;
    call_recover(L);
    if (code == JUMP_INTERRUPT && L->interrupt_kind == INTERRUPT_OUTPUT_LIMIT) {
        r->status = TCL_OUTPUT_LIMIT;
        char msg[200];
        snprintf(msg, sizeof msg, "Evaluation stopped: its output reached the limit of %zu characters; "
                 "the session is intact.", c->budget.limit);
        r->error_type = xstrdup("OUTPUT-LIMIT");
        r->error_message = xstrdup(msg);
    } else if (code == JUMP_INTERRUPT) {
        interrupted_result(L, r, c->timeout);
    } else if (code == JUMP_EXIT) {
        r->status = TCL_EXIT;
        r->exit_code = L->exit_code;
    } else if (c->reading && condition_is(L, L->last_error, S(END_OF_FILE))) {
        r->status = TCL_INCOMPLETE;
        r->error_type = xstrdup("END-OF-FILE");
        r->error_message = xstrdup("Incomplete input: the code ends inside a form (unbalanced parentheses "
                                   "or an unterminated string).");
    } else {
        r->status = TCL_ERROR;
        describe_error(c->s, r);
    }
    if (r->error_message && !r->error_message_len) r->error_message_len = strlen(r->error_message);
    if (c->code && r->status != TCL_EXIT)
        note_form(L, r, c->text, c->stream, c->form_start, c->form_line, c->form_column,
                  c->reading ? TCL_STAGE_READ : TCL_STAGE_EVAL);
}

/* Read and evaluate the forms one at a time, each in a protected step, until the text ends or one stops. */
static void call_run_forms(EvalCall *c) {
    Lisp *L = c->s->L;
    for (;;) {
        c->reading = true;
        c->form_start = c->code ? read_position(c->stream) : 0;
        c->form_line = c->code ? (long)STREAM(c->stream)->line : 0;
        c->form_column = c->code ? (long)STREAM(c->stream)->col + 1 : 0;
        int code = lisp_pcall(L, FR_TOPLEVEL, call_form, c);
        if (code) { call_stopped(c, code); return; }
        if (c->eof) return;
    }
}

/* Step: print the values of the last form, bounded and circle-aware. */
static void call_print(Lisp *L, void *ud) {
    EvalCall *c = (EvalCall *)ud;
    TclResult *r = c->r;
    Budget *budget = &c->budget;
    int nvals = c->nvals;
    bind_special(L, S(PRINT_READABLY), NIL);
    if (SYM(S(PRINT_LENGTH))->value == NIL) bind_special(L, S(PRINT_LENGTH), FIX(L->cfg.print_length));
    if (SYM(S(PRINT_LEVEL))->value == NIL) bind_special(L, S(PRINT_LEVEL), FIX(L->cfg.print_level));
    r->values = (char **)calloc((size_t)nvals, sizeof(char *));
    r->value_lens = (size_t *)calloc((size_t)nvals, sizeof(size_t));
    for (int i = 0; i < nvals; i++) {
        size_t floor = i == 0 ? VALUE_FLOOR : 0;
        if (budget->left == 0 && i > 0) { budget->values_dropped = nvals - i; break; }
        size_t room = budget->left > floor ? budget->left : floor;
        size_t cap = room < L->cfg.print_max_chars ? room : L->cfg.print_max_chars;
        size_t sp = L->special_sp;
        if (SYM(S(PRINT_CIRCLE))->value == NIL && value_may_be_circular(L, c->vals[i])) bind_special(L, S(PRINT_CIRCLE), S(T));
        r->values[i] = print_capped(L, c->vals[i], cap, &r->value_lens[i]);
        unbind_specials(L, sp);
        r->nvalues++;
        size_t chars = utf8_chars(r->values[i], r->value_lens[i]);
        if (cap < L->cfg.print_max_chars && chars > cap) budget->value_cut = true;
        budget->left = budget->left > chars ? budget->left - chars : 0;
    }
}

/* Printing is part of the evaluation (a PRINT-OBJECT method may loop or fail): the time limit and
 * interrupts still apply, and a failure replaces the values by the error. */
static void call_print_values(EvalCall *c) {
    Lisp *L = c->s->L;
    TclResult *r = c->r;
    int code = lisp_pcall(L, FR_TOPLEVEL, call_print, c);
    if (!code) return;
    call_recover(L);
    for (int i = 0; i < r->nvalues; i++) free(r->values[i]);
    free(r->values);
    r->values = NULL;
    r->nvalues = 0;
    if (code == JUMP_INTERRUPT) interrupted_result(L, r, c->timeout);
    else if (code == JUMP_EXIT) {
        r->status = TCL_EXIT;
        r->exit_code = L->exit_code;
    } else {
        r->status = TCL_ERROR;
        describe_error(c->s, r);
    }
    r->stage = TCL_STAGE_PRINT;
    budget_error(&c->budget, r);
}

/* The REPL history variables: *, **, ***, /, //, /// after a call that succeeded. */
static void call_history(EvalCall *c) {
    Lisp *L = c->s->L;
    Obj all = NIL;
    for (int i = c->nvals - 1; i >= 0; i--) all = cons(L, c->vals[i], all);
    SYM(S(REPL_STAR3))->value = SYM(S(REPL_STAR2))->value;
    SYM(S(REPL_STAR2))->value = SYM(S(REPL_STAR))->value;
    SYM(S(REPL_STAR))->value = c->vals[0];
    SYM(S(REPL_SLASH3))->value = SYM(S(REPL_SLASH2))->value;
    SYM(S(REPL_SLASH2))->value = SYM(S(REPL_SLASH))->value;
    SYM(S(REPL_SLASH))->value = all;
}

/* Before the forms run: limits, capture, the call's counters and a clean error state. */
static void call_begin(EvalCall *c, size_t output_limit) {
    TclSession *s = c->s;
    Lisp *L = s->L;
    enter(s);
    gc_clear_stack_used(L);
    specials_clear_stale(L);
    c->r = (TclResult *)calloc(1, sizeof *c->r);
    c->t0 = now_ms();
    c->saved_pkg = SYM(S(PACKAGE_VAR))->value;
    if (c->timeout < 0) c->timeout = s->opt.timeout;
    c->budget.limit = output_limit ? output_limit : s->opt.output_cap;
    c->r->output_limit = c->budget.limit;
    L->last_error = NIL;
    L->last_backtrace = NIL;
    L->session_warnings = NIL;
    arm_capture(s, c->budget.limit, c->code != NULL);
    if (c->code) s->calls++;
    session_guard_repair(L, false);
}

/* Arm the time limit; an interrupt or cancellation asked for before the call began is for this
 * call (the MCP server asks only while the request runs, and one that came after the last call
 * ended was dropped by tcl_interrupt_clear). A time limit or output limit left over is not. */
static void call_arm(EvalCall *c) {
    Lisp *L = c->s->L;
    L->deadline = c->timeout > 0 ? lisp_monotonic_now() + c->timeout : 0;
    L->in_cleanup = false;
    if (L->interrupt_kind != INTERRUPT_USER && L->interrupt_kind != INTERRUPT_CANCEL) L->interrupt_pending = 0;
    lisp_poll_soon(L);
}

/* After the forms: end the compilation unit and the per-form state; printing the values is
 * bounded by the budget, not by stopping. The time limit stays on while the values print. */
static void call_end_forms(EvalCall *c) {
    TclSession *s = c->s;
    Lisp *L = s->L;
    xref_set_location(L, NIL);
    L->form_positions = NIL;
    warnings_end_unit(L);   /* the call is a compilation unit: what is still undefined now is reported */
    L->form_line = L->form_column = 0;
    L->form_file = NIL;
    L->output_left = SIZE_MAX;
    if (L->interrupt_kind == INTERRUPT_OUTPUT_LIMIT) { L->interrupt_pending = 0; L->interrupt_kind = INTERRUPT_NONE; }
    budget_charge_output(s, &c->budget);
    if (c->r->status != TCL_OK) budget_error(&c->budget, c->r);
    session_guard_repair(L, true);
}

/* Whatever happened: the package, the output and warnings into the result, the call's state cleared. */
static TclResult *call_finish(EvalCall *c, bool ran) {
    TclSession *s = c->s;
    Lisp *L = s->L;
    TclResult *r = c->r;
    if (c->package) SYM(S(PACKAGE_VAR))->value = c->saved_pkg;
    session_guard_repair(L, true);
    if (!is_type(SYM(S(PACKAGE_VAR))->value, T_PACKAGE) || PKG(SYM(S(PACKAGE_VAR))->value)->name == NIL)
        SYM(S(PACKAGE_VAR))->value = L->pkg_cl_user;
    if (!ran) {
        /* the call failed before it ran (an unknown package) */
        budget_charge_output(s, &c->budget);
        budget_error(&c->budget, r);
    }
    /* after the values: what printing them wrote (a PRINT-OBJECT method) belongs to this call */
    flush_std(L);
    take_output(s, r, &c->budget);
    take_warnings(L, r, &c->budget);
    r->limit_note = budget_note(&c->budget, r);
    r->package = xstrdup(tcl_current_package(s));
    r->elapsed_ms = now_ms() - c->t0;
    L->output_left = SIZE_MAX;
    L->last_error = NIL;
    L->last_backtrace = NIL;
    tcl_interrupt_clear(s);   /* the call is over: an interrupt meant for it is moot */
    return r;
}

static TclResult *eval_call(TclSession *s, const char *code, size_t code_len, Obj form_arg, const char *package,
                            double timeout_arg, size_t output_limit) {
    debugger_expire(s);
    EvalCall c = {0};
    c.s = s;
    c.code = code;
    c.code_len = code_len;
    c.form = code ? NIL : form_arg;
    c.package = package;
    c.timeout = timeout_arg;
    c.text = c.stream = c.saved_pkg = NIL;
    call_begin(&c, output_limit);
    if (lisp_pcall(s->L, FR_TOPLEVEL, call_open, &c)) {
        /* failure before any form ran (bad package name) */
        c.r->status = TCL_ERROR;
        describe_error(s, c.r);
        return call_finish(&c, false);
    }
    call_arm(&c);
    call_run_forms(&c);
    call_end_forms(&c);
    if (c.r->status == TCL_OK && c.nvals > 0) call_print_values(&c);
    s->L->deadline = 0;
    s->L->in_cleanup = false;
    if (c.r->status == TCL_OK && c.nvals > 0) call_history(&c);
    return call_finish(&c, true);
}

bool tcl_input_complete(TclSession *s, const char *code) {
    Lisp *L = s->L;
    enter(s);
    bool complete = true;
    Frame fr;
    LISP_TRY(L, &fr, FR_TOPLEVEL, NIL) {
        Obj text = string_from_utf8(L, code, strlen(code));
        Obj stream = make_string_input_stream(L, text, 0, STR(text)->len);
        bind_special(L, S(READ_SUPPRESS), S(T));
        /* a reader error here is an answer, not something to debug */
        bind_special(L, intern_cstr(L, L->pkg_system, "*INTERACTIVE-DEBUGGER*"), NIL);
        for (;;) {
            Obj f = reader_read(L, stream, false, EOF_VALUE, false, false);
            if (f == EOF_VALUE) break;
        }
    } LISP_CATCH(L, &fr) {
        /* any reader error other than end of file means "complete, but wrong": let eval report it */
        complete = !condition_is(L, L->last_error, S(END_OF_FILE));
        L->last_error = NIL;
    } LISP_END_TRY;
    return complete;
}

void tcl_result_free(TclResult *r) {
    if (!r) return;
    for (int i = 0; i < r->nvalues; i++) free(r->values[i]);
    free(r->values);
    free(r->value_lens);
    free(r->backtrace_lens);
    free(r->form_text);
    free(r->limit_note);
    free(r->out);
    free(r->err);
    for (int i = 0; i < r->nwarnings; i++) { free(r->warnings[i].type); free(r->warnings[i].message); free(r->warnings[i].file); }
    free(r->warnings);
    free(r->error_type);
    free(r->error_message);
    for (int i = 0; i < r->nbacktrace; i++) free(r->backtrace[i]);
    free(r->backtrace);
    for (int i = 0; i < r->nrestarts; i++) free(r->restarts[i]);
    free(r->restarts);
    free(r->package);
    free(r->note);
    free(r);
}

TclResult *tcl_load_file(TclSession *s, const char *path) {
    Lisp *L = s->L;
    enter(s);
    /* the file the host names is readable whatever the policy (what it loads in turn is checked) */
    if (s->access && s->access->restricted) access_allow_read(s->access, path);
    Obj p = string_from_cstr(L, path);
    Obj form = cons(L, intern_cstr(L, L->pkg_cl, "LOAD"), cons(L, p, NIL));
    Obj printed = prin1_to_string(L, form);
    char *code = string_to_utf8_malloc(printed, NULL);
    TclResult *r = tcl_eval(s, code, NULL, -1);
    free(code);
    return r;
}

static void reset_hook_step(Lisp *L, void *ud) {
    (void)ud;
    funcall0(L, session_upcall(L, "%SESSION-RESET"));
}

void tcl_reset(TclSession *s, bool drop_systems) {
    debugger_abandon(s);
    session_store_changed(s);
    enter(s);
    if (drop_systems) {
        /* exactly a new process: a fresh interpreter */
        TclSession *fresh = tcl_session_new(&s->opt);
        if (fresh) {
            session_store_detach(s);
            lisp_free(s->L);
            session_store_release_heaps(s);
            s->L = fresh->L;
            /* the session's policy (protected descriptors included) carries over */
            access_free(fresh->access);
            s->L->access = s->access;
            s->L->session = s;
            free(fresh);
            s->thread_known = false;
            enter(s);
            return;
        }
    }
    Lisp *L = s->L;
    /* the session's other Lisp threads end first (their cleanups run) */
    if (!threads_stop_others(L, THREADS_STOP_GRACE))
        fprintf(stderr, "tinycl: %d Lisp threads did not end when the session was reset; their cleanup "
                        "forms go on running while evaluations run\n", threads_others_alive(L));
    if (L->boot_snapshot == NIL) return;
    /* the snapshot's streams are copies once a restore has put back a snapshot read from a
     * checkpoint: the session's own (live) standard streams stay */
    Obj live_streams = session_guard_saved_streams(L);
    snapshot_restore(L, L->boot_snapshot, L->system_packages);
    session_guard_reinstall_streams(L, live_streams);
    threads_state_replaced(L);
    /* the last call's values would keep what they reach alive (and in a compacted state) */
    for (int i = 0; i < MULTIPLE_VALUES_LIMIT; i++) L->values[i] = NIL;
    L->nvals = 0;
    L->boot_symbols = NIL;
    if (lisp_pcall(L, FR_TOPLEVEL, reset_hook_step, NULL))
        fprintf(stderr, "tinycl: a reset hook failed (%s); the symbol state was restored anyway\n",
                error_describe_bootstrap(L, L->last_error));
    SYM(S(PACKAGE_VAR))->value = L->pkg_cl_user;
    session_store_compact(s);
}

typedef struct ListDefs { TclDefinitions *d; const char *type, *package; } ListDefs;

static void list_definitions_step(Lisp *L, void *ud) {
    ListDefs *q = (ListDefs *)ud;
    TclDefinitions *d = q->d;
    Obj fn = SYM(intern_cstr(L, L->pkg_system, "%LIST-DEFINITIONS"))->function;
    Obj t = q->type ? string_from_cstr(L, q->type) : NIL;
    Obj p = q->package ? string_from_cstr(L, q->package) : NIL;
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
}

TclDefinitions *tcl_list_definitions(TclSession *s, const char *type, const char *package) {
    enter(s);
    ListDefs q = {(TclDefinitions *)calloc(1, sizeof(TclDefinitions)), type, package};
    if (lisp_pcall(s->L, FR_TOPLEVEL, list_definitions_step, &q)) {
        TclResult tmp;
        memset(&tmp, 0, sizeof tmp);
        describe_error(s, &tmp);
        q.d->error_type = tmp.error_type;
        q.d->error_message = tmp.error_message;
        for (int i = 0; i < tmp.nbacktrace; i++) free(tmp.backtrace[i]);
        free(tmp.backtrace_lens);
        free(tmp.backtrace);
        s->L->last_error = NIL;
    }
    return q.d;
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
    /* the main thread's own stack, its soft limit raised: no thread to create, start and join
     * (tinycl's commands, where that was a tenth of `tinycl -e nil`'s system time) */
    if (lisp_main_stack_grow(EVAL_THREAD_STACK)) return fn(arg);
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

/* ---- for debugger.c ---- */

void session_describe_error(TclSession *s, TclResult *r) { describe_error(s, r); }
void session_take_output(TclSession *s, TclResult *r) {
    Budget b = {0};
    b.limit = s->opt.output_cap;
    budget_charge_output(s, &b);
    take_output(s, r, &b);
    take_warnings(s->L, r, &b);
    r->limit_note = budget_note(&b, r);
}
