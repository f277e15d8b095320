/* logical.h: logical pathnames (CLHS 19.3). A logical pathname is a Pathname whose host is a
 * string: the upper-case name of a host defined by (SETF LOGICAL-PATHNAME-TRANSLATIONS). Its
 * device is :UNSPECIFIC and its string components are upper case. */
#ifndef TINYCL_LOGICAL_H
#define TINYCL_LOGICAL_H

#include "state.h"
#include "pathname.h"

static inline bool logical_pathname_p(Obj p) { return is_pathname(p) && is_string(PATHNAME(p)->host); }

/* The defined logical host named by the string designator NAME (its upper-case name), or NIL. */
Obj logical_host_find(Lisp *L, Obj name);
/* If S[START, END) begins with "HOST:" for a defined logical host, parse it as a logical
 * namestring into *OUT and return true; otherwise return false. */
bool logical_parse_prefixed(Lisp *L, Obj str, size_t start, size_t end, Obj *out);
/* Parse S[START, END) (no host prefix) as a logical namestring on HOST (an upper-case string).
 * Bad syntax signals a PARSE-ERROR. */
Obj logical_parse(Lisp *L, Obj host, Obj str, size_t start, size_t end);
/* Parts of a logical pathname's namestring: LN_ALL, or the host ("HOST:"), directory or file part. */
enum { LN_ALL, LN_HOST, LN_DIRECTORY, LN_FILE };
Obj logical_namestring(Lisp *L, Obj p, int part);
/* A component for a logical pathname: strings (also in patterns and directories) upcased. */
Obj logical_upcase_component(Lisp *L, Obj c);
/* The physical pathname P denotes: P itself unless it is logical, else its translation
 * (TRANSLATE-LOGICAL-PATHNAME). */
Obj logical_to_physical(Lisp *L, Obj p);
/* P with its string components (also in patterns and directories) in lower case: SBCL's
 * translation of a logical pathname's captured pieces into a Unix name. */
Obj logical_downcase_pathname(Lisp *L, Obj p);

void logical_init(Lisp *L);

#endif
