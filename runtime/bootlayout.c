/* bootlayout.c: what a start touches of the boot image, so that the writer puts it first.
 *
 * The image's blocks a start reads are mapped from the executable as they are; every other page
 * is compressed and inflated when first touched (imagecold.h), so the hot set decides both how
 * many pages a start maps and how many it inflates. A start reads the packages and their symbol
 * tables (interning, printing), every symbol and its name (the start-up snapshot compares each
 * symbol of the image with the executable's bytes: snapshot.c), the snapshot the image carries,
 * the words of the interpreter structure, and runs the restart functions and the session's
 * evaluation (their analysed code). The list errs on the side of more: a block listed and not
 * touched costs its bytes uncompressed; one touched and not listed costs a page inflated. */
#include "bootlayout.h"
#include "package.h"
#include "hash.h"
#include "eval.h"
#include "control.h"
#include "imagestats.h"
#define GC_THREADS
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_inline.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern char __executable_start[], _end[];

typedef struct Hot {
    uintptr_t *v; size_t n, cap; bool failed;
    uintptr_t *seen; int *seen_depth; size_t seen_cap, seen_n;  /* blocks the code walk has visited, and how deep */
} Hot;

static void add(Hot *h, const void *p) {
    if (!p || h->failed) return;
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 4096;
        uintptr_t *v = (uintptr_t *)realloc(h->v, cap * sizeof *v);
        if (!v) { h->failed = true; return; }
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n++] = (uintptr_t)p;
}

static void add_obj(Hot *h, Obj o) {
    if (is_cons(o)) add(h, CONS(o));
    else if (is_heap(o)) add(h, (const void *)o);
}

static void add_string(Hot *h, Obj s) {
    if (!is_string(s)) return;
    add(h, (const void *)s);
    add(h, STR(s)->data);
}

/* A list and what it holds, to DEPTH levels of nested lists. */
static void add_tree(Hot *h, Obj x, int depth) {
    for (int guard = 0; is_cons(x) && guard < 100000; guard++, x = CDR(x)) {
        add(h, CONS(x));
        Obj a = CAR(x);
        if (is_cons(a) && depth > 0) add_tree(h, a, depth - 1);
        else if (is_string(a)) add_string(h, a);
        else add_obj(h, a);
    }
}

/* A symbol, its name, its property list's cells (a start reads properties: the printer, the
 * evaluator), a primitive in its function cell, and the tables and readtables in its value cell. */
static void add_symbol(Hot *h, Obj sym) {
    if (!is_type(sym, T_SYMBOL)) return;
    Symbol *s = SYM(sym);
    add(h, (const void *)sym);
    add_string(h, s->name);
    for (Obj p = s->plist; is_cons(p); p = CDR(p)) add(h, CONS(p));
    if (is_type(s->function, T_PRIMITIVE)) add(h, (const void *)s->function);
    if (is_type(s->value, T_READTABLE)) add(h, (const void *)s->value);
    if (is_type(s->value, T_HASHTABLE)) {
        add(h, (const void *)s->value);
        add(h, HT(s->value)->entries);
    }
}

static void add_table(Hot *h, const SymTable *t) {
    if (!t->syms) return;
    add(h, t->syms);
    for (size_t i = 0; i < t->cap; i++) add_symbol(h, t->syms[i]);
}

/* ---- the code a start runs ----
 * From the functions a start calls, their analysed code: the Lambda, the node tree and what it
 * holds (constants, the lambda lists' C structures), found as the writer finds pointers (a word
 * that points into a block of collected memory), and the functions named by the symbols it
 * refers to, to CALL_DEPTH calls deep. Not the source form a Lambda keeps for
 * FUNCTION-LAMBDA-EXPRESSION, nor its documentation (unless the function is still to be analysed,
 * from that source). */

/* Whether BASE was walked already with at least DEPTH calls to follow (else it is walked now: the
 * same code reached again with more depth left is walked again, so the result does not depend on
 * the order things are reached in). */
static bool seen(Hot *h, uintptr_t base, int depth) {
    if ((h->seen_n + 1) * 2 > h->seen_cap) {
        size_t cap = h->seen_cap ? h->seen_cap * 2 : 1 << 14;
        uintptr_t *t = (uintptr_t *)calloc(cap, sizeof *t);
        int *d = (int *)calloc(cap, sizeof *d);
        if (!t || !d) { free(t); free(d); h->failed = true; return true; }
        for (size_t i = 0; i < h->seen_cap; i++) {
            uintptr_t k = h->seen[i];
            if (!k) continue;
            size_t j = (size_t)((k >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = k;
            d[j] = h->seen_depth[i];
        }
        free(h->seen);
        free(h->seen_depth);
        h->seen = t;
        h->seen_depth = d;
        h->seen_cap = cap;
    }
    size_t j = (size_t)((base >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (h->seen_cap - 1);
    while (h->seen[j]) {
        if (h->seen[j] == base) {
            if (h->seen_depth[j] >= depth) return true;
            h->seen_depth[j] = depth;
            return false;
        }
        j = (j + 1) & (h->seen_cap - 1);
    }
    h->seen[j] = base;
    h->seen_depth[j] = depth;
    h->seen_n++;
    return false;
}

static void walk_word(Hot *h, uintptr_t v, int depth);

static void walk_function(Hot *h, Obj f, int depth) {
    if (!is_type(f, T_CLOSURE) || seen(h, (uintptr_t)f, depth)) return;
    add(h, (const void *)f);
    walk_word(h, (uintptr_t)CLOSURE(f)->env, depth);
    Lambda *lam = CLOSURE(f)->lambda;
    if (!lam || !GC_base(lam) || seen(h, (uintptr_t)lam, depth)) return;
    add(h, lam);
    const uintptr_t *w = (const uintptr_t *)lam;
    for (size_t i = 0; i < sizeof *lam / sizeof(uintptr_t); i++) {
        size_t off = i * sizeof(uintptr_t);
        if (!lam->lazy && (off == offsetof(Lambda, source) || off == offsetof(Lambda, doc)))
            continue;
        walk_word(h, w[i], depth);
    }
}

static void walk_word(Hot *h, uintptr_t v, int depth) {
    if (v < 4096 || h->failed) return;
    void *base = GC_base((void *)v);
    if (!base) return;
    size_t size = 0;
    int kind = GC_get_kind_and_size(base, &size);
    if (kind == GC_I_PTRFREE) { add(h, base); return; }
    Obj o = (Obj)(uintptr_t)base;
    if (v == (uintptr_t)base + TAG_CONS && size <= 2 * sizeof(Cons)) {      /* a constant list */
        for (Obj x = OBJ(v); is_cons(x) && !seen(h, WORD(CONS(x)), depth); x = CDR(x)) {
            add(h, CONS(x));
            walk_word(h, WORD(CAR(x)), depth);
            if (!is_cons(CDR(x))) walk_word(h, WORD(CDR(x)), depth);
        }
        return;
    }
    if (seen(h, (uintptr_t)base, depth)) return;
    /* a node starts with its evaluator, an address in the executable whose low byte may look like
     * a type: it is told apart first */
    uintptr_t w0 = size >= sizeof(uintptr_t) ? *(const uintptr_t *)base : 0;
    bool node = w0 >= (uintptr_t)__executable_start && w0 < (uintptr_t)_end;
    int k = imagestats_kind((uintptr_t)base, size, false, false, node);
    if (k == IMAGESTATS_NODE) k = IMAGESTATS_CSTRUCT;
    switch (k) {
    case T_SYMBOL:                       /* hot already: the functions it names, a call deeper */
        if (depth > 0) {
            walk_function(h, SYM(o)->function, depth - 1);
            walk_function(h, SYM(o)->setf_function, depth - 1);
        }
        return;
    case T_CLOSURE:
        walk_function(h, o, depth);
        return;
    case T_STRING:
        add_string(h, o);
        return;
    case T_VECTOR:
        add(h, base);
        for (size_t i = 0; i < VEC(o)->len && i < 64; i++) walk_word(h, WORD(VEC(o)->data[i]), depth);
        return;
    case IMAGESTATS_CSTRUCT: {           /* a node, a lambda list, an analysis result */
        add(h, base);
        const uintptr_t *w = (const uintptr_t *)base;
        for (size_t i = 0; i < size / sizeof(uintptr_t); i++) walk_word(h, w[i], depth);
        return;
    }
    case T_INSTANCE:                     /* a structure or object the code holds: its slots, a call deeper */
        add(h, base);
        if (depth > 0 && INST(o)->slots) {
            add(h, INST(o)->slots);
            for (size_t i = 0; i < INST(o)->nslots && i < 64; i++) walk_word(h, WORD(INST(o)->slots[i]), depth - 1);
        }
        return;
    default:                             /* another Lisp object: itself */
        add(h, base);
        return;
    }
}

/* The functions C calls at every start or evaluation (besides the restart functions): analysed
 * before the image is written (bootlayout_prepare: no start need analyse them then), and walked.
 * Data: one row each. */
static const struct { const char *name; } start_functions[] = {
    {"%SESSION-EVAL"}, {"%END-COMPILATION-UNIT"}, {"%MAKE-RESTART"}, {"%RUN-FINALIZERS"},
};

/* Variables of the SYSTEM package holding a class whose instances a start makes. */
static const char *const start_classes[] = {"*RESTART-CLASS*"};

static void force_step(Lisp *L, void *ud) { lambda_force(L, (Lambda *)ud); }

static void force(Lisp *L, Obj f) {
    if (is_type(f, T_CLOSURE) && CLOSURE(f)->lambda && CLOSURE(f)->lambda->lazy)
        lisp_pcall(L, FR_TOPLEVEL, force_step, CLOSURE(f)->lambda);   /* a failure leaves it lazy */
}

/* The start functions, each as a function (or NIL), in FN's hands. */
static void each_start_function(Lisp *L, void (*fn)(Lisp *L, Obj f, void *ctx), void *ctx) {
    Obj var = find_symbol_cstr(L, L->pkg_system, "*IMAGE-RESTART-FUNCTIONS*");
    if (is_type(var, T_SYMBOL))
        for (Obj l = SYM(var)->value; is_cons(l); l = CDR(l)) fn(L, CAR(l), ctx);
    for (size_t i = 0; i < sizeof start_functions / sizeof *start_functions; i++) {
        Obj sym = find_symbol_cstr(L, L->pkg_system, start_functions[i].name);
        if (is_type(sym, T_SYMBOL)) fn(L, SYM(sym)->function, ctx);
    }
}

static void force_one(Lisp *L, Obj f, void *ctx) { (void)ctx; force(L, f); }

void bootlayout_prepare(Lisp *L) { each_start_function(L, force_one, NULL); }

typedef struct WalkCtx { Hot *h; int depth; } WalkCtx;
static void walk_one(Lisp *L, Obj f, void *ctx) {
    (void)L;
    WalkCtx *w = (WalkCtx *)ctx;
    walk_function(w->h, f, w->depth);
}

static int call_depth(void) {
    const char *e = getenv("TINYCL_IMAGE_HOT_DEPTH");
    return e && *e ? atoi(e) : 2;
}

uintptr_t *bootlayout_hot(Lisp *L, const uintptr_t *roots, size_t nroots, size_t *n) {
    Hot h = {NULL, 0, 0, false, NULL, NULL, 0, 0};
    for (size_t i = 0; i < nroots; i++) {      /* the interpreter's fields, and the lists they hold */
        /* a counter of the structure (node_count, ...) may look like a cons: follow only words
         * that point into the collector's heap */
        if (is_cons(OBJ(roots[i])) && GC_base((void *)CONS(OBJ(roots[i])))) add_tree(&h, OBJ(roots[i]), 0);
        else add(&h, (const void *)roots[i]);
    }
    for (Obj l = L->packages; is_cons(l); l = CDR(l)) {
        add(&h, CONS(l));
        Obj p = CAR(l);
        if (!is_type(p, T_PACKAGE)) continue;
        Package *pk = PKG(p);
        add(&h, pk);
        add_string(&h, pk->name);
        add_tree(&h, pk->nicknames, 0);
        add_tree(&h, pk->use_list, 0);
        add_tree(&h, pk->used_by, 0);
        add_tree(&h, pk->shadowing, 0);
        add_tree(&h, pk->local_nicknames, 1);
        add_table(&h, &pk->internal);
        add_table(&h, &pk->external);
    }
    /* NIL is no heap symbol (no package table lists its cell), and printing it reads its name */
    Symbol *nil = symbol_data(L, NIL);
    add(&h, nil);
    add_string(&h, nil->name);
    Obj snap = L->image_snapshot;
    if (is_type(snap, T_VECTOR)) {
        add(&h, (const void *)snap);
        for (size_t i = 0; i < VEC(snap)->len; i++) {
            Obj x = VEC(snap)->data[i];
            if (i == 2) {                    /* the symbols' records: their cells (the snapshot walks them) */
                for (Obj r = x; is_cons(r); r = CDR(r)) {
                    add(&h, CONS(r));
                    Obj rec = CAR(r);
                    if (is_cons(rec)) add(&h, CONS(rec));
                    /* a record #(symbol value function plist setf-function (flags . package)): a
                     * start reads none, but every system load compares all of them with their
                     * symbols, twice (sys:%snapshot-capture and -commit), and they were 150 cold
                     * pages inflated by the first */
                    if (is_type(rec, T_VECTOR) && VEC(rec)->len == 6) {
                        add(&h, (const void *)rec);
                        if (is_cons(VEC(rec)->data[5])) add(&h, CONS(VEC(rec)->data[5]));
                    }
                }
                continue;
            }
            if (is_type(x, T_VECTOR)) add(&h, (const void *)x);
            else add_tree(&h, x, 8);
        }
    }
    Obj var = find_symbol_cstr(L, L->pkg_system, "*IMAGE-RESTART-FUNCTIONS*");
    if (is_type(var, T_SYMBOL)) add_tree(&h, SYM(var)->value, 0);
    /* the classes the start functions instantiate, from the variables they read them from (the
     * code walk does not follow a variable's value): every evaluation makes an ABORT restart, and
     * its class and slots were the cold pages a plain start touched */
    for (size_t i = 0; i < sizeof start_classes / sizeof *start_classes; i++) {
        Obj sym = find_symbol_cstr(L, L->pkg_system, start_classes[i]);
        Obj c = is_type(sym, T_SYMBOL) ? SYM(sym)->value : NIL;
        if (!is_type(c, T_INSTANCE)) continue;
        add(&h, (const void *)c);
        add(&h, INST(c)->slots);
    }
    WalkCtx wc = {&h, call_depth()};
    each_start_function(L, walk_one, &wc);
    free(h.seen);
    free(h.seen_depth);
    if (h.failed) { free(h.v); return NULL; }
    *n = h.n;
    return h.v;
}
