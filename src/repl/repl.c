/* repl.c: the interactive read-eval-print loop on a terminal, with readline editing and history. */
#include "tinycl.h"
#include "../cli.h"
#include "repl-introspect.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <readline/readline.h>
#include <readline/history.h>

static TclSession *repl_session;
static volatile sig_atomic_t evaluating;

static void on_sigint(int sig) {
    (void)sig;
    if (evaluating && repl_session) tcl_interrupt(repl_session);
}

/* The session file (--session-file) is written as the MCP server writes it: once a change has
 * waited its short delay, while the REPL waits for input (one write for a burst of inputs), and
 * at exit. SIGHUP (the terminal closed) and SIGTERM at the prompt end the REPL the same way. */
static volatile sig_atomic_t at_prompt, quit_signal;

static void on_quit(int sig) {
    if (!at_prompt) { signal(sig, SIG_DFL); raise(sig); return; }   /* mid-evaluation: as before */
    quit_signal = sig;
}

/* readline calls this about every 0.1 s while it waits for a key */
static int prompt_idle(void) {
    if (quit_signal) { rl_done = 1; return 0; }
    if (at_prompt && sfile_due_in() == 0) sfile_flush(repl_session, false);
    return 0;
}

/* Piped input (stdio reads it): a pending write waits for a pause in the input or its due time,
 * whichever comes first; input already read into stdin's buffer is no pause. */
static void wait_for_input(TclSession *s) {
    while (!quit_signal && sfile_due_in() >= 0 && stdin->_IO_read_ptr >= stdin->_IO_read_end) {
        struct pollfd p = {0, POLLIN, 0};
        int r = poll(&p, 1, (int)(sfile_due_in() * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r != 0) break;
        sfile_flush(s, false);
    }
}

static char *history_path(void) {
    const char *home = getenv("HOME");
    if (!home) return NULL;
    size_t n = strlen(home) + 32;
    char *p = (char *)malloc(n);
    if (p) snprintf(p, n, "%s/.tinycl_history", home);
    return p;
}

/* Tab completion of symbol names in the current package. */
static char **completions;
static int completion_index;

static char *completion_generator(const char *text, int state) {
    if (state == 0) {
        if (completions) {
            for (int i = 0; completions[i]; i++) free(completions[i]);
            free(completions);
        }
        completions = tcl_complete(repl_session, text, 200);
        completion_index = 0;
    }
    if (!completions || !completions[completion_index]) return NULL;
    /* offer lower case, as people type */
    char *c = strdup(completions[completion_index++]);
    for (char *p = c; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p + 32);
    return c;
}

static char **attempt_completion(const char *text, int start, int end) {
    (void)start; (void)end;
    rl_attempted_completion_over = 1;
    return rl_completion_matches(text, completion_generator);
}

static char *debugger_read_line(void *ctx, const char *prompt) {
    bool interactive = ctx != NULL;
    if (interactive) {
        char *l = readline(prompt);
        if (l && *l) add_history(l);
        return l;
    }
    fputs(prompt, stdout);
    fflush(stdout);
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getline(&buf, &cap, stdin);
    if (n < 0) { free(buf); return NULL; }
    if (n > 0 && buf[n - 1] == '\n') buf[n - 1] = 0;
    return buf;
}

static char *read_line(const char *prompt, bool interactive) {
    if (interactive) return readline(prompt);
    static char *buf;
    static size_t cap;
    ssize_t n = getline(&buf, &cap, stdin);
    if (n < 0) return NULL;
    if (n > 0 && buf[n - 1] == '\n') buf[n - 1] = 0;
    return strdup(buf);
}

static char *append_line(char *acc, const char *line) {
    size_t a = acc ? strlen(acc) : 0, b = strlen(line);
    char *r = (char *)realloc(acc, a + b + 2);
    if (!r) return acc;
    if (a) r[a++] = '\n';
    memcpy(r + a, line, b + 1);
    return r;
}

static bool blank(const char *s) {
    for (; *s; s++) if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return false;
    return true;
}

/* ---- meta-commands: a line starting with one of these words (and not a Lisp form) ---- */

static const char *const meta_help =
    "Meta-commands (anything else is evaluated as Lisp):\n"
    "  :help                 this list\n"
    "  :defs [TYPE]          what the session has defined (TYPE: functions, variables, macros, classes,\n"
    "                        structures, generic-functions, methods, packages, systems)\n"
    "  :package NAME         make NAME the current package\n"
    "  :reset [systems]      return to a fresh session (with systems: drop loaded systems too)\n"
    "  :checkpoint NAME      keep the whole session state in memory under NAME\n"
    "  :restore NAME         return the session exactly to the checkpoint NAME\n"
    "  :checkpoints          list the checkpoints\n"
    "  :delete-checkpoint NAME  forget the checkpoint NAME\n"
    "  :load NAME [force]    load the system NAME and its dependencies (force: reload it)\n"
    "  :systems              the systems loaded in this session\n"
    "  :profile FORMS        evaluate FORMS and show per function its calls and time, costliest first\n"
    "  :check PATH           check a Lisp file's parentheses as the reader sees them (check-parens)\n"
    "  :forms PATH [REGEX]   the top-level forms of a file; those whose name matches REGEX shown whole\n"
    "  :edit PATH TYPE NAME OPERATION [FORM]\n"
    "                        edit one top-level form (OPERATION: replace, insert_before, insert_after,\n"
    "                        delete; methods: NAME(SPECIALIZER...), e.g. area(circle)); shows the diff\n"
    "  :load-file PATH [PKG] load a file form by form: errors and warnings by line, what it defined\n"
    "  :test SYSTEM [TEST]   run a system's test suite, or one test of it (run-tests)\n";

static char *next_word(char **p) {
    while (**p == ' ' || **p == '\t') (*p)++;
    if (!**p) return NULL;
    char *w = *p;
    while (**p && **p != ' ' && **p != '\t') (*p)++;
    if (**p) *(*p)++ = 0;
    return w;
}

static void print_report(TclReport *rep) {
    TclResult *r = rep->result;
    if (r->out && *r->out) fputs(r->out, stdout);
    if (r->status == TCL_OK) {
        if (rep->text) printf("%s\n", rep->text);
    } else {
        cli_print_result(r, false);
        if (rep->text) fprintf(stderr, "%s\n", rep->text);
    }
    fflush(stdout);
    tcl_report_free(rep);
}

static bool package_name_ok(const char *n) {
    if (!*n) return false;
    for (const char *c = n; *c; c++)
        if (strchr(" \t()'`,\"|;#\\", *c)) return false;
    return true;
}

/* :profile FORMS: evaluate under the profiler, then the values (or the error) and the table. */
static void profile_command(TclSession *s, const char *code) {
    TclProfile *p = tcl_profile(s, code, NULL, -1);
    TclResult *r = p->result;
    if (r->out && *r->out) fputs(r->out, stdout);
    if (r->err && *r->err) fputs(r->err, stderr);
    if (r->status == TCL_OK) for (int i = 0; i < r->nvalues; i++) printf("%s\n", r->values[i]);
    else cli_print_result(r, false);
    printf("Profile: %d function%s called in %.3f ms, by exclusive time:\n", p->count, p->count == 1 ? "" : "s", p->total_ms);
    printf("     calls   incl ms   excl ms       bytes  function\n");
    for (int i = 0; i < p->count && i < 25; i++)
        printf("%10ld %9.3f %9.3f %11.0f  %s\n", p->entries[i].calls, p->entries[i].inclusive_ms,
               p->entries[i].exclusive_ms, p->entries[i].bytes, p->entries[i].name);
    fflush(stdout);
    tcl_profile_free(p);
}

/* Handle LINE when it is a meta-command; true if it was one. */
static bool meta_command(TclSession *s, const char *line) {
    while (*line == ' ' || *line == '\t') line++;
    if (line[0] != ':') return false;
    char *copy = strdup(line);
    char *p = copy;
    char *cmd = next_word(&p);
    char *arg = next_word(&p);
    char *arg2 = next_word(&p);
    char *extra = next_word(&p);
    bool handled = true;
    if (strcmp(cmd, ":help") == 0 && !arg) {
        fputs(meta_help, stdout);
        fputs(repl_introspect_help, stdout);
    } else if (strcmp(cmd, ":defs") == 0 && !arg2) {
        TclDefinitions *d = tcl_list_definitions(s, arg, NULL);
        if (d->error_type) fprintf(stderr, "[ERROR] %s\n%s\n", d->error_type, d->error_message ? d->error_message : "");
        else printf("%s\n", d->text);
        tcl_definitions_free(d);
    } else if ((strcmp(cmd, ":checkpoint") == 0 || strcmp(cmd, ":restore") == 0 ||
                strcmp(cmd, ":delete-checkpoint") == 0) && arg && !arg2) {
        char *err = NULL;
        int r = cmd[1] == 'c' ? tcl_checkpoint(s, arg, &err) : cmd[1] == 'r' ? tcl_restore(s, arg, &err)
                                                               : tcl_delete_checkpoint(s, arg, &err);
        if (r != 0) fprintf(stderr, "[ERROR] %s\n", err ? err : "failed");
        else if (cmd[1] == 'c') printf("Checkpoint \"%s\" taken.\n", arg);
        else if (cmd[1] == 'r') printf("Session restored to checkpoint \"%s\".\nCurrent package: %s\n", arg, tcl_current_package(s));
        else printf("Checkpoint \"%s\" deleted.\n", arg);
        free(err);
    } else if (strcmp(cmd, ":checkpoints") == 0 && !arg) {
        TclCheckpoints *l = tcl_list_checkpoints(s);
        if (l && !l->count) printf("No checkpoints (at most %d).\n", l->max);
        for (int i = 0; l && i < l->count; i++) printf("%s (%.1f MB)\n", l->items[i].name, (double)l->items[i].bytes / 1e6);
        tcl_checkpoints_free(l);
    } else if (strcmp(cmd, ":reset") == 0 && (!arg || (strcmp(arg, "systems") == 0 && !arg2))) {
        tcl_reset(s, arg != NULL);
        printf("Session reset. All definitions cleared.\n%sCurrent package: CL-USER\n", arg ? "Loaded systems dropped.\n" : "");
    } else if (strcmp(cmd, ":package") == 0 && arg && !arg2) {
        if (!package_name_ok(arg)) {
            fprintf(stderr, "[ERROR] INVALID-ARGUMENT\n:package needs a package name, such as :package cl-user\n");
        } else {
            TclResult *r = tcl_set_package(s, arg);
            if (r->status != TCL_OK) cli_print_result(r, false);
            tcl_result_free(r);
        }
    } else if (strcmp(cmd, ":load") == 0 && arg && (!arg2 || (strcmp(arg2, "force") == 0 && !extra))) {
        print_report(tcl_load_system(s, arg, arg2 != NULL, false, -1));
    } else if (strcmp(cmd, ":systems") == 0 && !arg) {
        print_report(tcl_list_loaded_systems(s));
    } else if (strcmp(cmd, ":profile") == 0) {
        /* the rest of the line, as typed, is the code */
        const char *code = strstr(line, ":profile") + strlen(":profile");
        while (*code == ' ' || *code == '\t') code++;
        if (!*code) fprintf(stderr, "[ERROR] INVALID-ARGUMENT\n:profile needs forms to run, such as :profile (fib 20)\n");
        else profile_command(s, code);
    } else if (strcmp(cmd, ":check") == 0 && arg && !arg2) {
        TclParenReport *r = tcl_check_parens_file(s, arg);
        if (r->error_type) fprintf(stderr, "[ERROR] %s\n%s\n", r->error_type, r->error_message);
        else printf("%s\n", r->message);
        tcl_paren_report_free(r);
    } else if (strcmp(cmd, ":forms") == 0 && arg && !extra) {
        TclLispFile *f = tcl_read_lisp_file(s, arg, true, arg2, NULL, 0, 0);
        if (f->error_type) fprintf(stderr, "[ERROR] %s\n%s\n", f->error_type, f->error_message);
        else printf("%s\n", f->text);
        tcl_lisp_file_free(f);
    } else if (strcmp(cmd, ":edit") == 0 && arg && arg2 && extra) {
        /* :edit PATH TYPE NAME OPERATION [FORM...]: the rest of the line is the content */
        char *op = next_word(&p);
        while (*p == ' ' || *p == '\t') p++;
        if (!op) {
            fprintf(stderr, "[ERROR] INVALID-ARGUMENT\n:edit PATH TYPE NAME OPERATION [FORM]\n");
        } else {
            TclEditResult *e = tcl_edit_lisp_form(s, arg, arg2, extra, op, *p ? p : NULL, false);
            if (e->error_type) fprintf(stderr, "%s\n", e->text);
            else printf("%s\n", e->text);
            tcl_edit_result_free(e);
        }
    } else if (strcmp(cmd, ":load-file") == 0 && arg && !extra) {
        TclFileLoad *l = tcl_load_source_file(s, arg, arg2, -1);
        if (l->result->out && *l->result->out) fputs(l->result->out, stdout);
        if (*l->text) printf("%s\n", l->text);
        if (l->result->status != TCL_OK) cli_print_result(l->result, false);
        tcl_file_load_free(l);
    } else if (strcmp(cmd, ":test") == 0 && arg && !extra) {
        TclTestRun *t = tcl_run_tests(s, arg, arg2, NULL, -1);
        if (t->result->out && *t->result->out) fputs(t->result->out, stdout);
        if (t->text) printf("%s\n", t->text);
        if (t->result->status != TCL_OK) cli_print_result(t->result, false);
        tcl_test_run_free(t);
    } else {
        /* the rest of the line after the command word, trimmed */
        const char *rest = line + strlen(cmd);
        while (*rest == ' ' || *rest == '\t') rest++;
        char *trimmed = strdup(rest);
        size_t n = strlen(trimmed);
        while (n > 0 && strchr(" \t\r\n", trimmed[n - 1])) trimmed[--n] = 0;
        handled = repl_introspect_command(s, cmd, trimmed);   /* else a keyword or other Lisp input */
        free(trimmed);
    }
    free(copy);
    fflush(stdout);
    return handled;
}

int repl_run(TclSession *s, bool interactive) {
    repl_session = s;
    char *hist = NULL;
    if (interactive) {
        printf("tinycl %s. Type (exit) or Ctrl-D to leave, :help for the meta-commands.\n", TINYCL_VERSION_STRING);
        rl_readline_name = "tinycl";
        rl_attempted_completion_function = attempt_completion;
        rl_basic_word_break_characters = " \t\n\"'`,;()";
        hist = history_path();
        if (hist) read_history(hist);
    }
    tcl_set_line_reader(s, debugger_read_line, interactive ? (void *)s : NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_quit;     /* no SA_RESTART: a read at the prompt ends, and the loop with it */
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    rl_event_hook = prompt_idle;
    int status = 0;
    char *acc = NULL;
    for (;;) {
        sfile_note(s);
        if (!interactive) wait_for_input(s);
        char prompt[600];
        if (acc) snprintf(prompt, sizeof prompt, "%*s", (int)strlen(tcl_prompt_package(s)) + 2, "");
        else snprintf(prompt, sizeof prompt, "%s> ", tcl_prompt_package(s));
        at_prompt = 1;
        char *line = quit_signal ? NULL : read_line(prompt, interactive);
        at_prompt = 0;
        if (quit_signal) {
            free(line);
            status = 128 + quit_signal;
            break;
        }
        if (!line) {
            if (interactive) putchar('\n');
            break;
        }
        if (!acc && meta_command(s, line)) {
            if (interactive && *line) add_history(line);
            free(line);
            continue;
        }
        acc = append_line(acc, line);
        free(line);
        if (blank(acc)) { free(acc); acc = NULL; continue; }
        if (!tcl_input_complete(s, acc)) continue;
        if (interactive) add_history(acc);
        evaluating = 1;
        TclResult *r = tcl_eval(s, acc, NULL, -1);
        evaluating = 0;
        tcl_interrupt_clear(s);   /* a Ctrl-C that came as the evaluation ended is not for the next */
        free(acc);
        acc = NULL;
        if (r->status == TCL_EXIT) {
            status = r->exit_code;
            tcl_result_free(r);
            break;
        }
        if (r->status == TCL_OK) {
            cli_print_values(r);
        } else if (r->status == TCL_INTERRUPTED) {
            fprintf(stderr, "; Interrupted.\n");
        } else if (r->status == TCL_ERROR && r->error_type && strcmp(r->error_type, "ABORT") == 0) {
            /* the person left the debugger: back to the prompt quietly */
        } else {
            cli_print_result(r, true);
            for (int i = 0; i < r->nbacktrace && i < 8; i++) fprintf(stderr, "  %d: %s\n", i, r->backtrace[i]);
        }
        fflush(stdout);
        tcl_result_free(r);
    }
    if (hist) {
        write_history(hist);
        free(hist);
    }
    free(acc);
    return status;
}
