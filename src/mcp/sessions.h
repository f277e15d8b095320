/* sessions.h: the server's pool of interpreters, each its own TclSession on its own thread, named
 * by an unguessable handle (create-session, and the Mcp-Session-Id of Streamable HTTP). */
#ifndef TINYCL_MCP_SESSIONS_H
#define TINYCL_MCP_SESSIONS_H

#include "mcp.h"
#include "outbox.h"
#include <pthread.h>

#define MCP_HANDLE_CHARS 43          /* "tcl-" and 32 hex digits (128 random bits), NUL included */

typedef void (*McpSessionJob)(TclSession *ts, void *arg);

typedef struct McpSession {
    char handle[MCP_HANDLE_CHARS];
    TclSession *ts;                  /* NULL until the worker has booted it */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs;                        /* the pool's own reference and each caller's (lock of the pool) */
    bool ended;                      /* no new calls; the worker leaves when the running one ends */
    bool busy;                       /* a caller holds the session (mcp_session_acquire) */
    McpSessionJob job;               /* queued for the worker, or NULL */
    void *job_arg;
    bool job_done;
    double last_used;                /* monotonic ms */
    bool boot_failed;
    /* protocol state of an HTTP session made by initialize */
    McpVersion version;
    bool legacy;                     /* made by initialize: Mcp-Session-Id names it */
    McpOutbox outbox;                /* its notifications, for the HTTP GET stream */
    char log_sink[MCP_HANDLE_CHARS]; /* during a call from another session: whose stream gets its logs (lock) */
    pthread_t outer;
    struct McpSession *next;
} McpSession;

/* Set the options every new interpreter gets, the limits, and SETUP (called on each new session's
 * thread after its boot with the interpreter and its session, for transport-specific settings;
 * may be NULL). */
void mcp_pool_init(const TclOptions *options, int max_sessions, double idle_seconds,
                   void (*setup)(TclSession *, struct McpSession *));
/* A new session, booted, with one reference for the caller; NULL (ERR filled) when the pool is full
 * or the interpreter could not start. */
McpSession *mcp_pool_create(char *err, size_t errlen);
/* The live session named HANDLE, with a reference for the caller; NULL when unknown or ended. */
McpSession *mcp_pool_find(const char *handle);
void mcp_pool_release(McpSession *ms);
/* End the session named HANDLE (an evaluation running in it is interrupted); false when unknown. */
bool mcp_pool_end(const char *handle);
/* End every session idle longer than the idle limit; returns how many. */
int mcp_pool_expire(void);
int mcp_pool_count(void);
int mcp_pool_max(void);
/* End every session and wait for their threads. */
void mcp_pool_shutdown(void);
/* Interrupt whatever runs in any session (stdio: the one call in flight there). */
void mcp_pool_cancel_busy(void);

/* Take the session for one call (waits while another caller has it); false when it ended meanwhile. */
bool mcp_session_acquire(McpSession *ms);
void mcp_session_release(McpSession *ms);
/* Queue FN(ARG) on the session's thread (the caller holds it: mcp_session_acquire). */
void mcp_session_start(McpSession *ms, McpSessionJob fn, void *arg);
/* Wait up to TIMEOUT_MS (negative: no limit) for the queued job; true when it has finished. */
bool mcp_session_wait(McpSession *ms, double timeout_ms);
/* Run FN(ARG) on the session's thread and wait for it (acquire, start, wait, release). */
bool mcp_session_run(McpSession *ms, McpSessionJob fn, void *arg);

/* ---- calling tools with a `session` argument (tools-sessions.c) ---- */
/* One tools/call: the context, the tool, its arguments without `session`, the pool session it runs
 * on (referenced; NULL: ctx->session, on the caller's thread) and its result. */
typedef struct McpToolCall {
    McpContext ctx;
    const Tool *tool;
    cJSON *args;
    McpSession *target;
    cJSON *result;
} McpToolCall;
/* Find where the call runs; false with c->result set to a tool error when it cannot run. Either way
 * mcp_tool_call_finish releases what it holds. */
bool mcp_tool_call_prepare(McpToolCall *c, McpContext *ctx, const Tool *t, const cJSON *args, McpSession *fallback);
/* The job that runs the handler (on the target's thread; TS NULL: ctx->session). */
void mcp_tool_call_job(TclSession *ts, void *arg);
void mcp_tool_call_finish(McpToolCall *c);
/* The tool error of a call that could not reach its session (text alone, isError). */
cJSON *mcp_session_call_error(McpContext *ctx, const char *type, const char *message);
/* create-session and end-session need no session. */
bool mcp_tool_is_stateless(const Tool *t);
/* Call tool T: on the session named by ARGS' `session` when given, else on FALLBACK when not NULL,
 * else on ctx->session (stdio's default session) when not NULL, else a tool error saying that the
 * call needs a session. The `session` member is not passed on to the handler. */
cJSON *mcp_call_tool(McpContext *ctx, const Tool *t, const cJSON *args, McpSession *fallback);

double mcp_now_ms(void);

#endif
