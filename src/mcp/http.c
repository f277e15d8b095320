/* http.c: `tinycl mcp --http [HOST:]PORT`: the Streamable HTTP transport at /mcp on libmicrohttpd.
 * A legacy client's initialize makes a session (its own interpreter, named by Mcp-Session-Id); a
 * request whose _meta names 2026-07-28 is served statelessly, its state reached through the
 * `session` argument. Each connection has its own thread, each session its own: a slow evaluation
 * holds up only the calls to its own session. GET opens a session's stream of log messages
 * (outbox.c); batches are served only to sessions of the revisions that had them. */
#include "mcp.h"
#include "sessions.h"
#include "input.h"
#include "../cli.h"
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define MCP_PATH "/mcp"
#define PROGRESS_EVERY_MS 1000
#define KEEPALIVE_MS 15000

static char *bearer;                 /* the token requests must carry, or NULL */
static const char *allowed_origin;   /* --allow-origin, or NULL */
static bool loopback_only;           /* bound to a loopback address: Host must name one too */
static size_t max_body = MCP_DEFAULT_MAX_MESSAGE;
static double default_timeout = 30;
static char *instructions;
static int listen_fd = -1;

/* ---- options ---- */

int mcp_http_option(CliOptions *o, int argc, char **argv) {
    const char *a = argv[0];
    bool takes = strcmp(a, "--http") == 0 || strcmp(a, "--token-file") == 0 || strcmp(a, "--allow-origin") == 0 ||
                 strcmp(a, "--max-sessions") == 0 || strcmp(a, "--idle-timeout") == 0;
    if (!takes) return 0;
    if (argc < 2 || !argv[1][0]) {
        fprintf(stderr, "tinycl: %s needs a value\n", a);
        return -1;
    }
    const char *v = argv[1];
    char *end = NULL;
    if (strcmp(a, "--http") == 0) o->http = v;
    else if (strcmp(a, "--token-file") == 0) o->token_file = v;
    else if (strcmp(a, "--allow-origin") == 0) o->allow_origin = v;
    else if (strcmp(a, "--max-sessions") == 0) {
        long n = strtol(v, &end, 10);
        if (*end || n < 1 || n > 100000) { fprintf(stderr, "tinycl: --max-sessions needs a number from 1 to 100000\n"); return -1; }
        o->max_sessions = (int)n;
    } else {
        double t = strtod(v, &end);
        if (*end || t < 0) { fprintf(stderr, "tinycl: --idle-timeout needs a number of seconds (0: never)\n"); return -1; }
        o->idle_timeout = t == 0 ? -1 : t;
    }
    return 2;
}

/* ---- replies ---- */

/* While a batch is served (on this connection's thread), the answers to its members gather here
 * instead of going out one by one. */
static _Thread_local cJSON *batch_answers;

static cJSON *rpc_error(const cJSON *id, int code, const char *message) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    if (id) cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, 1));
    cJSON *e = cJSON_AddObjectToObject(r, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    return r;
}

static cJSON *rpc_result(const cJSON *id, cJSON *result) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, 1));
    cJSON_AddItemToObject(r, "result", result);
    return r;
}

/* The wire text of MSG: UTF-8 whatever its strings held (jsontext.c). Malloc'd. */
static char *wire_text(const cJSON *msg, size_t *len) {
    char *text = cJSON_PrintUnformatted(msg);
    if (!text) return NULL;
    size_t clean_len;
    char *clean = mcp_json_wire_utf8(text, strlen(text), &clean_len);
    if (clean) { free(text); *len = clean_len; return clean; }
    *len = strlen(text);
    return text;
}

static enum MHD_Result queue_text(struct MHD_Connection *c, unsigned status, const char *type, const char *text) {
    if (batch_answers) return MHD_YES;   /* a batch member that gets no answer (202) */
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED) MHD_add_response_header(r, "Allow", "GET, POST, DELETE");
    if (status == MHD_HTTP_UNAUTHORIZED) MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* Queue MSG (taken over) as a JSON body; SESSION: the Mcp-Session-Id to name, or NULL. */
static enum MHD_Result queue_json(struct MHD_Connection *c, unsigned status, cJSON *msg, const char *session) {
    if (batch_answers) {
        cJSON_AddItemToArray(batch_answers, msg);
        return MHD_YES;
    }
    size_t len = 0;
    char *text = wire_text(msg, &len);
    cJSON_Delete(msg);
    if (!text) return MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    if (session) MHD_add_response_header(r, "Mcp-Session-Id", session);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result queue_error(struct MHD_Connection *c, unsigned status, const cJSON *id, int code, const char *message) {
    return queue_json(c, status, rpc_error(id, code, message), NULL);
}

/* ---- who may call: DNS rebinding (Host, Origin) and the bearer token ---- */

/* Is the host part of HOSTPORT ("name:port", "[v6]:port", or a URL's authority) a loopback name? */
static bool loopback_host(const char *hostport, size_t n) {
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (int i = 0; i < 3; i++) {
        size_t k = strlen(names[i]);
        if (n >= k && strncasecmp(hostport, names[i], k) == 0 && (n == k || hostport[k] == ':')) return true;
    }
    return false;
}

static bool origin_allowed(const char *origin) {
    if (allowed_origin && strcmp(origin, allowed_origin) == 0) return true;
    const char *p = strstr(origin, "://");
    if (!p) return false;
    p += 3;
    size_t n = strcspn(p, "/");
    return loopback_host(p, n);
}

/* Constant-time comparison: the time a wrong token takes tells nothing of the right one. */
static bool token_matches(const char *got) {
    size_t want = strlen(bearer), n = strlen(got);
    unsigned diff = (unsigned)(want ^ n);
    for (size_t i = 0; i < want; i++) diff |= (unsigned char)bearer[i] ^ (unsigned char)(i < n ? got[i] : 0);
    return diff == 0;
}

/* An answer refusing the request, or MHD_YES with *REFUSED false when it may go on. */
static enum MHD_Result check_caller(struct MHD_Connection *c, bool *refused) {
    *refused = true;
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (loopback_only && (!host || !loopback_host(host, strlen(host))))
        return queue_text(c, MHD_HTTP_FORBIDDEN, "text/plain", "Forbidden: the Host header must name the loopback address\n");
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    if (origin && !origin_allowed(origin))
        return queue_text(c, MHD_HTTP_FORBIDDEN, "text/plain", "Forbidden: this Origin may not call the server "
                          "(tinycl mcp --allow-origin ORIGIN)\n");
    if (bearer) {
        const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        if (!auth || strncasecmp(auth, "Bearer ", 7) != 0 || !token_matches(auth + 7))
            return queue_text(c, MHD_HTTP_UNAUTHORIZED, "text/plain", "Unauthorized: a bearer token is required\n");
    }
    *refused = false;
    return MHD_YES;
}

/* ---- calls in flight, for notifications/cancelled ---- */

typedef struct Running {
    char owner[MCP_HANDLE_CHARS];    /* the Mcp-Session-Id the request came with */
    cJSON *id;
    McpSession *target;              /* where it runs (NULL: on the connection's thread) */
    bool cancelled;
    struct Running *next;
} Running;

static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static Running *running;

static bool ids_equal(const cJSON *a, const cJSON *b) {
    if (cJSON_IsString(a) && cJSON_IsString(b)) return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) return a->valuedouble == b->valuedouble;
    return false;
}

static void running_add(Running *r) {
    pthread_mutex_lock(&running_lock);
    r->next = running;
    running = r;
    pthread_mutex_unlock(&running_lock);
}

/* Take R off the list; whether it was cancelled. */
static bool running_remove(Running *r) {
    pthread_mutex_lock(&running_lock);
    for (Running **p = &running; *p; p = &(*p)->next)
        if (*p == r) { *p = r->next; break; }
    bool cancelled = r->cancelled;
    pthread_mutex_unlock(&running_lock);
    return cancelled;
}

static void running_cancel(const char *owner, const cJSON *id) {
    pthread_mutex_lock(&running_lock);
    for (Running *r = running; r; r = r->next)
        if (strcmp(r->owner, owner) == 0 && ids_equal(r->id, id)) {
            r->cancelled = true;
            if (r->target) {
                pthread_mutex_lock(&r->target->lock);
                if (r->target->ts && r->target->job) tcl_cancel(r->target->ts);
                pthread_mutex_unlock(&r->target->lock);
            }
        }
    pthread_mutex_unlock(&running_lock);
}

/* ---- a tools/call: answered as JSON, or as an SSE stream when it asked for progress ---- */

typedef struct Call {
    McpToolCall call;
    Running run;
    bool started, done, cleaned;
    cJSON *id;
    cJSON *token;
    pthread_mutex_t plock;           /* the progress message */
    char progress_message[200];
    double started_at, last_progress, last_write, progress_value;
    char *pending;                   /* SSE bytes not yet handed to the server */
    size_t pending_len, pending_pos;
    bool final_sent;
    bool modern;
    bool sink_set;                   /* the target's logs go to the caller's stream meanwhile */
} Call;

static void call_progress(McpContext *ctx, const char *message) {
    Call *k = (Call *)ctx->hook_data;
    pthread_mutex_lock(&k->plock);
    snprintf(k->progress_message, sizeof k->progress_message, "%s", message ? message : "");
    pthread_mutex_unlock(&k->plock);
}

/* Wait for the call to end (up to TIMEOUT_MS; negative: no limit); true when it has. */
static bool call_wait(Call *k, double timeout_ms) {
    if (k->done) return true;
    if (!k->call.target) return k->done = true;
    if (mcp_session_wait(k->call.target, timeout_ms)) k->done = true;
    return k->done;
}

static void call_cleanup(Call *k) {
    if (k->cleaned) return;
    k->cleaned = true;
    if (k->started && k->call.target && !k->done) {
        /* the client went away: stop the evaluation, and wait, since it writes into K */
        pthread_mutex_lock(&k->call.target->lock);
        if (k->call.target->ts) tcl_cancel(k->call.target->ts);
        pthread_mutex_unlock(&k->call.target->lock);
        call_wait(k, -1);
    }
    if (k->started) running_remove(&k->run);
    if (k->sink_set) {
        pthread_mutex_lock(&k->call.target->lock);
        k->call.target->log_sink[0] = 0;
        pthread_mutex_unlock(&k->call.target->lock);
    }
    if (k->started && k->call.target) mcp_session_release(k->call.target);
    mcp_tool_call_finish(&k->call);
    cJSON_Delete(k->call.result);
    cJSON_Delete(k->id);
    cJSON_Delete(k->token);
    cJSON_Delete(k->run.id);
    free(k->pending);
    pthread_mutex_destroy(&k->plock);
}

static void call_free(void *p) {
    Call *k = (Call *)p;
    call_cleanup(k);
    free(k);
}

/* The final response of a finished call (NULL: it was cancelled and gets none). */
static cJSON *call_response(Call *k) {
    bool cancelled = running_remove(&k->run);
    if (cancelled) return NULL;
    cJSON *result = k->call.result;
    k->call.result = NULL;
    if (!result) result = mcp_session_call_error(&k->call.ctx, "UNKNOWN-SESSION", "The session ended during the call.");
    if (k->modern) mcp_mark_complete(result);
    return rpc_result(k->id, result);
}

static void sse_put(Call *k, const cJSON *msg) {
    size_t len = 0;
    char *text = wire_text(msg, &len);
    if (!text) return;
    free(k->pending);
    k->pending = NULL;
    if (asprintf(&k->pending, "event: message\ndata: %s\n\n", text) < 0) k->pending = NULL;
    k->pending_len = k->pending ? strlen(k->pending) : 0;
    k->pending_pos = 0;
    free(text);
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    Call *k = (Call *)cls;
    for (;;) {
        if (k->pending && k->pending_pos < k->pending_len) {
            size_t n = k->pending_len - k->pending_pos;
            if (n > max) n = max;
            memcpy(buf, k->pending + k->pending_pos, n);
            k->pending_pos += n;
            k->last_write = mcp_now_ms();
            return (ssize_t)n;
        }
        if (k->final_sent) return MHD_CONTENT_READER_END_OF_STREAM;
        if (call_wait(k, 250)) {
            cJSON *resp = call_response(k);
            k->final_sent = true;
            if (!resp) return MHD_CONTENT_READER_END_OF_STREAM;
            sse_put(k, resp);
            cJSON_Delete(resp);
            continue;
        }
        double t = mcp_now_ms();
        if (k->token && t - k->started_at > PROGRESS_EVERY_MS && t - k->last_progress >= PROGRESS_EVERY_MS) {
            k->last_progress = t;
            k->progress_value += 1;
            cJSON *n = cJSON_CreateObject();
            cJSON_AddStringToObject(n, "jsonrpc", "2.0");
            cJSON_AddStringToObject(n, "method", "notifications/progress");
            cJSON *p = cJSON_AddObjectToObject(n, "params");
            cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(k->token, 1));
            cJSON_AddNumberToObject(p, "progress", k->progress_value);
            char msg[256];
            pthread_mutex_lock(&k->plock);
            if (k->progress_message[0]) snprintf(msg, sizeof msg, "%s (%.0f s)", k->progress_message, (t - k->started_at) / 1000);
            else snprintf(msg, sizeof msg, "evaluating for %.0f s", (t - k->started_at) / 1000);
            pthread_mutex_unlock(&k->plock);
            cJSON_AddStringToObject(p, "message", msg);
            sse_put(k, n);
            cJSON_Delete(n);
            continue;
        }
        if (t - k->last_write > KEEPALIVE_MS) {
            /* a comment line keeps proxies from closing a quiet stream */
            free(k->pending);
            k->pending = strdup(": still evaluating\n\n");
            k->pending_len = k->pending ? strlen(k->pending) : 0;
            k->pending_pos = 0;
        }
    }
}

/* Has the client closed its end (or reset the connection) while its request is served? */
static bool client_gone(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci) return false;
    struct pollfd p = {ci->connect_fd, POLLIN | POLLRDHUP, 0};
    if (poll(&p, 1, 0) <= 0) return false;
    if (p.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) return true;
    char ch;
    ssize_t n = recv(ci->connect_fd, &ch, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static bool accepts_sse(struct MHD_Connection *c) {
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    return accept && strstr(accept, "text/event-stream");
}

/* Run tool T for request ID (OWNER: its Mcp-Session-Id; OWN: that session) and answer it: as an
 * SSE stream when the client accepts one and asked for progress, else as JSON once it has ended. */
static enum MHD_Result serve_call(struct MHD_Connection *c, McpContext *ctx, const Tool *t, const cJSON *args,
                                  McpSession *own, const cJSON *id, const cJSON *token, const char *owner, bool modern) {
    Call *k = (Call *)calloc(1, sizeof *k);
    if (!k) return MHD_NO;
    pthread_mutex_init(&k->plock, NULL);
    k->id = cJSON_Duplicate(id, 1);
    k->token = token && (cJSON_IsString(token) || cJSON_IsNumber(token)) ? cJSON_Duplicate(token, 1) : NULL;
    k->modern = modern;
    k->started_at = k->last_write = mcp_now_ms();
    ctx->hook_data = k;
    ctx->progress_hook = call_progress;
    ctx->progress_token = k->token;
    k->run.id = cJSON_Duplicate(id, 1);
    snprintf(k->run.owner, sizeof k->run.owner, "%s", owner ? owner : "");
    if (mcp_tool_call_prepare(&k->call, ctx, t, args, own)) {
        k->run.target = k->call.target;
        if (k->call.target && !mcp_session_acquire(k->call.target)) {
            k->call.result = mcp_session_call_error(ctx, "UNKNOWN-SESSION", "The session has ended.");
        } else {
            k->started = true;
            running_add(&k->run);
            if (own && k->call.target && k->call.target != own) {
                pthread_mutex_lock(&k->call.target->lock);
                snprintf(k->call.target->log_sink, sizeof k->call.target->log_sink, "%s", own->handle);
                pthread_mutex_unlock(&k->call.target->lock);
                k->sink_set = true;
            }
            if (!k->call.target) {
                mcp_tool_call_job(NULL, &k->call);
                k->done = true;
            } else {
                mcp_session_start(k->call.target, mcp_tool_call_job, &k->call);
            }
        }
    }
    if (!k->started) k->done = true;
    if (k->started && !k->done && k->token && !batch_answers && accepts_sse(c)) {
        struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, k, call_free);
        MHD_add_response_header(r, "Content-Type", "text/event-stream");
        MHD_add_response_header(r, "Cache-Control", "no-cache");
        enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
    }
    /* a client that goes away meanwhile is not waited for: its evaluation is stopped */
    while (!call_wait(k, 200))
        if (client_gone(c)) {
            call_free(k);
            return MHD_NO;
        }
    cJSON *resp = call_response(k);
    call_free(k);
    if (!resp && batch_answers) return MHD_YES;
    /* a cancelled request gets no response: the connection closes without one */
    return resp ? queue_json(c, MHD_HTTP_OK, resp, NULL) : MHD_NO;
}

/* ---- requests ---- */

typedef struct Body { char *data; size_t len, cap; bool too_large; } Body;

static const char *header(struct MHD_Connection *c, const char *name) {
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* A tools/call, started: answer it as JSON (waiting here) or as an SSE stream. */
static enum MHD_Result answer_call(struct MHD_Connection *c, const cJSON *msg, McpSession *own, McpVersion v, bool modern,
                                   const char *owner, const char *raw, size_t raw_len) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (!cJSON_IsObject(params)) return queue_error(c, MHD_HTTP_OK, id, -32602, "Invalid params: tools/call needs {name, arguments}");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    if (!cJSON_IsString(name)) return queue_error(c, MHD_HTTP_OK, id, -32602, "Invalid params: \"name\" must be a string");
    const Tool *t = mcp_find_tool(name->valuestring);
    if (!t) {
        char buf[300];
        snprintf(buf, sizeof buf, "Unknown tool: %.200s", name->valuestring);
        return queue_error(c, MHD_HTTP_OK, id, -32602, buf);
    }
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args))
        return queue_error(c, MHD_HTTP_OK, id, -32602, "Invalid params: \"arguments\" must be an object");
    cJSON *empty = cJSON_IsObject(args) ? NULL : cJSON_CreateObject();
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "_meta"), "progressToken");
    McpContext ctx = {NULL, v, NULL, default_timeout, raw, raw_len, NULL, NULL};
    enum MHD_Result ret = serve_call(c, &ctx, t, empty ? empty : args, own, id, token, owner, modern);
    cJSON_Delete(empty);
    return ret;
}

/* Serve one JSON-RPC message MSG (TEXT: its text); returns the queued answer. */
static enum MHD_Result serve_object(struct MHD_Connection *c, const cJSON *msg, const char *text, size_t len) {
    enum MHD_Result ret;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *jsonrpc = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    const char *sid = header(c, "Mcp-Session-Id");
    bool good_id = cJSON_IsString(id) || (cJSON_IsNumber(id) && id->valuedouble == (double)(long long)id->valuedouble);
    if (cJSON_IsArray(msg)) {
        ret = queue_error(c, MHD_HTTP_BAD_REQUEST, NULL, -32600, "Invalid Request: a batch may not hold a batch");
    } else if (!cJSON_IsObject(msg)) {
        ret = queue_error(c, MHD_HTTP_BAD_REQUEST, NULL, -32600, "Invalid Request: a message must be a JSON object");
    } else if (!method && (cJSON_GetObjectItemCaseSensitive(msg, "result") || cJSON_GetObjectItemCaseSensitive(msg, "error"))) {
        ret = queue_text(c, MHD_HTTP_ACCEPTED, "text/plain", "");   /* a response to nothing we sent */
    } else if (!cJSON_IsString(jsonrpc) || strcmp(jsonrpc->valuestring, "2.0") != 0 || !cJSON_IsString(method) ||
               (id && !good_id) || (params && !cJSON_IsObject(params))) {
        ret = queue_error(c, MHD_HTTP_BAD_REQUEST, good_id ? id : NULL, -32600,
                          "Invalid Request: a JSON-RPC 2.0 request needs \"jsonrpc\":\"2.0\", a string \"method\", "
                          "a string or integer id and object params");
    } else if (!id) {
        /* a notification: never answered but with 202 */
        if (strcmp(method->valuestring, "notifications/cancelled") == 0 && sid) {
            const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
            if (rid) running_cancel(sid, rid);
        }
        ret = queue_text(c, MHD_HTTP_ACCEPTED, "text/plain", "");
    } else {
        const char *m = method->valuestring;
        const char *requested;
        McpEra era = mcp_request_era(params, &requested);
        const char *hv = header(c, "MCP-Protocol-Version");
        if (era == MCP_ERA_UNSUPPORTED) {
            cJSON *r = rpc_error(id, 0, "");
            cJSON_ReplaceItemInObject(r, "error", mcp_unsupported_version_error(requested));
            ret = queue_json(c, MHD_HTTP_BAD_REQUEST, r, NULL);
        } else if (era == MCP_ERA_MODERN) {
            const char *hm = header(c, "Mcp-Method");
            if (!hv || strcmp(hv, requested) != 0 || (hm && strcmp(hm, m) != 0)) {
                ret = queue_error(c, MHD_HTTP_BAD_REQUEST, id, MCP_HEADER_MISMATCH,
                                  "Header mismatch: MCP-Protocol-Version (and Mcp-Method, when sent) must agree with the body");
            } else if (strcmp(m, "server/discover") == 0) {
                ret = queue_json(c, MHD_HTTP_OK, rpc_result(id, mcp_discover_result(instructions)), NULL);
            } else if (strcmp(m, "tools/list") == 0) {
                cJSON *r = cJSON_CreateObject();
                mcp_list_tools(cJSON_AddArrayToObject(r, "tools"), V2026_07_28);
                mcp_mark_complete(r);
                cJSON_AddNumberToObject(r, "ttlMs", 0);
                cJSON_AddStringToObject(r, "cacheScope", "private");
                ret = queue_json(c, MHD_HTTP_OK, rpc_result(id, r), NULL);
            } else if (strcmp(m, "tools/call") == 0) {
                /* stateless: the state lives in the session the `session` argument names */
                ret = answer_call(c, msg, NULL, V2026_07_28, true, NULL, text, len);
            } else {
                char buf[300];
                snprintf(buf, sizeof buf, "Method not found: %.200s", m);
                ret = queue_error(c, MHD_HTTP_NOT_FOUND, id, -32601, buf);
            }
        } else if (strcmp(m, "server/discover") == 0) {
            ret = queue_error(c, MHD_HTTP_BAD_REQUEST, id, -32602, mcp_discover_needs_meta);
        } else if (strcmp(m, "initialize") == 0) {
            const cJSON *pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
            bool known = false;
            McpVersion v = cJSON_IsString(pv) ? mcp_version_from(pv->valuestring, &known) : MCP_NEWEST_LEGACY;
            char err[300];
            McpSession *ms = mcp_pool_create(err, sizeof err);
            if (!ms) {
                ret = queue_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, id, -32000, err);
            } else {
                ms->legacy = true;
                ms->version = v;
                ret = queue_json(c, MHD_HTTP_OK, rpc_result(id, mcp_initialize_result(v, instructions)), ms->handle);
                mcp_pool_release(ms);
            }
        } else if (!sid) {
            ret = queue_error(c, MHD_HTTP_BAD_REQUEST, id, -32000,
                              "Bad Request: no Mcp-Session-Id header (send initialize first, or use the 2026-07-28 "
                              "revision's per-request _meta)");
        } else if (hv && !(strcmp(hv, "2025-03-26") == 0 || strcmp(hv, "2025-06-18") == 0 || strcmp(hv, "2025-11-25") == 0 ||
                           strcmp(hv, "2024-11-05") == 0)) {
            ret = queue_error(c, MHD_HTTP_BAD_REQUEST, id, -32000, "Bad Request: unsupported MCP-Protocol-Version");
        } else {
            McpSession *own = mcp_pool_find(sid);
            if (!own) {
                ret = queue_error(c, MHD_HTTP_NOT_FOUND, id, -32001, "Session not found: it was ended or expired; initialize again");
            } else if (strcmp(m, "ping") == 0) {
                ret = queue_json(c, MHD_HTTP_OK, rpc_result(id, cJSON_CreateObject()), NULL);
            } else if (strcmp(m, "tools/list") == 0) {
                const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
                if (cursor && !cJSON_IsNull(cursor)) {
                    ret = queue_error(c, MHD_HTTP_OK, id, -32602, "Invalid params: unknown cursor");
                } else {
                    cJSON *r = cJSON_CreateObject();
                    mcp_list_tools(cJSON_AddArrayToObject(r, "tools"), own->version);
                    ret = queue_json(c, MHD_HTTP_OK, rpc_result(id, r), NULL);
                }
            } else if (strcmp(m, "logging/setLevel") == 0) {
                static const char *const levels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
                const cJSON *level = cJSON_GetObjectItemCaseSensitive(params, "level");
                bool ok = false;
                for (int i = 0; i < 8 && cJSON_IsString(level); i++) ok = ok || strcmp(level->valuestring, levels[i]) == 0;
                if (ok) {
                    pthread_mutex_lock(&own->outbox.lock);
                    own->outbox.log_level = mcp_log_level_index(level->valuestring);
                    pthread_mutex_unlock(&own->outbox.lock);
                }
                ret = ok ? queue_json(c, MHD_HTTP_OK, rpc_result(id, cJSON_CreateObject()), NULL)
                         : queue_error(c, MHD_HTTP_OK, id, -32602, "Invalid params: unknown log level");
            } else if (strcmp(m, "tools/call") == 0) {
                ret = answer_call(c, msg, own, own->version, false, sid, text, len);
            } else {
                char buf[300];
                snprintf(buf, sizeof buf, "Method not found: %.200s", m);
                ret = queue_error(c, MHD_HTTP_OK, id, -32601, buf);
            }
            mcp_pool_release(own);
        }
    }
    return ret;
}

/* A JSON-RPC batch: the revisions before 2025-06-18 have them, so a session that negotiated one
 * gets each member served and the answers in one array; anyone else gets -32600. */
static enum MHD_Result serve_batch(struct MHD_Connection *c, const cJSON *batch, const char *text, size_t len) {
    if (cJSON_GetArraySize(batch) == 0)
        return queue_error(c, MHD_HTTP_BAD_REQUEST, NULL, -32600, "Invalid Request: an empty batch");
    const char *sid = header(c, "Mcp-Session-Id");
    McpSession *own = sid ? mcp_pool_find(sid) : NULL;
    bool allowed = own && own->legacy && own->version < V2025_06_18;
    mcp_pool_release(own);
    if (!allowed)
        return queue_error(c, MHD_HTTP_BAD_REQUEST, NULL, -32600,
                           "Invalid Request: JSON-RPC batches were removed in the 2025-06-18 revision; POST one message "
                           "at a time (only a session that negotiated 2025-03-26 or older may send batches)");
    batch_answers = cJSON_CreateArray();
    const cJSON *el;
    int index = 0;
    cJSON_ArrayForEach(el, batch) {
        size_t start = 0, n = 0;
        bool found = mcp_json_array_element(text, len, index++, &start, &n);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(el, "method");
        if (cJSON_IsString(m) && strcmp(m->valuestring, "initialize") == 0) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(el, "id");
            queue_error(c, MHD_HTTP_OK, id, -32600, "Invalid Request: initialize may not be part of a batch");
        } else {
            serve_object(c, el, found ? text + start : NULL, found ? n : 0);
        }
    }
    cJSON *answers = batch_answers;
    batch_answers = NULL;
    if (cJSON_GetArraySize(answers) == 0) {
        cJSON_Delete(answers);
        return queue_text(c, MHD_HTTP_ACCEPTED, "text/plain", "");
    }
    return queue_json(c, MHD_HTTP_OK, answers, NULL);
}

/* Serve the body of a POST: one message, or a batch. */
static enum MHD_Result serve_message(struct MHD_Connection *c, const char *text, size_t len) {
    if (mcp_utf8_invalid_at(text, len) != (size_t)-1)
        return queue_error(c, MHD_HTTP_BAD_REQUEST, NULL, -32700, "Parse error: the message is not valid UTF-8");
    cJSON *msg = cJSON_ParseWithLength(text, len);
    if (!msg) return queue_error(c, MHD_HTTP_BAD_REQUEST, NULL, -32700, "Parse error: the body is not valid JSON");
    enum MHD_Result ret = cJSON_IsArray(msg) ? serve_batch(c, msg, text, len) : serve_object(c, msg, text, len);
    cJSON_Delete(msg);
    return ret;
}

/* ---- the GET stream: what a session's server says unasked (its log messages) ---- */

typedef struct Stream {
    McpSession *ms;                  /* referenced */
    McpOutboxReader reader;
    char *pending;
    size_t len, pos;
} Stream;

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    Stream *st = (Stream *)cls;
    while (!st->pending || st->pos >= st->len) {
        free(st->pending);
        st->pending = NULL;
        bool ended;
        st->pending = mcp_outbox_next(&st->reader, KEEPALIVE_MS, &ended);
        if (ended) return MHD_CONTENT_READER_END_OF_STREAM;
        /* nothing for a while: a comment line keeps proxies from closing a quiet stream */
        if (!st->pending) st->pending = strdup(": keep-alive\n\n");
        if (!st->pending) return MHD_CONTENT_READER_END_WITH_ERROR;
        st->len = strlen(st->pending);
        st->pos = 0;
    }
    size_t n = st->len - st->pos < max ? st->len - st->pos : max;
    memcpy(buf, st->pending + st->pos, n);
    st->pos += n;
    return (ssize_t)n;
}

static void stream_free(void *cls) {
    Stream *st = (Stream *)cls;
    free(st->pending);
    mcp_pool_release(st->ms);
    free(st);
}

/* GET /mcp: the session's stream of notifications; one at a time (a newer one replaces it), and
 * resumable from Last-Event-ID while the messages after it are kept. */
static enum MHD_Result serve_stream(struct MHD_Connection *c) {
    const char *hv = header(c, "MCP-Protocol-Version");
    if (hv && strcmp(hv, mcp_version_names[V2026_07_28]) == 0)
        return queue_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "Method Not Allowed: the 2026-07-28 revision has no GET stream\n");
    if (!accepts_sse(c))
        return queue_text(c, MHD_HTTP_NOT_ACCEPTABLE, "text/plain", "Not Acceptable: the GET stream is text/event-stream\n");
    const char *sid = header(c, "Mcp-Session-Id");
    if (!sid) return queue_text(c, MHD_HTTP_BAD_REQUEST, "text/plain", "Bad Request: no Mcp-Session-Id header\n");
    McpSession *ms = mcp_pool_find(sid);
    if (!ms) return queue_text(c, MHD_HTTP_NOT_FOUND, "text/plain", "Session not found\n");
    Stream *st = (Stream *)calloc(1, sizeof *st);
    if (!st) {
        mcp_pool_release(ms);
        return MHD_NO;
    }
    st->ms = ms;
    const char *last = header(c, "Last-Event-ID");
    char *end = NULL;
    unsigned long long last_id = last ? strtoull(last, &end, 10) : 0;
    if (last && (end == last || *end)) last_id = 0;
    mcp_outbox_attach(&ms->outbox, &st->reader, last_id);
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, st, stream_free);
    if (!r) {
        stream_free(st);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
    (void)cls;
    (void)version;
    Body *b = (Body *)*con_cls;
    if (!b) {
        b = (Body *)calloc(1, sizeof *b);
        if (!b) return MHD_NO;
        *con_cls = b;
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (b->too_large || b->len + n > max_body) {
            b->too_large = true;
            return MHD_YES;
        }
        if (b->len + n + 1 > b->cap) {
            size_t nc = b->cap ? b->cap : 4096;
            while (nc < b->len + n + 1) nc *= 2;
            char *nd = (char *)realloc(b->data, nc);
            if (!nd) { b->too_large = true; return MHD_YES; }
            b->data = nd;
            b->cap = nc;
        }
        memcpy(b->data + b->len, upload_data, n);
        b->len += n;
        return MHD_YES;
    }
    if (strcmp(url, MCP_PATH) != 0) return queue_text(c, MHD_HTTP_NOT_FOUND, "text/plain", "Not found: the MCP endpoint is /mcp\n");
    bool refused;
    enum MHD_Result ret = check_caller(c, &refused);
    if (refused) return ret;
    if (strcmp(method, "POST") == 0) {
        if (b->too_large) {
            char m[200];
            snprintf(m, sizeof m, "Invalid Request: the message is over the limit of %zu bytes (tinycl mcp --max-message SIZE)", max_body);
            return queue_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, -32600, m);
        }
        return serve_message(c, b->data ? b->data : "", b->len);
    }
    if (strcmp(method, "DELETE") == 0) {
        const char *sid = header(c, "Mcp-Session-Id");
        if (!sid) return queue_text(c, MHD_HTTP_BAD_REQUEST, "text/plain", "Bad Request: no Mcp-Session-Id header\n");
        if (!mcp_pool_end(sid)) return queue_text(c, MHD_HTTP_NOT_FOUND, "text/plain", "Session not found\n");
        return queue_text(c, MHD_HTTP_OK, "text/plain", "");
    }
    if (strcmp(method, "GET") == 0) return serve_stream(c);
    return queue_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "Method Not Allowed: POST messages to /mcp\n");
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)c;
    (void)toe;
    Body *b = (Body *)*con_cls;
    if (b) {
        free(b->data);
        free(b);
        *con_cls = NULL;
    }
}

/* ---- start-up ---- */


static bool read_token(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "tinycl mcp: --token-file %s: %s\n", path, strerror(errno));
        return false;
    }
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t')) buf[--n] = 0;
    if (n < 16) {
        fprintf(stderr, "tinycl mcp: --token-file %s: the token must be at least 16 characters\n", path);
        return false;
    }
    bearer = strdup(buf);
    return bearer != NULL;
}

/* HOST:PORT, [V6]:PORT or PORT into an address (HOST by default 127.0.0.1). */
static bool parse_listen(const char *spec, struct sockaddr_storage *addr, char *shown, size_t shown_len) {
    char host[256] = "127.0.0.1";
    const char *port = spec;
    const char *colon = strrchr(spec, ':');
    if (colon) {
        size_t n = (size_t)(colon - spec);
        if (n == 0 || n >= sizeof host) return false;
        memcpy(host, spec, n);
        host[n] = 0;
        if (host[0] == '[' && host[n - 1] == ']') {
            memmove(host, host + 1, n - 2);
            host[n - 2] = 0;
        }
        port = colon + 1;
    }
    char *end;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535) return false;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    if (getaddrinfo(host, port, &hints, &res) != 0 || !res) return false;
    memcpy(addr, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (addr->ss_family == AF_INET) {
        loopback_only = (ntohl(((struct sockaddr_in *)addr)->sin_addr.s_addr) >> 24) == 127;
    } else {
        loopback_only = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)addr)->sin6_addr);
    }
    snprintf(shown, shown_len, strchr(host, ':') ? "[%s]" : "%s", host);
    return true;
}

/* A session's log messages go to the GET stream of the session whose call it serves (its own, or
 * the caller's while another session calls it through a handle). */
static void http_session_log(void *ctx, const char *level, const char *message) {
    McpSession *ms = (McpSession *)ctx;
    if (mcp_log_level_index(level) < 0) level = "info";
    char sink[MCP_HANDLE_CHARS];
    pthread_mutex_lock(&ms->lock);
    memcpy(sink, ms->log_sink, sizeof sink);
    pthread_mutex_unlock(&ms->lock);
    McpSession *to = sink[0] ? mcp_pool_find(sink) : NULL;
    mcp_outbox_log(to ? &to->outbox : &ms->outbox, level, "tinycl.loader", message);
    if (to) mcp_pool_release(to);
}

static void http_session_setup(TclSession *s, McpSession *ms) {
    tcl_set_log_handler(s, http_session_log, ms);
    if (listen_fd >= 0) tcl_protect_descriptor(s, listen_fd);
    tcl_protect_descriptor(s, mcp_wake_fds[0]);
    tcl_protect_descriptor(s, mcp_wake_fds[1]);
}

int mcp_http_run(const CliOptions *opt) {
    if (opt->tools) {
        char err[512];
        if (!mcp_select_tool_groups(opt->tools, err, sizeof err)) {
            fprintf(stderr, "tinycl mcp: %s\n", err);
            return 2;
        }
    }
    mcp_offer_on_request_groups();
    struct sockaddr_storage addr;
    char host[300];
    if (!parse_listen(opt->http, &addr, host, sizeof host)) {
        fprintf(stderr, "tinycl mcp: --http needs [HOST:]PORT, such as 8080 or 127.0.0.1:8080 (got \"%s\")\n", opt->http);
        return 2;
    }
    if (opt->token_file && !read_token(opt->token_file)) return 2;
    allowed_origin = opt->allow_origin;
    if (opt->max_message) max_body = opt->max_message;
    if (!mcp_wake_install()) return 70;
    /* fd 0 reads nothing and fd 1 goes to stderr: Lisp code has no terminal here */
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) { dup2(null, 0); close(null); }
    dup2(2, 1);
    char *rules = tcl_access_describe(opt->session.access);
    if (asprintf(&instructions, "%s%s%s\n\nOver HTTP each client session has its own interpreter. create-session returns "
                 "a handle for a further one; pass it as `session` to any tool (2026-07-28 requests, which have no "
                 "protocol session, must).", mcp_instructions, rules ? "\n\n" : "", rules ? rules : "") < 0)
        instructions = NULL;
    free(rules);
    TclOptions so = opt->session;
    mcp_session_options(&so);
    default_timeout = so.timeout;
    mcp_pool_init(&so, opt->max_sessions > 0 ? opt->max_sessions : 16, opt->idle_timeout == 0 ? 1800 : opt->idle_timeout,
                  http_session_setup);
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG;
    if (addr.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    struct MHD_Daemon *d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL,
                                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
                                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)600,
                                            MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "tinycl mcp: could not listen on %s: %s\n", opt->http, strerror(errno));
        return 70;
    }
    const union MHD_DaemonInfo *fi = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
    if (fi) listen_fd = fi->listen_fd;
    const union MHD_DaemonInfo *pi = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    fprintf(stderr, "tinycl mcp: serving Streamable HTTP at http://%s:%u%s\n", host, pi ? pi->port : 0, MCP_PATH);
    fflush(stderr);
    for (;;) {
        struct pollfd pfd = {mcp_wake_fds[0], POLLIN, 0};
        int pr = poll(&pfd, 1, 1000);
        if (pr > 0) {
            unsigned char sigs[16];
            ssize_t k = read(mcp_wake_fds[0], sigs, sizeof sigs);
            if (k > 0) {
                fprintf(stderr, "tinycl mcp: signal %d: ending\n", sigs[0]);
                break;
            }
        }
        mcp_pool_expire();
    }
    /* stop taking connections, interrupt what runs, then wait for it */
    MHD_quiesce_daemon(d);
    mcp_pool_shutdown();
    MHD_stop_daemon(d);
    return 0;
}
