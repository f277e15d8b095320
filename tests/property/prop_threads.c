/* prop_threads.c: property tests of Lisp threads (runtime/thread.c, stdlib-lisp/threads.lisp):
 * random programs of thread operations (counted increments under a mutex, grabs with and without
 * timeouts, waitqueue notify/wait, semaphores, special bindings with LET and PROGV, errors,
 * allocation that forces collections, yields and sleeps) run by a few threads and the session's
 * own, while the session's thread terminates and interrupts them. Invariants: the shared counter
 * equals the increments counted per thread (exactly, under the mutex), a thread's planned
 * increments all happened unless it was terminated or interrupted, every thread sees only its own
 * special bindings and the global values otherwise, JOIN-THREAD gives each thread's result, the
 * semaphore's count is what was signalled and not taken; afterwards no thread is alive and the
 * session keeps its definitions. Some programs leave threads blocked or spinning and reset the
 * session, which must end them; some checkpoint once they ended. Seeded; a failing program is
 * shrunk by dropping operations (for PROPERTY_SHRINK_SECONDS at most, default 120).
 * A watchdog makes a hang a failure: a program (or a shrinking trial) still running after
 * PROPERTY_PROGRAM_SECONDS (default 120, 90 in tests/run-property.sh; an evaluation's own limit is 30 s) ends the run with the
 * seed, the program's number and text, and how to replay it.
 * Usage: prop_threads [PROGRAMS] [SEED]   (env PROPERTY_SEED overrides the seed) */
#include "tinycl.h"
#include "prop.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

/* What a thread does, in order (thread 0 is the session's own thread). */
typedef enum {
    T_INCR, T_GRAB_TIMEOUT, T_GRAB_NOWAIT, T_CONDVAR, T_SEMAPHORE, T_SPECIAL, T_ALLOC, T_ERROR,
    T_SLEEP, T_YIELD,
    /* the session's thread only: */
    T_TERMINATE, T_INTERRUPT, T_INTERRUPT_ERROR,
    T_COUNT
} OpKind;

typedef struct Op { OpKind kind; int thread; int n; int target; } Op;

#define NTHREADS_MAX 5
#define OPS_MAX 64

typedef struct Program {
    int nthreads;          /* besides the session's own */
    int nops;
    Op ops[OPS_MAX];
    int ending;            /* 0: join all; 1: leave blocked threads and reset; 2: checkpoint after */
} Program;

/* Definitions each program runs with (a reset clears them). */
static const char *const prelude =
    "(defpackage \"PROP-THR\" (:use \"COMMON-LISP\" \"TINYCL-THREADS\"))"
    "(in-package \"PROP-THR\")"
    "(defvar *s* :global) (defvar *s2* :global2)"
    "(defvar *m* nil) (defvar *q* nil) (defvar *sem* nil) (defvar *counter* 0) (defvar *tally* nil)"
    "(defvar *gtally* nil) (defvar *sem-net* 0) (defvar *bad* nil) (defvar *interrupts* 0)"
    "(defun bad (fmt &rest args) (without-interrupts (push (apply #'format nil fmt args) *bad*)))"
    "(defun check-special (id) (unless (and (eql *s* id) (eql *s2* id)) (bad \"thread ~D saw ~S ~S\" id *s* *s2*)))"
    "(defun bump (id tally) (let ((v *counter*)) (when (zerop (random 3)) (thread-yield))"
    "  (without-interrupts (setf *counter* (1+ v)) (incf (aref tally id)))))"
    "(defun incr (id n) (dotimes (i n) (with-mutex (*m*) (bump id *tally*)) (check-special id)))"
    "(defun grab (id &key (waitp t) timeout) (with-mutex (*m* :wait-p waitp :timeout timeout)"
    "  (bump id *gtally*)) (check-special id))"
    "(defun condvar (id) (with-mutex (*m*) (condition-notify *q*)"
    "  (when (condition-wait *q* *m* :timeout 0.005)"
    "    (unless (eq (mutex-owner *m*) (current-thread)) (bad \"thread ~D woke without the mutex\" id))))"
    "  (check-special id))"
    "(defun sem (id) (without-interrupts (signal-semaphore *sem*) (incf *sem-net*))"
    "  (without-interrupts (when (wait-on-semaphore *sem* :timeout 2) (decf *sem-net*))) (check-special id))"
    "(defun bind-specials (id) (let ((*s* (list id))) (progv '(*s2*) (list :inner) (thread-yield)"
    "  (unless (and (equal *s* (list id)) (eq *s2* :inner)) (bad \"thread ~D lost its inner bindings\" id))))"
    "  (check-special id))"
    "(defun alloc (id n) (let ((l nil)) (dotimes (i n) (push (make-array 2000) l))"
    "  (unless (= (length l) n) (bad \"thread ~D lost conses\" id))) (check-special id))"
    "(defun body (id thunk) (let ((*s* id)) (progv '(*s2*) (list id) (funcall thunk) :done)))"
    "(defun interruption (id) (lambda () (without-interrupts (incf *interrupts*))"
    "  (unless (or (eql *s* id) (equal *s* (list id)) (eq *s* :global)) (bad \"interrupt in ~D saw ~S\" id *s*))))"
    "(defun finish (threads want)"
    "  (let ((results (mapcar (lambda (th) (join-thread th :default :failed :timeout 8)) threads)))"
    "    (loop for r in results for w in want for id from 1"
    "          do (unless (or (null w) (eq r w)) (bad \"thread ~D returned ~S, wanted ~S\" id r w))"
    "             (unless (member r '(:done :failed)) (bad \"thread ~D returned ~S\" id r)))"
    "    (loop for th in threads for id from 1 when (thread-alive-p th) do (bad \"thread ~D alive after join\" id))"
    "    (unless (= *counter* (+ (reduce #'+ *tally*) (reduce #'+ *gtally*)))"
    "      (bad \"counter ~D, tallies ~S ~S\" *counter* *tally* *gtally*))"
    "    (unless (= (semaphore-count *sem*) *sem-net*) (bad \"semaphore ~D, net ~D\" (semaphore-count *sem*) *sem-net*))"
    "    (when (mutex-owner *m*) (bad \"mutex still held by ~S\" (mutex-owner *m*)))"
    "    (unless (and (eq *s* :global) (eq *s2* :global2)) (bad \"globals now ~S ~S\" *s* *s2*))))";

static bool main_only(OpKind k) { return k >= T_TERMINATE; }

static void random_program(Program *p) {
    p->nthreads = 1 + (int)rnd(NTHREADS_MAX);
    p->nops = 3 + (int)rnd(OPS_MAX - 3);
    p->ending = rnd(6) == 0 ? 1 : rnd(6) == 0 ? 2 : 0;
    if (p->ending == 1 && getenv("PROPERTY_NO_LEFT")) p->ending = 0;
    for (int k = 0; k < p->nops; k++) {
        Op *o = &p->ops[k];
        o->thread = (int)rnd((unsigned)p->nthreads + 1);
        for (;;) {
            o->kind = (OpKind)rnd(T_COUNT);
            if (main_only(o->kind) && o->thread != 0) continue;
            if (o->kind == T_ERROR && (o->thread == 0 || rnd(3))) continue;   /* errors end a thread: rarer */
            break;
        }
        o->n = 1 + (int)rnd(o->kind == T_ALLOC ? 400 : 20);
        o->target = 1 + (int)rnd((unsigned)p->nthreads);
    }
}

/* The Lisp form of one operation of thread ID. */
static void op_form(const Op *o, char *buf, size_t n) {
    int id = o->thread;
    switch (o->kind) {
    case T_INCR: snprintf(buf, n, "(incr %d %d)", id, o->n); break;
    case T_GRAB_TIMEOUT: snprintf(buf, n, "(grab %d :timeout 0.00%d)", id, o->n % 10); break;
    case T_GRAB_NOWAIT: snprintf(buf, n, "(grab %d :waitp nil)", id); break;
    case T_CONDVAR: snprintf(buf, n, "(condvar %d)", id); break;
    case T_SEMAPHORE: snprintf(buf, n, "(sem %d)", id); break;
    case T_SPECIAL: snprintf(buf, n, "(bind-specials %d)", id); break;
    case T_ALLOC: snprintf(buf, n, "(alloc %d %d)", id, o->n * 10); break;
    case T_ERROR: snprintf(buf, n, "(error \"planned ~D\" %d)", id); break;
    case T_SLEEP: snprintf(buf, n, "(sleep 0.00%d)", o->n % 10); break;
    case T_YIELD: snprintf(buf, n, "(thread-yield)"); break;
    case T_TERMINATE: snprintf(buf, n, "(terminate-thread (nth %d threads))", o->target - 1); break;
    case T_INTERRUPT:
        snprintf(buf, n, "(ignore-errors (interrupt-thread (nth %d threads) (interruption %d)))", o->target - 1, o->target);
        break;
    case T_INTERRUPT_ERROR:
        snprintf(buf, n, "(ignore-errors (interrupt-thread (nth %d threads) (lambda () (error \"interrupted\"))))", o->target - 1);
        break;
    default: buf[0] = 0;
    }
}


/* The program as Lisp: the threads are made, the session's thread runs its own operations, then
 * joins them all and checks; the value is :OK or the list of what went wrong. */
static char *program_text(const Program *p) {
    Buf b = {malloc(4096), 0, 4096};
    b.s[0] = 0;
    int nt = p->nthreads;
    put(&b, "(setf *m* (make-mutex :name \"m\") *q* (make-waitqueue) *sem* (make-semaphore) *counter* 0"
            " *tally* (make-array %d :initial-element 0) *gtally* (make-array %d :initial-element 0)"
            " *sem-net* 0 *bad* nil *interrupts* 0)\n", nt + 1, nt + 1);
    put(&b, "(let* ((threads (list");
    char form[256];
    for (int t = 1; t <= nt; t++) {
        put(&b, "\n  (make-thread (lambda () (body %d (lambda ()", t);
        for (int k = 0; k < p->nops; k++)
            if (p->ops[k].thread == t) { op_form(&p->ops[k], form, sizeof form); put(&b, " %s", form); }
        put(&b, "))) :name \"t%d\")", t);
    }
    put(&b, ")))\n  (body 0 (lambda ()");
    for (int k = 0; k < p->nops; k++)
        if (p->ops[k].thread == 0) { op_form(&p->ops[k], form, sizeof form); put(&b, " %s", form); }
    put(&b, "))\n");
    if (p->ending == 1) {
        /* threads that would never end by themselves: the reset must end them */
        put(&b, "  (grab-mutex *m*)"
                "  (make-thread (lambda () (loop)) :name \"spinner\")"
                "  (make-thread (lambda () (grab-mutex *m*)) :name \"blocked on the mutex\")"
                "  (make-thread (lambda () (let ((m (make-mutex))) (with-mutex (m) (condition-wait *q* m)))) :name \"waiting\")"
                "  (make-thread (lambda () (unwind-protect (sleep 1000) (sleep 0.01))) :name \"sleeper\")"
                "  (thread-yield) :left)");
        return b.s;
    }
    /* the expected results: :failed for a planned error, :done otherwise, NIL when a terminate or an
     * erring interrupt makes it either */
    put(&b, "  (finish threads '(");
    for (int t = 1; t <= nt; t++) {
        bool err = false, either = false;
        for (int k = 0; k < p->nops; k++) {
            const Op *o = &p->ops[k];
            if (o->thread == t && o->kind == T_ERROR) err = true;
            if (o->thread == 0 && o->target == t && (o->kind == T_TERMINATE || o->kind == T_INTERRUPT_ERROR)) either = true;
        }
        put(&b, " %s", either ? "nil" : err ? ":failed" : ":done");
    }
    put(&b, "))\n");
    /* a thread neither terminated nor interrupted with an error counted all its increments up to its error */
    for (int t = 0; t <= nt; t++) {
        bool either = false;
        int want = 0;
        for (int k = 0; k < p->nops; k++) {
            const Op *o = &p->ops[k];
            if (o->thread == 0 && o->target == t && t > 0 && (o->kind == T_TERMINATE || o->kind == T_INTERRUPT_ERROR)) either = true;
        }
        for (int k = 0; k < p->nops && !either; k++) {
            const Op *o = &p->ops[k];
            if (o->thread != t) continue;
            if (o->kind == T_ERROR) break;
            if (o->kind == T_INCR) want += o->n;
        }
        if (!either)
            put(&b, "  (unless (= (aref *tally* %d) %d) (bad \"thread %d counted ~D, wanted %d\" (aref *tally* %d)))\n",
                t, want, t, want, t);
    }
    put(&b, "  (or *bad* :ok))");
    return b.s;
}

typedef struct Outcome { bool ok; char why[1024]; } Outcome;

static void fail(Outcome *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->why, sizeof o->why, fmt, ap);
    va_end(ap);
    o->ok = false;
}

static bool eval_expect(TclSession *s, const char *code, const char *want, Outcome *o, const char *what) {
    TclResult *r = tcl_eval(s, code, NULL, 30);
    bool ok = r->status == TCL_OK && r->nvalues > 0 && strcmp(r->values[0], want) == 0;
    if (!ok) {
        if (r->status == TCL_OK)
            fail(o, "%s: got %s, wanted %s", what, r->nvalues ? r->values[0] : "no value", want);
        else
            fail(o, "%s: error %s: %s", what, r->error_type ? r->error_type : "?", r->error_message ? r->error_message : "?");
    }
    tcl_result_free(r);
    return ok;
}

/* ---- the watchdog: a program that hangs ends the run with what replays it ---- */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double env_seconds(const char *name, double dflt) {
    const char *v = getenv(name);
    return v && *v ? atof(v) : dflt;
}

static struct Watch {
    pthread_mutex_t m;
    double limit;              /* seconds one run of a program may take */
    double started;            /* when the run in progress started (0: none) */
    Program program;           /* the program it runs */
    int number;                /* its number in the sequence */
    bool shrinking;
    unsigned long long seed;
    int passed, failed;
} watch = {PTHREAD_MUTEX_INITIALIZER, 120, 0, {0}, 0, false, 0, 0, 0};

static void watch_start(const Program *p) {
    pthread_mutex_lock(&watch.m);
    watch.program = *p;
    watch.started = now_s();
    pthread_mutex_unlock(&watch.m);
}

static void watch_stop(void) {
    pthread_mutex_lock(&watch.m);
    watch.started = 0;
    pthread_mutex_unlock(&watch.m);
}

static void *watchdog(void *arg) {
    (void)arg;
    for (;;) {
        sleep(1);
        pthread_mutex_lock(&watch.m);
        if (watch.started > 0 && now_s() - watch.started > watch.limit) {
            char *text = program_text(&watch.program);
            printf("HANG program %d (seed %llu)%s: still running after %.0f s (PROPERTY_PROGRAM_SECONDS)\n"
                   "  replay: PROPERTY_SEED=%llu build/tests/prop_threads %d   (PROPERTY_FROM=%d: from it alone;"
                   " PROPERTY_DUMP=%d: print it)\n  the program%s:\n%s\n",
                   watch.number, watch.seed, watch.shrinking ? " while shrinking" : "", watch.limit,
                   watch.seed, watch.number + 1, watch.number, watch.number,
                   watch.shrinking ? " (a shrinking trial)" : "", text);
            printf("property threads: %d passed, %d failed (seed %llu)\n", watch.passed, watch.failed + 1, watch.seed);
            printf("%d passed, %d failed\n", watch.passed, watch.failed + 1);
            fflush(stdout);
            _exit(1);
        }
        pthread_mutex_unlock(&watch.m);
    }
    return NULL;
}

/* Run a program on a fresh state of SESSION and check it and the session afterwards. */
static Outcome run_program_watched(TclSession *s, const Program *p);

static Outcome run_program(TclSession *s, const Program *p) {
    watch_start(p);
    Outcome o = run_program_watched(s, p);
    watch_stop();
    return o;
}

static Outcome run_program_watched(TclSession *s, const Program *p) {
    Outcome o = {true, ""};
    tcl_reset(s, false);
    if (!eval_expect(s, "(defun keep () 42)", "KEEP", &o, "the definition before")) return o;
    TclResult *r = tcl_eval(s, prelude, NULL, 60);
    bool ok = r->status == TCL_OK;
    if (!ok) fail(&o, "the prelude: %s", r->error_message ? r->error_message : "?");
    tcl_result_free(r);
    if (!ok) return o;
    char *text = program_text(p);
    if (!eval_expect(s, text, p->ending == 1 ? ":LEFT" : ":OK", &o, "the program")) { free(text); return o; }
    free(text);
    if (p->ending == 1) {
        tcl_reset(s, false);
        eval_expect(s, "(list (length (tinycl-threads:list-all-threads)) (fboundp (quote cl-user::keep)) (find-package \"PROP-THR\")"
                       " (tinycl-threads:join-thread (tinycl-threads:make-thread (lambda () :fresh))))",
                    "(1 NIL NIL :FRESH)", &o, "after the reset");
        return o;
    }
    if (!eval_expect(s, "(list (length (tinycl-threads:list-all-threads)) (cl-user::keep) prop-thr::*s* (package-name *package*))",
                     "(1 42 :GLOBAL \"PROP-THR\")", &o, "the session afterwards"))
        return o;
    if (p->ending == 2) {
        char *err = NULL;
        if (tcl_checkpoint(s, "prop-threads", &err) != 0) { fail(&o, "checkpoint refused: %s", err ? err : "?"); free(err); return o; }
        eval_expect(s, "(defun cl-user::keep () 0)", "COMMON-LISP-USER::KEEP", &o, "a redefinition");
        if (tcl_restore(s, "prop-threads", &err) != 0) { fail(&o, "restore refused: %s", err ? err : "?"); free(err); return o; }
        tcl_delete_checkpoint(s, "prop-threads", NULL);
        eval_expect(s, "(list (cl-user::keep) (length (tinycl-threads:list-all-threads)))", "(42 1)", &o, "after the restore");
    }
    return o;
}

/* Shrink: drop operations (and then threads with none) while the program still fails. */
static void shrink(TclSession *s, Program *p, Outcome *why) {
    double end = now_s() + env_seconds("PROPERTY_SHRINK_SECONDS", 120);
    bool progress = true;
    while (progress) {
        progress = false;
        for (int k = 0; k < p->nops; k++) {
            if (now_s() > end) { printf("  (shrinking stopped: PROPERTY_SHRINK_SECONDS)\n"); return; }
            Program trial = *p;
            memmove(&trial.ops[k], &trial.ops[k + 1], sizeof(Op) * (size_t)(trial.nops - k - 1));
            trial.nops--;
            Outcome o = run_program(s, &trial);
            if (!o.ok) { *p = trial; *why = o; progress = true; break; }
        }
    }
}

typedef struct Args { int programs; unsigned long long seed; int result; } Args;

static int run(void *arg) {
    Args *a = (Args *)arg;
    setvbuf(stdout, NULL, _IOLBF, 0);
    TclOptions opt = {0};
    opt.capture_output = true;
    TclSession *s = tcl_session_new(&opt);
    if (!s) { fprintf(stderr, "could not create a session\n"); return 2; }
    int passed = 0, failed = 0;
    int from = getenv("PROPERTY_FROM") ? atoi(getenv("PROPERTY_FROM")) : 0;
    if (!getenv("PROPERTY_DUMP")) printf("property threads: programs %d to %d, seed %llu\n", from, a->programs - 1, a->seed);
    watch.seed = a->seed;
    watch.limit = env_seconds("PROPERTY_PROGRAM_SECONDS", 120);
    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, NULL);
    pthread_detach(dog);
    for (int n = from; n < a->programs; n++) {
        pthread_mutex_lock(&watch.m);
        watch.number = n;
        watch.passed = passed;
        watch.failed = failed;
        pthread_mutex_unlock(&watch.m);
        rng_state = a->seed * 6364136223846793005ULL + (unsigned long long)n * 1442695040888963407ULL + 1;
        Program p;
        random_program(&p);
        if (getenv("PROPERTY_DUMP") && atoi(getenv("PROPERTY_DUMP")) == n) {
            char *text = program_text(&p);
            printf("%s\n%s\n", prelude, text);
            free(text);
            return 0;
        }
        if (getenv("PROPERTY_VERBOSE")) fprintf(stderr, "program %d at %ld\n", n, (long)time(NULL));
        Outcome o = run_program(s, &p);
        if (o.ok) { passed++; continue; }
        failed++;
        printf("FAIL program %d (seed %llu): %s\n  replay: PROPERTY_SEED=%llu build/tests/prop_threads %d"
               "   (PROPERTY_FROM=%d: from it alone)\n", n, a->seed, o.why, a->seed, n + 1, n);
        pthread_mutex_lock(&watch.m);
        watch.shrinking = true;
        pthread_mutex_unlock(&watch.m);
        shrink(s, &p, &o);
        pthread_mutex_lock(&watch.m);
        watch.shrinking = false;
        pthread_mutex_unlock(&watch.m);
        char *text = program_text(&p);
        printf("  shrunk to %d operations:\n%s\n  failure: %s\n", p.nops, text, o.why);
        free(text);
        if (failed >= 3) break;
    }
    tcl_session_free(s);
    printf("property threads: %d passed, %d failed (seed %llu)\n", passed, failed, a->seed);
    printf("%d passed, %d failed\n", passed, failed);
    a->result = failed ? 1 : 0;
    return a->result;
}

int main(int argc, char **argv) {
    Args a = {100, (unsigned long long)time(NULL), 0};
    if (argc > 1) a.programs = atoi(argv[1]);
    if (argc > 2) a.seed = strtoull(argv[2], NULL, 10);
    const char *env = getenv("PROPERTY_SEED");
    if (env && *env) a.seed = strtoull(env, NULL, 10);
    return tcl_run_with_big_stack(run, &a);
}
