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
    size_t output_cap;        /* characters one result may carry (output, values, warnings, error and
                               * backtrace together); 0 = default (100000). With capture_output, an
                               * evaluation whose output reaches it is stopped (TCL_OUTPUT_LIMIT). */
    bool exit_unavailable;    /* (exit) signals TINYCL:EXIT-NOT-AVAILABLE instead of ending the evaluation */
    const TclAccess *access;  /* NULL: unrestricted (the default); else the session keeps a copy */
    /* The front end's words for what the session shows; each NULL gives a neutral default. The
     * strings must live as long as the session (string literals, typically). */
    const char *call_label;   /* names the call a definition was typed in: "<label> N" (N counts the
                               * calls of tcl_eval); NULL: "evaluation" */
    const char *exit_unavailable_report; /* with exit_unavailable, the report of EXIT-NOT-AVAILABLE;
                                          * NULL: "exit is not available in this session" */
} TclOptions;

typedef enum {
    TCL_OK = 0,               /* every form evaluated */
    TCL_ERROR,                /* an unhandled error ended the call */
    TCL_INCOMPLETE,           /* the source ended inside a form (the REPL reads more) */
    TCL_TIMEOUT,              /* the evaluation ran out of time */
    TCL_INTERRUPTED,          /* tcl_interrupt() or a signal stopped it */
    TCL_EXIT,                 /* (exit) was called; see exit_code */
    TCL_OUTPUT_LIMIT,         /* the captured output reached the call's limit and the evaluation was stopped */
    TCL_SUSPENDED,            /* tcl_eval_debug: an unhandled error suspended the evaluation */
} TclStatus;

/* Where a call stopped early: reading a form, evaluating it, or printing the values. */
typedef enum { TCL_STAGE_NONE = 0, TCL_STAGE_READ, TCL_STAGE_EVAL, TCL_STAGE_PRINT } TclStage;

/* Text in results is UTF-8 with a length: it may hold NUL characters, and a lone surrogate
 * character (U+D800..U+DFFF, which Lisp strings may hold) is encoded in three bytes as other
 * characters of the BMP are (generalized UTF-8, "WTF-8"). Every string is also NUL-terminated. */
typedef struct TclWarning {
    char *type;               /* WARNING, STYLE-WARNING, ... */
    char *message;
    size_t message_len;
    int line, column;         /* where the top-level form that gave it begins in the code (1-based); 0: unknown */
    char *file;               /* NULL, or the file LOAD read that form from: LINE and COLUMN are in it */
} TclWarning;

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
    /* lengths in bytes of the texts above (they may hold NUL characters) */
    size_t *value_lens;       /* one per value */
    size_t out_len, err_len, error_message_len;
    size_t *backtrace_lens;   /* one per frame */
    /* where the call stopped, when it stopped early (not TCL_OK): lines and columns count from 1,
     * columns in characters */
    TclStage stage;           /* reading, evaluating or printing; TCL_STAGE_NONE when not known */
    int form_index;           /* the form being read or evaluated (1 = the first of CODE); 0 when none */
    int form_line, form_column;   /* where that form starts */
    char *form_text;          /* its first line (at most about 100 characters), or NULL */
    size_t form_text_len;
    int stop_line, stop_column;   /* TCL_STAGE_READ: where the reader stopped */
    bool more_forms;          /* text follows the form that failed: those forms were not evaluated */
    /* the output limit: what did not fit into output_cap characters (NULL when nothing was cut) */
    char *limit_note;
    size_t output_limit;      /* the limit that applied to this call */
    char *note;               /* TCL_SUSPENDED: why the last debugger command was not carried out, or NULL */
    int debug_level;          /* TCL_SUSPENDED: 1, or more when a restart's own error suspended it again */
} TclResult;

/* Create a session (boots a fresh interpreter); NULL on failure. */
TclSession *tcl_session_new(const TclOptions *opt);
/* Sessions made after this call boot from the stdlib sources instead of the boot image the tinycl
 * executable carries (without an image, as in a program linking libtinycl.a, they always do). */
void tcl_boot_from_source(bool on);
/* Boot from the sources and write that state as a boot image to PATH (the build does this once;
 * tools/attach-image.c appends it to the executable). 0, or -1 after a message on stderr. */
int tcl_write_boot_image(const char *path);
void tcl_session_free(TclSession *s);

/* Evaluate the forms of CODE one at a time. PACKAGE (may be NULL) overrides the starting
 * package without changing the session's; TIMEOUT < 0 means the session default. */
TclResult *tcl_eval(TclSession *s, const char *code, const char *package, double timeout);
/* The same for the LEN bytes of CODE (which may hold NUL characters); OUTPUT_LIMIT: characters the
 * result may carry (see TclOptions.output_cap), 0 = the session's. */
TclResult *tcl_eval_n(TclSession *s, const char *code, size_t len, const char *package, double timeout,
                      size_t output_limit);
void tcl_result_free(TclResult *r);

/* Whether CODE holds only complete forms (false: the reader would need more input). */
bool tcl_input_complete(TclSession *s, const char *code);

/* The session's current package name (static storage owned by the session). */
const char *tcl_current_package(TclSession *s);

/* Make the package NAME names the session's current package, as (in-package #:NAME) does: NAME
 * is a package name or nickname, found as written or else in upper case (as the reader reads it).
 * The result is that evaluation's (TCL_ERROR with a PACKAGE-ERROR when there is no such package);
 * the REPL history variables (*, /, +, -) keep their values. */
TclResult *tcl_set_package(TclSession *s, const char *name);

/* The shortest name of the current package (a nickname such as CL-USER when shorter), for prompts. */
const char *tcl_prompt_package(TclSession *s);

/* Files that are the same open file as FD (same device and inode) can never be opened by Lisp code
 * in this session, whatever the access policy and whatever the name used (/dev/stdin, /dev/fd/N,
 * /proc/self/fd/N, a symbolic link): OPEN signals TINYCL:ACCESS-DENIED. For a server's protocol
 * channel. */
void tcl_protect_descriptor(TclSession *s, int fd);

/* The file PATH, and the names beside it that start with PATH and a dot, can never be used by Lisp
 * code in this session (OPEN, PROBE-FILE, DELETE-FILE, DIRECTORY... signal TINYCL:ACCESS-DENIED or
 * leave it out), whatever the policy: a front end's session file. */
void tcl_protect_path(TclSession *s, const char *path);

/* Ask the running evaluation to stop. Async-signal-safe; callable from any thread. */
void tcl_interrupt(TclSession *s);
/* Ask the running evaluation to stop because the request that started it was cancelled (the MCP
 * server's notifications/cancelled); it ends as TCL_INTERRUPTED, as with tcl_interrupt.
 * Async-signal-safe; callable from any thread. */
void tcl_cancel(TclSession *s);
/* Drop an interrupt (or cancellation) asked for but not yet acted upon. An interrupt asked for
 * between calls applies to the next evaluation; a front end that asks only for a request that is
 * running calls this when the request ends (the MCP server does, under the lock it asks under). */
void tcl_interrupt_clear(TclSession *s);

/* Return the session to a fresh state (see DESIGN.md section 7). */
void tcl_reset(TclSession *s, bool drop_systems);

/* ---- Checkpoints: the whole session state kept in memory under a name, and put back exactly ----
 * A restore returns every definition, method, class, package, variable, the current package and
 * the loaded systems to what they were at the checkpoint; what was made since is gone. The
 * session's own streams stay the live ones. A session keeps at most `max` (16) checkpoints; a
 * checkpoint under a name already taken replaces it. Each returns 0, or -1 with *ERROR (when
 * ERROR is not NULL) a malloc'd message. Refused while an evaluation is suspended in the debugger. */
int tcl_checkpoint(TclSession *s, const char *name, char **error);
int tcl_restore(TclSession *s, const char *name, char **error);
int tcl_delete_checkpoint(TclSession *s, const char *name, char **error);
typedef struct TclCheckpointInfo {
    char *name;
    size_t bytes;            /* the memory it holds */
    double created;          /* seconds since the epoch */
    double seconds;          /* how long taking it took */
} TclCheckpointInfo;
typedef struct TclCheckpoints { TclCheckpointInfo *items; int count, max; } TclCheckpoints;
TclCheckpoints *tcl_list_checkpoints(TclSession *s);   /* oldest first */
void tcl_checkpoints_free(TclCheckpoints *l);

/* ---- The session file: the same state on disk, across processes of the same tinycl build ----
 * Save writes beside PATH and renames (atomic): 0, or -1 with *ERROR. Load: 1 when the session
 * now is the file's state, 0 when PATH does not exist, -1 when it was refused (another build,
 * damaged, unreadable): nothing was loaded, the file was moved aside to PATH.bad-<time> and
 * *MESSAGE says so. */
int tcl_session_file_save(TclSession *s, const char *path, char **error);
int tcl_session_file_load(TclSession *s, const char *path, char **message);
/* A number that changes whenever the session may have changed (evaluations, resets, restores):
 * a front end saves its session file when it moved. */
long tcl_session_generation(TclSession *s);
/* The size of the last state taken or read, and how long the last write and read took. */
void tcl_state_timings(TclSession *s, size_t *bytes, double *write_seconds, double *read_seconds);

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
 * (e.g. QUICKLISP-CLIENT:SYSTEM-NOT-FOUND). TEXT is the report for people and models; the other
 * fields hold the same facts, each filled by the calls its comment names. On failure TEXT says
 * what completed before the error (or is NULL) and HAS_DETAILS is false. Strings are NULL when
 * unknown or absent (a system without a version). */

/* The session's record of one load of a system. */
typedef struct TclSystemRecord {
    char *name, *version;
    char *load_time;          /* when it was loaded, ISO 8601 in UTC: "2026-01-26T10:30:00Z" */
    long long load_time_universal;   /* the same as a Common Lisp universal time */
    long elapsed_ms;          /* how long the load took */
    char *source_file;        /* the system definition (.asd) it was loaded from */
    char **dependencies;      /* the systems it depends on directly ... */
    int ndependencies;
    char **transitive_dependencies;   /* ... and all it needs */
    int ntransitive_dependencies;
    char **packages;          /* the packages the load made */
    int npackages;
    int definitions;          /* the definitions the load made */
} TclSystemRecord;

/* One system in a list. */
typedef struct TclSystemEntry {
    char *name, *version;
    char *status;             /* "loaded", "loaded-before-reset" or "not-loaded"; in a load's plan what
                               * the load did with it: "loaded", "reloaded", "recorded" (in the image
                               * before the last reset: recorded again) or "present" (already loaded) */
    char *source_file;        /* tcl_list_local_systems: its system definition (.asd) */
    long elapsed_ms;          /* a load's plan: how long its load took; -1 when it was not loaded now */
} TclSystemEntry;

typedef struct TclReport {
    TclResult *result;
    char *text;
    bool has_details;         /* the fields below hold the report (else the call failed before it) */
    char *system, *version;   /* load, describe, dependencies: the system asked about */
    char *status;             /* load: what the load did with it (as TclSystemEntry.status);
                               * describe: "loaded", "loaded-before-reset" or "not-loaded" */
    char *description, *author, *license, *source_file;   /* describe */
    char **dependencies;      /* describe: what it depends on, as written ("alexandria (>= 1.0)") */
    int ndependencies;
    char **components;        /* describe: its components, one line each */
    int ncomponents;
    TclSystemRecord *record;  /* load, describe: the session's record of its load, or NULL */
    TclSystemEntry *systems;  /* load: each system of the plan; list_local: the page;
                               * dependencies: the systems it depends on */
    int nsystems;
    TclSystemRecord *records; /* list_loaded: the loads in order; a failed load: the systems it loaded
                               * completely before the error (they are recorded) */
    int nrecords;
    int total, offset, next_offset;   /* list_local: systems matching, this page's start, the next
                                       * page's (-1: none) */
    bool truncated_scan;      /* list_local: the directory scan stopped at its bounds */
    bool transitive;          /* dependencies: everything it needs, not only its direct dependencies */
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

/* ---- Introspection: what a symbol names, where it was defined, who uses it, what a macro form
 * expands to, what a value holds. Each call evaluates in the session like tcl_eval (time limit,
 * errors); RESULT holds that evaluation, whose error (an unknown package or symbol, a bad path)
 * says what was wrong. TEXT is the answer for people and models; ITEMS the same as entries. ---- */
typedef struct TclItem {
    char *kind;               /* "function", "macro", "variable", "method", "calls", "0" (a part number), ... */
    char *name;               /* the symbol, the caller, or the part's label, printed */
    char *detail;             /* lambda list and documentation, value, printed part, ... ("" when none) */
    char *file;               /* source file of the definition, or NULL */
    long line, column;        /* 1-based, in FILE (or, for a cross-reference site, in the SOURCE call's code); 0 when unknown */
    long call;                /* the evaluation (tcl_eval call number) that made it; 0 when not typed in */
    char *source;             /* the text of the form that call evaluated, or NULL */
} TclItem;

typedef struct TclInfo {
    TclResult *result;
    char *text;               /* NULL when the request failed (see result) */
    char *subject;            /* what the answer is about: the symbol printed, the object's type, ... */
    TclItem *items;
    int count;
    int total;                /* items there were before the cap: count < total means more */
} TclInfo;

/* Everything SYMBOL (as typed: "foo", "pkg:foo", ":key") names, read in PACKAGE (NULL: current). */
TclInfo *tcl_describe_symbol(TclSession *s, const char *symbol, const char *package);
/* Symbols whose names contain QUERY, exact and prefix matches first; PACKAGE (NULL: all) only
 * that package's own symbols; EXTERNAL_ONLY: only external ones; KINDS (NULL-terminated, or
 * NULL: any) only symbols naming one of these: function, generic-function, macro,
 * special-operator, variable, constant, class, package. */
TclInfo *tcl_apropos(TclSession *s, const char *query, const char *package, bool external_only, const char *const *kinds);
/* The one form of CODE expanded once (MACROEXPAND-1) or with FULL every macro in it, as a code
 * walker would; TEXT is the expansion pretty-printed, SUBJECT "expanded" or "not a macro form". */
TclInfo *tcl_macroexpand(TclSession *s, const char *code, const char *package, bool full);
/* Every definition of SYMBOL with its source location. */
TclInfo *tcl_find_definitions(TclSession *s, const char *symbol, const char *package);
/* The cross-reference. RELATION: "calls" (who calls SYMBOL), "references", "sets", "binds",
 * "macroexpands", or "calls-who" (what SYMBOL's definitions call). Items name the definitions
 * (callers) and their source locations. */
TclInfo *tcl_xref(TclSession *s, const char *relation, const char *symbol, const char *package);
/* The value of CODE taken apart into numbered parts; CODE NULL: the last inspected value again
 * (nothing is re-evaluated). PATH (NPATH part numbers) drills down into a part first. */
TclInfo *tcl_inspect(TclSession *s, const char *code, const char *package, const long *path, int npath);
/* SYMBOL's documentation strings; DOC_TYPE (NULL: every type that has one): function, variable,
 * type, structure, setf, compiler-macro, method-combination. */
TclInfo *tcl_documentation(TclSession *s, const char *symbol, const char *package, const char *doc_type);
void tcl_info_free(TclInfo *info);

/* Called with a short message as a long operation (a system load) makes progress; NULL: none.
 * The handler runs on the evaluating thread, inside the evaluation. */
void tcl_set_progress_handler(TclSession *s, void (*handler)(void *ctx, const char *message), void *ctx);

/* ---- The debugger for agents ----
 * tcl_eval_debug evaluates like tcl_eval, except that an unhandled error suspends the evaluation
 * instead of ending it: the result's status is TCL_SUSPENDED, with the condition (error_type,
 * error_message), the restarts ("NAME: report", innermost first, numbered from 0 in that order),
 * the frames (backtrace, innermost first) and the output so far. The evaluation waits on a thread
 * of its own, its stack intact, for tcl_invoke_restart or tcl_abort_evaluation; meanwhile the
 * session serves other calls (tcl_eval runs in the dynamic environment of the error, but cannot
 * THROW or RETURN-FROM into the suspended stack). One evaluation at a time may be suspended; a
 * second tcl_eval_debug is refused (EVALUATION-SUSPENDED). The time limit keeps running while it
 * waits: past it, the next call ends it, and tcl_invoke_restart / tcl_abort_evaluation report the
 * timeout once. tcl_reset and tcl_session_free end a suspended evaluation first. */
TclResult *tcl_eval_debug(TclSession *s, const char *code, const char *package, double timeout);
/* The same for the LEN bytes of CODE (which may hold NUL characters), as tcl_eval_n. */
TclResult *tcl_eval_debug_n(TclSession *s, const char *code, size_t len, const char *package, double timeout,
                            size_t output_limit);
/* Continue the suspended evaluation with a restart: RESTART is its name (USE-VALUE, PKG:NAME, any
 * case; the innermost of that name) or its number. VALUES (NVALUES strings) are Lisp forms,
 * evaluated where the error happened, whose values are the restart's arguments. Returns the
 * evaluation's final result, or TCL_SUSPENDED again: a new error, or a choice that could not be
 * carried out (unknown restart, failing value form, too few values), explained in NOTE.
 * NO-SUSPENDED-EVALUATION when nothing is suspended. */
TclResult *tcl_invoke_restart(TclSession *s, const char *restart, const char *const *values, int nvalues);
/* End the suspended evaluation through its top-level ABORT restart (error_type "ABORT"). */
TclResult *tcl_abort_evaluation(TclSession *s);
/* Whether an evaluation is suspended. */
bool tcl_debug_suspended(TclSession *s);
/* The frames of the suspended evaluation, innermost first: the call as printed, e.g. "(F 7)", and
 * for interpreted functions their parameters as "X = 7". NULL (COUNT 0) when nothing is suspended. */
typedef struct TclFrame { char *call; char **locals; int nlocals; } TclFrame;
TclFrame *tcl_debug_frames(TclSession *s, int *count);
void tcl_frames_free(TclFrame *frames, int count);

/* ---- The profiler ----
 * Evaluate CODE as tcl_eval does while counting, per function called (interpreted functions and
 * primitives alike), its calls, the time spent in it with its callees (INCLUSIVE, a recursive
 * function's outermost calls only) and without them (EXCLUSIVE), and the bytes allocated during its
 * outermost calls. ENTRIES are sorted by exclusive time, costliest first. RESULT is the evaluation's. */
typedef struct TclProfileEntry {
    char *name;               /* as a backtrace shows it: SQUARE, CL-USER::HELPER, (LAMBDA (X)) */
    long calls;
    double inclusive_ms, exclusive_ms;
    double bytes;
} TclProfileEntry;
typedef struct TclProfile {
    TclResult *result;
    TclProfileEntry *entries;
    int count;
    double total_ms;
} TclProfile;
TclProfile *tcl_profile(TclSession *s, const char *code, const char *package, double timeout);
void tcl_profile_free(TclProfile *p);

/* ---- Lisp source files: the `files` and `tests` tool groups. Every path is read and written
 * through the session (its file access rules apply); nothing here evaluates a file except
 * tcl_load_source_file and tcl_run_tests. Reports carry ERROR_TYPE/ERROR_MESSAGE when the
 * request failed as a whole (unreadable file, bad argument, refused edit). ---- */

/* Where text stops reading as Lisp, as the reader delimits it (strings, |symbols|, #\( characters,
 * ; and nested #| |# comments, #+/#- and the other # syntax), with a likely fix. */
typedef struct TclParenReport {
    bool ok;                  /* balanced: every form ends */
    int forms;                /* top-level forms (before the problem when not ok) */
    int skipped;              /* tcl_check_parens_in, _file: forms the reader skips under the session's
                               * *features* (#+/#- false), not counted in FORMS */
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
/* The same, counting forms as the session's reader would: a form its *features* make #+/#- skip is
 * no form (counted in SKIPPED instead). */
TclParenReport *tcl_check_parens_in(TclSession *s, const char *code, size_t len);
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
    bool skipped;             /* CONDITION is false under the session's *features*: the reader skips
                               * it, so it is no form (listed, not counted) */
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
    int total_forms, offset, next_offset;   /* next_offset -1: no more; OFFSET and next_offset count
                                             * the entries listed, skipped forms included */
    int skipped_forms;        /* forms the reader skips under the session's *features* (not in total_forms) */
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

/* Called with the session's log messages (the system loader's notes: options it ignores, a system
 * defined in a file of another name, each system loaded); LEVEL is a syslog level name ("debug",
 * "info", "notice", "warning", "error"). NULL: none. The handler runs on the evaluating thread. */
void tcl_set_log_handler(TclSession *s, void (*handler)(void *ctx, const char *level, const char *message), void *ctx);

/* Run FN(ARG) with a stack big enough for deep recursion; returns its result. Called on the main
 * thread, FN runs there, the soft stack limit (RLIMIT_STACK) raised to 64 MB when it was lower;
 * elsewhere, or when the limits forbid that, on a new thread with a 64 MB stack. */
int tcl_run_with_big_stack(int (*fn)(void *), void *arg);

#ifdef __cplusplus
}
#endif

#endif
