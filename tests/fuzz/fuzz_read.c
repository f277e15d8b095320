/* fuzz_read.c: libFuzzer harness for the reader: reads every form of the input with *READ-EVAL*
 * off (nothing is evaluated) and prints each with *PRINT-CIRCLE* on, bounded. Any error is fine; a crash,
 * a sanitizer report or a hang is a finding. */
#include "state.h"
#include "gc.h"
#include "eval.h"
#include "reader.h"
#include "printer.h"
#include "stream.h"
#include "lstring.h"
#include <stdint.h>
#include <stddef.h>

static Lisp *L;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc; (void)argv;
    L = lisp_new(NULL);
    if (!L) return 1;
    gc_current = L;
    SYM(S(READ_EVAL))->value = NIL;
    SYM(S(PRINT_CIRCLE))->value = S(T);
    /* bounded as the session prints values: #99999999(x) reads a long vector, legitimately */
    SYM(S(PRINT_LENGTH))->value = FIX(1000);
    SYM(S(PRINT_LEVEL))->value = FIX(100);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gc_current = L;
    lisp_set_stack_limits(L);
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {   /* a reader error (or any other) ends this input, as in a session: */
        frame_pop(L, &fr);
        L->stack_limit = L->stack_soft_limit;   /* the stack headroom and the heap reserve */
        gc_restore_cap(L);                      /* lent to handlers are taken back */
        return 0;
    }
    Obj text = string_from_utf8(L, (const char *)data, size);
    Obj s = make_string_input_stream(L, text, 0, STR(text)->len);
    for (;;) {
        Obj f = reader_read(L, s, false, UNBOUND, false, false);
        if (f == UNBOUND) break;
        prin1_to_string(L, f);
    }
    frame_pop(L, &fr);
    return 0;
}
