/* ticker.c: the periodic half of the safe point. The safe point itself is one compare of the stack
 * pointer with L->poll_limit (state.h); what it must also notice without a countdown of its own,
 * the deadline, the heap cap and finalizers waiting to run, is delivered by one thread per process
 * that raises every registered interpreter's poll_limit every TICK_BUSY_MS, so that its
 * next safe point takes the slow path, reads the clock and polls the rest (safe_point_slow).
 *
 * An interpreter that did not reach a safe point since the previous tick is idle (between
 * evaluations, or blocked outside Lisp). While all are, the ticks slow down, doubling up to
 * TICK_IDLE_MS, and then stop: an idle process does not wake at all. A stopped ticker leaves every
 * poll_limit raised, so the first safe point any interpreter reaches afterwards takes the slow
 * path, where it checks the clock itself and restarts the ticker (ticker_safe_point); starting an
 * evaluation with a deadline restarts it too (ticker_kick). Nothing is lost while it is stopped:
 * the deadline, the heap cap and finalizers are only ever acted on at safe points.
 *
 * The thread is not started until something needs it: the first kick, which comes with the
 * first deadline (lisp_poll_soon), finalizer (weak.c) or Lisp thread (thread.c, whose lock
 * changes hands at the rounds), or the first safe point after the first
 * collection (gc.c: from then on the heap cap matters, and finalizers may be queued). Until then
 * no interpreter has anything for the slow path to notice but interrupts, which raise poll_limit
 * themselves; so `tinycl -e FORM` and the REPL, which have no time limit, create no thread for
 * it before they collect (a thread's creation is a twentieth of a start's CPU time). */
#include "state.h"
#include "ticker.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define TICK_BUSY_MS 2
#define TICK_IDLE_MS 64

static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tick_cond = PTHREAD_COND_INITIALIZER;
static Lisp **tick_lisps;
static size_t tick_count, tick_cap;
static int tick_ms = TICK_BUSY_MS;
static atomic_bool tick_started;        /* the thread exists: started by the first kick */
static atomic_bool tick_wanted;         /* a collection happened: the next safe point starts it */
static atomic_bool tick_stopped;         /* waiting for a kick, every poll_limit left raised */
static atomic_ulong tick_rounds;         /* ticks delivered, for tests (ticker_rounds) */

/* Wait up to MS milliseconds, or until a kick or a registration signals the condition. */
static void tick_wait(int ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&tick_cond, &tick_lock, &ts);
}

/* Did any interpreter reach a safe point since its poll_limit was last raised? */
static bool any_ran(void) {
    for (size_t i = 0; i < tick_count; i++)
        if (tick_lisps[i]->poll_limit != POLL_NOW) return true;
    return false;
}

/* Every interpreter idle for a while: stop until kicked. The flag is set before the last look at
 * the poll_limits, and a safe point clears its poll_limit before it reads the flag (both with full
 * fences), so either this look sees that one ran, or that safe point sees the flag and kicks. */
static void stop_until_kicked(void) {
    atomic_store(&tick_stopped, true);
    atomic_thread_fence(memory_order_seq_cst);
    while (tick_count > 0 && tick_ms != TICK_BUSY_MS && !any_ran()) pthread_cond_wait(&tick_cond, &tick_lock);
    atomic_store(&tick_stopped, false);
    tick_ms = TICK_BUSY_MS;
}

static void *tick_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&tick_lock);
    for (;;) {
        if (tick_count == 0) {
            pthread_cond_wait(&tick_cond, &tick_lock);
            continue;
        }
        tick_wait(tick_ms);
        bool busy = any_ran();
        for (size_t i = 0; i < tick_count; i++) lisp_request_poll(tick_lisps[i]);
        atomic_fetch_add_explicit(&tick_rounds, 1, memory_order_relaxed);
        if (busy) tick_ms = TICK_BUSY_MS;
        else if (tick_ms < TICK_IDLE_MS) tick_ms *= 2;
        else stop_until_kicked();
    }
    return NULL;
}

void ticker_register(Lisp *L) {
    pthread_mutex_lock(&tick_lock);
    if (tick_count == tick_cap) {
        size_t cap = tick_cap ? tick_cap * 2 : 8;
        Lisp **grown = realloc(tick_lisps, cap * sizeof *grown);
        if (!grown) abort();
        tick_lisps = grown;
        tick_cap = cap;
    }
    tick_lisps[tick_count++] = L;
    tick_ms = TICK_BUSY_MS;
    pthread_cond_signal(&tick_cond);
    pthread_mutex_unlock(&tick_lock);
}

void ticker_unregister(Lisp *L) {
    pthread_mutex_lock(&tick_lock);
    for (size_t i = 0; i < tick_count; i++)
        if (tick_lisps[i] == L) {
            tick_lisps[i] = tick_lisps[--tick_count];
            break;
        }
    pthread_mutex_unlock(&tick_lock);
}

/* The thread, started by the first kick (tick_lock held). */
static void start_locked(void) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    if (pthread_create(&t, &attr, tick_main, NULL) != 0) abort();
    pthread_attr_destroy(&attr);
    tick_ms = TICK_BUSY_MS;
    atomic_store(&tick_started, true);
}

void ticker_kick(void) {
    pthread_mutex_lock(&tick_lock);
    if (!atomic_load_explicit(&tick_started, memory_order_relaxed)) start_locked();
    else if (tick_ms != TICK_BUSY_MS) {
        tick_ms = TICK_BUSY_MS;
        pthread_cond_signal(&tick_cond);
    }
    pthread_mutex_unlock(&tick_lock);
}

void ticker_safe_point(void) {
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&tick_stopped, memory_order_relaxed) ||
        (atomic_load_explicit(&tick_wanted, memory_order_relaxed) && !atomic_load_explicit(&tick_started, memory_order_relaxed)))
        ticker_kick();
}

void ticker_want(void) { atomic_store(&tick_wanted, true); }

bool ticker_started(void) { return atomic_load_explicit(&tick_started, memory_order_acquire); }

unsigned long ticker_rounds(void) { return atomic_load_explicit(&tick_rounds, memory_order_relaxed); }
