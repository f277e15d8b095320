/* pathname.c: pathnames (CLHS chapter 19) with SBCL's Unix namestrings, and the file system
 * interface of chapter 20: truename, probe-file, directory, ensure-directories-exist, delete-file,
 * rename-file, file-write-date, file-author, user-homedir-pathname. */
#include "prim.h"
#include "pathname.h"
#include "logical.h"
#include "package.h"
#include "lstring.h"
#include "list.h"
#include "hash.h"
#include "stream.h"
#include "eval.h"
#include "access.h"
#include "docs.h"
#include "number.h"
#include "truename.h"
#include <stdarg.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>
#include <dirent.h>
#include <pwd.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/types.h>

/* ---- errors ---- */

_Noreturn void file_error(Lisp *L, Obj type, Obj pathname, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Obj msg = msg_vformat(L, fmt, ap);
    va_end(ap);
    err_with_message(L, type == NIL ? S(P_SIMPLE_FILE_ERROR) : type, list2(L, S(K_PATHNAME), pathname), msg);
}

static Obj list4(Lisp *L, Obj a, Obj b, Obj c, Obj d) { return cons(L, a, list3(L, b, c, d)); }

/* ---- construction ---- */

Obj pathname_make(Lisp *L, Obj host, Obj device, Obj directory, Obj name, Obj type, Obj version) {
    Pathname *p = (Pathname *)heap_alloc(L, T_PATHNAME, sizeof(Pathname));
    p->host = host;
    p->device = device;
    p->directory = directory;
    p->name = name;
    p->type = type;
    p->version = version;
    return (Obj)p;
}

static bool is_pattern(Lisp *L, Obj o) { return is_cons(o) && CAR(o) == S(P_PATTERN); }

static bool wild_component(Lisp *L, Obj o) { return o == S(K_WILD) || o == S(K_WILD_INFERIORS) || is_pattern(L, o); }

/* ---- parsing ---- */

typedef struct { const uint32_t *s; size_t n; } Span;

/* A name, type or directory component from characters with backslash escapes and wildcards. */
static Obj parse_component(Lisp *L, const uint32_t *s, size_t n, bool dir) {
    if (n == 1 && s[0] == '*') return S(K_WILD);
    if (dir && n == 2 && s[0] == '*' && s[1] == '*') return S(K_WILD_INFERIORS);
    if (dir && n == 2 && s[0] == '.' && s[1] == '.') return S(K_UP);
    StrBuf lit;
    sb_init(L, &lit, n + 1);
    Obj pieces = NIL;
    bool wild = false;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = s[i];
        if (c == '\\' && i + 1 < n) { sb_putc(L, &lit, s[++i]); continue; }
        if (c == '*' || c == '?' || c == '[') {
            size_t close = 0;
            if (c == '[') {
                for (size_t j = i + 1; j < n; j++) if (s[j] == ']') { close = j; break; }
                if (!close) { sb_putc(L, &lit, c); continue; }
            }
            wild = true;
            if (lit.len) { pieces = cons(L, sb_to_string(L, &lit), pieces); sb_init(L, &lit, n + 1); }
            if (c == '*') pieces = cons(L, S(K_MULTI_CHAR_WILD), pieces);
            else if (c == '?') pieces = cons(L, S(K_SINGLE_CHAR_WILD), pieces);
            else {
                pieces = cons(L, cons(L, S(K_CHARACTER_SET), string_from_u32(L, s + i + 1, close - i - 1)), pieces);
                i = close;
            }
            continue;
        }
        sb_putc(L, &lit, c);
    }
    if (!wild) return sb_to_string(L, &lit);
    if (lit.len) pieces = cons(L, sb_to_string(L, &lit), pieces);
    return cons(L, S(P_PATTERN), list_reverse(L, pieces));
}

/* Is s[i] escaped (preceded by an odd number of backslashes from the segment start)? */
static bool escaped_at(const uint32_t *s, size_t start, size_t i) {
    size_t k = 0;
    while (i > start && s[i - 1] == '\\') { k++; i--; }
    return k & 1;
}

Obj pathname_parse(Lisp *L, Obj str, size_t start, size_t end) {
    Obj logical;
    if (logical_parse_prefixed(L, str, start, end, &logical)) return logical;
    const uint32_t *s = STR(str)->data;
    Obj dir = NIL;
    bool absolute = false;
    size_t i = start;
    /* directory segments: everything up to the last unescaped slash */
    size_t last_slash = SIZE_MAX;
    for (size_t k = start; k < end; k++)
        if (s[k] == '/' && !escaped_at(s, start, k)) last_slash = k;
    Obj comps = NIL;
    if (last_slash != SIZE_MAX) {
        if (s[start] == '/') { absolute = true; i = start + 1; }
        bool first = true;
        while (i <= last_slash) {
            size_t j = i;
            while (j < last_slash && !(s[j] == '/' && !escaped_at(s, start, j))) j++;
            if (j > i) {
                if (first && !absolute && s[i] == '~') {
                    absolute = true;
                    comps = cons(L, j == i + 1 ? S(K_HOME)
                                               : list2(L, S(K_HOME), string_from_u32(L, s + i + 1, j - i - 1)), comps);
                } else {
                    comps = cons(L, parse_component(L, s + i, j - i, true), comps);
                }
                first = false;
            }
            i = j + 1;
        }
        dir = cons(L, absolute ? S(K_ABSOLUTE) : S(K_RELATIVE), list_reverse(L, comps));
        i = last_slash + 1;
    }
    /* file part */
    Obj name = NIL, type = NIL, version = NIL;
    if (i < end) {
        size_t dot = SIZE_MAX;
        for (size_t k = i; k < end; k++)
            if (s[k] == '.' && !escaped_at(s, i, k)) dot = k;
        if (dot == SIZE_MAX || dot == i) {
            name = parse_component(L, s + i, end - i, false);
        } else {
            name = parse_component(L, s + i, dot - i, false);
            type = parse_component(L, s + dot + 1, end - dot - 1, false);
        }
        version = S(K_NEWEST);
    }
    return pathname_make(L, NIL, NIL, dir, name, type, version);
}

Obj pathname_from_native(Lisp *L, const char *native, bool directory) {
    Obj str = string_from_cstr(L, native);
    const uint32_t *s = STR(str)->data;
    size_t n = STR(str)->len, i = 0;
    Obj comps = NIL;
    bool absolute = n > 0 && s[0] == '/';
    if (absolute) i = 1;
    size_t file_start = n;
    if (!directory) {
        file_start = 0;
        for (size_t k = 0; k < n; k++) if (s[k] == '/') file_start = k + 1;
    }
    while (i < file_start) {
        size_t j = i;
        while (j < file_start && s[j] != '/') j++;
        if (j > i) {
            if (j - i == 2 && s[i] == '.' && s[i + 1] == '.') comps = cons(L, S(K_UP), comps);
            else comps = cons(L, string_from_u32(L, s + i, j - i), comps);
        }
        i = j + 1;
    }
    Obj dir = absolute || comps != NIL ? cons(L, absolute ? S(K_ABSOLUTE) : S(K_RELATIVE), list_reverse(L, comps)) : NIL;
    Obj name = NIL, type = NIL, version = NIL;
    if (file_start < n) {
        size_t dot = SIZE_MAX;
        for (size_t k = file_start; k < n; k++) if (s[k] == '.') dot = k;
        if (dot == SIZE_MAX || dot == file_start) name = string_from_u32(L, s + file_start, n - file_start);
        else {
            name = string_from_u32(L, s + file_start, dot - file_start);
            type = string_from_u32(L, s + dot + 1, n - dot - 1);
        }
        version = S(K_NEWEST);
    }
    return pathname_make(L, NIL, NIL, dir, name, type, version);
}

/* ---- designators ---- */

static Obj designator_type(Lisp *L) {
    /* not SYNONYM-STREAM: a synonym stream that reaches no file stream must not satisfy it */
    return cons(L, S(OR), cons(L, S(STRING), cons(L, S(PATHNAME), cons(L, S(FILE_STREAM), NIL))));
}

Obj pathname_designated(Lisp *L, Obj d) {
    if (is_pathname(d)) return d;
    if (is_any_string(d)) {
        d = string_designator(L, d);
        return pathname_parse(L, d, 0, STR(d)->len);
    }
    if (is_stream(d)) {
        Obj s = d;
        for (int depth = 0; depth < 32 && is_stream(s) && STREAM(s)->h.aux == SK_SYNONYM; depth++) {
            Obj v = SYM(STREAM(s)->a)->value;
            s = v;
        }
        if (is_stream(s) && is_pathname(STREAM(s)->pathname)) return STREAM(s)->pathname;
        if (!is_stream(s) || STREAM(s)->h.aux != SK_FD) err_type(L, d, designator_type(L));
        err_simple(L, "The stream %S is not associated with a named file.", d);
    }
    err_type(L, d, designator_type(L));
}

static Obj default_defaults(Lisp *L) {
    Obj d = SYM(S(DEFAULT_PATHNAME_DEFAULTS))->value;
    if (!is_pathname(d)) {
        if (is_any_string(d)) return pathname_designated(L, d);
        err_type(L, d, S(PATHNAME));
    }
    return d;
}

/* ---- unparsing ---- */

static bool is_special_char(uint32_t c) { return c == '*' || c == '?' || c == '[' || c == '\\'; }

/* Put a literal string escaping wildcard characters; dots from position DOTS_FROM on are escaped too. */
static void put_literal(Lisp *L, StrBuf *b, Obj str, size_t dots_from) {
    String *s = STR(str);
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->data[i];
        if (is_special_char(c) || (c == '.' && i >= dots_from)) sb_putc(L, b, '\\');
        sb_putc(L, b, c);
    }
}

static void put_pattern(Lisp *L, StrBuf *b, Obj pat) {
    for (Obj l = CDR(pat); is_cons(l); l = CDR(l)) {
        Obj p = CAR(l);
        if (is_string(p)) put_literal(L, b, p, SIZE_MAX);
        else if (p == S(K_MULTI_CHAR_WILD)) sb_putc(L, b, '*');
        else if (p == S(K_SINGLE_CHAR_WILD)) sb_putc(L, b, '?');
        else if (is_cons(p) && CAR(p) == S(K_CHARACTER_SET) && is_string(CDR(p))) {
            sb_putc(L, b, '[');
            sb_put_string(L, b, CDR(p));
            sb_putc(L, b, ']');
        }
    }
}

_Noreturn static void no_namestring(Lisp *L, Obj p, const char *why, Obj arg) {
    (void)p;
    err_with_message(L, S(P_NO_NAMESTRING_ERROR), list2(L, S(K_PATHNAME), p),
                     arg == NO_VALUE ? msg_format(L, "The pathname does not have a namestring because %s", why)
                                     : msg_format(L, "The pathname does not have a namestring because %s %S is of length 0", why, arg));
}

static void put_directory(Lisp *L, StrBuf *b, Obj dir) {
    if (!is_cons(dir)) return;
    if (CAR(dir) == S(K_ABSOLUTE)) sb_putc(L, b, '/');
    for (Obj l = CDR(dir); is_cons(l); l = CDR(l)) {
        Obj c = CAR(l);
        if (is_string(c)) put_literal(L, b, c, SIZE_MAX);
        else if (c == S(K_WILD)) sb_putc(L, b, '*');
        else if (c == S(K_WILD_INFERIORS)) sb_puts(L, b, "**");
        else if (c == S(K_UP)) sb_puts(L, b, "..");
        else if (c == S(K_BACK)) err_simple(L, ":BACK cannot be represented in namestrings.");
        else if (c == S(K_HOME)) {
            /* "~/" replaces the leading slash */
            if (b->len && b->data[b->len - 1] == '/') b->len--;
            sb_putc(L, b, '~');
        } else if (is_cons(c) && CAR(c) == S(K_HOME) && is_cons(CDR(c)) && is_string(CAR(CDR(c)))) {
            if (b->len && b->data[b->len - 1] == '/') b->len--;
            sb_putc(L, b, '~');
            sb_put_string(L, b, CAR(CDR(c)));
        } else if (is_pattern(L, c)) put_pattern(L, b, c);
        sb_putc(L, b, '/');
    }
}

static bool component_present(Lisp *L, Obj c) { return c != NIL && c != S(K_UNSPECIFIC); }

static void put_file(Lisp *L, StrBuf *b, Obj p, Obj pn) {
    Pathname *x = PATHNAME(p);
    Obj name = x->name, type = x->type;
    bool has_name = component_present(L, name), has_type = component_present(L, type);
    if (!has_name) {
        if (has_type) no_namestring(L, pn, "there is a :TYPE component but no :NAME component", NO_VALUE);
        return;
    }
    if (is_string(name)) {
        if (STR(name)->len == 0) no_namestring(L, pn, "the :NAME component", name);
        put_literal(L, b, name, has_type ? SIZE_MAX : 1);
    } else if (name == S(K_WILD)) sb_putc(L, b, '*');
    else if (is_pattern(L, name)) put_pattern(L, b, name);
    if (has_type) {
        sb_putc(L, b, '.');
        if (is_string(type)) put_literal(L, b, type, 0);
        else if (type == S(K_WILD)) sb_putc(L, b, '*');
        else if (is_pattern(L, type)) put_pattern(L, b, type);
    }
}

Obj pathname_namestring(Lisp *L, Obj p) {
    if (logical_pathname_p(p)) return logical_namestring(L, p, LN_ALL);
    StrBuf b;
    sb_init(L, &b, 64);
    put_directory(L, &b, PATHNAME(p)->directory);
    put_file(L, &b, p, p);
    return sb_to_string(L, &b);
}

bool pathname_has_namestring(Lisp *L, Obj p) {
    Pathname *x = PATHNAME(p);
    bool has_name = component_present(L, x->name);
    if (!has_name && component_present(L, x->type)) return false;
    if (is_string(x->name) && STR(x->name)->len == 0) return false;
    for (Obj l = x->directory; is_cons(l); l = CDR(l))
        if (CAR(l) == S(K_BACK)) return false;
    return true;
}

static Obj file_namestring(Lisp *L, Obj p) {
    if (logical_pathname_p(p)) return logical_namestring(L, p, LN_FILE);
    StrBuf b;
    sb_init(L, &b, 32);
    put_file(L, &b, p, p);
    return sb_to_string(L, &b);
}

static Obj directory_namestring(Lisp *L, Obj p) {
    if (logical_pathname_p(p)) return logical_namestring(L, p, LN_DIRECTORY);
    StrBuf b;
    sb_init(L, &b, 64);
    put_directory(L, &b, PATHNAME(p)->directory);
    return sb_to_string(L, &b);
}

/* ---- merging ---- */

static Obj merge_directories(Lisp *L, Obj dir, Obj ddir) {
    if (dir == NIL) return ddir;
    if (!is_cons(dir) || CAR(dir) != S(K_RELATIVE) || !is_cons(ddir)) return dir;
    /* default's components followed by dir's, then :back removes the preceding component */
    Obj r = list_reverse(L, list_copy(L, ddir));
    for (Obj l = CDR(dir); is_cons(l); l = CDR(l)) {
        Obj c = CAR(l);
        if (c == S(K_BACK) && is_cons(CDR(r)) && is_string(CAR(r))) { r = CDR(r); continue; }
        r = cons(L, c, r);
    }
    return list_reverse(L, r);
}

Obj pathname_merge(Lisp *L, Obj p, Obj d, Obj default_version) {
    Pathname *x = PATHNAME(p), *y = PATHNAME(d);
    /* NIL is the physical host, so a physical pathname does not take a logical default's host */
    Obj host = x->host;
    Obj device = x->device != NIL ? x->device : host != y->host ? NIL : y->device;
    Obj dir = merge_directories(L, x->directory, y->directory);
    Obj name = x->name != NIL ? x->name : y->name;
    Obj type = x->type != NIL ? x->type : y->type;
    Obj version = x->version != NIL ? x->version : x->name != NIL ? default_version : y->version;
    if (version == NIL) version = default_version;   /* as SBCL: (merge-pathnames (make-pathname)) is :NEWEST */
    return pathname_make(L, host, device, dir, name, type, version);
}

Obj pathname_merged(Lisp *L, Obj d) {
    return pathname_merge(L, pathname_designated(L, d), default_defaults(L), S(K_NEWEST));
}

/* ---- wildness and matching ---- */

bool pathname_is_wild(Lisp *L, Obj p) {
    Pathname *x = PATHNAME(p);
    if (wild_component(L, x->name) || wild_component(L, x->type) || x->version == S(K_WILD)) return true;
    if (is_cons(x->directory))
        for (Obj l = CDR(x->directory); is_cons(l); l = CDR(l))
            if (wild_component(L, CAR(l))) return true;
    return false;
}

static bool charset_has(Obj set, uint32_t c) {
    String *s = STR(set);
    size_t i = 0;
    bool negate = false;
    if (s->len && (s->data[0] == '!' || s->data[0] == '^')) { negate = true; i = 1; }
    bool found = false;
    for (; i < s->len; i++) {
        if (i + 2 < s->len && s->data[i + 1] == '-') {
            if (c >= s->data[i] && c <= s->data[i + 2]) found = true;
            i += 2;
        } else if (s->data[i] == c) found = true;
    }
    return found != negate;
}

/* Match the pieces of a pattern against a string with captures. Failed (piece, position) states
 * are remembered, so a pattern like "*a*a*a*c" costs O(pieces x length^2), not exponential time. */
typedef struct PMatch {
    Obj *pieces;
    size_t np, n;
    const uint32_t *s;
    uint8_t *failed;      /* (np + 1) x (n + 1) bits */
} PMatch;

static bool pmatch(Lisp *L, PMatch *m, size_t pi, size_t pos, Obj *caps) {
    if (pi == m->np) return pos == m->n;
    size_t key = pi * (m->n + 1) + pos;
    if (m->failed[key >> 3] & (1u << (key & 7))) return false;
    safe_point(L);
    Obj p = m->pieces[pi];
    const uint32_t *s = m->s + pos;
    size_t rest = m->n - pos;
    bool ok = false;
    if (is_string(p)) {
        size_t k = STR(p)->len;
        ok = k <= rest && (k == 0 || memcmp(STR(p)->data, s, k * 4) == 0) && pmatch(L, m, pi + 1, pos + k, caps);
    } else if (p == S(K_SINGLE_CHAR_WILD) || (is_cons(p) && CAR(p) == S(K_CHARACTER_SET))) {
        if (rest > 0 && (!is_cons(p) || (is_string(CDR(p)) && charset_has(CDR(p), s[0])))) {
            Obj saved = *caps;
            *caps = cons(L, string_from_u32(L, s, 1), *caps);
            ok = pmatch(L, m, pi + 1, pos + 1, caps);
            if (!ok) *caps = saved;
        }
    } else if (p == S(K_MULTI_CHAR_WILD)) {
        /* shortest match first */
        for (size_t k = 0; k <= rest && !ok; k++) {
            Obj saved = *caps;
            *caps = cons(L, string_from_u32(L, s, k), *caps);
            ok = pmatch(L, m, pi + 1, pos + k, caps);
            if (!ok) *caps = saved;
        }
    }
    if (!ok) m->failed[key >> 3] |= (uint8_t)(1u << (key & 7));
    return ok;
}

static bool match_pieces(Lisp *L, Obj pieces, const uint32_t *s, size_t n, Obj *caps) {
    size_t np = list_length_proper(L, pieces);
    PMatch m;
    m.np = np;
    m.n = n;
    m.s = s;
    m.pieces = (Obj *)gc_alloc(L, (np ? np : 1) * sizeof(Obj));
    size_t i = 0;
    for (Obj l = pieces; l != NIL; l = CDR(l)) m.pieces[i++] = CAR(l);
    size_t bits = (np + 1) * (n + 1);
    gc_check_request(L, bits / 8 + 1);
    m.failed = (uint8_t *)gc_alloc_atomic(L, bits / 8 + 1);
    memset(m.failed, 0, bits / 8 + 1);
    return pmatch(L, &m, 0, 0, caps);
}

/* Does component C match wild component W? (NIL in W matches anything.) */
static bool match_component(Lisp *L, Obj c, Obj w, Obj *caps) {
    if (w == NIL || w == S(K_WILD)) {
        if (caps && w == S(K_WILD)) *caps = cons(L, c, *caps);
        return true;
    }
    if (is_pattern(L, w)) {
        if (!is_string(c)) return false;
        Obj tmp = NIL;
        if (!match_pieces(L, CDR(w), STR(c)->data, STR(c)->len, &tmp)) return false;
        if (caps) for (Obj l = list_reverse(L, tmp); l != NIL; l = CDR(l)) *caps = cons(L, CAR(l), *caps);
        return true;
    }
    if (is_string(w)) return is_string(c) && string_eq(c, w);
    return lisp_equal(L, c, w);
}

/* Match directory component lists (without the :absolute/:relative marker). */
static bool match_dirs(Lisp *L, Obj c, Obj w, Obj *caps) {
    stack_check(L);
    if (w == NIL) return c == NIL;
    if (CAR(w) == S(K_WILD_INFERIORS)) {
        Obj taken = NIL;
        for (Obj rest = c;; rest = CDR(rest)) {
            Obj saved = caps ? *caps : NIL;
            if (caps) *caps = cons(L, list_reverse(L, taken), *caps);
            if (match_dirs(L, rest, CDR(w), caps)) return true;
            if (caps) *caps = saved;
            if (rest == NIL) return false;
            taken = cons(L, CAR(rest), taken);
        }
    }
    if (c == NIL) return false;
    Obj saved = caps ? *caps : NIL;
    if (!match_component(L, CAR(c), CAR(w), caps)) return false;
    if (match_dirs(L, CDR(c), CDR(w), caps)) return true;
    if (caps) *caps = saved;
    return false;
}

static bool match_directory(Lisp *L, Obj c, Obj w, Obj *caps) {
    if (w == NIL) { if (caps) *caps = cons(L, c, *caps); return true; }
    if (!is_cons(w)) return lisp_equal(L, c, w);
    if (!is_cons(c)) c = list1(L, S(K_RELATIVE));
    if (CAR(c) != CAR(w)) return false;
    return match_dirs(L, CDR(c), CDR(w), caps);
}

static bool pathname_match(Lisp *L, Obj p, Obj w) {
    Pathname *x = PATHNAME(p), *y = PATHNAME(w);
    if (!match_directory(L, x->directory, y->directory, NULL)) return false;
    if (!match_component(L, x->name, y->name, NULL)) return false;
    if (!match_component(L, x->type, y->type, NULL)) return false;
    if (is_integer(y->version) && !lisp_eql(x->version, y->version)) return false;
    return true;
}

/* ---- translate-pathname ---- */

_Noreturn static void translate_mismatch(Lisp *L, Obj a, Obj b) {
    err_simple(L, "Pathname components from SOURCE and FROM args to TRANSLATE-PATHNAME\ndid not match:\n  %S %S", a, b);
}

/* Fill the wildcards of TO from the captures *CAPS (consumed in order). */
static Obj fill_component(Lisp *L, Obj src, Obj to, Obj *caps) {
    if (to == NIL) return src;
    if (to == S(K_WILD)) {
        if (*caps != NIL) { Obj c = CAR(*caps); *caps = CDR(*caps); return c; }
        return src;
    }
    if (!is_pattern(L, to)) return to;
    StrBuf b;
    sb_init(L, &b, 32);
    for (Obj l = CDR(to); is_cons(l); l = CDR(l)) {
        Obj p = CAR(l);
        if (is_string(p)) { sb_put_string(L, &b, p); continue; }
        if (*caps != NIL) {
            Obj c = CAR(*caps);
            *caps = CDR(*caps);
            if (is_string(c)) sb_put_string(L, &b, c);
        }
    }
    return sb_to_string(L, &b);
}

static Obj translate_component(Lisp *L, Obj src, Obj from, Obj to) {
    Obj caps = NIL;
    if (!match_component(L, src, from, &caps)) translate_mismatch(L, src, from);
    caps = list_reverse(L, caps);
    return fill_component(L, src, to, &caps);
}

static Obj translate_directory(Lisp *L, Obj src, Obj from, Obj to) {
    Obj caps = NIL;
    if (!match_directory(L, src, from, &caps))
        translate_mismatch(L, is_cons(src) ? CDR(src) : src, is_cons(from) ? CDR(from) : from);
    caps = list_reverse(L, caps);
    if (to == NIL) return src;
    if (!is_cons(to)) return to;
    Obj r = list1(L, CAR(to));
    for (Obj l = CDR(to); is_cons(l); l = CDR(l)) {
        Obj c = CAR(l);
        if (c == S(K_WILD_INFERIORS)) {
            if (caps != NIL) {
                Obj got = CAR(caps);
                caps = CDR(caps);
                if (is_list(got)) { for (; is_cons(got); got = CDR(got)) r = cons(L, CAR(got), r); }
                else r = cons(L, got, r);
            }
        } else if (c == S(K_WILD) || is_pattern(L, c)) {
            Obj filled = fill_component(L, NIL, c, &caps);
            if (filled != NIL) r = cons(L, filled, r);
        } else {
            r = cons(L, c, r);
        }
    }
    return list_reverse(L, r);
}

/* ---- native names and the file system ---- */

static const char *home_directory(Lisp *L, Obj user) {
    (void)L;
    if (user == NIL) {
        const char *h = getenv("HOME");
        if (h && *h) return h;
        struct passwd *pw = getpwuid(getuid());
        return pw ? pw->pw_dir : "/";
    }
    struct passwd *pw = getpwnam(string_to_utf8(L, user, NULL));
    if (!pw) err_simple(L, "The user %S has no home directory.", user);
    return pw->pw_dir;
}

static void put_native_component(Lisp *L, StrBuf *b, Obj c, Obj p) {
    if (is_string(c)) sb_put_string(L, b, c);
    else if (c == S(K_UP) || c == S(K_BACK)) sb_puts(L, b, "..");
    else file_error(L, NIL, p, "can't use a wild pathname here: %S", p);
}

static char *native_of(Lisp *L, Obj p, bool as_file) {
    Pathname *x = PATHNAME(p);
    if (pathname_is_wild(L, p)) file_error(L, NIL, p, "can't use a wild pathname here: %S", p);
    StrBuf b;
    sb_init(L, &b, 64);
    Obj dir = x->directory;
    if (is_cons(dir)) {
        Obj l = CDR(dir);
        if (CAR(dir) == S(K_ABSOLUTE)) {
            if (is_cons(l) && (CAR(l) == S(K_HOME) || (is_cons(CAR(l)) && CAR(CAR(l)) == S(K_HOME)))) {
                Obj user = CAR(l) == S(K_HOME) ? NIL : CAR(CDR(CAR(l)));
                sb_puts(L, &b, home_directory(L, user));
                if (!b.len || b.data[b.len - 1] != '/') sb_putc(L, &b, '/');
                l = CDR(l);
            } else {
                sb_putc(L, &b, '/');
            }
        }
        for (; is_cons(l); l = CDR(l)) {
            put_native_component(L, &b, CAR(l), p);
            sb_putc(L, &b, '/');
        }
    }
    if (component_present(L, x->name)) {
        put_native_component(L, &b, x->name, p);
        if (component_present(L, x->type)) {
            sb_putc(L, &b, '.');
            put_native_component(L, &b, x->type, p);
        }
    }
    /* a directory named as a file ("/tmp/" for syscalls on the directory itself) */
    if (as_file && b.len > 1 && b.data[b.len - 1] == '/') b.len--;
    if (b.len == 0) sb_putc(L, &b, '.');
    /* a NUL would silently cut the name short at the system call */
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] == 0) file_error(L, NIL, p, "The file name of %S contains a NUL character.", p);
    return string_to_utf8(L, sb_to_string(L, &b), NULL);
}

char *pathname_native(Lisp *L, Obj p) {
    p = logical_to_physical(L, p);
    return native_of(L, pathname_merge(L, p, default_defaults(L), S(K_NEWEST)), true);
}

static Obj native_string(Lisp *L, Obj p) { return string_from_cstr(L, pathname_native(L, p)); }

Obj pathname_probe(Lisp *L, Obj p) {
    char *native = pathname_native(L, p);
    char buf[PATH_MAX];
    if (!truename_resolve(native, buf)) return NIL;
    struct stat st;
    bool dir = stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
    return pathname_from_native(L, buf, dir);
}

static Obj truename_or_error(Lisp *L, Obj d) {
    Obj p = pathname_designated(L, d);
    if (pathname_is_wild(L, p)) file_error(L, NIL, p, "can't find the truename of wild pathname %S", p);
    Obj t = pathname_probe(L, p);
    if (t == NIL) {
        int e = errno;
        file_error(L, NIL, p, "Failed to find the TRUENAME of %s: %s", pathname_native(L, p), strerror(e));
    }
    return t;
}

/* ---- DIRECTORY ---- */

/* DIR and REAL: the last directory whose entries were resolved and its truename. */
typedef struct { Obj results; bool resolve; char *dir, *real; } DirCtx;

/* The truename of PATH, an entry of the directory of its first DLEN bytes that is no symbolic
 * link, into BUF: the directory's truename and the entry's name. realpath costs a readlink per
 * component of the path, and the source registry's scan resolves hundreds of entries. */
static char *gc_strdup(Lisp *L, const char *s) {
    size_t n = strlen(s) + 1;
    char *r = (char *)gc_alloc_atomic(L, n);
    memcpy(r, s, n);
    return r;
}

static bool entry_truename(Lisp *L, DirCtx *ctx, const char *path, size_t dlen, char *buf) {
    const char *name = path + dlen + 1;
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) return false;
    if (!ctx->dir || strlen(ctx->dir) != dlen || memcmp(ctx->dir, path, dlen) != 0) {
        char dir[PATH_MAX], real[PATH_MAX];
        if (dlen >= sizeof dir) return false;
        memcpy(dir, path, dlen);
        dir[dlen] = 0;
        if (!truename_resolve(dir, real)) return false;
        ctx->dir = gc_strdup(L, dir);
        ctx->real = gc_strdup(L, real);
    }
    size_t rl = strlen(ctx->real);
    if (rl + strlen(name) + 2 > PATH_MAX) return false;
    memcpy(buf, ctx->real, rl);
    if (rl == 0 || buf[rl - 1] != '/') buf[rl++] = '/';
    strcpy(buf + rl, name);
    return true;
}

static void add_result(Lisp *L, DirCtx *ctx, const char *path, bool is_dir) {
    char buf[PATH_MAX];
    const char *use = path;
    /* a symbolic link out of the readable directories is left out */
    if (!access_readable(L, path)) return;
    if (ctx->resolve) {
        struct stat st;
        const char *slash = strrchr(path, '/');
        if (slash && slash > path && lstat(path, &st) == 0 && !S_ISLNK(st.st_mode) &&
            entry_truename(L, ctx, path, (size_t)(slash - path), buf)) {
            is_dir = S_ISDIR(st.st_mode);
        } else {
            if (!truename_resolve(path, buf)) return;
            is_dir = stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
        }
        use = buf;
    }
    ctx->results = cons(L, string_from_cstr(L, is_dir && strcmp(use, "/") ? use : use), ctx->results);
    ctx->results = cons(L, is_dir ? S(T) : NIL, ctx->results);
}

static char *path_join(Lisp *L, const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *r = (char *)gc_alloc_atomic(L, a + b + 2);
    memcpy(r, dir, a);
    size_t k = a;
    if (k == 0 || r[k - 1] != '/') r[k++] = '/';
    memcpy(r + k, name, b + 1);
    return r;
}

static bool is_directory(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Match the file part (name and type) of the wild pathname W against a directory entry. */
static bool entry_matches(Lisp *L, Obj w, const char *entry) {
    Obj e = pathname_from_native(L, entry, false);
    Pathname *x = PATHNAME(e), *y = PATHNAME(w);
    Obj wn = y->name, wt = y->type;
    if (!(wn == S(K_WILD) ? true : match_component(L, x->name, wn == NIL ? NIL : wn, NULL))) return false;
    if (wn == NIL && x->name != NIL) return false;
    if (wt == S(K_WILD)) return true;
    if (wt == NIL || wt == S(K_UNSPECIFIC)) return x->type == NIL;
    return match_component(L, x->type, wt, NULL);
}

static void dir_walk(Lisp *L, DirCtx *ctx, const char *base, Obj comps, Obj w);

/* The directories being walked (device and inode of each ancestor): a symbolic link back to an
 * ancestor must not make ** recurse forever. */
typedef struct DirStack { struct DirStack *up; dev_t dev; ino_t ino; } DirStack;
static _Thread_local DirStack *dir_stack;

static bool dir_on_stack(const char *path, dev_t *dev, ino_t *ino) {
    struct stat st;
    if (stat(path, &st) != 0) return true;
    *dev = st.st_dev;
    *ino = st.st_ino;
    for (DirStack *d = dir_stack; d; d = d->up)
        if (d->dev == st.st_dev && d->ino == st.st_ino) return true;
    return false;
}

/* Walk the subdirectory SUB unless it is one of the directories being walked. */
static void dir_walk_sub(Lisp *L, DirCtx *ctx, const char *sub, Obj rest, Obj w) {
    DirStack frame;
    if (dir_on_stack(sub, &frame.dev, &frame.ino)) return;
    frame.up = dir_stack;
    dir_stack = &frame;
    /* an error (or an interrupt) while walking must not leave the stack pointing here */
    Frame fr;
    LISP_UNWIND_PROTECT_BEGIN(L, &fr) {
        dir_walk(L, ctx, sub, rest, w);
    } LISP_UNWIND_PROTECT_EXIT {
        dir_stack = frame.up;
    } LISP_UNWIND_PROTECT_END;
}

static void dir_walk_entries(Lisp *L, DirCtx *ctx, const char *base, Obj comp, Obj rest, Obj w) {
    if (!access_readable(L, base[0] ? base : ".")) return;
    DIR *d = opendir(base[0] ? base : ".");
    if (!d) return;
    Obj names = NIL;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        names = cons(L, string_from_cstr(L, de->d_name), names);
    }
    closedir(d);
    for (Obj l = names; l != NIL; l = CDR(l)) {
        safe_point(L);
        if (comp != NIL && !match_component(L, CAR(l), comp, NULL)) continue;
        char *sub = path_join(L, base, string_to_utf8(L, CAR(l), NULL));
        if (is_directory(sub)) dir_walk_sub(L, ctx, sub, rest, w);
    }
}

static void dir_walk(Lisp *L, DirCtx *ctx, const char *base, Obj comps, Obj w) {
    safe_point(L);
    if (comps == NIL) {
        Pathname *y = PATHNAME(w);
        if (!component_present(L, y->name) && !component_present(L, y->type)) {
            if (is_directory(base)) add_result(L, ctx, base, true);
            return;
        }
        if (!pathname_is_wild(L, pathname_make(L, NIL, NIL, NIL, y->name, y->type, NIL))) {
            char *path = path_join(L, base, string_to_utf8(L, file_namestring(L, pathname_make(L, NIL, NIL, NIL, y->name, y->type, NIL)), NULL));
            /* the native name: no escapes */
            StrBuf b;
            sb_init(L, &b, 32);
            sb_put_string(L, &b, y->name);
            if (component_present(L, y->type)) { sb_putc(L, &b, '.'); sb_put_string(L, &b, y->type); }
            path = path_join(L, base, string_to_utf8(L, sb_to_string(L, &b), NULL));
            struct stat st;
            if (stat(path, &st) == 0 || lstat(path, &st) == 0) add_result(L, ctx, path, S_ISDIR(st.st_mode));
            return;
        }
        if (!access_readable(L, base[0] ? base : ".")) return;
        DIR *d = opendir(base[0] ? base : ".");
        if (!d) return;
        Obj names = NIL;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
            names = cons(L, string_from_cstr(L, de->d_name), names);
        }
        closedir(d);
        for (Obj l = names; l != NIL; l = CDR(l)) {
            char *entry = string_to_utf8(L, CAR(l), NULL);
            if (!entry_matches(L, w, entry)) continue;
            char *path = path_join(L, base, entry);
            add_result(L, ctx, path, is_directory(path));
        }
        return;
    }
    Obj c = CAR(comps);
    if (is_string(c)) {
        char *sub = path_join(L, base, string_to_utf8(L, c, NULL));
        if (is_directory(sub)) dir_walk(L, ctx, sub, CDR(comps), w);
    } else if (c == S(K_UP) || c == S(K_BACK)) {
        char *sub = path_join(L, base, "..");
        if (is_directory(sub)) dir_walk(L, ctx, sub, CDR(comps), w);
    } else if (c == S(K_WILD_INFERIORS)) {
        /* zero levels, then every subdirectory recursively */
        dir_walk(L, ctx, base, CDR(comps), w);
        dir_walk_entries(L, ctx, base, NIL, comps, w);
    } else {
        dir_walk_entries(L, ctx, base, c == S(K_WILD) ? NIL : c, CDR(comps), w);
    }
}

static int cmp_native(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

DEFPRIM(prim_directory) {
    Obj keys[1] = {S(K_RESOLVE_SYMLINKS)}, out[1];
    parse_keys(L, nargs, args, 1, 1, keys, out);
    Obj w = pathname_merged(L, args[0]);
    if (logical_pathname_p(w)) w = pathname_merge(L, logical_to_physical(L, w), default_defaults(L), S(K_NEWEST));
    DirCtx ctx = {NIL, out[0] == NO_VALUE || out[0] != NIL, NULL, NULL};
    Obj dir = PATHNAME(w)->directory;
    /* CLHS 19.2.2.4.3: :UP or :BACK right after :ABSOLUTE or :WILD-INFERIORS is a FILE-ERROR */
    for (Obj l = dir; is_cons(l) && is_cons(CDR(l)); l = CDR(l)) {
        Obj a = CAR(l), b = CAR(CDR(l));
        if ((a == S(K_ABSOLUTE) || a == S(K_WILD_INFERIORS)) && (b == S(K_UP) || b == S(K_BACK)))
            err_file(L, w, "Invalid use of %S after %S.", b, a);
    }
    const char *base = "";
    Obj comps = NIL;
    if (is_cons(dir)) {
        comps = CDR(dir);
        if (CAR(dir) == S(K_ABSOLUTE)) {
            base = "/";
            if (is_cons(comps) && (CAR(comps) == S(K_HOME) || (is_cons(CAR(comps)) && CAR(CAR(comps)) == S(K_HOME)))) {
                base = home_directory(L, CAR(comps) == S(K_HOME) ? NIL : CAR(CDR(CAR(comps))));
                comps = CDR(comps);
            }
        } else {
            base = ".";
        }
    } else {
        base = ".";
    }
    /* the directory named before the first wild component must be readable */
    const char *fixed = base;
    for (Obj l = comps; is_cons(l) && is_string(CAR(l)); l = CDR(l))
        fixed = path_join(L, fixed, string_to_utf8(L, CAR(l), NULL));
    access_check(L, fixed, ACCESS_READ, "DIRECTORY", w);
    dir_walk(L, &ctx, base, comps, w);
    /* results: (isdir path)... pairs pushed in reverse; sort by name and drop duplicates */
    size_t n = 0;
    for (Obj l = ctx.results; l != NIL; l = CDR(CDR(l))) n++;
    char **paths = (char **)gc_alloc(L, (n ? n : 1) * sizeof(char *));
    size_t i = 0;
    for (Obj l = ctx.results; l != NIL; l = CDR(CDR(l))) {
        char *s = string_to_utf8(L, CAR(CDR(l)), NULL);
        size_t k = strlen(s);
        char *t = (char *)gc_alloc_atomic(L, k + 2);
        memcpy(t, s, k + 1);
        if (CAR(l) != NIL && (k == 0 || t[k - 1] != '/')) { t[k] = '/'; t[k + 1] = 0; }
        paths[i++] = t;
    }
    qsort(paths, n, sizeof(char *), cmp_native);
    Obj r = NIL;
    for (size_t k = n; k-- > 0;) {
        if (k + 1 < n && !strcmp(paths[k], paths[k + 1])) continue;
        size_t len = strlen(paths[k]);
        bool isdir = len > 0 && paths[k][len - 1] == '/';
        const char *nat = paths[k];
        if (nat[0] == '.' && nat[1] == '/') nat += 2;
        r = cons(L, pathname_from_native(L, nat, isdir), r);
    }
    return r;
}

/* ---- primitives ---- */

static Obj component_type(Lisp *L) {
    return cons(L, S(OR), cons(L, S(STRING), list1(L, cons(L, S(MEMBER), list3(L, NIL, S(K_UNSPECIFIC), S(K_WILD))))));
}

static Obj check_name_component(Lisp *L, Obj o) {
    if (is_any_string(o)) {
        Obj s = string_designator(L, o);
        return string_from_u32(L, STR(s)->data, STR(s)->len);
    }
    if (o == NIL || is_string(o) || o == S(K_WILD) || o == S(K_UNSPECIFIC) || is_pattern(L, o)) return o;
    err_type(L, o, component_type(L));
}

static Obj diddle_case(Lisp *L, Obj o, bool common) {
    if (!common || !is_string(o)) return o;
    String *s = STR(o);
    bool up = false, low = false;
    for (size_t i = 0; i < s->len; i++) {
        if (s->data[i] >= 'A' && s->data[i] <= 'Z') up = true;
        if (s->data[i] >= 'a' && s->data[i] <= 'z') low = true;
    }
    if (up == low) return o;
    Obj r = string_from_u32(L, s->data, s->len);
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = STR(r)->data[i];
        if (up && c >= 'A' && c <= 'Z') STR(r)->data[i] = c + 32;
        if (low && c >= 'a' && c <= 'z') STR(r)->data[i] = c - 32;
    }
    return r;
}

static Obj check_directory(Lisp *L, Obj d, bool common) {
    if (d == NIL || d == S(K_UNSPECIFIC)) return NIL;
    if (d == S(K_WILD)) return list2(L, S(K_ABSOLUTE), S(K_WILD_INFERIORS));
    if (is_any_string(d)) return list2(L, S(K_ABSOLUTE), diddle_case(L, string_designator(L, d), common));
    if (!is_cons(d)) err_type(L, d, cons(L, S(OR), cons(L, S(LIST), cons(L, S(STRING), list1(L, cons(L, S(MEMBER), list2(L, S(K_WILD), S(K_UNSPECIFIC))))))));
    list_length_proper(L, d);
    if (CAR(d) != S(K_ABSOLUTE) && CAR(d) != S(K_RELATIVE))
        err_simple(L, "%S is not a valid directory: it must start with :ABSOLUTE or :RELATIVE.", d);
    Obj r = list1(L, CAR(d));
    bool first = true;
    for (Obj l = CDR(d); l != NIL; l = CDR(l), first = false) {
        Obj c = CAR(l);
        if (is_any_string(c)) c = diddle_case(L, string_designator(L, c), common);
        else if (c == S(K_WILD) || c == S(K_WILD_INFERIORS) || c == S(K_UP) || is_pattern(L, c)) {}
        else if (c == S(K_BACK)) {
            if (is_cons(CDR(r)) && is_string(CAR(r))) { r = CDR(r); continue; }
        } else if (first && CAR(d) == S(K_ABSOLUTE) &&
                   (c == S(K_HOME) || (is_cons(c) && CAR(c) == S(K_HOME) && is_cons(CDR(c)) && is_string(CAR(CDR(c)))))) {}
        else err_simple(L, "%S is not allowed as a directory component.", c);
        r = cons(L, c, r);
    }
    return list_reverse(L, r);
}

static Obj check_host(Lisp *L, Obj h) {
    if (h == NIL || h == S(K_UNSPECIFIC)) return NIL;
    Obj logical = logical_host_find(L, h);
    if (logical != NIL) return logical;
    if (is_any_string(h)) err_fmt(L, S(SIMPLE_TYPE_ERROR), "logical host not yet defined: %S", h);
    err_type(L, h, cons(L, S(OR), list2(L, S(STRING), S(NULL))));
}

static Obj check_version(Lisp *L, Obj v) {
    if (v == NIL || v == S(K_NEWEST) || v == S(K_WILD) || v == S(K_UNSPECIFIC) || (is_integer(v) && !(is_fixnum(v) && fixnum_val(v) < 0)))
        return v;
    err_type(L, v, cons(L, S(OR), list2(L, S(INTEGER), cons(L, S(MEMBER), list4(L, NIL, S(K_NEWEST), S(K_WILD), S(K_UNSPECIFIC))))));
}

/* (make-pathname &key host device directory name type version defaults case) */
DEFPRIM(prim_make_pathname) {
    Obj keys[8] = {S(K_HOST), S(K_DEVICE), S(K_DIRECTORY), S(K_NAME), S(K_TYPE), S(K_VERSION), S(K_DEFAULTS), S(K_CASE)};
    Obj o[8];
    parse_keys(L, nargs, args, 0, 8, keys, o);
    bool common = o[7] == S(K_COMMON);
    if (o[7] != NO_VALUE && o[7] != S(K_COMMON) && o[7] != S(K_LOCAL))
        err_type(L, o[7], cons(L, S(MEMBER), list2(L, S(K_COMMON), S(K_LOCAL))));
    /* SBCL: a supplied component (even NIL) is used as is; the others come from :defaults */
    Obj d = (o[6] == NO_VALUE || o[6] == NIL) ? NIL : pathname_designated(L, o[6]);
    Pathname *dp = d == NIL ? NULL : PATHNAME(d);
    Obj host = o[0] != NO_VALUE ? check_host(L, o[0]) : dp ? dp->host : NIL;
    Obj device = o[1] != NO_VALUE ? o[1] : dp ? dp->device : NIL;
    if (is_any_string(device)) device = string_designator(L, device);
    else if (device != NIL && device != S(K_UNSPECIFIC)) err_type(L, device, component_type(L));
    Obj dir = o[2] != NO_VALUE ? check_directory(L, o[2], common) : dp ? dp->directory : NIL;
    Obj name = o[3] != NO_VALUE ? diddle_case(L, check_name_component(L, o[3]), common) : dp ? dp->name : NIL;
    Obj type = o[4] != NO_VALUE ? diddle_case(L, check_name_component(L, o[4]), common) : dp ? dp->type : NIL;
    Obj version = o[5] != NO_VALUE ? check_version(L, o[5]) : dp ? dp->version : NIL;
    if (is_string(host))   /* a logical pathname: upper-case words and no device */
        return pathname_make(L, host, S(K_UNSPECIFIC), logical_upcase_component(L, dir), logical_upcase_component(L, name),
                             logical_upcase_component(L, type), version);
    return pathname_make(L, host, device, dir, name, type, version);
}

DEFPRIM(prim_pathname) { UNUSED_ARGS; return pathname_designated(L, args[0]); }
DEFPRIM(prim_pathnamep) { UNUSED_ARGS; return boolean(L, is_pathname(args[0])); }

/* The pathname argument of PATHNAME-HOST ... PATHNAME-VERSION, after checking their &key (case). */
static Obj accessor_pathname(Lisp *L, int nargs, Obj *args) {
    Obj keys[1] = {S(K_CASE)}, out[1];
    parse_keys(L, nargs, args, 1, 1, keys, out);
    return pathname_designated(L, args[0]);
}

DEFPRIM(prim_pathname_host) { return PATHNAME(accessor_pathname(L, nargs, args))->host; }
DEFPRIM(prim_pathname_device) { return PATHNAME(accessor_pathname(L, nargs, args))->device; }
DEFPRIM(prim_pathname_directory) { return list_copy(L, PATHNAME(accessor_pathname(L, nargs, args))->directory); }
DEFPRIM(prim_pathname_name) { return PATHNAME(accessor_pathname(L, nargs, args))->name; }
DEFPRIM(prim_pathname_type) { return PATHNAME(accessor_pathname(L, nargs, args))->type; }
DEFPRIM(prim_pathname_version) { return PATHNAME(accessor_pathname(L, nargs, args))->version; }

DEFPRIM(prim_namestring) { UNUSED_ARGS; return pathname_namestring(L, pathname_designated(L, args[0])); }
DEFPRIM(prim_file_namestring) { UNUSED_ARGS; return file_namestring(L, pathname_designated(L, args[0])); }
DEFPRIM(prim_directory_namestring) { UNUSED_ARGS; return directory_namestring(L, pathname_designated(L, args[0])); }
DEFPRIM(prim_host_namestring) {
    UNUSED_ARGS;
    Obj p = pathname_designated(L, args[0]);
    return logical_pathname_p(p) ? logical_namestring(L, p, LN_HOST) : string_new(L, 0);
}

/* (sys:%namestring-or-nil pathname): the namestring, or NIL when it has none (for the printer) */
DEFPRIM(prim_pct_namestring_or_nil) {
    UNUSED_ARGS;
    Obj p = args[0];
    if (!is_pathname(p)) return NIL;
    Pathname *x = PATHNAME(p);
    if (!component_present(L, x->name) && component_present(L, x->type)) return NIL;
    if (is_string(x->name) && STR(x->name)->len == 0) return NIL;
    if (is_cons(x->directory))
        for (Obj l = CDR(x->directory); is_cons(l); l = CDR(l)) if (CAR(l) == S(K_BACK)) return NIL;
    return pathname_namestring(L, p);
}

DEFPRIM(prim_enough_namestring) {
    Obj p = pathname_designated(L, args[0]);
    Obj d = nargs > 1 ? pathname_designated(L, args[1]) : default_defaults(L);
    Pathname *x = PATHNAME(p), *y = PATHNAME(d);
    Obj dir = x->directory;
    if (lisp_equal(L, x->directory, y->directory)) dir = NIL;
    else if (is_cons(x->directory) && is_cons(y->directory) && CAR(x->directory) == S(K_ABSOLUTE) &&
             CAR(y->directory) == S(K_ABSOLUTE)) {
        Obj a = CDR(x->directory), b = CDR(y->directory);
        while (is_cons(a) && is_cons(b) && lisp_equal(L, CAR(a), CAR(b))) { a = CDR(a); b = CDR(b); }
        if (b == NIL) dir = cons(L, S(K_RELATIVE), a);
    }
    bool type_needed = component_present(L, x->type) && !lisp_equal(L, x->type, y->type);
    bool name_needed = type_needed || (component_present(L, x->name) && !lisp_equal(L, x->name, y->name));
    Obj r = pathname_make(L, x->host, x->host == NIL ? NIL : x->device, dir, name_needed ? x->name : NIL,
                          type_needed ? x->type : NIL, NIL);
    return pathname_namestring(L, r);
}

DEFPRIM(prim_merge_pathnames) {
    Obj d = nargs > 1 ? pathname_designated(L, args[1]) : default_defaults(L);
    Obj p = args[0], logical;
    if (is_any_string(p) && logical_pathname_p(d)) {
        /* as SBCL: a namestring merged with logical defaults is parsed on their host */
        p = string_designator(L, p);
        if (!logical_parse_prefixed(L, p, 0, STR(p)->len, &logical))
            logical = logical_parse(L, PATHNAME(d)->host, p, 0, STR(p)->len);
        p = logical;
    } else p = pathname_designated(L, p);
    Obj v = nargs > 2 ? args[2] : S(K_NEWEST);
    return pathname_merge(L, p, d, v);
}

/* (parse-namestring thing &optional host defaults &key start end junk-allowed) */
DEFPRIM(prim_parse_namestring) {
    Obj thing = args[0];
    Obj host = opt_arg(nargs, args, 1, NIL);
    if (nargs > 2 && args[2] != NIL) pathname_designated(L, args[2]);
    Obj keys[3] = {S(K_START), S(K_END), S(K_JUNK_ALLOWED)}, o[3];
    parse_keys(L, nargs, args, nargs < 3 ? nargs : 3, 3, keys, o);
    host = check_host(L, host);
    if (is_any_string(thing)) {
        thing = string_designator(L, thing);
        size_t len = STR(thing)->len;
        size_t end = (o[1] == NO_VALUE || o[1] == NIL) ? len : check_bound(L, o[1], len);
        size_t start = o[0] == NO_VALUE ? 0 : check_bound(L, o[0], end);
        Obj logical;
        if (is_string(host) && !logical_parse_prefixed(L, thing, start, end, &logical))
            return values2(L, logical_parse(L, host, thing, start, end), FIX((intptr_t)(end - start)));
        /* SBCL returns the number of characters parsed (END - START) rather than END */
        return values2(L, pathname_parse(L, thing, start, end), FIX((intptr_t)(end - start)));
    }
    Obj p = pathname_designated(L, thing);
    return values2(L, p, o[0] == NO_VALUE ? FIX(0) : o[0]);
}

/* The field keywords of WILD-PATHNAME-P, into the caller's K (keywords are per interpreter, and two
 * interpreters may run on two threads: no static buffer). */
static void field_keys(Lisp *L, Obj k[7]) {
    k[0] = NIL; k[1] = S(K_HOST); k[2] = S(K_DEVICE); k[3] = S(K_DIRECTORY); k[4] = S(K_NAME); k[5] = S(K_TYPE); k[6] = S(K_VERSION);
}

DEFPRIM(prim_wild_pathname_p) {
    Obj p = pathname_designated(L, args[0]);
    Obj f = opt_arg(nargs, args, 1, NIL);
    Obj k[7];
    field_keys(L, k);
    int which = -1;
    for (int i = 0; i < 7; i++) if (f == k[i]) which = i;
    if (which < 0) {
        Obj m = NIL;
        for (int i = 6; i >= 0; i--) m = cons(L, k[i], m);
        err_type(L, f, cons(L, S(MEMBER), m));
    }
    Pathname *x = PATHNAME(p);
    switch (which) {
    case 0: return boolean(L, pathname_is_wild(L, p));
    case 3:
        if (is_cons(x->directory))
            for (Obj l = CDR(x->directory); is_cons(l); l = CDR(l)) if (wild_component(L, CAR(l))) return S(T);
        return NIL;
    case 4: return boolean(L, wild_component(L, x->name));
    case 5: return boolean(L, wild_component(L, x->type));
    case 6: return boolean(L, x->version == S(K_WILD));
    default: return NIL;
    }
}

DEFPRIM(prim_pathname_match_p) {
    UNUSED_ARGS;
    return boolean(L, pathname_match(L, pathname_designated(L, args[0]), pathname_designated(L, args[1])));
}

DEFPRIM(prim_translate_pathname) {
    Obj src = pathname_designated(L, args[0]);
    Obj from = pathname_designated(L, args[1]);
    Obj to = pathname_designated(L, args[2]);
    if (nargs > 3 && (nargs - 3) % 2) err_program(L, "odd number of &KEY arguments");
    if (logical_pathname_p(src) && !logical_pathname_p(to)) {
        /* as SBCL: what the wildcards carry from a logical pathname to a Unix one is lower case */
        src = logical_downcase_pathname(L, src);
        from = logical_downcase_pathname(L, from);
    }
    Pathname *s = PATHNAME(src), *f = PATHNAME(from), *t = PATHNAME(to);
    Obj dir = translate_directory(L, s->directory, f->directory, t->directory);
    Obj name = translate_component(L, s->name, f->name, t->name);
    Obj type = translate_component(L, s->type, f->type, t->type);
    Obj version = t->version == NIL || t->version == S(K_WILD) ? s->version : t->version;
    /* the result is on TO's host: NIL (physical) when translating a logical pathname to a file */
    Obj device = t->device != NIL || t->host != s->host ? t->device : s->device;
    return pathname_make(L, t->host, device, dir, name, type, version);
}

/* Check that the policy lets OPERATION read (or WRITE) the file D designates. */
static void check_path(Lisp *L, Obj d, AccessMode mode, const char *operation) {
    Obj p = pathname_designated(L, d);
    if (pathname_is_wild(L, p)) return;   /* the operation itself refuses it */
    access_check(L, pathname_native(L, p), mode, operation, p);
}

DEFPRIM(prim_truename) {
    UNUSED_ARGS;
    check_path(L, args[0], ACCESS_READ, "TRUENAME");
    return truename_or_error(L, args[0]);
}

DEFPRIM(prim_probe_file) {
    UNUSED_ARGS;
    Obj p = pathname_designated(L, args[0]);
    if (pathname_is_wild(L, p)) file_error(L, NIL, p, "can't find the truename of wild pathname %S", p);
    access_check(L, pathname_native(L, p), ACCESS_READ, "PROBE-FILE", p);
    return pathname_probe(L, p);
}

DEFPRIM(prim_user_homedir_pathname) {
    UNUSED_ARGS;
    return pathname_from_native(L, home_directory(L, NIL), true);
}

DEFPRIM(prim_file_write_date) {
    UNUSED_ARGS;
    Obj p = pathname_designated(L, args[0]);
    struct stat st;
    char *native = pathname_native(L, p);
    access_check(L, native, ACCESS_READ, "FILE-WRITE-DATE", p);
    if (stat(native, &st) != 0) {
        int e = errno;
        file_error(L, NIL, p, "Failed to find the WRITE-DATE of %s: %s", native, strerror(e));
    }
    return FIX((intptr_t)st.st_mtime + 2208988800LL);
}

/* (sys:%directory-stamp pathspec) -> (values stamp settled-p): STAMP a list of the device, inode,
 * modification and status-change times (nanoseconds) of the file PATHSPEC names (a directory:
 * adding, removing or renaming an entry changes both times), NIL when it cannot be found;
 * SETTLED-P true when both times are more than a second old, so that a change made within the
 * clock's granularity after a listing cannot leave the same stamp (the source registry's cache of
 * directory listings, asdf.lisp, keeps only settled ones). */
DEFPRIM(prim_pct_directory_stamp) {
    UNUSED_ARGS;
    Obj p = pathname_designated(L, args[0]);
    struct stat st;
    char *native = pathname_native(L, p);
    access_check(L, native, ACCESS_READ, "DIRECTORY", p);
    if (stat(native, &st) != 0) return values2(L, NIL, NIL);
    int64_t m = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    int64_t c = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
    Obj v[4] = {make_int64(L, (int64_t)st.st_dev), make_int64(L, (int64_t)st.st_ino), make_int64(L, m), make_int64(L, c)};
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t n = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, newest = m > c ? m : c;
    return values2(L, list_from_array(L, 4, v), boolean(L, n - newest > 1000000000));
}

DEFPRIM(prim_file_author) {
    UNUSED_ARGS;
    Obj p = pathname_designated(L, args[0]);
    struct stat st;
    char *native = pathname_native(L, p);
    access_check(L, native, ACCESS_READ, "FILE-AUTHOR", p);
    if (stat(native, &st) != 0) {
        int e = errno;
        file_error(L, NIL, p, "Failed to find the AUTHOR of %s: %s", native, strerror(e));
    }
    struct passwd *pw = getpwuid(st.st_uid);
    return pw ? string_from_cstr(L, pw->pw_name) : NIL;
}

DEFPRIM(prim_delete_file) {
    UNUSED_ARGS;
    Obj p = pathname_designated(L, args[0]);
    char *native = pathname_native(L, p);
    access_check(L, native, ACCESS_WRITE, "DELETE-FILE", p);
    if (is_stream(args[0])) stream_close(L, args[0], false);
    if (unlink(native) != 0) {
        int e = errno;
        if (e == EISDIR || (e == EPERM && is_directory(native))) e = EISDIR;
        Obj ns = string_from_cstr(L, native);
        file_error(L, S(EXT_DELETE_FILE_ERROR), p, "Could not delete the file %S: %s", ns, strerror(e));
    }
    return S(T);
}

static void remove_tree(Lisp *L, const char *path, Obj p) {
    safe_point(L);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            Obj names = NIL;
            struct dirent *de;
            while ((de = readdir(d)) != NULL)
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) names = cons(L, string_from_cstr(L, de->d_name), names);
            closedir(d);
            for (Obj l = names; l != NIL; l = CDR(l)) remove_tree(L, path_join(L, path, string_to_utf8(L, CAR(l), NULL)), p);
        }
        if (rmdir(path) != 0) {
            int e = errno;
            file_error(L, NIL, p, "Could not delete directory %S: %s", string_from_cstr(L, path), strerror(e));
        }
    } else if (unlink(path) != 0) {
        int e = errno;
        file_error(L, S(EXT_DELETE_FILE_ERROR), p, "Could not delete the file %S: %s", string_from_cstr(L, path), strerror(e));
    }
}

/* (delete-directory pathspec &key recursive), as SBCL's SB-EXT:DELETE-DIRECTORY */
DEFPRIM(prim_delete_directory) {
    Obj keys[1] = {intern_cstr(L, L->pkg_keyword, "RECURSIVE")}, o[1];
    parse_keys(L, nargs, args, 1, 1, keys, o);
    Obj p = pathname_merged(L, args[0]);
    /* the directory itself: "/a/b/" or "/a/b" */
    char *native = native_of(L, p, true);
    access_check(L, native, ACCESS_WRITE, "DELETE-DIRECTORY", p);
    if (o[0] != NO_VALUE && o[0] != NIL) remove_tree(L, native, p);
    else if (rmdir(native) != 0) {
        int e = errno;
        file_error(L, NIL, p, "Could not delete directory %S: %s", string_from_cstr(L, native), strerror(e));
    }
    return args[0];
}

DEFPRIM(prim_rename_file) {
    UNUSED_ARGS;
    Obj file = pathname_designated(L, args[0]);
    Obj newp = pathname_merge(L, pathname_designated(L, args[1]), file, S(K_NEWEST));
    access_check(L, pathname_native(L, file), ACCESS_WRITE, "RENAME-FILE", file);
    access_check(L, pathname_native(L, newp), ACCESS_WRITE, "RENAME-FILE", newp);
    Obj old_true = truename_or_error(L, args[0]);
    char *from = pathname_native(L, old_true);
    char *to = pathname_native(L, newp);
    if (rename(from, to) != 0) {
        int e = errno;
        file_error(L, NIL, file, "Failed to rename %s to %s: %s", from, to, strerror(e));
    }
    Obj new_true = pathname_probe(L, newp);
    L->values[0] = newp;
    L->values[1] = old_true;
    L->values[2] = new_true == NIL ? newp : new_true;
    L->nvals = 3;
    return newp;
}

/* (ensure-directories-exist pathspec &key verbose mode) */
DEFPRIM(prim_ensure_directories_exist) {
    Obj keys[2] = {S(K_VERBOSE), intern_cstr(L, L->pkg_keyword, "MODE")}, o[2];
    parse_keys(L, nargs, args, 1, 2, keys, o);
    Obj p = pathname_merged(L, args[0]);
    Obj dir = PATHNAME(p)->directory;
    if (is_cons(dir))
        for (Obj l = CDR(dir); is_cons(l); l = CDR(l))
            if (wild_component(L, CAR(l))) file_error(L, NIL, p, "bad place for a wild pathname");
    mode_t mode = 0777;
    if (o[1] != NO_VALUE && o[1] != NIL) mode = (mode_t)check_fixnum(L, o[1]);
    Obj dirp = pathname_make(L, NIL, NIL, dir, NIL, NIL, NIL);
    char *native = native_of(L, dirp, false);
    /* whether the directories exist is itself something read */
    access_check(L, native, ACCESS_READ, "ENSURE-DIRECTORIES-EXIST", p);
    bool created = false;
    size_t n = strlen(native);
    char *buf = (char *)gc_alloc_atomic(L, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (i < n && native[i] != '/') continue;
        memcpy(buf, native, i);
        buf[i] = 0;
        if (is_directory(buf)) continue;
        if (o[0] != NO_VALUE && o[0] != NIL) {
            Obj out = stream_out(L, NIL);
            stream_fresh_line(L, out);
            stream_write_cstr(L, out, "creating directory: ");
            stream_write_cstr(L, out, buf);
            stream_terpri(L, out);
        }
        access_check(L, buf, ACCESS_WRITE, "ENSURE-DIRECTORIES-EXIST", p);
        if (mkdir(buf, mode) != 0 && errno != EEXIST) {
            int e = errno;
            file_error(L, NIL, p, "can't create directory %s: %s", buf, strerror(e));
        }
        created = true;
    }
    return values2(L, args[0], boolean(L, created));
}

/* (sys:%native-namestring pathname) */
DEFPRIM(prim_pct_native_namestring) { UNUSED_ARGS; return native_string(L, pathname_designated(L, args[0])); }

/* (compile-file-pathname input-file &key output-file) */
DEFPRIM(prim_compile_file_pathname) {
    /* other keys (external-format...) are accepted and ignored */
    Obj keys[2] = {S(K_OUTPUT_FILE), S(K_EXTERNAL_FORMAT)}, o[2];
    parse_keys(L, nargs, args, 1, 2, keys, o);
    Obj in = pathname_merged(L, args[0]);
    Obj fasl = pathname_make(L, NIL, NIL, NIL, NIL, string_from_cstr(L, "fasl"), NIL);
    if (o[0] != NO_VALUE && o[0] != NIL && o[0] != S(T)) {
        Obj out = pathname_designated(L, o[0]);
        Obj merged = pathname_merge(L, out, pathname_merge(L, fasl, in, S(K_NEWEST)), S(K_NEWEST));
        return pathname_merge(L, merged, default_defaults(L), S(K_NEWEST));
    }
    return pathname_make(L, PATHNAME(in)->host, PATHNAME(in)->device, PATHNAME(in)->directory,
                         PATHNAME(in)->name, string_from_cstr(L, "fasl"), PATHNAME(in)->version);
}

const PrimDef pathname_prims[] = {
    {"MAKE-PATHNAME", PK_CL, prim_make_pathname, 0, REST, 0, "(&key host device directory name type version defaults case)", "A pathname built from the components HOST, DEVICE, DIRECTORY, NAME, TYPE and VERSION; missing components come from DEFAULTS."},
    {"PATHNAME", PK_CL, prim_pathname, 1, 1, 0, "(pathspec)", "The pathname denoted by PATHSPEC: a pathname, a namestring, or a stream associated with a file."},
    {"PATHNAMEP", PK_CL, prim_pathnamep, 1, 1, 0, "(object)", "True when OBJECT is a pathname."},
    {"PATHNAME-HOST", PK_CL, prim_pathname_host, 1, REST, 0, "(pathname &key case)", "The host component of PATHNAME."},
    {"PATHNAME-DEVICE", PK_CL, prim_pathname_device, 1, REST, 0, "(pathname &key case)", "The device component of PATHNAME."},
    {"PATHNAME-DIRECTORY", PK_CL, prim_pathname_directory, 1, REST, 0, "(pathname &key case)", "The directory component of PATHNAME: NIL or a list starting with :ABSOLUTE or :RELATIVE."},
    {"PATHNAME-NAME", PK_CL, prim_pathname_name, 1, REST, 0, "(pathname &key case)", "The name component of PATHNAME."},
    {"PATHNAME-TYPE", PK_CL, prim_pathname_type, 1, REST, 0, "(pathname &key case)", "The type (extension) component of PATHNAME."},
    {"PATHNAME-VERSION", PK_CL, prim_pathname_version, 1, 1, 0, "(pathname)", "The version component of PATHNAME."},
    {"NAMESTRING", PK_CL, prim_namestring, 1, 1, 0, "(pathname)", "The full namestring of PATHNAME."},
    {"FILE-NAMESTRING", PK_CL, prim_file_namestring, 1, 1, 0, "(pathname)", "The name and type of PATHNAME as a namestring."},
    {"DIRECTORY-NAMESTRING", PK_CL, prim_directory_namestring, 1, 1, 0, "(pathname)", "The directory part of PATHNAME as a namestring."},
    {"HOST-NAMESTRING", PK_CL, prim_host_namestring, 1, 1, 0, "(pathname)", "The host part of PATHNAME as a string."},
    {"ENOUGH-NAMESTRING", PK_CL, prim_enough_namestring, 1, 2, 0, "(pathname &optional defaults)", "The shortest namestring that names PATHNAME when merged with DEFAULTS (default *DEFAULT-PATHNAME-DEFAULTS*)."},
    {"%NAMESTRING-OR-NIL", PK_SYS, prim_pct_namestring_or_nil, 1, 1, 0, "(pathname)", NULL},
    {"MERGE-PATHNAMES", PK_CL, prim_merge_pathnames, 1, 3, 0, "(pathname &optional defaults default-version)", "PATHNAME with its missing components filled from DEFAULTS (default *DEFAULT-PATHNAME-DEFAULTS*), a relative directory being appended to the default one; DEFAULT-VERSION supplies a missing version."},
    {"PARSE-NAMESTRING", PK_CL, prim_parse_namestring, 1, REST, FN_MV, "(thing &optional host defaults &key start end junk-allowed)", "Parses THING (a string from START to END, a pathname or a stream) into a pathname; returns it and the index where parsing stopped. JUNK-ALLOWED returns NIL instead of signalling on bad syntax."},
    {"WILD-PATHNAME-P", PK_CL, prim_wild_pathname_p, 1, 2, 0, "(pathname &optional field-key)", "True when PATHNAME has wildcards, in the component FIELD-KEY (such as :NAME) when given, else in any component."},
    {"PATHNAME-MATCH-P", PK_CL, prim_pathname_match_p, 2, 2, 0, "(pathname wildcard)", "True when PATHNAME matches the possibly wild pattern WILDCARD, component by component."},
    {"TRANSLATE-PATHNAME", PK_CL, prim_translate_pathname, 3, REST, 0, "(source from-wildcard to-wildcard &key)", "Rewrites SOURCE, which matches FROM-WILDCARD, into the pattern TO-WILDCARD, the parts matched by wildcards carried across."},
    {"TRUENAME", PK_CL, prim_truename, 1, 1, 0, "(filespec)", "The canonical name of the existing file FILESPEC, with links resolved; signals FILE-ERROR when it does not exist."},
    {"PROBE-FILE", PK_CL, prim_probe_file, 1, 1, 0, "(pathspec)", "The truename of the file named by PATHSPEC when it exists, otherwise NIL."},
    {"DIRECTORY", PK_CL, prim_directory, 1, REST, 0, "(pathspec &key resolve-symlinks)", "A list of the truenames of the existing files matching the possibly wild PATHSPEC."},
    {"USER-HOMEDIR-PATHNAME", PK_CL, prim_user_homedir_pathname, 0, 1, 0, "(&optional host)", "The pathname of the user's home directory."},
    {"%DIRECTORY-STAMP", PK_SYS, prim_pct_directory_stamp, 1, 1, FN_MV, "(pathspec)", NULL},
    {"FILE-WRITE-DATE", PK_CL, prim_file_write_date, 1, 1, 0, "(pathspec)", "The time the file named by PATHSPEC was last written, as a universal time, or NIL when it cannot be found."},
    {"FILE-AUTHOR", PK_CL, prim_file_author, 1, 1, 0, "(pathspec)", "The name of the owner of the file named by PATHSPEC, or NIL when it cannot be found."},
    {"DELETE-FILE", PK_CL, prim_delete_file, 1, 1, 0, "(file)", "Deletes the file named by FILE; returns T, or signals FILE-ERROR when it cannot."},
    {"DELETE-DIRECTORY", PK_EXT, prim_delete_directory, 1, REST, 0, "(pathspec &key recursive)", "Delete a directory (and its contents with :RECURSIVE T)."},
    {"RENAME-FILE", PK_CL, prim_rename_file, 2, 2, FN_MV, "(file new-name)", "Renames FILE to NEW-NAME merged with FILE; returns the new name, the old truename and the new truename."},
    {"ENSURE-DIRECTORIES-EXIST", PK_CL, prim_ensure_directories_exist, 1, REST, FN_MV, "(pathspec &key verbose mode)", "Creates any missing directories on the path of PATHSPEC; returns PATHSPEC and whether anything was created. VERBOSE reports each directory made."},
    {"%NATIVE-NAMESTRING", PK_SYS, prim_pct_native_namestring, 1, 1, 0, "(pathname)", NULL},
    {"COMPILE-FILE-PATHNAME", PK_CL, prim_compile_file_pathname, 1, REST, 0, "(input-file &key output-file)", "The pathname COMPILE-FILE would write for INPUT-FILE (with OUTPUT-FILE when given)."},
    {0},
};

/* documentation of the variable pathname_init defines (docs.h) */
const DocRow pathname_variable_docs[] = {
    {"*DEFAULT-PATHNAME-DEFAULTS*", "The pathname whose components fill the missing ones of pathnames used to open files; normally the current directory."},
    {0},
};

void pathname_init(Lisp *L) {
    prims_register(L, pathname_prims);
    pathname_default_init(L);
}

/* *DEFAULT-PATHNAME-DEFAULTS*: the current directory (of the process that starts, not of the build
 * that wrote the boot image). */
void pathname_default_init(Lisp *L) {
    char buf[PATH_MAX];
    Obj d;
    if (getcwd(buf, sizeof buf)) d = pathname_from_native(L, buf, true);
    else d = pathname_make(L, NIL, NIL, NIL, NIL, NIL, NIL);
    SYM(S(DEFAULT_PATHNAME_DEFAULTS))->h.flags |= SYM_SPECIAL;
    SYM(S(DEFAULT_PATHNAME_DEFAULTS))->value = d;
    logical_init(L);
}
