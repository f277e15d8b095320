/* repl-introspect.h: the REPL's introspection meta-commands (repl-introspect.c). */
#ifndef TINYCL_REPL_INTROSPECT_H
#define TINYCL_REPL_INTROSPECT_H

#include "tinycl.h"

/* Lines of :help for these commands. */
extern const char *const repl_introspect_help;
/* Run meta-command CMD with the rest of the line REST (trimmed); false when CMD is not one of them. */
bool repl_introspect_command(TclSession *s, const char *cmd, const char *rest);

#endif
