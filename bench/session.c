/* session.c: the embedding API's costs: a fresh session (tcl_session_new, one evaluation,
 * tcl_session_free) and tcl_reset after a few definitions, median of N each (bench/startup.sh).
 * Linked with libtinycl.a; `session --write-boot-image FILE` writes the image that
 * tools/attach-image.c then appends to this program, as for build/tinycl. */
#include "tinycl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void eval_ok(TclSession *s, const char *code) {
    TclResult *r = tcl_eval(s, code, NULL, -1);
    if (r->status != TCL_OK) { fprintf(stderr, "session: %s failed\n", code); exit(1); }
    tcl_result_free(r);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write-boot-image") == 0) return tcl_write_boot_image(argv[2]) ? 1 : 0;
    int n = argc > 1 ? atoi(argv[1]) : 30;
    if (n < 1) n = 1;
    double *fresh = calloc((size_t)n, sizeof *fresh), *reset = calloc((size_t)n, sizeof *reset);
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    for (int i = 0; i < n; i++) {
        double t0 = now();
        TclSession *s = tcl_session_new(&o);
        if (!s) { fputs("session: tcl_session_new failed\n", stderr); return 1; }
        eval_ok(s, "(+ 1 2)");
        tcl_session_free(s);
        fresh[i] = now() - t0;
    }
    TclSession *s = tcl_session_new(&o);
    for (int i = 0; i < n; i++) {
        eval_ok(s, "(defun bench-f (x) (* x 2)) (defvar *bench-v* (list 1 2 3)) (defpackage :bench-p (:use :cl))");
        double t0 = now();
        tcl_reset(s, false);
        reset[i] = now() - t0;
    }
    tcl_session_free(s);
    printf("fresh-session-ms %.3f\nreset-ms %.3f\n", median(fresh, n) * 1e3, median(reset, n) * 1e3);
    return 0;
}
