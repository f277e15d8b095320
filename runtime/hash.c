/* hash.c: hash tables (CLHS chapter 18), EQL/EQUAL/EQUALP, and SXHASH. */
#include "hash.h"
#include <stdlib.h>
#include "prim.h"
#include "number.h"
#include "lstring.h"
#include "character.h"
#include "array.h"
#include "eval.h"
#include "package.h"
#include "pathname.h"
#include "weak.h"
#include "list.h"
#include <string.h>

/* A weak part the collector cleared (weak.h). */
#define WEAK_CLEARED OBJ(0)
static void hash_sweep(HashTable *t);

/* ---- equality ---- */

bool lisp_eql(Obj a, Obj b) {
    if (a == b) return true;
    if (is_heap(a) && is_heap(b) && heap_type(a) == heap_type(b)) {
        HeapType t = heap_type(a);
        if (t == T_BIGNUM || t == T_RATIO || t == T_DOUBLE || t == T_COMPLEX) return num_eql(a, b);
    }
    return false;
}

static bool string_like(Obj o) {
    return is_string(o) || (is_type(o, T_ARRAY) && ARR(o)->h.aux == 1 && ARR(o)->h.aux32 == ELT_CHARACTER);
}

static bool strings_equal(Lisp *L, Obj a, Obj b, bool fold) {
    size_t n = vector_length(a);
    if (n != vector_length(b)) return false;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = char_code(array_rm_ref(L, a, i)), y = char_code(array_rm_ref(L, b, i));
        if (x != y && (!fold || char_upcase(x) != char_upcase(y))) return false;
    }
    return true;
}

static bool bitvec_like(Obj o) {
    return is_type(o, T_BITVECTOR) || (is_type(o, T_ARRAY) && ARR(o)->h.aux == 1 && ARR(o)->h.aux32 == ELT_BIT);
}


/* Two circular lists make the CDR loop endless: every few thousand conses it reaches a safe
 * point, so the time limit and cancellation stop it (a local counter keeps the common short
 * comparison as fast as before). */
static __attribute__((noinline, cold)) void equal_poll(Lisp *L) { safe_point(L); }
#define EQUAL_SAFE_POINT(L, steps) do { if (UNLIKELY((++(steps) & 4095) == 0)) equal_poll(L); } while (0)

bool lisp_equal(Lisp *L, Obj a, Obj b) {
    unsigned steps = 0;
    for (;;) {
        if (a == b) return true;
        if (is_cons(a)) {
            if (!is_cons(b)) return false;
            Obj ca = CAR(a), cb = CAR(b);
            if (ca != cb) {   /* EQ elements (symbols, fixnums, shared structure) need no call */
                stack_check(L);
                if (!lisp_equal(L, ca, cb)) return false;
            }
            a = CDR(a);
            b = CDR(b);
            EQUAL_SAFE_POINT(L, steps);
            continue;
        }
        if (!is_heap(a) || !is_heap(b)) return false;
        if (string_like(a)) return string_like(b) && strings_equal(L, a, b, false);
        if (bitvec_like(a)) {
            if (!bitvec_like(b)) return false;
            size_t n = vector_length(a);
            if (n != vector_length(b)) return false;
            for (size_t i = 0; i < n; i++)
                if (array_rm_ref(L, a, i) != array_rm_ref(L, b, i)) return false;
            return true;
        }
        if (heap_type(a) == T_PATHNAME && heap_type(b) == T_PATHNAME) {
            /* component by component: a pathname need not have a namestring. As SBCL on Unix,
             * where files have no versions, the version is not compared (SXHASH ignores it too),
             * so a pathname printed readably as its namestring reads back EQUAL. */
            Pathname *x = PATHNAME(a), *y = PATHNAME(b);
            return lisp_equal(L, x->host, y->host) && lisp_equal(L, x->device, y->device) &&
                   lisp_equal(L, x->directory, y->directory) && lisp_equal(L, x->name, y->name) &&
                   lisp_equal(L, x->type, y->type);
        }
        return lisp_eql(a, b);
    }
}

bool lisp_equalp(Lisp *L, Obj a, Obj b) {
    unsigned steps = 0;
    for (;;) {
        if (a == b) return true;
        if (is_char(a)) return is_char(b) && char_upcase(char_code(a)) == char_upcase(char_code(b));
        if (is_number(a)) return is_number(b) && num_equal(L, a, b);
        if (is_cons(a)) {
            if (!is_cons(b)) return false;
            Obj ca = CAR(a), cb = CAR(b);
            if (ca != cb) {   /* EQ elements (symbols, fixnums, shared structure) need no call */
                stack_check(L);
                if (!lisp_equalp(L, ca, cb)) return false;
            }
            a = CDR(a);
            b = CDR(b);
            EQUAL_SAFE_POINT(L, steps);
            continue;
        }
        if (!is_heap(a) || !is_heap(b)) return false;
        if (is_array(a)) {
            if (!is_array(b)) return false;
            int ra = array_rank(a);
            if (ra != array_rank(b)) return false;
            if (ra == 1) {
                size_t n = vector_length(a);
                if (n != vector_length(b)) return false;
                for (size_t i = 0; i < n; i++) {
                    stack_check(L);
                    if (!lisp_equalp(L, array_rm_ref(L, a, i), array_rm_ref(L, b, i))) return false;
                }
                return true;
            }
            for (int k = 0; k < ra; k++)
                if (array_dimension(a, k) != array_dimension(b, k)) return false;
            size_t n = array_total(a);
            for (size_t i = 0; i < n; i++) {
                stack_check(L);
                if (!lisp_equalp(L, array_rm_ref(L, a, i), array_rm_ref(L, b, i))) return false;
            }
            return true;
        }
        if (heap_type(a) == T_INSTANCE && heap_type(b) == T_INSTANCE) {
            Instance *x = INST(a), *y = INST(b);
            if (!(x->h.flags & INST_STRUCTURE) || x->layout != y->layout || x->nslots != y->nslots) return false;
            for (size_t i = 0; i < x->nslots; i++) {
                stack_check(L);
                if (!lisp_equalp(L, x->slots[i], y->slots[i])) return false;
            }
            return true;
        }
        if (heap_type(a) == T_HASHTABLE && heap_type(b) == T_HASHTABLE) {
            HashTable *x = HT(a), *y = HT(b);
            hash_sweep(x);
            hash_sweep(y);
            if (x->count != y->count || x->h.aux != y->h.aux) return false;
            for (size_t i = 0; i < x->cap; i++) {
                HashEntry *e = &x->entries[i];
                Obj k = e->key, ev = e->value;
                if (k == NO_VALUE || k == TOMBSTONE || k == WEAK_CLEARED || ev == WEAK_CLEARED) continue;
                Obj v = hash_get(L, b, k, NO_VALUE);
                if (v == NO_VALUE || !lisp_equalp(L, ev, v)) return false;
            }
            return true;
        }
        return lisp_equal(L, a, b);
    }
}

/* ---- hashing ---- */

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* A symbol hashes by its name (cached), so that tables keyed by symbols do not depend on where the
 * symbols are in memory: those a boot image holds need no rehashing (hash_address_free). */
uint64_t hash_eq(Obj o) { return is_type(o, T_SYMBOL) ? SYM(o)->hash : mix(WORD(o)); }

/* Whether KEY hashes the same wherever the objects it is made of are in memory, for TABLE's test:
 * immediates, symbols, numbers, and for EQUAL and EQUALP strings, bit vectors, pathnames and
 * conses of such. */
static bool key_address_free(Obj o, HashTest test, int depth) {
    if (!is_heap(o) && !is_cons(o)) return true;
    if (depth > 8) return false;
    if (is_cons(o)) {
        if (test < HT_EQUAL) return false;
        /* sxhash_rec looks at the first 8 elements and the tail */
        int n = 0;
        for (; is_cons(o) && n < 8; o = CDR(o), n++)
            if (!key_address_free(CAR(o), test, depth + 1)) return false;
        return !is_cons(o) ? key_address_free(o, test, depth + 1) : false;
    }
    HeapType t = heap_type(o);
    if (t == T_SYMBOL) return true;
    if (t == T_BIGNUM || t == T_RATIO || t == T_DOUBLE || t == T_COMPLEX) return test != HT_EQ;
    if (test < HT_EQUAL) return false;
    return t == T_STRING || t == T_BITVECTOR;
}

bool hash_address_free(Obj table) {
    HashTable *t = HT(table);
    for (size_t i = 0; i < t->cap; i++) {
        Obj k = t->entries[i].key;
        if (k == NO_VALUE || k == TOMBSTONE || k == WEAK_CLEARED) continue;
        if (!key_address_free(k, (HashTest)t->h.aux, 0)) return false;
    }
    return true;
}

uint64_t hash_eql(Obj o) {
    if (is_heap(o) && is_number(o)) return num_hash(o);
    return hash_eq(o);
}

static uint64_t sxhash_rec(Lisp *L, Obj o, int depth, bool fold) {
    if (is_cons(o)) {
        uint64_t h = 0x9e3779b97f4a7c15ull;
        int n = 0;
        for (; is_cons(o) && n < 8; o = CDR(o), n++) {
            if (depth < 4) h = mix(h ^ sxhash_rec(L, CAR(o), depth + 1, fold));
        }
        if (o != NIL && !is_cons(o)) h = mix(h ^ sxhash_rec(L, o, depth + 1, fold));
        return h;
    }
    if (is_char(o)) return mix(fold ? char_upcase(char_code(o)) : char_code(o));
    if (fold && is_number(o)) return num_hash_equalp(L, o);
    if (!is_heap(o) || o == NIL) return hash_eql(o);
    if (string_like(o)) {
        size_t n = vector_length(o);
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < n; i++) {
            uint32_t c = char_code(array_rm_ref(L, o, i));
            if (fold) c = char_upcase(c);
            h = (h ^ c) * 1099511628211ull;
        }
        return mix(h);
    }
    if (bitvec_like(o)) {
        size_t n = vector_length(o);
        uint64_t h = n;
        for (size_t i = 0; i < n && i < 64; i++) h = h * 31 + (uint64_t)fixnum_val(array_rm_ref(L, o, i));
        return mix(h);
    }
    if (is_type(o, T_SYMBOL)) return SYM(o)->hash;
    if (fold && is_array(o)) {
        size_t n = array_rank(o) == 1 ? vector_length(o) : array_total(o);
        uint64_t h = mix(n + 7);
        for (size_t i = 0; i < n && i < 8 && depth < 4; i++) h = mix(h ^ sxhash_rec(L, array_rm_ref(L, o, i), depth + 1, fold));
        return h;
    }
    if (fold && is_type(o, T_INSTANCE) && (INST(o)->h.flags & INST_STRUCTURE)) return hash_eq(INST(o)->layout);
    if (fold && is_type(o, T_HASHTABLE)) return mix(HT(o)->count);
    if (is_type(o, T_PATHNAME))
        return mix(sxhash_rec(L, PATHNAME(o)->name, depth + 1, fold) ^ (sxhash_rec(L, PATHNAME(o)->type, depth + 1, fold) << 1) ^
                   sxhash_rec(L, PATHNAME(o)->directory, depth + 1, fold));
    return hash_eql(o);
}

uint64_t hash_equal(Lisp *L, Obj o) { return sxhash_rec(L, o, 0, false); }
uint64_t hash_equalp(Lisp *L, Obj o) { return sxhash_rec(L, o, 0, true); }

/* ---- tables ---- */

static uint64_t table_hash(Lisp *L, HashTable *t, Obj key) {
    switch ((HashTest)t->h.aux) {
    case HT_EQ: return hash_eq(key);
    case HT_EQL: return hash_eql(key);
    case HT_EQUAL: return hash_equal(L, key);
    default: return hash_equalp(L, key);
    }
}

static bool table_test(Lisp *L, HashTable *t, Obj a, Obj b) {
    switch ((HashTest)t->h.aux) {
    case HT_EQ: return a == b;
    case HT_EQL: return lisp_eql(a, b);
    case HT_EQUAL: return lisp_equal(L, a, b);
    default: return lisp_equalp(L, a, b);
    }
}

static Obj test_symbol(Lisp *L, HashTest t) {
    switch (t) {
    case HT_EQ: return S(EQ);
    case HT_EQL: return S(EQL);
    case HT_EQUAL: return S(EQUAL);
    default: return S(EQUALP);
    }
}

/* ---- weak tables ----
 * A weak table's entries live in a block the collector does not scan, so that they do not keep
 * their weak parts alive; each weak part that is a collected object is registered (weak_link) to
 * be cleared to WEAK_CLEARED when it dies, and the parts held strongly are kept in `strong` as well.
 * An entry with a cleared part reads as absent; after each collection the next operation that
 * counts or walks the table turns such entries into tombstones (hash_sweep). A key or value read
 * out of the block is in a register or on the stack, where the collector sees it, so it cannot be
 * cleared while in use. */

static bool weak_key(const HashTable *t) { return t->h.flags & HT_WEAK_KEY; }
static bool weak_value(const HashTable *t) { return t->h.flags & HT_WEAK_VALUE; }

static void weak_store(HashTable *t, size_t i, Obj key, Obj value) {
    HashEntry *e = &t->entries[i];
    if (weak_key(t)) { weak_unlink(&e->key); e->key = key; weak_link(&e->key, key); }
    else { e->key = key; t->strong[2 * i] = key; }
    if (weak_value(t)) { weak_unlink(&e->value); e->value = value; weak_link(&e->value, value); }
    else { e->value = value; t->strong[2 * i + 1] = value; }
}

static void weak_drop(HashTable *t, size_t i) {
    HashEntry *e = &t->entries[i];
    if (weak_key(t)) weak_unlink(&e->key);
    if (weak_value(t)) weak_unlink(&e->value);
    e->key = TOMBSTONE;
    e->value = NIL;
    t->strong[2 * i] = t->strong[2 * i + 1] = NIL;
}

static void weak_unlink_all(HashTable *t) {
    for (size_t i = 0; i < t->cap; i++) {
        Obj k = t->entries[i].key;
        if (k == NO_VALUE || k == TOMBSTONE) continue;
        if (weak_key(t)) weak_unlink(&t->entries[i].key);
        if (weak_value(t)) weak_unlink(&t->entries[i].value);
    }
}

static __attribute__((noinline)) void sweep_cleared(HashTable *t) {
    t->swept = weak_gc_count();
    for (size_t i = 0; i < t->cap; i++) {
        Obj k = t->entries[i].key, v = t->entries[i].value;
        if (k == NO_VALUE || k == TOMBSTONE) continue;
        if (k == WEAK_CLEARED || v == WEAK_CLEARED) {
            weak_drop(t, i);
            t->count--;
        }
    }
}

static void hash_sweep(HashTable *t) {
    if (UNLIKELY(t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE)) && t->swept != weak_gc_count()) sweep_cleared(t);
}

static void alloc_entries(Lisp *L, HashTable *t, size_t cap) {
    gc_check_request(L, cap * sizeof(HashEntry));
    if (t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE)) {
        t->entries = (HashEntry *)gc_alloc_atomic(L, cap * sizeof(HashEntry));
        memset(t->entries, 0, cap * sizeof(HashEntry));
        for (size_t i = 0; i < cap; i++) t->entries[i].value = NIL;
        t->strong = (Obj *)gc_alloc(L, 2 * cap * sizeof(Obj));
        t->swept = weak_gc_count();
    } else
        t->entries = (HashEntry *)gc_alloc(L, cap * sizeof(HashEntry));
    for (size_t i = 0; i < cap; i++) t->entries[i].key = NO_VALUE;
    t->cap = cap;
    t->used = 0;
    t->count = 0;
}

Obj hash_new(Lisp *L, HashTest test, size_t size) { return hash_new_weak(L, test, size, 0); }

Obj hash_new_weak(Lisp *L, HashTest test, size_t size, uint8_t weakness) {
    HashTable *t = (HashTable *)heap_alloc(L, T_HASHTABLE, sizeof(HashTable));
    t->h.aux = (uint16_t)test;
    t->h.flags = weakness;
    size_t cap = 16;
    while (cap < size + size / 2 + 1) cap *= 2;
    alloc_entries(L, t, cap);
    t->size = size < 7 ? 7 : size;   /* SBCL's smallest size */
    t->rehash_size = make_double(L, 1.5);
    t->rehash_threshold = make_double(L, 1.0);
    t->test_fn = test_symbol(L, test);
    return (Obj)t;
}

/* A table read back from an image (image.c) hashed its keys at the writer's addresses: it is
 * marked stale and rehashed in place on its first lookup, so that loading touches no table. */
enum { HT_STALE = 1 };

static void rehash_weak(Lisp *L, HashTable *t, size_t cap);

static __attribute__((noinline, cold)) void refresh(Lisp *L, HashTable *t) {
    t->h.flags &= (uint8_t)~HT_STALE;
    size_t n = 0;
    HashEntry *live = (HashEntry *)malloc((t->count + 1) * sizeof *live);
    if (!live) abort();
    for (size_t i = 0; i < t->cap; i++) {
        HashEntry *e = &t->entries[i];
        if (e->key == NO_VALUE || e->key == TOMBSTONE) continue;
        if (n < t->count + 1) live[n++] = *e;
        e->key = NO_VALUE;
        e->value = NIL;
    }
    size_t mask = t->cap - 1;
    t->count = t->used = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = table_hash(L, t, live[i].key);
        size_t j = h & mask;
        while (t->entries[j].key != NO_VALUE) j = (j + 1) & mask;
        t->entries[j] = (HashEntry){live[i].key, live[i].value, h};
        t->count++;
        t->used++;
    }
    free(live);
    /* a weak table read from an image has its entries in scanned memory, held strongly (the
     * image cannot hold the collector's registrations): into a block of its own, weak again */
    if (t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE)) rehash_weak(L, t, t->cap);
    t->iter_mod++;
}

static inline void fresh(Lisp *L, HashTable *t) {
    if (UNLIKELY(t->h.flags & HT_STALE)) refresh(L, t);
}

void hash_rehash_loaded(Lisp *L, Obj table) {
    (void)L;
    HT(table)->h.flags |= HT_STALE;
}

static long find_slot(Lisp *L, HashTable *t, Obj key, uint64_t h) {
    size_t mask = t->cap - 1;
    for (size_t i = h & mask, n = 0; n < t->cap; i = (i + 1) & mask, n++) {
        HashEntry *e = &t->entries[i];
        if (e->key == NO_VALUE) return -1;
        if (e->key != TOMBSTONE && e->hash == h && table_test(L, t, e->key, key)) return (long)i;
    }
    return -1;
}

Obj hash_get(Lisp *L, Obj table, Obj key, Obj dflt) {
    HashTable *t = HT(table);
    fresh(L, t);
    long i = find_slot(L, t, key, table_hash(L, t, key));
    if (i < 0) return dflt;
    Obj v = t->entries[i].value;
    return v == WEAK_CLEARED ? dflt : v;
}

static void rehash_weak(Lisp *L, HashTable *t, size_t cap) {
    HashEntry *old = t->entries;
    Obj *old_strong = t->strong;
    size_t oldcap = t->cap;
    alloc_entries(L, t, cap);
    for (size_t i = 0; i < oldcap; i++) {
        Obj k = old[i].key, v = old[i].value;
        if (k == NO_VALUE || k == TOMBSTONE) continue;
        if (weak_key(t)) weak_unlink(&old[i].key);
        if (weak_value(t)) weak_unlink(&old[i].value);
        if (k == WEAK_CLEARED || v == WEAK_CLEARED) continue;
        size_t mask = t->cap - 1;
        size_t j = old[i].hash & mask;
        while (t->entries[j].key != NO_VALUE) j = (j + 1) & mask;
        t->entries[j].hash = old[i].hash;
        weak_store(t, j, k, v);
        t->count++;
        t->used++;
    }
    (void)old_strong;   /* kept the moved parts alive until now */
    if (t->size < t->cap / 4 * 3) t->size = t->cap / 4 * 3;
    t->iter_mod++;
}

static void rehash(Lisp *L, HashTable *t, size_t cap) {
    if (UNLIKELY(t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE))) { rehash_weak(L, t, cap); return; }
    HashEntry *old = t->entries;
    size_t oldcap = t->cap;
    alloc_entries(L, t, cap);
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].key == NO_VALUE || old[i].key == TOMBSTONE) continue;
        size_t mask = t->cap - 1;
        size_t j = old[i].hash & mask;
        while (t->entries[j].key != NO_VALUE) j = (j + 1) & mask;
        t->entries[j] = old[i];
        t->count++;
        t->used++;
    }
    gc_forget_array((Obj *)old, oldcap * (sizeof *old / sizeof(Obj)), NO_VALUE);   /* a boot table's */
    if (t->size < t->cap / 4 * 3) t->size = t->cap / 4 * 3;   /* the entries it holds before growing */
    t->iter_mod++;
}

void hash_put(Lisp *L, Obj table, Obj key, Obj value) {
    HashTable *t = HT(table);
    fresh(L, t);
    uint64_t h = table_hash(L, t, key);
    long i = find_slot(L, t, key, h);
    bool weak = t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE);
    if (i >= 0) {
        if (UNLIKELY(weak)) {
            if (t->entries[i].value == WEAK_CLEARED) t->count--;   /* counted again below */
            else { weak_store(t, (size_t)i, t->entries[i].key, value); return; }
            weak_drop(t, (size_t)i);
        } else {
            t->entries[i].value = value;
            return;
        }
    }
    if (UNLIKELY(weak)) hash_sweep(t);
    if ((t->used + 1) * 4 > t->cap * 3) rehash(L, t, t->count * 2 + 2 > t->cap / 2 ? t->cap * 2 : t->cap);
    size_t mask = t->cap - 1;
    size_t j = h & mask;
    while (t->entries[j].key != NO_VALUE && t->entries[j].key != TOMBSTONE) j = (j + 1) & mask;
    if (t->entries[j].key == NO_VALUE) t->used++;
    t->entries[j].hash = h;
    if (UNLIKELY(weak)) weak_store(t, j, key, value);
    else {
        t->entries[j].key = key;
        t->entries[j].value = value;
    }
    t->count++;
}

bool hash_remove(Lisp *L, Obj table, Obj key) {
    HashTable *t = HT(table);
    fresh(L, t);
    long i = find_slot(L, t, key, table_hash(L, t, key));
    if (i < 0) return false;
    bool present = t->entries[i].value != WEAK_CLEARED;
    if (UNLIKELY(t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE))) weak_drop(t, (size_t)i);
    else {
        t->entries[i].key = TOMBSTONE;
        t->entries[i].value = NIL;
    }
    t->count--;
    return present;
}

void hash_clear(Lisp *L, Obj table) {
    HashTable *t = HT(table);
    if (UNLIKELY(t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE))) weak_unlink_all(t);
    else gc_forget_array((Obj *)t->entries, t->cap * (sizeof *t->entries / sizeof(Obj)), NO_VALUE);
    alloc_entries(L, t, 16);
    t->iter_mod++;
}

/* A copy of TABLE as it is (a new table with its own entries), or NIL for a weak table: what a
 * reset puts back with hash_restore_entries. */
Obj hash_copy_entries(Lisp *L, Obj table) {
    HashTable *t = HT(table);
    if (t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE)) return NIL;
    fresh(L, t);
    HashTable *c = (HashTable *)heap_alloc(L, T_HASHTABLE, sizeof(HashTable));
    *c = *t;
    c->entries = (HashEntry *)gc_alloc(L, t->cap * sizeof(HashEntry));
    memcpy(c->entries, t->entries, t->cap * sizeof(HashEntry));
    c->iter_mod = 0;
    return (Obj)c;
}

/* Make TABLE hold exactly the entries of COPY (hash_copy_entries of it). Returns false, touching
 * nothing, when it already does: a registry the session did not change costs one comparison. */
bool hash_restore_entries(Lisp *L, Obj table, Obj copy) {
    HashTable *t = HT(table), *c = HT(copy);
    fresh(L, t);
    fresh(L, c);
    size_t bytes = c->cap * sizeof(HashEntry);
    if (t->cap == c->cap && t->count == c->count && t->used == c->used && t->size == c->size &&
        memcmp(t->entries, c->entries, bytes) == 0)
        return false;
    if (t->cap != c->cap || !gc_collected(t->entries)) {
        /* a boot table's array stays in the image's heap: emptied, it keeps nothing alive */
        HashEntry *e = (HashEntry *)gc_alloc(L, bytes);
        gc_forget_array((Obj *)t->entries, t->cap * (sizeof *t->entries / sizeof(Obj)), NO_VALUE);
        t->entries = e;
    }
    memcpy(t->entries, c->entries, bytes);
    t->cap = c->cap;
    t->count = c->count;
    t->used = c->used;
    t->size = c->size;
    t->iter_mod++;
    return true;
}

/* ---- primitives ---- */

static Obj check_table(Lisp *L, Obj o) {
    if (!is_type(o, T_HASHTABLE)) err_type(L, o, S(HASH_TABLE));
    return o;
}

static HashTest parse_test(Lisp *L, Obj t) {
    if (t == S(EQ) || t == SYM(S(EQ))->function) return HT_EQ;
    if (t == S(EQL) || t == SYM(S(EQL))->function) return HT_EQL;
    if (t == S(EQUAL) || t == SYM(S(EQUAL))->function) return HT_EQUAL;
    if (t == S(EQUALP) || t == SYM(S(EQUALP))->function) return HT_EQUALP;
    err_simple(L, "Unknown :TEST for MAKE-HASH-TABLE: %S", t);
}

static const struct { uint8_t flags; int sym; } weaknesses[] = {
    {HT_WEAK_KEY, SY_K_KEY}, {HT_WEAK_VALUE, SY_K_KEY_VALUE},
    {HT_WEAK_KEY | HT_WEAK_VALUE, SY_K_KEY_AND_VALUE}, {HT_WEAK_EITHER, SY_K_KEY_OR_VALUE},
};

DEFPRIM(prim_hash_table_weakness) {
    UNUSED_ARGS;
    uint8_t f = HT(check_table(L, args[0]))->h.flags & HT_WEAK;
    for (size_t i = 0; i < sizeof weaknesses / sizeof *weaknesses; i++)
        if (weaknesses[i].flags == f) return L->syms[weaknesses[i].sym];
    return NIL;
}

static uint8_t parse_weakness(Lisp *L, Obj w) {
    if (w == NIL || w == NO_VALUE) return 0;
    for (size_t i = 0; i < sizeof weaknesses / sizeof *weaknesses; i++)
        if (L->syms[weaknesses[i].sym] == w) return weaknesses[i].flags;
    Obj members[] = {S(MEMBER), NIL, S(K_KEY), S(K_KEY_VALUE), S(K_KEY_AND_VALUE), S(K_KEY_OR_VALUE)};
    err_type(L, w, list_from_array(L, 6, members));
}

DEFPRIM(prim_make_hash_table) {
    Obj keys[6] = {S(K_TEST), S(K_SIZE), S(K_REHASH_SIZE), S(K_REHASH_THRESHOLD), S(K_WEAKNESS), S(K_SYNCHRONIZED)};
    Obj out[6];
    parse_keys(L, nargs, args, 0, 6, keys, out);
    HashTest test = out[0] == NO_VALUE ? HT_EQL : parse_test(L, out[0]);
    size_t size = 7;   /* SBCL's default */
    if (out[1] != NO_VALUE) {
        size = check_index(L, out[1]);
        if (size > ((size_t)1 << 28)) gc_check_request(L, size * sizeof(HashEntry) * 2);
    }
    uint8_t weak = parse_weakness(L, out[4]);
    Obj t = hash_new_weak(L, test, size, weak);
    if (out[2] != NO_VALUE) HT(t)->rehash_size = out[2];
    if (out[3] != NO_VALUE) HT(t)->rehash_threshold = out[3];
    return t;
}

DEFPRIM(prim_gethash) {
    Obj t = check_table(L, args[1]);
    Obj v = hash_get(L, t, args[0], NO_VALUE);
    if (v == NO_VALUE) return values2(L, opt_arg(nargs, args, 2, NIL), NIL);
    return values2(L, v, S(T));
}

/* (sys:%puthash key table value) */
DEFPRIM(prim_pct_puthash) {
    UNUSED_ARGS;
    hash_put(L, check_table(L, args[1]), args[0], args[2]);
    return args[2];
}

DEFPRIM(prim_remhash) { UNUSED_ARGS; return boolean(L, hash_remove(L, check_table(L, args[1]), args[0])); }
DEFPRIM(prim_clrhash) { UNUSED_ARGS; hash_clear(L, check_table(L, args[0])); return args[0]; }
DEFPRIM(prim_hash_table_count) {
    UNUSED_ARGS;
    HashTable *t = HT(check_table(L, args[0]));
    hash_sweep(t);
    return FIX((intptr_t)t->count);
}
DEFPRIM(prim_hash_table_p) { UNUSED_ARGS; return boolean(L, is_type(args[0], T_HASHTABLE)); }
DEFPRIM(prim_hash_table_test) { UNUSED_ARGS; return HT(check_table(L, args[0]))->test_fn; }
DEFPRIM(prim_hash_table_size) { UNUSED_ARGS; return FIX((intptr_t)HT(check_table(L, args[0]))->size); }
DEFPRIM(prim_hash_table_rehash_size) { UNUSED_ARGS; return HT(check_table(L, args[0]))->rehash_size; }
DEFPRIM(prim_hash_table_rehash_threshold) { UNUSED_ARGS; return HT(check_table(L, args[0]))->rehash_threshold; }

/* Iterate over a snapshot of the live entries so that the function may modify the table. */
static Obj snapshot(Lisp *L, HashTable *t, size_t *n) {
    hash_sweep(t);
    Obj v = make_vector(L, t->count * 2, NIL);
    size_t k = 0;
    for (size_t i = 0; i < t->cap && k < t->count * 2; i++) {
        HashEntry *e = &t->entries[i];
        Obj ek = e->key, ev = e->value;
        if (ek == NO_VALUE || ek == TOMBSTONE || ek == WEAK_CLEARED || ev == WEAK_CLEARED) continue;
        VEC(v)->data[k++] = ek;
        VEC(v)->data[k++] = ev;
    }
    *n = k / 2;
    return v;
}

DEFPRIM(prim_maphash) {
    UNUSED_ARGS;
    Obj fn = args[0];
    Obj tab = check_table(L, args[1]);
    size_t n;
    Obj snap = snapshot(L, HT(tab), &n);
    for (size_t i = 0; i < n; i++) {
        Obj k = VEC(snap)->data[2 * i];
        /* skip entries removed by an earlier call */
        Obj cur = hash_get(L, tab, k, NO_VALUE);
        if (cur == NO_VALUE) continue;
        funcall2(L, fn, k, cur);
    }
    return NIL;
}

/* (sys:%hash-table-snapshot table) -> simple-vector key0 value0 key1 value1 ... (for WITH-HASH-TABLE-ITERATOR and LOOP) */
DEFPRIM(prim_pct_hash_table_snapshot) {
    UNUSED_ARGS;
    size_t n;
    Obj snap = snapshot(L, HT(check_table(L, args[0])), &n);
    (void)n;
    return snap;
}

/* What a system load added to a registry (asdf.lisp, %COMMIT-CAPTURE): a registry holds thousands
 * of entries and a load changes a few, so the comparison is done in C and, while the table has not
 * been rebuilt, slot by slot.
 * (sys:%hash-table-mark table) -> #(iter-mod cap key0 value0 ...): TABLE's slots as they are now, an
 * empty slot's key being the mark itself. */
DEFPRIM(prim_pct_hash_table_mark) {
    UNUSED_ARGS;
    HashTable *t = HT(check_table(L, args[0]));
    fresh(L, t);
    Obj m = make_vector(L, 2 + 2 * t->cap, NIL);
    VEC(m)->data[0] = FIX((int64_t)(t->iter_mod & 0xffffffffffffull));
    VEC(m)->data[1] = FIX((int64_t)t->cap);
    for (size_t i = 0; i < t->cap; i++) {
        Obj k = t->entries[i].key, v = t->entries[i].value;
        bool live = k != NO_VALUE && k != TOMBSTONE && k != WEAK_CLEARED && v != WEAK_CLEARED;
        VEC(m)->data[2 + 2 * i] = live ? k : m;
        VEC(m)->data[3 + 2 * i] = live ? v : NIL;
    }
    return m;
}

static bool live_slot(HashEntry *e) {
    return e->key != NO_VALUE && e->key != TOMBSTONE && e->key != WEAK_CLEARED && e->value != WEAK_CLEARED;
}

/* (sys:%hash-table-changes table mark) -> ((key . value) ...): the entries of TABLE that MARK (a
 * %HASH-TABLE-MARK of it) lacked or held with another (not EQ) value. */
DEFPRIM(prim_pct_hash_table_changes) {
    UNUSED_ARGS;
    Obj tab = check_table(L, args[0]), m = args[1];
    HashTable *t = HT(tab);
    if (!is_type(m, T_VECTOR) || VEC(m)->len < 2 || !is_fixnum(VEC(m)->data[1]) ||
        VEC(m)->len != 2 + 2 * (size_t)fixnum_val(VEC(m)->data[1]))
        err_type(L, m, S(SIMPLE_VECTOR));
    fresh(L, t);
    size_t mcap = (size_t)fixnum_val(VEC(m)->data[1]);
    Obj *md = VEC(m)->data + 2;
    bool same_slots = !(t->h.flags & HT_WEAK) && t->cap == mcap &&
                      VEC(m)->data[0] == FIX((int64_t)(t->iter_mod & 0xffffffffffffull));
    /* the keys the mark had that may be elsewhere now: with the same slots, only those of slots
     * that changed (a key removed and put back lands in another slot); else all of them */
    Obj old = hash_new(L, (HashTest)t->h.aux, 8);
    for (size_t i = 0; i < mcap; i++) {
        if (md[2 * i] == m) continue;
        if (same_slots && live_slot(&t->entries[i]) && t->entries[i].key == md[2 * i]) continue;
        hash_put(L, old, md[2 * i], md[2 * i + 1]);
    }
    Obj out = NIL;
    for (size_t i = 0; i < t->cap; i++) {
        HashEntry *e = &t->entries[i];
        if (!live_slot(e)) continue;
        Obj k = e->key, v = e->value;
        if (same_slots && md[2 * i] == k) {
            if (md[2 * i + 1] != v) out = cons(L, cons(L, k, v), out);
            continue;
        }
        if (hash_get(L, old, k, NO_VALUE) != v) out = cons(L, cons(L, k, v), out);
    }
    return out;
}

/* (sys:%hash-table-add-keys table entries) -> true when TABLE already held the key of one of
 * ENTRIES ((key . value) ...); the keys are added to TABLE, with the value T. The loader's index of
 * the registry entries it keeps (asdf.lisp): one call per registry and load, not a Lisp loop over
 * a load's thousand entries. */
DEFPRIM(prim_pct_hash_table_add_keys) {
    UNUSED_ARGS;
    Obj tab = check_table(L, args[0]);
    bool seen = false;
    for (Obj l = args[1]; l != NIL; l = CDR(l)) {
        if (!is_cons(l) || !is_cons(CAR(l))) err_type(L, args[1], S(LIST));
        Obj key = CAR(CAR(l));
        if (hash_get(L, tab, key, NO_VALUE) != NO_VALUE) seen = true;
        else hash_put(L, tab, key, S(T));
    }
    return boolean(L, seen);
}

DEFPRIM(prim_sxhash) {
    UNUSED_ARGS;
    return FIX((intptr_t)(hash_equal(L, args[0]) & (uint64_t)MOST_POSITIVE_FIXNUM));
}

DEFPRIM(prim_eq) { UNUSED_ARGS; return boolean(L, args[0] == args[1]); }
DEFPRIM(prim_eql) { UNUSED_ARGS; return boolean(L, lisp_eql(args[0], args[1])); }
DEFPRIM(prim_equal) { UNUSED_ARGS; return boolean(L, lisp_equal(L, args[0], args[1])); }
DEFPRIM(prim_equalp) { UNUSED_ARGS; return boolean(L, lisp_equalp(L, args[0], args[1])); }

const PrimDef hash_prims[] = {
    {"EQ", PK_CL, prim_eq, 2, 2, 0, "(x y)", "True if X and Y are the same object."},
    {"EQL", PK_CL, prim_eql, 2, 2, 0, "(x y)", "EQ, or numbers of the same type and value, or equal characters."},
    {"EQUAL", PK_CL, prim_equal, 2, 2, 0, "(x y)", "True when X and Y are EQL, or are conses with EQUAL cars and cdrs, or strings or bit vectors with the same elements, or pathnames that are the same."},
    {"EQUALP", PK_CL, prim_equalp, 2, 2, 0, "(x y)", "Like EQUAL, but ignoring case in characters and strings, comparing numbers with =, and looking inside every array, structure and hash table."},
    {"MAKE-HASH-TABLE", PK_CL, prim_make_hash_table, 0, REST, 0, "(&key test size rehash-size rehash-threshold weakness synchronized)", "A new empty hash table whose keys are compared with TEST (EQ, EQL, EQUAL or EQUALP, or their functions; EQL by default); SIZE, REHASH-SIZE and REHASH-THRESHOLD tune its growth."},
    {"GETHASH", PK_CL, prim_gethash, 2, 3, FN_MV, "(key hash-table &optional default)", "Value for KEY and whether it was found."},
    {"%PUTHASH", PK_SYS, prim_pct_puthash, 3, 3, 0, "(key hash-table value)", NULL},
    {"REMHASH", PK_CL, prim_remhash, 2, 2, 0, "(key hash-table)", "Remove KEY; true if it was present."},
    {"CLRHASH", PK_CL, prim_clrhash, 1, 1, 0, "(hash-table)", "Remove every entry."},
    {"HASH-TABLE-COUNT", PK_CL, prim_hash_table_count, 1, 1, 0, "(hash-table)", "The number of entries in HASH-TABLE."},
    {"HASH-TABLE-P", PK_CL, prim_hash_table_p, 1, 1, 0, "(object)", "True when OBJECT is a hash table."},
    {"HASH-TABLE-TEST", PK_CL, prim_hash_table_test, 1, 1, 0, "(hash-table)", "The symbol naming the equality test of HASH-TABLE: EQ, EQL, EQUAL or EQUALP."},
    {"HASH-TABLE-SIZE", PK_CL, prim_hash_table_size, 1, 1, 0, "(hash-table)", "The current capacity of HASH-TABLE."},
    {"HASH-TABLE-REHASH-SIZE", PK_CL, prim_hash_table_rehash_size, 1, 1, 0, "(hash-table)", "How much HASH-TABLE grows when it fills: an integer to add or a float to multiply by."},
    {"HASH-TABLE-REHASH-THRESHOLD", PK_CL, prim_hash_table_rehash_threshold, 1, 1, 0, "(hash-table)", "How full HASH-TABLE may get, as a ratio between 0 and 1, before it grows."},
    {"HASH-TABLE-WEAKNESS", PK_EXT, prim_hash_table_weakness, 1, 1, 0, "(hash-table)", NULL},
    {"MAPHASH", PK_CL, prim_maphash, 2, 2, 0, "(function hash-table)", "Call FUNCTION on each key and value."},
    {"%HASH-TABLE-SNAPSHOT", PK_SYS, prim_pct_hash_table_snapshot, 1, 1, 0, "(hash-table)", NULL},
    {"%HASH-TABLE-MARK", PK_SYS, prim_pct_hash_table_mark, 1, 1, 0, "(hash-table)", NULL},
    {"%HASH-TABLE-CHANGES", PK_SYS, prim_pct_hash_table_changes, 2, 2, 0, "(hash-table mark)", NULL},
    {"%HASH-TABLE-ADD-KEYS", PK_SYS, prim_pct_hash_table_add_keys, 2, 2, 0, "(hash-table entries)", NULL},
    {"SXHASH", PK_CL, prim_sxhash, 1, 1, 0, "(object)", "A hash code consistent with EQUAL."},
    {0},
};

void hash_init(Lisp *L) { prims_register(L, hash_prims); }
