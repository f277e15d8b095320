/* test_image.c: the serialiser of runtime/image.c: every object type written and read back, sharing
 * and cycles, hash tables rehashed, C functions relocated, and damaged or foreign images refused. */
#include "unit.h"
#include "image_unit.h"
#include "image.h"
#include "hash.h"
#include "eval.h"
#include "bootimage.h"
#include <stdio.h>
#include <unistd.h>
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_inline.h>

static Obj read_one(Lisp *L, const unsigned char *img, size_t len) {
    char err[IMAGE_ERRLEN] = "";
    uintptr_t roots[1] = {0};
    ImageRegion ext[1] = {{L, sizeof *L}};
    ck_assert_msg(image_read(L, img, len, roots, 1, ext, 1, NULL, err), "image_read: %s", err);
    return OBJ(roots[0]);
}

static Obj round_trip(Lisp *L, Obj root) {
    size_t len = 0;
    unsigned char *img = unit_write_one(L, root, &len);
    Obj copy = read_one(L, img, len);
    free(img);
    return copy;
}

static bool equalp_obj(Lisp *L, Obj a, Obj b) {
    return funcall2(L, intern_cstr(L, L->pkg_cl, "EQUALP"), a, b) != NIL;
}

/* Every kind of object comes back EQUALP to the original, as a copy. */
START_TEST(every_type_round_trips) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L,
        "(list 42 most-positive-fixnum -5 #\\x #\\λ 1.5 2.5d0 (expt 3 100) (- (expt 2 70)) -7/3 #c(1.5d0 -2d0) #c(1 2)"
        " \"héllo\" (vector 1 \"a\" 2.0) #*10110 (make-array '(2 3) :initial-element 7)"
        " (make-array 4 :fill-pointer 2 :adjustable t :initial-element 9)"
        " (make-array 3 :element-type 'character :fill-pointer 1 :initial-element #\\q)"
        " (make-array '(2 2) :element-type 'bit :initial-element 1)"
        " #p\"b.lisp\" (make-hash-table) nil)");
    Obj copy = round_trip(L, orig);
    ck_assert(copy != orig);
    int n = 0;
    for (Obj a = orig, b = copy; a != NIL; a = CDR(a), b = CDR(b), n++) {
        ck_assert_msg(is_cons(b), "element %d: the copy's list is shorter", n);
        ck_assert_msg(equalp_obj(L, CAR(a), CAR(b)), "element %d differs: %s vs %s", n,
                      prin1_cstr(L, CAR(a)), prin1_cstr(L, CAR(b)));
        if (is_heap(CAR(a))) ck_assert_msg(CAR(a) != CAR(b), "element %d was not copied", n);
    }
    /* arithmetic on the copied numbers (bignum limbs live in the pointer-free region) */
    ck_assert_str_eq(prin1_cstr(L, funcall2(L, intern_cstr(L, L->pkg_cl, "+"), CAR(CDR(CDR(CDR(CDR(CDR(CDR(CDR(copy)))))))), FIX(1))),
                     "515377520732011331036461129765621272702107522002");
}
END_TEST

/* Symbols, packages and random states: copies that work as the originals do. */
START_TEST(symbols_packages_random_states) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, "(list 'image-test-sym :kw (find-package \"CL-USER\") (make-random-state nil))");
    Obj copy = round_trip(L, orig);
    Obj sym = CAR(copy);
    ck_assert(is_type(sym, T_SYMBOL) && sym != CAR(orig));
    ck_assert_str_eq(string_to_utf8(L, SYM(sym)->name, NULL), "IMAGE-TEST-SYM");
    ck_assert(is_type(CAR(CDR(CDR(copy))), T_PACKAGE));
    Obj random = intern_cstr(L, L->pkg_cl, "RANDOM");
    Obj r1 = funcall2(L, random, FIX(1000000000), CAR(CDR(CDR(CDR(orig)))));
    Obj r2 = funcall2(L, random, FIX(1000000000), CAR(CDR(CDR(CDR(copy)))));
    ck_assert(r1 == r2);
}
END_TEST

/* Shared structure stays shared, circular structure stays circular. */
START_TEST(sharing_and_cycles) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, "(let* ((x (list 1 2)) (c (list 1 2 3)) (v (vector 0 x)))"
                            " (setf (cdr (cddr c)) c) (setf (svref v 0) v) (list x x c v))");
    Obj copy = round_trip(L, orig);
    Obj x1 = CAR(copy), x2 = CAR(CDR(copy)), c = CAR(CDR(CDR(copy))), v = CAR(CDR(CDR(CDR(copy))));
    ck_assert(x1 == x2 && x1 != CAR(orig));
    ck_assert(CDR(CDR(CDR(c))) == c);
    ck_assert(VEC(v)->data[0] == v);
    ck_assert(VEC(v)->data[1] == x1);
}
END_TEST

/* Tables hashed on addresses find their keys at the new addresses. */
START_TEST(hash_tables_rehashed) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, "(let ((eq (make-hash-table :test 'eq)) (eql (make-hash-table))"
                            "      (equal (make-hash-table :test 'equal)) (k (list 1)) (v (vector 2)))"
                            "  (setf (gethash k eq) 1 (gethash v eq) 2 (gethash 'image-key eq) 3)"
                            "  (setf (gethash (expt 2 80) eql) 4 (gethash 1.5d0 eql) 5 (gethash k eql) 6)"
                            "  (setf (gethash \"str\" equal) 7 (gethash '(a (b)) equal) 8)"
                            "  (dotimes (i 200) (setf (gethash (list i) eq) i))"
                            "  (list eq eql equal k v 'image-key))");
    Obj copy = round_trip(L, orig);
    Obj eq = CAR(copy), eql = CAR(CDR(copy)), equal = CAR(CDR(CDR(copy)));
    Obj k = CAR(CDR(CDR(CDR(copy)))), v = CAR(CDR(CDR(CDR(CDR(copy))))), sym = CAR(CDR(CDR(CDR(CDR(CDR(copy))))));
    ck_assert(hash_get(L, eq, k, NIL) == FIX(1));
    ck_assert(hash_get(L, eq, v, NIL) == FIX(2));
    ck_assert(hash_get(L, eq, sym, NIL) == FIX(3));
    ck_assert(HT(eq)->count == 203);
    ck_assert(hash_get(L, eql, unit_eval(L, "(expt 2 80)"), NIL) == FIX(4));
    ck_assert(hash_get(L, eql, unit_eval(L, "1.5d0"), NIL) == FIX(5));
    ck_assert(hash_get(L, eql, k, NIL) == FIX(6));
    ck_assert(hash_get(L, equal, string_from_cstr(L, "str"), NIL) == FIX(7));
    ck_assert(hash_get(L, equal, unit_eval(L, "'(a (b))"), NIL) == NIL);   /* other symbols A, B: the copies' */
    /* the copy of the original table no longer finds the original key, only its own copy */
    ck_assert(hash_get(L, eq, CAR(CDR(CDR(CDR(orig)))), NIL) == NIL);
}
END_TEST

/* Functions: primitives (C functions in the executable), closures with their node trees and
 * captured variables, structures and standard objects. */
START_TEST(functions_and_instances) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, "(defstruct image-pt x y)"
                            "(defclass image-obj () ((a :initarg :a)))"
                            "(list #'car (let ((n 10)) (lambda (x) (incf n x)))"
                            "      (compile nil '(lambda (l) (loop for x in l sum (* x x))))"
                            "      (make-image-pt :x 1 :y 2) (make-instance 'image-obj :a 42))");
    Obj copy = round_trip(L, orig);
    ck_assert(CAR(copy) != CAR(orig));
    ck_assert(funcall1(L, CAR(copy), unit_eval(L, "'(7 8)")) == FIX(7));
    Obj counter = CAR(CDR(copy));
    ck_assert(funcall1(L, counter, FIX(5)) == FIX(15));
    ck_assert(funcall1(L, counter, FIX(5)) == FIX(20));
    /* the copy has its own captured variable */
    ck_assert(funcall1(L, CAR(CDR(orig)), FIX(1)) == FIX(11));
    ck_assert(funcall1(L, CAR(CDR(CDR(copy))), unit_eval(L, "'(1 2 3)")) == FIX(14));
    Obj pt = CAR(CDR(CDR(CDR(copy))));
    ck_assert(is_type(pt, T_INSTANCE) && INST(pt)->nslots >= 2);
    ck_assert(INST(pt)->slots[0] == FIX(1) && INST(pt)->slots[1] == FIX(2));
    Obj obj = CAR(CDR(CDR(CDR(CDR(copy)))));
    ck_assert(is_type(obj, T_INSTANCE) && INST(obj)->slots[0] == FIX(42));
}
END_TEST

/* A damaged image is refused before anything is built, and the caller's roots are untouched. */
/* A cons takes two words in an image (the collector gives it four); a block that anything points
 * to other than as a cons keeps its size, even when a stray word looks like a cons pointer to it. */
START_TEST(conses_in_two_words) {
    Lisp *L = unit_shared_lisp();
    Obj list = unit_eval(L, "(loop for i below 1000 collect i)");
    Obj copy = round_trip(L, list);
    ck_assert_msg(image_last_stats.scanned_bytes < 1000 * 16 + 1024, "1000 conses took %zu bytes",
                  image_last_stats.scanned_bytes);
    ck_assert(equalp_obj(L, list, copy));
    /* a ratio (three words) whose first reference is a word equal to its address plus TAG_CONS */
    Obj ratio = unit_eval(L, "-7/3");
    char err[IMAGE_ERRLEN] = "";
    uintptr_t roots[2] = {WORD(ratio) + TAG_CONS, WORD(ratio)}, back[2] = {0, 0};
    ImageRegion ext[1] = {{L, sizeof *L}};
    size_t len = 0;
    unsigned char *img = image_write(L, roots, 2, ext, 1, &len, err);
    ck_assert_msg(img != NULL, "image_write: %s", err);
    ck_assert_msg(image_read(L, img, len, back, 2, ext, 1, NULL, err), "image_read: %s", err);
    free(img);
    ck_assert(back[0] == back[1] + TAG_CONS);
    ck_assert_str_eq(prin1_cstr(L, OBJ(back[1])), "-7/3");
}
END_TEST

/* A cut of every interned symbol: the references of a compiled file, reduced to the test's needs.
 * The writer asks about node structures too, whose first word (an evaluator's address) can read
 * as a symbol's header: a block is a symbol only if its package gives it back by its name. */
typedef struct SymCut { Lisp *L; Obj syms[64]; size_t n; } SymCut;
static bool symcut_object(Lisp *L, Obj o, HeapType t) {
    return is_heap(o) && !(WORD(o) & 7) && (image_heap_contains(&L->image_heap, (void *)o) || GC_base((void *)o)) &&
           heap_type(o) == t;
}
static bool symcut_is_ref(void *ctx, uintptr_t base, size_t size) {
    Lisp *L = ((SymCut *)ctx)->L;
    Obj o = OBJ(base);
    if (size < sizeof(Symbol) || !symcut_object(L, o, T_SYMBOL) || !symcut_object(L, SYM(o)->name, T_STRING) ||
        !symcut_object(L, SYM(o)->package, T_PACKAGE))
        return false;
    int status;
    return package_find_symbol(L, SYM(o)->package, STR(SYM(o)->name)->data, STR(SYM(o)->name)->len, &status) == o;
}
static long symcut_fn(void *ctx, uintptr_t base, size_t *size) {
    SymCut *c = (SymCut *)ctx;
    if (!symcut_is_ref(ctx, base, *size)) return -1;
    for (size_t i = 0; i < c->n; i++)
        if (c->syms[i] == OBJ(base)) { *size = sizeof(Symbol); return (long)i; }
    ck_assert_uint_lt(c->n, 64);
    c->syms[c->n] = OBJ(base);
    *size = sizeof(Symbol);
    return (long)c->n++;
}

static Obj cut_round_trip(Lisp *L, Obj root) {
    SymCut sc = {L, {0}, 0};
    ImageCut cut = {symcut_fn, &sc, symcut_is_ref};
    char err[IMAGE_ERRLEN] = "";
    uintptr_t roots[1] = {WORD(root)};
    ImageRegion ext[65] = {{L, sizeof *L}};
    size_t len = 0;
    unsigned char *img = image_write_cut(L, roots, 1, ext, 1, &cut, &len, err);
    ck_assert_msg(img != NULL, "image_write_cut: %s", err);
    for (size_t i = 0; i < sc.n; i++) ext[1 + i] = (ImageRegion){sc.syms[i], sizeof(Symbol)};
    ck_assert_msg(image_read(L, img, len, roots, 1, ext, 1 + sc.n, NULL, err), "image_read: %s", err);
    free(img);
    return OBJ(roots[0]);
}

/* Written with a cut (a compiled file's graph), conses take two words too, the survey that finds
 * them walking into no object the caller cuts, and each block of collected memory leaves out the
 * word the collector adds past its object: a ratio (three words, a block of four) takes three. The
 * node trees of a closure, whose structures end in words that are zero, run as before. */
START_TEST(cut_graphs_packed) {
    Lisp *L = unit_shared_lisp();
    Obj list = unit_eval(L, "(loop for i below 1000 collect (if (evenp i) (/ i 7) 'car))");
    Obj copy = cut_round_trip(L, list);
    ck_assert(equalp_obj(L, list, copy));
    ck_assert_msg(image_last_stats.scanned_bytes < 1000 * 16 + 500 * 24 + 1024, "took %zu bytes",
                  image_last_stats.scanned_bytes);
    ck_assert(CAR(CDR(copy)) == unit_eval(L, "'car"));
    Obj fn = unit_eval(L, "(let ((x 10) (v (vector 1 2))) (lambda (y &optional z) (or (block b (dotimes (i 3) (when (and z (= i 2)) (return-from b (list* x y z (coerce v 'list)))))) (flet ((f (a) (+ a x))) (f y)))))");
    Obj fcopy = cut_round_trip(L, fn);
    ck_assert(fcopy != fn);
    ck_assert_str_eq(prin1_cstr(L, funcall2(L, fcopy, FIX(5), NIL)), "15");
    ck_assert_str_eq(prin1_cstr(L, funcall2(L, fcopy, FIX(5), FIX(6))), "(10 5 6 1 2)");
}
END_TEST

/* An image read from a file part by part, straight into the collector's blocks (compiled files):
 * the checksum taken over the pieces is the one written over the whole; a file that ends before
 * the image does (truncated after its head was read), or whose part was damaged, is refused with
 * nothing built, and its head alone says how much the reader needs first. */
START_TEST(read_from_file_by_parts) {
    Lisp *L = unit_shared_lisp();
    Obj list = unit_eval(L, "(loop for i below 3000 collect (list i (format nil \"s~D\" i) (/ i 7)))");
    size_t len = 0;
    unsigned char *img = unit_write_one(L, list, &len);
    char path[] = "/tmp/tinycl-image-parts-XXXXXX", err[IMAGE_ERRLEN] = "";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    /* at an offset in the file, as in a compiled file after its reference table */
    unsigned char pad[40] = {0};
    ck_assert_int_eq(write(fd, pad, sizeof pad), (ssize_t)sizeof pad);
    ck_assert_int_eq(write(fd, img, len), (ssize_t)len);
    size_t head = image_head_bytes(img, len);
    ck_assert_uint_gt(head, 200);
    ck_assert_uint_lt(head, len / 4);
    ck_assert_uint_gt(image_head_bytes(img, 8), 8);     /* too little to say: at least the header */
    ImageRegion ext[1] = {{L, sizeof *L}};
    uintptr_t roots[1] = {0};
    ck_assert_msg(image_read_gc_fd(L, fd, sizeof pad, len, img, head, roots, 1, ext, 1, err), "image_read_gc_fd: %s", err);
    ck_assert(equalp_obj(L, list, OBJ(roots[0])));
    ck_assert(OBJ(roots[0]) != list);
    /* a byte of the pointer-free part changed in the file: the checksum of the pieces says so */
    unsigned char b = 0;
    size_t at = sizeof pad + len - 2000;
    ck_assert_int_eq(pread(fd, &b, 1, (off_t)at), 1);
    b ^= 0x5a;
    ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)at), 1);
    roots[0] = 0;
    ck_assert(!image_read_gc_fd(L, fd, sizeof pad, len, img, head, roots, 1, ext, 1, err));
    ck_assert_msg(strstr(err, "checksum") != NULL, "%s", err);
    ck_assert(roots[0] == 0);
    /* the file cut short after its head was read */
    ck_assert_int_eq(ftruncate(fd, (off_t)(sizeof pad + len / 2)), 0);
    ck_assert(!image_read_gc_fd(L, fd, sizeof pad, len, img, head, roots, 1, ext, 1, err));
    ck_assert_msg(strstr(err, "truncated") != NULL, "%s", err);
    ck_assert(roots[0] == 0);
    close(fd);
    unlink(path);
    free(img);
}
END_TEST

/* An interpreter loaded from an image (its objects outside the collector's heap) is written to an
 * image again, and an interpreter loaded from that one works. Both images are laid out hot first
 * (their other pages compressed): the layout once broke the first one, when a counter of the
 * interpreter structure that looked like a cons was walked as a list (bootlayout.c). */
START_TEST(loaded_interpreter_written_again) {
    Lisp *L = unit_shared_lisp();
    char path[] = "/tmp/tinycl-image-again-XXXXXX", err[IMAGE_ERRLEN] = "";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_msg(bootimage_write(L, path, err) == 0, "bootimage_write: %s", err);
    size_t len1 = 0, len2 = 0;
    unsigned char *img1 = unit_slurp(path, &len1);
    size_t cold_at, cold_bytes, cold_pages;
    ck_assert_msg(image_cold_section(img1, len1, &cold_at, &cold_bytes, &cold_pages) && cold_pages > 0,
                  "the image was not laid out hot first");
    bootimage_use(img1, len1);
    Lisp *L2 = lisp_new(NULL);
    ck_assert_ptr_nonnull(L2);
    gc_current = L2;
    ck_assert_msg(L2->image_heap.scanned != NULL, "the interpreter was not loaded from the image");
    ck_assert_msg(bootimage_write(L2, path, err) == 0, "writing a loaded interpreter: %s", err);
    unsigned char *img2 = unit_slurp(path, &len2);
    unlink(path);
    ck_assert(image_cold_section(img2, len2, &cold_at, &cold_bytes, &cold_pages) && cold_pages > 0);
    bootimage_use(img2, len2);
    Lisp *L3 = lisp_new(NULL);
    ck_assert_ptr_nonnull(L3);
    gc_current = L3;
    ck_assert(L3->image_heap.scanned != NULL);
    ck_assert_str_eq(unit_eval_str(L3, "(progn (defgeneric img-g (x)) (defmethod img-g ((x integer)) (* x 2))"
                                       " (list (img-g 21) (format nil \"~a\" (loop for i below 3 collect i))"
                                       " (gethash :k (let ((h (make-hash-table))) (setf (gethash :k h) 'v) h))))"),
                     "(42 \"(0 1 2)\" V)");
    lisp_free(L3);
    lisp_free(L2);
    bootimage_use(NULL, 0);
    free(img1);
    free(img2);
    gc_current = L;
}
END_TEST

START_TEST(corrupted_image_refused) {
    Lisp *L = unit_shared_lisp();
    size_t len = 0;
    unsigned char *img = unit_write_one(L, unit_eval(L, "(list 1 \"two\" (vector 3))"), &len);
    char err[IMAGE_ERRLEN];
    ImageRegion ext[1] = {{L, sizeof *L}};
    uintptr_t roots[1] = {0xDEAD};
    img[len / 2] ^= 0x40;
    ck_assert(!image_read(L, img, len, roots, 1, ext, 1, NULL, err));
    ck_assert_msg(strstr(err, "checksum") != NULL, "%s", err);
    ck_assert(roots[0] == 0xDEAD);
    img[len / 2] ^= 0x40;
    ck_assert(!image_read(L, img, len - 8, roots, 1, ext, 1, NULL, err));
    ck_assert_msg(strstr(err, "truncated") != NULL, "%s", err);
    ck_assert(!image_read(L, img, 10, roots, 1, ext, 1, NULL, err));
    ck_assert(!image_read(L, (const unsigned char *)"not an image at all, just some text here, long enough for a header ...............", 90,
                          roots, 1, ext, 1, NULL, err));
    ck_assert_msg(strstr(err, "not a tinycl image") != NULL, "%s", err);
    ck_assert(roots[0] == 0xDEAD);
    /* undamaged, it still loads */
    ck_assert(image_read(L, img, len, roots, 1, ext, 1, NULL, err));
    ck_assert_str_eq(prin1_cstr(L, OBJ(roots[0])), "(1 \"two\" #(3))");
    free(img);
}
END_TEST

/* An image of another format version or another build is refused with a message that says so. */
START_TEST(foreign_image_refused) {
    Lisp *L = unit_shared_lisp();
    size_t len = 0;
    unsigned char *img = unit_write_one(L, unit_eval(L, "(list 1 2)"), &len);
    char err[IMAGE_ERRLEN];
    ImageRegion ext[1] = {{L, sizeof *L}};
    uintptr_t roots[1] = {0xDEAD};
    uint32_t version = IMAGE_FORMAT_VERSION + 1;
    memcpy(img + 8, &version, 4);
    ck_assert(!image_read(L, img, len, roots, 1, ext, 1, NULL, err));
    char expected[64];
    snprintf(expected, sizeof expected, "format version %u", IMAGE_FORMAT_VERSION + 1);
    ck_assert_msg(strstr(err, expected) != NULL, "%s", err);
    version = IMAGE_FORMAT_VERSION;
    memcpy(img + 8, &version, 4);
    img[16] ^= 1;     /* the build id */
    ck_assert(!image_read(L, img, len, roots, 1, ext, 1, NULL, err));
    ck_assert_msg(strstr(err, "another build") != NULL, "%s", err);
    img[16] ^= 1;
    /* external regions of another size (another layout of the interpreter structure) */
    ImageRegion other[1] = {{L, sizeof *L + 8}};
    ck_assert(!image_read(L, img, len, roots, 1, other, 1, NULL, err));
    ck_assert(roots[0] == 0xDEAD);
    free(img);
}
END_TEST

/* The writer refuses what it cannot carry: a pointer to memory outside the collector's heap. */
START_TEST(foreign_pointer_not_written) {
    Lisp *L = unit_shared_lisp();
    void *outside = malloc(64);
    char err[IMAGE_ERRLEN] = "";
    uintptr_t roots[1] = {(uintptr_t)outside};
    size_t len;
    ck_assert(image_write(L, roots, 1, NULL, 0, &len, err) == NULL);
    ck_assert_msg(strstr(err, "cannot hold") != NULL, "%s", err);
    free(outside);
}
END_TEST

/* A weak hash table (and so a weak pointer) is written with its entries relocated, not as a block
 * of raw pointers that would mean nothing once read back, and comes back weak. */
START_TEST(weak_table_written) {
    Lisp *L = unit_shared_lisp();
    Obj t = hash_new_weak(L, HT_EQ, 4, HT_WEAK_KEY);
    Obj key = cons(L, FIX(1), NIL);
    hash_put(L, t, key, FIX(2));
    Obj back = round_trip(L, cons(L, t, cons(L, key, NIL)));
    Obj t2 = CAR(back), key2 = CAR(CDR(back));
    ck_assert(t2 != t && key2 != key);
    ck_assert(HT(t2)->h.flags & HT_WEAK_KEY);
    ck_assert(hash_get(L, t2, key2, NIL) == FIX(2));
    ck_assert_int_eq(HT(t2)->count, 1);
    /* its first use made it weak again: entries in a block the collector does not scan */
    size_t esize = 0;
    ck_assert(GC_base(HT(t2)->entries) == HT(t2)->entries);
    ck_assert_int_eq(GC_get_kind_and_size(HT(t2)->entries, &esize), GC_I_PTRFREE);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("image");
    TCase *t = tcase_create("image");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, every_type_round_trips);
    tcase_add_test(t, symbols_packages_random_states);
    tcase_add_test(t, sharing_and_cycles);
    tcase_add_test(t, hash_tables_rehashed);
    tcase_add_test(t, functions_and_instances);
    tcase_add_test(t, conses_in_two_words);
    tcase_add_test(t, cut_graphs_packed);
    tcase_add_test(t, read_from_file_by_parts);
    tcase_add_test(t, loaded_interpreter_written_again);
    tcase_add_test(t, corrupted_image_refused);
    tcase_add_test(t, foreign_image_refused);
    tcase_add_test(t, foreign_pointer_not_written);
    tcase_add_test(t, weak_table_written);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
