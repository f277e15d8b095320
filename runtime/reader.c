/* reader.c: the reader (CLHS chapter 2): readtables, tokens, the standard macro characters, #-dispatch. */
#include "reader.h"
#include "abi.h"
#include "prim.h"
#include "package.h"
#include "lstring.h"
#include "stream.h"
#include "number.h"
#include "character.h"
#include "eval.h"
#include "printer.h"
#include "sequence.h"
#include "docs.h"
#include "hash.h"
#include "array.h"

#define DOT_MARK OBJ(0x506)   /* a lone "." token, meaningful only inside a list */
#define NO_OBJECT OBJ(0x606)  /* a macro character returned no values */
#define EOF_MARK OBJ(0x706)
#define CLOSE_MARK OBJ(0x806) /* an unmatched close parenthesis */

/* ---- readtables ---- */

Obj readtable_current(Lisp *L) {
    Obj rt = SYM(S(READTABLE_VAR))->value;
    if (!is_type(rt, T_READTABLE)) {
        err_type(L, rt, S(READTABLE));
    }
    return rt;
}

static Obj extra_entry(Obj rt, uint32_t c) {
    for (Obj l = RT(rt)->extra; is_cons(l); l = CDR(l))
        if (fixnum_val(CAR(CAR(l))) == (intptr_t)c) return CDR(CAR(l));
    return NIL;
}

Syntax reader_syntax(Lisp *L, Obj rt, uint32_t c) {
    (void)L;
    if (c < RT_ASCII) return (Syntax)RT(rt)->syntax[c];
    Obj e = extra_entry(rt, c);
    if (e != NIL) return (Syntax)fixnum_val(CAR(e));
    return SYN_CONSTITUENT;
}

static Obj macro_fn(Obj rt, uint32_t c) {
    if (c < RT_ASCII) return RT(rt)->macro[c];
    Obj e = extra_entry(rt, c);
    return e != NIL ? CAR(CDR(e)) : NIL;
}

static Obj dispatch_table(Obj rt, uint32_t c) {
    if (c < RT_ASCII) return RT(rt)->dispatch[c];
    Obj e = extra_entry(rt, c);
    return e != NIL ? CAR(CDR(CDR(e))) : NIL;
}

Obj readtable_copy(Lisp *L, Obj from, Obj to) {
    if (to == NIL) to = heap_alloc(L, T_READTABLE, sizeof(Readtable));
    Readtable *f = RT(from), *t = RT(to);
    memcpy(t->syntax, f->syntax, sizeof t->syntax);
    memcpy(t->macro, f->macro, sizeof t->macro);
    t->rcase = f->rcase;
    for (int i = 0; i < RT_ASCII; i++) {
        t->dispatch[i] = NIL;
        if (f->dispatch[i] != NIL) {
            Obj v = heap_alloc(L, T_VECTOR, sizeof(Vector) + sizeof(Obj) * RT_ASCII);
            VEC(v)->len = RT_ASCII;
            memcpy(VEC(v)->data, VEC(f->dispatch[i])->data, sizeof(Obj) * RT_ASCII);
            t->dispatch[i] = v;
        }
    }
    Obj ex = NIL;
    for (Obj l = f->extra; is_cons(l); l = CDR(l)) {
        Obj e = CAR(l);
        ex = cons(L, cons(L, CAR(e), cons(L, CAR(CDR(e)), cons(L, CAR(CDR(CDR(e))), NIL))), ex);
    }
    t->extra = ex;
    return to;
}

/* ---- errors ---- */

_Noreturn static void rerr(Lisp *L, Obj stream, const char *msg, ...) {
    va_list ap;
    va_start(ap, msg);
    Obj m = msg_vformat(L, msg, ap);
    va_end(ap);
    err_reader(L, stream, "%A", m);
}

static int read_char_or_eof(Lisp *L, Obj stream) { return stream_read_char_fast(L, stream); }

static uint32_t read_char_required(Lisp *L, Obj stream) {
    int c = stream_read_char_fast(L, stream);
    if (c < 0) err_eof(L, stream);
    return (uint32_t)c;
}

/* ---- tokens ---- */

/* Most tokens are short: their characters and escape flags live in the Token itself (on the
 * C stack), and only a long token moves to the heap. This keeps reading from allocating
 * garbage for every symbol and number. */
#define TOKEN_INLINE 48

typedef struct Token {
    StrBuf chars;              /* data points at inline_chars until the token outgrows it */
    uint8_t *escaped;
    size_t ecap;
    bool any_escape;
    long escape_start;         /* length of chars when the last escape began, or -1 */
    uint32_t inline_chars[TOKEN_INLINE];
    uint8_t inline_escaped[TOKEN_INLINE];
} Token;

static void tok_init(Token *t) {
    t->chars.data = t->inline_chars;
    t->chars.len = 0;
    t->chars.cap = TOKEN_INLINE;
    t->escaped = t->inline_escaped;
    t->ecap = TOKEN_INLINE;
    t->any_escape = false;
    t->escape_start = -1;
}

static void tok_add(Lisp *L, Token *t, uint32_t c, bool esc) {
    size_t len = t->chars.len;
    if (len == t->chars.cap) {
        size_t n = t->chars.cap * 2;
        gc_check_request(L, n * 5);
        uint32_t *d = (uint32_t *)gc_alloc_atomic(L, n * 4);
        uint8_t *e = (uint8_t *)gc_alloc_atomic(L, n);
        memcpy(d, t->chars.data, len * 4);
        memcpy(e, t->escaped, len);
        t->chars.data = d;
        t->chars.cap = n;
        t->escaped = e;
        t->ecap = n;
    }
    t->chars.data[len] = c;
    t->escaped[len] = esc;
    t->chars.len = len + 1;
    if (esc) { t->any_escape = true; t->escape_start = (long)len; }
}

/* Accumulate a token whose first character C (of syntax SYN) has been read. */
static void read_token(Lisp *L, Obj stream, Obj rt, uint32_t c, Syntax syn, Token *t, bool preserve_ws) {
    tok_init(t);
    for (;;) {
        switch (syn) {
        case SYN_SINGLE_ESCAPE:
            tok_add(L, t, read_char_required(L, stream), true);
            break;
        case SYN_MULTI_ESCAPE:
            t->any_escape = true;   /* even "||" makes the token a symbol (CLHS 2.3.3) */
            t->escape_start = (long)t->chars.len;
            for (;;) {
                uint32_t d = read_char_required(L, stream);
                Syntax s2 = reader_syntax(L, rt, d);
                if (s2 == SYN_MULTI_ESCAPE) break;
                if (s2 == SYN_SINGLE_ESCAPE) d = read_char_required(L, stream);
                tok_add(L, t, d, true);
            }
            break;
        case SYN_INVALID:
            rerr(L, stream, "invalid constituent character %S", make_char(c));
        case SYN_CONSTITUENT:
            /* CLHS 2.1.4.2: these characters have the invalid constituent trait, also when
             * SET-SYNTAX-FROM-CHAR gave them constituent syntax */
            if (c == 8 || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ' || c == 127)
                rerr(L, stream, "invalid constituent character %S", make_char(c));
            tok_add(L, t, c, false);
            break;
        default:
            tok_add(L, t, c, false);
            break;
        }
        int n = stream_read_char_fast(L, stream);
        if (n < 0) return;
        c = (uint32_t)n;
        syn = reader_syntax(L, rt, c);
        if (syn == SYN_WHITESPACE) {
            if (preserve_ws) stream_unread_char(L, stream, c);
            return;
        }
        if (syn == SYN_TERM_MACRO) {
            stream_unread_char(L, stream, c);
            return;
        }
    }
}

static void apply_case(Lisp *L, Obj rt, Token *t) {
    ReadCase rc = RT(rt)->rcase;
    uint32_t *d = t->chars.data;
    size_t n = t->chars.len;
    if (rc == RCASE_PRESERVE) return;
    if (rc == RCASE_INVERT) {
        bool up = false, low = false;
        for (size_t i = 0; i < n; i++) {
            if (t->escaped[i]) continue;
            if (char_is_upper(d[i])) up = true;
            if (char_is_lower(d[i])) low = true;
        }
        if (up && low) return;
        for (size_t i = 0; i < n; i++)
            if (!t->escaped[i]) d[i] = up ? char_downcase(d[i]) : char_upcase(d[i]);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!t->escaped[i]) d[i] = rc == RCASE_UPCASE ? char_upcase(d[i]) : char_downcase(d[i]);
    (void)L;
}

static int read_base(Lisp *L) {
    Obj b = SYM(S(READ_BASE))->value;
    if (!is_fixnum(b) || fixnum_val(b) < 2 || fixnum_val(b) > 36) {
        SYM(S(READ_BASE))->value = FIX(10);
        err_type(L, b, cons(L, S(INTEGER), cons(L, FIX(2), cons(L, FIX(36), NIL))));
    }
    return (int)fixnum_val(b);
}

static Obj find_pkg_for_reader(Lisp *L, Obj stream, const uint32_t *s, size_t n) {
    Obj name = string_from_u32(L, s, n);
    Obj pkg = package_find(L, name);
    if (pkg == NIL)
        err_condition(L, S(P_READER_PACKAGE_ERROR),
                      cons(L, S(K_STREAM), cons(L, stream, cons(L, S(K_PACKAGE), cons(L, name,
                      cons(L, S(K_FORMAT_CONTROL), cons(L, string_from_cstr(L, "Package ~A does not exist."),
                      cons(L, S(K_FORMAT_ARGUMENTS), cons(L, cons(L, name, NIL), NIL)))))))));
    return pkg;
}

static Obj token_to_object(Lisp *L, Obj stream, Obj rt, Token *t) {
    if (SYM(S(READ_SUPPRESS))->value != NIL) return NIL;
    apply_case(L, rt, t);
    uint32_t *d = t->chars.data;
    size_t n = t->chars.len;
    if (!t->any_escape) {
        Obj num;
        if (number_parse_token(L, stream, d, n, read_base(L), &num)) return num;
        bool all_dots = n > 0;
        for (size_t i = 0; i < n; i++) if (d[i] != '.') all_dots = false;
        if (all_dots) {
            if (n == 1) return DOT_MARK;
            rerr(L, stream, "too many dots");
        }
    }
    /* package markers */
    long c1 = -1, c2 = -1;
    int ncolons = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == ':' && !t->escaped[i]) {
            ncolons++;
            if (c1 < 0) c1 = (long)i;
            else if (c2 < 0) c2 = (long)i;
        }
    }
    int st;
    if (ncolons == 0) return package_intern(L, current_package(L), d, n, &st);
    if (ncolons > 2 || (ncolons == 2 && c2 != c1 + 1))
        rerr(L, stream, "too many colons in %S", string_from_u32(L, d, n));
    const uint32_t *name = d + (ncolons == 2 ? c2 : c1) + 1;
    size_t nlen = n - (size_t)((ncolons == 2 ? c2 : c1) + 1);
    if (c1 == 0) {
        if (ncolons == 2) rerr(L, stream, "too many colons in %S", string_from_u32(L, d, n));
        return package_intern(L, L->pkg_keyword, name, nlen, &st);
    }
    /* "pkg::" has no symbol name, but "pkg::||" names the symbol whose name is empty */
    if ((size_t)(ncolons == 2 ? c2 : c1) == n - 1 && nlen == 0 && t->escape_start <= (ncolons == 2 ? c2 : c1))
        rerr(L, stream, "illegal terminating colon in %S", string_from_u32(L, d, n));
    Obj pkg = find_pkg_for_reader(L, stream, d, (size_t)c1);
    if (ncolons == 2) return package_intern(L, pkg, name, nlen, &st);
    Obj sym = package_find_symbol(L, pkg, name, nlen, &st);
    if (st == FIND_EXTERNAL) return sym;
    Obj nm = string_from_u32(L, name, nlen);
    Obj ctl = string_from_cstr(L, st == FIND_NONE ? "Symbol ~S not found in the ~A package."
                                                  : "The symbol ~S is not external in the ~A package.");
    err_condition(L, S(P_READER_PACKAGE_ERROR),
                  cons(L, S(K_STREAM), cons(L, stream, cons(L, S(K_PACKAGE), cons(L, pkg,
                  cons(L, S(K_FORMAT_CONTROL), cons(L, ctl, cons(L, S(K_FORMAT_ARGUMENTS),
                  cons(L, cons(L, nm, cons(L, PKG(pkg)->name, NIL)), NIL)))))))));
}

/* ---- the main loop ---- */

/* A token and the object it denotes. Out of line, so that the Token's inline buffer is not part
 * of read_inner's frame, which every level of nesting repeats. */
static __attribute__((noinline)) Obj read_token_object(Lisp *L, Obj stream, Obj rt, uint32_t c, Syntax syn,
                                                       bool preserve_ws) {
    Token t;
    read_token(L, stream, rt, c, syn, &t, preserve_ws);
    return token_to_object(L, stream, rt, &t);
}

static Obj read_inner(Lisp *L, Obj stream, bool preserve_ws);

static void check_depth(Lisp *L, Obj stream) {
    stack_check(L);
    if (L->read_depth > L->cfg.max_read_depth)
        rerr(L, stream, "nesting too deep (more than %d levels)", L->cfg.max_read_depth);
}


static Obj call_macro(Lisp *L, Obj fn, Obj stream, uint32_t c) {
    Obj r = funcall2(L, fn, stream, make_char(c));
    if (L->nvals == 0) return NO_OBJECT;
    return r;
}

/* Read the next object or a marker (DOT_MARK, NO_OBJECT, CLOSE_MARK, EOF_MARK). */
static Obj read_inner(Lisp *L, Obj stream, bool preserve_ws) {
    Obj rt = readtable_current(L);
    for (;;) {
        int ci = read_char_or_eof(L, stream);
        if (ci < 0) return EOF_MARK;
        uint32_t c = (uint32_t)ci;
        Syntax syn = reader_syntax(L, rt, c);
        if (syn == SYN_WHITESPACE) continue;
        if (syn == SYN_TERM_MACRO || syn == SYN_NONTERM_MACRO) {
            if (macro_fn(rt, c) == SYM(S(P_READ_RIGHT_PAREN))->function) return CLOSE_MARK;
            Obj fn = macro_fn(rt, c);
            if (fn == NIL) rerr(L, stream, "no macro function for %S", make_char(c));
            /* Every reader macro is one level of nesting, whichever macro calls the next
             * (#.#.#. or #+a #+a nest through no parenthesis), so the count and the stack
             * test sit here rather than in each macro. */
            L->read_depth++;
            check_depth(L, stream);
            Obj r = call_macro(L, fn, stream, c);
            L->read_depth--;
            return r;
        }
        return read_token_object(L, stream, rt, c, syn, preserve_ws);
    }
}

/* Read an object inside a construct: end of file is an error, markers are errors. */
static Obj read_required(Lisp *L, Obj stream) {
    for (;;) {
        Obj o = read_inner(L, stream, L->read_preserve_ws);
        if (o == NO_OBJECT) continue;
        if (o == EOF_MARK) err_eof(L, stream);
        if (o == DOT_MARK) rerr(L, stream, "dot context error");
        if (o == CLOSE_MARK) rerr(L, stream, "unmatched close parenthesis");
        return o;
    }
}

static Obj resolve_labels(Lisp *L, Obj o);

Obj reader_read(Lisp *L, Obj stream, bool eof_error, Obj eof_value, bool recursive, bool preserve_ws) {
    int saved_depth = L->read_depth, saved_bq = L->bq_level;
    Obj saved_labels = L->read_labels;
    bool saved_preserve = L->read_preserve_ws;
    if (!recursive) {
        L->read_depth = 0;
        L->bq_level = 0;
        L->read_labels = NIL;
        L->read_preserve_ws = preserve_ws;
    }
    Obj o;
    for (;;) {
        o = read_inner(L, stream, L->read_preserve_ws);
        if (o == NO_OBJECT) continue;
        if (o == DOT_MARK) rerr(L, stream, "dot context error");
        if (o == CLOSE_MARK) {
            if (recursive) rerr(L, stream, "unmatched close parenthesis");
            rerr(L, stream, "unmatched close parenthesis");
        }
        break;
    }
    if (o == EOF_MARK) {
        if (recursive || eof_error) {
            if (!recursive) {
                L->read_depth = saved_depth; L->bq_level = saved_bq; L->read_labels = saved_labels;
                L->read_preserve_ws = saved_preserve;
            }
            err_eof(L, stream);
        }
        o = eof_value;
    } else if (SYM(S(READ_SUPPRESS))->value != NIL) {
        o = NIL;   /* CLHS *READ-SUPPRESS*: READ and friends return NIL */
    } else if (!recursive && L->read_labels != NIL) {
        o = resolve_labels(L, o);
    }
    if (!recursive) {
        L->read_depth = saved_depth;
        L->bq_level = saved_bq;
        L->read_labels = saved_labels;
        L->read_preserve_ws = saved_preserve;
    }
    L->nvals = 1;
    return o;
}

/* ---- standard macro characters ---- */

DEFPRIM(rd_left_paren) {
    UNUSED_ARGS;
    Obj stream = args[0];
    Obj head = NIL, tail = NIL;
    /* where the ( is, for the cross-reference's sites (LOAD and the session ask) */
    long line = is_stream(stream) ? (long)STREAM(stream)->line : 0, column = is_stream(stream) ? (long)STREAM(stream)->col : 0;
    for (;;) {
        Obj o = read_inner(L, stream, L->read_preserve_ws);
        if (o == NO_OBJECT) continue;
        if (o == EOF_MARK) err_eof(L, stream);
        if (o == CLOSE_MARK) break;
        if (o == DOT_MARK) {
            if (SYM(S(READ_SUPPRESS))->value != NIL) continue;
            if (head == NIL) rerr(L, stream, "Nothing appears before . in list.");
            Obj last;
            for (;;) {
                last = read_inner(L, stream, L->read_preserve_ws);
                if (last == NO_OBJECT) continue;
                if (last == EOF_MARK) err_eof(L, stream);
                if (last == CLOSE_MARK) rerr(L, stream, "Nothing appears after . in list.");
                if (last == DOT_MARK) rerr(L, stream, "too many dots");
                break;
            }
            CDR(tail) = last;
            for (;;) {
                Obj after = read_inner(L, stream, L->read_preserve_ws);
                if (after == NO_OBJECT) continue;
                if (after == EOF_MARK) err_eof(L, stream);
                if (after != CLOSE_MARK) rerr(L, stream, "More than one object follows . in list.");
                break;
            }
            break;
        }
        Obj cell = cons(L, o, NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        tail = cell;
    }
    /* only the lists of the stream being placed (the file LOAD reads, the code of a session call):
     * a READ-FROM-STRING in the code being evaluated would otherwise add every list it reads to
     * the table, kept until the top-level form ends (bench/strings kept all it parsed) */
    if (UNLIKELY(L->form_positions != NIL) && head != NIL && line > 0 && stream == L->form_positions_stream)
        hash_put(L, L->form_positions, head, cons(L, FIX(line), FIX(column)));
    return head;
}

DEFPRIM(rd_right_paren) {
    UNUSED_ARGS;
    rerr(L, args[0], "unmatched close parenthesis");
}

DEFPRIM(rd_quote) {
    UNUSED_ARGS;
    Obj o = read_required(L, args[0]);
    return cons(L, S(QUOTE), cons(L, o, NIL));
}

DEFPRIM(rd_semicolon) {
    UNUSED_ARGS;
    int c;
    do c = stream_read_char_fast(L, args[0]); while (c >= 0 && c != '\n');
    return values0(L);
}

DEFPRIM(rd_string) {
    UNUSED_ARGS;
    Obj stream = args[0];
    uint32_t close = char_code(args[1]);
    Obj rt = readtable_current(L);
    StrBuf b;
    sb_init(L, &b, 32);
    for (;;) {
        uint32_t c = read_char_required(L, stream);
        if (c == close) break;
        if (reader_syntax(L, rt, c) == SYN_SINGLE_ESCAPE) c = read_char_required(L, stream);
        sb_putc(L, &b, c);
    }
    if (SYM(S(READ_SUPPRESS))->value != NIL) return NIL;
    return sb_to_string(L, &b);
}

DEFPRIM(rd_backquote) {
    UNUSED_ARGS;
    L->bq_level++;
    Obj o = read_required(L, args[0]);
    L->bq_level--;
    return cons(L, S(QUASIQUOTE), cons(L, o, NIL));
}

DEFPRIM(rd_comma) {
    UNUSED_ARGS;
    Obj stream = args[0];
    if (L->bq_level <= 0 && SYM(S(READ_SUPPRESS))->value == NIL) rerr(L, stream, "comma not inside a backquote");
    Obj kind = S(UNQUOTE);
    int c = stream_read_char(L, stream);
    if (c == '@') kind = S(UNQUOTE_SPLICING);
    else if (c == '.') kind = S(UNQUOTE_NSPLICING);
    else if (c >= 0) stream_unread_char(L, stream, (uint32_t)c);
    L->bq_level--;
    Obj o = read_required(L, stream);
    L->bq_level++;
    return cons(L, kind, cons(L, o, NIL));
}

/* ---- # dispatch ---- */

DEFPRIM(rd_dispatch) {
    UNUSED_ARGS;
    Obj stream = args[0];
    uint32_t disp = char_code(args[1]);
    Obj rt = readtable_current(L);
    uint32_t c = read_char_required(L, stream);
    Obj numarg = NIL;
    if (c >= '0' && c <= '9') {
        StrBuf digits;
        sb_init(L, &digits, 8);
        while (c >= '0' && c <= '9') {
            sb_putc(L, &digits, c);
            c = read_char_required(L, stream);
        }
        number_parse_token(L, stream, digits.data, digits.len, 10, &numarg);
    }
    Obj table = dispatch_table(rt, disp);
    uint32_t sub = char_upcase(c);
    Obj fn = (table != NIL && sub < RT_ASCII) ? VEC(table)->data[sub] : NIL;
    if (fn == NIL) {
        if (SYM(S(READ_SUPPRESS))->value != NIL) {
            /* skip the rest of the token, as SBCL does: "#garbage" is one object */
            stream_unread_char(L, stream, c);
            Syntax syn = reader_syntax(L, rt, c);
            if (syn == SYN_CONSTITUENT || syn == SYN_NONTERM_MACRO || syn == SYN_SINGLE_ESCAPE ||
                syn == SYN_MULTI_ESCAPE) {
                c = read_char_required(L, stream);
                read_token_object(L, stream, rt, c, syn, L->read_preserve_ws);
            }
            return values1(L, NIL);
        }
        rerr(L, stream, "illegal sharp macro character: %S", make_char(c));
    }
    Obj r = funcall3(L, fn, stream, make_char(c), numarg);
    if (L->nvals == 0) return values0(L);
    return r;
}

static bool suppressing(Lisp *L) { return SYM(S(READ_SUPPRESS))->value != NIL; }

DEFPRIM(rd_sharp_quote) {
    UNUSED_ARGS;
    Obj o = read_required(L, args[0]);
    if (suppressing(L)) return NIL;
    return cons(L, S(FUNCTION), cons(L, o, NIL));
}

DEFPRIM(rd_sharp_paren) {
    UNUSED_ARGS;
    Obj stream = args[0];
    Obj list = rd_left_paren(L, 2, args);
    if (suppressing(L)) return NIL;
    size_t n = 0;
    Obj x;
    for (x = list; is_cons(x); x = CDR(x)) n++;
    if (x != NIL) rerr(L, stream, "dotted list in #( syntax");
    size_t len = n;
    if (args[2] != NIL) {
        if (!is_fixnum(args[2])) rerr(L, stream, "vector length too large");
        len = (size_t)fixnum_val(args[2]);
        if (n > len) rerr(L, stream, "vector longer than specified length: #%zu(...) has %zu elements", len, n);
        if (n == 0 && len > 0) rerr(L, stream, "#%zu() has no elements to fill with", len);
    }
    gc_check_request(L, len * sizeof(Obj));
    Obj v = heap_alloc(L, T_VECTOR, sizeof(Vector) + sizeof(Obj) * len);
    VEC(v)->len = len;
    size_t i = 0;
    Obj last = NIL;
    for (x = list; is_cons(x); x = CDR(x)) VEC(v)->data[i++] = last = CAR(x);
    while (i < len) VEC(v)->data[i++] = last;
    return v;
}

DEFPRIM(rd_sharp_star) {
    UNUSED_ARGS;
    Obj stream = args[0];
    Obj rt = readtable_current(L);
    StrBuf b;
    sb_init(L, &b, 16);
    for (;;) {
        int c = stream_read_char(L, stream);
        if (c < 0) break;
        Syntax s = reader_syntax(L, rt, (uint32_t)c);
        if (s == SYN_WHITESPACE || s == SYN_TERM_MACRO) { stream_unread_char(L, stream, (uint32_t)c); break; }
        sb_putc(L, &b, (uint32_t)c);
    }
    if (suppressing(L)) return NIL;
    size_t n = b.len, len = n;
    if (args[2] != NIL) {
        if (!is_fixnum(args[2])) rerr(L, stream, "bit vector length too large");
        len = (size_t)fixnum_val(args[2]);
        if (n > len) rerr(L, stream, "bit vector longer than specified length");
        if (n == 0 && len > 0) rerr(L, stream, "#%zu* has no bits to fill with", len);
    }
    for (size_t i = 0; i < n; i++)
        if (b.data[i] != '0' && b.data[i] != '1')
            rerr(L, stream, "illegal element given for bit vector: %S", make_char(b.data[i]));
    gc_check_request(L, len);   /* #99999999999*1: the length is the user's */
    BitVector *bv = (BitVector *)heap_alloc(L, T_BITVECTOR, sizeof(BitVector));
    bv->data = (uint8_t *)gc_alloc_atomic(L, len ? len : 1);
    bv->len = bv->cap = len;
    for (size_t i = 0; i < n; i++) bv->data[i] = (uint8_t)(b.data[i] - '0');
    if (len > n) memset(bv->data + n, bv->data[n - 1], len - n);   /* the last bit repeats */
    return (Obj)bv;
}

DEFPRIM(rd_sharp_backslash) {
    UNUSED_ARGS;
    Obj stream = args[0];
    Obj rt = readtable_current(L);
    uint32_t first = read_char_required(L, stream);
    Token t;
    /* the first character is taken literally even if it is a macro character */
    tok_init(&t);
    tok_add(L, &t, first, true);
    for (;;) {
        int c = stream_read_char(L, stream);
        if (c < 0) break;
        Syntax s = reader_syntax(L, rt, (uint32_t)c);
        if (s == SYN_WHITESPACE || s == SYN_TERM_MACRO) { stream_unread_char(L, stream, (uint32_t)c); break; }
        if (s == SYN_SINGLE_ESCAPE) c = (int)read_char_required(L, stream);
        tok_add(L, &t, (uint32_t)c, false);
    }
    if (suppressing(L)) return NIL;
    if (t.chars.len == 1) return make_char(first);
    int32_t code = char_from_name(t.chars.data, t.chars.len);
    if (code < 0) rerr(L, stream, "unrecognized character name: %S", string_from_u32(L, t.chars.data, t.chars.len));
    return make_char((uint32_t)code);
}

DEFPRIM(rd_sharp_colon) {
    UNUSED_ARGS;
    Obj stream = args[0];
    Obj rt = readtable_current(L);
    uint32_t c = read_char_required(L, stream);
    Token t;
    read_token(L, stream, rt, c, reader_syntax(L, rt, c), &t, L->read_preserve_ws);
    if (suppressing(L)) return NIL;
    apply_case(L, rt, &t);
    for (size_t i = 0; i < t.chars.len; i++)
        if (t.chars.data[i] == ':' && !t.escaped[i]) rerr(L, stream, "uninterned symbol contains a package marker");
    return symbol_new(L, string_from_u32(L, t.chars.data, t.chars.len));
}

DEFPRIM(rd_sharp_dot) {
    UNUSED_ARGS;
    Obj o = read_required(L, args[0]);
    if (suppressing(L)) return NIL;
    if (SYM(S(READ_EVAL))->value == NIL) rerr(L, args[0], "can't read #. while *READ-EVAL* is NIL");
    Obj r = lisp_eval(L, o);
    L->nvals = 1;
    return r;
}

static Obj read_rational_in_base(Lisp *L, Obj stream, int base) {
    Obj rt = readtable_current(L);
    uint32_t c = read_char_required(L, stream);
    Token t;
    read_token(L, stream, rt, c, reader_syntax(L, rt, c), &t, L->read_preserve_ws);
    if (suppressing(L)) return NIL;
    Obj n;
    if (t.any_escape || !number_parse_token(L, stream, t.chars.data, t.chars.len, base, &n) || !is_rational(n))
        rerr(L, stream, "%S is not a rational in base %d", string_from_u32(L, t.chars.data, t.chars.len), base);
    return n;
}

DEFPRIM(rd_sharp_b) { UNUSED_ARGS; return read_rational_in_base(L, args[0], 2); }
DEFPRIM(rd_sharp_o) { UNUSED_ARGS; return read_rational_in_base(L, args[0], 8); }
DEFPRIM(rd_sharp_x) { UNUSED_ARGS; return read_rational_in_base(L, args[0], 16); }
DEFPRIM(rd_sharp_r) {
    UNUSED_ARGS;
    if (suppressing(L)) { read_required(L, args[0]); return NIL; }
    if (!is_fixnum(args[2]) || fixnum_val(args[2]) < 2 || fixnum_val(args[2]) > 36)
        rerr(L, args[0], "illegal radix for #R: %S", args[2]);
    return read_rational_in_base(L, args[0], (int)fixnum_val(args[2]));
}

DEFPRIM(rd_sharp_c) {
    UNUSED_ARGS;
    Obj o = read_required(L, args[0]);
    if (suppressing(L)) return NIL;
    if (!is_cons(o) || !is_cons(CDR(o)) || CDR(CDR(o)) != NIL) rerr(L, args[0], "illegal complex number format: #C%S", o);
    return funcall2(L, intern_cstr(L, L->pkg_cl, "COMPLEX"), CAR(o), CAR(CDR(o)));
}

DEFPRIM(rd_sharp_a) {
    UNUSED_ARGS;
    Obj o = read_required(L, args[0]);
    if (suppressing(L)) return NIL;
    if (args[2] == NIL) {
        /* SBCL's readable form of any array: #A((dimensions) element-type . contents) */
        if (!is_cons(o) || !is_list(CAR(o)) || !is_cons(CDR(o)))
            rerr(L, args[0], "#A requires a rank argument or (dimensions element-type . contents): #A%S", o);
        Obj margs[5] = {CAR(o), S(K_ELEMENT_TYPE), CAR(CDR(o)), S(K_INITIAL_CONTENTS), CDR(CDR(o))};
        return funcall(L, intern_cstr(L, L->pkg_cl, "MAKE-ARRAY"), 5, margs);
    }
    /* #99999999A() would cons a dimension per level until the heap ran out */
    if (!is_fixnum(args[2]) || fixnum_val(args[2]) >= ARRAY_RANK_LIMIT)
        rerr(L, args[0], "#%SA: the rank must be below ARRAY-RANK-LIMIT (%d)", args[2], ARRAY_RANK_LIMIT);
    intptr_t rank = fixnum_val(args[2]);
    Obj dims = NIL, tail = NIL, x = o;
    for (intptr_t i = 0; i < rank; i++) {
        intptr_t n = 0;
        Obj seq = x;
        /* any sequence: a list, string, bit vector, or vector with a fill pointer or displaced */
        if (!is_sequence(x)) rerr(L, args[0], "#%dA contents are not a sequence: %S", (int)rank, x);
        n = (intptr_t)seq_length(L, x);
        Obj cell = cons(L, FIX(n), NIL);
        if (tail == NIL) dims = cell; else CDR(tail) = cell;
        tail = cell;
        if (n > 0) x = seq_elt_unchecked(L, seq, 0);
    }
    Obj margs[3] = {dims, S(K_INITIAL_CONTENTS), o};
    return funcall(L, intern_cstr(L, L->pkg_cl, "MAKE-ARRAY"), 3, margs);
}

DEFPRIM(rd_sharp_s) {
    UNUSED_ARGS;
    Obj o = read_required(L, args[0]);
    if (suppressing(L)) return NIL;
    if (!is_cons(o)) rerr(L, args[0], "#S syntax requires a list: #S%S", o);
    Obj fn = abi_upcall(L, S(P_READ_STRUCTURE));
    if (fn == NIL) rerr(L, args[0], "structures are not supported yet: #S%S", o);
    return funcall1(L, fn, o);
}

DEFPRIM(rd_sharp_p) {
    UNUSED_ARGS;
    Obj o = read_required(L, args[0]);
    if (suppressing(L)) return NIL;
    if (!is_string(o)) rerr(L, args[0], "#P syntax requires a string: #P%S", o);
    return funcall1(L, intern_cstr(L, L->pkg_cl, "PARSE-NAMESTRING"), o);
}

DEFPRIM(rd_sharp_bar) {
    UNUSED_ARGS;
    Obj stream = args[0];
    int depth = 1;
    int prev = 0;
    while (depth > 0) {
        int c = (int)read_char_required(L, stream);
        if (prev == '|' && c == '#') { depth--; prev = 0; continue; }
        if (prev == '#' && c == '|') { depth++; prev = 0; continue; }
        prev = c;
    }
    return values0(L);
}

static bool feature_true(Lisp *L, Obj stream, Obj f) {
    stack_check(L);
    if (is_symbol(f)) {
        for (Obj l = SYM(S(FEATURES))->value; is_cons(l); l = CDR(l))
            if (CAR(l) == f) return true;
        return false;
    }
    if (!is_cons(f) || !is_symbol(CAR(f))) rerr(L, stream, "invalid feature expression: %S", f);
    Obj op = CAR(f);
    const char *name = string_to_utf8(L, symbol_name(L, op), NULL);
    if (strcmp(name, "AND") == 0) {
        for (Obj l = CDR(f); is_cons(l); l = CDR(l)) if (!feature_true(L, stream, CAR(l))) return false;
        return true;
    }
    if (strcmp(name, "OR") == 0) {
        for (Obj l = CDR(f); is_cons(l); l = CDR(l)) if (feature_true(L, stream, CAR(l))) return true;
        return false;
    }
    if (strcmp(name, "NOT") == 0) {
        if (!is_cons(CDR(f)) || CDR(CDR(f)) != NIL) rerr(L, stream, "invalid feature expression: %S", f);
        return !feature_true(L, stream, CAR(CDR(f)));
    }
    rerr(L, stream, "unknown operator in feature expression: %S", f);
}

static Obj sharp_feature(Lisp *L, Obj stream, bool want) {
    bind_special(L, S(PACKAGE_VAR), L->pkg_keyword);
    size_t sp = L->special_sp - 1;
    Obj f;
    if (suppressing(L)) f = read_required(L, stream);
    else {
        bind_special(L, S(READ_SUPPRESS), NIL);
        f = read_required(L, stream);
    }
    unbind_specials(L, sp);
    bool ok = suppressing(L) ? false : feature_true(L, stream, f) == want;
    if (ok) return values1(L, read_required(L, stream));
    bind_special(L, S(READ_SUPPRESS), S(T));
    read_required(L, stream);
    unbind_specials(L, sp);
    return values0(L);
}

DEFPRIM(rd_sharp_plus) { UNUSED_ARGS; return sharp_feature(L, args[0], true); }
DEFPRIM(rd_sharp_minus) { UNUSED_ARGS; return sharp_feature(L, args[0], false); }

/* #n= and #n#: a placeholder per label, replaced after the whole object is read. */
DEFPRIM(rd_sharp_equal) {
    UNUSED_ARGS;
    Obj stream = args[0];
    if (suppressing(L)) return read_required(L, stream);
    if (args[2] == NIL) rerr(L, stream, "#= requires a label number");
    for (Obj l = L->read_labels; is_cons(l); l = CDR(l))
        if (num_eql(CAR(CAR(l)), args[2])) rerr(L, stream, "multiply defined label: #%S=", args[2]);
    Obj placeholder = cons(L, NO_VALUE, NIL);
    Obj entry = cons(L, args[2], cons(L, placeholder, NO_VALUE));
    L->read_labels = cons(L, entry, L->read_labels);
    Obj o = read_required(L, stream);
    if (o == placeholder)   /* #1=#1# labels nothing: the placeholder must never escape the reader */
        rerr(L, stream, "Must label something more than just #%S#", args[2]);
    CDR(CDR(entry)) = o;
    return o;
}

DEFPRIM(rd_sharp_sharp) {
    UNUSED_ARGS;
    Obj stream = args[0];
    if (suppressing(L)) return NIL;
    for (Obj l = L->read_labels; is_cons(l); l = CDR(l)) {
        Obj e = CAR(l);
        if (num_eql(CAR(e), args[2])) {
            Obj val = CDR(CDR(e));
            return val == NO_VALUE ? CAR(CDR(e)) : val;
        }
    }
    rerr(L, stream, "reference to undefined label #%S#", args[2]);
}

static Obj label_value(Lisp *L, Obj o) {
    if (!is_cons(o) || CAR(o) != NO_VALUE) return NO_VALUE;
    for (Obj l = L->read_labels; is_cons(l); l = CDR(l))
        if (CAR(CDR(CAR(l))) == o) return CDR(CDR(CAR(l)));
    return NO_VALUE;
}

/* SEEN is an EQ table of the conses, vectors and structures already walked, so shared and
 * circular structure is visited once and a long list costs linear time. */
static Obj resolve_walk(Lisp *L, Obj o, Obj seen) {
    Obj v = label_value(L, o);
    if (v != NO_VALUE) return v;
    if (is_cons(o)) {
        if (hash_get(L, seen, o, NIL) != NIL) return o;
        hash_put(L, seen, o, S(T));
        Obj x = o;
        while (is_cons(x)) {
            stack_check(L);
            CAR(x) = resolve_walk(L, CAR(x), seen);
            Obj d = CDR(x);
            Obj dv = label_value(L, d);
            if (dv != NO_VALUE) { CDR(x) = dv; break; }
            if (!is_cons(d)) { CDR(x) = resolve_walk(L, d, seen); break; }
            if (hash_get(L, seen, d, NIL) != NIL) break;
            hash_put(L, seen, d, S(T));
            x = d;
        }
        return o;
    }
    if (is_type(o, T_VECTOR)) {
        if (hash_get(L, seen, o, NIL) != NIL) return o;
        hash_put(L, seen, o, S(T));
        for (size_t i = 0; i < VEC(o)->len; i++) {
            stack_check(L);
            VEC(o)->data[i] = resolve_walk(L, VEC(o)->data[i], seen);
        }
    }
    if (is_type(o, T_INSTANCE) && (INST(o)->h.flags & INST_STRUCTURE)) {   /* #1=#S(node :next #1#) */
        if (hash_get(L, seen, o, NIL) != NIL) return o;
        hash_put(L, seen, o, S(T));
        for (size_t i = 0; i < INST(o)->nslots; i++) {
            stack_check(L);
            INST(o)->slots[i] = resolve_walk(L, INST(o)->slots[i], seen);
        }
    }
    return o;
}

static Obj resolve_labels(Lisp *L, Obj o) { return resolve_walk(L, o, hash_new(L, HT_EQ, 64)); }

DEFPRIM(rd_sharp_illegal) {
    UNUSED_ARGS;
    rerr(L, args[0], "illegal sharp macro character: %S", args[1]);
}

/* ---- Lisp-visible reader functions ---- */

DEFPRIM(prim_read) {
    Obj s = stream_in(L, opt_arg(nargs, args, 0, NIL));
    return reader_read(L, s, opt_arg(nargs, args, 1, S(T)) != NIL, opt_arg(nargs, args, 2, NIL),
                       opt_arg(nargs, args, 3, NIL) != NIL, false);
}

DEFPRIM(prim_read_preserving_whitespace) {
    Obj s = stream_in(L, opt_arg(nargs, args, 0, NIL));
    return reader_read(L, s, opt_arg(nargs, args, 1, S(T)) != NIL, opt_arg(nargs, args, 2, NIL),
                       opt_arg(nargs, args, 3, NIL) != NIL, true);
}

DEFPRIM(prim_read_from_string) {
    Obj str = string_arg(L, args[0]);
    bool eof_error = opt_arg(nargs, args, 1, S(T)) != NIL;
    Obj eof_value = opt_arg(nargs, args, 2, NIL);
    Obj keys[3] = {S(K_START), S(K_END), S(K_PRESERVE_WHITESPACE)}, out[3];
    parse_keys(L, nargs, args, nargs < 3 ? nargs : 3, 3, keys, out);
    size_t len = STR(str)->len;
    size_t end = (out[1] == NO_VALUE || out[1] == NIL) ? len : check_bound(L, out[1], len);
    size_t start = out[0] == NO_VALUE ? 0 : check_bound(L, out[0], end);
    Obj s = make_string_input_stream(L, str, start, end);
    Obj o = reader_read(L, s, eof_error, eof_value, false, out[2] != NO_VALUE && out[2] != NIL);
    return values2(L, o, FIX((intptr_t)STREAM(s)->pos - (STREAM(s)->unread >= 0 ? 1 : 0)));
}

DEFPRIM(prim_read_delimited_list) {
    uint32_t close = char_code(check_char(L, args[0]));
    Obj stream = stream_in(L, opt_arg(nargs, args, 1, NIL));
    Obj rt = readtable_current(L);
    Obj head = NIL, tail = NIL;
    for (;;) {
        int c;
        do c = stream_read_char(L, stream); while (c >= 0 && reader_syntax(L, rt, (uint32_t)c) == SYN_WHITESPACE);
        if (c < 0) err_eof(L, stream);
        if ((uint32_t)c == close) break;
        stream_unread_char(L, stream, (uint32_t)c);
        Obj o = read_inner(L, stream, true);
        if (o == NO_OBJECT) continue;
        if (o == EOF_MARK) err_eof(L, stream);
        if (o == DOT_MARK || o == CLOSE_MARK) rerr(L, stream, "unexpected token in delimited list");
        Obj cell = cons(L, o, NIL);
        if (tail == NIL) head = cell; else CDR(tail) = cell;
        tail = cell;
    }
    return SYM(S(READ_SUPPRESS))->value != NIL ? NIL : head;
}

DEFPRIM(prim_readtablep) { UNUSED_ARGS; return boolean(L, is_type(args[0], T_READTABLE)); }

static Obj check_rt(Lisp *L, Obj o) {
    if (o == NIL) return readtable_current(L);
    if (!is_type(o, T_READTABLE)) err_type(L, o, S(READTABLE));
    return o;
}

static Obj standard_readtable(Lisp *L);

DEFPRIM(prim_copy_readtable) {
    Obj from = nargs > 0 ? args[0] : readtable_current(L);
    from = from == NIL ? standard_readtable(L) : check_rt(L, from);
    Obj to = nargs > 1 ? args[1] : NIL;
    if (to != NIL) check_rt(L, to);
    return readtable_copy(L, from, to);
}

DEFPRIM(prim_readtable_case) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_READTABLE)) err_type(L, args[0], S(READTABLE));
    Obj rt = args[0];
    switch (RT(rt)->rcase) {
    case RCASE_UPCASE: return S(K_UPCASE);
    case RCASE_DOWNCASE: return S(K_DOWNCASE);
    case RCASE_PRESERVE: return S(K_PRESERVE);
    default: return S(K_INVERT);
    }
}

DEFPRIM(prim_set_readtable_case) {
    UNUSED_ARGS;
    Obj mode = args[0];
    if (!is_type(args[1], T_READTABLE)) err_type(L, args[1], S(READTABLE));
    Obj rt = args[1];
    if (mode == S(K_UPCASE)) RT(rt)->rcase = RCASE_UPCASE;
    else if (mode == S(K_DOWNCASE)) RT(rt)->rcase = RCASE_DOWNCASE;
    else if (mode == S(K_PRESERVE)) RT(rt)->rcase = RCASE_PRESERVE;
    else if (mode == S(K_INVERT)) RT(rt)->rcase = RCASE_INVERT;
    else err_type(L, mode, cons(L, S(MEMBER), cons(L, S(K_UPCASE), cons(L, S(K_DOWNCASE), cons(L, S(K_PRESERVE), cons(L, S(K_INVERT), NIL))))));
    return mode;
}

static void set_entry(Lisp *L, Obj rt, uint32_t c, Syntax syn, Obj fn, Obj disp) {
    if (c < RT_ASCII) {
        RT(rt)->syntax[c] = (uint8_t)syn;
        RT(rt)->macro[c] = fn;
        RT(rt)->dispatch[c] = disp;
        return;
    }
    Obj prev = NIL;
    for (Obj l = RT(rt)->extra; is_cons(l); prev = l, l = CDR(l)) {
        if (fixnum_val(CAR(CAR(l))) == (intptr_t)c) {
            if (prev == NIL) RT(rt)->extra = CDR(l); else CDR(prev) = CDR(l);
            break;
        }
    }
    RT(rt)->extra = cons(L, cons(L, FIX(c), cons(L, FIX(syn), cons(L, fn, cons(L, disp, NIL)))), RT(rt)->extra);
}

DEFPRIM(prim_set_macro_character) {
    uint32_t c = char_code(check_char(L, args[0]));
    Obj fn = args[1];
    bool nonterm = nargs > 2 && args[2] != NIL;
    Obj rt = check_rt(L, opt_arg(nargs, args, 3, NIL));
    set_entry(L, rt, c, nonterm ? SYN_NONTERM_MACRO : SYN_TERM_MACRO, fn, NIL);
    return S(T);
}

DEFPRIM(prim_get_macro_character) {
    uint32_t c = char_code(check_char(L, args[0]));
    Obj rt = nargs > 1 && args[1] == NIL ? standard_readtable(L) : check_rt(L, opt_arg(nargs, args, 1, NIL));
    Syntax s = reader_syntax(L, rt, c);
    if (s != SYN_TERM_MACRO && s != SYN_NONTERM_MACRO) return values2(L, NIL, NIL);
    return values2(L, macro_fn(rt, c), boolean(L, s == SYN_NONTERM_MACRO));
}

DEFPRIM(prim_make_dispatch_macro_character) {
    uint32_t c = char_code(check_char(L, args[0]));
    bool nonterm = nargs > 1 && args[1] != NIL;
    Obj rt = check_rt(L, opt_arg(nargs, args, 2, NIL));
    Obj v = heap_alloc(L, T_VECTOR, sizeof(Vector) + sizeof(Obj) * RT_ASCII);
    VEC(v)->len = RT_ASCII;
    for (int i = 0; i < RT_ASCII; i++) VEC(v)->data[i] = NIL;
    set_entry(L, rt, c, nonterm ? SYN_NONTERM_MACRO : SYN_TERM_MACRO, SYM(S(P_READ_DISPATCH))->function, v);
    return S(T);
}

static Obj dispatch_vector(Lisp *L, Obj rt, uint32_t c) {
    Obj t = dispatch_table(rt, c);
    if (t == NIL) err_simple(L, "%S is not a dispatching macro character.", make_char(c));
    return t;
}

DEFPRIM(prim_set_dispatch_macro_character) {
    uint32_t c = char_code(check_char(L, args[0]));
    uint32_t sub = char_upcase(char_code(check_char(L, args[1])));
    Obj rt = check_rt(L, opt_arg(nargs, args, 3, NIL));
    if (sub >= '0' && sub <= '9') err_simple(L, "Sub-character %S is a decimal digit.", args[1]);
    if (sub >= RT_ASCII) err_simple(L, "Sub-character %S is not supported.", args[1]);
    VEC(dispatch_vector(L, rt, c))->data[sub] = args[2];
    return S(T);
}

DEFPRIM(prim_get_dispatch_macro_character) {
    uint32_t c = char_code(check_char(L, args[0]));
    uint32_t sub = char_upcase(char_code(check_char(L, args[1])));
    Obj rt = nargs > 2 && args[2] == NIL ? standard_readtable(L) : check_rt(L, opt_arg(nargs, args, 2, NIL));
    if (sub >= '0' && sub <= '9') return NIL;
    if (sub >= RT_ASCII) return NIL;
    return VEC(dispatch_vector(L, rt, c))->data[sub];
}

/* One entry of %READTABLE-MACRO-CHARACTERS: (char function non-terminating-p dispatch-p sub-alist),
 * the sub-alist in increasing order of sub-character (they are stored upcased, ASCII only). */
static Obj macro_entry(Lisp *L, uint32_t c, Syntax syn, Obj fn, Obj disp) {
    Obj subs = NIL;
    if (disp != NIL)
        for (int i = RT_ASCII - 1; i >= 0; i--)
            if (VEC(disp)->data[i] != NIL) subs = cons(L, cons(L, make_char((uint32_t)i), VEC(disp)->data[i]), subs);
    return cons(L, make_char(c), cons(L, fn, cons(L, boolean(L, syn == SYN_NONTERM_MACRO),
                cons(L, boolean(L, disp != NIL), cons(L, subs, NIL)))));
}

/* The macro characters of a readtable, without asking about every character code: what
 * named-readtables' readtable iterator walks (its SBCL branch reads SBCL's readtable the same
 * way). ASCII characters in increasing order, then the others as the readtable holds them. */
DEFPRIM(prim_readtable_macro_characters) {
    UNUSED_ARGS;
    Obj rt = args[0] == NIL ? standard_readtable(L) : check_rt(L, args[0]);
    Obj out = NIL;
    for (Obj l = RT(rt)->extra; is_cons(l); l = CDR(l)) {
        Obj e = CAR(l);
        Syntax syn = (Syntax)fixnum_val(CAR(CDR(e)));
        if (syn == SYN_TERM_MACRO || syn == SYN_NONTERM_MACRO)
            out = cons(L, macro_entry(L, (uint32_t)fixnum_val(CAR(e)), syn, CAR(CDR(CDR(e))), CAR(CDR(CDR(CDR(e))))), out);
    }
    for (int c = RT_ASCII - 1; c >= 0; c--) {
        Syntax syn = (Syntax)RT(rt)->syntax[c];
        if (syn == SYN_TERM_MACRO || syn == SYN_NONTERM_MACRO)
            out = cons(L, macro_entry(L, (uint32_t)c, syn, RT(rt)->macro[c], RT(rt)->dispatch[c]), out);
    }
    return out;
}

DEFPRIM(prim_set_syntax_from_char) {
    uint32_t to = char_code(check_char(L, args[0]));
    uint32_t from = char_code(check_char(L, args[1]));
    Obj to_rt = check_rt(L, opt_arg(nargs, args, 2, NIL));
    Obj from_rt = nargs > 3 ? (args[3] == NIL ? standard_readtable(L) : check_rt(L, args[3])) : standard_readtable(L);
    Obj disp = dispatch_table(from_rt, from);
    if (disp != NIL) {
        Obj v = heap_alloc(L, T_VECTOR, sizeof(Vector) + sizeof(Obj) * RT_ASCII);
        VEC(v)->len = RT_ASCII;
        memcpy(VEC(v)->data, VEC(disp)->data, sizeof(Obj) * RT_ASCII);
        disp = v;
    }
    set_entry(L, to_rt, to, reader_syntax(L, from_rt, from), macro_fn(from_rt, from), disp);
    return S(T);
}

/* ---- the standard readtable ---- */

static void init_standard(Lisp *L, Obj rt) {
    Readtable *r = RT(rt);
    for (int i = 0; i < RT_ASCII; i++) {
        r->syntax[i] = SYN_CONSTITUENT;
        r->macro[i] = NIL;
        r->dispatch[i] = NIL;
    }
    r->extra = NIL;
    r->rcase = RCASE_UPCASE;
    const char ws[] = {' ', '\t', '\n', '\r', '\f', 11};
    for (size_t i = 0; i < sizeof ws; i++) r->syntax[(unsigned char)ws[i]] = SYN_WHITESPACE;
    r->syntax[8] = SYN_INVALID;
    r->syntax[127] = SYN_INVALID;
    r->syntax['\\'] = SYN_SINGLE_ESCAPE;
    r->syntax['|'] = SYN_MULTI_ESCAPE;
    struct { char c; const char *fn; } macros[] = {
        {'(', "%READ-LEFT-PAREN"}, {')', "%READ-RIGHT-PAREN"}, {'\'', "%READ-QUOTE"},
        {';', "%READ-SEMICOLON"}, {'"', "%READ-STRING"}, {'`', "%READ-BACKQUOTE"}, {',', "%READ-COMMA"},
    };
    for (size_t i = 0; i < sizeof macros / sizeof *macros; i++) {
        unsigned char c = (unsigned char)macros[i].c;
        r->syntax[c] = SYN_TERM_MACRO;
        r->macro[c] = SYM(intern_cstr(L, L->pkg_system, macros[i].fn))->function;
    }
    r->syntax['#'] = SYN_NONTERM_MACRO;
    r->macro['#'] = SYM(intern_cstr(L, L->pkg_system, "%READ-DISPATCH"))->function;
    Obj v = heap_alloc(L, T_VECTOR, sizeof(Vector) + sizeof(Obj) * RT_ASCII);
    VEC(v)->len = RT_ASCII;
    for (int i = 0; i < RT_ASCII; i++) VEC(v)->data[i] = NIL;
    struct { char c; const char *fn; } subs[] = {
        {'\'', "%READ-SHARP-QUOTE"}, {'(', "%READ-SHARP-PAREN"}, {'*', "%READ-SHARP-STAR"},
        {'\\', "%READ-SHARP-BACKSLASH"}, {':', "%READ-SHARP-COLON"}, {'.', "%READ-SHARP-DOT"},
        {'B', "%READ-SHARP-B"}, {'O', "%READ-SHARP-O"}, {'X', "%READ-SHARP-X"}, {'R', "%READ-SHARP-R"},
        {'C', "%READ-SHARP-C"}, {'A', "%READ-SHARP-A"}, {'S', "%READ-SHARP-S"}, {'P', "%READ-SHARP-P"},
        {'|', "%READ-SHARP-BAR"}, {'+', "%READ-SHARP-PLUS"}, {'-', "%READ-SHARP-MINUS"},
        {'=', "%READ-SHARP-EQUAL"}, {'#', "%READ-SHARP-SHARP"}, {'<', "%READ-SHARP-ILLEGAL"},
        {' ', "%READ-SHARP-ILLEGAL"}, {')', "%READ-SHARP-ILLEGAL"}, {'\n', "%READ-SHARP-ILLEGAL"},
        {'\t', "%READ-SHARP-ILLEGAL"},
    };
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
        VEC(v)->data[(unsigned char)subs[i].c] = SYM(intern_cstr(L, L->pkg_system, subs[i].fn))->function;
    r->dispatch['#'] = v;
}

static Obj standard_readtable(Lisp *L) {
    Obj rt = heap_alloc(L, T_READTABLE, sizeof(Readtable));
    init_standard(L, rt);
    return rt;
}

const PrimDef reader_prims[] = {
    {"%READ-LEFT-PAREN", PK_SYS, rd_left_paren, 2, 2, 0, "(stream char)", NULL},
    {"%READ-RIGHT-PAREN", PK_SYS, rd_right_paren, 2, 2, 0, "(stream char)", NULL},
    {"%READ-QUOTE", PK_SYS, rd_quote, 2, 2, 0, "(stream char)", NULL},
    {"%READ-SEMICOLON", PK_SYS, rd_semicolon, 2, 2, FN_MV, "(stream char)", NULL},
    {"%READ-STRING", PK_SYS, rd_string, 2, 2, 0, "(stream char)", NULL},
    {"%READ-BACKQUOTE", PK_SYS, rd_backquote, 2, 2, 0, "(stream char)", NULL},
    {"%READ-COMMA", PK_SYS, rd_comma, 2, 2, 0, "(stream char)", NULL},
    {"%READ-DISPATCH", PK_SYS, rd_dispatch, 2, 2, FN_MV, "(stream char)", NULL},
    {"%READ-SHARP-QUOTE", PK_SYS, rd_sharp_quote, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-PAREN", PK_SYS, rd_sharp_paren, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-STAR", PK_SYS, rd_sharp_star, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-BACKSLASH", PK_SYS, rd_sharp_backslash, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-COLON", PK_SYS, rd_sharp_colon, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-DOT", PK_SYS, rd_sharp_dot, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-B", PK_SYS, rd_sharp_b, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-O", PK_SYS, rd_sharp_o, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-X", PK_SYS, rd_sharp_x, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-R", PK_SYS, rd_sharp_r, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-C", PK_SYS, rd_sharp_c, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-A", PK_SYS, rd_sharp_a, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-S", PK_SYS, rd_sharp_s, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-P", PK_SYS, rd_sharp_p, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-BAR", PK_SYS, rd_sharp_bar, 3, 3, FN_MV, "(stream char arg)", NULL},
    {"%READ-SHARP-PLUS", PK_SYS, rd_sharp_plus, 3, 3, FN_MV, "(stream char arg)", NULL},
    {"%READ-SHARP-MINUS", PK_SYS, rd_sharp_minus, 3, 3, FN_MV, "(stream char arg)", NULL},
    {"%READ-SHARP-EQUAL", PK_SYS, rd_sharp_equal, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-SHARP", PK_SYS, rd_sharp_sharp, 3, 3, 0, "(stream char arg)", NULL},
    {"%READ-SHARP-ILLEGAL", PK_SYS, rd_sharp_illegal, 3, 3, 0, "(stream char arg)", NULL},
    {"READ", PK_CL, prim_read, 0, 4, 0, "(&optional stream eof-error-p eof-value recursive-p)", "Read an object from STREAM."},
    {"READ-PRESERVING-WHITESPACE", PK_CL, prim_read_preserving_whitespace, 0, 4, 0, "(&optional stream eof-error-p eof-value recursive-p)", "Like READ, but leaves the whitespace that ends a token in STREAM."},
    {"READ-FROM-STRING", PK_CL, prim_read_from_string, 1, REST, FN_MV, "(string &optional eof-error-p eof-value &key start end preserve-whitespace)", "Read an object from STRING; second value is the index after it."},
    {"READ-DELIMITED-LIST", PK_CL, prim_read_delimited_list, 1, 3, 0, "(char &optional stream recursive-p)", "Reads objects from STREAM until the character CHAR is found, returning them as a list."},
    {"READTABLEP", PK_CL, prim_readtablep, 1, 1, 0, "(object)", "True when OBJECT is a readtable."},
    {"COPY-READTABLE", PK_CL, prim_copy_readtable, 0, 2, 0, "(&optional from to)", "A copy of the readtable FROM (default the current one; NIL means the standard one), stored into TO when given."},
    {"READTABLE-CASE", PK_CL, prim_readtable_case, 1, 1, 0, "(readtable)", "How READTABLE converts the case of symbol names: :UPCASE, :DOWNCASE, :PRESERVE or :INVERT; SETF-able."},
    {"%SET-READTABLE-CASE", PK_SYS, prim_set_readtable_case, 2, 2, 0, "(mode readtable)", NULL},
    {"(SETF READTABLE-CASE)", PK_CL, prim_set_readtable_case, 2, 2, 0, "(mode readtable)", NULL},
    {"SET-MACRO-CHARACTER", PK_CL, prim_set_macro_character, 2, 4, 0, "(char function &optional non-terminating-p readtable)", "Makes CHAR a macro character of READTABLE whose reader macro is FUNCTION (called with the stream and the character); NON-TERMINATING-P lets it appear inside tokens. Returns T."},
    {"GET-MACRO-CHARACTER", PK_CL, prim_get_macro_character, 1, 2, FN_MV, "(char &optional readtable)", "The reader macro function of CHAR in READTABLE, or NIL, and whether CHAR is non-terminating."},
    {"MAKE-DISPATCH-MACRO-CHARACTER", PK_CL, prim_make_dispatch_macro_character, 1, 3, 0, "(char &optional non-terminating-p readtable)", "Makes CHAR a dispatching macro character in READTABLE (like #), with an empty table of sub-characters; NON-TERMINATING-P lets it appear inside tokens. Returns T."},
    {"SET-DISPATCH-MACRO-CHARACTER", PK_CL, prim_set_dispatch_macro_character, 3, 4, 0, "(disp-char sub-char function &optional readtable)", "Makes FUNCTION run in READTABLE when SUB-CHAR follows the dispatching character DISP-CHAR; it gets the stream, the sub-character and the numeric argument or NIL. Returns T."},
    {"GET-DISPATCH-MACRO-CHARACTER", PK_CL, prim_get_dispatch_macro_character, 2, 3, 0, "(disp-char sub-char &optional readtable)", "The function run for SUB-CHAR after the dispatching character DISP-CHAR in READTABLE, or NIL."},
    {"%READTABLE-MACRO-CHARACTERS", PK_SYS, prim_readtable_macro_characters, 1, 1, 0, "(readtable)", "The macro characters of READTABLE (NIL: the standard one) as a list of (char function non-terminating-p dispatch-p sub-char-alist)."},
    {"SET-SYNTAX-FROM-CHAR", PK_CL, prim_set_syntax_from_char, 2, 4, 0, "(to-char from-char &optional to-readtable from-readtable)", "Gives TO-CHAR in TO-READTABLE the syntax that FROM-CHAR has in FROM-READTABLE (the standard one by default). Returns T."},
    {0},
};

/* documentation of the variable reader_init defines (docs.h) */
const DocRow reader_variable_docs[] = {
    {"*READTABLE*", "The current readtable, which decides how the reader parses characters."},
    {0},
};

void reader_init(Lisp *L) {
    prims_register(L, reader_prims);
    Obj rt = standard_readtable(L);
    SYM(S(READTABLE_VAR))->value = rt;
    SYM(S(READTABLE_VAR))->h.flags |= SYM_SPECIAL;
    L->read_labels = NIL;
}
