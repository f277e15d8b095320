/* test_access.c: unit tests of the access policy (runtime/access.c): path resolution (symbolic
 * links, .., names that do not exist yet, dangling links, loops), the root checks, the environment
 * allow list, protected open files, and access_check as the file primitives call it. */
#include "unit.h"
#include "access.h"
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

static char dir[64];

/* A fresh directory: DIR/in/file, DIR/out/secret, DIR/in/up -> ../out, DIR/in/dangling ->
 * ../out/new, DIR/in/loop1 <-> DIR/in/loop2, DIR/in/rel -> file. */
static void make_tree(void) {
    snprintf(dir, sizeof dir, "/tmp/tinycl-unit-access-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char p[256], q[256];
    snprintf(p, sizeof p, "%s/in", dir); ck_assert_int_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/out", dir); ck_assert_int_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/in/file", dir); close(open(p, O_CREAT | O_WRONLY, 0600));
    snprintf(p, sizeof p, "%s/out/secret", dir); close(open(p, O_CREAT | O_WRONLY, 0600));
    snprintf(p, sizeof p, "%s/in/up", dir); ck_assert_int_eq(symlink("../out", p), 0);
    snprintf(p, sizeof p, "%s/in/dangling", dir); ck_assert_int_eq(symlink("../out/new", p), 0);
    snprintf(p, sizeof p, "%s/in/loop1", dir); snprintf(q, sizeof q, "%s/in/loop2", dir);
    ck_assert_int_eq(symlink("loop2", p), 0);
    ck_assert_int_eq(symlink("loop1", q), 0);
    snprintf(p, sizeof p, "%s/in/rel", dir); ck_assert_int_eq(symlink("file", p), 0);
}

static void remove_tree(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* access_resolve of DIR/REL, as a string relative to DIR ("=" + rest), or "NULL". */
static const char *resolved(const char *rel) {
    static char out[512];
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    char *r = access_resolve(p);
    if (!r) return "NULL";
    char real[512];
    ck_assert_ptr_nonnull(realpath(dir, real));
    size_t n = strlen(real);
    if (strncmp(r, real, n) == 0) snprintf(out, sizeof out, "=%s", r + n);
    else snprintf(out, sizeof out, "%s", r);
    free(r);
    return out;
}

START_TEST(test_resolve) {
    make_tree();
    ck_assert_str_eq(resolved("in/file"), "=/in/file");
    ck_assert_str_eq(resolved("in/../out/secret"), "=/out/secret");
    ck_assert_str_eq(resolved("in/up/secret"), "=/out/secret");
    ck_assert_str_eq(resolved("in/rel"), "=/in/file");
    ck_assert_str_eq(resolved("in/./file"), "=/in/file");
    ck_assert_str_eq(resolved("in//file"), "=/in/file");
    ck_assert_str_eq(resolved("in/"), "=/in");
    /* names that do not exist yet: through the nearest existing parent */
    ck_assert_str_eq(resolved("in/new"), "=/in/new");
    ck_assert_str_eq(resolved("in/a/b/c"), "=/in/a/b/c");
    ck_assert_str_eq(resolved("in/a/../../out/x"), "=/out/x");
    ck_assert_str_eq(resolved("in/up/new/deeper"), "=/out/new/deeper");
    /* a dangling link is followed to where it would create the file */
    ck_assert_str_eq(resolved("in/dangling"), "=/out/new");
    ck_assert_str_eq(resolved("in/dangling/x"), "=/out/new/x");
    /* a loop of links cannot be resolved */
    ck_assert_str_eq(resolved("in/loop1"), "NULL");
    ck_assert_str_eq(resolved("in/loop1/x"), "NULL");
    /* relative names from the current directory */
    char cwd[512];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    char p[512];
    snprintf(p, sizeof p, "%s/in", dir);
    ck_assert_int_eq(chdir(p), 0);
    char *r = access_resolve("../out/secret");
    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_nonnull(strstr(r, "/out/secret"));
    free(r);
    r = access_resolve("file");
    ck_assert_ptr_nonnull(strstr(r, "/in/file"));
    free(r);
    ck_assert_int_eq(chdir(cwd), 0);
    r = access_resolve("/");
    ck_assert_str_eq(r, "/");
    free(r);
    r = access_resolve("/..");
    ck_assert_str_eq(r, "/");
    free(r);
    remove_tree();
}
END_TEST

START_TEST(test_roots) {
    make_tree();
    Access *a = access_new(true);
    char p[512];
    snprintf(p, sizeof p, "%s/in", dir);
    ck_assert(access_allow_read(a, p));
    snprintf(p, sizeof p, "%s/out/w", dir);
    ck_assert(access_allow_write(a, p));   /* does not exist yet: resolved through its parent */
    char real[512];
    ck_assert_ptr_nonnull(realpath(dir, real));
    char x[600];
    snprintf(x, sizeof x, "%s/in/file", real);
    ck_assert(access_allows(a, x, ACCESS_READ));
    ck_assert(!access_allows(a, x, ACCESS_WRITE));
    snprintf(x, sizeof x, "%s/in", real);
    ck_assert(access_allows(a, x, ACCESS_READ));
    /* a sibling whose name starts with the root's is not under it */
    snprintf(x, sizeof x, "%s/inside", real);
    ck_assert(!access_allows(a, x, ACCESS_READ));
    snprintf(x, sizeof x, "%s/out/secret", real);
    ck_assert(!access_allows(a, x, ACCESS_READ));
    snprintf(x, sizeof x, "%s/out/w/deep/file", real);
    ck_assert(access_allows(a, x, ACCESS_WRITE));
    ck_assert(access_allows(a, x, ACCESS_READ));   /* a writable root is readable */
    ck_assert(!access_allows(a, "/etc/passwd", ACCESS_READ));
    /* an unrestricted policy, or none, allows everything */
    Access *u = access_new(false);
    ck_assert(access_allows(u, "/etc/passwd", ACCESS_WRITE));
    ck_assert(access_allows(NULL, "/etc/passwd", ACCESS_WRITE));
    /* a copy is independent */
    Access *c = access_copy(a);
    access_free(a);
    snprintf(x, sizeof x, "%s/in/file", real);
    ck_assert(c->restricted && access_allows(c, x, ACCESS_READ));
    access_free(c);
    access_free(u);
    remove_tree();
}
END_TEST

START_TEST(test_checks_from_lisp) {
    make_tree();
    Lisp *L = unit_lisp();
    Access *a = access_new(true);
    char p[512], code[1024];
    snprintf(p, sizeof p, "%s/in", dir);
    ck_assert(access_allow_write(a, p));
    access_allow_env(a, "HOME");
    L->access = a;
    snprintf(code, sizeof code, "(with-open-file (s \"%s/in/new\" :direction :output) (write-line \"x\" s))", dir);
    ck_assert_eval(L, code, "\"x\"");
    snprintf(code, sizeof code, "(open \"%s/in/up/secret\")", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    snprintf(code, sizeof code, "(open \"%s/in/dangling\" :direction :output)", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    snprintf(code, sizeof code, "(open \"%s/in/loop1\")", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    snprintf(code, sizeof code, "(probe-file \"%s/out/secret\")", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    snprintf(code, sizeof code, "(access-denied-option (nth-value 1 (ignore-errors (delete-file \"%s/out/secret\"))))", dir);
    char want[600], real[512];
    ck_assert_ptr_nonnull(realpath(dir, real));
    snprintf(want, sizeof want, "\"--allow-write %s/out\"", real);
    ck_assert_eval(L, code, want);
    /* a link in a directory that may not be written, to a file that may: the link itself is
     * what DELETE-FILE would remove */
    snprintf(p, sizeof p, "%s/out/link-in", dir);
    char t[512];
    snprintf(t, sizeof t, "%s/in/new", dir);
    ck_assert_int_eq(symlink(t, p), 0);
    snprintf(code, sizeof code, "(delete-file \"%s/out/link-in\")", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    snprintf(code, sizeof code, "(open \"%s/out/link-in\" :direction :output :if-exists :rename)", dir);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    struct stat st;
    ck_assert_int_eq(lstat(p, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    /* and through a link in a directory that may be written, to a file that may: allowed */
    snprintf(p, sizeof p, "%s/in/link-new", dir);
    ck_assert_int_eq(symlink("new", p), 0);
    snprintf(code, sizeof code, "(delete-file \"%s/in/link-new\")", dir);
    ck_assert_eval(L, code, "T");
    ck_assert_eval(L, "(null (tinycl:posix-getenv \"HOME\"))", "NIL");
    ck_assert_eval(L, "(tinycl:posix-getenv \"PATH\")", "NIL");
    ck_assert(access_env_allowed(L, "HOME"));
    ck_assert(!access_env_allowed(L, "PATH"));
    snprintf(p, sizeof p, "%s/out/secret", dir);
    ck_assert(!access_readable(L, p));
    /* a protected open file: refused by any name, even with an unrestricted policy */
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    a->restricted = false;
    access_protect_fd(a, fds[0]);
    snprintf(code, sizeof code, "(open \"/proc/self/fd/%d\")", fds[0]);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    snprintf(code, sizeof code, "(open \"/dev/fd/%d\" :direction :probe)", fds[0]);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    /* the other end of the pipe is the same pipe (one inode): protected too */
    snprintf(code, sizeof code, "(open \"/proc/self/fd/%d\" :direction :output :if-exists :append)", fds[1]);
    ck_assert_str_eq(unit_eval_error(L, code), "ACCESS-DENIED");
    ck_assert_eval(L, "(not (null (open \"/etc/passwd\" :direction :probe)))", "T");
    close(fds[0]);
    close(fds[1]);
    char *text = access_describe(a);
    ck_assert_ptr_nonnull(strstr(text, "unrestricted"));
    ck_assert_ptr_nonnull(strstr(text, "protocol channel"));
    free(text);
    L->access = NULL;
    access_free(a);
    remove_tree();
}
END_TEST

static Suite *access_suite(void) {
    Suite *s = suite_create("access");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_resolve);
    tcase_add_test(tc, test_roots);
    tcase_add_test(tc, test_checks_from_lisp);
    suite_add_tcase(s, tc);
    return s;
}

UNIT_MAIN(access_suite)
