/* tools-session.c: the `session` tool group: checkpoint-session, restore-checkpoint,
 * list-checkpoints, delete-checkpoint (named copies of the whole session state, in memory). */
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECKPOINT_OUTPUT_SCHEMA                                                                           \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":[\"string\",\"null\"]},"                       \
    "\"bytes\":{\"type\":\"integer\"},\"milliseconds\":{\"type\":\"number\"},\"package\":{\"type\":\"string\"},"  \
    "\"error\":{\"type\":[\"object\",\"null\"]}},\"required\":[\"name\",\"error\"]}"

#define NAME_INPUT_SCHEMA(what)                                                                            \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,"  \
    "\"description\":\"" what "\"}},\"required\":[\"name\"],\"additionalProperties\":false}"

/* The `name` argument, or NULL after a tool error in *ERR. */
static const char *name_arg(McpContext *ctx, const cJSON *args, cJSON **err) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(args, "name");
    if (cJSON_IsString(n) && n->valuestring[0] && strlen(n->valuestring) <= 64) return n->valuestring;
    cJSON *st = cJSON_CreateObject();
    cJSON_AddNullToObject(st, "name");
    *err = mcp_error_result(ctx, "INVALID-ARGUMENT", "Argument \"name\" must be a checkpoint name: 1 to 64 characters.", st);
    return NULL;
}

static cJSON *checkpoint_error(McpContext *ctx, const char *type, char *message) {
    cJSON *st = cJSON_CreateObject();
    cJSON_AddNullToObject(st, "name");
    cJSON *r = mcp_error_result(ctx, type, message ? message : "failed", st);
    free(message);
    return r;
}

static cJSON *tool_checkpoint(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *name = name_arg(ctx, args, &err);
    if (!name) return err;
    char *msg = NULL;
    if (tcl_checkpoint(ctx->session, name, &msg) != 0) return checkpoint_error(ctx, "CHECKPOINT-FAILED", msg);
    TclCheckpoints *l = tcl_list_checkpoints(ctx->session);
    size_t bytes = 0;
    double seconds = 0;
    for (int i = 0; l && i < l->count; i++)
        if (strcmp(l->items[i].name, name) == 0) { bytes = l->items[i].bytes; seconds = l->items[i].seconds; }
    char text[400];
    snprintf(text, sizeof text, "Checkpoint \"%s\" taken (%.1f MB, %.0f ms; %d of %d kept).\n"
             "restore-checkpoint returns the session to this state.", name, (double)bytes / 1e6, seconds * 1e3,
             l ? l->count : 0, l ? l->max : 0);
    tcl_checkpoints_free(l);
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "name", name);
    cJSON_AddNumberToObject(st, "bytes", (double)bytes);
    cJSON_AddNumberToObject(st, "milliseconds", seconds * 1e3);
    cJSON_AddNullToObject(st, "error");
    return mcp_text_result(text, false, st, ctx->version);
}

static cJSON *tool_restore(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *name = name_arg(ctx, args, &err);
    if (!name) return err;
    char *msg = NULL;
    if (tcl_restore(ctx->session, name, &msg) != 0)
        return checkpoint_error(ctx, strstr(msg ? msg : "", "no checkpoint named") ? "UNKNOWN-CHECKPOINT" : "RESTORE-FAILED", msg);
    const char *pkg = tcl_current_package(ctx->session);
    char text[300];
    snprintf(text, sizeof text, "Session restored to checkpoint \"%s\".\nCurrent package: %s", name, pkg);
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "name", name);
    cJSON_AddStringToObject(st, "package", pkg);
    cJSON_AddNullToObject(st, "error");
    return mcp_text_result(text, false, st, ctx->version);
}

static cJSON *tool_delete(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *name = name_arg(ctx, args, &err);
    if (!name) return err;
    char *msg = NULL;
    if (tcl_delete_checkpoint(ctx->session, name, &msg) != 0) return checkpoint_error(ctx, "UNKNOWN-CHECKPOINT", msg);
    char text[200];
    snprintf(text, sizeof text, "Checkpoint \"%s\" deleted.", name);
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "name", name);
    cJSON_AddNullToObject(st, "error");
    return mcp_text_result(text, false, st, ctx->version);
}

static cJSON *tool_list(McpContext *ctx, const cJSON *args) {
    (void)args;
    TclCheckpoints *l = tcl_list_checkpoints(ctx->session);
    if (!l) return checkpoint_error(ctx, "OUT-OF-MEMORY", strdup("out of memory"));
    cJSON *st = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(st, "checkpoints");
    size_t cap = 200 + (size_t)l->count * 120, n = 0;
    char *text = (char *)malloc(cap);
    if (!text) { tcl_checkpoints_free(l); cJSON_Delete(st); return checkpoint_error(ctx, "OUT-OF-MEMORY", strdup("out of memory")); }
    if (l->count) n += (size_t)snprintf(text + n, cap - n, "Checkpoints (%d of at most %d), oldest first:", l->count, l->max);
    else n += (size_t)snprintf(text + n, cap - n, "No checkpoints (at most %d); checkpoint-session takes one.", l->max);
    for (int i = 0; i < l->count; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", l->items[i].name);
        cJSON_AddNumberToObject(o, "bytes", (double)l->items[i].bytes);
        cJSON_AddNumberToObject(o, "created", l->items[i].created);
        cJSON_AddItemToArray(arr, o);
        n += (size_t)snprintf(text + n, cap - n, "\n- %.64s (%.1f MB)", l->items[i].name, (double)l->items[i].bytes / 1e6);
    }
    cJSON_AddNumberToObject(st, "max", l->max);
    cJSON_AddNullToObject(st, "error");
    tcl_checkpoints_free(l);
    cJSON *r = mcp_text_result(text, false, st, ctx->version);
    free(text);
    return r;
}

const Tool mcp_tools_session[] = {
    {"checkpoint-session", "Checkpoint session",
     "Save the whole session state in memory under `name`; restore-checkpoint returns to it exactly.",
     NAME_INPUT_SCHEMA("A name for the checkpoint"), CHECKPOINT_OUTPUT_SCHEMA, false, false, false, false, tool_checkpoint},
    {"restore-checkpoint", "Restore checkpoint",
     "Return the session exactly to checkpoint `name`, undoing all since; the checkpoint stays.",
     NAME_INPUT_SCHEMA("The checkpoint to return to"), CHECKPOINT_OUTPUT_SCHEMA, false, true, true, false, tool_restore},
    {"list-checkpoints", "List checkpoints",
     "List the session's checkpoints, oldest first, with their sizes.",
     "{\"type\":\"object\",\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"checkpoints\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
     "\"properties\":{\"name\":{\"type\":\"string\"},\"bytes\":{\"type\":\"integer\"},\"created\":{\"type\":\"number\"}},"
     "\"required\":[\"name\",\"bytes\"]}},\"max\":{\"type\":\"integer\"},\"error\":{\"type\":[\"object\",\"null\"]}},"
     "\"required\":[\"checkpoints\",\"error\"]}",
     true, false, true, false, tool_list},
    {"delete-checkpoint", "Delete checkpoint", "Delete the checkpoint `name`.",
     NAME_INPUT_SCHEMA("The checkpoint to delete"), CHECKPOINT_OUTPUT_SCHEMA, false, true, true, false, tool_delete},
};
const int mcp_tools_session_count = (int)(sizeof mcp_tools_session / sizeof mcp_tools_session[0]);
