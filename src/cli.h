/* cli.h: the command-line faces: options shared by main, the REPL and the MCP server. */
#ifndef TINYCL_CLI_H
#define TINYCL_CLI_H

#include "tinycl.h"

/* The environment variables Lisp code sees by default in `tinycl mcp` (and with --allow-*). */
#define CLI_DEFAULT_ENV "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "PATH", "PWD", "SHELL", \
    "TERM", "TMPDIR", "TZ", "CL_SOURCE_REGISTRY"
#define CLI_DEFAULT_ENV_TEXT "HOME, USER, LOGNAME, LANG, LC_ALL, LC_CTYPE, PATH, PWD, SHELL, TERM, " \
    "TMPDIR, TZ and CL_SOURCE_REGISTRY"

typedef struct CliOptions {
    TclOptions session;
    const char *script;        /* tinycl FILE.lisp */
    const char **evals;        /* -e FORMS, in order */
    int nevals;
    char **script_args;
    int nscript_args;
    bool mcp;
    const char *tools;         /* mcp --tools GROUP,...: the tool groups offered (NULL: all) */
    size_t max_message;        /* mcp --max-message SIZE: the longest message read, in bytes (0: 64 MiB) */
    /* Streamable HTTP and the session pool (src/mcp/http.c parses these) */
    const char *http;          /* mcp --http [HOST:]PORT (NULL: stdio) */
    const char *token_file;    /* --token-file FILE: the bearer token HTTP requests must carry */
    const char *allow_origin;  /* --allow-origin ORIGIN: a browser origin accepted besides loopback ones */
    int max_sessions;          /* --max-sessions N (0: 16) */
    double idle_timeout;       /* --idle-timeout SECONDS: idle sessions end (0: 1800; <0: never) */
    bool quiet;
    const char *session_file;  /* --session-file FILE: the session is kept there across restarts */
    /* access (docs/security.md): --allow-read/--allow-write DIR, --allow-env NAME (each in the
     * order given), --sandbox, --unrestricted */
    const char **allow_read, **allow_write, **allow_env;
    int nallow_read, nallow_write, nallow_env;
    bool sandbox, unrestricted;
} CliOptions;

/* Print the result of an evaluation as the CLI does: values on stdout, errors on stderr.
 * Returns 0 on success, 1 on an error. */
int cli_print_result(const TclResult *r, bool show_values);
/* The printed values of R, one a line, exactly (NUL characters included). */
void cli_print_values(const TclResult *r);

int repl_run(TclSession *s, bool interactive);
int mcp_run(const CliOptions *opt);
int mcp_http_run(const CliOptions *opt);
/* Parse an option of the HTTP transport or the session pool at ARGV[0] (ARGC left): the number of
 * arguments used, 0 when it is none of them, -1 after printing an error. */
int mcp_http_option(CliOptions *o, int argc, char **argv);

/* session-file.c: --session-file for the REPL and the MCP server on stdio. sfile_open: use PATH
 * (NULL: none) as S's session file, restoring from it when it exists (a refused file is moved aside
 * and WHO says so on stderr). sfile_note: after a call, note whether the session changed.
 * sfile_due_in: seconds until the pending write is due (0: now; -1: none). sfile_flush: write it
 * if a change is pending and due (FORCE: now), on S's thread. */
void sfile_open(TclSession *s, const char *path, const char *who);
void sfile_note(TclSession *s);
double sfile_due_in(void);
void sfile_flush(TclSession *s, bool force);

#endif
