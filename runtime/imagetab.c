/* imagetab.c: the registry of the tables of C addresses an image names by index, and its lookups. */
#include "imagetab.h"
#include "prim.h"
#include "modules.h"
#include "eval.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DECLARE_PRIMS(m) extern const PrimDef m##_prims[];
RUNTIME_MODULES(DECLARE_PRIMS)
DECLARE_PRIMS(logical)
DECLARE_PRIMS(pprint)
#undef DECLARE_PRIMS
extern const EvalDef nodes_evaluators[], nodes_test_evaluators[], nodes_loop_evaluators[], nodes_selfloop_evaluators[],
    analyze_evaluators[];

#define PRIM_TABLE(m) PRIMDEF_IMAGE_TABLE(#m, m##_prims),
#define EVAL_TABLE(t) {#t, t, sizeof(EvalDef), offsetof(EvalDef, name), 1, {offsetof(EvalDef, ev), 0, 0}},

/* The runtime's tables. Their order is part of what an index means (the names hash covers it). */
static const ImageTable runtime_tables[] = {
    RUNTIME_MODULES(PRIM_TABLE)
    PRIM_TABLE(logical)
    PRIM_TABLE(pprint)
    EVAL_TABLE(nodes_evaluators)
    EVAL_TABLE(nodes_test_evaluators)
    EVAL_TABLE(analyze_evaluators)
    EVAL_TABLE(nodes_loop_evaluators)
    EVAL_TABLE(nodes_selfloop_evaluators)
};

#define MAX_GROUPS 8
typedef struct Group { const ImageTable *tables; size_t n; } Group;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Group groups[MAX_GROUPS] = {{runtime_tables, sizeof runtime_tables / sizeof *runtime_tables}};
static size_t ngroups = 1;
static ImageLinks *resolved;     /* made on first use, again after imagetab_add */

void imagetab_add(const ImageTable *tables, size_t n) {
    pthread_mutex_lock(&lock);
    bool known = false;
    for (size_t g = 0; g < ngroups; g++) known |= groups[g].tables == tables;
    if (!known && ngroups < MAX_GROUPS) {
        groups[ngroups++] = (Group){tables, n};
        resolved = NULL;    /* the old one stays allocated: a reader may still hold it */
    }
    pthread_mutex_unlock(&lock);
}

static const ImageTable *table_at(size_t t) {
    for (size_t g = 0; g < ngroups; g++) {
        if (t < groups[g].n) return &groups[g].tables[t];
        t -= groups[g].n;
    }
    return NULL;
}

bool imagetab_declared(const void *rows) {
    pthread_mutex_lock(&lock);
    bool found = false;
    for (size_t g = 0; g < ngroups && !found; g++)
        for (size_t i = 0; i < groups[g].n && !found; i++) found = groups[g].tables[i].rows == rows;
    pthread_mutex_unlock(&lock);
    return found;
}

static const char *row_name(const ImageTable *t, size_t r) {
    const char *name;
    memcpy(&name, (const char *)t->rows + r * t->stride + t->name_at, sizeof name);
    return name;
}

static size_t row_count(const ImageTable *t) {
    size_t n = 0;
    while (row_name(t, n)) n++;
    return n;
}

static uintptr_t field_value(const ImageTable *t, size_t r, size_t f) {
    uintptr_t v;
    memcpy(&v, (const char *)t->rows + r * t->stride + t->fields[f], sizeof v);
    return v;
}

static uint64_t hash_bytes(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull;    /* a separator: ("ab","c") is not ("a","bc") */
}

typedef struct Pair { uintptr_t addr; uint64_t key; } Pair;

static int pair_cmp(const void *a, const void *b) {
    const Pair *x = (const Pair *)a, *y = (const Pair *)b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static ImageLinks *resolve_all(void) {
    size_t cap = 1024, n = 0, t = 0, ntables = 0;
    while (table_at(ntables)) ntables++;
    size_t *counts = (size_t *)calloc(ntables + 1, sizeof *counts);
    Pair *pairs = counts ? (Pair *)malloc(cap * sizeof *pairs) : NULL;
    uint64_t h = 0xcbf29ce484222325ull;
    for (const ImageTable *tab; pairs && (tab = table_at(t)) != NULL; t++) {
        h = hash_bytes(h, tab->name, strlen(tab->name));
        size_t rows = counts[t] = row_count(tab);
        for (size_t r = 0; r < rows; r++) {
            const char *name = row_name(tab, r);
            h = hash_bytes(h, name, strlen(name));
            for (size_t f = 0; f < tab->nfields; f++) {
                uintptr_t v = field_value(tab, r, f);
                if (!v) continue;
                if (n == cap) {
                    Pair *more = (Pair *)realloc(pairs, (cap *= 2) * sizeof *pairs);
                    if (!more) { free(pairs); pairs = NULL; break; }
                    pairs = more;
                }
                if (pairs) pairs[n++] = (Pair){v, IMAGETAB_KEY(t, f, r)};
            }
        }
    }
    ImageLinks *links = (ImageLinks *)calloc(1, sizeof *links);
    uintptr_t *addrs = pairs ? (uintptr_t *)malloc((n + 1) * sizeof *addrs) : NULL;
    uint64_t *keys = pairs ? (uint64_t *)malloc((n + 1) * sizeof *keys) : NULL;
    if (!links || !addrs || !keys) { fputs("tinycl: out of memory for the image tables\n", stderr); abort(); }
    qsort(pairs, n, sizeof *pairs, pair_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || addrs[m - 1] != pairs[i].addr) {    /* the first row holding an address names it */
            addrs[m] = pairs[i].addr;
            keys[m++] = pairs[i].key;
        }
    free(pairs);
    *links = (ImageLinks){addrs, keys, m, counts, ntables, h};
    return links;
}

const ImageLinks *imagetab_links(void) {
    pthread_mutex_lock(&lock);
    if (!resolved) resolved = resolve_all();
    ImageLinks *l = resolved;
    pthread_mutex_unlock(&lock);
    return l;
}

long imagetab_find(const ImageLinks *links, uintptr_t addr) {
    size_t lo = 0, hi = links->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (links->addrs[mid] < addr) lo = mid + 1;
        else hi = mid;
    }
    return lo < links->n && links->addrs[lo] == addr ? (long)lo : -1;
}

bool imagetab_resolve(const ImageLinks *links, uint64_t key, uintptr_t *addr, char *err, size_t errlen) {
    size_t t = (size_t)(key >> 40 & 0xFFFF), f = (size_t)(key >> 32 & 0xFF), r = (size_t)(key & 0xFFFFFFFFu);
    pthread_mutex_lock(&lock);
    const ImageTable *tab = key >> 56 || t >= links->ntables ? NULL : table_at(t);
    size_t rows = tab ? links->rows[t] : 0;
    bool ok = tab && r < rows && f < tab->nfields;
    if (ok) *addr = field_value(tab, r, f);
    else if (!tab) snprintf(err, errlen, "the image is corrupted (it names C table %zu, past the last declared table)", t);
    else snprintf(err, errlen, "the image is corrupted (it names row %zu field %zu of the C table %s, which has %zu rows of %u fields)",
                  r, f, tab->name, rows, (unsigned)tab->nfields);
    pthread_mutex_unlock(&lock);
    return ok;
}
