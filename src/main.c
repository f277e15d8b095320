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
          "  --boot-from-source   boot from the stdlib sources, not the boot image built in\n"
          "  --max-heap SIZE      heap limit, e.g. 512M or 2G (default 1G)\n"
          "  --timeout SECONDS    time limit per evaluation (default: none; mcp: 30)\n"
          "  --tools GROUP,...    mcp: offer only these tool groups: eval, systems, introspection, debug,\n"
          "                       files, tests, session (checkpoints), sessions, or all (default: all\n"
          "                       but sessions on stdio, all over --http)\n"
          "  --max-output-chars N mcp: characters one result may carry: output, values, warnings and\n"
          "                       backtrace together (default 100000; 100 to 10000000)\n"
          "  --max-message SIZE   mcp: the longest message read, e.g. 1M (default 64M); longer ones\n"
          "                       are answered with an error and skipped\n"
          "  --http [HOST:]PORT   mcp: serve Streamable HTTP at /mcp on HOST (default 127.0.0.1)\n"
          "                       instead of stdio; each client session has its own interpreter\n"
          "  --token-file FILE    mcp --http: requests must carry \"Authorization: Bearer TOKEN\"\n"
          "  --allow-origin URL   mcp --http: accept this browser Origin besides loopback ones\n"
          "  --max-sessions N     mcp: sessions held at once (default 16)\n"
          "  --idle-timeout SECS  mcp: a session idle this long ends (default 1800; 0: never)\n"
          "  --session-file FILE  keep the session in FILE: restored from it at start, written back\n"
          "                       after evaluations change it (REPL, scripts, mcp on stdio)\n"
          "  -q, --quiet          no banner in the REPL\n"
          "  -h, --help           show this help\n"
          "  -v, --version        show the version\n"
          "\n"
          "File and environment access (see docs/security.md):\n"
          "  --allow-read DIR     Lisp code may also read under DIR (repeatable)\n"
          "  --allow-write DIR    Lisp code may also read and write under DIR (repeatable)\n"
          "  --allow-env NAME     Lisp code may also read the environment variable NAME (repeatable)\n"
          "  --sandbox            read only the loader's system source directories and the temporary\n"
          "                       directory, write only the temporary directory, no environment\n"
          "  --unrestricted       no restriction (Lisp code has your rights)\n"
          "  `tinycl mcp` is restricted by default: it reads under the current directory, the loader's\n"
          "  system source directories (/usr/share/common-lisp, CL_SOURCE_REGISTRY's, ~/common-lisp,\n"
          "  ~/.local/share/common-lisp/source, ~/quicklisp/local-projects) and the temporary directory\n"
          "  ($TMPDIR or /tmp); it writes under the current directory and the temporary directory; it\n"
          "  sees only the environment variables " CLI_DEFAULT_ENV_TEXT ".\n"
          "  The REPL, scripts and -e are unrestricted unless given one of these options (any\n"
          "  --allow-* alone starts from mcp's defaults). A refused operation signals\n"
          "  TINYCL:ACCESS-DENIED, a FILE-ERROR naming the option that would allow it; a hidden\n"
          "  environment variable reads as unset. In `tinycl mcp` the protocol's stdin and stdout can\n"
          "  never be opened from Lisp, even with --unrestricted.\n", f);
}

/* A size such as 512M, 2G, 64K or 1000 (bytes) of at least MIN bytes. */
static bool parse_size(const char *s, size_t *out, size_t min) {
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
    return *out >= min;
}

void cli_print_values(const TclResult *r) {
    for (int i = 0; i < r->nvalues; i++) {
        fwrite(r->values[i], 1, r->value_lens[i], stdout);   /* a value may hold NUL characters */
        putchar('\n');
    }
}

int cli_print_result(const TclResult *r, bool show_values) {
    for (int i = 0; i < r->nwarnings; i++)   /* the session's own notes; Lisp warnings went to stderr already */
        fprintf(stderr, "%s: %s\n", r->warnings[i].type, r->warnings[i].message);
    switch (r->status) {
    case TCL_OK:
        if (show_values) cli_print_values(r);
        fflush(stdout);
        return 0;
    case TCL_ERROR:
    case TCL_SUSPENDED:   /* the command line never asks for a debug evaluation */
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
    case TCL_OUTPUT_LIMIT:
        fprintf(stderr, "[ERROR] OUTPUT-LIMIT\n%s\n", r->error_message ? r->error_message : "");
        return 1;
    case TCL_EXIT:
        return 0;
    }
    return 1;
}

/* The environment variables `tinycl mcp` shows by default (docs/security.md). */
static const char *const default_env[] = {CLI_DEFAULT_ENV, NULL};

/* The access policy the options ask for, in o->session.access; NULL when unrestricted.
 * Returns false (with a message) when an option cannot be honoured. */
static bool build_access(CliOptions *o) {
    bool any_allow = o->nallow_read || o->nallow_write || o->nallow_env;
    if (o->unrestricted && (o->sandbox || any_allow)) {
        fputs("tinycl: --unrestricted cannot be combined with --sandbox or --allow-*\n", stderr);
        return false;
    }
    if (o->unrestricted || (!o->mcp && !o->sandbox && !any_allow)) return true;
    TclAccess *a = tcl_access_new();
    if (!a) return false;
    const char *tmp = tcl_temp_directory();
    tcl_allow_system_sources(a);
    tcl_allow_write(a, tmp);
    if (!o->sandbox) {
        /* a server started from / (as some clients do) would otherwise let code write anywhere */
        char *cwd = realpath(".", NULL);
        if (!cwd) {
            fputs("tinycl: the current directory cannot be resolved\n", stderr);
            return false;
        }
        if (strcmp(cwd, "/") == 0)
            fputs("tinycl: the current directory is /: it is not made readable or writable (use --allow-read "
                  "or --allow-write DIR)\n", stderr);
        else
            tcl_allow_write(a, cwd);
        free(cwd);
        for (int i = 0; default_env[i]; i++) tcl_allow_env(a, default_env[i]);
    }
    for (int i = 0; i < o->nallow_read; i++)
        if (!tcl_allow_read(a, o->allow_read[i])) {
            fprintf(stderr, "tinycl: --allow-read %s: the directory cannot be resolved\n", o->allow_read[i]);
            return false;
        }
    for (int i = 0; i < o->nallow_write; i++)
        if (!tcl_allow_write(a, o->allow_write[i])) {
            fprintf(stderr, "tinycl: --allow-write %s: the directory cannot be resolved\n", o->allow_write[i]);
            return false;
        }
    for (int i = 0; i < o->nallow_env; i++) tcl_allow_env(a, o->allow_env[i]);
    o->session.access = a;
    return true;
}

typedef struct MainCtx { CliOptions opt; int status; } MainCtx;

static int run(void *p) {
    MainCtx *m = (MainCtx *)p;
    CliOptions *o = &m->opt;
    if (o->mcp) return mcp_run(o);
    if (o->nevals == 0 && !o->script) o->session.call_label = "REPL input";   /* the REPL's word for one input */
    TclSession *s = tcl_session_new(&o->session);
    if (!s) {
        fputs("tinycl: could not start the interpreter\n", stderr);
        return 70;
    }
    sfile_open(s, o->session_file, "tinycl");
    int status = 0;
    if (o->nevals > 0) {
        for (int i = 0; i < o->nevals; i++) {
            TclResult *r = tcl_eval(s, o->evals[i], NULL, -1);
            if (r->status == TCL_EXIT) {
                int code = r->exit_code;
                tcl_result_free(r);
                sfile_flush(s, true);
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
    sfile_flush(s, true);
    tcl_session_free(s);
    fflush(stdout);
    return status;
}

int main(int argc, char **argv) {
    static MainCtx m;
    CliOptions *o = &m.opt;
    o->evals = (const char **)calloc((size_t)argc + 1, sizeof(char *));
    o->allow_read = (const char **)calloc((size_t)argc + 1, sizeof(char *));
    o->allow_write = (const char **)calloc((size_t)argc + 1, sizeof(char *));
    o->allow_env = (const char **)calloc((size_t)argc + 1, sizeof(char *));
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
        if (strcmp(a, "--allow-read") == 0 || strcmp(a, "--allow-write") == 0 || strcmp(a, "--allow-env") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "tinycl: %s needs %s\n", a, a[8] == 'e' ? "a variable name" : "a directory");
                return 2;
            }
            const char *v = argv[++i];
            if (a[8] == 'r') o->allow_read[o->nallow_read++] = v;
            else if (a[8] == 'w') o->allow_write[o->nallow_write++] = v;
            else o->allow_env[o->nallow_env++] = v;
            continue;
        }
        if (strcmp(a, "--sandbox") == 0) { o->sandbox = true; continue; }
        if (strcmp(a, "--boot-from-source") == 0) { tcl_boot_from_source(true); continue; }
        if (strcmp(a, "--write-boot-image") == 0) {
            if (i + 1 >= argc) { fprintf(stderr, "tinycl: --write-boot-image needs a file name\n"); return 2; }
            return tcl_write_boot_image(argv[i + 1]) == 0 ? 0 : 1;
        }
        if (strcmp(a, "--unrestricted") == 0) { o->unrestricted = true; continue; }
        if (strcmp(a, "--max-heap") == 0) {
            if (i + 1 >= argc || !parse_size(argv[i + 1], &o->session.max_heap, (size_t)16 << 20)) {
                fprintf(stderr, "tinycl: --max-heap needs a size of at least 16M, such as 512M or 2G\n");
                return 2;
            }
            i++;
            continue;
        }
        if (o->mcp) {
            int used = mcp_http_option(o, argc - i, argv + i);   /* --http, --max-sessions, ... */
            if (used < 0) return 2;
            if (used > 0) { i += used - 1; continue; }
        }
        if (strcmp(a, "--session-file") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) { fprintf(stderr, "tinycl: --session-file needs FILE\n"); return 2; }
            o->session_file = argv[++i];
            continue;
        }
        if (strcmp(a, "--tools") == 0) {
            if (!o->mcp || i + 1 >= argc) { fprintf(stderr, "tinycl: --tools is an option of `tinycl mcp` and needs GROUP,...\n"); return 2; }
            o->tools = argv[++i];
            continue;
        }
        if (strcmp(a, "--max-output-chars") == 0) {
            char *end = NULL;
            double n = o->mcp && i + 1 < argc ? strtod(argv[i + 1], &end) : -1;
            if (!o->mcp || i + 1 >= argc || *end || !(n >= 100 && n <= 10000000) || n != (double)(long)n) {
                fprintf(stderr, "tinycl: --max-output-chars is an option of `tinycl mcp` and needs a number of characters from 100 to 10000000\n");
                return 2;
            }
            o->session.output_cap = (size_t)n;
            i++;
            continue;
        }
        if (strcmp(a, "--max-message") == 0) {
            if (!o->mcp || i + 1 >= argc || !parse_size(argv[i + 1], &o->max_message, 64)) {
                fprintf(stderr, "tinycl: --max-message is an option of `tinycl mcp` and needs a size of at least 64 bytes, such as 1M\n");
                return 2;
            }
            i++;
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
    if (!build_access(o)) return 2;
    return tcl_run_with_big_stack(run, &m);
}
