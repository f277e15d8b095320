/* files.c: the file tools behind the session API: check-parens on files, read-lisp-file, edit-lisp-form
 * (atomic, byte-exact, refused when the file changed since it was read), and the per-session record of
 * what was read. */
#include "tinycl.h"
#include "session.h"
#include "files.h"
#include "lispsrc.h"
#include "../runtime/access.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- small strings ---- */

static char *xstrdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s);
    char *d = (char *)malloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

static char *xstrndup(const char *s, size_t n) {
    char *d = (char *)malloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static char *xprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *d = (char *)malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(d, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return d;
}

typedef struct Buf { char *s; size_t len, cap; } Buf;
static void buf_addn(Buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n + 1) cap *= 2;
        b->s = (char *)realloc(b->s, cap);
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}
static void buf_add(Buf *b, const char *s) { buf_addn(b, s, strlen(s)); }
static void buf_printf(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *d = (char *)malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(d, (size_t)n + 1, fmt, ap);
    va_end(ap);
    buf_addn(b, d, (size_t)n);
    free(d);
}
static char *buf_take(Buf *b) { return b->s ? b->s : xstrdup(""); }

char *files_lisp_string(const char *text) {
    Buf b = {0};
    buf_add(&b, "\"");
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\') buf_addn(&b, "\\", 1);
        buf_addn(&b, p, 1);
    }
    buf_add(&b, "\"");
    return buf_take(&b);
}

/* ---- what was read: per session, per file, a hash of the bytes the agent last saw ---- */

typedef struct Stamp { char *path; uint64_t hash; size_t size; } Stamp;
struct FilesState { Stamp *stamps; int count, cap; };

void files_state_free(struct FilesState *fs) {
    if (!fs) return;
    for (int i = 0; i < fs->count; i++) free(fs->stamps[i].path);
    free(fs->stamps);
    free(fs);
}

static uint64_t fnv1a(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

/* The key a file is recorded under: its real path when it exists. */
static char *stamp_key(const char *path) {
    char *real = realpath(path, NULL);
    return real ? real : xstrdup(path);
}

static Stamp *stamp_find(TclSession *s, const char *key) {
    struct FilesState *fs = s->files;
    if (!fs) return NULL;
    for (int i = 0; i < fs->count; i++)
        if (strcmp(fs->stamps[i].path, key) == 0) return &fs->stamps[i];
    return NULL;
}

static void stamp_record(TclSession *s, const char *path, const char *data, size_t len) {
    if (!s->files) s->files = (struct FilesState *)calloc(1, sizeof *s->files);
    char *key = stamp_key(path);
    Stamp *st = stamp_find(s, key);
    if (!st) {
        struct FilesState *fs = s->files;
        if (fs->count == fs->cap) {
            fs->cap = fs->cap ? fs->cap * 2 : 16;
            fs->stamps = (Stamp *)realloc(fs->stamps, sizeof(Stamp) * (size_t)fs->cap);
        }
        st = &fs->stamps[fs->count++];
        st->path = key;
    } else free(key);
    st->hash = fnv1a(data, len);
    st->size = len;
}

/* ---- the two ways these tools touch files ---- */

#define FILES_MAX_BYTES (64 << 20)

/* Whether the session's access policy lets these tools OPERATION (read-lisp-file, edit-lisp-form...)
 * PATH for MODE; else the error the policy's own check would give (TINYCL:ACCESS-DENIED, naming
 * the option that would allow it). */
static bool files_access_allowed(TclSession *s, const char *path, AccessMode mode, char **err_type, char **err_message) {
    const Access *a = s->access;
    if (!a) return true;
    char *r = access_resolve(path);
    if (!r) {
        *err_type = xstrdup("TINYCL:ACCESS-DENIED");
        *err_message = xprintf("%s: the name cannot be resolved (a loop of symbolic links, or too long).", path);
        return false;
    }
    struct stat st;
    if (stat(r, &st) == 0)
        for (int i = 0; i < a->nprotect; i++)
            if (a->protect[i].dev == st.st_dev && a->protect[i].ino == st.st_ino) {
                *err_type = xstrdup("TINYCL:ACCESS-DENIED");
                *err_message = xprintf("%s is not allowed on \"%s\": it is the protocol's own channel.",
                                       mode == ACCESS_WRITE ? "Writing" : "Reading", r);
                free(r);
                return false;
            }
    if (!a->restricted || access_allows(a, r, mode)) {
        free(r);
        return true;
    }
    char *dir = xstrdup(r);
    if (!(stat(r, &st) == 0 && S_ISDIR(st.st_mode))) {
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) *slash = 0;
        else strcpy(dir, "/");
    }
    *err_type = xstrdup("TINYCL:ACCESS-DENIED");
    *err_message = xprintf("%s is not allowed on \"%s\": it is outside the directories this session may %s. "
                           "Start tinycl with %s %s to allow it.", mode == ACCESS_WRITE ? "Writing" : "Reading", r,
                           mode == ACCESS_WRITE ? "write" : "read", mode == ACCESS_WRITE ? "--allow-write" : "--allow-read", dir);
    free(dir);
    free(r);
    return false;
}

char *session_file_read(TclSession *s, const char *path, size_t *len, char **err_type, char **err_message) {
    if (!files_access_allowed(s, path, ACCESS_READ, err_type, err_message)) return NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        *err_type = xstrdup("FILE-ERROR");
        *err_message = xprintf("Cannot open %s: %s.", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(sb.st_mode)) {
        *err_type = xstrdup("FILE-ERROR");
        *err_message = xprintf("%s is a directory, not a file.", path);
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {   /* a device or a pipe could be endless or block */
        *err_type = xstrdup("FILE-ERROR");
        *err_message = xprintf("%s is not a regular file.", path);
        return NULL;
    }
    if (sb.st_size > FILES_MAX_BYTES) {
        *err_type = xstrdup("FILE-ERROR");
        *err_message = xprintf("%s is %lld bytes; these tools read Lisp files up to %d MB.", path,
                               (long long)sb.st_size, FILES_MAX_BYTES >> 20);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        *err_type = xstrdup("FILE-ERROR");
        *err_message = xprintf("Cannot open %s: %s.", path, strerror(errno));
        return NULL;
    }
    Buf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) buf_addn(&b, chunk, got);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b.s);
        *err_type = xstrdup("FILE-ERROR");
        *err_message = xprintf("Cannot read %s.", path);
        return NULL;
    }
    *len = b.len;
    return buf_take(&b);
}

bool session_file_write_atomic(TclSession *s, const char *path, const char *data, size_t len, char **err_type,
                               char **err_message) {
    if (!files_access_allowed(s, path, ACCESS_WRITE, err_type, err_message)) return false;
    char *dcopy = xstrdup(path), *bcopy = xstrdup(path);
    char *tmp = xprintf("%s/.%s.tinycl-XXXXXX", dirname(dcopy), basename(bcopy));
    free(dcopy);
    free(bcopy);
    struct stat sb;
    bool have_mode = stat(path, &sb) == 0;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        *err_type = xstrdup("FILE-ERROR");
        *err_message = xprintf("Cannot write beside %s: %s.", path, strerror(errno));
        free(tmp);
        return false;
    }
    size_t off = 0;
    bool ok = true;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) { if (errno == EINTR) continue; ok = false; break; }
        off += (size_t)w;
    }
    if (ok && have_mode) fchmod(fd, sb.st_mode & 07777);
    if (ok && fsync(fd) != 0) ok = false;
    if (close(fd) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        *err_type = xstrdup("FILE-ERROR");
        *err_message = xprintf("Cannot write %s: %s.", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok;
}

/* ---- check-parens on a file ---- */

TclParenReport *tcl_check_parens_file(TclSession *s, const char *path) {
    size_t len;
    char *et = NULL, *em = NULL;
    char *data = session_file_read(s, path, &len, &et, &em);
    if (!data) {
        TclParenReport *r = (TclParenReport *)calloc(1, sizeof *r);
        r->error_type = et;
        r->error_message = em;
        return r;
    }
    stamp_record(s, path, data, len);
    TclParenReport *r = tcl_check_parens_in(s, data, len);
    free(data);
    return r;
}

TclParenReport *tcl_check_parens_in(TclSession *s, const char *code, size_t len) {
    TclParenReport *r = tcl_check_parens(code, len);
    if (!r->ok || r->forms == 0) return r;
    LsrcFile lf;
    lsrc_index(code, len, &lf);
    int skipped = files_mark_skipped(s, &lf);
    lsrc_file_free(&lf);
    if (skipped == 0) return r;
    r->skipped = skipped;
    r->forms -= skipped;
    free(r->message);
    r->message = xprintf("Balanced: %d top-level form%s (and %d skipped by #+/#- under the session's *features*).",
                         r->forms, r->forms == 1 ? "" : "s", skipped);
    return r;
}

/* ---- read-lisp-file ---- */

static const char *line_ending_of(const char *t, size_t n) {
    int lf = 0, crlf = 0, cr = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '\r') {
            if (i + 1 < n && t[i + 1] == '\n') { crlf++; i++; } else cr++;
        } else if (t[i] == '\n') lf++;
    }
    if (crlf && !lf && !cr) return "CRLF";
    if (cr && !lf && !crlf) return "CR";
    if ((lf && crlf) || (lf && cr) || (cr && crlf)) return "mixed";
    return "LF";
}

static regex_t *compile_pattern(const char *pat, const char *what, char **err) {
    if (!pat || !*pat) return NULL;
    regex_t *re = (regex_t *)malloc(sizeof *re);
    int rc = regcomp(re, pat, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc != 0) {
        char msg[200];
        regerror(rc, re, msg, sizeof msg);
        *err = xprintf("Argument \"%s\" is not a valid regular expression: %s.", what, msg);
        free(re);
        return NULL;
    }
    return re;
}

/* The end of line LINE (1-based) without its line ending. */
static size_t line_text_end(const LsrcLines *ls, const char *t, size_t n, int line) {
    size_t e = line < ls->count ? ls->start[line] : n;
    while (e > ls->start[line - 1] && (t[e - 1] == '\n' || t[e - 1] == '\r')) e--;
    return e;
}

/* Lines FROM..TO of T, numbered, into B. */
static void add_numbered(Buf *b, const LsrcLines *ls, const char *t, size_t n, int from, int to) {
    for (int l = from; l <= to && l <= ls->count; l++) {
        size_t s = ls->start[l - 1], e = line_text_end(ls, t, n, l);
        if (l == ls->count && s >= n) break;   /* the empty "line" after a final newline */
        buf_printf(b, "%5d| ", l);
        buf_addn(b, t + s, e - s);
        buf_add(b, "\n");
    }
}

/* A collapsed form's first line, cut at FIRST_LINE_MAX bytes (on a character boundary) with "...". */
#define FIRST_LINE_MAX 300
static char *first_line_capped(const char *s, size_t n) {
    if (n <= FIRST_LINE_MAX) return xstrndup(s, n);
    size_t k = FIRST_LINE_MAX;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    char *d = (char *)malloc(k + 4);
    memcpy(d, s, k);
    memcpy(d + k, "...", 4);
    return d;
}

static void form_label(Buf *b, const LsrcForm *f) {
    if (f->skipped) buf_add(b, "skipped: ");
    if (f->condition) buf_printf(b, "%s ", f->condition);
    buf_add(b, f->kind ? f->kind : "?");
    if (f->name) buf_printf(b, " %s", f->name);
    if (f->qualifiers) buf_printf(b, " %s", f->qualifiers);
    if (f->specializers) buf_printf(b, " %s", f->specializers);
}

TclLispFile *tcl_read_lisp_file(TclSession *s, const char *path, bool collapsed, const char *name_pattern,
                                const char *content_pattern, int offset, int limit) {
    TclLispFile *out = (TclLispFile *)calloc(1, sizeof *out);
    out->path = xstrdup(path);
    out->next_offset = -1;
    char *perr = NULL;
    regex_t *nre = compile_pattern(name_pattern, "name_pattern", &perr);
    regex_t *cre = perr ? NULL : compile_pattern(content_pattern, "content_pattern", &perr);
    if (perr) {
        out->error_type = xstrdup("INVALID-ARGUMENT");
        out->error_message = perr;
        if (nre) { regfree(nre); free(nre); }
        return out;
    }
    size_t n;
    char *t = session_file_read(s, path, &n, &out->error_type, &out->error_message);
    if (!t) {
        if (nre) { regfree(nre); free(nre); }
        if (cre) { regfree(cre); free(cre); }
        return out;
    }
    stamp_record(s, path, t, n);
    LsrcLines ls;
    lsrc_lines_init(&ls, t, n);
    LsrcFile lf;
    lsrc_index(t, n, &lf);
    out->skipped_forms = files_mark_skipped(s, &lf);
    out->lines = ls.count - (n > 0 && ls.start[ls.count - 1] >= n ? 1 : 0);
    out->line_ending = xstrdup(line_ending_of(t, n));
    out->total_forms = 0;
    for (int i = 0; i < lf.count; i++) out->total_forms += !lf.forms[i].skipped;
    if (offset < 0) offset = 0;
    if (offset > lf.count) offset = lf.count;
    int end = limit > 0 && offset + limit < lf.count ? offset + limit : lf.count;
    out->offset = offset;
    out->next_offset = end < lf.count ? end : -1;
    out->forms = (TclLispForm *)calloc((size_t)(end - offset) + 1, sizeof(TclLispForm));

    Buf b = {0};
    buf_printf(&b, "%s: %d lines, %d top-level form%s", path, out->lines, out->total_forms,
               out->total_forms == 1 ? "" : "s");
    if (out->skipped_forms)
        buf_printf(&b, " (and %d skipped by #+/#- under the session's *features*)", out->skipped_forms);
    buf_printf(&b, ", %s line endings\n", out->line_ending);
    if (offset > 0 || end < lf.count)
        buf_printf(&b, "Forms %d-%d of %d\n", offset + 1, end, lf.count);
    for (int i = offset; i < end; i++) {
        LsrcForm *f = &lf.forms[i];
        TclLispForm *o = &out->forms[out->count++];
        o->index = i;
        o->kind = xstrdup(f->kind);
        o->name = xstrdup(f->name);
        o->qualifiers = xstrdup(f->qualifiers);
        o->specializers = xstrdup(f->specializers);
        o->condition = xstrdup(f->condition);
        o->skipped = f->skipped;
        o->package = xstrdup(f->package);
        o->start_line = lsrc_line_of(&ls, f->start);
        o->start_column = lsrc_column_of(&ls, t, f->start);
        o->end_line = lsrc_line_of(&ls, f->end - 1);
        o->end_column = lsrc_column_of(&ls, t, f->end - 1);
        bool whole = !collapsed;
        if (!whole && nre && f->name && regexec(nre, f->name, 0, NULL, 0) == 0) whole = true;
        if (!whole && cre) {
            char *ft = xstrndup(t + f->start, f->end - f->start);
            if (regexec(cre, ft, 0, NULL, 0) == 0) whole = true;
            free(ft);
        }
        o->expanded = whole || (o->start_line == o->end_line && f->end - f->start <= FIRST_LINE_MAX);
        if (o->expanded) o->text = xstrndup(t + f->start, f->end - f->start);
        else o->text = first_line_capped(t + f->start, line_text_end(&ls, t, n, o->start_line) - f->start);
        if (!collapsed) {
            /* the comments and blank lines before the form, exactly */
            int gl = lsrc_line_of(&ls, f->gap_start);
            if (f->gap_start > 0 && gl < o->start_line && ls.start[gl - 1] < f->gap_start) gl++;
            if (gl < o->start_line) add_numbered(&b, &ls, t, n, gl, o->start_line - 1);
        }
        buf_printf(&b, "[%d] ", i);
        form_label(&b, f);
        if (o->start_line == o->end_line) buf_printf(&b, "  (line %d)\n", o->start_line);
        else buf_printf(&b, "  (lines %d-%d)\n", o->start_line, o->end_line);
        if (o->expanded) add_numbered(&b, &ls, t, n, o->start_line, o->end_line);
        else {
            buf_printf(&b, "%5d| %s\n", o->start_line, o->text);
            if (o->end_line > o->start_line)
                buf_printf(&b, "     | ... %d more line%s\n", o->end_line - o->start_line,
                           o->end_line - o->start_line == 1 ? "" : "s");
        }
    }
    if (!collapsed && end == lf.count && lf.count > 0 && !lf.problem) {
        /* comments after the last form */
        int from = lsrc_line_of(&ls, lf.forms[lf.count - 1].end - 1) + 1;
        if (from <= out->lines) add_numbered(&b, &ls, t, n, from, out->lines);
    }
    if (out->next_offset >= 0) buf_printf(&b, "More forms: call again with offset %d.\n", out->next_offset);
    if (lf.problem) {
        buf_printf(&b, "[problem] The file does not read as Lisp from line %d, column %d:\n%s\n", lf.problem->line,
                   lf.problem->column, lf.problem->message);
        out->problem = lf.problem;
        lf.problem = NULL;
    }
    if (b.len > 0 && b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
    out->text = buf_take(&b);
    lsrc_file_free(&lf);
    lsrc_lines_free(&ls);
    free(t);
    if (nre) { regfree(nre); free(nre); }
    if (cre) { regfree(cre); free(cre); }
    return out;
}

void tcl_lisp_file_free(TclLispFile *f) {
    if (!f) return;
    for (int i = 0; i < f->count; i++) {
        TclLispForm *o = &f->forms[i];
        free(o->kind); free(o->name); free(o->qualifiers); free(o->specializers); free(o->condition);
        free(o->package); free(o->text);
    }
    free(f->forms);
    free(f->path);
    free(f->text);
    free(f->line_ending);
    tcl_paren_report_free(f->problem);
    free(f->error_type);
    free(f->error_message);
    free(f);
}

/* ---- edit-lisp-form ---- */

/* FORM_NAME split into the name and, for methods, qualifiers and specializers (all upper case). */
typedef struct NameSpec { char *package; char *name; char *qualifiers; char *specializers; } NameSpec;

static void upcase(char *s) { for (; *s; s++) *s = (char)toupper((unsigned char)*s); }

/* Upper case, package prefix split off (into *PKG, or NULL). */
static char *symbol_key(const char *text, char **pkg) {
    size_t n = strlen(text);
    *pkg = NULL;
    if (n && text[0] == '(') {   /* (setf foo) */
        char *d = xstrdup(text);
        upcase(d);
        return d;
    }
    const char *colon = NULL;
    for (const char *p = text; *p; p++)
        if (*p == '|') { p = strchr(p + 1, '|'); if (!p) break; }
        else if (*p == ':' && p > text) { colon = p; break; }
    if (colon) {
        *pkg = lsrc_designator_upcase(text, (size_t)(colon - text));
        const char *nm = colon;
        while (*nm == ':') nm++;
        return lsrc_designator_upcase(nm, strlen(nm));
    }
    return lsrc_designator_upcase(text, n);
}

static void namespec_parse(const char *form_name, NameSpec *ns) {
    memset(ns, 0, sizeof *ns);
    size_t n = strlen(form_name);
    size_t i = lsrc_skip_atmosphere(form_name, n, 0);
    if (i == (size_t)-1 || i >= n) { ns->name = xstrdup(""); return; }
    size_t e = lsrc_datum_end(form_name, n, i, 0);
    if (e == (size_t)-1) e = n;
    /* collapse the name's whitespace */
    char *raw = xstrndup(form_name + i, e - i);
    Buf nb = {0};
    bool sp = false;
    for (char *p = raw; *p; p++) {
        if (isspace((unsigned char)*p)) { sp = true; continue; }
        if (sp && nb.len && nb.s[nb.len - 1] != '(' && *p != ')') buf_add(&nb, " ");
        sp = false;
        buf_addn(&nb, p, 1);
    }
    free(raw);
    char *nm = buf_take(&nb);
    ns->name = symbol_key(nm, &ns->package);
    free(nm);
    Buf q = {0};
    for (;;) {
        i = lsrc_skip_atmosphere(form_name, n, e);
        if (i == (size_t)-1 || i >= n) break;
        e = lsrc_datum_end(form_name, n, i, 0);
        if (e == (size_t)-1) e = n;
        if (form_name[i] == '(') {
            /* the specializers: a parameter list "((s circle) x)" or the classes "(circle t)" */
            Buf sb = {0};
            buf_add(&sb, "(");
            size_t j = i + 1;
            int count = 0;
            for (;;) {
                j = lsrc_skip_atmosphere(form_name, n, j);
                if (j == (size_t)-1 || j >= n || form_name[j] == ')') break;
                size_t je = lsrc_datum_end(form_name, n, j, 1);
                if (je == (size_t)-1) break;
                if (form_name[j] == '&') break;
                char *one;
                size_t a0 = form_name[j] == '(' ? lsrc_skip_atmosphere(form_name, n, j + 1) : (size_t)-1;
                bool eql = a0 != (size_t)-1 && a0 + 3 <= n && strncasecmp(form_name + a0, "eql", 3) == 0 &&
                           (a0 + 3 == n || isspace((unsigned char)form_name[a0 + 3]));
                if (form_name[j] == '(' && !eql) {
                    /* a parameter (s circle): its specializer */
                    size_t a = a0;
                    size_t ae = lsrc_datum_end(form_name, n, a, 1);
                    size_t b2 = lsrc_skip_atmosphere(form_name, n, ae);
                    size_t be = lsrc_datum_end(form_name, n, b2, 1);
                    one = be != (size_t)-1 && form_name[b2] != ')' ? xstrndup(form_name + b2, be - b2) : xstrdup("T");
                } else one = xstrndup(form_name + j, je - j);
                if (count++) buf_add(&sb, " ");
                buf_add(&sb, one);
                free(one);
                j = je;
            }
            buf_add(&sb, ")");
            ns->specializers = buf_take(&sb);
            upcase(ns->specializers);
        } else {
            if (q.len) buf_add(&q, " ");
            buf_addn(&q, form_name + i, e - i);
        }
    }
    if (q.len) { ns->qualifiers = buf_take(&q); upcase(ns->qualifiers); }
}

static void namespec_free(NameSpec *ns) { free(ns->package); free(ns->name); free(ns->qualifiers); free(ns->specializers); }

/* Specializers of a form as written, normalised for comparison: upper case, package prefixes off. */
static char *specializers_key(const char *spec) {
    Buf b = {0};
    for (const char *p = spec; *p;) {
        if (*p == ' ' || *p == '(' || *p == ')') { buf_addn(&b, p, 1); p++; continue; }
        const char *e = p;
        int depth = 0;
        while (*e && (depth > 0 || (*e != ' ' && *e != ')'))) {
            if (*e == '(') depth++;
            if (*e == ')') depth--;
            e++;
        }
        char *tok = xstrndup(p, (size_t)(e - p)), *pkg;
        char *k = tok[0] == '(' ? (upcase(tok), xstrdup(tok)) : symbol_key(tok, &pkg);
        if (tok[0] != '(') free(pkg);
        buf_add(&b, k);
        free(k);
        free(tok);
        p = e;
    }
    return buf_take(&b);
}

static bool form_matches(const LsrcForm *f, const char *type, const NameSpec *ns) {
    if (f->skipped) return false;   /* the reader does not see it */
    if (!f->kind || !f->name || strcasecmp(f->kind, type) != 0) return false;
    char *fpkg;
    char *fname = symbol_key(f->name, &fpkg);
    bool ok = strcmp(fname, ns->name) == 0;
    if (ok && ns->package) {
        const char *in = fpkg ? fpkg : f->package;
        ok = strcmp(in, ns->package) == 0 || (strcmp(ns->package, "CL-USER") == 0 && strcmp(in, "COMMON-LISP-USER") == 0);
    }
    free(fname);
    free(fpkg);
    if (ok && ns->specializers) {
        char *a = f->specializers ? specializers_key(f->specializers) : xstrdup("");
        char *b = specializers_key(ns->specializers);
        ok = strcmp(a, b) == 0;
        free(a);
        free(b);
    }
    if (ok && ns->qualifiers) {
        char *q = xstrdup(f->qualifiers ? f->qualifiers : "");
        upcase(q);
        ok = strcmp(q, ns->qualifiers) == 0;
        free(q);
    } else if (ok && ns->specializers && f->qualifiers) {
        ok = false;   /* "area (circle)" is the primary method, not "area :around (circle)" */
    }
    return ok;
}

static char *candidate_text(const LsrcForm *f, int line) {
    Buf b = {0};
    form_label(&b, f);
    buf_printf(&b, "  [line %d, package %s]", line, f->package);
    return buf_take(&b);
}

/* CONTENT with its line endings made EOL, without trailing blank space. */
static char *with_line_endings(const char *content, const char *eol) {
    Buf b = {0};
    size_t n = strlen(content);
    while (n > 0 && isspace((unsigned char)content[n - 1])) n--;
    for (size_t i = 0; i < n; i++) {
        if (content[i] == '\r' && i + 1 < n && content[i + 1] == '\n') continue;
        if (content[i] == '\n' || content[i] == '\r') buf_add(&b, eol);
        else buf_addn(&b, content + i, 1);
    }
    return buf_take(&b);
}

/* A unified diff of OLD and NEW (one hunk around the changed lines, three lines of context). */
static char *unified_diff(const char *path, const char *old, size_t on, const char *nw, size_t nn) {
    LsrcLines a, b;
    lsrc_lines_init(&a, old, on);
    lsrc_lines_init(&b, nw, nn);
    int al = a.count - (on > 0 && a.start[a.count - 1] >= on ? 1 : 0);
    int bl = b.count - (nn > 0 && b.start[b.count - 1] >= nn ? 1 : 0);
    if (on == 0) al = 0;
    if (nn == 0) bl = 0;
#define LINE(ls, t, n, i, s_, e_) do { s_ = (ls).start[i]; e_ = (i) + 1 < (ls).count ? (ls).start[(i) + 1] : (n); } while (0)
    int pre = 0;
    while (pre < al && pre < bl) {
        size_t s1, e1, s2, e2;
        LINE(a, old, on, pre, s1, e1);
        LINE(b, nw, nn, pre, s2, e2);
        if (e1 - s1 != e2 - s2 || memcmp(old + s1, nw + s2, e1 - s1) != 0) break;
        pre++;
    }
    int suf = 0;
    while (suf < al - pre && suf < bl - pre) {
        size_t s1, e1, s2, e2;
        LINE(a, old, on, al - 1 - suf, s1, e1);
        LINE(b, nw, nn, bl - 1 - suf, s2, e2);
        if (e1 - s1 != e2 - s2 || memcmp(old + s1, nw + s2, e1 - s1) != 0) break;
        suf++;
    }
    Buf d = {0};
    buf_printf(&d, "--- %s\n+++ %s\n", path, path);
    int ctx = 3;
    int from = pre - ctx < 0 ? 0 : pre - ctx;
    int a_to = al - suf + ctx > al ? al : al - suf + ctx;
    int b_to = bl - suf + ctx > bl ? bl : bl - suf + ctx;
    int acount = a_to - from, bcount = b_to - from;
    buf_printf(&d, "@@ -%d,%d +%d,%d @@\n", acount ? from + 1 : from, acount, bcount ? from + 1 : from, bcount);
    for (int pass = 0; pass < 4; pass++) {
        /* context before, removed, added, context after */
        int s_ = pass == 0 ? from : pass == 1 ? pre : pass == 2 ? pre : al - suf;
        int e_ = pass == 0 ? pre : pass == 1 ? al - suf : pass == 2 ? bl - suf : a_to;
        const LsrcLines *ls = pass == 2 ? &b : &a;
        const char *t = pass == 2 ? nw : old;
        size_t tn = pass == 2 ? nn : on;
        const char *mark = pass == 1 ? "-" : pass == 2 ? "+" : " ";
        for (int i = s_; i < e_; i++) {
            size_t s1, e1;
            LINE(*ls, t, tn, i, s1, e1);
            while (e1 > s1 && (t[e1 - 1] == '\n' || t[e1 - 1] == '\r')) e1--;
            buf_add(&d, mark);
            buf_addn(&d, t + s1, e1 - s1);
            buf_add(&d, "\n");
        }
    }
#undef LINE
    lsrc_lines_free(&a);
    lsrc_lines_free(&b);
    if (d.len && d.s[d.len - 1] == '\n') d.s[--d.len] = 0;
    return buf_take(&d);
}

static TclEditResult *edit_fail(TclEditResult *r, const char *type, char *message) {
    r->error_type = xstrdup(type);
    r->error_message = message;
    Buf b = {0};
    buf_printf(&b, "[ERROR] %s\n%s", type, message);
    if (r->ncandidates) {
        buf_add(&b, "\nCandidates:");
        for (int i = 0; i < r->ncandidates; i++) buf_printf(&b, "\n  %s", r->candidates[i]);
    }
    r->text = buf_take(&b);
    return r;
}

/* Whether the line before the one starting at S holds only blanks (true at the start of the file). */
static bool prev_line_blank(const char *t, size_t s) {
    if (s == 0) return true;
    size_t e = s;
    if (e > 0 && t[e - 1] == '\n') e--;
    if (e > 0 && t[e - 1] == '\r') e--;
    size_t b = e;
    while (b > 0 && t[b - 1] != '\n' && t[b - 1] != '\r') b--;
    for (size_t i = b; i < e; i++) if (t[i] != ' ' && t[i] != '\t') return false;
    return true;
}

/* Where the line after offset I ends (before its line ending) when only blanks or a ; comment
 * follow I on it; else I. */
static size_t rest_of_line_is_trailer(const char *t, size_t n, size_t i) {
    size_t e = i;
    while (e < n && (t[e] == ' ' || t[e] == '\t')) e++;
    if (e < n && t[e] == ';')
        while (e < n && t[e] != '\n' && t[e] != '\r') e++;
    return e >= n || t[e] == '\n' || t[e] == '\r' ? e : i;
}

static bool only_blank(const char *t, size_t s, size_t e) {
    for (size_t i = s; i < e; i++) if (t[i] != ' ' && t[i] != '\t') return false;
    return true;
}

TclEditResult *tcl_edit_lisp_form(TclSession *s, const char *path, const char *form_type, const char *form_name,
                                  const char *operation, const char *content, bool dry_run) {
    TclEditResult *r = (TclEditResult *)calloc(1, sizeof *r);
    r->dry_run = dry_run;
    r->operation = xstrdup(operation);
    bool del = strcmp(operation, "delete") == 0;
    if (!del && strcmp(operation, "replace") != 0 && strcmp(operation, "insert_before") != 0 &&
        strcmp(operation, "insert_after") != 0)
        return edit_fail(r, "INVALID-ARGUMENT", xprintf("Argument \"operation\" must be replace, insert_before, "
                                                        "insert_after or delete, not \"%s\".", operation));
    if (!del && (!content || !*content))
        return edit_fail(r, "INVALID-ARGUMENT", xprintf("Operation %s needs \"content\": the new form(s).", operation));
    if (!del) {
        TclParenReport *pr = tcl_check_parens(content, strlen(content));
        if (!pr->ok || pr->forms == 0) {
            char *m = pr->ok ? xstrdup("The content holds no form.")
                             : xprintf("The content does not read: %s Nothing was written.", pr->message);
            tcl_paren_report_free(pr);
            return edit_fail(r, "INVALID-CONTENT", m);
        }
        tcl_paren_report_free(pr);
        char *why = files_content_unreadable(s, content);
        if (why) {
            char *m = xprintf("The content does not read: %s Nothing was written.", why);
            free(why);
            return edit_fail(r, "INVALID-CONTENT", m);
        }
    }
    size_t n;
    char *et = NULL, *em = NULL;
    char *t = session_file_read(s, path, &n, &et, &em);
    if (!t) {
        edit_fail(r, et, em);
        free(et);
        return r;
    }
    char *key = stamp_key(path);
    Stamp *st = stamp_find(s, key);
    free(key);
    if (st && (st->size != n || st->hash != fnv1a(t, n))) {
        free(t);
        return edit_fail(r, "FILE-CHANGED", xprintf("%s changed on disk since it was last read through these tools; "
                                                    "nothing was written. Read it again (read-lisp-file) and redo the edit.", path));
    }
    LsrcLines ls;
    lsrc_lines_init(&ls, t, n);
    LsrcFile lf;
    lsrc_index(t, n, &lf);
    files_mark_skipped(s, &lf);
    NameSpec ns;
    namespec_parse(form_name, &ns);
    int found = -1, matches = 0;
    for (int i = 0; i < lf.count; i++)
        if (form_matches(&lf.forms[i], form_type, &ns)) { matches++; if (found < 0) found = i; }
    if (matches != 1) {
        /* the candidates: the matches when ambiguous, else the forms of that type (else every named form) */
        int any_type = 0;
        int hidden = -1;   /* a form of that name the session's *features* make the reader skip */
        for (int i = 0; i < lf.count; i++) {
            if (lf.forms[i].skipped && matches == 0 && hidden < 0) {
                lf.forms[i].skipped = false;
                if (form_matches(&lf.forms[i], form_type, &ns)) hidden = i;
                lf.forms[i].skipped = true;
            }
            if (!lf.forms[i].skipped && lf.forms[i].kind && strcasecmp(lf.forms[i].kind, form_type) == 0) any_type++;
        }
        r->candidates = (char **)calloc((size_t)lf.count + 1, sizeof(char *));
        for (int i = 0; i < lf.count; i++) {
            LsrcForm *f = &lf.forms[i];
            if (f->skipped) continue;
            bool show = matches > 1 ? form_matches(f, form_type, &ns)
                        : any_type ? (f->kind && strcasecmp(f->kind, form_type) == 0) : f->name != NULL;
            if (show && r->ncandidates < 100) r->candidates[r->ncandidates++] = candidate_text(f, lsrc_line_of(&ls, f->start));
        }
        char *m = matches > 1
                      ? xprintf("%d forms match %s %s in %s; name one of them (methods: \"name (specializer ...)\", "
                                "with qualifiers if any; \"package::name\" for a package).", matches, form_type, form_name, path)
                      : hidden >= 0
                      ? xprintf("No %s named %s in %s: the one at line %d is skipped by its reader conditional %s under "
                                "the session's *features*.", form_type, form_name, path,
                                lsrc_line_of(&ls, lf.forms[hidden].start), lf.forms[hidden].condition)
                      : xprintf("No %s named %s in %s%s.", form_type, form_name, path,
                                lf.problem ? " (the file stops reading as Lisp before its end; see check-parens)" : "");
        namespec_free(&ns);
        lsrc_file_free(&lf);
        lsrc_lines_free(&ls);
        free(t);
        return edit_fail(r, matches > 1 ? "AMBIGUOUS-FORM" : "FORM-NOT-FOUND", m);
    }
    namespec_free(&ns);
    LsrcForm *f = &lf.forms[found];
    r->start_line = lsrc_line_of(&ls, f->start);
    r->end_line = lsrc_line_of(&ls, f->end - 1);
    const char *le = line_ending_of(t, n);
    const char *eol = strcmp(le, "CRLF") == 0 ? "\r\n" : strcmp(le, "CR") == 0 ? "\r" : "\n";
    if (strcmp(le, "mixed") == 0) {
        /* the form's own line ending */
        size_t e = f->end;
        while (e < n && t[e] != '\n' && t[e] != '\r') e++;
        eol = e + 1 < n && t[e] == '\r' && t[e + 1] == '\n' ? "\r\n" : e < n && t[e] == '\r' ? "\r" : "\n";
    }
    char *body = del ? xstrdup("") : with_line_endings(content, eol);
    size_t cut_s = f->start, cut_e = f->end;
    Buf nb = {0};
    size_t line_s = ls.start[r->start_line - 1];
    bool starts_line = only_blank(t, line_s, f->start);
    if (strcmp(operation, "replace") == 0) {
        buf_addn(&nb, t, cut_s);
        buf_add(&nb, body);
        buf_addn(&nb, t + cut_e, n - cut_e);
    } else if (strcmp(operation, "insert_before") == 0) {
        size_t at = starts_line ? line_s : f->start;
        buf_addn(&nb, t, at);
        buf_add(&nb, body);
        buf_add(&nb, eol);
        if (starts_line) buf_add(&nb, eol);
        buf_addn(&nb, t + at, n - at);
    } else if (strcmp(operation, "insert_after") == 0) {
        /* after the form's line when only blanks or a comment follow it there (the comment is the form's) */
        size_t at = rest_of_line_is_trailer(t, n, cut_e);
        buf_addn(&nb, t, at);
        buf_add(&nb, eol);
        buf_add(&nb, eol);
        buf_add(&nb, body);
        buf_addn(&nb, t + at, n - at);
    } else {
        /* delete: whole lines when the form has its lines to itself (a comment after it on its last
         * line goes with it), and one of two blank lines around it */
        size_t e = rest_of_line_is_trailer(t, n, cut_e);
        bool ends_line = e >= n || t[e] == '\n' || t[e] == '\r';
        if (starts_line && ends_line) {
            cut_s = line_s;
            cut_e = e;
            if (cut_e < n && t[cut_e] == '\r') cut_e++;
            if (cut_e < n && t[cut_e] == '\n') cut_e++;
            size_t b2 = cut_e;
            while (b2 < n && (t[b2] == ' ' || t[b2] == '\t')) b2++;
            bool next_blank = b2 < n && (t[b2] == '\n' || t[b2] == '\r');
            bool prev_blank = prev_line_blank(t, cut_s);
            if (next_blank && prev_blank) {
                cut_e = b2;
                if (cut_e < n && t[cut_e] == '\r') cut_e++;
                if (cut_e < n && t[cut_e] == '\n') cut_e++;
            }
            if (cut_e >= n && cut_s > 0 && prev_blank) {
                /* the last form: the blank line before it goes too, so the file ends as it did */
                size_t q = cut_s;
                if (q > 0 && t[q - 1] == '\n') q--;
                if (q > 0 && t[q - 1] == '\r') q--;
                while (q > 0 && t[q - 1] != '\n' && t[q - 1] != '\r') q--;   /* the blank line's start */
                cut_s = q;
            }
        }
        buf_addn(&nb, t, cut_s);
        buf_addn(&nb, t + cut_e, n - cut_e);
    }
    free(body);
    char *nt = buf_take(&nb);
    size_t nn = nb.len;
    r->diff = unified_diff(path, t, n, nt, nn);
    bool ok = true;
    if (!dry_run) {
        char *wt = NULL, *wm = NULL;
        ok = session_file_write_atomic(s, path, nt, nn, &wt, &wm);
        if (ok) {
            stamp_record(s, path, nt, nn);
            r->written = true;
        } else {
            lsrc_file_free(&lf);
            lsrc_lines_free(&ls);
            free(t);
            free(nt);
            edit_fail(r, wt, wm);
            free(wt);
            return r;
        }
    }
    Buf b = {0};
    buf_printf(&b, "%s %s: ", dry_run ? "Dry run (nothing written)" : "Edited", path);
    buf_printf(&b, "%s ", operation);
    form_label(&b, f);
    if (r->start_line == r->end_line) buf_printf(&b, " (line %d)\n%s", r->start_line, r->diff);
    else buf_printf(&b, " (lines %d-%d)\n%s", r->start_line, r->end_line, r->diff);
    r->text = buf_take(&b);
    lsrc_file_free(&lf);
    lsrc_lines_free(&ls);
    free(t);
    free(nt);
    return r;
}

void tcl_edit_result_free(TclEditResult *e) {
    if (!e) return;
    free(e->operation);
    free(e->diff);
    free(e->text);
    for (int i = 0; i < e->ncandidates; i++) free(e->candidates[i]);
    free(e->candidates);
    free(e->error_type);
    free(e->error_message);
    free(e);
}
