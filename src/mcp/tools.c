/* tools.c: the `eval` and `systems` tool groups: their tables (names, descriptions, schemas, annotations) and handlers. */
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mcp_instructions =
    "tinycl is a Common Lisp (ANSI CL core: special operators, macros, closures, conditions and "
    "restarts, packages, numbers with bignums and ratios, strings, sequences, hash tables, LOOP, FORMAT, "
    "streams) running in ONE persistent session. Definitions (functions, macros, variables, packages) "
    "and the current package persist across evaluate-lisp calls until reset-session. evaluate-lisp "
    "reads and evaluates the forms of `code` one at a time, so (in-package ...) affects the forms after it "
    "and the package it ends in persists; the `package` argument starts a single call in another "
    "package without changing the session's. Results show printed output under [stdout]/[stderr], "
    "warnings as [warning] lines, and each value of the last form as `=> VALUE` (strings are printed "
    "readably, e.g. => \"abc\"). Errors come back with isError and the text `[ERROR] TYPE`, the "
    "condition's report and a short backtrace; the session survives errors, runaway loops (time limit, "
    "default 30 s), floods of output (a result carries at most max_output_chars, default 100000, and output "
    "beyond it stops the evaluation), deep recursion and heap exhaustion with its definitions intact. Libraries: load-system and "
    "quickload load ASDF systems (and their dependencies) from local source directories, with no network; "
    "list-local-systems shows what can be loaded, describe-system, list-loaded-systems and system-dependencies "
    "report on them. reset-session keeps loaded systems usable (their records are cleared) unless systems is true. "
    "Warnings found when code is analysed (undefined functions and variables, wrong argument counts, unused "
    "variables) come as [warning] lines, as SBCL's compiler gives them. evaluate-lisp with debug true suspends "
    "at an unhandled error instead: invoke-restart (e.g. USE-VALUE with values) or abort-evaluation continues "
    "it, backtrace shows its frames; profile shows where the time goes. "
    "Introspection without writing code: describe-symbol, apropos, documentation, macroexpand (full: every macro), "
    "find-definitions (file:line:column, or the evaluate-lisp call that made it), who-calls / who-references / "
    "who-sets / who-binds / who-macroexpands / calls-who, and inspect (path drills into the last value).";

/* ---- evaluate-lisp ---- */

#define MIN_OUTPUT_CHARS 100
#define MAX_OUTPUT_CHARS 10000000

static cJSON *tool_evaluate(McpContext *ctx, const cJSON *args) {
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(args, "code");
    const cJSON *package = cJSON_GetObjectItemCaseSensitive(args, "package");
    const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(args, "timeout_seconds");
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(args, "max_output_chars");
    if (!code) return mcp_argument_error(ctx, MCP_ARGS_EVAL, "Missing required argument \"code\": a string of Lisp source to evaluate.");
    if (!cJSON_IsString(code)) return mcp_argument_error(ctx, MCP_ARGS_EVAL, "Argument \"code\" must be a string of Lisp source.");
    if (package && !cJSON_IsNull(package) && !cJSON_IsString(package))
        return mcp_argument_error(ctx, MCP_ARGS_EVAL, "Argument \"package\" must be a string naming a package, such as \"CL-USER\".");
    double t = ctx->default_timeout;
    if (timeout && !cJSON_IsNull(timeout)) {
        if (!cJSON_IsNumber(timeout) || timeout->valuedouble <= 0 || timeout->valuedouble > 3600)
            return mcp_argument_error(ctx, MCP_ARGS_EVAL, "Argument \"timeout_seconds\" must be a number of seconds between 0 and 3600.");
        t = timeout->valuedouble;
    }
    size_t out_limit = 0;
    if (limit && !cJSON_IsNull(limit)) {
        if (!cJSON_IsNumber(limit) || limit->valuedouble < MIN_OUTPUT_CHARS || limit->valuedouble > MAX_OUTPUT_CHARS ||
            limit->valuedouble != (double)(long)limit->valuedouble)
            return mcp_argument_error(ctx, MCP_ARGS_EVAL, "Argument \"max_output_chars\" must be an integer from 100 to 10000000.");
        out_limit = (size_t)limit->valuedouble;
    }
    const cJSON *debug = cJSON_GetObjectItemCaseSensitive(args, "debug");
    if (debug && !cJSON_IsNull(debug) && !cJSON_IsBool(debug))
        return mcp_argument_error(ctx, MCP_ARGS_EVAL, "Argument \"debug\" must be true or false.");
    const char *pkg = cJSON_IsString(package) && package->valuestring[0] ? package->valuestring : NULL;
    size_t len;
    char *text = mcp_string_argument(ctx, code, "code", &len);   /* exact: it may hold NUL characters */
    TclResult *r = cJSON_IsTrue(debug) ? tcl_eval_debug_n(ctx->session, text, len, pkg, t, out_limit)
                                       : tcl_eval_n(ctx->session, text, len, pkg, t, out_limit);
    free(text);
    cJSON *res = mcp_eval_result(ctx, r);
    tcl_result_free(r);
    return res;
}

/* ---- list-definitions ---- */

static const char *const definition_types[] = {"all", "functions", "variables", "macros", "classes", "structures",
                                               "generic-functions", "methods", "packages", "systems", NULL};

static cJSON *tool_list_definitions(McpContext *ctx, const cJSON *args) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(args, "type");
    const cJSON *package = cJSON_GetObjectItemCaseSensitive(args, "package");
    const char *t = NULL;
    if (type && !cJSON_IsNull(type)) {
        bool ok = false;
        if (cJSON_IsString(type))
            for (int i = 0; definition_types[i]; i++)
                if (strcmp(type->valuestring, definition_types[i]) == 0) ok = true;
        if (!ok)
            return mcp_argument_error(ctx, MCP_ARGS_DEFINITIONS, "Argument \"type\" must be one of: all, functions, variables, macros, classes, "
                                       "structures, generic-functions, methods, packages, systems.");
        t = type->valuestring;
    }
    if (package && !cJSON_IsNull(package) && !cJSON_IsString(package))
        return mcp_argument_error(ctx, MCP_ARGS_DEFINITIONS, "Argument \"package\" must be a string naming a package.");
    const char *p = cJSON_IsString(package) && package->valuestring[0] ? package->valuestring : NULL;
    TclDefinitions *d = tcl_list_definitions(ctx->session, t, p);
    cJSON *res;
    if (d->error_type) {
        cJSON *st = cJSON_CreateObject();
        cJSON_AddArrayToObject(st, "definitions");
        cJSON_AddStringToObject(st, "package", tcl_current_package(ctx->session));
        res = mcp_error_result(ctx, d->error_type, d->error_message, st);
    } else {
        cJSON *st = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(st, "definitions");
        for (int i = 0; i < d->count; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddItemToObject(o, "kind", mcp_json_string(d->items[i].kind));
            cJSON_AddItemToObject(o, "name", mcp_json_string(d->items[i].name));
            cJSON_AddItemToObject(o, "detail", mcp_json_string(d->items[i].detail));
            cJSON_AddItemToObject(o, "package", mcp_json_string(d->items[i].package));
            cJSON_AddItemToArray(arr, o);
        }
        cJSON_AddNullToObject(st, "error");
        cJSON_AddStringToObject(st, "package", tcl_current_package(ctx->session));
        res = mcp_text_result(d->text, false, st, ctx->version);
    }
    tcl_definitions_free(d);
    return res;
}

/* ---- reset-session ---- */

static cJSON *tool_reset_session(McpContext *ctx, const cJSON *args) {
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(args, "systems");
    if (systems && !cJSON_IsNull(systems) && !cJSON_IsBool(systems))
        return mcp_argument_error(ctx, MCP_ARGS_RESET, "Argument \"systems\" must be true or false.");
    bool drop = cJSON_IsTrue(systems);
    tcl_reset(ctx->session, drop);
    const char *text = drop ? "Session reset. All definitions cleared.\nLoaded systems dropped.\nCurrent package: CL-USER"
                            : "Session reset. All definitions cleared.\nCurrent package: CL-USER";
    cJSON *st = cJSON_CreateObject();
    cJSON_AddBoolToObject(st, "reset", 1);
    cJSON_AddBoolToObject(st, "systems_dropped", drop);
    cJSON_AddNullToObject(st, "error");
    cJSON_AddStringToObject(st, "package", "COMMON-LISP-USER");
    return mcp_text_result(text, false, st, ctx->version);
}

/* ---- systems: load-system, quickload, describe-system, list-local-systems, list-loaded-systems,
 *      system-dependencies (the loader is stdlib-lisp/asdf.lisp; the session API in tinycl.h) ---- */

static void progress_to_client(void *vctx, const char *message) { mcp_progress((McpContext *)vctx, message); }

/* A required non-empty string argument NAME, or NULL after setting *err to the argument error. */
static const char *string_arg(McpContext *ctx, const cJSON *args, const char *name, cJSON **err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    char msg[200];
    if (!v || cJSON_IsNull(v)) {
        snprintf(msg, sizeof msg, "Missing required argument \"%s\": the name of a system, such as \"alexandria\".", name);
        *err = mcp_argument_error(ctx, MCP_ARGS_SYSTEM, msg);
        return NULL;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        snprintf(msg, sizeof msg, "Argument \"%s\" must be a non-empty string naming a system.", name);
        *err = mcp_argument_error(ctx, MCP_ARGS_SYSTEM, msg);
        return NULL;
    }
    return v->valuestring;
}

static bool bool_arg(McpContext *ctx, const cJSON *args, const char *name, bool *out, cJSON **err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    *out = false;
    if (!v || cJSON_IsNull(v)) return true;
    if (!cJSON_IsBool(v)) {
        char msg[160];
        snprintf(msg, sizeof msg, "Argument \"%s\" must be true or false.", name);
        *err = mcp_argument_error(ctx, MCP_ARGS_SYSTEM, msg);
        return false;
    }
    *out = cJSON_IsTrue(v);
    return true;
}

#define LOAD_DEFAULT_TIMEOUT 300.0

static cJSON *load_common(McpContext *ctx, const cJSON *args, bool quickload) {
    cJSON *err = NULL;
    const char *system = string_arg(ctx, args, "system", &err);
    if (!system) return err;
    bool force = false;
    if (!quickload && !bool_arg(ctx, args, "force", &force, &err)) return err;
    double t = ctx->default_timeout > LOAD_DEFAULT_TIMEOUT ? ctx->default_timeout : LOAD_DEFAULT_TIMEOUT;
    const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(args, "timeout_seconds");
    if (timeout && !cJSON_IsNull(timeout)) {
        if (!cJSON_IsNumber(timeout) || timeout->valuedouble <= 0 || timeout->valuedouble > 3600)
            return mcp_argument_error(ctx, MCP_ARGS_SYSTEM, "Argument \"timeout_seconds\" must be a number of seconds between 0 and 3600.");
        t = timeout->valuedouble;
    }
    tcl_set_progress_handler(ctx->session, progress_to_client, ctx);
    TclReport *rep = tcl_load_system(ctx->session, system, force, quickload, t);
    tcl_set_progress_handler(ctx->session, NULL, NULL);
    return mcp_report_result(ctx, rep, mcp_load_report_json);
}

static cJSON *tool_load_system(McpContext *ctx, const cJSON *args) { return load_common(ctx, args, false); }
static cJSON *tool_quickload(McpContext *ctx, const cJSON *args) { return load_common(ctx, args, true); }

static cJSON *tool_describe_system(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *system = string_arg(ctx, args, "system", &err);
    if (!system) return err;
    return mcp_report_result(ctx, tcl_describe_system(ctx->session, system), mcp_describe_report_json);
}

static cJSON *tool_list_local_systems(McpContext *ctx, const cJSON *args) {
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(args, "filter");
    const cJSON *offset = cJSON_GetObjectItemCaseSensitive(args, "offset");
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(args, "limit");
    if (filter && !cJSON_IsNull(filter) && !cJSON_IsString(filter))
        return mcp_argument_error(ctx, MCP_ARGS_SYSTEM, "Argument \"filter\" must be a string: part of the system names to list.");
    int off = 0, lim = 100;
    if (offset && !cJSON_IsNull(offset)) {
        if (!cJSON_IsNumber(offset) || offset->valuedouble < 0 || offset->valuedouble > 1e6 ||
            offset->valuedouble != (double)(int)offset->valuedouble)
            return mcp_argument_error(ctx, MCP_ARGS_SYSTEM, "Argument \"offset\" must be a non-negative integer (the next_offset of the previous page).");
        off = (int)offset->valuedouble;
    }
    if (limit && !cJSON_IsNull(limit)) {
        if (!cJSON_IsNumber(limit) || limit->valuedouble < 1 || limit->valuedouble > 1000 ||
            limit->valuedouble != (double)(int)limit->valuedouble)
            return mcp_argument_error(ctx, MCP_ARGS_SYSTEM, "Argument \"limit\" must be an integer from 1 to 1000.");
        lim = (int)limit->valuedouble;
    }
    const char *f = cJSON_IsString(filter) && filter->valuestring[0] ? filter->valuestring : NULL;
    return mcp_report_result(ctx, tcl_list_local_systems(ctx->session, f, off, lim), mcp_local_systems_json);
}

static cJSON *tool_list_loaded_systems(McpContext *ctx, const cJSON *args) {
    (void)args;
    return mcp_report_result(ctx, tcl_list_loaded_systems(ctx->session), mcp_loaded_systems_json);
}

static cJSON *tool_system_dependencies(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *system = string_arg(ctx, args, "system", &err);
    if (!system) return err;
    bool transitive = false;
    if (!bool_arg(ctx, args, "transitive", &transitive, &err)) return err;
    return mcp_report_result(ctx, tcl_system_dependencies(ctx->session, system, transitive), mcp_dependencies_json);
}

/* ---- the table ---- */

#define NULLABLE(schema) "{\"anyOf\":[{\"type\":\"null\"}," schema "]}"

#define ERROR_FORM_SCHEMA                                                                                   \
    "{\"type\":\"object\",\"properties\":{\"index\":{\"type\":\"integer\"},\"line\":{\"type\":\"integer\"},"  \
    "\"column\":{\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},\"required\":[\"index\",\"line\",\"column\",\"text\"]}"

#define EVAL_OUTPUT_SCHEMA                                                                                  \
    "{\"type\":\"object\",\"properties\":{"                                                                 \
    "\"values\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"                                      \
    "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"                                    \
    "\"warnings\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"                      \
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},\"line\":{\"type\":\"integer\"},\"column\":{\"type\":\"integer\"},\"file\":{\"type\":\"string\"}},\"required\":[\"type\",\"message\"]}}," \
    "\"error\":" NULLABLE("{\"type\":\"object\",\"properties\":{"                                          \
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},"                                     \
    "\"backtrace\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"                                   \
    "\"stage\":{\"enum\":[\"read\",\"eval\",\"print\",null]},"                                              \
    "\"form\":" NULLABLE(ERROR_FORM_SCHEMA) ","                                                             \
    "\"position\":" NULLABLE("{\"type\":\"object\",\"properties\":{\"line\":{\"type\":\"integer\"},"         \
    "\"column\":{\"type\":\"integer\"}},\"required\":[\"line\",\"column\"]}") ","                            \
    "\"later_forms_skipped\":{\"type\":\"boolean\"}},"                                                      \
    "\"required\":[\"type\",\"message\",\"backtrace\",\"stage\",\"form\",\"position\",\"later_forms_skipped\"]}") "," \
    "\"package\":{\"type\":\"string\"},\"forms_evaluated\":{\"type\":\"integer\"},"                          \
    "\"note\":{\"type\":[\"string\",\"null\"]},\"elapsed_ms\":{\"type\":\"number\"},"                      \
    MCP_SUSPENDED_OUTPUT_PROPERTIES "},"                                                                    \
    "\"required\":[\"values\",\"stdout\",\"stderr\",\"warnings\",\"error\",\"package\",\"forms_evaluated\",\"note\",\"elapsed_ms\"]}"

const char mcp_eval_output_schema[] = EVAL_OUTPUT_SCHEMA;

#define SIMPLE_ERROR_SCHEMA                                                                                  \
    "\"error\":" NULLABLE("{\"type\":\"object\",\"properties\":{"                                          \
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"}},\"required\":[\"type\",\"message\"]}")

#define SYSTEM_ERROR_SCHEMA                                                                                  \
    "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"                              \
    "\"error\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"properties\":{"                    \
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"}},\"required\":[\"type\",\"message\"]}]}"

#define RECORD_SCHEMA                                                                                        \
    "{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"properties\":{"                              \
    "\"name\":{\"type\":\"string\"},\"version\":{\"type\":[\"string\",\"null\"]},"                         \
    "\"load_time\":{\"type\":\"string\"},\"load_time_universal\":{\"type\":\"integer\"},"                  \
    "\"elapsed_ms\":{\"type\":\"number\"},\"source_file\":{\"type\":[\"string\",\"null\"]},"              \
    "\"dependencies\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"                             \
    "\"transitive_dependencies\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"                  \
    "\"packages\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"definitions\":{\"type\":\"integer\"}},"     \
    "\"required\":[\"name\",\"load_time\"]}]}"

#define SYSTEM_NAME_PROPERTY "\"system\":{\"type\":\"string\",\"description\":\"System name, e.g. \\\"alexandria\\\" or \\\"cl-ppcre/test\\\"\"}"

#define LOAD_OUTPUT_SCHEMA                                                                                   \
    "{\"type\":\"object\",\"properties\":{"                                                                 \
    "\"system\":{\"type\":\"string\"},\"version\":{\"type\":[\"string\",\"null\"]},"                       \
    "\"status\":{\"type\":\"string\",\"enum\":[\"loaded\",\"reloaded\",\"recorded\",\"present\"]},"           \
    "\"record\":" RECORD_SCHEMA ","                                                                         \
    "\"systems\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"                       \
    "\"name\":{\"type\":\"string\"},\"version\":{\"type\":[\"string\",\"null\"]},"                         \
    "\"action\":{\"type\":\"string\"},\"elapsed_ms\":{\"type\":[\"number\",\"null\"]}},\"required\":[\"name\",\"action\"]}},"  \
    "\"loaded_before_error\":{\"type\":\"array\",\"items\":" RECORD_SCHEMA "},"                             \
    SYSTEM_ERROR_SCHEMA "},\"required\":[\"stdout\",\"stderr\",\"error\"]}"

#define STATUS_ENUM "{\"type\":\"string\",\"enum\":[\"loaded\",\"loaded-before-reset\",\"not-loaded\"]}"

const Tool mcp_tools_eval[] = {
    {"evaluate-lisp", "Evaluate Lisp",
     "Evaluate Lisp forms in the persistent session, one at a time (definitions, variables and the current package "
     "persist between calls). Returns output, warnings and the last form's values as `=> VALUE`, or the error with a "
     "backtrace. `debug: true` suspends at an unhandled error (see invoke-restart).",
     "{\"type\":\"object\",\"properties\":{"
     "\"code\":{\"type\":\"string\",\"description\":\"Lisp source: one or more forms\"},"
     "\"package\":{\"type\":\"string\",\"description\":\"Package to start this call in (the session's package is left unchanged)\"},"
     "\"timeout_seconds\":{\"type\":\"number\",\"description\":\"Time limit for this call in seconds (default 30)\"},"
     "\"max_output_chars\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":10000000,\"description\":"
     "\"Characters the result may carry: output, values, warnings and backtrace together (default 100000); "
     "output beyond it stops the evaluation\"},"
     "\"debug\":{\"type\":\"boolean\",\"description\":\"Suspend at an unhandled error instead of ending: see invoke-restart\"}},"
     "\"required\":[\"code\"]}",
     EVAL_OUTPUT_SCHEMA, false, true, false, false, tool_evaluate},
    {"list-definitions", "List definitions",
     "List the session's definitions (functions with lambda lists, variables with values, macros, classes, "
     "structures, generic functions, methods, user packages, loaded systems), or with `package` that package's.",
     "{\"type\":\"object\",\"properties\":{"
     "\"type\":{\"type\":\"string\",\"enum\":[\"all\",\"functions\",\"variables\",\"macros\",\"classes\",\"structures\","
     "\"generic-functions\",\"methods\",\"packages\",\"systems\"],\"description\":\"Which kind of definition (default all)\"},"
     "\"package\":{\"type\":\"string\",\"description\":\"List this package's definitions\"}},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"definitions\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
     "\"properties\":{\"kind\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"},\"detail\":{\"type\":\"string\"},"
     "\"package\":{\"type\":\"string\"}},\"required\":[\"kind\",\"name\"]}},\"package\":{\"type\":\"string\"},"
     SIMPLE_ERROR_SCHEMA "},\"required\":[\"definitions\",\"error\"]}",
     true, false, true, false, tool_list_definitions},
    {"reset-session", "Reset session",
     "Return the session to a fresh state: user definitions and packages removed, package CL-USER. Loaded systems "
     "stay usable unless `systems` is true (then exactly a new process). Cannot fail.",
     "{\"type\":\"object\",\"properties\":{\"systems\":{\"type\":\"boolean\","
     "\"description\":\"Also drop loaded systems (default false)\"}},\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"reset\":{\"type\":\"boolean\"},\"systems_dropped\":{\"type\":\"boolean\"},"
     "\"package\":{\"type\":\"string\"}," SIMPLE_ERROR_SCHEMA "},\"required\":[\"reset\",\"error\"]}",
     false, true, true, false, tool_reset_session},
};
const int mcp_tools_eval_count = (int)(sizeof mcp_tools_eval / sizeof mcp_tools_eval[0]);

const Tool mcp_tools_systems[] = {
    {"load-system", "Load system",
     "Load an ASDF system and its dependencies from local source (ASDF:*CENTRAL-REGISTRY*, CL_SOURCE_REGISTRY, the "
     "current directory, ~/common-lisp/, ~/quicklisp/local-projects/, /usr/share/common-lisp/). Reports version, "
     "load time and the dependencies loaded; an unchanged loaded system is not reloaded unless `force`.",
     "{\"type\":\"object\",\"properties\":{" SYSTEM_NAME_PROPERTY ","
     "\"force\":{\"type\":\"boolean\",\"description\":\"Reload the system even when it is loaded and unchanged (default false)\"},"
     "\"timeout_seconds\":{\"type\":\"number\",\"description\":\"Time limit in seconds (default 300)\"}},"
     "\"required\":[\"system\"],\"additionalProperties\":false}",
     LOAD_OUTPUT_SCHEMA, false, false, true, false, tool_load_system},
    {"quickload", "Quickload system",
     "Load a system as (ql:quickload NAME) does, with load-system's loader. No network: local sources only; a system "
     "found nowhere is QUICKLISP-CLIENT:SYSTEM-NOT-FOUND.",
     "{\"type\":\"object\",\"properties\":{" SYSTEM_NAME_PROPERTY ","
     "\"timeout_seconds\":{\"type\":\"number\",\"description\":\"Time limit in seconds (default 300)\"}},"
     "\"required\":[\"system\"],\"additionalProperties\":false}",
     LOAD_OUTPUT_SCHEMA, false, false, true, false, tool_quickload},
    {"describe-system", "Describe system",
     "Describe a system that can be found, loaded or not: version, description, author, license, dependencies, "
     "source file, components, and whether and when it was loaded.",
     "{\"type\":\"object\",\"properties\":{" SYSTEM_NAME_PROPERTY "},\"required\":[\"system\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"version\":{\"type\":[\"string\",\"null\"]},"
     "\"description\":{\"type\":[\"string\",\"null\"]},\"author\":{\"type\":[\"string\",\"null\"]},"
     "\"license\":{\"type\":[\"string\",\"null\"]},\"dependencies\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
     "\"source_file\":{\"type\":[\"string\",\"null\"]},\"components\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
     "\"status\":" STATUS_ENUM ",\"record\":" RECORD_SCHEMA "," SYSTEM_ERROR_SCHEMA "},"
     "\"required\":[\"stdout\",\"stderr\",\"error\"]}",
     true, false, true, false, tool_describe_system},
    {"list-local-systems", "List local systems",
     "List the systems found in the local source directories, with versions, marked [loaded] when loaded. Paged: "
     "pass next_offset as `offset`.",
     "{\"type\":\"object\",\"properties\":{"
     "\"filter\":{\"type\":\"string\",\"description\":\"Only systems whose name contains this\"},"
     "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Where the page starts (default 0)\"},"
     "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"description\":\"Systems per page (default 100)\"}},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"systems\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"name\":{\"type\":\"string\"},\"version\":{\"type\":[\"string\",\"null\"]},\"source_file\":{\"type\":[\"string\",\"null\"]},"
     "\"loaded\":{\"type\":\"boolean\"},\"status\":" STATUS_ENUM "},\"required\":[\"name\",\"loaded\"]}},"
     "\"total\":{\"type\":\"integer\"},\"offset\":{\"type\":\"integer\"},\"next_offset\":{\"type\":[\"integer\",\"null\"]},"
     "\"truncated_scan\":{\"type\":\"boolean\"}," SYSTEM_ERROR_SCHEMA "},\"required\":[\"stdout\",\"stderr\",\"error\"]}",
     true, false, true, false, tool_list_local_systems},
    {"list-loaded-systems", "List loaded systems",
     "List the systems loaded since the last reset, in load order, with versions, load times and source files.",
     "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"systems\":{\"type\":\"array\",\"items\":" RECORD_SCHEMA "},"
     SYSTEM_ERROR_SCHEMA "},\"required\":[\"stdout\",\"stderr\",\"error\"]}",
     true, false, true, false, tool_list_loaded_systems},
    {"system-dependencies", "System dependencies",
     "List a system's dependencies (with `transitive`, everything it needs, in load order), each with its version "
     "and whether it is loaded.",
     "{\"type\":\"object\",\"properties\":{" SYSTEM_NAME_PROPERTY ","
     "\"transitive\":{\"type\":\"boolean\",\"description\":\"Include indirect dependencies (default false)\"}},"
     "\"required\":[\"system\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"system\":{\"type\":\"string\"},\"transitive\":{\"type\":\"boolean\"},"
     "\"dependencies\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"name\":{\"type\":\"string\"},\"version\":{\"type\":[\"string\",\"null\"]},\"status\":" STATUS_ENUM "},"
     "\"required\":[\"name\"]}}," SYSTEM_ERROR_SCHEMA "},\"required\":[\"stdout\",\"stderr\",\"error\"]}",
     true, false, true, false, tool_system_dependencies},
};
const int mcp_tools_systems_count = (int)(sizeof mcp_tools_systems / sizeof mcp_tools_systems[0]);
