/* character.c: characters: names, case, classification, and the CLHS chapter 13 functions. */
#include "character.h"
#include "prim.h"
#include "lstring.h"
#include "array.h"
#include "package.h"
#include "number.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "chardata.h"
#include "docs.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* ---- classification ---- */

/* Is C inside one of the inclusive ranges R (pairs, sorted)? */
static bool in_ranges(const uint32_t *r, size_t npairs, uint32_t c) {
    size_t lo = 0, hi = npairs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < r[2 * mid]) hi = mid;
        else if (c > r[2 * mid + 1]) lo = mid + 1;
        else return true;
    }
    return false;
}

bool char_is_alpha(uint32_t c) {
    if (c < 128) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return in_ranges(cd_alpha, COUNT(cd_alpha) / 2, c);
}

/* The decimal value of a non-ASCII Unicode digit, or -1. */
static int unicode_digit(uint32_t c) {
    size_t lo = 0, hi = COUNT(cd_digits) / 3;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const uint32_t *r = cd_digits + 3 * mid;
        if (c < r[0]) hi = mid;
        else if (c > r[1]) lo = mid + 1;
        else return (int)(r[2] + (c - r[0]));
    }
    return -1;
}

int char_digit_weight(uint32_t c, int radix) {
    int w;
    if (c >= '0' && c <= '9') w = (int)(c - '0');
    else if (c >= 'A' && c <= 'Z') w = (int)(c - 'A' + 10);
    else if (c >= 'a' && c <= 'z') w = (int)(c - 'a' + 10);
    else if (c < 128) return -1;
    else w = unicode_digit(c);
    return w >= 0 && w < radix ? w : -1;
}

bool char_is_alphanumeric(uint32_t c) {
    if (c < 128) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return char_is_alpha(c) || unicode_digit(c) >= 0;
}

bool char_is_graphic(uint32_t c) { return (c > 31 && c < 127) || c > 159; }

bool char_is_standard(uint32_t c) { return (c >= 32 && c < 127) || c == '\n'; }

bool char_is_whitespace(uint32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 11;
}

/* ---- case ---- */

/* The (code upcase downcase) row of C, or NULL when C has no case. */
static const uint32_t *case_row(uint32_t c) {
    size_t lo = 0, hi = COUNT(cd_case) / 3;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const uint32_t *r = cd_case + 3 * mid;
        if (c < r[0]) hi = mid;
        else if (c > r[0]) lo = mid + 1;
        else return r;
    }
    return NULL;
}

uint32_t char_upcase(uint32_t c) {
    if (c < 128) return c >= 'a' && c <= 'z' ? c - 32 : c;
    const uint32_t *r = case_row(c);
    return r ? r[1] : c;
}

uint32_t char_downcase(uint32_t c) {
    if (c < 128) return c >= 'A' && c <= 'Z' ? c + 32 : c;
    const uint32_t *r = case_row(c);
    return r ? r[2] : c;
}

bool char_is_upper(uint32_t c) {
    if (c < 128) return c >= 'A' && c <= 'Z';
    const uint32_t *r = case_row(c);
    return r && r[2] != c && r[1] == c;
}

bool char_is_lower(uint32_t c) {
    if (c < 128) return c >= 'a' && c <= 'z';
    const uint32_t *r = case_row(c);
    return r && r[1] != c && r[2] == c;
}

bool char_has_case(uint32_t c) {
    if (c < 128) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return case_row(c) != NULL;
}

/* ---- names ----
 * A name in cd_names is a word count then word indexes (one byte below 128, else two). Names
 * are either in the table (runs of consecutive codes), Hangul syllables (composed from their
 * jamo), PREFIX-<hex> for the ranges in cd_hex_ranges, or U<hex> for everything else. */

static const char *const hangul_l[19] = {"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S", "SS", "",
                                         "J", "JJ", "C", "K", "T", "P", "H"};
static const char *const hangul_v[21] = {"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE",
                                         "OE", "YO", "U", "WEO", "WE", "WI", "YU", "EU", "YI", "I"};
static const char *const hangul_t[28] = {"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG", "LM", "LB",
                                         "LS", "LT", "LP", "LH", "M", "B", "BS", "S", "SS", "NG", "J", "C",
                                         "K", "T", "P", "H"};
#define HANGUL_FIRST 0xAC00u
#define HANGUL_LAST 0xD7A3u
static const char hangul_prefix[] = "HANGUL_SYLLABLE_";

/* Bytes the encoded name at OFF takes. */
static size_t encoded_size(uint32_t off) {
    const uint8_t *p = cd_names + off;
    size_t n = *p++, size = 1;
    for (size_t i = 0; i < n; i++) {
        size_t k = (p[0] & 0x80) ? 2 : 1;
        p += k;
        size += k;
    }
    return size;
}

/* Decode the name at OFF into BUF; returns its length. */
static size_t decode_name(uint32_t off, char *buf) {
    const uint8_t *p = cd_names + off;
    size_t n = *p++, len = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned k = *p++;
        if (k & 0x80) k = ((k & 0x7Fu) << 8) | *p++;
        const char *w = cd_word_text + cd_word_off[k];
        if (i && len < CHAR_NAME_MAX - 1) buf[len++] = '_';
        while (*w && len < CHAR_NAME_MAX - 1) buf[len++] = *w++;
    }
    buf[len] = 0;
    return len;
}

/* The offset of C's name in cd_names, or -1 when the table does not name C. */
static int64_t table_name_offset(uint32_t c) {
    size_t lo = 0, hi = COUNT(cd_name_runs) / 3;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const uint32_t *r = cd_name_runs + 3 * mid;
        if (c < r[0]) hi = mid;
        else if (c >= r[0] + r[1]) lo = mid + 1;
        else {
            uint32_t off = r[2];
            for (uint32_t k = r[0]; k < c; k++) off += (uint32_t)encoded_size(off);
            return off;
        }
    }
    return -1;
}

size_t char_name_write(uint32_t c, char *buf) {
    int64_t off = c < CHAR_CODE_LIMIT ? table_name_offset(c) : -1;
    if (off >= 0) return decode_name((uint32_t)off, buf);
    if (c >= HANGUL_FIRST && c <= HANGUL_LAST) {
        uint32_t s = c - HANGUL_FIRST;
        return (size_t)snprintf(buf, CHAR_NAME_MAX, "%s%s%s%s", hangul_prefix, hangul_l[s / 588],
                                hangul_v[(s % 588) / 28], hangul_t[s % 28]);
    }
    for (size_t i = 0; i < COUNT(cd_hex_ranges); i += 3)
        if (c >= cd_hex_ranges[i] && c <= cd_hex_ranges[i + 1])
            return (size_t)snprintf(buf, CHAR_NAME_MAX, "%s-%X", cd_hex_prefixes[cd_hex_ranges[i + 2]], c);
    return (size_t)snprintf(buf, CHAR_NAME_MAX, "U%X", c);
}

const char *char_name_of(uint32_t c) {
    static _Thread_local char buf[CHAR_NAME_MAX];
    if (c > 32 && c < 127) return NULL;
    char_name_write(c, buf);
    return buf;
}

/* Name lookup: an open-addressing table from the upcased name's hash to (offset + 1, code),
 * built on first use from the table names and the other names NAME-CHAR accepts. */
#define NAME_HASH_BITS 16
typedef struct { uint32_t off1, code; } NameSlot;
static NameSlot *name_slots;    /* malloc'd: in .bss the collector would scan its 512 KB at each collection */
static pthread_once_t name_once = PTHREAD_ONCE_INIT;

static char ascii_up(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 32) : c; }

static uint32_t name_hash(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)ascii_up(s[i]);
        h *= 16777619u;
    }
    return h ^ (h >> 15);
}

static bool name_eq_ci(const char *a, size_t n, const char *b, size_t m) {
    if (n != m) return false;
    for (size_t i = 0; i < n; i++)
        if (ascii_up(a[i]) != ascii_up(b[i])) return false;
    return true;
}

static void name_insert(uint32_t off, uint32_t code) {
    char buf[CHAR_NAME_MAX];
    size_t n = decode_name(off, buf);
    uint32_t mask = (1u << NAME_HASH_BITS) - 1;
    for (uint32_t h = name_hash(buf, n) & mask;; h = (h + 1) & mask) {
        if (name_slots[h].off1 == 0) {
            name_slots[h].off1 = off + 1;
            name_slots[h].code = code;
            return;
        }
        char other[CHAR_NAME_MAX];
        size_t m = decode_name(name_slots[h].off1 - 1, other);
        if (name_eq_ci(buf, n, other, m)) return;   /* the first name wins */
    }
}

static void name_table_init(void) {
    name_slots = calloc((size_t)1 << NAME_HASH_BITS, sizeof *name_slots);
    if (!name_slots) abort();
    for (size_t r = 0; r < COUNT(cd_name_runs); r += 3) {
        uint32_t off = cd_name_runs[r + 2];
        for (uint32_t k = 0; k < cd_name_runs[r + 1]; k++) {
            name_insert(off, cd_name_runs[r] + k);
            off += (uint32_t)encoded_size(off);
        }
    }
    for (size_t i = 0; i < COUNT(cd_aliases); i += 2) name_insert(cd_aliases[i + 1], cd_aliases[i]);
}

static int32_t table_lookup(const char *name, size_t n) {
    pthread_once(&name_once, name_table_init);
    uint32_t mask = (1u << NAME_HASH_BITS) - 1;
    for (uint32_t h = name_hash(name, n) & mask; name_slots[h].off1; h = (h + 1) & mask) {
        char other[CHAR_NAME_MAX];
        size_t m = decode_name(name_slots[h].off1 - 1, other);
        if (name_eq_ci(name, n, other, m)) return (int32_t)name_slots[h].code;
    }
    return -1;
}

static bool prefix_ci(const char *s, size_t n, const char *prefix, size_t *used) {
    size_t k = strlen(prefix);
    if (k > n) return false;
    for (size_t i = 0; i < k; i++)
        if (ascii_up(s[i]) != prefix[i]) return false;
    *used = k;
    return true;
}

static int32_t hangul_lookup(const char *s, size_t n) {
    size_t k;
    if (!prefix_ci(s, n, hangul_prefix, &k)) return -1;
    for (int l = 0; l < 19; l++) {
        size_t kl;
        if (!prefix_ci(s + k, n - k, hangul_l[l], &kl)) continue;
        for (int v = 0; v < 21; v++) {
            size_t kv;
            if (!prefix_ci(s + k + kl, n - k - kl, hangul_v[v], &kv)) continue;
            for (int t = 0; t < 28; t++) {
                size_t kt;
                if (prefix_ci(s + k + kl + kv, n - k - kl - kv, hangul_t[t], &kt) && k + kl + kv + kt == n)
                    return (int32_t)(HANGUL_FIRST + (uint32_t)(l * 588 + v * 28 + t));
            }
        }
    }
    return -1;
}

/* PREFIX-<hex> names: the hex must be the canonical one. */
static int32_t hex_range_lookup(const char *s, size_t n) {
    for (size_t p = 0; p < COUNT(cd_hex_prefixes); p++) {
        size_t k;
        if (!prefix_ci(s, n, cd_hex_prefixes[p], &k) || k >= n || s[k] != '-') continue;
        uint32_t v = 0;
        size_t i = k + 1;
        if (i == n || n - i > 6) return -1;
        for (; i < n; i++) {
            int w = char_digit_weight((uint8_t)s[i], 16);
            if (w < 0) return -1;
            v = v * 16 + (uint32_t)w;
        }
        for (size_t r = 0; r < COUNT(cd_hex_ranges); r += 3)
            if (cd_hex_ranges[r + 2] == p && v >= cd_hex_ranges[r] && v <= cd_hex_ranges[r + 1]) {
                char canon[CHAR_NAME_MAX];
                size_t m = char_name_write(v, canon);
                return name_eq_ci(s, n, canon, m) ? (int32_t)v : -1;
            }
        return -1;
    }
    return -1;
}

int32_t char_from_name(const uint32_t *name, size_t n) {
    if (n < 2) return -1;
    bool ascii = n < CHAR_NAME_MAX;
    for (size_t i = 0; ascii && i < n; i++) ascii = name[i] < 128;
    if (ascii) {
        char buf[CHAR_NAME_MAX];
        for (size_t i = 0; i < n; i++) buf[i] = (char)name[i];
        /* the names code uses most, without building the full Unicode name table */
        static const struct { const char *name; int32_t code; } common[] = {
            {"SPACE", 32}, {"NEWLINE", 10}, {"TAB", 9}, {"RETURN", 13}, {"LINEFEED", 10}, {"PAGE", 12},
            {"BACKSPACE", 8}, {"RUBOUT", 127}, {"NUL", 0}, {"NULL", 0}, {"ESC", 27}, {"ESCAPE", 27}, {"BEL", 7},
        };
        for (size_t k = 0; k < sizeof common / sizeof *common; k++)
            if (name_eq_ci(buf, n, common[k].name, strlen(common[k].name))) return common[k].code;
        int32_t c = table_lookup(buf, n);
        if (c < 0) c = hangul_lookup(buf, n);
        if (c < 0) c = hex_range_lookup(buf, n);
        if (c >= 0) return c;
    }
    /* U<hex> or U+<hex>; the digits may be any Unicode decimal digits, as in SBCL */
    if (name[0] != 'U' && name[0] != 'u') return -1;
    size_t i = name[1] == '+' ? 2 : 1;
    if (i >= n) return -1;
    bool big = false;
    uint32_t v = 0;
    for (; i < n; i++) {
        int w = char_digit_weight(name[i], 16);
        if (w < 0) return -1;
        if (!big) {
            v = v * 16 + (uint32_t)w;
            if (v >= CHAR_CODE_LIMIT) big = true;
        }
    }
    return big ? -2 : (int32_t)v;
}

/* ---- the CLHS chapter 13 functions ---- */

static uint32_t arg_char(Lisp *L, Obj o) { return char_code(check_char(L, o)); }

typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_GT, CMP_LE, CMP_GE } CmpOp;

static bool ordered(uint32_t a, uint32_t b, CmpOp op) {
    switch (op) {
    case CMP_LT: return a < b;
    case CMP_GT: return a > b;
    case CMP_LE: return a <= b;
    case CMP_GE: return a >= b;
    default: return a == b;
    }
}

/* The comparisons check every argument's type first, as SBCL does. */
static Obj char_compare(Lisp *L, int nargs, Obj *args, CmpOp op, bool ci) {
    for (int i = 0; i < nargs; i++) check_char(L, args[i]);
    if (op == CMP_NE) {
        unsigned steps = 0;
        for (int i = 0; i < nargs; i++) {
            uint32_t a = char_code(args[i]);
            for (int j = i + 1; j < nargs; j++) {
                if ((++steps & 0xFFFF) == 0) safe_point(L);
                uint32_t b = char_code(args[j]);
                if (ci ? char_equal_ci(a, b) : a == b) return NIL;
            }
        }
        return S(T);
    }
    for (int i = 0; i + 1 < nargs; i++) {
        uint32_t a = char_code(args[i]), b = char_code(args[i + 1]);
        bool ok = op == CMP_EQ ? (ci ? char_equal_ci(a, b) : a == b)
                               : (ci ? ordered(char_fold(a), char_fold(b), op) : ordered(a, b, op));
        if (!ok) return NIL;
    }
    return S(T);
}

#define DEFCMP(cname, op, ci) \
    DEFPRIM(cname) { return char_compare(L, nargs, args, op, ci); }
DEFCMP(prim_char_eq, CMP_EQ, false)
DEFCMP(prim_char_slash_eq, CMP_NE, false)
DEFCMP(prim_char_lt, CMP_LT, false)
DEFCMP(prim_char_gt, CMP_GT, false)
DEFCMP(prim_char_lt_eq, CMP_LE, false)
DEFCMP(prim_char_gt_eq, CMP_GE, false)
DEFCMP(prim_char_equal, CMP_EQ, true)
DEFCMP(prim_char_not_equal, CMP_NE, true)
DEFCMP(prim_char_lessp, CMP_LT, true)
DEFCMP(prim_char_greaterp, CMP_GT, true)
DEFCMP(prim_char_not_greaterp, CMP_LE, true)
DEFCMP(prim_char_not_lessp, CMP_GE, true)

static Obj list_int(Lisp *L, Obj head, intptr_t a, intptr_t b) {
    return cons(L, head, cons(L, FIX(a), cons(L, FIX(b), NIL)));
}

/* RADIX argument: an integer from 2 to 36. */
static int arg_radix(Lisp *L, int nargs, Obj *args, int i) {
    if (i >= nargs) return 10;
    Obj r = args[i];
    if (!is_fixnum(r) || fixnum_val(r) < 2 || fixnum_val(r) > 36) err_type(L, r, list_int(L, S(INTEGER), 2, 36));
    return (int)fixnum_val(r);
}

DEFPRIM(prim_characterp) { UNUSED_ARGS; return boolean(L, is_char(args[0])); }

DEFPRIM(prim_character) {
    UNUSED_ARGS;
    Obj x = args[0];
    if (is_char(x)) return x;
    Obj s = NO_VALUE;
    if (is_symbol(x)) s = symbol_name(L, x);
    else if (is_any_string(x)) s = x;
    if (s != NO_VALUE) {
        size_t n;
        const uint32_t *d = string_data(L, s, &n);
        if (n == 1) return make_char(d[0]);
    }
    Obj string1 = cons(L, S(STRING), cons(L, FIX(1), NIL));
    err_type(L, x, cons(L, S(OR), cons(L, S(CHARACTER), cons(L, string1, NIL))));
}

#define DEFPRED(cname, fn) \
    DEFPRIM(cname) { UNUSED_ARGS; return boolean(L, fn(arg_char(L, args[0]))); }
DEFPRED(prim_alpha_char_p, char_is_alpha)
DEFPRED(prim_alphanumericp, char_is_alphanumeric)
DEFPRED(prim_graphic_char_p, char_is_graphic)
DEFPRED(prim_standard_char_p, char_is_standard)
DEFPRED(prim_upper_case_p, char_is_upper)
DEFPRED(prim_lower_case_p, char_is_lower)
DEFPRED(prim_both_case_p, char_has_case)

DEFPRIM(prim_digit_char_p) {
    uint32_t c = arg_char(L, args[0]);
    int w = char_digit_weight(c, arg_radix(L, nargs, args, 1));
    return w < 0 ? NIL : FIX(w);
}

DEFPRIM(prim_digit_char) {
    Obj weight = args[0];
    if (!is_integer(weight) || (is_fixnum(weight) ? fixnum_val(weight) < 0 : mpz_sgn(BIG(weight)) < 0))
        err_type(L, weight, S(UNSIGNED_BYTE));
    int radix = arg_radix(L, nargs, args, 1);
    if (!is_fixnum(weight) || fixnum_val(weight) >= radix) return NIL;
    return make_char((uint32_t)"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[fixnum_val(weight)]);
}

DEFPRIM(prim_char_upcase) { UNUSED_ARGS; return make_char(char_upcase(arg_char(L, args[0]))); }
DEFPRIM(prim_char_downcase) { UNUSED_ARGS; return make_char(char_downcase(arg_char(L, args[0]))); }
DEFPRIM(prim_char_code) { UNUSED_ARGS; return FIX(arg_char(L, args[0])); }
DEFPRIM(prim_char_int) { UNUSED_ARGS; return FIX(arg_char(L, args[0])); }

static _Noreturn void err_char_code(Lisp *L, Obj o) {
    err_type(L, o, cons(L, S(MOD), cons(L, FIX(CHAR_CODE_LIMIT), NIL)));
}

DEFPRIM(prim_code_char) {
    UNUSED_ARGS;
    Obj c = args[0];
    if (!is_fixnum(c) || fixnum_val(c) < 0 || fixnum_val(c) >= CHAR_CODE_LIMIT) err_char_code(L, c);
    return make_char((uint32_t)fixnum_val(c));
}

DEFPRIM(prim_char_name) {
    UNUSED_ARGS;
    char buf[CHAR_NAME_MAX];
    char_name_write(arg_char(L, args[0]), buf);
    return string_from_cstr(L, buf);
}

DEFPRIM(prim_name_char) {
    UNUSED_ARGS;
    Obj s = string_designator(L, args[0]);
    size_t n;
    const uint32_t *d = string_data(L, s, &n);
    int32_t c = char_from_name(d, n);
    if (c == -2) {
        /* SBCL parses the hex digits and then finds the code out of range */
        size_t i = d[1] == '+' ? 2 : 1;
        Obj v = FIX(0);
        for (; i < n; i++) v = num_add(L, num_mul(L, v, FIX(16)), FIX(char_digit_weight(d[i], 16)));
        err_char_code(L, v);
    }
    return c < 0 ? NIL : make_char((uint32_t)c);
}

const PrimDef character_prims[] = {
    {"CHAR=", PK_CL, prim_char_eq, 1, REST, 0, "(character &rest more-characters)", "True when all the characters are the same (case matters)."},
    {"CHAR/=", PK_CL, prim_char_slash_eq, 1, REST, 0, "(character &rest more-characters)", "True when no two of the characters are the same (case matters)."},
    {"CHAR<", PK_CL, prim_char_lt, 1, REST, 0, "(character &rest more-characters)", "True when the characters are in strictly increasing order of code (case matters)."},
    {"CHAR>", PK_CL, prim_char_gt, 1, REST, 0, "(character &rest more-characters)", "True when the characters are in strictly decreasing order of code (case matters)."},
    {"CHAR<=", PK_CL, prim_char_lt_eq, 1, REST, 0, "(character &rest more-characters)", "True when the characters are in non-decreasing order of code (case matters)."},
    {"CHAR>=", PK_CL, prim_char_gt_eq, 1, REST, 0, "(character &rest more-characters)", "True when the characters are in non-increasing order of code (case matters)."},
    {"CHAR-EQUAL", PK_CL, prim_char_equal, 1, REST, 0, "(character &rest more-characters)", "True when all the characters are equal, ignoring case."},
    {"CHAR-NOT-EQUAL", PK_CL, prim_char_not_equal, 1, REST, 0, "(character &rest more-characters)", "True when no two of the characters are equal, ignoring case."},
    {"CHAR-LESSP", PK_CL, prim_char_lessp, 1, REST, 0, "(character &rest more-characters)", "True when the characters are in strictly increasing order, ignoring case."},
    {"CHAR-GREATERP", PK_CL, prim_char_greaterp, 1, REST, 0, "(character &rest more-characters)", "True when the characters are in strictly decreasing order, ignoring case."},
    {"CHAR-NOT-GREATERP", PK_CL, prim_char_not_greaterp, 1, REST, 0, "(character &rest more-characters)", "True when the characters are in non-decreasing order, ignoring case."},
    {"CHAR-NOT-LESSP", PK_CL, prim_char_not_lessp, 1, REST, 0, "(character &rest more-characters)", "True when the characters are in non-increasing order, ignoring case."},
    {"CHARACTER", PK_CL, prim_character, 1, 1, 0, "(object)", "The character a character designator denotes."},
    {"CHARACTERP", PK_CL, prim_characterp, 1, 1, 0, "(object)", "True when OBJECT is a character."},
    {"ALPHA-CHAR-P", PK_CL, prim_alpha_char_p, 1, 1, 0, "(char)", "True when CHAR is an alphabetic character."},
    {"ALPHANUMERICP", PK_CL, prim_alphanumericp, 1, 1, 0, "(char)", "True when CHAR is alphabetic or a decimal digit."},
    {"DIGIT-CHAR-P", PK_CL, prim_digit_char_p, 1, 2, 0, "(char &optional (radix 10))", "The weight of CHAR as a digit in base RADIX, or NIL when it is not one."},
    {"DIGIT-CHAR", PK_CL, prim_digit_char, 1, 2, 0, "(weight &optional (radix 10))", "The character for digit WEIGHT in base RADIX (upper case for letters), or NIL when WEIGHT is not below RADIX."},
    {"GRAPHIC-CHAR-P", PK_CL, prim_graphic_char_p, 1, 1, 0, "(char)", "True when CHAR is a printing character or space, not a control character."},
    {"STANDARD-CHAR-P", PK_CL, prim_standard_char_p, 1, 1, 0, "(char)", "True when CHAR is one of the 96 standard characters."},
    {"UPPER-CASE-P", PK_CL, prim_upper_case_p, 1, 1, 0, "(char)", "True when CHAR is an upper-case letter."},
    {"LOWER-CASE-P", PK_CL, prim_lower_case_p, 1, 1, 0, "(char)", "True when CHAR is a lower-case letter."},
    {"BOTH-CASE-P", PK_CL, prim_both_case_p, 1, 1, 0, "(char)", "True when CHAR has an upper-case and a lower-case variant."},
    {"CHAR-UPCASE", PK_CL, prim_char_upcase, 1, 1, 0, "(char)", "The upper-case variant of CHAR, or CHAR itself when it has none."},
    {"CHAR-DOWNCASE", PK_CL, prim_char_downcase, 1, 1, 0, "(char)", "The lower-case variant of CHAR, or CHAR itself when it has none."},
    {"CHAR-CODE", PK_CL, prim_char_code, 1, 1, 0, "(char)", "The code point of CHAR, a non-negative integer."},
    {"CHAR-INT", PK_CL, prim_char_int, 1, 1, 0, "(char)", "A non-negative integer encoding CHAR; in tinycl the same as CHAR-CODE."},
    {"CODE-CHAR", PK_CL, prim_code_char, 1, 1, 0, "(code)", "The character whose code point is CODE, or NIL when there is none."},
    {"CHAR-NAME", PK_CL, prim_char_name, 1, 1, 0, "(char)", "The name of CHAR as a string (such as Space or Newline), or NIL when it has none."},
    {"NAME-CHAR", PK_CL, prim_name_char, 1, 1, 0, "(name)", "The character named NAME (a string designator, case ignored), or NIL when there is none."},
    {0},
};

/* documentation of the constant character_init defines (docs.h) */
const DocRow character_variable_docs[] = {
    {"CHAR-CODE-LIMIT", "One more than the largest character code: 1114112 (#x110000), covering all of Unicode."},
    {0},
};

void character_init(Lisp *L) {
    prims_register(L, character_prims);
    Obj limit = intern_cstr(L, L->pkg_cl, "CHAR-CODE-LIMIT");
    SYM(limit)->value = FIX(CHAR_CODE_LIMIT);
    SYM(limit)->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
}
