/* tools-tests.c: the `tests` tool group: run-tests (table and handler). */
#include "mcp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TESTS_DEFAULT_TIMEOUT 600.0

/* An argument problem, with the fields run-tests' outputSchema requires and the error. */
static cJSON *arg_error(McpContext *ctx, const char *system, const char *message) {
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "system", system ? system : "");
    cJSON_AddArrayToObject(st, "failures");
    return mcp_error_result(ctx, "INVALID-ARGUMENT", message, st);
}

static void add_str(cJSON *o, const char *k, const char *v) {
    if (v) cJSON_AddStringToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

static void add_count(cJSON *o, const char *k, int v) {
    if (v >= 0) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

static void progress_to_client(void *vctx, const char *message) { mcp_progress((McpContext *)vctx, message); }

static const char *const frameworks[] = {"fiveam", "rt", "lisp-unit", "parachute", "prove", NULL};

static cJSON *tool_run_tests(McpContext *ctx, const cJSON *args) {
    const cJSON *sys = cJSON_GetObjectItemCaseSensitive(args, "system");
    const cJSON *test = cJSON_GetObjectItemCaseSensitive(args, "test");
    const cJSON *fw = cJSON_GetObjectItemCaseSensitive(args, "framework");
    if (!cJSON_IsString(sys) || !sys->valuestring[0])
        return arg_error(ctx, NULL, "Missing required argument \"system\": the system whose tests to run, such as \"split-sequence\".");
    if (test && !cJSON_IsNull(test) && (!cJSON_IsString(test) || !test->valuestring[0]))
        return arg_error(ctx, sys->valuestring, "Argument \"test\" must be the name of one test, such as \"split-sequence.0.list\".");
    const char *f = NULL;
    if (fw && !cJSON_IsNull(fw)) {
        for (int i = 0; cJSON_IsString(fw) && frameworks[i]; i++)
            if (strcmp(fw->valuestring, frameworks[i]) == 0) f = frameworks[i];
        if (!f) return arg_error(ctx, sys->valuestring, "Argument \"framework\" must be one of fiveam, rt, lisp-unit, parachute, prove.");
    }
    /* a suite may take minutes: at least 600 s, more when the server's limit is higher */
    double t = ctx->default_timeout > TESTS_DEFAULT_TIMEOUT ? ctx->default_timeout : TESTS_DEFAULT_TIMEOUT;
    tcl_set_progress_handler(ctx->session, progress_to_client, ctx);
    TclTestRun *run = tcl_run_tests(ctx->session, sys->valuestring, cJSON_IsString(test) ? test->valuestring : NULL, f, t);
    tcl_set_progress_handler(ctx->session, NULL, NULL);
    TclResult *res = run->result;
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "system", run->system);
    add_str(st, "test", run->test);
    add_str(st, "test_system", run->test_system);
    add_str(st, "framework", run->framework);
    cJSON_AddBoolToObject(st, "reloaded", run->reloaded);
    add_count(st, "passed", run->passed);
    add_count(st, "failed", run->failed);
    add_count(st, "errored", run->errored);
    add_count(st, "skipped", run->skipped);
    add_count(st, "total", run->total);
    cJSON *fl = cJSON_AddArrayToObject(st, "failures");
    for (int i = 0; i < run->nfailures; i++) {
        TclTestFailure *x = &run->failures[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "test", x->test);
        add_str(o, "kind", x->kind);
        add_str(o, "form", x->form);
        add_str(o, "expected", x->expected);
        add_str(o, "actual", x->actual);
        add_str(o, "reason", x->reason);
        cJSON_AddBoolToObject(o, "expected_failure", x->expected_failure);
        cJSON_AddItemToArray(fl, o);
    }
    if (run->error_type) {
        cJSON *e = cJSON_AddObjectToObject(st, "suite_error");
        cJSON_AddStringToObject(e, "type", run->error_type);
        cJSON_AddStringToObject(e, "message", run->error_message ? run->error_message : "");
    } else cJSON_AddNullToObject(st, "suite_error");
    cJSON_AddStringToObject(st, "stdout", res->out ? res->out : "");
    cJSON_AddStringToObject(st, "stderr", res->err ? res->err : "");
    bool ok = res->status == TCL_OK;
    const char *etype = res->status == TCL_INCOMPLETE ? "END-OF-FILE" : res->error_type ? res->error_type : "ERROR";
    if (ok) cJSON_AddNullToObject(st, "error");
    else {
        cJSON *e = cJSON_AddObjectToObject(st, "error");
        cJSON_AddStringToObject(e, "type", etype);
        cJSON_AddStringToObject(e, "message", res->error_message ? res->error_message : "");
    }
    /* the summary first (the suite's own output can be long), then its output */
    size_t n = (run->text ? strlen(run->text) : 0) + (res->out ? strlen(res->out) : 0) + (res->err ? strlen(res->err) : 0) +
               strlen(etype) + (res->error_message ? strlen(res->error_message) : 0) + 64;
    char *text = (char *)malloc(n);
    text[0] = 0;
    if (!ok) {
        strcat(text, "[ERROR] ");
        strcat(text, etype);
        strcat(text, "\n");
        if (res->error_message) { strcat(text, res->error_message); strcat(text, "\n"); }
    }
    if (run->text) { strcat(text, run->text); strcat(text, "\n"); }
    if (res->out && *res->out) { strcat(text, "[stdout]\n"); strcat(text, res->out); }
    if (res->err && *res->err) { if (text[strlen(text) - 1] != '\n') strcat(text, "\n"); strcat(text, "[stderr]\n"); strcat(text, res->err); }
    size_t tl = strlen(text);
    while (tl && text[tl - 1] == '\n') text[--tl] = 0;
    cJSON *r = mcp_text_result(text, !ok, st, ctx->version);
    free(text);
    tcl_test_run_free(run);
    return r;
}

#define NULLABLE_INT "{\"type\":[\"integer\",\"null\"]}"
#define NULLABLE_STRING "{\"type\":[\"string\",\"null\"]}"
#define ERROR_OBJECT                                                                                    \
    "{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"properties\":{"                            \
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"}},\"required\":[\"type\",\"message\"]}]}"

const Tool mcp_tools_tests[] = {
    {"run-tests", "Run tests",
     "Run a system's test suite (asdf:test-system; FiveAM, RT, lisp-unit, Parachute and Prove detected): counts of "
     "passed, failed, errored and skipped checks (FiveAM, RT, lisp-unit), and each failure's test, form, expected and actual "
     "values and reason. `test` runs one test. The test system is (re)loaded first when its files changed. Sends "
     "progress.",
     "{\"type\":\"object\",\"properties\":{"
     "\"system\":{\"type\":\"string\",\"description\":\"The system whose tests to run, e.g. \\\"split-sequence\\\"\"},"
     "\"test\":{\"type\":\"string\",\"description\":\"Run only this test (FiveAM and RT), e.g. \\\"split-sequence.0.list\\\"\"},"
     "\"framework\":{\"type\":\"string\",\"enum\":[\"fiveam\",\"rt\",\"lisp-unit\",\"parachute\",\"prove\"],"
     "\"description\":\"The test framework (default: detected)\"}},"
     "\"required\":[\"system\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"system\":{\"type\":\"string\"},\"test\":" NULLABLE_STRING ","
     "\"test_system\":" NULLABLE_STRING ",\"framework\":" NULLABLE_STRING ",\"reloaded\":{\"type\":\"boolean\"},"
     "\"passed\":" NULLABLE_INT ",\"failed\":" NULLABLE_INT ",\"errored\":" NULLABLE_INT ",\"skipped\":" NULLABLE_INT ","
     "\"total\":" NULLABLE_INT ",\"failures\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"test\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},\"form\":" NULLABLE_STRING ",\"expected\":" NULLABLE_STRING ","
     "\"actual\":" NULLABLE_STRING ",\"reason\":" NULLABLE_STRING ",\"expected_failure\":{\"type\":\"boolean\"}},"
     "\"required\":[\"test\",\"kind\"]}},\"suite_error\":" ERROR_OBJECT ",\"stdout\":{\"type\":\"string\"},"
     "\"stderr\":{\"type\":\"string\"},\"error\":" ERROR_OBJECT "},\"required\":[\"system\",\"failures\",\"error\"]}",
     false, false, false, false, tool_run_tests},
};
const int mcp_tools_tests_count = (int)(sizeof mcp_tools_tests / sizeof mcp_tools_tests[0]);
