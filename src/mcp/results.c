/* results.c: how results read on the wire: a TclResult (or a system report) as the text a model
 * reads and the structuredContent that says the same, and argument errors in each tool's shape. */
#include "mcp.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *mcp_text_result_n(const char *text, size_t len, bool is_error, cJSON *structured, McpVersion v) {
    cJSON *r = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(r, "content");
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "text");
    cJSON_AddItemToObject(block, "text", mcp_json_string_n(text, len));
    cJSON_AddItemToArray(content, block);
    if (structured) {
        if (v >= V2025_06_18) cJSON_AddItemToObject(r, "structuredContent", structured);
        else cJSON_Delete(structured);
    }
    if (is_error) cJSON_AddBoolToObject(r, "isError", 1);
    return r;
}

cJSON *mcp_text_result(const char *text, bool is_error, cJSON *structured, McpVersion v) {
    return mcp_text_result_n(text, strlen(text), is_error, structured, v);
}

typedef struct Buf { char *s; size_t len, cap; } Buf;

static void buf_addn(Buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *ns = (char *)realloc(b->s, cap);
        if (!ns) return;
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

static void buf_add(Buf *b, const char *s) { buf_addn(b, s, strlen(s)); }

static void buf_line(Buf *b, const char *s) {
    buf_add(b, s);
    buf_add(b, "\n");
}

static void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(Buf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    buf_add(b, tmp);
}

/* A block of captured text with its length, ending in a newline. */
static void buf_block(Buf *b, const char *s, size_t n) {
    buf_addn(b, s, n);
    if (n == 0 || s[n - 1] != '\n') buf_add(b, "\n");
}


cJSON *mcp_error_object(const char *type, const char *message) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "type", type);
    cJSON_AddItemToObject(e, "message", mcp_json_string(message));
    return e;
}

cJSON *mcp_error_result(McpContext *ctx, const char *type, const char *message, cJSON *structured) {
    if (!message) message = "";
    size_t n = strlen(type) + strlen(message) + 16;
    char *text = (char *)malloc(n);
    snprintf(text, n, "[ERROR] %s\n%s", type, message);
    if (!structured) structured = cJSON_CreateObject();
    cJSON_AddItemToObject(structured, "error", mcp_error_object(type, message));
    cJSON *r = mcp_text_result(text, true, structured, ctx->version);
    free(text);
    return r;
}

cJSON *mcp_argument_error(McpContext *ctx, McpArgsShape shape, const char *message) {
    char text[512];
    snprintf(text, sizeof text, "[ERROR] INVALID-ARGUMENT\n%s", message);
    cJSON *st = cJSON_CreateObject();
    const char *pkg = ctx->session ? tcl_current_package(ctx->session) : "COMMON-LISP-USER";
    switch (shape) {
    case MCP_ARGS_EVAL:
        cJSON_AddArrayToObject(st, "values");
        cJSON_AddStringToObject(st, "stdout", "");
        cJSON_AddStringToObject(st, "stderr", "");
        cJSON_AddArrayToObject(st, "warnings");
        break;
    case MCP_ARGS_DEFINITIONS: cJSON_AddArrayToObject(st, "definitions"); break;
    case MCP_ARGS_RESET: cJSON_AddBoolToObject(st, "reset", 0); break;
    case MCP_ARGS_SYSTEM:
        cJSON_AddStringToObject(st, "stdout", "");
        cJSON_AddStringToObject(st, "stderr", "");
        break;
    }
    cJSON *e = mcp_error_object("INVALID-ARGUMENT", message);
    if (shape == MCP_ARGS_EVAL) {
        cJSON_AddArrayToObject(e, "backtrace");
        cJSON_AddNullToObject(e, "stage");
        cJSON_AddNullToObject(e, "form");
        cJSON_AddNullToObject(e, "position");
        cJSON_AddBoolToObject(e, "later_forms_skipped", 0);
    }
    cJSON_AddItemToObject(st, "error", e);
    if (shape == MCP_ARGS_EVAL) {
        cJSON_AddStringToObject(st, "package", pkg);
        cJSON_AddNumberToObject(st, "forms_evaluated", 0);
        cJSON_AddNullToObject(st, "note");
        cJSON_AddNumberToObject(st, "elapsed_ms", 0);
    } else if (shape != MCP_ARGS_SYSTEM) {
        cJSON_AddStringToObject(st, "package", pkg);
    }
    return mcp_text_result(text, true, st, ctx->version);
}

/* ---- evaluate-lisp ---- */

static const char *const stage_names[] = {NULL, "read", "eval", "print"};

static cJSON *structured_eval(const TclResult *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON *vals = cJSON_AddArrayToObject(o, "values");
    for (int i = 0; i < r->nvalues; i++) cJSON_AddItemToArray(vals, mcp_json_string_n(r->values[i], r->value_lens[i]));
    cJSON_AddItemToObject(o, "stdout", mcp_json_string_n(r->out, r->out ? r->out_len : 0));
    cJSON_AddItemToObject(o, "stderr", mcp_json_string_n(r->err, r->err ? r->err_len : 0));
    cJSON *ws = cJSON_AddArrayToObject(o, "warnings");
    for (int i = 0; i < r->nwarnings; i++) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddItemToObject(w, "type", mcp_json_string(r->warnings[i].type));
        cJSON_AddItemToObject(w, "message", mcp_json_string_n(r->warnings[i].message, r->warnings[i].message_len));
        if (r->warnings[i].line > 0) {
            cJSON_AddNumberToObject(w, "line", r->warnings[i].line);
            cJSON_AddNumberToObject(w, "column", r->warnings[i].column);
        }
        if (r->warnings[i].file) cJSON_AddItemToObject(w, "file", mcp_json_string(r->warnings[i].file));
        cJSON_AddItemToArray(ws, w);
    }
    if (r->status == TCL_OK) {
        cJSON_AddNullToObject(o, "error");
    } else {
        cJSON *e = cJSON_AddObjectToObject(o, "error");
        cJSON_AddItemToObject(e, "type", mcp_json_string(r->error_type ? r->error_type : "ERROR"));
        cJSON_AddItemToObject(e, "message", mcp_json_string_n(r->error_message, r->error_message ? r->error_message_len : 0));
        cJSON *bt = cJSON_AddArrayToObject(e, "backtrace");
        for (int i = 0; i < r->nbacktrace; i++) cJSON_AddItemToArray(bt, mcp_json_string_n(r->backtrace[i], r->backtrace_lens[i]));
        if (r->stage != TCL_STAGE_NONE) cJSON_AddStringToObject(e, "stage", stage_names[r->stage]);
        else cJSON_AddNullToObject(e, "stage");
        if (r->form_index > 0) {
            cJSON *f = cJSON_AddObjectToObject(e, "form");
            cJSON_AddNumberToObject(f, "index", r->form_index);
            cJSON_AddNumberToObject(f, "line", r->form_line);
            cJSON_AddNumberToObject(f, "column", r->form_column);
            cJSON_AddItemToObject(f, "text", mcp_json_string_n(r->form_text, r->form_text ? r->form_text_len : 0));
        } else {
            cJSON_AddNullToObject(e, "form");
        }
        if (r->stage == TCL_STAGE_READ && r->form_index > 0) {
            cJSON *p = cJSON_AddObjectToObject(e, "position");
            cJSON_AddNumberToObject(p, "line", r->stop_line);
            cJSON_AddNumberToObject(p, "column", r->stop_column);
        } else {
            cJSON_AddNullToObject(e, "position");
        }
        cJSON_AddBoolToObject(e, "later_forms_skipped", r->more_forms);
    }
    cJSON_AddStringToObject(o, "package", r->package ? r->package : "COMMON-LISP-USER");
    cJSON_AddNumberToObject(o, "forms_evaluated", r->forms);
    if (r->limit_note) cJSON_AddStringToObject(o, "note", r->limit_note);
    else cJSON_AddNullToObject(o, "note");
    cJSON_AddNumberToObject(o, "elapsed_ms", r->elapsed_ms);
    return o;
}

/* The captured output of an evaluation, then its warnings: [stdout], [stderr], [note], [warning] lines. */
static void add_captured(Buf *b, const TclResult *r) {
    if (r->out && r->out_len) {
        buf_line(b, "[stdout]");
        buf_block(b, r->out, r->out_len);
    }
    if (r->err && r->err_len) {
        buf_line(b, "[stderr]");
        buf_block(b, r->err, r->err_len);
    }
    if (r->limit_note) {
        buf_add(b, "[note] ");
        buf_line(b, r->limit_note);
    } else if (r->out_truncated) {
        buf_line(b, "[note] output was truncated at the output limit");
    }
    for (int i = 0; i < r->nwarnings; i++) {
        buf_add(b, "[warning] ");
        buf_add(b, r->warnings[i].type);
        buf_add(b, ": ");
        buf_addn(b, r->warnings[i].message, r->warnings[i].message_len);
        /* where the form began, unless it is the first thing in the code */
        if (r->warnings[i].file && r->warnings[i].line > 0)
            buf_printf(b, " (form at line %d, column %d of %s)", r->warnings[i].line, r->warnings[i].column, r->warnings[i].file);
        else if (r->warnings[i].line > 1 || r->warnings[i].column > 1)
            buf_printf(b, " (form at line %d, column %d)", r->warnings[i].line, r->warnings[i].column);
        buf_add(b, "\n");
    }
}

char *mcp_captured_text(const TclResult *r) {
    Buf b = {0};
    add_captured(&b, r);
    return b.s ? b.s : strdup("");
}

static void add_forms_before(Buf *b, int forms) {
    if (forms == 0) buf_add(b, "nothing was evaluated.");
    else if (forms == 1) buf_add(b, "the form before it was evaluated.");
    else buf_printf(b, "the %d forms before it were evaluated.", forms);
}

/* Which form the call stopped in, and what that means for the others. */
static void add_position(Buf *b, const TclResult *r) {
    if (r->form_index <= 0) return;
    if (r->stage == TCL_STAGE_READ) {
        if (r->status == TCL_INCOMPLETE)
            buf_printf(b, "Form %d, starting at line %d, column %d, is not closed; ", r->form_index, r->form_line, r->form_column);
        else
            buf_printf(b, "Reading form %d (line %d, column %d) failed at line %d, column %d; ", r->form_index,
                       r->form_line, r->form_column, r->stop_line, r->stop_column);
        add_forms_before(b, r->forms);
        buf_add(b, "\n");
        return;
    }
    const char *what = r->status == TCL_ERROR ? "failed" : "was running";
    buf_printf(b, "Form %d (line %d, column %d) %s: ", r->form_index, r->form_line, r->form_column, what);
    buf_block(b, r->form_text ? r->form_text : "", r->form_text ? r->form_text_len : 0);
    if (r->more_forms) buf_line(b, "The forms after it were not evaluated.");
}

char *mcp_eval_text(const TclResult *r, size_t *len) {
    Buf b = {0};
    add_captured(&b, r);
    if (r->status == TCL_OK) {
        if (r->nvalues == 0) buf_line(&b, "; No values");
        for (int i = 0; i < r->nvalues; i++) {
            buf_add(&b, "=> ");
            buf_addn(&b, r->values[i], r->value_lens[i]);
            buf_add(&b, "\n");
        }
    } else {
        buf_add(&b, "[ERROR] ");
        buf_line(&b, r->error_type ? r->error_type : "ERROR");
        if (r->error_message && r->error_message_len) buf_block(&b, r->error_message, r->error_message_len);
        add_position(&b, r);
        if (r->nbacktrace > 0) {
            buf_line(&b, "Backtrace:");
            for (int i = 0; i < r->nbacktrace && i < 10; i++) {
                buf_printf(&b, "  %d: ", i);
                buf_block(&b, r->backtrace[i], r->backtrace_lens[i]);
            }
        }
    }
    if (b.len > 0 && b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
    if (!b.s) { *len = 0; return strdup(""); }
    *len = b.len;
    return b.s;
}

cJSON *mcp_eval_result(McpContext *ctx, const TclResult *r) {
    if (r->status == TCL_SUSPENDED) return mcp_suspended_result(ctx, r, structured_eval(r));
    size_t len;
    char *text = mcp_eval_text(r, &len);
    cJSON *res = mcp_text_result_n(text, len, r->status != TCL_OK, structured_eval(r), ctx->version);
    free(text);
    return res;
}

/* ---- systems ---- */

/* The text and structured result of a system report: on success the report (after any captured
 * output); on failure [ERROR] TYPE, the message, what completed before the error, and the output. */
cJSON *mcp_report_result(McpContext *ctx, TclReport *rep, McpReportJson details) {
    TclResult *r = rep->result;
    bool ok = r->status == TCL_OK;
    Buf b = {0};
    if (!ok) {
        buf_add(&b, "[ERROR] ");
        buf_line(&b, r->error_type ? r->error_type : "ERROR");
        buf_block(&b, r->error_message ? r->error_message : "", r->error_message ? r->error_message_len : 0);
        if (rep->text) buf_line(&b, rep->text);
    }
    add_captured(&b, r);
    if (ok) buf_line(&b, rep->text ? rep->text : "");
    if (b.len > 0 && b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
    cJSON *st = details(rep);
    cJSON_AddItemToObject(st, "stdout", mcp_json_string_n(r->out, r->out ? r->out_len : 0));
    cJSON_AddItemToObject(st, "stderr", mcp_json_string_n(r->err, r->err ? r->err_len : 0));
    if (ok) {
        cJSON_AddNullToObject(st, "error");
    } else {
        cJSON *e = cJSON_AddObjectToObject(st, "error");
        cJSON_AddItemToObject(e, "type", mcp_json_string(r->error_type ? r->error_type : "ERROR"));
        cJSON_AddItemToObject(e, "message", mcp_json_string_n(r->error_message, r->error_message ? r->error_message_len : 0));
    }
    cJSON *res = mcp_text_result_n(b.s ? b.s : "", b.len, !ok, st, ctx->version);
    free(b.s);
    tcl_report_free(rep);
    return res;
}
