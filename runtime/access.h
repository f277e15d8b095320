/* access.h: the access policy of an interpreter: which directories Lisp code may read and write,
 * which environment variables it may see, and which open files it may never open. */
#ifndef TINYCL_ACCESS_H
#define TINYCL_ACCESS_H

#include <stdbool.h>
#include <sys/types.h>
#include "state.h"

typedef enum { ACCESS_READ, ACCESS_WRITE } AccessMode;

typedef struct AccessFile { dev_t dev; ino_t ino; } AccessFile;

/* One policy per session (L->access points to it; NULL means unrestricted with nothing
 * protected). Roots are resolved absolute directories; writable roots are readable too. */
typedef struct TclAccess {
    bool restricted;           /* false: paths and environment are not checked */
    char **read, **write, **env;
    int nread, nwrite, nenv;
    AccessFile *protect;       /* never opened, even when unrestricted */
    int nprotect;
    char *protect_path;        /* resolved: this name and NAME.* are never touched (a session file) */
} Access;

Access *access_new(bool restricted);
Access *access_copy(const Access *a);
void access_free(Access *a);

/* Add a directory (resolved now; false when it cannot be resolved) or an environment variable. */
bool access_allow_read(Access *a, const char *dir);
bool access_allow_write(Access *a, const char *dir);
void access_allow_env(Access *a, const char *name);
/* The directories the system loader searches (Debian's, CL_SOURCE_REGISTRY's, the per-user ones)
 * as readable roots. */
void access_allow_system_sources(Access *a);
/* The temporary directory: $TMPDIR or /tmp. */
const char *access_temp_directory(void);
/* Files that are the same open file as FD can never be opened. */
void access_protect_fd(Access *a, int fd);

/* The file PATH and the names beside it that start with PATH followed by "." (its temporary and
 * moved-aside copies) can never be used by Lisp code, whatever the policy: a session file. */
void access_protect_path(Access *a, const char *path);

/* PATH made absolute (against the process's current directory) and free of symbolic links, "."
 * and "..". A name that does not exist yet is resolved through its nearest existing parent, a
 * dangling symbolic link through its target. A malloc'd string, or NULL (a loop of links, a name
 * too long). */
char *access_resolve(const char *path);
/* Whether the resolved path RESOLVED lies under one of the roots for MODE. */
bool access_allows(const Access *a, const char *resolved, AccessMode mode);

/* Signal TINYCL:ACCESS-DENIED (a FILE-ERROR) unless the policy lets OPERATION (e.g. "OPEN",
 * "DELETE-FILE") use NATIVE (a native file name) for MODE. PATHNAME is the Lisp pathname named by
 * the caller (NIL: use NATIVE). Callable from every face (src/session.c too). */
void access_check(Lisp *L, const char *native, AccessMode mode, const char *operation, Obj pathname);
/* Quietly: whether NATIVE may be read (DIRECTORY leaves out what may not). */
bool access_readable(Lisp *L, const char *native);
/* Quietly: whether NATIVE may be written. */
bool access_writable(Lisp *L, const char *native);
/* Signal TINYCL:ACCESS-DENIED when NATIVE (before an open) or FD (after it; closed first) is
 * the same open file as a protected descriptor. FD < 0: check NATIVE only. */
void access_check_protected(Lisp *L, const char *native, int fd, Obj pathname);
/* Whether Lisp code may read the environment variable NAME. */
bool access_env_allowed(Lisp *L, const char *name);
/* The rules in force, for people and models: a malloc'd paragraph. */
char *access_describe(const Access *a);

#endif
