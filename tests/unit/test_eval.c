/* test_eval.c: unit tests of the evaluator: special operators, closures, exits, lambda lists. */
#include "unit.h"
#include <string.h>
#include "node.h"

Obj ev_block(Lisp *, Node *, Env *);      /* nodes.c */
Obj ev_block_nl(Lisp *, Node *, Env *);
Obj ev_let_local(Lisp *, Node *, Env *), ev_let_local1(Lisp *, Node *, Env *), ev_let_local2(Lisp *, Node *, Env *);
Obj ev_let(Lisp *, Node *, Env *), ev_flet(Lisp *, Node *, Env *);
Obj ev_self_loop(Lisp *, Node *, Env *);  /* nodes-selfloop.c */

START_TEST(test_arith_and_calls) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(+ 1 2)", "3");
    ck_assert_eval(L, "(defun sq (x) (* x x)) (sq 12)", "144");
    ck_assert_eval(L, "(defun fact (n) (if (= n 0) 1 (* n (fact (- n 1))))) (fact 25)", "15511210043330985984000000");
}
END_TEST

START_TEST(test_closures_capture_fresh_bindings) {
    Lisp *L = unit_lisp();
    /* each iteration's let binding is captured separately */
    ck_assert_eval(L, "(let ((fs nil)) (dotimes (i 3) (let ((j i)) (push (lambda () j) fs))) (let ((r nil)) (dolist (f fs) (push (funcall f) r)) (sys::nreverse-boot r)))",
                   "(2 1 0)");
    ck_assert_eval(L, "(let ((n 0)) (let ((inc (lambda () (setq n (+ n 1))))) (funcall inc) (funcall inc) n))", "2");
}
END_TEST

START_TEST(test_nonlocal_exits) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(block b (funcall (lambda () (return-from b 42))) 1)", "42");
    ck_assert_eval(L, "(let ((x 0)) (tagbody (funcall (lambda () (go out))) (setq x 1) out) x)", "0");
    ck_assert_eval(L, "(catch 'tag (unwind-protect (throw 'tag 1) 2))", "1");
    ck_assert_eval(L, "(let ((log nil)) (catch 'k (unwind-protect (throw 'k 1) (push :cleanup log))) log)", "(:CLEANUP)");
    ck_assert_str_eq(unit_eval_error(L, "(funcall (let ((f nil)) (block b (setq f (lambda () (return-from b 1)))) f))"),
                     "CONTROL-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(throw 'nowhere 1)"), "CONTROL-ERROR");
}
END_TEST

START_TEST(test_multiple_values) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(multiple-value-call #'list (values 1 2) (values) (values 3))", "(1 2 3)");
    ck_assert_eval(L, "(multiple-value-list (block b (return-from b (values 1 2))))", "(1 2)");
    ck_assert_eval(L, "(multiple-value-list (multiple-value-prog1 (values 1 2) (values 3 4)))", "(1 2)");
}
END_TEST

START_TEST(test_lambda_lists) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defun f (a &optional (b 2 bp) &rest r &key (k 9) ((:z zz) 8)) (list a b bp r k zz)) (f 1)",
                   "(1 2 NIL NIL 9 8)");
    ck_assert_eval(L, "(f 1 3 :z 1 :k 2)", "(1 3 T (:Z 1 :K 2) 2 1)");
    ck_assert_str_eq(unit_eval_error(L, "(f 1 2 :bad 3)"), "PROGRAM-ERROR");
    ck_assert_str_eq(unit_eval_error(L, "(f)"), "PROGRAM-ERROR");
    ck_assert_eval(L, "(destructuring-bind (a (b . c) &optional (d 4)) '(1 (2 . 3)) (list a b c d))", "(1 2 3 4)");
}
END_TEST

START_TEST(test_specials) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defvar *v* 1) (defun getv () *v*) (list (let ((*v* 2)) (getv)) (getv))", "(2 1)");
    /* a special binding is undone by a non-local exit */
    ck_assert_eval(L, "(catch 'x (let ((*v* 5)) (throw 'x nil))) *v*", "1");
}
END_TEST

START_TEST(test_deep_recursion_is_an_error) {
    Lisp *L = unit_lisp();
    ck_assert_str_eq(unit_eval_error(L, "(defun inf (n) (+ 1 (inf n))) (inf 1)"), "STORAGE-CONDITION");
    ck_assert_eval(L, "(+ 1 1)", "2");
}
END_TEST

START_TEST(test_deep_structures_in_c_code) {
    /* the C recursions of EQUAL, COPY-TREE, SXHASH-free printing and the reader stop at the stack limit */
    Lisp *L = unit_lisp();
    unit_eval(L, "(defvar *a* nil) (defvar *b* nil) (dotimes (i 600000) (setq *a* (list *a*) *b* (list *b*)))");
    ck_assert_str_eq(unit_eval_error(L, "(equal *a* *b*)"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(equalp *a* *b*)"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(copy-tree *a*)"), "STORAGE-CONDITION");
    ck_assert_str_eq(unit_eval_error(L, "(write-to-string *a* :level nil :length nil :circle nil)"), "STORAGE-CONDITION");
    /* the reader's own limit (10,000 levels) comes first; under AddressSanitizer a level takes
     * several times the stack and the stack limit may come first: a clean error either way */
    const char *deep_read = unit_eval_error(L, "(read-from-string (make-string 100000 :initial-element #\\())");
#if defined(__SANITIZE_ADDRESS__)
    if (strcmp(deep_read, "STORAGE-CONDITION") != 0) ck_assert_str_eq(deep_read, "READER-ERROR");
#else
    ck_assert_str_eq(deep_read, "READER-ERROR");
#endif
    ck_assert_eval(L, "(+ 1 1)", "2");
}
END_TEST

/* Stdlib functions defined at boot are analysed on their first call; everything else at once. */
static Lambda *global_lambda(Lisp *L, const char *name) {
    Obj sym = unit_eval(L, name);
    ck_assert(is_symbol(sym));
    Obj fn = SYM(sym)->function;
    ck_assert_msg(is_type(fn, T_CLOSURE), "%s is not a closure", name);
    return CLOSURE(fn)->lambda;
}

START_TEST(test_boot_functions_are_analysed_on_first_call) {
    Lisp *L = unit_lisp();
    Lambda *lam = global_lambda(L, "'apropos-list");
    ck_assert_int_eq(lam->lazy, LAZY_PENDING);
    /* its lambda list and documentation are known without analysing it */
    ck_assert_eval(L, "(sys::%function-lambda-list #'apropos-list)", "(STRING &OPTIONAL PACKAGE SYSTEM::EXTERNAL-ONLY)");
    ck_assert_int_eq(lam->lazy, LAZY_PENDING);
    ck_assert_eval(L, "(not (member 'car (apropos-list \"CAR\" \"CL\")))", "NIL");
    ck_assert_int_eq(lam->lazy, LAZY_NONE);
    ck_assert_ptr_nonnull(lam->body);
    /* a function defined after the boot is analysed when it is defined */
    ck_assert_eval(L, "(defun user-fn (x) (list x x))", "USER-FN");
    ck_assert_int_eq(global_lambda(L, "'user-fn")->lazy, LAZY_NONE);
}
END_TEST

START_TEST(test_lazy_analysis_survives_errors) {
    Lisp *L = unit_lisp();
    /* pretend to boot while defining: the body's macro fails at the first call, the function
     * stays lazy, and works once the macro is fixed */
    ck_assert_eval(L, "(defmacro unit-m () (error \"not yet\"))", "UNIT-M");
    L->boot_phase = 0;
    ck_assert_eval(L, "(defun unit-lazy () (unit-m))", "UNIT-LAZY");
    ck_assert_eval(L, "(defmacro unit-self () (unit-lazy2) 1)", "UNIT-SELF");
    ck_assert_eval(L, "(defun unit-lazy2 () (unit-self))", "UNIT-LAZY2");
    L->boot_phase = 1;
    Lambda *lam = global_lambda(L, "'unit-lazy");
    ck_assert_int_eq(lam->lazy, LAZY_PENDING);
    ck_assert_str_eq(unit_eval_error(L, "(unit-lazy)"), "SIMPLE-ERROR");
    ck_assert_int_eq(lam->lazy, LAZY_PENDING);
    ck_assert_eval(L, "(defmacro unit-m () 42)", "UNIT-M");
    ck_assert_eval(L, "(unit-lazy)", "42");
    ck_assert_int_eq(lam->lazy, LAZY_NONE);
    /* a macro whose expander calls the function being analysed: an error, not a loop */
    ck_assert_str_eq(unit_eval_error(L, "(unit-lazy2)"), "PROGRAM-ERROR");
    ck_assert_int_eq(global_lambda(L, "'unit-lazy2")->lazy, LAZY_PENDING);
}
END_TEST

/* The implicit block of a DEFUN costs nothing when no RETURN-FROM names it. */
START_TEST(test_unused_blocks_are_dropped) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defun no-return (x) (+ x 1))", "NO-RETURN");
    ck_assert_eval(L, "(defun with-return (x) (when (> x 0) (return-from with-return :pos)) :neg)", "WITH-RETURN");
    ck_assert_eval(L, "(defun closure-return (x) (mapc (lambda (y) (when (= x y) (return-from closure-return y))) '(1 2 3)) nil)",
                   "CLOSURE-RETURN");
    ck_assert(global_lambda(L, "'no-return")->body->ev != ev_block);
    ck_assert(global_lambda(L, "'with-return")->body->ev == ev_block);
    ck_assert(global_lambda(L, "'closure-return")->body->ev == ev_block_nl);
    ck_assert_eval(L, "(list (no-return 1) (with-return 1) (with-return -1) (closure-return 2) (closure-return 5))",
                   "(2 :POS :NEG 2 NIL)");
    ck_assert_eval(L, "(block outer (block inner (return-from outer 1)) 2)", "1");
}
END_TEST

/* A global closure with required parameters only in a stack frame gets its arguments evaluated
 * straight into its frame (call_direct in nodes.c). */
START_TEST(test_direct_calls) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defun d2 (a b) (list a b))", "D2");
    ck_assert_eval(L, "(defun d-opt (a &optional b) (list a b))", "D-OPT");
    ck_assert_eval(L, "(defun d-captured (a) (lambda () a))", "D-CAPTURED");
    ck_assert_eval(L, "(defun d-special (*print-base*) *print-base*)", "D-SPECIAL");
    ck_assert(global_lambda(L, "'d2")->direct_args);
    ck_assert(!global_lambda(L, "'d-opt")->direct_args);
    ck_assert(!global_lambda(L, "'d-captured")->direct_args);
    ck_assert(!global_lambda(L, "'d-special")->direct_args);
    ck_assert_eval(L, "(list (d2 1 2) (d-opt 1) (funcall (d-captured 3)) (d-special 8))", "((1 2) (1 NIL) 3 8)");
    /* wrong argument counts still signal */
    ck_assert_str_eq(unit_eval_error(L, "(d2 1)"), "PROGRAM-ERROR");
    /* the arguments redefine the function: the new definition is called */
    ck_assert_eval(L, "(defun d-redef (x) x)", "D-REDEF");
    ck_assert_eval(L, "(d-redef (progn (defun d-redef (x) (* 2 x)) 5))", "10");
    ck_assert_eval(L, "(defun d-gone (x) x)", "D-GONE");
    ck_assert_str_eq(unit_eval_error(L, "(d-gone (progn (fmakunbound 'd-gone) 1))"), "UNDEFINED-FUNCTION");
    /* a LET of lexical variables in the frame takes the one-pass evaluator */
    ck_assert_eval(L, "(defun d-let (a) (let ((b (+ a 1)) (c a) (d 0)) (list b c d)))", "D-LET");
    ck_assert(global_lambda(L, "'d-let")->body->ev == ev_let_local);
    ck_assert_eval(L, "(d-let 1)", "(2 1 0)");
    /* two of them: unrolled */
    ck_assert_eval(L, "(defun d-let2 (a) (let ((b (+ a 1)) (c a)) (list b c)))", "D-LET2");
    ck_assert(global_lambda(L, "'d-let2")->body->ev == ev_let_local2);
    ck_assert_eval(L, "(d-let2 1)", "(2 1)");
    /* a non-local exit out of an argument */
    ck_assert_eval(L, "(block b (d2 1 (return-from b :out)))", ":OUT");
}
END_TEST

/* A finished node tree keeps no structure of its analysis (scopes, variables): nothing runs with
 * them, and they would keep every variable of the form alive and fill compiled files. */
START_TEST(test_nodes_keep_no_analysis_structures) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defun nk-let (a) (let ((b (+ a 1))) (list a b)))", "NK-LET");
    ck_assert_eval(L, "(defun nk-captured (a) (let ((b a)) (lambda () (incf b))))", "NK-CAPTURED");
    ck_assert_eval(L, "(defun nk-block (l) (block out (mapc (lambda (x) (when x (return-from out x))) l) :none))", "NK-BLOCK");
    ck_assert_eval(L, "(defun nk-flet (a) (flet ((f (x) (* x a))) (labels ((g (n) (if (= n 0) 0 (+ (f n) (g (1- n)))))) (g 3))))",
                   "NK-FLET");
    LetNode *let = (LetNode *)global_lambda(L, "'nk-let")->body;
    ck_assert(let->n.ev == ev_let_local1);
    ck_assert_ptr_null(let->scope);
    ck_assert_ptr_null(let->b[0].var);
    ck_assert_ptr_null(let->next_let);
    LetNode *captured = (LetNode *)global_lambda(L, "'nk-captured")->body;
    ck_assert(captured->n.ev == ev_let);
    ck_assert_ptr_null(captured->scope);
    ck_assert_ptr_null(captured->b[0].var);
    BlockNode *block = (BlockNode *)global_lambda(L, "'nk-block")->body;
    ck_assert(block->n.ev == ev_block_nl);
    ck_assert_ptr_null(block->scope);
    ck_assert_ptr_null(block->var);
    FletNode *flet = (FletNode *)global_lambda(L, "'nk-flet")->body;
    ck_assert(flet->n.ev == ev_flet);
    ck_assert_ptr_null(flet->scope);
    ck_assert_ptr_null(flet->vars);
    /* and they run as before */
    ck_assert_eval(L, "(let ((c (nk-captured 5))) (funcall c) (list (nk-let 1) (funcall c) (nk-block '(nil 3 4)) (nk-block nil) (nk-flet 2)))",
                   "((1 2) 7 3 :NONE 12)");
}
END_TEST

/* A body that is a tree of tests of variables with self tail calls of simple arguments among its
 * leaves runs its rounds as one loop (ev_self_loop in nodes-selfloop.c); other shapes keep their nodes. */
START_TEST(test_self_loops_chosen) {
    Lisp *L = unit_lisp();
    ck_assert_eval(L, "(defun lsp (a b) (cond ((null b) nil) ((null a) t) (t (lsp (cdr a) (cdr b)))))", "LSP");
    ck_assert(global_lambda(L, "'lsp")->body->ev == ev_self_loop);
    ck_assert_eval(L, "(defun walk2 (l x) (cond ((< x 0) :neg) ((endp l) x) (t (walk2 (cdr l) (car l)))))", "WALK2");
    ck_assert(global_lambda(L, "'walk2")->body->ev == ev_self_loop);
    /* a form with an effect before the test, an argument that is not simple, a test of a call */
    ck_assert_eval(L, "(defun eff (l) (print 1) (if (null l) 0 (eff (cdr l))))", "EFF");
    ck_assert(global_lambda(L, "'eff")->body->ev != ev_self_loop);
    ck_assert_eval(L, "(defun down (n) (if (= n 0) :end (down (1- n))))", "DOWN");
    ck_assert(global_lambda(L, "'down")->body->ev != ev_self_loop);
    ck_assert_eval(L, "(defun callt (l) (if (null (cdr l)) l (callt (cdr l))))", "CALLT");
    ck_assert(global_lambda(L, "'callt")->body->ev != ev_self_loop);
    ck_assert_eval(L, "(list (lsp '(1) '(1 2)) (lsp '(1 2) '(1)) (walk2 '(1 2 -3 4) 0) (walk2 '(1 2) 0) (callt '(1 2 3)))",
                   "(T NIL :NEG 2 (3))");
}
END_TEST

static Suite *eval_suite(void) {
    Suite *s = suite_create("eval");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_arith_and_calls);
    tcase_add_test(tc, test_closures_capture_fresh_bindings);
    tcase_add_test(tc, test_nonlocal_exits);
    tcase_add_test(tc, test_multiple_values);
    tcase_add_test(tc, test_lambda_lists);
    tcase_add_test(tc, test_specials);
    tcase_add_test(tc, test_deep_recursion_is_an_error);
    tcase_add_test(tc, test_deep_structures_in_c_code);
    tcase_add_test(tc, test_boot_functions_are_analysed_on_first_call);
    tcase_add_test(tc, test_lazy_analysis_survives_errors);
    tcase_add_test(tc, test_unused_blocks_are_dropped);
    tcase_add_test(tc, test_direct_calls);
    tcase_add_test(tc, test_self_loops_chosen);
    tcase_add_test(tc, test_nodes_keep_no_analysis_structures);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(eval_suite)
