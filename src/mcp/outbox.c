/* outbox.c: a session's unasked messages for its Streamable HTTP GET stream (see outbox.h). Only
 * the newest MCP_OUTBOX_KEEP are kept: a client resuming from an older event id gets what is left. */
#include "outbox.h"
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>

static const char *const levels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

int mcp_log_level_index(const char *name) {
    for (int i = 0; i < 8; i++)
        if (strcmp(name, levels[i]) == 0) return i;
    return -1;
}

cJSON *mcp_log_message_json(const char *level, const char *logger, const char *text) {
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "jsonrpc", "2.0");
    cJSON_AddStringToObject(n, "method", "notifications/message");
    cJSON *p = cJSON_AddObjectToObject(n, "params");
    cJSON_AddStringToObject(p, "level", level);
    cJSON_AddStringToObject(p, "logger", logger);
    cJSON_AddStringToObject(p, "data", text);
    return n;
}

void mcp_outbox_init(McpOutbox *o) {
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&o->cond, &ca);
    pthread_condattr_destroy(&ca);
    o->next = o->delivered = 1;
    o->log_level = 3;   /* warning, as on stdio, until the client sets another */
}

void mcp_outbox_free(McpOutbox *o) {
    for (int i = 0; i < MCP_OUTBOX_KEEP; i++) free(o->text[i]);
    pthread_mutex_destroy(&o->lock);
    pthread_cond_destroy(&o->cond);
}

void mcp_outbox_close(McpOutbox *o) {
    pthread_mutex_lock(&o->lock);
    o->closed = true;
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

static unsigned long long oldest(const McpOutbox *o) {
    return o->next > MCP_OUTBOX_KEEP ? o->next - MCP_OUTBOX_KEEP : 1;
}

void mcp_outbox_log(McpOutbox *o, const char *level, const char *logger, const char *text) {
    int li = mcp_log_level_index(level);
    pthread_mutex_lock(&o->lock);
    bool wanted = li >= o->log_level && !o->closed;
    pthread_mutex_unlock(&o->lock);
    if (!wanted) return;
    cJSON *n = mcp_log_message_json(level, logger, text);
    char *wire = cJSON_PrintUnformatted(n);
    cJSON_Delete(n);
    if (!wire) return;
    size_t clean_len;
    char *clean = mcp_json_wire_utf8(wire, strlen(wire), &clean_len);
    if (clean) { free(wire); wire = clean; }
    pthread_mutex_lock(&o->lock);
    char **slot = &o->text[o->next % MCP_OUTBOX_KEEP];
    free(*slot);
    *slot = wire;
    o->next++;
    if (o->delivered < oldest(o)) o->delivered = oldest(o);
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

void mcp_outbox_attach(McpOutbox *o, McpOutboxReader *r, unsigned long long last_id) {
    pthread_mutex_lock(&o->lock);
    r->box = o;
    r->stream = ++o->stream;
    if (last_id > 0 && last_id < o->next) r->at = last_id + 1 < oldest(o) ? oldest(o) : last_id + 1;
    else if (last_id > 0) r->at = o->next;
    else r->at = o->delivered;
    pthread_cond_broadcast(&o->cond);   /* the stream it replaces ends */
    pthread_mutex_unlock(&o->lock);
}

char *mcp_outbox_next(McpOutboxReader *r, double wait_ms, bool *ended) {
    McpOutbox *o = r->box;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long long ns = until.tv_nsec + (long long)(wait_ms * 1e6);
    until.tv_sec += (time_t)(ns / 1000000000LL);
    until.tv_nsec = (long)(ns % 1000000000LL);
    char *event = NULL;
    *ended = false;
    pthread_mutex_lock(&o->lock);
    for (;;) {
        if (o->closed || o->stream != r->stream) { *ended = true; break; }
        if (r->at < oldest(o)) r->at = oldest(o);
        if (r->at < o->next) {
            unsigned long long n = r->at++;
            if (asprintf(&event, "id: %llu\nevent: message\ndata: %s\n\n", n, o->text[n % MCP_OUTBOX_KEEP]) < 0) event = NULL;
            if (o->delivered < r->at) o->delivered = r->at;
            break;
        }
        if (pthread_cond_timedwait(&o->cond, &o->lock, &until) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&o->lock);
    return event;
}
