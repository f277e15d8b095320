/* test_iowait.c: blocking I/O never wedges an evaluation (runtime/iowait.c): reading a FIFO
 * without a writer, opening one for output without a reader, writing into a full pipe and sleeping
 * all end at the time limit or on an interrupt, and the session keeps its state. Timing bounds are
 * generous (a limit of 1 s must end within 5 s) so that a loaded 2-core machine passes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <pthread.h>
#include <sys/stat.h>
#include "tinycl.h"
#include "session_unit.h"

static char dir[64], fifo[128];

static void make_fifo(void) {
    snprintf(dir, sizeof dir, "/tmp/tinycl-unit-iowait-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
}

static void remove_fifo(void) {
    unlink(fifo);
    rmdir(dir);
}

static TclSession *new_session(void) {
    TclOptions o;
    memset(&o, 0, sizeof o);
    o.capture_output = true;
    TclSession *s = tcl_session_new(&o);
    ck_assert_ptr_nonnull(s);
    return s;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Evaluate CODE (%s is replaced by the FIFO's name) with TIMEOUT; returns the status and the
 * first value (malloc'd, or NULL) and how long it took. */
static TclStatus eval_fifo(TclSession *s, const char *code, double timeout, char **value, double *seconds) {
    char buf[1024];
    snprintf(buf, sizeof buf, code, fifo);
    double t0 = now_s();
    TclResult *r = tcl_eval(s, buf, NULL, timeout);
    *seconds = now_s() - t0;
    TclStatus st = r->status;
    if (value) *value = r->nvalues ? strdup(r->values[0]) : NULL;
    if (st == TCL_ERROR) fprintf(stderr, "%s: %s %s\n", buf, r->error_type, r->error_message);
    tcl_result_free(r);
    return st;
}

#define ck_fifo_value(s, code, expected)                                                       \
    do {                                                                                  \
        char *v_ = NULL;                                                                  \
        double t_;                                                                        \
        TclStatus st_ = eval_fifo(s, code, 30, &v_, &t_);                                 \
        ck_assert_msg(st_ == TCL_OK && v_ && strcmp(v_, expected) == 0, "%s => %d %s, expected %s", \
                      code, st_, v_ ? v_ : "", expected);                                 \
        free(v_);                                                                         \
    } while (0)

/* Every blocking operation on a FIFO nobody writes to ends at a 1 s limit, and the session goes on. */
START_TEST(reads_without_writer_time_out) {
    make_fifo();
    TclSession *s = new_session();
    ck_fifo_value(s, "(defvar *kept* 42)", "*KEPT*");
    const char *forms[] = {
        "(with-open-file (f \"%s\") (read-line f))",
        "(with-open-file (f \"%s\") (read-char f))",
        "(with-open-file (f \"%s\") (peek-char nil f))",
        "(with-open-file (f \"%s\") (read f))",
        "(with-open-file (f \"%s\") (let ((v (make-string 10))) (read-sequence v f)))",
        "(with-open-file (f \"%s\" :element-type '(unsigned-byte 8)) (read-byte f))",
        "(with-open-file (f \"%s\" :direction :output :if-exists :append) (write-line \"x\" f))",
        "(sleep 1000)",
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        double t;
        TclStatus st = eval_fifo(s, forms[i], 1, NULL, &t);
        ck_assert_msg(st == TCL_TIMEOUT, "%s: status %d, wanted a timeout", forms[i], st);
        ck_assert_msg(t < 5, "%s took %.1f s for a limit of 1 s", forms[i], t);
        ck_fifo_value(s, "*kept*", "42");
    }
    tcl_session_free(s);
    remove_fifo();
}
END_TEST

/* A reader that never reads: writing more than the pipe holds waits, and the limit ends the wait. */
START_TEST(write_into_full_pipe_times_out) {
    make_fifo();
    int reader = open(fifo, O_RDONLY | O_NONBLOCK);
    ck_assert_int_ge(reader, 0);
    TclSession *s = new_session();
    double t;
    TclStatus st = eval_fifo(s, "(with-open-file (f \"%s\" :direction :output :if-exists :append) "
                                "(dotimes (i 1000000) (write-line \"0123456789\" f)))", 1, NULL, &t);
    ck_assert_int_eq(st, TCL_TIMEOUT);
    ck_assert_msg(t < 5, "took %.1f s for a limit of 1 s", t);
    ck_fifo_value(s, "(+ 1 2)", "3");
    close(reader);
    tcl_session_free(s);
    remove_fifo();
}
END_TEST

typedef struct Later { TclSession *s; int fd; const char *text; double delay; } Later;

static void *interrupt_later(void *p) {
    Later *l = (Later *)p;
    struct timespec ts = {0, (long)(l->delay * 1e9)};
    nanosleep(&ts, NULL);
    tcl_interrupt(l->s);
    return NULL;
}

/* tcl_interrupt (Ctrl-C, an MCP cancellation) stops a wait too. */
START_TEST(interrupt_stops_a_wait) {
    make_fifo();
    TclSession *s = new_session();
    const char *forms[] = {"(with-open-file (f \"%s\") (read-line f))", "(sleep 1000)"};
    for (size_t i = 0; i < 2; i++) {
        Later l = {s, -1, NULL, 0.3};
        pthread_t th;
        pthread_create(&th, NULL, interrupt_later, &l);
        double t;
        TclStatus st = eval_fifo(s, forms[i], 3600, NULL, &t);
        pthread_join(th, NULL);
        ck_assert_msg(st == TCL_INTERRUPTED, "%s: status %d", forms[i], st);
        ck_assert_msg(t < 5, "%s: interrupted after %.1f s", forms[i], t);
        ck_fifo_value(s, "(+ 1 2)", "3");
    }
    tcl_session_free(s);
    remove_fifo();
}
END_TEST

static void *write_later(void *p) {
    Later *l = (Later *)p;
    struct timespec ts = {0, (long)(l->delay * 1e9)};
    nanosleep(&ts, NULL);
    int fd = open(fifo, O_WRONLY);
    if (fd >= 0) {
        ssize_t w = write(fd, l->text, strlen(l->text));
        (void)w;
        close(fd);
    }
    return NULL;
}

/* The waits still deliver what arrives; LISTEN and READ-CHAR-NO-HANG never wait. */
START_TEST(fifo_data_arrives) {
    make_fifo();
    TclSession *s = new_session();
    Later l = {s, -1, "hello\nworld\n", 0.3};
    pthread_t th;
    pthread_create(&th, NULL, write_later, &l);
    ck_fifo_value(s, "(with-open-file (f \"%s\") (list (read-line f) (read-line f) (read-line f nil :eof)))",
             "(\"hello\" \"world\" :EOF)");
    pthread_join(th, NULL);
    double t;
    char *v = NULL;
    TclStatus st = eval_fifo(s, "(with-open-file (f \"%s\") (list (listen f) (read-char-no-hang f nil :eof)))", 30, &v, &t);
    ck_assert_int_eq(st, TCL_OK);
    ck_assert_str_eq(v, "(NIL NIL)");
    ck_assert_msg(t < 5, "LISTEN waited %.1f s", t);
    free(v);
    /* at the end of a device's input LISTEN is false and READ-CHAR-NO-HANG sees the end */
    ck_fifo_value(s, "(with-open-file (f \"/dev/null\") (list (listen f) (read-char-no-hang f nil :eof)))", "(NIL :EOF)");
    tcl_session_free(s);
    remove_fifo();
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("iowait");
    TCase *t = tcase_create("blocking");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, reads_without_writer_time_out);
    tcase_add_test(t, write_into_full_pipe_times_out);
    tcase_add_test(t, interrupt_stops_a_wait);
    tcase_add_test(t, fifo_data_arrives);
    suite_add_tcase(s, t);
    return s;
}

SESSION_UNIT_MAIN(suite)
