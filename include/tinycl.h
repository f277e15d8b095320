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

/* An access policy: the directories Lisp code may read and write and the environment variables it
 * may see (docs/security.md). Every file operation of the runtime (OPEN, PROBE-FILE, DIRECTORY,
 * DELETE-FILE, RENAME-FILE, LOAD, the system loader, ...) resolves its path (symbolic links, ..)
 * and signals TINYCL:ACCESS-DENIED, a FILE-ERROR, outside these directories; a hidden environment
 * variable reads as unset. */
typedef struct TclAccess TclAccess;

/* A restricted policy that allows nothing yet; NULL when out of memory. */
TclAccess *tcl_access_new(void);
void tcl_access_free(TclAccess *a);
/* Allow reading (or reading and writing) everything under DIR, resolved now (a relative DIR is
 * taken from the current directory). False when DIR cannot be resolved. */
bool tcl_allow_read(TclAccess *a, const char *dir);
bool tcl_allow_write(TclAccess *a, const char *dir);
/* Let Lisp code read the environment variable NAME. */
void tcl_allow_env(TclAccess *a, const char *name);
/* Allow reading the directories the system loader searches: /usr/share/common-lisp, those named by
 * CL_SOURCE_REGISTRY, ~/common-lisp, ~/.local/share/common-lisp/source, ~/quicklisp/local-projects. */
void tcl_allow_system_sources(TclAccess *a);
/* The temporary directory ($TMPDIR when absolute, else /tmp). */
const char *tcl_temp_directory(void);
/* The rules of A (NULL: unrestricted) as a paragraph for people and models; malloc'd. */
char *tcl_access_describe(const TclAccess *a);

typedef struct TclOptions {
    size_t max_heap;          /* bytes; 0 = default (1 GiB) */
    double timeout;           /* default seconds per evaluation; 0 = none */
    bool capture_output;      /* collect *standard-output* etc. into results instead of writing fd 1/2 */
    size_t output_cap;        /* characters of captured output per call; 0 = default (100000) */
    const TclAccess *access;  /* NULL: unrestricted (the default); else the session keeps a copy */
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

/* Files that are the same open file as FD (same device and inode) can never be opened by Lisp code
 * in this session, whatever the access policy and whatever the name used (/dev/stdin, /dev/fd/N,
 * /proc/self/fd/N, a symbolic link): OPEN signals TINYCL:ACCESS-DENIED. For a server's protocol
 * channel. */
void tcl_protect_descriptor(TclSession *s, int fd);

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

/* ---- Lisp source files: the `files` and `tests` tool groups. Every path is read and written
 * through the session (its file access rules apply); nothing here evaluates a file except
 * tcl_load_source_file and tcl_run_tests. Reports carry ERROR_TYPE/ERROR_MESSAGE when the
 * request failed as a whole (unreadable file, bad argument, refused edit). ---- */

/* Where text stops reading as Lisp, as the reader delimits it (strings, |symbols|, #\( characters,
 * ; and nested #| |# comments, #+/#- and the other # syntax), with a likely fix. */
typedef struct TclParenReport {
    bool ok;                  /* balanced: every form ends */
    int forms;                /* top-level forms (before the problem when not ok) */
    char *problem;            /* NULL when ok; "unclosed", "unmatched-closer", "unterminated-string",
                               * "unterminated-comment", "unterminated-symbol", "incomplete-form" */
    int line, column;         /* 1-based position of the problem (the opener of an unclosed form) */
    char *form;               /* first line of the unclosed form, or NULL */
    int fix_line;             /* a closer is probably missing at the end of this line (0: no guess) */
    int fix_count;            /* how many closers */
    char *message;            /* the problem and the likely fix, in words */
    char *error_type, *error_message;   /* the file could not be read */
} TclParenReport;
TclParenReport *tcl_check_parens(const char *code, size_t len);
/* The same for a file; also records what was read (for tcl_edit_lisp_form's staleness check). */
TclParenReport *tcl_check_parens_file(TclSession *s, const char *path);
void tcl_paren_report_free(TclParenReport *r);

/* The top-level forms of a file. */
typedef struct TclLispForm {
    int index;                /* 0-based among the file's forms */
    char *kind;               /* "defun", "defmethod", "in-package", ... (operator, lower case), "atom" */
    char *name;               /* as written, or NULL */
    char *qualifiers;         /* defmethod qualifiers or NULL */
    char *specializers;       /* defmethod: "(CIRCLE T)", or NULL */
    char *condition;          /* "#+sbcl" when read conditionally, or NULL */
    char *package;            /* the in-package in force */
    int start_line, start_column, end_line, end_column;   /* 1-based, inclusive */
    bool expanded;            /* TEXT is the whole form (else its first line) */
    char *text;
} TclLispForm;
typedef struct TclLispFile {
    char *path;
    char *text;               /* the report for people and models */
    int lines;
    char *line_ending;        /* "LF", "CRLF", "CR" or "mixed" */
    int total_forms, offset, next_offset;   /* next_offset -1: no more */
    TclLispForm *forms;
    int count;
    TclParenReport *problem;  /* NULL when the whole file reads; else where it stops */
    char *error_type, *error_message;
} TclLispFile;
/* COLLAPSED shows each form's first line, except forms whose name matches NAME_PATTERN or whose
 * text matches CONTENT_PATTERN (extended regular expressions, case-insensitive; may be NULL).
 * A page of LIMIT forms (<= 0: all) from OFFSET. */
TclLispFile *tcl_read_lisp_file(TclSession *s, const char *path, bool collapsed, const char *name_pattern,
                                const char *content_pattern, int offset, int limit);
void tcl_lisp_file_free(TclLispFile *f);

/* Replace, insert before or after, or delete one top-level form found by type and name (methods:
 * "name (specializer ...)", qualifiers allowed: "name :around (circle)"; "pkg::name" matches in that
 * in-package context). The rest of the file stays byte for byte; the write is atomic. */
typedef struct TclEditResult {
    bool written;
    bool dry_run;
    char *operation;
    char *diff;               /* unified diff of the change */
    char *text;               /* the report */
    int start_line, end_line; /* the form found (before the edit) */
    char **candidates;        /* when the name is missing or ambiguous: "defmethod area (circle) [line 12]" */
    int ncandidates;
    char *error_type, *error_message;
} TclEditResult;
TclEditResult *tcl_edit_lisp_form(TclSession *s, const char *path, const char *form_type, const char *form_name,
                                  const char *operation, const char *content, bool dry_run);
void tcl_edit_result_free(TclEditResult *e);

/* Load a source file form by form into the session (PACKAGE: the *package* to start in; the
 * session's package is left as it was). Errors do not stop the load: each is reported with its line. */
typedef struct TclFileNote { int line; char *severity; char *type; char *message; char *form; } TclFileNote;
typedef struct TclFileDefinition { char *kind, *name, *package; int line, column; } TclFileDefinition;
typedef struct TclFileLoad {
    TclResult *result;        /* the evaluation as a whole (output, a time-out, a file that does not read) */
    char *path;
    char *text;
    int forms, errors, warnings;
    TclFileNote *notes;       /* errors and warnings, in file order */
    int nnotes;
    TclFileDefinition *definitions;   /* what the file defined, with where */
    int ndefinitions;
} TclFileLoad;
TclFileLoad *tcl_load_source_file(TclSession *s, const char *path, const char *package, double timeout);
void tcl_file_load_free(TclFileLoad *l);

/* Run a system's test suite (asdf:test-system), or one TEST of it; FRAMEWORK (NULL: detected) is
 * "fiveam", "rt", "lisp-unit", "parachute" or "prove". Counts are -1 when the framework's results
 * could not be collected. */
typedef struct TclTestFailure {
    char *test, *kind;        /* kind: "failed" or "errored" */
    char *form, *expected, *actual, *reason;   /* NULL when unknown */
    bool expected_failure;    /* the suite lists it as expected to fail */
} TclTestFailure;
typedef struct TclTestRun {
    TclResult *result;        /* output, warnings; an error the suite signalled at the end */
    char *system, *test_system, *framework, *test;
    char *text;
    int passed, failed, errored, skipped, total;
    TclTestFailure *failures;
    int nfailures;
    bool reloaded;            /* the test system was (re)loaded first */
    char *error_type, *error_message;   /* bad request (unknown system, test or framework) */
} TclTestRun;
TclTestRun *tcl_run_tests(TclSession *s, const char *system, const char *test, const char *framework, double timeout);
void tcl_test_run_free(TclTestRun *t);

/* Run FN(ARG) on a thread with a stack big enough for deep recursion; returns its result. */
int tcl_run_with_big_stack(int (*fn)(void *), void *arg);

#ifdef __cplusplus
}
#endif

#endif
