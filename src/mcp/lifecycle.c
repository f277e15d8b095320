/* lifecycle.c: what every transport says about itself: the protocol revisions, the initialize
 * result (legacy era), server/discover and the per-request _meta of the 2026-07-28 revision; and the
 * words its sessions use for the server's tools (mcp_session_options). */
#include "mcp.h"
#include <stdio.h>
#include <string.h>

void mcp_session_options(TclOptions *so) {
    so->capture_output = true;
    so->exit_unavailable = true;   /* the server's process is not the session's to end */
    so->call_label = "evaluate-lisp call";
    so->exit_unavailable_report = "exit is not available in the MCP server; use reset-session";
    if (so->timeout <= 0) so->timeout = 30;
}

const char *const mcp_version_names[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"};

#define META_VERSION "io.modelcontextprotocol/protocolVersion"

McpVersion mcp_version_from(const char *s, bool *known) {
    for (int v = V2024_11_05; v <= MCP_NEWEST_LEGACY; v++)
        if (strcmp(s, mcp_version_names[v]) == 0) { *known = true; return (McpVersion)v; }
    *known = false;
    return MCP_NEWEST_LEGACY;
}

static void add_capabilities(cJSON *r) {
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON_AddObjectToObject(caps, "tools");
    cJSON_AddObjectToObject(caps, "logging");
}

static void add_server_info(cJSON *info, McpVersion v) {
    cJSON_AddStringToObject(info, "name", "tinycl");
    cJSON_AddStringToObject(info, "version", TINYCL_VERSION_STRING);
    if (v >= V2025_06_18) cJSON_AddStringToObject(info, "title", "tinycl Common Lisp");
    if (v >= V2025_11_25)
        cJSON_AddStringToObject(info, "description", "A small Common Lisp with a persistent evaluation session.");
}

cJSON *mcp_initialize_result(McpVersion v, const char *instructions) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "protocolVersion", mcp_version_names[v]);
    add_capabilities(r);
    add_server_info(cJSON_AddObjectToObject(r, "serverInfo"), v);
    cJSON_AddStringToObject(r, "instructions", instructions ? instructions : mcp_instructions);
    return r;
}

cJSON *mcp_discover_result(const char *instructions) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "resultType", "complete");
    cJSON *sv = cJSON_AddArrayToObject(r, "supportedVersions");
    cJSON_AddItemToArray(sv, cJSON_CreateString(mcp_version_names[V2026_07_28]));
    add_capabilities(r);
    cJSON *meta = cJSON_AddObjectToObject(r, "_meta");
    add_server_info(cJSON_AddObjectToObject(meta, "io.modelcontextprotocol/serverInfo"), V2026_07_28);
    cJSON_AddStringToObject(r, "instructions", instructions ? instructions : mcp_instructions);
    cJSON_AddNumberToObject(r, "ttlMs", 0);
    cJSON_AddStringToObject(r, "cacheScope", "private");
    return r;
}

/* server/discover exists only in the 2026-07-28 revision, whose requests must carry the protocol
 * version (and the client's capabilities) in _meta: without them the request is malformed. */
const char mcp_discover_needs_meta[] =
    "Invalid params: server/discover needs _meta with \"io.modelcontextprotocol/protocolVersion\" "
    "(2026-07-28) and \"io.modelcontextprotocol/clientCapabilities\"; legacy clients use initialize";

McpEra mcp_request_era(const cJSON *params, const char **requested) {
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(meta, META_VERSION);
    *requested = NULL;
    if (!pv) return MCP_ERA_LEGACY;
    if (!cJSON_IsString(pv)) return MCP_ERA_UNSUPPORTED;
    *requested = pv->valuestring;
    return strcmp(pv->valuestring, mcp_version_names[V2026_07_28]) == 0 ? MCP_ERA_MODERN : MCP_ERA_UNSUPPORTED;
}

cJSON *mcp_unsupported_version_error(const char *requested) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "code", MCP_UNSUPPORTED_VERSION);
    char m[200];
    snprintf(m, sizeof m, "Unsupported protocol version: %.60s", requested ? requested : "(not a string)");
    cJSON_AddStringToObject(e, "message", m);
    cJSON *d = cJSON_AddObjectToObject(e, "data");
    cJSON *sv = cJSON_AddArrayToObject(d, "supported");
    cJSON_AddItemToArray(sv, cJSON_CreateString(mcp_version_names[V2026_07_28]));
    if (requested) cJSON_AddStringToObject(d, "requested", requested);
    else cJSON_AddNullToObject(d, "requested");
    return e;
}

void mcp_mark_complete(cJSON *result) {
    if (cJSON_IsObject(result) && !cJSON_GetObjectItemCaseSensitive(result, "resultType"))
        cJSON_AddStringToObject(result, "resultType", "complete");
}
