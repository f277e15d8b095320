/* pathname.h: pathnames (CLHS chapter 19) with SBCL's Unix namestring syntax, and the file system. */
#ifndef TINYCL_PATHNAME_H
#define TINYCL_PATHNAME_H

#include "state.h"

/* A physical pathname. host is NIL (the one Unix host); device NIL or :UNSPECIFIC;
 * directory NIL or (:ABSOLUTE|:RELATIVE . components) where a component is a string, :WILD,
 * :WILD-INFERIORS, :UP, :BACK, :HOME / (:HOME "user") (first only) or a pattern;
 * name and type NIL, a string, :WILD, :UNSPECIFIC or a pattern; version NIL, :NEWEST, :WILD,
 * :UNSPECIFIC or an integer. A pattern (SBCL's SB-IMPL::PATTERN) is the list
 * (SYS::%PATTERN piece...) with pieces: strings, :MULTI-CHAR-WILD, :SINGLE-CHAR-WILD,
 * (:CHARACTER-SET . "chars"). */
typedef struct Pathname {
    Header h;
    Obj host, device, directory, name, type, version;
} Pathname;
#define PATHNAME(o) ((Pathname *)(o))
static inline bool is_pathname(Obj o) { return is_type(o, T_PATHNAME); }

Obj pathname_make(Lisp *L, Obj host, Obj device, Obj directory, Obj name, Obj type, Obj version);
/* Parse a Unix namestring (escapes and wildcards honoured). */
Obj pathname_parse(Lisp *L, Obj string, size_t start, size_t end);
/* A pathname designator (pathname, string, file stream) as a pathname; TYPE-ERROR otherwise. */
Obj pathname_designated(Lisp *L, Obj designator);
/* The namestring; signals an error when the pathname has none. */
Obj pathname_namestring(Lisp *L, Obj p);
/* Whether the pathname has a namestring (PATHNAME_NAMESTRING would not signal). */
bool pathname_has_namestring(Lisp *L, Obj p);
/* MERGE-PATHNAMES. */
Obj pathname_merge(Lisp *L, Obj p, Obj defaults, Obj default_version);
/* The designated pathname merged with *DEFAULT-PATHNAME-DEFAULTS*. */
Obj pathname_merged(Lisp *L, Obj designator);
bool pathname_is_wild(Lisp *L, Obj p);
/* The native (OS) file name of P, merged with the defaults; wild pathnames signal FILE-ERROR.
 * UTF-8 in collected memory. */
char *pathname_native(Lisp *L, Obj p);
/* A pathname for a native file name (no escapes or wildcards); as a directory if DIRECTORY. */
Obj pathname_from_native(Lisp *L, const char *native, bool directory);
/* The truename of P (symlinks resolved, directories in directory form), or NIL if it does not exist. */
Obj pathname_probe(Lisp *L, Obj p);

/* Signal a FILE-ERROR subtype TYPE (NIL: SYSTEM::SIMPLE-FILE-ERROR) for PATHNAME with a message. */
_Noreturn void file_error(Lisp *L, Obj type, Obj pathname, const char *fmt, ...);

void pathname_default_init(Lisp *L);

#endif
