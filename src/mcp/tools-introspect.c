/* tools-introspect.c: the `introspection` tool group (describe-symbol, apropos, macroexpand,
 * find-definitions, the who-* cross-reference, calls-who, inspect, documentation): its table and
 * handlers, each a thin layer over the session API's TclInfo calls. */
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error result: the text [ERROR] TYPE and the message, and structuredContent with no items
 * and the same error (every result of a tool with an outputSchema has one). */
static cJSON *info_error(McpContext *ctx, const char *type, const char *message) {
    cJSON *st = cJSON_CreateObject();
    cJSON_AddArrayToObject(st, "items");
    cJSON_AddNumberToObject(st, "total", 0);
    cJSON_AddBoolToObject(st, "more", 0);
    return mcp_error_result(ctx, type, message, st);
}

static cJSON *arg_error(McpContext *ctx, const char *message) { return info_error(ctx, "INVALID-ARGUMENT", message); }

/* A string argument: required (absent -> error) or optional (absent/null -> NULL). */
static bool str_arg(McpContext *ctx, const cJSON *args, const char *name, bool required, const char **out, cJSON **err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    char msg[200];
    *out = NULL;
    if (!v || cJSON_IsNull(v)) {
        if (!required) return true;
        snprintf(msg, sizeof msg, "Missing required argument \"%s\".", name);
        *err = arg_error(ctx, msg);
        return false;
    }
    if (!cJSON_IsString(v) || (required && !v->valuestring[0])) {
        snprintf(msg, sizeof msg, "Argument \"%s\" must be a%s string.", name, required ? " non-empty" : "");
        *err = arg_error(ctx, msg);
        return false;
    }
    *out = v->valuestring[0] ? v->valuestring : NULL;
    return true;
}

static bool bool_arg(McpContext *ctx, const cJSON *args, const char *name, bool *out, cJSON **err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    *out = false;
    if (!v || cJSON_IsNull(v)) return true;
    if (!cJSON_IsBool(v)) {
        char msg[120];
        snprintf(msg, sizeof msg, "Argument \"%s\" must be true or false.", name);
        *err = arg_error(ctx, msg);
        return false;
    }
    *out = cJSON_IsTrue(v);
    return true;
}

static cJSON *location_json(const TclItem *it) {
    if (it->file) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", it->file);
        cJSON_AddNumberToObject(o, "line", (double)it->line);
        cJSON_AddNumberToObject(o, "column", (double)it->column);
        return o;
    }
    if (it->call) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "call", (double)it->call);
        cJSON_AddStringToObject(o, "source", it->source ? it->source : "");
        if (it->line > 0) {   /* a site: its place in the call's code */
            cJSON_AddNumberToObject(o, "line", (double)it->line);
            cJSON_AddNumberToObject(o, "column", (double)it->column);
        }
        return o;
    }
    return cJSON_CreateNull();
}

/* The tool result of an introspection call: the text, or [ERROR] TYPE and the message. */
static cJSON *info_result(McpContext *ctx, TclInfo *info) {
    TclResult *r = info->result;
    cJSON *res;
    if (r->status != TCL_OK || !info->text) {
        const char *type = r->status == TCL_INCOMPLETE ? "END-OF-FILE" : r->error_type ? r->error_type : "ERROR";
        const char *msg = r->status == TCL_INCOMPLETE ? "Incomplete input: the code ends inside a form."
                          : r->error_message ? r->error_message : "";
        res = info_error(ctx, type, msg);
    } else {
        cJSON *st = cJSON_CreateObject();
        cJSON_AddStringToObject(st, "subject", info->subject ? info->subject : "");
        cJSON *arr = cJSON_AddArrayToObject(st, "items");
        for (int i = 0; i < info->count; i++) {
            const TclItem *it = &info->items[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "kind", it->kind);
            cJSON_AddStringToObject(o, "name", it->name);
            cJSON_AddStringToObject(o, "detail", it->detail);
            cJSON_AddItemToObject(o, "location", location_json(it));
            cJSON_AddItemToArray(arr, o);
        }
        cJSON_AddNumberToObject(st, "total", info->total);
        cJSON_AddBoolToObject(st, "more", info->total > info->count);
        cJSON_AddStringToObject(st, "text", info->text);
        cJSON_AddNullToObject(st, "error");
        res = mcp_text_result(info->text, false, st, ctx->version);
    }
    tcl_info_free(info);
    return res;
}

static cJSON *tool_describe_symbol(McpContext *ctx, const cJSON *args) {
    const char *sym, *pkg;
    cJSON *err = NULL;
    if (!str_arg(ctx, args, "symbol", true, &sym, &err) || !str_arg(ctx, args, "package", false, &pkg, &err)) return err;
    return info_result(ctx, tcl_describe_symbol(ctx->session, sym, pkg));
}

static cJSON *tool_find_definitions(McpContext *ctx, const cJSON *args) {
    const char *sym, *pkg;
    cJSON *err = NULL;
    if (!str_arg(ctx, args, "symbol", true, &sym, &err) || !str_arg(ctx, args, "package", false, &pkg, &err)) return err;
    return info_result(ctx, tcl_find_definitions(ctx->session, sym, pkg));
}

static cJSON *tool_documentation(McpContext *ctx, const cJSON *args) {
    const char *sym, *pkg, *type;
    cJSON *err = NULL;
    if (!str_arg(ctx, args, "symbol", true, &sym, &err) || !str_arg(ctx, args, "package", false, &pkg, &err) ||
        !str_arg(ctx, args, "doc_type", false, &type, &err))
        return err;
    return info_result(ctx, tcl_documentation(ctx->session, sym, pkg, type));
}

static const char *const apropos_kinds[] = {"function", "generic-function", "macro", "special-operator",
                                            "variable", "constant", "class", "package", NULL};

static cJSON *tool_apropos(McpContext *ctx, const cJSON *args) {
    const char *query, *pkg;
    bool external;
    cJSON *err = NULL;
    if (!str_arg(ctx, args, "query", true, &query, &err) || !str_arg(ctx, args, "package", false, &pkg, &err) ||
        !bool_arg(ctx, args, "external_only", &external, &err))
        return err;
    const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(args, "kinds");
    const char *chosen[16] = {NULL};
    int n = 0;
    if (kinds && !cJSON_IsNull(kinds)) {
        if (!cJSON_IsArray(kinds) || cJSON_GetArraySize(kinds) > 8)
            return arg_error(ctx, "Argument \"kinds\" must be an array of kinds: function, generic-function, macro, "
                                  "special-operator, variable, constant, class, package.");
        const cJSON *k;
        cJSON_ArrayForEach(k, kinds) {
            bool ok = false;
            for (int i = 0; cJSON_IsString(k) && apropos_kinds[i]; i++)
                if (strcmp(k->valuestring, apropos_kinds[i]) == 0) ok = true;
            if (!ok)
                return arg_error(ctx, "Each of \"kinds\" must be one of: function, generic-function, macro, "
                                      "special-operator, variable, constant, class, package.");
            chosen[n++] = k->valuestring;
        }
    }
    return info_result(ctx, tcl_apropos(ctx->session, query, pkg, external, n ? chosen : NULL));
}

static cJSON *tool_macroexpand(McpContext *ctx, const cJSON *args) {
    const char *code, *pkg;
    bool full;
    cJSON *err = NULL;
    if (!str_arg(ctx, args, "code", true, &code, &err) || !str_arg(ctx, args, "package", false, &pkg, &err) ||
        !bool_arg(ctx, args, "full", &full, &err))
        return err;
    return info_result(ctx, tcl_macroexpand(ctx->session, code, pkg, full));
}

static cJSON *tool_inspect(McpContext *ctx, const cJSON *args) {
    const char *code, *pkg;
    cJSON *err = NULL;
    if (!str_arg(ctx, args, "code", false, &code, &err) || !str_arg(ctx, args, "package", false, &pkg, &err)) return err;
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
    long parts[64];
    int n = 0;
    if (path && !cJSON_IsNull(path)) {
        if (!cJSON_IsArray(path) || cJSON_GetArraySize(path) > 64)
            return arg_error(ctx, "Argument \"path\" must be an array of at most 64 part numbers, such as [2, 0].");
        const cJSON *p;
        cJSON_ArrayForEach(p, path) {
            if (!cJSON_IsNumber(p) || p->valuedouble < 0 || p->valuedouble > 1e9 || p->valuedouble != (double)(long)p->valuedouble)
                return arg_error(ctx, "Each element of \"path\" must be a non-negative integer part number.");
            parts[n++] = (long)p->valuedouble;
        }
    }
    return info_result(ctx, tcl_inspect(ctx->session, code, pkg, parts, n));
}

/* who-calls, who-references, who-sets, who-binds, who-macroexpands, calls-who */
static cJSON *xref_tool(McpContext *ctx, const cJSON *args, const char *relation) {
    const char *sym, *pkg;
    cJSON *err = NULL;
    if (!str_arg(ctx, args, "symbol", true, &sym, &err) || !str_arg(ctx, args, "package", false, &pkg, &err)) return err;
    return info_result(ctx, tcl_xref(ctx->session, relation, sym, pkg));
}
static cJSON *tool_who_calls(McpContext *c, const cJSON *a) { return xref_tool(c, a, "calls"); }
static cJSON *tool_who_references(McpContext *c, const cJSON *a) { return xref_tool(c, a, "references"); }
static cJSON *tool_who_sets(McpContext *c, const cJSON *a) { return xref_tool(c, a, "sets"); }
static cJSON *tool_who_binds(McpContext *c, const cJSON *a) { return xref_tool(c, a, "binds"); }
static cJSON *tool_who_macroexpands(McpContext *c, const cJSON *a) { return xref_tool(c, a, "macroexpands"); }
static cJSON *tool_calls_who(McpContext *c, const cJSON *a) { return xref_tool(c, a, "calls-who"); }

#define PACKAGE_PROP "\"package\":{\"type\":\"string\",\"description\":\"Package to read names in (default: the current package)\"}"
#define SYMBOL_INPUT                                                                                              \
    "{\"type\":\"object\",\"properties\":{\"symbol\":{\"type\":\"string\",\"description\":\"A symbol name: foo, "  \
    "pkg:foo or pkg::foo\"}," PACKAGE_PROP "},\"required\":[\"symbol\"],\"additionalProperties\":false}"
#define INFO_OUTPUT                                                                                               \
    "{\"type\":\"object\",\"properties\":{\"subject\":{\"type\":\"string\"},\"items\":{\"type\":\"array\","      \
    "\"items\":{\"type\":\"object\",\"properties\":{\"kind\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"}," \
    "\"detail\":{\"type\":\"string\"},\"location\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\","        \
    "\"properties\":{\"file\":{\"type\":\"string\"},\"line\":{\"type\":\"integer\"},\"column\":{\"type\":\"integer\"}," \
    "\"call\":{\"type\":\"integer\"},\"source\":{\"type\":\"string\"}}}]}},\"required\":[\"kind\",\"name\"]}},"  \
    "\"total\":{\"type\":\"integer\"},\"more\":{\"type\":\"boolean\"},\"text\":{\"type\":\"string\"},"          \
    "\"error\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"properties\":{\"type\":{\"type\":\"string\"},"   \
    "\"message\":{\"type\":\"string\"}},\"required\":[\"type\",\"message\"]}]}},"                                    \
    "\"required\":[\"items\",\"total\",\"more\",\"error\"]}"
#define XREF_TOOL(name, title, what, handler)                                                                     \
    {name, title, what " Each entry: the definition and its source location.",                  \
     SYMBOL_INPUT, INFO_OUTPUT, true, false, true, false, handler}

const Tool mcp_tools_introspection[] = {
    {"describe-symbol", "Describe symbol",
     "Describe everything a symbol names (function or generic function with lambda list, documentation and methods; "
     "macro; special operator; variable or constant with value; class, structure or condition with superclasses and "
     "slots; type; package) and where each was defined.",
     SYMBOL_INPUT, INFO_OUTPUT, true, false, true, false, tool_describe_symbol},
    {"apropos", "Apropos",
     "Find symbols whose names contain `query` (exact and prefix matches first, at most 200), with what each names.",
     "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"description\":\"Part of a symbol name\"},"
     "\"package\":{\"type\":\"string\",\"description\":\"Only this package's own symbols (default all packages)\"},"
     "\"external_only\":{\"type\":\"boolean\",\"description\":\"Only external symbols (default false)\"},"
     "\"kinds\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"function\",\"generic-function\","
     "\"macro\",\"special-operator\",\"variable\",\"constant\",\"class\",\"package\"]},"
     "\"description\":\"Only symbols naming one of these\"}},\"required\":[\"query\"],\"additionalProperties\":false}",
     INFO_OUTPUT, true, false, true, false, tool_apropos},
    {"macroexpand", "Macroexpand",
     "Expand the macro form in `code` once (MACROEXPAND-1), or with `full` every macro in it as a code walker would; "
     "pretty-printed, nothing evaluated.",
     "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\",\"description\":\"One Lisp form\"},"
     PACKAGE_PROP ",\"full\":{\"type\":\"boolean\",\"description\":\"Expand every macro in the form (default false)\"}},"
     "\"required\":[\"code\"],\"additionalProperties\":false}",
     INFO_OUTPUT, true, false, true, false, tool_macroexpand},
    {"find-definitions", "Find definitions",
     "Find every definition of a name (function, method, macro, variable, class, structure, condition, setf "
     "function, compiler macro, type) with its source: file, line and column, or the evaluate-lisp call and text "
     "that made it.",
     SYMBOL_INPUT, INFO_OUTPUT, true, false, true, false, tool_find_definitions},
    XREF_TOOL("who-calls", "Who calls", "List the definitions that call a function (or take it with #').", tool_who_calls),
    XREF_TOOL("who-references", "Who references", "List the definitions that read a global or special variable.",
              tool_who_references),
    XREF_TOOL("who-sets", "Who sets", "List the definitions that assign a global or special variable.", tool_who_sets),
    XREF_TOOL("who-binds", "Who binds", "List the definitions that bind a special variable.", tool_who_binds),
    XREF_TOOL("who-macroexpands", "Who macroexpands", "List the definitions that use a macro.", tool_who_macroexpands),
    XREF_TOOL("calls-who", "Calls who", "List the functions a function's definitions call.", tool_calls_who),
    {"inspect", "Inspect",
     "Evaluate `code` and take its value apart into numbered parts (elements, hash-table entries, slots, a symbol's "
     "cells, a function's name and lambda list), each printed within bounds. `path` drills down; without `code` it "
     "drills into the last inspected value, evaluating nothing.",
     "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\",\"description\":\"A form whose value to inspect\"},"
     PACKAGE_PROP ",\"path\":{\"type\":\"array\",\"items\":{\"type\":\"integer\",\"minimum\":0},"
     "\"description\":\"Part numbers to drill down through, e.g. [2, 0]\"}},\"additionalProperties\":false}",
     INFO_OUTPUT, false, false, false, false, tool_inspect},
    {"documentation", "Documentation",
     "Get a symbol's documentation strings, of every type or of `doc_type`.",
     "{\"type\":\"object\",\"properties\":{\"symbol\":{\"type\":\"string\",\"description\":\"A symbol name\"},"
     PACKAGE_PROP ",\"doc_type\":{\"type\":\"string\",\"description\":\"One type (default: all)\",\"enum\":[\"function\",\"variable\",\"type\",\"structure\","
     "\"setf\",\"compiler-macro\",\"method-combination\"]}},\"required\":[\"symbol\"],\"additionalProperties\":false}",
     INFO_OUTPUT, true, false, true, false, tool_documentation},
};
const int mcp_tools_introspection_count = (int)(sizeof mcp_tools_introspection / sizeof mcp_tools_introspection[0]);
