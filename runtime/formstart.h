/* formstart.h: where the next top-level form starts, as the reader sees it: the one way LOAD, the
 * session and the warnings find a form's position (past whitespace, ; and nested #| |# comments). */
#ifndef TINYCL_FORMSTART_H
#define TINYCL_FORMSTART_H

#include "state.h"

/* Past whitespace and comments from POS in D[0..N): where the next form starts, or N. An
 * unterminated #| stops the skipping at its # (the reader then reports it). */
size_t form_skip_blank(const uint32_t *d, size_t n, size_t pos);

/* Consume from STREAM what the reader skips before a form and give the 1-based line and column of
 * the next character. A #| comment is recognised on string streams and on file streams whose
 * buffer holds the character after the #; elsewhere the form is taken to start at the #. An
 * unterminated #| on a file stream signals END-OF-FILE, as the reader would. */
void form_locate(Lisp *L, Obj stream, long *line, long *column);

#endif
