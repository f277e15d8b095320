/* fuzz_watchdog.h: a thread that interrupts an evaluation running longer than its budget, as a
 * client's notifications/cancelled would, so that a slow input ends instead of stalling the fuzzer. */
#ifndef TINYCL_FUZZ_WATCHDOG_H
#define TINYCL_FUZZ_WATCHDOG_H

#include "tinycl.h"
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define FUZZ_BUDGET_SECONDS 3.0

static TclSession *fuzz_watched;
static _Atomic double fuzz_started;     /* monotonic seconds; 0 while idle */

static double fuzz_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *fuzz_watchdog_main(void *arg) {
    (void)arg;
    for (;;) {
        struct timespec tick = {0, 100 * 1000 * 1000};
        nanosleep(&tick, NULL);
        double t0 = atomic_load(&fuzz_started);
        if (t0 > 0 && fuzz_now() - t0 > FUZZ_BUDGET_SECONDS) tcl_interrupt(fuzz_watched);
    }
    return NULL;
}

static void fuzz_watchdog_start(TclSession *s) {
    fuzz_watched = s;
    pthread_t t;
    pthread_create(&t, NULL, fuzz_watchdog_main, NULL);
    pthread_detach(t);
}

static void fuzz_watch_begin(void) { atomic_store(&fuzz_started, fuzz_now()); }
static void fuzz_watch_end(void) { atomic_store(&fuzz_started, 0.0); }

#endif
