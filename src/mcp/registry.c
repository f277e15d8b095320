/* registry.c: the tool groups the MCP server can offer, which of them are offered, and tools/list entries. */
#include "sessions.h"
#include <stdio.h>
#include <string.h>

/* One row per group, in the order tools/list shows them. */
const ToolGroup mcp_tool_groups[] = {
    {"eval", "evaluate-lisp, list-definitions, reset-session", mcp_tools_eval, &mcp_tools_eval_count, false},
    {"systems", "load-system, quickload, describe-system, list-local-systems, list-loaded-systems, system-dependencies",
     mcp_tools_systems, &mcp_tools_systems_count, false},
    {"introspection", "describe-symbol, apropos, macroexpand, find-definitions, who-calls, who-references, who-sets, "
                      "who-binds, who-macroexpands, calls-who, inspect, documentation",
     mcp_tools_introspection, &mcp_tools_introspection_count, false},
    {"debug", "invoke-restart, abort-evaluation, backtrace, profile", mcp_tools_debug, &mcp_tools_debug_count, false},
    {"files", "check-parens, read-lisp-file, edit-lisp-form, load-file", mcp_tools_files, &mcp_tools_files_count, false},
    {"tests", "run-tests", mcp_tools_tests, &mcp_tools_tests_count, false},
    {"session", "checkpoint-session, restore-checkpoint, list-checkpoints, delete-checkpoint", mcp_tools_session,
     &mcp_tools_session_count, false},
    {"sessions", "create-session, end-session (offered with --http, or when named)", mcp_tools_sessions,
     &mcp_tools_sessions_count, true},
};
const int mcp_tool_group_count = (int)(sizeof mcp_tool_groups / sizeof mcp_tool_groups[0]);

#define MAX_GROUPS 32
/* Whether each group is offered, once --tools chose (else every group but the on_request ones).
 * Indexed like mcp_tool_groups. */
static bool group_off[MAX_GROUPS];
static bool groups_chosen;
static bool sessions_offered;   /* the sessions group is offered: every other tool takes `session` */

static bool is_off(int g) { return groups_chosen ? group_off[g] : mcp_tool_groups[g].on_request; }

static void note_sessions(void) {
    sessions_offered = false;
    for (int g = 0; g < mcp_tool_group_count; g++)
        if (mcp_tool_groups[g].tools == mcp_tools_sessions && !is_off(g)) sessions_offered = true;
}

void mcp_offer_on_request_groups(void) {
    if (groups_chosen) return;
    for (int g = 0; g < mcp_tool_group_count; g++) group_off[g] = false;
    groups_chosen = true;
    note_sessions();
}

static int group_index(const char *name, size_t len) {
    for (int i = 0; i < mcp_tool_group_count; i++)
        if (strlen(mcp_tool_groups[i].name) == len && strncmp(mcp_tool_groups[i].name, name, len) == 0) return i;
    return -1;
}

bool mcp_select_tool_groups(const char *list, char *err, size_t errlen) {
    bool on[MAX_GROUPS] = {false};
    bool any = false;
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            for (int i = 0; i < mcp_tool_group_count; i++) on[i] = true;
            any = true;
        } else if (len > 0) {
            int g = group_index(p, len);
            if (g < 0) {
                int n = snprintf(err, errlen, "unknown tool group \"%.*s\"; the groups are:", (int)(len > 64 ? 64 : len), p);
                for (int i = 0; i < mcp_tool_group_count && n > 0 && (size_t)n < errlen; i++)
                    n += snprintf(err + n, errlen - (size_t)n, " %s", mcp_tool_groups[i].name);
                return false;
            }
            on[g] = true;
            any = true;
        }
        if (!end) break;
        p = end + 1;
    }
    if (!any) {
        snprintf(err, errlen, "--tools needs at least one group name");
        return false;
    }
    for (int i = 0; i < mcp_tool_group_count; i++) group_off[i] = !on[i];
    groups_chosen = true;
    note_sessions();
    return true;
}

void mcp_list_tools(cJSON *arr, McpVersion v) {
    for (int g = 0; g < mcp_tool_group_count; g++) {
        if (is_off(g)) continue;
        for (int i = 0; i < *mcp_tool_groups[g].count; i++)
            cJSON_AddItemToArray(arr, mcp_tool_json(&mcp_tool_groups[g].tools[i], v));
    }
}

const Tool *mcp_find_tool(const char *name) {
    for (int g = 0; g < mcp_tool_group_count; g++) {
        if (is_off(g)) continue;
        for (int i = 0; i < *mcp_tool_groups[g].count; i++)
            if (strcmp(mcp_tool_groups[g].tools[i].name, name) == 0) return &mcp_tool_groups[g].tools[i];
    }
    return NULL;
}

cJSON *mcp_tool_json(const Tool *t, McpVersion v) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", t->name);
    if (v >= V2025_06_18) cJSON_AddStringToObject(o, "title", t->title);
    cJSON_AddStringToObject(o, "description", t->description);
    cJSON *in = cJSON_Parse(t->input_schema);
    /* with session handles on offer, every tool that works in a session takes one: added here, once */
    if (sessions_offered && !mcp_tool_is_stateless(t)) {
        cJSON *props = cJSON_GetObjectItemCaseSensitive(in, "properties");
        if (!props) props = cJSON_AddObjectToObject(in, "properties");
        cJSON *sp = cJSON_AddObjectToObject(props, "session");
        cJSON_AddStringToObject(sp, "type", "string");
        cJSON_AddStringToObject(sp, "description", "A handle from create-session: the session to work in "
                                "(default: this connection's own session, where it has one)");
    }
    cJSON_AddItemToObject(o, "inputSchema", in);
    if (v >= V2025_06_18 && t->output_schema) cJSON_AddItemToObject(o, "outputSchema", cJSON_Parse(t->output_schema));
    if (v >= V2025_03_26) {
        cJSON *a = cJSON_AddObjectToObject(o, "annotations");
        cJSON_AddStringToObject(a, "title", t->title);
        cJSON_AddBoolToObject(a, "readOnlyHint", t->read_only);
        cJSON_AddBoolToObject(a, "destructiveHint", t->destructive);
        cJSON_AddBoolToObject(a, "idempotentHint", t->idempotent);
        cJSON_AddBoolToObject(a, "openWorldHint", t->open_world);
    }
    return o;
}
