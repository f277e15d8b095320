/* gc-signals.c: can the Boehm collector stop the world under ThreadSanitizer? Four threads
 * allocate from the collector while the main thread collects twenty times. Built by `make
 * tsan-gc-probe` with -fsanitize=thread against the system's (uninstrumented) libgc. With TSan
 * it aborts with "Signals delivery fails constantly" (docs/deploy.md says why); without TSan it
 * prints the number of collections. CALL_EVERY N makes each thread pass through a libc call that
 * TSan intercepts every N allocations (0: never), where TSan delivers the signals it deferred. */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int stop;
static long call_every;

static void *allocate(void *arg) {
    (void)arg;   /* registered with the collector by GC_pthread_create (GC_THREADS) */
    void **keep = NULL;
    for (long i = 1; !stop; i++) {
        void **p = (void **)GC_malloc(64);
        p[0] = keep;
        keep = i % 1000 ? p : NULL;
        if (call_every && i % call_every == 0) {
            pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
            pthread_mutex_lock(&m);
            pthread_mutex_unlock(&m);
        }
    }
    return NULL;
}

int main(void) {
    const char *e = getenv("CALL_EVERY");
    call_every = e ? atol(e) : 0;
    GC_INIT();
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, allocate, NULL);
    for (int i = 0; i < 20; i++) {
        GC_gcollect();
        usleep(10000);
    }
    stop = 1;
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    printf("%lu collections with 4 allocating threads\n", (unsigned long)GC_get_gc_no());
    return 0;
}
