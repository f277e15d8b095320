/* printer.c: the Lisp printer (CLHS 22.1): symbols, numbers, strings, lists, arrays, unreadable
 * objects, circularity, and the pretty printer (CLHS 22.2): logical blocks, conditional newlines,
 * indentation and the standard layouts of code. Output matches SBCL's. */
#include "printer.h"
#include "abi.h"
#include "prim.h"
#include "package.h"
#include "lstring.h"
#include "stream.h"
#include "number.h"
#include "character.h"
#include "reader.h"
#include "eval.h"
#include "hash.h"
#include "clos.h"
#include "format.h"
#include "pathname.h"
#include "array.h"

typedef struct PState {
    Obj stream;
    bool escape, readably, circle, gensym, array, pretty;
    int base;
    bool radix;
    Obj pcase;
    long length, level;        /* -1 = unlimited */
    Obj circ;                  /* (table . counter) while *print-circle* printing, else NIL */
} PState;

static void print_rec(Lisp *L, PState *ps, Obj o, long depth);
static void print_list_pretty(Lisp *L, PState *ps, Obj o, long depth);
static void print_array_pretty(Lisp *L, PState *ps, Obj storage, size_t offset, size_t *dims, int rank, bool vector, long depth);

static long limit_var(Lisp *L, Obj sym) {
    (void)L;
    Obj v = SYM(sym)->value;
    if (v == NIL || v == UNBOUND) return -1;
    if (is_bignum(v) && mpz_sgn(BIG(v)) > 0) return (1L << 62);
    if (!is_fixnum(v) || fixnum_val(v) < 0) return -1;
    return (long)fixnum_val(v);
}

static bool truncated(PState *ps) { return STREAM(ps->stream)->truncated; }

static void put(Lisp *L, PState *ps, uint32_t c) { stream_write_char(L, ps->stream, c); }
static void puts_(Lisp *L, PState *ps, const char *s) { stream_write_cstr(L, ps->stream, s); }
static void put_string(Lisp *L, PState *ps, Obj str) { stream_write_u32(L, ps->stream, STR(str)->data, STR(str)->len); }

static void put_address(Lisp *L, PState *ps, Obj o) {
    char buf[32];
    snprintf(buf, sizeof buf, " {%lX}", (unsigned long)WORD(o));
    puts_(L, ps, buf);
}

_Noreturn static void not_readable(Lisp *L, Obj o) {
    err_condition(L, S(PRINT_NOT_READABLE), cons(L, S(K_OBJECT), cons(L, o, NIL)));
}

static long current_depth(Lisp *L) {
    Obj v = SYM(S(PP_PRINT_DEPTH))->value;
    return is_fixnum(v) ? (long)fixnum_val(v) : 0;
}

/* ------------------------------------------------------------------ */
/* Symbols                                                             */

enum { A_OTHER = 1, A_NUMBER = 2, A_UPPER = 4, A_LOWER = 8, A_SIGN = 16, A_EXT = 32, A_DOT = 64, A_SLASH = 128, A_FUNNY = 256 };

static int char_attr(uint32_t c) {
    if (c >= '0' && c <= '9') return A_NUMBER;
    if (c >= 'A' && c <= 'Z') return A_UPPER;
    if (c >= 'a' && c <= 'z') return A_LOWER;
    switch (c) {
    case '!': case '@': case '$': case '%': case '&': case '*': case '=': case '~':
    case '[': case ']': case '{': case '}': case '?': case '<': case '>':
        return A_OTHER;
    case '+': case '-': return A_SIGN;
    case '^': case '_': return A_EXT;
    case '.': return A_DOT;
    case '/': return A_SLASH;
    default: break;
    }
    if (c < 160) return A_FUNNY;
    if (char_is_upper(c)) return A_UPPER;
    if (char_is_lower(c)) return A_LOWER;
    return A_OTHER;
}

static int digit_value(uint32_t c) {
    if (c >= '0' && c <= '9') return (int)(c - '0');
    if (c >= 'A' && c <= 'Z') return (int)(c - 'A' + 10);
    if (c >= 'a' && c <= 'z') return (int)(c - 'a' + 10);
    return 99;
}

/* CLHS 2.3.1.1: could the token be read as a (potential) number in BASE? */
static bool potential_number(const uint32_t *s, size_t n, int base) {
    if (n == 0) return false;
    bool has_digit = false;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = s[i];
        if (c < 128 && digit_value(c) < base) { has_digit = true; continue; }
        int a = char_attr(c);
        if (a & (A_SIGN | A_EXT | A_DOT | A_SLASH)) continue;
        if (a & (A_UPPER | A_LOWER)) {
            /* a number marker: a letter not adjacent to another (non-digit) letter */
            bool prev_letter = i > 0 && (char_attr(s[i - 1]) & (A_UPPER | A_LOWER)) && !(s[i - 1] < 128 && digit_value(s[i - 1]) < base);
            bool next_letter = i + 1 < n && (char_attr(s[i + 1]) & (A_UPPER | A_LOWER)) && !(s[i + 1] < 128 && digit_value(s[i + 1]) < base);
            if (prev_letter || next_letter) return false;
            continue;
        }
        return false;
    }
    if (!has_digit) return false;
    uint32_t f = s[0];
    bool f_digit = f < 128 && digit_value(f) < base;
    if (!f_digit && !(char_attr(f) & (A_SIGN | A_DOT | A_EXT))) return false;
    if (char_attr(s[n - 1]) & A_SIGN) return false;
    return true;
}

/* Must the symbol name be written between bars? */
static bool symbol_quotep(Obj name, ReadCase rc, int base) {
    String *s = STR(name);
    if (s->len == 0) return true;
    int bad_case = rc == RCASE_UPCASE ? A_LOWER : rc == RCASE_DOWNCASE ? A_UPPER : 0;
    bool all_dots = true;
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->data[i];
        int a = char_attr(c);
        if (a & (A_FUNNY | bad_case)) return true;
        /* a titlecase letter is neither upper nor lower case, yet the reader converts it */
        if (rc == RCASE_UPCASE && char_upcase(c) != c) return true;
        if (rc == RCASE_DOWNCASE && char_downcase(c) != c) return true;
        if (c != '.') all_dots = false;
    }
    if (all_dots) return true;
    return potential_number(s->data, s->len, base);
}

static bool alnum_char(uint32_t c) { return char_is_alpha(c) || (c >= '0' && c <= '9'); }

/* Output a symbol name (not quoted) with *print-case* and the readtable case. */
static void put_name_cased(Lisp *L, PState *ps, Obj name, ReadCase rc) {
    String *s = STR(name);
    Obj pc = ps->pcase;
    if (rc == RCASE_PRESERVE) { put_string(L, ps, name); return; }
    if (rc == RCASE_INVERT) {
        bool all_upper = true, all_lower = true;
        for (size_t i = 0; i < s->len; i++) {
            uint32_t c = s->data[i];
            if (char_is_upper(c)) all_lower = false;
            else if (char_is_lower(c)) all_upper = false;
        }
        for (size_t i = 0; i < s->len; i++) {
            uint32_t c = s->data[i];
            put(L, ps, all_upper ? char_downcase(c) : all_lower ? char_upcase(c) : c);
        }
        return;
    }
    bool up = rc == RCASE_UPCASE;
    if (pc == S(K_CAPITALIZE)) {
        bool prev_not_alnum = true;
        for (size_t i = 0; i < s->len; i++) {
            uint32_t c = s->data[i];
            uint32_t o;
            if (up) o = (prev_not_alnum || char_is_lower(c)) ? c : char_downcase(c);
            else o = prev_not_alnum ? char_upcase(c) : c;
            put(L, ps, o);
            prev_not_alnum = !alnum_char(c);
        }
        return;
    }
    bool down = pc == S(K_DOWNCASE);
    if (up && !down) { put_string(L, ps, name); return; }
    if (!up && down) { put_string(L, ps, name); return; }
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->data[i];
        put(L, ps, up ? char_downcase(c) : char_upcase(c));
    }
}

static ReadCase printer_readcase(Lisp *L, PState *ps) {
    (void)ps;
    Obj rt = readtable_current(L);
    return RT(rt)->rcase;
}

static void put_token(Lisp *L, PState *ps, Obj name) {
    ReadCase rc = ps->readably ? RCASE_UPCASE : printer_readcase(L, ps);
    if (symbol_quotep(name, rc, ps->base)) {
        String *s = STR(name);
        put(L, ps, '|');
        for (size_t i = 0; i < s->len; i++) {
            uint32_t c = s->data[i];
            if (c == '|' || c == '\\') put(L, ps, '\\');
            put(L, ps, c);
        }
        put(L, ps, '|');
        return;
    }
    put_name_cased(L, ps, name, rc);
}

static void print_symbol(Lisp *L, PState *ps, Obj sym) {
    Symbol *s = symbol_data(L, sym);
    if (!ps->escape) {
        put_name_cased(L, ps, s->name, printer_readcase(L, ps));
        return;
    }
    Obj pkg = s->package;
    Obj cur = SYM(S(PACKAGE_VAR))->value;
    if (pkg == L->pkg_keyword) {
        put(L, ps, ':');
    } else if (pkg == cur) {
        /* no prefix */
    } else if (pkg == NIL || PKG(pkg)->name == NIL) {
        if (ps->gensym || ps->readably) puts_(L, ps, "#:");
    } else {
        int st = FIND_NONE;
        Obj found = is_type(cur, T_PACKAGE) ? package_find_symbol(L, cur, STR(s->name)->data, STR(s->name)->len, &st) : NIL;
        if (st == FIND_NONE || found != sym) {
            Obj pname = PKG(pkg)->name;
            if (is_type(cur, T_PACKAGE))
                for (Obj l = PKG(cur)->local_nicknames; is_cons(l); l = CDR(l))
                    if (is_cons(CAR(l)) && CDR(CAR(l)) == pkg) { pname = CAR(CAR(l)); break; }
            put_token(L, ps, pname);
            int est;
            package_find_symbol(L, pkg, STR(s->name)->data, STR(s->name)->len, &est);
            puts_(L, ps, est == FIND_EXTERNAL ? ":" : "::");
        }
    }
    put_token(L, ps, s->name);
}

/* ------------------------------------------------------------------ */
/* Strings and characters                                              */

static void print_string_data(Lisp *L, PState *ps, const uint32_t *d, size_t n) {
    if (!ps->escape) {
        stream_write_u32(L, ps->stream, d, n);
        return;
    }
    put(L, ps, '"');
    for (size_t i = 0; i < n; i++) {
        uint32_t c = d[i];
        if (c == '"' || c == '\\') put(L, ps, '\\');
        put(L, ps, c);
        if ((i & 1023) == 1023 && truncated(ps)) return;
    }
    put(L, ps, '"');
}

static void print_string(Lisp *L, PState *ps, Obj str) { print_string_data(L, ps, STR(str)->data, STR(str)->len); }


/* CHAR-NAME as SBCL answers it (every character has one). */
Obj printer_char_name(Lisp *L, uint32_t c) {
    char buf[CHAR_NAME_MAX];
    char_name_write(c, buf);
    return string_from_cstr(L, buf);
}

static void print_char(Lisp *L, PState *ps, uint32_t c) {
    if (!ps->escape) {
        put(L, ps, c);
        return;
    }
    puts_(L, ps, "#\\");
    bool graphicp = char_is_graphic(c) && char_is_standard(c);
    if (graphicp && !ps->readably) { put(L, ps, c); return; }
    Obj name = printer_char_name(L, c);
    if (name != NIL) {
        String *s = STR(name);
        for (size_t i = 0; i < s->len; i++) {
            if (s->data[i] == '"' || s->data[i] == '\\') put(L, ps, '\\');
            put(L, ps, s->data[i]);
        }
    } else put(L, ps, c);
}

/* ------------------------------------------------------------------ */
/* Numbers                                                             */

static void print_number(Lisp *L, PState *ps, Obj n) {
    StrBuf b;
    sb_init(L, &b, 32);
    number_print(L, n, &b, ps->base, ps->radix);
    stream_write_u32(L, ps->stream, b.data, b.len);
}

/* ------------------------------------------------------------------ */
/* Circularity: labels for objects reached more than once               */

static bool circ_candidate(Obj o) {
    if (is_cons(o)) return true;
    if (!is_heap(o)) return false;
    HeapType t = heap_type(o);
    if (t == T_SYMBOL) return SYM(o)->package == NIL;
    return t == T_VECTOR || t == T_ARRAY || t == T_INSTANCE || t == T_STRING || t == T_BITVECTOR || t == T_FUNCALLABLE;
}

static void circ_scan(Lisp *L, Obj table, Obj o) {
    long n = 0;
    while (circ_candidate(o)) {
        stack_check(L);
        if ((++n & 1023) == 0) safe_point(L);
        Obj seen = hash_get(L, table, o, NO_VALUE);
        if (seen != NO_VALUE) {
            hash_put(L, table, o, S(T)); /* shared: gets a label */
            return;
        }
        hash_put(L, table, o, NIL);
        if (is_cons(o)) {
            circ_scan(L, table, CAR(o));
            o = CDR(o);
        } else if (is_type(o, T_VECTOR)) {
            for (size_t i = 0; i < VEC(o)->len; i++) circ_scan(L, table, VEC(o)->data[i]);
            return;
        } else if (is_type(o, T_ARRAY) && ARR(o)->storage != NIL && is_type(ARR(o)->storage, T_VECTOR)) {
            Obj st = ARR(o)->storage;
            for (size_t i = 0; i < VEC(st)->len; i++) circ_scan(L, table, VEC(st)->data[i]);
            return;
        } else if (is_type(o, T_INSTANCE) && (INST(o)->h.flags & INST_STRUCTURE)) {
            /* only structures show their slots (#S); other instances print as #<...> */
            for (size_t i = 0; i < INST(o)->nslots; i++) circ_scan(L, table, INST(o)->slots[i]);
            return;
        } else return;
    }
}

/* The label state of O: 0 not labelled, >0 the label already printed (#n#). */
static bool circ_shared(Lisp *L, PState *ps, Obj o) {
    if (ps->circ == NIL || !circ_candidate(o)) return false;
    Obj st = hash_get(L, CAR(ps->circ), o, NO_VALUE);
    return st != NO_VALUE && st != NIL;
}

/* Print #n# (returns true) or #n= before a first occurrence of a shared object. */
static bool circ_label(Lisp *L, PState *ps, Obj o) {
    if (ps->circ == NIL || !circ_candidate(o)) return false;
    Obj st = hash_get(L, CAR(ps->circ), o, NO_VALUE);
    if (st == NO_VALUE || st == NIL) return false;
    char buf[32];
    if (is_fixnum(st)) {
        snprintf(buf, sizeof buf, "#%ld#", (long)fixnum_val(st));
        puts_(L, ps, buf);
        return true;
    }
    long n = (long)fixnum_val(CDR(ps->circ)) + 1;
    CDR(ps->circ) = FIX(n);
    hash_put(L, CAR(ps->circ), o, FIX(n));
    snprintf(buf, sizeof buf, "#%ld=", n);
    puts_(L, ps, buf);
    return false;
}

/* ------------------------------------------------------------------ */
/* Lists (non-pretty)                                                  */

static const char *quote_prefix(Lisp *L, Obj o) {
    Obj h = CAR(o);
    if (!is_cons(CDR(o)) || CDR(CDR(o)) != NIL) return NULL;
    if (h == S(QUOTE)) return "'";
    if (h == S(FUNCTION)) return "#'";
    if (h == S(QUASIQUOTE)) return "`";
    if (h == S(UNQUOTE)) return ",";
    if (h == S(UNQUOTE_SPLICING)) return ",@";
    if (h == S(UNQUOTE_NSPLICING)) return ",.";
    return NULL;
}

/* A tail (UNQUOTE x) reads back from ". ,x": print it that way, as SBCL prints its comma objects. */
static bool unquote_form(Lisp *L, Obj o) {
    if (!is_cons(o) || !is_cons(CDR(o)) || CDR(CDR(o)) != NIL) return false;
    Obj h = CAR(o);
    return h == S(UNQUOTE) || h == S(UNQUOTE_SPLICING) || h == S(UNQUOTE_NSPLICING);
}

static void print_list(Lisp *L, PState *ps, Obj o, long depth) {
    const char *prefix = quote_prefix(L, o);
    if (prefix) {
        puts_(L, ps, prefix);
        print_rec(L, ps, CAR(CDR(o)), depth);
        return;
    }
    if (ps->level >= 0 && depth >= ps->level) {
        put(L, ps, '#');
        return;
    }
    put(L, ps, '(');
    long i = 0;
    for (;;) {
        if (truncated(ps)) return;
        if (ps->length >= 0 && i >= ps->length) {
            puts_(L, ps, "...");
            break;
        }
        print_rec(L, ps, CAR(o), depth + 1);
        i++;
        Obj d = CDR(o);
        if (d == NIL) break;
        if (!is_cons(d) || circ_shared(L, ps, d) || unquote_form(L, d)) {
            puts_(L, ps, " . ");
            print_rec(L, ps, d, depth + 1);
            break;
        }
        put(L, ps, ' ');
        o = d;
        if ((i & 255) == 0) safe_point(L);
    }
    put(L, ps, ')');
}

/* ------------------------------------------------------------------ */
/* Arrays                                                              */

static Obj array_elt(Lisp *L, Obj storage, size_t i) {
    if (is_type(storage, T_VECTOR)) return VEC(storage)->data[i];
    if (is_string(storage)) return make_char(STR(storage)->data[i]);
    if (is_type(storage, T_BITVECTOR)) return FIX(BITV(storage)->data[i]);
    if (is_type(storage, T_ARRAY)) return array_elt(L, ARR(storage)->storage, ARR(storage)->offset + i);
    return NIL;
}

static void print_vector_elems(Lisp *L, PState *ps, Obj storage, size_t offset, size_t n, long depth) {
    put(L, ps, '(');
    for (size_t i = 0; i < n; i++) {
        if (truncated(ps)) return;
        if (i) put(L, ps, ' ');
        if (ps->length >= 0 && (long)i >= ps->length) {
            puts_(L, ps, "...");
            break;
        }
        print_rec(L, ps, array_elt(L, storage, offset + i), depth + 1);
        if ((i & 255) == 255) safe_point(L);
    }
    put(L, ps, ')');
}

static void print_array_dims(Lisp *L, PState *ps, Obj storage, size_t offset, size_t *dims, int rank, int axis, long depth) {
    size_t stride = 1;
    for (int k = axis + 1; k < rank; k++) stride *= dims[k];
    if (ps->level >= 0 && depth >= ps->level) { put(L, ps, '#'); return; }
    put(L, ps, '(');
    for (size_t i = 0; i < dims[axis]; i++) {
        if (truncated(ps)) return;
        if (i) put(L, ps, ' ');
        if (ps->length >= 0 && (long)i >= ps->length) { puts_(L, ps, "..."); break; }
        if (axis == rank - 1) print_rec(L, ps, array_elt(L, storage, offset + i), depth + 1);
        else print_array_dims(L, ps, storage, offset + i * stride, dims, rank, axis + 1, depth + 1);
    }
    put(L, ps, ')');
}

static const char *elt_type_name(EltType et) {
    switch (et) {
    case ELT_CHARACTER: return "CHARACTER";
    case ELT_BIT: return "BIT";
    case ELT_NIL: return "NIL";
    case ELT_UB8: return "(UNSIGNED-BYTE 8)";
    default: return "T";
    }
}

/* #<(SIMPLE-VECTOR 3) {...}> and friends, for *print-array* nil. */
static void print_terse_array(Lisp *L, PState *ps, Obj o) {
    if (ps->readably) not_readable(L, o);
    char buf[96];
    if (is_type(o, T_VECTOR)) snprintf(buf, sizeof buf, "#<(SIMPLE-VECTOR %zu)", VEC(o)->len);
    else if (is_type(o, T_BITVECTOR)) {
        if (BITV(o)->h.flags & (ARR_FILL_POINTER | ARR_ADJUSTABLE)) snprintf(buf, sizeof buf, "#<(BIT-VECTOR %zu)", BITV(o)->cap);
        else snprintf(buf, sizeof buf, "#<(SIMPLE-BIT-VECTOR %zu)", BITV(o)->len);
    } else {
        Array *a = ARR(o);
        int rank = a->h.aux;
        bool simple = !(a->h.flags & (ARR_FILL_POINTER | ARR_ADJUSTABLE | ARR_DISPLACED));
        const char *et = elt_type_name((EltType)a->h.aux32);
        size_t k = 0;
        if (rank == 1) k = (size_t)snprintf(buf, sizeof buf, "#<(%s %s %zu", simple ? "SIMPLE-ARRAY" : "VECTOR", et, a->dims ? a->dims[0] : a->total);
        else {
            k = (size_t)snprintf(buf, sizeof buf, "#<(%s %s (", simple ? "SIMPLE-ARRAY" : "ARRAY", et);
            for (int i = 0; i < rank && k < sizeof buf - 24; i++) k += (size_t)snprintf(buf + k, sizeof buf - k, i ? " %zu" : "%zu", a->dims[i]);
            if (k < sizeof buf - 2) { buf[k++] = ')'; buf[k] = 0; }
        }
        if (rank == 1 && !simple) { /* (VECTOR T 5) */ }
        if (k < sizeof buf - 1) { buf[k++] = ')'; buf[k] = 0; }
        puts_(L, ps, buf);
        put_address(L, ps, o);
        put(L, ps, '>');
        return;
    }
    puts_(L, ps, buf);
    put_address(L, ps, o);
    put(L, ps, '>');
}

static void print_bits(Lisp *L, PState *ps, Obj o) {
    if (!ps->array && !ps->readably) { print_terse_array(L, ps, o); return; }
    puts_(L, ps, "#*");
    BitVector *b = BITV(o);
    for (size_t i = 0; i < b->len; i++) put(L, ps, b->data[i] ? '1' : '0');
}

/* Does #nA(...) lose a dimension? It does when an empty axis comes before a non-empty one:
 * #2A() is read as a 0x0 array, so a 0x1 array cannot be printed that way. */
static bool ambiguous_dims(const size_t *dims, int rank) {
    for (int k = 0; k < rank; k++)
        if (dims[k] == 0) {
            for (int j = k + 1; j < rank; j++) if (dims[j] != 0) return true;
            return false;
        }
    return false;
}

/* The nested lists of an array with no elements, down to its first empty axis. */
static Obj empty_contents(Lisp *L, const size_t *dims, int rank, int axis) {
    if (axis >= rank || dims[axis] == 0) return NIL;
    Obj inner = empty_contents(L, dims, rank, axis + 1), r = NIL;
    for (size_t i = 0; i < dims[axis]; i++) r = cons(L, inner, r);
    return r;
}

/* As SBCL prints such an array readably: #A((dimensions) element-type . contents) */
static void print_array_with_dims(Lisp *L, PState *ps, Obj o, long depth) {
    Array *a = ARR(o);
    int rank = a->h.aux;
    Obj dims = NIL;
    for (int k = rank - 1; k >= 0; k--) dims = cons(L, FIX((intptr_t)a->dims[k]), dims);
    Obj form = cons(L, dims, cons(L, array_element_type_spec(L, o), empty_contents(L, a->dims, rank, 0)));
    puts_(L, ps, "#A");
    bool saved = ps->pretty;
    ps->pretty = false;
    print_rec(L, ps, form, depth);
    ps->pretty = saved;
}

static void print_array(Lisp *L, PState *ps, Obj o, long depth) {
    Array *a = ARR(o);
    int rank = a->h.aux;
    EltType et = (EltType)a->h.aux32;
    if (rank == 1 && et == ELT_CHARACTER) {
        size_t n = (a->h.flags & ARR_FILL_POINTER) ? a->fill : a->total;
        StrBuf b;
        sb_init(L, &b, n + 1);
        for (size_t i = 0; i < n; i++) sb_putc(L, &b, char_code(array_elt(L, a->storage, a->offset + i)));
        print_string_data(L, ps, b.data, b.len);
        return;
    }
    if (!ps->array && !ps->readably) { print_terse_array(L, ps, o); return; }
    if (rank == 1) {
        size_t n = (a->h.flags & ARR_FILL_POINTER) ? a->fill : a->total;
        if (et == ELT_BIT) {
            puts_(L, ps, "#*");
            for (size_t i = 0; i < n; i++) put(L, ps, fixnum_val(array_elt(L, a->storage, a->offset + i)) ? '1' : '0');
            return;
        }
        if (ps->pretty) { print_array_pretty(L, ps, a->storage, a->offset, &n, 1, true, depth); return; }
        if (ps->level >= 0 && depth >= ps->level) { put(L, ps, '#'); return; }
        put(L, ps, '#');
        print_vector_elems(L, ps, a->storage, a->offset, n, depth);
        return;
    }
    if (ps->readably && rank > 1 && ambiguous_dims(a->dims, rank)) {
        print_array_with_dims(L, ps, o, depth);
        return;
    }
    if (ps->pretty) { print_array_pretty(L, ps, a->storage, a->offset, a->dims, rank, false, depth); return; }
    char buf[32];
    snprintf(buf, sizeof buf, "#%dA", rank);
    puts_(L, ps, buf);
    if (rank == 0) {
        print_rec(L, ps, array_elt(L, a->storage, a->offset), depth);
        return;
    }
    /* an empty axis prints as () at its level: (2 0 3) is #3A(() ()) */
    print_array_dims(L, ps, a->storage, a->offset, a->dims, rank, 0, depth);
}

/* ------------------------------------------------------------------ */
/* Unreadable objects                                                  */

static void print_function(Lisp *L, PState *ps, Obj o) {
    if (ps->readably) not_readable(L, o);
    Obj name = NIL;
    bool closure = false;
    if (is_type(o, T_PRIMITIVE)) name = PRIM(o)->name;
    else if (is_type(o, T_CLOSURE)) { name = CLOSURE(o)->name; closure = CLOSURE(o)->env != NULL; }
    puts_(L, ps, closure ? "#<CLOSURE " : "#<FUNCTION ");
    bool saved = ps->escape;
    ps->escape = true;
    if (name == NIL && is_type(o, T_CLOSURE)) {
        puts_(L, ps, "(LAMBDA ");
        struct Lambda *lam = CLOSURE(o)->lambda;
        if (lam->ll.source == NIL) puts_(L, ps, "()");
        else print_rec(L, ps, lam->ll.source, 0);
        put(L, ps, ')');
        put_address(L, ps, o);
    } else {
        print_rec(L, ps, name, 0);
    }
    ps->escape = saved;
    put(L, ps, '>');
}

/* The name a stream prints with: its TYPE-OF (and CLASS-OF), tinycl's own types */
static const char *stream_type_name(Obj o) {
    switch ((StreamKind)STREAM(o)->h.aux) {
    case SK_STRING_IN: case SK_STRING_OUT: case SK_STRING_FILL: return "STRING-STREAM";
    case SK_FD: return "FILE-STREAM";
    case SK_SYNONYM: return "SYNONYM-STREAM";
    case SK_BROADCAST: return "BROADCAST-STREAM";
    case SK_TWO_WAY: return "TWO-WAY-STREAM";
    case SK_ECHO: return "ECHO-STREAM";
    case SK_CONCATENATED: return "CONCATENATED-STREAM";
    default: return "STREAM";
    }
}

static void print_other(Lisp *L, PState *ps, Obj o, long depth) {
    HeapType t = heap_type(o);
    if (ps->readably && t == T_HASHTABLE && HT(o)->count == 0) {
        /* SBCL prints an empty table readably with #. */
        puts_(L, ps, "#.(MAKE-HASH-TABLE");
        if (HT(o)->test_fn != S(EQL) && HT(o)->test_fn != NIL) {
            puts_(L, ps, " :TEST '");
            print_rec(L, ps, HT(o)->test_fn, depth);
        }
        put(L, ps, ')');
        return;
    }
    if (ps->readably && t == T_RANDOM_STATE && SYM(S(READ_EVAL))->value != NIL) {
        /* #.(sys::%random-state-from-words w0 w1 w2 w3) reads back as an equivalent state */
        Obj form = NIL;
        for (int i = 3; i >= 0; i--) form = cons(L, make_uint64(L, RSTATE(o)->s[i]), form);
        form = cons(L, intern_cstr(L, L->pkg_system, "%RANDOM-STATE-FROM-WORDS"), form);
        puts_(L, ps, "#.");
        print_rec(L, ps, form, depth);
        return;
    }
    if (ps->readably && t != T_PATHNAME) not_readable(L, o);
    bool saved = ps->escape;
    ps->escape = true;
    switch (t) {
    case T_PACKAGE:
        if (PKG(o)->name == NIL) { puts_(L, ps, "#<PACKAGE (deleted)"); put_address(L, ps, o); put(L, ps, '>'); break; }
        puts_(L, ps, "#<PACKAGE ");
        print_string(L, ps, PKG(o)->name);
        put(L, ps, '>');
        break;
    case T_HASHTABLE: {
        puts_(L, ps, "#<HASH-TABLE :TEST ");
        print_rec(L, ps, HT(o)->test_fn, depth);
        char buf[64];
        snprintf(buf, sizeof buf, " :COUNT %zu", HT(o)->count);
        puts_(L, ps, buf);
        put_address(L, ps, o);
        put(L, ps, '>');
        break;
    }
    case T_STREAM: {
        Stream *st = STREAM(o);
        puts_(L, ps, "#<");
        puts_(L, ps, stream_type_name(o));
        switch ((StreamKind)st->h.aux) {
        case SK_FD:
            puts_(L, ps, " for \"");
            if (st->pathname != NIL) {
                Obj ns = is_string(st->pathname) ? st->pathname : NIL;
                Obj fn = SYM(intern_cstr(L, L->pkg_cl, "NAMESTRING"))->function;
                if (ns == NIL && is_function(fn)) ns = funcall1(L, fn, st->pathname);
                puts_(L, ps, "file ");
                if (is_string(ns)) put_string(L, ps, ns);
            } else if (st->fd >= 0 && st->fd <= 2) {
                puts_(L, ps, st->fd == 0 ? "standard input" : st->fd == 1 ? "standard output" : "standard error");
            } else {
                char buf[32];
                snprintf(buf, sizeof buf, "descriptor %d", st->fd);
                puts_(L, ps, buf);
            }
            put(L, ps, '"');
            break;
        case SK_SYNONYM: puts_(L, ps, " :SYMBOL "); print_rec(L, ps, st->a, depth); break;
        case SK_TWO_WAY: case SK_ECHO:
            puts_(L, ps, " :INPUT-STREAM ");
            print_rec(L, ps, st->a, depth);
            puts_(L, ps, " :OUTPUT-STREAM ");
            print_rec(L, ps, st->b, depth);
            break;
        case SK_CONCATENATED: puts_(L, ps, " :STREAMS "); print_rec(L, ps, st->a, depth); break;
        default: break;
        }
        put_address(L, ps, o);
        put(L, ps, '>');
        break;
    }
    case T_READTABLE: puts_(L, ps, "#<READTABLE"); put_address(L, ps, o); put(L, ps, '>'); break;
    case T_RANDOM_STATE: puts_(L, ps, "#<RANDOM-STATE"); put_address(L, ps, o); put(L, ps, '>'); break;
    case T_ENVIRONMENT: puts_(L, ps, "#<SB-KERNEL:LEXENV"); put_address(L, ps, o); put(L, ps, '>'); break;
    case T_WEAK_POINTER:
        puts_(L, ps, "#<weak pointer: ");
        print_rec(L, ps, ((WeakPointer *)o)->value, depth);
        put(L, ps, '>');
        break;
    default: {
        char buf[64];
        snprintf(buf, sizeof buf, "#<%s", heap_type_names[t]);
        puts_(L, ps, buf);
        put_address(L, ps, o);
        put(L, ps, '>');
        break;
    }
    }
    ps->escape = saved;
}

/* Call a Lisp printing hook with the print state visible to nested printing. */
static void call_hook(Lisp *L, PState *ps, Obj fn, Obj o, long depth) {
    size_t sp = L->special_sp;
    bind_special(L, S(PRINT_ESCAPE), boolean(L, ps->escape));
    bind_special(L, S(PP_PRINT_DEPTH), FIX(depth));
    funcall2(L, fn, o, ps->stream);
    unbind_specials(L, sp);
}

static void print_instance(Lisp *L, PState *ps, Obj o, long depth) {
    Obj hook = SYM(S(P_PRINT_OBJECT_HOOK))->value;
    if (hook != UNBOUND && is_function(hook)) { call_hook(L, ps, hook, o, depth); return; }
    Obj pi = abi_upcall(L, S(P_PRINT_INSTANCE));     /* NIL only while the stdlib loads */
    if (pi != NIL) { call_hook(L, ps, pi, o, depth); return; }
    if (ps->readably) not_readable(L, o);
    puts_(L, ps, "#<INSTANCE");
    put_address(L, ps, o);
    put(L, ps, '>');
}

/* ------------------------------------------------------------------ */
/* The pprint dispatch table: user entries are looked up in Lisp        */

static Obj pprint_dispatch_function(Lisp *L, Obj o) {
    Obj table = SYM(S(PRINT_PPRINT_DISPATCH))->value;
    if (!is_type(table, T_INSTANCE) || INST(table)->nslots < PPD_NSLOTS || INST(table)->slots[PPD_ENTRIES] == NIL) return NIL;
    Obj fn = abi_upcall(L, S(PP_DISPATCH_LOOKUP));
    if (fn == NIL) return NIL;                        /* the stdlib is loading */
    Obj r = funcall2(L, fn, o, table);
    return is_function(r) || (is_symbol(r) && r != NIL) ? r : NIL;
}

static void print_rec(Lisp *L, PState *ps, Obj o, long depth) {
    stack_check(L);
    if (truncated(ps)) return;
    if (is_fixnum(o)) { print_number(L, ps, o); return; }
    if (ps->pretty && !is_char(o) && o != NIL) {
        Obj fn = pprint_dispatch_function(L, o);
        if (fn != NIL) {
            if (circ_label(L, ps, o)) return;
            size_t sp = L->special_sp;
            bind_special(L, S(PP_PRINT_DEPTH), FIX(depth));
            funcall2(L, fn, ps->stream, o);
            unbind_specials(L, sp);
            return;
        }
    }
    if (is_cons(o)) {
        if (circ_label(L, ps, o)) return;
        if (ps->pretty) print_list_pretty(L, ps, o, depth);
        else print_list(L, ps, o, depth);
        return;
    }
    if (o == NIL) { print_symbol(L, ps, o); return; }
    if (is_char(o)) { print_char(L, ps, char_code(o)); return; }
    if (is_single(o)) { print_number(L, ps, o); return; }
    if (!is_heap(o)) {
        char buf[48];
        snprintf(buf, sizeof buf, "#<immediate %lX>", (unsigned long)WORD(o));
        puts_(L, ps, buf);
        return;
    }
    switch (heap_type(o)) {
    case T_SYMBOL:
        if (SYM(o)->package == NIL && ps->escape && circ_label(L, ps, o)) return;
        print_symbol(L, ps, o);
        return;
    case T_BIGNUM: case T_RATIO: case T_DOUBLE: case T_COMPLEX: print_number(L, ps, o); return;
    case T_STRING:
        if (ps->escape && circ_label(L, ps, o)) return;
        print_string(L, ps, o);
        return;
    case T_VECTOR:
        if (!ps->array && !ps->readably) { print_terse_array(L, ps, o); return; }
        if (circ_label(L, ps, o)) return;
        if (ps->pretty) { size_t n = VEC(o)->len; print_array_pretty(L, ps, o, 0, &n, 1, true, depth); return; }
        if (ps->level >= 0 && depth >= ps->level) { put(L, ps, '#'); return; }
        put(L, ps, '#');
        print_vector_elems(L, ps, o, 0, VEC(o)->len, depth);
        return;
    case T_BITVECTOR:
        if (circ_label(L, ps, o)) return;
        print_bits(L, ps, o);
        return;
    case T_ARRAY:
        if (circ_label(L, ps, o)) return;
        print_array(L, ps, o, depth);
        return;
    case T_PRIMITIVE: case T_CLOSURE: print_function(L, ps, o); return;
    case T_INSTANCE: case T_FUNCALLABLE:
        if (circ_label(L, ps, o)) return;
        print_instance(L, ps, o, depth);
        return;
    case T_PATHNAME: {
        if (!pathname_has_namestring(L, o)) {
            /* as SBCL: #<PATHNAME (with no namestring) :HOST ... :VERSION ...> */
            if (ps->readably) not_readable(L, o);
            bool saved = ps->escape;
            ps->escape = true;
            Pathname *x = PATHNAME(o);
            const char *labels[6] = {" :HOST ", " :DEVICE ", " :DIRECTORY ", " :NAME ", " :TYPE ", " :VERSION "};
            Obj parts[6] = {x->host, x->device, x->directory, x->name, x->type, x->version};
            puts_(L, ps, "#<PATHNAME (with no namestring)");
            for (int i = 0; i < 6; i++) {
                puts_(L, ps, labels[i]);
                print_rec(L, ps, parts[i], depth + 1);
            }
            put(L, ps, '>');
            ps->escape = saved;
            return;
        }
        Obj hook = intern_cstr(L, L->pkg_cl, "NAMESTRING");
        if (is_function(SYM(hook)->function)) {
            Obj ns = funcall1(L, hook, o);
            if (ps->escape) puts_(L, ps, "#P");
            if (is_string(ns)) print_string(L, ps, ns);
            return;
        }
        print_other(L, ps, o, depth);
        return;
    }
    default: print_other(L, ps, o, depth); return;
    }
}

static void pstate_init(Lisp *L, PState *ps, Obj stream, bool escape) {
    ps->stream = stream;
    ps->escape = escape;
    ps->readably = SYM(S(PRINT_READABLY))->value != NIL;
    if (ps->readably) ps->escape = true;
    ps->circle = SYM(S(PRINT_CIRCLE))->value != NIL;
    ps->gensym = SYM(S(PRINT_GENSYM))->value != NIL;
    ps->array = SYM(S(PRINT_ARRAY))->value != NIL;
    ps->pretty = SYM(S(PRINT_PRETTY))->value != NIL;
    Obj b = SYM(S(PRINT_BASE))->value;
    ps->base = is_fixnum(b) && fixnum_val(b) >= 2 && fixnum_val(b) <= 36 ? (int)fixnum_val(b) : 10;
    ps->radix = SYM(S(PRINT_RADIX))->value != NIL;
    ps->pcase = SYM(S(PRINT_CASE))->value;
    ps->length = ps->readably ? -1 : limit_var(L, S(PRINT_LENGTH));
    ps->level = ps->readably ? -1 : limit_var(L, S(PRINT_LEVEL));
    ps->circ = NIL;
}

void print_obj(Lisp *L, Obj o, Obj stream, bool escape) {
    size_t sp = L->special_sp;
    /* PRIN1 binds *PRINT-ESCAPE* to true; PRINC binds it and *PRINT-READABLY* to false (CLHS
     * 22.4), which PRINT-OBJECT methods called from here see too */
    if (escape) {
        if (SYM(S(PRINT_ESCAPE))->value == NIL) bind_special(L, S(PRINT_ESCAPE), S(T));
    } else {
        if (SYM(S(PRINT_ESCAPE))->value != NIL) bind_special(L, S(PRINT_ESCAPE), NIL);
        if (SYM(S(PRINT_READABLY))->value != NIL) bind_special(L, S(PRINT_READABLY), NIL);
    }
    PState ps;
    pstate_init(L, &ps, stream, escape);
    if (ps.circle) {
        Obj cur = SYM(S(PP_CIRCLE_TABLE))->value;
        if (is_cons(cur)) ps.circ = cur;
        else if (is_cons(o) || is_heap(o)) {
            Obj table = hash_new(L, HT_EQ, 64);
            circ_scan(L, table, o);
            ps.circ = cons(L, table, FIX(0));
            bind_special(L, S(PP_CIRCLE_TABLE), ps.circ);
        }
    }
    print_rec(L, &ps, o, current_depth(L));
    unbind_specials(L, sp);
}

void print_write(Lisp *L, Obj o, Obj stream) {
    /* WRITE: with *PRINT-READABLY* true, printing escapes whatever *PRINT-ESCAPE* says */
    print_obj(L, o, stream, SYM(S(PRINT_ESCAPE))->value != NIL || SYM(S(PRINT_READABLY))->value != NIL);
}

Obj prin1_to_string(Lisp *L, Obj o) {
    Obj s = make_string_output_stream(L);
    print_obj(L, o, s, true);
    return get_output_stream_string(L, s);
}

Obj princ_to_string(Lisp *L, Obj o) {
    Obj s = make_string_output_stream(L);
    print_obj(L, o, s, false);
    return get_output_stream_string(L, s);
}

char *prin1_cstr(Lisp *L, Obj o) { return string_to_utf8(L, prin1_to_string(L, o), NULL); }
char *princ_cstr(Lisp *L, Obj o) { return string_to_utf8(L, princ_to_string(L, o), NULL); }

/* ================================================================== */
/* The pretty printer                                                  */
/*
 * A pretty stream is a string output stream collecting the text of the outermost logical
 * block; the operations (block starts and ends, conditional newlines, indentation, tabs) are
 * recorded with their positions in the text. When the outermost block ends the whole is laid
 * out by the algorithm of XP (Waters) as SBCL runs it, and written to the target stream.
 *
 * The registry SYSTEM::*PRETTY-STREAMS* is a list of context vectors:
 *   [0] the pretty stream  [1] the target  [2] ops vector  [3] op count  [4] open blocks
 * and each op takes OPW slots of the ops vector: kind, position, depth, a, b.
 */

enum { OP_BLOCK_START, OP_BLOCK_END, OP_NEWLINE, OP_INDENT, OP_TAB };
#define OPW 5
enum { CTX_STREAM, CTX_TARGET, CTX_OPS, CTX_NOPS, CTX_DEPTH, CTX_SIZE };

static Obj pp_context(Lisp *L, Obj stream) {
    for (Obj l = SYM(S(PP_PRETTY_STREAMS))->value; is_cons(l); l = CDR(l))
        if (VEC(CAR(l))->data[CTX_STREAM] == stream) return CAR(l);
    return NIL;
}

bool pp_stream_p(Lisp *L, Obj stream) { return pp_context(L, stream) != NIL; }

static void pp_record(Lisp *L, Obj ctx, int kind, Obj a, Obj b) {
    Vector *c = VEC(ctx);
    long n = (long)fixnum_val(c->data[CTX_NOPS]);
    Obj ops = c->data[CTX_OPS];
    if ((size_t)(n + 1) * OPW > VEC(ops)->len) {
        size_t ncap = VEC(ops)->len * 2;
        Vector *nv = (Vector *)heap_alloc(L, T_VECTOR, sizeof(Vector) + ncap * sizeof(Obj));
        nv->len = ncap;
        memcpy(nv->data, VEC(ops)->data, VEC(ops)->len * sizeof(Obj));
        for (size_t i = VEC(ops)->len; i < ncap; i++) nv->data[i] = NIL;
        ops = (Obj)nv;
        c->data[CTX_OPS] = ops;
    }
    Obj *op = VEC(ops)->data + n * OPW;
    op[0] = FIX(kind);
    op[1] = FIX((intptr_t)STREAM(c->data[CTX_STREAM])->buf.len);
    op[2] = c->data[CTX_DEPTH];
    op[3] = a;
    op[4] = b;
    c->data[CTX_NOPS] = FIX(n + 1);
}

static Obj pp_new_context(Lisp *L, Obj target) {
    Vector *c = (Vector *)heap_alloc(L, T_VECTOR, sizeof(Vector) + CTX_SIZE * sizeof(Obj));
    c->len = CTX_SIZE;
    /* a capped target (a session's output limit) caps the buffer too, so that printing a
     * circular list without *print-circle* ends */
    size_t cap = STREAM(target)->cap;
    Obj s = cap ? make_capped_output_stream(L, cap + cap / 2 + 4096) : make_string_output_stream(L);
    STREAM(s)->column = stream_column(L, target);
    c->data[CTX_STREAM] = s;
    c->data[CTX_TARGET] = target;
    size_t opcap = 64 * OPW;
    Vector *ops = (Vector *)heap_alloc(L, T_VECTOR, sizeof(Vector) + opcap * sizeof(Obj));
    ops->len = opcap;
    for (size_t i = 0; i < opcap; i++) ops->data[i] = NIL;
    c->data[CTX_OPS] = (Obj)ops;
    c->data[CTX_NOPS] = FIX(0);
    c->data[CTX_DEPTH] = FIX(0);
    return (Obj)c;
}

static bool print_pretty_p(Lisp *L) { return SYM(S(PRINT_PRETTY))->value != NIL; }

void pp_newline(Lisp *L, Obj stream, int kind) {
    Obj ctx = pp_context(L, stream);
    if (ctx == NIL || !print_pretty_p(L)) return;
    pp_record(L, ctx, OP_NEWLINE, FIX(kind), NIL);
}

void pp_indent(Lisp *L, Obj stream, int kind, long n) {
    Obj ctx = pp_context(L, stream);
    if (ctx == NIL || !print_pretty_p(L)) return;
    pp_record(L, ctx, OP_INDENT, FIX(kind), FIX(n));
}

void pp_tab(Lisp *L, Obj stream, int kind, long colnum, long colinc) {
    Obj ctx = pp_context(L, stream);
    if (ctx == NIL || !print_pretty_p(L)) return;
    pp_record(L, ctx, OP_TAB, FIX(kind), cons(L, FIX(colnum), FIX(colinc)));
}

/* ---- layout ---- */

typedef struct LOp {
    int kind;
    long pos, depth;
    Obj a, b;
    long end;          /* section end: index of the op, -1 none */
    long match;        /* block start: its end */
    long next_forced;  /* the next mandatory or literal newline after this op, -1 none */
    long parent;       /* tab or block start: the start of the innermost block around it, -1 none */
    long col;          /* block start: its column, once a tab in it was done; -1 before */
} LOp;

typedef struct LBlock {
    long start_col, section_col, per_line_end, prefix_len, suffix_len, section_start_line;
    Obj suffix;
} LBlock;

typedef struct Layout {
    Lisp *L;
    Obj target;
    const uint32_t *text;
    long n;
    LOp *ops;
    long nops;
    StrBuf line;       /* the current output line: prefix, then text */
    long emitted;      /* text index up to which text is in LINE */
    long line_number;
    long line_length, miser_width, print_lines;
    bool readably;
    LBlock *blocks;
    int nblocks, capblocks;
    uint32_t *prefix;
    long prefix_cap;
    bool stopped;      /* *print-lines* reached */
    long col_base;     /* the target's column where the current line's buffer starts */
    long cur;          /* the op being processed */
    bool has_tabs;
} Layout;

static long lay_column(Layout *y, long pos) { return y->col_base + (long)y->line.len + (pos - y->emitted); }

static void lay_emit_to(Layout *y, long pos) {
    if (pos > y->emitted) {
        sb_putn(y->L, &y->line, y->text + y->emitted, (size_t)(pos - y->emitted));
        y->emitted = pos;
    }
}

static LBlock *lay_top(Layout *y) { return &y->blocks[y->nblocks - 1]; }

static void lay_prefix_room(Layout *y, long n) {
    if (n <= y->prefix_cap) return;
    long nc = y->prefix_cap * 2 > n ? y->prefix_cap * 2 : n + 16;
    uint32_t *np = (uint32_t *)gc_alloc_atomic(y->L, (size_t)nc * sizeof(uint32_t));
    memcpy(np, y->prefix, (size_t)y->prefix_cap * sizeof(uint32_t));
    y->prefix = np;
    y->prefix_cap = nc;
}

static void lay_set_indentation(Layout *y, long column) {
    LBlock *b = lay_top(y);
    if (column < b->per_line_end) column = b->per_line_end;
    lay_prefix_room(y, column + 1);
    for (long i = b->prefix_len; i < column; i++) y->prefix[i] = ' ';
    b->prefix_len = column;
}

static void lay_start_block(Layout *y, long column, Obj per_line_prefix, Obj suffix) {
    if (y->nblocks == y->capblocks) {
        int nc = y->capblocks * 2;
        LBlock *nb = (LBlock *)gc_alloc(y->L, (size_t)nc * sizeof(LBlock));
        memcpy(nb, y->blocks, (size_t)y->nblocks * sizeof(LBlock));
        y->blocks = nb;
        y->capblocks = nc;
    }
    LBlock *prev = lay_top(y);
    LBlock *b = &y->blocks[y->nblocks++];
    b->start_col = column;
    b->section_col = column;
    b->per_line_end = prev->per_line_end;
    b->prefix_len = prev->prefix_len;
    b->suffix_len = prev->suffix_len;
    b->section_start_line = y->line_number;
    b->suffix = NIL;
    lay_set_indentation(y, column);
    if (per_line_prefix != NIL) {
        long len = (long)STR(per_line_prefix)->len;
        b->per_line_end = column;
        lay_prefix_room(y, column + 1);
        long from = column - len;
        for (long i = 0; i < len; i++)
            if (from + i >= 0) y->prefix[from + i] = STR(per_line_prefix)->data[i];
    }
    if (suffix != NIL && STR(suffix)->len > 0) {
        b->suffix = suffix;
        b->suffix_len += (long)STR(suffix)->len;
    }
}

static void lay_end_block(Layout *y) {
    if (y->nblocks <= 1) return;
    LBlock *old = lay_top(y);
    y->nblocks--;
    LBlock *nw = lay_top(y);
    if (nw->prefix_len > old->prefix_len) {
        lay_prefix_room(y, nw->prefix_len + 1);
        for (long i = old->prefix_len; i < nw->prefix_len; i++) y->prefix[i] = ' ';
    }
}

static bool lay_misering(Layout *y) {
    return y->miser_width >= 0 && (y->line_length - lay_top(y)->start_col) <= y->miser_width;
}

enum { FIT_NO, FIT_YES, FIT_STOP };

static long lay_tab_size(Layout *y, LOp *op, long column);

/* The column of text position POS if printed flat from here, counting the tabs before it. */
static long lay_column_ahead(Layout *y, long pos) {
    if (!y->has_tabs) return lay_column(y, pos);
    long extra = 0;
    for (long q = y->cur; q < y->nops && y->ops[q].pos < pos; q++)
        if (y->ops[q].kind == OP_TAB && y->ops[q].pos >= y->emitted)
            extra += lay_tab_size(y, &y->ops[q], lay_column(y, y->ops[q].pos) + extra);
    return lay_column(y, pos) + extra;
}

static int lay_fits(Layout *y, long i) {
    long available = y->line_length;
    if (!y->readably && y->print_lines >= 0 && y->print_lines == y->line_number)
        available -= 3 + lay_top(y)->suffix_len;
    LOp *op = &y->ops[i];
    long e = op->end;
    if (op->next_forced >= 0 && (e < 0 || op->next_forced < e)) return FIT_NO;
    if (e >= 0) return lay_column_ahead(y, y->ops[e].pos) <= available ? FIT_YES : FIT_NO;
    return lay_column_ahead(y, y->n) > available ? FIT_NO : FIT_STOP;
}

static void lay_write_line(Layout *y) {
    stream_write_u32(y->L, y->target, y->line.data, y->line.len);
    y->line.len = 0;
}

/* Take a newline at op I. */
static void lay_output_line(Layout *y, long i) {
    LOp *op = &y->ops[i];
    bool literal = op->kind == OP_NEWLINE && fixnum_val(op->a) == PP_LITERAL;
    lay_emit_to(y, op->pos);
    if (!literal)
        while (y->line.len > 0 && y->line.data[y->line.len - 1] == ' ') y->line.len--;
    lay_write_line(y);
    long line_number = y->line_number + 1;
    if (!y->readably && y->print_lines >= 0 && line_number >= y->print_lines) {
        stream_write_cstr(y->L, y->target, " ..");
        for (int k = y->nblocks - 1; k >= 1; k--)
            if (y->blocks[k].suffix != NIL) stream_write_u32(y->L, y->target, STR(y->blocks[k].suffix)->data, STR(y->blocks[k].suffix)->len);
        y->stopped = true;
        return;
    }
    y->line_number = line_number;
    stream_write_char(y->L, y->target, '\n');
    y->col_base = 0;
    LBlock *b = lay_top(y);
    long prefix_len = literal ? b->per_line_end : b->prefix_len;
    lay_prefix_room(y, prefix_len + 1);
    sb_putn(y->L, &y->line, y->prefix, (size_t)prefix_len);
    if (!literal) {
        b->section_col = prefix_len;
        b->section_start_line = line_number;
    }
}

static long lay_tab_size(Layout *y, LOp *op, long column) {
    int kind = (int)fixnum_val(op->a);
    long colnum = (long)fixnum_val(CAR(op->b)), colinc = (long)fixnum_val(CDR(op->b));
    bool sectionp = kind == PP_TAB_SECTION || kind == PP_TAB_SECTION_RELATIVE;
    bool relativep = kind == PP_TAB_LINE_RELATIVE || kind == PP_TAB_SECTION_RELATIVE;
    long origin = sectionp ? lay_top(y)->section_col : 0;
    long bi = op->parent;
    if (sectionp && bi >= 0 && y->nblocks - 1 < y->ops[bi].depth + 1) {
        /* the block was not started because it fits on the line (or is measured ahead):
         * no newline was taken in it, so its section starts where the block starts */
        origin = y->ops[bi].col >= 0 ? y->ops[bi].col : lay_column(y, y->ops[bi].pos);
    }
    long position = column - origin;
    if (relativep) {
        if (colinc > 1) {
            long newposn = position + colnum;
            long rem = newposn % colinc;
            if (rem) colnum += colinc - rem;
        }
        return colnum;
    }
    if (position < colnum) return colnum - position;
    if (colinc == 0) return 0;
    return colinc - (position - colnum) % colinc;
}

static void lay_do_tab(Layout *y, LOp *op) {
    lay_emit_to(y, op->pos);
    /* the columns of the blocks around the tab, before its spaces shift the text after them */
    for (long bi = op->parent; bi >= 0 && y->ops[bi].col < 0; bi = y->ops[bi].parent)
        y->ops[bi].col = lay_column(y, y->ops[bi].pos);
    long size = lay_tab_size(y, op, lay_column(y, op->pos));
    for (long k = 0; k < size; k++) sb_putc(y->L, &y->line, ' ');
}

static void pp_layout(Lisp *L, Obj ctx) {
    Vector *c = VEC(ctx);
    Obj pstream = c->data[CTX_STREAM];
    Obj target = c->data[CTX_TARGET];
    String raw;
    raw.data = STREAM(pstream)->buf.data;
    raw.len = STREAM(pstream)->buf.len;
    long nraw = (long)raw.len;
    long nops_raw = (long)fixnum_val(c->data[CTX_NOPS]);
    Obj *rops = VEC(c->data[CTX_OPS])->data;
    /* text without literal newlines, and ops with the literal newlines merged in */
    long nl = 0;
    for (long k = 0; k < nraw; k++) if (raw.data[k] == '\n') nl++;
    uint32_t *text = (uint32_t *)gc_alloc_atomic(L, (size_t)(nraw + 1) * sizeof(uint32_t));
    LOp *ops = (LOp *)gc_alloc(L, (size_t)(nops_raw + nl + 1) * sizeof(LOp));
    long nt = 0, no = 0, oi = 0, depth = 0;
    for (long k = 0; k <= nraw; k++) {
        while (oi < nops_raw && fixnum_val(rops[oi * OPW + 1]) <= k) {
            LOp *o = &ops[no++];
            o->kind = (int)fixnum_val(rops[oi * OPW]);
            o->pos = nt;
            o->depth = (long)fixnum_val(rops[oi * OPW + 2]);
            o->a = rops[oi * OPW + 3];
            o->b = rops[oi * OPW + 4];
            if (o->kind == OP_BLOCK_START) depth = o->depth + 1;
            else if (o->kind == OP_BLOCK_END) depth = o->depth - 1;
            oi++;
        }
        if (k == nraw) break;
        if (raw.data[k] == '\n') {
            LOp *o = &ops[no++];
            o->kind = OP_NEWLINE;
            o->pos = nt;
            o->depth = depth;
            o->a = FIX(PP_LITERAL);
            o->b = NIL;
        } else text[nt++] = raw.data[k];
    }
    /* section ends, block matches, forced newlines */
    long *pending = (long *)gc_alloc_atomic(L, (size_t)(no + 1) * sizeof(long));
    long npend = 0;
    long *bstack = (long *)gc_alloc_atomic(L, (size_t)(no + 1) * sizeof(long));
    long nb = 0;
    for (long k = 0; k < no; k++) {
        LOp *o = &ops[k];
        o->end = -1;
        o->match = -1;
        o->col = -1;
        o->parent = nb > 0 ? bstack[nb - 1] : -1;
        if (o->kind == OP_NEWLINE) {
            long w = 0;
            for (long p = 0; p < npend; p++) {
                LOp *q = &ops[pending[p]];
                if (o->depth <= q->depth) q->end = k;
                else pending[w++] = pending[p];
            }
            npend = w;
            pending[npend++] = k;
        } else if (o->kind == OP_BLOCK_START) {
            pending[npend++] = k;
            bstack[nb++] = k;
        } else if (o->kind == OP_BLOCK_END) {
            if (nb > 0) ops[bstack[--nb]].match = k;
        }
    }
    long next_forced = -1;
    for (long k = no - 1; k >= 0; k--) {
        ops[k].next_forced = next_forced;
        if (ops[k].kind == OP_NEWLINE) {
            long kind = (long)fixnum_val(ops[k].a);
            if (kind == PP_MANDATORY || kind == PP_LITERAL) next_forced = k;
        }
    }
    Layout y;
    memset(&y, 0, sizeof y);
    y.L = L;
    y.target = target;
    y.text = text;
    y.n = nt;
    y.ops = ops;
    y.nops = no;
    for (long k = 0; k < no; k++) if (ops[k].kind == OP_TAB) { y.has_tabs = true; break; }
    sb_init(L, &y.line, 128);
    y.emitted = 0;
    Obj rm = SYM(S(PRINT_RIGHT_MARGIN))->value;
    y.line_length = is_fixnum(rm) && fixnum_val(rm) > 0 ? (long)fixnum_val(rm) : 80;
    Obj mw = SYM(S(PRINT_MISER_WIDTH))->value;
    y.miser_width = is_fixnum(mw) ? (long)fixnum_val(mw) : -1;
    Obj pl = SYM(S(PRINT_LINES))->value;
    y.print_lines = is_fixnum(pl) && fixnum_val(pl) >= 0 ? (long)fixnum_val(pl) : -1;
    y.readably = SYM(S(PRINT_READABLY))->value != NIL;
    y.capblocks = 16;
    y.blocks = (LBlock *)gc_alloc(L, (size_t)y.capblocks * sizeof(LBlock));
    y.nblocks = 1;
    memset(&y.blocks[0], 0, sizeof(LBlock));
    y.blocks[0].suffix = NIL;
    y.prefix_cap = 64;
    y.prefix = (uint32_t *)gc_alloc_atomic(L, (size_t)y.prefix_cap * sizeof(uint32_t));
    y.col_base = (long)stream_column(L, target);
    bool stop = false;
    for (long k = 0; k < no && !stop && !y.stopped; k++) {
        LOp *o = &ops[k];
        y.cur = k;
        if ((k & 255) == 255) safe_point(L);
        switch (o->kind) {
        case OP_NEWLINE: {
            long kind = (long)fixnum_val(o->a);
            bool take;
            if (kind == PP_LITERAL || kind == PP_MANDATORY || kind == PP_LINEAR) take = true;
            else if (kind == PP_MISER) take = lay_misering(&y);
            else {
                take = lay_misering(&y) || y.line_number > lay_top(&y)->section_start_line;
                if (!take) {
                    int f = lay_fits(&y, k);
                    if (f == FIT_STOP) { stop = true; break; }
                    take = f == FIT_NO;
                }
            }
            if (take) lay_output_line(&y, k);
            else lay_top(&y)->section_col = lay_column(&y, o->pos);
            break;
        }
        case OP_INDENT:
            if (!lay_misering(&y)) {
                long base = fixnum_val(o->a) == PP_INDENT_BLOCK ? lay_top(&y)->start_col : lay_column(&y, o->pos);
                lay_set_indentation(&y, base + (long)fixnum_val(o->b));
            }
            break;
        case OP_BLOCK_START: {
            int f = lay_fits(&y, k);
            if (f == FIT_STOP) { stop = true; break; }
            if (f == FIT_YES && o->match >= 0) {
                for (long q = k + 1; q < o->match; q++)
                    if (ops[q].kind == OP_TAB) lay_do_tab(&y, &ops[q]);
                k = o->match;
                break;
            }
            lay_start_block(&y, lay_column(&y, o->pos), o->a, o->b);
            break;
        }
        case OP_BLOCK_END: lay_end_block(&y); break;
        case OP_TAB: lay_do_tab(&y, o); break;
        }
    }
    if (!y.stopped) {
        if (stop)
            for (long k = 0; k < no; k++)
                if (ops[k].kind == OP_TAB && ops[k].pos >= y.emitted) lay_do_tab(&y, &ops[k]);
        lay_emit_to(&y, y.n);
        lay_write_line(&y);
    }
}

/* ---- logical blocks ---- */

typedef struct LispBody { Obj fn; } LispBody;

static void pp_block_run(Lisp *L, Obj ctx, Obj object, Obj prefix, bool per_line, Obj suffix, PPBody body, void *data) {
    Obj pstream = VEC(ctx)->data[CTX_STREAM];
    if (prefix != NIL && STR(prefix)->len) stream_write_u32(L, pstream, STR(prefix)->data, STR(prefix)->len);
    pp_record(L, ctx, OP_BLOCK_START, per_line && prefix != NIL ? prefix : NIL, suffix);
    VEC(ctx)->data[CTX_DEPTH] = FIX(fixnum_val(VEC(ctx)->data[CTX_DEPTH]) + 1);
    size_t sp = L->special_sp;
    bind_special(L, S(PP_PRINT_DEPTH), FIX(current_depth(L) + 1));
    body(L, pstream, object, data);
    unbind_specials(L, sp);
    VEC(ctx)->data[CTX_DEPTH] = FIX(fixnum_val(VEC(ctx)->data[CTX_DEPTH]) - 1);
    pp_record(L, ctx, OP_BLOCK_END, suffix, NIL);
    if (suffix != NIL && STR(suffix)->len) stream_write_u32(L, pstream, STR(suffix)->data, STR(suffix)->len);
}

static void pp_logical_block_ex(Lisp *L, Obj stream, Obj object, Obj prefix, bool per_line, Obj suffix, PPBody body,
                                void *data, bool check_object) {
    if (check_object) {
        if (!is_list(object)) {
            print_write(L, object, stream);
            return;
        }
        long level = SYM(S(PRINT_READABLY))->value != NIL ? -1 : limit_var(L, S(PRINT_LEVEL));
        if (level >= 0 && current_depth(L) >= level) {
            stream_write_char(L, stream, '#');
            return;
        }
        Obj circ = SYM(S(PP_CIRCLE_TABLE))->value;
        if (is_cons(object) && is_cons(circ) && SYM(S(PRINT_CIRCLE))->value != NIL) {
            PState ps;
            pstate_init(L, &ps, stream, true);
            ps.circ = circ;
            if (circ_label(L, &ps, object)) return;
        }
    }
    Obj ctx = pp_context(L, stream);
    if (ctx != NIL) {
        pp_block_run(L, ctx, object, prefix, per_line, suffix, body, data);
        return;
    }
    ctx = pp_new_context(L, stream);
    size_t sp = L->special_sp;
    bind_special(L, S(PP_PRETTY_STREAMS), cons(L, ctx, SYM(S(PP_PRETTY_STREAMS))->value));
    pp_block_run(L, ctx, object, prefix, per_line, suffix, body, data);
    unbind_specials(L, sp);
    pp_layout(L, ctx);
}

void pp_logical_block(Lisp *L, Obj stream, Obj object, Obj prefix, bool per_line, Obj suffix, PPBody body, void *data) {
    pp_logical_block_ex(L, stream, object, prefix, per_line, suffix, body, data, true);
}

bool pp_pop_check(Lisp *L, Obj stream, Obj list, long count) {
    if (!is_list(list) || (count > 0 && unquote_form(L, list))) {
        stream_write_cstr(L, stream, ". ");
        print_write(L, list, stream);
        return true;
    }
    if (SYM(S(PRINT_READABLY))->value == NIL) {
        long len = limit_var(L, S(PRINT_LENGTH));
        if (len >= 0 && count >= len) {
            stream_write_cstr(L, stream, "...");
            return true;
        }
    }
    Obj circ = SYM(S(PP_CIRCLE_TABLE))->value;
    if (list != NIL && count > 0 && is_cons(circ) && SYM(S(PRINT_CIRCLE))->value != NIL) {
        Obj st = hash_get(L, CAR(circ), list, NO_VALUE);
        if (st != NO_VALUE && st != NIL) {
            stream_write_cstr(L, stream, ". ");
            print_write(L, list, stream);
            return true;
        }
    }
    return false;
}

/* ---- the standard layouts (pretty printing of lists) ----
 * Each layout is the body of a "(" ... ")" logical block over the form. A cursor pops the
 * elements with the PPRINT-POP checks; "more" is PPRINT-EXIT-IF-LIST-EXHAUSTED's test. */

static Obj str_lit(Lisp *L, const char *s) { return string_from_cstr(L, s); }

typedef struct Cur { Lisp *L; Obj s; Obj list; long count; bool dead; } Cur;

static bool cur_more(Cur *c) { return !c->dead && c->list != NIL; }

static bool cur_pop(Cur *c, Obj *out) {
    if (!cur_more(c) || STREAM(c->s)->truncated) return false;
    if (pp_pop_check(c->L, c->s, c->list, c->count)) { c->dead = true; return false; }
    c->count++;
    *out = CAR(c->list);
    c->list = CDR(c->list);
    return true;
}

/* Pop and print the next element; false when the block must end. */
static bool cur_out(Cur *c) {
    Obj x;
    if (!cur_pop(c, &x)) return false;
    print_write(c->L, x, c->s);
    return true;
}

/* Once a pop has ended the block (". x", "...", a circular tail), nothing more is written. */
static void cur_sp(Cur *c) { if (!c->dead) stream_write_char(c->L, c->s, ' '); }
static void cur_nl(Cur *c, int kind) { if (!c->dead) pp_newline(c->L, c->s, kind); }
static void cur_ind(Cur *c, int kind, long n) { if (!c->dead) pp_indent(c->L, c->s, kind, n); }

static void paren_block(Lisp *L, Obj s, Obj obj, PPBody body, void *data) {
    pp_logical_block(L, s, obj, str_lit(L, "("), false, str_lit(L, ")"), body, data);
}

/* Elements separated by a space and a newline of KIND. */
static void cur_rest(Cur *c, int kind) {
    for (;;) {
        if (STREAM(c->s)->truncated) return;
        if (!cur_out(c)) return;
        if (!cur_more(c)) return;
        cur_sp(c);
        cur_nl(c, kind);
        if ((c->count & 255) == 0) safe_point(c->L);
    }
}

static void body_fill(Lisp *L, Obj s, Obj list, void *d) { (void)d; Cur c = {L, s, list, 0, false}; cur_rest(&c, PP_FILL); }
static void body_linear(Lisp *L, Obj s, Obj list, void *d) { (void)d; Cur c = {L, s, list, 0, false}; cur_rest(&c, PP_LINEAR); }

typedef struct TabData { long tabsize; } TabData;
static void body_tabular(Lisp *L, Obj s, Obj list, void *data) {
    long tabsize = ((TabData *)data)->tabsize;
    Cur c = {L, s, list, 0, false};
    for (;;) {
        if (!cur_out(&c) || !cur_more(&c)) return;
        cur_sp(&c);
        pp_tab(L, s, PP_TAB_SECTION_RELATIVE, 0, tabsize);
        cur_nl(&c, PP_FILL);
    }
}

/* (f a b ...): arguments aligned after the first, fill newlines. */
static void body_fun_call(Lisp *L, Obj s, Obj list, void *d) {
    int sep = d ? PP_MANDATORY : PP_FILL; /* non-NULL: every argument on its own line */
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_FILL);
    cur_ind(&c, PP_INDENT_CURRENT, 0);
    cur_rest(&c, sep);
}

/* A macro with &body: the first NSPECIAL arguments, then the body forms on their own lines. */
static void body_call_form(Lisp *L, Obj s, Obj list, void *d) {
    long n = *(long *)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    for (long k = 0; k < n; k++) {
        if (k > 0) {
            cur_ind(&c, PP_INDENT_BLOCK, 3);
            cur_nl(&c, PP_MANDATORY);
        }
        if (!cur_out(&c) || !cur_more(&c)) return;
    }
    cur_ind(&c, PP_INDENT_BLOCK, 1);
    cur_nl(&c, PP_MANDATORY);
    for (;;) {
        if (!cur_out(&c) || !cur_more(&c)) return;
        cur_nl(&c, PP_MANDATORY);
    }
}

/* Body forms: indentation 1, a space and a linear newline before each. */
static void cur_body(Cur *c) {
    cur_ind(c, PP_INDENT_BLOCK, 1);
    for (;;) {
        if (!cur_more(c)) return;
        cur_sp(c);
        cur_nl(c, PP_LINEAR);
        if (!cur_out(c)) return;
    }
}

/* (block name body...), (when test body...) */
static void body_block(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_ind(&c, PP_INDENT_BLOCK, 3);
    cur_sp(&c);
    cur_nl(&c, PP_FILL);
    if (!cur_out(&c)) return;
    cur_body(&c);
}

/* A lambda list: &-keywords start linear sections, parameters are separated by fill newlines. */
static void body_ll_linear(Lisp *L, Obj s, Obj list, void *d) { (void)d; Cur c = {L, s, list, 0, false}; cur_rest(&c, PP_LINEAR); }

static void body_ll_key_name(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c)) return;
    for (;;) {
        if (!cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_FILL);
        if (!cur_out(&c)) return;
    }
}

static void body_ll_opt(Lisp *L, Obj s, Obj list, void *d) {
    bool key = d != NULL;
    Cur c = {L, s, list, 0, false};
    if (!cur_more(&c)) return;
    if (key) {
        Obj x;
        if (!cur_pop(&c, &x)) return;
        paren_block(L, s, x, body_ll_key_name, NULL);
    } else if (!cur_out(&c)) return;
    for (;;) {
        if (!cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_LINEAR);
        if (!cur_out(&c)) return;
    }
}

static void body_lambda_list(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    enum { REQ, OPT, KEY } state = REQ;
    bool first = true;
    for (;;) {
        if (!cur_more(&c)) return;
        if (!first) cur_sp(&c);
        Obj arg;
        if (!cur_pop(&c, &arg)) return;
        if (arg == S(AND_OPTIONAL) || arg == S(AND_AUX)) { state = OPT; cur_nl(&c, PP_LINEAR); }
        else if (arg == S(AND_REST) || arg == S(AND_BODY)) { state = REQ; cur_nl(&c, PP_LINEAR); }
        else if (arg == S(AND_KEY)) { state = KEY; cur_nl(&c, PP_LINEAR); }
        else cur_nl(&c, PP_FILL);
        if (state == REQ) paren_block(L, s, arg, body_ll_linear, NULL);
        else paren_block(L, s, arg, body_ll_opt, state == KEY ? (void *)&c : NULL);
        first = false;
    }
}

static void cur_lambda_list(Cur *c) {
    Obj ll;
    if (!cur_pop(c, &ll)) return;
    paren_block(c->L, c->s, ll, body_lambda_list, NULL);
}

/* (defun name lambda-list body...) */
static void body_defun(Lisp *L, Obj s, Obj list, void *d) {
    bool method = d != NULL && !(is_cons(list) && is_cons(CDR(list)) && is_cons(CDR(CDR(list))) && is_cons(CAR(CDR(CDR(list)))));
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_MISER);
    cur_ind(&c, PP_INDENT_CURRENT, 0);
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    if (method) {
        /* (defmethod name qualifier... lambda-list body...) with a non-list after the name */
        if (!cur_out(&c) || !cur_more(&c)) return;
        cur_sp(&c);
    }
    cur_nl(&c, PP_FILL);
    cur_lambda_list(&c);
    cur_body(&c);
}

/* (lambda lambda-list body...) */
static void body_lambda(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_ind(&c, PP_INDENT_BLOCK, 3);
    cur_sp(&c);
    cur_nl(&c, PP_FILL);
    cur_lambda_list(&c);
    cur_body(&c);
}

/* (destructuring-bind lambda-list expression body...) */
static void body_destructuring_bind(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_ind(&c, PP_INDENT_BLOCK, 3);
    cur_sp(&c);
    cur_nl(&c, PP_LINEAR);
    Obj ll;
    if (!cur_pop(&c, &ll)) return;
    paren_block(L, s, ll, body_lambda_list, NULL);
    if (!cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_LINEAR);
    if (!cur_out(&c)) return;
    cur_body(&c);
}

/* (prog2 a b body...), (multiple-value-bind vars form body...); FILL_FIRST: a fill newline
 * before the first argument (else linear, for progv) */
static void body_prog2(Lisp *L, Obj s, Obj list, void *d) {
    bool progv = d != NULL;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_ind(&c, PP_INDENT_BLOCK, 3);
    cur_sp(&c);
    cur_nl(&c, progv ? PP_LINEAR : PP_FILL);
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_LINEAR);
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_body(&c);
}

/* (if test then else): branches on lines of their own under the test. */
static void body_if(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_ind(&c, PP_INDENT_CURRENT, 0);
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_MANDATORY);
    cur_rest(&c, PP_MANDATORY);
}

/* (let ((var value) ...) body...) */
static void body_binding(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c)) return;
    for (;;) {
        if (!cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_LINEAR);
        if (!cur_out(&c)) return;
    }
}

/* A list of sub-blocks each printed by the PPBody *D, on linear newlines: LET's bindings, FLET's
 * definitions. */
static void body_blocks(Lisp *L, Obj s, Obj list, void *d) {
    PPBody each = *(const PPBody *)d;
    Cur c = {L, s, list, 0, false};
    for (;;) {
        Obj b;
        if (!cur_pop(&c, &b)) return;
        paren_block(L, s, b, each, NULL);
        if (!cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_LINEAR);
    }
}

static const PPBody binding_body = body_binding;

static void body_let(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_MISER);
    Obj b;
    if (!cur_pop(&c, &b)) return;
    paren_block(L, s, b, body_blocks, (void *)&binding_body);
    cur_ind(&c, PP_INDENT_BLOCK, 1);
    if (!cur_more(&c)) return;
    cur_nl(&c, PP_MANDATORY);
    cur_rest(&c, PP_LINEAR);
}

/* (flet ((name lambda-list body...) ...) body...) */
static void body_flet_def(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_ind(&c, PP_INDENT_BLOCK, 3);
    cur_sp(&c);
    cur_nl(&c, PP_FILL);
    cur_lambda_list(&c);
    cur_ind(&c, PP_INDENT_BLOCK, 1);
    cur_nl(&c, PP_MANDATORY);
    for (;;) {
        if (!cur_out(&c) || !cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_LINEAR);
    }
}

static const PPBody flet_def_body = body_flet_def;

static void body_flet(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    /* (flet foo) and (flet foo :in bar) are function names, printed plainly */
    if (!(is_cons(list) && is_cons(CDR(list)) && is_cons(CDR(CDR(list))) && CAR(CDR(CDR(list))) != keyword(L, "IN"))) {
        for (;;) {
            if (!cur_out(&c) || !cur_more(&c)) return;
            cur_sp(&c);
        }
    }
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_MISER);
    Obj b;
    if (!cur_pop(&c, &b)) return;
    paren_block(L, s, b, body_blocks, (void *)&flet_def_body);
    cur_ind(&c, PP_INDENT_BLOCK, 1);
    if (!cur_more(&c)) return;
    cur_nl(&c, PP_MANDATORY);
    cur_rest(&c, PP_LINEAR);
}

/* (setq var value ...): each pair on a line of its own. */
static void body_setq_pairs(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    for (;;) {
        cur_ind(&c, PP_INDENT_BLOCK, 2);
        if (!cur_out(&c) || !cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_FILL);
        cur_ind(&c, PP_INDENT_BLOCK, 0);
        if (!cur_out(&c) || !cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_MANDATORY);
    }
}

static void body_setq(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    if (!is_list(c.list)) stream_write_cstr(L, s, ". ");
    cur_nl(&c, PP_MISER);
    pp_logical_block(L, s, c.list, str_lit(L, ""), false, str_lit(L, ""), body_setq_pairs, NULL);
}

/* (tagbody tag form ...): tags at indentation 0, forms at 1, linear newlines. */
static void cur_tagbody_guts(Cur *c) {
    for (;;) {
        if (!cur_more(c)) return;
        cur_sp(c);
        Obj x;
        if (!cur_pop(c, &x)) return;
        cur_ind(c, PP_INDENT_BLOCK, is_cons(x) ? 1 : 0);
        cur_nl(c, PP_LINEAR);
        print_write(c->L, x, c->s);
    }
}

static void body_tagbody(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c)) return;
    cur_tagbody_guts(&c);
}

/* (prog (vars) tag form ...) */
static void body_prog(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_MISER);
    Obj v;
    if (!cur_pop(&c, &v)) return;
    paren_block(L, s, v, body_fill, NULL);
    cur_tagbody_guts(&c);
}

/* A list whose first element is followed by a newline of kind *D (fill for DOLIST's spec, miser
 * for a DO variable), the rest on linear newlines, indented to the current column. */
static void body_first_then_linear(Lisp *L, Obj s, Obj list, void *d) {
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, *(const int *)d);
    cur_ind(&c, PP_INDENT_CURRENT, 0);
    if (!cur_out(&c)) return;
    for (;;) {
        if (!cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_LINEAR);
        if (!cur_out(&c)) return;
    }
}

static const int newline_fill = PP_FILL, newline_miser = PP_MISER;

/* (dolist (var list [result]) body...) */
static void body_dolist(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_ind(&c, PP_INDENT_BLOCK, 3);
    cur_sp(&c);
    cur_nl(&c, PP_FILL);
    Obj spec;
    if (!cur_pop(&c, &spec)) return;
    paren_block(L, s, spec, body_first_then_linear, (void *)&newline_fill);
    cur_tagbody_guts(&c);
}

/* (do ((var init step) ...) (end result...) body...) */
static void body_do_vars(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    for (;;) {
        Obj v;
        if (!cur_pop(&c, &v)) return;
        paren_block(L, s, v, body_first_then_linear, (void *)&newline_miser);
        if (!cur_more(&c)) return;
        cur_nl(&c, PP_MANDATORY);
    }
}

static void body_do(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_ind(&c, PP_INDENT_CURRENT, 0);
    Obj v;
    if (!cur_pop(&c, &v)) return;
    paren_block(L, s, v, body_do_vars, NULL);
    if (!cur_more(&c)) return;
    cur_sp(&c);
    cur_nl(&c, PP_LINEAR);
    if (!cur_pop(&c, &v)) return;
    paren_block(L, s, v, body_linear, NULL);
    cur_tagbody_guts(&c);
}

/* (case key (keys form...) ...) and typecase */
static void body_case_clause(Lisp *L, Obj s, Obj list, void *d) {
    bool keys_fill = d != NULL;
    Cur c = {L, s, list, 0, false};
    Obj k;
    if (!cur_pop(&c, &k)) return;
    if (keys_fill) pp_logical_block(L, s, k, str_lit(L, "("), false, str_lit(L, ")"), body_fill, NULL);
    else print_write(L, k, s);
    for (;;) {
        if (!cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_LINEAR);
        if (!cur_out(&c)) return;
    }
}

static void body_case(Lisp *L, Obj s, Obj list, void *d) {
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_ind(&c, PP_INDENT_BLOCK, 3);
    cur_nl(&c, PP_FILL);
    if (!cur_out(&c)) return;
    cur_ind(&c, PP_INDENT_BLOCK, 1);
    for (;;) {
        if (!cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_LINEAR);
        Obj clause;
        if (!cur_pop(&c, &clause)) return;
        paren_block(L, s, clause, body_case_clause, d);
    }
}

/* (loop keyword ...): each clause keyword starts a new line. */
static bool loop_clause_keyword(Lisp *L, Obj x) {
    static const char *const kws = "AND WITH FOR INITIALLY FINALLY DO DOING COLLECT COLLECTING APPEND APPENDING NCONC "
                                   "NCONCING COUNT COUNTING SUM SUMMING MAXIMIZE MAXIMIZING MINIMIZE MINIMIZING IF WHEN "
                                   "UNLESS END WHILE UNTIL REPEAT ALWAYS NEVER THEREIS";
    (void)L;
    if (!is_type(x, T_SYMBOL)) return false;
    String *n = STR(SYM(x)->name);
    const char *p = kws;
    while (*p) {
        const char *q = p;
        while (*q && *q != ' ') q++;
        size_t len = (size_t)(q - p);
        if (len == n->len) {
            bool eq = true;
            for (size_t i = 0; i < len; i++) if (n->data[i] != (uint32_t)(unsigned char)p[i]) { eq = false; break; }
            if (eq) return true;
        }
        p = *q ? q + 1 : q;
    }
    return false;
}

static void body_loop(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    /* (loop (form) ...), the simple loop: one form per line */
    if (!is_cons(CDR(list)) || is_cons(CAR(CDR(list)))) {
        int spread = 1;
        body_fun_call(L, s, list, &spread);
        return;
    }
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_ind(&c, PP_INDENT_CURRENT, 0);
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    for (;;) {
        Obj x;
        if (!cur_pop(&c, &x)) return;
        if (loop_clause_keyword(L, x)) cur_nl(&c, PP_MANDATORY);
        print_write(L, x, s);
        if (!cur_more(&c)) return;
        cur_sp(&c);
    }
}

/* (defpackage name (option value...) ...) */
static void body_defpackage_option(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_ind(&c, PP_INDENT_CURRENT, 0);
    cur_nl(&c, PP_MISER);
    for (;;) {
        if (!cur_out(&c) || !cur_more(&c)) return;
        cur_sp(&c);
        cur_nl(&c, PP_LINEAR);
    }
}

static void body_defpackage(Lisp *L, Obj s, Obj list, void *d) {
    (void)d;
    Cur c = {L, s, list, 0, false};
    if (!cur_out(&c) || !cur_more(&c)) return;
    cur_sp(&c);
    cur_ind(&c, PP_INDENT_BLOCK, 3);
    cur_nl(&c, PP_FILL);
    if (!cur_out(&c)) return;
    cur_ind(&c, PP_INDENT_BLOCK, 1);
    for (;;) {
        if (!cur_more(&c)) return;
        cur_nl(&c, PP_MANDATORY);
        Obj o;
        if (!cur_pop(&c, &o)) return;
        paren_block(L, s, o, body_defpackage_option, NULL);
    }
}

typedef struct StyleEntry { const char *names; PPBody body; int arg; } StyleEntry;
static const StyleEntry code_styles[] = {
    {"LAMBDA", body_lambda, 0},
    {"DECLARE DECLAIM", body_fun_call, 1},
    {"BLOCK CATCH RETURN-FROM THROW EVAL-WHEN MULTIPLE-VALUE-CALL MULTIPLE-VALUE-PROG1 UNWIND-PROTECT "
     "DEFCONSTANT DEFPARAMETER DEFSTRUCT DEFVAR MULTIPLE-VALUE-SETQ PROG1 PPRINT-LOGICAL-BLOCK "
     "PRINT-UNREADABLE-OBJECT UNLESS WHEN WITH-COMPILATION-UNIT WITH-SIMPLE-RESTART WITH-HASH-TABLE-ITERATOR "
     "WITH-PACKAGE-ITERATOR WITH-INPUT-FROM-STRING WITH-OUTPUT-TO-STRING WITH-OPEN-FILE WITH-OPEN-STREAM", body_block, 0},
    {"FLET LABELS MACROLET", body_flet, 0},
    {"IF", body_if, 0},
    {"LET LET* SYMBOL-MACROLET", body_let, 0},
    {"LOCALLY PROGN STEP TIME WITH-STANDARD-IO-SYNTAX", body_linear, 0},
    {"PROGV", body_prog2, 1},
    {"SETQ PSETQ SETF PSETF", body_setq, 0},
    {"TAGBODY", body_tagbody, 0},
    {"CASE CCASE ECASE", body_case, 1},
    {"CTYPECASE ETYPECASE TYPECASE", body_case, 0},
    {"DEFINE-MODIFY-MACRO DEFINE-SETF-EXPANDER DEFMACRO DEFSETF DEFTYPE DEFUN", body_defun, 0},
    {"DEFMETHOD", body_defun, 2},
    {"DEFPACKAGE", body_defpackage, 0},
    {"DESTRUCTURING-BIND", body_destructuring_bind, 0},
    {"DO DO*", body_do, 0},
    {"DO-ALL-SYMBOLS DO-EXTERNAL-SYMBOLS DO-SYMBOLS DOLIST DOTIMES", body_dolist, 0},
    {"LOOP", body_loop, 0},
    {"MULTIPLE-VALUE-BIND PROG2", body_prog2, 0},
    {"PROG PROG*", body_prog, 0},
    {NULL, NULL, 0},
};

static bool name_in(Obj sym, const char *names) {
    if (!is_type(sym, T_SYMBOL)) return false;
    String *s = STR(SYM(sym)->name);
    const char *p = names;
    while (*p) {
        const char *q = p;
        while (*q && *q != ' ') q++;
        size_t n = (size_t)(q - p);
        if (n == s->len) {
            bool eq = true;
            for (size_t i = 0; i < n; i++) if (s->data[i] != (uint32_t)(unsigned char)p[i]) { eq = false; break; }
            if (eq) return true;
        }
        p = *q ? q + 1 : q;
    }
    return false;
}

/* The number of arguments before &body in a macro's lambda list, or -1 when it has no &body. */
static long macro_body_position(Lisp *L, Obj fn) {
    Obj llfn = SYM(intern_cstr(L, L->pkg_system, "%FUNCTION-LAMBDA-LIST"))->function;
    if (!is_function(llfn)) return -1;
    Obj ll = funcall1(L, llfn, fn);
    long n = 0;
    Obj l = ll;
    for (; is_cons(l); l = CDR(l)) {
        if (CAR(l) == S(AND_BODY)) return n;
        if (CAR(l) != S(AND_OPTIONAL)) n++;
    }
    return l == NIL ? -1 : n;
}

/* Vectors and arrays when pretty printing: fill newlines between elements, linear between rows. */
typedef struct ArrData { Obj storage; size_t offset; size_t *dims; int rank; } ArrData;

static void body_array_axis(Lisp *L, Obj s, Obj list, void *d) {
    (void)list;
    ArrData *a = (ArrData *)d;
    if (a->rank == 0) return;
    size_t dim = a->dims[0];
    size_t step = 1;
    for (int k = 1; k < a->rank; k++) step *= a->dims[k];
    for (size_t i = 0; i < dim; i++) {
        if (i > 0) {
            stream_write_char(L, s, ' ');
            pp_newline(L, s, a->rank > 1 ? PP_LINEAR : PP_FILL);
        }
        if (pp_pop_check(L, s, NIL, (long)i) || STREAM(s)->truncated) return;
        if (a->rank == 1) print_write(L, array_elt(L, a->storage, a->offset + i), s);
        else {
            ArrData sub = {a->storage, a->offset + i * step, a->dims + 1, a->rank - 1};
            long level = SYM(S(PRINT_READABLY))->value != NIL ? -1 : limit_var(L, S(PRINT_LEVEL));
            if (level >= 0 && current_depth(L) >= level) stream_write_char(L, s, '#');
            else pp_logical_block_ex(L, s, NIL, str_lit(L, "("), false, str_lit(L, ")"), body_array_axis, &sub, false);
        }
        if ((i & 255) == 255) safe_point(L);
    }
}

static void print_array_pretty(Lisp *L, PState *ps, Obj storage, size_t offset, size_t *dims, int rank, bool vector, long depth) {
    if (ps->level >= 0 && depth >= ps->level) { put(L, ps, '#'); return; }
    size_t sp = L->special_sp;
    bind_special(L, S(PP_PRINT_DEPTH), FIX(depth));
    bind_special(L, S(PRINT_ESCAPE), boolean(L, ps->escape));
    ArrData a = {storage, offset, dims, rank};
    if (vector) pp_logical_block_ex(L, ps->stream, NIL, str_lit(L, "#("), false, str_lit(L, ")"), body_array_axis, &a, false);
    else {
        char buf[32];
        snprintf(buf, sizeof buf, "#%dA", rank);
        puts_(L, ps, buf);
        if (rank == 0) print_rec(L, ps, array_elt(L, storage, offset), depth);
        else pp_logical_block_ex(L, ps->stream, NIL, str_lit(L, "("), false, str_lit(L, ")"), body_array_axis, &a, false);
    }
    unbind_specials(L, sp);
}

static void print_list_pretty(Lisp *L, PState *ps, Obj o, long depth) {
    Obj stream = ps->stream;
    const char *prefix = quote_prefix(L, o);
    /* inside DECLARE, (function f) stays as written (SBCL) */
    if (prefix && (CAR(o) == S(QUOTE) || CAR(o) == S(FUNCTION)) && SYM(S(PP_QUOTE_SUGAR))->value == NIL) prefix = NULL;
    if (prefix) {
        puts_(L, ps, prefix);
        print_rec(L, ps, CAR(CDR(o)), depth);
        return;
    }
    if (ps->level >= 0 && depth >= ps->level) {
        put(L, ps, '#');
        return;
    }
    size_t sp = L->special_sp;
    bind_special(L, S(PP_PRINT_DEPTH), FIX(depth));
    bind_special(L, S(PRINT_ESCAPE), boolean(L, ps->escape));
    Obj head = CAR(o);
    PPBody body = body_fill;
    void *data = NULL;
    int arg = 0;
    bool found = false;
    if (is_type(head, T_SYMBOL) && SYM(head)->package == L->pkg_cl) {
        for (const StyleEntry *e = code_styles; e->names; e++)
            if (name_in(head, e->names)) {
                body = e->body;
                arg = e->arg;
                found = true;
                break;
            }
    }
    long pos = 0;
    /* (quote a b), (function): not the one-argument forms printed as 'a and #'f */
    if (head == S(QUOTE) || head == S(FUNCTION) || head == S(QUASIQUOTE)) found = true;
    if (found) {
        if (arg) data = &arg;
        if (head == S(DECLARE) || head == intern_cstr(L, L->pkg_cl, "DECLAIM"))
            bind_special(L, S(PP_QUOTE_SUGAR), NIL);
    } else if (is_type(head, T_SYMBOL) && (SYM(head)->function != UNBOUND || special_operator_p(L, head))) {
        body = body_fun_call;
        if ((SYM(head)->h.flags & SYM_MACRO) && (pos = macro_body_position(L, SYM(head)->function)) >= 0) {
            body = body_call_form;
            data = &pos;
        }
    }
    pp_logical_block_ex(L, stream, o, str_lit(L, "("), false, str_lit(L, ")"), body, data, false);
    unbind_specials(L, sp);
}

/* ------------------------------------------------------------------ */
/* Primitives                                                          */

DEFPRIM(prim_prin1) {
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    print_obj(L, args[0], s, true);
    return args[0];
}

DEFPRIM(prim_princ) {
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    print_obj(L, args[0], s, false);
    return args[0];
}

DEFPRIM(prim_print) {
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    stream_terpri(L, s);
    print_obj(L, args[0], s, true);
    stream_write_char(L, s, ' ');
    return args[0];
}

DEFPRIM(prim_pprint) {
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    size_t sp = L->special_sp;
    bind_special(L, S(PRINT_PRETTY), S(T));
    stream_terpri(L, s);
    print_obj(L, args[0], s, true);
    unbind_specials(L, sp);
    return values0(L);
}

/* (write object &key stream escape readably base radix case length level circle pretty gensym array lines right-margin miser-width pprint-dispatch) */
enum { WRITE_KEY_COUNT = 16 };
static size_t bind_write_keys(Lisp *L, int nargs, Obj *args, int start, Obj *stream_out_arg) {
    Obj keys[WRITE_KEY_COUNT] = {S(K_STREAM), S(K_ESCAPE), S(K_READABLY), S(K_BASE), S(K_RADIX), S(K_CASE), S(K_LENGTH),
                                 S(K_LEVEL), S(K_CIRCLE), S(K_PRETTY), S(K_GENSYM), S(K_ARRAY), S(K_LINES),
                                 S(K_RIGHT_MARGIN), S(K_MISER_WIDTH), S(K_PPRINT_DISPATCH)};
    Obj vars[WRITE_KEY_COUNT] = {NIL, S(PRINT_ESCAPE), S(PRINT_READABLY), S(PRINT_BASE), S(PRINT_RADIX), S(PRINT_CASE),
                                 S(PRINT_LENGTH), S(PRINT_LEVEL), S(PRINT_CIRCLE), S(PRINT_PRETTY), S(PRINT_GENSYM),
                                 S(PRINT_ARRAY), S(PRINT_LINES), S(PRINT_RIGHT_MARGIN), S(PRINT_MISER_WIDTH), S(PRINT_PPRINT_DISPATCH)};
    Obj out[WRITE_KEY_COUNT];
    parse_keys(L, nargs, args, start, WRITE_KEY_COUNT, keys, out);
    size_t sp = L->special_sp;
    for (int i = 1; i < WRITE_KEY_COUNT; i++)
        if (out[i] != NO_VALUE) bind_special(L, vars[i], out[i]);
    if (stream_out_arg) *stream_out_arg = out[0] == NO_VALUE ? NIL : out[0];
    return sp;
}

DEFPRIM(prim_write) {
    Obj stream;
    size_t sp = bind_write_keys(L, nargs, args, 1, &stream);
    Obj s = stream_out(L, stream);
    print_write(L, args[0], s);
    unbind_specials(L, sp);
    return args[0];
}

DEFPRIM(prim_write_to_string) {
    size_t sp = bind_write_keys(L, nargs, args, 1, NULL);
    Obj s = make_string_output_stream(L);
    print_write(L, args[0], s);
    unbind_specials(L, sp);
    return get_output_stream_string(L, s);
}

DEFPRIM(prim_prin1_to_string) { UNUSED_ARGS; return prin1_to_string(L, args[0]); }
DEFPRIM(prim_princ_to_string) { UNUSED_ARGS; return princ_to_string(L, args[0]); }

static Obj out_designator(Lisp *L, Obj d) { return stream_out(L, d); }

static int newline_kind(Lisp *L, Obj k) {
    if (k == S(PP_K_LINEAR)) return PP_LINEAR;
    if (k == S(PP_K_FILL)) return PP_FILL;
    if (k == S(PP_K_MISER)) return PP_MISER;
    if (k == S(PP_K_MANDATORY)) return PP_MANDATORY;
    err_type(L, k, cons(L, S(MEMBER), cons(L, S(PP_K_LINEAR), cons(L, S(PP_K_MISER), cons(L, S(PP_K_FILL), cons(L, S(PP_K_MANDATORY), NIL))))));
}

DEFPRIM(prim_pprint_newline) {
    int kind = newline_kind(L, args[0]);
    pp_newline(L, out_designator(L, opt_arg(nargs, args, 1, NIL)), kind);
    return NIL;
}

DEFPRIM(prim_pprint_indent) {
    int kind;
    if (args[0] == S(PP_K_BLOCK)) kind = PP_INDENT_BLOCK;
    else if (args[0] == S(PP_K_CURRENT)) kind = PP_INDENT_CURRENT;
    else err_type(L, args[0], cons(L, S(MEMBER), cons(L, S(PP_K_BLOCK), cons(L, S(PP_K_CURRENT), NIL))));
    Obj n = check_real(L, args[1]);
    long amount;
    if (is_fixnum(n)) amount = (long)fixnum_val(n);
    else amount = (long)number_to_double(L, n);
    pp_indent(L, out_designator(L, opt_arg(nargs, args, 2, NIL)), kind, amount);
    return NIL;
}

DEFPRIM(prim_pprint_tab) {
    int kind;
    Obj k = args[0];
    if (k == S(PP_K_LINE)) kind = PP_TAB_LINE;
    else if (k == S(PP_K_SECTION)) kind = PP_TAB_SECTION;
    else if (k == S(PP_K_LINE_RELATIVE)) kind = PP_TAB_LINE_RELATIVE;
    else if (k == S(PP_K_SECTION_RELATIVE)) kind = PP_TAB_SECTION_RELATIVE;
    else err_type(L, k, cons(L, S(MEMBER), cons(L, S(PP_K_LINE), cons(L, S(PP_K_SECTION), cons(L, S(PP_K_LINE_RELATIVE), cons(L, S(PP_K_SECTION_RELATIVE), NIL))))));
    long colnum = (long)check_index(L, args[1]), colinc = (long)check_index(L, args[2]);
    pp_tab(L, out_designator(L, opt_arg(nargs, args, 3, NIL)), kind, colnum, colinc);
    return NIL;
}

static void body_lisp(Lisp *L, Obj stream, Obj list, void *data) {
    LispBody *b = (LispBody *)data;
    funcall2(L, b->fn, stream, list);
}

/* (%pprint-logical-block stream object prefix per-line-p suffix function): FUNCTION is called
 * with (stream list). */
DEFPRIM(prim_pct_pprint_logical_block) {
    UNUSED_ARGS;
    Obj stream = out_designator(L, args[0]);
    Obj prefix = args[2], suffix = args[4];
    if (prefix != NIL && !is_string(prefix)) err_type(L, prefix, S(STRING));
    if (suffix != NIL && !is_string(suffix)) err_type(L, suffix, S(STRING));
    LispBody b = {check_function(L, args[5])};
    pp_logical_block(L, stream, args[1], prefix, args[3] != NIL, suffix == NIL ? str_lit(L, "") : suffix, body_lisp, &b);
    return NIL;
}

DEFPRIM(prim_pct_pprint_pop_check) {
    UNUSED_ARGS;
    return boolean(L, pp_pop_check(L, args[0], args[1], (long)check_fixnum(L, args[2])));
}

DEFPRIM(prim_pct_pretty_stream_p) { UNUSED_ARGS; return boolean(L, is_stream(args[0]) && pp_stream_p(L, args[0])); }

static void list_printer(Lisp *L, int nargs, Obj *args, PPBody body, void *data) {
    Obj stream = out_designator(L, args[0]);
    bool colon = nargs < 3 || args[2] != NIL;
    pp_logical_block(L, stream, args[1], str_lit(L, colon ? "(" : ""), false, str_lit(L, colon ? ")" : ""), body, data);
}

DEFPRIM(prim_pprint_fill) { list_printer(L, nargs, args, body_fill, NULL); return NIL; }
DEFPRIM(prim_pprint_linear) { list_printer(L, nargs, args, body_linear, NULL); return NIL; }
DEFPRIM(prim_pprint_tabular) {
    TabData t = {nargs > 4 && args[4] != NIL ? (long)check_index(L, args[4]) : 16};
    list_printer(L, nargs, args, body_tabular, &t);
    return NIL;
}

/* (%output-object object stream): WRITE with the current print variables (for Lisp printers). */
DEFPRIM(prim_pct_output_object) {
    UNUSED_ARGS;
    print_write(L, args[0], out_designator(L, args[1]));
    return args[0];
}

static const PrimDef printer_prims[] = {
    {"PRIN1", PK_CL, prim_prin1, 1, 2, 0, "(object &optional stream)", "Writes OBJECT to STREAM with escapes, so that READ can read it back; returns OBJECT."},
    {"PRINC", PK_CL, prim_princ, 1, 2, 0, "(object &optional stream)", "Writes OBJECT to STREAM for people, without escapes (strings without quotes); returns OBJECT."},
    {"PRINT", PK_CL, prim_print, 1, 2, 0, "(object &optional stream)", "Writes a newline, then OBJECT as PRIN1 does, then a space, to STREAM; returns OBJECT."},
    {"PPRINT", PK_CL, prim_pprint, 1, 2, FN_MV, "(object &optional stream)", "Newline and pretty PRIN1; no values."},
    {"WRITE", PK_CL, prim_write, 1, REST, 0, "(object &key stream escape readably base radix case length level circle pretty gensym array lines right-margin miser-width pprint-dispatch)", "Print OBJECT with the given print variables."},
    {"WRITE-TO-STRING", PK_CL, prim_write_to_string, 1, REST, 0, "(object &key escape readably base radix case length level circle pretty gensym array lines right-margin miser-width pprint-dispatch)", "OBJECT printed as by WRITE into a string; the keyword arguments override the matching *PRINT-...* variables."},
    {"PRIN1-TO-STRING", PK_CL, prim_prin1_to_string, 1, 1, 0, "(object)", "OBJECT printed as by PRIN1 (readably, with escapes), as a string."},
    {"PRINC-TO-STRING", PK_CL, prim_princ_to_string, 1, 1, 0, "(object)", "OBJECT printed as by PRINC (for people, without escapes), as a string."},
    {"PPRINT-NEWLINE", PK_CL, prim_pprint_newline, 1, 2, 0, "(kind &optional stream)", "A conditional newline in a logical block."},
    {"PPRINT-INDENT", PK_CL, prim_pprint_indent, 2, 3, 0, "(relative-to n &optional stream)", "Set the indentation of the current logical block."},
    {"PPRINT-TAB", PK_CL, prim_pprint_tab, 3, 4, 0, "(kind colnum colinc &optional stream)", "In pretty printing, moves to a column given by KIND (:LINE, :SECTION or their :RELATIVE forms), COLNUM and COLINC, as the ~T directive does."},
    {"PPRINT-FILL", PK_CL, prim_pprint_fill, 2, 4, 0, "(stream list &optional (colon t) atsign)", "Print LIST with fill newlines."},
    {"PPRINT-LINEAR", PK_CL, prim_pprint_linear, 2, 4, 0, "(stream list &optional (colon t) atsign)", "Print LIST with linear newlines."},
    {"PPRINT-TABULAR", PK_CL, prim_pprint_tabular, 2, 5, 0, "(stream list &optional (colon t) atsign tabsize)", "Print LIST in columns."},
    {"%PPRINT-LOGICAL-BLOCK", PK_SYS, prim_pct_pprint_logical_block, 6, 6, 0, "(stream object prefix per-line-p suffix function)", NULL},
    {"%PPRINT-POP-CHECK", PK_SYS, prim_pct_pprint_pop_check, 3, 3, 0, "(stream list count)", NULL},
    {"%PRETTY-STREAM-P", PK_SYS, prim_pct_pretty_stream_p, 1, 1, 0, "(stream)", NULL},
    {"%OUTPUT-OBJECT", PK_SYS, prim_pct_output_object, 2, 2, 0, "(object stream)", NULL},
    {0},
};

void printer_init(Lisp *L) {
    prims_register(L, printer_prims);
    SYM(S(PP_PRETTY_STREAMS))->h.flags |= SYM_SPECIAL;
    SYM(S(PP_PRETTY_STREAMS))->value = NIL;
    SYM(S(PP_CIRCLE_TABLE))->h.flags |= SYM_SPECIAL;
    SYM(S(PP_CIRCLE_TABLE))->value = NIL;
    SYM(S(PP_PRINT_DEPTH))->h.flags |= SYM_SPECIAL;
    SYM(S(PP_PRINT_DEPTH))->value = FIX(0);
    SYM(S(PP_QUOTE_SUGAR))->h.flags |= SYM_SPECIAL;
    SYM(S(PP_QUOTE_SUGAR))->value = S(T);
}
