/* fuzz_eval.c: libFuzzer harness for the evaluator: evaluates the input (cut at its first NUL) in
 * one persistent session with a small heap and a 1 s time limit, as tcl_eval does for every face.
 * Errors are fine; a crash, a sanitizer report or a call that outlives its time limit (the
 * watchdog interrupts it; libFuzzer's -timeout reports it) is a finding. */
#include "tinycl.h"
#include "fuzz_watchdog.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static TclSession *session;
static unsigned long runs;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc; (void)argv;
    TclOptions o = {0};
    o.max_heap = (size_t)256 << 20;
    o.timeout = 1;
    o.capture_output = true;
    o.output_cap = 10000;
    session = tcl_session_new(&o);
    if (!session) abort();
    fuzz_watchdog_start(session);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *code = (char *)malloc(size + 1);
    memcpy(code, data, size);
    code[size] = 0;
    fuzz_watch_begin();
    TclResult *r = tcl_eval(session, code, NULL, 1);
    fuzz_watch_end();
    tcl_result_free(r);
    free(code);
    if (++runs % 1000 == 0) tcl_reset(session, false);   /* keep the session's state from piling up */
    return 0;
}
