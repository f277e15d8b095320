/* sessions.c: the pool of interpreters: each session boots and runs on a thread of its own (a big
 * stack, registered with the collector), so a runaway evaluation in one never holds up another;
 * calls to one session run one at a time. Handles are 128 random bits. */
#include "sessions.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/random.h>

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_released = PTHREAD_COND_INITIALIZER;   /* a reference was dropped */
static McpSession *pool;                 /* live sessions (not ended) */
static int pool_count;                   /* sessions not yet destroyed (counted against the limit) */
static TclOptions pool_options;
static int pool_max = 16;
static double pool_idle_ms = 30 * 60 * 1000.0;
static void (*pool_setup)(TclSession *, McpSession *);

double mcp_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void mcp_pool_init(const TclOptions *options, int max_sessions, double idle_seconds,
                   void (*setup)(TclSession *, McpSession *)) {
    pthread_mutex_lock(&pool_lock);
    pool_options = *options;
    if (max_sessions > 0) pool_max = max_sessions;
    pool_idle_ms = idle_seconds > 0 ? idle_seconds * 1000 : 0;
    pool_setup = setup;
    pthread_mutex_unlock(&pool_lock);
}

int mcp_pool_count(void) {
    pthread_mutex_lock(&pool_lock);
    int n = pool_count;
    pthread_mutex_unlock(&pool_lock);
    return n;
}

int mcp_pool_max(void) { return pool_max; }

static bool make_handle(char *out) {
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return false;
    memcpy(out, "tcl-", 4);
    for (int i = 0; i < 16; i++) snprintf(out + 4 + 2 * i, 3, "%02x", r[i]);
    return true;
}

/* ---- the session's thread ---- */

static int worker_main(void *arg) {
    McpSession *ms = (McpSession *)arg;
    TclSession *ts = tcl_session_new(&pool_options);
    if (ts && pool_setup) pool_setup(ts, ms);
    pthread_mutex_lock(&ms->lock);
    ms->ts = ts;
    ms->boot_failed = ts == NULL;
    pthread_cond_broadcast(&ms->cond);
    for (;;) {
        while (!ms->job && !ms->ended) pthread_cond_wait(&ms->cond, &ms->lock);
        if (!ms->job) break;
        McpSessionJob fn = ms->job;
        void *job_arg = ms->job_arg;
        pthread_mutex_unlock(&ms->lock);
        fn(ts, job_arg);
        pthread_mutex_lock(&ms->lock);
        /* an interruption that came after the job ended was meant for it */
        tcl_interrupt_clear(ts);
        ms->job = NULL;
        ms->job_done = true;
        pthread_cond_broadcast(&ms->cond);
    }
    ms->ts = NULL;
    pthread_mutex_unlock(&ms->lock);
    tcl_session_free(ts);
    return 0;
}

/* A plain thread that starts the session's big-stack thread and waits for it. */
static void *outer_main(void *arg) {
    tcl_run_with_big_stack(worker_main, arg);
    McpSession *ms = (McpSession *)arg;
    pthread_mutex_lock(&ms->lock);
    ms->job = NULL;
    ms->job_done = true;    /* a job queued after the end never runs: its caller sees no result */
    pthread_cond_broadcast(&ms->cond);
    pthread_mutex_unlock(&ms->lock);
    return NULL;
}

static void destroy(McpSession *ms) {
    pthread_join(ms->outer, NULL);
    pthread_mutex_destroy(&ms->lock);
    pthread_cond_destroy(&ms->cond);
    mcp_outbox_free(&ms->outbox);
    free(ms);
    pthread_mutex_lock(&pool_lock);
    pool_count--;
    pthread_mutex_unlock(&pool_lock);
}

McpSession *mcp_pool_create(char *err, size_t errlen) {
    McpSession *ms = (McpSession *)calloc(1, sizeof *ms);
    if (!ms || !make_handle(ms->handle)) {
        free(ms);
        snprintf(err, errlen, "could not make a session handle");
        return NULL;
    }
    pthread_mutex_init(&ms->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ms->cond, &ca);
    pthread_condattr_destroy(&ca);
    mcp_outbox_init(&ms->outbox);
    ms->refs = 2;
    ms->version = V2025_11_25;
    ms->last_used = mcp_now_ms();
    pthread_mutex_lock(&pool_lock);
    if (pool_count >= pool_max) {
        pthread_mutex_unlock(&pool_lock);
        snprintf(err, errlen, "the server holds its maximum of %d sessions (tinycl mcp --max-sessions N); "
                 "end one (end-session, or DELETE over HTTP) or wait for an idle one to expire", pool_max);
        pthread_mutex_destroy(&ms->lock);
        pthread_cond_destroy(&ms->cond);
        mcp_outbox_free(&ms->outbox);
        free(ms);
        return NULL;
    }
    pool_count++;
    pthread_mutex_unlock(&pool_lock);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 << 10);
    int rc = pthread_create(&ms->outer, &attr, outer_main, ms);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        snprintf(err, errlen, "could not start a thread for the session");
        pthread_mutex_lock(&pool_lock);
        pool_count--;
        pthread_mutex_unlock(&pool_lock);
        mcp_outbox_free(&ms->outbox);
        free(ms);
        return NULL;
    }
    pthread_mutex_lock(&ms->lock);
    while (!ms->ts && !ms->boot_failed) pthread_cond_wait(&ms->cond, &ms->lock);
    bool failed = ms->boot_failed;
    if (failed) ms->ended = true;
    pthread_mutex_unlock(&ms->lock);
    if (failed) {
        snprintf(err, errlen, "the session's interpreter could not start");
        destroy(ms);
        return NULL;
    }
    pthread_mutex_lock(&pool_lock);
    ms->next = pool;
    pool = ms;
    pthread_mutex_unlock(&pool_lock);
    return ms;
}

McpSession *mcp_pool_find(const char *handle) {
    McpSession *found = NULL;
    pthread_mutex_lock(&pool_lock);
    for (McpSession *ms = pool; ms; ms = ms->next)
        if (strcmp(ms->handle, handle) == 0) { found = ms; ms->refs++; break; }
    pthread_mutex_unlock(&pool_lock);
    return found;
}

void mcp_pool_release(McpSession *ms) {
    if (!ms) return;
    pthread_mutex_lock(&pool_lock);
    bool last = --ms->refs == 0;
    pthread_cond_broadcast(&pool_released);
    pthread_mutex_unlock(&pool_lock);
    if (last) destroy(ms);
}

/* Mark MS ended (it is off the list already) and drop the pool's reference. */
static void end_session(McpSession *ms) {
    pthread_mutex_lock(&ms->lock);
    ms->ended = true;
    if (ms->ts && ms->job) tcl_cancel(ms->ts);
    pthread_cond_broadcast(&ms->cond);
    pthread_mutex_unlock(&ms->lock);
    mcp_outbox_close(&ms->outbox);   /* its GET stream ends */
    mcp_pool_release(ms);
}

/* How long an end waits for the session's other holders (its GET stream, a call being interrupted:
 * its cleanups have two seconds) to let it go. */
#define END_WAIT_SECONDS 5

bool mcp_pool_end(const char *handle) {
    McpSession *found = NULL;
    pthread_mutex_lock(&pool_lock);
    for (McpSession **p = &pool; *p; p = &(*p)->next)
        if (strcmp((*p)->handle, handle) == 0) {
            found = *p;
            *p = found->next;
            found->refs++;      /* ours, while we wait below */
            break;
        }
    pthread_mutex_unlock(&pool_lock);
    if (!found) return false;
    end_session(found);
    /* The session counts against the limit until it is destroyed. Its GET stream and an
     * interrupted call drop their references a moment after the end: wait for them (bounded), so
     * that a client told its session ended can start another at once at the limit. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += END_WAIT_SECONDS;
    pthread_mutex_lock(&pool_lock);
    while (found->refs > 1 && pthread_cond_timedwait(&pool_released, &pool_lock, &until) != ETIMEDOUT) {}
    pthread_mutex_unlock(&pool_lock);
    mcp_pool_release(found);
    return true;
}

int mcp_pool_expire(void) {
    if (pool_idle_ms <= 0) return 0;
    McpSession *gone = NULL;
    double t = mcp_now_ms();
    pthread_mutex_lock(&pool_lock);
    for (McpSession **p = &pool; *p;) {
        McpSession *ms = *p;
        pthread_mutex_lock(&ms->lock);
        bool idle = !ms->busy && t - ms->last_used > pool_idle_ms;
        pthread_mutex_unlock(&ms->lock);
        if (idle) {
            *p = ms->next;
            ms->next = gone;
            gone = ms;
        } else {
            p = &ms->next;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    int n = 0;
    while (gone) {
        McpSession *next = gone->next;
        end_session(gone);
        gone = next;
        n++;
    }
    return n;
}

void mcp_pool_shutdown(void) {
    pthread_mutex_lock(&pool_lock);
    McpSession *all = pool;
    pool = NULL;
    pthread_mutex_unlock(&pool_lock);
    while (all) {
        McpSession *next = all->next;
        end_session(all);
        all = next;
    }
}

void mcp_pool_cancel_busy(void) {
    pthread_mutex_lock(&pool_lock);
    for (McpSession *ms = pool; ms; ms = ms->next) {
        pthread_mutex_lock(&ms->lock);
        if (ms->ts && ms->job) tcl_cancel(ms->ts);
        pthread_mutex_unlock(&ms->lock);
    }
    pthread_mutex_unlock(&pool_lock);
}

/* ---- one call at a time ---- */

bool mcp_session_acquire(McpSession *ms) {
    pthread_mutex_lock(&ms->lock);
    while (ms->busy && !ms->ended) pthread_cond_wait(&ms->cond, &ms->lock);
    bool ok = !ms->ended;
    if (ok) ms->busy = true;
    pthread_mutex_unlock(&ms->lock);
    return ok;
}

void mcp_session_release(McpSession *ms) {
    pthread_mutex_lock(&ms->lock);
    ms->busy = false;
    ms->last_used = mcp_now_ms();
    pthread_cond_broadcast(&ms->cond);
    pthread_mutex_unlock(&ms->lock);
}

void mcp_session_start(McpSession *ms, McpSessionJob fn, void *arg) {
    pthread_mutex_lock(&ms->lock);
    ms->job = fn;
    ms->job_arg = arg;
    ms->job_done = false;
    ms->last_used = mcp_now_ms();
    pthread_cond_broadcast(&ms->cond);
    pthread_mutex_unlock(&ms->lock);
}

bool mcp_session_wait(McpSession *ms, double timeout_ms) {
    pthread_mutex_lock(&ms->lock);
    if (timeout_ms < 0) {
        while (!ms->job_done) pthread_cond_wait(&ms->cond, &ms->lock);
    } else if (!ms->job_done) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        long long ns = until.tv_nsec + (long long)(timeout_ms * 1e6);
        until.tv_sec += (time_t)(ns / 1000000000LL);
        until.tv_nsec = (long)(ns % 1000000000LL);
        while (!ms->job_done)
            if (pthread_cond_timedwait(&ms->cond, &ms->lock, &until) == ETIMEDOUT) break;
    }
    bool done = ms->job_done;
    pthread_mutex_unlock(&ms->lock);
    return done;
}

bool mcp_session_run(McpSession *ms, McpSessionJob fn, void *arg) {
    if (!mcp_session_acquire(ms)) return false;
    mcp_session_start(ms, fn, arg);
    mcp_session_wait(ms, -1);
    mcp_session_release(ms);
    return true;
}
