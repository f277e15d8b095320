/* tools-sessions.c: the `sessions` tool group (create-session, end-session) and how any tool call
 * finds its interpreter: the `session` argument (a handle of the pool), else the transport's
 * default (stdio's one session, an HTTP connection's own), else a tool error. */
#include "sessions.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SESSION_OUTPUT_SCHEMA                                                                          \
    "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":[\"string\",\"null\"]},"                 \
    "\"ended\":{\"type\":\"boolean\"},\"sessions\":{\"type\":\"integer\"},\"max_sessions\":{\"type\":\"integer\"},"   \
    "\"error\":{\"type\":[\"object\",\"null\"]}},\"required\":[\"session\",\"error\"]}"

static cJSON *session_error(McpContext *ctx, const char *type, const char *message) {
    cJSON *st = cJSON_CreateObject();
    cJSON_AddNullToObject(st, "session");
    return mcp_error_result(ctx, type, message, st);
}

static cJSON *tool_create_session(McpContext *ctx, const cJSON *args) {
    (void)args;
    char err[300];
    McpSession *ms = mcp_pool_create(err, sizeof err);
    if (!ms) return session_error(ctx, "SESSION-LIMIT", err);
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "session", ms->handle);
    cJSON_AddNullToObject(st, "error");
    cJSON_AddNumberToObject(st, "sessions", mcp_pool_count());
    cJSON_AddNumberToObject(st, "max_sessions", mcp_pool_max());
    char text[200];
    snprintf(text, sizeof text, "Session created: %s\nPass it as the `session` argument of the other tools; "
             "end-session ends it.", ms->handle);
    mcp_pool_release(ms);
    return mcp_text_result(text, false, st, ctx->version);
}

static cJSON *tool_end_session(McpContext *ctx, const cJSON *args) {
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(args, "session");
    if (!cJSON_IsString(h)) return session_error(ctx, "INVALID-ARGUMENT", "Argument \"session\" must be a session handle (a string).");
    if (!mcp_pool_end(h->valuestring)) return session_error(ctx, "UNKNOWN-SESSION", "No such session: it was ended or expired.");
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "session", h->valuestring);
    cJSON_AddBoolToObject(st, "ended", true);
    cJSON_AddNullToObject(st, "error");
    return mcp_text_result("Session ended.", false, st, ctx->version);
}

const Tool mcp_tools_sessions[] = {
    {"create-session", "Create session",
     "Start a new, empty Lisp session (its own interpreter: definitions, packages and loaded systems) and "
     "return its handle. Pass the handle as the `session` argument of the other tools; it lasts until "
     "end-session or until it has been idle past the server's limit.",
     "{\"type\":\"object\",\"additionalProperties\":false}", SESSION_OUTPUT_SCHEMA, false, false, false, false,
     tool_create_session},
    {"end-session", "End session",
     "End the session named by `session`: its interpreter and everything defined in it are discarded.",
     "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\",\"description\":"
     "\"The handle create-session returned\"}},\"required\":[\"session\"]}",
     SESSION_OUTPUT_SCHEMA, false, true, true, false, tool_end_session},
};
const int mcp_tools_sessions_count = (int)(sizeof mcp_tools_sessions / sizeof mcp_tools_sessions[0]);

/* A call that could not reach its session: isError with the text alone, since the tool's
 * outputSchema describes what the tool returns, not this. */
cJSON *mcp_session_call_error(McpContext *ctx, const char *type, const char *message) {
    char *text = NULL;
    if (asprintf(&text, "[ERROR] %s\n%s", type, message) < 0) text = NULL;
    cJSON *r = mcp_text_result(text ? text : message, true, NULL, ctx->version);
    free(text);
    return r;
}

bool mcp_tool_is_stateless(const Tool *t) {
    return t >= mcp_tools_sessions && t < mcp_tools_sessions + mcp_tools_sessions_count;
}

/* ---- running a call on its session ---- */

bool mcp_tool_call_prepare(McpToolCall *c, McpContext *ctx, const Tool *t, const cJSON *args, McpSession *fallback) {
    memset(c, 0, sizeof *c);
    c->ctx = *ctx;
    c->tool = t;
    if (mcp_tool_is_stateless(t)) {
        c->args = cJSON_Duplicate(args, 1);
        return true;
    }
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(args, "session");
    if (h && !cJSON_IsNull(h)) {
        if (!cJSON_IsString(h)) {
            c->result = mcp_session_call_error(ctx, "INVALID-ARGUMENT", "Argument \"session\" must be a session handle (a string).");
            return false;
        }
        c->target = mcp_pool_find(h->valuestring);
        if (!c->target) {
            c->result = mcp_session_call_error(ctx, "UNKNOWN-SESSION", "No such session: it was ended or expired "
                                         "(create-session makes a new one).");
            return false;
        }
    } else if (fallback) {
        c->target = mcp_pool_find(fallback->handle);
        if (!c->target) {
            c->result = mcp_session_call_error(ctx, "UNKNOWN-SESSION", "This connection's session has ended.");
            return false;
        }
    } else if (!ctx->session) {
        c->result = mcp_session_call_error(ctx, "NO-SESSION", "This call needs a session: call create-session and pass the "
                                     "handle it returns as the `session` argument.");
        return false;
    }
    c->args = cJSON_Duplicate(args, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(c->args, "session");
    return true;
}

void mcp_tool_call_job(TclSession *ts, void *arg) {
    McpToolCall *c = (McpToolCall *)arg;
    if (ts) c->ctx.session = ts;
    c->result = c->tool->handler(&c->ctx, c->args);
}

void mcp_tool_call_finish(McpToolCall *c) {
    cJSON_Delete(c->args);
    c->args = NULL;
    mcp_pool_release(c->target);
    c->target = NULL;
}

cJSON *mcp_call_tool(McpContext *ctx, const Tool *t, const cJSON *args, McpSession *fallback) {
    McpToolCall c;
    if (mcp_tool_call_prepare(&c, ctx, t, args, fallback)) {
        if (!c.target) mcp_tool_call_job(NULL, &c);
        else if (!mcp_session_run(c.target, mcp_tool_call_job, &c) || !c.result)
            c.result = mcp_session_call_error(ctx, "UNKNOWN-SESSION", "The session ended during the call.");
    }
    mcp_tool_call_finish(&c);
    return c.result;
}
