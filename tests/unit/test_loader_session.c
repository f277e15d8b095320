/* test_loader_session.c: the system loader seen from sessions (stdlib-lisp/asdf.lisp). Its progress
 * messages (%progress) are made only when the session has a progress handler ((sys:%session-progress
 * nil) says whether it has), and then read as before: the system with its number of files, then each
 * file by its full name. The source registry's kept directory listings are read by a session with
 * file rules less the entries those rules do not let it read (%directory-listing checks each name
 * only when sys:%access-checked-p). Uses the fixture systems of tests/systems/. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "tinycl.h"
#include "session_unit.h"

static char messages[8192];
static void on_progress(void *ctx, const char *message) {
    (void)ctx;
    size_t n = strlen(messages);
    snprintf(messages + n, sizeof messages - n, "%s\n", message);
}

START_TEST(progress_messages_only_for_a_handler) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    ck_value(s, "(progn (asdf:initialize-source-registry '(:source-registry (:tree \"tests/systems/\"))) t)", "T");
    ck_value(s, "(sys::%session-progress nil)", "NIL");
    messages[0] = 0;
    tcl_set_progress_handler(s, on_progress, NULL);
    ck_value(s, "(sys::%session-progress nil)", "T");
    TclReport *r = tcl_load_system(s, "fix-util", false, false, -1);
    ck_assert_int_eq(r->result->status, TCL_OK);
    tcl_report_free(r);
    char cwd[2048], expected[8192];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    snprintf(expected, sizeof expected,
             "Loading system fix-util (2 files)\n"
             "Loading fix-util: %s/tests/systems/fix-util/package.lisp\n"
             "Loading fix-util: %s/tests/systems/fix-util/util.lisp\n", cwd, cwd);
    ck_assert_msg(strstr(messages, expected), "%s", messages);
    /* without a handler nothing is sent (and nothing made) */
    tcl_set_progress_handler(s, NULL, NULL);
    messages[0] = 0;
    ck_value(s, "(sys::%session-progress nil)", "NIL");
    r = tcl_load_system(s, "fix-app", false, false, -1);
    ck_assert_int_eq(r->result->status, TCL_OK);
    tcl_report_free(r);
    ck_assert_str_eq(messages, "");
    tcl_session_free(s);
}
END_TEST

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static TclSession *registry_session(const char *base, const TclAccess *access) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    o.access = access;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    char code[1024];
    snprintf(code, sizeof code,
             "(progn (setf asdf::*system-cache-directory* \"%s/cache/\")"
             " (asdf:initialize-source-registry '(:source-registry (:tree \"%s/tree/\"))) t)", base, base);
    ck_value(s, code, "T");
    return s;
}

START_TEST(kept_listings_read_within_the_file_rules) {
    char base[] = "/tmp/tinycl-loader-session-XXXXXX", path[512];
    ck_assert_ptr_nonnull(mkdtemp(base));
    const char *dirs[] = {"tree", "tree/a", "outside", "cache"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", base, dirs[i]);
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    snprintf(path, sizeof path, "%s/tree/a/ls-inside.asd", base);
    write_file(path, "(defsystem \"ls-inside\")\n");
    snprintf(path, sizeof path, "%s/outside/ls-secret.asd", base);
    write_file(path, "(defsystem \"ls-secret\")\n");
    char target[512];
    snprintf(target, sizeof target, "%s/outside/ls-secret.asd", base);
    snprintf(path, sizeof path, "%s/tree/a/ls-secret.asd", base);     /* a link out of the tree */
    ck_assert_int_eq(symlink(target, path), 0);
    sleep(2);    /* listings are kept only when their directories' times are a second old */
    /* a session without rules finds both, and keeps the listings in the cache directory */
    TclSession *s = registry_session(base, NULL);
    ck_value(s, "(sys::%access-checked-p)", "NIL");
    ck_value(s, "(list (and (asdf:find-system \"ls-inside\" nil) t) (and (asdf:find-system \"ls-secret\" nil) t))", "(T T)");
    tcl_session_free(s);
    snprintf(path, sizeof path, "%s/cache/source-registry.cache", base);
    ck_assert_int_eq(access(path, R_OK), 0);
    /* a session that may read the tree (and its cache) but not what the link points to */
    TclAccess *a = tcl_access_new();
    snprintf(path, sizeof path, "%s/tree", base);
    ck_assert(tcl_allow_read(a, path));
    snprintf(path, sizeof path, "%s/cache", base);
    ck_assert(tcl_allow_write(a, path));
    for (int skip = 0; skip < 2; skip++) {
        /* the tree's directories are not listed again: their kept listings are used */
        TclSession *t = tcl_session_new(&(TclOptions){.capture_output = true, .access = a});
        ck_assert_ptr_nonnull(t);
        ck_value(t, "(progn (defvar cl-user::*listed* nil)"
                    " (tinycl:without-package-locks"
                    "  (let ((old #'directory))"
                    "   (setf (fdefinition 'directory)"
                    "         (lambda (p &rest r) (push (namestring p) cl-user::*listed*) (apply old p r))))) t)", "T");
        /* without the check of each kept name (as if the session had no rules), the link to a
         * file the session may not read would be indexed */
        if (skip) ck_value(t, "(progn (tinycl:without-package-locks (setf (fdefinition 'sys::%access-checked-p) (constantly nil))) t)", "T");
        else ck_value(t, "(sys::%access-checked-p)", "T");
        char code[1024];
        snprintf(code, sizeof code,
                 "(progn (setf asdf::*system-cache-directory* \"%s/cache/\")"
                 " (asdf:initialize-source-registry '(:source-registry (:tree \"%s/tree/\")))"
                 " (list (and (asdf:find-system \"ls-inside\" nil) t)"
                 "       (and (gethash \"ls-secret\" asdf::*source-index*) t)"
                 "       (count-if (lambda (n) (search \"%s/tree\" n)) cl-user::*listed*)))", base, base, base);
        ck_value(t, code, skip ? "(T T 0)" : "(T NIL 0)");
        tcl_session_free(t);
    }
    tcl_access_free(a);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("loader-session");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, progress_messages_only_for_a_handler);
    tcase_add_test(t, kept_listings_read_within_the_file_rules);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
