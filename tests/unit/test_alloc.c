/* test_alloc.c: the interpreter's own free lists of small objects (gc.h, gc_alloc): every object
 * comes back zeroed, no two live objects share memory, and what is reachable survives collections
 * made while the lists are half used. */
#include "unit.h"
#include <stdint.h>

/* An object of N words: word 0 links to the one made before, word 1 is its serial, the rest a
 * pattern derived from the serial. */
static uintptr_t pattern(uintptr_t serial, size_t i) { return (serial * 2654435761u + i) | 1; }

START_TEST(small_objects_come_back_zeroed) {
    Lisp *L = unit_shared_lisp();
    for (int round = 0; round < 3; round++) {
        for (size_t n = 1; n <= 8 * (GC_FREE_WORDS + 2); n++) {
            for (int k = 0; k < 300; k++) {
                unsigned char *p = gc_alloc(L, n);
                size_t i = 0;
                while (i < n && p[i] == 0) i++;
                if (i < n) ck_abort_msg("byte %zu of a %zu-byte object is %d", i, n, p[i]);
                memset(p, 0xA5, n);   /* garbage for the next round to find if it were not cleared */
            }
        }
        gc_collect();
    }
}
END_TEST

START_TEST(live_objects_survive_and_do_not_overlap) {
    Lisp *L = unit_shared_lisp();
    /* a chain of objects of every small size, kept alive only through the chain's head (a root:
     * a volatile local the collector finds on the stack), collections in between */
    void *volatile head = NULL;
    const uintptr_t count = 60000;
    for (uintptr_t s = 0; s < count; s++) {
        size_t words = 2 + s % (GC_FREE_WORDS + 3);
        uintptr_t *o = gc_alloc(L, words * sizeof(uintptr_t));
        o[0] = (uintptr_t)head;
        o[1] = s;
        for (size_t i = 2; i < words; i++) o[i] = pattern(s, i);
        head = o;
        if (s % 7000 == 0) gc_collect();
        /* garbage in between, of the same sizes, so that freed memory is handed out again */
        for (int g = 0; g < 3; g++) gc_alloc(L, words * sizeof(uintptr_t));
    }
    gc_collect();
    uintptr_t expect = count;
    for (uintptr_t *o = head; o; o = (uintptr_t *)o[0]) {
        expect--;
        if (o[1] != expect) ck_abort_msg("object %ju found where %ju was", (uintmax_t)o[1], (uintmax_t)expect);
        size_t words = 2 + expect % (GC_FREE_WORDS + 3);
        for (size_t i = 2; i < words; i++)
            if (o[i] != pattern(expect, i)) ck_abort_msg("word %zu of object %ju changed", i, (uintmax_t)expect);
    }
    ck_assert_uint_eq(expect, 0);
}
END_TEST

START_TEST(lisp_data_survives_collections) {
    Lisp *L = unit_shared_lisp();
    /* conses, vectors and closures of the sizes the lists serve, built across forced collections */
    ck_assert_eval(L, "(let ((keep nil))"
                      "  (dotimes (i 30000)"
                      "    (push (list i (make-array (mod i 20) :initial-element i) (let ((j i)) (lambda () j))) keep)"
                      "    (when (zerop (mod i 5000)) (tinycl:gc)))"
                      "  (tinycl:gc)"
                      "  (loop for (i v f) in keep for n downfrom 29999"
                      "        always (and (= i n) (= (length v) (mod n 20)) (every (lambda (x) (eql x n)) v)"
                      "                    (= (funcall f) n))))",
                   "T");
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("alloc");
    TCase *t = tcase_create("alloc");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, small_objects_come_back_zeroed);
    tcase_add_test(t, live_objects_survive_and_do_not_overlap);
    tcase_add_test(t, lisp_data_survives_collections);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
