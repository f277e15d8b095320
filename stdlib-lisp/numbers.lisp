;;;; numbers.lisp: number functions written in Lisp (CLHS chapter 12).
;;;; The numeric tower itself is in runtime/number.c; this file adds the places LDB and
;;;; MASK-FIELD (SETF of a byte of an integer place).

(define-setf-expander ldb (bytespec place &environment env)
  (multiple-value-bind (temps vals stores store-form access-form)
      (get-setf-expansion place env)
    (let ((btemp (gensym "BYTE")) (store (gensym "NEW")))
      (values (cons btemp temps)
              (cons bytespec vals)
              (list store)
              `(let ((,(car stores) (dpb ,store ,btemp ,access-form)))
                 ,store-form
                 ,store)
              `(ldb ,btemp ,access-form)))))

(define-setf-expander mask-field (bytespec place &environment env)
  (multiple-value-bind (temps vals stores store-form access-form)
      (get-setf-expansion place env)
    (let ((btemp (gensym "BYTE")) (store (gensym "NEW")))
      (values (cons btemp temps)
              (cons bytespec vals)
              (list store)
              `(let ((,(car stores) (deposit-field ,store ,btemp ,access-form)))
                 ,store-form
                 ,store)
              `(mask-field ,btemp ,access-form)))))
