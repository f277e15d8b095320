/* server.c: `tinycl mcp`: JSON-RPC 2.0 over stdio, one message per line; lifecycle, batching, cancellation, progress. */
#include "mcp.h"
#include "../cli.h"
#include "../session.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <poll.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <math.h>

/* ---- output: only this file writes protocol messages, to a private copy of fd 1 ---- */

static FILE *proto_out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void send_json(cJSON *msg) {
    char *text = cJSON_PrintUnformatted(msg);
    if (!text) return;
    pthread_mutex_lock(&out_lock);
    fputs(text, proto_out);
    fputc('\n', proto_out);
    fflush(proto_out);
    pthread_mutex_unlock(&out_lock);
    free(text);
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

static void log_stderr(const char *fmt, const char *arg) {
    fprintf(stderr, "tinycl mcp: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
}

/* ---- shared state between the reader thread and the evaluating thread ---- */

typedef struct Item { cJSON *msg; struct Item *next; } Item;

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

static const char *const version_names[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};

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

static void enqueue(cJSON *msg) {
    Item *it = (Item *)calloc(1, sizeof *it);
    it->msg = msg;
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
    } else {
        Item *prev = NULL;
        for (Item *it = queue_head; it; prev = it, it = it->next) {
            if (cJSON_IsObject(it->msg) && ids_equal(cJSON_GetObjectItemCaseSensitive(it->msg, "id"), id)) {
                if (prev) prev->next = it->next; else queue_head = it->next;
                if (queue_tail == it) queue_tail = prev;
                cJSON_Delete(it->msg);
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

static void reader_handle(cJSON *msg) {
    /* While the interpreter boots, the reader answers initialize, tools/list and the like itself,
     * so that start-up to the initialize reply does not wait for the boot. Only while nothing
     * is queued, so that responses keep the order of the requests. */
    pthread_mutex_lock(&state_lock);
    bool direct = !session_ready && !queue_head && !needs_session(msg);
    pthread_mutex_unlock(&state_lock);
    if (direct) {
        McpContext none = {NULL, V2025_11_25, NULL, 0};
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
    enqueue(msg);
}

static void *reader_main(void *arg) {
    (void)arg;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    char chunk[65536];
    for (;;) {
        struct pollfd pfd = {0, POLLIN, 0};
        int pr = poll(&pfd, 1, 250);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) { send_progress_if_due(); continue; }
        ssize_t n = read(0, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (len + (size_t)n + 1 > cap) {
            size_t nc = cap ? cap * 2 : 65536;
            while (nc < len + (size_t)n + 1) nc *= 2;
            char *nb = (char *)realloc(buf, nc);
            if (!nb) { log_stderr("%s", "out of memory reading input; dropping it"); len = 0; continue; }
            buf = nb;
            cap = nc;
        }
        memcpy(buf + len, chunk, (size_t)n);
        len += (size_t)n;
        /* handle every complete line */
        size_t start = 0;
        for (size_t i = 0; i < len; i++) {
            if (buf[i] != '\n') continue;
            size_t end = i;
            if (end > start && buf[end - 1] == '\r') end--;
            size_t j = start;
            while (j < end && (buf[j] == ' ' || buf[j] == '\t')) j++;
            if (j < end) {
                cJSON *msg = cJSON_ParseWithLength(buf + start, end - start);
                if (!msg) {
                    cJSON *r = error_response(NULL, -32700, "Parse error: the line is not valid JSON");
                    send_json(r);
                    cJSON_Delete(r);
                } else {
                    reader_handle(msg);
                }
            }
            start = i + 1;
        }
        memmove(buf, buf + start, len - start);
        len -= start;
        send_progress_if_due();
    }
    free(buf);
    pthread_mutex_lock(&state_lock);
    /* end of input: the requests already received are still answered, then the server exits */
    input_closed = true;
    pthread_cond_signal(&state_cond);
    pthread_mutex_unlock(&state_lock);
    return NULL;
}

/* ---- request handling on the evaluating thread ---- */

static McpVersion version_from(const char *s, bool *known) {
    for (int v = V2024_11_05; v <= V2025_11_25; v++)
        if (strcmp(s, version_names[v]) == 0) { *known = true; return (McpVersion)v; }
    *known = false;
    return V2025_11_25;
}

static cJSON *handle_initialize(const cJSON *params) {
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
    bool known = false;
    McpVersion v = cJSON_IsString(pv) ? version_from(pv->valuestring, &known) : V2025_11_25;
    negotiated = known ? v : V2025_11_25;
    initialized = true;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "protocolVersion", version_names[negotiated]);
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON_AddObjectToObject(caps, "tools");
    cJSON_AddObjectToObject(caps, "logging");
    cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
    cJSON_AddStringToObject(info, "name", "tinycl");
    cJSON_AddStringToObject(info, "version", TINYCL_VERSION_STRING);
    if (negotiated >= V2025_06_18) cJSON_AddStringToObject(info, "title", "tinycl Common Lisp");
    if (negotiated >= V2025_11_25)
        cJSON_AddStringToObject(info, "description", "A small Common Lisp with a persistent evaluation session.");
    cJSON_AddStringToObject(r, "instructions", mcp_instructions);
    return r;
}

static const char *const log_levels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
static int log_level = 3;

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
        mcp_list_tools(arr, negotiated);
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
        pthread_mutex_unlock(&state_lock);
        ctx->version = negotiated;
        ctx->progress_token = running_token;
        cJSON *result = t->handler(ctx, args);
        cJSON_Delete(empty);
        pthread_mutex_lock(&state_lock);
        bool cancelled = running_cancelled;
        double since_progress = now_ms() - last_progress;
        cJSON_Delete(running_id);
        cJSON_Delete(running_token);
        running_id = running_token = NULL;
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
        if (cJSON_IsString(level))
            for (int i = 0; i < 8; i++)
                if (strcmp(level->valuestring, log_levels[i]) == 0) {
                    log_level = i;
                    return result_response(good_id, cJSON_CreateObject());
                }
        return error_response(good_id, -32602, "Invalid params: unknown log level");
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
        cJSON_ArrayForEach(el, msg) {
            cJSON *r = handle_message(ctx, el);
            if (r) cJSON_AddItemToArray(out, r);
        }
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

int mcp_run(const CliOptions *opt) {
    if (opt->tools) {
        char err[512];
        if (!mcp_select_tool_groups(opt->tools, err, sizeof err)) {
            fprintf(stderr, "tinycl mcp: %s\n", err);
            return 2;
        }
    }
    /* protocol output goes to a private copy of fd 1; anything else written to fd 1 lands on stderr */
    int proto_fd = dup(1);
    if (proto_fd < 0 || dup2(2, 1) < 0) {
        perror("tinycl mcp");
        return 70;
    }
    proto_out = fdopen(proto_fd, "w");
    if (!proto_out) return 70;
    TclOptions so = opt->session;
    so.capture_output = true;
    if (so.timeout <= 0) so.timeout = 30;
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
    pthread_mutex_lock(&state_lock);
    the_session = session;
    session_ready = true;
    pthread_mutex_unlock(&state_lock);
    McpContext ctx = {the_session, V2025_11_25, NULL, so.timeout};
    for (;;) {
        pthread_mutex_lock(&state_lock);
        while (!queue_head && !input_closed) pthread_cond_wait(&state_cond, &state_lock);
        if (!queue_head && input_closed) {
            pthread_mutex_unlock(&state_lock);
            break;
        }
        Item *it = queue_head;
        queue_head = it->next;
        if (!queue_head) queue_tail = NULL;
        pthread_mutex_unlock(&state_lock);
        handle_item(&ctx, it->msg);
        cJSON_Delete(it->msg);
        free(it);
    }
    pthread_join(reader, NULL);
    tcl_session_free(the_session);
    fflush(proto_out);
    return 0;
}

void mcp_progress(McpContext *ctx, const char *message) {
    (void)ctx;
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
    if (!msg) {
        cJSON *r = error_response(NULL, -32700, "Parse error: the line is not valid JSON");
        send_json(r);
        cJSON_Delete(r);
    } else {
        McpContext ctx = {session, V2025_11_25, NULL, default_timeout};
        handle_item(&ctx, msg);
        cJSON_Delete(msg);
    }
    proto_out = saved;
    fclose(mem);
    return text;
}
