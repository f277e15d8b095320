/* snapshot.c: the state of every package and symbol after boot, so that a session reset is exact. */
#include "snapshot.h"
#include "prim.h"
#include "package.h"
#include "hash.h"
#include "array.h"
#include "list.h"
#include "written.h"
#include "bootimage.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A snapshot is a simple vector:
 *   [0] list of packages existing at boot
 *   [1] list of package records:
 *       (package name nicknames use-list shadowing (flags doc . local-nicknames) . ((symbol . external-p) ...))
 *   [2] list of symbol records, simple vectors of 6 slots: symbol value function plist setf-function flags+package
 * Everything lives in collected memory, reachable from L->boot_snapshot.
 *
 * Loading a system extends the snapshot (snapshot_commit): the packages the load created, the
 * symbols it added to recorded packages and the symbol cells it changed become part of the state a
 * plain reset returns to, so a reset keeps loaded systems usable and still removes everything the
 * user made. */

/* ---- the image's snapshot as a base ----
 * A session takes a snapshot when it starts, and one from a boot image finds nearly every symbol
 * as the image had it. The image carries the snapshot its writer took (L->image_snapshot), so a
 * symbol whose cells are still those of its record there, and a (symbol . external-p) pair as it
 * was, are shared with that snapshot instead of made again: a few list cells per symbol instead
 * of a record, its conses and a pair. Records are only replaced, never changed in place, except
 * by snapshot_commit, which changes the session's own copy of the image (each loaded image is). */

typedef struct BaseEntry { Obj sym, rec, pair[2]; } BaseEntry;
typedef struct Base { BaseEntry *e; size_t cap; } Base;

static BaseEntry *base_slot(Base *b, Obj sym) {
    size_t mask = b->cap - 1, i = (size_t)((WORD(sym) >> 4) * 0x9E3779B97F4A7C15ull >> 24) & mask;
    while (b->e[i].sym && b->e[i].sym != sym) i = (i + 1) & mask;
    return &b->e[i];
}

static void base_build(Base *b, Obj snap) {
    b->e = NULL;
    b->cap = 0;
    if (!is_type(snap, T_VECTOR) || VEC(snap)->len < 3) return;
    size_t n = 0;
    for (Obj r = VEC(snap)->data[2]; is_cons(r); r = CDR(r)) n++;
    size_t cap = 64;
    while (cap < n * 2) cap *= 2;
    b->e = (BaseEntry *)calloc(cap, sizeof *b->e);
    if (!b->e) return;
    b->cap = cap;
    for (Obj r = VEC(snap)->data[2]; is_cons(r); r = CDR(r)) {
        BaseEntry *e = base_slot(b, VEC(CAR(r))->data[0]);
        e->sym = VEC(CAR(r))->data[0];
        e->rec = CAR(r);
    }
    /* package records: (package name nicknames use-list shadowing attributes . present) */
    for (Obj pr = VEC(snap)->data[1]; is_cons(pr); pr = CDR(pr)) {
        Obj present = CAR(pr);
        for (int k = 0; k < 6 && is_cons(present); k++) present = CDR(present);
        for (; is_cons(present); present = CDR(present)) {
            Obj pair = CAR(present);
            BaseEntry *e = base_slot(b, CAR(pair));
            if (!e->sym) continue;    /* every present symbol has a record; a damaged base is ignored */
            e->pair[CDR(pair) != NIL] = pair;
        }
    }
}

static bool record_current(Lisp *L, Obj rec, Obj sym) {
    Symbol *s = symbol_data(L, sym);
    Obj *d = VEC(rec)->data;
    return d[1] == s->value && d[2] == s->function && d[3] == s->plist && d[4] == s->setf_function &&
           is_cons(d[5]) && CAR(d[5]) == FIX(s->h.flags & (uint8_t)~SYM_SNAPSHOT_MARK) && CDR(d[5]) == s->package;
}

typedef struct Collect { Lisp *L; Obj seen; Obj records; Obj present; bool external; Obj pkg; Base base; } Collect;

static void collect_present(Lisp *L, Obj sym, void *vctx) {
    Collect *c = (Collect *)vctx;
    c->present = cons(L, cons(L, sym, boolean(L, c->external)), c->present);
}

/* A symbol's record: its cells, flags and home package as they are now. */
static Obj make_record(Lisp *L, Obj sym) {
    Symbol *s = symbol_data(L, sym);
    Obj rec = make_vector(L, 6, NIL);
    VEC(rec)->data[0] = sym;
    VEC(rec)->data[1] = s->value;
    VEC(rec)->data[2] = s->function;
    VEC(rec)->data[3] = s->plist;
    VEC(rec)->data[4] = s->setf_function;
    VEC(rec)->data[5] = cons(L, FIX(s->h.flags & (uint8_t)~SYM_SNAPSHOT_MARK), s->package);
    return rec;
}

static void collect_symbol(Lisp *L, Obj sym, void *vctx) {
    Collect *c = (Collect *)vctx;
    BaseEntry *be = c->base.cap ? base_slot(&c->base, sym) : NULL;
    if (be && !be->sym) be = NULL;
    Obj pair = be ? be->pair[c->external] : NIL;
    c->present = cons(L, pair != NIL ? pair : cons(L, sym, boolean(L, c->external)), c->present);
    Symbol *s = symbol_data(L, sym);
    if (s->h.flags & SYM_SNAPSHOT_MARK) return;    /* present in more than one package */
    if (be && record_current(L, be->rec, sym)) {
        c->records = cons(L, be->rec, c->records);
        s->h.flags |= SYM_SNAPSHOT_MARK;
        return;
    }
    c->records = cons(L, make_record(L, sym), c->records);
    s->h.flags |= SYM_SNAPSHOT_MARK;
}

static void clear_mark(Lisp *L, Obj sym, void *vctx) {
    (void)vctx;
    symbol_data(L, sym)->h.flags &= (uint8_t)~SYM_SNAPSHOT_MARK;
}

static Obj package_attributes(Lisp *L, Obj p) {
    return cons(L, FIX(PKG(p)->h.flags), cons(L, PKG(p)->doc, PKG(p)->local_nicknames));
}

static Obj package_record(Lisp *L, Obj p, Obj present) {
    return cons(L, p, cons(L, PKG(p)->name, cons(L, PKG(p)->nicknames, cons(L, PKG(p)->use_list,
                cons(L, PKG(p)->shadowing, cons(L, package_attributes(L, p), present))))));
}

static Obj take_full(Lisp *L) {
    /* a mark bit in each symbol, not a table, tells which are recorded: cleared again below */
    Collect c = {L, NIL, NIL, NIL, false, NIL, {NULL, 0}};
    base_build(&c.base, L->image_snapshot);
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {   /* left by a take an error interrupted */
        symtable_each(&PKG(CAR(l))->internal, clear_mark, L, NULL);
        symtable_each(&PKG(CAR(l))->external, clear_mark, L, NULL);
    }
    Obj pkgrecs = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        Obj p = CAR(l);
        c.present = NIL;
        c.pkg = p;
        c.external = false;
        symtable_each(&PKG(p)->internal, collect_symbol, L, &c);
        c.external = true;
        symtable_each(&PKG(p)->external, collect_symbol, L, &c);
        pkgrecs = cons(L, package_record(L, p, c.present), pkgrecs);
    }
    Obj snap = make_vector(L, 3, NIL);
    Obj pkgs = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) pkgs = cons(L, CAR(l), pkgs);
    VEC(snap)->data[0] = pkgs;
    VEC(snap)->data[1] = pkgrecs;
    VEC(snap)->data[2] = c.records;
    for (Obj r = c.records; r != NIL; r = CDR(r)) symbol_data(L, VEC(CAR(r))->data[0])->h.flags &= (uint8_t)~SYM_SNAPSHOT_MARK;
    free(c.base.e);
    return snap;
}

/* ---- the start-up snapshot of a session on the mapped boot image ----
 * The boot image is mapped privately from the executable, so a page of it that nobody wrote since
 * still holds exactly what the image's writer saw when it took L->image_snapshot (written.c tells
 * which pages were written). The session's snapshot is then that snapshot with new records put in
 * front for what may differ: every symbol whose bytes on a written page are not the executable's
 * any more, NIL (its cells live in the Lisp structure), and every symbol present in a package whose
 * names, uses or symbol tables changed (or that was made since). Package records are the image's
 * own for unchanged packages. A symbol may then have two records; the first one is its state (the
 * others are older), as snapshot_restore and snapshot_verify read them. The start-up snapshot reads
 * a few symbols instead of every symbol and record of the image: cheaper, and the pages of the
 * image a session does not use are never brought in. */

typedef struct WordSet { uintptr_t *k; size_t cap; } WordSet;

static bool wordset_add(WordSet *s, uintptr_t key) {     /* true when KEY was not there */
    size_t mask = s->cap - 1, i = (size_t)((key >> 3) * 0x9E3779B97F4A7C15ull >> 20) & mask;
    while (s->k[i] && s->k[i] != key) i = (i + 1) & mask;
    if (s->k[i]) return false;
    s->k[i] = key;
    return true;
}

static bool wordset_has(const WordSet *s, uintptr_t key) {
    size_t mask = s->cap - 1, i = (size_t)((key >> 3) * 0x9E3779B97F4A7C15ull >> 20) & mask;
    while (s->k[i] && s->k[i] != key) i = (i + 1) & mask;
    return s->k[i] != 0;
}

/* The image's pointer-bearing part [lo, hi), its pages of 1 << shift bytes, the bits of those
 * written, and what the written ones held before (orig, nwritten pages in page order, their
 * indices in idx), when they could be read from the executable. */
typedef struct Written {
    uintptr_t lo, hi; unsigned shift; uint64_t *bits;
    unsigned char *orig; size_t *idx, nwritten;
} Written;

static bool same_list(Obj a, Obj b);
static bool same_attributes(Obj a, Obj b);

static inline bool page_written(const Written *w, size_t i) { return (w->bits[i / 64] >> (i % 64)) & 1; }

static bool range_unwritten(const Written *w, const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p;
    if (n == 0) return true;
    if (a < w->lo || a + n > w->hi) return false;     /* not the image's: made since */
    for (size_t i = (a - w->lo) >> w->shift; i <= (a + n - 1 - w->lo) >> w->shift; i++)
        if (page_written(w, i)) return false;
    return true;
}

/* range_unwritten for a symbol, the test made for each symbol of the image: at most two pages. */
static inline bool symbol_unwritten(const Written *w, uintptr_t a) {
    _Static_assert(sizeof(Symbol) <= 4096, "a symbol spans at most two pages");
    if (a < w->lo || a + sizeof(Symbol) > w->hi) return false;
    size_t i = (a - w->lo) >> w->shift, j = (a + sizeof(Symbol) - 1 - w->lo) >> w->shift;
    return !page_written(w, i) && !page_written(w, j);
}

/* What the written pages held before, read from the executable (bootimage.c): a symbol on them
 * whose bytes are still those has the image's record. Without them every such symbol gets a new
 * record, which is only slower. */
static void read_originals(Written *w) {
    size_t npages = (w->hi - w->lo + ((size_t)1 << w->shift) - 1) >> w->shift, n = 0;
    for (size_t i = 0; i < npages; i++) n += page_written(w, i);
    w->orig = n ? (unsigned char *)malloc(n << w->shift) : NULL;
    w->idx = n ? (size_t *)malloc(n * sizeof *w->idx) : NULL;
    if (!w->orig || !w->idx) { free(w->orig); free(w->idx); w->orig = NULL; w->idx = NULL; return; }
    size_t k = 0;
    for (size_t i = 0; i < npages;) {
        if (!page_written(w, i)) { i++; continue; }
        size_t j = i;
        while (j < npages && page_written(w, j)) w->idx[k + (j - i)] = j, j++;
        size_t len = ((j - i) << w->shift), off = i << w->shift;
        if (off + len > w->hi - w->lo) len = w->hi - w->lo - off;
        if (!bootimage_original_bytes(off, w->orig + (k << w->shift), len)) {
            free(w->orig); free(w->idx); w->orig = NULL; w->idx = NULL; return;
        }
        k += j - i;
        i = j;
    }
    w->nwritten = n;
}

/* The bytes written page I held before, or NULL. */
static const unsigned char *original_page(const Written *w, size_t i) {
    size_t a = 0, b = w->nwritten;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (w->idx[m] < i) a = m + 1; else b = m;
    }
    return a < w->nwritten && w->idx[a] == i ? w->orig + (a << w->shift) : NULL;
}

/* Whether the N bytes at P (in the image) are those it was loaded with. */
static bool bytes_as_loaded(const Written *w, const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p;
    if (a < w->lo || a + n > w->hi) return false;
    size_t page = (size_t)1 << w->shift;
    for (size_t i = (a - w->lo) >> w->shift; i <= (a + n - 1 - w->lo) >> w->shift; i++) {
        if (!page_written(w, i)) continue;
        const unsigned char *orig = w->orig ? original_page(w, i) : NULL;
        if (!orig) return false;
        uintptr_t start = w->lo + i * page, from = a > start ? a : start;
        uintptr_t to = a + n < start + page ? a + n : start + page;
        if (memcmp((const void *)from, orig + (from - start), to - from) != 0) return false;
    }
    return true;
}

/* Whether the image's record REC of package P still holds: the same names, uses, shadows and
 * attributes, and symbol tables that are the image's own, unwritten (a table that grows or is
 * cleared gets a new array; one changed in place has its pages written). */
static bool package_unchanged(Lisp *L, const Written *w, Obj p, Obj rec) {
    Package *pk = PKG(p);
    Obj f = CDR(rec);
    if (CAR(f) != pk->name || !same_list(CAR(CDR(f)), pk->nicknames) ||
        !same_list(CAR(CDR(CDR(f))), pk->use_list) || !same_list(CAR(CDR(CDR(CDR(f)))), pk->shadowing) ||
        !same_attributes(CAR(CDR(CDR(CDR(CDR(f))))), package_attributes(L, p)))
        return false;
    return (pk->internal.cap == 0 || range_unwritten(w, pk->internal.syms, pk->internal.cap * sizeof(Obj))) &&
           (pk->external.cap == 0 || range_unwritten(w, pk->external.syms, pk->external.cap * sizeof(Obj)));
}

/* The symbols that get a new record, each once. */
typedef struct Changed { WordSet set; Obj *v; size_t n; Obj present; bool external; bool failed; } Changed;

static void changed_add(Changed *c, Obj sym) {
    if (c->failed) return;
    if ((c->n + 1) * 2 > c->set.cap) {           /* grow: the set at most half full */
        size_t cap = c->set.cap * 2;
        uintptr_t *k = (uintptr_t *)calloc(cap, sizeof *k);
        Obj *v = (Obj *)realloc(c->v, (cap / 2) * sizeof *v);
        if (v) c->v = v;
        if (!k || !v) { free(k); c->failed = true; return; }
        free(c->set.k);
        c->set = (WordSet){k, cap};
        for (size_t i = 0; i < c->n; i++) wordset_add(&c->set, WORD(c->v[i]) | 1);
    }
    if (wordset_add(&c->set, WORD(sym) | 1)) c->v[c->n++] = sym;
}

static void collect_changed(Lisp *L, Obj sym, void *vctx) {
    Changed *c = (Changed *)vctx;
    c->present = cons(L, cons(L, sym, boolean(L, c->external)), c->present);
    changed_add(c, sym);
}

/* The image's snapshot, when it can serve as a base here: L->image_snapshot as the writer made
 * it (snapshot_take_base), in the image, which is mapped from the executable. */
static bool image_base_usable(Lisp *L, Written *w) {
    Obj base = L->image_snapshot;
    const struct ImageHeap *h = &L->image_heap;
    if (!h->fixed || !h->scanned || !is_type(base, T_VECTOR) || VEC(base)->len != 4 ||
        !is_type(VEC(base)->data[3], T_VECTOR))
        return false;
    w->lo = (uintptr_t)h->scanned;
    w->hi = (uintptr_t)h->scanned + h->scanned_raw;    /* the file's bytes: its compressed pages are not */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    w->shift = 0;
    while (((size_t)1 << w->shift) < page) w->shift++;
    if (((size_t)1 << w->shift) != page) return false;
    if (WORD(base) < w->lo || WORD(base) >= w->hi) return false;
    size_t npages = (h->scanned_bytes + page - 1) / page;
    w->bits = (uint64_t *)malloc(((npages + 63) / 64) * sizeof(uint64_t));
    if (!w->bits) return false;
    if (!written_pages(h->scanned, h->scanned_bytes, (volatile uintptr_t *)h->scanned, w->bits)) {
        free(w->bits);
        return false;
    }
    w->orig = NULL;
    w->idx = NULL;
    w->nwritten = 0;
    read_originals(w);
    return true;
}

static Obj take_from_image(Lisp *L, Written *w, size_t *nrecords) {
    Obj base = L->image_snapshot;
    Changed c = {{(uintptr_t *)calloc(512, sizeof(uintptr_t)), 512}, (Obj *)malloc(256 * sizeof(Obj)), 0, NIL, false, false};
    if (!c.set.k || !c.v) c.failed = true;
    /* packages: the image's record where the package is as it was, else a new one, and a new
     * record for each of its symbols */
    Obj pkgrecs = NIL;
    for (Obj l = L->packages; l != NIL && !c.failed; l = CDR(l)) {
        Obj p = CAR(l), rec = NIL;
        for (Obj r = VEC(base)->data[1]; is_cons(r) && rec == NIL; r = CDR(r))
            if (CAR(CAR(r)) == p) rec = CAR(r);
        if (rec != NIL && !package_unchanged(L, w, p, rec)) rec = NIL;
        if (rec == NIL) {
            c.present = NIL;
            c.external = false;
            symtable_each(&PKG(p)->internal, collect_changed, L, &c);
            c.external = true;
            symtable_each(&PKG(p)->external, collect_changed, L, &c);
            rec = package_record(L, p, c.present);
        }
        pkgrecs = cons(L, rec, pkgrecs);
    }
    /* the symbols of the image's records whose cells were written, and NIL (its cells are in L) */
    changed_add(&c, NIL);
    Obj syms = VEC(base)->data[3];
    for (size_t i = 0; i < VEC(syms)->len; i++) {
        Obj sym = VEC(syms)->data[i];
        if (sym != NIL && !symbol_unwritten(w, WORD(sym)) && !bytes_as_loaded(w, (void *)sym, sizeof(Symbol)))
            changed_add(&c, sym);
    }
    Obj snap = NIL;
    if (!c.failed) {                /* else out of memory: the caller takes the snapshot whole */
        Obj records = VEC(base)->data[2];
        for (size_t i = 0; i < c.n; i++) records = cons(L, make_record(L, c.v[i]), records);
        snap = make_vector(L, 3, NIL);
        Obj pkgs = NIL;
        for (Obj l = L->packages; l != NIL; l = CDR(l)) pkgs = cons(L, CAR(l), pkgs);
        VEC(snap)->data[0] = pkgs;
        VEC(snap)->data[1] = pkgrecs;
        VEC(snap)->data[2] = records;
        *nrecords = c.n;
    }
    free(c.set.k);
    free(c.v);
    return snap;
}

/* ---- checking a snapshot against the state now (TINYCL_SNAPSHOT_CHECK=1, the tests) ---- */

typedef struct Check { WordSet present; size_t n; bool external; } Check;

static uintptr_t present_key(Obj sym, bool external) { return (WORD(sym) << 1) | (external ? 1 : 0); }

static void check_present(Lisp *L, Obj sym, void *vctx) {
    (void)L;
    Check *c = (Check *)vctx;
    wordset_add(&c->present, present_key(sym, c->external));
    c->n++;
}

static bool member_eq(Obj x, Obj list);

#define VERIFY_FAIL(...) do { snprintf(why, n, __VA_ARGS__); goto done; } while (0)

bool snapshot_verify(Lisp *L, Obj snap, char *why, size_t n) {
    bool ok = false;
    size_t total = 0;
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        total += PKG(CAR(l))->internal.cap + PKG(CAR(l))->external.cap;
    size_t cap = 64;
    while (cap < total * 2 + 64) cap *= 2;
    WordSet seen = {(uintptr_t *)calloc(cap, sizeof(uintptr_t)), cap};
    Check c = {{(uintptr_t *)calloc(cap, sizeof(uintptr_t)), cap}, 0, false};
    if (!seen.k || !c.present.k) VERIFY_FAIL("out of memory");
    /* 1. the packages */
    size_t npk = 0, nrec = 0;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        npk++;
        if (!member_eq(CAR(l), VEC(snap)->data[0])) VERIFY_FAIL("a package is not in the snapshot's list");
    }
    for (Obj l = VEC(snap)->data[0]; l != NIL; l = CDR(l)) nrec++;
    if (nrec != npk) VERIFY_FAIL("the snapshot lists %zu packages, there are %zu", nrec, npk);
    /* 2. each package's record: its fields and exactly its present symbols */
    nrec = 0;
    for (Obj r = VEC(snap)->data[1]; r != NIL; r = CDR(r)) {
        Obj rec = CAR(r), p = CAR(rec), f = CDR(rec);
        Package *pk = PKG(p);
        nrec++;
        if (CAR(f) != pk->name || !same_list(CAR(CDR(f)), pk->nicknames) ||
            !same_list(CAR(CDR(CDR(f))), pk->use_list) || !same_list(CAR(CDR(CDR(CDR(f)))), pk->shadowing))
            VERIFY_FAIL("the record of a package differs in its names, uses or shadows");
        Obj rest = CDR(CDR(CDR(CDR(f))));
        if (!same_attributes(CAR(rest), package_attributes(L, p)))
            VERIFY_FAIL("the record of a package differs in its attributes");
        memset(c.present.k, 0, cap * sizeof(uintptr_t));
        c.n = 0;
        c.external = false;
        symtable_each(&pk->internal, check_present, L, &c);
        c.external = true;
        symtable_each(&pk->external, check_present, L, &c);
        size_t m = 0;
        for (Obj s = CDR(rest); s != NIL; s = CDR(s), m++)
            if (!wordset_has(&c.present, present_key(CAR(CAR(s)), CDR(CAR(s)) != NIL)))
                VERIFY_FAIL("a package's record lists a symbol it does not hold so");
        if (m != c.n) VERIFY_FAIL("a package's record lists %zu symbols, it holds %zu", m, c.n);
    }
    if (nrec != npk) VERIFY_FAIL("%zu package records for %zu packages", nrec, npk);
    /* 3. the first record of each symbol holds its cells now, and every present symbol has one */
    for (Obj r = VEC(snap)->data[2]; r != NIL; r = CDR(r)) {
        Obj rec = CAR(r), sym = VEC(rec)->data[0];
        if (!wordset_add(&seen, WORD(sym) | 1)) continue;
        if (!record_current(L, rec, sym)) VERIFY_FAIL("the record of a symbol differs from its cells");
    }
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        SymTable *t[2] = {&PKG(CAR(l))->internal, &PKG(CAR(l))->external};
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < t[k]->cap; i++) {
                Obj sym = t[k]->syms[i];
                if (sym != NO_VALUE && sym != TOMBSTONE && !wordset_has(&seen, WORD(sym) | 1))
                    VERIFY_FAIL("a present symbol has no record");
            }
    }
    ok = true;
done:
    free(seen.k);
    free(c.present.k);
    return ok;
}

/* TINYCL_SNAPSHOT_CHECK: "1" checks each start-up snapshot (snapshot_verify) and says on stderr
 * how it was taken; "whole" also takes it whole, to compare the two ways (tests/run-boot.sh). */
static const char *snapshot_check_wanted(void) {
    const char *e = getenv("TINYCL_SNAPSHOT_CHECK");
    return e && *e && strcmp(e, "0") != 0 ? e : NULL;
}

/* SNAP's package records are what the tables hold now: no table has changed since. Written only
 * where set, so the pages of the image's packages stay unwritten. */
static void tables_recorded(Obj snap) {
    for (Obj l = VEC(snap)->data[0]; is_cons(l); l = CDR(l))
        if (PKG(CAR(l))->h.aux) PKG(CAR(l))->h.aux = 0;
}

Obj snapshot_take(Lisp *L) {
    Written w;
    Obj snap = NIL;
    size_t n = 0;
    const char *how = "whole", *check = snapshot_check_wanted();
    if (!(check && strcmp(check, "whole") == 0) && image_base_usable(L, &w)) {
        snap = take_from_image(L, &w, &n);
        free(w.bits);
        free(w.orig);
        free(w.idx);
        if (snap != NIL) how = "from written pages";
    }
    if (snap == NIL) snap = take_full(L);
    if (check) {
        char why[200];
        bool ok = snapshot_verify(L, snap, why, sizeof why);
        fprintf(stderr, "tinycl: start-up snapshot %s (%zu new records): %s\n", how, n, ok ? "verified" : why);
    }
    tables_recorded(snap);
    return snap;
}

Obj snapshot_take_base(Lisp *L) {
    Obj snap = take_full(L);
    tables_recorded(snap);
    Obj base = make_vector(L, 4, NIL);
    for (int k = 0; k < 3; k++) VEC(base)->data[k] = VEC(snap)->data[k];
    size_t n = 0;
    for (Obj r = VEC(snap)->data[2]; is_cons(r); r = CDR(r)) n++;
    Obj syms = make_vector(L, n, NIL);
    n = 0;
    for (Obj r = VEC(snap)->data[2]; is_cons(r); r = CDR(r)) VEC(syms)->data[n++] = VEC(CAR(r))->data[0];
    VEC(base)->data[3] = syms;
    return base;
}

static bool member_eq(Obj x, Obj list) {
    for (; is_cons(list); list = CDR(list))
        if (CAR(list) == x) return true;
    return false;
}

static void clear_table(Lisp *L, SymTable *t) {
    (void)L;
    /* a boot package's array is in the boot image's heap: what was interned since must not stay
     * reachable from it (a reset would keep the user's symbols, and all they hold, alive) */
    gc_forget_array(t->syms, t->cap, NO_VALUE);
    t->count = t->used = t->cap = 0;
    t->syms = NULL;
}

/* A symbol's cells as REC has them. Only the cells that differ are written: the symbols of the
 * boot image the session did not change stay on pages it shares with the executable's file. */
static void restore_symbol(Lisp *L, Obj rec) {
    Symbol *s = symbol_data(L, VEC(rec)->data[0]);
    Obj *d = VEC(rec)->data;
    uint8_t flags = (uint8_t)fixnum_val(CAR(d[5]));
    if (s->value != d[1]) s->value = d[1];
    if (s->function != d[2]) s->function = d[2];
    if (s->plist != d[3]) s->plist = d[3];
    if (s->setf_function != d[4]) s->setf_function = d[4];
    if (s->h.flags != flags) s->h.flags = flags;
    if (s->package != CDR(d[5])) s->package = CDR(d[5]);
}

void snapshot_restore(Lisp *L, Obj snap, Obj keep_packages) {
    Obj boot_pkgs = VEC(snap)->data[0];
    /* 1. packages created since boot disappear, except those the caller keeps (loaded systems);
     *    recorded packages the user deleted come back */
    Obj kept = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        Obj p = CAR(l);
        if (member_eq(p, boot_pkgs) || member_eq(p, keep_packages)) kept = cons(L, p, kept);
        else PKG(p)->name = NIL; /* deleted: package objects still referenced see a deleted package */
    }
    for (Obj l = boot_pkgs; l != NIL; l = CDR(l))
        if (!member_eq(CAR(l), kept)) kept = cons(L, CAR(l), kept);
    L->packages = NIL;
    for (Obj l = kept; l != NIL; l = CDR(l)) L->packages = cons(L, CAR(l), L->packages);
    /* 2. boot packages get back their names, uses and exactly their boot symbols */
    for (Obj r = VEC(snap)->data[1]; r != NIL; r = CDR(r)) {
        Obj rec = CAR(r);
        Obj p = CAR(rec);
        Obj rest = CDR(rec);
        Package *pk = PKG(p);
        pk->name = CAR(rest); rest = CDR(rest);
        pk->nicknames = CAR(rest); rest = CDR(rest);
        pk->use_list = CAR(rest); rest = CDR(rest);
        pk->shadowing = CAR(rest); rest = CDR(rest);
        Obj attrs = CAR(rest);
        pk->h.flags = (uint8_t)fixnum_val(CAR(attrs));
        pk->doc = CAR(CDR(attrs));
        pk->local_nicknames = CDR(CDR(attrs));
        rest = CDR(rest);
        /* tables nothing changed since they matched the record are left as they are */
        if (pk->h.aux != PKG_TABLES_CHANGED) continue;
        clear_table(L, &pk->internal);
        clear_table(L, &pk->external);
        for (Obj s = rest; s != NIL; s = CDR(s)) package_add_symbol(L, p, CAR(CAR(s)), CDR(CAR(s)) != NIL);
        pk->h.aux = 0;
    }
    /* kept system packages may use boot packages; used-by lists are rebuilt from use lists */
    for (Obj l = L->packages; l != NIL; l = CDR(l)) PKG(CAR(l))->used_by = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l))
        for (Obj u = PKG(CAR(l))->use_list; u != NIL; u = CDR(u))
            PKG(CAR(u))->used_by = cons(L, CAR(l), PKG(CAR(u))->used_by);
    /* 3. every boot symbol gets back its cells, from the last record to the first: a symbol's
     *    first record is its state (a snapshot from written pages has older ones after it). The
     *    records in an array; without the memory for one, the list reversed in place and back
     *    (its conses are partly the image's, and pages written stay the process's own). */
    size_t nrec = 0;
    for (Obj r = VEC(snap)->data[2]; r != NIL; r = CDR(r)) nrec++;
    Obj *recs = (Obj *)malloc((nrec ? nrec : 1) * sizeof *recs);
    if (recs) {
        size_t i = 0;
        for (Obj r = VEC(snap)->data[2]; r != NIL; r = CDR(r)) recs[i++] = CAR(r);
        while (i > 0) restore_symbol(L, recs[--i]);
        free(recs);
    } else {
        Obj rev = list_nreconc(L, VEC(snap)->data[2], NIL);
        for (Obj r = rev; r != NIL; r = CDR(r)) restore_symbol(L, CAR(r));
        VEC(snap)->data[2] = list_nreconc(L, rev, NIL);
    }
}

bool snapshot_boot_package_p(Lisp *L, Obj snap, Obj pkg) {
    (void)L;
    return member_eq(pkg, VEC(snap)->data[0]);
}

/* (sys:%boot-packages) -> the packages that existed when the session started */
DEFPRIM(prim_pct_boot_packages) {
    UNUSED_ARGS;
    return L->boot_snapshot == NIL ? NIL : VEC(L->boot_snapshot)->data[0];
}

/* The eq table of every symbol with a record (L->boot_symbols), built on demand. */
static Obj recorded_symbols(Lisp *L) {
    if (L->boot_symbols == NIL) {
        /* sized for the records there are (about 4,500 from the boot image): a table made larger
         * is memory a load's first commit clears and faults in for nothing */
        size_t n = 0;
        for (Obj r = VEC(L->boot_snapshot)->data[2]; r != NIL; r = CDR(r)) n++;
        Obj h = hash_new(L, HT_EQ, n);
        for (Obj r = VEC(L->boot_snapshot)->data[2]; r != NIL; r = CDR(r)) hash_put(L, h, VEC(CAR(r))->data[0], S(T));
        L->boot_symbols = h;
    }
    return L->boot_symbols;
}

/* (sys:%boot-symbol-p symbol) -> true if SYMBOL existed when the session started */
DEFPRIM(prim_pct_boot_symbol_p) {
    UNUSED_ARGS;
    if (L->boot_snapshot == NIL) return NIL;
    return hash_get(L, recorded_symbols(L), args[0], NIL);
}

typedef struct Own { Obj pkg; Obj out; } Own;

static void collect_own(Lisp *L, Obj sym, void *vctx) {
    Own *o = (Own *)vctx;
    if (symbol_data(L, sym)->package == o->pkg) o->out = cons(L, sym, o->out);
}

/* (sys:%package-own-symbols package) -> the symbols whose home is PACKAGE */
DEFPRIM(prim_pct_package_own_symbols) {
    UNUSED_ARGS;
    Obj p = package_designated(L, args[0]);
    Own o = {p, NIL};
    symtable_each(&PKG(p)->internal, collect_own, L, &o);
    symtable_each(&PKG(p)->external, collect_own, L, &o);
    return o.out;
}

/* ---- extending the snapshot with what a system load made ----
 * What a load changed is found without copying the session: symbols by comparing each record with
 * its symbol's cells (no allocation unless they differ), package tables through a journal that
 * package.c feeds while a capture is open (one entry per symbol a load adds, removes, exports...).
 *
 * A capture is a simple vector of CAP_SIZE slots: [0] the live packages, [1] the symbols that
 * already differed from their records when the load began, ((record . #(6 cells)) ...), [2] the
 * journal's head then, [3] a list of package states, one simple vector per recorded live package:
 * package name nicknames use-list shadowing attributes, [4] T while the capture is open. */

enum { CELLS = 6, CAP_SIZE = 5 };

static void symbol_cells(Lisp *L, Obj sym, Obj *out) {
    Symbol *s = symbol_data(L, sym);
    out[0] = s->value; out[1] = s->function; out[2] = s->plist; out[3] = s->setf_function;
    out[4] = FIX(s->h.flags); out[5] = s->package;
}

/* The record's six cells as symbol_cells gives them. */
static bool record_matches(Obj rec, const Obj *cells) {
    Obj *d = VEC(rec)->data;
    return d[1] == cells[0] && d[2] == cells[1] && d[3] == cells[2] && d[4] == cells[3] &&
           is_cons(d[5]) && CAR(d[5]) == cells[4] && CDR(d[5]) == cells[5];
}

static Obj present_list(Lisp *L, Obj p) {
    Collect c = {L, NIL, NIL, NIL, false, p, {NULL, 0}};
    symtable_each(&PKG(p)->internal, collect_present, L, &c);
    c.external = true;
    symtable_each(&PKG(p)->external, collect_present, L, &c);
    return c.present;
}

static bool live_package(Obj p) { return PKG(p)->name != NIL; }

static bool same_list(Obj a, Obj b) {
    for (; is_cons(a) && is_cons(b); a = CDR(a), b = CDR(b))
        if (CAR(a) != CAR(b)) return false;
    return a == b || (!is_cons(a) && !is_cons(b));
}

static bool same_attributes(Obj a, Obj b) {
    return CAR(a) == CAR(b) && CAR(CDR(a)) == CAR(CDR(b)) && same_list(CDR(CDR(a)), CDR(CDR(b)));
}

void snapshot_note_table_change(Lisp *L, Obj pkg, Obj sym, int before) {
    /* a commit merges the journal into the records of recorded packages only: a package the
     * snapshot does not list now (made since it was taken: a loaded system's, before its load is
     * committed, or the user's) has no record to merge into, and one recorded later is recorded
     * whole then, so what happens to its tables until it is listed is never read */
    Obj snap = L->boot_snapshot;
    if (snap == NIL || !member_eq(pkg, VEC(snap)->data[0])) return;
    Obj e = make_vector(L, 3, NIL);
    VEC(e)->data[0] = pkg;
    VEC(e)->data[1] = sym;
    VEC(e)->data[2] = FIX(before);
    L->pkg_journal = cons(L, e, L->pkg_journal);
}

static bool capture_p(Obj cap) { return is_type(cap, T_VECTOR) && VEC(cap)->len == CAP_SIZE; }

/* The capture is over (committed or given up): the journal is dropped when no capture needs it. */
static void capture_close(Lisp *L, Obj cap) {
    if (VEC(cap)->data[4] == NIL) return;
    VEC(cap)->data[4] = NIL;
    if (L->captures_open > 0 && --L->captures_open == 0) L->pkg_journal = NIL;
}

/* (sys:%snapshot-capture) -> the state of the recorded packages and symbols now, or NIL without a snapshot */
DEFPRIM(prim_pct_snapshot_capture) {
    UNUSED_ARGS;
    Obj snap = L->boot_snapshot;
    if (snap == NIL) return NIL;
    Obj cap = make_vector(L, CAP_SIZE, NIL);
    Obj pkgs = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) pkgs = cons(L, CAR(l), pkgs);
    VEC(cap)->data[0] = pkgs;
    Obj dirty = NIL;
    for (Obj r = VEC(snap)->data[2]; r != NIL; r = CDR(r)) {
        Obj now[CELLS];
        symbol_cells(L, VEC(CAR(r))->data[0], now);
        if (record_matches(CAR(r), now)) continue;
        Obj cells = make_vector(L, CELLS, NIL);
        for (int k = 0; k < CELLS; k++) VEC(cells)->data[k] = now[k];
        dirty = cons(L, cons(L, CAR(r), cells), dirty);
    }
    VEC(cap)->data[1] = dirty;
    VEC(cap)->data[2] = L->pkg_journal;
    Obj states = NIL;
    for (Obj r = VEC(snap)->data[1]; r != NIL; r = CDR(r)) {
        Obj p = CAR(CAR(r));
        if (!live_package(p)) continue;
        Obj st = make_vector(L, 6, NIL);
        VEC(st)->data[0] = p;
        VEC(st)->data[1] = PKG(p)->name;
        VEC(st)->data[2] = PKG(p)->nicknames;
        VEC(st)->data[3] = PKG(p)->use_list;
        VEC(st)->data[4] = PKG(p)->shadowing;
        VEC(st)->data[5] = package_attributes(L, p);
        states = cons(L, st, states);
    }
    VEC(cap)->data[3] = states;
    VEC(cap)->data[4] = S(T);
    L->captures_open++;
    return cap;
}

/* (sys:%snapshot-release capture) -> NIL: the load it was taken for failed; nothing is committed */
DEFPRIM(prim_pct_snapshot_release) {
    UNUSED_ARGS;
    if (capture_p(args[0])) capture_close(L, args[0]);
    return NIL;
}

/* SYM, which has no record, gets one (and its entry in the table of recorded symbols, if made). */
static void add_record(Lisp *L, Obj snap, Obj sym) {
    if (L->boot_symbols != NIL) hash_put(L, L->boot_symbols, sym, S(T));
    Obj rec = make_vector(L, 6, NIL);
    Obj cells[CELLS];
    symbol_cells(L, sym, cells);
    VEC(rec)->data[0] = sym;
    for (int k = 0; k < 4; k++) VEC(rec)->data[k + 1] = cells[k];
    VEC(rec)->data[5] = cons(L, cells[4], cells[5]);
    VEC(snap)->data[2] = cons(L, rec, VEC(snap)->data[2]);
}

static void record_symbol_if_new(Lisp *L, Obj snap, Obj sym) {
    if (hash_get(L, recorded_symbols(L), sym, NIL) != NIL) return;
    add_record(L, snap, sym);
}

static bool image_symbol(Lisp *L, Obj sym) {
    const char *img = L->image_heap.scanned;
    return img && (const char *)sym >= img && (const char *)sym < img + L->image_heap.scanned_bytes;
}

/* The symbols a commit found present in the packages it records (the new packages' symbols, those
 * the load added to recorded ones), each to get a record unless it has one: record_pending. */
typedef struct Pending { Obj *v; size_t n, cap; } Pending;

static void pending_add(Lisp *L, Obj snap, Pending *p, Obj sym) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        Obj *v = (Obj *)realloc(p->v, cap * sizeof *v);
        if (!v) { record_symbol_if_new(L, snap, sym); return; }    /* without the memory: at once */
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = sym;    /* reachable meanwhile from its package, or from the journal */
}

/* Each symbol of P without a record gets one. The table of recorded symbols (a hash of every
 * record, some 4,500 from the boot image) is used once something made it; until then a symbol
 * made since the image was loaded is looked for among the records themselves: the candidates are
 * marked (SYM_SNAPSHOT_MARK, as take_full does), one walk over the records unmarks those that have
 * one (the image's records are passed over by address, their pages untouched), and the others get
 * theirs, their marks cleared first (a record holds the flags). A symbol of the boot image goes
 * through the table (nearly all have records; one uninterned at the boot and imported since has
 * not). So a process's first load does not build the table. */
static void record_pending(Lisp *L, Obj snap, Pending *p) {
    size_t marked = 0;
    for (size_t i = 0; i < p->n; i++) {
        Obj sym = p->v[i];
        bool img = image_symbol(L, sym);
        if (!img && (symbol_data(L, sym)->h.flags & SYM_SNAPSHOT_MARK)) { p->v[i] = NO_VALUE; continue; }
        if (img || L->boot_symbols != NIL) {
            record_symbol_if_new(L, snap, sym);
            p->v[i] = NO_VALUE;
            continue;
        }
        symbol_data(L, sym)->h.flags |= SYM_SNAPSHOT_MARK;
        marked++;
    }
    for (Obj r = VEC(snap)->data[2]; r != NIL && marked > 0; r = CDR(r)) {
        Obj sym = VEC(CAR(r))->data[0];
        if (image_symbol(L, sym)) continue;
        Symbol *s = symbol_data(L, sym);
        if (s->h.flags & SYM_SNAPSHOT_MARK) {
            s->h.flags &= (uint8_t)~SYM_SNAPSHOT_MARK;
            marked--;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        Obj sym = p->v[i];
        if (sym == NO_VALUE) continue;
        Symbol *s = symbol_data(L, sym);
        if (!(s->h.flags & SYM_SNAPSHOT_MARK)) continue;    /* it has a record */
        s->h.flags &= (uint8_t)~SYM_SNAPSHOT_MARK;
        p->v[k++] = sym;
    }
    for (size_t i = 0; i < k; i++) add_record(L, snap, p->v[i]);
    free(p->v);
    p->v = NULL;
    p->n = p->cap = 0;
}

static Obj find_state(Obj states, Obj p) {
    for (; is_cons(states); states = CDR(states))
        if (VEC(CAR(states))->data[0] == p) return CAR(states);
    return NIL;
}

static Obj find_record(Obj records, Obj p) {
    for (; is_cons(records); records = CDR(records))
        if (CAR(CAR(records)) == p) return CAR(records);
    return NIL;
}

static Obj status_pair(Lisp *L, Obj sym, int status) { return cons(L, sym, boolean(L, status == 2)); }

/* SYM, a keyword the analysis of stdlib code made or found after the boot (the keyword of a &key
 * parameter, interned when a stdlib function is analysed at its first call), joins the reset state
 * as if the boot had interned it: otherwise a reset would take it out of the KEYWORD package while
 * the analysed function keeps it, and the same keyword read afterwards would be another symbol
 * that function refuses as an unknown keyword argument. */
void snapshot_adopt_keyword(Lisp *L, Obj sym) {
    Obj snap = L->boot_snapshot;
    if (snap == NIL || !is_type(sym, T_SYMBOL) || SYM(sym)->package != L->pkg_keyword) return;
    const char *img = L->image_heap.scanned;      /* the boot image's symbols are the boot's */
    if (img && (const char *)sym >= img && (const char *)sym < img + L->image_heap.scanned_bytes) return;
    if (hash_get(L, recorded_symbols(L), sym, NIL) != NIL) return;     /* a boot symbol already */
    int status = package_symbol_status(L, L->pkg_keyword, sym);
    Obj rec = find_record(VEC(snap)->data[1], L->pkg_keyword);
    if (status == 0 || rec == NIL) return;
    record_symbol_if_new(L, snap, sym);
    Obj attrs_cell = CDR(CDR(CDR(CDR(CDR(rec)))));   /* (attrs . present) */
    CDR(attrs_cell) = cons(L, status_pair(L, sym, status), CDR(attrs_cell));
}

/* The record REC of package P after a load that changed the symbols of TOUCHED (an eq table:
 * symbol -> its status before the load; SYMS its keys). As a symbol the load did not touch: a symbol the record
 * has stays, unless the load removed it (then it goes) or changed its accessibility (then the
 * record takes the new one); a symbol absent before the load that it made present is added. A
 * symbol the user added before the load stays the user's. */
static void merge_touched(Lisp *L, Obj snap, Obj rec, Obj p, Obj touched, Obj syms, Pending *pend) {
    Obj fields = CDR(rec);                          /* name nicknames use-list shadowing attrs . present */
    Obj attrs_cell = CDR(CDR(CDR(CDR(fields))));    /* (attrs . present) */
    Obj recorded = CDR(attrs_cell);
    Obj in_record = hash_new(L, HT_EQ, 16);
    bool rebuild = false;
    for (Obj l = recorded; l != NIL; l = CDR(l)) {
        Obj sym = CAR(CAR(l));
        Obj before = hash_get(L, touched, sym, NO_VALUE);
        if (before == NO_VALUE) continue;
        hash_put(L, in_record, sym, S(T));
        int b = (int)fixnum_val(before), n = package_symbol_status(L, p, sym);
        if (b != 0 && (n == 0 || n != b)) rebuild = true;
    }
    Obj out = recorded;
    if (rebuild) {
        out = NIL;
        for (Obj l = recorded; l != NIL; l = CDR(l)) {
            Obj sym = CAR(CAR(l));
            Obj before = hash_get(L, touched, sym, NO_VALUE);
            if (before == NO_VALUE) { out = cons(L, CAR(l), out); continue; }
            int b = (int)fixnum_val(before), n = package_symbol_status(L, p, sym);
            if (b != 0 && n == 0) continue;                                /* uninterned by the load */
            out = cons(L, b != 0 && n != b ? status_pair(L, sym, n) : CAR(l), out);
        }
    }
    for (Obj l = syms; l != NIL; l = CDR(l)) {
        Obj sym = CAR(l);
        int b = (int)fixnum_val(hash_get(L, touched, sym, FIX(0))), n = package_symbol_status(L, p, sym);
        if (n != 0) pending_add(L, snap, pend, sym);
        if (b == 0 && n != 0 && hash_get(L, in_record, sym, NIL) == NIL) out = cons(L, status_pair(L, sym, n), out);
    }
    CDR(attrs_cell) = out;
}

/* (sys:%snapshot-commit capture) -> the packages created since CAPTURE, now part of the snapshot.
 * Everything the load changed in recorded packages and symbols becomes part of the reset state. */
DEFPRIM(prim_pct_snapshot_commit) {
    UNUSED_ARGS;
    Obj snap = L->boot_snapshot, cap = args[0];
    if (snap == NIL || !capture_p(cap)) return NIL;
    if (VEC(cap)->data[4] == NIL) err_program(L, "This capture was already committed or released.");
    /* 1. symbol cells the load changed: those that differ from their records, less those that
     *    already differed when it began and are as they were then */
    Obj dirty = VEC(cap)->data[1], before = NIL;
    if (dirty != NIL) {
        before = hash_new(L, HT_EQ, 16);
        for (Obj l = dirty; l != NIL; l = CDR(l)) hash_put(L, before, CAR(CAR(l)), CDR(CAR(l)));
    }
    for (Obj r = VEC(snap)->data[2]; r != NIL; r = CDR(r)) {
        Obj rec = CAR(r), now[CELLS];
        symbol_cells(L, VEC(rec)->data[0], now);
        if (record_matches(rec, now)) continue;
        Obj was = before == NIL ? NIL : hash_get(L, before, rec, NIL);
        if (was != NIL) {
            bool changed = false;
            for (int k = 0; k < CELLS; k++) if (now[k] != VEC(was)->data[k]) changed = true;
            if (!changed) continue;
        }
        for (int k = 0; k < 4; k++) VEC(rec)->data[k + 1] = now[k];
        VEC(rec)->data[5] = cons(L, now[4], now[5]);
    }
    /* 2. recorded packages: the symbols the journal says the load added, removed or moved; the
     *    oldest entry of a symbol holds its status before the load */
    Pending pend = {NULL, 0, 0};
    Obj mark = VEC(cap)->data[2], per_package = NIL;   /* ((package . touched) ...) */
    for (Obj l = L->pkg_journal; l != NIL && l != mark; l = CDR(l)) {
        Obj e = CAR(l), p = VEC(e)->data[0];
        Obj entry = NIL;
        for (Obj q = per_package; q != NIL; q = CDR(q))
            if (CAR(CAR(q)) == p) { entry = CAR(q); break; }
        if (entry == NIL) {
            entry = cons(L, p, cons(L, hash_new(L, HT_EQ, 16), NIL));   /* (package table . symbols) */
            per_package = cons(L, entry, per_package);
        }
        Obj table = CAR(CDR(entry)), sym = VEC(e)->data[1];
        if (hash_get(L, table, sym, NO_VALUE) == NO_VALUE) CDR(CDR(entry)) = cons(L, sym, CDR(CDR(entry)));
        hash_put(L, table, sym, VEC(e)->data[2]);
    }
    for (Obj q = per_package; q != NIL; q = CDR(q)) {
        Obj p = CAR(CAR(q)), rec = find_record(VEC(snap)->data[1], p);
        if (rec != NIL && live_package(p) && find_state(VEC(cap)->data[3], p) != NIL)
            merge_touched(L, snap, rec, p, CAR(CDR(CAR(q))), CDR(CDR(CAR(q))), &pend);
    }
    /* names, uses and attributes changed */
    for (Obj r = VEC(snap)->data[1]; r != NIL; r = CDR(r)) {
        Obj rec = CAR(r), p = CAR(rec);
        Obj st = find_state(VEC(cap)->data[3], p);
        if (st == NIL || !live_package(p)) continue;
        Obj fields = CDR(rec);
        Obj attrs_cell = CDR(CDR(CDR(CDR(fields))));
        Obj pk[4] = {PKG(p)->name, PKG(p)->nicknames, PKG(p)->use_list, PKG(p)->shadowing};
        Obj f = fields;
        for (int k = 0; k < 4; k++, f = CDR(f))
            if (!same_list(pk[k], VEC(st)->data[1 + k]) || (k == 0 && pk[k] != VEC(st)->data[1])) CAR(f) = pk[k];
        Obj attrs = package_attributes(L, p);
        if (!same_attributes(attrs, VEC(st)->data[5])) CAR(attrs_cell) = attrs;
    }
    /* 3. packages created since the capture (and still alive) join the snapshot */
    Obj created = NIL;
    for (Obj l = L->packages; l != NIL; l = CDR(l)) {
        Obj p = CAR(l);
        if (!live_package(p) || member_eq(p, VEC(cap)->data[0]) || member_eq(p, VEC(snap)->data[0])) continue;
        Obj present = present_list(L, p);
        VEC(snap)->data[1] = cons(L, package_record(L, p, present), VEC(snap)->data[1]);
        VEC(snap)->data[0] = cons(L, p, VEC(snap)->data[0]);
        for (Obj s = present; s != NIL; s = CDR(s)) pending_add(L, snap, &pend, CAR(CAR(s)));
        if (!member_eq(p, L->system_packages)) L->system_packages = cons(L, p, L->system_packages);
        created = cons(L, p, created);
    }
    record_pending(L, snap, &pend);
    capture_close(L, cap);
    return created;
}

/* (sys:%registry-copy table) -> a copy of TABLE's entries, or NIL for a weak table;
 * (sys:%registry-put-back table copy) puts them back, true when TABLE had changed. A registry
 * restorer (stdlib-lisp/session.lisp) is then a comparison when nothing changed, and a copy of
 * words otherwise: no hashing, no Lisp loop over the entries. */
DEFPRIM(prim_pct_registry_copy) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_HASHTABLE)) err_type(L, args[0], S(HASH_TABLE));
    return hash_copy_entries(L, args[0]);
}

DEFPRIM(prim_pct_registry_put_back) {
    UNUSED_ARGS;
    if (!is_type(args[0], T_HASHTABLE)) err_type(L, args[0], S(HASH_TABLE));
    if (!is_type(args[1], T_HASHTABLE)) err_type(L, args[1], S(HASH_TABLE));
    return boolean(L, hash_restore_entries(L, args[0], args[1]));
}

/* (sys:%system-packages) -> the packages loaded systems created (kept by a plain reset) */
DEFPRIM(prim_pct_system_packages) {
    UNUSED_ARGS;
    Obj out = NIL;
    for (Obj l = L->system_packages; l != NIL; l = CDR(l))
        if (live_package(CAR(l))) out = cons(L, CAR(l), out);
    return out;
}

const PrimDef snapshot_prims[] = {
    {"%SNAPSHOT-CAPTURE", PK_SYS, prim_pct_snapshot_capture, 0, 0, 0, "()", NULL},
    {"%SNAPSHOT-COMMIT", PK_SYS, prim_pct_snapshot_commit, 1, 1, 0, "(capture)", NULL},
    {"%SNAPSHOT-RELEASE", PK_SYS, prim_pct_snapshot_release, 1, 1, 0, "(capture)", NULL},
    {"%SYSTEM-PACKAGES", PK_SYS, prim_pct_system_packages, 0, 0, 0, "()", NULL},
    {"%REGISTRY-COPY", PK_SYS, prim_pct_registry_copy, 1, 1, 0, "(table)", NULL},
    {"%REGISTRY-PUT-BACK", PK_SYS, prim_pct_registry_put_back, 2, 2, 0, "(table copy)", NULL},
    {"%BOOT-PACKAGES", PK_SYS, prim_pct_boot_packages, 0, 0, 0, "()", NULL},
    {"%BOOT-SYMBOL-P", PK_SYS, prim_pct_boot_symbol_p, 1, 1, 0, "(symbol)", NULL},
    {"%PACKAGE-OWN-SYMBOLS", PK_SYS, prim_pct_package_own_symbols, 1, 1, 0, "(package)", NULL},
    {0},
};

void snapshot_init(Lisp *L) {
    L->boot_snapshot = NIL;
    L->image_snapshot = NIL;
    L->image_restorers = NIL;
    L->boot_symbols = NIL;
    prims_register(L, snapshot_prims);
}
