/* session-file.h: the front ends' --session-file: read at start, written debounced (session-file.c). */
#ifndef TINYCL_SESSION_FILE_H
#define TINYCL_SESSION_FILE_H

#include "tinycl.h"

/* Use PATH (NULL: none) as S's session file: restore from it when it exists; a refused file is
 * moved aside and WHO says so on stderr. */
void sfile_open(TclSession *s, const char *path, const char *who);
/* After a call: note whether the session changed since the last write. */
void sfile_note(TclSession *s);
/* Seconds until the pending write is due (0: now), or -1 when nothing is pending. */
double sfile_due_in(void);
/* Write the session if a change is pending and due (FORCE: due now). On S's thread. */
void sfile_flush(TclSession *s, bool force);

#endif
