/* tools-files.c: the `files` tool group: check-parens, read-lisp-file, edit-lisp-form, load-file (table and handlers). */
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An argument problem: structuredContent holds the error and the fields the `files` tools'
 * outputSchemas require that mean the same in each (the helpers below serve all four tools);
 * load-file adds its `forms` count (read-lisp-file's `forms` is a list). */
static cJSON *arg_error(McpContext *ctx, const char *message) {
    cJSON *st = cJSON_CreateObject();
    cJSON_AddBoolToObject(st, "written", 0);
    cJSON_AddArrayToObject(st, "notes");
    cJSON_AddArrayToObject(st, "definitions");
    return mcp_error_result(ctx, "INVALID-ARGUMENT", message, st);
}

/* An optional string argument: NULL when absent; false (with *err set) when of the wrong type. */
static bool opt_string(McpContext *ctx, const cJSON *args, const char *name, const char **out, cJSON **err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return true;
    if (!cJSON_IsString(v)) {
        char msg[160];
        snprintf(msg, sizeof msg, "Argument \"%s\" must be a string.", name);
        *err = arg_error(ctx, msg);
        return false;
    }
    *out = v->valuestring;
    return true;
}

static bool req_string(McpContext *ctx, const cJSON *args, const char *name, const char *what, const char **out, cJSON **err) {
    if (!opt_string(ctx, args, name, out, err)) return false;
    if (!*out || !**out) {
        char msg[300];
        snprintf(msg, sizeof msg, "Missing required argument \"%s\": %s.", name, what);
        *err = arg_error(ctx, msg);
        return false;
    }
    return true;
}

static bool opt_bool(McpContext *ctx, const cJSON *args, const char *name, bool dflt, bool *out, cJSON **err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    *out = dflt;
    if (!v || cJSON_IsNull(v)) return true;
    if (!cJSON_IsBool(v)) {
        char msg[160];
        snprintf(msg, sizeof msg, "Argument \"%s\" must be true or false.", name);
        *err = arg_error(ctx, msg);
        return false;
    }
    *out = cJSON_IsTrue(v);
    return true;
}

static bool opt_int(McpContext *ctx, const cJSON *args, const char *name, int lo, int hi, int dflt, int *out, cJSON **err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);
    *out = dflt;
    if (!v || cJSON_IsNull(v)) return true;
    if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi || v->valuedouble != (double)(int)v->valuedouble) {
        char msg[160];
        snprintf(msg, sizeof msg, "Argument \"%s\" must be an integer from %d to %d.", name, lo, hi);
        *err = arg_error(ctx, msg);
        return false;
    }
    *out = (int)v->valuedouble;
    return true;
}

static void add_str(cJSON *o, const char *k, const char *v) {
    if (v) cJSON_AddStringToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}


static cJSON *paren_json(const TclParenReport *p) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "balanced", p->ok);
    cJSON_AddNumberToObject(o, "forms", p->forms);
    cJSON_AddNumberToObject(o, "skipped", p->skipped);
    add_str(o, "problem", p->problem);
    if (p->problem) {
        cJSON_AddNumberToObject(o, "line", p->line);
        cJSON_AddNumberToObject(o, "column", p->column);
    } else {
        cJSON_AddNullToObject(o, "line");
        cJSON_AddNullToObject(o, "column");
    }
    add_str(o, "form", p->form);
    if (p->fix_line > 0) {
        cJSON *f = cJSON_AddObjectToObject(o, "likely_fix");
        cJSON_AddNumberToObject(f, "line", p->fix_line);
        cJSON_AddNumberToObject(f, "closers", p->fix_count);
    } else cJSON_AddNullToObject(o, "likely_fix");
    add_str(o, "message", p->message);
    return o;
}

/* ---- check-parens ---- */

static cJSON *tool_check_parens(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *code, *path;
    if (!opt_string(ctx, args, "code", &code, &err) || !opt_string(ctx, args, "path", &path, &err)) return err;
    if ((code == NULL) == (path == NULL))
        return arg_error(ctx, "Give exactly one of \"code\" (Lisp source text) or \"path\" (a file to check).");
    TclParenReport *p = path ? tcl_check_parens_file(ctx->session, path) : tcl_check_parens_in(ctx->session, code, strlen(code));
    cJSON *r;
    if (p->error_type) {
        r = mcp_error_result(ctx, p->error_type, p->error_message, NULL);
    } else {
        cJSON *st = paren_json(p);
        add_str(st, "path", path);
        cJSON_AddNullToObject(st, "error");
        r = mcp_text_result(p->message, false, st, ctx->version);
    }
    tcl_paren_report_free(p);
    return r;
}

/* ---- read-lisp-file ---- */

static cJSON *tool_read_lisp_file(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *path, *np, *cp;
    bool collapsed;
    int offset, limit;
    if (!req_string(ctx, args, "path", "the Lisp source file to read", &path, &err) ||
        !opt_bool(ctx, args, "collapsed", true, &collapsed, &err) || !opt_string(ctx, args, "name_pattern", &np, &err) ||
        !opt_string(ctx, args, "content_pattern", &cp, &err) ||
        !opt_int(ctx, args, "offset", 0, 100000000, 0, &offset, &err) ||
        !opt_int(ctx, args, "limit", 1, 100000, 500, &limit, &err))
        return err;
    TclLispFile *f = tcl_read_lisp_file(ctx->session, path, collapsed, np, cp, offset, limit);
    cJSON *r;
    if (f->error_type) {
        r = f->error_type && strcmp(f->error_type, "INVALID-ARGUMENT") == 0 ? arg_error(ctx, f->error_message)
                                                                            : mcp_error_result(ctx, f->error_type, f->error_message, NULL);
    } else {
        cJSON *st = cJSON_CreateObject();
        cJSON_AddStringToObject(st, "path", f->path);
        cJSON_AddNumberToObject(st, "lines", f->lines);
        cJSON_AddStringToObject(st, "line_ending", f->line_ending);
        cJSON_AddNumberToObject(st, "total_forms", f->total_forms);
        cJSON_AddNumberToObject(st, "skipped_forms", f->skipped_forms);
        cJSON_AddNumberToObject(st, "offset", f->offset);
        if (f->next_offset >= 0) cJSON_AddNumberToObject(st, "next_offset", f->next_offset);
        else cJSON_AddNullToObject(st, "next_offset");
        cJSON *forms = cJSON_AddArrayToObject(st, "forms");
        for (int i = 0; i < f->count; i++) {
            TclLispForm *x = &f->forms[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "index", x->index);
            cJSON_AddStringToObject(o, "kind", x->kind ? x->kind : "");
            add_str(o, "name", x->name);
            add_str(o, "qualifiers", x->qualifiers);
            add_str(o, "specializers", x->specializers);
            add_str(o, "condition", x->condition);
            cJSON_AddBoolToObject(o, "skipped", x->skipped);
            cJSON_AddStringToObject(o, "package", x->package);
            cJSON_AddNumberToObject(o, "start_line", x->start_line);
            cJSON_AddNumberToObject(o, "start_column", x->start_column);
            cJSON_AddNumberToObject(o, "end_line", x->end_line);
            cJSON_AddNumberToObject(o, "end_column", x->end_column);
            cJSON_AddBoolToObject(o, "expanded", x->expanded);
            cJSON_AddStringToObject(o, "text", x->text);
            cJSON_AddItemToArray(forms, o);
        }
        if (f->problem) cJSON_AddItemToObject(st, "problem", paren_json(f->problem));
        else cJSON_AddNullToObject(st, "problem");
        cJSON_AddNullToObject(st, "error");
        r = mcp_text_result(f->text, false, st, ctx->version);
    }
    tcl_lisp_file_free(f);
    return r;
}

/* ---- edit-lisp-form ---- */

static cJSON *tool_edit_lisp_form(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *path, *type, *name, *op, *content;
    bool dry;
    if (!req_string(ctx, args, "path", "the file to edit", &path, &err) ||
        !req_string(ctx, args, "form_type", "the form's operator, such as \"defun\" or \"defmethod\"", &type, &err) ||
        !req_string(ctx, args, "form_name", "the name of the form, such as \"area\" or \"area (circle)\" for a method", &name, &err) ||
        !req_string(ctx, args, "operation", "replace, insert_before, insert_after or delete", &op, &err) ||
        !opt_string(ctx, args, "content", &content, &err) || !opt_bool(ctx, args, "dry_run", false, &dry, &err))
        return err;
    TclEditResult *e = tcl_edit_lisp_form(ctx->session, path, type, name, op, content, dry);
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "path", path);
    cJSON_AddStringToObject(st, "operation", op);
    cJSON_AddBoolToObject(st, "written", e->written);
    cJSON_AddBoolToObject(st, "dry_run", e->dry_run);
    add_str(st, "diff", e->diff);
    if (e->start_line) {
        cJSON_AddNumberToObject(st, "start_line", e->start_line);
        cJSON_AddNumberToObject(st, "end_line", e->end_line);
    }
    cJSON *c = cJSON_AddArrayToObject(st, "candidates");
    for (int i = 0; i < e->ncandidates; i++) cJSON_AddItemToArray(c, cJSON_CreateString(e->candidates[i]));
    cJSON *r;
    if (e->error_type) {
        cJSON *er = cJSON_AddObjectToObject(st, "error");
        cJSON_AddStringToObject(er, "type", e->error_type);
        cJSON_AddStringToObject(er, "message", e->error_message ? e->error_message : "");
        r = mcp_text_result(e->text, true, st, ctx->version);
    } else {
        cJSON_AddNullToObject(st, "error");
        r = mcp_text_result(e->text, false, st, ctx->version);
    }
    tcl_edit_result_free(e);
    return r;
}

/* ---- load-file ---- */

static void captured_text(char **t, const TclResult *res) {
    size_t n = strlen(*t) + (res->out ? strlen(res->out) : 0) + (res->err ? strlen(res->err) : 0) + 64;
    char *d = (char *)malloc(n);
    d[0] = 0;
    if (res->out && *res->out) { strcat(d, "[stdout]\n"); strcat(d, res->out); if (d[strlen(d) - 1] != '\n') strcat(d, "\n"); }
    if (res->err && *res->err) { strcat(d, "[stderr]\n"); strcat(d, res->err); if (d[strlen(d) - 1] != '\n') strcat(d, "\n"); }
    strcat(d, *t);
    free(*t);
    *t = d;
}

static cJSON *tool_load_file(McpContext *ctx, const cJSON *args) {
    cJSON *err = NULL;
    const char *path, *package;
    if (!req_string(ctx, args, "path", "the Lisp source file to load", &path, &err) ||
        !opt_string(ctx, args, "package", &package, &err)) {
        cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(err, "structuredContent"), "forms", 0);
        return err;
    }
    TclFileLoad *l = tcl_load_source_file(ctx->session, path, package && *package ? package : NULL, ctx->default_timeout);
    TclResult *res = l->result;
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "path", l->path);
    cJSON_AddNumberToObject(st, "forms", l->forms);
    cJSON_AddNumberToObject(st, "errors", l->errors);
    cJSON_AddNumberToObject(st, "warnings", l->warnings);
    cJSON *notes = cJSON_AddArrayToObject(st, "notes");
    for (int i = 0; i < l->nnotes; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "line", l->notes[i].line);
        add_str(o, "severity", l->notes[i].severity);
        add_str(o, "type", l->notes[i].type);
        add_str(o, "message", l->notes[i].message);
        add_str(o, "form", l->notes[i].form);
        cJSON_AddItemToArray(notes, o);
    }
    cJSON *defs = cJSON_AddArrayToObject(st, "definitions");
    for (int i = 0; i < l->ndefinitions; i++) {
        cJSON *o = cJSON_CreateObject();
        add_str(o, "kind", l->definitions[i].kind);
        add_str(o, "name", l->definitions[i].name);
        add_str(o, "package", l->definitions[i].package);
        cJSON_AddStringToObject(o, "file", l->path);
        cJSON_AddNumberToObject(o, "line", l->definitions[i].line);
        cJSON_AddNumberToObject(o, "column", l->definitions[i].column);
        cJSON_AddItemToArray(defs, o);
    }
    cJSON_AddStringToObject(st, "stdout", res->out ? res->out : "");
    cJSON_AddStringToObject(st, "stderr", res->err ? res->err : "");
    cJSON_AddStringToObject(st, "package", res->package ? res->package : "");
    cJSON *r;
    char *text = strdup(l->text);
    captured_text(&text, res);
    if (res->status != TCL_OK) {
        const char *type = res->status == TCL_INCOMPLETE ? "END-OF-FILE" : res->error_type ? res->error_type : "ERROR";
        cJSON *er = cJSON_AddObjectToObject(st, "error");
        cJSON_AddStringToObject(er, "type", type);
        cJSON_AddStringToObject(er, "message", res->error_message ? res->error_message : "");
        size_t n = strlen(text) + strlen(type) + (res->error_message ? strlen(res->error_message) : 0) + 32;
        char *t2 = (char *)malloc(n);
        snprintf(t2, n, "%s%s[ERROR] %s\n%s", text, *text ? "\n" : "", type, res->error_message ? res->error_message : "");
        r = mcp_text_result(t2, true, st, ctx->version);
        free(t2);
    } else {
        cJSON_AddNullToObject(st, "error");
        r = mcp_text_result(text, false, st, ctx->version);
    }
    free(text);
    tcl_file_load_free(l);
    return r;
}

/* ---- the table ---- */

#define ERROR_SCHEMA                                                                                    \
    "\"error\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"properties\":{"                 \
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"}},\"required\":[\"type\",\"message\"]}]}"

#define PAREN_PROPERTIES                                                                                \
    "\"balanced\":{\"type\":\"boolean\"},\"forms\":{\"type\":\"integer\"},\"skipped\":{\"type\":\"integer\"}," \
    "\"problem\":{\"type\":[\"string\",\"null\"]},\"line\":{\"type\":[\"integer\",\"null\"]},"          \
    "\"column\":{\"type\":[\"integer\",\"null\"]},\"form\":{\"type\":[\"string\",\"null\"]},"           \
    "\"likely_fix\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"properties\":{"              \
    "\"line\":{\"type\":\"integer\"},\"closers\":{\"type\":\"integer\"}}}]},\"message\":{\"type\":[\"string\",\"null\"]}"

#define NULLABLE_STRING "{\"type\":[\"string\",\"null\"]}"

const Tool mcp_tools_files[] = {
    {"check-parens", "Check parentheses",
     "Check Lisp source (`code` or `path`) for balance as the reader reads it (strings, |symbols|, #\\(, comments, "
     "#+/#- under the session's *features*), evaluating nothing. Gives the first problem with its line and column "
     "(unclosed form, unmatched closer, unterminated string or comment) and a likely fix judged from the "
     "indentation, or the number of top-level forms.",
     "{\"type\":\"object\",\"properties\":{"
     "\"code\":{\"type\":\"string\",\"description\":\"Lisp source text to check\"},"
     "\"path\":{\"type\":\"string\",\"description\":\"A Lisp source file to check\"}},\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{" PAREN_PROPERTIES ",\"path\":" NULLABLE_STRING "," ERROR_SCHEMA "},"
     "\"required\":[\"error\"]}",
     true, false, true, false, tool_check_parens},
    {"read-lisp-file", "Read Lisp file",
     "List a Lisp file's top-level forms: kind (defun, defmethod with specializers, ...), name, package and line "
     "range; forms #+/#- skips are marked skipped. `collapsed` (default true) shows first lines only, except forms "
     "whose name matches `name_pattern` or whose text matches `content_pattern` (case-insensitive regexps); false "
     "shows the whole file exactly. Paged by `offset` and `limit`. A file that does not read is listed up to the "
     "problem.",
     "{\"type\":\"object\",\"properties\":{"
     "\"path\":{\"type\":\"string\",\"description\":\"The file to read\"},"
     "\"collapsed\":{\"type\":\"boolean\",\"description\":\"Show only the first line of forms not matched by the patterns (default true)\"},"
     "\"name_pattern\":{\"type\":\"string\",\"description\":\"Show whole the forms whose name matches this regular expression\"},"
     "\"content_pattern\":{\"type\":\"string\",\"description\":\"Show whole the forms whose text matches this regular expression\"},"
     "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"First form to show (default 0; next_offset of the previous page)\"},"
     "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Forms per page (default 500)\"}},"
     "\"required\":[\"path\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"lines\":{\"type\":\"integer\"},"
     "\"line_ending\":{\"type\":\"string\"},\"total_forms\":{\"type\":\"integer\"},\"skipped_forms\":{\"type\":\"integer\"},\"offset\":{\"type\":\"integer\"},"
     "\"next_offset\":{\"type\":[\"integer\",\"null\"]},\"forms\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"index\":{\"type\":\"integer\"},\"kind\":{\"type\":\"string\"},\"name\":" NULLABLE_STRING ","
     "\"qualifiers\":" NULLABLE_STRING ",\"specializers\":" NULLABLE_STRING ",\"condition\":" NULLABLE_STRING ",\"skipped\":{\"type\":\"boolean\"},"
     "\"package\":{\"type\":\"string\"},\"start_line\":{\"type\":\"integer\"},\"start_column\":{\"type\":\"integer\"},"
     "\"end_line\":{\"type\":\"integer\"},\"end_column\":{\"type\":\"integer\"},\"expanded\":{\"type\":\"boolean\"},"
     "\"text\":{\"type\":\"string\"}},\"required\":[\"index\",\"kind\",\"start_line\",\"end_line\",\"text\"]}},"
     "\"problem\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"properties\":{" PAREN_PROPERTIES "}}]}," ERROR_SCHEMA "},"
     "\"required\":[\"error\"]}",
     true, false, true, false, tool_read_lisp_file},
    {"edit-lisp-form", "Edit Lisp form",
     "Replace, insert before or after, or delete a top-level form of a Lisp file, found by `form_type` and "
     "`form_name` (methods with specializers: \"area :around (circle)\"; \"pkg::name\" in that in-package context); "
     "missing or ambiguous names get the candidates. `content` must read as Lisp, else nothing is written; the rest "
     "of the file stays byte for byte; atomic write; gives a unified diff. `dry_run` writes nothing. Refused if the "
     "file changed since last read.",
     "{\"type\":\"object\",\"properties\":{"
     "\"path\":{\"type\":\"string\",\"description\":\"The file to edit\"},"
     "\"form_type\":{\"type\":\"string\",\"description\":\"The form's operator: defun, defmacro, defmethod, defclass, defvar, ...\"},"
     "\"form_name\":{\"type\":\"string\",\"description\":\"The form's name; for a method add its specializers: \\\"area (circle)\\\"\"},"
     "\"operation\":{\"type\":\"string\",\"description\":\"What to do with the form\",\"enum\":[\"replace\",\"insert_before\",\"insert_after\",\"delete\"]},"
     "\"content\":{\"type\":\"string\",\"description\":\"The new form(s) for replace and the inserts\"},"
     "\"dry_run\":{\"type\":\"boolean\",\"description\":\"Show the diff without writing (default false)\"}},"
     "\"required\":[\"path\",\"form_type\",\"form_name\",\"operation\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"operation\":{\"type\":\"string\"},"
     "\"written\":{\"type\":\"boolean\"},\"dry_run\":{\"type\":\"boolean\"},\"diff\":" NULLABLE_STRING ","
     "\"start_line\":{\"type\":\"integer\"},\"end_line\":{\"type\":\"integer\"},"
     "\"candidates\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}," ERROR_SCHEMA "},"
     "\"required\":[\"written\",\"error\"]}",
     false, true, false, false, tool_edit_lisp_form},
    {"load-file", "Load file",
     "Load a Lisp file into the session form by form: each form's errors and warnings with their lines (an error "
     "ends only its form), and the definitions made, with their source locations. `package`: the package to start in "
     "(the session's is left as it was).",
     "{\"type\":\"object\",\"properties\":{"
     "\"path\":{\"type\":\"string\",\"description\":\"The file to load\"},"
     "\"package\":{\"type\":\"string\",\"description\":\"Package to start in (default: the session's current package)\"}},"
     "\"required\":[\"path\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"forms\":{\"type\":\"integer\"},"
     "\"errors\":{\"type\":\"integer\"},\"warnings\":{\"type\":\"integer\"},"
     "\"notes\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"line\":{\"type\":\"integer\"},"
     "\"severity\":{\"type\":\"string\"},\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},"
     "\"form\":" NULLABLE_STRING "},\"required\":[\"line\",\"severity\",\"message\"]}},"
     "\"definitions\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"kind\":{\"type\":\"string\"},"
     "\"name\":{\"type\":\"string\"},\"package\":{\"type\":\"string\"},\"file\":{\"type\":\"string\"},"
     "\"line\":{\"type\":\"integer\"},\"column\":{\"type\":\"integer\"}},\"required\":[\"kind\",\"name\",\"line\"]}},"
     "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},\"package\":{\"type\":\"string\"}," ERROR_SCHEMA "},"
     "\"required\":[\"forms\",\"notes\",\"definitions\",\"error\"]}",
     false, false, false, false, tool_load_file},
};
const int mcp_tools_files_count = (int)(sizeof mcp_tools_files / sizeof mcp_tools_files[0]);
