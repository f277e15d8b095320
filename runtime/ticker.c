/* ticker.c: the periodic half of the safe point. The safe point itself is one compare of the stack
 * pointer with L->poll_limit (state.h); what it must also notice without a countdown of its own,
 * the deadline, the heap cap and finalizers waiting to run, is delivered by one thread per process
 * that raises every registered interpreter's poll_limit every TICK_BUSY_MS, so that its
 * next safe point takes the slow path, reads the clock and polls the rest (safe_point_slow).
 * An interpreter that did not reach a safe point since the previous tick is idle; while all are,
 * the ticks slow down to TICK_IDLE_MS, and ticker_kick (an evaluation starting) speeds them up. */
#include "state.h"
#include "ticker.h"
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define TICK_BUSY_MS 2
#define TICK_IDLE_MS 250

static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tick_cond = PTHREAD_COND_INITIALIZER;
static Lisp **tick_lisps;
static size_t tick_count, tick_cap;
static int tick_ms = TICK_BUSY_MS;
static bool tick_started;

/* Wait up to MS milliseconds, or until a kick or a registration signals the condition. */
static void tick_wait(int ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&tick_cond, &tick_lock, &ts);
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
        bool busy = false;
        for (size_t i = 0; i < tick_count; i++) {
            Lisp *L = tick_lisps[i];
            /* the previous tick was taken: this interpreter reached a safe point since */
            if (L->poll_limit != POLL_NOW) busy = true;
            lisp_request_poll(L);
        }
        if (busy) tick_ms = TICK_BUSY_MS;
        else if (tick_ms < TICK_IDLE_MS) tick_ms = tick_ms * 2 > TICK_IDLE_MS ? TICK_IDLE_MS : tick_ms * 2;
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
    if (!tick_started) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        if (pthread_create(&t, &attr, tick_main, NULL) != 0) abort();
        pthread_attr_destroy(&attr);
        tick_started = true;
    }
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

void ticker_kick(void) {
    pthread_mutex_lock(&tick_lock);
    if (tick_ms != TICK_BUSY_MS) {
        tick_ms = TICK_BUSY_MS;
        pthread_cond_signal(&tick_cond);
    }
    pthread_mutex_unlock(&tick_lock);
}
