/* test_clos.c: unit tests of runtime/clos.c: CLASS-OF, slot access, structures, the dispatch
 * caches (filling, growth, invalidation) and the effective-method runner. */
#include "unit.h"
#include "clos.h"
#include "array.h"
#include "tinycl.h"

static const char *class_name_of(Lisp *L, Obj o) {
    Obj c = clos_class_of(L, o);
    ck_assert_msg(is_class_object(c), "class-of did not return a class");
    return prin1_cstr(L, INST(c)->slots[CL_NAME]);
}

START_TEST(test_class_of_immediates_and_heap_objects) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(class_name_of(L, FIX(1)), "FIXNUM");
    ck_assert_str_eq(class_name_of(L, NIL), "NULL");
    ck_assert_str_eq(class_name_of(L, S(T)), "SYMBOL");
    ck_assert_str_eq(class_name_of(L, make_char('a')), "CHARACTER");
    ck_assert_str_eq(class_name_of(L, make_single(1.5f)), "SINGLE-FLOAT");
    ck_assert_str_eq(class_name_of(L, cons(L, FIX(1), NIL)), "CONS");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "1267650600228229401496703205376")), "BIGNUM");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "1/2")), "RATIO");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "1d0")), "DOUBLE-FLOAT");
    ck_assert_str_eq(class_name_of(L, string_from_cstr(L, "abc")), "SIMPLE-STRING");
    ck_assert_str_eq(class_name_of(L, make_vector(L, 2, NIL)), "SIMPLE-VECTOR");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "(make-hash-table)")), "HASH-TABLE");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "*package*")), "PACKAGE");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "#'car")), "FUNCTION");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "(lambda (x) x)")), "FUNCTION");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "(make-string-output-stream)")), "STRING-STREAM");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "(make-broadcast-stream)")), "BROADCAST-STREAM");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "*readtable*")), "READTABLE");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "#'print-object")), "STANDARD-GENERIC-FUNCTION");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "(find-class 'integer)")), "BUILT-IN-CLASS");
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "(make-condition 'simple-error)")), "SIMPLE-ERROR");
}
END_TEST

START_TEST(test_class_of_foreign_instances) {
    Lisp *L = unit_lisp();
    /* instances other layers make with a non-class layout are of class T and print as before */
    ck_assert_str_eq(class_name_of(L, unit_eval(L, "(sys::%make-instance 'some-layout 2)")), "T");
    const char *printed = unit_eval_str(L, "(prin1-to-string (sys::%make-instance 'some-layout 2))");
    ck_assert_msg(strncmp(printed, "\"#<INSTANCE {", 13) == 0, "printed as %s", printed);
}
END_TEST

START_TEST(test_slot_access) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defclass pt () ((x :initarg :x) (y :initform 2) (z :allocation :class :initform 3)))");
    ck_assert_eval(L, "(let ((p (make-instance 'pt :x 1))) (list (slot-value p 'x) (slot-value p 'y) (slot-value p 'z)))",
                   "(1 2 3)");
    ck_assert_eval(L, "(let ((p (make-instance 'pt))) (list (slot-boundp p 'x) (setf (slot-value p 'x) 5) (slot-boundp p 'x)))",
                   "(NIL 5 T)");
    ck_assert_eval(L, "(let ((p (make-instance 'pt)) (q (make-instance 'pt))) (setf (slot-value p 'z) 30) (slot-value q 'z))",
                   "30");
    ck_assert_eval(L, "(let ((p (make-instance 'pt :x 1))) (slot-makunbound p 'x) (slot-boundp p 'x))", "NIL");
    ck_assert_eval(L, "(list (slot-exists-p (make-instance 'pt) 'y) (slot-exists-p (make-instance 'pt) 'w) (slot-exists-p 3 'x))",
                   "(T NIL NIL)");
    ck_assert_str_eq(unit_eval_error(L, "(slot-value (make-instance 'pt) 'x)"), "UNBOUND-SLOT");
    ck_assert_str_eq(unit_eval_error(L, "(slot-value (make-instance 'pt) 'nope)"), "CELL-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(slot-value 3 'x)"), "CELL-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(slot-value (make-instance 'pt) 3)"), "TYPE-ERROR");
}
END_TEST

START_TEST(test_structures_in_c) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defstruct sa a b) (defstruct (sb (:include sa)) c)");
    ck_assert_eval(L, "(sa-a (make-sb :a 1))", "1");
    ck_assert_eval(L, "(let ((s (make-sb))) (setf (sa-b s) 7) (sa-b s))", "7");
    ck_assert_str_eq(unit_eval_error(L, "(sb-c (make-sa))"), "TYPE-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(sa-a 'x)"), "TYPE-ERROR");
    ck_assert_eval(L, "(list (sa-p (make-sb)) (sb-p (make-sa)) (sa-p 3))", "(T NIL NIL)");
    /* structure instances are flagged so EQUALP compares them slot by slot */
    Obj s = unit_eval(L, "(make-sa :a 1)");
    ck_assert(INST(s)->h.flags & INST_STRUCTURE);
    ck_assert_eval(L, "(equalp (make-sa :a \"x\") (make-sa :a \"X\"))", "T");
    ck_assert_eval(L, "(equalp (make-sa :a 1) (make-sb :a 1))", "NIL");
}
END_TEST

START_TEST(test_generic_function_objects) {
    Lisp *L = unit_lisp();
    Obj gf = unit_eval(L, "(defgeneric g1 (x)) #'g1");
    ck_assert(is_type(gf, T_FUNCALLABLE));
    ck_assert(INST(gf)->h.flags & INST_GENERIC);
    ck_assert(is_function(gf));
    ck_assert_str_eq(unit_eval_error(L, "(g1 1)"), "ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(g1)"), "PROGRAM-ERROR");
    unit_eval(L, "(defmethod g1 ((x integer)) (* x 2))");
    ck_assert_eval(L, "(list (g1 4) (funcall #'g1 5) (apply #'g1 '(6)))", "(8 10 12)");
}
END_TEST

START_TEST(test_dispatch_cache_fills_and_invalidates) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defgeneric g2 (x)) (defmethod g2 ((x t)) :t) (defmethod g2 ((x integer)) :int)");
    ck_assert_eval(L, "(sys::%gf-cache-count #'g2)", "0");
    ck_assert_eval(L, "(list (g2 1) (g2 2) (g2 \"s\") (g2 'a))", "(:INT :INT :T :T)");
    /* three classes seen: FIXNUM, SIMPLE-STRING, SYMBOL */
    ck_assert_eval(L, "(sys::%gf-cache-count #'g2)", "3");
    /* a new method empties the cache and is used at once */
    unit_eval(L, "(defmethod g2 ((x string)) :string)");
    ck_assert_eval(L, "(sys::%gf-cache-count #'g2)", "0");
    ck_assert_eval(L, "(list (g2 1) (g2 \"s\"))", "(:INT :STRING)");
    /* a class defined for the first time changes no cached dispatch: the cache stays */
    ck_assert_eval(L, "(progn (defclass unrelated () ()) (sys::%gf-cache-count #'g2))", "2");
    /* a class redefined bumps the epoch: every cache is stale */
    ck_assert_eval(L, "(progn (defclass unrelated () ((s))) (sys::%gf-cache-count #'g2))", "0");
    ck_assert_eval(L, "(g2 1)", ":INT");
}
END_TEST

START_TEST(test_dispatch_cache_grows) {
    Lisp *L = unit_lisp();
    /* many classes through one function: the cache grows, then starts again, and stays right */
    unit_eval(L, "(defgeneric g3 (x)) (defmethod g3 ((x t)) 1) (defmethod g3 ((x standard-object)) 1)");
    unit_eval(L, "(defvar *objs* nil)"
                 "(dotimes (i 40)"
                 "  (let ((name (intern (format nil \"GROW-~D\" i))))"
                 "    (eval `(defclass ,name () ()))"
                 "    (push (make-instance name) *objs*)))");
    ck_assert_eval(L, "(let ((n 0)) (dotimes (k 3) (dolist (o *objs*) (setq n (+ n (g3 o))))) n)", "120");
    ck_assert_eval(L, "(sys::%gf-cache-count #'g3)", "40");
    /* a function whose methods are all on T keys on nothing: one entry */
    unit_eval(L, "(defgeneric g3b (x)) (defmethod g3b ((x t)) 2)");
    ck_assert_eval(L, "(let ((n 0)) (dolist (o *objs*) (setq n (+ n (g3b o)))) (list n (sys::%gf-cache-count #'g3b)))", "(80 1)");
}
END_TEST

START_TEST(test_eql_specializers_in_cache) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defgeneric g4 (x)) (defmethod g4 ((x integer)) :int) (defmethod g4 ((x (eql 7))) :seven)");
    ck_assert_eval(L, "(list (g4 1) (g4 7) (g4 2) (g4 7))", "(:INT :SEVEN :INT :SEVEN)");
    unit_eval(L, "(defmethod g4 ((x (eql :k))) :keyword)");
    ck_assert_eval(L, "(list (g4 :k) (g4 7) (g4 1))", "(:KEYWORD :SEVEN :INT)");
}
END_TEST

START_TEST(test_reader_fast_path_and_obsolete_instances) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defclass rd () ((a :initarg :a :accessor rd-a) (b :initarg :b :accessor rd-b)))"
                 "(defvar *o* (make-instance 'rd :a 1 :b 2))");
    ck_assert_eval(L, "(list (rd-a *o*) (rd-b *o*) (rd-a *o*))", "(1 2 1)");
    ck_assert_eval(L, "(progn (setf (rd-b *o*) 20) (rd-b *o*))", "20");
    /* the slots move: the old instance is updated before the fast path reads it */
    unit_eval(L, "(defclass rd () ((new :initform :n) (b :initarg :b :accessor rd-b) (a :initarg :a :accessor rd-a)))");
    ck_assert_eval(L, "(list (rd-a *o*) (rd-b *o*) (slot-value *o* 'new))", "(1 20 :N)");
    ck_assert_str_eq(unit_eval_error(L, "(rd-a (make-instance 'rd))"), "UNBOUND-SLOT");
}
END_TEST

START_TEST(test_method_combination_runner) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defvar *log* nil)"
                 "(defgeneric g5 (x))"
                 "(defmethod g5 ((x number)) (push :num *log*) (values 1 2))"
                 "(defmethod g5 ((x integer)) (push :int *log*) (call-next-method))"
                 "(defmethod g5 :before ((x integer)) (push :before *log*))"
                 "(defmethod g5 :after ((x number)) (push :after *log*) :ignored)"
                 "(defmethod g5 :around ((x integer)) (push :around *log*) (call-next-method))");
    ck_assert_eval(L, "(list (multiple-value-list (g5 1)) (sys::nreverse-boot *log*))",
                   "((1 2) (:AROUND :BEFORE :INT :NUM :AFTER))");
    ck_assert_str_eq(unit_eval_error(L, "(progn (defmethod g6 ((x t)) (call-next-method)) (g6 1))"), "ERROR");
}
END_TEST

START_TEST(test_keyword_checking) {
    Lisp *L = unit_lisp();
    unit_eval(L, "(defgeneric g7 (x &key)) (defmethod g7 ((x t) &key a) a) (defmethod g7 ((x integer) &key b) (list b (call-next-method)))");
    ck_assert_eval(L, "(list (g7 1 :a 1 :b 2) (g7 \"s\" :a 3) (g7 \"s\" :b 1 :allow-other-keys t))", "((2 1) 3 NIL)");
    ck_assert_str_eq(unit_eval_error(L, "(g7 \"s\" :b 1)"), "PROGRAM-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(g7 1 :a)"), "PROGRAM-ERROR");
}
END_TEST

START_TEST(test_class_objects_are_flagged) {
    Lisp *L = unit_lisp();
    ck_assert(is_class_object(unit_eval(L, "(find-class 'standard-object)")));
    ck_assert(is_class_object(unit_eval(L, "(find-class 'error)")));
    ck_assert(!is_class_object(unit_eval(L, "(make-condition 'error)")));
    ck_assert(!is_class_object(FIX(3)));
    /* every condition class is in the class table with its metaclass */
    ck_assert_eval(L, "(class-name (class-of (find-class 'type-error)))", "SYSTEM::CONDITION-CLASS");
}
END_TEST

/* ---- the session: LIST-DEFINITIONS sections and an exact reset ---- */

static const char *session_value(TclSession *s, const char *code) {
    TclResult *r = tcl_eval(s, code, NULL, 0);
    ck_assert_msg(r->status == TCL_OK, "%s failed: %s %s", code, r->error_type ? r->error_type : "",
                  r->error_message ? r->error_message : "");
    static char buf[512];
    snprintf(buf, sizeof buf, "%s", r->nvalues ? r->values[r->nvalues - 1] : "");
    tcl_result_free(r);
    return buf;
}

START_TEST(test_session_definitions_and_reset) {
    TclOptions opt = {0};
    opt.capture_output = true;
    TclSession *s = tcl_session_new(&opt);
    ck_assert(s != NULL);
    const char *boot_counts = "(list (length (sys::%instance-ref #'print-object 2)) "
                              "(length (sys::%class-direct-subclasses (find-class 'standard-object))) "
                              "(length (sys::%class-direct-subclasses (find-class 'structure-object))) "
                              "(length (sys::%class-direct-subclasses (find-class 'error))))";
    char before[512];
    snprintf(before, sizeof before, "%s", session_value(s, boot_counts));
    session_value(s, "(defclass point () ((x :initarg :x :accessor point-x)))"
                     "(defmethod print-object ((p point) stream) (format stream \"<P ~A>\" (point-x p)))"
                     "(defgeneric area (s)) (defmethod area ((p point)) 1)"
                     "(defstruct person name) (define-condition my-error (error) ())");
    ck_assert_str_eq(session_value(s, "(prin1-to-string (make-instance 'point :x 1))"), "\"<P 1>\"");
    TclDefinitions *d = tcl_list_definitions(s, NULL, NULL);
    ck_assert_msg(d->text && strstr(d->text, "[Classes]\n- MY-ERROR\n- POINT"), "%s", d->text);
    ck_assert_msg(strstr(d->text, "[Structures]\n- PERSON"), "%s", d->text);
    ck_assert_msg(strstr(d->text, "[Generic Functions]\n- AREA (S)"), "%s", d->text);
    ck_assert_msg(strstr(d->text, "- PRINT-OBJECT (POINT T)"), "%s", d->text);
    ck_assert_msg(strstr(d->text, "- AREA (POINT)"), "%s", d->text);
    tcl_definitions_free(d);
    tcl_reset(s, false);
    ck_assert_str_eq(session_value(s, "(list (find-class 'point nil) (find-class 'person nil) (find-class 'my-error nil) (fboundp 'area))"),
                     "(NIL NIL NIL NIL)");
    ck_assert_str_eq(session_value(s, boot_counts), before);
    ck_assert_str_eq(session_value(s, "(gethash 'person sys::*structure-descriptions*)"), "NIL");
    ck_assert_str_eq(session_value(s, "(handler-case (read-from-string \"#S(PERSON :NAME 1)\") (error () :gone))"), ":GONE");
    d = tcl_list_definitions(s, NULL, NULL);
    ck_assert_str_eq(d->text, "No user definitions");
    tcl_definitions_free(d);
    /* the same names can be defined again from scratch */
    session_value(s, "(defclass point () ((y :initform 2 :reader point-y)))");
    ck_assert_str_eq(session_value(s, "(point-y (make-instance 'point))"), "2");
    tcl_session_free(s);
}
END_TEST

static Suite *clos_suite(void) {
    Suite *s = suite_create("clos");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_class_of_immediates_and_heap_objects);
    tcase_add_test(tc, test_class_of_foreign_instances);
    tcase_add_test(tc, test_slot_access);
    tcase_add_test(tc, test_structures_in_c);
    tcase_add_test(tc, test_generic_function_objects);
    tcase_add_test(tc, test_dispatch_cache_fills_and_invalidates);
    tcase_add_test(tc, test_dispatch_cache_grows);
    tcase_add_test(tc, test_eql_specializers_in_cache);
    tcase_add_test(tc, test_reader_fast_path_and_obsolete_instances);
    tcase_add_test(tc, test_method_combination_runner);
    tcase_add_test(tc, test_keyword_checking);
    tcase_add_test(tc, test_class_objects_are_flagged);
    tcase_add_test(tc, test_session_definitions_and_reset);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(clos_suite)
