/* object.h: the representation of Lisp objects; the only file that knows the tag bits. */
#ifndef TINYCL_OBJECT_H
#define TINYCL_OBJECT_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <gmp.h>

/*
 * An Obj is one machine word. Low bits:
 *   ...xx1  fixnum, 63 bits, value = word >> 1
 *   ...000  pointer to a headered heap object
 *   ...010  pointer to a cons (two words, no header) plus 2
 *   ...100  character, code point = word >> 3
 *   ...110  other immediates, told apart by the low byte:
 *           0x06 NIL and the markers (value in bits 8..),
 *           0x0E single-float (IEEE bits in the upper 32 bits)
 */
typedef struct Object *Obj;
typedef struct Lisp Lisp;

#define OBJ(w) ((Obj)(uintptr_t)(w))
#define WORD(o) ((uintptr_t)(o))

#define TAG_MASK 7u
#define TAG_HEAP 0u
#define TAG_CONS 2u
#define TAG_CHAR 4u
#define TAG_IMM 6u

#define NIL OBJ(0x06)
#define UNBOUND OBJ(0x106)      /* unbound value or function cell */
#define UNWIND_MARK OBJ(0x206)  /* a lexically local return-from/go is travelling up the evaluator */
#define NO_VALUE OBJ(0x306)     /* internal "absent" marker (missing optional, empty hash slot) */
#define TOMBSTONE OBJ(0x406)    /* deleted hash table slot */

#define IMM_SINGLE 0x0Eu

static inline bool is_fixnum(Obj o) { return WORD(o) & 1u; }
static inline bool is_heap(Obj o) { return (WORD(o) & TAG_MASK) == TAG_HEAP && o != 0; }
static inline bool is_cons(Obj o) { return (WORD(o) & TAG_MASK) == TAG_CONS; }
static inline bool is_char(Obj o) { return (WORD(o) & TAG_MASK) == TAG_CHAR; }
static inline bool is_single(Obj o) { return (WORD(o) & 0xFFu) == IMM_SINGLE; }
static inline bool is_list(Obj o) { return o == NIL || is_cons(o); }

/* ---- fixnums ---- */
#define FIXNUM_BITS 63
#define MOST_POSITIVE_FIXNUM ((intptr_t)(((uintptr_t)1 << 62) - 1))
#define MOST_NEGATIVE_FIXNUM (-MOST_POSITIVE_FIXNUM - 1)
static inline Obj make_fixnum(intptr_t v) { return OBJ(((uintptr_t)v << 1) | 1u); }
static inline intptr_t fixnum_val(Obj o) { return (intptr_t)WORD(o) >> 1; }
static inline bool fixnum_fits(intptr_t v) { return v >= MOST_NEGATIVE_FIXNUM && v <= MOST_POSITIVE_FIXNUM; }
#define FIX(v) make_fixnum(v)
#define FIXVAL(o) fixnum_val(o)

/* Checked fixnum arithmetic for the fast paths (the evaluator's inline calls, +, -): true, with
 * the result in *OUT, when A and B are fixnums and so is the result; false sends the caller to
 * the generic path. The tagged words are added as they are ((2x+1) + (2y+1) - 1 = 2(x+y)+1), so
 * the range check is the processor's overflow flag. */
static inline bool fixnum_add_checked(Obj a, Obj b, Obj *out) {
    intptr_t r;
    if (!(is_fixnum(a) && is_fixnum(b)) || __builtin_add_overflow((intptr_t)WORD(a), (intptr_t)WORD(b) - 1, &r))
        return false;
    *out = OBJ(r);
    return true;
}
static inline bool fixnum_sub_checked(Obj a, Obj b, Obj *out) {
    intptr_t r;
    if (!(is_fixnum(a) && is_fixnum(b)) || __builtin_sub_overflow((intptr_t)WORD(a), (intptr_t)WORD(b) - 1, &r))
        return false;
    *out = OBJ(r);
    return true;
}
/* Whether fixnum A is below fixnum B (both must be fixnums): the tagged words order as the
 * values do. */
static inline bool fixnum_less(Obj a, Obj b) { return (intptr_t)WORD(a) < (intptr_t)WORD(b); }

/* ---- characters ---- */
#define CHAR_CODE_LIMIT 0x110000
static inline Obj make_char(uint32_t c) { return OBJ(((uintptr_t)c << 3) | TAG_CHAR); }
static inline uint32_t char_code(Obj o) { return (uint32_t)(WORD(o) >> 3); }

/* ---- single floats (immediate) ---- */
static inline Obj make_single(float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return OBJ(((uintptr_t)bits << 32) | IMM_SINGLE);
}
static inline float single_val(Obj o) {
    uint32_t bits = (uint32_t)(WORD(o) >> 32);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* ---- conses ---- */
typedef struct Cons { Obj car, cdr; } Cons;
static inline Cons *CONS(Obj o) { return (Cons *)(WORD(o) - TAG_CONS); }
static inline Obj cons_obj(Cons *c) { return OBJ(WORD(c) + TAG_CONS); }
#define CAR(o) (CONS(o)->car)
#define CDR(o) (CONS(o)->cdr)

/*
 * Heap object types: one table generates the enum and the type names.
 * X(ENUM, lisp-type-name)
 */
#define HEAP_TYPES(X)                          \
    X(SYMBOL, "SYMBOL")                        \
    X(BIGNUM, "BIGNUM")                        \
    X(RATIO, "RATIO")                          \
    X(DOUBLE, "DOUBLE-FLOAT")                  \
    X(COMPLEX, "COMPLEX")                      \
    X(STRING, "STRING")                        \
    X(VECTOR, "SIMPLE-VECTOR")                 \
    X(BITVECTOR, "BIT-VECTOR")                 \
    X(ARRAY, "ARRAY")                          \
    X(HASHTABLE, "HASH-TABLE")                 \
    X(PACKAGE, "PACKAGE")                      \
    X(PRIMITIVE, "COMPILED-FUNCTION")          \
    X(CLOSURE, "FUNCTION")                     \
    X(FUNCALLABLE, "GENERIC-FUNCTION")         \
    X(INSTANCE, "STANDARD-OBJECT")             \
    X(STREAM, "STREAM")                        \
    X(READTABLE, "READTABLE")                  \
    X(RANDOM_STATE, "RANDOM-STATE")            \
    X(PATHNAME, "PATHNAME")                    \
    X(ENVIRONMENT, "SB-KERNEL:LEXENV")         \
    X(WEAK_POINTER, "WEAK-POINTER")            \
    X(FOREIGN, "SYSTEM-AREA-POINTER")

typedef enum {
    T_NONE = 0,
#define X(e, n) T_##e,
    HEAP_TYPES(X)
#undef X
    T_COUNT
} HeapType;

typedef struct Header {
    uint8_t type;
    uint8_t flags;
    uint16_t aux;
    uint32_t aux32;
} Header;

static inline HeapType heap_type(Obj o) { return (HeapType)((Header *)o)->type; }
static inline bool is_type(Obj o, HeapType t) { return is_heap(o) && heap_type(o) == t; }

/* ---- symbols ---- */
enum {
    SYM_SPECIAL = 1,      /* proclaimed special */
    SYM_CONSTANT = 2,     /* defconstant */
    SYM_MACRO = 4,        /* function cell holds a macro expander */
    SYM_SPECIAL_OP = 8,   /* one of the special operators */
    SYM_GLOBAL_LEX = 16,  /* symbol-macro defined with define-symbol-macro */
    SYM_SNAPSHOT_MARK = 128, /* transient: already recorded by the snapshot being taken (snapshot.c) */
};
typedef struct Symbol {
    Header h;          /* aux: the special operator's index + 1; aux32: the built-in type named (types.c) */
    Obj name;          /* a simple string */
    Obj package;       /* home package or NIL */
    Obj value;         /* global/dynamic value or UNBOUND */
    Obj function;      /* function, macro expander, or UNBOUND */
    Obj plist;
    Obj setf_function; /* (setf name) function or UNBOUND */
    uint64_t hash;     /* sxhash of the name, cached */
} Symbol;
static inline bool is_symbol(Obj o) { return o == NIL || is_type(o, T_SYMBOL); }
#define SYM(o) ((Symbol *)(o))

/* ---- numbers ---- */
typedef struct Bignum { Header h; mpz_t z; } Bignum;
typedef struct Ratio { Header h; Obj num, den; } Ratio;
typedef struct Double { Header h; double d; } Double;
typedef struct Complex { Header h; Obj re, im; } Complex;
#define BIG(o) (((Bignum *)(o))->z)
#define RATIO(o) ((Ratio *)(o))
#define DBL(o) (((Double *)(o))->d)
#define CPLX(o) ((Complex *)(o))
static inline bool is_bignum(Obj o) { return is_type(o, T_BIGNUM); }
static inline bool is_integer(Obj o) { return is_fixnum(o) || is_bignum(o); }
static inline bool is_double(Obj o) { return is_type(o, T_DOUBLE); }
static inline bool is_float(Obj o) { return is_single(o) || is_double(o); }
static inline bool is_ratio(Obj o) { return is_type(o, T_RATIO); }
static inline bool is_rational(Obj o) { return is_integer(o) || is_ratio(o); }
static inline bool is_real(Obj o) { return is_rational(o) || is_float(o); }
static inline bool is_number(Obj o) { return is_real(o) || is_type(o, T_COMPLEX); }

/* ---- arrays ----
 * Strings, bit vectors and general arrays share the flags below. A string or bit
 * vector owns its storage directly (len = active length, i.e. the fill pointer
 * when there is one; cap = the allocated dimension). A simple-vector has inline
 * storage and no flags. Everything else (rank != 1, displaced, T-vectors with a
 * fill pointer or adjustable) is an Array. */
enum {
    ARR_FILL_POINTER = 1,
    ARR_ADJUSTABLE = 2,
    ARR_DISPLACED = 4,
    ARR_BASE = 8,      /* base-string (element type base-char) */
};
typedef struct String { Header h; size_t len, cap; uint32_t *data; } String;
typedef struct Vector { Header h; size_t len; Obj data[]; } Vector;
typedef struct BitVector { Header h; size_t len, cap; uint8_t *data; } BitVector;

typedef enum { ELT_T, ELT_CHARACTER, ELT_BIT, ELT_NIL,
               ELT_UB8 /* (unsigned-byte 8): fixnums 0..255 in a simple-vector storage */ } EltType;
typedef struct Array {
    Header h;          /* aux = rank, flags as above, aux32 = EltType */
    size_t fill;       /* fill pointer (rank 1 only) */
    size_t total;      /* total size (product of dims) */
    size_t *dims;
    Obj storage;       /* simple-vector, string or bit vector, or the array displaced to */
    size_t offset;     /* displaced index offset */
} Array;
#define STR(o) ((String *)(o))
#define VEC(o) ((Vector *)(o))
#define BITV(o) ((BitVector *)(o))
#define ARR(o) ((Array *)(o))
static inline bool is_string(Obj o) { return is_type(o, T_STRING); }
static inline bool is_simple_vector(Obj o) { return is_type(o, T_VECTOR); }

/* ---- hash tables ---- */
typedef enum { HT_EQ, HT_EQL, HT_EQUAL, HT_EQUALP } HashTest;
typedef struct HashEntry { Obj key, value; uint64_t hash; } HashEntry;
typedef struct HashTable {
    Header h;           /* aux = HashTest, flags: weakness */
    size_t count, cap, used; /* used counts live + tombstones */
    size_t size;        /* what HASH-TABLE-SIZE says: the :size asked for, or what it grew to */
    HashEntry *entries;
    Obj rehash_size, rehash_threshold;
    Obj test_fn;        /* the test designator as given (symbol), for hash-table-test */
    uint64_t iter_mod;  /* bumped when the table is rebuilt */
    Obj *strong;        /* a weak table's entries are not scanned (weak.h): the parts it holds
                         * strongly are kept here too, key at 2i, value at 2i+1 */
    unsigned long swept; /* a weak table: the collection after which it last dropped cleared entries */
} HashTable;
#define HT(o) ((HashTable *)(o))

/* ---- functions ---- */
typedef Obj (*PrimFn)(Lisp *L, int nargs, Obj *args);
enum {
    FN_MV = 1,          /* primitive sets L->nvals itself */
    FN_MACRO_EXPANDER = 2,
};
typedef struct Primitive {
    Header h;           /* flags FN_* */
    Obj name;
    PrimFn fn;
    int16_t min_args, max_args; /* max -1 = &rest */
    const char *lambda_list;
    const char *doc;
} Primitive;
#define PRIM(o) ((Primitive *)(o))

struct Lambda;
struct Env;
typedef struct Closure {
    Header h;
    Obj name;
    struct Lambda *lambda;
    struct Env *env;
} Closure;
#define CLOSURE(o) ((Closure *)(o))

/* Instances: structures, standard objects, conditions, and (as FUNCALLABLE)
 * generic functions. `layout` is the class (or class wrapper) the runtime's
 * CLOS layer defines; the C core treats it as opaque. */
/* INST_CLASS: a class metaobject (CLOS); INST_GENERIC: a generic function that runtime/clos.c
 * dispatches (the evaluator calls clos_dispatch instead of `fn`). */
/* INST_* header flags and the EMF_* cache tags: declared in lisp-abi.def, shared with Lisp */
enum {
#define ABI_CONST(group, cname, lisp, value) cname = value,
#include "lisp-abi.def"
};
typedef struct Instance {
    Header h;
    Obj layout;
    Obj *slots;
    size_t nslots;
    Obj fn;             /* FUNCALLABLE only: the function called */
} Instance;
#define INST(o) ((Instance *)(o))

static inline bool is_function(Obj o) {
    if (!is_heap(o)) return false;
    HeapType t = heap_type(o);
    return t == T_PRIMITIVE || t == T_CLOSURE || t == T_FUNCALLABLE;
}

/* ---- misc boxed ---- */
typedef struct WeakPointer { Header h; Obj value; } WeakPointer;
typedef struct Environment { Header h; void *aenv; } Environment;

/* The type-of style name of a heap type (for messages). */
extern const char *const heap_type_names[T_COUNT];

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#endif
