/* test_image_warm.c: the functions every session runs when it starts, resets and evaluates a form,
 * and those every system load calls (runtime/init.c, boot_analyse_loader), are in the boot image
 * already analysed (src/session-image.c, warm_up), so that no session pays for their analysis;
 * the rest of the stdlib stays analysed on its first call. */
#include "unit.h"
#include "tinycl.h"
#include "bootimage.h"
#include "image_unit.h"
#include <string.h>
#include <unistd.h>

static bool analysed(Lisp *L, const char *name) {
    Obj f = SYM(intern_cstr(L, L->pkg_system, name))->function;
    ck_assert_msg(is_type(f, T_CLOSURE), "%s is not a Lisp function", name);
    return CLOSURE(f)->lambda->lazy == LAZY_NONE;
}

START_TEST(session_functions_analysed_in_the_image) {
    size_t len;
    unsigned char *image = unit_read_boot_image(&len);
    bootimage_use(image, len);
    setenv("TINYCL_BOOT", "image", 1);
    Lisp *L = unit_lisp();
    ck_assert(L->image_heap.scanned != NULL);           /* loaded from the image */
    ck_assert(analysed(L, "%SESSION-EVAL"));
    ck_assert(analysed(L, "%SESSION-SNAPSHOT"));
    ck_assert(analysed(L, "%SESSION-RESET"));
    ck_assert(!analysed(L, "%LIST-DEFINITIONS"));       /* not run while the image was written */
    lisp_free(L);
    unsetenv("TINYCL_BOOT");
    bootimage_use(NULL, 0);
    free(image);
}
END_TEST

/* LOAD, the compiled-file reader and CLOS's instance making, which every system load calls */
START_TEST(loader_functions_analysed_in_the_image) {
    size_t len;
    unsigned char *image = unit_read_boot_image(&len);
    bootimage_use(image, len);
    setenv("TINYCL_BOOT", "image", 1);
    Lisp *L = unit_lisp();
    ck_assert(L->image_heap.scanned != NULL);
    Obj load = SYM(intern_cstr(L, L->pkg_cl, "LOAD"))->function;
    ck_assert(is_type(load, T_CLOSURE) && CLOSURE(load)->lambda->lazy == LAZY_NONE);
    ck_assert(analysed(L, "%LOAD-COMPILED-FILE"));
    ck_assert(analysed(L, "%MAKE-STANDARD-INSTANCE"));
    ck_assert(analysed(L, "%SHARED-INITIALIZE"));
    ck_assert(analysed(L, "%DOCUMENTATION-1"));
    lisp_free(L);
    unsetenv("TINYCL_BOOT");
    bootimage_use(NULL, 0);
    free(image);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("image-warm");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, session_functions_analysed_in_the_image);
    tcase_add_test(t, loader_functions_analysed_in_the_image);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
