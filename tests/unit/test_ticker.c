/* test_ticker.c: the ticker thread (runtime/ticker.c) stops while every interpreter is idle, so an
 * idle process is not woken, and starts again at the first safe point after: a time limit set
 * while it was stopped, with no evaluation start to restart it, still stops a loop. */
#include <time.h>
#include "unit.h"
#include "ticker.h"

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Wait until the ticks stop (they slow down first): at most a few seconds. */
static bool ticks_stop(void) {
    for (int i = 0; i < 40; i++) {
        unsigned long before = ticker_rounds();
        sleep_ms(300);
        if (ticker_rounds() == before) return true;
    }
    return false;
}

/* Evaluate CODE with a time limit of SECONDS set directly, as the ticker does not see it set (no
 * ticker_kick): true when the evaluation was stopped by it. */
static bool stopped_by_time_limit(Lisp *L, const char *code, double seconds) {
    Frame fr;
    FRAME_PUSH(L, &fr, FR_TOPLEVEL, NIL);
    if (FRAME_SETJMP(&fr)) {
        frame_pop(L, &fr);
        bool timed_out = L->interrupt_kind == INTERRUPT_TIMEOUT;
        L->deadline = 0;
        L->in_cleanup = false;
        L->interrupt_kind = INTERRUPT_NONE;
        return timed_out;
    }
    Obj text = string_from_cstr(L, code);
    Obj s = make_string_input_stream(L, text, 0, STR(text)->len);
    Obj form = reader_read(L, s, false, UNBOUND, false, false);
    L->deadline = lisp_monotonic_now() + seconds;
    lisp_eval(L, form);
    frame_pop(L, &fr);
    L->deadline = 0;
    return false;
}

START_TEST(idle_does_not_tick) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(+ 1 2)", "3");
    ck_assert_msg(ticks_stop(), "the ticker kept ticking while the interpreter was idle");
    unsigned long before = ticker_rounds();
    sleep_ms(1000);
    ck_assert_uint_eq(ticker_rounds(), before);
    /* a busy interpreter is ticked again (a loop's first safe point restarts the ticker) */
    ck_assert(stopped_by_time_limit(L, "(loop)", 0.3));
    ck_assert_uint_gt(ticker_rounds(), before);
    /* and the ticker stops again once the interpreter is idle */
    ck_assert(ticks_stop());
    lisp_free(L);
}
END_TEST

/* Loops whose only safe points are backward jumps or calls, after the ticker stopped each time. */
START_TEST(time_limit_after_idle) {
    Lisp *L = unit_lisp();
    const char *forms[] = {
        "(loop)",
        "(labels ((burn (n) (when (> n 0) (burn (1- n)) (burn (1- n))))) (burn 200))",
        "(let ((l nil)) (loop (push (make-list 100) l) (when (> (length l) 1000) (setq l nil))))",
    };
    for (int i = 0; i < 3; i++) {
        ck_assert(ticks_stop());
        double t0 = lisp_monotonic_now();
        ck_assert_msg(stopped_by_time_limit(L, forms[i], 0.3), "%s was not stopped", forms[i]);
        ck_assert_double_lt(lisp_monotonic_now() - t0, 3.0);
    }
    lisp_free(L);
}
END_TEST

static Suite *ticker_suite(void) {
    Suite *s = suite_create("ticker");
    TCase *t = tcase_create("ticker");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, idle_does_not_tick);
    tcase_add_test(t, time_limit_after_idle);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(ticker_suite)
