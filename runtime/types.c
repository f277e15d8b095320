/* types.c: types (CLHS chapter 4): TYPE-OF, TYPEP, SUBTYPEP and COERCE on built-in and compound type specifiers. */
#include "types.h"
#include "abi.h"
#include "gray.h"
#include "prim.h"
#include "package.h"
#include "array.h"
#include "number.h"
#include "stream.h"
#include "hash.h"
#include "list.h"
#include "eval.h"
#include "lstring.h"
#include "docs.h"
#include "logical.h"
#include "clos.h"
#include <math.h>

/* ------------------------------------------------------------------ */
/* the built-in type names                                             */

typedef enum {
    BT_NONE = 0,
    BT_T, BT_NIL, BT_ATOM, BT_SYMBOL, BT_KEYWORD, BT_BOOLEAN, BT_LIST, BT_CONS, BT_NULL,
    BT_NUMBER, BT_INTEGER, BT_FIXNUM, BT_BIGNUM, BT_RATIO, BT_RATIONAL, BT_FLOAT, BT_SINGLE_FLOAT,
    BT_DOUBLE_FLOAT, BT_SHORT_FLOAT, BT_LONG_FLOAT, BT_REAL, BT_COMPLEX, BT_BIT, BT_UNSIGNED_BYTE,
    BT_SIGNED_BYTE, BT_MOD,
    BT_CHARACTER, BT_BASE_CHAR, BT_STANDARD_CHAR, BT_EXTENDED_CHAR,
    BT_STRING, BT_SIMPLE_STRING, BT_BASE_STRING, BT_SIMPLE_BASE_STRING, BT_VECTOR, BT_SIMPLE_VECTOR,
    BT_BIT_VECTOR, BT_SIMPLE_BIT_VECTOR, BT_ARRAY, BT_SIMPLE_ARRAY, BT_SEQUENCE,
    BT_FUNCTION, BT_COMPILED_FUNCTION, BT_HASH_TABLE, BT_PACKAGE, BT_READTABLE, BT_RANDOM_STATE,
    BT_PATHNAME, BT_LOGICAL_PATHNAME,
    BT_STREAM, BT_FILE_STREAM, BT_STRING_STREAM, BT_SYNONYM_STREAM, BT_BROADCAST_STREAM,
    BT_CONCATENATED_STREAM, BT_ECHO_STREAM, BT_TWO_WAY_STREAM,
    BT_AND, BT_OR, BT_NOT, BT_MEMBER, BT_EQL, BT_SATISFIES, BT_VALUES,
    BT_CLASS,            /* a standard class name: only instances are of this type */
} BType;

static const struct { int sy; BType bt; } builtin_rows[] = {
#define R(s, b) {SY_##s, BT_##b}
    R(T, T), R(ATOM, ATOM), R(SYMBOL, SYMBOL), R(KEYWORD, KEYWORD), R(BOOLEAN, BOOLEAN),
    R(LIST, LIST), R(CONS, CONS), R(NULL, NULL), R(NUMBER, NUMBER), R(INTEGER, INTEGER), R(FIXNUM, FIXNUM),
    R(BIGNUM, BIGNUM), R(RATIO, RATIO), R(RATIONAL, RATIONAL), R(FLOAT, FLOAT), R(SINGLE_FLOAT, SINGLE_FLOAT),
    R(DOUBLE_FLOAT, DOUBLE_FLOAT), R(SHORT_FLOAT, SHORT_FLOAT), R(LONG_FLOAT, LONG_FLOAT), R(REAL, REAL),
    R(COMPLEX, COMPLEX), R(BIT, BIT), R(UNSIGNED_BYTE, UNSIGNED_BYTE), R(SIGNED_BYTE, SIGNED_BYTE), R(MOD, MOD),
    R(CHARACTER, CHARACTER), R(BASE_CHAR, BASE_CHAR), R(STANDARD_CHAR, STANDARD_CHAR),
    R(EXTENDED_CHAR, EXTENDED_CHAR), R(STRING, STRING), R(SIMPLE_STRING, SIMPLE_STRING),
    R(BASE_STRING, BASE_STRING), R(SIMPLE_BASE_STRING, SIMPLE_BASE_STRING), R(VECTOR, VECTOR),
    R(SIMPLE_VECTOR, SIMPLE_VECTOR), R(BIT_VECTOR, BIT_VECTOR), R(SIMPLE_BIT_VECTOR, SIMPLE_BIT_VECTOR),
    R(ARRAY, ARRAY), R(SIMPLE_ARRAY, SIMPLE_ARRAY), R(SEQUENCE, SEQUENCE), R(FUNCTION, FUNCTION),
    R(COMPILED_FUNCTION, COMPILED_FUNCTION), R(HASH_TABLE, HASH_TABLE), R(PACKAGE, PACKAGE),
    R(READTABLE, READTABLE), R(RANDOM_STATE, RANDOM_STATE), R(PATHNAME, PATHNAME),
    R(LOGICAL_PATHNAME, LOGICAL_PATHNAME), R(STREAM, STREAM), R(FILE_STREAM, FILE_STREAM),
    R(STRING_STREAM, STRING_STREAM), R(SYNONYM_STREAM, SYNONYM_STREAM), R(BROADCAST_STREAM, BROADCAST_STREAM),
    R(CONCATENATED_STREAM, CONCATENATED_STREAM), R(ECHO_STREAM, ECHO_STREAM), R(TWO_WAY_STREAM, TWO_WAY_STREAM),
    R(AND, AND), R(OR, OR), R(NOT, NOT), R(MEMBER, MEMBER), R(EQL, EQL), R(SATISFIES, SATISFIES),
    R(VALUES, VALUES),
    /* standard class names */
    R(STANDARD_OBJECT, CLASS), R(STRUCTURE_OBJECT, CLASS), R(GENERIC_FUNCTION, CLASS),
    R(STANDARD_GENERIC_FUNCTION, CLASS), R(CLASS, CLASS), R(STRUCTURE_CLASS, CLASS), R(STANDARD_CLASS, CLASS),
    R(BUILT_IN_CLASS, CLASS), R(METHOD, CLASS), R(STANDARD_METHOD, CLASS), R(RESTART, CLASS),
    R(TY_METHOD_COMBINATION, CLASS),
    R(CONDITION, CLASS), R(SERIOUS_CONDITION, CLASS), R(SIMPLE_CONDITION, CLASS), R(WARNING, CLASS),
    R(STYLE_WARNING, CLASS), R(SIMPLE_WARNING, CLASS), R(ERROR, CLASS), R(TYPE_ERROR, CLASS),
    R(SIMPLE_TYPE_ERROR, CLASS), R(SIMPLE_ERROR, CLASS), R(PROGRAM_ERROR, CLASS), R(CONTROL_ERROR, CLASS),
    R(CELL_ERROR, CLASS), R(UNBOUND_VARIABLE, CLASS), R(UNDEFINED_FUNCTION, CLASS), R(UNBOUND_SLOT, CLASS),
    R(PACKAGE_ERROR, CLASS), R(READER_ERROR, CLASS), R(PARSE_ERROR, CLASS), R(STREAM_ERROR, CLASS),
    R(END_OF_FILE, CLASS), R(FILE_ERROR, CLASS), R(ARITHMETIC_ERROR, CLASS), R(DIVISION_BY_ZERO, CLASS),
    R(FLOATING_POINT_OVERFLOW, CLASS), R(FLOATING_POINT_UNDERFLOW, CLASS), R(FLOATING_POINT_INEXACT, CLASS),
    R(FLOATING_POINT_INVALID_OPERATION, CLASS), R(STORAGE_CONDITION, CLASS), R(PRINT_NOT_READABLE, CLASS),
#undef R
};

/* documentation of the type names above, and of NIL (docs.h) */
const DocRow types_type_docs[] = {
    {"T", "The type of every object; also the class at the top of the class hierarchy."},
    {"NIL", "The empty type: no object is of type NIL."},
    {"ATOM", "Every object that is not a cons, the same as (NOT CONS)."},
    {"SYMBOL", "Symbols: named objects with a value, a function, a property list and a home package."},
    {"KEYWORD", "Symbols of the KEYWORD package, which evaluate to themselves."},
    {"BOOLEAN", "The two objects T and NIL, the same as (MEMBER T NIL)."},
    {"LIST", "Conses and NIL: the type of proper and improper lists alike."},
    {"CONS", "Two-part objects made by CONS, with a CAR and a CDR."},
    {"NULL", "The type whose only member is NIL."},
    {"NUMBER", "All numbers: integers, ratios, floats and complex numbers."},
    {"INTEGER", "Whole numbers of any size; (INTEGER low high) restricts them to a range, either bound being * for none."},
    {"FIXNUM", "The integers small enough to be stored without allocation, from MOST-NEGATIVE-FIXNUM to MOST-POSITIVE-FIXNUM."},
    {"BIGNUM", "Integers outside the fixnum range, stored with arbitrary precision."},
    {"RATIO", "Non-integer rationals: fractions like 1/3 in lowest terms."},
    {"RATIONAL", "Integers and ratios; (RATIONAL low high) restricts them to a range."},
    {"FLOAT", "Floating-point numbers of every format; (FLOAT low high) restricts them to a range."},
    {"SINGLE-FLOAT", "32-bit IEEE floating-point numbers, read as 1.5 or 1.5f0."},
    {"DOUBLE-FLOAT", "64-bit IEEE floating-point numbers, read as 1.5d0."},
    {"SHORT-FLOAT", "Short floats; in tinycl the same type as SINGLE-FLOAT."},
    {"LONG-FLOAT", "Long floats; in tinycl the same type as DOUBLE-FLOAT."},
    {"REAL", "Rationals and floats: the numbers that can be ordered; (REAL low high) restricts them to a range."},
    {"COMPLEX", "Complex numbers, with a real and an imaginary part; (COMPLEX type) restricts the type of the parts."},
    {"BIT", "The integers 0 and 1, the same as (INTEGER 0 1)."},
    {"UNSIGNED-BYTE", "Non-negative integers; (UNSIGNED-BYTE n) is the integers from 0 below 2 to the power n."},
    {"SIGNED-BYTE", "Integers; (SIGNED-BYTE n) is the integers that fit in n bits of two's complement."},
    {"MOD", "(MOD n) is the type of the integers from 0 below n."},
    {"CHARACTER", "Characters: every Unicode code point in tinycl."},
    {"BASE-CHAR", "The characters a base string can hold: in tinycl, as in SBCL, the 128 ASCII characters."},
    {"STANDARD-CHAR", "The 96 standard characters: letters, digits, space, newline and the standard punctuation."},
    {"EXTENDED-CHAR", "Characters that are not base characters: in tinycl every character with a code of 128 or more."},
    {"STRING", "Vectors of characters; (STRING n) is those of length n."},
    {"SIMPLE-STRING", "Strings with no fill pointer, not adjustable and not displaced."},
    {"BASE-STRING", "Strings that hold only base characters, made with element type BASE-CHAR."},
    {"SIMPLE-BASE-STRING", "Simple strings that hold only base characters, made with element type BASE-CHAR."},
    {"VECTOR", "One-dimensional arrays; (VECTOR element-type size) restricts their element type and length."},
    {"SIMPLE-VECTOR", "One-dimensional arrays of element type T with no fill pointer, not adjustable and not displaced."},
    {"BIT-VECTOR", "Vectors whose elements are bits."},
    {"SIMPLE-BIT-VECTOR", "Bit vectors with no fill pointer, not adjustable and not displaced."},
    {"ARRAY", "Arrays of any rank; (ARRAY element-type dimensions) restricts their element type and shape."},
    {"SIMPLE-ARRAY", "Arrays that are not adjustable, not displaced and have no fill pointer; restricted like ARRAY."},
    {"SEQUENCE", "Lists and vectors: the objects the sequence functions accept."},
    {"FUNCTION", "Functions, objects that can be called with FUNCALL and APPLY; (FUNCTION arg-types value-type) describes a signature in declarations."},
    {"COMPILED-FUNCTION", "Compiled functions; in tinycl every function."},
    {"HASH-TABLE", "Hash tables, made by MAKE-HASH-TABLE."},
    {"PACKAGE", "Packages: namespaces that map names to symbols."},
    {"READTABLE", "Readtables, which tell the reader what each character means."},
    {"RANDOM-STATE", "Random states: the state of the generator behind RANDOM."},
    {"PATHNAME", "Pathnames: structured file names with host, device, directory, name, type and version."},
    {"LOGICAL-PATHNAME", "Pathnames on a logical host, translated to physical ones by LOGICAL-PATHNAME-TRANSLATIONS."},
    {"STREAM", "Streams: sources and sinks of characters or bytes."},
    {"FILE-STREAM", "Streams connected to files, made by OPEN."},
    {"STRING-STREAM", "Streams that read from or write to strings."},
    {"SYNONYM-STREAM", "Streams that forward every operation to the value of a special variable."},
    {"BROADCAST-STREAM", "Output streams that send everything written to each of several streams."},
    {"CONCATENATED-STREAM", "Input streams that read from several streams one after another."},
    {"ECHO-STREAM", "Bidirectional streams that copy what they read to their output stream."},
    {"TWO-WAY-STREAM", "Bidirectional streams that read from one stream and write to another."},
    {"AND", "(AND type...) is the type of the objects of every given type."},
    {"OR", "(OR type...) is the type of the objects of at least one given type."},
    {"NOT", "(NOT type) is the type of the objects not of the given type."},
    {"MEMBER", "(MEMBER object...) is the type of exactly the listed objects, compared with EQL."},
    {"EQL", "(EQL object) is the type whose only member is that object."},
    {"SATISFIES", "(SATISFIES predicate) is the type of the objects for which the global function named PREDICATE returns true."},
    {"VALUES", "(VALUES type...) describes the values of a form, in THE and function type declarations."},
    {"STANDARD-OBJECT", "The class of instances of classes defined with DEFCLASS."},
    {"STRUCTURE-OBJECT", "The class of instances of structures defined with DEFSTRUCT."},
    {"GENERIC-FUNCTION", "Functions whose behaviour is made of methods chosen by the classes of the arguments."},
    {"STANDARD-GENERIC-FUNCTION", "The class of generic functions made by DEFGENERIC and DEFMETHOD."},
    {"CLASS", "Classes: the objects that describe the structure and behaviour of their instances."},
    {"STRUCTURE-CLASS", "The class of the classes made by DEFSTRUCT."},
    {"STANDARD-CLASS", "The class of the classes made by DEFCLASS."},
    {"BUILT-IN-CLASS", "The class of the classes of built-in types such as INTEGER or CONS, which cannot be instantiated with MAKE-INSTANCE."},
    {"METHOD", "Methods: the parts of a generic function, each for particular argument classes."},
    {"STANDARD-METHOD", "The class of methods made by DEFMETHOD."},
    {"RESTART", "Restarts: named ways to continue from a condition, made by RESTART-CASE and friends."},
    {"METHOD-COMBINATION", "Objects describing how a generic function combines its applicable methods."},
    {"CONDITION", "The root of the condition types: objects that SIGNAL, WARN and ERROR pass to handlers."},
    {"SERIOUS-CONDITION", "Conditions that enter the debugger when signalled with ERROR and not handled."},
    {"SIMPLE-CONDITION", "Conditions whose message comes from a format control and format arguments."},
    {"WARNING", "Conditions that WARN signals and prints when not handled."},
    {"STYLE-WARNING", "Warnings about questionable but legal code, such as unused variables."},
    {"SIMPLE-WARNING", "Warnings made by WARN from a format control and arguments."},
    {"ERROR", "Serious conditions that stop the computation unless handled."},
    {"TYPE-ERROR", "Errors signalled when an object (the datum) is not of the expected type."},
    {"SIMPLE-TYPE-ERROR", "Type errors with a message from a format control and arguments."},
    {"SIMPLE-ERROR", "Errors made by ERROR from a format control and arguments."},
    {"PROGRAM-ERROR", "Errors in the program's syntax or calls, such as a wrong number of arguments."},
    {"CONTROL-ERROR", "Errors in transfers of control, such as a THROW with no matching CATCH or a missing restart."},
    {"CELL-ERROR", "Errors about a named cell: a variable, a function or a slot."},
    {"UNBOUND-VARIABLE", "Cell errors signalled when a variable without a value is read."},
    {"UNDEFINED-FUNCTION", "Cell errors signalled when a function with no definition is called."},
    {"UNBOUND-SLOT", "Cell errors signalled when a slot without a value is read."},
    {"PACKAGE-ERROR", "Errors about packages, such as a missing package or a name conflict."},
    {"READER-ERROR", "Parse errors signalled by the reader on bad syntax."},
    {"PARSE-ERROR", "Errors signalled when text cannot be parsed."},
    {"STREAM-ERROR", "Errors about a stream's operations."},
    {"END-OF-FILE", "Stream errors signalled when reading past the end of the input."},
    {"FILE-ERROR", "Errors opening, deleting or otherwise using a file."},
    {"ARITHMETIC-ERROR", "Errors in arithmetic, with the operation and its operands."},
    {"DIVISION-BY-ZERO", "Arithmetic errors signalled when dividing by zero."},
    {"FLOATING-POINT-OVERFLOW", "Arithmetic errors signalled when a float result is too large to represent."},
    {"FLOATING-POINT-UNDERFLOW", "Arithmetic errors signalled when a float result is too small to represent."},
    {"FLOATING-POINT-INEXACT", "Arithmetic errors signalled, when trapped, for float results that had to be rounded."},
    {"FLOATING-POINT-INVALID-OPERATION", "Arithmetic errors signalled for float operations without a meaningful result, such as infinity minus infinity."},
    {"STORAGE-CONDITION", "Serious conditions signalled when memory or stack runs out."},
    {"PRINT-NOT-READABLE", "Errors signalled when *PRINT-READABLY* is true and an object cannot be printed readably."},
    {0},
};

/* The standard class hierarchy known without CLOS: each name with its direct superclasses. */
static const char *const class_parents[][4] = {
    {"STANDARD-OBJECT"}, {"STRUCTURE-OBJECT"}, {"CONDITION"}, {"RESTART"},
    {"CLASS", "STANDARD-OBJECT"}, {"BUILT-IN-CLASS", "CLASS"}, {"STANDARD-CLASS", "CLASS"},
    {"STRUCTURE-CLASS", "CLASS"}, {"METHOD", "STANDARD-OBJECT"}, {"STANDARD-METHOD", "METHOD"},
    {"GENERIC-FUNCTION", "STANDARD-OBJECT"}, {"STANDARD-GENERIC-FUNCTION", "GENERIC-FUNCTION"},
    {"METHOD-COMBINATION", "STANDARD-OBJECT"},
    {"WARNING", "CONDITION"}, {"STYLE-WARNING", "WARNING"}, {"SIMPLE-WARNING", "SIMPLE-CONDITION", "WARNING"},
    {"SERIOUS-CONDITION", "CONDITION"}, {"ERROR", "SERIOUS-CONDITION"}, {"STORAGE-CONDITION", "SERIOUS-CONDITION"},
    {"SIMPLE-CONDITION", "CONDITION"}, {"SIMPLE-ERROR", "SIMPLE-CONDITION", "ERROR"},
    {"TYPE-ERROR", "ERROR"}, {"SIMPLE-TYPE-ERROR", "SIMPLE-CONDITION", "TYPE-ERROR"},
    {"PROGRAM-ERROR", "ERROR"}, {"CONTROL-ERROR", "ERROR"}, {"CELL-ERROR", "ERROR"},
    {"UNBOUND-VARIABLE", "CELL-ERROR"}, {"UNDEFINED-FUNCTION", "CELL-ERROR"}, {"UNBOUND-SLOT", "CELL-ERROR"},
    {"PACKAGE-ERROR", "ERROR"}, {"STREAM-ERROR", "ERROR"}, {"END-OF-FILE", "STREAM-ERROR"},
    {"PARSE-ERROR", "ERROR"}, {"READER-ERROR", "PARSE-ERROR", "STREAM-ERROR"}, {"FILE-ERROR", "ERROR"},
    {"PRINT-NOT-READABLE", "ERROR"}, {"ARITHMETIC-ERROR", "ERROR"}, {"DIVISION-BY-ZERO", "ARITHMETIC-ERROR"},
    {"FLOATING-POINT-OVERFLOW", "ARITHMETIC-ERROR"}, {"FLOATING-POINT-UNDERFLOW", "ARITHMETIC-ERROR"},
    {"FLOATING-POINT-INEXACT", "ARITHMETIC-ERROR"}, {"FLOATING-POINT-INVALID-OPERATION", "ARITHMETIC-ERROR"},
};

/* The built-in type a symbol names: types_init writes it into the symbol's header (aux32), so that
 * TYPEP finds it without a table lookup; every other symbol has 0 there (BT_NONE). */
static BType builtin_id(Lisp *L, Obj sym) {
    (void)L;
    if (sym == NIL) return BT_NIL;
    if (!is_type(sym, T_SYMBOL)) return BT_NONE;
    return (BType)SYM(sym)->h.aux32;
}

static Obj plist_prop(Lisp *L, Obj sym, Obj ind) {
    if (!is_symbol(sym)) return NIL;
    Obj p = symbol_data(L, sym)->plist;
    for (int n = 0; is_cons(p) && is_cons(CDR(p)) && n < 100000; p = CDR(CDR(p)), n++)
        if (CAR(p) == ind) return CAR(CDR(p));
    return NIL;
}

static Obj L2(Lisp *L, Obj a, Obj b) { return cons(L, a, cons(L, b, NIL)); }
static Obj L3(Lisp *L, Obj a, Obj b, Obj c) { return cons(L, a, cons(L, b, cons(L, c, NIL))); }

_Noreturn static void err_unknown_type(Lisp *L, Obj spec) { err_simple(L, "unknown type specifier: %S", spec); }

/* ------------------------------------------------------------------ */
/* DEFTYPE expansion                                                   */

static Obj type_expand_1(Lisp *L, Obj spec, bool *expanded) {
    *expanded = false;
    Obj head = is_cons(spec) ? CAR(spec) : spec;
    if (!is_type(head, T_SYMBOL) || builtin_id(L, head) != BT_NONE) return spec;
    Obj exp = plist_prop(L, head, S(P_TYPE_EXPANDER));
    if (!is_function(exp)) return spec;
    *expanded = true;
    return funcall2(L, exp, is_cons(spec) ? spec : cons(L, spec, NIL), NIL);
}

Obj type_expand(Lisp *L, Obj spec) {
    bool exp = true;
    for (int n = 0; exp; n++) {
        if (n > 1000) err_simple(L, "The type %S expands circularly.", spec);
        if ((n & 63) == 63) safe_point(L);
        spec = type_expand_1(L, spec, &exp);
    }
    return spec;
}

/* The expansion of NAME, a symbol DEFTYPE defined, for TYPEP. TYPEP of such a name is common in
 * hot code (a structure's typed slots are checked on every construction), and calling the
 * expanders each time allocated and cost more than the test itself, so the result is kept in
 * SYS::*TYPE-EXPANSIONS* (an EQ table made on first use): NAME -> #(expansion name1 expander1
 * name2 expander2 ...), one pair per DEFTYPE name the expansion went through. An entry is used
 * only while every one of those names still has the expander it had, so a DEFTYPE redefined, a
 * reset or a restored checkpoint is seen at once. Like SBCL, this assumes an expander's result
 * depends only on its arguments. */
#define TYPE_CHAIN_MAX 8
static Obj type_expand_name(Lisp *L, Obj name) {
    Obj table = SYM(S(P_TYPE_EXPANSIONS))->value;
    if (is_type(table, T_HASHTABLE)) {
        Obj e = hash_get(L, table, name, NO_VALUE);
        if (is_type(e, T_VECTOR)) {
            Obj *d = VEC(e)->data;
            size_t n = VEC(e)->len, i = 1;
            while (i + 1 < n && plist_prop(L, d[i], S(P_TYPE_EXPANDER)) == d[i + 1]) i += 2;
            if (i >= n) return d[0];
        }
    }
    Obj chain[2 * TYPE_CHAIN_MAX];
    int k = 0;
    bool cacheable = true;
    Obj spec = name;
    for (int n = 0;; n++) {
        if (n > 1000) err_simple(L, "The type %S expands circularly.", name);
        if ((n & 63) == 63) safe_point(L);
        Obj head = is_cons(spec) ? CAR(spec) : spec;
        if (!is_type(head, T_SYMBOL) || builtin_id(L, head) != BT_NONE) break;
        Obj exp = plist_prop(L, head, S(P_TYPE_EXPANDER));
        if (!is_function(exp)) break;
        if (k < 2 * TYPE_CHAIN_MAX) { chain[k++] = head; chain[k++] = exp; } else cacheable = false;
        spec = funcall2(L, exp, is_cons(spec) ? spec : cons(L, spec, NIL), NIL);
    }
    if (cacheable) {
        if (!is_type(table, T_HASHTABLE) || HT(table)->count > 4096) {
            table = hash_new(L, HT_EQ, 64);
            SYM(S(P_TYPE_EXPANSIONS))->value = table;
        }
        Obj e = make_vector(L, (size_t)k + 1, NIL);
        VEC(e)->data[0] = spec;
        memcpy(VEC(e)->data + 1, chain, (size_t)k * sizeof(Obj));
        hash_put(L, table, name, e);
    }
    return spec;
}

/* An object that is no character and no octet: an element of no specialised array type. */
static bool upgrade_t_object_p(Obj x) {
    if (is_char(x)) return false;
    if (is_fixnum(x)) return FIXVAL(x) < 0 || FIXVAL(x) > 255;
    return true;
}

/* See types.h. Asked by UPGRADED-ARRAY-ELEMENT-TYPE and TYPEP of an array type before SUBTYPEP:
 * esrap's chunk arrays, (SIMPLE-ARRAY (OR (EQL 0) CHUNK) 1), were checked on every parse with
 * five SUBTYPEP calls of 40,000 instructions each. */
static bool upgrades_to_t_rec(Lisp *L, Obj spec, int depth) {
    if (depth > 20) return false;
    if (is_symbol(spec)) {
        if (spec == S(T) || spec == S(SYMBOL) || spec == S(LIST) || spec == S(CONS) || spec == S(NULL) ||
            spec == S(ARRAY) || spec == S(SIMPLE_ARRAY) || spec == S(VECTOR) || spec == S(SIMPLE_VECTOR) ||
            spec == S(STRING) || spec == S(SIMPLE_STRING) || spec == S(FUNCTION) || spec == S(HASH_TABLE) ||
            spec == S(KEYWORD))
            return true;
        if (builtin_id(L, spec) != BT_NONE) return false;
        if (!is_function(plist_prop(L, spec, S(P_TYPE_EXPANDER)))) return false;
        return upgrades_to_t_rec(L, type_expand_name(L, spec), depth + 1);
    }
    if (!is_cons(spec)) return false;
    Obj head = CAR(spec);
    /* every array type holds arrays (a malformed one is left to SUBTYPEP to report) */
    if (head == S(ARRAY) || head == S(SIMPLE_ARRAY) || head == S(VECTOR) || head == S(SIMPLE_VECTOR))
        return true;
    if (head == S(EQL)) return is_cons(CDR(spec)) && CDR(CDR(spec)) == NIL && upgrade_t_object_p(CAR(CDR(spec)));
    if (head == S(OR) || head == S(MEMBER)) {
        int n = 0;
        for (Obj a = CDR(spec); is_cons(a) && n < 1000; a = CDR(a), n++)
            if (head == S(OR) ? upgrades_to_t_rec(L, CAR(a), depth + 1) : upgrade_t_object_p(CAR(a))) return true;
    }
    return false;
}

bool type_upgrades_to_t_p(Lisp *L, Obj spec) { return upgrades_to_t_rec(L, spec, 0); }

/* Whether a non-built-in symbol names a class (structure, condition or standard class). */
static bool class_name_p(Lisp *L, Obj sym) {
    if (builtin_id(L, sym) == BT_CLASS) return true;
    if (plist_prop(L, sym, S(P_STRUCTURE_DESCRIPTION)) != NIL) return true;
    /* the hooks are NIL only while the stdlib loads */
    Obj hook = abi_upcall(L, S(P_CLASS_NAME_P));
    if (hook != NIL && funcall1(L, hook, sym) != NIL) return true;
    Obj fc = abi_upcall(L, S(TY_FIND_CLASS));
    if (fc != NIL) {
        Obj args[2] = {sym, NIL};
        if (funcall(L, fc, 2, args) != NIL) return true;
    }
    return false;
}

static bool is_instance_obj(Obj x) { return is_type(x, T_INSTANCE) || is_type(x, T_FUNCALLABLE); }

/* The answer for an instance and a class name (or class object), via the CLOS hook when defined. */
static bool instance_typep(Lisp *L, Obj x, Obj cls) {
    Obj hook = abi_upcall(L, S(P_INSTANCE_TYPEP));   /* NIL only while the stdlib loads */
    if (hook != NIL) {
        /* a class, or the name of one in the class table: what the hook would answer, without it */
        Obj c = cls, table = SYM(S(P_CLASS_TABLE))->value;
        if (is_type(cls, T_SYMBOL) && is_type(table, T_HASHTABLE)) c = hash_get(L, table, cls, NIL);
        if (is_class_object(c)) {
            Obj xc = clos_class_of(L, x);
            return xc != NIL && clos_class_inherits(xc, c);
        }
        return funcall2(L, hook, x, cls) != NIL;
    }
    if (!is_instance_obj(x)) return false;
    int f = is_type(x, T_INSTANCE) ? INST(x)->h.flags : 0;
    if (cls == S(STANDARD_OBJECT)) return is_type(x, T_FUNCALLABLE) || (f & INST_STANDARD);
    if (cls == S(STRUCTURE_OBJECT)) return f & INST_STRUCTURE;
    if (cls == S(CONDITION)) return f & INST_CONDITION;
    if (cls == S(GENERIC_FUNCTION) || cls == S(STANDARD_GENERIC_FUNCTION)) return is_type(x, T_FUNCALLABLE);
    return false;
}

/* ------------------------------------------------------------------ */
/* parsing compound specifiers                                         */

static int list_len(Lisp *L, Obj spec, Obj args) {
    int n = 0;
    Obj x = args;
    for (; is_cons(x); x = CDR(x)) {
        if (++n > 100000)
            err_simple(L, "bad type specifier: a circular or too long list headed by %S", is_cons(spec) ? CAR(spec) : spec);
    }
    if (x != NIL) err_simple(L, "bad type specifier: %S", spec);
    return n;
}

static void check_nargs(Lisp *L, Obj spec, Obj args, int min, int max) {
    int n = list_len(L, spec, args);
    if (n < min || (max >= 0 && n > max))
        err_simple(L, "Error while parsing arguments to DEFTYPE %S: %s elements in %S", is_cons(spec) ? CAR(spec) : spec,
                   n < min ? "too few" : "too many", is_cons(spec) ? CDR(spec) : NIL);
}

/* numeric classes */
enum { NC_INTEGER, NC_RATIONAL, NC_RATIO, NC_REAL, NC_FLOAT, NC_SINGLE, NC_DOUBLE, NC_NUMBER, NC_COMPLEX };

typedef struct {
    int cls;
    Obj lo, hi;          /* NO_VALUE: unbounded */
    bool lox, hix;       /* exclusive */
    bool bignum;         /* the integers outside the fixnum range */
} NumSpec;

static bool bound_ok(int cls, Obj b) {
    switch (cls) {
    case NC_INTEGER: return is_integer(b);
    case NC_RATIONAL: return is_rational(b);
    case NC_SINGLE: return is_single(b);
    case NC_DOUBLE: return is_double(b);
    default: return is_real(b);
    }
}

static const char *bound_desc(int cls) {
    switch (cls) {
    case NC_INTEGER: return "an integer";
    case NC_RATIONAL: return "a rational";
    case NC_SINGLE: return "a single-float";
    case NC_DOUBLE: return "a double-float";
    case NC_FLOAT: return "a float";
    default: return "a real";
    }
}

static void parse_bound(Lisp *L, int cls, Obj b, bool low, Obj *val, bool *excl) {
    *excl = false;
    if (b == S(STAR)) { *val = NO_VALUE; return; }
    if (is_cons(b) && CDR(b) == NIL && bound_ok(cls, CAR(b))) { *val = CAR(b); *excl = true; return; }
    if (bound_ok(cls, b)) { *val = b; return; }
    const char *d = bound_desc(cls);
    err_simple(L, "%s bound is not * or %s or list of one %s: %S", low ? "Low" : "High", d, d + (d[1] == 'n' ? 3 : 2), b);
}

static Obj expt2(Lisp *L, intptr_t n) {
    mpz_t z;
    mpz_init(z);
    mpz_ui_pow_ui(z, 2, (unsigned long)n);
    Obj r = make_bignum_from_mpz(L, z);
    mpz_clear(z);
    return r;
}

static intptr_t size_arg(Lisp *L, Obj spec, Obj n, const char *what) {
    if (!is_fixnum(n) || fixnum_val(n) <= 0 || fixnum_val(n) > 100000000)
        err_simple(L, "bad size specified for %s type specifier: %S", what, n);
    (void)spec;
    return fixnum_val(n);
}

/* Fill NS from a numeric type specifier with head BT and arguments ARGS. Returns false if BT is not numeric. */
static bool parse_num_spec(Lisp *L, BType bt, Obj spec, Obj args, NumSpec *ns) {
    ns->lo = ns->hi = NO_VALUE;
    ns->lox = ns->hix = false;
    ns->bignum = false;
    int cls;
    switch (bt) {
    case BT_INTEGER: cls = NC_INTEGER; break;
    case BT_RATIONAL: cls = NC_RATIONAL; break;
    case BT_REAL: cls = NC_REAL; break;
    case BT_FLOAT: cls = NC_FLOAT; break;
    case BT_SINGLE_FLOAT: case BT_SHORT_FLOAT: cls = NC_SINGLE; break;
    case BT_DOUBLE_FLOAT: case BT_LONG_FLOAT: cls = NC_DOUBLE; break;
    case BT_RATIO: check_nargs(L, spec, args, 0, 0); ns->cls = NC_RATIO; return true;
    case BT_NUMBER: check_nargs(L, spec, args, 0, 0); ns->cls = NC_NUMBER; return true;
    case BT_FIXNUM:
        check_nargs(L, spec, args, 0, 0);
        ns->cls = NC_INTEGER;
        ns->lo = FIX(MOST_NEGATIVE_FIXNUM);
        ns->hi = FIX(MOST_POSITIVE_FIXNUM);
        return true;
    case BT_BIGNUM:
        check_nargs(L, spec, args, 0, 0);
        ns->cls = NC_INTEGER;
        ns->bignum = true;
        return true;
    case BT_BIT:
        check_nargs(L, spec, args, 0, 0);
        ns->cls = NC_INTEGER;
        ns->lo = FIX(0);
        ns->hi = FIX(1);
        return true;
    case BT_MOD: {
        check_nargs(L, spec, args, 1, 1);
        Obj n = CAR(args);
        if (!is_integer(n) || num_compare(L, n, FIX(0)) <= 0)
            err_simple(L, "bad modulus specified for MOD type specifier: %S", n);
        ns->cls = NC_INTEGER;
        ns->lo = FIX(0);
        ns->hi = num_sub(L, n, FIX(1));
        return true;
    }
    case BT_UNSIGNED_BYTE: case BT_SIGNED_BYTE: {
        check_nargs(L, spec, args, 0, 1);
        ns->cls = NC_INTEGER;
        Obj n = args == NIL ? S(STAR) : CAR(args);
        bool sign = bt == BT_SIGNED_BYTE;
        if (n == S(STAR)) {
            if (!sign) ns->lo = FIX(0);
            return true;
        }
        intptr_t k = size_arg(L, spec, n, sign ? "SIGNED-BYTE" : "UNSIGNED-BYTE");
        if (sign) {
            Obj p = expt2(L, k - 1);
            ns->lo = num_negate(L, p);
            ns->hi = num_sub(L, p, FIX(1));
        } else {
            ns->lo = FIX(0);
            ns->hi = num_sub(L, expt2(L, k), FIX(1));
        }
        return true;
    }
    default: return false;
    }
    ns->cls = cls;
    check_nargs(L, spec, args, 0, 2);
    if (is_cons(args)) {
        parse_bound(L, cls, CAR(args), true, &ns->lo, &ns->lox);
        if (is_cons(CDR(args))) parse_bound(L, cls, CAR(CDR(args)), false, &ns->hi, &ns->hix);
    }
    return true;
}

static bool in_num_class(int cls, Obj x) {
    switch (cls) {
    case NC_INTEGER: return is_integer(x);
    case NC_RATIONAL: return is_rational(x);
    case NC_RATIO: return is_ratio(x);
    case NC_REAL: return is_real(x);
    case NC_FLOAT: return is_float(x);
    case NC_SINGLE: return is_single(x);
    case NC_DOUBLE: return is_double(x);
    case NC_NUMBER: return is_number(x);
    default: return is_type(x, T_COMPLEX);
    }
}

static bool num_matches(Lisp *L, Obj x, const NumSpec *ns) {
    if (!in_num_class(ns->cls, x)) return false;
    if (ns->bignum) return is_bignum(x);
    if (ns->cls == NC_NUMBER || ns->cls == NC_RATIO) return true;
    if (is_float(x) && isnan(number_to_double(L, x))) return ns->lo == NO_VALUE && ns->hi == NO_VALUE;
    if (ns->lo != NO_VALUE) {
        int c = num_compare(L, x, ns->lo);
        if (c < 0 || (c == 0 && ns->lox)) return false;
    }
    if (ns->hi != NO_VALUE) {
        int c = num_compare(L, x, ns->hi);
        if (c > 0 || (c == 0 && ns->hix)) return false;
    }
    return true;
}

/* array type specifiers */
typedef struct {
    int simple;          /* 1: simple arrays only */
    int ue;              /* -1: any element type, -2: any string element type, else UElt */
    int rank;            /* -1: any */
    size_t dims[ARRAY_RANK_LIMIT];
    bool dim_any[ARRAY_RANK_LIMIT];
    bool has_dims;
} ArrSpec;

static bool is_array_bt(BType bt) {
    switch (bt) {
    case BT_STRING: case BT_SIMPLE_STRING: case BT_BASE_STRING: case BT_SIMPLE_BASE_STRING:
    case BT_VECTOR: case BT_SIMPLE_VECTOR: case BT_BIT_VECTOR: case BT_SIMPLE_BIT_VECTOR:
    case BT_ARRAY: case BT_SIMPLE_ARRAY: return true;
    default: return false;
    }
}

static int elt_arg(Lisp *L, Obj et) {
    if (et == S(STAR)) return -1;
    type_check_known(L, et);
    return (int)upgrade_element_type(L, et);
}

static void size_spec(Lisp *L, ArrSpec *as, Obj size) {
    as->rank = 1;
    if (size == S(STAR)) { as->has_dims = false; return; }
    if (!is_fixnum(size) || fixnum_val(size) < 0 || (size_t)fixnum_val(size) >= ARRAY_DIMENSION_LIMIT)
        err_simple(L, "bad size specified for vector type specifier: %S", size);
    as->has_dims = true;
    as->dims[0] = (size_t)fixnum_val(size);
    as->dim_any[0] = false;
}

static void parse_array_spec(Lisp *L, BType bt, Obj spec, Obj args, ArrSpec *as) {
    as->simple = 0;
    as->ue = -1;
    as->rank = -1;
    as->has_dims = false;
    switch (bt) {
    case BT_ARRAY: case BT_SIMPLE_ARRAY: {
        check_nargs(L, spec, args, 0, 2);
        as->simple = bt == BT_SIMPLE_ARRAY;
        if (is_cons(args)) as->ue = elt_arg(L, CAR(args));
        Obj d = is_cons(args) && is_cons(CDR(args)) ? CAR(CDR(args)) : S(STAR);
        if (d == S(STAR)) return;
        if (is_fixnum(d)) {
            if (fixnum_val(d) < 0 || fixnum_val(d) >= ARRAY_RANK_LIMIT)
                err_simple(L, "bad dimensions specified for array type specifier: %S", d);
            as->rank = (int)fixnum_val(d);
            return;
        }
        if (!is_list(d)) err_simple(L, "bad dimensions specified for array type specifier: %S", d);
        int r = 0;
        for (Obj x = d; x != NIL; x = CDR(x)) {
            if (!is_cons(x) || r >= ARRAY_RANK_LIMIT - 1)
                err_simple(L, "bad dimensions specified for array type specifier: %S", d);
            Obj e = CAR(x);
            if (e == S(STAR)) as->dim_any[r] = true;
            else if (is_fixnum(e) && fixnum_val(e) >= 0 && (size_t)fixnum_val(e) < ARRAY_DIMENSION_LIMIT) {
                as->dim_any[r] = false;
                as->dims[r] = (size_t)fixnum_val(e);
            } else err_simple(L, "bad dimensions specified for array type specifier: %S", d);
            r++;
        }
        as->rank = r;
        as->has_dims = true;
        return;
    }
    case BT_VECTOR:
        check_nargs(L, spec, args, 0, 2);
        if (is_cons(args)) as->ue = elt_arg(L, CAR(args));
        size_spec(L, as, is_cons(args) && is_cons(CDR(args)) ? CAR(CDR(args)) : S(STAR));
        return;
    default:
        check_nargs(L, spec, args, 0, 1);
        as->simple = bt == BT_SIMPLE_VECTOR || bt == BT_SIMPLE_STRING || bt == BT_SIMPLE_BASE_STRING ||
                     bt == BT_SIMPLE_BIT_VECTOR;
        as->ue = (bt == BT_SIMPLE_VECTOR) ? UE_T
               : (bt == BT_STRING || bt == BT_SIMPLE_STRING) ? -2
               : (bt == BT_BASE_STRING || bt == BT_SIMPLE_BASE_STRING) ? UE_BASE_CHAR : UE_BIT;
        size_spec(L, as, is_cons(args) ? CAR(args) : S(STAR));
        return;
    }
}

static bool array_matches(Obj x, const ArrSpec *as) {
    if (!is_array(x)) return false;
    if (as->simple && !array_is_simple(x)) return false;
    UElt u = array_uelt(x);
    if (as->ue == -2 ? (u != UE_CHARACTER && u != UE_BASE_CHAR) : (as->ue >= 0 && (int)u != as->ue)) return false;
    int rank = array_rank(x);
    if (as->rank >= 0 && rank != as->rank) return false;
    if (as->has_dims)
        for (int k = 0; k < rank; k++)
            if (!as->dim_any[k] && array_dimension(x, k) != as->dims[k]) return false;
    return true;
}

static bool is_standard_char_code(uint32_t c) { return c == 10 || (c >= 32 && c <= 126); }

/* ------------------------------------------------------------------ */
/* TYPEP                                                               */

static bool typep_rec(Lisp *L, Obj x, Obj spec);

static bool stream_kind_is(Obj x, int kind) { return is_type(x, T_STREAM) && ((Header *)x)->aux == kind; }

static bool typep_atomic(Lisp *L, Obj x, BType bt) {
    switch (bt) {
    case BT_T: return true;
    case BT_NIL: return false;
    case BT_ATOM: return !is_cons(x);
    case BT_SYMBOL: return is_symbol(x);
    case BT_KEYWORD: return is_type(x, T_SYMBOL) && is_keyword(L, x);
    case BT_BOOLEAN: return x == NIL || x == S(T);
    case BT_LIST: return is_list(x);
    case BT_CONS: return is_cons(x);
    case BT_NULL: return x == NIL;
    case BT_NUMBER: return is_number(x);
    case BT_INTEGER: return is_integer(x);
    case BT_FIXNUM: return is_fixnum(x);
    case BT_BIGNUM: return is_bignum(x);
    case BT_RATIO: return is_ratio(x);
    case BT_RATIONAL: return is_rational(x);
    case BT_FLOAT: return is_float(x);
    case BT_SINGLE_FLOAT: case BT_SHORT_FLOAT: return is_single(x);
    case BT_DOUBLE_FLOAT: case BT_LONG_FLOAT: return is_double(x);
    case BT_REAL: return is_real(x);
    case BT_COMPLEX: return is_type(x, T_COMPLEX);
    case BT_BIT: return x == FIX(0) || x == FIX(1);
    case BT_UNSIGNED_BYTE: return is_integer(x) && num_compare(L, x, FIX(0)) >= 0;
    case BT_SIGNED_BYTE: return is_integer(x);
    case BT_CHARACTER: return is_char(x);
    case BT_BASE_CHAR: return is_char(x) && char_code(x) < 128;
    case BT_STANDARD_CHAR: return is_char(x) && is_standard_char_code(char_code(x));
    case BT_EXTENDED_CHAR: return is_char(x) && char_code(x) >= 128;
    case BT_SEQUENCE: return is_list(x) || is_vector(x);
    case BT_FUNCTION: return is_function(x);
    case BT_COMPILED_FUNCTION: return is_function(x);
    case BT_HASH_TABLE: return is_type(x, T_HASHTABLE);
    case BT_PACKAGE: return is_type(x, T_PACKAGE);
    case BT_READTABLE: return is_type(x, T_READTABLE);
    case BT_RANDOM_STATE: return is_type(x, T_RANDOM_STATE);
    case BT_PATHNAME: return is_type(x, T_PATHNAME);
    case BT_LOGICAL_PATHNAME: return logical_pathname_p(x);
    case BT_STREAM: return is_type(x, T_STREAM) || gray_instance_p(L, x);
    case BT_FILE_STREAM: return stream_kind_is(x, SK_FD);
    case BT_STRING_STREAM: return stream_kind_is(x, SK_STRING_IN) || stream_kind_is(x, SK_STRING_OUT) || stream_kind_is(x, SK_STRING_FILL);
    case BT_SYNONYM_STREAM: return stream_kind_is(x, SK_SYNONYM);
    case BT_BROADCAST_STREAM: return stream_kind_is(x, SK_BROADCAST);
    case BT_CONCATENATED_STREAM: return stream_kind_is(x, SK_CONCATENATED);
    case BT_ECHO_STREAM: return stream_kind_is(x, SK_ECHO);
    case BT_TWO_WAY_STREAM: return stream_kind_is(x, SK_TWO_WAY);
    default: return false;
    }
}

static bool typep_symbol(Lisp *L, Obj x, Obj sym) {
    BType bt = builtin_id(L, sym);
    if (bt == BT_CLASS) return is_instance_obj(x) && instance_typep(L, x, sym);
    if (bt != BT_NONE) {
        if (is_array_bt(bt)) {
            ArrSpec as;
            parse_array_spec(L, bt, sym, NIL, &as);
            return array_matches(x, &as);
        }
        NumSpec ns;
        if (parse_num_spec(L, bt, sym, NIL, &ns)) return num_matches(L, x, &ns);
        switch (bt) {
        case BT_AND: case BT_OR: case BT_NOT: case BT_EQL: case BT_SATISFIES: case BT_MEMBER: case BT_VALUES:
            err_simple(L, "bad thing to be a type specifier: %S", sym);
        default: return typep_atomic(L, x, bt);
        }
    }
    Obj exp = plist_prop(L, sym, S(P_TYPE_EXPANDER));
    if (is_function(exp)) return typep_rec(L, x, type_expand_name(L, sym));
    if (is_instance_obj(x) && abi_upcall(L, S(P_INSTANCE_TYPEP)) != NIL) return instance_typep(L, x, sym);
    if (class_name_p(L, sym)) return false;
    err_unknown_type(L, sym);
}

static void check_spec_args(Lisp *L, Obj args);

static bool typep_compound(Lisp *L, Obj x, Obj spec) {
    Obj head = CAR(spec), args = CDR(spec);
    if (!is_symbol(head)) err_simple(L, "bad thing to be a type specifier: %S", spec);
    BType bt = builtin_id(L, head);
    if (bt == BT_AND || bt == BT_OR || bt == BT_NOT || bt == BT_CONS || bt == BT_COMPLEX) {
        list_len(L, spec, args);
        check_spec_args(L, args);
    }
    if (bt == BT_NONE || bt == BT_CLASS) {
        Obj exp = plist_prop(L, head, S(P_TYPE_EXPANDER));
        if (is_function(exp)) return typep_rec(L, x, type_expand(L, spec));
        err_unknown_type(L, spec);
    }
    if (is_array_bt(bt)) {
        ArrSpec as;
        parse_array_spec(L, bt, spec, args, &as);
        return array_matches(x, &as);
    }
    NumSpec ns;
    if (parse_num_spec(L, bt, spec, args, &ns)) return num_matches(L, x, &ns);
    switch (bt) {
    case BT_AND:
        list_len(L, spec, args);
        for (Obj a = args; is_cons(a); a = CDR(a))
            if (!typep_rec(L, x, CAR(a))) return false;
        return true;
    case BT_OR:
        list_len(L, spec, args);
        for (Obj a = args; is_cons(a); a = CDR(a))
            if (typep_rec(L, x, CAR(a))) return true;
        return false;
    case BT_NOT:
        check_nargs(L, spec, args, 1, 1);
        return !typep_rec(L, x, CAR(args));
    case BT_MEMBER:
        list_len(L, spec, args);
        for (Obj a = args; is_cons(a); a = CDR(a))
            if (lisp_eql(x, CAR(a))) return true;
        return false;
    case BT_EQL:
        check_nargs(L, spec, args, 1, 1);
        return lisp_eql(x, CAR(args));
    case BT_SATISFIES: {
        check_nargs(L, spec, args, 1, 1);
        Obj f = CAR(args);
        if (!is_symbol(f)) err_simple(L, "The SATISFIES predicate name is not a symbol: %S", f);
        return funcall1(L, f, x) != NIL;
    }
    case BT_CONS: {
        check_nargs(L, spec, args, 0, 2);
        if (!is_cons(x)) return false;
        Obj ca = is_cons(args) ? CAR(args) : S(STAR);
        Obj cd = is_cons(args) && is_cons(CDR(args)) ? CAR(CDR(args)) : S(STAR);
        if (ca != S(STAR) && !typep_rec(L, CAR(x), ca)) return false;
        if (cd != S(STAR) && !typep_rec(L, CDR(x), cd)) return false;
        return true;
    }
    case BT_COMPLEX: {
        check_nargs(L, spec, args, 0, 1);
        if (!is_type(x, T_COMPLEX)) return false;
        Obj pt = is_cons(args) ? CAR(args) : S(STAR);
        if (pt == S(STAR)) return true;
        return typep_rec(L, CPLX(x)->re, pt) && typep_rec(L, CPLX(x)->im, pt);
    }
    case BT_FUNCTION:
        err_simple(L, "Function types are not a legal argument to TYPEP:\n  %S", spec);
    case BT_VALUES:
        err_simple(L, "VALUES type illegal in this context:\n %S", spec);
    default:
        if (args == NIL) return typep_atomic(L, x, bt);
        err_simple(L, "bad type specifier: %S", spec);
    }
}

static bool typep_rec(Lisp *L, Obj x, Obj spec) {
    stack_check(L);
    if (is_symbol(spec)) return typep_symbol(L, x, spec);
    if (is_cons(spec)) return typep_compound(L, x, spec);
    if (is_instance_obj(spec)) return instance_typep(L, x, spec);
    err_simple(L, "bad thing to be a type specifier: %S", spec);
}

/* The arguments of AND, OR, NOT, CONS and COMPLEX must at least look like type specifiers. */
static void check_spec_args(Lisp *L, Obj args) {
    for (Obj a = args; is_cons(a); a = CDR(a))
        if (!is_symbol(CAR(a)) && !is_cons(CAR(a)) && !is_instance_obj(CAR(a)))
            err_simple(L, "bad thing to be a type specifier: %S", CAR(a));
}

bool type_typep(Lisp *L, Obj x, Obj spec) { return typep_rec(L, x, spec); }

/* Walk SPEC and signal for unknown type names, without testing any object. */
static void check_known_rec(Lisp *L, Obj spec, int depth) {
    stack_check(L);
    if (depth > 10000) err_simple(L, "The type %S expands circularly.", spec);
    spec = type_expand(L, spec);
    if (is_symbol(spec)) {
        if (builtin_id(L, spec) != BT_NONE || class_name_p(L, spec)) return;
        err_simple(L, "Undefined type: %S", spec);
    }
    if (!is_cons(spec)) return;
    BType bt = builtin_id(L, CAR(spec));
    if (bt == BT_NONE || bt == BT_CLASS) err_simple(L, "Undefined type: %S", spec);
    if (bt == BT_AND || bt == BT_OR || bt == BT_NOT) {
        list_len(L, spec, CDR(spec));
        for (Obj a = CDR(spec); is_cons(a); a = CDR(a)) check_known_rec(L, CAR(a), depth + 1);
    } else if (bt == BT_CONS) {
        list_len(L, spec, CDR(spec));
        for (Obj a = CDR(spec); is_cons(a); a = CDR(a))
            if (CAR(a) != S(STAR)) check_known_rec(L, CAR(a), depth + 1);
    }
}

void type_check_known(Lisp *L, Obj spec) { check_known_rec(L, spec, 0); }

/* ------------------------------------------------------------------ */
/* TYPE-OF                                                             */

static Obj complex_type_of(Lisp *L, Obj z) {
    Obj re = CPLX(z)->re, im = CPLX(z)->im;
    Obj head = is_single(re) ? S(SINGLE_FLOAT) : is_double(re) ? S(DOUBLE_FLOAT)
             : (is_integer(re) && is_integer(im)) ? S(INTEGER) : S(RATIONAL);
    Obj lo = re, hi = im;
    if (num_compare(L, re, im) > 0) { lo = im; hi = re; }
    return L2(L, S(COMPLEX), L3(L, head, lo, hi));
}

static Obj dims_list(Lisp *L, Obj a) {
    Obj r = NIL;
    for (int k = array_rank(a) - 1; k >= 0; k--) r = cons(L, FIX((intptr_t)array_dimension(a, k)), r);
    return r;
}

static Obj array_type_of(Lisp *L, Obj a) {
    UElt u = array_uelt(a);
    bool simple = array_is_simple(a);
    int rank = array_rank(a);
    Obj n = FIX((intptr_t)array_total(a));
    if (is_type(a, T_VECTOR)) return L2(L, S(SIMPLE_VECTOR), n);
    if (rank == 1) {
        if (u == UE_BASE_CHAR) return L2(L, simple ? S(SIMPLE_BASE_STRING) : S(BASE_STRING), n);
        if (u == UE_BIT) return L2(L, simple ? S(SIMPLE_BIT_VECTOR) : S(BIT_VECTOR), n);
        if (!simple) return L3(L, S(VECTOR), uelt_spec(L, u), n);
    }
    return L3(L, simple ? S(SIMPLE_ARRAY) : S(ARRAY), uelt_spec(L, u), dims_list(L, a));
}

static Obj stream_type_of(Lisp *L, Obj s) {
    switch (((Header *)s)->aux) {
    case SK_STRING_IN: case SK_STRING_OUT: case SK_STRING_FILL: return S(STRING_STREAM);
    case SK_FD: return S(FILE_STREAM);
    case SK_SYNONYM: return S(SYNONYM_STREAM);
    case SK_BROADCAST: return S(BROADCAST_STREAM);
    case SK_TWO_WAY: return S(TWO_WAY_STREAM);
    case SK_ECHO: return S(ECHO_STREAM);
    case SK_CONCATENATED: return S(CONCATENATED_STREAM);
    default: return S(STREAM);
    }
}

Obj type_of(Lisp *L, Obj o) {
    if (is_fixnum(o)) {
        intptr_t v = fixnum_val(o);
        if (v == 0 || v == 1) return S(BIT);
        if (v < 0) return S(FIXNUM);
        return L3(L, S(INTEGER), FIX(0), FIX(MOST_POSITIVE_FIXNUM));
    }
    if (is_cons(o)) return S(CONS);
    if (o == NIL) return S(NULL);
    if (is_char(o)) {
        uint32_t c = char_code(o);
        return is_standard_char_code(c) ? S(STANDARD_CHAR) : c < 128 ? S(BASE_CHAR) : S(EXTENDED_CHAR);
    }
    if (is_single(o)) return S(SINGLE_FLOAT);
    switch (heap_type(o)) {
    case T_SYMBOL: return o == S(T) ? S(BOOLEAN) : is_keyword(L, o) ? S(KEYWORD) : S(SYMBOL);
    case T_BIGNUM:
        if (mpz_sgn(BIG(o)) < 0) return S(BIGNUM);
        return L2(L, S(INTEGER), num_add(L, FIX(MOST_POSITIVE_FIXNUM), FIX(1)));
    case T_RATIO: return S(RATIO);
    case T_DOUBLE: return S(DOUBLE_FLOAT);
    case T_COMPLEX: return complex_type_of(L, o);
    case T_STRING: case T_VECTOR: case T_BITVECTOR: case T_ARRAY: return array_type_of(L, o);
    case T_HASHTABLE: return S(HASH_TABLE);
    case T_PACKAGE: return S(PACKAGE);
    case T_PRIMITIVE: case T_CLOSURE: return S(COMPILED_FUNCTION);
    case T_STREAM: return stream_type_of(L, o);
    case T_READTABLE: return S(READTABLE);
    case T_RANDOM_STATE: return S(RANDOM_STATE);
    case T_PATHNAME: return logical_pathname_p(o) ? S(LOGICAL_PATHNAME) : S(PATHNAME);
    case T_INSTANCE: case T_FUNCALLABLE: {
        Obj hook = abi_upcall(L, S(P_INSTANCE_TYPE_OF));   /* NIL only while the stdlib loads */
        if (hook != NIL) {
            Obj r = funcall1(L, hook, o);
            L->nvals = 1;
            return r;
        }
        if (is_type(o, T_FUNCALLABLE)) return S(STANDARD_GENERIC_FUNCTION);
        int f = INST(o)->h.flags;
        return (f & INST_CONDITION) ? S(CONDITION) : (f & INST_STRUCTURE) ? S(STRUCTURE_OBJECT) : S(STANDARD_OBJECT);
    }
    case T_WEAK_POINTER: return intern_cstr(L, L->pkg_ext, "WEAK-POINTER");
    default: return S(T);
    }
}

/* ------------------------------------------------------------------ */
/* SUBTYPEP                                                            */
/*
 * A type is turned into a set in a boolean algebra. The universe is cut into disjoint
 * sorts, each with an exact representation closed under union, intersection and
 * complement: interval sets for integers, ratios, single and double floats and
 * character codes; finite/cofinite sets for keywords and other symbols; unions of
 * products for conses and complexes; unions of (simpleness x element type x rank x
 * per-axis dimension) terms for arrays; one bit for each remaining kind of object.
 *
 * What cannot be represented exactly becomes an atom: (satisfies f), unknown type
 * names, class names, and EQL objects other than numbers, characters and symbols.
 * With k atoms a type is 2^k exact sets, one per assignment of the atoms (the set
 * of objects is the union over assignments of the exact set intersected with the
 * region where exactly those atoms hold). t1 <= t2 iff t1 and not t2 is empty;
 * emptiness is certain unless a satisfies-like atom or an unknown class relation
 * is involved, which is where SUBTYPEP answers NIL NIL.
 */

enum { TRI_EMPTY, TRI_NONEMPTY, TRI_UNKNOWN };
enum { IK_INT, IK_RATIO, IK_FLOAT };

typedef struct { Obj lo, hi; bool lox, hix; } Ivl;   /* NO_VALUE: unbounded; x: exclusive */
typedef struct { int n; Ivl *v; } ISet;
typedef struct { bool co; int n; Obj *v; } FSet;      /* co: everything except v */
typedef struct { uint8_t sm, em; FSet ranks; FSet *axes; } ATerm;
typedef struct { int n; ATerm *v; } ASet;
typedef struct FT FT;
typedef struct { FT *a, *b; } Prod;
typedef struct { int n; Prod *v; } PSet;

enum {
    M_NULL = 1 << 0, M_HASH = 1 << 1, M_PACKAGE = 1 << 2, M_READTABLE = 1 << 3, M_RANDOM = 1 << 4,
    M_PATHNAME = 1 << 5, M_LPATHNAME = 1 << 6, M_ST_FILE = 1 << 7, M_ST_STRING = 1 << 8,
    M_ST_SYNONYM = 1 << 9, M_ST_BROADCAST = 1 << 10, M_ST_CONCAT = 1 << 11, M_ST_ECHO = 1 << 12,
    M_ST_TWOWAY = 1 << 13, M_ST_OTHER = 1 << 14, M_FN = 1 << 15, M_FN_GENERIC = 1 << 16,
    M_FN_INTERP = 1 << 17, M_INSTANCE = 1 << 18, M_EXTSEQ = 1 << 19, M_OTHER = 1 << 20,
    M_ALL = (1 << 21) - 1,
    M_STREAMS = M_ST_FILE | M_ST_STRING | M_ST_SYNONYM | M_ST_BROADCAST | M_ST_CONCAT | M_ST_ECHO |
                M_ST_TWOWAY | M_ST_OTHER,
};
#define EM_ALL 0x3F   /* one bit per UElt (array.h) */
#define CHAR_MAX_CODE (CHAR_CODE_LIMIT - 1)

typedef struct CT {
    uint32_t misc;
    ISet ints, ratios, singles, doubles, chars;
    FSet kws, syms;
    PSet conses, cplx;
    ASet arrs;
} CT;

struct FT {
    int k;               /* entries: 2^k */
    uint32_t deps;       /* atoms this type depends on */
    CT *s[];
};

enum { AK_SAT, AK_CLASS, AK_EQL, AK_OPEN };   /* AK_OPEN: opaque, but its regions are assumed inhabited */
/* fn_open: a user's standard class, whose instances may be functions (a funcallable class may
 * inherit it): a region where only functions hold it is of unknown emptiness, not inhabited */
typedef struct { int kind; Obj key; CT *carrier; bool fn_open; } Atom;
#define MAXA 6
#define WORK_LIMIT 200000

typedef struct Ctx {
    Lisp *L;
    int k;
    bool overflow;
    long work;
    Atom atoms[MAXA];
    int8_t rel[MAXA][MAXA];     /* class relations: -1 unknown yet, else TRI-like: 1 yes, 0 no, 2 unknown */
    CT *empty, *univ, *real;
    FT *ft_empty, *ft_univ, *ft_real;
} Ctx;

static void work(Ctx *c) {
    if (++c->work > WORK_LIMIT) c->overflow = true;
    if ((c->work & 1023) == 0) safe_point(c->L);
}

/* ---- numbers as bounds ---- */

static Obj real_floor_or_ceil(Lisp *L, Obj x, bool ceil_) {
    if (is_integer(x)) return x;
    mpz_t z;
    mpz_init(z);
    if (is_ratio(x)) {
        mpz_t n, d;
        mpz_init(n); mpz_init(d);
        integer_to_mpz(RATIO(x)->num, n);
        integer_to_mpz(RATIO(x)->den, d);
        if (ceil_) mpz_cdiv_q(z, n, d); else mpz_fdiv_q(z, n, d);
        mpz_clear(n); mpz_clear(d);
    } else {
        double v = number_to_double(L, x);
        mpz_set_d(z, ceil_ ? ceil(v) : floor(v));
    }
    Obj r = make_bignum_from_mpz(L, z);
    mpz_clear(z);
    return r;
}

/* A float as the exact rational it denotes (NO_VALUE for infinities and NaN). */
static Obj to_exact(Lisp *L, Obj x) {
    if (!is_float(x)) return x;
    double d = number_to_double(L, x);
    if (!isfinite(d)) return NO_VALUE;
    mpq_t q;
    mpq_init(q);
    mpq_set_d(q, d);
    Obj r = make_ratio(L, make_bignum_from_mpz(L, mpq_numref(q)), make_bignum_from_mpz(L, mpq_denref(q)));
    mpq_clear(q);
    return r;
}

/* ---- interval sets ---- */

/* Float sets order -0.0 just below +0.0, so that (member 0.0) leaves -0.0 out: a range bound of
 * zero (CLHS 12.1.4.2: the range (single-float 0.0) holds both zeros) becomes -0.0 or +0.0
 * by which side it closes (float_zero_bound), a member keeps its own sign. */
static int zero_sign(Obj x) {
    if (is_single(x)) { float f = single_val(x); return f == 0 ? (signbit(f) ? -1 : 1) : 0; }
    if (is_double(x)) { double d = DBL(x); return d == 0 ? (signbit(d) ? -1 : 1) : 0; }
    return 0;
}

static int bound_cmp(Lisp *L, Obj a, Obj b) {
    int c = num_compare(L, a, b);
    return c ? c : (zero_sign(a) > zero_sign(b)) - (zero_sign(a) < zero_sign(b));
}

/* -0.0 and +0.0: adjacent, with no float between them */
static bool zeros_adjacent(Obj lo, Obj hi) { return zero_sign(lo) < 0 && zero_sign(hi) > 0; }

static int lo_cmp(Lisp *L, const Ivl *a, const Ivl *b) {
    if (a->lo == NO_VALUE) return b->lo == NO_VALUE ? 0 : -1;
    if (b->lo == NO_VALUE) return 1;
    int c = bound_cmp(L, a->lo, b->lo);
    return c ? c : (int)a->lox - (int)b->lox;
}

static int hi_cmp(Lisp *L, const Ivl *a, const Ivl *b) {
    if (a->hi == NO_VALUE) return b->hi == NO_VALUE ? 0 : 1;
    if (b->hi == NO_VALUE) return -1;
    int c = bound_cmp(L, a->hi, b->hi);
    return c ? c : (int)b->hix - (int)a->hix;
}

static bool ivl_nonempty(Lisp *L, const Ivl *i, int kind) {
    if (i->lo == NO_VALUE || i->hi == NO_VALUE) return true;
    int c = bound_cmp(L, i->lo, i->hi);
    if (c != 0) return c < 0 && !(i->lox && i->hix && zeros_adjacent(i->lo, i->hi));
    if (i->lox || i->hix) return false;
    return kind == IK_RATIO ? !is_integer(i->lo) : true;
}

static bool ivl_touch(Lisp *L, const Ivl *a, const Ivl *b, int kind) {
    if (a->hi == NO_VALUE || b->lo == NO_VALUE) return true;
    if (kind == IK_INT) return num_compare(L, b->lo, num_add(L, a->hi, FIX(1))) <= 0;
    int c = bound_cmp(L, b->lo, a->hi);
    if (c > 0 && zeros_adjacent(a->hi, b->lo)) return !a->hix && !b->lox;
    return c < 0 || (c == 0 && !(a->hix && b->lox));
}

static Obj float_zero_bound(Lisp *L, Obj x, bool negative) {
    if (x == NO_VALUE || num_compare(L, x, FIX(0)) != 0) return x;
    return make_double(L, negative ? -0.0 : 0.0);
}

static ISet iset_norm(Lisp *L, const Ivl *v, int n, int kind) {
    Ivl *w = (Ivl *)gc_alloc(L, sizeof(Ivl) * (size_t)(n ? n : 1));
    int m = 0;
    for (int i = 0; i < n; i++)
        if (ivl_nonempty(L, &v[i], kind)) w[m++] = v[i];
    for (int i = 1; i < m; i++) {
        Ivl t = w[i];
        int j = i - 1;
        while (j >= 0 && lo_cmp(L, &w[j], &t) > 0) { w[j + 1] = w[j]; j--; }
        w[j + 1] = t;
    }
    int k = 0;
    for (int i = 0; i < m; i++) {
        if (k > 0 && ivl_touch(L, &w[k - 1], &w[i], kind)) {
            if (hi_cmp(L, &w[i], &w[k - 1]) > 0) { w[k - 1].hi = w[i].hi; w[k - 1].hix = w[i].hix; }
        } else w[k++] = w[i];
    }
    return (ISet){k, w};
}

static ISet iset_all(Lisp *L) {
    Ivl i = {NO_VALUE, NO_VALUE, false, false};
    return iset_norm(L, &i, 1, IK_FLOAT);
}

static ISet iset_range(Lisp *L, int kind, Obj lo, bool lox, Obj hi, bool hix) {
    Ivl i = {lo, hi, lox, hix};
    if (kind != IK_FLOAT) {
        if (lo != NO_VALUE) i.lo = to_exact(L, lo);
        if (hi != NO_VALUE) i.hi = to_exact(L, hi);
    }
    if (kind == IK_FLOAT) {
        i.lo = float_zero_bound(L, lo, !lox);
        i.hi = float_zero_bound(L, hi, hix);
    }
    if (kind == IK_INT) {
        if (i.lo != NO_VALUE) i.lo = lox ? num_add(L, real_floor_or_ceil(L, i.lo, false), FIX(1)) : real_floor_or_ceil(L, i.lo, true);
        if (i.hi != NO_VALUE) i.hi = hix ? num_sub(L, real_floor_or_ceil(L, i.hi, true), FIX(1)) : real_floor_or_ceil(L, i.hi, false);
        i.lox = i.hix = false;
    }
    return iset_norm(L, &i, 1, kind);
}

static ISet iset_union(Lisp *L, ISet a, ISet b, int kind) {
    if (!a.n) return b;
    if (!b.n) return a;
    Ivl *v = (Ivl *)gc_alloc(L, sizeof(Ivl) * (size_t)(a.n + b.n));
    memcpy(v, a.v, sizeof(Ivl) * (size_t)a.n);
    memcpy(v + a.n, b.v, sizeof(Ivl) * (size_t)b.n);
    return iset_norm(L, v, a.n + b.n, kind);
}

static ISet iset_inter(Lisp *L, ISet a, ISet b, int kind) {
    if (!a.n || !b.n) return (ISet){0, NULL};
    Ivl *v = (Ivl *)gc_alloc(L, sizeof(Ivl) * (size_t)(a.n * b.n));
    int m = 0;
    for (int i = 0; i < a.n; i++)
        for (int j = 0; j < b.n; j++) {
            Ivl t;
            const Ivl *lo = lo_cmp(L, &a.v[i], &b.v[j]) >= 0 ? &a.v[i] : &b.v[j];
            const Ivl *hi = hi_cmp(L, &a.v[i], &b.v[j]) <= 0 ? &a.v[i] : &b.v[j];
            t.lo = lo->lo; t.lox = lo->lox;
            t.hi = hi->hi; t.hix = hi->hix;
            v[m++] = t;
        }
    return iset_norm(L, v, m, kind);
}

static ISet iset_compl(Lisp *L, ISet a, int kind) {
    if (!a.n) return iset_all(L);
    Ivl *v = (Ivl *)gc_alloc(L, sizeof(Ivl) * (size_t)(a.n + 1));
    int m = 0;
    bool in = kind == IK_INT;
    if (a.v[0].lo != NO_VALUE)
        v[m++] = (Ivl){NO_VALUE, in ? num_sub(L, a.v[0].lo, FIX(1)) : a.v[0].lo, false, in ? false : !a.v[0].lox};
    for (int i = 0; i + 1 < a.n; i++)
        v[m++] = (Ivl){in ? num_add(L, a.v[i].hi, FIX(1)) : a.v[i].hi, in ? num_sub(L, a.v[i + 1].lo, FIX(1)) : a.v[i + 1].lo,
                       in ? false : !a.v[i].hix, in ? false : !a.v[i + 1].lox};
    if (a.v[a.n - 1].hi != NO_VALUE)
        v[m++] = (Ivl){in ? num_add(L, a.v[a.n - 1].hi, FIX(1)) : a.v[a.n - 1].hi, NO_VALUE, in ? false : !a.v[a.n - 1].hix, false};
    return iset_norm(L, v, m, kind);
}

static ISet iset_point(Lisp *L, Obj x, int kind) {
    if (kind != IK_FLOAT) return iset_range(L, kind, x, false, x, false);
    Ivl i = {x, x, false, false};   /* a float keeps the sign of its zero */
    return iset_norm(L, &i, 1, kind);
}

static ISet chars_range(Lisp *L, uint32_t lo, uint32_t hi) {
    return iset_range(L, IK_INT, FIX(lo), false, FIX(hi), false);
}

/* ---- finite / cofinite sets ---- */

static bool fs_in_list(Obj x, const Obj *v, int n) {
    for (int i = 0; i < n; i++)
        if (lisp_eql(x, v[i])) return true;
    return false;
}

static FSet fs_all(void) { return (FSet){true, 0, NULL}; }
static bool fs_empty(FSet s) { return !s.co && s.n == 0; }
static bool fs_is_all(FSet s) { return s.co && s.n == 0; }
static bool fs_single(FSet s, Obj *x) {
    if (s.co || s.n != 1) return false;
    *x = s.v[0];
    return true;
}

static FSet fs_one(Lisp *L, Obj x) {
    Obj *v = (Obj *)gc_alloc(L, sizeof(Obj));
    v[0] = x;
    return (FSet){false, 1, v};
}

/* mode 0: a u b, 1: a n b, 2: a \ b (on the element lists) */
static FSet fs_listop(Lisp *L, bool co, const FSet *a, const FSet *b, int mode) {
    Obj *v = (Obj *)gc_alloc(L, sizeof(Obj) * (size_t)(a->n + b->n + 1));
    int m = 0;
    for (int i = 0; i < a->n; i++) {
        bool inb = fs_in_list(a->v[i], b->v, b->n);
        if (mode == 0 || (mode == 1 && inb) || (mode == 2 && !inb)) v[m++] = a->v[i];
    }
    if (mode == 0)
        for (int i = 0; i < b->n; i++)
            if (!fs_in_list(b->v[i], a->v, a->n)) v[m++] = b->v[i];
    return (FSet){co, m, v};
}

static FSet fs_union(Lisp *L, FSet a, FSet b) {
    if (!a.co && !b.co) return fs_listop(L, false, &a, &b, 0);
    if (a.co && b.co) return fs_listop(L, true, &a, &b, 1);
    if (a.co) return fs_listop(L, true, &a, &b, 2);
    return fs_listop(L, true, &b, &a, 2);
}

static FSet fs_compl(FSet a) { return (FSet){!a.co, a.n, a.v}; }
static FSet fs_inter(Lisp *L, FSet a, FSet b) { return fs_compl(fs_union(L, fs_compl(a), fs_compl(b))); }

/* ---- array terms ---- */

static ATerm aterm_full(void) { return (ATerm){3, EM_ALL, fs_all(), NULL}; }

static bool aterm_empty(const ATerm *t) {
    if (!t->sm || !t->em || fs_empty(t->ranks)) return true;
    Obj r;
    if (t->axes && fs_single(t->ranks, &r))
        for (intptr_t k = 0; k < fixnum_val(r); k++)
            if (fs_empty(t->axes[k])) return true;
    return false;
}

static FSet axis_of(const ATerm *t, intptr_t k) { return t->axes ? t->axes[k] : fs_all(); }

static ATerm aterm_inter(Lisp *L, const ATerm *a, const ATerm *b) {
    ATerm t = {(uint8_t)(a->sm & b->sm), (uint8_t)(a->em & b->em), fs_inter(L, a->ranks, b->ranks), NULL};
    Obj r;
    if ((a->axes || b->axes) && fs_single(t.ranks, &r)) {
        intptr_t n = fixnum_val(r);
        t.axes = (FSet *)gc_alloc(L, sizeof(FSet) * (size_t)(n ? n : 1));
        for (intptr_t k = 0; k < n; k++) t.axes[k] = fs_inter(L, axis_of(a, k), axis_of(b, k));
    }
    return t;
}

static void aset_add(Lisp *L, ASet *s, int *cap, ATerm t) {
    if (aterm_empty(&t)) return;
    if (s->n == *cap) {
        int nc = *cap ? *cap * 2 : 4;
        ATerm *v = (ATerm *)gc_alloc(L, sizeof(ATerm) * (size_t)nc);
        if (s->n) memcpy(v, s->v, sizeof(ATerm) * (size_t)s->n);
        s->v = v;
        *cap = nc;
    }
    s->v[s->n++] = t;
}

static ASet aset_union(Lisp *L, ASet a, ASet b) {
    ASet r = {0, NULL};
    int cap = 0;
    for (int i = 0; i < a.n; i++) aset_add(L, &r, &cap, a.v[i]);
    for (int i = 0; i < b.n; i++) aset_add(L, &r, &cap, b.v[i]);
    return r;
}

static ASet aset_inter(Lisp *L, ASet a, ASet b) {
    ASet r = {0, NULL};
    int cap = 0;
    for (int i = 0; i < a.n; i++)
        for (int j = 0; j < b.n; j++) aset_add(L, &r, &cap, aterm_inter(L, &a.v[i], &b.v[j]));
    return r;
}

static ASet aterm_compl(Lisp *L, const ATerm *t) {
    ASet r = {0, NULL};
    int cap = 0;
    aset_add(L, &r, &cap, (ATerm){(uint8_t)(3 & ~t->sm), EM_ALL, fs_all(), NULL});
    aset_add(L, &r, &cap, (ATerm){t->sm, (uint8_t)(EM_ALL & ~t->em), fs_all(), NULL});
    aset_add(L, &r, &cap, (ATerm){t->sm, t->em, fs_compl(t->ranks), NULL});
    Obj rk;
    if (t->axes && fs_single(t->ranks, &rk)) {
        intptr_t n = fixnum_val(rk);
        for (intptr_t k = 0; k < n; k++) {
            if (fs_is_all(t->axes[k])) continue;
            FSet *ax = (FSet *)gc_alloc(L, sizeof(FSet) * (size_t)n);
            for (intptr_t j = 0; j < n; j++) ax[j] = fs_all();
            ax[k] = fs_compl(t->axes[k]);
            aset_add(L, &r, &cap, (ATerm){t->sm, t->em, t->ranks, ax});
        }
    }
    return r;
}

static ASet aset_compl(Lisp *L, ASet s) {
    ASet r = {0, NULL};
    int cap = 0;
    aset_add(L, &r, &cap, aterm_full());
    for (int i = 0; i < s.n && r.n; i++) r = aset_inter(L, r, aterm_compl(L, &s.v[i]));
    return r;
}

/* ---- exact types ---- */

static CT *ct_new(Ctx *c) { return (CT *)gc_alloc(c->L, sizeof(CT)); }

static FT *ft_alloc(Ctx *c, int k) {
    FT *f = (FT *)gc_alloc(c->L, sizeof(FT) + (sizeof(CT *) << k));
    f->k = k;
    return f;
}
static CT *ft_at(const FT *f, unsigned s) { return f->s[s & ((1u << f->k) - 1)]; }
static FT *ft_const(Ctx *c, CT *t) {
    FT *f = ft_alloc(c, 0);
    f->deps = 0;
    f->s[0] = t;
    return f;
}

static int ft_emptiness(Ctx *c, FT *f);
static FT *ft_inter(Ctx *c, FT *a, FT *b);
static FT *ft_compl(Ctx *c, FT *a);

static PSet pset_one(Ctx *c, FT *a, FT *b) {
    Prod *p = (Prod *)gc_alloc(c->L, sizeof(Prod));
    p->a = a;
    p->b = b;
    return (PSet){1, p};
}

static PSet pset_union(Ctx *c, PSet a, PSet b) {
    if (!a.n) return b;
    if (!b.n) return a;
    Prod *v = (Prod *)gc_alloc(c->L, sizeof(Prod) * (size_t)(a.n + b.n));
    memcpy(v, a.v, sizeof(Prod) * (size_t)a.n);
    memcpy(v + a.n, b.v, sizeof(Prod) * (size_t)b.n);
    return (PSet){a.n + b.n, v};
}

static PSet pset_inter(Ctx *c, PSet a, PSet b) {
    if (!a.n || !b.n) return (PSet){0, NULL};
    Prod *v = (Prod *)gc_alloc(c->L, sizeof(Prod) * (size_t)(a.n * b.n));
    int m = 0;
    for (int i = 0; i < a.n; i++)
        for (int j = 0; j < b.n; j++) {
            work(c);
            if (c->overflow) return (PSet){0, NULL};
            FT *x = ft_inter(c, a.v[i].a, b.v[j].a);
            if (ft_emptiness(c, x) == TRI_EMPTY) continue;
            FT *y = ft_inter(c, a.v[i].b, b.v[j].b);
            if (ft_emptiness(c, y) == TRI_EMPTY) continue;
            v[m].a = x;
            v[m].b = y;
            m++;
        }
    return (PSet){m, v};
}

/* complement within the products over U x U */
static PSet pset_compl(Ctx *c, PSet p, FT *u) {
    PSet r = pset_one(c, u, u);
    for (int i = 0; i < p.n && r.n && !c->overflow; i++) {
        PSet t = pset_union(c, pset_one(c, ft_inter(c, u, ft_compl(c, p.v[i].a)), u),
                            pset_one(c, u, ft_inter(c, u, ft_compl(c, p.v[i].b))));
        r = pset_inter(c, r, t);
    }
    return r;
}

static int pset_emptiness(Ctx *c, PSet p) {
    int res = TRI_EMPTY;
    for (int i = 0; i < p.n; i++) {
        int ea = ft_emptiness(c, p.v[i].a);
        if (ea == TRI_EMPTY) continue;
        int eb = ft_emptiness(c, p.v[i].b);
        if (eb == TRI_EMPTY) continue;
        if (ea == TRI_NONEMPTY && eb == TRI_NONEMPTY) return TRI_NONEMPTY;
        res = TRI_UNKNOWN;
    }
    return res;
}

static CT *ct_union(Ctx *c, CT *a, CT *b) {
    if (a == c->empty || a == b) return b;
    if (b == c->empty) return a;
    if (a == c->univ || b == c->univ) return c->univ;
    Lisp *L = c->L;
    CT *r = ct_new(c);
    r->misc = a->misc | b->misc;
    r->ints = iset_union(L, a->ints, b->ints, IK_INT);
    r->ratios = iset_union(L, a->ratios, b->ratios, IK_RATIO);
    r->singles = iset_union(L, a->singles, b->singles, IK_FLOAT);
    r->doubles = iset_union(L, a->doubles, b->doubles, IK_FLOAT);
    r->chars = iset_union(L, a->chars, b->chars, IK_INT);
    r->kws = fs_union(L, a->kws, b->kws);
    r->syms = fs_union(L, a->syms, b->syms);
    r->conses = pset_union(c, a->conses, b->conses);
    r->cplx = pset_union(c, a->cplx, b->cplx);
    r->arrs = aset_union(L, a->arrs, b->arrs);
    return r;
}

static CT *ct_inter(Ctx *c, CT *a, CT *b) {
    if (a == c->univ || a == b) return b;
    if (b == c->univ) return a;
    if (a == c->empty || b == c->empty) return c->empty;
    Lisp *L = c->L;
    work(c);
    CT *r = ct_new(c);
    r->misc = a->misc & b->misc;
    r->ints = iset_inter(L, a->ints, b->ints, IK_INT);
    r->ratios = iset_inter(L, a->ratios, b->ratios, IK_RATIO);
    r->singles = iset_inter(L, a->singles, b->singles, IK_FLOAT);
    r->doubles = iset_inter(L, a->doubles, b->doubles, IK_FLOAT);
    r->chars = iset_inter(L, a->chars, b->chars, IK_INT);
    r->kws = fs_inter(L, a->kws, b->kws);
    r->syms = fs_inter(L, a->syms, b->syms);
    r->conses = pset_inter(c, a->conses, b->conses);
    r->cplx = pset_inter(c, a->cplx, b->cplx);
    r->arrs = aset_inter(L, a->arrs, b->arrs);
    return r;
}

static CT *ct_compl(Ctx *c, CT *a) {
    if (a == c->empty) return c->univ;
    if (a == c->univ) return c->empty;
    Lisp *L = c->L;
    work(c);
    CT *r = ct_new(c);
    r->misc = M_ALL & ~a->misc;
    r->ints = iset_compl(L, a->ints, IK_INT);
    r->ratios = iset_compl(L, a->ratios, IK_RATIO);
    r->singles = iset_compl(L, a->singles, IK_FLOAT);
    r->doubles = iset_compl(L, a->doubles, IK_FLOAT);
    r->chars = iset_inter(L, iset_compl(L, a->chars, IK_INT), chars_range(L, 0, CHAR_MAX_CODE), IK_INT);
    r->kws = fs_compl(a->kws);
    r->syms = fs_compl(a->syms);
    r->conses = pset_compl(c, a->conses, c->ft_univ);
    r->cplx = pset_compl(c, a->cplx, c->ft_real);
    r->arrs = aset_compl(L, a->arrs);
    return r;
}

static int ct_emptiness(Ctx *c, CT *t) {
    if (t == c->empty) return TRI_EMPTY;
    if (t->misc || t->ints.n || t->ratios.n || t->singles.n || t->doubles.n || t->chars.n ||
        !fs_empty(t->kws) || !fs_empty(t->syms) || t->arrs.n)
        return TRI_NONEMPTY;
    int e1 = pset_emptiness(c, t->conses);
    if (e1 == TRI_NONEMPTY) return e1;
    int e2 = pset_emptiness(c, t->cplx);
    if (e2 == TRI_NONEMPTY) return e2;
    return (e1 == TRI_UNKNOWN || e2 == TRI_UNKNOWN) ? TRI_UNKNOWN : TRI_EMPTY;
}

/* ---- full types: one exact type per assignment of the atoms ---- */

static FT *ft_binop(Ctx *c, FT *a, FT *b, bool inter) {
    uint32_t deps = a->deps | b->deps;
    if (deps == 0) {
        CT *x = a->s[0], *y = b->s[0];
        return ft_const(c, inter ? ct_inter(c, x, y) : ct_union(c, x, y));
    }
    FT *f = ft_alloc(c, c->k);
    f->deps = deps;
    for (unsigned s = 0; s < (1u << c->k); s++) {
        if (s & ~deps) { f->s[s] = f->s[s & deps]; continue; }
        CT *x = ft_at(a, s), *y = ft_at(b, s);
        f->s[s] = inter ? ct_inter(c, x, y) : ct_union(c, x, y);
    }
    return f;
}

static FT *ft_inter(Ctx *c, FT *a, FT *b) {
    if (a == c->ft_univ || a == b) return b;
    if (b == c->ft_univ) return a;
    if (a == c->ft_empty || b == c->ft_empty) return c->ft_empty;
    return ft_binop(c, a, b, true);
}

static FT *ft_union(Ctx *c, FT *a, FT *b) {
    if (a == c->ft_empty || a == b) return b;
    if (b == c->ft_empty) return a;
    if (a == c->ft_univ || b == c->ft_univ) return c->ft_univ;
    return ft_binop(c, a, b, false);
}

static FT *ft_compl(Ctx *c, FT *a) {
    if (a == c->ft_univ) return c->ft_empty;
    if (a == c->ft_empty) return c->ft_univ;
    if (a->deps == 0) return ft_const(c, ct_compl(c, a->s[0]));
    FT *f = ft_alloc(c, c->k);
    f->deps = a->deps;
    for (unsigned s = 0; s < (1u << c->k); s++) {
        if (s & ~a->deps) { f->s[s] = f->s[s & a->deps]; continue; }
        f->s[s] = ct_compl(c, ft_at(a, s));
    }
    return f;
}

/* class relations: 1 = c1 is a subclass of c2, 0 = not, 2 = unknown */
static int class_rel(Lisp *L, Obj c1, Obj c2) {
    if (c1 == c2) return 1;
    Obj hook = abi_upcall(L, S(P_CLASS_SUBTYPEP));   /* NIL only while the stdlib loads */
    if (hook != NIL) {
        Obj r = funcall2(L, hook, c1, c2);
        if (r == S(T)) return 1;
        if (r == NIL) return 0;
    }
    Obj anc = SYM(S(P_CLASS_ANCESTORS))->value;
    if (!is_type(anc, T_HASHTABLE)) return 2;
    Obj a1 = hash_get(L, anc, c1, NO_VALUE), a2 = hash_get(L, anc, c2, NO_VALUE);
    if (a1 == NO_VALUE || a2 == NO_VALUE) return 2;
    for (Obj x = a1; is_cons(x); x = CDR(x))
        if (CAR(x) == c2) return 1;
    return 0;
}

enum { CK_UNKNOWN, CK_STRUCTURE, CK_CONDITION, CK_STANDARD };

/* Which of the three disjoint families of classes the class named NAME belongs to. */
static int class_kind(Lisp *L, Obj name) {
    if (plist_prop(L, name, S(P_STRUCTURE_DESCRIPTION)) != NIL || class_rel(L, name, S(STRUCTURE_OBJECT)) == 1)
        return CK_STRUCTURE;
    if (class_rel(L, name, S(CONDITION)) == 1) return CK_CONDITION;
    if (class_rel(L, name, S(STANDARD_OBJECT)) == 1) return CK_STANDARD;
    return CK_UNKNOWN;
}

static int sigma_feasible(Ctx *c, unsigned s, uint32_t deps) {
    int eq = -1, neq = 0;
    for (int i = 0; i < c->k; i++)
        if ((deps >> i & 1) && c->atoms[i].kind == AK_EQL && (s >> i & 1)) { neq++; eq = i; }
    if (neq > 1) return TRI_EMPTY;
    if (eq >= 0) {
        for (int i = 0; i < c->k; i++)
            if ((deps >> i & 1) && c->atoms[i].kind == AK_CLASS) {
                bool in = type_typep(c->L, c->atoms[eq].key, c->atoms[i].key);
                if (in != (bool)(s >> i & 1)) return TRI_EMPTY;
            }
        return TRI_NONEMPTY;
    }
    bool unknown = false;
    /* two different opaque function types: whether one holds without the other is unknown */
    bool open_in = false, open_out = false;
    for (int i = 0; i < c->k; i++)
        if ((deps >> i & 1) && c->atoms[i].kind == AK_OPEN) {
            if (s >> i & 1) open_in = true; else open_out = true;
        }
    if (open_in && open_out) unknown = true;
    /* two classes, neither a subclass of the other: classes of different kinds (structure,
     * condition, standard object) or two structure classes share no instance; two standard
     * (or condition) classes may have a common subclass, now or later */
    for (int i = 0; i < c->k; i++) {
        if (!(deps >> i & 1) || c->atoms[i].kind != AK_CLASS || !(s >> i & 1)) continue;
        for (int j = i + 1; j < c->k; j++) {
            if (!(deps >> j & 1) || c->atoms[j].kind != AK_CLASS || !(s >> j & 1)) continue;
            if (c->rel[i][j] < 0) c->rel[i][j] = (int8_t)class_rel(c->L, c->atoms[i].key, c->atoms[j].key);
            if (c->rel[j][i] < 0) c->rel[j][i] = (int8_t)class_rel(c->L, c->atoms[j].key, c->atoms[i].key);
            if (c->rel[i][j] != 0 || c->rel[j][i] != 0) continue;
            int ki = class_kind(c->L, c->atoms[i].key), kj = class_kind(c->L, c->atoms[j].key);
            if (ki != CK_UNKNOWN && kj != CK_UNKNOWN && (ki != kj || ki == CK_STRUCTURE)) return TRI_EMPTY;
            unknown = true;
        }
    }
    for (int i = 0; i < c->k; i++) {
        if (!(deps >> i & 1) || c->atoms[i].kind != AK_CLASS || !(s >> i & 1)) continue;
        for (int j = 0; j < c->k; j++) {
            if (!(deps >> j & 1) || c->atoms[j].kind != AK_CLASS || (s >> j & 1)) continue;
            if (c->rel[i][j] < 0) c->rel[i][j] = (int8_t)class_rel(c->L, c->atoms[i].key, c->atoms[j].key);
            if (c->rel[i][j] == 1) return TRI_EMPTY;
            if (c->rel[i][j] == 2) unknown = true;
        }
    }
    return unknown ? TRI_UNKNOWN : TRI_NONEMPTY;
}

static CT *ct_misc(Ctx *c, uint32_t bits);

static int ft_emptiness(Ctx *c, FT *f) {
    if (f->deps == 0) return ct_emptiness(c, f->s[0]);
    bool sat = false;
    for (int i = 0; i < c->k; i++)
        if ((f->deps >> i & 1) && c->atoms[i].kind == AK_SAT) sat = true;
    int res = TRI_EMPTY;
    for (unsigned s = 0; s < (1u << c->k); s++) {
        if (s & ~f->deps) continue;
        int feas = sigma_feasible(c, s, f->deps);
        if (feas == TRI_EMPTY) continue;
        CT *e = ft_at(f, s);
        for (int i = 0; i < c->k && e != c->empty; i++)
            if ((f->deps >> i & 1) && (s >> i & 1)) e = ct_inter(c, e, c->atoms[i].carrier);
        int em = ct_emptiness(c, e);
        if (em == TRI_EMPTY) continue;
        for (int i = 0; i < c->k && em == TRI_NONEMPTY; i++)
            if ((f->deps >> i & 1) && (s >> i & 1) && c->atoms[i].fn_open &&
                ct_emptiness(c, ct_inter(c, e, ct_misc(c, M_ALL & ~(M_FN | M_FN_GENERIC | M_FN_INTERP)))) == TRI_EMPTY)
                em = TRI_UNKNOWN;
        if (em == TRI_NONEMPTY && feas == TRI_NONEMPTY && !sat) return TRI_NONEMPTY;
        res = TRI_UNKNOWN;
    }
    return res;
}

/* ---- building exact types ---- */

static CT *ct_misc(Ctx *c, uint32_t bits) {
    CT *t = ct_new(c);
    t->misc = bits;
    return t;
}

static CT *ct_conses(Ctx *c, FT *a, FT *b) {
    CT *t = ct_new(c);
    t->conses = pset_one(c, a, b);
    return t;
}

static CT *ct_arrays(Ctx *c, const ArrSpec *as) {
    Lisp *L = c->L;
    ATerm t = aterm_full();
    t.sm = as->simple ? 1 : 3;
    t.em = as->ue == -1 ? EM_ALL : as->ue == -2 ? (uint8_t)(1 << UE_CHARACTER | 1 << UE_BASE_CHAR) : (uint8_t)(1 << as->ue);
    if (as->rank >= 0) {
        t.ranks = fs_one(L, FIX(as->rank));
        if (as->has_dims && as->rank > 0) {
            t.axes = (FSet *)gc_alloc(L, sizeof(FSet) * (size_t)as->rank);
            for (int k = 0; k < as->rank; k++)
                t.axes[k] = as->dim_any[k] ? fs_all() : fs_one(L, FIX((intptr_t)as->dims[k]));
        }
    }
    CT *r = ct_new(c);
    int cap = 0;
    aset_add(L, &r->arrs, &cap, t);
    return r;
}

static CT *ct_numeric(Ctx *c, const NumSpec *ns) {
    Lisp *L = c->L;
    CT *t = ct_new(c);
    switch (ns->cls) {
    case NC_INTEGER:
        if (ns->bignum)
            t->ints = iset_compl(L, iset_range(L, IK_INT, FIX(MOST_NEGATIVE_FIXNUM), false, FIX(MOST_POSITIVE_FIXNUM), false), IK_INT);
        else t->ints = iset_range(L, IK_INT, ns->lo, ns->lox, ns->hi, ns->hix);
        break;
    case NC_RATIO: t->ratios = iset_all(L); break;
    case NC_RATIONAL:
        t->ints = iset_range(L, IK_INT, ns->lo, ns->lox, ns->hi, ns->hix);
        t->ratios = iset_range(L, IK_RATIO, ns->lo, ns->lox, ns->hi, ns->hix);
        break;
    case NC_REAL:
        t->ints = iset_range(L, IK_INT, ns->lo, ns->lox, ns->hi, ns->hix);
        t->ratios = iset_range(L, IK_RATIO, ns->lo, ns->lox, ns->hi, ns->hix);
        /* fall through */
    case NC_FLOAT:
        t->singles = iset_range(L, IK_FLOAT, ns->lo, ns->lox, ns->hi, ns->hix);
        t->doubles = iset_range(L, IK_FLOAT, ns->lo, ns->lox, ns->hi, ns->hix);
        break;
    case NC_SINGLE: t->singles = iset_range(L, IK_FLOAT, ns->lo, ns->lox, ns->hi, ns->hix); break;
    case NC_DOUBLE: t->doubles = iset_range(L, IK_FLOAT, ns->lo, ns->lox, ns->hi, ns->hix); break;
    default: {
        t->ints = iset_all(L);
        t->ratios = iset_all(L);
        t->singles = iset_all(L);
        t->doubles = iset_all(L);
        t->cplx = pset_one(c, c->ft_real, c->ft_real);
        break;
    }
    }
    return t;
}

static uint32_t stream_bit(Obj s) {
    switch (((Header *)s)->aux) {
    case SK_STRING_IN: case SK_STRING_OUT: case SK_STRING_FILL: return M_ST_STRING;
    case SK_FD: return M_ST_FILE;
    case SK_SYNONYM: return M_ST_SYNONYM;
    case SK_BROADCAST: return M_ST_BROADCAST;
    case SK_TWO_WAY: return M_ST_TWOWAY;
    case SK_ECHO: return M_ST_ECHO;
    case SK_CONCATENATED: return M_ST_CONCAT;
    default: return M_ST_OTHER;
    }
}

/* The exact type of one object (as precise as the representation allows). */
static CT *ct_of_object(Ctx *c, Obj x, int depth) {
    Lisp *L = c->L;
    CT *t = ct_new(c);
    if (is_integer(x)) { t->ints = iset_point(L, x, IK_INT); return t; }
    if (is_ratio(x)) { t->ratios = iset_point(L, x, IK_RATIO); return t; }
    if (is_single(x)) { t->singles = iset_point(L, x, IK_FLOAT); return t; }
    if (is_double(x)) { t->doubles = iset_point(L, x, IK_FLOAT); return t; }
    if (is_char(x)) { t->chars = chars_range(L, char_code(x), char_code(x)); return t; }
    if (x == NIL) { t->misc = M_NULL; return t; }
    if (is_type(x, T_SYMBOL)) {
        if (is_keyword(L, x)) t->kws = fs_one(L, x); else t->syms = fs_one(L, x);
        return t;
    }
    if (is_cons(x)) {
        if (depth > 6) t->conses = pset_one(c, c->ft_univ, c->ft_univ);
        else t->conses = pset_one(c, ft_const(c, ct_of_object(c, CAR(x), depth + 1)),
                                  ft_const(c, ct_of_object(c, CDR(x), depth + 1)));
        return t;
    }
    if (is_type(x, T_COMPLEX)) {
        t->cplx = pset_one(c, ft_const(c, ct_of_object(c, CPLX(x)->re, depth + 1)),
                           ft_const(c, ct_of_object(c, CPLX(x)->im, depth + 1)));
        return t;
    }
    if (is_array(x)) {
        int rank = array_rank(x);
        ATerm a = {(uint8_t)(array_is_simple(x) ? 1 : 2), (uint8_t)(1 << array_uelt(x)), fs_one(L, FIX(rank)), NULL};
        if (rank > 0) {
            a.axes = (FSet *)gc_alloc(L, sizeof(FSet) * (size_t)rank);
            for (int k = 0; k < rank; k++) a.axes[k] = fs_one(L, FIX((intptr_t)array_dimension(x, k)));
        }
        int cap = 0;
        aset_add(L, &t->arrs, &cap, a);
        return t;
    }
    switch (heap_type(x)) {
    case T_HASHTABLE: t->misc = M_HASH; break;
    case T_PACKAGE: t->misc = M_PACKAGE; break;
    case T_READTABLE: t->misc = M_READTABLE; break;
    case T_RANDOM_STATE: t->misc = M_RANDOM; break;
    case T_PATHNAME: t->misc = logical_pathname_p(x) ? M_LPATHNAME : M_PATHNAME; break;
    case T_STREAM: t->misc = stream_bit(x); break;
    case T_PRIMITIVE: case T_CLOSURE: t->misc = M_FN; break;
    case T_FUNCALLABLE: t->misc = M_FN_GENERIC; break;
    case T_INSTANCE: t->misc = M_INSTANCE; break;
    default: t->misc = M_OTHER; break;
    }
    return t;
}

static CT *ct_atomic(Ctx *c, BType bt) {
    Lisp *L = c->L;
    CT *t;
    switch (bt) {
    case BT_T: return c->univ;
    case BT_NIL: return c->empty;
    case BT_ATOM: return ct_compl(c, ct_conses(c, c->ft_univ, c->ft_univ));
    case BT_SYMBOL: t = ct_misc(c, M_NULL); t->kws = fs_all(); t->syms = fs_all(); return t;
    case BT_KEYWORD: t = ct_new(c); t->kws = fs_all(); return t;
    case BT_BOOLEAN: t = ct_misc(c, M_NULL); t->syms = fs_one(L, S(T)); return t;
    case BT_LIST: t = ct_conses(c, c->ft_univ, c->ft_univ); t->misc = M_NULL; return t;
    case BT_CONS: return ct_conses(c, c->ft_univ, c->ft_univ);
    case BT_NULL: return ct_misc(c, M_NULL);
    case BT_CHARACTER: t = ct_new(c); t->chars = chars_range(L, 0, CHAR_MAX_CODE); return t;
    case BT_BASE_CHAR: t = ct_new(c); t->chars = chars_range(L, 0, 127); return t;
    case BT_STANDARD_CHAR:
        t = ct_new(c);
        t->chars = iset_union(L, chars_range(L, 10, 10), chars_range(L, 32, 126), IK_INT);
        return t;
    case BT_EXTENDED_CHAR: t = ct_new(c); t->chars = chars_range(L, 128, CHAR_MAX_CODE); return t;
    case BT_SEQUENCE: {
        t = ct_conses(c, c->ft_univ, c->ft_univ);
        t->misc = M_NULL | M_EXTSEQ;
        ATerm a = aterm_full();
        a.ranks = fs_one(L, FIX(1));
        int cap = 0;
        aset_add(L, &t->arrs, &cap, a);
        return t;
    }
    case BT_COMPLEX: t = ct_new(c); t->cplx = pset_one(c, c->ft_real, c->ft_real); return t;
    case BT_FUNCTION: return ct_misc(c, M_FN | M_FN_GENERIC | M_FN_INTERP);
    case BT_COMPILED_FUNCTION: return ct_misc(c, M_FN | M_FN_GENERIC);
    case BT_HASH_TABLE: return ct_misc(c, M_HASH);
    case BT_PACKAGE: return ct_misc(c, M_PACKAGE);
    case BT_READTABLE: return ct_misc(c, M_READTABLE);
    case BT_RANDOM_STATE: return ct_misc(c, M_RANDOM);
    case BT_PATHNAME: return ct_misc(c, M_PATHNAME | M_LPATHNAME);
    case BT_LOGICAL_PATHNAME: return ct_misc(c, M_LPATHNAME);
    case BT_STREAM: return ct_misc(c, M_STREAMS);
    case BT_FILE_STREAM: return ct_misc(c, M_ST_FILE);
    case BT_STRING_STREAM: return ct_misc(c, M_ST_STRING);
    case BT_SYNONYM_STREAM: return ct_misc(c, M_ST_SYNONYM);
    case BT_BROADCAST_STREAM: return ct_misc(c, M_ST_BROADCAST);
    case BT_CONCATENATED_STREAM: return ct_misc(c, M_ST_CONCAT);
    case BT_ECHO_STREAM: return ct_misc(c, M_ST_ECHO);
    case BT_TWO_WAY_STREAM: return ct_misc(c, M_ST_TWOWAY);
    default: return c->univ;
    }
}

static FT *ft_atom(Ctx *c, int kind, Obj key, CT *carrier) {
    int i;
    for (i = 0; i < c->k; i++) {
        Atom *a = &c->atoms[i];
        if (a->kind == kind && (kind == AK_SAT || kind == AK_OPEN ? lisp_equal(c->L, a->key, key) : lisp_eql(a->key, key))) break;
    }
    if (i == c->k) {
        if (c->k == MAXA) { c->overflow = true; return c->ft_univ; }
        c->atoms[i] = (Atom){kind, key, carrier, false};
        c->k++;
    }
    FT *f = ft_alloc(c, c->k);
    f->deps = 1u << i;
    for (unsigned s = 0; s < (1u << c->k); s++) f->s[s] = (s >> i & 1) ? carrier : c->empty;
    return f;
}

static FT *class_atom(Ctx *c, Obj name) {
    Lisp *L = c->L;
    uint32_t bits = M_INSTANCE;
    if (name == S(GENERIC_FUNCTION) || name == S(STANDARD_GENERIC_FUNCTION)) bits = M_FN_GENERIC;
    else if (name == S(RESTART)) bits = M_INSTANCE | M_OTHER;
    else if (name == gray_stream_class_name(L)) bits = M_INSTANCE;   /* SBCL: no stream is a function */
    else if (name == S(STANDARD_OBJECT)) bits = M_INSTANCE | M_FN_GENERIC;
    else if (builtin_id(c->L, name) != BT_CLASS)
        /* a user's standard class may have funcallable subclasses; structures and conditions not */
        bits = class_kind(L, name) == CK_STANDARD ? M_INSTANCE | M_FN_GENERIC : M_INSTANCE;
    FT *f = ft_atom(c, AK_CLASS, name, ct_misc(c, bits));
    for (int i = 0; i < c->k; i++)
        if (c->atoms[i].kind == AK_CLASS && c->atoms[i].key == name)
            c->atoms[i].fn_open = bits == (M_INSTANCE | M_FN_GENERIC) && name != S(STANDARD_OBJECT);
    return f;
}

static FT *conv(Ctx *c, Obj spec);

static FT *conv_members(Ctx *c, Obj objs) {
    CT *exact = c->empty;
    FT *r = c->ft_empty;
    for (Obj a = objs; is_cons(a) && !c->overflow; a = CDR(a)) {
        Obj x = CAR(a);
        if (is_number(x) || is_char(x) || is_symbol(x)) exact = ct_union(c, exact, ct_of_object(c, x, 0));
        else r = ft_union(c, r, ft_atom(c, AK_EQL, x, ct_of_object(c, x, 0)));
    }
    return ft_union(c, r, ft_const(c, exact));
}

static FT *conv_symbol(Ctx *c, Obj sym) {
    Lisp *L = c->L;
    BType bt = builtin_id(L, sym);
    if (bt == BT_CLASS) return class_atom(c, sym);
    if (bt == BT_STREAM) {
        /* STREAM also holds the Gray streams: instances of FUNDAMENTAL-STREAM's subclasses */
        Obj gray = gray_stream_class_name(L);
        if (gray != NIL) return ft_union(c, ft_const(c, ct_atomic(c, bt)), class_atom(c, gray));
    }
    if (bt != BT_NONE) {
        if (is_array_bt(bt)) {
            ArrSpec as;
            parse_array_spec(L, bt, sym, NIL, &as);
            return ft_const(c, ct_arrays(c, &as));
        }
        NumSpec ns;
        if (parse_num_spec(L, bt, sym, NIL, &ns)) return ft_const(c, ct_numeric(c, &ns));
        switch (bt) {
        case BT_AND: case BT_OR: case BT_NOT: case BT_EQL: case BT_SATISFIES: case BT_MEMBER: case BT_VALUES:
            err_simple(L, "bad thing to be a type specifier: %S", sym);
        default: return ft_const(c, ct_atomic(c, bt));
        }
    }
    if (is_function(plist_prop(L, sym, S(P_TYPE_EXPANDER)))) return conv(c, type_expand(L, sym));
    if (class_name_p(L, sym)) return class_atom(c, sym);
    return ft_atom(c, AK_SAT, sym, c->univ);
}

static FT *conv_compound(Ctx *c, Obj spec) {
    Lisp *L = c->L;
    Obj head = CAR(spec), args = CDR(spec);
    if (!is_symbol(head)) err_simple(L, "bad thing to be a type specifier: %S", spec);
    BType bt = builtin_id(L, head);
    if (bt == BT_NONE || bt == BT_CLASS) {
        if (is_function(plist_prop(L, head, S(P_TYPE_EXPANDER)))) return conv(c, type_expand(L, spec));
        return ft_atom(c, AK_SAT, spec, c->univ);
    }
    if (is_array_bt(bt)) {
        ArrSpec as;
        parse_array_spec(L, bt, spec, args, &as);
        return ft_const(c, ct_arrays(c, &as));
    }
    NumSpec ns;
    if (parse_num_spec(L, bt, spec, args, &ns)) return ft_const(c, ct_numeric(c, &ns));
    switch (bt) {
    case BT_AND: {
        list_len(L, spec, args);
        FT *r = c->ft_univ;
        for (Obj a = args; is_cons(a) && !c->overflow; a = CDR(a)) r = ft_inter(c, r, conv(c, CAR(a)));
        return r;
    }
    case BT_OR: {
        list_len(L, spec, args);
        FT *r = c->ft_empty;
        for (Obj a = args; is_cons(a) && !c->overflow; a = CDR(a)) r = ft_union(c, r, conv(c, CAR(a)));
        return r;
    }
    case BT_NOT:
        check_nargs(L, spec, args, 1, 1);
        return ft_compl(c, conv(c, CAR(args)));
    case BT_MEMBER:
        list_len(L, spec, args);
        return conv_members(c, args);
    case BT_EQL:
        check_nargs(L, spec, args, 1, 1);
        return conv_members(c, args);
    case BT_SATISFIES:
        check_nargs(L, spec, args, 1, 1);
        return ft_atom(c, AK_SAT, spec, c->univ);
    case BT_CONS: {
        check_nargs(L, spec, args, 0, 2);
        Obj ca = is_cons(args) ? CAR(args) : S(STAR);
        Obj cd = is_cons(args) && is_cons(CDR(args)) ? CAR(CDR(args)) : S(STAR);
        FT *a = ca == S(STAR) ? c->ft_univ : conv(c, ca);
        FT *b = cd == S(STAR) ? c->ft_univ : conv(c, cd);
        return ft_const(c, ct_conses(c, a, b));
    }
    case BT_COMPLEX: {
        check_nargs(L, spec, args, 0, 1);
        Obj pt = is_cons(args) ? CAR(args) : S(STAR);
        FT *p = pt == S(STAR) ? c->ft_real : ft_inter(c, c->ft_real, conv(c, pt));
        CT *t = ct_new(c);
        t->cplx = pset_one(c, p, p);
        return ft_const(c, t);
    }
    case BT_FUNCTION: {
        CT *fn = ct_atomic(c, BT_FUNCTION);
        list_len(L, spec, args);
        bool trivial = true;
        for (Obj a = args; is_cons(a); a = CDR(a))
            if (CAR(a) != S(STAR)) trivial = false;
        return trivial ? ft_const(c, fn) : ft_atom(c, AK_OPEN, spec, fn);
    }
    case BT_VALUES:
        err_simple(L, "VALUES type illegal in this context:\n %S", spec);
    default:
        if (args == NIL) return conv_symbol(c, head);
        err_simple(L, "bad type specifier: %S", spec);
    }
}

static FT *conv(Ctx *c, Obj spec) {
    stack_check(c->L);
    work(c);
    if (c->overflow) return c->ft_univ;
    if (is_symbol(spec)) return conv_symbol(c, spec);
    if (is_cons(spec)) return conv_compound(c, spec);
    if (is_instance_obj(spec)) {
        /* a class object with a proper name is the type that name designates (CLOS) */
        Lisp *L = c->L;
        Obj hook = abi_upcall(L, S(P_CLASS_PROPER_NAME));   /* NIL only while the stdlib loads */
        if (hook != NIL) {
            Obj name = funcall1(c->L, hook, spec);
            if (name != NIL && is_symbol(name)) return conv_symbol(c, name);
        }
        return ft_atom(c, AK_SAT, spec, c->univ);
    }
    Lisp *L = c->L;
    err_type(L, spec, L3(L, S(OR), S(CONS), S(SYMBOL)));
}

static void ctx_init(Ctx *c, Lisp *L) {
    memset(c, 0, sizeof *c);
    c->L = L;
    memset(c->rel, -1, sizeof c->rel);
    c->empty = ct_new(c);
    c->ft_empty = ft_const(c, c->empty);
    c->univ = ct_new(c);
    c->ft_univ = ft_const(c, c->univ);
    c->real = ct_new(c);
    c->real->ints = c->real->ratios = iset_all(L);
    c->real->singles = c->real->doubles = iset_all(L);
    c->ft_real = ft_const(c, c->real);
    CT *u = c->univ;
    u->misc = M_ALL;
    u->ints = u->ratios = u->singles = u->doubles = iset_all(L);
    u->chars = chars_range(L, 0, CHAR_MAX_CODE);
    u->kws = u->syms = fs_all();
    u->conses = pset_one(c, c->ft_univ, c->ft_univ);
    u->cplx = pset_one(c, c->ft_real, c->ft_real);
    int cap = 0;
    aset_add(L, &u->arrs, &cap, aterm_full());
}

/* The same type specifier: conses compared by structure, everything else by EQL, so that
 * (eql "abc") and (eql "abc") naming two different strings are not taken to be one type. */
static bool same_spec(Lisp *L, Obj a, Obj b, int depth) {
    if (depth > 1000) return false;
    bool objects = is_cons(a) && (CAR(a) == S(EQL) || CAR(a) == S(MEMBER));   /* compared by EQL */
    while (is_cons(a) && is_cons(b)) {
        if (objects ? !lisp_eql(CAR(a), CAR(b)) : !same_spec(L, CAR(a), CAR(b), depth + 1)) return false;
        a = CDR(a);
        b = CDR(b);
    }
    return lisp_eql(a, b);
}

bool type_subtypep(Lisp *L, Obj t1, Obj t2, bool *certain) {
    *certain = true;
    Ctx c;
    ctx_init(&c, L);
    FT *a = conv(&c, t1);       /* converting both also checks their syntax */
    FT *b = conv(&c, t2);
    if (t1 == t2 || t2 == S(T) || t1 == NIL || same_spec(L, t1, t2, 0)) return true;
    int e = TRI_UNKNOWN;
    if (!c.overflow) {
        FT *d = ft_inter(&c, a, ft_compl(&c, b));
        if (!c.overflow) e = ft_emptiness(&c, d);
    }
    if (c.overflow || e == TRI_UNKNOWN) {
        /* a class without a proper name (made by MAKE-INSTANCE of a metaclass) is an opaque atom
         * above; against a class, its precedence list decides */
        if ((is_instance_obj(t1) || is_instance_obj(t2)) && (is_instance_obj(t1) || is_symbol(t1)) &&
            (is_instance_obj(t2) || is_symbol(t2))) {
            int r = class_rel(L, t1, t2);
            if (r != 2) return r == 1;
        }
        *certain = false;
        return false;
    }
    return e == TRI_EMPTY;
}

/* ------------------------------------------------------------------ */
/* COERCE                                                              */

_Noreturn static void err_simple_type(Lisp *L, Obj datum, Obj expected, const char *control, Obj fargs) {
    err_condition(L, S(SIMPLE_TYPE_ERROR),
                  list_from_array(L, 8, (Obj[]){S(K_DATUM), datum, S(K_EXPECTED_TYPE), expected, S(K_FORMAT_CONTROL),
                                                string_from_cstr(L, control), S(K_FORMAT_ARGUMENTS), fargs}));
}

_Noreturn static void err_coerce(Lisp *L, Obj x, Obj type) {
    err_simple_type(L, x, type, "~S can't be converted to type ~S.", L2(L, x, type));
}

static Obj mk_complex(Lisp *L, Obj re, Obj im) {
    if (is_rational(re) && im == FIX(0)) return re;
    Complex *z = (Complex *)heap_alloc(L, T_COMPLEX, sizeof(Complex));
    z->re = re;
    z->im = im;
    return (Obj)z;
}

static Obj to_float(Lisp *L, Obj x, bool dbl) {
    if (!is_real(x)) err_type(L, x, S(REAL));
    if (dbl ? is_double(x) : is_single(x)) return x;
    /* the numeric tower converts with one correct rounding (rationals straight to single-float) */
    return number_to_float(L, x, dbl ? make_double(L, 1.0) : make_single(1.0f));
}

static bool certainly_subtype(Lisp *L, Obj a, Obj b) {
    bool certain;
    return type_subtypep(L, a, b, &certain) && certain;
}

static Obj coerce_to_character(Lisp *L, Obj x, Obj spec) {
    Obj ch = NO_VALUE;
    if (is_char(x)) ch = x;
    else if (is_string(x) || is_symbol(x)) {
        Obj s = is_symbol(x) ? symbol_name(L, x) : x;
        if (STR(s)->len == 1) ch = make_char(STR(s)->data[0]);
        else if (is_string(x))
            err_simple_type(L, x, L3(L, S(OR), S(CHARACTER), L2(L, S(STRING), FIX(1))), "String is not of length one: ~S",
                            cons(L, x, NIL));
    }
    if (ch == NO_VALUE)
        err_simple_type(L, x, L3(L, S(OR), S(CHARACTER), L2(L, S(STRING), FIX(1))), "~S cannot be coerced to a character.",
                        cons(L, x, NIL));
    if (!type_typep(L, ch, spec)) err_coerce(L, x, spec);
    return ch;
}

static Obj coerce_to_function(Lisp *L, Obj x, Obj spec) {
    if (is_symbol(x)) {
        if (special_operator_p(L, x)) err_simple(L, "%S names a special operator.", x);
        if (macro_function(L, x, NIL) != NIL) err_simple(L, "%S names a macro.", x);
        Obj f = fdefinition_get(L, x);
        if (f == UNBOUND) err_undefined_function(L, x);
        return f;
    }
    if (is_cons(x) && CAR(x) == S(LAMBDA)) return lisp_eval(L, L2(L, S(FUNCTION), x));
    err_coerce(L, x, spec);
}

static Obj coerce_to_complex(Lisp *L, Obj x, Obj spec, Obj part) {
    if (!is_number(x)) err_coerce(L, x, spec);
    bool to_float_parts = part != S(STAR) && certainly_subtype(L, part, S(FLOAT));
    bool dbl = to_float_parts && certainly_subtype(L, part, S(DOUBLE_FLOAT));
    if (is_type(x, T_COMPLEX)) {
        if (!to_float_parts) err_coerce(L, x, spec);
        return mk_complex(L, to_float(L, CPLX(x)->re, dbl), to_float(L, CPLX(x)->im, dbl));
    }
    if (to_float_parts) {
        Obj f = to_float(L, x, dbl);
        return mk_complex(L, f, dbl ? make_double(L, 0.0) : make_single(0.0f));
    }
    if (is_float(x)) return mk_complex(L, x, is_double(x) ? make_double(L, 0.0) : make_single(0.0f));
    return x;
}

/* Whether SPEC is a symbol naming a sequence type of that kind: known without SUBTYPEP, which
 * allocates and is far dearer than the copy for the short sequences COERCE mostly sees. */
static bool list_type_name_p(Obj spec, BType bt) {
    return is_symbol(spec) && (bt == BT_LIST || bt == BT_CONS || bt == BT_NULL);
}
static bool vector_type_name_p(Obj spec, BType bt) {
    return is_symbol(spec) && (bt == BT_VECTOR || bt == BT_SIMPLE_VECTOR || bt == BT_STRING ||
                               bt == BT_SIMPLE_STRING || bt == BT_BASE_STRING || bt == BT_SIMPLE_BASE_STRING ||
                               bt == BT_BIT_VECTOR || bt == BT_SIMPLE_BIT_VECTOR);
}

static Obj coerce_sequence(Lisp *L, Obj x, Obj spec, BType bt) {
    if (list_type_name_p(spec, bt) || (!vector_type_name_p(spec, bt) && certainly_subtype(L, spec, S(LIST)))) {
        Obj l = sequence_to_list(L, x);
        if (bt == BT_NULL && l != NIL)
            err_simple_type(L, FIX((intptr_t)sequence_length(L, x)), L2(L, S(EQL), FIX(0)),
                            "The length requested (~S) does not match the type restriction in ~S.",
                            L2(L, FIX((intptr_t)sequence_length(L, x)), S(NULL)));
        if (bt == BT_CONS && l == NIL)
            err_simple_type(L, FIX(0), L2(L, S(INTEGER), FIX(1)),
                            "The length requested (~S) does not match the type restriction in ~S.", L2(L, FIX(0), S(CONS)));
        return l;
    }
    if (!vector_type_name_p(spec, bt) && !certainly_subtype(L, spec, S(VECTOR))) err_coerce(L, x, spec);
    UElt ue = UE_T;
    intptr_t size = -1;
    if (is_array_bt(bt)) {
        ArrSpec as;
        parse_array_spec(L, bt, spec, is_cons(spec) ? CDR(spec) : NIL, &as);
        ue = as.ue == -1 ? UE_T : as.ue == -2 ? UE_CHARACTER : (UElt)as.ue;
        if (as.has_dims && as.rank == 1 && !as.dim_any[0]) size = (intptr_t)as.dims[0];
    } else if (certainly_subtype(L, spec, S(BASE_STRING))) ue = UE_BASE_CHAR;
    else if (certainly_subtype(L, spec, S(STRING))) ue = UE_CHARACTER;
    else if (certainly_subtype(L, spec, S(BIT_VECTOR))) ue = UE_BIT;
    else if (is_cons(spec) && !certainly_subtype(L, spec, L2(L, S(VECTOR), S(T))))
        /* (or (vector character) (vector t)): no one element type to make the vector with */
        err_coerce(L, x, spec);
    size_t n = sequence_length(L, x);
    if (size >= 0 && (size_t)size != n)
        err_simple_type(L, FIX((intptr_t)n), L2(L, S(EQL), FIX(size)),
                        "The length requested (~S) does not match the type restriction in ~S.", L2(L, FIX((intptr_t)n), spec));
    return vector_from_sequence(L, x, ue);
}

Obj type_coerce(Lisp *L, Obj x, Obj type) {
    Obj spec = type_expand(L, type);
    if (spec == S(T)) return x;
    if (type_typep(L, x, spec)) return x;
    Obj head = is_cons(spec) ? CAR(spec) : spec;
    BType bt = builtin_id(L, head);
    switch (bt) {
    case BT_CHARACTER:
        return coerce_to_character(L, x, spec);
    case BT_FUNCTION: case BT_COMPILED_FUNCTION:
        return coerce_to_function(L, x, spec);
    case BT_COMPLEX:
        return coerce_to_complex(L, x, spec, is_cons(spec) && is_cons(CDR(spec)) ? CAR(CDR(spec)) : S(STAR));
    default: break;
    }
    if (is_number(x) && certainly_subtype(L, spec, S(FLOAT))) {
        Obj f = to_float(L, x, certainly_subtype(L, spec, S(DOUBLE_FLOAT)));
        if (!type_typep(L, f, spec)) err_coerce(L, x, spec);
        return f;
    }
    if (is_list(x) || is_vector(x)) return coerce_sequence(L, x, spec, bt);
    err_coerce(L, x, spec);
}

/* ------------------------------------------------------------------ */
/* type names and declaration names (CLHS TYPE, DECLARATION)          */

bool type_name_p(Lisp *L, Obj sym) {
    if (!is_symbol(sym)) return false;
    if (builtin_id(L, sym) != BT_NONE) return true;
    if (is_function(plist_prop(L, sym, S(P_TYPE_EXPANDER)))) return true;
    return class_name_p(L, sym);
}

bool type_declaration_name_p(Lisp *L, Obj sym) {
    return is_symbol(sym) && plist_prop(L, sym, S(P_DECLARATION_NAME)) != NIL;
}

void type_proclaim_declaration(Lisp *L, Obj sym) {
    if (type_name_p(L, sym))
        err_simple(L, "%S names a type, so it cannot also be a declaration name.", sym);
    if (type_declaration_name_p(L, sym)) return;
    Symbol *s = symbol_data(L, sym);
    s->plist = cons(L, S(P_DECLARATION_NAME), cons(L, S(T), s->plist));
}

/* ------------------------------------------------------------------ */
/* primitives                                                          */

DEFPRIM(prim_type_of) { UNUSED_ARGS; return type_of(L, args[0]); }

DEFPRIM(prim_typep) { UNUSED_ARGS; return boolean(L, type_typep(L, args[0], args[1])); }

DEFPRIM(prim_subtypep) {
    UNUSED_ARGS;
    bool certain;
    bool r = type_subtypep(L, args[0], args[1], &certain);
    return values2(L, boolean(L, r), boolean(L, certain));
}

DEFPRIM(prim_coerce) { UNUSED_ARGS; return type_coerce(L, args[0], args[1]); }

DEFPRIM(prim_upgraded_complex_part_type) {
    UNUSED_ARGS;
    type_check_known(L, args[0]);
    return args[0];
}

/* (sys:%check-type-name-free name): signal when NAME was proclaimed a declaration name, before
 * DEFTYPE, DEFSTRUCT, DEFCLASS or DEFINE-CONDITION make it a type name */
DEFPRIM(prim_pct_check_type_name_free) {
    UNUSED_ARGS;
    if (type_declaration_name_p(L, args[0]))
        err_simple(L, "%S is a declaration name, so it cannot also name a type.", args[0]);
    return NIL;
}

/* (sys:%typexpand spec): SPEC with DEFTYPE definitions at its head expanded */
DEFPRIM(prim_pct_typexpand) { UNUSED_ARGS; return type_expand(L, args[0]); }

/* (sys:%known-type-p spec): whether every type name in SPEC is defined */
DEFPRIM(prim_pct_known_type_p) {
    UNUSED_ARGS;
    Obj spec = type_expand(L, args[0]);
    if (is_symbol(spec)) return boolean(L, builtin_id(L, spec) != BT_NONE || class_name_p(L, spec));
    if (is_cons(spec)) return boolean(L, is_symbol(CAR(spec)) && builtin_id(L, CAR(spec)) != BT_NONE);
    return NIL;
}

/* (sys:%check-slot-type value type slot): VALUE, when it is of TYPE (or the unbound marker);
 * otherwise the error of SYS::%SLOT-TYPE-ERROR. What a structure's constructor and writers call
 * for each slot with a declared type. */
DEFPRIM(prim_pct_check_slot_type) {
    UNUSED_ARGS;
    Obj v = args[0];
    if (v != S(P_UNBOUND_SLOT) && !typep_rec(L, v, args[1])) {
        funcall3(L, S(P_SLOT_TYPE_ERROR), v, args[1], args[2]);
        err_type(L, v, args[1]);
    }
    return v;
}

const PrimDef types_prims[] = {
    {"%CHECK-SLOT-TYPE", PK_SYS, prim_pct_check_slot_type, 3, 3, 0, "(value type slot)", NULL},
    {"TYPE-OF", PK_CL, prim_type_of, 1, 1, 0, "(object)", "The most specific standard type name (or compound type) that OBJECT belongs to, as SBCL reports it."},
    {"TYPEP", PK_CL, prim_typep, 2, 3, 0, "(object type-specifier &optional environment)", "True when OBJECT is of the type TYPE-SPECIFIER."},
    {"SUBTYPEP", PK_CL, prim_subtypep, 2, 3, FN_MV, "(type-1 type-2 &optional environment)", "Two values: whether TYPE-1 is a subtype of TYPE-2, and whether that answer is certain."},
    {"COERCE", PK_CL, prim_coerce, 2, 2, 0, "(object result-type)", "OBJECT converted to RESULT-TYPE: a sequence into another sequence type, a number into a float or complex type, a designator into a character or a function; OBJECT itself when it already has that type."},
    {"UPGRADED-COMPLEX-PART-TYPE", PK_CL, prim_upgraded_complex_part_type, 1, 2, 0, "(typespec &optional environment)", "The type the parts of a complex number actually get when TYPESPEC is requested for them."},
    {"%CHECK-TYPE-NAME-FREE", PK_SYS, prim_pct_check_type_name_free, 1, 1, 0, "(name)", NULL},
    {"%TYPEXPAND", PK_SYS, prim_pct_typexpand, 1, 1, 0, "(type-specifier)", NULL},
    {"%KNOWN-TYPE-P", PK_SYS, prim_pct_known_type_p, 1, 1, 0, "(type-specifier)", NULL},
    {0},
};

static Obj ancestors_of(Lisp *L, const char *name, int depth) {
    Obj self = intern_cstr(L, L->pkg_cl, name);
    Obj r = cons(L, self, NIL);
    if (depth > 20) return r;
    for (size_t i = 0; i < sizeof class_parents / sizeof *class_parents; i++) {
        if (strcmp(class_parents[i][0], name) != 0) continue;
        for (int p = 1; p < 4 && class_parents[i][p]; p++)
            for (Obj a = ancestors_of(L, class_parents[i][p], depth + 1); is_cons(a); a = CDR(a)) {
                bool have = false;
                for (Obj y = r; is_cons(y); y = CDR(y)) have |= CAR(y) == CAR(a);
                if (!have) r = cons(L, CAR(a), r);
            }
    }
    return r;
}

void types_init(Lisp *L) {
    prims_register(L, types_prims);
    for (size_t i = 0; i < sizeof builtin_rows / sizeof *builtin_rows; i++)
        SYM(L->syms[builtin_rows[i].sy])->h.aux32 = (uint32_t)builtin_rows[i].bt;
    Obj anc = hash_new(L, HT_EQ, 64);
    for (size_t i = 0; i < sizeof class_parents / sizeof *class_parents; i++)
        hash_put(L, anc, intern_cstr(L, L->pkg_cl, class_parents[i][0]), ancestors_of(L, class_parents[i][0], 0));
    SYM(S(P_CLASS_ANCESTORS))->value = anc;
    SYM(S(P_CLASS_ANCESTORS))->h.flags |= SYM_SPECIAL;
    SYM(S(P_TYPE_EXPANSIONS))->value = NIL;
    SYM(S(P_TYPE_EXPANSIONS))->h.flags |= SYM_SPECIAL;
}
