/* printer.c: the Lisp printer (CLHS 22.1): symbols, numbers, strings, lists, arrays, unreadable objects, circularity. */
#include "printer.h"
#include "prim.h"
#include "package.h"
#include "lstring.h"
#include "stream.h"
#include "number.h"
#include "character.h"
#include "reader.h"
#include "eval.h"
#include "hash.h"

typedef struct PState {
    Obj stream;
    bool escape, readably, circle, gensym, array;
    int base;
    bool radix;
    Obj pcase;
    long length, level;        /* -1 = unlimited */
    Obj circ_table;            /* hash table: object -> label state, or NIL */
    long next_label;
} PState;

static void print_rec(Lisp *L, PState *ps, Obj o, long depth);

static long limit_var(Lisp *L, Obj sym) {
    (void)L;
    Obj v = SYM(sym)->value;
    if (v == NIL || v == UNBOUND) return -1;
    if (!is_fixnum(v) || fixnum_val(v) < 0) return -1;
    return (long)fixnum_val(v);
}

static bool truncated(PState *ps) {
    Stream *s = STREAM(ps->stream);
    return s->truncated;
}

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

/* ---- symbols ---- */

static bool needs_escape(Lisp *L, Obj name, Obj rt) {
    String *s = STR(name);
    if (s->len == 0) return true;
    Obj dummy;
    if (number_parse_token(L, s->data, s->len, 10, &dummy)) return true;
    int base = is_fixnum(SYM(S(READ_BASE))->value) ? (int)fixnum_val(SYM(S(READ_BASE))->value) : 10;
    if (base != 10 && number_parse_token(L, s->data, s->len, base, &dummy)) return true;
    bool all_dots = true;
    ReadCase rc = RT(rt)->rcase;
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->data[i];
        if (c != '.') all_dots = false;
        Syntax syn = reader_syntax(L, rt, c);
        if (syn != SYN_CONSTITUENT && !(syn == SYN_NONTERM_MACRO && i > 0)) return true;
        if (c == ':') return true;
        if (rc == RCASE_UPCASE && char_is_lower(c)) return true;
        if (rc == RCASE_DOWNCASE && char_is_upper(c)) return true;
        if (c < 32 || c == 127) return true;
    }
    return all_dots;
}

static void put_symbol_name(Lisp *L, PState *ps, Obj name, bool escape) {
    Obj rt = readtable_current(L);
    String *s = STR(name);
    if (escape && needs_escape(L, name, rt)) {
        put(L, ps, '|');
        for (size_t i = 0; i < s->len; i++) {
            uint32_t c = s->data[i];
            if (c == '|' || c == '\\') put(L, ps, '\\');
            put(L, ps, c);
        }
        put(L, ps, '|');
        return;
    }
    Obj pc = ps->pcase;
    ReadCase rc = RT(rt)->rcase;
    if (rc == RCASE_PRESERVE || rc == RCASE_INVERT) {
        if (rc == RCASE_INVERT) {
            bool up = false, low = false;
            for (size_t i = 0; i < s->len; i++) { if (char_is_upper(s->data[i])) up = true; if (char_is_lower(s->data[i])) low = true; }
            for (size_t i = 0; i < s->len; i++) {
                uint32_t c = s->data[i];
                if (!(up && low)) c = up ? char_downcase(c) : char_upcase(c);
                put(L, ps, c);
            }
            return;
        }
        for (size_t i = 0; i < s->len; i++) put(L, ps, s->data[i]);
        return;
    }
    bool word_start = true;
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->data[i];
        bool alnum = char_is_alpha(c) || (c >= '0' && c <= '9');
        if (rc == RCASE_UPCASE && char_is_upper(c)) {
            if (pc == S(K_DOWNCASE)) c = char_downcase(c);
            else if (pc == S(K_CAPITALIZE) && !word_start) c = char_downcase(c);
        } else if (rc == RCASE_DOWNCASE && char_is_lower(c)) {
            if (pc == S(K_UPCASE)) c = char_upcase(c);
            else if (pc == S(K_CAPITALIZE) && word_start) c = char_upcase(c);
        }
        put(L, ps, c);
        word_start = !alnum;
    }
}

static void print_symbol(Lisp *L, PState *ps, Obj sym) {
    Symbol *s = symbol_data(L, sym);
    if (!ps->escape) {
        put_symbol_name(L, ps, s->name, false);
        return;
    }
    Obj pkg = s->package;
    if (pkg == L->pkg_keyword) {
        put(L, ps, ':');
    } else if (pkg == NIL) {
        if (ps->gensym || ps->readably) puts_(L, ps, "#:");
    } else {
        int st;
        Obj cur = SYM(S(PACKAGE_VAR))->value;
        Obj found = is_type(cur, T_PACKAGE) ? package_find_symbol(L, cur, STR(s->name)->data, STR(s->name)->len, &st) : NIL;
        if (!is_type(cur, T_PACKAGE) || st == FIND_NONE || found != sym) {
            Obj pname = PKG(pkg)->name;
            if (pname == NIL) {
                puts_(L, ps, "#:");
            } else {
                put_symbol_name(L, ps, pname, true);
                package_find_symbol(L, pkg, STR(s->name)->data, STR(s->name)->len, &st);
                puts_(L, ps, st == FIND_EXTERNAL ? ":" : "::");
            }
        }
    }
    put_symbol_name(L, ps, s->name, true);
}

/* ---- strings and characters ---- */

static void print_string(Lisp *L, PState *ps, Obj str) {
    String *s = STR(str);
    if (!ps->escape) {
        put_string(L, ps, str);
        return;
    }
    put(L, ps, '"');
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->data[i];
        if (c == '"' || c == '\\') put(L, ps, '\\');
        put(L, ps, c);
        if ((i & 1023) == 1023 && truncated(ps)) return;
    }
    put(L, ps, '"');
}

static void print_char(Lisp *L, PState *ps, uint32_t c) {
    if (!ps->escape) {
        put(L, ps, c);
        return;
    }
    puts_(L, ps, "#\\");
    const char *name = char_name_of(c);
    if (name && c != ' ') puts_(L, ps, name);
    else if (c == ' ') put(L, ps, ' ');
    else if (!char_is_graphic(c)) {
        char buf[16];
        snprintf(buf, sizeof buf, "U+%04X", c);
        puts_(L, ps, buf);
    } else put(L, ps, c);
}

/* ---- numbers ---- */

static void print_number(Lisp *L, PState *ps, Obj n) {
    StrBuf b;
    sb_init(L, &b, 32);
    number_print(L, n, &b, ps->base, ps->radix);
    stream_write_u32(L, ps->stream, b.data, b.len);
}

/* ---- circularity: labels for objects seen more than once ---- */

static bool circ_candidate(Obj o) {
    if (is_cons(o)) return true;
    if (!is_heap(o)) return false;
    HeapType t = heap_type(o);
    return t == T_VECTOR || t == T_ARRAY || t == T_INSTANCE || (t == T_STRING && false);
}

static void circ_scan(Lisp *L, PState *ps, Obj o) {
    while (circ_candidate(o)) {
        stack_check(L);
        Obj seen = hash_get(L, ps->circ_table, o, NO_VALUE);
        if (seen != NO_VALUE) {
            hash_put(L, ps->circ_table, o, S(T)); /* shared: gets a label */
            return;
        }
        hash_put(L, ps->circ_table, o, NIL);
        if (is_cons(o)) {
            circ_scan(L, ps, CAR(o));
            o = CDR(o);
        } else if (is_type(o, T_VECTOR)) {
            for (size_t i = 0; i < VEC(o)->len; i++) circ_scan(L, ps, VEC(o)->data[i]);
            return;
        } else if (is_type(o, T_ARRAY) && ARR(o)->storage != NIL && is_type(ARR(o)->storage, T_VECTOR)) {
            Obj st = ARR(o)->storage;
            for (size_t i = 0; i < VEC(st)->len; i++) circ_scan(L, ps, VEC(st)->data[i]);
            return;
        } else if (is_type(o, T_INSTANCE) && (INST(o)->h.flags & INST_STRUCTURE)) {
            /* only structures show their slots (#S); other instances print as #<...> */
            for (size_t i = 0; i < INST(o)->nslots; i++) circ_scan(L, ps, INST(o)->slots[i]);
            return;
        } else return;
    }
}

/* Returns true if the object was printed as #n# (already labelled). */
static bool circ_label(Lisp *L, PState *ps, Obj o) {
    if (ps->circ_table == NIL || !circ_candidate(o)) return false;
    Obj st = hash_get(L, ps->circ_table, o, NO_VALUE);
    if (st == NO_VALUE || st == NIL) return false;
    char buf[32];
    if (is_fixnum(st)) {
        snprintf(buf, sizeof buf, "#%ld#", (long)fixnum_val(st));
        puts_(L, ps, buf);
        return true;
    }
    long n = ++ps->next_label;
    hash_put(L, ps->circ_table, o, FIX(n));
    snprintf(buf, sizeof buf, "#%ld=", n);
    puts_(L, ps, buf);
    return false;
}

/* ---- lists ---- */

static bool quote_form(Lisp *L, PState *ps, Obj o, long depth) {
    Obj h = CAR(o);
    if (!is_cons(CDR(o)) || CDR(CDR(o)) != NIL) return false;
    const char *prefix = NULL;
    if (h == S(QUOTE)) prefix = "'";
    else if (h == S(FUNCTION)) prefix = "#'";
    else if (h == S(QUASIQUOTE)) prefix = "`";
    else if (h == S(UNQUOTE)) prefix = ",";
    else if (h == S(UNQUOTE_SPLICING)) prefix = ",@";
    else if (h == S(UNQUOTE_NSPLICING)) prefix = ",.";
    if (!prefix) return false;
    puts_(L, ps, prefix);
    print_rec(L, ps, CAR(CDR(o)), depth);
    return true;
}

static void print_list(Lisp *L, PState *ps, Obj o, long depth) {
    if (ps->level >= 0 && depth >= ps->level) {
        put(L, ps, '#');
        return;
    }
    if (quote_form(L, ps, o, depth)) return;
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
        if (!is_cons(d) || (ps->circ_table != NIL && hash_get(L, ps->circ_table, d, NIL) != NIL)) {
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

/* ---- arrays ---- */

static Obj array_elt(Lisp *L, Obj storage, size_t i) {
    (void)L;
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
    }
    put(L, ps, ')');
}

static void print_bits(Lisp *L, PState *ps, const uint8_t *bits, size_t n) {
    puts_(L, ps, "#*");
    for (size_t i = 0; i < n; i++) put(L, ps, bits[i] ? '1' : '0');
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

static void print_array(Lisp *L, PState *ps, Obj o, long depth) {
    Array *a = ARR(o);
    int rank = a->h.aux;
    if (!ps->array && !ps->readably) {
        puts_(L, ps, "#<ARRAY");
        put_address(L, ps, o);
        put(L, ps, '>');
        return;
    }
    if (rank == 1) {
        size_t n = (a->h.flags & ARR_FILL_POINTER) ? a->fill : a->total;
        EltType et = (EltType)a->h.aux32;
        if (et == ELT_CHARACTER) {
            StrBuf b;
            sb_init(L, &b, n);
            for (size_t i = 0; i < n; i++) sb_putc(L, &b, char_code(array_elt(L, a->storage, a->offset + i)));
            print_string(L, ps, sb_to_string(L, &b));
            return;
        }
        if (et == ELT_BIT) {
            puts_(L, ps, "#*");
            for (size_t i = 0; i < n; i++) put(L, ps, fixnum_val(array_elt(L, a->storage, a->offset + i)) ? '1' : '0');
            return;
        }
        if (ps->level >= 0 && depth >= ps->level) { put(L, ps, '#'); return; }
        put(L, ps, '#');
        print_vector_elems(L, ps, a->storage, a->offset, n, depth);
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "#%dA", rank);
    puts_(L, ps, buf);
    if (rank == 0) {
        put(L, ps, ' ');
        print_rec(L, ps, array_elt(L, a->storage, a->offset), depth + 1);
        return;
    }
    print_array_dims(L, ps, a->storage, a->offset, a->dims, rank, 0, depth);
}

/* ---- unreadable objects ---- */

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
        if (is_type(o, T_CLOSURE)) put_address(L, ps, o);
    }
    ps->escape = saved;
    put(L, ps, '>');
}

static const char *stream_type_name(Obj o) {
    switch ((StreamKind)STREAM(o)->h.aux) {
    case SK_STRING_IN: return "SB-IMPL::STRING-INPUT-STREAM";
    case SK_STRING_OUT: return "SB-IMPL::STRING-OUTPUT-STREAM";
    case SK_FD: return "SB-SYS:FD-STREAM";
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
    case T_STREAM:
        puts_(L, ps, "#<");
        puts_(L, ps, stream_type_name(o));
        if (STREAM(o)->pathname != NIL) { puts_(L, ps, " for "); print_rec(L, ps, STREAM(o)->pathname, depth); }
        put_address(L, ps, o);
        put(L, ps, '>');
        break;
    case T_READTABLE: puts_(L, ps, "#<READTABLE"); put_address(L, ps, o); put(L, ps, '>'); break;
    case T_RANDOM_STATE: puts_(L, ps, "#<RANDOM-STATE"); put_address(L, ps, o); put(L, ps, '>'); break;
    case T_ENVIRONMENT: puts_(L, ps, "#<LEXENV"); put_address(L, ps, o); put(L, ps, '>'); break;
    case T_WEAK_POINTER: puts_(L, ps, "#<WEAK-POINTER"); put_address(L, ps, o); put(L, ps, '>'); break;
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

static void print_instance(Lisp *L, PState *ps, Obj o, long depth) {
    (void)depth;
    Obj hook = SYM(S(P_PRINT_INSTANCE))->function;
    if (is_function(hook)) {
        bind_special(L, S(PRINT_ESCAPE), boolean(L, ps->escape));
        size_t sp = L->special_sp - 1;
        funcall2(L, hook, o, ps->stream);
        unbind_specials(L, sp);
        return;
    }
    if (ps->readably) not_readable(L, o);
    puts_(L, ps, "#<INSTANCE");
    put_address(L, ps, o);
    put(L, ps, '>');
}

static void print_rec(Lisp *L, PState *ps, Obj o, long depth) {
    stack_check(L);
    if (truncated(ps)) return;
    if (is_fixnum(o)) { print_number(L, ps, o); return; }
    if (is_cons(o)) {
        if (circ_label(L, ps, o)) return;
        print_list(L, ps, o, depth);
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
    case T_SYMBOL: print_symbol(L, ps, o); return;
    case T_BIGNUM: case T_RATIO: case T_DOUBLE: case T_COMPLEX: print_number(L, ps, o); return;
    case T_STRING: print_string(L, ps, o); return;
    case T_VECTOR:
        if (circ_label(L, ps, o)) return;
        if (!ps->array && !ps->readably) { puts_(L, ps, "#<SIMPLE-VECTOR"); put_address(L, ps, o); put(L, ps, '>'); return; }
        if (ps->level >= 0 && depth >= ps->level) { put(L, ps, '#'); return; }
        put(L, ps, '#');
        print_vector_elems(L, ps, o, 0, VEC(o)->len, depth);
        return;
    case T_BITVECTOR: print_bits(L, ps, BITV(o)->data, BITV(o)->len); return;
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
        Obj hook = intern_cstr(L, L->pkg_cl, "NAMESTRING");
        if (is_function(SYM(hook)->function)) {
            Obj ns = funcall1(L, hook, o);
            if (ps->escape) puts_(L, ps, "#P");
            print_string(L, ps, ns);
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
    Obj b = SYM(S(PRINT_BASE))->value;
    ps->base = is_fixnum(b) && fixnum_val(b) >= 2 && fixnum_val(b) <= 36 ? (int)fixnum_val(b) : 10;
    ps->radix = SYM(S(PRINT_RADIX))->value != NIL;
    ps->pcase = SYM(S(PRINT_CASE))->value;
    ps->length = ps->readably ? -1 : limit_var(L, S(PRINT_LENGTH));
    ps->level = ps->readably ? -1 : limit_var(L, S(PRINT_LEVEL));
    ps->circ_table = NIL;
    ps->next_label = 0;
}

void print_obj(Lisp *L, Obj o, Obj stream, bool escape) {
    PState ps;
    pstate_init(L, &ps, stream, escape);
    if (ps.circle && (is_cons(o) || is_heap(o))) {
        ps.circ_table = hash_new(L, HT_EQ, 64);
        circ_scan(L, &ps, o);
    }
    print_rec(L, &ps, o, 0);
}

void print_write(Lisp *L, Obj o, Obj stream) {
    print_obj(L, o, stream, SYM(S(PRINT_ESCAPE))->value != NIL);
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

/* ---- primitives ---- */

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
    stream_terpri(L, s);
    print_obj(L, args[0], s, true);
    return values0(L);
}

/* (write object &key stream escape readably base radix case length level circle pretty gensym array lines right-margin miser-width pprint-dispatch) */
static const int write_key_count = 16;
static size_t bind_write_keys(Lisp *L, int nargs, Obj *args, int start, Obj *stream_out_arg) {
    Obj keys[16] = {S(K_STREAM), S(K_ESCAPE), S(K_READABLY), S(K_BASE), S(K_RADIX), S(K_CASE), S(K_LENGTH),
                    S(K_LEVEL), S(K_CIRCLE), S(K_PRETTY), S(K_GENSYM), S(K_ARRAY), S(K_LINES),
                    S(K_RIGHT_MARGIN), S(K_MISER_WIDTH), S(K_PPRINT_DISPATCH)};
    Obj vars[16] = {NIL, S(PRINT_ESCAPE), S(PRINT_READABLY), S(PRINT_BASE), S(PRINT_RADIX), S(PRINT_CASE),
                    S(PRINT_LENGTH), S(PRINT_LEVEL), S(PRINT_CIRCLE), S(PRINT_PRETTY), S(PRINT_GENSYM),
                    S(PRINT_ARRAY), S(PRINT_LINES), S(PRINT_RIGHT_MARGIN), S(PRINT_MISER_WIDTH), S(PRINT_PPRINT_DISPATCH)};
    Obj out[16];
    parse_keys(L, nargs, args, start, write_key_count, keys, out);
    size_t sp = L->special_sp;
    for (int i = 1; i < write_key_count; i++)
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

static const PrimDef printer_prims[] = {
    {"PRIN1", PK_CL, prim_prin1, 1, 2, 0, "(object &optional stream)", "Print OBJECT readably."},
    {"PRINC", PK_CL, prim_princ, 1, 2, 0, "(object &optional stream)", "Print OBJECT for people."},
    {"PRINT", PK_CL, prim_print, 1, 2, 0, "(object &optional stream)", "Newline, PRIN1, space."},
    {"PPRINT", PK_CL, prim_pprint, 1, 2, FN_MV, "(object &optional stream)", "Newline and PRIN1; no values."},
    {"WRITE", PK_CL, prim_write, 1, REST, 0, "(object &key stream escape readably base radix case length level circle pretty gensym array lines right-margin miser-width pprint-dispatch)", "Print OBJECT with the given print variables."},
    {"WRITE-TO-STRING", PK_CL, prim_write_to_string, 1, REST, 0, "(object &key escape readably base radix case length level circle pretty gensym array lines right-margin miser-width pprint-dispatch)", NULL},
    {"PRIN1-TO-STRING", PK_CL, prim_prin1_to_string, 1, 1, 0, "(object)", NULL},
    {"PRINC-TO-STRING", PK_CL, prim_princ_to_string, 1, 1, 0, "(object)", NULL},
    {0},
};

void printer_init(Lisp *L) { prims_register(L, printer_prims); }
