/* test_directory.c: DIRECTORY's truenames through symbolic links (made here: Lisp runs no programs
 * to make them), as SBCL resolves them; truename_resolve against realpath(3). */
#include "unit.h"
#include "truename.h"
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

static char root[128];

static void put(const char *path) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("x\n", f);
    fclose(f);
}

/* root/real/a.txt, root/b.txt, root/link -> root/real, root/real/to-b.txt -> root/b.txt */
static void make_tree(void) {
    snprintf(root, sizeof root, "/tmp/tinycl-unit-dir-%ld", (long)getpid());
    char p[256], q[256];
    mkdir(root, 0700);
    snprintf(p, sizeof p, "%s/real", root); mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/real/a.txt", root); put(p);
    snprintf(p, sizeof p, "%s/b.txt", root); put(p);
    snprintf(p, sizeof p, "%s/real", root); snprintf(q, sizeof q, "%s/link", root);
    ck_assert_int_eq(symlink(p, q), 0);
    snprintf(p, sizeof p, "%s/b.txt", root); snprintf(q, sizeof q, "%s/real/to-b.txt", root);
    ck_assert_int_eq(symlink(p, q), 0);
}

static void remove_tree(void) {
    const char *parts[] = {"real/to-b.txt", "real/a.txt", "link", "b.txt", "real", NULL};
    char p[256];
    for (int i = 0; parts[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", root, parts[i]);
        remove(p);
    }
    rmdir(root);
}

START_TEST(test_directory_through_links) {
    Lisp *L = unit_lisp();
    make_tree();
    char code[1024];
    /* the entries' names after the root, sorted */
    snprintf(code, sizeof code,
             "(flet ((names (l) (sort (mapcar (lambda (p) (subseq (namestring p) %zu)) l) #'string<)))"
             "  (list (names (directory \"%s/link/*.txt\"))"
             "        (names (directory \"%s/link/*.txt\" :resolve-symlinks nil))"
             "        (names (directory \"%s/link/*/\"))))",
             strlen(root) + 1, root, root, root);
    const char *got = unit_eval_str(L, code);
    remove_tree();
    /* an entry of the linked directory is under its target; an entry that is a link, its target */
    ck_assert_str_eq(got, "((\"b.txt\" \"real/a.txt\") (\"link/a.txt\" \"link/to-b.txt\") NIL)");
}
END_TEST

/* truename_resolve gives what realpath gives: through a linked directory, a link to a file, "..",
 * a relative name; a missing name or a file used as a directory fails with realpath's errno. */
START_TEST(test_truename_as_realpath) {
    make_tree();
    char a[PATH_MAX], b[PATH_MAX], p[512];
    const char *names[] = {"link/a.txt", "real/to-b.txt", "link/../b.txt", "link", "real/", "link/./a.txt", NULL};
    for (int i = 0; names[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", root, names[i]);
        ck_assert_msg(truename_resolve(p, a), "%s", p);
        ck_assert_ptr_nonnull(realpath(p, b));
        ck_assert_str_eq(a, b);
    }
    char cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(root), 0);
    bool rel = truename_resolve("link/a.txt", a);
    ck_assert_ptr_nonnull(realpath("link/a.txt", b));
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert(rel);
    ck_assert_str_eq(a, b);
    snprintf(p, sizeof p, "%s/nowhere", root);
    errno = 0;
    ck_assert(!truename_resolve(p, a));
    ck_assert_int_eq(errno, ENOENT);
    snprintf(p, sizeof p, "%s/b.txt/x", root);
    errno = 0;
    ck_assert(!truename_resolve(p, a));
    ck_assert_int_eq(errno, ENOTDIR);
    remove_tree();
}
END_TEST

static Suite *directory_suite(void) {
    Suite *s = suite_create("directory");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_directory_through_links);
    tcase_add_test(tc, test_truename_as_realpath);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(directory_suite)
