/* lispsrc.h: Lisp source as text, delimited as the reader delimits it (private to src/). */
#ifndef TINYCL_LISPSRC_H
#define TINYCL_LISPSRC_H

#include "tinycl.h"
#include <stddef.h>
#include <stdbool.h>

/* Offsets of line starts, for turning byte offsets into 1-based lines and columns. */
typedef struct LsrcLines { size_t *start; int count; } LsrcLines;
void lsrc_lines_init(LsrcLines *ls, const char *t, size_t n);
void lsrc_lines_free(LsrcLines *ls);
int lsrc_line_of(const LsrcLines *ls, size_t off);                       /* 1-based */
int lsrc_column_of(const LsrcLines *ls, const char *t, size_t off);      /* 1-based, in characters */

/* One top-level form of a file: its span and what its head says. */
typedef struct LsrcForm {
    size_t start, end;          /* bytes [start, end) of the form, reader conditional included */
    size_t gap_start;           /* where the text before it (comments, blank lines) starts */
    char *kind;                 /* lower-case operator without package prefix ("defun"), "atom", "read-eval" */
    char *name;                 /* as written, whitespace collapsed; NULL when the form names nothing */
    char *qualifiers;           /* defmethod qualifiers, space-separated, or NULL */
    char *specializers;         /* defmethod: "(CIRCLE T)" as written; NULL otherwise */
    char *condition;            /* "#+sbcl" when read conditionally, else NULL */
    char *package;              /* the in-package in force (upper case), "COMMON-LISP-USER" at the start */
    bool skipped;               /* CONDITION is false under the session's *features*: the reader skips
                                 * it, so it is no form (files_mark_skipped) */
} LsrcForm;

typedef struct LsrcFile {
    LsrcForm *forms;
    int count;
    TclParenReport *problem;    /* NULL when the whole text reads; else where reading stops */
} LsrcFile;

/* Split T into its top-level forms (up to the first problem) and describe each. */
void lsrc_index(const char *t, size_t n, LsrcFile *out);
void lsrc_file_free(LsrcFile *f);

/* The end of the datum starting at I (after atmosphere), or (size_t)-1 when it does not end. */
size_t lsrc_datum_end(const char *t, size_t n, size_t i, int depth);
/* Skip whitespace and comments from I; (size_t)-1 inside an unterminated #| comment. */
size_t lsrc_skip_atmosphere(const char *t, size_t n, size_t i);

/* Normalise a symbol or package designator as written (":foo", "#:foo", "\"FOO\"", "pkg::foo")
 * to upper case without quotes or markers; malloc'd. */
char *lsrc_designator_upcase(const char *s, size_t n);

#endif
