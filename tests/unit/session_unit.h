/* session_unit.h: the main of a Check unit test of the session API (include/tinycl.h only), run on
 * a thread with a big stack as the front ends run sessions; the counterpart of unit.h's UNIT_MAIN. */
#ifndef TINYCL_SESSION_UNIT_H
#define TINYCL_SESSION_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tinycl.h"

/* The time limit, in seconds, of the evaluations below (-1: none); a file may define it first. */
#ifndef UNIT_VALUE_TIMEOUT
#define UNIT_VALUE_TIMEOUT -1
#endif

/* The printed primary value of CODE evaluated in S (malloc'd), or "ERROR: type message". */
static inline char *unit_value(TclSession *s, const char *code) {
    TclResult *r = tcl_eval(s, code, NULL, UNIT_VALUE_TIMEOUT);
    char buf[4096];
    if (r->status == TCL_OK) snprintf(buf, sizeof buf, "%s", r->nvalues ? r->values[0] : "");
    else snprintf(buf, sizeof buf, "ERROR: %s %s", r->error_type ? r->error_type : "?", r->error_message ? r->error_message : "");
    tcl_result_free(r);
    return strdup(buf);
}

/* CODE's printed primary value is EXPECTED. */
#define ck_value(s, code, expected)                                                              \
    do {                                                                                         \
        char *v_ = unit_value((s), (code));                                                      \
        ck_assert_msg(strcmp(v_, (expected)) == 0, "%s => %s, expected %s", (code), v_, (expected)); \
        free(v_);                                                                                \
    } while (0)

/* CODE signals an error of type TYPE (a string literal) that the evaluation reports. */
#define ck_error(s, code, type)                                                                  \
    do {                                                                                         \
        char *v_ = unit_value((s), (code));                                                      \
        ck_assert_msg(strncmp(v_, "ERROR: " type " ", strlen("ERROR: " type " ")) == 0,          \
                      "%s => %s, expected an error %s", (code), v_, (type));                     \
        free(v_);                                                                                \
    } while (0)

/* Each session-API test file ends with SESSION_UNIT_MAIN(suite_function). */
#define SESSION_UNIT_MAIN(suite_fn)                                    \
    static int session_unit_run(void *arg) {                           \
        (void)arg;                                                     \
        SRunner *sr = srunner_create(suite_fn());                      \
        srunner_set_fork_status(sr, CK_NOFORK);                        \
        srunner_run_all(sr, CK_NORMAL);                                \
        int failed = srunner_ntests_failed(sr);                        \
        srunner_free(sr);                                              \
        return failed;                                                 \
    }                                                                  \
    int main(void) { return tcl_run_with_big_stack(session_unit_run, NULL) ? EXIT_FAILURE : EXIT_SUCCESS; }

#endif
