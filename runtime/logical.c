/* logical.c: logical pathnames (CLHS 19.3): the registry of logical hosts, parsing and printing
 * logical namestrings ("HOST:DIR;DIR;NAME.TYPE.VERSION"), and the step from a logical pathname
 * to the physical one the file system sees. The translation rules themselves
 * (LOGICAL-PATHNAME-TRANSLATIONS, TRANSLATE-LOGICAL-PATHNAME) are Lisp, in files.lisp. */
#include "prim.h"
#include "logical.h"
#include "abi.h"
#include "lstring.h"
#include "list.h"
#include "hash.h"
#include "character.h"
#include "package.h"
#include "eval.h"

/* SYS::*LOGICAL-HOSTS*: an EQUAL hash table from a host's upper-case name to its translations
 * as given to (SETF LOGICAL-PATHNAME-TRANSLATIONS). */
static Obj hosts(Lisp *L) { return SYM(S(P_LOGICAL_HOSTS))->value; }

static Obj upcase_string(Lisp *L, Obj s) {
    String *x = STR(s);
    Obj r = string_new(L, x->len);
    x = STR(s);
    for (size_t i = 0; i < x->len; i++) STR(r)->data[i] = char_upcase(x->data[i]);
    return r;
}

static Obj downcase_string(Lisp *L, Obj s) {
    String *x = STR(s);
    Obj r = string_new(L, x->len);
    x = STR(s);
    for (size_t i = 0; i < x->len; i++) STR(r)->data[i] = char_downcase(x->data[i]);
    return r;
}

Obj logical_host_find(Lisp *L, Obj name) {
    if (!is_any_string(name)) return NIL;
    Obj h = hosts(L);
    if (!is_type(h, T_HASHTABLE)) return NIL;
    Obj up = upcase_string(L, string_designator(L, name));
    return hash_get(L, h, up, NO_VALUE) == NO_VALUE ? NIL : up;
}

/* ---- parsing ---- */

static bool word_char(uint32_t c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

_Noreturn static void syntax_error(Lisp *L, Obj str, size_t at, const char *what) {
    size_t n = STR(str)->len;
    if (n > 200)   /* a huge namestring is not repeated in the message */
        err_fmt(L, S(PARSE_ERROR), "logical namestring of %d characters: %s at position %d", (int)n, what, (int)at);
    err_fmt(L, S(PARSE_ERROR), "logical namestring %S: %s at position %d", str, what, (int)at);
}

/* One word of a logical namestring, S[I, J): a string, :WILD, :WILD-INFERIORS (DIR only) or a
 * pattern when it holds * among other characters. */
static Obj parse_word(Lisp *L, Obj str, size_t i, size_t j, bool dir) {
    const uint32_t *s = STR(str)->data;
    if (j == i) syntax_error(L, str, i, "an empty word");
    if (j - i == 1 && s[i] == '*') return S(K_WILD);
    if (dir && j - i == 2 && s[i] == '*' && s[i + 1] == '*') return S(K_WILD_INFERIORS);
    StrBuf lit;
    sb_init(L, &lit, j - i + 1);
    Obj pieces = NIL;
    bool wild = false;
    for (size_t k = i; k < j; k++) {
        uint32_t c = STR(str)->data[k];
        if (c == '*') {
            wild = true;
            if (lit.len) { pieces = cons(L, sb_to_string(L, &lit), pieces); sb_init(L, &lit, j - i + 1); }
            pieces = cons(L, S(K_MULTI_CHAR_WILD), pieces);
        } else if (word_char(c)) {
            sb_putc(L, &lit, char_upcase(c));
        } else {
            syntax_error(L, str, k, "a character that is not alphanumeric, a hyphen or *");
        }
    }
    if (!wild) return sb_to_string(L, &lit);
    if (lit.len) pieces = cons(L, sb_to_string(L, &lit), pieces);
    return cons(L, S(P_PATTERN), list_reverse(L, pieces));
}

static Obj parse_version(Lisp *L, Obj str, size_t i, size_t j) {
    const uint32_t *s = STR(str)->data;
    if (j - i == 1 && s[i] == '*') return S(K_WILD);
    Obj w = string_from_u32(L, s + i, j - i);
    if (string_equal_cstr(upcase_string(L, w), "NEWEST")) return S(K_NEWEST);
    intptr_t v = 0;
    if (j == i || j - i > 18) syntax_error(L, str, i, "a bad version");
    for (size_t k = i; k < j; k++) {
        uint32_t c = STR(str)->data[k];
        if (c < '0' || c > '9') syntax_error(L, str, k, "a bad version");
        v = v * 10 + (intptr_t)(c - '0');
    }
    return FIX(v);
}

Obj logical_parse(Lisp *L, Obj host, Obj str, size_t start, size_t end) {
    size_t i = start;
    bool relative = false;
    if (i < end && STR(str)->data[i] == ';') { relative = true; i++; }
    Obj dirs = NIL;
    for (;;) {
        size_t j = i;
        while (j < end && STR(str)->data[j] != ';') j++;
        if (j == end) break;
        dirs = cons(L, parse_word(L, str, i, j, true), dirs);
        i = j + 1;
    }
    Obj dir = cons(L, relative ? S(K_RELATIVE) : S(K_ABSOLUTE), list_reverse(L, dirs));
    Obj name = NIL, type = NIL, version = NIL;
    size_t dot1 = end, dot2 = end;
    for (size_t k = i; k < end; k++)
        if (STR(str)->data[k] == '.') {
            if (dot1 == end) dot1 = k;
            else if (dot2 == end) dot2 = k;
            else syntax_error(L, str, k, "too many dots");
        }
    if (dot1 > i) name = parse_word(L, str, i, dot1, false);
    if (dot1 < end) type = parse_word(L, str, dot1 + 1, dot2, false);
    if (dot2 < end) version = parse_version(L, str, dot2 + 1, end);
    return pathname_make(L, host, S(K_UNSPECIFIC), dir, name, type, version);
}

bool logical_parse_prefixed(Lisp *L, Obj str, size_t start, size_t end, Obj *out) {
    const uint32_t *s = STR(str)->data;
    size_t k = start;
    while (k < end && word_char(s[k])) k++;
    if (k == start || k == end || s[k] != ':') return false;
    Obj host = logical_host_find(L, string_from_u32(L, STR(str)->data + start, k - start));
    if (host == NIL) return false;
    *out = logical_parse(L, host, str, k + 1, end);
    return true;
}

/* ---- printing ---- */

static void put_word(Lisp *L, StrBuf *b, Obj c) {
    if (is_string(c)) sb_put_string(L, b, c);
    else if (c == S(K_WILD)) sb_putc(L, b, '*');
    else if (c == S(K_WILD_INFERIORS)) sb_puts(L, b, "**");
    else if (is_cons(c) && CAR(c) == S(P_PATTERN)) {
        for (Obj l = CDR(c); is_cons(l); l = CDR(l)) {
            if (is_string(CAR(l))) sb_put_string(L, b, CAR(l));
            else sb_putc(L, b, '*');
        }
    }
}

static bool present(Lisp *L, Obj c) { return c != NIL && c != S(K_UNSPECIFIC); }

Obj logical_namestring(Lisp *L, Obj p, int part) {
    Pathname *x = PATHNAME(p);
    StrBuf b;
    sb_init(L, &b, 64);
    if (part == LN_ALL || part == LN_HOST) {
        sb_put_string(L, &b, x->host);
        if (part == LN_ALL) sb_putc(L, &b, ':');
    }
    if ((part == LN_ALL || part == LN_DIRECTORY) && is_cons(x->directory)) {
        if (CAR(x->directory) == S(K_RELATIVE)) sb_putc(L, &b, ';');
        for (Obj l = CDR(x->directory); is_cons(l); l = CDR(l)) {
            put_word(L, &b, CAR(l));
            sb_putc(L, &b, ';');
        }
    }
    if (part == LN_ALL || part == LN_FILE) {
        x = PATHNAME(p);
        if (present(L, x->name)) put_word(L, &b, x->name);
        if (present(L, x->type)) {
            sb_putc(L, &b, '.');
            put_word(L, &b, x->type);
            if (present(L, x->version)) {
                sb_putc(L, &b, '.');
                if (x->version == S(K_NEWEST)) sb_puts(L, &b, "NEWEST");
                else if (x->version == S(K_WILD)) sb_putc(L, &b, '*');
                else if (is_fixnum(x->version)) {
                    char num[32];
                    snprintf(num, sizeof num, "%ld", (long)fixnum_val(x->version));
                    sb_puts(L, &b, num);
                }
            }
        }
    }
    return sb_to_string(L, &b);
}

/* ---- case ---- */

static Obj map_case(Lisp *L, Obj c, bool up) {
    if (is_any_string(c)) { Obj s = string_designator(L, c); return up ? upcase_string(L, s) : downcase_string(L, s); }
    if (is_cons(c) && CAR(c) == S(P_PATTERN)) {
        Obj r = NIL;
        for (Obj l = CDR(c); is_cons(l); l = CDR(l)) r = cons(L, map_case(L, CAR(l), up), r);
        return cons(L, S(P_PATTERN), list_reverse(L, r));
    }
    return c;
}

Obj logical_upcase_component(Lisp *L, Obj c) {
    if (is_cons(c) && (CAR(c) == S(K_ABSOLUTE) || CAR(c) == S(K_RELATIVE))) {
        Obj r = NIL;
        for (Obj l = CDR(c); is_cons(l); l = CDR(l)) r = cons(L, map_case(L, CAR(l), true), r);
        return cons(L, CAR(c), list_reverse(L, r));
    }
    return map_case(L, c, true);
}

Obj logical_downcase_pathname(Lisp *L, Obj p) {
    Pathname *x = PATHNAME(p);
    Obj dir = NIL;
    if (is_cons(x->directory)) {
        for (Obj l = CDR(x->directory); is_cons(l); l = CDR(l)) dir = cons(L, map_case(L, CAR(l), false), dir);
        dir = cons(L, CAR(PATHNAME(p)->directory), list_reverse(L, dir));
    }
    x = PATHNAME(p);
    Obj name = map_case(L, x->name, false);
    Obj type = map_case(L, PATHNAME(p)->type, false);
    x = PATHNAME(p);
    return pathname_make(L, x->host, x->device, dir, name, type, x->version);
}

Obj logical_to_physical(Lisp *L, Obj p) {
    if (!logical_pathname_p(p)) return p;
    Obj fn = abi_upcall(L, S(TRANSLATE_LOGICAL_PATHNAME));   /* NIL only while the stdlib loads */
    return fn == NIL ? p : funcall1(L, fn, p);
}

/* ---- primitives ---- */

/* (sys:%parse-logical-namestring host string): STRING, a logical namestring whose host prefix
 * may be left out, parsed on the defined logical host HOST */
DEFPRIM(prim_pct_parse_logical_namestring) {
    UNUSED_ARGS;
    Obj host = logical_host_find(L, args[0]);
    if (host == NIL) err_fmt(L, S(SIMPLE_TYPE_ERROR), "logical host not yet defined: %S", args[0]);
    Obj s = args[1];
    if (!is_any_string(s)) err_type(L, s, S(STRING));
    s = string_designator(L, s);
    Obj out;
    if (logical_parse_prefixed(L, s, 0, STR(s)->len, &out)) return out;
    return logical_parse(L, host, s, 0, STR(s)->len);
}

/* (sys:%logical-host-name designator): the upper-case name of the defined logical host, or NIL */
DEFPRIM(prim_pct_logical_host_name) { UNUSED_ARGS; return logical_host_find(L, args[0]); }

const PrimDef logical_prims[] = {
    {"%PARSE-LOGICAL-NAMESTRING", PK_SYS, prim_pct_parse_logical_namestring, 2, 2, 0, "(host string)", NULL},
    {"%LOGICAL-HOST-NAME", PK_SYS, prim_pct_logical_host_name, 1, 1, 0, "(host)", NULL},
    {0},
};

void logical_init(Lisp *L) {
    prims_register(L, logical_prims);
    SYM(S(P_LOGICAL_HOSTS))->value = hash_new(L, HT_EQUAL, 16);
    SYM(S(P_LOGICAL_HOSTS))->h.flags |= SYM_SPECIAL;
}
