// e2e-run-tests-frameworks.mjs: `run-tests` with Parachute and Prove (issue 12), through the official
// MCP SDK client. Neither framework is in Debian, so the systems here are stand-ins written for this
// test with the part of each framework's documented result interface that run-tests reads:
// - Parachute: TEST returns its report, a parent result whose RESULTS vector holds every result of
//   the run (TEST-RESULTs and checks), each with STATUS, EXPRESSION, DESCRIPTION, and for checks VALUE
//   and (comparisons) EXPECTED; FORMAT-RESULT words a result.
// - Prove: FINALIZE (PROVE.SUITE) ends a test file; its suite's REPORTS are test reports
//   (TEST-REPORT-P, FAILED-REPORT-P, SKIPPED-REPORT-P, ERROR-REPORT-P; a SUBTEST is one composed
//   report with CHILDREN) with DESCRIPTION, GOT, GOT-FORM, EXPECTED and NOTP.
// The real Parachute 1.5.0 and Prove (master) give the counts their own summaries print; see
// docs/tools.md.
// Usage: node e2e-run-tests-frameworks.mjs TINYCL
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, text, sc, ok, connect, finish } from "./helpers.mjs";

const bin = process.argv[2];

const dir = mkdtempSync(join(tmpdir(), "tinycl-frameworks-"));
const put = (path, content) => { mkdirSync(join(dir, path, ".."), { recursive: true }); writeFileSync(join(dir, path), content); };

put("parachute/parachute.asd", `(defsystem "parachute" :components ((:file "parachute")))\n`);
put("parachute/parachute.lisp", `(defpackage :parachute (:use :cl) (:export #:test #:define-test #:is))
(in-package :parachute)
(defclass result () ((expression :initarg :expression :accessor expression)
                     (status :initform :unknown :accessor status)
                     (description :initform nil :accessor description)))
(defclass value-result (result) ((value :accessor value)))
(defclass comparison-result (value-result) ((expected :initarg :expected :accessor expected)))
(defclass parent-result (result) ((results :initform (make-array 0 :adjustable t :fill-pointer t) :accessor results)))
(defclass test-result (parent-result) ())
(defclass report (parent-result) ())
(defclass test () ((name :initarg :name :reader name) (fn :initarg :fn :reader fn) (skip :initarg :skip :reader skip)))
(defvar *tests* nil)
(defvar *report*)
(defvar *test*)
(defmacro define-test (name &body body)
  \`(push (make-instance 'test :name ',name :skip ,(eq (car body) :skip) :fn (lambda () ,@(remove :skip body))) *tests*))
(defun check (r fn comparison)
  (vector-push-extend r (results *report*))
  (vector-push-extend r (results *test*))
  (handler-case (let ((v (funcall fn)))
                  (setf (value r) v (status r) (if (funcall comparison (expected r) v) :passed :failed)))
    (error (c) (setf (value r) c (status r) :failed))))
(defmacro is (comparison expected form)
  \`(check (make-instance 'comparison-result :expression '(is ,comparison ,expected ,form) :expected ,expected)
          (lambda () ,form) #',comparison))
(defmethod format-result ((r result) type)
  (declare (ignore type))
  (format nil "The test form ~S evaluated to ~A" (expression r) (if (slot-boundp r 'value) (value r) "nothing")))
(defun test (designator &key &allow-other-keys)
  (let ((*report* (make-instance 'report :expression designator)))
    (dolist (tc (reverse *tests*))
      (let ((*test* (make-instance 'test-result :expression tc)))
        (vector-push-extend *test* (results *report*))
        (if (skip tc)
            (setf (status *test*) :skipped)
            (handler-case (funcall (fn tc))
              (error (c) (setf (description *test*) (format nil "The test failed to evaluate properly: ~A" c)
                               (status *test*) :failed))))
        (when (eq (status *test*) :unknown)
          (setf (status *test*) (if (some (lambda (x) (eq (status x) :failed)) (results *test*)) :failed :passed)))))
    *report*))
`);
put("ptdemo/ptdemo.asd", `(defsystem "ptdemo" :in-order-to ((test-op (test-op "ptdemo/tests"))))
(defsystem "ptdemo/tests" :depends-on ("parachute") :components ((:file "tests"))
  :perform (test-op (o c) (uiop:symbol-call :parachute :test :ptdemo-tests)))
`);
put("ptdemo/tests.lisp", `(defpackage :ptdemo-tests (:use :cl :parachute))
(in-package :ptdemo-tests)
(define-test adds (is = 3 (+ 1 2)) (is = 4 (+ 1 2)))
(define-test errs (is = 1 (car 5)))
(define-test body-err (error "boom"))
(define-test later :skip (is = 1 1))
`);

put("prove/prove.asd", `(defsystem "prove" :components ((:file "prove")))\n`);
put("prove/prove.lisp", `(defpackage :prove.report (:use :cl)
  (:export #:test-report-p #:failed-report-p #:skipped-report-p #:error-report-p #:passed-test-report
           #:failed-test-report #:error-test-report #:skipped-test-report #:composed-test-report))
(in-package :prove.report)
(defclass report () ((description :initarg :description :initform nil)))
(defclass test-report (report) ())
(defclass normal-test-report (test-report)
  ((got :initarg :got) (got-form :initarg :got-form) (expected :initarg :expected) (notp :initform nil)
   (report-expected-label :initform nil)))
(defclass passed-test-report (normal-test-report) ())
(defclass failed-test-report (normal-test-report) ())
(defclass error-test-report (failed-test-report) ())
(defclass skipped-test-report (normal-test-report) ())
(defclass composed-test-report (test-report) ((children :initarg :children)))
(defun test-report-p (r) (typep r 'test-report))
(defun failed-report-p (r)
  (typecase r (skipped-test-report nil) (failed-test-report t)
    (composed-test-report (some #'failed-report-p (slot-value r 'children)))))
(defun skipped-report-p (r)
  (typecase r (skipped-test-report t) (composed-test-report (some #'skipped-report-p (slot-value r 'children)))))
(defun error-report-p (r) (typep r 'error-test-report))
(defpackage :prove.suite (:use :cl :prove.report) (:export #:reports #:current-suite #:finalize #:*suite*))
(in-package :prove.suite)
(defclass suite () ((reports :initform (make-array 0 :adjustable t :fill-pointer 0) :accessor reports)))
(defvar *suite* nil)
(defun current-suite () (or *suite* (setf *suite* (make-instance 'suite))))
(defun finalize (&optional (suite (current-suite)))
  (format t "~D of ~D tests failed~%" (count-if #'failed-report-p (reports suite)) (length (reports suite)))
  (setf *suite* nil)
  t)
(defpackage :prove (:use :cl :prove.report :prove.suite) (:export #:is #:with-error #:skip #:subtest #:finalize))
(in-package :prove)
(defun add (r) (vector-push-extend r (reports (current-suite))) r)
(defmacro is (got expected description)
  \`(let ((g ,got) (e ,expected))
     (add (make-instance (if (equal g e) 'passed-test-report 'failed-test-report)
                         :got g :got-form g :expected e :description ,description))))
(defmacro with-error (description &body body)
  \`(handler-case (progn ,@body)
     (error (c) (add (make-instance 'error-test-report :got c :got-form c :expected :non-error :description ,description)))))
(defun skip (description) (add (make-instance 'skipped-test-report :got nil :expected nil :description description)))
(defmacro subtest (description &body body)
  \`(let ((children (let ((*suite* (make-instance 'prove.suite::suite))) ,@body (reports *suite*))))
     (add (make-instance 'composed-test-report :description ,description :children children))))
`);
put("pvdemo/pvdemo.asd", `(defsystem "pvdemo" :in-order-to ((test-op (test-op "pvdemo/tests"))))
(defsystem "pvdemo/tests" :depends-on ("prove")
  :perform (test-op (o c) (load (asdf:system-relative-pathname "pvdemo" "run.lisp"))))
`);
put("pvdemo/run.lisp", `(defpackage :pvdemo-tests (:use :cl :prove))
(in-package :pvdemo-tests)
(is (+ 1 2) 3 "adds")
(is (+ 1 2) 4 "adds wrongly")
(with-error "car of 5" (is (car 5) 1 "car"))
(subtest "inner" (is 1 1 "one") (is 2 3 "two is three"))
(skip "not yet")
(finalize)
`);

let client;
try {
  client = await connect(bin, "tinycl-e2e-run-tests-frameworks", { CL_SOURCE_REGISTRY: `${dir}//` });
  const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 600000 });

  let r = await call("run-tests", { system: "ptdemo" });
  let s = sc(r);
  check("parachute: detected, with counts from its report", ok(r) && s.framework === "parachute" && s.passed === 1 &&
        s.failed === 1 && s.errored === 2 && s.skipped === 1 && s.total === 5, text(r));
  check("parachute: the summary counts results", text(r).includes("(of 5 results)"), text(r));
  let f = s.failures || [];
  check("parachute: a failed comparison's test, form, expected, actual and reason",
        f.some((x) => x.kind === "failed" && x.test === "PTDEMO-TESTS::ADDS" && x.form === "(IS = 4 (+ 1 2))" &&
               x.expected === "4" && x.actual === "3" && x.reason === "The test form (IS = 4 (+ 1 2)) evaluated to 3"), JSON.stringify(f));
  check("parachute: a check whose form signalled is errored",
        f.some((x) => x.kind === "errored" && x.test === "PTDEMO-TESTS::ERRS" && x.actual.startsWith("TYPE-ERROR")), JSON.stringify(f));
  check("parachute: a test whose body signalled is errored, with Parachute's description",
        f.some((x) => x.kind === "errored" && x.test === "PTDEMO-TESTS::BODY-ERR" && x.form === null &&
               x.reason.includes("failed to evaluate properly")), JSON.stringify(f));
  r = await call("run-tests", { system: "ptdemo", test: "adds" });
  check("parachute: one test alone is refused clearly", r.isError && text(r).includes("Running one test needs FiveAM or RT"), text(r));

  r = await call("run-tests", { system: "pvdemo" });
  s = sc(r);
  check("prove: detected, with counts from its suite's reports", ok(r) && s.framework === "prove" && s.passed === 1 &&
        s.failed === 2 && s.errored === 1 && s.skipped === 1 && s.total === 5, text(r));
  check("prove: the summary counts tests", text(r).includes("(of 5 tests)"), text(r));
  f = s.failures || [];
  check("prove: a failed IS: got, expected and Prove's wording",
        f.some((x) => x.kind === "failed" && x.test === "adds wrongly" && x.expected === "4" && x.actual === "3" &&
               x.reason === "3 is expected to be 4"), JSON.stringify(f));
  check("prove: a subtest fails by its failing child",
        f.some((x) => x.kind === "failed" && x.test === "inner" && x.reason === "two is three" && x.actual === "2"), JSON.stringify(f));
  check("prove: an error report is errored",
        f.some((x) => x.kind === "errored" && x.test === "car of 5" && x.actual.startsWith("TYPE-ERROR")), JSON.stringify(f));
  check("prove: the output is the framework's own", (s.stdout || text(r)).includes("3 of 5 tests failed") || text(r).includes("3 of 5 tests failed"), text(r));
} catch (e) {
  check("frameworks: ran to the end", false, String((e && e.stack) || e));
} finally {
  if (client) await client.close();
}

rmSync(dir, { recursive: true, force: true });
finish("e2e-run-tests-frameworks");
