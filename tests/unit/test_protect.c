/* test_protect.c: the protected regions of runtime/control.h (lisp_pcall, LISP_TRY, the
 * LISP_UNWIND_PROTECT macros): a non-local exit through each kind, nested, leaves the dynamic
 * state of the region's entry: the frame stack, special bindings (the current package and the
 * condition handlers among them), call records and the error depth. */
#include "unit.h"
#include "control.h"

/* The dynamic state a region must give back. */
typedef struct State {
    Frame *frames;
    size_t special_sp;
    CallRecord *calls;
    int error_depth;
    Obj package, handlers, print_base;
} State;

static State state_of(Lisp *L) {
    State s = {L->frames, L->special_sp, L->calls, L->error_depth, SYM(S(PACKAGE_VAR))->value,
               SYM(S(P_HANDLER_CLUSTERS))->value, SYM(S(PRINT_BASE))->value};
    return s;
}

static void ck_state(Lisp *L, State want) {
    State now = state_of(L);
    ck_assert_ptr_eq(now.frames, want.frames);
    ck_assert_uint_eq(now.special_sp, want.special_sp);
    ck_assert_ptr_eq(now.calls, want.calls);
    ck_assert_int_eq(now.error_depth, want.error_depth);
    ck_assert_msg(now.package == want.package, "the current package was not restored");
    ck_assert_msg(now.handlers == want.handlers, "the handler clusters were not restored");
    ck_assert_msg(now.print_base == want.print_base, "*print-base* was not restored");
}

/* Read and evaluate the forms of CODE (no frame of its own: the caller's region catches). */
static Obj eval_string(Lisp *L, const char *code) {
    Obj text = string_from_cstr(L, code);
    Obj s = make_string_input_stream(L, text, 0, STR(text)->len);
    Obj v = NIL;
    for (;;) {
        Obj f = reader_read(L, s, false, UNBOUND, false, false);
        if (f == UNBOUND) break;
        v = lisp_eval(L, f);
    }
    return v;
}

/* A protected step: evaluate CODE; INNER: the code an inner protected call returned. */
typedef struct Probe {
    const char *code;
    struct Probe *inner;
    int inner_code;
    bool cleanup_ran, cleanup_unwinding;
    Obj print_base_after_inner;
} Probe;

static void run_code(Lisp *L, void *ud) {
    Probe *p = (Probe *)ud;
    bind_special(L, S(PRINT_BASE), FIX(8));   /* undone however the step ends */
    eval_string(L, p->code);
}

/* Bind, run the inner probe in its own protected call, note what it left, then run CODE. */
static void run_nested(Lisp *L, void *ud) {
    Probe *p = (Probe *)ud;
    bind_special(L, S(PRINT_BASE), FIX(16));
    p->inner_code = lisp_pcall(L, FR_TOPLEVEL, run_code, p->inner);
    p->print_base_after_inner = SYM(S(PRINT_BASE))->value;
    if (p->code) eval_string(L, p->code);
}

/* Run the inner probe inside a C unwind-protect. */
static void run_protected(Lisp *L, void *ud) {
    Probe *p = (Probe *)ud;
    Frame fr;
    LISP_UNWIND_PROTECT_BEGIN(L, &fr) {
        bind_special(L, S(PRINT_BASE), FIX(3));
        p->inner_code = lisp_pcall(L, FR_TOPLEVEL, run_code, p->inner);
    } LISP_UNWIND_PROTECT_EXIT {
        p->cleanup_ran = true;
        p->cleanup_unwinding = LISP_UNWINDING;
    } LISP_UNWIND_PROTECT_END;
}

START_TEST(pcall_returns_zero_and_undoes_its_bindings) {
    Lisp *L = unit_lisp();
    State before = state_of(L);
    Probe p = {"(+ 1 2)", NULL, 0, false, false, NIL};
    ck_assert_int_eq(lisp_pcall(L, FR_TOPLEVEL, run_code, &p), 0);
    ck_state(L, before);
}
END_TEST

START_TEST(an_error_restores_package_handlers_and_bindings) {
    Lisp *L = unit_lisp();
    State before = state_of(L);
    Probe p = {"(let ((*package* (find-package :keyword)) (*print-base* 2))"
               "  (handler-bind ((warning #'muffle-warning)) (error \"boom\")))", NULL, 0, false, false, NIL};
    ck_assert_int_eq(lisp_pcall(L, FR_TOPLEVEL, run_code, &p), JUMP_ERROR);
    ck_state(L, before);
}
END_TEST

START_TEST(nested_calls_each_keep_their_own_state) {
    Lisp *L = unit_lisp();
    State before = state_of(L);
    Probe inner = {"(let ((*print-base* 2) (*package* (find-package :keyword))) (error \"inner\"))", NULL, 0, false, false, NIL};
    Probe outer = {"(error \"outer\")", &inner, 0, false, false, NIL};
    ck_assert_int_eq(lisp_pcall(L, FR_TOPLEVEL, run_nested, &outer), JUMP_ERROR);
    ck_assert_int_eq(outer.inner_code, JUMP_ERROR);
    ck_assert_msg(outer.print_base_after_inner == FIX(16), "the inner call did not restore the outer binding");
    ck_state(L, before);
    /* the outer call goes on after the inner one failed */
    outer.code = NULL;
    ck_assert_int_eq(lisp_pcall(L, FR_TOPLEVEL, run_nested, &outer), 0);
    ck_state(L, before);
}
END_TEST

START_TEST(a_throw_passes_through_protected_calls_to_its_catch) {
    Lisp *L = unit_lisp();
    State before = state_of(L);
    Obj tag = intern_cstr(L, L->pkg_keyword, "UNIT-TAG");
    Probe inner = {"(let ((*print-base* 2)) (throw :unit-tag 7))", NULL, 0, false, false, NIL};
    Probe p = {NULL, &inner, -1, false, false, NIL};
    Frame fr;
    volatile int landed = 0;
    LISP_TRY(L, &fr, FR_CATCH, tag) {
        lisp_pcall(L, FR_TOPLEVEL, run_protected, &p);
        ck_abort_msg("the throw did not reach its catch");
    } LISP_CATCH(L, &fr) {
        landed = LISP_JUMP_CODE;
    } LISP_END_TRY;
    ck_assert_int_eq(landed, JUMP_RETURN);
    ck_assert_int_eq(p.inner_code, -1);           /* the protected calls on the way did not return */
    ck_assert(p.cleanup_ran && p.cleanup_unwinding);
    ck_assert_msg(L->values[0] == FIX(7), "the thrown value");
    ck_state(L, before);
}
END_TEST

START_TEST(an_interrupt_ends_the_outermost_call_running_cleanups) {
    Lisp *L = unit_lisp();
    State before = state_of(L);
    Probe inner = {"(let ((*print-base* 2)) (loop))", NULL, 0, false, false, NIL};
    Probe p = {NULL, &inner, -1, false, false, NIL};
    L->interrupt_kind = INTERRUPT_USER;
    L->interrupt_pending = 1;
    ck_assert_int_eq(lisp_pcall(L, FR_TOPLEVEL, run_protected, &p), JUMP_INTERRUPT);
    ck_assert_int_eq(p.inner_code, -1);           /* an interrupt is not caught by an inner call */
    ck_assert(p.cleanup_ran && p.cleanup_unwinding);
    ck_state(L, before);
    L->in_cleanup = false;
    L->deadline = 0;
    L->interrupt_kind = INTERRUPT_NONE;
}
END_TEST

START_TEST(unwind_protect_cleanup_runs_on_both_paths) {
    Lisp *L = unit_lisp();
    State before = state_of(L);
    Probe ok = {NULL, &(Probe){"(* 6 7)", NULL, 0, false, false, NIL}, -1, false, false, NIL};
    ck_assert_int_eq(lisp_pcall(L, FR_TOPLEVEL, run_protected, &ok), 0);
    ck_assert_int_eq(ok.inner_code, 0);
    ck_assert(ok.cleanup_ran && !ok.cleanup_unwinding);
    ck_state(L, before);
    /* an error caught inside the region is no exit through it */
    Probe caught = {NULL, &(Probe){"(error \"x\")", NULL, 0, false, false, NIL}, -1, false, false, NIL};
    ck_assert_int_eq(lisp_pcall(L, FR_TOPLEVEL, run_protected, &caught), 0);
    ck_assert_int_eq(caught.inner_code, JUMP_ERROR);
    ck_assert(caught.cleanup_ran && !caught.cleanup_unwinding);
    ck_state(L, before);
}
END_TEST

START_TEST(lisp_exit_points_restore_bindings) {
    Lisp *L = unit_lisp();
    State before = state_of(L);
    /* block, catch and unwind-protect of the evaluator, left by closures and throws */
    ck_assert_eval(L, "(list (block b (let ((*print-base* 2)) (funcall (lambda () (return-from b *print-base*))))) *print-base*)",
                   "(2 10)");
    ck_assert_eval(L, "(list (catch 'k (let ((*package* (find-package :keyword))) (throw 'k (package-name *package*)))) "
                      "(package-name *package*))", "(\"KEYWORD\" \"COMMON-LISP-USER\")");
    ck_assert_eval(L, "(let ((log nil)) (catch 'k (unwind-protect (let ((*print-base* 2)) (throw 'k 1)) "
                      "(push *print-base* log))) log)", "(10)");
    ck_assert_str_eq(unit_eval_error(L, "(block b (let ((*print-base* 2)) (error \"x\")))"), "SIMPLE-ERROR");
    ck_state(L, before);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("protect");
    TCase *t = tcase_create("core");
    tcase_add_test(t, pcall_returns_zero_and_undoes_its_bindings);
    tcase_add_test(t, an_error_restores_package_handlers_and_bindings);
    tcase_add_test(t, nested_calls_each_keep_their_own_state);
    tcase_add_test(t, a_throw_passes_through_protected_calls_to_its_catch);
    tcase_add_test(t, an_interrupt_ends_the_outermost_call_running_cleanups);
    tcase_add_test(t, unwind_protect_cleanup_runs_on_both_paths);
    tcase_add_test(t, lisp_exit_points_restore_bindings);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
