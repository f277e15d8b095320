/* lispsrc.c: Lisp source as text: balance checking with a likely fix, and the spans and heads of
 * top-level forms. Delimits forms as the standard reader does; reads no symbols, evaluates nothing. */
#include "lispsrc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define NOPE ((size_t)-1)
#define MAX_DEPTH 10000   /* the recursive form walker's limit; the checker itself is iterative */

static char *dup_n(const char *s, size_t n) {
    char *d = (char *)malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}
static char *dup_s(const char *s) { return s ? dup_n(s, strlen(s)) : NULL; }

/* ---- lines and columns ---- */

void lsrc_lines_init(LsrcLines *ls, const char *t, size_t n) {
    int cap = 64;
    ls->start = (size_t *)malloc(sizeof(size_t) * (size_t)cap);
    ls->count = 0;
    ls->start[ls->count++] = 0;
    for (size_t i = 0; i < n; i++) {
        bool nl = t[i] == '\n' || (t[i] == '\r' && (i + 1 >= n || t[i + 1] != '\n'));
        if (!nl) continue;
        if (ls->count == cap) {
            cap *= 2;
            ls->start = (size_t *)realloc(ls->start, sizeof(size_t) * (size_t)cap);
        }
        ls->start[ls->count++] = i + 1;
    }
}

void lsrc_lines_free(LsrcLines *ls) { free(ls->start); ls->start = NULL; }

int lsrc_line_of(const LsrcLines *ls, size_t off) {
    int lo = 0, hi = ls->count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (ls->start[mid] <= off) lo = mid; else hi = mid - 1;
    }
    return lo + 1;
}

int lsrc_column_of(const LsrcLines *ls, const char *t, size_t off) {
    size_t s = ls->start[lsrc_line_of(ls, off) - 1];
    int col = 1;
    for (size_t i = s; i < off; i++)
        if (((unsigned char)t[i] & 0xC0) != 0x80) col++;
    return col;
}

/* ---- the reader's character classes (standard syntax) ---- */

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
static bool is_terminating(char c) {
    return c == '"' || c == '\'' || c == '(' || c == ')' || c == ',' || c == ';' || c == '`';
}

/* The end of a string whose opening quote is at I, or NOPE. */
static size_t string_end(const char *t, size_t n, size_t i) {
    for (i++; i < n; i++) {
        if (t[i] == '\\') i++;
        else if (t[i] == '"') return i + 1;
    }
    return NOPE;
}

/* The end of a #| |# comment starting at I (nested), or NOPE. */
static size_t block_comment_end(const char *t, size_t n, size_t i) {
    int depth = 0;
    while (i < n) {
        if (t[i] == '#' && i + 1 < n && t[i + 1] == '|') { depth++; i += 2; }
        else if (t[i] == '|' && i + 1 < n && t[i + 1] == '#') {
            i += 2;
            if (--depth == 0) return i;
        } else i++;
    }
    return NOPE;
}

/* The end of a token starting at I (escapes and |multiple escapes| included). *BAD_BAR is set to
 * the offset of an unterminated | (then NOPE is returned). */
static size_t token_end(const char *t, size_t n, size_t i, size_t *bad_bar) {
    while (i < n) {
        char c = t[i];
        if (c == '\\') {
            if (i + 1 >= n) { *bad_bar = i; return NOPE; }
            i += 2;
        } else if (c == '|') {
            size_t open = i;
            for (i++; i < n && t[i] != '|'; i++)
                if (t[i] == '\\') i++;
            if (i >= n) { *bad_bar = open; return NOPE; }
            i++;
        } else if (is_ws(c) || is_terminating(c)) {
            break;
        } else i++;
    }
    return i;
}

/* After #\ at I (pointing at the backslash): the end of the character token. */
static size_t char_end(const char *t, size_t n, size_t i, size_t *bad) {
    i++;                                   /* the backslash */
    if (i >= n) { *bad = i - 2; return NOPE; }
    i++;
    while (i < n && ((unsigned char)t[i] & 0xC0) == 0x80) i++;   /* rest of a UTF-8 character */
    return token_end(t, n, i, bad);
}

size_t lsrc_skip_atmosphere(const char *t, size_t n, size_t i) {
    while (i < n) {
        if (is_ws(t[i])) i++;
        else if (t[i] == ';') { while (i < n && t[i] != '\n' && t[i] != '\r') i++; }
        else if (t[i] == '#' && i + 1 < n && t[i + 1] == '|') {
            i = block_comment_end(t, n, i);
            if (i == NOPE) return NOPE;
        } else break;
    }
    return i;
}

/* What # syntax at I (the #) is: the subcharacter's offset after the optional digits. */
static size_t dispatch_sub(const char *t, size_t n, size_t i) {
    i++;
    while (i < n && isdigit((unsigned char)t[i])) i++;
    return i;
}

/* How many data a prefix at I consumes (0: not a prefix), and where the prefix ends. */
static int prefix_args(const char *t, size_t n, size_t i, size_t *after) {
    char c = t[i];
    if (c == '\'' || c == '`') { *after = i + 1; return 1; }
    if (c == ',') { *after = i + 1 + (i + 1 < n && (t[i + 1] == '@' || t[i + 1] == '.')); return 1; }
    if (c != '#') return 0;
    size_t s = dispatch_sub(t, n, i);
    if (s >= n) return 0;
    switch (t[s]) {
    case '\'': case '.': case '=': case 'p': case 'P': case 'c': case 'C': case 'a': case 'A': case 's': case 'S':
        *after = s + 1;
        return 1;
    case '+': case '-':
        *after = s + 1;
        return 2;
    default: return 0;
    }
}

size_t lsrc_datum_end(const char *t, size_t n, size_t i, int depth) {
    if (i >= n || depth > MAX_DEPTH) return NOPE;
    size_t after, bad;
    int k = prefix_args(t, n, i, &after);
    if (k > 0) {
        size_t j = after;
        for (int a = 0; a < k; a++) {
            j = lsrc_skip_atmosphere(t, n, j);
            if (j == NOPE || j >= n || t[j] == ')') return NOPE;
            j = lsrc_datum_end(t, n, j, depth + 1);
            if (j == NOPE) return NOPE;
        }
        return j;
    }
    char c = t[i];
    if (c == '(' || (c == '#' && dispatch_sub(t, n, i) < n && t[dispatch_sub(t, n, i)] == '(')) {
        size_t j = c == '(' ? i + 1 : dispatch_sub(t, n, i) + 1;
        for (;;) {
            j = lsrc_skip_atmosphere(t, n, j);
            if (j == NOPE || j >= n) return NOPE;
            if (t[j] == ')') return j + 1;
            j = lsrc_datum_end(t, n, j, depth + 1);
            if (j == NOPE) return NOPE;
        }
    }
    if (c == ')') return NOPE;
    if (c == '"') return string_end(t, n, i);
    if (c == '#') {
        size_t s = dispatch_sub(t, n, i);
        if (s < n && t[s] == '\\') return char_end(t, n, s, &bad);
        if (s < n && t[s] == '"') return string_end(t, n, s);
        return token_end(t, n, s < n ? s + 1 : s, &bad);
    }
    return token_end(t, n, i, &bad);
}

/* ---- the balance checker (iterative, so any nesting depth is fine) ---- */

typedef struct Opener { size_t off; int col, maxcol; } Opener;   /* maxcol: the largest col up to here */

/* Columns while scanning forward: counted from the last offset asked about on the same line, so a
 * long line costs linear time, not quadratic. */
typedef struct ColCache { size_t line_start, off; int col; } ColCache;
static int col_at(ColCache *cc, const LsrcLines *ls, const char *t, size_t off) {
    size_t ls_off = ls->start[lsrc_line_of(ls, off) - 1];
    if (ls_off != cc->line_start || off < cc->off) { cc->line_start = ls_off; cc->off = ls_off; cc->col = 1; }
    for (size_t i = cc->off; i < off; i++)
        if (((unsigned char)t[i] & 0xC0) != 0x80) cc->col++;
    cc->off = off;
    return cc->col;
}

static void set_problem(TclParenReport *r, const char *problem, const LsrcLines *ls, const char *t, size_t off) {
    r->ok = false;
    r->problem = dup_s(problem);
    r->line = lsrc_line_of(ls, off);
    r->column = lsrc_column_of(ls, t, off);
}

/* The first line of the text at OFF, at most 80 characters. */
static char *first_line(const char *t, size_t n, size_t off) {
    size_t e = off;
    while (e < n && t[e] != '\n' && t[e] != '\r' && e - off < 80) e++;
    return dup_n(t + off, e - off);
}

static void describe(TclParenReport *r, const char *fmt_extra) {
    char buf[1024];
    const char *p = r->problem;
    if (!p) {
        snprintf(buf, sizeof buf, "Balanced: %d top-level form%s.", r->forms, r->forms == 1 ? "" : "s");
    } else if (strcmp(p, "unclosed") == 0) {
        int k = snprintf(buf, sizeof buf, "Unclosed ( at line %d, column %d: %s", r->line, r->column, r->form ? r->form : "");
        if (r->fix_line > 0 && k > 0 && (size_t)k < sizeof buf)
            snprintf(buf + k, sizeof buf - (size_t)k,
                     "\nLikely fix: %d closing parenthes%s missing at the end of line %d (%s).", r->fix_count,
                     r->fix_count == 1 ? "is" : "es", r->fix_line, fmt_extra ? fmt_extra : "judged from the indentation");
        else if (k > 0 && (size_t)k < sizeof buf)
            snprintf(buf + k, sizeof buf - (size_t)k, "\nLikely fix: close it at the end of the form (the file ends inside it).");
    } else if (strcmp(p, "unmatched-closer") == 0) {
        snprintf(buf, sizeof buf, "Unmatched ) at line %d, column %d (no form is open there).\nLikely fix: delete it, "
                 "or look before it for a form closed too early.", r->line, r->column);
    } else if (strcmp(p, "unterminated-string") == 0) {
        snprintf(buf, sizeof buf, "Unterminated string starting at line %d, column %d.\nLikely fix: add the closing \" "
                 "(or escape a \" inside the string as \\\").", r->line, r->column);
    } else if (strcmp(p, "unterminated-comment") == 0) {
        snprintf(buf, sizeof buf, "Unterminated #| comment starting at line %d, column %d.\nLikely fix: add |# "
                 "(#| |# comments nest: each #| needs its own |#).", r->line, r->column);
    } else if (strcmp(p, "unterminated-symbol") == 0) {
        snprintf(buf, sizeof buf, "Unterminated escape starting at line %d, column %d (a |symbol| without its closing |, "
                 "or a \\ at the end).\nLikely fix: close the | or write the character as #\\|.", r->line, r->column);
    } else {
        snprintf(buf, sizeof buf, "Incomplete form at line %d, column %d: %s needs a form after it.\nLikely fix: "
                 "complete or remove it.", r->line, r->column, r->form ? r->form : "the prefix");
    }
    r->message = dup_s(buf);
}

TclParenReport *tcl_check_parens(const char *t, size_t n) {
    TclParenReport *r = (TclParenReport *)calloc(1, sizeof *r);
    LsrcLines ls;
    lsrc_lines_init(&ls, t, n);
    size_t cap = 64, depth = 0;
    Opener *st = (Opener *)malloc(sizeof(Opener) * cap);
    int need = 0;                     /* data still to read before the current top-level form ends */
    size_t prefix_at = 0;                      /* the prefix of an incomplete top-level form */
    bool line_start = true;
    int suspect_line = 0, suspect_count = 0;   /* the first line indented like a closed form */
    size_t suspect_off = 0;                    /* the outermost opener it closes by its indentation */
    size_t i = 0, bad = 0;
    ColCache cc = {0, 0, 1};
    char blame[160] = "";

#define START_DATUM(at) do { if (depth == 0 && need == 0) { need = 1; prefix_at = (at); } } while (0)
#define DATUM_DONE() do { if (depth == 0 && --need == 0) r->forms++; } while (0)

    while (i < n) {
        char c = t[i];
        if (c == '\n' || c == '\r') { line_start = true; i++; continue; }
        if (is_ws(c)) { i++; continue; }
        if (line_start && depth > 0 && c != ')' && c != ';' && !(c == '#' && i + 1 < n && t[i + 1] == '|') && !suspect_line) {
            /* a line that starts at or left of an open opener: well-indented code never does that,
             * so the forms opened there were probably meant to be closed on the line before */
            int col = col_at(&cc, &ls, t, i);
            int count = 0;
            if (st[depth - 1].maxcol >= col)   /* counted once, when found: deep nesting stays linear */
                for (size_t k = 0; k < depth; k++)
                    if (st[k].col >= col) count++;
            if (count > 0) {
                int line = lsrc_line_of(&ls, i) - 1;
                while (line > 1) {   /* the last line before it with something on it */
                    size_t s = ls.start[line - 1], e = ls.start[line];
                    bool blank = true;
                    for (size_t q = s; q < e; q++) if (!is_ws(t[q])) blank = false;
                    if (!blank) break;
                    line--;
                }
                suspect_line = line;
                suspect_count = count;
                suspect_off = st[depth - (size_t)count].off;
            }
        }
        line_start = false;
        if (c == ';') { while (i < n && t[i] != '\n' && t[i] != '\r') i++; continue; }
        if (c == '#' && i + 1 < n && t[i + 1] == '|') {
            size_t e = block_comment_end(t, n, i);
            if (e == NOPE) { set_problem(r, "unterminated-comment", &ls, t, i); goto out; }
            i = e;
            continue;
        }
        size_t after;
        int k = prefix_args(t, n, i, &after);
        if (k > 0) {
            START_DATUM(i);
            if (depth == 0) need += k - 1;
            i = after;
            continue;
        }
        if (c == '(' || (c == '#' && dispatch_sub(t, n, i) < n && t[dispatch_sub(t, n, i)] == '(')) {
            START_DATUM(i);
            if (depth == cap) { cap *= 2; st = (Opener *)realloc(st, sizeof(Opener) * cap); }
            st[depth].off = i;
            st[depth].col = col_at(&cc, &ls, t, i);
            st[depth].maxcol = depth > 0 && st[depth - 1].maxcol > st[depth].col ? st[depth - 1].maxcol : st[depth].col;
            depth++;
            i = c == '(' ? i + 1 : dispatch_sub(t, n, i) + 1;
            continue;
        }
        if (c == ')') {
            if (depth == 0) { set_problem(r, "unmatched-closer", &ls, t, i); goto out; }
            depth--;
            i++;
            DATUM_DONE();
            continue;
        }
        START_DATUM(i);
        size_t e;
        if (c == '"') {
            e = string_end(t, n, i);
            if (e == NOPE) { set_problem(r, "unterminated-string", &ls, t, i); goto out; }
        } else if (c == '#') {
            size_t s = dispatch_sub(t, n, i);
            bad = i;
            /* #"..." is no standard syntax, but ABCL's Java calls use it: read it as a string */
            e = s < n && t[s] == '\\' ? char_end(t, n, s, &bad)
                : s < n && t[s] == '"' ? string_end(t, n, s)
                                        : token_end(t, n, s < n ? s + 1 : s, &bad);
            if (e == NOPE) { set_problem(r, s < n && t[s] == '"' ? "unterminated-string" : "unterminated-symbol", &ls, t,
                                         s < n && t[s] == '"' ? i : bad); goto out; }
        } else {
            e = token_end(t, n, i, &bad);
            if (e == NOPE) { set_problem(r, "unterminated-symbol", &ls, t, bad); goto out; }
        }
        i = e;
        DATUM_DONE();
    }
    if (depth > 0) {
        /* the outermost unclosed form; the fix names the form the indentation blames */
        set_problem(r, "unclosed", &ls, t, st[0].off);
        r->form = first_line(t, n, st[0].off);
        if (suspect_line) {
            r->fix_line = suspect_line;
            r->fix_count = suspect_count;
            snprintf(blame, sizeof blame, "to close the form at line %d, column %d, as the indentation of the line "
                     "after it suggests", lsrc_line_of(&ls, suspect_off), lsrc_column_of(&ls, t, suspect_off));
        }
    } else if (need > 0) {
        set_problem(r, "incomplete-form", &ls, t, prefix_at);
        r->form = first_line(t, n, prefix_at);
    } else {
        r->ok = true;
    }
out:
    describe(r, blame[0] ? blame : NULL);
    free(st);
    lsrc_lines_free(&ls);
    return r;
#undef START_DATUM
#undef DATUM_DONE
}

void tcl_paren_report_free(TclParenReport *r) {
    if (!r) return;
    free(r->problem);
    free(r->form);
    free(r->message);
    free(r->error_type);
    free(r->error_message);
    free(r);
}

/* ---- top-level forms and their heads ---- */

char *lsrc_designator_upcase(const char *s, size_t n) {
    char *d = (char *)malloc(n + 1);
    size_t k = 0;
    size_t i = 0;
    if (n >= 2 && s[0] == '#' && s[1] == ':') i = 2;
    else if (n >= 1 && s[0] == ':') i = 1;
    bool quoted = n >= 2 && s[i] == '"';
    for (; i < n; i++) {
        char c = s[i];
        if (c == '"' || c == '|') continue;
        if (c == '\\' && i + 1 < n) { d[k++] = s[++i]; continue; }
        d[k++] = quoted ? c : (char)toupper((unsigned char)c);
    }
    d[k] = 0;
    return d;
}

/* Text of [s, e) with runs of whitespace and comments made one space. */
static char *collapse(const char *t, size_t s, size_t e) {
    char *d = (char *)malloc(e - s + 1);
    size_t k = 0;
    bool space = false;
    for (size_t i = s; i < e; i++) {
        if (t[i] == '"') {   /* strings are kept as written */
            size_t se = string_end(t, e, i);
            if (se == NOPE) se = e;
            if (space && k > 0) d[k++] = ' ';
            space = false;
            memcpy(d + k, t + i, se - i);
            k += se - i;
            i = se - 1;
            continue;
        }
        if (is_ws(t[i])) { space = true; continue; }
        if (t[i] == ';') { while (i < e && t[i] != '\n') i++; space = true; continue; }
        if (space && k > 0 && d[k - 1] != '(' && t[i] != ')') d[k++] = ' ';
        space = false;
        d[k++] = t[i];
    }
    d[k] = 0;
    return d;
}

/* The element spans of the list starting at I ('('), at most MAX. Returns how many. */
static int list_elements(const char *t, size_t n, size_t i, size_t *s, size_t *e, int max) {
    int k = 0;
    size_t j = i + 1;
    while (k < max) {
        j = lsrc_skip_atmosphere(t, n, j);
        if (j == NOPE || j >= n || t[j] == ')') break;
        size_t end = lsrc_datum_end(t, n, j, 1);
        if (end == NOPE) break;
        s[k] = j;
        e[k] = end;
        k++;
        j = end;
    }
    return k;
}

/* The text of a symbol token without its package prefix, lower case. */
static char *bare_lower(const char *t, size_t s, size_t e) {
    size_t p = s;
    for (size_t i = s; i < e; i++) if (t[i] == ':') p = i + 1;
    char *d = dup_n(t + p, e - p);
    for (char *q = d; *q; q++) *q = (char)tolower((unsigned char)*q);
    return d;
}

static bool names_something(const char *kind) {
    return strncmp(kind, "def", 3) == 0 || strcmp(kind, "in-package") == 0 || strncmp(kind, "define", 6) == 0;
}

static void describe_form(const char *t, size_t n, size_t s, size_t e, LsrcForm *f) {
    size_t after;
    /* reader conditionals: #+feature FORM */
    while (prefix_args(t, n, s, &after) == 2) {
        size_t fs = lsrc_skip_atmosphere(t, n, after);
        size_t fe = fs == NOPE ? NOPE : lsrc_datum_end(t, n, fs, 1);
        if (fe == NOPE) break;
        char *feat = collapse(t, s, fe);
        if (f->condition) {
            char *both = (char *)malloc(strlen(f->condition) + strlen(feat) + 2);
            sprintf(both, "%s %s", f->condition, feat);
            free(f->condition);
            free(feat);
            f->condition = both;
        } else f->condition = feat;
        s = lsrc_skip_atmosphere(t, n, fe);
        if (s == NOPE || s >= e) return;
    }
    if (t[s] != '(') {
        f->kind = dup_s(t[s] == '#' && s + 1 < n && t[s + 1] == '.' ? "read-eval" : "atom");
        return;
    }
    size_t es[8], ee[8];
    int k = list_elements(t, n, s, es, ee, 8);
    if (k == 0 || t[es[0]] == '(' || t[es[0]] == '"') { f->kind = dup_s("list"); return; }
    f->kind = bare_lower(t, es[0], ee[0]);
    if (k < 2 || !names_something(f->kind)) return;
    if (strcmp(f->kind, "defstruct") == 0 && t[es[1]] == '(') {
        /* (defstruct (name options...)) */
        size_t ns[1], ne[1];
        if (list_elements(t, n, es[1], ns, ne, 1) == 1) f->name = collapse(t, ns[0], ne[0]);
    } else {
        f->name = collapse(t, es[1], ee[1]);
    }
    if (strcmp(f->kind, "defmethod") != 0) return;
    /* qualifiers up to the lambda list, then one specializer per required parameter */
    char quals[256] = "";
    int li = -1;
    for (int q = 2; q < k; q++) {
        if (t[es[q]] == '(') { li = q; break; }
        char *qt = collapse(t, es[q], ee[q]);
        if (strlen(quals) + strlen(qt) + 2 < sizeof quals) {
            if (quals[0]) strcat(quals, " ");
            strcat(quals, qt);
        }
        free(qt);
    }
    if (quals[0]) f->qualifiers = dup_s(quals);
    if (li < 0) return;
    size_t ps[64], pe[64];
    int np = list_elements(t, n, es[li], ps, pe, 64);
    size_t cap = 256, len = 0;
    char *spec = (char *)malloc(cap);
    spec[len++] = '(';
    for (int p = 0; p < np; p++) {
        if (t[ps[p]] == '&') break;
        char *one;
        if (t[ps[p]] == '(') {
            size_t vs[2], ve[2];
            one = list_elements(t, n, ps[p], vs, ve, 2) == 2 ? collapse(t, vs[1], ve[1]) : dup_s("T");
        } else one = dup_s("T");
        size_t ol = strlen(one);
        if (len + ol + 3 > cap) { cap = (len + ol + 3) * 2; spec = (char *)realloc(spec, cap); }
        if (len > 1) spec[len++] = ' ';
        memcpy(spec + len, one, ol);
        len += ol;
        free(one);
    }
    spec[len++] = ')';
    spec[len] = 0;
    f->specializers = spec;
}

void lsrc_index(const char *t, size_t n, LsrcFile *out) {
    memset(out, 0, sizeof *out);
    int cap = 64;
    out->forms = (LsrcForm *)calloc((size_t)cap, sizeof(LsrcForm));
    char *package = dup_s("COMMON-LISP-USER");
    size_t i = 0;
    for (;;) {
        size_t gap = i;
        i = lsrc_skip_atmosphere(t, n, i);
        if (i == NOPE || i >= n) break;
        size_t e = lsrc_datum_end(t, n, i, 0);
        if (e == NOPE) break;
        if (out->count == cap) {
            cap *= 2;
            out->forms = (LsrcForm *)realloc(out->forms, sizeof(LsrcForm) * (size_t)cap);
        }
        LsrcForm *f = &out->forms[out->count++];
        memset(f, 0, sizeof *f);
        f->gap_start = gap;
        f->start = i;
        f->end = e;
        describe_form(t, n, i, e, f);
        if (f->kind && strcmp(f->kind, "in-package") == 0 && f->name && !f->condition) {
            free(package);
            package = lsrc_designator_upcase(f->name, strlen(f->name));
        }
        f->package = dup_s(package);
        i = e;
    }
    free(package);
    TclParenReport *r = tcl_check_parens(t, n);
    if (r->ok) tcl_paren_report_free(r);
    else out->problem = r;
}

void lsrc_file_free(LsrcFile *f) {
    for (int i = 0; i < f->count; i++) {
        LsrcForm *x = &f->forms[i];
        free(x->kind); free(x->name); free(x->qualifiers); free(x->specializers); free(x->condition); free(x->package);
    }
    free(f->forms);
    tcl_paren_report_free(f->problem);
    memset(f, 0, sizeof *f);
}
