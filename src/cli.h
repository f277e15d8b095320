/* cli.h: the command-line faces: options shared by main, the REPL and the MCP server. */
#ifndef TINYCL_CLI_H
#define TINYCL_CLI_H

#include "tinycl.h"

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
    bool quiet;
} CliOptions;

/* Print the result of an evaluation as the CLI does: values on stdout, errors on stderr.
 * Returns 0 on success, 1 on an error. */
int cli_print_result(const TclResult *r, bool show_values);

int repl_run(TclSession *s, bool interactive);
int mcp_run(const CliOptions *opt);

#endif
