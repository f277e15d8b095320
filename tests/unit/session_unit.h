/* session_unit.h: the main of a Check unit test of the session API (include/tinycl.h only), run on
 * a thread with a big stack as the front ends run sessions; the counterpart of unit.h's UNIT_MAIN. */
#ifndef TINYCL_SESSION_UNIT_H
#define TINYCL_SESSION_UNIT_H

#include <check.h>
#include <stdlib.h>
#include "tinycl.h"

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
