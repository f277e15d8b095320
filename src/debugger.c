/* debugger.c: evaluations that stop at an unhandled error instead of ending (tcl_eval_debug). Each
 * runs on a thread of its own, which parks inside the debugger, its stack and dynamic state intact,
 * until a restart is chosen; meanwhile the session serves other calls on the caller's thread. */
#include "tinycl.h"
#include "session.h"
#include "../runtime/state.h"
#include "../runtime/gc.h"
#include "../runtime/eval.h"
#include "../runtime/package.h"
#include "../runtime/lstring.h"
#include "../runtime/prim.h"
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef enum { RUN_RUNNING, RUN_SUSPENDED, RUN_DONE } RunState;
typedef enum { CMD_NONE, CMD_RESTART, CMD_ABORT, CMD_TIMEOUT } CommandKind;

/* One debug evaluation. The interpreter belongs to one thread at a time: the run's thread while
 * RUNNING, the caller's while SUSPENDED or DONE; the state changes under LOCK hand it over. */
struct DebugRun {
    TclSession *s;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    RunState state;
    char *code, *package;
    size_t code_len, output_limit;
    double timeout;
    TclResult *result;        /* DONE: the evaluation's result; SUSPENDED: the suspension's report */
    TclFrame *frames;         /* SUSPENDED: the frames, for tcl_debug_frames */
    int nframes;
    CommandKind cmd;
    char *restart;
    char **values;
    int nvalues;
    double deadline;          /* the evaluation's deadline (monotonic seconds; 0: none) */
    int level;                /* suspensions in progress (a restart's own error nests one) */
};

static char *dup_str(const char *s) {
    size_t n = strlen(s ? s : "");
    char *d = (char *)malloc(n + 1);
    if (d) memcpy(d, s ? s : "", n + 1);
    return d;
}

static char *lisp_str(Obj o) {
    if (!is_string(o)) return dup_str("");
    char *s = string_to_utf8_malloc(o, NULL);
    return s ? s : dup_str("");
}

static TclResult *error_result(TclSession *s, const char *type, const char *message) {
    TclResult *r = (TclResult *)calloc(1, sizeof *r);
    r->status = TCL_ERROR;
    r->error_type = dup_str(type);
    r->error_message = dup_str(message);
    r->out = dup_str("");
    r->err = dup_str("");
    r->package = dup_str(tcl_current_package(s));
    return r;
}

static void free_frames(TclFrame *f, int n) {
    for (int i = 0; i < n; i++) {
        free(f[i].call);
        for (int j = 0; j < f[i].nlocals; j++) free(f[i].locals[j]);
        free(f[i].locals);
    }
    free(f);
}

static void run_free(struct DebugRun *d) {
    free(d->code);
    free(d->package);
    free_frames(d->frames, d->nframes);
    free(d->restart);
    for (int i = 0; i < d->nvalues; i++) free(d->values[i]);
    free(d->values);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->cond);
    free(d);
}

/* Wait until the run parks or ends; returns what to give the caller. */
static TclResult *run_wait(TclSession *s) {
    struct DebugRun *d = s->debug;
    pthread_mutex_lock(&d->lock);
    while (d->state == RUN_RUNNING) pthread_cond_wait(&d->cond, &d->lock);
    TclResult *r = d->result;
    d->result = NULL;
    RunState st = d->state;
    pthread_mutex_unlock(&d->lock);
    if (st == RUN_DONE) {
        gc_thread_join(d->thread);
        s->debug = NULL;
        run_free(d);
    }
    /* the interpreter is this thread's again */
    session_enter(s);
    return r;
}

static void run_command(TclSession *s, CommandKind cmd, const char *restart, const char *const *values, int nvalues) {
    struct DebugRun *d = s->debug;
    pthread_mutex_lock(&d->lock);
    d->cmd = cmd;
    free(d->restart);
    d->restart = restart ? dup_str(restart) : NULL;
    for (int i = 0; i < d->nvalues; i++) free(d->values[i]);
    free(d->values);
    d->values = NULL;
    d->nvalues = 0;
    if (nvalues > 0) {
        d->values = (char **)calloc((size_t)nvalues, sizeof(char *));
        for (int i = 0; i < nvalues; i++) d->values[i] = dup_str(values[i]);
        d->nvalues = nvalues;
    }
    free_frames(d->frames, d->nframes);
    d->frames = NULL;
    d->nframes = 0;
    d->state = RUN_RUNNING;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
}

static void *run_main(void *arg) {
    struct DebugRun *d = (struct DebugRun *)arg;
    TclSession *s = d->s;
    session_enter(s);
    Lisp *L = s->L;
    Obj var = intern_cstr(L, L->pkg_system, "*INTERACTIVE-DEBUGGER*");
    Obj fn = NIL;
    TclResult *r;
    if (session_find_upcall(s, "%AGENT-DEBUGGER", &fn)) {
        Obj saved = SYM(var)->value;
        SYM(var)->value = fn;
        r = tcl_eval_n(s, d->code, d->code_len, d->package, d->timeout, d->output_limit);
        SYM(var)->value = saved;
    } else {
        /* no debugger to suspend in: the evaluation does not run, and the result says why */
        r = (TclResult *)calloc(1, sizeof *r);
        r->status = TCL_ERROR;
        session_describe_error(s, r);
        r->package = strdup(tcl_current_package(s));
    }
    pthread_mutex_lock(&d->lock);
    d->result = r;
    d->state = RUN_DONE;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

/* A run suspended past its deadline is ended as a timeout by the next call into the session. */
void debugger_expire(TclSession *s) {
    struct DebugRun *d = s->debug;
    if (!d || d->state != RUN_SUSPENDED || pthread_equal(pthread_self(), d->thread)) return;
    if (d->deadline <= 0 || lisp_monotonic_now() < d->deadline) return;
    run_command(s, CMD_TIMEOUT, NULL, NULL, 0);
    TclResult *r = run_wait(s);
    tcl_result_free(s->debug_expired);
    s->debug_expired = r;
}

/* End a suspended run (reset, free): as abort-evaluation, its result dropped. */
void debugger_abandon(TclSession *s) {
    while (s->debug && s->debug->state == RUN_SUSPENDED && !pthread_equal(pthread_self(), s->debug->thread)) {
        run_command(s, CMD_ABORT, NULL, NULL, 0);
        tcl_result_free(run_wait(s));
    }
    tcl_result_free(s->debug_expired);
    s->debug_expired = NULL;
}

static const char *busy_message =
    "Another evaluation is suspended in the debugger; choose a restart with invoke-restart or end it with "
    "abort-evaluation first.";

TclResult *tcl_eval_debug(TclSession *s, const char *code, const char *package, double timeout) {
    return tcl_eval_debug_n(s, code, strlen(code), package, timeout, 0);
}

TclResult *tcl_eval_debug_n(TclSession *s, const char *code, size_t len, const char *package, double timeout,
                            size_t output_limit) {
    debugger_expire(s);
    if (s->debug) return error_result(s, "EVALUATION-SUSPENDED", busy_message);
    tcl_result_free(s->debug_expired);
    s->debug_expired = NULL;
    struct DebugRun *d = (struct DebugRun *)calloc(1, sizeof *d);
    d->s = s;
    d->code = (char *)malloc(len + 1);   /* exact: CODE may hold NUL characters */
    if (d->code) { memcpy(d->code, code, len); d->code[len] = 0; }
    d->code_len = d->code ? len : 0;
    d->output_limit = output_limit;
    d->package = package ? dup_str(package) : NULL;
    d->timeout = timeout;
    d->state = RUN_RUNNING;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->cond, NULL);
    s->debug = d;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, EVAL_THREAD_STACK);
    int rc = gc_thread_create(&d->thread, &attr, run_main, d);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        s->debug = NULL;
        run_free(d);
        return error_result(s, "ERROR", "Could not start a thread for the debug evaluation.");
    }
    return run_wait(s);
}

static TclResult *nothing_suspended(TclSession *s) {
    if (s->debug_expired) {
        /* the suspended evaluation ran out of time while it waited: say so once */
        TclResult *r = s->debug_expired;
        s->debug_expired = NULL;
        return r;
    }
    return error_result(s, "NO-SUSPENDED-EVALUATION",
                        "No evaluation is suspended in the debugger (evaluate-lisp with debug true suspends one at an unhandled error).");
}

TclResult *tcl_invoke_restart(TclSession *s, const char *restart, const char *const *values, int nvalues) {
    debugger_expire(s);
    if (!s->debug || s->debug->state != RUN_SUSPENDED) return nothing_suspended(s);
    run_command(s, CMD_RESTART, restart, values, nvalues);
    return run_wait(s);
}

TclResult *tcl_abort_evaluation(TclSession *s) {
    debugger_expire(s);
    if (!s->debug || s->debug->state != RUN_SUSPENDED) return nothing_suspended(s);
    run_command(s, CMD_ABORT, NULL, NULL, 0);
    return run_wait(s);
}

bool tcl_debug_suspended(TclSession *s) {
    debugger_expire(s);
    return s->debug && s->debug->state == RUN_SUSPENDED;
}

TclFrame *tcl_debug_frames(TclSession *s, int *count) {
    *count = 0;
    debugger_expire(s);
    struct DebugRun *d = s->debug;
    if (!d || d->state != RUN_SUSPENDED) return NULL;
    TclFrame *f = (TclFrame *)calloc((size_t)(d->nframes ? d->nframes : 1), sizeof(TclFrame));
    for (int i = 0; i < d->nframes; i++) {
        f[i].call = dup_str(d->frames[i].call);
        f[i].nlocals = d->frames[i].nlocals;
        f[i].locals = (char **)calloc((size_t)(f[i].nlocals ? f[i].nlocals : 1), sizeof(char *));
        for (int j = 0; j < f[i].nlocals; j++) f[i].locals[j] = dup_str(d->frames[i].locals[j]);
    }
    *count = d->nframes;
    return f;
}

void tcl_frames_free(TclFrame *frames, int count) { free_frames(frames, count); }

/* ---- the Lisp side: (sys:%debug-suspend condition restarts frames note) ---- */

static int list_len(Obj l) {
    int n = 0;
    for (; is_cons(l); l = CDR(l)) n++;
    return n;
}

/* The report of a suspension: RESTARTS are (name report) strings, FRAMES (call local...) strings. */
static TclResult *suspension_report(TclSession *s, Obj condition, Obj restarts, Obj frames, Obj note, int level) {
    Lisp *L = s->L;
    TclResult *r = (TclResult *)calloc(1, sizeof *r);
    L->last_error = condition;
    L->last_backtrace = NIL;
    session_describe_error(s, r);
    r->status = TCL_SUSPENDED;
    r->nrestarts = list_len(restarts);
    r->restarts = (char **)calloc((size_t)(r->nrestarts ? r->nrestarts : 1), sizeof(char *));
    int i = 0;
    for (Obj x = restarts; is_cons(x); x = CDR(x), i++) {
        char *name = lisp_str(CAR(CAR(x))), *report = lisp_str(is_cons(CDR(CAR(x))) ? CAR(CDR(CAR(x))) : NIL);
        size_t n = strlen(name) + strlen(report) + 3;
        r->restarts[i] = (char *)malloc(n);
        snprintf(r->restarts[i], n, "%s: %s", name, report);
        free(name);
        free(report);
    }
    r->nbacktrace = list_len(frames);
    r->backtrace = (char **)calloc((size_t)(r->nbacktrace ? r->nbacktrace : 1), sizeof(char *));
    i = 0;
    r->backtrace_lens = (size_t *)calloc((size_t)(r->nbacktrace ? r->nbacktrace : 1), sizeof(size_t));
    for (Obj x = frames; is_cons(x); x = CDR(x), i++) {
        r->backtrace[i] = lisp_str(CAR(CAR(x)));
        r->backtrace_lens[i] = strlen(r->backtrace[i]);
    }
    if (is_string(note)) r->note = lisp_str(note);
    r->debug_level = level;
    session_take_output(s, r);
    r->package = dup_str(tcl_current_package(s));
    L->last_error = NIL;
    return r;
}

static TclFrame *frames_of(Obj frames, int *count) {
    int n = list_len(frames);
    TclFrame *f = (TclFrame *)calloc((size_t)(n ? n : 1), sizeof(TclFrame));
    int i = 0;
    for (Obj x = frames; is_cons(x); x = CDR(x), i++) {
        f[i].call = lisp_str(CAR(CAR(x)));
        f[i].nlocals = list_len(CDR(CAR(x)));
        f[i].locals = (char **)calloc((size_t)(f[i].nlocals ? f[i].nlocals : 1), sizeof(char *));
        int j = 0;
        for (Obj v = CDR(CAR(x)); is_cons(v); v = CDR(v)) f[i].locals[j++] = lisp_str(CAR(v));
    }
    *count = n;
    return f;
}

static Obj prim_pct_debug_suspend(Lisp *L, int nargs, Obj *args) {
    (void)nargs;
    TclSession *s = (TclSession *)L->session;
    struct DebugRun *d = s ? s->debug : NULL;
    /* only the thread of a debug evaluation parks; any other evaluation ends at its error as usual */
    if (!d || d->state != RUN_RUNNING || !pthread_equal(pthread_self(), d->thread)) return NIL;
    int level = ++d->level;
    TclResult *report = suspension_report(s, args[0], args[1], args[2], args[3], level);
    int nframes;
    TclFrame *frames = frames_of(args[2], &nframes);
    /* what the caller's thread may change while this one waits */
    Frame *frames_chain = L->frames;
    CallRecord *calls = L->calls;
    int error_depth = L->error_depth;
    /* this thread's limits, which may be lowered into the headroom while a stack exhaustion is
     * handled: the caller's thread sets its own meanwhile */
    char *stack_limit = L->stack_limit, *soft = L->stack_soft_limit, *hard = L->stack_hard_limit;
    Obj undefined_refs = L->undefined_refs;   /* this evaluation's compilation unit */
    L->undefined_refs = NIL;
    d->deadline = L->deadline;
    L->frames = NULL;       /* a THROW or RETURN-FROM from another thread cannot reach this stack */
    L->calls = NULL;
    L->deadline = 0;
    pthread_mutex_lock(&d->lock);
    d->result = report;
    d->frames = frames;
    d->nframes = nframes;
    d->cmd = CMD_NONE;
    d->state = RUN_SUSPENDED;
    pthread_cond_broadcast(&d->cond);
    while (d->state == RUN_SUSPENDED) pthread_cond_wait(&d->cond, &d->lock);
    CommandKind cmd = d->cmd;
    pthread_mutex_unlock(&d->lock);
    /* this thread holds the interpreter again */
    session_enter(s);
    L->stack_limit = stack_limit;
    L->stack_soft_limit = soft;
    L->stack_hard_limit = hard;
    lisp_request_poll(L);   /* the safe point's compare takes this thread's limit again */
    L->frames = frames_chain;
    L->calls = calls;
    L->error_depth = error_depth;
    L->undefined_refs = undefined_refs;
    L->deadline = d->deadline;
    d->level--;
    if (cmd == CMD_TIMEOUT) {
        L->interrupt_kind = INTERRUPT_TIMEOUT;
        L->interrupt_pending = 1;
        safe_point_slow(L);
    }
    if (cmd == CMD_ABORT) return cons(L, keyword(L, "ABORT"), NIL);
    Obj vals = NIL;
    for (int i = d->nvalues - 1; i >= 0; i--) vals = cons(L, string_from_cstr(L, d->values[i]), vals);
    return cons(L, keyword(L, "RESTART"), cons(L, string_from_cstr(L, d->restart ? d->restart : ""), vals));
}

const PrimDef debugger_prims[] = {
    {"%DEBUG-SUSPEND", PK_SYS, prim_pct_debug_suspend, 4, 4, 0, "(condition restarts frames note)",
     "Park a debug evaluation at an unhandled error until a restart is chosen; NIL in any other evaluation."},
    {0},
};

void debugger_attach(TclSession *s) {
    s->L->session = s;
    prims_register(s->L, debugger_prims);
}
