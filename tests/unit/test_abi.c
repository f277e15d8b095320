/* test_abi.c: unit tests of the declared C-Lisp seam (runtime/lisp-abi.def): the layouts C sees
 * are the ones Lisp builds, the generated accessors read the same slots C reads, and
 * stdlib-lisp holds no literal slot index. */
#include <unistd.h>
#include "unit.h"
#include "clos.h"
#include "abi.h"

static size_t nslots_of(Lisp *L, const char *code) {
    Obj o = unit_eval(L, code);
    ck_assert_msg(is_type(o, T_INSTANCE) || is_type(o, T_FUNCALLABLE), "%s is not an instance", code);
    return INST(o)->nslots;
}

START_TEST(test_layout_sizes_match_the_objects_lisp_makes) {
    Lisp *L = unit_lisp();
    ck_assert_uint_eq(nslots_of(L, "(find-class 'standard-class)"), CL_NSLOTS);
    ck_assert_uint_eq(nslots_of(L, "(find-class 'simple-error)"), CL_NSLOTS);
    ck_assert_uint_eq(nslots_of(L, "(car (sys::class-slots (find-class 'standard-class)))"), SD_NSLOTS);
    ck_assert_uint_eq(nslots_of(L, "#'print-object"), GF_NSLOTS);
    ck_assert_uint_eq(nslots_of(L, "(car (sys::generic-function-methods #'print-object))"), M_NSLOTS);
    ck_assert_uint_eq(nslots_of(L, "(sys::intern-eql-specializer 42)"), EQLS_NSLOTS);
    ck_assert_uint_eq(nslots_of(L, "(sys::%make-restart 'abi-probe #'identity)"), RS_NSLOTS);
    ck_assert_uint_eq(nslots_of(L, "*print-pprint-dispatch*"), PPD_NSLOTS);
}
END_TEST

/* The classes Lisp defines by a list of slot names agree with the declared layout, name by name. */
START_TEST(test_layout_slot_names_match_their_classes) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(unit_eval_str(L, "(equal (mapcar #'sys::slot-definition-name"
                                      " (sys::class-slots (find-class 'sys::eql-specializer)))"
                                      " (sys::%eqls.slot-names))"), "T");
    ck_assert_str_eq(unit_eval_str(L, "(equal (mapcar #'sys::slot-definition-name"
                                      " (sys::class-slots (find-class 'restart)))"
                                      " (sys::%restart.slot-names))"), "T");
}
END_TEST

/* The generated Lisp accessors and the C enums name the same slots. */
START_TEST(test_lisp_accessors_read_what_c_reads) {
    Lisp *L = unit_lisp();
    Obj gf = unit_eval(L, "(defgeneric abi-probe (x) (:documentation \"probe\"))");
    unit_eval(L, "(defmethod abi-probe ((x integer)) x)");
    ck_assert(unit_eval(L, "(sys::%gf.name #'abi-probe)") == INST(gf)->slots[GF_NAME]);
    ck_assert(unit_eval(L, "(sys::%gf.methods #'abi-probe)") == INST(gf)->slots[GF_METHODS]);
    ck_assert(unit_eval(L, "(sys::%gf.nreq #'abi-probe)") == INST(gf)->slots[GF_NREQ]);
    Obj m = CAR(INST(gf)->slots[GF_METHODS]);
    ck_assert(INST(m)->slots[M_GF] == gf);
    ck_assert_str_eq(prin1_cstr(L, INST(m)->slots[M_SPECIALIZERS]), "(#<BUILT-IN-CLASS COMMON-LISP:INTEGER>)");
    Obj cls = unit_eval(L, "(defclass abi-point () ((x :initarg :x)))");
    ck_assert_str_eq(prin1_cstr(L, INST(cls)->slots[CL_NAME]), "ABI-POINT");
    ck_assert(unit_eval(L, "(sys::%class.slots (find-class 'abi-point))") == INST(cls)->slots[CL_SLOTS]);
    ck_assert_int_eq(FIXVAL(unit_eval(L, "(sys::%flag.class)")), INST_CLASS);
    ck_assert_int_eq(FIXVAL(unit_eval(L, "(sys::%emf.chain)")), EMF_CHAIN);
    ck_assert_int_eq(FIXVAL(unit_eval(L, "(sys::%class.nslots)")), CL_NSLOTS);
    /* a setter writes where C reads */
    unit_eval(L, "(sys::%set-class.documentation (find-class 'abi-point) \"a point\")");
    ck_assert_str_eq(prin1_cstr(L, INST(cls)->slots[CL_DOCUMENTATION]), "\"a point\"");
}
END_TEST

/* tools/check-slot-indices.sh passes on stdlib-lisp and fails on a literal index. */
START_TEST(test_no_literal_slot_index_in_stdlib) {
    ck_assert_int_eq(system("tools/check-slot-indices.sh >/dev/null"), 0);
    char path[] = "/tmp/tinycl-abi-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *bad = "(defun f (gf)\n  (%instance-ref (car gf) 2))\n";
    ck_assert_int_eq(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "tools/check-slot-indices.sh %s >/dev/null", path);
    ck_assert_int_ne(system(cmd), 0);
    unlink(path);
}
END_TEST

/* The boot's upcall check passes on the stdlib as built, and fails when one upcall is missing or
 * accepts other arguments than C passes. */
START_TEST(test_upcall_check) {
    Lisp *L = unit_lisp();
    char why[256];
    ck_assert_msg(abi_check_upcalls(L, why, sizeof why), "%s", why);
    unit_eval(L, "(fmakunbound 'sys::%gf-miss)");
    ck_assert(!abi_check_upcalls(L, why, sizeof why));
    ck_assert_str_eq(why, "SYSTEM::%GF-MISS, which C calls, is not defined as a function");
    unit_eval(L, "(defun sys::%gf-miss (gf args) (list gf args))");
    ck_assert_msg(abi_check_upcalls(L, why, sizeof why), "%s", why);
    unit_eval(L, "(defun sys::%update-obsolete-instance (instance class) (list instance class))");
    ck_assert(!abi_check_upcalls(L, why, sizeof why));
    ck_assert_str_eq(why, "SYSTEM::%UPDATE-OBSOLETE-INSTANCE is called from C with 1 argument but accepts 2 to 2");
    unit_eval(L, "(defmacro sys::%update-obsolete-instance (instance) instance)");
    ck_assert(!abi_check_upcalls(L, why, sizeof why));
    ck_assert_str_eq(why, "SYSTEM::%UPDATE-OBSOLETE-INSTANCE, which C calls, is not defined as a function");
}
END_TEST

/* After the boot an upcall C finds missing is an error, not a quiet switch to another behaviour
 * (TYPE-OF of an instance used to answer STANDARD-OBJECT without %INSTANCE-TYPE-OF). */
START_TEST(test_missing_upcall_is_an_error) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defclass abi-thing () ())");
    ck_assert_str_eq(unit_eval_str(L, "(type-of (make-instance 'abi-thing))"), "ABI-THING");
    unit_eval(L, "(fmakunbound 'sys::%instance-type-of)");
    const char *type = unit_eval_error(L, "(type-of (make-instance 'abi-thing))");
    ck_assert_ptr_nonnull(type);
    ck_assert_str_eq(type, "PROGRAM-ERROR");
}
END_TEST

static Suite *abi_suite(void) {
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_layout_sizes_match_the_objects_lisp_makes);
    tcase_add_test(tc, test_layout_slot_names_match_their_classes);
    tcase_add_test(tc, test_lisp_accessors_read_what_c_reads);
    tcase_add_test(tc, test_no_literal_slot_index_in_stdlib);
    tcase_add_test(tc, test_upcall_check);
    tcase_add_test(tc, test_missing_upcall_is_an_error);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(abi_suite)
