;;;; gc-image.lisp: objects of the boot image made to point to fresh objects keep them through many
;;;; collections. A collection scans only the pages of the image written since start-up
;;;; (runtime/gcdirty.c): were the written pages not scanned, the fresh objects below would be freed,
;;;; their memory reused by the garbage GC-IMAGE-CHURN makes, and the checks would see other contents.

(in-package :cl-user)

(defun gc-image-string (tag)
  (let ((s (make-string 200)))
    (dotimes (i 200 s) (setf (char s i) (char tag (mod i (length tag)))))))

(defun gc-image-good-string-p (s tag)
  (and (stringp s) (string= s (gc-image-string tag))))

(defun gc-image-churn (rounds)
  ;; garbage of the sizes of the objects under test, then a full collection, ROUNDS times
  (dotimes (r rounds)
    (let ((junk nil))
      (dotimes (i 4000)
        (push (list (make-string 200 :initial-element #\z) (make-array 4 :initial-element i)
                    (cons i (+ (expt 2 80) i)))
              junk))
      (setq junk (length junk)))
    (tinycl:gc :full t)))

(defvar *gc-image-dirty-at-start* (nth-value 0 (sys::%image-dirty-pages)))
(defvar *gc-image-gensym-counter* *gensym-counter*)

;; the property list of a symbol of the image
(setf (get 'car 'gc-image-test) (list (gc-image-string "plist") (vector 1 2 3)))
;; the value of a special variable of the image: a fresh bignum
(setf *gensym-counter* (+ (expt 2 90) 12345))
;; the keyword package's table (a hash table of the image)
(defvar *gc-image-keyword* (intern (gc-image-string "keyword") :keyword))
;; the image's table of structure descriptions, through DEFSTRUCT
(defstruct gc-image-point x y)
;; a class of the image: its subclasses slot and its documentation slot
(defclass gc-image-thing () ((label :initarg :label :reader gc-image-thing-label)))
(define-condition gc-image-condition (simple-error) ())
(setf (documentation (find-class 'simple-error) t) (gc-image-string "class documentation"))
;; a method pushed onto generic functions of the image
(defmethod print-object ((x gc-image-thing) stream)
  (write-string (gc-image-string "method") stream)
  (write-string (gc-image-thing-label x) stream))
(defmethod describe-object ((x gc-image-point) stream)
  (format stream "point ~A" (gc-image-point-x x)))

(gc-image-churn 12)

(deftest gc-image.pages-written
  ;; the writes above made pages of the image dirty (NIL: the image's writes are not tracked,
  ;; then every collection scans it whole and the rest of this file still holds)
  (multiple-value-bind (dirty total) (sys::%image-dirty-pages)
    (or (null dirty)
        (and (<= *gc-image-dirty-at-start* dirty total) (< 0 dirty))))
  t)

(deftest gc-image.symbol-plist
  (let ((v (get 'car 'gc-image-test)))
    (and (gc-image-good-string-p (first v) "plist") (equalp (second v) #(1 2 3))))
  t)

(deftest gc-image.symbol-value
  (let ((d (- *gensym-counter* (expt 2 90))))
    (prog1 (and (integerp d) (<= 12345 d 1000000))
      (setf *gensym-counter* *gc-image-gensym-counter*)))
  t)

(deftest gc-image.package-table
  (let ((name (gc-image-string "keyword")))
    (gc-image-churn 3)
    (and (eq (find-symbol name :keyword) *gc-image-keyword*) (string= (symbol-name *gc-image-keyword*) name)))
  t)

(deftest gc-image.structure
  (let ((p (make-gc-image-point :x 3 :y 4)))
    (list (gc-image-point-p p) (gc-image-point-y (copy-gc-image-point p))
          (with-output-to-string (s) (describe p s))))
  (t 4 "point 3"))

(deftest gc-image.class-slots
  (progn
    (gc-image-churn 3)
    (list (not (null (member (find-class 'gc-image-condition)
                             (sys::class-direct-subclasses (find-class 'simple-error)))))
          (gc-image-good-string-p (documentation (find-class 'simple-error) t) "class documentation")
          (typep (make-condition 'gc-image-condition :format-control "x") 'simple-error)))
  (t t t))

(deftest gc-image.pushed-method
  (progn
    (gc-image-churn 3)
    (string= (princ-to-string (make-instance 'gc-image-thing :label "!"))
             (concatenate 'string (gc-image-string "method") "!")))
  t)
