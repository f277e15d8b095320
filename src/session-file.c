/* session-file.c: `--session-file FILE` for the front ends (the MCP server on stdio, the REPL): the
 * session is read from FILE at start and written back, debounced, after evaluations changed it. */
#include "cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* A burst of calls costs one write: the write waits this long after the first unsaved change,
 * which keeps it under the promised second after any call. */
#define SFILE_DELAY 0.3

static const char *sfile_path;
static long sfile_saved_generation;
static double sfile_dirty_since;     /* 0: nothing unsaved */

static double sfile_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sfile_open(TclSession *s, const char *path, const char *who) {
    sfile_path = path;
    if (!path) return;
    tcl_protect_path(s, path);
    char *msg = NULL;
    int r = tcl_session_file_load(s, path, &msg);
    if (r < 0) fprintf(stderr, "%s: %s\n", who, msg ? msg : "the session file was refused");
    free(msg);
    sfile_saved_generation = tcl_session_generation(s);
    sfile_dirty_since = 0;
}

void sfile_note(TclSession *s) {
    if (!sfile_path) return;
    if (tcl_session_generation(s) != sfile_saved_generation && !sfile_dirty_since) sfile_dirty_since = sfile_now();
}

double sfile_due_in(void) {
    if (!sfile_path || !sfile_dirty_since) return -1;
    double left = sfile_dirty_since + SFILE_DELAY - sfile_now();
    return left > 0 ? left : 0;
}

void sfile_flush(TclSession *s, bool force) {
    if (!sfile_path) return;
    sfile_note(s);
    if (!sfile_dirty_since || (!force && sfile_due_in() > 0)) return;
    long gen = tcl_session_generation(s);
    char *err = NULL;
    if (tcl_session_file_save(s, sfile_path, &err) != 0) fprintf(stderr, "tinycl: %s\n", err ? err : "cannot save the session");
    free(err);
    sfile_saved_generation = gen;
    sfile_dirty_since = 0;
}
