/* string.c: strings (CLHS chapter 16): comparison, case, trimming, and the string functions.
 * Every function accepts any string (simple, with a fill pointer, adjustable or displaced);
 * errors carry the expected types SBCL reports. */
#include "prim.h"
#include "lstring.h"
#include "character.h"
#include "array.h"
#include "list.h"
#include "package.h"
#include "types.h"

/* SBCL's index type: (MOD 4611686018427387901). */
#define INDEX_LIMIT ((intptr_t)4611686018427387901)

static Obj index_type(Lisp *L) { return cons(L, S(MOD), cons(L, FIX(INDEX_LIMIT), NIL)); }

static size_t arg_index(Lisp *L, Obj o) {
    if (!is_fixnum(o) || fixnum_val(o) < 0 || fixnum_val(o) >= INDEX_LIMIT) err_type(L, o, index_type(L));
    return (size_t)fixnum_val(o);
}

static Obj integer_range(Lisp *L, Obj lo, Obj hi) { return cons(L, S(INTEGER), cons(L, lo, cons(L, hi, NIL))); }

/* The bounds [start, end) given by the keyword values START and END (NO_VALUE when absent) for a
 * sequence of LEN elements; a bad pair signals SBCL's bounding-indices error (a TYPE-ERROR). */
static void get_bounds(Lisp *L, Obj start_o, Obj end_o, size_t len, size_t *s, size_t *e) {
    size_t start = start_o == NO_VALUE ? 0 : arg_index(L, start_o);
    size_t end = len;
    if (end_o == NO_VALUE) end_o = NIL;
    if (end_o != NIL) {
        if (!is_fixnum(end_o) || fixnum_val(end_o) < 0 || fixnum_val(end_o) >= INDEX_LIMIT)
            err_type(L, end_o, cons(L, S(OR), cons(L, S(NULL), cons(L, index_type(L), NIL))));
        end = (size_t)fixnum_val(end_o);
    }
    if (start > end || end > len) {
        Obj expected = cons(L, S(CONS), cons(L, integer_range(L, FIX(0), FIX((intptr_t)len)),
                                              cons(L, integer_range(L, FIX((intptr_t)start), FIX((intptr_t)len)), NIL)));
        err_type(L, cons(L, FIX((intptr_t)start), end_o), expected);
    }
    *s = start;
    *e = end;
}

/* The characters of a string designator. TMP holds a character's code. */
static const uint32_t *desig_data(Lisp *L, Obj o, size_t *len, uint32_t *tmp) {
    if (is_string(o)) {
        *len = STR(o)->len;
        return STR(o)->data;
    }
    if (is_symbol(o)) {
        Obj name = symbol_name(L, o);
        *len = STR(name)->len;
        return STR(name)->data;
    }
    if (is_char(o)) {
        *tmp = char_code(o);
        *len = 1;
        return tmp;
    }
    if (is_any_string(o)) return string_data(L, o, len);
    err_string_designator(L, o);
}

static bool is_simple_string(Obj o) {
    return is_string(o) && !(STR(o)->h.flags & (ARR_FILL_POINTER | ARR_ADJUSTABLE | ARR_DISPLACED));
}

/* ---- predicates, STRING, MAKE-STRING ---- */

DEFPRIM(prim_stringp) { UNUSED_ARGS; return boolean(L, is_any_string(args[0])); }
DEFPRIM(prim_simple_string_p) { UNUSED_ARGS; return boolean(L, is_simple_string(args[0])); }

DEFPRIM(prim_string) {
    UNUSED_ARGS;
    Obj x = args[0];
    if (is_any_string(x)) return x;
    return string_designator(L, x);
}

/* The element types MAKE-STRING accepts: the subtypes of CHARACTER it knows. */
typedef enum { ET_CHARACTER, ET_BASE_CHAR, ET_STANDARD_CHAR, ET_EXTENDED_CHAR, ET_NIL, ET_MEMBER,
               ET_SUBTYPE, /* any other type SUBTYPEP proves a subtype of CHARACTER */
               ET_INVALID } StringEltType;

static StringEltType string_element_type(Lisp *L, Obj et) {
    if (et == S(CHARACTER)) return ET_CHARACTER;
    if (et == S(BASE_CHAR)) return ET_BASE_CHAR;
    if (et == S(STANDARD_CHAR)) return ET_STANDARD_CHAR;
    if (et == S(EXTENDED_CHAR)) return ET_EXTENDED_CHAR;
    if (et == NIL) return ET_NIL;
    if (is_cons(et) && (CAR(et) == S(MEMBER) || CAR(et) == S(EQL))) {
        size_t n = list_length_proper(L, et);
        if (CAR(et) == S(EQL) && n != 2) return ET_INVALID;
        for (Obj l = CDR(et); is_cons(l); l = CDR(l))
            if (!is_char(CAR(l))) return ET_INVALID;
        return ET_MEMBER;
    }
    return ET_INVALID;
}

/* Is character C of the element type (for :INITIAL-ELEMENT)? */
static bool of_element_type(Obj et, StringEltType t, uint32_t c) {
    switch (t) {
    case ET_BASE_CHAR: return c < 128;
    case ET_STANDARD_CHAR: return char_is_standard(c);
    case ET_EXTENDED_CHAR: return c >= 128;
    case ET_MEMBER:
        for (Obj l = CDR(et); is_cons(l); l = CDR(l))
            if (char_code(CAR(l)) == c) return true;
        return false;
    default: return true;
    }
}

/* The element type of a MAKE-STRING whose type is a combination (OR, AND, a DEFTYPE of one):
 * any type that is surely a subtype of CHARACTER, as in SBCL. */
static StringEltType string_subtype(Lisp *L, Obj et) {
    bool certain = false;
    if (type_subtypep(L, et, S(CHARACTER), &certain) && certain) return ET_SUBTYPE;
    return ET_INVALID;
}

/* Does the element type upgrade to BASE-CHAR? */
static bool base_element_type(Obj et, StringEltType t) {
    if (t == ET_BASE_CHAR || t == ET_STANDARD_CHAR || t == ET_NIL) return true;
    if (t != ET_MEMBER) return false;
    for (Obj l = CDR(et); is_cons(l); l = CDR(l))
        if (char_code(CAR(l)) >= 128) return false;
    return true;
}

DEFPRIM(prim_make_string) {
    Obj keys[2] = {S(K_INITIAL_ELEMENT), S(K_ELEMENT_TYPE)};
    size_t n = arg_index(L, args[0]);
    Obj kv[2];
    parse_keys(L, nargs, args, 1, 2, keys, kv);
    Obj et = kv[1] == NO_VALUE ? S(CHARACTER) : kv[1];
    StringEltType t = string_element_type(L, et);
    if (t == ET_INVALID && is_symbol(et) && et != NIL) {
        /* a DEFTYPE name: its expansion says what the string holds */
        Obj x = type_expand(L, et);
        if (x != et) { et = x; t = string_element_type(L, et); }
    }
    if (t == ET_INVALID) t = string_subtype(L, et);
    if (t == ET_INVALID) err_simple(L, "%S is not a valid :ELEMENT-TYPE for MAKE-STRING", kv[1]);
    uint32_t fill = 0;
    if (kv[0] != NO_VALUE) {
        fill = char_code(check_char(L, kv[0]));
        if (t == ET_SUBTYPE ? !type_typep(L, kv[0], et) : !of_element_type(et, t, fill))
            err_type(L, kv[0], et);
    }
    Obj s = string_new(L, n);
    if (fill)
        for (size_t i = 0; i < n; i++) STR(s)->data[i] = fill;
    bool base = base_element_type(et, t);
    if (t == ET_SUBTYPE) {
        bool certain = false;
        base = type_subtypep(L, et, S(BASE_CHAR), &certain) && certain;
    }
    if (base && fill < 128) STR(s)->h.flags |= ARR_BASE;
    return s;
}

/* ---- CHAR, SCHAR and their setf functions: the index is checked against the dimension
 * (the fill pointer is ignored, as the standard says) ---- */

static Obj check_string_arg(Lisp *L, Obj s, bool simple) {
    if (simple ? !is_simple_string(s) : !is_any_string(s)) err_type(L, s, simple ? S(SIMPLE_STRING) : S(STRING));
    return s;
}

static size_t char_index(Lisp *L, Obj s, Obj index) {
    size_t i = arg_index(L, index);
    size_t dim = is_string(s) ? STR(s)->cap : array_total(s);
    if (i >= dim) err_type(L, index, integer_range(L, FIX(0), cons(L, FIX((intptr_t)dim), NIL)));
    return i;
}

static Obj char_ref(Lisp *L, Obj s, Obj index, bool simple) {
    check_string_arg(L, s, simple);
    return make_char(string_ref_any(L, s, char_index(L, s, index)));
}

static Obj char_set(Lisp *L, Obj v, Obj s, Obj index, bool simple) {
    check_string_arg(L, s, simple);
    size_t i = char_index(L, s, index);
    string_set_any(L, s, i, char_code(check_char(L, v)));
    return v;
}

DEFPRIM(prim_char) { UNUSED_ARGS; return char_ref(L, args[0], args[1], false); }
DEFPRIM(prim_schar) { UNUSED_ARGS; return char_ref(L, args[0], args[1], true); }
DEFPRIM(prim_setf_char) { UNUSED_ARGS; return char_set(L, args[0], args[1], args[2], false); }
DEFPRIM(prim_setf_schar) { UNUSED_ARGS; return char_set(L, args[0], args[1], args[2], true); }

/* ---- comparison ----
 * The strings are compared from START1 and START2 up to the first mismatch; the functions that
 * return an index return the mismatch index in string1. Case-insensitive matching uses
 * CHAR-EQUAL, ordering at the mismatch compares the folded codes, as SBCL does. */

typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_GT, CMP_LE, CMP_GE } CmpOp;

static Obj string_compare(Lisp *L, int nargs, Obj *args, CmpOp op, bool ci) {
    Obj keys[4] = {S(K_START1), S(K_END1), S(K_START2), S(K_END2)};
    uint32_t t1, t2;
    size_t n1, n2, s1, e1, s2, e2;
    const uint32_t *a = desig_data(L, args[0], &n1, &t1);
    const uint32_t *b = desig_data(L, args[1], &n2, &t2);
    Obj kv[4];
    parse_keys(L, nargs, args, 2, 4, keys, kv);
    get_bounds(L, kv[0], kv[1], n1, &s1, &e1);
    get_bounds(L, kv[2], kv[3], n2, &s2, &e2);
    size_t l1 = e1 - s1, l2 = e2 - s2, i = 0;
    a += s1;
    b += s2;
    size_t common = l1 < l2 ? l1 : l2;
    while (i < common) {
        /* in chunks, with a safe point between them */
        size_t stop = common - i > 0x10000 ? i + 0x10000 : common;
        if (ci) {
            while (i < stop && char_equal_ci(a[i], b[i])) i++;
        } else {
            while (i < stop && a[i] == b[i]) i++;
        }
        if (i < stop) break;
        safe_point(L);
    }
    Obj index = FIX((intptr_t)(s1 + i));
    bool end1 = i == l1, end2 = i == l2;
    uint32_t x = 0, y = 0;
    if (!end1 && !end2) {
        x = ci ? char_fold(a[i]) : a[i];
        y = ci ? char_fold(b[i]) : b[i];
    }
    switch (op) {
    case CMP_EQ: return boolean(L, end1 && end2);
    case CMP_NE: return end1 && end2 ? NIL : index;
    case CMP_LT: return end1 ? (end2 ? NIL : index) : end2 ? NIL : (x < y ? index : NIL);
    case CMP_GT: return end1 ? NIL : end2 ? index : (x > y ? index : NIL);
    case CMP_LE: return end1 ? index : end2 ? NIL : (x <= y ? index : NIL);
    case CMP_GE: return end2 ? index : end1 ? NIL : (x >= y ? index : NIL);
    }
    return NIL;
}

#define DEFCMP(cname, op, ci) \
    DEFPRIM(cname) { return string_compare(L, nargs, args, op, ci); }
DEFCMP(prim_string_eq, CMP_EQ, false)
DEFCMP(prim_string_slash_eq, CMP_NE, false)
DEFCMP(prim_string_lt, CMP_LT, false)
DEFCMP(prim_string_gt, CMP_GT, false)
DEFCMP(prim_string_lt_eq, CMP_LE, false)
DEFCMP(prim_string_gt_eq, CMP_GE, false)
DEFCMP(prim_string_equal, CMP_EQ, true)
DEFCMP(prim_string_not_equal, CMP_NE, true)
DEFCMP(prim_string_lessp, CMP_LT, true)
DEFCMP(prim_string_greaterp, CMP_GT, true)
DEFCMP(prim_string_not_greaterp, CMP_LE, true)
DEFCMP(prim_string_not_lessp, CMP_GE, true)

/* ---- case ---- */

typedef enum { CASE_UP, CASE_DOWN, CASE_CAPITALIZE } CaseOp;

/* Convert D[start, end) in place. A word, for capitalizing, is a run of alphanumeric characters:
 * its first character is upcased, the others downcased. */
static void convert_case(Lisp *L, uint32_t *d, size_t start, size_t end, CaseOp op) {
    bool in_word = false;
    for (size_t i = start; i < end; i++) {
        if ((i & 0xFFFF) == 0xFFFF) safe_point(L);
        uint32_t c = d[i];
        switch (op) {
        case CASE_UP: d[i] = char_upcase(c); break;
        case CASE_DOWN: d[i] = char_downcase(c); break;
        case CASE_CAPITALIZE:
            if (char_is_alphanumeric(c)) {
                d[i] = in_word ? char_downcase(c) : char_upcase(c);
                in_word = true;
            } else {
                in_word = false;
            }
            break;
        }
    }
}

/* STRING-UPCASE and friends: a fresh simple string. */
static Obj string_case(Lisp *L, int nargs, Obj *args, CaseOp op) {
    uint32_t tmp;
    size_t n, start, end;
    const uint32_t *d = desig_data(L, args[0], &n, &tmp);
    Obj keys[2] = {S(K_START), S(K_END)}, kv[2];
    parse_keys(L, nargs, args, 1, 2, keys, kv);
    get_bounds(L, kv[0], kv[1], n, &start, &end);
    Obj out = string_from_u32(L, d, n);
    convert_case(L, STR(out)->data, start, end, op);
    return out;
}

/* NSTRING-UPCASE and friends: the string itself, modified. */
static Obj nstring_case(Lisp *L, int nargs, Obj *args, CaseOp op) {
    Obj s = args[0];
    if (!is_any_string(s)) err_type(L, s, S(STRING));
    size_t n, start, end;
    Obj keys[2] = {S(K_START), S(K_END)}, kv[2];
    parse_keys(L, nargs, args, 1, 2, keys, kv);
    uint32_t *d = string_storage(s, &n);
    if (d) {
        get_bounds(L, kv[0], kv[1], n, &start, &end);
        convert_case(L, d, start, end, op);
        return s;
    }
    const uint32_t *cur = string_data(L, s, &n);
    get_bounds(L, kv[0], kv[1], n, &start, &end);
    Obj copy = string_from_u32(L, cur, n);
    convert_case(L, STR(copy)->data, start, end, op);
    for (size_t i = start; i < end; i++)
        if (STR(copy)->data[i] != cur[i]) string_set_any(L, s, i, STR(copy)->data[i]);
    return s;
}

DEFPRIM(prim_string_upcase) { return string_case(L, nargs, args, CASE_UP); }
DEFPRIM(prim_string_downcase) { return string_case(L, nargs, args, CASE_DOWN); }
DEFPRIM(prim_string_capitalize) { return string_case(L, nargs, args, CASE_CAPITALIZE); }
DEFPRIM(prim_nstring_upcase) { return nstring_case(L, nargs, args, CASE_UP); }
DEFPRIM(prim_nstring_downcase) { return nstring_case(L, nargs, args, CASE_DOWN); }
DEFPRIM(prim_nstring_capitalize) { return nstring_case(L, nargs, args, CASE_CAPITALIZE); }

/* ---- trimming ---- */

typedef struct { const Obj *elts; size_t n; Obj tail; } Bag;

/* The elements of a character bag (a list or a vector). A dotted list keeps its tail, which
 * is an error only when a search reaches it; a circular list is refused at once. */
static Bag make_bag(Lisp *L, Obj bag) {
    Bag b = {NULL, 0, NIL};
    if (is_list(bag)) {
        size_t n = 0;
        Obj x = bag, slow = bag;
        for (; is_cons(x); x = CDR(x)) {
            n++;
            if ((n & 1) == 0) {
                slow = CDR(slow);
                if (slow == CDR(x)) err_type(L, bag, S(LIST));
            }
        }
        gc_check_request(L, n * sizeof(Obj));
        Obj *v = (Obj *)gc_alloc(L, (n ? n : 1) * sizeof(Obj));
        x = bag;
        for (size_t i = 0; i < n; i++, x = CDR(x)) v[i] = CAR(x);
        b.elts = v;
        b.n = n;
        b.tail = x;
    } else if (is_vector(bag)) {
        size_t n = vector_length(bag);
        gc_check_request(L, n * sizeof(Obj));
        Obj *v = (Obj *)gc_alloc(L, (n ? n : 1) * sizeof(Obj));
        for (size_t i = 0; i < n; i++) v[i] = array_rm_ref(L, bag, i);
        b.elts = v;
        b.n = n;
    } else {
        err_type(L, bag, S(SEQUENCE));
    }
    return b;
}

/* Is C in the bag? Elements are compared in order with CHAR=, so a non-character element
 * reached signals a TYPE-ERROR. */
static bool in_bag(Lisp *L, const Bag *b, uint32_t c) {
    for (size_t i = 0; i < b->n; i++) {
        if ((i & 0xFFF) == 0xFFF) safe_point(L);
        Obj e = b->elts[i];
        if (!is_char(e)) err_type(L, e, S(CHARACTER));
        if (char_code(e) == c) return true;
    }
    if (b->tail != NIL) err_type(L, b->tail, S(LIST));
    return false;
}

/* The string itself when nothing is trimmed (a symbol's name for a symbol), else a fresh one. */
static Obj string_trim(Lisp *L, Obj bag_o, Obj s, bool left, bool right) {
    Bag bag = make_bag(L, bag_o);
    uint32_t tmp;
    size_t n;
    const uint32_t *d = desig_data(L, s, &n, &tmp);
    size_t i = 0, j = n;
    if (left)
        while (i < j && in_bag(L, &bag, d[i])) {
            if ((++i & 0xFFF) == 0) safe_point(L);
        }
    if (right)
        while (j > i && in_bag(L, &bag, d[j - 1])) {
            if ((--j & 0xFFF) == 0) safe_point(L);
        }
    if (i == 0 && j == n && !is_char(s)) return is_any_string(s) ? s : symbol_name(L, s);
    return string_from_u32(L, d + i, j - i);
}

DEFPRIM(prim_string_trim) { UNUSED_ARGS; return string_trim(L, args[0], args[1], true, true); }
DEFPRIM(prim_string_left_trim) { UNUSED_ARGS; return string_trim(L, args[0], args[1], true, false); }
DEFPRIM(prim_string_right_trim) { UNUSED_ARGS; return string_trim(L, args[0], args[1], false, true); }

#define CMP_LL "(string1 string2 &key (start1 0) end1 (start2 0) end2)"
#define CASE_LL "(string &key (start 0) end)"

const PrimDef string_prims[] = {
    {"STRINGP", PK_CL, prim_stringp, 1, 1, 0, "(object)", "True when OBJECT is a string."},
    {"SIMPLE-STRING-P", PK_CL, prim_simple_string_p, 1, 1, 0, "(object)", "True when OBJECT is a simple string (no fill pointer, not adjustable, not displaced)."},
    {"STRING", PK_CL, prim_string, 1, 1, 0, "(x)", "The string a string designator denotes."},
    {"MAKE-STRING", PK_CL, prim_make_string, 1, REST, 0, "(size &key initial-element (element-type 'character))", "A new simple string of SIZE characters, each INITIAL-ELEMENT when given."},
    {"CHAR", PK_CL, prim_char, 2, 2, 0, "(string index)", "The character at INDEX of STRING (ignoring any fill pointer); SETF-able."},
    {"SCHAR", PK_CL, prim_schar, 2, 2, 0, "(string index)", "The character at INDEX of the simple string STRING; SETF-able."},
    {"(SETF CHAR)", PK_CL, prim_setf_char, 3, 3, 0, "(new string index)", NULL},
    {"(SETF SCHAR)", PK_CL, prim_setf_schar, 3, 3, 0, "(new string index)", NULL},
    {"STRING=", PK_CL, prim_string_eq, 2, REST, 0, CMP_LL, "True when the parts of STRING1 and STRING2 between START1/END1 and START2/END2 hold the same characters (case matters). The strings may be any string designators."},
    {"STRING/=", PK_CL, prim_string_slash_eq, 2, REST, 0, CMP_LL, "When the two strings (or their parts between the START and END arguments) differ, the index in STRING1 of the first difference, otherwise NIL; case matters."},
    {"STRING<", PK_CL, prim_string_lt, 2, REST, 0, CMP_LL, "When STRING1 sorts before STRING2 (case matters), the index in STRING1 of the first difference, otherwise NIL. START1, END1, START2 and END2 choose the parts compared."},
    {"STRING>", PK_CL, prim_string_gt, 2, REST, 0, CMP_LL, "When STRING1 sorts after STRING2 (case matters), the index in STRING1 of the first difference, otherwise NIL. START1, END1, START2 and END2 choose the parts compared."},
    {"STRING<=", PK_CL, prim_string_lt_eq, 2, REST, 0, CMP_LL, "When STRING1 sorts before or equal to STRING2 (case matters), the index in STRING1 where they first differ or end, otherwise NIL."},
    {"STRING>=", PK_CL, prim_string_gt_eq, 2, REST, 0, CMP_LL, "When STRING1 sorts after or equal to STRING2 (case matters), the index in STRING1 where they first differ or end, otherwise NIL."},
    {"STRING-EQUAL", PK_CL, prim_string_equal, 2, REST, 0, CMP_LL, "Like STRING= but ignoring case."},
    {"STRING-NOT-EQUAL", PK_CL, prim_string_not_equal, 2, REST, 0, CMP_LL, "Like STRING/= but ignoring case."},
    {"STRING-LESSP", PK_CL, prim_string_lessp, 2, REST, 0, CMP_LL, "Like STRING< but ignoring case."},
    {"STRING-GREATERP", PK_CL, prim_string_greaterp, 2, REST, 0, CMP_LL, "Like STRING> but ignoring case."},
    {"STRING-NOT-GREATERP", PK_CL, prim_string_not_greaterp, 2, REST, 0, CMP_LL, "Like STRING<= but ignoring case."},
    {"STRING-NOT-LESSP", PK_CL, prim_string_not_lessp, 2, REST, 0, CMP_LL, "Like STRING>= but ignoring case."},
    {"STRING-UPCASE", PK_CL, prim_string_upcase, 1, REST, 0, CASE_LL, "A fresh string like STRING with the characters between START and END in upper case."},
    {"STRING-DOWNCASE", PK_CL, prim_string_downcase, 1, REST, 0, CASE_LL, "A fresh string like STRING with the characters between START and END in lower case."},
    {"STRING-CAPITALIZE", PK_CL, prim_string_capitalize, 1, REST, 0, CASE_LL, "A fresh string like STRING where, between START and END, each word starts in upper case and continues in lower case (a word is a run of letters and digits)."},
    {"NSTRING-UPCASE", PK_CL, prim_nstring_upcase, 1, REST, 0, CASE_LL, "Puts the characters of STRING between START and END in upper case, modifying it; returns STRING."},
    {"NSTRING-DOWNCASE", PK_CL, prim_nstring_downcase, 1, REST, 0, CASE_LL, "Puts the characters of STRING between START and END in lower case, modifying it; returns STRING."},
    {"NSTRING-CAPITALIZE", PK_CL, prim_nstring_capitalize, 1, REST, 0, CASE_LL, "Capitalizes each word of STRING between START and END in place, as STRING-CAPITALIZE does; returns STRING."},
    {"STRING-TRIM", PK_CL, prim_string_trim, 2, 2, 0, "(character-bag string)", "A string like STRING with the characters in CHARACTER-BAG (a sequence) removed from both ends."},
    {"STRING-LEFT-TRIM", PK_CL, prim_string_left_trim, 2, 2, 0, "(character-bag string)", "A string like STRING with the characters in CHARACTER-BAG (a sequence) removed from its start."},
    {"STRING-RIGHT-TRIM", PK_CL, prim_string_right_trim, 2, 2, 0, "(character-bag string)", "A string like STRING with the characters in CHARACTER-BAG (a sequence) removed from its end."},
    {0},
};

void string_init(Lisp *L) { prims_register(L, string_prims); }
