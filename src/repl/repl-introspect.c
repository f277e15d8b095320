/* repl-introspect.c: the REPL's introspection meta-commands (:describe, :apropos, :expand,
 * :expand-all, :where, :who-calls and the other cross-reference commands, :inspect, :part, :doc),
 * each a call of the session API's TclInfo functions, as the introspection MCP tools are. */
#include "tinycl.h"
#include "../cli.h"
#include "repl-introspect.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const repl_introspect_help =
    "  :describe SYMBOL      everything SYMBOL names, and where each was defined\n"
    "  :apropos TEXT         symbols whose names contain TEXT\n"
    "  :doc SYMBOL [TYPE]    documentation strings (TYPE: function, variable, type, ...)\n"
    "  :expand FORM          MACROEXPAND-1 of FORM;  :expand-all FORM expands every macro in it\n"
    "  :where SYMBOL         every definition of SYMBOL with its source location\n"
    "  :who-calls SYMBOL     who calls it (also :who-references, :who-sets, :who-binds,\n"
    "                        :who-macroexpands; :calls-who SYMBOL: what it calls)\n"
    "  :inspect FORM         FORM's value taken apart into numbered parts\n"
    "  :part N...            drill into part N of the last inspected value (nothing re-evaluated)\n";

static void print_info(TclInfo *info) {
    TclResult *r = info->result;
    if (r->out && *r->out) fputs(r->out, stdout);
    if (r->status == TCL_OK && info->text) printf("%s\n", info->text);
    else cli_print_result(r, false);
    fflush(stdout);
    tcl_info_free(info);
}

/* The cross-reference commands and the relation each asks for. */
static const struct { const char *cmd, *relation; } xref_commands[] = {
    {":who-calls", "calls"}, {":who-references", "references"}, {":who-sets", "sets"},
    {":who-binds", "binds"}, {":who-macroexpands", "macroexpands"}, {":calls-who", "calls-who"},
};

static bool one_word(const char *s) {
    if (!*s) return false;
    for (; *s; s++) if (*s == ' ' || *s == '\t') return false;
    return true;
}

bool repl_introspect_command(TclSession *s, const char *cmd, const char *rest) {
    for (size_t i = 0; i < sizeof xref_commands / sizeof *xref_commands; i++)
        if (strcmp(cmd, xref_commands[i].cmd) == 0 && one_word(rest)) {
            print_info(tcl_xref(s, xref_commands[i].relation, rest, NULL));
            return true;
        }
    if (strcmp(cmd, ":describe") == 0 && one_word(rest)) print_info(tcl_describe_symbol(s, rest, NULL));
    else if (strcmp(cmd, ":where") == 0 && one_word(rest)) print_info(tcl_find_definitions(s, rest, NULL));
    else if (strcmp(cmd, ":apropos") == 0 && one_word(rest)) print_info(tcl_apropos(s, rest, NULL, false, NULL));
    else if (strcmp(cmd, ":expand") == 0 && *rest) print_info(tcl_macroexpand(s, rest, NULL, false));
    else if (strcmp(cmd, ":expand-all") == 0 && *rest) print_info(tcl_macroexpand(s, rest, NULL, true));
    else if (strcmp(cmd, ":inspect") == 0 && *rest) print_info(tcl_inspect(s, rest, NULL, NULL, 0));
    else if (strcmp(cmd, ":doc") == 0 && *rest) {
        char *copy = strdup(rest);
        char *type = strpbrk(copy, " \t");
        if (type) { *type++ = 0; while (*type == ' ' || *type == '\t') type++; }
        print_info(tcl_documentation(s, copy, NULL, type && *type ? type : NULL));
        free(copy);
    } else if (strcmp(cmd, ":part") == 0) {
        long path[64];
        int n = 0;
        char *end;
        const char *p = rest;
        while (*p && n < 64) {
            long v = strtol(p, &end, 10);
            if (end == p || v < 0) {
                fprintf(stderr, "[ERROR] INVALID-ARGUMENT\n:part needs part numbers, such as :part 2 0\n");
                return true;
            }
            path[n++] = v;
            p = end;
            while (*p == ' ' || *p == '\t') p++;
        }
        print_info(tcl_inspect(s, NULL, NULL, path, n));
    } else return false;
    return true;
}
