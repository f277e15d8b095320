/* test_clear_stack.c: gc_clear_stack (runtime/gc.c) leaves nothing of what deeper calls wrote below
 * its caller, so that the collector, which scans whole frames, does not take a dead word for a
 * live pointer; the pages far below are given back to the kernel rather than written. */
#include "unit.h"

#define AREA ((size_t)200 << 10)
#define EDGE ((size_t)256)

static void __attribute__((noinline)) write_deep(void) {
    volatile char area[AREA];
    for (size_t i = 0; i < AREA; i++) area[i] = 0x5a;
    __asm__ volatile("" : : "r"(area) : "memory");
}

#pragma GCC diagnostic ignored "-Wuninitialized"
static size_t __attribute__((noinline)) count_left(void) {
    volatile char area[AREA];        /* read where write_deep wrote: what the clearing left */
    size_t n = 0;
    /* all but the top EDGE bytes, next to the caller's frame: the clearing starts at its own frame,
     * and what lies between that and the caller's (saved registers, padding) differs by build
     * (under UBSan 8 bytes there kept write_deep's pattern) */
    for (size_t i = 0; i < AREA - EDGE; i++) n += area[i] == 0x5a;
    return n;
}

START_TEST(nothing_left_below) {
    Lisp *L = unit_lisp();
    write_deep();
    /* the test sees what is left when nothing clears; where frames are not reused (a sanitizer's
     * stack of its own for locals) there is nothing to see */
    if (count_left() < AREA / 2) { lisp_free(L); return; }
    write_deep();
    gc_clear_stack(L);
    ck_assert_uint_eq(count_left(), 0);
    lisp_free(L);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("clear-stack");
    TCase *t = tcase_create("core");
    tcase_add_test(t, nothing_left_below);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
