/* main.c: the tinycl command line: REPL, scripts, -e forms, and `tinycl mcp`. */
#include "tinycl.h"
#include "cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

static void usage(FILE *f) {
    fputs("Usage: tinycl [OPTIONS] [FILE.lisp [ARGS...]]\n"
          "       tinycl [OPTIONS] -e FORMS [-e FORMS ...]\n"
          "       tinycl mcp [OPTIONS]\n"
          "\n"
          "With no FILE and no -e, start the interactive REPL.\n"
          "\n"
          "Options:\n"
          "  -e, --eval FORMS     evaluate FORMS; print the values of the last one (repeatable)\n"
          "  --max-heap SIZE      heap limit, e.g. 512M or 2G (default 1G)\n"
          "  --timeout SECONDS    time limit per evaluation (default: none; mcp: 30)\n"
          "  --tools GROUP,...    mcp: offer only these tool groups (default all): eval, systems\n"
          "  -q, --quiet          no banner in the REPL\n"
          "  -h, --help           show this help\n"
          "  -v, --version        show the version\n", f);
}

static bool parse_size(const char *s, size_t *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0) return false;
    double mult = 1;
    switch (*end) {
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 0: break;
    default: return false;
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return false;
    *out = (size_t)(v * mult);
    return *out >= ((size_t)16 << 20);
}

int cli_print_result(const TclResult *r, bool show_values) {
    for (int i = 0; i < r->nwarnings; i++)   /* the session's own notes; Lisp warnings went to stderr already */
        fprintf(stderr, "%s: %s\n", r->warnings[i].type, r->warnings[i].message);
    switch (r->status) {
    case TCL_OK:
        if (show_values)
            for (int i = 0; i < r->nvalues; i++) printf("%s\n", r->values[i]);
        fflush(stdout);
        return 0;
    case TCL_ERROR:
        fprintf(stderr, "[ERROR] %s\n%s\n", r->error_type ? r->error_type : "ERROR",
                r->error_message ? r->error_message : "");
        return 1;
    case TCL_INCOMPLETE:
        fprintf(stderr, "[ERROR] END-OF-FILE\nincomplete input: the forms are not closed\n");
        return 1;
    case TCL_TIMEOUT:
        fprintf(stderr, "[ERROR] TIMEOUT\n%s\n", r->error_message ? r->error_message : "Evaluation timed out.");
        return 1;
    case TCL_INTERRUPTED:
        fprintf(stderr, "[ERROR] INTERRUPTED\nEvaluation interrupted.\n");
        return 1;
    case TCL_EXIT:
        return 0;
    }
    return 1;
}

typedef struct MainCtx { CliOptions opt; int status; } MainCtx;

static int run(void *p) {
    MainCtx *m = (MainCtx *)p;
    CliOptions *o = &m->opt;
    if (o->mcp) return mcp_run(o);
    TclSession *s = tcl_session_new(&o->session);
    if (!s) {
        fputs("tinycl: could not start the interpreter\n", stderr);
        return 70;
    }
    int status = 0;
    if (o->nevals > 0) {
        for (int i = 0; i < o->nevals; i++) {
            TclResult *r = tcl_eval(s, o->evals[i], NULL, -1);
            if (r->status == TCL_EXIT) {
                int code = r->exit_code;
                tcl_result_free(r);
                tcl_session_free(s);
                fflush(stdout);
                return code;
            }
            if (cli_print_result(r, true)) status = 1;
            tcl_result_free(r);
        }
    } else if (o->script) {
        TclResult *r = tcl_load_file(s, o->script);
        if (r->status == TCL_EXIT) status = r->exit_code;
        else if (cli_print_result(r, false)) status = 1;
        tcl_result_free(r);
    } else {
        status = repl_run(s, isatty(0) && !o->quiet ? true : isatty(0));
    }
    tcl_session_free(s);
    fflush(stdout);
    return status;
}

int main(int argc, char **argv) {
    static MainCtx m;
    CliOptions *o = &m.opt;
    o->evals = (const char **)calloc((size_t)argc + 1, sizeof(char *));
    int i = 1;
    if (argc > 1 && strcmp(argv[1], "mcp") == 0) {
        o->mcp = true;
        o->session.timeout = 30;
        i = 2;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { usage(stdout); return 0; }
        if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) { printf("tinycl %s\n", TINYCL_VERSION_STRING); return 0; }
        if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) { o->quiet = true; continue; }
        if (strcmp(a, "-e") == 0 || strcmp(a, "--eval") == 0) {
            if (i + 1 >= argc) { fprintf(stderr, "tinycl: %s needs an argument\n", a); return 2; }
            o->evals[o->nevals++] = argv[++i];
            continue;
        }
        if (strcmp(a, "--max-heap") == 0) {
            if (i + 1 >= argc || !parse_size(argv[i + 1], &o->session.max_heap)) {
                fprintf(stderr, "tinycl: --max-heap needs a size of at least 16M, such as 512M or 2G\n");
                return 2;
            }
            i++;
            continue;
        }
        if (strcmp(a, "--tools") == 0) {
            if (!o->mcp || i + 1 >= argc) { fprintf(stderr, "tinycl: --tools is an option of `tinycl mcp` and needs GROUP,...\n"); return 2; }
            o->tools = argv[++i];
            continue;
        }
        if (strcmp(a, "--timeout") == 0) {
            char *end;
            double t = i + 1 < argc ? strtod(argv[i + 1], &end) : -1;
            if (i + 1 >= argc || *end || t < 0) { fprintf(stderr, "tinycl: --timeout needs a number of seconds\n"); return 2; }
            o->session.timeout = t;
            i++;
            continue;
        }
        if (a[0] == '-' && a[1]) { fprintf(stderr, "tinycl: unknown option %s\n", a); usage(stderr); return 2; }
        if (o->mcp) { fprintf(stderr, "tinycl: mcp takes no file argument\n"); return 2; }
        o->script = a;
        o->script_args = argv + i + 1;
        o->nscript_args = argc - i - 1;
        break;
    }
    return tcl_run_with_big_stack(run, &m);
}
