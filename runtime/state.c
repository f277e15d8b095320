/* state.c: creating interpreters, stack limits, and the slow half of the safe point. */
#include "weak.h"
#include "state.h"
#include "gc.h"
#include "control.h"
#include "error.h"
#include "ticker.h"
#include "thread.h"
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <unistd.h>

void config_defaults(Config *c) {
    memset(c, 0, sizeof *c);
    c->max_heap = DEFAULT_MAX_HEAP;
    c->stack_headroom = DEFAULT_STACK_HEADROOM;
    c->stack_reserve = DEFAULT_STACK_RESERVE;
    c->timeout = 0;
    c->output_cap = DEFAULT_OUTPUT_CAP;
    c->print_length = DEFAULT_PRINT_LENGTH;
    c->print_level = DEFAULT_PRINT_LEVEL;
    c->print_max_chars = DEFAULT_PRINT_MAX_CHARS;
    c->max_read_depth = DEFAULT_MAX_READ_DEPTH;
}

extern void *__libc_stack_end;       /* glibc: the main thread's stack pointer at entry */

/* The main thread's stack, from the stack end the C library recorded and the soft limit up to
 * which the kernel grows it (a few pages of arguments and environment above the recorded end
 * are left out). pthread_getattr_np reads all of /proc/self/maps to find it; false when the
 * limit is infinite (then the next mapping below decides: asked of pthread_getattr_np). */
static bool main_thread_stack(void **addr, size_t *size) {
    struct rlimit rl;
    if (getpid() != gettid() || !__libc_stack_end || getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return false;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), top = ((uintptr_t)__libc_stack_end + page - 1) & ~(page - 1);
    if (rl.rlim_cur >= top) return false;
    *addr = (void *)(top - rl.rlim_cur);
    *size = rl.rlim_cur;
    return true;
}

bool lisp_main_stack_grow(size_t bytes) {
    struct rlimit rl;
    if (getpid() != gettid() || !__libc_stack_end || getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return false;
    if (rl.rlim_cur >= bytes) return true;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < bytes) return false;
    rl.rlim_cur = bytes;
    return setrlimit(RLIMIT_STACK, &rl) == 0;
}

void lisp_thread_stack(void **addr, size_t *size) {
    pthread_attr_t attr;
    *addr = NULL;
    *size = 0;
    if (main_thread_stack(addr, size)) return;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, addr, size);
        pthread_attr_destroy(&attr);
    }
}

void lisp_set_stack_limits(Lisp *L) {
    void *addr;
    size_t size;
    lisp_thread_stack(&addr, &size);
    char *low = (char *)addr;
    if (!low || size < ((size_t)4 << 20)) {
        /* unknown or tiny stack: assume 1 MB below here is usable */
        char *here = (char *)__builtin_frame_address(0);
        low = here - ((size_t)1 << 20);
        size = (size_t)1 << 20;
    }
    size_t reserve = L->cfg.stack_reserve, headroom = L->cfg.stack_headroom;
    if (reserve + headroom > size / 2) {
        reserve = size / 8;
        headroom = size / 8;
    }
    L->stack_hard_limit = low + reserve;
    L->stack_soft_limit = low + reserve + headroom;
    L->stack_limit = L->stack_soft_limit;
    lisp_request_poll(L);   /* the next safe point takes the new limit into poll_limit */
}

static double monotonic_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CLEANUP_GRACE 2.0

/* Unwind to the session's top level; user code cannot intercept this. */
_Noreturn static void interrupt_unwind(Lisp *L, int kind) {
    Frame *top = frame_outermost_toplevel(L);
    if (!top) {
        fputs("tinycl: interrupted with no top level\n", stderr);
        exit(130);
    }
    L->interrupt_kind = kind;
    if (!L->in_cleanup) {
        /* unwind-protect cleanups still run, but only for a bounded time */
        L->in_cleanup = true;
        L->deadline = monotonic_now() + CLEANUP_GRACE;
    }
    unwind_to(L, top, JUMP_INTERRUPT);
}

void safe_point_slow(Lisp *L) {
    /* back to the stack compare first: a request made from now on sends the next safe point here
     * again, and one made before is seen below */
    L->poll_limit = L->stack_limit;
    ticker_safe_point();   /* (a full fence first) a stopped ticker starts again */
    char *sp = (char *)__builtin_frame_address(0);
    if (sp < L->stack_limit && L->stack_limit > L->stack_soft_limit) gc_stack_probe(L, sp);
    if (sp < L->stack_limit) {
        if (L->stack_limit == L->stack_soft_limit) {
            /* let handlers run in the headroom below the soft limit */
            L->stack_limit = L->stack_hard_limit;
            L->poll_limit = L->stack_limit;
            err_storage(L, "Control stack exhausted (no more space for function call frames). "
                           "This is probably due to heavily nested or infinitely recursive function calls.");
        }
        /* the headroom is used up too: no handler may run; go straight to the top level */
        Frame *top = frame_toplevel(L);
        L->last_error = cons(L, S(STORAGE_CONDITION), NIL);
        if (!top) { fputs("tinycl: control stack exhausted\n", stderr); exit(70); }
        unwind_to(L, top, JUMP_ERROR);
    }
    /* the evaluation's interrupts and deadline stop the session's own thread (thread.h) */
    if (threads_on_main(L)) {
        if (L->interrupt_pending) {
            L->interrupt_pending = 0;
            int kind = L->interrupt_kind ? L->interrupt_kind : INTERRUPT_USER;
            interrupt_unwind(L, kind);
        }
        if (L->deadline > 0 && monotonic_now() >= L->deadline)
            interrupt_unwind(L, L->in_cleanup ? L->interrupt_kind : INTERRUPT_TIMEOUT);
    }
    /* small allocations are not checked one by one: the heap cap is polled here */
    gc_poll_heap(L);
    /* finalizers run here, in their interpreter's thread, never inside the collector */
    weak_run_finalizers(L);
    /* the running thread's interrupts and termination; the lock to a thread that waits for it */
    if (L->threads) threads_safe_point(L);
}

void lisp_poll_soon(Lisp *L) {
    lisp_request_poll(L);
    /* without a deadline no tick is needed yet: the thread is not started for this (ticker.c) */
    if (L->deadline > 0 || ticker_started()) ticker_kick();
}

double lisp_monotonic_now(void) { return monotonic_now(); }
