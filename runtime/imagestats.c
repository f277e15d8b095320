/* imagestats.c: the tally of an image's blocks by kind and owner that TINYCL_IMAGE_STATS=1 prints. */
#include "imagestats.h"
#include "object.h"
#include <stdlib.h>
#include <string.h>

typedef struct Tally { size_t count, bytes, trailing; } Tally;
static Tally by_kind[IMAGESTATS_KINDS], by_owner[IMAGESTATS_KINDS][IMAGESTATS_KINDS];

bool imagestats_enabled(void) {
    const char *e = getenv("TINYCL_IMAGE_STATS");
    return e && *e && strcmp(e, "0") != 0;
}

int imagestats_kind(uintptr_t base, size_t size, bool cons, bool atomic, bool node) {
    if (atomic) return IMAGESTATS_ATOMIC;
    if (cons) return IMAGESTATS_CONS;
    if (node) return IMAGESTATS_NODE;
    uint64_t w0 = size >= 8 ? *(const uint64_t *)base : 0;
    /* a header: a type byte, small flags and aux fields; a C structure starts with a pointer, whose
     * value is far above 2^40 in this process (or a small count, whose type byte is then 0) */
    int t = (int)(w0 & 0xff);
    if (!(t > 0 && t < T_COUNT && w0 < ((uint64_t)1 << 40))) return IMAGESTATS_CSTRUCT;
    /* a C structure that starts with a small count looks like a header: the commonest types are
     * checked against their layout as well */
    const uint64_t *w = (const uint64_t *)base;
    switch (t) {
    case T_SYMBOL: return size >= sizeof(Symbol) && size < sizeof(Symbol) + 32 ? t : IMAGESTATS_CSTRUCT;
    case T_STRING: return size >= sizeof(String) && size < sizeof(String) + 32 && w[1] <= w[2] ? t : IMAGESTATS_CSTRUCT;
    case T_VECTOR: return size >= 16 + w[1] * 8 && size < 16 + w[1] * 8 + 32 ? t : IMAGESTATS_CSTRUCT;
    default: return t;
    }
}

void imagestats_add(int kind, int owner, size_t size, size_t trailing) {
    Tally *a = &by_kind[kind], *b = &by_owner[kind][owner];
    a->count++; a->bytes += size; a->trailing += trailing;
    b->count++; b->bytes += size; b->trailing += trailing;
}

static const char *kind_name(int k) {
    switch (k) {
    case IMAGESTATS_CONS: return "cons";
    case IMAGESTATS_NODE: return "node";
    case IMAGESTATS_CSTRUCT: return "C structure";
    case IMAGESTATS_ATOMIC: return "pointer-free";
    case IMAGESTATS_ROOT: return "(a root)";
    default: return k > 0 && k < T_COUNT ? heap_type_names[k] : "?";
    }
}

void imagestats_print(FILE *out, size_t scanned, size_t atomic, size_t bitmaps, size_t links, size_t total) {
    fprintf(out, "image: %zu bytes: pointer-bearing part %zu, pointer-free part %zu, bitmaps and tables %zu, C links %zu\n",
            total, scanned, atomic, bitmaps, links);
    fprintf(out, "%-22s %8s %10s %10s\n", "kind of block", "blocks", "bytes", "zero tail");
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < IMAGESTATS_KINDS; k++) {
            Tally *a = &by_kind[k];
            if (!a->count) continue;
            if (pass == 0) {
                fprintf(out, "%-22s %8zu %10zu %10zu\n", kind_name(k), a->count, a->bytes, a->trailing);
                continue;
            }
            if (k != IMAGESTATS_CONS && k != IMAGESTATS_CSTRUCT && k != IMAGESTATS_ATOMIC && k != IMAGESTATS_NODE) continue;
            fprintf(out, "%s, by owner:\n", kind_name(k));
            for (int o = 0; o < IMAGESTATS_KINDS; o++) {
                Tally *b = &by_owner[k][o];
                if (b->count * 100 >= a->count || b->bytes * 100 >= a->bytes)
                    fprintf(out, "  %-20s %8zu %10zu %10zu\n", kind_name(o), b->count, b->bytes, b->trailing);
            }
        }
    memset(by_kind, 0, sizeof by_kind);
    memset(by_owner, 0, sizeof by_owner);
}
