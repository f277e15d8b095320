/* format.c: FORMAT (CLHS 22.3): control-string parsing, the directive interpreter, and the
 * float digit generation behind ~F ~E ~G ~$. Behaviour (output and error messages) follows SBCL. */
#include "format.h"
#include "gray.h"
#include "prim.h"
#include "stream.h"
#include "printer.h"
#include "lstring.h"
#include "eval.h"
#include "number.h"
#include "character.h"
#include "package.h"
#include "hash.h"
#include <math.h>
#include <stdarg.h>
#include <limits.h>

/* ------------------------------------------------------------------ */
/* Parsed control strings                                              */

enum { FP_NONE, FP_VAL, FP_ARG, FP_REM };
typedef struct FParam {
    uint8_t kind;
    size_t pos;        /* offset in the control string, for errors */
    Obj val;           /* FP_VAL: an integer or a character */
} FParam;

typedef struct FDir {
    uint32_t ch;       /* 0: literal text; else the directive character, upcased */
    size_t start, end; /* the directive's extent in the control string */
    const uint32_t *text; size_t tlen; /* literal text */
    bool colon, at;
    bool fill;         /* text inside ~<...~:@>: a fill newline after each run of blanks */
    int np;
    FParam *p;
    int close;         /* ( [ { <: index of the matching close directive; -1 unknown, -2 none */
    int nsep;          /* [ <: the ~; separators */
    int *sep;
    size_t name_start, name_end; /* ~/name/ */
} FDir;

typedef struct FCtl {
    Obj string;        /* the control string, simple */
    const uint32_t *s;
    size_t len;
    FDir *d;
    int n, cap;
} FCtl;

/* An error context: the control strings being processed, innermost first, for messages. */
typedef struct FCtx {
    struct FCtx *outer;
    FCtl *c;
    size_t pos;        /* the offset of the directive that processes the inner string */
} FCtx;

_Noreturn static void ferror_at(Lisp *L, FCtl *c, FCtx *ctx, size_t pos, const char *fmt, ...);

/* The control string as a simple string (copying a non-simple one). */
static Obj simple_control(Lisp *L, Obj o) {
    if (is_string(o)) return o;
    if (is_type(o, T_ARRAY) && (EltType)ARR(o)->h.aux32 == ELT_CHARACTER && ARR(o)->h.aux == 1) {
        Obj s = princ_to_string(L, o);
        return s;
    }
    return NULL;
}

static FDir *add_dir(Lisp *L, FCtl *c) {
    if (c->n == c->cap) {
        int nc = c->cap ? c->cap * 2 : 16;
        FDir *nd = (FDir *)gc_alloc(L, (size_t)nc * sizeof(FDir));
        if (c->n) memcpy(nd, c->d, (size_t)c->n * sizeof(FDir));
        c->d = nd;
        c->cap = nc;
    }
    FDir *d = &c->d[c->n++];
    memset(d, 0, sizeof *d);
    d->close = -1;
    return d;
}

static void add_text(Lisp *L, FCtl *c, const uint32_t *t, size_t n, size_t start) {
    /* merge with a preceding literal, as SBCL's tokenizer does */
    if (c->n > 0 && c->d[c->n - 1].ch == 0) {
        FDir *p = &c->d[c->n - 1];
        uint32_t *m = (uint32_t *)gc_alloc_atomic(L, (p->tlen + n + 1) * sizeof(uint32_t));
        memcpy(m, p->text, p->tlen * sizeof(uint32_t));
        memcpy(m + p->tlen, t, n * sizeof(uint32_t));
        p->text = m;
        p->tlen += n;
        p->end = start + n;
        return;
    }
    FDir *d = add_dir(L, c);
    d->ch = 0;
    d->start = start;
    d->end = start + n;
    d->text = t;
    d->tlen = n;
}

static bool is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

/* Parse one directive starting at the tilde at START; returns its end offset. */
static size_t parse_directive(Lisp *L, FCtl *c, size_t start, FDir *out) {
    const uint32_t *s = c->s;
    size_t len = c->len, posn = start + 1;
    FParam params[64];
    int np = 0;
    bool colon = false, at = false;
#define GETC() (posn >= len ? (ferror_at(L, c, NULL, start, "String ended before directive was found"), 0u) : s[posn])
#define ORDER() do { if (colon || at) ferror_at(L, c, NULL, posn, "Parameters found after #\\: or #\\@ modifier"); } while (0)
#define PUSHP(k, p, v) do { if (np >= 64) ferror_at(L, c, NULL, p, "Too many parameters"); \
        params[np].kind = (k); params[np].pos = (p); params[np].val = (v); np++; } while (0)
    for (;;) {
        uint32_t ch = GETC();
        if (is_digit(ch) || ch == '+' || ch == '-') {
            ORDER();
            size_t p0 = posn, q = posn;
            bool neg = false;
            if (s[q] == '+' || s[q] == '-') { neg = s[q] == '-'; q++; }
            size_t ds = q;
            while (q < len && is_digit(s[q])) q++;
            Obj v = NO_VALUE;
            if (q > ds) {
                char buf[96];
                size_t nd = q - ds;
                if (nd > 80) ferror_at(L, c, NULL, p0, "Parameter too large");
                for (size_t i = 0; i < nd; i++) buf[i] = (char)s[ds + i];
                buf[nd] = 0;
                mpz_t z;
                mpz_init_set_str(z, buf, 10);
                if (neg) mpz_neg(z, z);
                v = make_bignum_from_mpz(L, z);
                mpz_clear(z);
            }
            PUSHP(v == NO_VALUE ? FP_NONE : FP_VAL, p0, v);
            posn = q;
            uint32_t n = GETC();
            if (n == ',') { /* next parameter */ }
            else if (n == ':' || n == '@') posn--;
            else break;
        } else if (ch == 'v' || ch == 'V' || ch == '#') {
            ORDER();
            PUSHP(ch == '#' ? FP_REM : FP_ARG, posn, NIL);
            posn++;
            uint32_t n = GETC();
            if (n == ',') { }
            else if (n == ':' || n == '@') posn--;
            else break;
        } else if (ch == '\'') {
            ORDER();
            posn++;
            uint32_t pc = GETC();
            PUSHP(FP_VAL, posn, make_char(pc));
            posn++;
            if (GETC() != ',') posn--;
        } else if (ch == ',') {
            ORDER();
            PUSHP(FP_NONE, posn, NIL);
        } else if (ch == ':') {
            if (colon) ferror_at(L, c, NULL, posn, "Too many colons supplied");
            colon = true;
        } else if (ch == '@') {
            if (at) ferror_at(L, c, NULL, posn, "Too many #\\@ characters supplied");
            at = true;
        } else {
            if (s[posn - 1] == ',' && (posn < 2 || s[posn - 2] != '\'')) {
                ORDER();
                PUSHP(FP_NONE, posn - 1, NIL);
            }
            break;
        }
        posn++;
    }
    uint32_t ch = GETC();
    out->name_start = out->name_end = 0;
    if (ch == '/') {
        size_t q = posn + 1;
        while (q < len && s[q] != '/') q++;
        if (q >= len) ferror_at(L, c, NULL, posn, "No matching closing slash");
        out->name_start = posn + 1;
        out->name_end = q;
        posn = q;
    }
#undef GETC
#undef ORDER
#undef PUSHP
    out->ch = ch < 128 ? (uint32_t)(ch >= 'a' && ch <= 'z' ? ch - 32 : ch) : char_upcase(ch);
    out->start = start;
    out->end = posn + 1;
    out->colon = colon;
    out->at = at;
    out->np = np;
    if (np) {
        out->p = (FParam *)gc_alloc(L, (size_t)np * sizeof(FParam));
        memcpy(out->p, params, (size_t)np * sizeof(FParam));
    }
    return posn + 1;
}

static FCtl *fmt_parse(Lisp *L, Obj str) {
    FCtl *c = (FCtl *)gc_alloc(L, sizeof(FCtl));
    c->string = str;
    c->s = STR(str)->data;
    c->len = STR(str)->len;
    size_t blocks[256];
    int nblock = 0;
    long semicolon = -1, just_semi = -1, pprint = -1;
    size_t i = 0;
    while (i < c->len) {
        size_t j = i;
        while (j < c->len && c->s[j] != '~') j++;
        if (j > i) add_text(L, c, c->s + i, j - i, i);
        if (j >= c->len) break;
        FDir d;
        memset(&d, 0, sizeof d);
        d.close = -1;
        size_t end = parse_directive(L, c, j, &d);
        i = end;
        if (d.ch == '\n' && d.np == 0 && !(d.colon && d.at)) {
            /* ~newline: @ keeps the newline; without : the following blanks go */
            static const uint32_t nl = '\n';
            if (d.at) add_text(L, c, &nl, 1, j);
            else add_text(L, c, c->s, 0, j);
            if (!d.colon)
                while (i < c->len && (c->s[i] == ' ' || c->s[i] == '\t' || c->s[i] == '\n')) i++;
            continue;
        }
        if ((d.ch == '%' || d.ch == '~' || d.ch == '|') && !d.colon && !d.at &&
            (d.np == 0 || (d.np == 1 && d.p[0].kind != FP_ARG && d.p[0].kind != FP_REM))) {
            long n = 1;
            bool literal = true;
            if (d.np == 1 && d.p[0].kind == FP_VAL) {
                Obj v = d.p[0].val;
                if (is_fixnum(v) && fixnum_val(v) >= 0 && fixnum_val(v) < 128) n = (long)fixnum_val(v);
                else literal = false;
            }
            if (literal) {
                uint32_t *t = (uint32_t *)gc_alloc_atomic(L, ((size_t)n + 1) * sizeof(uint32_t));
                uint32_t chr = d.ch == '%' ? '\n' : d.ch == '|' ? 12 : '~';
                for (long k = 0; k < n; k++) t[k] = chr;
                add_text(L, c, t, (size_t)n, j);
                continue;
            }
        }
        /* CLHS 22.3.5.2, checked over the whole string as SBCL's tokenizer does */
        if (d.ch == '<') {
            if (nblock < 256) blocks[nblock] = d.end - 1;
            nblock++;
        } else if (d.ch == ';' && d.colon && nblock > 0) semicolon = (long)d.end - 1;
        else if (d.ch == '>') {
            if (nblock == 0) ferror_at(L, c, NULL, j, "~> without a matching ~<");
            if (d.colon) {
                if (pprint < 0) pprint = nblock <= 256 ? (long)blocks[nblock - 1] : (long)d.end - 1;
                semicolon = -1;
            } else if (semicolon >= 0 && just_semi < 0) just_semi = semicolon;
            nblock--;
        } else if (nblock == 0 && pprint < 0 &&
                   (d.ch == 'W' || d.ch == 'I' || d.ch == '_' || (d.ch == 'T' && d.colon)))
            pprint = (long)d.end - 1;
        *add_dir(L, c) = d;
    }
    if (pprint >= 0 && just_semi >= 0)
        ferror_at(L, c, NULL, (size_t)(pprint < just_semi ? pprint : just_semi), "Misuse of justification and pprint directives");
    return c;
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */

static void put_caret_block(Lisp *L, StrBuf *b, FCtl *c, size_t pos) {
    sb_puts(L, b, "\n  ");
    sb_putn(L, b, c->s, c->len);
    sb_puts(L, b, "\n  ");
    for (size_t i = 0; i < pos; i++) sb_putc(L, b, ' ');
    sb_putc(L, b, '^');
}

_Noreturn static void ferror_msg(Lisp *L, FCtl *c, FCtx *ctx, size_t pos, Obj complaint) {
    StrBuf b;
    sb_init(L, &b, 128);
    sb_puts(L, &b, "error in FORMAT: ");
    sb_put_string(L, &b, complaint);
    put_caret_block(L, &b, c, pos);
    for (FCtx *x = ctx; x; x = x->outer) {
        sb_puts(L, &b, "\nwhile processing indirect format string:");
        put_caret_block(L, &b, x->c, x->pos);
    }
    Obj msg = sb_to_string(L, &b);
    Obj initargs = cons(L, S(K_FORMAT_CONTROL), cons(L, string_from_cstr(L, "~A"),
                   cons(L, S(K_FORMAT_ARGUMENTS), cons(L, cons(L, msg, NIL),
                   cons(L, S(FMT_K_COMPLAINT), cons(L, complaint,
                   cons(L, S(FMT_K_CONTROL_STRING), cons(L, c->string,
                   cons(L, S(FMT_K_OFFSET), cons(L, FIX((intptr_t)pos), NIL))))))))));
    err_condition(L, S(FMT_FORMAT_ERROR), initargs);
}

_Noreturn static void ferror_at(Lisp *L, FCtl *c, FCtx *ctx, size_t pos, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Obj complaint = msg_vformat(L, fmt, ap);
    va_end(ap);
    ferror_msg(L, c, ctx, pos, complaint);
}

/* ------------------------------------------------------------------ */
/* Interpreter state                                                   */

typedef struct FArgs {
    Obj orig;          /* the whole argument list (for ~:* ~@* ~:P) */
    Obj cur;           /* the arguments left */
    long used;         /* how many of ORIG have been consumed */
    /* inside ~<...~:>: each argument is first checked the way PPRINT-POP does */
    Obj lb_stream;     /* NIL when not in a logical block */
    Obj lb_list;
    long lb_count;
    Obj lb_tag;
} FArgs;

typedef struct FEnv {
    FCtl *c;
    FCtx *ctx;
    Obj stream;
    FArgs *a;
    bool upup_allowed; /* inside ~:{ */
    Obj outside;       /* the sublists left in the enclosing ~:{ */
} FEnv;

enum { FMT_OK = 0, FMT_UP = 1, FMT_UPUP = 2 };

static int interp(Lisp *L, FEnv *env, int from, int to);

/* The number of conses in L (a dotted tail is not counted); a circular list is a type error,
 * as for LENGTH. */
static Obj args_length(Lisp *L, Obj l) {
    long n = 0;
    Obj slow = l;
    for (Obj x = l; is_cons(x); x = CDR(x)) {
        n++;
        if ((n & 1) == 0) {
            slow = CDR(slow);
            if (slow == CDR(x) && is_cons(slow)) err_type(L, l, S(LIST));
        }
    }
    return FIX(n);
}

static bool list_circular(Obj l) {
    Obj slow = l, fast = l;
    for (;;) {
        if (!is_cons(fast) || !is_cons(CDR(fast))) return false;
        fast = CDR(CDR(fast));
        slow = CDR(slow);
        if (fast == slow) return true;
    }
}

static bool args_empty(FArgs *a) { return a->cur == NIL; }

static Obj next_arg_at(Lisp *L, FEnv *env, size_t pos) {
    FArgs *a = env->a;
    if (a->cur == NIL) ferror_at(L, env->c, env->ctx, pos, "No more arguments");
    if (a->lb_stream != NIL) {
        if (pp_pop_check(L, a->lb_stream, a->lb_list, a->lb_count)) throw_to_tag(L, a->lb_tag, NIL);
        a->lb_count++;
        if (is_cons(a->lb_list)) a->lb_list = CDR(a->lb_list);
    }
    if (!is_cons(a->cur)) err_type(L, a->cur, S(LIST));
    Obj v = CAR(a->cur);
    a->cur = CDR(a->cur);
    a->used++;
    return v;
}

static Obj next_arg(Lisp *L, FEnv *env, FDir *d) { return next_arg_at(L, env, d->end - 1); }

/* Bind the directive's parameters: out[i] = the value, or NO_VALUE for the default. */
static void get_params(Lisp *L, FEnv *env, FDir *d, int nexpected, Obj *out) {
    for (int i = 0; i < nexpected; i++) out[i] = NO_VALUE;
    int n = d->np < nexpected ? d->np : nexpected;
    for (int i = 0; i < n; i++) {
        FParam *p = &d->p[i];
        switch (p->kind) {
        case FP_NONE: out[i] = NO_VALUE; break;
        case FP_VAL: out[i] = p->val; break;
        case FP_ARG: {
            Obj v = next_arg_at(L, env, p->pos);
            out[i] = v == NIL ? NO_VALUE : v;
            break;
        }
        case FP_REM: out[i] = args_length(L, env->a->cur); break;
        }
    }
    if (d->np > nexpected)
        ferror_at(L, env->c, env->ctx, d->p[nexpected].pos, "Too many parameters, expected no more than %d", nexpected);
}

static long int_param(Lisp *L, Obj v, long dflt) {
    if (v == NO_VALUE) return dflt;
    if (is_fixnum(v)) return (long)fixnum_val(v);
    if (is_bignum(v)) return mpz_sgn(BIG(v)) < 0 ? -(1L << 40) : (1L << 40);
    err_type(L, v, S(INTEGER));
}

static uint32_t char_param(Lisp *L, Obj v, uint32_t dflt) {
    if (v == NO_VALUE) return dflt;
    if (!is_char(v)) err_type(L, v, S(CHARACTER));
    return char_code(v);
}

static void check_modifier(Lisp *L, FEnv *env, FDir *d, bool colon_bad, bool at_bad) {
    if (colon_bad && d->colon) ferror_at(L, env->c, env->ctx, d->end - 1, "The colon modifier cannot be used with this directive.");
    if (at_bad && d->at) ferror_at(L, env->c, env->ctx, d->end - 1, "The at-sign modifier cannot be used with this directive.");
}

static void check_both(Lisp *L, FEnv *env, FDir *d) {
    if (d->colon && d->at)
        ferror_at(L, env->c, env->ctx, d->end - 1, "The colon and the at-sign modifiers cannot be used simultaneously with this directive.");
}

/* ------------------------------------------------------------------ */
/* Output helpers                                                      */

static void out_chars(Lisp *L, Obj stream, uint32_t c, long n) {
    if (n <= 0) return;
    if (n > 4096) {
        gc_check_request(L, (size_t)n * 4);
        if (n > (1L << 28)) err_storage(L, "FORMAT: refusing to write %ld padding characters", n);
    }
    uint32_t chunk[256];
    for (int i = 0; i < 256; i++) chunk[i] = c;
    while (n > 0) {
        long k = n < 256 ? n : 256;
        stream_write_u32(L, stream, chunk, (size_t)k);
        n -= k;
        safe_point(L);
        if (STREAM(stream)->truncated) return;
    }
}

static void out_str(Lisp *L, Obj stream, Obj str) { stream_write_u32(L, stream, STR(str)->data, STR(str)->len); }

static void out_cstr(Lisp *L, Obj stream, const char *s) { stream_write_cstr(L, stream, s); }

/* FORMAT-WRITE-FIELD: STR padded to MINCOL in steps of COLINC with at least MINPAD pads. */
static void write_field(Lisp *L, FEnv *env, FDir *d, Obj stream, Obj str, long mincol, long colinc, long minpad,
                        uint32_t padchar, bool padleft) {
    if (colinc <= 0) ferror_at(L, env->c, env->ctx, d->end - 1, "The value of colinc is %ld, should be a positive integer", colinc);
    if (mincol < 0) ferror_at(L, env->c, env->ctx, d->end - 1, "The value of mincol is %ld, should be a non-negative integer", mincol);
    if (!padleft) out_str(L, stream, str);
    out_chars(L, stream, padchar, minpad);
    long chars = (long)STR(str)->len + (minpad > 0 ? minpad : 0);
    long extra = 0;
    if (chars < mincol) extra = (mincol - chars + colinc - 1) / colinc * colinc;
    out_chars(L, stream, padchar, extra);
    if (padleft) out_str(L, stream, str);
}

static Obj temp_stream(Lisp *L) { return make_string_output_stream(L); }

static Obj print_to_string(Lisp *L, Obj o, bool escape) {
    Obj s = make_string_output_stream(L);
    print_obj(L, o, s, escape);
    return get_output_stream_string(L, s);
}

/* ------------------------------------------------------------------ */
/* Finding the structure of compound directives                         */

static int find_close(Lisp *L, FEnv *env, int i);

/* Scan from the directive after I for CLOSECH, skipping nested constructs; records ~; separators
 * at this level in seps (when non-NULL). Returns the index of the close, or -2. */
static int scan_for(Lisp *L, FEnv *env, int i, uint32_t closech, int *seps, int *nsep, int maxsep) {
    FCtl *c = env->c;
    int n = 0;
    for (int j = i + 1; j < c->n; j++) {
        FDir *d = &c->d[j];
        if (d->ch == 0) continue;
        if (d->ch == closech) { if (nsep) *nsep = n; return j; }
        if (d->ch == ';' && seps) {
            if (n >= maxsep) ferror_at(L, c, env->ctx, d->end - 1, "Too many clauses");
            seps[n++] = j;
            continue;
        }
        if (d->ch == '(' || d->ch == '[' || d->ch == '{' || d->ch == '<') {
            int k = find_close(L, env, j);
            if (k < 0) { if (nsep) *nsep = n; return -2; }
            j = k;
        }
    }
    if (nsep) *nsep = n;
    return -2;
}

static uint32_t closer_of(uint32_t ch) {
    switch (ch) {
    case '(': return ')';
    case '[': return ']';
    case '{': return '}';
    case '<': return '>';
    default: return 0;
    }
}

static int find_close(Lisp *L, FEnv *env, int i) {
    stack_check(L);
    FDir *d = &env->c->d[i];
    if (d->close != -1) return d->close;
    d->close = -2; /* guards against runaway recursion */
    int seps[1024];
    int nsep = 0;
    bool want_seps = d->ch == '[' || d->ch == '<';
    int k = scan_for(L, env, i, closer_of(d->ch), want_seps ? seps : NULL, &nsep, 1024);
    d = &env->c->d[i];
    d->close = k;
    if (want_seps && k >= 0) {
        d->nsep = nsep;
        d->sep = (int *)gc_alloc_atomic(L, (size_t)(nsep + 1) * sizeof(int));
        memcpy(d->sep, seps, (size_t)nsep * sizeof(int));
    }
    return k;
}

/* ------------------------------------------------------------------ */
/* ~A ~S ~W ~C                                                          */

static void dir_a_s(Lisp *L, FEnv *env, FDir *d, bool escape) {
    if (d->np) {
        Obj p[4];
        get_params(L, env, d, 4, p);
        long mincol = int_param(L, p[0], 0), colinc = int_param(L, p[1], 1), minpad = int_param(L, p[2], 0);
        uint32_t pad = char_param(L, p[3], ' ');
        Obj arg = next_arg(L, env, d);
        Obj str = (arg == NIL && d->colon) ? string_from_cstr(L, "()") : print_to_string(L, arg, escape);
        write_field(L, env, d, env->stream, str, mincol, colinc, minpad, pad, d->at);
        return;
    }
    Obj arg = next_arg(L, env, d);
    if (arg == NIL && d->colon) out_cstr(L, env->stream, "()");
    else print_obj(L, arg, env->stream, escape);
}

static void dir_w(Lisp *L, FEnv *env, FDir *d) {
    Obj p[1];
    get_params(L, env, d, 0, p);
    Obj arg = next_arg(L, env, d);
    size_t sp = L->special_sp;
    if (d->colon) bind_special(L, S(PRINT_PRETTY), S(T));
    if (d->at) {
        bind_special(L, S(PRINT_LEVEL), NIL);
        bind_special(L, S(PRINT_LENGTH), NIL);
    }
    print_write(L, arg, env->stream);
    unbind_specials(L, sp);
}

static void char_name_capitalized(Lisp *L, Obj stream, uint32_t c) {
    Obj name = printer_char_name(L, c);
    if (name == NIL) { stream_write_char(L, stream, c); return; }
    /* string-capitalize */
    bool inword = false;
    String *n = STR(name);
    for (size_t i = 0; i < n->len; i++) {
        uint32_t ch = n->data[i];
        bool alnum = char_is_alpha(ch) || (ch >= '0' && ch <= '9');
        if (alnum) {
            ch = inword ? char_downcase(ch) : char_upcase(ch);
            inword = true;
        } else inword = false;
        stream_write_char(L, stream, ch);
    }
}

static void dir_c(Lisp *L, FEnv *env, FDir *d) {
    Obj p[1];
    get_params(L, env, d, 0, p);
    Obj arg = next_arg(L, env, d);
    if (!is_char(arg)) ferror_at(L, env->c, env->ctx, d->end - 1, "%S is not of type CHARACTER.", arg);
    uint32_t c = char_code(arg);
    if (d->colon) {
        if (c != ' ' && char_is_graphic(c)) stream_write_char(L, env->stream, c);
        else char_name_capitalized(L, env->stream, c);
    } else if (d->at) {
        print_obj(L, arg, env->stream, true);
    } else stream_write_char(L, env->stream, c);
}

/* ------------------------------------------------------------------ */
/* Integers: ~D ~B ~O ~X ~R                                             */

static bool int_negative(Obj n) {
    if (is_fixnum(n)) return fixnum_val(n) < 0;
    return mpz_sgn(BIG(n)) < 0;
}

static Obj int_digits(Lisp *L, Obj n, int base) {
    StrBuf b;
    sb_init(L, &b, 32);
    Obj a = int_negative(n) ? num_negate(L, n) : n;
    number_print(L, a, &b, base, false);
    return sb_to_string(L, &b);
}

static Obj add_commas(Lisp *L, Obj digits, uint32_t commachar, long interval) {
    String *s = STR(digits);
    size_t len = s->len;
    if (interval <= 0 || len == 0) return digits;
    StrBuf b;
    sb_init(L, &b, len + len / (size_t)interval + 1);
    size_t first = (len - 1) % (size_t)interval + 1;
    for (size_t i = 0; i < len; i++) {
        if (i >= first && (i - first) % (size_t)interval == 0) sb_putc(L, &b, commachar);
        sb_putc(L, &b, s->data[i]);
    }
    return sb_to_string(L, &b);
}

static void princ_in_base(Lisp *L, Obj stream, Obj arg, int base) {
    size_t sp = L->special_sp;
    bind_special(L, S(PRINT_BASE), FIX(base));
    bind_special(L, S(PRINT_RADIX), NIL);
    print_obj(L, arg, stream, false);
    unbind_specials(L, sp);
}

static void print_integer_field(Lisp *L, FEnv *env, FDir *d, Obj arg, bool commas, bool sign, int base, long mincol,
                                uint32_t pad, uint32_t commachar, long interval) {
    if (!is_integer(arg)) {
        princ_in_base(L, env->stream, arg, base);
        return;
    }
    Obj digits = int_digits(L, arg, base);
    if (commas) digits = add_commas(L, digits, commachar, interval);
    StrBuf b;
    sb_init(L, &b, STR(digits)->len + 2);
    if (int_negative(arg)) sb_putc(L, &b, '-');
    else if (sign) sb_putc(L, &b, '+');
    sb_put_string(L, &b, digits);
    write_field(L, env, d, env->stream, sb_to_string(L, &b), mincol, 1, 0, pad, true);
}

static void dir_integer(Lisp *L, FEnv *env, FDir *d, int base) {
    if (d->colon || d->at || d->np) {
        Obj p[4];
        get_params(L, env, d, 4, p);
        long mincol = int_param(L, p[0], 0);
        uint32_t pad = char_param(L, p[1], ' ');
        uint32_t commachar = char_param(L, p[2], ',');
        long interval = int_param(L, p[3], 3);
        Obj arg = next_arg(L, env, d);
        print_integer_field(L, env, d, arg, d->colon, d->at, base, mincol, pad, commachar, interval);
        return;
    }
    princ_in_base(L, env->stream, next_arg(L, env, d), base);
}

static const char *const ones_names[] = {NULL, "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};
static const char *const tens_names[] = {NULL, NULL, "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};
static const char *const teens_names[] = {"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                                          "seventeen", "eighteen", "nineteen"};
static const char *const period_names[] = {"", " thousand", " million", " billion", " trillion", " quadrillion",
    " quintillion", " sextillion", " septillion", " octillion", " nonillion", " decillion", " undecillion",
    " duodecillion", " tredecillion", " quattuordecillion", " quindecillion", " sexdecillion", " septendecillion",
    " octodecillion", " novemdecillion", " vigintillion"};
static const char *const ordinal_ones[] = {NULL, "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"};
static const char *const ordinal_tens[] = {NULL, "tenth", "twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth",
                                           "seventieth", "eightieth", "ninetieth"};

static void small_cardinal(Lisp *L, StrBuf *b, int n) {
    int hundreds = n / 100, rem = n % 100;
    if (hundreds > 0) {
        sb_puts(L, b, ones_names[hundreds]);
        sb_puts(L, b, " hundred");
        if (rem > 0) sb_putc(L, b, ' ');
    }
    if (rem > 0) {
        int tens = rem / 10, ones = rem % 10;
        if (tens > 1) {
            sb_puts(L, b, tens_names[tens]);
            if (ones > 0) { sb_putc(L, b, '-'); sb_puts(L, b, ones_names[ones]); }
        } else if (tens == 1) sb_puts(L, b, teens_names[ones]);
        else if (ones > 0) sb_puts(L, b, ones_names[ones]);
    }
}

/* Returns false when the number is too large to print in English. */
static bool cardinal_aux(Lisp *L, StrBuf *b, mpz_t n, int period) {
    if (period > 21) return false;
    mpz_t beyond;
    mpz_init(beyond);
    unsigned long here = mpz_fdiv_q_ui(beyond, n, 1000);
    bool ok = true;
    if (mpz_sgn(beyond) != 0) ok = cardinal_aux(L, b, beyond, period + 1);
    if (ok && here != 0) {
        if (mpz_sgn(beyond) != 0) sb_putc(L, b, ' ');
        small_cardinal(L, b, (int)here);
        sb_puts(L, b, period_names[period]);
    }
    mpz_clear(beyond);
    return ok;
}

static bool format_cardinal(Lisp *L, StrBuf *b, Obj arg) {
    mpz_t n;
    mpz_init(n);
    integer_to_mpz(arg, n);
    bool ok = true;
    if (mpz_sgn(n) < 0) {
        sb_puts(L, b, "negative ");
        mpz_neg(n, n);
        ok = cardinal_aux(L, b, n, 0);
    } else if (mpz_sgn(n) == 0) sb_puts(L, b, "zero");
    else ok = cardinal_aux(L, b, n, 0);
    mpz_clear(n);
    return ok;
}

static bool format_ordinal(Lisp *L, StrBuf *b, Obj arg) {
    mpz_t n, top;
    mpz_init(n);
    mpz_init(top);
    integer_to_mpz(arg, n);
    if (mpz_sgn(n) < 0) { sb_puts(L, b, "negative "); mpz_neg(n, n); }
    unsigned long bot = mpz_fdiv_q_ui(top, n, 100);
    bool ok = true;
    if (mpz_sgn(top) != 0) {
        mpz_t m;
        mpz_init(m);
        mpz_sub_ui(m, n, bot);
        ok = cardinal_aux(L, b, m, 0);
        mpz_clear(m);
    }
    if (ok) {
        if (mpz_sgn(top) != 0 && bot > 0) sb_putc(L, b, ' ');
        int tens = (int)(bot / 10), ones = (int)(bot % 10);
        if (bot == 12) sb_puts(L, b, "twelfth");
        else if (tens == 1) { sb_puts(L, b, teens_names[ones]); sb_puts(L, b, "th"); }
        else if (tens == 0 && ones > 0) sb_puts(L, b, ordinal_ones[ones]);
        else if (ones == 0 && tens > 0) sb_puts(L, b, ordinal_tens[tens]);
        else if (bot > 0) { sb_puts(L, b, tens_names[tens]); sb_putc(L, b, '-'); sb_puts(L, b, ordinal_ones[ones]); }
        else if (mpz_sgn(n) > 0) sb_puts(L, b, "th");
        else sb_puts(L, b, "zeroth");
    }
    mpz_clear(n);
    mpz_clear(top);
    return ok;
}

static void format_roman(Lisp *L, StrBuf *b, long n, bool old) {
    static const char chars[] = "MDCLXVI";
    static const long vals[] = {1000, 500, 100, 50, 10, 5, 1};
    static const char subc[] = "CCXXII";
    static const long subv[] = {100, 100, 10, 10, 1, 1, 0};
    for (int k = 0; k < 7 && n > 0; k++) {
        while (n >= vals[k]) { sb_putc(L, b, (uint32_t)chars[k]); n -= vals[k]; }
        if (!old && k < 6 && n >= vals[k] - subv[k] && subv[k] > 0) {
            sb_putc(L, b, (uint32_t)subc[k]);
            sb_putc(L, b, (uint32_t)chars[k]);
            n -= vals[k] - subv[k];
        }
    }
}

_Noreturn static void err_number_too_large(Lisp *L, const char *what, Obj n) {
    Obj args = cons(L, n, NIL);
    Obj ctl = msg_format(L, "Number too large to print in %s: ~:D", what);
    err_condition(L, S(SIMPLE_ERROR), cons(L, S(K_FORMAT_CONTROL), cons(L, ctl, cons(L, S(K_FORMAT_ARGUMENTS), cons(L, args, NIL)))));
}

static void dir_r(Lisp *L, FEnv *env, FDir *d) {
    Obj p[5];
    get_params(L, env, d, 5, p);
    Obj arg = next_arg(L, env, d);
    if (p[0] == NO_VALUE && !is_integer(arg)) ferror_at(L, env->c, env->ctx, d->end - 1, "%S is not of type INTEGER.", arg);
    if (p[0] != NO_VALUE) {
        long base = int_param(L, p[0], 10);
        if (base < 2 || base > 36) err_type(L, p[0], S(INTEGER));
        print_integer_field(L, env, d, arg, d->colon, d->at, (int)base, int_param(L, p[1], 0), char_param(L, p[2], ' '),
                            char_param(L, p[3], ','), int_param(L, p[4], 3));
        return;
    }
    StrBuf b;
    sb_init(L, &b, 64);
    if (d->at) {
        int64_t n;
        bool fits = integer_to_int64(arg, &n);
        if (d->colon) {
            if (!fits || n <= 0 || n >= 5000) err_number_too_large(L, "old Roman numerals", arg);
            format_roman(L, &b, (long)n, true);
        } else {
            if (!fits || n <= 0 || n >= 4000) err_number_too_large(L, "Roman numerals", arg);
            format_roman(L, &b, (long)n, false);
        }
    } else if (d->colon) {
        if (!format_ordinal(L, &b, arg)) err_number_too_large(L, "English", arg);
    } else {
        if (!format_cardinal(L, &b, arg)) err_number_too_large(L, "English", arg);
    }
    stream_write_u32(L, env->stream, b.data, b.len);
}

static void dir_p(Lisp *L, FEnv *env, FDir *d) {
    Obj p[1];
    get_params(L, env, d, 0, p);
    Obj arg;
    if (d->colon) {
        FArgs *a = env->a;
        if (a->used == 0) ferror_at(L, env->c, env->ctx, d->end - 1, "No previous argument");
        Obj l = a->orig;
        for (long i = 0; i < a->used - 1 && is_cons(l); i++) l = CDR(l);
        arg = is_cons(l) ? CAR(l) : NIL;
    } else arg = next_arg(L, env, d);
    bool one = is_fixnum(arg) && fixnum_val(arg) == 1;
    if (d->at) out_cstr(L, env->stream, one ? "y" : "ies");
    else if (!one) stream_write_char(L, env->stream, 's');
}

#define NOARG LONG_MIN /* a float parameter not given */

/* ------------------------------------------------------------------ */
/* Floats: digit generation                                            */


char *flonum_to_string(Lisp *L, double x, bool single, long width, long fdigits, bool has_scale, long scale,
                       long fmin, bool *lpoint, bool *tpoint, long *pointpos) {
    long e;
    char *str;
    long sc = has_scale ? scale : 0;
    long fm = fmin != NOARG ? fmin : 0;
    if (fdigits != NOARG) {
        long a = -(fdigits + sc), b = -fm;
        str = flonum_digits(L, x, single, true, a < b ? a : b, false, &e);
    } else if (width != NOARG && width > 1) {
        long we, fe;
        long wpos = width - 1 + (has_scale && scale < 0 ? scale : 0);
        if (wpos < 1) wpos = 1;
        char *ws = flonum_digits(L, x, single, true, wpos, true, &we);
        char *fs = flonum_digits(L, x, single, true, -(fm + sc), false, &fe);
        if (strlen(ws) >= strlen(fs)) { str = ws; e = we; }
        else { str = fs; e = fe; }
    } else str = flonum_digits(L, x, single, false, 0, false, &e);
    if (x != 0) e += sc;
    long len = (long)strlen(str);
    StrBuf b;
    sb_init(L, &b, (size_t)len + 16);
    char *out;
    size_t cap = (size_t)len + 32 + (size_t)(e > 0 ? e : -e) + (size_t)(fdigits != NOARG && fdigits > 0 ? fdigits : 0);
    out = (char *)gc_alloc_atomic(L, cap);
    size_t o = 0;
    (void)b;
    if (e > 0) {
        long m = len < e ? len : e;
        for (long i = 0; i < m; i++) out[o++] = str[i];
        for (long i = 0; i < e - len; i++) out[o++] = '0';
        out[o++] = '.';
        for (long i = m; i < len; i++) out[o++] = str[i];
        if (fdigits != NOARG)
            for (long i = 0; i < fdigits - (len - m); i++) out[o++] = '0';
    } else {
        out[o++] = '.';
        for (long i = 0; i < -e; i++) out[o++] = '0';
        long upto = len;
        if (fdigits != NOARG) {
            long mx = fm > fdigits + e ? fm : fdigits + e;
            upto = len < mx ? len : mx;
        }
        for (long i = 0; i < upto; i++) out[o++] = str[i];
        if (fdigits != NOARG)
            for (long i = 0; i < fdigits + e - len; i++) out[o++] = '0';
    }
    out[o] = 0;
    *lpoint = out[0] == '.';
    *tpoint = out[o - 1] == '.';
    char *dot = strchr(out, '.');
    *pointpos = dot ? (long)(dot - out) : -1;
    return out;
}

/* ------------------------------------------------------------------ */
/* ~F ~E ~G ~$                                                          */

typedef struct FFloat { double v; bool single; } FFloat;

/* The float to print for ARG (rationals become single-floats, as in SBCL); false if not a real. */
static bool float_of(Lisp *L, Obj arg, FFloat *out) {
    if (is_single(arg)) { out->v = single_val(arg); out->single = true; return true; }
    if (is_double(arg)) { out->v = DBL(arg); out->single = false; return true; }
    if (is_rational(arg)) {
        double d = number_to_double(L, arg);
        float f = (float)d;
        if (isinf(f)) err_arith(L, S(FLOATING_POINT_OVERFLOW), S(FMT_COERCE), cons(L, arg, cons(L, S(SINGLE_FLOAT), NIL)));
        out->v = f;
        out->single = true;
        return true;
    }
    return false;
}

static Obj float_obj(Lisp *L, FFloat *f) { return f->single ? make_single((float)f->v) : make_double(L, f->v); }

static void write_cstr_n(Lisp *L, Obj stream, const char *s) { stream_write_cstr(L, stream, s); }

/* Digit counts and scale factors beyond this would make the digit generator build numbers of
 * that many digits: refused, as a storage condition. */
#define FLOAT_PARAM_LIMIT 100000L
static void check_float_params(Lisp *L, int n, const long *v) {
    for (int i = 0; i < n; i++)
        if (v[i] != NOARG && (v[i] > FLOAT_PARAM_LIMIT || v[i] < -FLOAT_PARAM_LIMIT))
            err_storage(L, "FORMAT: float field parameter %ld is too large", v[i]);
}

/* Returns true when the field overflowed (for ~G). */
static bool format_fixed_aux(Lisp *L, Obj stream, FFloat *num, long w, long d, bool has_k, long k, uint32_t ovf,
                             uint32_t pad, bool atsign) {
    double v = num->v;
    if (isinf(v) || isnan(v)) {
        print_obj(L, float_obj(L, num), stream, true);
        return false;
    }
    bool neg = signbit(v);
    long spaceleft = w;
    if (w != NOARG && (atsign || neg)) spaceleft--;
    bool lpoint, tpoint;
    long pointpos;
    char *str = flonum_to_string(L, fabs(v), num->single, spaceleft, d, has_k, k, NOARG, &lpoint, &tpoint, &pointpos);
    long len = (long)strlen(str);
    if (d == 0) tpoint = false;
    if (w != NOARG) {
        spaceleft -= len;
        if (lpoint) {
            if (spaceleft > 0 || tpoint) spaceleft--;
            else lpoint = false;
        }
        if (tpoint) {
            if (spaceleft > 0) spaceleft--;
            else tpoint = false;
        }
    }
    if (w != NOARG && spaceleft < 0 && ovf) {
        out_chars(L, stream, ovf, w);
        return true;
    }
    if (w != NOARG) out_chars(L, stream, pad, spaceleft);
    if (neg) stream_write_char(L, stream, '-');
    else if (atsign) stream_write_char(L, stream, '+');
    if (lpoint) stream_write_char(L, stream, '0');
    write_cstr_n(L, stream, str);
    if (tpoint) stream_write_char(L, stream, '0');
    return false;
}

static void format_princ_field(Lisp *L, FEnv *env, FDir *d, Obj arg, long w, uint32_t pad) {
    size_t sp = L->special_sp;
    bind_special(L, S(PRINT_BASE), FIX(10));
    Obj str = print_to_string(L, arg, false);
    unbind_specials(L, sp);
    write_field(L, env, d, env->stream, str, w == NOARG ? 0 : w, 1, 0, pad, false);
}

static void format_decimal_field(Lisp *L, FEnv *env, FDir *d, Obj arg, long w) {
    size_t sp = L->special_sp;
    bind_special(L, S(PRINT_BASE), FIX(10));
    bind_special(L, S(PRINT_RADIX), NIL);
    Obj str = print_to_string(L, arg, false);
    unbind_specials(L, sp);
    write_field(L, env, d, env->stream, str, w == NOARG ? 0 : w, 1, 0, ' ', true);
}

static void dir_f(Lisp *L, FEnv *env, FDir *d) {
    check_modifier(L, env, d, true, false);
    Obj p[5];
    get_params(L, env, d, 5, p);
    long w = int_param(L, p[0], NOARG), dd = int_param(L, p[1], NOARG);
    bool has_k = p[2] != NO_VALUE;
    long k = int_param(L, p[2], 0);
    uint32_t ovf = char_param(L, p[3], 0), pad = char_param(L, p[4], ' ');
    long chk[3] = {w, dd, k};
    check_float_params(L, 3, chk);
    Obj arg = next_arg(L, env, d);
    FFloat f;
    if (float_of(L, arg, &f)) format_fixed_aux(L, env->stream, &f, w, dd, has_k, k, ovf, pad, d->at);
    else if (is_number(arg)) format_decimal_field(L, env, d, arg, w);
    else format_princ_field(L, env, d, arg, w, pad);
}

/* SBCL 2.2.9's SCALE-EXPONENT: X scaled into [0.1, 1) in double arithmetic, and the exponent. */
static double scale_exponent(double x, bool single, long *ex_out) {
    if (x == 0) { *ex_out = 1; return 0.0; }
    int exponent;
    frexp(x, &exponent);
    uint64_t bits = 0x3FD34413509F79FFULL;
    double log2_10;
    memcpy(&log2_10, &bits, sizeof log2_10);
    long ex = (long)nearbyint((double)exponent * log2_10);
    double y;
    if (ex < 0) {
        if (fpclassify(x) == FP_SUBNORMAL) y = x * 1.0e16 * pow(10.0, (double)(-ex - 16));
        else y = x * 10.0 * pow(10.0, (double)(-ex - 1));
    } else y = x / 10.0 / pow(10.0, (double)(ex - 1));
    double dd = 10.0;
    double z = y;
    while (!(z < 1.0)) {
        z = y / dd;
        dd *= 10.0;
        ex++;
    }
    double m = 10.0, w = z;
    while (!(w >= 0.1)) {
        w = z * m;
        m *= 10.0;
        ex--;
    }
    *ex_out = ex;
    return single ? (double)(float)w : w;
}

static uint32_t exponent_marker(Lisp *L, bool single) {
    Obj deflt = SYM(S(READ_DEFAULT_FLOAT_FORMAT))->value;
    bool is_default = single ? (deflt == S(SINGLE_FLOAT) || deflt == S(SHORT_FLOAT))
                             : (deflt == S(DOUBLE_FLOAT) || deflt == S(LONG_FLOAT));
    if (is_default) return 'e';
    return single ? 'f' : 'd';
}

static void format_exp_aux(Lisp *L, Obj stream, FFloat *numf, long w, long d, long e, long k, uint32_t ovf,
                           uint32_t pad, uint32_t marker, bool atsign) {
    double number = numf->v;
    if (isinf(number) || isnan(number)) {
        print_obj(L, float_obj(L, numf), stream, true);
        return;
    }
    bool neg = signbit(number);
    long expt;
    double num = scale_exponent(fabs(number), numf->single, &expt);
    if (num == 1.0) k = k - 1;
    expt = expt - k;
    char estr[32];
    snprintf(estr, sizeof estr, "%ld", expt < 0 ? -expt : expt);
    long elen0 = (long)strlen(estr);
    long elen = e != NOARG ? (elen0 > e ? elen0 : e) : elen0;
    long spaceleft = NOARG;
    if (w != NOARG) {
        spaceleft = w - 2 - elen;
        if (atsign || neg) spaceleft--;
    }
    if (w != NOARG && ovf && e != NOARG && elen > e) {
        out_chars(L, stream, ovf, w);
        return;
    }
    long fdig = d != NOARG ? (k > 0 ? d - k + 1 : d) : NOARG;
    long fmin = k < 0 ? 1 : fdig;
    bool lpoint, tpoint;
    long pointpos;
    char *fstr = flonum_to_string(L, num, numf->single, spaceleft, fdig, true, k, fmin, &lpoint, &tpoint, &pointpos);
    long flen = (long)strlen(fstr);
    if (fdig == 0) tpoint = false;
    if (w != NOARG) {
        spaceleft -= flen;
        if (lpoint) {
            if (spaceleft > 0 || tpoint) spaceleft--;
            else lpoint = false;
        }
        if (tpoint) {
            if (spaceleft <= 0) tpoint = false;
            else spaceleft--;
        }
    }
    if (w != NOARG && spaceleft < 0 && ovf) {
        out_chars(L, stream, ovf, w);
        return;
    }
    if (w != NOARG) out_chars(L, stream, pad, spaceleft);
    if (neg) stream_write_char(L, stream, '-');
    else if (atsign) stream_write_char(L, stream, '+');
    if (lpoint) stream_write_char(L, stream, '0');
    write_cstr_n(L, stream, fstr);
    if (tpoint) stream_write_char(L, stream, '0');
    stream_write_char(L, stream, marker ? marker : exponent_marker(L, numf->single));
    stream_write_char(L, stream, expt < 0 ? '-' : '+');
    if (e != NOARG) out_chars(L, stream, '0', e - elen0);
    write_cstr_n(L, stream, estr);
}

static void dir_e(Lisp *L, FEnv *env, FDir *d) {
    check_modifier(L, env, d, true, false);
    Obj p[7];
    get_params(L, env, d, 7, p);
    long w = int_param(L, p[0], NOARG), dd = int_param(L, p[1], NOARG), e = int_param(L, p[2], NOARG), k = int_param(L, p[3], 1);
    uint32_t ovf = char_param(L, p[4], 0), pad = char_param(L, p[5], ' '), mark = char_param(L, p[6], 0);
    long chk[4] = {w, dd, e, k};
    check_float_params(L, 4, chk);
    Obj arg = next_arg(L, env, d);
    FFloat f;
    if (float_of(L, arg, &f)) format_exp_aux(L, env->stream, &f, w, dd, e, k, ovf, pad, mark, d->at);
    else format_princ_field(L, env, d, arg, w, pad);
}

static void format_general_aux(Lisp *L, Obj stream, FFloat *numf, long w, long d, long e, bool has_k, long k,
                               uint32_t ovf, uint32_t pad, uint32_t marker, bool atsign) {
    double number = numf->v;
    if (isinf(number) || isnan(number)) {
        print_obj(L, float_obj(L, numf), stream, true);
        return;
    }
    long n;
    scale_exponent(fabs(number), numf->single, &n);
    if (d == NOARG) {
        bool lp, tp;
        long pp;
        char *str = flonum_to_string(L, fabs(number), numf->single, NOARG, NOARG, false, 0, NOARG, &lp, &tp, &pp);
        long len = (long)strlen(str);
        long q = len == 1 ? 1 : len - 1;
        long mn = n < 7 ? n : 7;
        d = q > mn ? q : mn;
    }
    long ee = e != NOARG ? e + 2 : 4;
    long ww = w != NOARG ? w - ee : NOARG;
    long dd = d - n;
    if (0 <= dd && dd <= d) {
        bool over = format_fixed_aux(L, stream, numf, ww, dd, false, 0, ovf, pad, atsign);
        out_chars(L, stream, over ? ovf : ' ', ee);
    } else format_exp_aux(L, stream, numf, w, d, e, has_k ? k : 1, ovf, pad, marker, atsign);
}

static void dir_g(Lisp *L, FEnv *env, FDir *d) {
    check_modifier(L, env, d, true, false);
    Obj p[7];
    get_params(L, env, d, 7, p);
    long w = int_param(L, p[0], NOARG), dd = int_param(L, p[1], NOARG), e = int_param(L, p[2], NOARG);
    bool has_k = p[3] != NO_VALUE;
    long k = int_param(L, p[3], 1);
    uint32_t ovf = char_param(L, p[4], 0), pad = char_param(L, p[5], ' '), mark = char_param(L, p[6], 0);
    long chk[4] = {w, dd, e, k};
    check_float_params(L, 4, chk);
    Obj arg = next_arg(L, env, d);
    FFloat f;
    if (float_of(L, arg, &f)) format_general_aux(L, env->stream, &f, w, dd, e, has_k, k, ovf, pad, mark, d->at);
    else if (is_number(arg)) format_decimal_field(L, env, d, arg, w);
    else format_princ_field(L, env, d, arg, w, pad);
}

static void dir_dollar(Lisp *L, FEnv *env, FDir *d) {
    Obj p[4];
    get_params(L, env, d, 4, p);
    long dd = int_param(L, p[0], 2), n = int_param(L, p[1], 1), w = int_param(L, p[2], 0);
    uint32_t pad = char_param(L, p[3], ' ');
    long chk[3] = {dd, n, w};
    check_float_params(L, 3, chk);
    Obj arg = next_arg(L, env, d);
    FFloat f;
    Obj stream = env->stream;
    if (float_of(L, arg, &f)) {
        if (isinf(f.v) || isnan(f.v)) {
            print_obj(L, float_obj(L, &f), stream, true);
            return;
        }
        const char *sign = signbit(f.v) ? "-" : d->at ? "+" : "";
        long signlen = (long)strlen(sign);
        bool lp, tp;
        long pointplace;
        char *str = flonum_to_string(L, fabs(f.v), f.single, NOARG, dd, false, 0, NOARG, &lp, &tp, &pointplace);
        if (d->colon) out_cstr(L, stream, sign);
        out_chars(L, stream, pad, w - signlen - (n > pointplace ? n : pointplace) - 1 - dd);
        if (!d->colon) out_cstr(L, stream, sign);
        out_chars(L, stream, '0', n - pointplace);
        out_cstr(L, stream, str);
        return;
    }
    format_decimal_field(L, env, d, arg, w);
}

/* ------------------------------------------------------------------ */
/* Layout directives: ~% ~& ~| ~~ ~T ~_ ~I                              */

static void dir_repeat(Lisp *L, FEnv *env, FDir *d, uint32_t c) {
    check_modifier(L, env, d, true, true);
    Obj p[1];
    get_params(L, env, d, 1, p);
    long n = int_param(L, p[0], 1);
    out_chars(L, env->stream, c, n);
}

static void dir_fresh_line(Lisp *L, FEnv *env, FDir *d) {
    check_modifier(L, env, d, true, true);
    Obj p[1];
    get_params(L, env, d, 1, p);
    long n = int_param(L, p[0], 1);
    if (n > 0) {
        stream_fresh_line(L, env->stream);
        out_chars(L, env->stream, '\n', n - 1);
    }
}

static void dir_t(Lisp *L, FEnv *env, FDir *d) {
    Obj p[2];
    get_params(L, env, d, 2, p);
    Obj stream = env->stream;
    if (d->colon) {
        pp_tab(L, stream, d->at ? PP_TAB_SECTION_RELATIVE : PP_TAB_SECTION, int_param(L, p[0], 1), int_param(L, p[1], 1));
        return;
    }
    /* in a logical block ~T is PPRINT-TAB, which does nothing unless *PRINT-PRETTY* (as SBCL) */
    bool in_block = pp_stream_p(L, stream);
    if (d->at) {
        long colrel = int_param(L, p[0], 1), colinc = int_param(L, p[1], 1);
        if (in_block) { pp_tab(L, stream, PP_TAB_LINE_RELATIVE, colrel, colinc); return; }
        long cur = (long)stream_column(L, stream);
        long spaces = colrel;
        if (colinc > 0) {
            long t = cur + colrel;
            long c = (t + colinc - 1) / colinc * colinc;
            spaces = c - cur;
        }
        out_chars(L, stream, ' ', spaces);
        return;
    }
    long colnum = int_param(L, p[0], 1), colinc = int_param(L, p[1], 1);
    if (in_block) { pp_tab(L, stream, PP_TAB_LINE, colnum, colinc); return; }
    long cur = (long)stream_column(L, stream);
    if (cur < colnum) out_chars(L, stream, ' ', colnum - cur);
    else if (colinc > 0) out_chars(L, stream, ' ', colinc - (cur - colnum) % colinc);
}

/* ------------------------------------------------------------------ */
/* ~* ~? ~/name/                                                        */

static void args_goto(Lisp *L, FEnv *env, FDir *d, long posn) {
    FArgs *a = env->a;
    long total = FIXVAL(args_length(L, a->orig));
    if (posn < 0 || posn > total)
        ferror_at(L, env->c, env->ctx, d->end - 1, "Index %ld is out of bounds. It should have been between 0 and %ld.", posn, total);
    Obj l = a->orig;
    for (long i = 0; i < posn; i++) l = CDR(l);
    a->cur = l;
    a->used = posn;
}

static void dir_star(Lisp *L, FEnv *env, FDir *d) {
    check_both(L, env, d);
    Obj p[1];
    get_params(L, env, d, 1, p);
    if (d->at) {
        args_goto(L, env, d, int_param(L, p[0], 0));
    } else if (d->colon) {
        args_goto(L, env, d, env->a->used - int_param(L, p[0], 1));
    } else {
        long n = int_param(L, p[0], 1);
        for (long i = 0; i < n; i++) next_arg(L, env, d);
    }
}

static Obj format_indirect(Lisp *L, FEnv *env, FDir *d, Obj control, FArgs *a);

static void dir_question(Lisp *L, FEnv *env, FDir *d) {
    check_modifier(L, env, d, true, false);
    Obj p[1];
    get_params(L, env, d, 0, p);
    if (d->at) {
        Obj control = next_arg(L, env, d);
        FArgs b = *env->a;
        b.lb_stream = NIL;
        format_indirect(L, env, d, control, &b);
        env->a->cur = b.cur;
        env->a->used = b.used;
    } else {
        Obj control = next_arg(L, env, d);
        Obj list = next_arg(L, env, d);
        FArgs b = {list, list, 0, NIL, NIL, 0, NIL};
        format_indirect(L, env, d, control, &b);
    }
}

static void dir_slash(Lisp *L, FEnv *env, FDir *d) {
    FCtl *c = env->c;
    /* the name: from the last slash before the end */
    size_t ns = d->name_start, ne = d->name_end;
    StrBuf nb;
    sb_init(L, &nb, ne - ns + 1);
    for (size_t i = ns; i < ne; i++) sb_putc(L, &nb, char_upcase(c->s[i]));
    Obj name = sb_to_string(L, &nb);
    String *n = STR(name);
    long first = -1, second = -1;
    for (size_t i = 0; i < n->len; i++)
        if (n->data[i] == ':') { if (first < 0) first = (long)i; else if (second < 0) second = (long)i; }
    Obj pkg = L->pkg_cl_user, symname = name;
    if (first >= 0) {
        Obj pname = string_from_u32(L, n->data, (size_t)first);
        pkg = package_find(L, pname);
        if (pkg == NIL) ferror_at(L, c, env->ctx, d->end - 1, "No package named %S", pname);
        size_t from = (second == first + 1) ? (size_t)second + 1 : (size_t)first + 1;
        symname = string_from_u32(L, n->data + from, n->len - from);
    }
    int st;
    Obj sym = package_intern_string(L, pkg, symname, &st);
    /* parameters are passed as given */
    Obj params[64];
    int np = 0;
    for (int i = 0; i < d->np && i < 64; i++) {
        FParam *pp = &d->p[i];
        if (pp->kind == FP_ARG) params[np++] = next_arg_at(L, env, pp->pos);
        else if (pp->kind == FP_REM) params[np++] = args_length(L, env->a->cur);
        else if (pp->kind == FP_VAL) params[np++] = pp->val;
        else params[np++] = NIL;
    }
    Obj arg = next_arg(L, env, d);
    Obj argv[68];
    argv[0] = env->stream;
    argv[1] = arg;
    argv[2] = boolean(L, d->colon);
    argv[3] = boolean(L, d->at);
    for (int i = 0; i < np; i++) argv[4 + i] = params[i];
    funcall(L, sym, 4 + np, argv);
}

/* ------------------------------------------------------------------ */
/* ~( ~)                                                                */

static bool alnum(uint32_t c) { return char_is_alpha(c) || (c >= '0' && c <= '9'); }

static int dir_case(Lisp *L, FEnv *env, FDir *d, int i, int *next) {
    int close = find_close(L, env, i);
    if (close < 0) ferror_at(L, env->c, env->ctx, d->end - 1, "No corresponding close paren");
    Obj p[1];
    get_params(L, env, d, 0, p);
    Obj target = env->stream;
    Obj tmp = temp_stream(L);
    STREAM(tmp)->column = stream_column(L, target);
    env->stream = tmp;
    int st = interp(L, env, i + 1, close);
    env->stream = target;
    Obj s = get_output_stream_string(L, tmp);
    String *str = STR(s);
    bool inword = false, seen = false;
    for (size_t k = 0; k < str->len; k++) {
        uint32_t c = str->data[k];
        if (d->colon && d->at) c = char_upcase(c);
        else if (d->colon) {
            if (alnum(c)) { c = inword ? char_downcase(c) : char_upcase(c); inword = true; }
            else inword = false;
        } else if (d->at) {
            if (!seen && alnum(c)) { c = char_upcase(c); seen = true; }
            else c = char_downcase(c);
        } else c = char_downcase(c);
        str->data[k] = c;
    }
    out_str(L, target, s);
    *next = close + 1;
    return st;
}

/* ------------------------------------------------------------------ */
/* ~[ ~; ~]                                                             */

static int dir_cond(Lisp *L, FEnv *env, FDir *d, int i, int *next) {
    check_both(L, env, d);
    int close = find_close(L, env, i);
    if (close < 0) ferror_at(L, env->c, env->ctx, d->end - 1, "No corresponding close bracket");
    d = &env->c->d[i];
    int nclauses = d->nsep + 1;
    int from[nclauses + 1], to[nclauses + 1];
    int prev = i;
    for (int k = 0; k < d->nsep; k++) { from[k] = prev + 1; to[k] = d->sep[k]; prev = d->sep[k]; }
    from[d->nsep] = prev + 1;
    to[d->nsep] = close;
    bool last_colon = d->nsep > 0 && env->c->d[d->sep[d->nsep - 1]].colon;
    *next = close + 1;
    Obj p[1];
    if (d->at) {
        if (nclauses > 1) ferror_at(L, env->c, env->ctx, d->end - 1, "Can only specify one section");
        get_params(L, env, d, 0, p);
        Obj prev_cur = env->a->cur;
        long prev_used = env->a->used;
        Obj arg = next_arg(L, env, d);
        if (arg != NIL) {
            env->a->cur = prev_cur;
            env->a->used = prev_used;
            return interp(L, env, from[0], to[0]);
        }
        return FMT_OK;
    }
    if (d->colon) {
        if (nclauses != 2) ferror_at(L, env->c, env->ctx, d->end - 1, "Must specify exactly two sections");
        get_params(L, env, d, 0, p);
        Obj arg = next_arg(L, env, d);
        return arg != NIL ? interp(L, env, from[1], to[1]) : interp(L, env, from[0], to[0]);
    }
    get_params(L, env, d, 1, p);
    Obj index = p[0] == NO_VALUE ? next_arg(L, env, d) : p[0];
    int ndefault = last_colon ? 1 : 0;
    int last = nclauses - ndefault - 1;
    if (!is_integer(index)) ferror_at(L, env->c, env->ctx, d->end - 1, "The argument to ~[ is not an integer: %A", index);
    int64_t ix;
    bool fits = integer_to_int64(index, &ix);
    if (fits && ix >= 0 && ix <= last) return interp(L, env, from[ix], to[ix]);
    if (last_colon) return interp(L, env, from[nclauses - 1], to[nclauses - 1]);
    return FMT_OK;
}

/* ------------------------------------------------------------------ */
/* ~^                                                                   */

static bool param_eql(Obj a, Obj b) {
    if (is_char(a) || is_char(b)) return a == b;
    return lisp_eql(a, b);
}

static int param_cmp(Lisp *L, Obj a, Obj b) {
    if (!is_real(a)) err_type(L, a, S(REAL));
    if (!is_real(b)) err_type(L, b, S(REAL));
    return num_compare(L, a, b);
}

static int dir_up(Lisp *L, FEnv *env, FDir *d) {
    check_modifier(L, env, d, false, true);
    if (d->colon && !env->upup_allowed)
        ferror_at(L, env->c, env->ctx, d->end - 1, "Attempt to use ~:^ outside a ~:{...~} construct");
    Obj p[3];
    get_params(L, env, d, 3, p);
    bool up;
    if (p[2] != NO_VALUE) up = p[0] != NO_VALUE && p[1] != NO_VALUE && param_cmp(L, p[0], p[1]) <= 0 && param_cmp(L, p[1], p[2]) <= 0;
    else if (p[1] != NO_VALUE) up = p[0] != NO_VALUE && param_eql(p[0], p[1]);
    else if (p[0] != NO_VALUE) up = is_fixnum(p[0]) && fixnum_val(p[0]) == 0;
    else up = d->colon ? env->outside == NIL : args_empty(env->a);
    if (!up) return FMT_OK;
    return d->colon ? FMT_UPUP : FMT_UP;
}

/* ------------------------------------------------------------------ */
/* ~{ ~}                                                                */

static int run_body(Lisp *L, FEnv *env, int from, int to, Obj indirect, FDir *d, FArgs *a) {
    if (indirect == NO_VALUE) {
        FArgs *saved = env->a;
        env->a = a;
        int st = interp(L, env, from, to);
        env->a = saved;
        return st;
    }
    format_indirect(L, env, d, indirect, a);
    return FMT_OK;
}

static int dir_iter(Lisp *L, FEnv *env, FDir *d, int i, int *next) {
    int close = find_close(L, env, i);
    if (close < 0) ferror_at(L, env->c, env->ctx, d->end - 1, "No corresponding close brace");
    Obj p[1];
    get_params(L, env, d, 1, p);
    long max = p[0] == NO_VALUE ? -1 : int_param(L, p[0], -1);
    bool closed_colon = env->c->d[close].colon;
    *next = close + 1;
    Obj indirect = NO_VALUE;
    if (close == i + 1) indirect = next_arg(L, env, d);
    FArgs own;
    FArgs *a;
    if (d->at) a = env->a;
    else {
        Obj list = next_arg(L, env, d);
        own = (FArgs){list, list, 0, NIL, NIL, 0, NIL};
        a = &own;
    }
    if (!is_list(a->cur)) err_type(L, a->cur, S(LIST));
    /* a circular list ends at its label inside a logical block under *PRINT-CIRCLE* (the
     * PPRINT-POP check of next_arg prints ". #n#"); elsewhere it would never end */
    bool circle_ends = a->lb_stream != NIL && SYM(S(PRINT_CIRCLE))->value != NIL;
    if (max < 0 && !circle_ends && list_circular(a->cur)) err_type(L, a->cur, S(LIST));
    bool saved_upup = env->upup_allowed;
    Obj saved_outside = env->outside;
    env->upup_allowed = d->colon;
    FArgs *saved_a = env->a;
    long count = 0;
    int result = FMT_OK;
    for (;;) {
        if (!closed_colon && a->cur == NIL) break;
        if (max >= 0 && count >= max) break;
        Obj before = a->cur;
        long count_before = a->lb_count;
        if (d->colon) {
            env->a = a;
            Obj sub = next_arg(L, env, d);
            FArgs s = {sub, sub, 0, NIL, NIL, 0, NIL};
            env->outside = a->cur;
            env->upup_allowed = true;
            int st = run_body(L, env, i + 1, close, indirect, d, &s);
            env->a = saved_a;
            if (st == FMT_UPUP) break;
        } else {
            env->upup_allowed = false;
            int st = run_body(L, env, i + 1, close, indirect, d, a);
            if (st == FMT_UP) break;
            if (st == FMT_UPUP) { result = FMT_UPUP; break; }
        }
        count++;
        if (closed_colon && a->cur == NIL) break;
        if (STREAM(env->stream)->truncated) break;
        /* a circular list's tail can be the list again though the body took an argument */
        bool took = circle_ends && a->lb_count != count_before;
        if (a->cur == before && max < 0 && !d->colon && !took)
            ferror_at(L, env->c, env->ctx, d->end - 1, "Iteration consumes no arguments and would never end");
        safe_point(L);
    }
    env->upup_allowed = saved_upup;
    env->outside = saved_outside;
    env->a = saved_a;
    return result;
}

/* ------------------------------------------------------------------ */
/* ~< ~>                                                                */

static bool illegal_in_justification(FDir *d) {
    if (d->ch == 'W' || d->ch == 'I' || d->ch == '_') return true;
    if ((d->ch == '>' || d->ch == 'T') && d->colon) return true;
    return false;
}

static void format_justification(Lisp *L, Obj stream, Obj newline_prefix, long extra_space, long line_len,
                                  Obj *strings, int nstrings, bool pad_left, bool pad_right, long mincol,
                                  long colinc, long minpad, uint32_t padchar) {
    long num_gaps = nstrings - 1 + (pad_left ? 1 : 0) + (pad_right ? 1 : 0);
    if (num_gaps < 0) num_gaps = 0;
    long chars = num_gaps * minpad;
    for (int k = 0; k < nstrings; k++) chars += (long)STR(strings[k])->len;
    long length = mincol;
    if (chars > mincol) length = mincol + ((chars - mincol + colinc - 1) / colinc) * colinc;
    long padding = length - chars + num_gaps * minpad;
    if (newline_prefix != NIL && (long)stream_column(L, stream) + length + extra_space > line_len)
        out_str(L, stream, newline_prefix);
    /* do-padding */
#define DO_PADDING() do { long pad_len = num_gaps == 0 ? padding : padding / num_gaps; \
        padding -= pad_len; num_gaps--; out_chars(L, stream, padchar, pad_len); } while (0)
    if (pad_left || (!pad_right && nstrings == 1)) DO_PADDING();
    if (nstrings > 0) {
        out_str(L, stream, strings[0]);
        for (int k = 1; k < nstrings; k++) {
            DO_PADDING();
            out_str(L, stream, strings[k]);
        }
    }
    if (pad_right) DO_PADDING();
#undef DO_PADDING
}

typedef struct LBData {
    FEnv *env;
    int from, to;
    bool at;
    Obj orig;
    long used;
    int status;
    Obj rest_after;
} LBData;

static void lb_body(Lisp *L, Obj stream, Obj list, void *data) {
    LBData *lb = (LBData *)data;
    FEnv *env = lb->env;
    FArgs a = {lb->at ? lb->orig : list, list, lb->at ? lb->used : 0, stream, list, 0, NIL};
    a.lb_tag = cons(L, NIL, NIL);
    FEnv inner = *env;
    inner.stream = stream;
    inner.a = &a;
    Frame fr;
    LISP_TRY(L, &fr, FR_CATCH, a.lb_tag) {   /* ~^ inside the block throws to LB_TAG */
        int st = interp(L, &inner, lb->from, lb->to);
        if (st == FMT_UPUP) lb->status = FMT_UPUP;
    } LISP_CATCH(L, &fr) {
    } LISP_END_TRY;
}

/* The literal text of a prefix or suffix segment; signals if it holds directives. */
static Obj segment_text(Lisp *L, FEnv *env, int from, int to, bool prefix) {
    StrBuf b;
    sb_init(L, &b, 16);
    for (int j = from; j < to; j++) {
        FDir *x = &env->c->d[j];
        if (x->ch != 0)
            ferror_at(L, env->c, env->ctx, x->end - 1, "Cannot include format directives inside the %s segment of ~<...~:>",
                      prefix ? "prefix" : "suffix");
        sb_putn(L, &b, x->text, x->tlen);
    }
    return sb_to_string(L, &b);
}

static int dir_justify(Lisp *L, FEnv *env, FDir *d, int i, int *next) {
    int close = find_close(L, env, i);
    if (close < 0) ferror_at(L, env->c, env->ctx, d->end - 1, "No corresponding close bracket");
    d = &env->c->d[i];
    FDir *cd = &env->c->d[close];
    int nseg = d->nsep + 1;
    int from[nseg + 1], to[nseg + 1];
    int prev = i;
    for (int k = 0; k < d->nsep; k++) { from[k] = prev + 1; to[k] = d->sep[k]; prev = d->sep[k]; }
    from[d->nsep] = prev + 1;
    to[d->nsep] = close;
    FDir *first_semi = d->nsep > 0 ? &env->c->d[d->sep[0]] : NULL;
    *next = close + 1;
    if (cd->colon) {
        /* logical block */
        if (d->np) ferror_at(L, env->c, env->ctx, d->p[0].pos, "No parameters can be supplied with ~<...~:>.");
        Obj prefix = string_from_cstr(L, d->colon ? "(" : ""), suffix = string_from_cstr(L, d->colon ? ")" : "");
        int bfrom, bto;
        if (nseg == 1) { bfrom = from[0]; bto = to[0]; }
        else if (nseg == 2) { prefix = segment_text(L, env, from[0], to[0], true); bfrom = from[1]; bto = to[1]; }
        else if (nseg == 3) {
            prefix = segment_text(L, env, from[0], to[0], true);
            bfrom = from[1]; bto = to[1];
            suffix = segment_text(L, env, from[2], to[2], false);
        } else ferror_at(L, env->c, env->ctx, d->end - 1, "Too many segments for ~<...~:>");
        if (cd->at)
            for (int j = bfrom; j < bto; j++)
                if (env->c->d[j].ch == 0) env->c->d[j].fill = true;
        bool per_line = first_semi && first_semi->at;
        LBData lb = {env, bfrom, bto, d->at, env->a->orig, env->a->used, FMT_OK, NIL};
        Obj arg;
        if (d->at) arg = env->a->cur;
        else arg = next_arg(L, env, d);
        pp_logical_block(L, env->stream, arg, prefix, per_line, suffix, lb_body, &lb);
        if (d->at) {
            env->a->used += FIXVAL(args_length(L, env->a->cur));
            env->a->cur = NIL;
        }
        return lb.status;
    }
    /* justification */
    int illegal = 0;
    for (int j = i + 1; j < close; j++)
        if (env->c->d[j].ch != 0 && illegal_in_justification(&env->c->d[j])) illegal++;
    if (illegal)
        ferror_at(L, env->c, env->ctx, d->end - 1, "%d illegal directive%s found inside justification block", illegal,
                  illegal == 1 ? "" : "s");
    if (cd->at)
        ferror_at(L, env->c, env->ctx, cd->end - 1,
                  "@ modifier not allowed in close directive of justification block (i.e. ~<...~@>.");
    Obj p[4];
    get_params(L, env, d, 4, p);
    long mincol = int_param(L, p[0], 0), colinc = int_param(L, p[1], 1), minpad = int_param(L, p[2], 0);
    uint32_t padchar = char_param(L, p[3], ' ');
    if (colinc <= 0) ferror_at(L, env->c, env->ctx, d->end - 1, "The value of colinc is %ld, should be a positive integer", colinc);
    Obj newline_string = NIL;
    long extra = 0, line_len = 72;
    Obj *strings = (Obj *)gc_alloc(L, (size_t)nseg * sizeof(Obj));
    int nstrings = 0;
    int k0 = 0;
    Obj target = env->stream;
    int status = FMT_OK;
    if (first_semi && first_semi->colon) {
        Obj q[2];
        get_params(L, env, first_semi, 2, q);
        extra = int_param(L, q[0], 0);
        line_len = int_param(L, q[1], 72);
        Obj tmp = temp_stream(L);
        env->stream = tmp;
        int st = interp(L, env, from[0], to[0]);
        env->stream = target;
        k0 = 1;
        if (st == FMT_UPUP) return FMT_UPUP;
        if (st == FMT_UP) k0 = nseg;
        else newline_string = get_output_stream_string(L, tmp);
    }
    for (int k = k0; k < nseg; k++) {
        Obj tmp = temp_stream(L);
        env->stream = tmp;
        int st = interp(L, env, from[k], to[k]);
        env->stream = target;
        if (st == FMT_UPUP) return FMT_UPUP;
        if (st == FMT_UP) break;
        strings[nstrings++] = get_output_stream_string(L, tmp);
    }
    format_justification(L, target, newline_string, extra, line_len, strings, nstrings, d->colon, d->at, mincol, colinc,
                         minpad, padchar);
    return status;
}

/* ------------------------------------------------------------------ */
/* The interpreter loop                                                */

static void out_text(Lisp *L, FEnv *env, FDir *d) {
    if (!d->fill) {
        stream_write_u32(L, env->stream, d->text, d->tlen);
        return;
    }
    size_t n = d->tlen, k = 0;
    while (k < n) {
        size_t blank = k;
        while (blank < n && d->text[blank] != ' ') blank++;
        if (blank >= n) {
            stream_write_u32(L, env->stream, d->text + k, n - k);
            return;
        }
        size_t nonblank = blank;
        while (nonblank < n && d->text[nonblank] == ' ') nonblank++;
        stream_write_u32(L, env->stream, d->text + k, nonblank - k);
        pp_newline(L, env->stream, PP_FILL);
        k = nonblank;
    }
}

static int interp(Lisp *L, FEnv *env, int from, int to) {
    stack_check(L);
    FCtl *c = env->c;
    int i = from;
    while (i < to) {
        FDir *d = &c->d[i];
        if (d->ch == 0) {
            out_text(L, env, d);
            i++;
            continue;
        }
        int next = i + 1;
        int st = FMT_OK;
        switch (d->ch) {
        case 'A': dir_a_s(L, env, d, false); break;
        case 'S': dir_a_s(L, env, d, true); break;
        case 'W': dir_w(L, env, d); break;
        case 'C': dir_c(L, env, d); break;
        case 'D': dir_integer(L, env, d, 10); break;
        case 'B': dir_integer(L, env, d, 2); break;
        case 'O': dir_integer(L, env, d, 8); break;
        case 'X': dir_integer(L, env, d, 16); break;
        case 'R': dir_r(L, env, d); break;
        case 'P': dir_p(L, env, d); break;
        case 'F': dir_f(L, env, d); break;
        case 'E': dir_e(L, env, d); break;
        case 'G': dir_g(L, env, d); break;
        case '$': dir_dollar(L, env, d); break;
        case '%': dir_repeat(L, env, d, '\n'); break;
        case '&': dir_fresh_line(L, env, d); break;
        case '|': dir_repeat(L, env, d, 12); break;
        case '~': dir_repeat(L, env, d, '~'); break;
        case '\n': {
            check_both(L, env, d);
            Obj p[1];
            get_params(L, env, d, 0, p);
            break;
        }
        case 'T': dir_t(L, env, d); break;
        case '_': {
            Obj p[1];
            get_params(L, env, d, 0, p);
            pp_newline(L, env->stream, d->colon ? (d->at ? PP_MANDATORY : PP_FILL) : (d->at ? PP_MISER : PP_LINEAR));
            break;
        }
        case 'I': {
            check_modifier(L, env, d, false, true);
            Obj p[1];
            get_params(L, env, d, 1, p);
            pp_indent(L, env->stream, d->colon ? PP_INDENT_CURRENT : PP_INDENT_BLOCK, int_param(L, p[0], 0));
            break;
        }
        case '*': dir_star(L, env, d); break;
        case '?': dir_question(L, env, d); break;
        case '/': dir_slash(L, env, d); break;
        case '(': st = dir_case(L, env, d, i, &next); break;
        case ')': ferror_at(L, c, env->ctx, d->end - 1, "no corresponding open paren");
        case '[': st = dir_cond(L, env, d, i, &next); break;
        case ';': ferror_at(L, c, env->ctx, d->end - 1, "~; not contained within either ~[...~] or ~<...~>");
        case ']': ferror_at(L, c, env->ctx, d->end - 1, "No corresponding open bracket");
        case '{': st = dir_iter(L, env, d, i, &next); break;
        case '}': ferror_at(L, c, env->ctx, d->end - 1, "No corresponding open brace");
        case '<': st = dir_justify(L, env, d, i, &next); break;
        case '>': ferror_at(L, c, env->ctx, d->end - 1, "No corresponding open bracket");
        case '^': st = dir_up(L, env, d); break;
        default: {
            Obj name = printer_char_name(L, d->ch);
            if (name != NIL) ferror_at(L, c, env->ctx, d->end - 1, "Unknown format directive (character: %A)", name);
            ferror_at(L, c, env->ctx, d->end - 1, "Unknown format directive");
        }
        }
        if (st != FMT_OK) return st;
        i = next;
    }
    return FMT_OK;
}

/* ------------------------------------------------------------------ */
/* Parsed control strings are kept, so a FORMAT in a loop parses its string once. The cache is
 * direct-mapped by the string object; an entry holds a copy of the text it was parsed from and
 * is used only while the string still holds that text (strings are mutable). */

#define FORMAT_CACHE_SIZE 64

typedef struct FCacheEntry {
    Obj string;
    uint32_t *text;    /* the characters parsed */
    size_t len;
    FCtl *ctl;
} FCacheEntry;

static FCtl *fmt_parse_cached(Lisp *L, Obj str) {
    if (!L->format_cache)
        L->format_cache = gc_alloc(L, FORMAT_CACHE_SIZE * sizeof(FCacheEntry));
    FCacheEntry *e = &((FCacheEntry *)L->format_cache)[((uintptr_t)str >> 4) % FORMAT_CACHE_SIZE];
    size_t len = STR(str)->len;
    if (e->string == str && e->len == len && memcmp(e->text, STR(str)->data, len * sizeof(uint32_t)) == 0)
        return e->ctl;
    FCtl *c = fmt_parse(L, str);    /* may signal: the entry is written only after a good parse */
    uint32_t *copy = (uint32_t *)gc_alloc_atomic(L, (len ? len : 1) * sizeof(uint32_t));
    memcpy(copy, STR(str)->data, len * sizeof(uint32_t));
    e->string = str;
    e->text = copy;
    e->len = len;
    e->ctl = c;
    return c;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */

static Obj run_control(Lisp *L, Obj stream, Obj control, FArgs *a, FCtx *ctx) {
    Obj str = simple_control(L, control);
    if (!str) err_type(L, control, cons(L, S(OR), cons(L, S(STRING), cons(L, S(FUNCTION), NIL))));
    FCtl *c = fmt_parse_cached(L, str);
    FEnv env = {c, ctx, stream, a, false, NIL};
    interp(L, &env, 0, c->n);
    return a->cur;
}

/* ~? ~{~}: process CONTROL with the arguments A; errors mention the outer string. */
static Obj format_indirect(Lisp *L, FEnv *env, FDir *d, Obj control, FArgs *a) {
    if (is_function(control)) {
        Obj r = apply_list(L, control, cons(L, env->stream, a->cur));
        long consumed = FIXVAL(args_length(L, a->cur)) - FIXVAL(args_length(L, r));
        a->cur = r;
        a->used += consumed;
        return r;
    }
    FCtx ctx = {env->ctx, env->c, d->end - 1};
    Obj str = simple_control(L, control);
    if (!str) err_type(L, control, cons(L, S(OR), cons(L, S(STRING), cons(L, S(FUNCTION), NIL))));
    FCtl *c = fmt_parse_cached(L, str);
    FEnv inner = {c, &ctx, env->stream, a, false, NIL};
    interp(L, &inner, 0, c->n);
    return a->cur;
}

Obj format_to_stream(Lisp *L, Obj stream, Obj control, Obj args) {
    if (is_function(control)) return apply_list(L, control, cons(L, stream, args));
    FArgs a = {args, args, 0, NIL, NIL, 0, NIL};
    return run_control(L, stream, control, &a, NULL);
}

/* Append the string S to the fill-pointer string DEST. */
static void append_to_string(Lisp *L, Obj dest, Obj s) {
    String *src = STR(s);
    if (is_string(dest) && (STR(dest)->h.flags & ARR_FILL_POINTER)) {
        String *d = STR(dest);
        if (d->len + src->len > d->cap) {
            if (!(d->h.flags & ARR_ADJUSTABLE)) {
                /* as SBCL: vector-push-extend on a non-adjustable vector fails */
                err_simple(L, "The string %S has no room for %zu more characters and is not adjustable.", dest, src->len);
            }
            size_t ncap = (d->len + src->len) * 2 + 16;
            gc_check_request(L, ncap * 4);
            uint32_t *nd = (uint32_t *)gc_alloc_atomic(L, ncap * sizeof(uint32_t));
            memcpy(nd, d->data, d->len * sizeof(uint32_t));
            d->data = nd;
            d->cap = ncap;
        }
        memcpy(d->data + d->len, src->data, src->len * sizeof(uint32_t));
        d->len += src->len;
        return;
    }
    Obj vpe = intern_cstr(L, L->pkg_cl, "VECTOR-PUSH-EXTEND");
    if (!is_function(SYM(vpe)->function)) err_type(L, dest, S(STRING));
    for (size_t i = 0; i < src->len; i++) funcall2(L, vpe, make_char(src->data[i]), dest);
}

Obj format_dest(Lisp *L, Obj dest, Obj control, Obj args) {
    if (dest == NIL) {
        Obj s = make_string_output_stream(L);
        format_to_stream(L, s, control, args);
        return get_output_stream_string(L, s);
    }
    if (dest == S(T)) {
        format_to_stream(L, stream_out(L, NIL), control, args);
        return NIL;
    }
    if (is_stream(dest)) {
        format_to_stream(L, dest, control, args);
        return NIL;
    }
    if (gray_instance_p(L, dest)) {
        format_to_stream(L, make_gray_stream(L, dest), control, args);
        return NIL;
    }
    if (is_string(dest) || (is_type(dest, T_ARRAY) && (EltType)ARR(dest)->h.aux32 == ELT_CHARACTER)) {
        bool fp = is_string(dest) ? (STR(dest)->h.flags & ARR_FILL_POINTER) != 0 : (ARR(dest)->h.flags & ARR_FILL_POINTER) != 0;
        if (!fp) err_simple(L, "The string %S has no fill pointer, so FORMAT cannot write to it.", dest);
        Obj s = make_string_output_stream(L);
        format_to_stream(L, s, control, args);
        append_to_string(L, dest, get_output_stream_string(L, s));
        return NIL;
    }
    err_type(L, dest, cons(L, S(OR), cons(L, S(NULL), cons(L, S(STREAM), cons(L, S(STRING), cons(L, cons(L, S(MEMBER), cons(L, S(T), NIL)), NIL))))));
}

static Obj list_from(Lisp *L, int n, Obj *args) {
    Obj r = NIL;
    for (int i = n - 1; i >= 0; i--) r = cons(L, args[i], r);
    return r;
}

DEFPRIM(prim_format) { return format_dest(L, args[0], args[1], list_from(L, nargs - 2, args + 2)); }

/* (%format stream control args) -> the unconsumed arguments; used by FORMATTER. */
DEFPRIM(prim_pct_format) {
    UNUSED_ARGS;
    Obj stream = args[0] == NIL ? stream_out(L, NIL) : args[0] == S(T) ? stream_out(L, NIL) : args[0];
    if (!is_stream(stream)) {
        if (!gray_instance_p(L, stream)) err_type(L, stream, S(STREAM));
        stream = make_gray_stream(L, stream);
    }
    return format_to_stream(L, stream, args[1], args[2]);
}

/* (%float-digits float &optional position relativep) -> k, digit string; for tests. */
DEFPRIM(prim_pct_float_digits) {
    Obj x = args[0];
    if (!is_float(x)) err_type(L, x, S(FLOAT));
    double v = is_single(x) ? single_val(x) : DBL(x);
    bool has_pos = nargs > 1 && args[1] != NIL;
    long pos = has_pos ? (long)check_fixnum(L, args[1]) : 0;
    long k;
    char *d = flonum_digits(L, fabs(v), is_single(x), has_pos, pos, nargs > 2 && args[2] != NIL, &k);
    return values2(L, FIX(k), string_from_cstr(L, d));
}

const PrimDef format_prims[] = {
    {"FORMAT", PK_CL, prim_format, 2, REST, 0, "(destination control-string &rest args)", "Writes CONTROL-STRING with its ~ directives applied to ARGS: to a new string that is returned when DESTINATION is NIL, to *STANDARD-OUTPUT* when it is T, else to the given stream or string with a fill pointer."},
    {"%FORMAT", PK_SYS, prim_pct_format, 3, 3, 0, "(stream control args)", "Format to STREAM; returns the arguments left."},
    {"%FLOAT-DIGITS", PK_SYS, prim_pct_float_digits, 1, 3, FN_MV, "(float &optional position relativep)", NULL},
    {0},
};

void format_init(Lisp *L) { prims_register(L, format_prims); }
