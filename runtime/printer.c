/* printer.c: the Lisp printer (CLHS 22.1): symbols, numbers, strings, lists, arrays, unreadable
 * objects, circularity, and the printing functions. Output matches SBCL's. The pretty printer
 * (CLHS 22.2) is pprint.c. */
#include "pprint.h"
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


long printer_limit_var(Lisp *L, Obj sym) {
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

long printer_depth(Lisp *L) {
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

/* Into a buffer on the C stack: a number's text is short, and a temporary string per number was
 * a sixth of the work of printing numbers into a string (bench/strings). */
static void print_number(Lisp *L, PState *ps, Obj n) {
    uint32_t local[64];
    StrBuf b;
    sb_init_local(&b, local, sizeof local / sizeof local[0]);
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

/* Record that the printer reaches O: true the first time, false (O now shared) after. */
static bool circ_visit(Lisp *L, Obj table, Obj o) {
    Obj seen = hash_get(L, table, o, NO_VALUE);
    if (seen != NO_VALUE) {
        hash_put(L, table, o, S(T)); /* shared: gets a label */
        return false;
    }
    hash_put(L, table, o, NIL);
    return true;
}

/* Walk O, at list depth DEPTH, as the printer will, marking in TABLE what it reaches twice. Only
 * what is printed counts (as SBCL finds sharing by printing once without output): no element
 * past *PRINT-LENGTH*, nothing inside a list or array deeper than *PRINT-LEVEL*. A list's tail
 * is checked for sharing before the length limit by the plain printer and after it by
 * PPRINT-POP (the pretty printer). */
void printer_circ_scan(Lisp *L, PState *ps, Obj table, Obj o, long depth) {
    for (;;) {
        stack_check(L);
        if (!circ_candidate(o) || !circ_visit(L, table, o)) return;
        bool deeper = ps->level < 0 || depth < ps->level;
        if (is_cons(o)) {
            if (printer_quote_prefix(L, o)) { /* 'x and friends print x where the form is */
                o = CAR(CDR(o));
                continue;
            }
            if (!deeper) return;
            long i = 0;
            for (Obj x = o;;) {
                if (ps->length >= 0 && i >= ps->length) return;
                printer_circ_scan(L, ps, table, CAR(x), depth + 1);
                x = CDR(x);
                i++;
                if (!is_cons(x)) {
                    if (x != NIL) printer_circ_scan(L, ps, table, x, depth + 1);
                    return;
                }
                if (ps->pretty && ps->length >= 0 && i >= ps->length) return;
                if (!circ_visit(L, table, x)) return;
                if ((i & 1023) == 0) safe_point(L);
            }
        }
        if (!deeper) return;
        Obj items = NIL;
        size_t n = 0;
        if (is_type(o, T_VECTOR)) items = o;
        else if (is_type(o, T_ARRAY) && ARR(o)->storage != NIL && is_type(ARR(o)->storage, T_VECTOR))
            items = ARR(o)->storage;
        else if (is_type(o, T_INSTANCE) && (INST(o)->h.flags & INST_STRUCTURE)) {
            /* only structures show their slots (#S); other instances print as #<...> */
            for (size_t k = 0; k < INST(o)->nslots; k++) printer_circ_scan(L, ps, table, INST(o)->slots[k], depth + 1);
            return;
        } else return;
        n = VEC(items)->len;
        /* a vector's elements stop at *PRINT-LENGTH*; a multi-dimensional array's rows do too, which
         * this does not follow (it walks every element) */
        if (items == o && ps->length >= 0 && (size_t)ps->length < n) n = (size_t)ps->length;
        for (size_t k = 0; k < n; k++) printer_circ_scan(L, ps, table, VEC(items)->data[k], depth + 1);
        return;
    }
}

/* The label state of O: 0 not labelled, >0 the label already printed (#n#). */
static bool circ_shared(Lisp *L, PState *ps, Obj o) {
    if (ps->circ == NIL || !circ_candidate(o)) return false;
    Obj st = hash_get(L, CAR(ps->circ), o, NO_VALUE);
    return st != NO_VALUE && st != NIL;
}

/* Print #n# (returns true) or #n= before a first occurrence of a shared object. */
bool printer_circ_label(Lisp *L, PState *ps, Obj o) {
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

const char *printer_quote_prefix(Lisp *L, Obj o) {
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
bool printer_unquote_form(Lisp *L, Obj o) {
    if (!is_cons(o) || !is_cons(CDR(o)) || CDR(CDR(o)) != NIL) return false;
    Obj h = CAR(o);
    return h == S(UNQUOTE) || h == S(UNQUOTE_SPLICING) || h == S(UNQUOTE_NSPLICING);
}

static void print_list(Lisp *L, PState *ps, Obj o, long depth) {
    const char *prefix = printer_quote_prefix(L, o);
    if (prefix) {
        puts_(L, ps, prefix);
        printer_rec(L, ps, CAR(CDR(o)), depth);
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
        printer_rec(L, ps, CAR(o), depth + 1);
        i++;
        Obj d = CDR(o);
        if (d == NIL) break;
        if (!is_cons(d) || circ_shared(L, ps, d) || printer_unquote_form(L, d)) {
            puts_(L, ps, " . ");
            printer_rec(L, ps, d, depth + 1);
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

Obj printer_array_elt(Lisp *L, Obj storage, size_t i) {
    if (is_type(storage, T_VECTOR)) return VEC(storage)->data[i];
    if (is_string(storage)) return make_char(STR(storage)->data[i]);
    if (is_type(storage, T_BITVECTOR)) return FIX(BITV(storage)->data[i]);
    if (is_type(storage, T_ARRAY)) return printer_array_elt(L, ARR(storage)->storage, ARR(storage)->offset + i);
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
        printer_rec(L, ps, printer_array_elt(L, storage, offset + i), depth + 1);
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
        if (axis == rank - 1) printer_rec(L, ps, printer_array_elt(L, storage, offset + i), depth + 1);
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

/* The elements of A from axis AXIS on as nested lists (the element itself past the last axis),
 * taking them in row-major order from *I; an axis of length 0 ends the nesting. */
static Obj array_contents(Lisp *L, Array *a, const size_t *dims, int rank, int axis, size_t *i) {
    if (axis == rank) return printer_array_elt(L, a->storage, a->offset + (*i)++);
    Obj head = NIL, tail = NIL;
    for (size_t k = 0; k < dims[axis]; k++) {
        Obj c = cons(L, array_contents(L, a, dims, rank, axis + 1, i), NIL);
        if (tail == NIL) head = c; else CDR(tail) = c;
        tail = c;
    }
    return head;
}

/* As SBCL prints such an array readably: #A((dimensions) element-type . contents). Used where
 * #nA(...) would not read back as a similar array: an empty axis before a non-empty one, or an
 * element type other than T (#nA makes an array of T). */
static void print_array_with_dims(Lisp *L, PState *ps, Obj o, long depth) {
    Array *a = ARR(o);
    int rank = a->h.aux;
    size_t active = (a->h.flags & ARR_FILL_POINTER) ? a->fill : (rank ? a->dims[0] : 0);
    const size_t *shape = rank == 1 ? &active : a->dims;
    Obj dims = NIL;
    for (int k = rank - 1; k >= 0; k--) dims = cons(L, FIX((intptr_t)shape[k]), dims);
    size_t start = 0;
    Obj contents = array_contents(L, a, shape, rank, 0, &start);
    Obj form = cons(L, dims, cons(L, array_element_type_spec(L, o), contents));
    puts_(L, ps, "#A");
    bool saved = ps->pretty;
    ps->pretty = false;
    printer_rec(L, ps, form, depth);
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
        for (size_t i = 0; i < n; i++) sb_putc(L, &b, char_code(printer_array_elt(L, a->storage, a->offset + i)));
        print_string_data(L, ps, b.data, b.len);
        return;
    }
    if (!ps->array && !ps->readably) { print_terse_array(L, ps, o); return; }
    if (ps->readably && et != ELT_T && !(rank == 1 && et == ELT_BIT)) {
        print_array_with_dims(L, ps, o, depth);
        return;
    }
    if (rank == 1) {
        size_t n = (a->h.flags & ARR_FILL_POINTER) ? a->fill : a->total;
        if (et == ELT_BIT) {
            puts_(L, ps, "#*");
            for (size_t i = 0; i < n; i++) put(L, ps, fixnum_val(printer_array_elt(L, a->storage, a->offset + i)) ? '1' : '0');
            return;
        }
        if (ps->pretty) { pprint_array(L, ps, a->storage, a->offset, &n, 1, true, depth); return; }
        if (ps->level >= 0 && depth >= ps->level) { put(L, ps, '#'); return; }
        put(L, ps, '#');
        print_vector_elems(L, ps, a->storage, a->offset, n, depth);
        return;
    }
    if (ps->readably && rank > 1 && ambiguous_dims(a->dims, rank)) {
        print_array_with_dims(L, ps, o, depth);
        return;
    }
    if (ps->pretty) { pprint_array(L, ps, a->storage, a->offset, a->dims, rank, false, depth); return; }
    char buf[32];
    snprintf(buf, sizeof buf, "#%dA", rank);
    puts_(L, ps, buf);
    if (rank == 0) {
        printer_rec(L, ps, printer_array_elt(L, a->storage, a->offset), depth);
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
        else printer_rec(L, ps, lam->ll.source, 0);
        put(L, ps, ')');
        put_address(L, ps, o);
    } else {
        printer_rec(L, ps, name, 0);
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
            printer_rec(L, ps, HT(o)->test_fn, depth);
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
        printer_rec(L, ps, form, depth);
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
        printer_rec(L, ps, HT(o)->test_fn, depth);
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
        case SK_SYNONYM: puts_(L, ps, " :SYMBOL "); printer_rec(L, ps, st->a, depth); break;
        case SK_TWO_WAY: case SK_ECHO:
            puts_(L, ps, " :INPUT-STREAM ");
            printer_rec(L, ps, st->a, depth);
            puts_(L, ps, " :OUTPUT-STREAM ");
            printer_rec(L, ps, st->b, depth);
            break;
        case SK_CONCATENATED: puts_(L, ps, " :STREAMS "); printer_rec(L, ps, st->a, depth); break;
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
        printer_rec(L, ps, ((WeakPointer *)o)->value, depth);
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

void printer_rec(Lisp *L, PState *ps, Obj o, long depth) {
    stack_check(L);
    if (truncated(ps)) return;
    if (is_fixnum(o)) { print_number(L, ps, o); return; }
    if (ps->pretty && !is_char(o) && o != NIL) {
        Obj fn = pprint_dispatch_function(L, o);
        if (fn != NIL) {
            if (printer_circ_label(L, ps, o)) return;
            size_t sp = L->special_sp;
            bind_special(L, S(PP_PRINT_DEPTH), FIX(depth));
            funcall2(L, fn, ps->stream, o);
            unbind_specials(L, sp);
            return;
        }
    }
    if (is_cons(o)) {
        if (printer_circ_label(L, ps, o)) return;
        if (ps->pretty) pprint_list(L, ps, o, depth);
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
        if (SYM(o)->package == NIL && ps->escape && printer_circ_label(L, ps, o)) return;
        print_symbol(L, ps, o);
        return;
    case T_BIGNUM: case T_RATIO: case T_DOUBLE: case T_COMPLEX: print_number(L, ps, o); return;
    case T_STRING:
        if (ps->escape && printer_circ_label(L, ps, o)) return;
        print_string(L, ps, o);
        return;
    case T_VECTOR:
        if (!ps->array && !ps->readably) { print_terse_array(L, ps, o); return; }
        if (printer_circ_label(L, ps, o)) return;
        if (ps->pretty) { size_t n = VEC(o)->len; pprint_array(L, ps, o, 0, &n, 1, true, depth); return; }
        if (ps->level >= 0 && depth >= ps->level) { put(L, ps, '#'); return; }
        put(L, ps, '#');
        print_vector_elems(L, ps, o, 0, VEC(o)->len, depth);
        return;
    case T_BITVECTOR:
        if (printer_circ_label(L, ps, o)) return;
        print_bits(L, ps, o);
        return;
    case T_ARRAY:
        if (printer_circ_label(L, ps, o)) return;
        print_array(L, ps, o, depth);
        return;
    case T_PRIMITIVE: case T_CLOSURE: print_function(L, ps, o); return;
    case T_INSTANCE: case T_FUNCALLABLE:
        if (printer_circ_label(L, ps, o)) return;
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
                printer_rec(L, ps, parts[i], depth + 1);
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

void printer_state_init(Lisp *L, PState *ps, Obj stream, bool escape) {
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
    ps->length = ps->readably ? -1 : printer_limit_var(L, S(PRINT_LENGTH));
    ps->level = ps->readably ? -1 : printer_limit_var(L, S(PRINT_LEVEL));
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
    printer_state_init(L, &ps, stream, escape);
    if (ps.circle) {
        Obj cur = SYM(S(PP_CIRCLE_TABLE))->value;
        if (is_cons(cur)) ps.circ = cur;
        else if (is_cons(o) || is_heap(o)) {
            Obj table = hash_new(L, HT_EQ, 64);
            printer_circ_scan(L, &ps, table, o, printer_depth(L));
            ps.circ = cons(L, table, FIX(0));
            bind_special(L, S(PP_CIRCLE_TABLE), ps.circ);
        }
    }
    printer_rec(L, &ps, o, printer_depth(L));
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

/* (%output-object object stream): WRITE with the current print variables (for Lisp printers). */
DEFPRIM(prim_pct_output_object) {
    UNUSED_ARGS;
    print_write(L, args[0], stream_out(L, args[1]));
    return args[0];
}

const PrimDef printer_prims[] = {
    {"PRIN1", PK_CL, prim_prin1, 1, 2, 0, "(object &optional stream)", "Writes OBJECT to STREAM with escapes, so that READ can read it back; returns OBJECT."},
    {"PRINC", PK_CL, prim_princ, 1, 2, 0, "(object &optional stream)", "Writes OBJECT to STREAM for people, without escapes (strings without quotes); returns OBJECT."},
    {"PRINT", PK_CL, prim_print, 1, 2, 0, "(object &optional stream)", "Writes a newline, then OBJECT as PRIN1 does, then a space, to STREAM; returns OBJECT."},
    {"PPRINT", PK_CL, prim_pprint, 1, 2, FN_MV, "(object &optional stream)", "Newline and pretty PRIN1; no values."},
    {"WRITE", PK_CL, prim_write, 1, REST, 0, "(object &key stream escape readably base radix case length level circle pretty gensym array lines right-margin miser-width pprint-dispatch)", "Print OBJECT with the given print variables."},
    {"WRITE-TO-STRING", PK_CL, prim_write_to_string, 1, REST, 0, "(object &key escape readably base radix case length level circle pretty gensym array lines right-margin miser-width pprint-dispatch)", "OBJECT printed as by WRITE into a string; the keyword arguments override the matching *PRINT-...* variables."},
    {"PRIN1-TO-STRING", PK_CL, prim_prin1_to_string, 1, 1, 0, "(object)", "OBJECT printed as by PRIN1 (readably, with escapes), as a string."},
    {"PRINC-TO-STRING", PK_CL, prim_princ_to_string, 1, 1, 0, "(object)", "OBJECT printed as by PRINC (for people, without escapes), as a string."},
    {"%OUTPUT-OBJECT", PK_SYS, prim_pct_output_object, 2, 2, 0, "(object stream)", NULL},
    {0},
};

void printer_init(Lisp *L) {
    prims_register(L, printer_prims);
    pprint_init(L);
    SYM(S(PP_PRETTY_STREAMS))->h.flags |= SYM_SPECIAL;
    SYM(S(PP_PRETTY_STREAMS))->value = NIL;
    SYM(S(PP_CIRCLE_TABLE))->h.flags |= SYM_SPECIAL;
    SYM(S(PP_CIRCLE_TABLE))->value = NIL;
    SYM(S(PP_PRINT_DEPTH))->h.flags |= SYM_SPECIAL;
    SYM(S(PP_PRINT_DEPTH))->value = FIX(0);
    SYM(S(PP_QUOTE_SUGAR))->h.flags |= SYM_SPECIAL;
    SYM(S(PP_QUOTE_SUGAR))->value = S(T);
}
