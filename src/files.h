/* files.h: the file tools' access to files and their per-session record of what was read (private to src/). */
#ifndef TINYCL_FILES_H
#define TINYCL_FILES_H

#include "tinycl.h"
#include <stddef.h>

struct FilesState;
void files_state_free(struct FilesState *fs);

/* The only two ways the file tools touch files (load-file and run-tests go through Lisp's OPEN).
 * The session's access policy (runtime/access.h) is checked here, as OPEN checks it: a refusal is
 * TINYCL:ACCESS-DENIED. On failure they return NULL / false and set *ERR_TYPE and *ERR_MESSAGE
 * (malloc'd). */
char *session_file_read(TclSession *s, const char *path, size_t *len, char **err_type, char **err_message);
bool session_file_write_atomic(TclSession *s, const char *path, const char *data, size_t len, char **err_type,
                               char **err_message);

/* NULL when CONTENT reads as Lisp (the reader with *READ-SUPPRESS*: nothing interned or evaluated),
 * else the reader's complaint (malloc'd). */
char *files_content_unreadable(TclSession *s, const char *content);

/* Mark the forms of LF whose reader conditionals (#+/#-) are false under the session's *features*
 * (LsrcForm.skipped), as the reader would read them: true conditionals before a false one govern
 * the datum after the one it skips, and become one form with it. Returns how many data were
 * skipped (those merged into the form after them included). */
struct LsrcFile;
int files_mark_skipped(TclSession *s, struct LsrcFile *lf);

/* A Lisp string literal for TEXT ("..." with \\ and \" escaped); malloc'd. */
char *files_lisp_string(const char *text);

#endif
