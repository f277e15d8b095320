/* fuzz_mcp.c: libFuzzer harness for the MCP server: the input is one protocol line, served by
 * mcp_serve_line on a persistent session exactly as the server's loop serves a message read from
 * stdin (tools/call included). The reply must be valid JSON lines; a crash, a sanitizer report
 * or a hang is a finding. */
#include "tinycl.h"
#include "mcp.h"
#include "fuzz_watchdog.h"
#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static TclSession *session;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc; (void)argv;
    TclOptions o = {0};
    o.max_heap = (size_t)256 << 20;
    o.timeout = 1;
    o.capture_output = true;
    session = tcl_session_new(&o);
    if (!session) abort();
    fuzz_watchdog_start(session);
    return 0;
}

/* RFC 8259 allows escapes of lone surrogates (the server writes a Lisp string's surrogate
 * characters so), which cJSON refuses: mask them before cJSON checks the rest of the line. */
static void mask_surrogate_escapes(char *s, size_t n) {
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '\\') continue;
        if (s[i + 1] == 'u' && i + 5 < n && (s[i + 2] == 'd' || s[i + 2] == 'D') && strchr("89abcdefABCDEF", s[i + 3]))
            memcpy(s + i + 2, "0020", 4);
        i++;   /* the escaped character */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (memchr(data, '\n', size)) return 0;   /* the server splits its input at newlines first */
    fuzz_watch_begin();
    char *reply = mcp_serve_line(session, (const char *)data, size, 1);
    fuzz_watch_end();
    if (!reply) return 0;
    for (char *line = reply, *nl; *line; line = nl + 1) {   /* every reply line is one JSON value */
        nl = strchr(line, '\n');
        if (!nl) abort();
        mask_surrogate_escapes(line, (size_t)(nl - line));
        cJSON *j = cJSON_ParseWithLength(line, (size_t)(nl - line));
        if (!j) {
            fprintf(stderr, "fuzz_mcp: reply is not JSON: %.*s\n", (int)(nl - line), line);
            abort();
        }
        cJSON_Delete(j);
    }
    free(reply);
    return 0;
}
