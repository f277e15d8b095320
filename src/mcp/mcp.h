/* mcp.h: shared between the MCP transport (server.c) and the tool table (tools.c). */
#ifndef TINYCL_MCP_H
#define TINYCL_MCP_H

#include "tinycl.h"
#include <cJSON.h>
#include <stdbool.h>

/* Protocol revisions, oldest first; the server answers the client's when supported, else the newest. */
typedef enum { V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25 } McpVersion;

typedef struct McpContext {
    TclSession *session;
    McpVersion version;
    cJSON *progress_token;       /* of the request being served, or NULL */
    double default_timeout;
} McpContext;

/* A tool: its description as data, and the handler that fills a tools/call result.
 * Handlers return the result object ({content, structuredContent?, isError?}). */
typedef cJSON *(*ToolHandler)(McpContext *ctx, const cJSON *args);

typedef struct Tool {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;    /* JSON text */
    const char *output_schema;   /* JSON text or NULL */
    bool read_only, destructive, idempotent, open_world;
    ToolHandler handler;
} Tool;

/* A named group of tools; `tinycl mcp --tools GROUP,...` chooses the groups offered. Each group's
 * table lives beside its handlers; registry.c lists the groups. */
typedef struct ToolGroup {
    const char *name;
    const char *summary;         /* one line, for --help */
    const Tool *tools;
    const int *count;
} ToolGroup;

extern const Tool mcp_tools_eval[], mcp_tools_systems[];
extern const int mcp_tools_eval_count, mcp_tools_systems_count;

extern const ToolGroup mcp_tool_groups[];
extern const int mcp_tool_group_count;

/* Offer only the groups named in LIST (comma-separated names, or "all"). On an unknown name,
 * writes a message to ERR and returns false (the selection is unchanged). */
bool mcp_select_tool_groups(const char *list, char *err, size_t errlen);
/* The tools offered, in table order, into the array ARR (tools/list). */
void mcp_list_tools(cJSON *arr, McpVersion v);
/* An offered tool by name, or NULL. */
const Tool *mcp_find_tool(const char *name);
/* Build the tools/list entry for one tool, gated on the negotiated version. */
cJSON *mcp_tool_json(const Tool *t, McpVersion v);

/* A tool result holding TEXT; is_error sets isError. STRUCTURED may be NULL (taken over). */
cJSON *mcp_text_result(const char *text, bool is_error, cJSON *structured, McpVersion v);

/* Progress from inside a long tool call (no-op without a progress token). */
void mcp_progress(McpContext *ctx, const char *message);

/* Serve one protocol line (one JSON-RPC message or batch) on SESSION as the server's main loop
 * does (DEFAULT_TIMEOUT: seconds for calls that give none), without the reader thread; returns the messages written in reply (one per line,
 * malloc'd, "" when none). For the fuzzing harness (tests/fuzz), which has no stdio server. */
char *mcp_serve_line(TclSession *session, const char *line, size_t len, double default_timeout);

/* The instructions text sent in the initialize result. */
extern const char *mcp_instructions;

#endif
