/* test_fasl_refs.c: what a compiled file writes as a reference to something of the reading
 * process (a symbol, a class) and what it copies. The writer asks about every block it reaches,
 * node structures included, whose first word (an evaluator's address) may read as the header of
 * a class or a package: only a class FIND-CLASS gives back by its name, and a package found by
 * its name, is written as a reference to it. */
#include "unit.h"
#include "clos.h"
#include <string.h>
#include <unistd.h>

/* A block that looks like a class metaobject named LENGTH (CL's function; no class of that
 * name): a header of type INSTANCE flagged INST_CLASS, slots whose name slot is the symbol. */
static Obj fake_class(Lisp *L) {
    Instance *f = (Instance *)gc_alloc(L, sizeof(Instance));
    f->h.type = T_INSTANCE;
    f->h.flags = INST_CLASS;
    f->nslots = CL_NAME + 1;
    f->slots = (Obj *)gc_alloc(L, sizeof(Obj) * f->nslots);
    for (size_t i = 0; i < f->nslots; i++) f->slots[i] = NIL;
    f->slots[CL_NAME] = intern_cstr(L, L->pkg_cl, "LENGTH");
    f->layout = NIL;
    return (Obj)f;
}

/* A block that looks like the package COMMON-LISP: a header of type PACKAGE and its name. */
static Obj fake_package(Lisp *L) {
    Package *p = (Package *)gc_alloc(L, sizeof(Package));
    memset(p, 0, sizeof *p);
    p->h.type = T_PACKAGE;
    p->name = string_from_cstr(L, "COMMON-LISP");
    p->nicknames = p->use_list = p->used_by = p->shadowing = p->doc = p->local_nicknames = NIL;
    return (Obj)p;
}

START_TEST(test_block_that_reads_as_a_package_is_copied) {
    Lisp *L = unit_shared_lisp();
    char path[64], code[256];
    snprintf(path, sizeof path, "/tmp/tinycl-unit-fasl-p-%ld.fasl", (long)getpid());
    Obj var = intern_cstr(L, L->pkg_cl_user, "*FASL-REFS-GRAPH*");
    SYM(var)->value = cons(L, fake_package(L), cons(L, L->pkg_cl, NIL));
    snprintf(code, sizeof code, "(sys::%%fasl-write \"%s\" *fasl-refs-graph*)", path);
    unit_eval(L, code);
    snprintf(code, sizeof code, "(values (sys::%%fasl-read \"%s\"))", path);
    Obj back = unit_eval(L, code);
    ck_assert(is_cons(back));
    ck_assert(is_type(CAR(back), T_PACKAGE));
    ck_assert_ptr_ne((void *)CAR(back), (void *)L->pkg_cl);     /* a copy, not CL found by its name */
    ck_assert_ptr_eq((void *)CAR(CDR(back)), (void *)L->pkg_cl); /* the real one is a reference */
    unlink(path);
}
END_TEST

START_TEST(test_block_that_reads_as_a_class_is_copied) {
    Lisp *L = unit_shared_lisp();
    char path[64];
    snprintf(path, sizeof path, "/tmp/tinycl-unit-fasl-%ld.fasl", (long)getpid());
    Obj fake = fake_class(L);
    Obj var = intern_cstr(L, L->pkg_cl_user, "*FASL-REFS-GRAPH*");
    SYM(var)->value = cons(L, fake, cons(L, intern_cstr(L, L->pkg_cl, "CAR"), NIL));
    char code[256];
    snprintf(code, sizeof code, "(sys::%%fasl-write \"%s\" *fasl-refs-graph*)", path);
    unit_eval(L, code);
    /* read back: a reference would be looked up with FIND-CLASS LENGTH and fail */
    snprintf(code, sizeof code, "(values (sys::%%fasl-read \"%s\"))", path);
    Obj back = unit_eval(L, code);
    ck_assert(is_cons(back));
    Obj copy = CAR(back);
    ck_assert(is_type(copy, T_INSTANCE));
    ck_assert_ptr_ne((void *)copy, (void *)fake);
    ck_assert_int_eq(INST(copy)->nslots, CL_NAME + 1);
    ck_assert_ptr_eq((void *)INST(copy)->slots[CL_NAME], (void *)intern_cstr(L, L->pkg_cl, "LENGTH"));
    /* the symbol beside it is a reference: the very symbol */
    ck_assert_ptr_eq((void *)CAR(CDR(back)), (void *)intern_cstr(L, L->pkg_cl, "CAR"));
    /* a real class is a reference: the class itself comes back */
    snprintf(code, sizeof code, "(sys::%%fasl-write \"%s\" (list (find-class 'standard-object)))", path);
    unit_eval(L, code);
    snprintf(code, sizeof code, "(eq (car (values (sys::%%fasl-read \"%s\"))) (find-class 'standard-object))", path);
    ck_assert_str_eq(unit_eval_str(L, code), "T");
    unlink(path);
}
END_TEST

static Suite *fasl_refs_suite(void) {
    Suite *s = suite_create("fasl_refs");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_block_that_reads_as_a_class_is_copied);
    tcase_add_test(tc, test_block_that_reads_as_a_package_is_copied);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(fasl_refs_suite)
