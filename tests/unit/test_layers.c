/* test_layers.c: the front ends (src/mcp, src/repl, src/main.c) see only the public API: each of
 * their files includes include/tinycl.h, src/cli.h (the options the front ends share), headers of
 * its own directory, and system headers; never the session's or the runtime's private headers. */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the quoted include NAME is allowed in a front-end file of directory DIR ("src" or "src/mcp"). */
static int include_allowed(const char *dir, const char *name) {
    if (strcmp(name, "tinycl.h") == 0) return 1;
    if (strcmp(dir, "src") == 0) return strcmp(name, "cli.h") == 0;
    if (strcmp(name, "../cli.h") == 0) return 1;
    return strchr(name, '/') == NULL && strncmp(name, "..", 2) != 0;   /* a header beside the file */
}

/* The first quoted include of LINE that is not allowed, copied into BAD; 0 when none. */
static int bad_include(const char *dir, const char *line, char *bad, size_t n) {
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '#') return 0;
    p++;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "include", 7) != 0) return 0;
    p += 7;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '"') return 0;                 /* <system.h> */
    const char *end = strchr(p + 1, '"');
    if (!end) return 0;
    size_t len = (size_t)(end - p - 1);
    if (len >= n) len = n - 1;
    memcpy(bad, p + 1, len);
    bad[len] = 0;
    return !include_allowed(dir, bad);
}

/* Failures found in the files matching PATTERN, their directory DIR; the first one in MSG. */
static int scan(const char *pattern, const char *dir, char *msg, size_t n) {
    glob_t g;
    int failures = 0;
    if (glob(pattern, 0, NULL, &g) != 0) return 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *f = fopen(g.gl_pathv[i], "r");
        ck_assert_msg(f != NULL, "cannot read %s", g.gl_pathv[i]);
        char line[1024], bad[256];
        int lineno = 0;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            if (bad_include(dir, line, bad, sizeof bad)) {
                if (!failures) snprintf(msg, n, "%s:%d includes the private header \"%s\"", g.gl_pathv[i], lineno, bad);
                failures++;
            }
        }
        fclose(f);
    }
    globfree(&g);
    return failures;
}

START_TEST(front_ends_include_only_the_public_header) {
    char msg[512] = "";
    int found = 0;
    glob_t g;
    ck_assert_msg(glob("src/mcp/*.c", 0, NULL, &g) == 0 && g.gl_pathc > 5, "run from the repository's root");
    globfree(&g);
    found += scan("src/main.c", "src", msg, sizeof msg);
    if (!found) found += scan("src/mcp/*.[ch]", "src/mcp", msg, sizeof msg);
    if (!found) found += scan("src/repl/*.[ch]", "src/repl", msg, sizeof msg);
    if (!found) found += scan("src/cli.h", "src", msg, sizeof msg);
    ck_assert_msg(found == 0, "%s", msg);
}
END_TEST

START_TEST(the_check_sees_private_headers) {
    char bad[256];
    ck_assert(bad_include("src/mcp", "#include \"../session.h\"\n", bad, sizeof bad));
    ck_assert_str_eq(bad, "../session.h");
    ck_assert(bad_include("src/repl", "  #  include \"../../runtime/state.h\"", bad, sizeof bad));
    ck_assert(bad_include("src", "#include \"session.h\"", bad, sizeof bad));
    ck_assert(bad_include("src", "#include \"../runtime/gc.h\"", bad, sizeof bad));
    ck_assert(!bad_include("src/mcp", "#include \"tinycl.h\"", bad, sizeof bad));
    ck_assert(!bad_include("src/mcp", "#include \"mcp.h\"", bad, sizeof bad));
    ck_assert(!bad_include("src/repl", "#include \"../cli.h\"", bad, sizeof bad));
    ck_assert(!bad_include("src", "#include \"cli.h\"", bad, sizeof bad));
    ck_assert(!bad_include("src/mcp", "#include <cJSON.h>", bad, sizeof bad));
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("layers");
    TCase *t = tcase_create("core");
    tcase_add_test(t, front_ends_include_only_the_public_header);
    tcase_add_test(t, the_check_sees_private_headers);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
