/* access.c: the access policy of an interpreter (see access.h): path resolution, the checks that
 * every file-system primitive makes, the environment allow list and the protected open files. */
#include "prim.h"
#include "access.h"
#include "lstring.h"
#include "package.h"
#include "pathname.h"
#include "truename.h"
#include "list.h"
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <pwd.h>
#include <sys/stat.h>

/* ---- the policy ---- */

Access *access_new(bool restricted) {
    Access *a = (Access *)calloc(1, sizeof *a);
    if (a) a->restricted = restricted;
    return a;
}

static char **strings_copy(char **v, int n) {
    char **r = (char **)calloc((size_t)n + 1, sizeof *r);
    if (!r) return NULL;
    for (int i = 0; i < n; i++) r[i] = strdup(v[i]);
    return r;
}

Access *access_copy(const Access *a) {
    if (!a) return NULL;
    Access *c = access_new(a->restricted);
    if (!c) return NULL;
    c->read = strings_copy(a->read, a->nread);
    c->nread = a->nread;
    c->write = strings_copy(a->write, a->nwrite);
    c->nwrite = a->nwrite;
    c->env = strings_copy(a->env, a->nenv);
    c->nenv = a->nenv;
    if (a->nprotect) {
        c->protect = (AccessFile *)malloc((size_t)a->nprotect * sizeof *c->protect);
        if (c->protect) {
            memcpy(c->protect, a->protect, (size_t)a->nprotect * sizeof *c->protect);
            c->nprotect = a->nprotect;
        }
    }
    if (a->protect_path) c->protect_path = strdup(a->protect_path);
    return c;
}

static void strings_free(char **v, int n) {
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

void access_free(Access *a) {
    if (!a) return;
    strings_free(a->read, a->nread);
    strings_free(a->write, a->nwrite);
    strings_free(a->env, a->nenv);
    free(a->protect);
    free(a->protect_path);
    free(a);
}

/* Append S (taken over) to the list V of N unless it is there already. */
static void strings_add(char ***v, int *n, char *s) {
    if (!s) return;
    for (int i = 0; i < *n; i++)
        if (strcmp((*v)[i], s) == 0) { free(s); return; }
    char **nv = (char **)realloc(*v, ((size_t)*n + 2) * sizeof *nv);
    if (!nv) { free(s); return; }
    nv[(*n)++] = s;
    nv[*n] = NULL;
    *v = nv;
}

bool access_allow_read(Access *a, const char *dir) {
    char *r = access_resolve(dir);
    if (!r) return false;
    strings_add(&a->read, &a->nread, r);
    return true;
}

bool access_allow_write(Access *a, const char *dir) {
    char *r = access_resolve(dir);
    if (!r) return false;
    strings_add(&a->write, &a->nwrite, r);
    return true;
}

void access_allow_env(Access *a, const char *name) { strings_add(&a->env, &a->nenv, strdup(name)); }

const char *access_temp_directory(void) {
    const char *t = getenv("TMPDIR");
    return t && t[0] == '/' ? t : "/tmp";
}

static char *home_subdirectory(const char *sub) {
    const char *h = getenv("HOME");
    if (!h || !*h) {
        struct passwd *pw = getpwuid(getuid());
        h = pw ? pw->pw_dir : NULL;
    }
    if (!h) return NULL;
    size_t n = strlen(h) + strlen(sub) + 2;
    char *r = (char *)malloc(n);
    if (r) snprintf(r, n, "%s/%s", h, sub);
    return r;
}

/* The directories named by CL_SOURCE_REGISTRY: "dir:dir//:..." or an ASDF (:source-registry
 * (:tree "dir") (:directory "dir") ...) form, of which the quoted strings are taken. */
static void allow_source_registry(Access *a) {
    const char *v = getenv("CL_SOURCE_REGISTRY");
    if (!v || !*v) return;
    char *copy = strdup(v);
    if (!copy) return;
    if (copy[0] == '(') {
        for (char *p = copy; (p = strchr(p, '"')) != NULL;) {
            char *end = strchr(p + 1, '"');
            if (!end) break;
            *end = 0;
            if (p[1] == '/') access_allow_read(a, p + 1);
            p = end + 1;
        }
    } else {
        char *save = NULL;
        for (char *part = strtok_r(copy, ":", &save); part; part = strtok_r(NULL, ":", &save))
            if (*part) access_allow_read(a, part);
    }
    free(copy);
}

void access_allow_system_sources(Access *a) {
    /* the same list as %SOURCE-DIRECTORIES in stdlib-lisp/asdf.lisp, less the current directory */
    static const char *const home_dirs[] = {"common-lisp", ".local/share/common-lisp/source",
                                            "quicklisp/local-projects"};
    access_allow_read(a, "/usr/share/common-lisp");
    allow_source_registry(a);
    for (size_t i = 0; i < sizeof home_dirs / sizeof *home_dirs; i++) {
        char *d = home_subdirectory(home_dirs[i]);
        struct stat st;
        if (d && stat(d, &st) == 0) access_allow_read(a, d);   /* only those that exist */
        free(d);
    }
}

void access_protect_fd(Access *a, int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return;
    AccessFile *np = (AccessFile *)realloc(a->protect, ((size_t)a->nprotect + 1) * sizeof *np);
    if (!np) return;
    np[a->nprotect].dev = st.st_dev;
    np[a->nprotect].ino = st.st_ino;
    a->protect = np;
    a->nprotect++;
}

/* ---- resolution ---- */

#define ACCESS_MAX_LINKS 40

static char *join2(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *r = (char *)malloc(a + b + 2);
    if (!r) return NULL;
    memcpy(r, dir, a);
    size_t k = a;
    if (k == 0 || r[k - 1] != '/') r[k++] = '/';
    memcpy(r + k, name, b + 1);
    return r;
}

static char *resolve_links(const char *path, int links);

/* PATH is absolute. realpath when it exists; otherwise the parent resolved and the last name
 * put back (or followed, when it is a dangling symbolic link). */
static char *resolve_absolute(const char *path, int links) {
    /* frames stay small: a name of PATH_MAX bytes may recurse once per component */
    char *real = (char *)malloc(PATH_MAX);
    if (real && truename_resolve(path, real)) return real;
    free(real);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    if (n <= 1) return strdup("/");
    size_t slash = n;
    while (slash > 0 && path[slash - 1] != '/') slash--;
    char *parent = strndup(path, slash > 1 ? slash - 1 : 1);
    char *name = strndup(path + slash, n - slash);
    char *trimmed = strndup(path, n);
    char *result = NULL;
    if (!parent || !name || !trimmed) goto done;
    struct stat st;
    if (lstat(trimmed, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *buf = (char *)malloc(PATH_MAX);
        ssize_t k = buf ? readlink(trimmed, buf, PATH_MAX - 1) : -1;
        if (k >= 0) {
            buf[k] = 0;
            char *target = buf[0] == '/' ? strdup(buf) : join2(parent, buf);
            if (target) result = resolve_links(target, links + 1);
            free(target);
        }
        free(buf);
        goto done;
    }
    char *rp = resolve_links(parent, links);
    if (!rp) goto done;
    if (name[0] == 0 || strcmp(name, ".") == 0) {
        result = rp;
    } else if (strcmp(name, "..") == 0) {
        char *s = strrchr(rp, '/');
        if (s && s != rp) *s = 0;
        else strcpy(rp, "/");
        result = rp;
    } else {
        result = join2(rp, name);
        free(rp);
    }
done:
    free(parent);
    free(name);
    free(trimmed);
    return result;
}

static char *resolve_links(const char *path, int links) {
    if (links > ACCESS_MAX_LINKS || !path || strlen(path) >= PATH_MAX) return NULL;
    if (path[0] == '/') return resolve_absolute(path, links);
    char *cwd = getcwd(NULL, 0);
    if (!cwd) return NULL;
    char *abs = join2(cwd, path);
    free(cwd);
    char *r = abs ? resolve_absolute(abs, links) : NULL;
    free(abs);
    return r;
}

char *access_resolve(const char *path) { return resolve_links(path, 0); }

static bool under(const char *path, const char *root) {
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/') return true;
    return strncmp(path, root, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* The directory entry NATIVE names, as opposed to what it points to: its parent resolved and its
 * last name kept (a symbolic link is the link itself). NULL when the last name is "." or "..", or
 * the parent cannot be resolved: the entry is then the resolved path itself. */
static char *entry_of(const char *native) {
    size_t n = strlen(native);
    while (n > 1 && native[n - 1] == '/') n--;
    size_t slash = n;
    while (slash > 0 && native[slash - 1] != '/') slash--;
    const char *name = native + slash;
    size_t len = n - slash;
    if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.')) return NULL;
    char *parent = slash == 0 ? strdup(".") : strndup(native, slash > 1 ? slash - 1 : 1);
    char *last = strndup(name, len);
    char *rp = parent ? access_resolve(parent) : NULL;
    char *r = rp && last ? join2(rp, last) : NULL;
    free(parent);
    free(last);
    free(rp);
    return r;
}

bool access_allows(const Access *a, const char *resolved, AccessMode mode) {
    if (!a || !a->restricted) return true;
    for (int i = 0; i < a->nwrite; i++)
        if (under(resolved, a->write[i])) return true;
    if (mode == ACCESS_READ)
        for (int i = 0; i < a->nread; i++)
            if (under(resolved, a->read[i])) return true;
    return false;
}

/* ---- the checks ---- */

static Access *policy(Lisp *L) { return (Access *)L->access; }

/* Signal TINYCL:ACCESS-DENIED with the resolved path, the operation and the option to use. */
static _Noreturn void deny(Lisp *L, Obj pathname, const char *resolved, const char *operation,
                           const char *option, const char *why) {
    Obj path = string_from_cstr(L, resolved);
    if (pathname == NIL) pathname = pathname_from_native(L, resolved, false);
    Obj initargs = list2(L, S(K_PATHNAME), pathname);
    initargs = cons(L, intern_cstr(L, L->pkg_keyword, "OPERATION"),
                    cons(L, string_from_cstr(L, operation), initargs));
    initargs = cons(L, intern_cstr(L, L->pkg_keyword, "OPTION"),
                    cons(L, option ? string_from_cstr(L, option) : NIL, initargs));
    Obj msg = option ? msg_format(L, "%s is not allowed on %S: %s. Start tinycl with %s to allow it.",
                                  operation, path, why, option)
                     : msg_format(L, "%s is not allowed on %S: %s.", operation, path, why);
    err_with_message(L, S(EXT_ACCESS_DENIED), initargs, msg);
}

/* The directory to name in the suggested option: PATH itself when it is a directory, else its parent. */
static char *option_directory(const char *resolved) {
    struct stat st;
    if (stat(resolved, &st) == 0 && S_ISDIR(st.st_mode)) return strdup(resolved);
    char *d = strdup(resolved);
    if (!d) return NULL;
    char *s = strrchr(d, '/');
    if (s && s != d) *s = 0;
    else strcpy(d, "/");
    return d;
}

void access_protect_path(Access *a, const char *path) {
    char *r = access_resolve(path);
    if (!r) return;
    free(a->protect_path);
    a->protect_path = r;
}

/* Whether the resolved RESOLVED is the protected path or a name beside it (PATH.tmp-1, PATH.bad-...). */
static bool protected_path(const Access *a, const char *resolved) {
    if (!a->protect_path || !resolved) return false;
    size_t n = strlen(a->protect_path);
    return strncmp(resolved, a->protect_path, n) == 0 && (resolved[n] == 0 || resolved[n] == '.');
}

void access_check(Lisp *L, const char *native, AccessMode mode, const char *operation, Obj pathname) {
    Access *a = policy(L);
    if (a && a->protect_path) {
        char *r = access_resolve(native);
        bool hit = protected_path(a, r);
        free(r);
        if (hit) deny(L, pathname, native, operation, NULL, "it is the session file, which Lisp code may never use");
    }
    if (!a || !a->restricted) return;
    char *r = access_resolve(native);
    if (!r) deny(L, pathname, native, operation, NULL, "the name cannot be resolved (a loop of symbolic links, or too long)");
    if (access_allows(a, r, mode)) {
        /* a change may act on the name itself (unlink, rename to .bak): a symbolic link in a
         * directory that may not be written is refused even when its target may */
        char *e = mode == ACCESS_WRITE ? entry_of(native) : NULL;
        bool ok = !e || access_allows(a, e, mode);
        if (ok) { free(r); free(e); return; }
        free(r);
        r = e;
    }
    char *dir = option_directory(r);
    Obj resolved = string_from_cstr(L, r);
    free(r);
    char opt[PATH_MAX + 32];
    snprintf(opt, sizeof opt, "%s %s", mode == ACCESS_WRITE ? "--allow-write" : "--allow-read", dir ? dir : "/");
    free(dir);
    char *rs = string_to_utf8(L, resolved, NULL);
    deny(L, pathname, rs, operation, opt,
         mode == ACCESS_WRITE ? "it is outside the directories this session may write"
                              : "it is outside the directories this session may read");
}

/* Whether the session's rules allow MODE on NATIVE, without signalling. */
static bool access_quietly(Lisp *L, const char *native, AccessMode mode) {
    Access *a = policy(L);
    if (!a || (!a->restricted && !a->protect_path)) return true;
    char *r = access_resolve(native);
    bool ok = r && !protected_path(a, r) && (!a->restricted || access_allows(a, r, mode));
    free(r);
    return ok;
}

bool access_readable(Lisp *L, const char *native) { return access_quietly(L, native, ACCESS_READ); }

bool access_writable(Lisp *L, const char *native) { return access_quietly(L, native, ACCESS_WRITE); }

static bool protected_file(const Access *a, const struct stat *st) {
    for (int i = 0; i < a->nprotect; i++)
        if (a->protect[i].dev == st->st_dev && a->protect[i].ino == st->st_ino) return true;
    return false;
}

void access_check_protected(Lisp *L, const char *native, int fd, Obj pathname) {
    Access *a = policy(L);
    if (!a || !a->nprotect) return;
    struct stat st;
    bool hit = fd >= 0 ? fstat(fd, &st) == 0 && protected_file(a, &st)
                       : stat(native, &st) == 0 && protected_file(a, &st);
    if (!hit) return;
    if (fd >= 0) close(fd);
    deny(L, pathname, native, "OPEN", NULL,
         "it is the server's protocol channel, which Lisp code may never open");
}

bool access_env_allowed(Lisp *L, const char *name) {
    Access *a = policy(L);
    if (!a || !a->restricted) return true;
    for (int i = 0; i < a->nenv; i++)
        if (strcmp(a->env[i], name) == 0) return true;
    return false;
}

/* ---- the rules as text ---- */

typedef struct { char *s; size_t len, cap; } Text;

static void text_add(Text *t, const char *s) {
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        while (nc < t->len + n + 1) nc *= 2;
        char *ns = (char *)realloc(t->s, nc);
        if (!ns) return;
        t->s = ns;
        t->cap = nc;
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static void text_list(Text *t, char **v, int n, const char *none) {
    if (n == 0) { text_add(t, none); return; }
    for (int i = 0; i < n; i++) {
        if (i) text_add(t, ", ");
        text_add(t, v[i]);
    }
}

char *access_describe(const Access *a) {
    Text t = {0};
    if (!a || !a->restricted) {
        text_add(&t, "File and environment access: unrestricted (Lisp code has the rights of the user "
                     "running tinycl).");
    } else {
        text_add(&t, "File and environment access is restricted. Lisp code may read files under: ");
        text_list(&t, a->read, a->nread, "(no directories)");
        text_add(&t, "; read and write under: ");
        text_list(&t, a->write, a->nwrite, "(no directories)");
        text_add(&t, ". Environment variables it may read (others read as unset, NIL): ");
        text_list(&t, a->env, a->nenv, "(none)");
        text_add(&t, ". Paths are resolved (symbolic links, ..) before they are checked; any other "
                     "file operation signals TINYCL:ACCESS-DENIED, a FILE-ERROR naming the option "
                     "(--allow-read DIR, --allow-write DIR, --allow-env NAME) that would allow it.");
    }
    if (a && a->nprotect)
        text_add(&t, " The server's protocol channel can never be opened from Lisp.");
    return t.s;
}

/* ---- primitives ---- */

/* (sys:%check-access pathname direction operation): for LOAD and COMPILE-FILE, which name themselves */
DEFPRIM(prim_pct_check_access) {
    UNUSED_ARGS;
    Obj p = pathname_merged(L, args[0]);
    if (!is_string(args[2])) err_type(L, args[2], S(STRING));
    if (pathname_is_wild(L, p)) return NIL;
    access_check(L, pathname_native(L, p), args[1] == S(K_OUTPUT) ? ACCESS_WRITE : ACCESS_READ,
                 string_to_utf8(L, args[2], NULL), p);
    return S(T);
}

/* (sys:%access-checked-p) -> true when %CHECK-ACCESS can refuse a name (the session has file
 * rules, or a session file no code may use): callers that check many names may skip the checks
 * otherwise (the system loader's kept directory listings) */
DEFPRIM(prim_pct_access_checked_p) {
    UNUSED_ARGS;
    Access *a = policy(L);
    return boolean(L, a && (a->restricted || a->protect_path));
}

DEFPRIM(prim_access_rules) {
    UNUSED_ARGS;
    char *text = access_describe(policy(L));
    Obj r = string_from_cstr(L, text ? text : "");
    free(text);
    return r;
}

/* (sys:%source-registry-variable): CL_SOURCE_REGISTRY for the system loader, whatever the
 * environment allow list says: the directories it names are readable roots of the policy (and
 * listed by ACCESS-RULES), so its value is no secret; every other variable stays hidden. */
DEFPRIM(prim_pct_source_registry_variable) {
    UNUSED_ARGS;
    const char *v = getenv("CL_SOURCE_REGISTRY");
    return v ? string_from_cstr(L, v) : NIL;
}

const PrimDef access_prims[] = {
    {"%SOURCE-REGISTRY-VARIABLE", PK_SYS, prim_pct_source_registry_variable, 0, 0, 0, "()",
     "The value of CL_SOURCE_REGISTRY for the system loader, or NIL."},
    {"%CHECK-ACCESS", PK_SYS, prim_pct_check_access, 3, 3, 0, "(pathname direction operation)",
     "Signal TINYCL:ACCESS-DENIED unless the session may read (DIRECTION :INPUT) or write (:OUTPUT) PATHNAME."},
    {"%ACCESS-CHECKED-P", PK_SYS, prim_pct_access_checked_p, 0, 0, 0, "()", NULL},
    {"ACCESS-RULES", PK_EXT, prim_access_rules, 0, 0, 0, "()",
     "The file and environment access rules in force in this session, as text."},
    {0},
};

void access_init(Lisp *L) { prims_register(L, access_prims); }
