/* tools-debug.c: the `debug` tool group: invoke-restart, abort-evaluation and backtrace on an
 * evaluation suspended by evaluate-lisp {debug: true}, and profile; their table and handlers. */
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

typedef struct Text { char *s; size_t len, cap; } Text;

static void text_add(Text *t, const char *s) {
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 512;
        while (cap < t->len + n + 1) cap *= 2;
        char *ns = (char *)realloc(t->s, cap);
        if (!ns) return;
        t->s = ns;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static void text_printf(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(Text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    char *buf = (char *)malloc((size_t)n + 1);
    if (!buf) return;
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    va_end(ap);
    text_add(t, buf);
    free(buf);
}

static char *text_done(Text *t) {
    if (t->len > 0 && t->s[t->len - 1] == '\n') t->s[--t->len] = 0;
    return t->s ? t->s : strdup("");
}

/* An argument problem of backtrace (PROFILE false) or profile: structuredContent in that tool's
 * shape, with the error, as every result of a tool with an outputSchema has. */
static cJSON *argument_error_of(McpContext *ctx, bool profile, const char *message) {
    cJSON *st = cJSON_CreateObject();
    if (profile) {
        cJSON_AddArrayToObject(st, "profile");
        cJSON_AddNumberToObject(st, "total_ms", 0);
        cJSON_AddArrayToObject(st, "values");
    } else {
        cJSON_AddArrayToObject(st, "frames");
    }
    return mcp_error_result(ctx, "INVALID-ARGUMENT", message, st);
}

/* "NAME: report" as the session gives a restart: split at the first ": ". */
static void split_restart(const char *r, char *name, size_t nlen, const char **report) {
    const char *sep = strstr(r, ": ");
    size_t n = sep ? (size_t)(sep - r) : strlen(r);
    if (n >= nlen) n = nlen - 1;
    memcpy(name, r, n);
    name[n] = 0;
    *report = sep ? sep + 2 : "";
}

cJSON *mcp_suspended_result(McpContext *ctx, const TclResult *r, cJSON *structured) {
    Text t = {0};
    char *captured = mcp_captured_text(r);
    text_add(&t, captured);
    free(captured);
    text_printf(&t, "[DEBUGGER] Evaluation suspended at an unhandled error (level %d); it waits for invoke-restart "
                    "or abort-evaluation.\n", r->debug_level);
    if (r->note) text_printf(&t, "[note] %s\n", r->note);
    text_printf(&t, "[ERROR] %s\n%s\n", r->error_type ? r->error_type : "ERROR", r->error_message ? r->error_message : "");
    text_add(&t, "Restarts (invoke-restart with a name or number):\n");
    cJSON *rs = cJSON_CreateArray();
    for (int i = 0; i < r->nrestarts; i++) {
        char name[256];
        const char *report;
        split_restart(r->restarts[i], name, sizeof name, &report);
        text_printf(&t, "  %d: [%s] %s\n", i, name, report);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", i);
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddStringToObject(o, "report", report);
        cJSON_AddItemToArray(rs, o);
    }
    if (r->nbacktrace > 0) {
        text_add(&t, "Backtrace (the backtrace tool shows every frame, with locals):\n");
        for (int i = 0; i < r->nbacktrace && i < 15; i++) text_printf(&t, "  %d: %s\n", i, r->backtrace[i]);
    }
    cJSON_AddBoolToObject(structured, "suspended", 1);
    cJSON_AddNumberToObject(structured, "debug_level", r->debug_level);
    cJSON_AddItemToObject(structured, "restarts", rs);
    if (r->note) cJSON_ReplaceItemInObjectCaseSensitive(structured, "note", cJSON_CreateString(r->note));
    char *text = text_done(&t);
    cJSON *res = mcp_text_result(text, true, structured, ctx->version);
    free(text);
    return res;
}

/* ---- invoke-restart, abort-evaluation ---- */

static cJSON *tool_invoke_restart(McpContext *ctx, const cJSON *args) {
    const cJSON *restart = cJSON_GetObjectItemCaseSensitive(args, "restart");
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(args, "values");
    char number[32];
    const char *designator = NULL;
    if (cJSON_IsString(restart) && restart->valuestring[0]) designator = restart->valuestring;
    else if (cJSON_IsNumber(restart) && restart->valuedouble >= 0 && restart->valuedouble < 1e6 &&
             restart->valuedouble == (double)(long)restart->valuedouble) {
        snprintf(number, sizeof number, "%ld", (long)restart->valuedouble);
        designator = number;
    }
    if (!designator)
        return mcp_argument_error(ctx, MCP_ARGS_EVAL, "Argument \"restart\" must name a restart (such as \"USE-VALUE\") or give its number.");
    int n = 0;
    if (values && !cJSON_IsNull(values)) {
        bool ok = cJSON_IsArray(values);
        const cJSON *v;
        if (ok) cJSON_ArrayForEach(v, values) if (!cJSON_IsString(v)) ok = false;
        if (!ok || cJSON_GetArraySize(values) > 64)
            return mcp_argument_error(ctx, MCP_ARGS_EVAL, "Argument \"values\" must be a list of at most 64 strings, each a Lisp form "
                                       "(such as [\"42\", \"(list 1 2)\"]).");
        n = cJSON_GetArraySize(values);
    }
    const char **forms = (const char **)calloc((size_t)(n ? n : 1), sizeof(char *));
    int i = 0;
    const cJSON *v;
    if (n) cJSON_ArrayForEach(v, values) forms[i++] = v->valuestring;
    TclResult *r = tcl_invoke_restart(ctx->session, designator, forms, n);
    free(forms);
    cJSON *res = mcp_eval_result(ctx, r);
    tcl_result_free(r);
    return res;
}

static cJSON *tool_abort_evaluation(McpContext *ctx, const cJSON *args) {
    (void)args;
    TclResult *r = tcl_abort_evaluation(ctx->session);
    cJSON *res = mcp_eval_result(ctx, r);
    tcl_result_free(r);
    return res;
}

/* ---- backtrace ---- */

static cJSON *tool_backtrace(McpContext *ctx, const cJSON *args) {
    const cJSON *locals = cJSON_GetObjectItemCaseSensitive(args, "locals");
    if (locals && !cJSON_IsNull(locals) && !cJSON_IsBool(locals))
        return argument_error_of(ctx, false, "Argument \"locals\" must be true or false.");
    bool with_locals = cJSON_IsTrue(locals);
    int n;
    TclFrame *f = tcl_debug_frames(ctx->session, &n);
    if (!f)
        return mcp_text_result("[ERROR] NO-SUSPENDED-EVALUATION\nNo evaluation is suspended in the debugger "
                               "(evaluate-lisp with debug true suspends one at an unhandled error).",
                               true, NULL, ctx->version);
    Text t = {0};
    cJSON *o = cJSON_CreateObject();
    cJSON *frames = cJSON_AddArrayToObject(o, "frames");
    for (int i = 0; i < n; i++) {
        text_printf(&t, "%d: %s\n", i, f[i].call);
        cJSON *fo = cJSON_CreateObject();
        cJSON_AddNumberToObject(fo, "index", i);
        cJSON_AddStringToObject(fo, "call", f[i].call);
        if (with_locals) {
            cJSON *ls = cJSON_AddArrayToObject(fo, "locals");
            for (int j = 0; j < f[i].nlocals; j++) {
                text_printf(&t, "    %s\n", f[i].locals[j]);
                cJSON_AddItemToArray(ls, cJSON_CreateString(f[i].locals[j]));
            }
        }
        cJSON_AddItemToArray(frames, fo);
    }
    if (n == 0) text_add(&t, "(no frames)");
    tcl_frames_free(f, n);
    char *text = text_done(&t);
    cJSON *res = mcp_text_result(text, false, o, ctx->version);
    free(text);
    return res;
}

/* ---- profile ---- */

static cJSON *tool_profile(McpContext *ctx, const cJSON *args) {
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(args, "code");
    const cJSON *package = cJSON_GetObjectItemCaseSensitive(args, "package");
    const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(args, "timeout_seconds");
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(args, "limit");
    if (!cJSON_IsString(code)) return argument_error_of(ctx, true, "Argument \"code\" must be a string of Lisp source to profile.");
    if (package && !cJSON_IsNull(package) && !cJSON_IsString(package))
        return argument_error_of(ctx, true, "Argument \"package\" must be a string naming a package, such as \"CL-USER\".");
    double secs = ctx->default_timeout;
    if (timeout && !cJSON_IsNull(timeout)) {
        if (!cJSON_IsNumber(timeout) || timeout->valuedouble <= 0 || timeout->valuedouble > 3600)
            return argument_error_of(ctx, true, "Argument \"timeout_seconds\" must be a number of seconds between 0 and 3600.");
        secs = timeout->valuedouble;
    }
    int max = 25;
    if (limit && !cJSON_IsNull(limit)) {
        if (!cJSON_IsNumber(limit) || limit->valuedouble < 1 || limit->valuedouble > 1000)
            return argument_error_of(ctx, true, "Argument \"limit\" must be a number of entries between 1 and 1000.");
        max = (int)limit->valuedouble;
    }
    const char *pkg = cJSON_IsString(package) && package->valuestring[0] ? package->valuestring : NULL;
    TclProfile *p = tcl_profile(ctx->session, code->valuestring, pkg, secs);
    cJSON *res = mcp_eval_result(ctx, p->result);
    /* the evaluation's own result, then the profile below it */
    cJSON *content = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "content"), 0);
    Text t = {0};
    size_t eval_len;
    char *eval_text = mcp_eval_text(p->result, &eval_len);
    char head[200];
    snprintf(head, sizeof head, "\nProfile: %d function%s called in %.3f ms, by exclusive time%s:\n", p->count,
             p->count == 1 ? "" : "s", p->total_ms, p->count > max ? " (the costliest shown)" : "");
    text_add(&t, head);
    text_add(&t, "     calls   incl ms   excl ms       bytes  function\n");
    cJSON *entries = cJSON_CreateArray();
    for (int i = 0; i < p->count && i < max; i++) {
        const TclProfileEntry *e = &p->entries[i];
        char line[1200];
        snprintf(line, sizeof line, "%10ld %9.3f %9.3f %11.0f  %.1000s\n", e->calls, e->inclusive_ms, e->exclusive_ms,
                 e->bytes, e->name);
        text_add(&t, line);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "function", e->name);
        cJSON_AddNumberToObject(o, "calls", (double)e->calls);
        cJSON_AddNumberToObject(o, "inclusive_ms", e->inclusive_ms);
        cJSON_AddNumberToObject(o, "exclusive_ms", e->exclusive_ms);
        cJSON_AddNumberToObject(o, "bytes", e->bytes);
        cJSON_AddItemToArray(entries, o);
    }
    if (p->count == 0) text_add(&t, "  (no function calls)\n");
    /* the evaluation's text (exact: it may hold NUL characters), then the table */
    char *table = text_done(&t);
    size_t table_len = strlen(table);
    char *text = (char *)malloc(eval_len + table_len + 1);
    if (text) {
        memcpy(text, eval_text, eval_len);
        memcpy(text + eval_len, table, table_len + 1);
        cJSON_ReplaceItemInObjectCaseSensitive(content, "text", mcp_json_string_n(text, eval_len + table_len));
    }
    free(text);
    free(table);
    free(eval_text);
    cJSON *sc = cJSON_GetObjectItemCaseSensitive(res, "structuredContent");
    if (sc) {
        cJSON_AddItemToObject(sc, "profile", entries);
        cJSON_AddNumberToObject(sc, "total_ms", p->total_ms);
        cJSON_AddNumberToObject(sc, "functions", p->count);
    } else {
        cJSON_Delete(entries);
    }
    tcl_profile_free(p);
    return res;
}

/* ---- the table ---- */

const Tool mcp_tools_debug[] = {
    {"invoke-restart", "Invoke restart",
     "Continue the evaluation suspended by evaluate-lisp `debug: true` with one of its restarts (name or number); "
     "`values` are Lisp forms, evaluated where the error happened, giving the restart's arguments. Returns the "
     "result or the next suspension.",
     "{\"type\":\"object\",\"properties\":{"
     "\"restart\":{\"type\":[\"string\",\"integer\"],\"description\":\"Restart name (USE-VALUE, CONTINUE, ABORT, ...) or number\"},"
     "\"values\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"Lisp forms giving the restart's arguments\"}},"
     "\"required\":[\"restart\"],\"additionalProperties\":false}",
     mcp_eval_output_schema, false, true, false, false, tool_invoke_restart},
    {"abort-evaluation", "Abort evaluation",
     "End the evaluation suspended by evaluate-lisp `debug: true` through its top-level ABORT restart.",
     "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
     mcp_eval_output_schema, false, true, false, false, tool_abort_evaluation},
    {"backtrace", "Backtrace",
     "Show the suspended evaluation's frames, innermost first, each call with its arguments; with `locals`, each "
     "interpreted frame's local variables and their values.",
     "{\"type\":\"object\",\"properties\":{\"locals\":{\"type\":\"boolean\",\"description\":\"Show each interpreted "
     "frame's local variables (default false)\"}},\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"frames\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"index\":{\"type\":\"integer\"},\"call\":{\"type\":\"string\"},\"locals\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
     "\"required\":[\"index\",\"call\"]}}},\"required\":[\"frames\"]}",
     true, false, true, false, tool_backtrace},
    {"profile", "Profile",
     "Evaluate `code` as evaluate-lisp does and report per function: calls, inclusive and exclusive time, bytes "
     "allocated; costliest first.",
     "{\"type\":\"object\",\"properties\":{"
     "\"code\":{\"type\":\"string\",\"description\":\"Lisp source to run\"},"
     "\"package\":{\"type\":\"string\",\"description\":\"Package to start in (the session's is left unchanged)\"},"
     "\"timeout_seconds\":{\"type\":\"number\",\"description\":\"Time limit in seconds (default 30)\"},"
     "\"limit\":{\"type\":\"integer\",\"description\":\"Entries to show (default 25)\"}},"
     "\"required\":[\"code\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"profile\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"function\":{\"type\":\"string\"},\"calls\":{\"type\":\"number\"},\"inclusive_ms\":{\"type\":\"number\"},"
     "\"exclusive_ms\":{\"type\":\"number\"},\"bytes\":{\"type\":\"number\"}},"
     "\"required\":[\"function\",\"calls\",\"inclusive_ms\",\"exclusive_ms\",\"bytes\"]}},"
     "\"total_ms\":{\"type\":\"number\"},\"functions\":{\"type\":\"integer\"},"
     "\"values\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"stdout\":{\"type\":\"string\"},"
     "\"stderr\":{\"type\":\"string\"},\"error\":{}},"
     "\"required\":[\"profile\",\"total_ms\",\"values\",\"error\"]}",
     false, true, false, false, tool_profile},
};
const int mcp_tools_debug_count = (int)(sizeof mcp_tools_debug / sizeof mcp_tools_debug[0]);
