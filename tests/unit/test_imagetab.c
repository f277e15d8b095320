/* test_imagetab.c: C addresses in images named by (table, row, field) of the declared tables
 * (runtime/imagetab.c): relinked by key, checked, and refused when no table holds them. */
#include "unit.h"
#include "image_unit.h"
#include "image.h"
#include "imagetab.h"
#include "bootimage.h"
#include "prim.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>

/* Read IMG back with every C address looked up by its key, as a reader whose executable is not
 * where the writer's was must; false (ERR set) when it is refused. */
static bool read_relinked(Lisp *L, const unsigned char *img, size_t len, Obj *out, char *err) {
    uintptr_t roots[1] = {0};
    ImageRegion ext[1] = {{L, sizeof *L}};
    image_always_relink = true;
    bool ok = image_read(L, img, len, roots, 1, ext, 1, NULL, err);
    image_always_relink = false;
    if (ok) *out = OBJ(roots[0]);
    return ok;
}

/* Every table of the registry: a primitive's three fields and an evaluator resolve to themselves. */
START_TEST(registry_resolves) {
    const ImageLinks *links = imagetab_links();
    ck_assert_uint_gt(links->n, 1000);
    ck_assert_uint_ge(links->ntables, 32);    /* 29 primitive tables and 3 of evaluators */
    char err[200];
    for (size_t i = 0; i < links->n; i++) {
        uintptr_t a = 0;
        ck_assert_msg(imagetab_resolve(links, links->keys[i], &a, err, sizeof err), "%s", err);
        ck_assert(a == links->addrs[i]);
        ck_assert(imagetab_find(links, a) == (long)i);
        if (i) ck_assert(links->addrs[i] > links->addrs[i - 1]);
    }
    static int in_no_table;    /* an address of this program that no declared table holds */
    ck_assert(imagetab_find(links, (uintptr_t)&in_no_table) == -1);
}
END_TEST

/* Primitives (their function, lambda list and documentation), reader macro functions and node
 * evaluators come back through their keys, and work. */
START_TEST(functions_relinked_by_key) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, "(list #'car #'(setf car) (get-macro-character #\\() (get-macro-character #\\')"
                            "      (let ((n 10)) (lambda (x) (if (null x) n (+ n (car x)))))"
                            "      (compile nil '(lambda (l) (loop for x in l when (< x 3) sum (* x x))))"
                            "      (make-hash-table :test 'equal))");
    size_t len = 0;
    unsigned char *img = unit_write_one(L, orig, &len);
    char err[IMAGE_ERRLEN] = "";
    Obj copy = NIL;
    ck_assert_msg(read_relinked(L, img, len, &copy, err), "image_read: %s", err);
    free(img);
    Obj car = CAR(copy);
    ck_assert(car != CAR(orig) && is_type(car, T_PRIMITIVE));
    ck_assert(PRIM(car)->fn == PRIM(CAR(orig))->fn);
    ck_assert_str_eq(PRIM(car)->lambda_list, PRIM(CAR(orig))->lambda_list);
    ck_assert_ptr_eq(PRIM(car)->doc, PRIM(CAR(orig))->doc);
    ck_assert(funcall1(L, car, unit_eval(L, "'(7 8)")) == FIX(7));
    Obj setf_car = CAR(CDR(copy));
    Obj cell = unit_eval(L, "(list 1 2)");
    funcall2(L, setf_car, FIX(5), cell);
    ck_assert(CAR(cell) == FIX(5));
    /* the reader macro of ( and ' read through a stream */
    Obj paren = CAR(CDR(CDR(copy))), quote = CAR(CDR(CDR(CDR(copy))));
    ck_assert(is_function(paren) && is_function(quote));
    Obj in = make_string_input_stream(L, string_from_cstr(L, "a b)"), 0, 4);
    ck_assert_str_eq(prin1_cstr(L, funcall2(L, paren, in, make_char('('))), "(A B)");
    in = make_string_input_stream(L, string_from_cstr(L, "x"), 0, 1);
    ck_assert_str_eq(prin1_cstr(L, funcall2(L, quote, in, make_char('\''))), "'X");
    /* closures: their node trees' evaluators */
    Obj f = CAR(CDR(CDR(CDR(CDR(copy)))));
    ck_assert(funcall1(L, f, NIL) == FIX(10));
    ck_assert(funcall1(L, f, unit_eval(L, "'(5)")) == FIX(15));
    Obj g = CAR(CDR(CDR(CDR(CDR(CDR(copy))))));
    ck_assert(funcall1(L, g, unit_eval(L, "'(1 2 3 4)")) == FIX(5));
}
END_TEST

/* A fixnum or a character whose bits fall in the executable is data, written and read as it is. */
START_TEST(integers_in_the_executable_range) {
    Lisp *L = unit_shared_lisp();
    extern char __executable_start[];
    intptr_t n = (intptr_t)((uintptr_t)(__executable_start + 0x1001) >> 1);
    Obj v = cons(L, FIX(n), cons(L, FIX(n + 7), NIL));
    size_t len = 0;
    unsigned char *img = unit_write_one(L, v, &len);
    char err[IMAGE_ERRLEN] = "";
    Obj copy = NIL;
    ck_assert_msg(read_relinked(L, img, len, &copy, err), "image_read: %s", err);
    free(img);
    ck_assert(CAR(copy) == FIX(n) && CAR(CDR(copy)) == FIX(n + 7));
}
END_TEST

/* aligned: a word of an odd address in the executable cannot be told from a fixnum (the writer
 * takes it for one), and without optimisation a function may start at one */
__attribute__((aligned(16))) static Obj unregistered_fn(Lisp *L, int nargs, Obj *args) {
    (void)L; (void)nargs; (void)args;
    return NIL;
}

/* The writer refuses a C function no declared table holds, naming its address. */
START_TEST(unregistered_function_refused) {
    Lisp *L = unit_shared_lisp();
    Obj fn = make_primitive(L, intern_cstr(L, L->pkg_cl_user, "IMAGETAB-STRAY"), unregistered_fn, 0, 0, 0);
    char err[IMAGE_ERRLEN] = "", addr[40];
    uintptr_t roots[1] = {WORD(cons(L, fn, NIL))};
    ImageRegion ext[1] = {{L, sizeof *L}};
    size_t len = 0;
    ck_assert(image_write(L, roots, 1, ext, 1, &len, err) == NULL);
    ck_assert_msg(strstr(err, "no declared table") != NULL, "%s", err);
    snprintf(addr, sizeof addr, "%#lx", (unsigned long)(uintptr_t)unregistered_fn);
    ck_assert_msg(strstr(err, addr) != NULL, "%s does not name %s", err, addr);
    /* a pointer to a constant of the executable likewise (at an even address: an odd word there
     * cannot be told from a fixnum, and is written as one) */
    static const char stray_text[] __attribute__((aligned(8))) = "a constant in no table";
    Primitive *p = PRIM(unit_eval(L, "#'car"));
    Obj copy = make_primitive(L, p->name, p->fn, 1, 1, 0);
    PRIM(copy)->doc = stray_text;
    roots[0] = WORD(copy);
    ck_assert(image_write(L, roots, 1, ext, 1, &len, err) == NULL);
    ck_assert_msg(strstr(err, "no declared table") != NULL, "%s", err);
}
END_TEST

/* The link of the image's highest C address (its last 16 bytes: address, key). */
static uint64_t *last_link(unsigned char *img, size_t len) { return (uint64_t *)(img + len - 16); }

/* An image naming a row past the end of a table, or a table past the last, is refused with a
 * message that says so, and nothing is built. */
START_TEST(index_beyond_a_table_refused) {
    Lisp *L = unit_shared_lisp();
    size_t len = 0;
    unsigned char *img = unit_write_one(L, unit_eval(L, "(list #'car #'cdr)"), &len);
    char err[IMAGE_ERRLEN] = "";
    Obj copy = FIX(99);
    uint64_t *link = last_link(img, len);
    uintptr_t addr = 0;
    const ImageLinks *links = imagetab_links();
    ck_assert(imagetab_resolve(links, link[1], &addr, err, sizeof err) && addr == link[0]);
    uint64_t key = link[1];
    link[1] = (key & ~(uint64_t)0xFFFFFFFFu) | 0x7FFFFFu;    /* row 8388607 of the same table */
    image_seal(img, len);
    ck_assert(!read_relinked(L, img, len, &copy, err));
    ck_assert_msg(strstr(err, "row 8388607") != NULL && strstr(err, "rows") != NULL, "%s", err);
    ck_assert(copy == FIX(99));
    link[1] = IMAGETAB_KEY(links->ntables + 3, 0, 0);         /* a table that does not exist */
    image_seal(img, len);
    ck_assert(!read_relinked(L, img, len, &copy, err));
    ck_assert_msg(strstr(err, "past the last declared table") != NULL, "%s", err);
    link[1] = (key & ~((uint64_t)0xFF << 32)) | ((uint64_t)9 << 32);   /* field 9 of a row of 3 */
    image_seal(img, len);
    ck_assert(!read_relinked(L, img, len, &copy, err));
    ck_assert_msg(strstr(err, "field 9") != NULL, "%s", err);
    /* a damaged link without a new checksum: the links' own checksum */
    link[1] = key ^ 1;
    ck_assert(!read_relinked(L, img, len, &copy, err));
    ck_assert_msg(strstr(err, "checksum") != NULL, "%s", err);
    link[1] = key;
    image_seal(img, len);
    ck_assert_msg(read_relinked(L, img, len, &copy, err), "%s", err);
    ck_assert(funcall1(L, CAR(copy), unit_eval(L, "'(3)")) == FIX(3));
    free(img);
}
END_TEST

/* An image whose tables were declared otherwise (another set of names) is refused when its C
 * addresses must be looked up. */
START_TEST(other_tables_refused) {
    Lisp *L = unit_shared_lisp();
    size_t len = 0;
    unsigned char *img = unit_write_one(L, unit_eval(L, "(list #'car)"), &len);
    uint64_t h = imagetab_links()->names_hash;
    size_t at = 0;
    for (size_t i = 0; i + 8 <= 256; i += 8)
        if (memcmp(img + i, &h, 8) == 0) at = i;
    ck_assert_uint_gt(at, 0);
    img[at] ^= 1;
    char err[IMAGE_ERRLEN] = "";
    Obj copy = FIX(99);
    ck_assert(!read_relinked(L, img, len, &copy, err));
    ck_assert_msg(strstr(err, "declares otherwise") != NULL, "%s", err);
    ck_assert(copy == FIX(99));
    free(img);
}
END_TEST

/* A whole boot image, every primitive and node evaluator of the stdlib looked up by key, boots an
 * interpreter that works. */
START_TEST(boot_image_relinked) {
    Lisp *L = unit_shared_lisp();
    char path[] = "/tmp/tinycl-imagetab-XXXXXX", err[IMAGE_ERRLEN] = "";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_msg(bootimage_write(L, path, err) == 0, "bootimage_write: %s", err);
    size_t len = 0;
    unsigned char *img = unit_slurp(path, &len);
    unlink(path);
    bootimage_use(img, len);
    image_always_relink = true;
    Lisp *L2 = lisp_new(NULL);
    image_always_relink = false;
    ck_assert_ptr_nonnull(L2);
    gc_current = L2;
    ck_assert_msg(L2->image_heap.scanned != NULL, "the interpreter was not loaded from the image");
    ck_assert_uint_gt(image_last_stats.relocations, 10000);
    ck_assert_str_eq(unit_eval_str(L2, "(progn (defgeneric tab-g (x)) (defmethod tab-g ((x integer)) (* x 2))"
                                       " (list (tab-g 21) (format nil \"~a ~(~a~)\" (loop for i below 3 collect i) 'ok)"
                                       " (with-output-to-string (s) (prin1 (read-from-string \"(a . #(1 2))\") s))"
                                       " (documentation 'car 'function)))"),
                     "(42 \"(0 1 2) ok\" \"(A . #(1 2))\" \"The first element of LIST (NIL for NIL).\")");
    /* a word no table names in a block of the loaded image (not the collector's): refused, with
     * the block's size found from the image's block starts */
    static const char stray[] __attribute__((aligned(8))) = "in no table";
    Primitive *car = PRIM(SYM(intern_cstr(L2, L2->pkg_cl, "CAR"))->function);
    ck_assert(image_heap_contains(&L2->image_heap, car));
    const char *doc = car->doc;
    car->doc = stray;
    ck_assert(bootimage_write(L2, "/tmp/tinycl-imagetab-never-written", err) != 0);
    unlink("/tmp/tinycl-imagetab-never-written");
    ck_assert_msg(strstr(err, "no declared table") != NULL && strstr(err, "block of 0 bytes") == NULL, "%s", err);
    car->doc = doc;
    lisp_free(L2);
    bootimage_use(NULL, 0);
    free(img);
    gc_current = L;
}
END_TEST

static const PrimDef undeclared_prims[] = {
    {"IMAGETAB-UNDECLARED", PK_SYS, unregistered_fn, 0, 0, 0, "()", NULL},
    {0},
};

/* A primitive table that is not in the registry is refused when it is registered, before any
 * image could hold one of its primitives (in a child process: it aborts). */
START_TEST(undeclared_primitive_table_refused) {
    Lisp *L = unit_shared_lisp();
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(2);
        L->boot_phase = 0;    /* checked while booting from the sources */
        prims_register(L, undeclared_prims);
        _exit(0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "status %d", status);
    ck_assert(imagetab_declared(undeclared_prims) == false);
    extern const PrimDef list_prims[];
    ck_assert(imagetab_declared(list_prims));
}
END_TEST

/* Two tables naming the same primitive are refused while booting from the sources: the later row
 * would silently replace the earlier function (here: the list primitives registered again). */
START_TEST(primitive_registered_twice_refused) {
    Lisp *L = unit_shared_lisp();
    extern const PrimDef list_prims[];
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(2);
        L->boot_phase = 0;
        prims_register(L, list_prims);
        _exit(0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "status %d", status);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("imagetab");
    TCase *t = tcase_create("imagetab");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, registry_resolves);
    tcase_add_test(t, functions_relinked_by_key);
    tcase_add_test(t, integers_in_the_executable_range);
    tcase_add_test(t, unregistered_function_refused);
    tcase_add_test(t, index_beyond_a_table_refused);
    tcase_add_test(t, other_tables_refused);
    tcase_add_test(t, boot_image_relinked);
    tcase_add_test(t, undeclared_primitive_table_refused);
    tcase_add_test(t, primitive_registered_twice_refused);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
