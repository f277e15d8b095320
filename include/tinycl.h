/* tinycl.h: the embedding API: sessions that evaluate Common Lisp source text and report in C types. */
#ifndef TINYCL_H
#define TINYCL_H

#include <stddef.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TINYCL_VERSION_STRING "0.1.0"

typedef struct TclSession TclSession;

typedef struct TclOptions {
    size_t max_heap;          /* bytes; 0 = default (1 GiB) */
    double timeout;           /* default seconds per evaluation; 0 = none */
    bool capture_output;      /* collect *standard-output* etc. into results instead of writing fd 1/2 */
    size_t output_cap;        /* characters of captured output per call; 0 = default (100000) */
} TclOptions;

typedef enum {
    TCL_OK = 0,               /* every form evaluated */
    TCL_ERROR,                /* an unhandled error ended the call */
    TCL_INCOMPLETE,           /* the source ended inside a form (the REPL reads more) */
    TCL_TIMEOUT,              /* the evaluation ran out of time */
    TCL_INTERRUPTED,          /* tcl_interrupt() or a signal stopped it */
    TCL_EXIT,                 /* (exit) was called; see exit_code */
} TclStatus;

typedef struct TclWarning { char *type; char *message; } TclWarning;

typedef struct TclResult {
    TclStatus status;
    char **values;            /* printed with PRIN1 in the evaluation package, one per value of the last form */
    int nvalues;
    char *out;                /* captured standard output (NULL when not capturing) */
    char *err;                /* captured error and trace output */
    bool out_truncated;
    TclWarning *warnings;
    int nwarnings;
    char *error_type;         /* e.g. "TYPE-ERROR", "QUICKLISP-CLIENT:SYSTEM-NOT-FOUND" */
    char *error_message;      /* the condition's report */
    char **backtrace;         /* frames, innermost first */
    int nbacktrace;
    char **restarts;          /* restarts available when the error was signalled ("ABORT: Return to top level.") */
    int nrestarts;
    char *package;            /* the session's current package after the call */
    double elapsed_ms;
    int exit_code;            /* TCL_EXIT only */
    int forms;                /* forms evaluated */
} TclResult;

/* Create a session (boots a fresh interpreter); NULL on failure. */
TclSession *tcl_session_new(const TclOptions *opt);
void tcl_session_free(TclSession *s);

/* Evaluate the forms of CODE one at a time. PACKAGE (may be NULL) overrides the starting
 * package without changing the session's; TIMEOUT < 0 means the session default. */
TclResult *tcl_eval(TclSession *s, const char *code, const char *package, double timeout);
void tcl_result_free(TclResult *r);

/* Whether CODE holds only complete forms (false: the reader would need more input). */
bool tcl_input_complete(TclSession *s, const char *code);

/* The session's current package name (static storage owned by the session). */
const char *tcl_current_package(TclSession *s);

/* The shortest name of the current package (a nickname such as CL-USER when shorter), for prompts. */
const char *tcl_prompt_package(TclSession *s);

/* Ask the running evaluation to stop. Async-signal-safe; callable from any thread. */
void tcl_interrupt(TclSession *s);

/* Return the session to a fresh state (see DESIGN.md section 7). */
void tcl_reset(TclSession *s, bool drop_systems);

/* What the user has defined (DESIGN.md section 7). TYPE: NULL or "all", "functions", "variables",
 * "macros", "classes", "structures", "generic-functions", "methods", "packages", "systems".
 * PACKAGE (may be NULL): list that package's definitions instead of the user's. */
typedef struct TclDefinition { char *kind, *name, *detail, *package; } TclDefinition;
typedef struct TclDefinitions {
    char *text;               /* the seed's format: [Functions] / - SQUARE (X) ..., or "No user definitions" */
    TclDefinition *items;
    int count;
    char *error_type;         /* set when the request itself was bad (unknown package) */
    char *error_message;
} TclDefinitions;
TclDefinitions *tcl_list_definitions(TclSession *s, const char *type, const char *package);
void tcl_definitions_free(TclDefinitions *d);

/* Load a file as LOAD does; the result is that of evaluating (load "path"). */
TclResult *tcl_load_file(TclSession *s, const char *path);

/* Symbols accessible in the current package starting with PREFIX (for completion);
 * a NULL-terminated malloc'd array of malloc'd strings. */
char **tcl_complete(TclSession *s, const char *prefix, int max);

/* Make unhandled errors interactive: the session's debugger shows the restarts and reads the
 * person's choice with READ_LINE (returns a malloc'd line without newline, or NULL at end of input).
 * Pass NULL to turn it off (errors then end the evaluation, as in scripts and the MCP server). */
void tcl_set_line_reader(TclSession *s, char *(*read_line)(void *ctx, const char *prompt), void *ctx);

/* ---- Systems (DESIGN.md section 7): the ASDF-compatible loader and the session's record of loads ----
 * Each call evaluates in the session like tcl_eval (time limit, output capture, errors). RESULT
 * holds that evaluation: its status, captured output and warnings, and on failure the error
 * (e.g. QUICKLISP-CLIENT:SYSTEM-NOT-FOUND). TEXT is the report for people and models, JSON the
 * same as a JSON object; on failure they say what completed before the error, or are NULL. */
typedef struct TclReport {
    TclResult *result;
    char *text;
    char *json;
} TclReport;

/* Load SYSTEM and its dependencies (QUICKLOAD: as ql:quickload, whose missing systems are
 * QUICKLISP-CLIENT:SYSTEM-NOT-FOUND). FORCE reloads SYSTEM even when it is loaded and unchanged.
 * TIMEOUT < 0 means the session default. */
TclReport *tcl_load_system(TclSession *s, const char *system, bool force, bool quickload, double timeout);
/* Name, version, description, author, license, dependencies, source file, components and status
 * (loaded, loaded before the last reset, or not loaded) of a system that can be found. */
TclReport *tcl_describe_system(TclSession *s, const char *system);
/* The systems that can be found (FILTER: a substring of their names, or NULL), a page of at most
 * LIMIT from OFFSET. */
TclReport *tcl_list_local_systems(TclSession *s, const char *filter, int offset, int limit);
/* The systems loaded in this session since the last reset, in load order. */
TclReport *tcl_list_loaded_systems(TclSession *s);
/* What SYSTEM depends on: directly, or with TRANSITIVE everything it needs. */
TclReport *tcl_system_dependencies(TclSession *s, const char *system, bool transitive);
void tcl_report_free(TclReport *r);

/* Called with a short message as a long operation (a system load) makes progress; NULL: none.
 * The handler runs on the evaluating thread, inside the evaluation. */
void tcl_set_progress_handler(TclSession *s, void (*handler)(void *ctx, const char *message), void *ctx);

/* Called with the session's log messages (the system loader's notes: options it ignores, a system
 * defined in a file of another name, each system loaded); LEVEL is a syslog level name ("debug",
 * "info", "notice", "warning", "error"). NULL: none. The handler runs on the evaluating thread. */
void tcl_set_log_handler(TclSession *s, void (*handler)(void *ctx, const char *level, const char *message), void *ctx);

/* Run FN(ARG) on a thread with a stack big enough for deep recursion; returns its result. */
int tcl_run_with_big_stack(int (*fn)(void *), void *arg);

#ifdef __cplusplus
}
#endif

#endif
