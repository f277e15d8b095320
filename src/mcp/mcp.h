/* mcp.h: shared between the MCP transport (server.c) and the tool table (tools.c). */
#ifndef TINYCL_MCP_H
#define TINYCL_MCP_H

#include "tinycl.h"
#include <cJSON.h>
#include <stdbool.h>

/* Protocol revisions, oldest first; the server answers the client's when supported, else the newest. */
typedef enum { V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28 } McpVersion;
/* The newest revision initialize negotiates; 2026-07-28 has no initialize (requests carry _meta). */
#define MCP_NEWEST_LEGACY V2025_11_25

typedef struct McpContext {
    TclSession *session;
    McpVersion version;
    cJSON *progress_token;       /* of the request being served, or NULL */
    double default_timeout;
    const char *raw;             /* the text of the message being served (NULL when unknown), for exact strings */
    size_t raw_len;
    /* a transport other than stdio takes mcp_progress messages here (NULL: stdio's) */
    void (*progress_hook)(struct McpContext *ctx, const char *message);
    void *hook_data;
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
    bool on_request;             /* offered only when named (or with --http, for the sessions group) */
} ToolGroup;

extern const Tool mcp_tools_eval[], mcp_tools_systems[], mcp_tools_debug[], mcp_tools_introspection[], mcp_tools_files[],
    mcp_tools_tests[];
extern const int mcp_tools_eval_count, mcp_tools_systems_count, mcp_tools_debug_count, mcp_tools_introspection_count,
    mcp_tools_files_count, mcp_tools_tests_count;
extern const Tool mcp_tools_sessions[];
extern const int mcp_tools_sessions_count;
extern const Tool mcp_tools_session[];       /* tools-session.c: checkpoints */
extern const int mcp_tools_session_count;

/* results.c: an evaluation's captured output and warnings as text (malloc'd); tools.c:
 * evaluate-lisp's outputSchema (which the debug tools' results share). */
char *mcp_captured_text(const TclResult *r);
extern const char mcp_eval_output_schema[];

/* tools-debug.c: the result of an evaluation suspended in the debugger; STRUCTURED (taken over)
 * holds evaluate-lisp's fields, to which the restarts are added. */
cJSON *mcp_suspended_result(McpContext *ctx, const TclResult *r, cJSON *structured);
/* The outputSchema properties a suspended evaluation adds to evaluate-lisp's (JSON members). */
#define MCP_SUSPENDED_OUTPUT_PROPERTIES                                                                     \
    "\"suspended\":{\"type\":\"boolean\"},\"debug_level\":{\"type\":\"integer\"},"                      \
    "\"restarts\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"                      \
    "\"index\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},\"report\":{\"type\":\"string\"}},"       \
    "\"required\":[\"index\",\"name\",\"report\"]}}"

extern const ToolGroup mcp_tool_groups[];
extern const int mcp_tool_group_count;

/* Offer only the groups named in LIST (comma-separated names, or "all"). On an unknown name,
 * writes a message to ERR and returns false (the selection is unchanged). */
bool mcp_select_tool_groups(const char *list, char *err, size_t errlen);
/* Offer the on_request groups too (the sessions group), unless --tools chose the groups (--http). */
void mcp_offer_on_request_groups(void);
/* The tools offered, in table order, into the array ARR (tools/list). */
void mcp_list_tools(cJSON *arr, McpVersion v);
/* An offered tool by name, or NULL. */
const Tool *mcp_find_tool(const char *name);
/* Build the tools/list entry for one tool, gated on the negotiated version. */
cJSON *mcp_tool_json(const Tool *t, McpVersion v);

/* A tool result holding TEXT; is_error sets isError. STRUCTURED may be NULL (taken over). */
cJSON *mcp_text_result(const char *text, bool is_error, cJSON *structured, McpVersion v);
/* The same for the LEN bytes of TEXT (which may hold NUL characters). */
cJSON *mcp_text_result_n(const char *text, size_t len, bool is_error, cJSON *structured, McpVersion v);

/* ---- results (results.c) ---- */
/* What a tool's structuredContent holds besides `error` when the call never ran: each outputSchema
 * requires its own fields, and errors are results too. */
typedef enum { MCP_ARGS_EVAL, MCP_ARGS_DEFINITIONS, MCP_ARGS_RESET, MCP_ARGS_SYSTEM } McpArgsShape;
/* An argument problem: a tool error the model can fix (isError, [ERROR] INVALID-ARGUMENT), not a
 * protocol error, with structuredContent of SHAPE. */
cJSON *mcp_argument_error(McpContext *ctx, McpArgsShape shape, const char *message);
/* An error result: the text [ERROR] TYPE and MESSAGE, and STRUCTURED (taken over; NULL: an empty
 * object) with `error` {type, message} added: the fields a tool's outputSchema requires besides
 * `error` are the caller's to put in STRUCTURED. */
cJSON *mcp_error_result(McpContext *ctx, const char *type, const char *message, cJSON *structured);
/* {type, message}: the error of a structuredContent (MESSAGE written exactly). */
cJSON *mcp_error_object(const char *type, const char *message);
/* The result of an evaluation: the text ([stdout], [stderr], [note], [warning], => values or
 * [ERROR] with where the call stopped and the backtrace) and structuredContent (EVAL_OUTPUT_SCHEMA);
 * TCL_SUSPENDED ones through mcp_suspended_result. */
cJSON *mcp_eval_result(McpContext *ctx, const TclResult *r);
/* The text of that result alone (malloc'd, *LEN bytes; it may hold NUL characters). */
char *mcp_eval_text(const TclResult *r, size_t *len);
/* The result of a system report (takes REP over and frees it); DETAILS builds its structured
 * fields, one of the builders below (report-json.c), one per systems tool. */
typedef cJSON *(*McpReportJson)(const TclReport *rep);
cJSON *mcp_report_result(McpContext *ctx, TclReport *rep, McpReportJson details);
cJSON *mcp_load_report_json(const TclReport *rep);
cJSON *mcp_describe_report_json(const TclReport *rep);
cJSON *mcp_local_systems_json(const TclReport *rep);
cJSON *mcp_loaded_systems_json(const TclReport *rep);
cJSON *mcp_dependencies_json(const TclReport *rep);

/* Progress from inside a long tool call (no-op without a progress token). */
void mcp_progress(McpContext *ctx, const char *message);

/* ---- exact JSON text (jsontext.c) ----
 * A string item holding the LEN bytes of S exactly (NUL characters included), as a raw JSON
 * literal; surrogates (generalized UTF-8) become \uXXXX escapes, bytes that are no UTF-8 U+FFFD. */
cJSON *mcp_json_string_n(const char *s, size_t len);
cJSON *mcp_json_string(const char *s);
/* TEXT (LEN bytes of JSON) with every non-UTF-8 sequence escaped, malloc'd with *OUT_LEN, or NULL
 * when TEXT is valid UTF-8 already. */
char *mcp_json_wire_utf8(const char *text, size_t len, size_t *out_len);
/* The exact bytes of the string params.arguments.NAME in the raw message RAW (malloc'd, *LEN),
 * or NULL when it is missing or not a string. */
char *mcp_json_raw_argument(const char *raw, size_t raw_len, const char *name, size_t *len);
/* The exact bytes of the string argument NAME of the call being served, ITEM as cJSON parsed it:
 * from the message text (ctx->raw) when they agree, else ITEM's C string. Malloc'd, *LEN. */
char *mcp_string_argument(const McpContext *ctx, const cJSON *item, const char *name, size_t *len);
/* Where element INDEX of the raw JSON array RAW lies. */
bool mcp_json_array_element(const char *raw, size_t raw_len, int index, size_t *start, size_t *len);
/* Serve one protocol line (one JSON-RPC message or batch) on SESSION as the server's main loop
 * does (DEFAULT_TIMEOUT: seconds for calls that give none), without the reader thread; returns the messages written in reply (one per line,
 * malloc'd, "" when none). For the fuzzing harness (tests/fuzz), which has no stdio server. */
char *mcp_serve_line(TclSession *session, const char *line, size_t len, double default_timeout);

/* ---- lifecycle (lifecycle.c) ---- */
/* The server's session options over the user's: output captured, (exit) an error whose report
 * says to use reset-session, definitions typed in located by "evaluate-lisp call N", 30 s by default. */
void mcp_session_options(TclOptions *so);
extern const char *const mcp_version_names[];
/* A legacy revision by name (*KNOWN false: the newest legacy one). */
McpVersion mcp_version_from(const char *s, bool *known);
/* The initialize result for revision V; INSTRUCTIONS NULL: mcp_instructions. */
cJSON *mcp_initialize_result(McpVersion v, const char *instructions);
/* The server/discover result. */
cJSON *mcp_discover_result(const char *instructions);
/* Which era a request belongs to, by its params._meta protocol version: none (legacy: the
 * initialize handshake's), 2026-07-28 (served statelessly), or another (*REQUESTED: its name). */
typedef enum { MCP_ERA_LEGACY, MCP_ERA_MODERN, MCP_ERA_UNSUPPORTED } McpEra;
McpEra mcp_request_era(const cJSON *params, const char **requested);
/* The -32602 message for a server/discover without the 2026-07-28 _meta. */
extern const char mcp_discover_needs_meta[];
#define MCP_UNSUPPORTED_VERSION (-32022)
#define MCP_HEADER_MISMATCH (-32020)
/* The error object {code -32022, message, data{supported, requested}}. */
cJSON *mcp_unsupported_version_error(const char *requested);
/* Add resultType "complete" (2026-07-28 results). */
void mcp_mark_complete(cJSON *result);

/* The instructions text sent in the initialize result. */
extern const char *mcp_instructions;

/* Move the protocol's stdin and stdout to unguessable close-on-exec descriptors (returned), put
 * /dev/null on fd 0 and stderr on fd 1 (channel.c). False on failure (errno set). */
bool mcp_channel_open(int *in_fd, int *out_fd);

/* The self-pipe the transports' loops watch (wake.c): mcp_wake_install makes it and routes
 * SIGINT, SIGTERM and SIGHUP to mcp_wake, which writes the signal's number (0: just look again). */
extern int mcp_wake_fds[2];
bool mcp_wake_install(void);
void mcp_wake(int sig);

#endif
