/* server.c: `tinycl mcp`: JSON-RPC 2.0 over stdio, one message per line; lifecycle, batching, cancellation, progress. */
#include "mcp.h"
#include "input.h"
#include "sessions.h"
#include "outbox.h"
#include "../cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <poll.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <math.h>
#include <signal.h>
#include <fcntl.h>

/* ---- output: only this file writes protocol messages, to a private copy of fd 1 ---- */

static FILE *proto_out;
static int proto_in;           /* the protocol's input (channel.c moves it off fd 0) */
static char *instructions;     /* mcp_instructions and the access rules in force */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool output_failed;          /* a write to the client failed: nothing more is sent (out_lock) */
static void begin_shutdown(const char *why);

static void send_json(cJSON *msg) {
    char *text = cJSON_PrintUnformatted(msg);
    if (!text) return;
    /* the wire is UTF-8 whatever the strings held (lone surrogates, stray bytes): see jsontext.c */
    size_t clean_len;
    char *clean = mcp_json_wire_utf8(text, strlen(text), &clean_len);
    if (clean) { free(text); text = clean; }
    pthread_mutex_lock(&out_lock);
    bool failed_now = false;
    if (!output_failed) {
        fputs(text, proto_out);
        fputc('\n', proto_out);
        /* the client is gone (EPIPE: SIGPIPE is ignored): end the server instead of writing on */
        if (fflush(proto_out) != 0 || ferror(proto_out)) output_failed = failed_now = true;
    }
    pthread_mutex_unlock(&out_lock);
    free(text);
    if (failed_now) begin_shutdown("writing to the client failed");
}

static cJSON *make_response(const cJSON *id) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    if (id) cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, 1));
    return r;
}

static cJSON *error_response(const cJSON *id, int code, const char *message) {
    cJSON *r = make_response(id);
    cJSON *e = cJSON_AddObjectToObject(r, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    return r;
}

static cJSON *result_response(const cJSON *id, cJSON *result) {
    cJSON *r = make_response(id);
    cJSON_AddItemToObject(r, "result", result);
    return r;
}

/* ---- shared state between the reader thread and the evaluating thread ---- */

typedef struct Item { cJSON *msg; char *raw; size_t raw_len; struct Item *next; } Item;

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t state_cond = PTHREAD_COND_INITIALIZER;
static Item *queue_head, *queue_tail;
static bool input_closed;
static cJSON *running_id;          /* id of the request being served */
static cJSON *running_token;       /* its progress token */
static bool running_cancelled;
static double running_started, last_progress;
static double progress_value;
static char progress_message[200];   /* the latest mcp_progress message of the running request, or "" */
static McpVersion negotiated = V2025_11_25;
static bool initialized;
static TclSession *the_session;
static bool session_ready;           /* the interpreter has booted; until then the reader answers what needs no session */
static bool shutting_down;           /* SIGTERM, SIGHUP or a failed write: no more requests are served */
static double shutdown_at;
static bool reader_untimed;          /* the reader waits for input with no timeout (nothing to watch) */
static double input_closed_at;       /* when the end of input was seen (input_closed) */
static bool server_done;             /* the evaluating thread has left its loop */
static size_t max_message = MCP_DEFAULT_MAX_MESSAGE;

#define version_names mcp_version_names

/* ---- logging: notifications/message at or above the level the client set (logging/setLevel) ---- */

static int log_level = 3;            /* warning until the client sets another (mcp_log_level_index) */

/* Send TEXT as a notifications/message of LEVEL (a name mcp_log_level_index knows) from LOGGER,
 * when the client has initialized and asked for that level. */
static void mcp_log(const char *level, const char *logger, const char *text) {
    int li = mcp_log_level_index(level);
    pthread_mutex_lock(&state_lock);
    bool send = initialized && li >= log_level;
    pthread_mutex_unlock(&state_lock);
    if (!send) return;
    cJSON *n = mcp_log_message_json(level, logger, text);
    send_json(n);
    cJSON_Delete(n);
}

/* A warning of the server's own: on stderr, and to the client as a log message. */
static void server_warning(const char *level, const char *text) {
    fprintf(stderr, "tinycl mcp: %s\n", text);
    mcp_log(level, "tinycl", text);
}

/* The session's log messages (the system loader's notes) go to the client. */
static void session_log(void *ctx, const char *level, const char *message) {
    (void)ctx;
    mcp_log(mcp_log_level_index(level) >= 0 ? level : "info", "tinycl.loader", message);
}

static bool ids_equal(const cJSON *a, const cJSON *b) {
    if (!a || !b) return false;
    if (cJSON_IsString(a) && cJSON_IsString(b)) return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) return a->valuedouble == b->valuedouble;
    return false;
}

static bool valid_id(const cJSON *id) {
    if (cJSON_IsString(id)) return true;
    if (cJSON_IsNumber(id)) return id->valuedouble == floor(id->valuedouble) && fabs(id->valuedouble) < 9.007199254740992e15;
    return false;
}

static void enqueue(cJSON *msg, const char *raw, size_t raw_len) {
    Item *it = (Item *)calloc(1, sizeof *it);
    it->msg = msg;
    /* the text too: tools read exact strings (NUL characters) from it */
    it->raw = (char *)malloc(raw_len + 1);
    if (it->raw) { memcpy(it->raw, raw, raw_len); it->raw[raw_len] = 0; it->raw_len = raw_len; }
    pthread_mutex_lock(&state_lock);
    if (queue_tail) queue_tail->next = it; else queue_head = it;
    queue_tail = it;
    pthread_cond_signal(&state_cond);
    pthread_mutex_unlock(&state_lock);
}

/* Cancel request ID: the running one is interrupted, a queued one dropped. */
static void cancel_request(const cJSON *id) {
    pthread_mutex_lock(&state_lock);
    if (running_id && ids_equal(running_id, id)) {
        running_cancelled = true;
        tcl_cancel(the_session);
        mcp_pool_cancel_busy();   /* the call may run in a session named by its `session` argument */
    } else {
        Item *prev = NULL;
        for (Item *it = queue_head; it; prev = it, it = it->next) {
            if (cJSON_IsObject(it->msg) && ids_equal(cJSON_GetObjectItemCaseSensitive(it->msg, "id"), id)) {
                if (prev) prev->next = it->next; else queue_head = it->next;
                if (queue_tail == it) queue_tail = prev;
                cJSON_Delete(it->msg);
                free(it->raw);
                free(it);
                break;
            }
        }
    }
    pthread_mutex_unlock(&state_lock);
}

/* ---- the reader thread: parses lines, answers ping and cancellation at once, queues the rest ---- */

static void send_progress_if_due(void) {
    pthread_mutex_lock(&state_lock);
    double t = now_ms();
    if (running_id && running_token && !running_cancelled && t - running_started > 1000 && t - last_progress >= 1000) {
        progress_value += 1;
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "jsonrpc", "2.0");
        cJSON_AddStringToObject(n, "method", "notifications/progress");
        cJSON *p = cJSON_AddObjectToObject(n, "params");
        cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(running_token, 1));
        cJSON_AddNumberToObject(p, "progress", progress_value);
        if (negotiated >= V2025_03_26) {
            char msg[256];
            if (progress_message[0])
                snprintf(msg, sizeof msg, "%s (%.0f s)", progress_message, (t - running_started) / 1000);
            else
                snprintf(msg, sizeof msg, "evaluating for %.0f s", (t - running_started) / 1000);
            cJSON_AddStringToObject(p, "message", msg);
        }
        last_progress = t;
        pthread_mutex_unlock(&state_lock);
        send_json(n);
        cJSON_Delete(n);
        return;
    }
    pthread_mutex_unlock(&state_lock);
}

static void handle_item(McpContext *ctx, cJSON *msg);

/* Does MSG (or a member of a batch) call a tool, and so need the interpreter? */
static bool needs_session(const cJSON *msg) {
    if (cJSON_IsArray(msg)) {
        const cJSON *el;
        cJSON_ArrayForEach(el, msg) if (needs_session(el)) return true;
        return false;
    }
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    return cJSON_IsString(method) && strcmp(method->valuestring, "tools/call") == 0;
}

static void reader_handle(cJSON *msg, const char *raw, size_t raw_len) {
    /* While the interpreter boots, the reader answers initialize, tools/list and the like itself,
     * so that start-up to the initialize reply does not wait for the boot. Only while nothing
     * is queued, so that responses keep the order of the requests. */
    pthread_mutex_lock(&state_lock);
    bool direct = !session_ready && !queue_head && !needs_session(msg);
    pthread_mutex_unlock(&state_lock);
    if (direct) {
        McpContext none = {NULL, V2025_11_25, NULL, 0, NULL, 0, NULL, NULL};
        handle_item(&none, msg);
        cJSON_Delete(msg);
        return;
    }
    if (cJSON_IsObject(msg)) {
        const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
        const cJSON *jsonrpc = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
        bool well_formed = cJSON_IsString(jsonrpc) && strcmp(jsonrpc->valuestring, "2.0") == 0 && cJSON_IsString(method);
        if (well_formed && strcmp(method->valuestring, "ping") == 0 && id && valid_id(id)) {
            cJSON *r = result_response(id, cJSON_CreateObject());
            send_json(r);
            cJSON_Delete(r);
            cJSON_Delete(msg);
            return;
        }
        if (well_formed && !id && strcmp(method->valuestring, "notifications/cancelled") == 0) {
            const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
            const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
            if (rid && valid_id(rid)) cancel_request(rid);
            cJSON_Delete(msg);
            return;
        }
    }
    enqueue(msg, raw, raw_len);
}

/* A message whose bytes are not UTF-8 is answered with -32700 (with its id when MSG, the parse,
 * has one) and dropped; MSG is freed then. Returns whether it was. */
static bool refuse_invalid_utf8(const char *text, size_t len, cJSON *msg) {
    size_t bad = mcp_utf8_invalid_at(text, len);
    if (bad == (size_t)-1) return false;
    const cJSON *id = cJSON_IsObject(msg) ? cJSON_GetObjectItemCaseSensitive(msg, "id") : NULL;
    char m[200];
    snprintf(m, sizeof m, "Parse error: the message is not valid UTF-8 (byte %zu: 0x%02X)", bad, (unsigned char)text[bad]);
    cJSON *r = error_response(id && valid_id(id) ? id : NULL, -32700, m);
    send_json(r);
    cJSON_Delete(r);
    cJSON_Delete(msg);
    return true;
}

/* One message of input: JSON-RPC text that must be UTF-8 (a line of other bytes is a parse error
 * answered with the request's id when it can be read). */
static void input_line(void *ctx, const char *text, size_t len) {
    (void)ctx;
    if (len > 0 && text[len - 1] == '\r') len--;
    size_t j = 0;
    while (j < len && (text[j] == ' ' || text[j] == '\t')) j++;
    if (j == len) return;
    cJSON *msg = cJSON_ParseWithLength(text, len);
    if (refuse_invalid_utf8(text, len, msg)) return;
    if (!msg) {
        cJSON *r = error_response(NULL, -32700, "Parse error: the line is not valid JSON");
        send_json(r);
        cJSON_Delete(r);
        return;
    }
    reader_handle(msg, text, len);
}

/* A message over the limit was skipped: answer it (with its id when its first bytes hold one). */
static void input_oversized(void *ctx, const char *head, size_t head_len, size_t total) {
    (void)ctx;
    cJSON *id = mcp_input_find_id(head, head_len);
    char m[300];
    snprintf(m, sizeof m, "Invalid Request: the message is %zu bytes, over the limit of %zu bytes "
             "(tinycl mcp --max-message SIZE); it was not read", total, max_message);
    cJSON *r = error_response(id && valid_id(id) ? id : NULL, -32600, m);
    cJSON_Delete(id);
    send_json(r);
    cJSON_Delete(r);
    server_warning("warning", m + strlen("Invalid Request: "));
}


static void interrupt_running_locked(void) {
    if (running_id && the_session) tcl_interrupt(the_session);
}

static void begin_shutdown(const char *why) {
    pthread_mutex_lock(&state_lock);
    bool first = !shutting_down;
    if (first) {
        shutting_down = true;
        shutdown_at = now_ms();
    }
    interrupt_running_locked();
    pthread_cond_broadcast(&state_cond);
    pthread_mutex_unlock(&state_lock);
    if (first) {
        fprintf(stderr, "tinycl mcp: %s: ending\n", why);
        if (mcp_wake_fds[1] >= 0) mcp_wake(0);
    }
}

static void handle_signal(int sig) {
    if (sig == SIGINT) {
        /* Ctrl-C: the running evaluation ends as interrupted; the session and the server go on */
        pthread_mutex_lock(&state_lock);
        bool running = running_id != NULL;
        interrupt_running_locked();
        pthread_mutex_unlock(&state_lock);
        if (!running) server_warning("warning", "SIGINT: no evaluation is running (SIGTERM ends the server)");
    } else if (sig == SIGTERM || sig == SIGHUP) {
        begin_shutdown(sig == SIGTERM ? "SIGTERM" : "SIGHUP");
    }
}

/* After the end of input, and after a shutdown began, nothing may keep the server alive: an
 * evaluation running longer than EOF_GRACE_MS past the end of input (or past its own start) is
 * interrupted, and one that does not stop within SHUTDOWN_FORCE_MS ends the process. */
#define EOF_GRACE_MS 500
#define SHUTDOWN_FORCE_MS 3000

static void enforce_deadlines(void) {
    pthread_mutex_lock(&state_lock);
    double t = now_ms();
    bool force = false;
    if (input_closed && running_id) {
        double from = running_started > input_closed_at ? running_started : input_closed_at;
        if (t - from > EOF_GRACE_MS) interrupt_running_locked();   /* again each round: it may land between calls */
        force = t - from > EOF_GRACE_MS + SHUTDOWN_FORCE_MS;
    }
    if (shutting_down && !server_done) {
        interrupt_running_locked();
        force = force || t - shutdown_at > SHUTDOWN_FORCE_MS;
    }
    pthread_mutex_unlock(&state_lock);
    if (force) {
        fputs("tinycl mcp: the evaluation did not stop; exiting\n", stderr);
        _exit(0);
    }
}

static void *reader_main(void *arg) {
    (void)arg;
    static McpInput input;
    mcp_input_init(&input, max_message);
    McpInputHandlers handlers = {input_line, input_oversized, NULL};
    static char chunk[1 << 16];
    bool reading = true;
    for (;;) {
        /* the output too: a client that closed its end (POLLERR on a pipe) ends the server even
         * while nothing is being written */
        struct pollfd pfd[3] = {{mcp_wake_fds[0], POLLIN, 0}, {fileno(proto_out), 0, 0}, {proto_in, POLLIN, 0}};
        /* with no request running and no shutdown there is nothing to watch: an idle server waits
         * without waking (the thread that starts a request wakes it) */
        pthread_mutex_lock(&state_lock);
        bool watch = running_id || shutting_down;
        reader_untimed = reading && !watch;
        pthread_mutex_unlock(&state_lock);
        int pr = poll(pfd, reading ? 3 : 2, !reading ? 50 : watch ? 250 : -1);
        if (pr > 0 && (pfd[1].revents & (POLLERR | POLLHUP))) {
            pthread_mutex_lock(&out_lock);
            output_failed = true;
            pthread_mutex_unlock(&out_lock);
            begin_shutdown("the client closed the server's output");
        }
        if (pr > 0 && (pfd[0].revents & POLLIN)) {
            unsigned char sigs[64];
            ssize_t k = read(mcp_wake_fds[0], sigs, sizeof sigs);
            for (ssize_t i = 0; i < k; i++) if (sigs[i]) handle_signal(sigs[i]);
        }
        if (reading && pr > 0 && (pfd[2].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) {
            ssize_t n = read(proto_in, chunk, sizeof chunk);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n > 0) mcp_input_feed(&input, chunk, (size_t)n, &handlers);
            else {
                /* end of input: the requests already received are still answered, then the server exits */
                reading = false;
                mcp_input_free(&input);
                pthread_mutex_lock(&state_lock);
                input_closed = true;
                input_closed_at = now_ms();
                pthread_cond_broadcast(&state_cond);
                pthread_mutex_unlock(&state_lock);
            }
        }
        send_progress_if_due();
        enforce_deadlines();
        pthread_mutex_lock(&state_lock);
        bool done = server_done;
        pthread_mutex_unlock(&state_lock);
        if (done) break;
    }
    if (reading) mcp_input_free(&input);
    return NULL;
}

/* ---- request handling on the evaluating thread ---- */

static cJSON *handle_initialize(const cJSON *params) {
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
    bool known = false;
    McpVersion v = cJSON_IsString(pv) ? mcp_version_from(pv->valuestring, &known) : V2025_11_25;
    pthread_mutex_lock(&state_lock);
    negotiated = known ? v : V2025_11_25;
    initialized = true;
    pthread_mutex_unlock(&state_lock);
    return mcp_initialize_result(negotiated, instructions);
}

/* Returns the response to send, or NULL for none. */
static cJSON *handle_message(McpContext *ctx, cJSON *msg) {
    if (!cJSON_IsObject(msg)) return error_response(NULL, -32600, "Invalid Request: a message must be a JSON object");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *jsonrpc = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    bool has_id = id != NULL;
    const cJSON *good_id = has_id && valid_id(id) ? id : NULL;
    if (!method && (cJSON_GetObjectItemCaseSensitive(msg, "result") || cJSON_GetObjectItemCaseSensitive(msg, "error")))
        return NULL; /* a response from the client to something we never sent: ignore */
    if (!cJSON_IsString(jsonrpc) || strcmp(jsonrpc->valuestring, "2.0") != 0)
        return error_response(good_id, -32600, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
    if (has_id && !good_id) return error_response(NULL, -32600, "Invalid Request: the id must be a string or an integer");
    if (!cJSON_IsString(method)) return error_response(good_id, -32600, "Invalid Request: \"method\" must be a string");
    if (params && !cJSON_IsObject(params) && !cJSON_IsArray(params))
        return has_id ? error_response(good_id, -32602, "Invalid params: \"params\" must be an object") : NULL;
    const char *m = method->valuestring;
    if (!has_id) {
        /* notifications: never answered */
        if (strcmp(m, "notifications/cancelled") == 0) {
            const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
            if (rid && valid_id(rid)) cancel_request(rid);
        }
        return NULL;
    }
    /* 2026-07-28: a request whose _meta names the revision is served statelessly, without initialize */
    const char *requested;
    McpEra era = mcp_request_era(params, &requested);
    if (era == MCP_ERA_UNSUPPORTED) {
        cJSON *r = make_response(good_id);
        cJSON_AddItemToObject(r, "error", mcp_unsupported_version_error(requested));
        return r;
    }
    bool modern = era == MCP_ERA_MODERN;
    if (strcmp(m, "server/discover") == 0)
        return modern ? result_response(good_id, mcp_discover_result(instructions))
                      : error_response(good_id, -32602, mcp_discover_needs_meta);
    if (strcmp(m, "initialize") == 0) {
        if (params && !cJSON_IsObject(params)) return error_response(good_id, -32602, "Invalid params for initialize");
        return result_response(good_id, handle_initialize(params));
    }
    if (strcmp(m, "ping") == 0) return result_response(good_id, cJSON_CreateObject());
    if (strcmp(m, "tools/list") == 0) {
        const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
        if (cursor && !cJSON_IsNull(cursor)) return error_response(good_id, -32602, "Invalid params: unknown cursor");
        cJSON *r = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(r, "tools");
        mcp_list_tools(arr, modern ? V2026_07_28 : negotiated);
        if (modern) {
            mcp_mark_complete(r);
            cJSON_AddNumberToObject(r, "ttlMs", 0);
            cJSON_AddStringToObject(r, "cacheScope", "private");
        }
        return result_response(good_id, r);
    }
    if (strcmp(m, "tools/call") == 0) {
        if (!cJSON_IsObject(params)) return error_response(good_id, -32602, "Invalid params: tools/call needs {name, arguments}");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
        if (!cJSON_IsString(name)) return error_response(good_id, -32602, "Invalid params: \"name\" must be a string");
        const Tool *t = mcp_find_tool(name->valuestring);
        if (!t) {
            char buf[300];
            snprintf(buf, sizeof buf, "Unknown tool: %.200s", name->valuestring);
            return error_response(good_id, -32602, buf);
        }
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
        if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args))
            return error_response(good_id, -32602, "Invalid params: \"arguments\" must be an object");
        cJSON *empty = NULL;
        if (!cJSON_IsObject(args)) args = empty = cJSON_CreateObject();
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
        const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
        pthread_mutex_lock(&state_lock);
        running_id = cJSON_Duplicate(good_id, 1);
        running_token = (token && (cJSON_IsString(token) || cJSON_IsNumber(token))) ? cJSON_Duplicate(token, 1) : NULL;
        running_cancelled = false;
        running_started = now_ms();
        last_progress = 0;
        progress_value = 0;
        progress_message[0] = 0;
        bool wake_reader = reader_untimed;   /* to watch this request (progress, end of input) */
        reader_untimed = false;
        pthread_mutex_unlock(&state_lock);
        if (wake_reader) mcp_wake(0);
        ctx->version = modern ? V2026_07_28 : negotiated;
        ctx->progress_token = running_token;
        /* on the session named by a `session` argument, else on the_session */
        cJSON *result = mcp_call_tool(ctx, t, args, NULL);
        if (modern) mcp_mark_complete(result);
        cJSON_Delete(empty);
        pthread_mutex_lock(&state_lock);
        bool cancelled = running_cancelled;
        double since_progress = now_ms() - last_progress;
        cJSON_Delete(running_id);
        cJSON_Delete(running_token);
        running_id = running_token = NULL;
        /* a cancellation or SIGINT that came after the evaluation ended was for this request */
        tcl_interrupt_clear(the_session);
        ctx->progress_token = NULL;
        pthread_mutex_unlock(&state_lock);
        if (cancelled) {
            cJSON_Delete(result);
            return NULL; /* a cancelled request gets no response */
        }
        /* a progress notification right before the result trips a known client bug: keep them apart */
        if (last_progress > 0 && since_progress < 100) {
            struct timespec ts = {0, (long)((100 - since_progress) * 1e6)};
            nanosleep(&ts, NULL);
        }
        return result_response(good_id, result);
    }
    if (strcmp(m, "logging/setLevel") == 0) {
        const cJSON *level = cJSON_GetObjectItemCaseSensitive(params, "level");
        int li = cJSON_IsString(level) ? mcp_log_level_index(level->valuestring) : -1;
        if (li < 0) return error_response(good_id, -32602, "Invalid params: unknown log level");
        pthread_mutex_lock(&state_lock);
        log_level = li;
        pthread_mutex_unlock(&state_lock);
        return result_response(good_id, cJSON_CreateObject());
    }
    char buf[300];
    snprintf(buf, sizeof buf, "Method not found: %.200s", m);
    return error_response(good_id, -32601, buf);
}

static void handle_item(McpContext *ctx, cJSON *msg) {
    if (cJSON_IsArray(msg)) {
        int n = cJSON_GetArraySize(msg);
        if (n == 0) {
            cJSON *r = error_response(NULL, -32600, "Invalid Request: empty batch");
            send_json(r);
            cJSON_Delete(r);
            return;
        }
        if (initialized && negotiated >= V2025_06_18) {
            cJSON *r = error_response(NULL, -32600, "Invalid Request: batches are not part of the negotiated protocol version");
            send_json(r);
            cJSON_Delete(r);
            return;
        }
        cJSON *out = cJSON_CreateArray();
        cJSON *el;
        const char *raw = ctx->raw;
        size_t raw_len = ctx->raw_len;
        int index = 0;
        cJSON_ArrayForEach(el, msg) {
            size_t start, len;
            bool found = raw && mcp_json_array_element(raw, raw_len, index++, &start, &len);
            ctx->raw = found ? raw + start : NULL;
            ctx->raw_len = found ? len : 0;
            cJSON *r = handle_message(ctx, el);
            if (r) cJSON_AddItemToArray(out, r);
        }
        ctx->raw = raw;
        ctx->raw_len = raw_len;
        if (cJSON_GetArraySize(out) > 0) send_json(out);
        cJSON_Delete(out);
        return;
    }
    cJSON *r = handle_message(ctx, msg);
    if (r) {
        send_json(r);
        cJSON_Delete(r);
    }
}


/* Each session created on stdio keeps the protocol's descriptors out of Lisp's reach too. */
static void stdio_session_setup(TclSession *s, McpSession *ms) {
    (void)ms;
    tcl_protect_descriptor(s, proto_in);
    tcl_protect_descriptor(s, fileno(proto_out));
    tcl_protect_descriptor(s, mcp_wake_fds[0]);
    tcl_protect_descriptor(s, mcp_wake_fds[1]);
    tcl_set_log_handler(s, session_log, NULL);
}

int mcp_run(const CliOptions *opt) {
    if (opt->http && opt->session_file) {
        /* one file holds one session: over HTTP each client has its own */
        fputs("tinycl mcp: --session-file keeps the one session of stdio; it cannot be used with --http\n", stderr);
        return 2;
    }
    if (opt->http) return mcp_http_run(opt);
    if (opt->tools) {
        char err[512];
        if (!mcp_select_tool_groups(opt->tools, err, sizeof err)) {
            fprintf(stderr, "tinycl mcp: %s\n", err);
            return 2;
        }
    }
    /* the protocol's descriptors, out of Lisp's reach; anything else written to fd 1 lands on stderr */
    int proto_fd;
    if (!mcp_channel_open(&proto_in, &proto_fd)) {
        perror("tinycl mcp");
        return 70;
    }
    proto_out = fdopen(proto_fd, "w");
    if (!proto_out) return 70;
    char *rules = tcl_access_describe(opt->session.access);
    if (rules && asprintf(&instructions, "%s\n\n%s The protocol's stdin and stdout can never be opened "
                          "from Lisp; *standard-input* reads nothing.", mcp_instructions, rules) < 0)
        instructions = NULL;
    free(rules);
    max_message = opt->max_message ? opt->max_message : MCP_DEFAULT_MAX_MESSAGE;
    if (!mcp_wake_install()) {
        perror("tinycl mcp: signals");
        return 70;
    }
    TclOptions so = opt->session;
    mcp_session_options(&so);
    /* the reader starts first: it answers initialize while the interpreter boots */
    pthread_t reader;
    if (pthread_create(&reader, NULL, reader_main, NULL) != 0) {
        perror("tinycl mcp: reader thread");
        return 70;
    }
    TclSession *session = tcl_session_new(&so);
    if (!session) {
        fputs("tinycl mcp: could not start the interpreter\n", stderr);
        return 70;
    }
    tcl_protect_descriptor(session, proto_in);
    tcl_protect_descriptor(session, proto_fd);
    /* the signal pipe too: writing into it would stand for a signal to the server */
    tcl_protect_descriptor(session, mcp_wake_fds[0]);
    tcl_protect_descriptor(session, mcp_wake_fds[1]);
    tcl_set_log_handler(session, session_log, NULL);
    pthread_mutex_lock(&state_lock);
    the_session = session;
    session_ready = true;
    pthread_mutex_unlock(&state_lock);
    /* sessions made by create-session (with --tools naming the sessions group) */
    mcp_pool_init(&so, opt->max_sessions, opt->idle_timeout, stdio_session_setup);
    McpContext ctx = {the_session, V2025_11_25, NULL, so.timeout, NULL, 0, NULL, NULL};
    sfile_open(the_session, opt->session_file, "tinycl mcp");
    for (;;) {
        pthread_mutex_lock(&state_lock);
        while (!queue_head && !input_closed && !shutting_down) {
            /* a pending session-file write is due even when no request comes: wait only until then */
            double due = sfile_due_in();
            if (due < 0) { pthread_cond_wait(&state_cond, &state_lock); continue; }
            if (due > 0) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                long ns = ts.tv_nsec + (long)(due * 1e9);
                ts.tv_sec += ns / 1000000000L;
                ts.tv_nsec = ns % 1000000000L;
                pthread_cond_timedwait(&state_cond, &state_lock, &ts);
            }
            if (sfile_due_in() == 0) {
                pthread_mutex_unlock(&state_lock);
                sfile_flush(the_session, false);
                pthread_mutex_lock(&state_lock);
            }
        }
        if (shutting_down || (!queue_head && input_closed)) {
            pthread_mutex_unlock(&state_lock);
            break;
        }
        Item *it = queue_head;
        queue_head = it->next;
        if (!queue_head) queue_tail = NULL;
        pthread_mutex_unlock(&state_lock);
        ctx.raw = it->raw;
        ctx.raw_len = it->raw_len;
        handle_item(&ctx, it->msg);
        sfile_note(the_session);
        ctx.raw = NULL;
        cJSON_Delete(it->msg);
        free(it->raw);
        free(it);
    }
    pthread_mutex_lock(&state_lock);
    server_done = true;
    pthread_mutex_unlock(&state_lock);
    mcp_wake(0);   /* wake the reader thread, which sees server_done */
    pthread_join(reader, NULL);
    mcp_pool_shutdown();
    sfile_flush(the_session, true);
    tcl_session_free(the_session);
    pthread_mutex_lock(&out_lock);
    if (!output_failed) fflush(proto_out);
    pthread_mutex_unlock(&out_lock);
    return 0;   /* the end of input, SIGTERM, SIGHUP and a lost client all end the server normally */
}

void mcp_progress(McpContext *ctx, const char *message) {
    if (ctx && ctx->progress_hook) {
        ctx->progress_hook(ctx, message);
        return;
    }
    /* the message goes with the next notification (at most one a second, none in the first) */
    pthread_mutex_lock(&state_lock);
    snprintf(progress_message, sizeof progress_message, "%s", message ? message : "");
    pthread_mutex_unlock(&state_lock);
    send_progress_if_due();
}

char *mcp_serve_line(TclSession *session, const char *line, size_t len, double default_timeout) {
    char *text = NULL;
    size_t text_len = 0;
    FILE *mem = open_memstream(&text, &text_len);
    if (!mem) return NULL;
    FILE *saved = proto_out;
    proto_out = mem;
    pthread_mutex_lock(&state_lock);
    the_session = session;
    session_ready = true;
    pthread_mutex_unlock(&state_lock);
    cJSON *msg = cJSON_ParseWithLength(line, len);
    if (refuse_invalid_utf8(line, len, msg)) {
        /* answered, as the reader thread answers it */
    } else if (!msg) {
        cJSON *r = error_response(NULL, -32700, "Parse error: the line is not valid JSON");
        send_json(r);
        cJSON_Delete(r);
    } else {
        McpContext ctx = {session, V2025_11_25, NULL, default_timeout, line, len, NULL, NULL};
        handle_item(&ctx, msg);
        cJSON_Delete(msg);
    }
    proto_out = saved;
    fclose(mem);
    return text;
}
