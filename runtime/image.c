/* image.c: the serialiser behind the boot image: write the blocks a root set reaches, read them back. */
#include "image.h"
#include "hash.h"
#include "imagetab.h"
#include "gcdirty.h"
#include "imagestats.h"
#include "imagecold.h"
#include "gc.h"
#define GC_THREADS
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_inline.h>
#include <link.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>
#include <cpuid.h>
#include <stdatomic.h>
#include <errno.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23      /* Linux 5.14 */
#endif

/*
 * Layout (native byte order, the writer's machine is the reader's):
 *   header
 *   extern sizes   nexterns words: the size of each external region, checked by the reader
 *   roots          nroots words, then their relocation bitmap
 *   (zeros up to a page boundary)
 *   scanned        scanned_bytes of blocks, padded to a page
 *   atomic         atomic_bytes of pointer-free blocks, padded to a page
 *   scanned bitmap the relocation bitmap of the scanned part
 *   tables         ntables words: offsets in the scanned region of the hash tables
 *   block starts   a bit per word of the scanned part, then one per word of the pointer-free
 *                  part, set where a block starts (so that a loaded graph can be written again)
 *   links          nlinks pairs of words, in increasing order of the first: a C address the graph
 *                  holds (the writer's) and its key in the declared tables (imagetab.h)
 * A word whose bit is set in a bitmap is a pointer, stored as the address it has when the image is
 * mapped at FIXED_BASE (below), or for an external region as REL_EXTERN in bits 60..63, the
 * region's index in bits 44..59 and the offset in bits 0..43, or for a C function or constant as
 * the writer's address, which the links name by (table, row, field). The checksum covers
 * everything after the header but the links, which have their own: a reader that keeps the
 * writer's C addresses (the usual case) neither reads nor checks them.
 */

#define IMAGE_MAGIC "TINYCLIM"
#define REL_SCANNED 1u
#define REL_ATOMIC 2u
#define REL_EXE 3u
#define REL_EXTERN 4u
#define REL_OFFSET_BITS 44
#define REL_OFFSET_MASK (((uint64_t)1 << REL_OFFSET_BITS) - 1)
#define REL_INDEX_MASK 0xFFFFu
#define REGION_GUARD 16     /* no block starts a region */
/* The address the image is written for: a pointer into the scanned part is stored as
 * FIXED_BASE + offset, one into the pointer-free part as FIXED_BASE + ATOMIC_AT + offset, one into
 * the executable as the writer's address. Mapped from the file at that address, as it is when
 * the address is free and the executable is where the writer's was, an image needs no
 * relocation at all; elsewhere every marked word is relocated from these values. */
#define FIXED_BASE ((uint64_t)0x200000000000ull)
#define ATOMIC_AT ((uint64_t)1 << 32)
#define PART_LIMIT ((uint64_t)1 << 32)
#define PAGE ((size_t)4096)
#define ROUND_PAGE(n) (((n) + PAGE - 1) & ~(PAGE - 1))

typedef struct ImageHeader {
    char magic[8];
    uint32_t version, header_size;
    uint8_t build_id[32];
    uint64_t build_id_len;
    uint64_t nroots, nexterns, scanned_bytes, atomic_bytes, ntables;
    uint64_t writer_exe, exe_words, extern_words;  /* the writer's executable; words pointing there, and to external regions */
    uint64_t scanned_at, atomic_at;                /* offsets of the two parts from the image's start (page-aligned) */
    uint64_t nlinks, names_hash;                   /* C addresses named, and what the table indices mean */
    uint64_t links_checksum;                       /* of the links, read only when they are used */
    uint64_t scanned_hot, atomic_hot;              /* of each part, the bytes written as they are (the rest: cold) */
    uint64_t cold_at, cold_bytes;                  /* the cold pages, compressed (imagecold.h) */
    uint64_t payload_bytes, checksum;
} ImageHeader;

/* The cold pages of a part of BYTES whose first HOT bytes are written as they are. */
static size_t cold_pages(uint64_t hot, uint64_t bytes) { return hot < bytes ? (size_t)(ROUND_PAGE(bytes) - hot) / PAGE : 0; }

/* Where the sections after the parts start (the layout above), from a header already checked. */
typedef struct Sections { size_t scanned_bits, atomic_bits, relbits, tables, starts, links, end, ncold_s, ncold_a; } Sections;
static Sections sections(const ImageHeader *h) {
    Sections x;
    x.scanned_bits = (size_t)(h->scanned_bytes / 8 + 63) / 64;
    x.atomic_bits = (size_t)(h->atomic_bytes / 8 + 63) / 64;
    x.ncold_s = cold_pages(h->scanned_hot, h->scanned_bytes);
    x.ncold_a = cold_pages(h->atomic_hot, h->atomic_bytes);
    x.relbits = (size_t)(h->cold_at + h->cold_bytes);
    x.tables = x.relbits + x.scanned_bits * 8;
    x.starts = x.tables + (size_t)h->ntables * 8;
    x.links = x.starts + (x.scanned_bits + x.atomic_bits) * 8;
    x.end = x.links + (size_t)h->nlinks * 16;
    return x;
}

ImageStats image_last_stats;
bool image_always_relink;

extern char __executable_start[], _end[];

/* ---- build id ---- */

typedef struct BuildId { unsigned char id[32]; size_t len; } BuildId;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *vctx) {
    (void)size;
    BuildId *b = (BuildId *)vctx;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *n;
            const unsigned char *desc = (const unsigned char *)name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                b->len = n->n_descsz < sizeof b->id ? n->n_descsz : sizeof b->id;
                memcpy(b->id, desc, b->len);
                return 1;
            }
            p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 1;   /* the first object is the executable: look no further */
}

size_t image_build_id(unsigned char out[32]) {
    static BuildId cached;
    static bool known;
    if (!known) {
        dl_iterate_phdr(find_build_id, &cached);
        known = true;
    }
    memcpy(out, cached.id, sizeof cached.id);
    return cached.len;
}

/* ---- checksum: two running sums of words (Fletcher's scheme on 64-bit words), fast enough to run
 * on every start: eight independent lanes in two vectors, so that the sums do not wait on each
 * other, built twice (AVX2 where the processor has it, which halves the instructions; the result
 * is the same either way). The choice is made at the first call, not with target_clones: those
 * link libgcc's processor probe, a constructor whose dozen CPUID instructions (each a trap to the
 * hypervisor on a virtual machine) cost every start about 4% of its CPU time, checksum or not ---- */

typedef uint64_t Lanes __attribute__((vector_size(32)));

/* The running sums of a checksum of N bytes: taken in pieces (Sum), the bytes read from a file part
 * by part give the sum of the whole. */
typedef struct Sum { Lanes a0, a1, b0, b1; unsigned char carry[64]; size_t ncarry; } Sum;

static void sum_begin(Sum *s, size_t n) {
    s->a0 = (Lanes){0x6a09e667f3bcc909ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull};
    s->a1 = (Lanes){0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};
    s->b0 = (Lanes){n, 0, 0, 0};
    s->b1 = (Lanes){0, 0, 0, 0};
    s->ncarry = 0;
}

/* The sums, inlined into each of the two builds below: BLOCKS blocks of 64 bytes. */
static inline __attribute__((always_inline)) void sum_lanes(Sum *s, const unsigned char *p, size_t blocks) {
    Lanes a0 = s->a0, a1 = s->a1, b0 = s->b0, b1 = s->b1;
    for (size_t i = 0; i < blocks; i++) {
        Lanes w0, w1;
        memcpy(&w0, p + i * 64, 32);
        memcpy(&w1, p + i * 64 + 32, 32);
        a0 += w0;
        a1 += w1;
        b0 += a0;
        b1 += a1;
    }
    s->a0 = a0; s->a1 = a1; s->b0 = b0; s->b1 = b1;
}

__attribute__((target("avx2"))) static void sum_lanes_avx2(Sum *s, const unsigned char *p, size_t blocks) { sum_lanes(s, p, blocks); }
static void sum_lanes_plain(Sum *s, const unsigned char *p, size_t blocks) { sum_lanes(s, p, blocks); }
static bool checksum_has_avx2(void);
static void sum_blocks(Sum *s, const unsigned char *p, size_t blocks) {
    static _Atomic int avx2 = -1;      /* not yet asked */
    int v = atomic_load_explicit(&avx2, memory_order_relaxed);
    if (v < 0) atomic_store_explicit(&avx2, v = checksum_has_avx2(), memory_order_relaxed);
    if (v) sum_lanes_avx2(s, p, blocks);
    else sum_lanes_plain(s, p, blocks);
}

/* The next N bytes: whole blocks of 64 through the lanes, a part block kept for the next piece. */
static void sum_add(Sum *s, const unsigned char *p, size_t n) {
    if (s->ncarry) {
        size_t k = 64 - s->ncarry < n ? 64 - s->ncarry : n;
        memcpy(s->carry + s->ncarry, p, k);
        s->ncarry += k;
        p += k;
        n -= k;
        if (s->ncarry < 64) return;
        sum_blocks(s, s->carry, 1);
        s->ncarry = 0;
    }
    sum_blocks(s, p, n / 64);
    memcpy(s->carry, p + n / 64 * 64, n % 64);
    s->ncarry = n % 64;
}

/* The checksum: the last part block's bytes one by one, then the lanes mixed. */
static uint64_t sum_end(Sum *s) {
    uint64_t x = 0, y = 0;
    for (size_t i = 0; i < s->ncarry; i++) { x += s->carry[i]; y += x; }
    uint64_t h = x ^ (y << 1);
    for (int k = 0; k < 4; k++) h = (h ^ s->a0[k] ^ (s->b0[k] * 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;
    for (int k = 0; k < 4; k++) h = (h ^ s->a1[k] ^ (s->b1[k] * 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;
    return h;
}

/* AVX2 usable: the processor has it (CPUID leaf 7) and the system saves the YMM registers
 * (OSXSAVE, and XCR0's SSE and AVX bits). */
static bool checksum_has_avx2(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d) || a < 7) return false;
    __get_cpuid(1, &a, &b, &c, &d);
    if (!(c & bit_OSXSAVE) || !(c & bit_AVX)) return false;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6) return false;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & bit_AVX2) != 0;
}

static uint64_t checksum(const unsigned char *p, size_t n) {
    Sum s;
    sum_begin(&s, n);
    sum_add(&s, p, n);
    return sum_end(&s);
}

/* ---- the writer ---- */

typedef struct Range { uintptr_t lo, hi; } Range;

/* A map from block base to where it goes: open addressing on the address. */
typedef struct BlockMap { uintptr_t *keys; uint64_t *vals; size_t cap, count; } BlockMap;

typedef struct Writer {
    BlockMap map;
    BlockMap survey;                                    /* every scanned block: 1 when it is a cons (below) */
    BlockMap weak_entries;                              /* the entries of weak hash tables: written scanned */
    const ImageHeap *loaded;                            /* the image the interpreter was loaded from, if any */
    const ImageHeap *more; size_t nmore;                /* the heaps of session restores (state.h) */
    uint64_t *starts[2]; size_t starts_words[2];        /* block starts of the scanned and pointer-free parts */
    uintptr_t *queue; size_t qlen, qhead, qcap;       /* scanned blocks to encode, in order */
    unsigned char *scanned; size_t scanned_len, scanned_cap;
    uint64_t *scanned_bits;                             /* grown with scanned */
    unsigned char *atomic; size_t atomic_len, atomic_cap;
    uint64_t *tables; size_t ntables, tables_cap;
    size_t nrel, exe_words, extern_words;
    const ImageLinks *links;                            /* the declared tables */
    uint8_t *link_used; size_t nlinks;                  /* which of their addresses the graph holds */
    const ImageRegion *externs; size_t nexterns;
    const ImageCut *cut;                                /* blocks written as references (or NULL) */
    uint64_t *cut_sizes; size_t ncuts, cut_cap;
    Range *maps; size_t nmaps;
    Range stack;                                        /* the writing thread's stack */
    char *err;
    bool failed;
    int note_type;                                      /* image_write_noting: blocks of this type and size, */
    size_t note_size;
    uint64_t *noted; size_t nnoted, noted_cap;          /* their offsets in the scanned part */
    const uintptr_t *hot; size_t nhot;                  /* image_write_layout: what goes first, uncompressed */
    size_t scanned_hot, atomic_hot;                     /* the bytes of each part written as they are */
    bool stats;                                         /* TINYCL_IMAGE_STATS: tally the blocks (imagestats.h) */
    bool trim;                                          /* write the collector's objects without their last word when zero (below) */
    BlockMap owners;                                    /* for the tally: each block's owner */
} Writer;

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n);
    if (!q) { fputs("tinycl: out of memory writing an image\n", stderr); abort(); }
    return q;
}

static size_t map_slot(BlockMap *m, uintptr_t key) {
    size_t mask = m->cap - 1, i = (size_t)((key >> 4) * 0x9E3779B97F4A7C15ull >> 20) & mask;
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
    return i;
}

static void map_grow(BlockMap *m) {
    BlockMap old = *m;
    m->cap = old.cap ? old.cap * 2 : 1 << 16;
    m->keys = (uintptr_t *)calloc(m->cap, sizeof *m->keys);
    m->vals = (uint64_t *)calloc(m->cap, sizeof *m->vals);
    if (!m->keys || !m->vals) { fputs("tinycl: out of memory writing an image\n", stderr); abort(); }
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i]) {
            size_t j = map_slot(m, old.keys[i]);
            m->keys[j] = old.keys[i];
            m->vals[j] = old.vals[i];
        }
    free(old.keys);
    free(old.vals);
}

/* AddressSanitizer maps its shadow memory over a range that small integers packed into a word fall
 * in (0x300000006 is two ints, not an address); the program never points into it, so those words
 * are data, as they are without the sanitizer, where that range is unmapped. */
#if defined(__SANITIZE_ADDRESS__)
static bool asan_shadow(unsigned long lo, unsigned long hi) {
    return lo >= 0x7fff8000UL && hi <= 0x10007fff8000UL;
}
#else
static bool asan_shadow(unsigned long lo, unsigned long hi) { (void)lo; (void)hi; return false; }
#endif

/* Mappings of this process (other than the collector's heap and the executable, handled before):
 * a word pointing into one cannot be written. */
static void read_maps(Writer *w) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) != 2) continue;
        if (asan_shadow(lo, hi)) continue;
        w->maps = (Range *)xrealloc(w->maps, (w->nmaps + 1) * sizeof *w->maps);
        w->maps[w->nmaps++] = (Range){lo, hi};
    }
    fclose(f);
}

/* The writing thread's stack (the main thread's, or one a program made with a big stack). */
static void thread_stack(Writer *w) {
    void *addr;
    size_t size;
    lisp_thread_stack(&addr, &size);
    w->stack = (Range){(uintptr_t)addr, (uintptr_t)addr + size};
}

typedef struct Block { uintptr_t base; size_t size; int kind; bool own; } Block;   /* OWN: one of the collector's objects */
static bool find_block(const Writer *w, uintptr_t v, Block *b);

static void fail(Writer *w, const char *what, uintptr_t word, uintptr_t where) {
    if (w->failed) return;
    w->failed = true;
    size_t size = 0;
    Block b;
    if (where && find_block(w, where, &b)) size = b.size;    /* also a block of a loaded image */
    size_t at = 0;
    for (const uintptr_t *p = (const uintptr_t *)where; where && at < size / 8 && p[at] != word; at++) {}
    snprintf(w->err, IMAGE_ERRLEN, "%s: the word %#lx at byte %zu of a block of %zu bytes (first word %#lx)",
             what, (unsigned long)word, at * 8, size, where ? (unsigned long)*(const uintptr_t *)where : 0ul);
}

/* ---- conses in two words ----
 * The collector gives a cons (two words) a block of four: it keeps a byte past every object, so
 * that a pointer just past its end still holds it. Loaded objects are not the collector's, so in
 * an image a cons needs its two words only, and conses are most of the graph. A block is taken
 * for a cons when every word of the graph that points into it is a cons pointer (its base plus
 * TAG_CONS): survey, a first pass over the graph, finds those blocks, and the writer gives them
 * two words. A stray word that happens to look like a cons pointer cannot shrink a block that
 * anything else points to. */

/* ---- blocks: of collected memory, or of the image the interpreter was loaded from ---- */

static bool bit_at(const uint64_t *bits, size_t i) { return bits[i / 64] >> (i % 64) & 1; }

/* In a loaded part (LO, BYTES long, block starts STARTS): the block holding address V. */
static bool loaded_block(const uint64_t *starts, uintptr_t lo, size_t bytes, uintptr_t v, Block *b) {
    size_t i = (v - lo) / 8, n = bytes / 8, s = i, e = i + 1;
    while (!bit_at(starts, s)) {
        if (s == 0) return false;
        s--;
    }
    while (e < n && !bit_at(starts, e)) e++;
    b->base = lo + s * 8;
    b->size = (e - s) * 8;
    return true;
}

/* In the loaded graph H: the block holding V, from the block starts its image recorded. */
static bool heap_find_block(const ImageHeap *h, uintptr_t v, Block *b) {
    if (!h || !h->scanned || !h->starts) return false;
    uintptr_t s = (uintptr_t)h->scanned, a = (uintptr_t)h->atomic;
    if (v >= s && v < s + h->scanned_bytes) {
        b->kind = GC_I_NORMAL;
        return loaded_block(h->starts, s, h->scanned_bytes, v, b);
    }
    if (v >= a && v < a + h->atomic_bytes) {
        b->kind = GC_I_PTRFREE;
        return loaded_block(h->starts + (h->scanned_bytes / 8 + 63) / 64, a, h->atomic_bytes, v, b);
    }
    return false;
}

/* ---- graphs read into two blocks of the collector's heap (image_read_gc) ----
 * For the collector each part is one object: a writer reaching an object in one (COMPILE-FILE
 * writing a constant that an earlier compiled file made) would copy the whole part. Their block
 * starts are kept here, as the boot image's are, so that the writer copies only the objects it
 * reaches. The second word of each part's guard (REGION_GUARD bytes where no object starts) holds
 * GC_PART_TAG and the entry's index: a part that was collected, its memory reused, matches no
 * entry any more (a new object of collected memory is cleared, or written over, and the scanned
 * part, which keeps the pointer-free one alive, is checked for both). */
#define GC_PART_TAG 0xF1A5000000000000ull    /* not an address: never taken for a pointer */
static pthread_mutex_t gc_parts_lock = PTHREAD_MUTEX_INITIALIZER;
static ImageHeap *gc_parts;
static size_t ngc_parts, gc_parts_cap;

static uint64_t gc_part_tag(size_t i) { return GC_PART_TAG | (uint64_t)i << 1 | 1; }

/* Whether entry I still describes live parts (the lock held). */
static bool gc_part_live(size_t i) {
    const ImageHeap *h = &gc_parts[i];
    if (!h->starts || GC_base(h->scanned) != h->scanned) return false;
    const uint64_t *g = (const uint64_t *)h->scanned;
    return g[0] == (uintptr_t)h->atomic && g[1] == gc_part_tag(i);
}

/* Keep the block starts STARTS of parts H just read (image_read_gc); false when they are not kept
 * (no memory), and the caller frees them. */
static bool gc_parts_register(ImageHeap *h) {
    pthread_mutex_lock(&gc_parts_lock);
    size_t i = 0;
    while (i < ngc_parts && gc_part_live(i)) i++;
    if (i == ngc_parts && ngc_parts == gc_parts_cap) {
        size_t cap = gc_parts_cap ? gc_parts_cap * 2 : 64;
        ImageHeap *p = (ImageHeap *)realloc(gc_parts, cap * sizeof *p);
        if (!p) { pthread_mutex_unlock(&gc_parts_lock); return false; }
        gc_parts = p;
        gc_parts_cap = cap;
    }
    if (i == ngc_parts) ngc_parts++;
    else free(gc_parts[i].starts);     /* a collected graph's */
    gc_parts[i] = *h;
    ((uint64_t *)h->scanned)[1] = gc_part_tag(i);
    ((uint64_t *)h->atomic)[1] = gc_part_tag(i);
    pthread_mutex_unlock(&gc_parts_lock);
    return true;
}

/* The block of such parts that V (in the collector's block GB, of SIZE bytes) points into. */
static bool gc_parts_find(void *gb, size_t size, uintptr_t v, Block *b) {
    if (size < REGION_GUARD) return false;
    uint64_t tag = ((const uint64_t *)gb)[1];
    if ((tag & 0xFFFF000000000001ull) != (GC_PART_TAG | 1)) return false;
    size_t i = (size_t)(tag & 0xFFFFFFFFull) >> 1;
    pthread_mutex_lock(&gc_parts_lock);
    bool found = i < ngc_parts && (gc_parts[i].scanned == gb || (void *)gc_parts[i].atomic == gb) && gc_part_live(i) &&
                 heap_find_block(&gc_parts[i], v, b);
    pthread_mutex_unlock(&gc_parts_lock);
    return found;
}

/* The block V points into, found as the collector finds it, or in a graph loaded from an image (the
 * boot image, the heaps of session restores, compiled files): such a graph can be written again,
 * object by object. */
static bool find_block(const Writer *w, uintptr_t v, Block *b) {
    void *gb = GC_base((void *)v);
    if (gb) {
        size_t size = 0;
        b->kind = GC_get_kind_and_size(gb, &size);
        if (gc_parts_find(gb, size, v, b)) { b->own = false; return true; }
        b->base = (uintptr_t)gb;
        b->size = size;
        b->own = true;
        return true;
    }
    b->own = false;
    if (heap_find_block(w->loaded, v, b)) return true;
    for (size_t i = 0; i < w->nmore; i++)
        if (heap_find_block(&w->more[i], v, b)) return true;
    return false;
}

static void mark_start(Writer *w, int part, uint64_t offset) {
    size_t i = (size_t)(offset / 8);
    if (i / 64 >= w->starts_words[part]) {
        size_t words = w->starts_words[part] ? w->starts_words[part] * 2 : 1024;
        while (i / 64 >= words) words *= 2;
        w->starts[part] = (uint64_t *)xrealloc(w->starts[part], words * 8);
        memset(w->starts[part] + w->starts_words[part], 0, (words - w->starts_words[part]) * 8);
        w->starts_words[part] = words;
    }
    w->starts[part][i / 64] |= (uint64_t)1 << (i % 64);
}

static uint64_t *survey_slot(BlockMap *m, uintptr_t base) {
    if (!m->cap) return NULL;
    size_t i = map_slot(m, base);
    return m->keys[i] == base ? &m->vals[i] : NULL;
}

/* ---- the collector's last word ----
 * A small object of the collector's normal kind has at least one word past its end: the runtime
 * asks for whole words (gc_alloc rounds a request up to words, and what asks the collector directly
 * asks for pointer-sized structures and arrays), the collector adds a byte so that a pointer just
 * past the end still holds the object, and rounds up to two words. So the last word of such a
 * block is never part of its object, and a writer whose graph is read back but never collected
 * object by object (a compiled file's, ImageCut) leaves it out when it is zero (always, unless
 * the memory held something before, which a cleared allocation rules out). A block of a loaded
 * graph keeps its size: its last word may be its object's. */
#define TRIM_MAX 2048      /* the collector's small objects (MAXOBJBYTES): a large one is allocated otherwise */

/* The bytes the block at BASE takes in the image, and its kind. */
static size_t block_size(Writer *w, uintptr_t base, int *kind) {
    Block b = {0, 0, GC_I_PTRFREE, false};
    find_block(w, base, &b);
    int k = b.kind;
    size_t size = b.size;
    if (kind) *kind = k;
    uint64_t *cons_only = k == GC_I_PTRFREE ? NULL : survey_slot(&w->survey, base);
    if (cons_only && *cons_only && size >= sizeof(Cons)) return sizeof(Cons);
    if (w->trim && b.own && k == GC_I_NORMAL && size >= 16 && size <= TRIM_MAX && ((const uint64_t *)base)[size / 8 - 1] == 0)
        size -= 8;
    return size;
}

/* Whether V points into the external region X, or just past its end: unless a block of collected
 * memory starts there (the collector may map its heap right after a region), which it then is. */
static bool in_extern(const ImageRegion *x, uintptr_t v) {
    uintptr_t lo = (uintptr_t)x->base;
    return v >= lo && (v < lo + x->size || (v == lo + x->size && !GC_base((void *)v)));
}

/* The block of collected memory V points into, or 0 when V is not such a pointer (the same
 * decisions as encode_word makes). */
static uintptr_t heap_block(const Writer *w, uintptr_t v) {
    if (v < 4096) return 0;
    for (size_t i = 0; i < w->nexterns; i++) {
        if (in_extern(&w->externs[i], v)) return 0;
    }
    if (v >= (uintptr_t)__executable_start && v < (uintptr_t)_end) return 0;
    Block b;
    return find_block(w, v, &b) ? b.base : 0;
}

static void survey_word(Writer *w, uintptr_t v, uintptr_t **queue, size_t *qlen, size_t *qcap) {
    uintptr_t base = heap_block(w, v);
    if (!base) return;
    if (w->cut) {      /* a reference: written as its name, nothing of it is reached */
        Block rb;
        if (find_block(w, base, &rb) && w->cut->is_ref(w->cut->ctx, base, rb.size)) return;
    }
    bool as_cons = v - base == TAG_CONS;
    if ((w->survey.count + 1) * 2 > w->survey.cap) map_grow(&w->survey);
    size_t i = map_slot(&w->survey, base);
    if (w->survey.keys[i]) {
        if (!as_cons) w->survey.vals[i] = 0;
        return;
    }
    w->survey.keys[i] = base;
    w->survey.vals[i] = as_cons;
    w->survey.count++;
    Block b;
    if (!find_block(w, base, &b) || b.kind == GC_I_PTRFREE) return;
    if (*qlen == *qcap) {
        *qcap = *qcap ? *qcap * 2 : 4096;
        *queue = (uintptr_t *)xrealloc(*queue, *qcap * sizeof **queue);
    }
    (*queue)[(*qlen)++] = base;
}

static void survey(Writer *w, const uintptr_t *roots, size_t nroots) {
    uintptr_t *queue = NULL;
    size_t qlen = 0, qcap = 0;
    for (size_t i = 0; i < nroots; i++) survey_word(w, roots[i], &queue, &qlen, &qcap);
    for (size_t q = 0; q < qlen; q++) {
        Block b = {0, 0, 0, false};
        find_block(w, queue[q], &b);
        const uintptr_t *src = (const uintptr_t *)queue[q];
        for (size_t i = 0; i < b.size / 8; i++) survey_word(w, src[i], &queue, &qlen, &qcap);
    }
    free(queue);
}

static void tally_block(Writer *w, uintptr_t base, size_t size, int kind, uintptr_t where);

/* Where the block at BASE goes (allocating its place on first sight): the encoded relocation.
 * WHERE: the block holding the word that points to it (0 for a root). */
static uint64_t place_block(Writer *w, uintptr_t base, uintptr_t where) {
    if ((w->map.count + 1) * 2 > w->map.cap) map_grow(&w->map);
    size_t i = map_slot(&w->map, base);
    if (w->map.keys[i]) return w->map.vals[i];
    int kind;
    size_t size = block_size(w, base, &kind);
    if (kind == GC_I_PTRFREE && survey_slot(&w->weak_entries, base)) kind = GC_I_NORMAL;
    uint64_t rel;
    if (kind == GC_I_PTRFREE) {
        if (w->atomic_len + size > w->atomic_cap) {
            w->atomic_cap = (w->atomic_cap + size) * 2;
            w->atomic = (unsigned char *)xrealloc(w->atomic, w->atomic_cap);
        }
        memcpy(w->atomic + w->atomic_len, (void *)base, size);
        mark_start(w, 1, w->atomic_len);
        rel = FIXED_BASE + ATOMIC_AT + w->atomic_len;
        w->atomic_len += size;
    } else {
        rel = FIXED_BASE + w->scanned_len;
        mark_start(w, 0, w->scanned_len);
        w->scanned_len += size;      /* filled when the queue reaches it, in this order */
        if (w->qlen == w->qcap) {
            w->qcap = w->qcap ? w->qcap * 2 : 4096;
            w->queue = (uintptr_t *)xrealloc(w->queue, w->qcap * sizeof *w->queue);
        }
        w->queue[w->qlen++] = base;
    }
    w->map.keys[i] = base;
    w->map.vals[i] = rel;
    w->map.count++;
    if (w->stats) tally_block(w, base, size, kind, where);
    return rel;
}

/* The tally of TINYCL_IMAGE_STATS: the block's kind, and its owner (imagestats.h), which it keeps
 * for the blocks reached through it. */
static void tally_block(Writer *w, uintptr_t base, size_t size, int kind, uintptr_t where) {
    const uint64_t *word = (const uint64_t *)base;
    bool atomic = kind == GC_I_PTRFREE;
    uint64_t *cons_only = survey_slot(&w->survey, base);
    bool node = !atomic && size >= 8 && word[0] >= (uintptr_t)__executable_start && word[0] < (uintptr_t)_end &&
                imagetab_find(w->links, word[0]) >= 0 && !(word[0] & 7);
    int k = imagestats_kind(base, size, !atomic && cons_only && *cons_only && size == sizeof(Cons), atomic, node);
    int from = IMAGESTATS_ROOT;
    if (where) {
        uint64_t *o = survey_slot(&w->owners, where);
        if (o) from = (int)*o;
    }
    int owner = k;
    if (k == IMAGESTATS_CONS || k == IMAGESTATS_ATOMIC || k == IMAGESTATS_CSTRUCT) owner = from;
    size_t trailing = 0;
    while (trailing < size && word[(size - trailing) / 8 - 1] == 0) trailing += 8;
    imagestats_add(k, owner, size, trailing);
    if ((w->owners.count + 1) * 2 > w->owners.cap) map_grow(&w->owners);
    size_t j = map_slot(&w->owners, base);
    if (!w->owners.keys[j]) {
        w->owners.keys[j] = base;
        w->owners.vals[j] = (uint64_t)owner;
        w->owners.count++;
    }
}

/* A word pointing OFF bytes into the block the caller cut as its object K (of SIZE bytes): an
 * external region numbered after the caller's regions, which the reader gets from its caller. */
static uint64_t cut_word(Writer *w, size_t k, size_t size, uintptr_t off, bool *rel, uintptr_t where) {
    size_t x = w->nexterns + k;
    if (x > REL_INDEX_MASK || off > size) { fail(w, "too many objects cut from the image, or a word past one", off, where); return 0; }
    if (k >= w->cut_cap) {
        size_t cap = w->cut_cap ? w->cut_cap * 2 : 256;
        while (cap <= k) cap *= 2;
        w->cut_sizes = (uint64_t *)xrealloc(w->cut_sizes, cap * sizeof *w->cut_sizes);
        w->cut_cap = cap;
    }
    while (w->ncuts <= k) w->cut_sizes[w->ncuts++] = 0;
    w->cut_sizes[k] = size;
    *rel = true;
    w->extern_words++;
    return ((uint64_t)REL_EXTERN << 60) | ((uint64_t)x << REL_OFFSET_BITS) | off;
}

/* Encode one word: sets *REL when it is a relocation. */
static uint64_t encode_word(Writer *w, uintptr_t v, bool *rel, uintptr_t where) {
    *rel = false;
    if (v < 4096) return v;
    for (size_t i = 0; i < w->nexterns; i++) {
        uintptr_t lo = (uintptr_t)w->externs[i].base;
        if (in_extern(&w->externs[i], v)) {
            *rel = true;
            w->extern_words++;
            return ((uint64_t)REL_EXTERN << 60) | ((uint64_t)i << REL_OFFSET_BITS) | (v - lo);
        }
    }
    if (v >= (uintptr_t)__executable_start && v < (uintptr_t)_end) {
        long k = imagetab_find(w->links, v);
        if (k >= 0) {
            w->nlinks += !w->link_used[k];
            w->link_used[k] = 1;
            *rel = true;
            w->exe_words++;
            return v;
        }
        /* a fixnum or a character whose bits fall there is data; anything else would be an address
         * the reader could not name */
        if ((v & 1) || (v & 7) == TAG_CHAR) return v;
        fail(w, "a C address in no declared table (runtime/imagetab.c; `addr2line -f -e` on the executable names it)",
             v, where);
        return v;
    }
    Block b;
    if (find_block(w, v, &b) && w->cut) {
        size_t size = b.size;
        long k = w->cut->fn(w->cut->ctx, b.base, &size);
        if (k >= 0) return cut_word(w, (size_t)k, size, v - b.base, rel, where);
    }
    if (find_block(w, v, &b)) {
        *rel = true;
        return place_block(w, b.base, where) + (v - b.base);
    }
    /* the stack of a call that has returned (a block's exit point saved by a closure made during the
     * boot): nothing can use it any more, and nothing of it survives the writer's process */
    if (v >= w->stack.lo && v < w->stack.hi) return 0;
    for (size_t i = 0; i < w->nmaps; i++)
        if (v >= w->maps[i].lo && v < w->maps[i].hi && !(v & 1)) {
            fail(w, "a pointer to memory an image cannot hold (not collected, not in the executable)", v, where);
            break;
        }
    return v;
}

static void set_bit(uint64_t *bits, size_t i) { bits[i / 64] |= (uint64_t)1 << (i % 64); }

/* A block that is a hash table: its header says so and its fields agree. */
static bool looks_like_hash_table(const Writer *w, const HashTable *t, size_t size) {
    if (size < sizeof *t || t->h.type != T_HASHTABLE || t->h.aux > HT_EQUALP) return false;
    if (!t->entries || !t->cap || (t->cap & (t->cap - 1)) || t->count > t->cap || t->used > t->cap) return false;
    Block eb;
    return find_block(w, (uintptr_t)t->entries, &eb) && eb.base == (uintptr_t)t->entries && eb.kind != GC_I_PTRFREE &&
           eb.size >= t->cap * sizeof(HashEntry);
}

/* A weak hash table (hash.h): its entries are in an unscanned block holding pointers, and its
 * weak parts are registrations with the collector, neither of which an image can hold. */
static bool looks_like_weak_table(const HashTable *t, size_t size) {
    if (size < sizeof *t || t->h.type != T_HASHTABLE || t->h.aux > HT_EQUALP || !(t->h.flags & (HT_WEAK_KEY | HT_WEAK_VALUE)))
        return false;
    size_t esize = 0;
    void *eb = t->entries ? GC_base(t->entries) : NULL;
    return eb == (void *)t->entries && eb && GC_get_kind_and_size(eb, &esize) == GC_I_PTRFREE &&
           esize >= t->cap * sizeof(HashEntry);
}

static void encode_scanned(Writer *w, uintptr_t base) {
    size_t size = block_size(w, base, NULL);
    uint64_t at = w->map.vals[map_slot(&w->map, base)] - FIXED_BASE;
    size_t need = (size_t)at + size;
    if (need > w->scanned_cap) {
        size_t cap = w->scanned_cap ? w->scanned_cap * 2 : (size_t)1 << 20;
        while (cap < need) cap *= 2;
        w->scanned = (unsigned char *)xrealloc(w->scanned, cap);
        w->scanned_bits = (uint64_t *)xrealloc(w->scanned_bits, cap / 64 / 8 * 8 + 8);
        memset((unsigned char *)w->scanned_bits + w->scanned_cap / 64 / 8 * 8, 0,
               cap / 64 / 8 * 8 + 8 - w->scanned_cap / 64 / 8 * 8);
        w->scanned_cap = cap;
    }
    /* a weak table's entries are in a block the collector does not scan: written as scanned
     * memory, so that their words are relocated, and the table is listed to be rehashed, which
     * makes it weak again (hash.c); the collector's registrations are the writer's process's */
    bool weak = looks_like_weak_table((const HashTable *)base, size);
    if (weak) {
        uintptr_t e = (uintptr_t)((const HashTable *)base)->entries;
        if ((w->weak_entries.count + 1) * 2 > w->weak_entries.cap) map_grow(&w->weak_entries);
        size_t i = map_slot(&w->weak_entries, e);
        if (!w->weak_entries.keys[i]) {     /* with the bytes the entries use: the block's rest is not cleared */
            w->weak_entries.keys[i] = e;
            w->weak_entries.vals[i] = ((const HashTable *)base)->cap * sizeof(HashEntry);
            w->weak_entries.count++;
        }
    }
    if (weak || (looks_like_hash_table(w, (const HashTable *)base, size) && !hash_address_free((Obj)base))) {
        if (w->ntables == w->tables_cap) {
            w->tables_cap = w->tables_cap ? w->tables_cap * 2 : 256;
            w->tables = (uint64_t *)xrealloc(w->tables, w->tables_cap * sizeof *w->tables);
        }
        w->tables[w->ntables++] = at;
    }
    /* the size as well as the type byte: a C structure or a cons may start with any byte */
    if (w->note_type >= 0 && size >= w->note_size && size < w->note_size + 16 && ((const Header *)base)->type == w->note_type) {
        if (w->nnoted == w->noted_cap) {
            w->noted_cap = w->noted_cap ? w->noted_cap * 2 : 64;
            w->noted = (uint64_t *)xrealloc(w->noted, w->noted_cap * sizeof *w->noted);
        }
        w->noted[w->nnoted++] = at;
    }
    const uintptr_t *src = (const uintptr_t *)base;
    uint64_t *dst = (uint64_t *)(w->scanned + at);
    const uint64_t *used = survey_slot(&w->weak_entries, base);
    if (used && *used < size) {
        memset(dst + *used / 8, 0, size - *used);
        size = *used;
    }
    for (size_t i = 0; i < size / 8; i++) {
        bool rel;
        dst[i] = encode_word(w, src[i], &rel, base);
        if (rel) { set_bit(w->scanned_bits, at / 8 + i); w->nrel++; }
    }
}


/* ---- the hot part first (image_write_layout) ----
 * The graph is encoded in the order the writer reaches it; then the blocks the caller named hot
 * move to the front of each part, keeping their order, and the others after them from the next
 * page on, where they are compressed page by page (imagecold.h). Every pointer into a part is
 * moved with its block, through a table of where each old block start went. */

typedef struct Moves {
    size_t words;            /* of the old part */
    uint32_t *block;         /* for each old word: the old block start (word index) holding it */
    uint32_t *to;            /* for each old block start: its new word index */
} Moves;

/* New places for the blocks of a part of BYTES with block starts STARTS, hot blocks those whose
 * start is set in HOT: returns the new length (*HOT_BYTES: of the uncompressed front). */
static bool plan_moves(Moves *m, size_t bytes, const uint64_t *starts, size_t starts_words, const uint64_t *hot,
                       size_t *new_len, size_t *hot_bytes) {
    m->words = bytes / 8;
    m->block = (uint32_t *)calloc(m->words + 1, sizeof *m->block);
    m->to = (uint32_t *)calloc(m->words + 1, sizeof *m->to);
    if (!m->block || !m->to) return false;
    size_t at = REGION_GUARD / 8, nhot = 0, ncold = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            nhot = at;
            at = ROUND_PAGE(at * 8) / 8;          /* the cold blocks from a page on */
        }
        for (size_t i = REGION_GUARD / 8; i < m->words;) {
            size_t e = i + 1;
            while (e < m->words && !(e / 64 < starts_words && bit_at(starts, e))) e++;
            bool is_hot = bit_at(hot, i);
            if (is_hot == (pass == 0)) {
                m->to[i] = (uint32_t)at;
                at += e - i;
                ncold += pass;
            }
            if (pass == 0)
                for (size_t k = i; k < e; k++) m->block[k] = (uint32_t)i;
            i = e;
        }
    }
    *hot_bytes = nhot * 8;
    *new_len = ncold ? at * 8 : nhot * 8;
    return true;
}

static uint64_t move_offset(const Moves *m, uint64_t off) {
    size_t w = (size_t)(off / 8);
    uint32_t b = m->block[w];
    return (uint64_t)m->to[b] * 8 + (off - (uint64_t)b * 8);
}

/* A relocated word after the moves. */
static uint64_t move_word(const Moves *ms, const Moves *ma, uint64_t v) {
    uint64_t d = v - FIXED_BASE;
    if (d >= REGION_GUARD && d < ms->words * 8) return FIXED_BASE + move_offset(ms, d);
    d = v - (FIXED_BASE + ATOMIC_AT);
    if (d >= REGION_GUARD && d < ma->words * 8) return FIXED_BASE + ATOMIC_AT + move_offset(ma, d);
    return v;
}

static void hot_mark(Writer *w, uint64_t *hs, uint64_t *ha, uintptr_t v) {
    Block b;
    if (!heap_block(w, v) || !find_block(w, v, &b)) return;
    uint64_t *rel = survey_slot(&w->map, b.base);
    if (!rel) return;
    uint64_t d = *rel - FIXED_BASE;
    if (d < w->scanned_len) set_bit(hs, (size_t)(d / 8));
    else if ((d -= ATOMIC_AT) < w->atomic_len) set_bit(ha, (size_t)(d / 8));
}

static bool lay_out_hot_first(Writer *w, uint64_t *root_words, size_t nroots, const uint64_t *root_bits) {
    size_t sw = (w->scanned_len / 8 + 64) / 64, aw = (w->atomic_len / 8 + 64) / 64;
    uint64_t *hs = (uint64_t *)calloc(sw, 8), *ha = (uint64_t *)calloc(aw, 8);
    Moves ms = {0, NULL, NULL}, ma = {0, NULL, NULL};
    size_t slen = 0, shot = 0, alen = 0, ahot = 0;
    bool ok = hs && ha;
    for (size_t i = 0; ok && i < w->nhot; i++) hot_mark(w, hs, ha, w->hot[i]);
    ok = ok && plan_moves(&ms, w->scanned_len, w->starts[0], w->starts_words[0], hs, &slen, &shot) &&
         plan_moves(&ma, w->atomic_len, w->starts[1], w->starts_words[1], ha, &alen, &ahot);
    size_t scap = ROUND_PAGE(slen), acap = ROUND_PAGE(alen);
    unsigned char *ns = ok ? (unsigned char *)calloc(1, scap) : NULL, *na = ok ? (unsigned char *)calloc(1, acap) : NULL;
    uint64_t *nbits = ok ? (uint64_t *)calloc(scap / 64 / 8 * 8 + 8, 1) : NULL;
    size_t nsw = (scap / 8 + 63) / 64 + 1, naw = (acap / 8 + 63) / 64 + 1;
    uint64_t *nss = ok ? (uint64_t *)calloc(nsw, 8) : NULL, *nsa = ok ? (uint64_t *)calloc(naw, 8) : NULL;
    ok = ok && ns && na && nbits && nss && nsa;
    if (ok) {
        for (size_t i = REGION_GUARD / 8; i < ms.words;) {         /* the scanned part, with its marks */
            size_t e = i + 1;
            while (e < ms.words && ms.block[e] == i) e++;
            size_t to = ms.to[i];
            memcpy(ns + to * 8, w->scanned + i * 8, (e - i) * 8);
            set_bit(nss, to);
            for (size_t k = i; k < e; k++)
                if (bit_at(w->scanned_bits, k)) {
                    uint64_t *word = (uint64_t *)(ns + (to + k - i) * 8);
                    *word = move_word(&ms, &ma, *word);
                    set_bit(nbits, to + k - i);
                }
            i = e;
        }
        for (size_t i = REGION_GUARD / 8; i < ma.words;) {
            size_t e = i + 1;
            while (e < ma.words && ma.block[e] == i) e++;
            memcpy(na + (size_t)ma.to[i] * 8, w->atomic + i * 8, (e - i) * 8);
            set_bit(nsa, ma.to[i]);
            i = e;
        }
        for (size_t i = 0; i < nroots; i++)
            if (bit_at(root_bits, i)) root_words[i] = move_word(&ms, &ma, root_words[i]);
        for (size_t i = 0; i < w->ntables; i++) w->tables[i] = move_offset(&ms, w->tables[i]);
        for (size_t i = 0; i < w->nnoted; i++) w->noted[i] = move_offset(&ms, w->noted[i]);
        free(w->scanned); free(w->scanned_bits); free(w->atomic); free(w->starts[0]); free(w->starts[1]);
        w->scanned = ns; w->scanned_len = slen; w->scanned_cap = scap; w->scanned_bits = nbits;
        w->atomic = na; w->atomic_len = alen; w->atomic_cap = acap;
        w->starts[0] = nss; w->starts_words[0] = nsw;
        w->starts[1] = nsa; w->starts_words[1] = naw;
        w->scanned_hot = shot < slen ? ROUND_PAGE(shot) : slen;
        w->atomic_hot = ahot < alen ? ROUND_PAGE(ahot) : alen;
    } else {
        free(ns); free(na); free(nbits); free(nss); free(nsa);
    }
    free(hs); free(ha); free(ms.block); free(ms.to); free(ma.block); free(ma.to);
    return ok;
}

static unsigned char *write_image(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                                  size_t nexterns, const ImageCut *cut, size_t *len, char *err, int note_type,
                                  size_t note_size, uint64_t **noted, size_t *nnoted, const uintptr_t *hot, size_t nhot) {
    Writer w;
    memset(&w, 0, sizeof w);
    w.hot = hot;
    w.nhot = nhot;
    w.note_type = note_type;
    w.note_size = note_size;
    w.externs = externs;
    w.nexterns = nexterns;
    w.cut = cut;
    w.loaded = L ? &L->image_heap : NULL;
    w.more = L ? L->restored_heaps : NULL;
    w.nmore = L ? L->nrestored_heaps : 0;
    w.err = err;
    w.stats = imagestats_enabled();
    w.scanned_len = REGION_GUARD;
    w.atomic_len = REGION_GUARD;
    w.atomic_cap = (size_t)1 << 20;
    w.atomic = (unsigned char *)calloc(1, w.atomic_cap);
    w.links = imagetab_links();
    w.link_used = (uint8_t *)calloc(w.links->n + 1, 1);
    if (!w.atomic || !w.link_used) { fputs("tinycl: out of memory writing an image\n", stderr); abort(); }
    if (nexterns > REL_INDEX_MASK) { snprintf(err, IMAGE_ERRLEN, "too many external regions"); free(w.atomic); return NULL; }
    read_maps(&w);
    thread_stack(&w);
    GC_disable();    /* nothing reachable may move or be freed, and nothing here allocates from it */
    size_t nbits_roots = (nroots + 63) / 64;
    uint64_t *root_words = (uint64_t *)calloc(nroots + 1, 8), *root_bits = (uint64_t *)calloc(nbits_roots + 1, 8);
    /* cons packing: with a cut, only when the caller can say what it cuts without numbering it
     * (the survey must not walk into the objects it cuts, nor number one the writer never reaches) */
    w.trim = cut != NULL;
    if (!cut || cut->is_ref) survey(&w, roots, nroots);
    for (size_t i = 0; i < nroots; i++) {
        bool rel;
        root_words[i] = encode_word(&w, roots[i], &rel, 0);
        if (rel) set_bit(root_bits, i);
    }
    while (w.qhead < w.qlen && !w.failed) encode_scanned(&w, w.queue[w.qhead++]);
    GC_enable();
    w.scanned_hot = w.scanned_len;
    w.atomic_hot = w.atomic_len;
    if (!w.failed && hot && !lay_out_hot_first(&w, root_words, nroots, root_bits)) {
        w.failed = true;
        snprintf(err, IMAGE_ERRLEN, "out of memory laying out an image");
    }
    /* the cold pages compressed: an index of offsets (one per page, and the end), then the data */
    size_t ncs = cold_pages(w.scanned_hot, w.scanned_len), nca = cold_pages(w.atomic_hot, w.atomic_len);
    unsigned char *cold = NULL;
    size_t cold_len = 0;
    uint32_t *cold_offs = ncs + nca ? (uint32_t *)calloc(ncs + nca + 1, 4) : NULL;
    const unsigned char **cold_pages = ncs + nca ? (const unsigned char **)malloc((ncs + nca) * sizeof *cold_pages) : NULL;
    if (!w.failed && ncs + nca) {
        for (size_t k = 0; cold_pages && k < ncs + nca; k++)
            cold_pages[k] = k < ncs ? w.scanned + w.scanned_hot + k * PAGE : w.atomic + w.atomic_hot + (k - ncs) * PAGE;
        if (!cold_offs || !cold_pages || !imagecold_pack(cold_pages, ncs + nca, &cold, &cold_len, cold_offs) ||
            cold_len >= PART_LIMIT) {
            w.failed = true;
            snprintf(err, IMAGE_ERRLEN, "out of memory compressing an image");
        }
    }
    free(cold_pages);
    size_t cold_bytes = ncs + nca ? ((ncs + nca + 1) * 4 + cold_len + 7) & ~(size_t)7 : 0;
    unsigned char *out = NULL;
    if (!w.failed && (w.scanned_len >= PART_LIMIT || w.atomic_len >= PART_LIMIT)) {
        w.failed = true;
        snprintf(err, IMAGE_ERRLEN, "the graph is too large for an image (4 GB per part)");
    }
    size_t ncaller = nexterns;
    nexterns += w.ncuts;      /* the cut objects are external regions after the caller's */
    if (!w.failed) {
        size_t scanned_bits_words = (w.scanned_len / 8 + 63) / 64, atomic_bits_words = (w.atomic_len / 8 + 63) / 64;
        size_t head = sizeof(ImageHeader) + nexterns * 8 + nroots * 8 + nbits_roots * 8;
        size_t scanned_at = ROUND_PAGE(head), atomic_at = scanned_at + ROUND_PAGE(w.scanned_hot);
        size_t cold_at = atomic_at + ROUND_PAGE(w.atomic_hot);
        size_t total = cold_at + cold_bytes + scanned_bits_words * 8 + w.ntables * 8 +
                       (scanned_bits_words + atomic_bits_words) * 8 + w.nlinks * 16;
        out = (unsigned char *)calloc(1, total);
        if (!out) {
            snprintf(err, IMAGE_ERRLEN, "out of memory for an image of %zu bytes", total);
        } else {
            ImageHeader *h = (ImageHeader *)out;
            memcpy(h->magic, IMAGE_MAGIC, 8);
            h->version = IMAGE_FORMAT_VERSION;
            h->header_size = sizeof *h;
            h->build_id_len = image_build_id(h->build_id);
            h->nroots = nroots;
            h->nexterns = nexterns;
            h->scanned_bytes = w.scanned_len;
            h->atomic_bytes = w.atomic_len;
            h->ntables = w.ntables;
            h->writer_exe = (uintptr_t)__executable_start;
            h->exe_words = w.exe_words;
            h->extern_words = w.extern_words;
            h->scanned_at = scanned_at;
            h->atomic_at = atomic_at;
            h->nlinks = w.nlinks;
            h->names_hash = w.links->names_hash;
            h->scanned_hot = w.scanned_hot;
            h->atomic_hot = w.atomic_hot;
            h->cold_at = cold_at;
            h->cold_bytes = cold_bytes;
            h->payload_bytes = total - sizeof *h;
            unsigned char *p = out + sizeof *h;
            for (size_t i = 0; i < nexterns; i++) {
                uint64_t sz = i < ncaller ? externs[i].size : w.cut_sizes[i - ncaller];
                memcpy(p, &sz, 8);
                p += 8;
            }
            memcpy(p, root_words, nroots * 8); p += nroots * 8;
            memcpy(p, root_bits, nbits_roots * 8);
            if (w.scanned_hot > REGION_GUARD)
                memcpy(out + scanned_at + REGION_GUARD, w.scanned + REGION_GUARD, w.scanned_hot - REGION_GUARD);
            memcpy(out + atomic_at, w.atomic, w.atomic_hot);
            if (cold_bytes) {
                memcpy(out + cold_at, cold_offs, (ncs + nca + 1) * 4);
                memcpy(out + cold_at + (ncs + nca + 1) * 4, cold, cold_len);
            }
            p = out + cold_at + cold_bytes;
            if (w.scanned_bits) memcpy(p, w.scanned_bits, scanned_bits_words * 8);
            p += scanned_bits_words * 8;
            if (w.ntables) memcpy(p, w.tables, w.ntables * 8);
            p += w.ntables * 8;
            size_t sw = scanned_bits_words < w.starts_words[0] ? scanned_bits_words : w.starts_words[0];
            size_t aw = atomic_bits_words < w.starts_words[1] ? atomic_bits_words : w.starts_words[1];
            if (sw) memcpy(p, w.starts[0], sw * 8);
            p += scanned_bits_words * 8;
            if (aw) memcpy(p, w.starts[1], aw * 8);
            p += atomic_bits_words * 8;
            for (size_t k = 0; k < w.links->n; k++)
                if (w.link_used[k]) {
                    uint64_t pair[2] = {w.links->addrs[k], w.links->keys[k]};
                    memcpy(p, pair, 16);
                    p += 16;
                }
            h->checksum = checksum(out + sizeof *h, h->payload_bytes - w.nlinks * 16);
            h->links_checksum = checksum(out + total - w.nlinks * 16, w.nlinks * 16);
            image_last_stats = (ImageStats){w.scanned_len, w.atomic_len, w.map.count, w.nrel, w.ntables};
            if (w.stats)
                imagestats_print(stderr, w.scanned_len, w.atomic_len,
                                 scanned_bits_words * 8 + w.ntables * 8 + (scanned_bits_words + atomic_bits_words) * 8,
                                 w.nlinks * 16, total);
            if (w.stats)
                fprintf(stderr, "laid out: pointer-bearing part %zu bytes as they are, %zu pages cold; pointer-free part "
                                "%zu bytes as they are, %zu pages cold; the cold pages compressed: %zu bytes\n",
                        w.scanned_hot, ncs, w.atomic_hot, nca, cold_bytes);
            *len = total;
        }
    }
    if (noted && out) { *noted = w.noted; *nnoted = w.nnoted; w.noted = NULL; }
    free(w.noted);
    free(root_words); free(root_bits); free(w.map.keys); free(w.map.vals); free(w.queue); free(w.survey.keys); free(w.survey.vals);
    free(w.weak_entries.keys); free(w.weak_entries.vals); free(w.owners.keys); free(w.owners.vals);
    free(w.starts[0]); free(w.starts[1]);
    free(w.scanned); free(w.scanned_bits); free(w.atomic); free(w.tables); free(w.maps); free(w.cut_sizes);
    free(w.link_used);
    free(cold); free(cold_offs);
    return out;
}

unsigned char *image_write(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                           size_t nexterns, size_t *len, char *err) {
    return write_image(L, roots, nroots, externs, nexterns, NULL, len, err, -1, 0, NULL, NULL, NULL, 0);
}

unsigned char *image_write_layout(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                                  size_t nexterns, const uintptr_t *hot, size_t nhot, size_t *len, char *err) {
    return write_image(L, roots, nroots, externs, nexterns, NULL, len, err, -1, 0, NULL, NULL, hot, nhot);
}

unsigned char *image_write_cut(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                               size_t nexterns, const ImageCut *cut, size_t *len, char *err) {
    return write_image(L, roots, nroots, externs, nexterns, cut, len, err, -1, 0, NULL, NULL, NULL, 0);
}

unsigned char *image_write_noting(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                                  size_t nexterns, size_t *len, char *err, int type, size_t size, uint64_t **noted,
                                  size_t *nnoted) {
    *noted = NULL;
    *nnoted = 0;
    return write_image(L, roots, nroots, externs, nexterns, NULL, len, err, type, size, noted, nnoted, NULL, 0);
}

/* ---- the reader ---- */

static bool refuse(char *err, const char *msg) {
    snprintf(err, IMAGE_ERRLEN, "%s", msg);
    return false;
}

typedef struct Bases {
    uintptr_t scanned, atomic;
    const ImageRegion *externs; size_t nexterns;
    size_t scanned_bytes, atomic_bytes;
    bool relink;                       /* C addresses are looked up in the links, not kept */
    const uint64_t *link_from; const uintptr_t *link_to; size_t nlinks;
} Bases;

/* The word as it is where the parts and the executable really are; false when it points outside. */
static bool relocate_word(uint64_t *word, const Bases *b) {
    uint64_t v = *word;
    if ((v >> 60) == REL_EXTERN) {
        size_t x = (size_t)((v >> REL_OFFSET_BITS) & REL_INDEX_MASK);
        uint64_t off = v & REL_OFFSET_MASK;
        if (x >= b->nexterns || off > b->externs[x].size) return false;
        *word = (uintptr_t)b->externs[x].base + off;
        return true;
    }
    uint64_t d = v - (FIXED_BASE + ATOMIC_AT);
    if (d < b->atomic_bytes) { *word = b->atomic + d; return true; }
    if (!b->relink) return v - (uintptr_t)__executable_start < (uint64_t)(_end - __executable_start);
    size_t lo = 0, hi = b->nlinks;       /* the writer's address of a C function or constant */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->link_from[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    if (lo == b->nlinks || b->link_from[lo] != v) return false;
    *word = b->link_to[lo];
    return true;
}

/* Relocate the words of AREA marked in BITS (ALL: every one; otherwise only those not already
 * right when the parts are at FIXED_BASE: C addresses when they must be relinked, into external
 * regions). Most point into the scanned part: that case is the loop's own. */
static bool relocate(uint64_t *area, size_t nwords, const uint64_t *bits, const Bases *b, bool all, size_t *count) {
    size_t nbits = (nwords + 63) / 64;
    if (nwords % 64 && (bits[nbits - 1] >> (nwords % 64))) return false;   /* marks past the end */
    uint64_t scanned = b->scanned, limit = b->scanned_bytes;
    bool relink = b->relink;
    for (size_t wi = 0; wi < nbits; wi++) {
        uint64_t m = bits[wi];
        if (!m) continue;
        *count += (size_t)__builtin_popcountll(m);
        uint64_t *at = area + wi * 64;
        do {
            uint64_t *word = at + __builtin_ctzll(m);
            m &= m - 1;
            uint64_t d = *word - FIXED_BASE;
            if (LIKELY(d < limit)) {
                if (all) *word = scanned + d;
            } else if (all || relink || (*word >> 60) == REL_EXTERN) {
                if (!relocate_word(word, b)) return false;
            }
        } while (m);
    }
    return true;
}

/* Only one interpreter at a time can have the image mapped at FIXED_BASE. */
static pthread_mutex_t fixed_lock = PTHREAD_MUTEX_INITIALIZER;
static bool fixed_busy;

/* The compressed pages of the image in BUF: their index (*OFFS, one per page and the end) and the
 * data the offsets are into. */
static const unsigned char *cold_data(const unsigned char *buf, const ImageHeader *h, const Sections *x,
                                      const uint32_t **offs) {
    *offs = (const uint32_t *)(buf + h->cold_at);
    return buf + h->cold_at + (x->ncold_s + x->ncold_a + 1) * 4;
}

/* Map the two parts from FD at FIXED_BASE (private: written pages become the process's own): their
 * hot pages from the file, their cold pages reserved, to be inflated on first touch (PROT: the
 * access they get then). False, with nothing mapped, when the address is taken or the kernel
 * puts them elsewhere. */
static bool map_fixed(int fd, uint64_t file_offset, const ImageHeader *h, const unsigned char *buf, int prot) {
    pthread_mutex_lock(&fixed_lock);
    bool ok = !fixed_busy;
    char *want_s = (char *)(uintptr_t)FIXED_BASE, *want_a = (char *)(uintptr_t)(FIXED_BASE + ATOMIC_AT);
    size_t ss = ROUND_PAGE(h->scanned_hot), as = ROUND_PAGE(h->atomic_hot);
    Sections x = sections(h);
    const uint32_t *offs;
    const unsigned char *data = cold_data(buf, h, &x, &offs);
    void *s = MAP_FAILED, *a = MAP_FAILED;
    bool cs = false, ca = false;
    if (ok) s = mmap(want_s, ss, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, (off_t)(file_offset + h->scanned_at));
    if (s == want_s)
        a = as ? mmap(want_a, as, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, (off_t)(file_offset + h->atomic_at))
               : want_a;
    ok = s == want_s && a == want_a;
    if (ok) ok = cs = imagecold_map(want_s + ss, x.ncold_s, offs, data, offs[0], prot, 0);
    if (ok) ok = ca = imagecold_map(want_a + as, x.ncold_a, offs + x.ncold_s, data, offs[0], PROT_READ | PROT_WRITE, x.ncold_s);
    if (!ok) {
        if (cs) { imagecold_forget(want_s + ss, PAGE); munmap(want_s + ss, x.ncold_s * PAGE); }
        if (ca) { imagecold_forget(want_a + as, PAGE); munmap(want_a + as, x.ncold_a * PAGE); }
        if (s != MAP_FAILED) munmap(s, ss);
        if (a != MAP_FAILED && as) munmap(a, as);
    } else {
        fixed_busy = true;
    }
    pthread_mutex_unlock(&fixed_lock);
    return ok;
}

/* Where cold page K of an image goes when it is copied: the scanned part's, then the atomic part's. */
typedef struct CopyTo { size_t ncold_s; unsigned char *scanned, *atomic; } CopyTo;
static unsigned char *copy_to(void *arg, size_t k) {
    CopyTo *t = (CopyTo *)arg;
    return k < t->ncold_s ? t->scanned + k * PAGE : t->atomic + (k - t->ncold_s) * PAGE;
}

/* Copy the parts of H from BUF to SCANNED and ATOMIC (of their full sizes), inflating the cold pages. */
static bool copy_parts(const unsigned char *buf, const ImageHeader *h, char *scanned, char *atomic) {
    Sections x = sections(h);
    memcpy(scanned, buf + h->scanned_at, h->scanned_hot);
    memcpy(atomic, buf + h->atomic_at, h->atomic_hot);
    const uint32_t *offs;
    const unsigned char *data = cold_data(buf, h, &x, &offs);
    CopyTo to = {x.ncold_s, (unsigned char *)scanned + h->scanned_hot, (unsigned char *)atomic + h->atomic_hot};
    return imagecold_unpack(data, offs, x.ncold_s + x.ncold_a, copy_to, &to);
}

/* The header's checks, shared by the readers and image_check. */
static bool check_header(const unsigned char *buf, size_t len, ImageHeader *hp, char *err) {
    ImageHeader h;
    if (len < sizeof h) return refuse(err, "not a tinycl image (too short)");
    memcpy(&h, buf, sizeof h);
    if (memcmp(h.magic, IMAGE_MAGIC, 8) != 0) return refuse(err, "not a tinycl image (bad magic number)");
    if (h.version != IMAGE_FORMAT_VERSION || h.header_size != sizeof h) {
        snprintf(err, IMAGE_ERRLEN, "the image has format version %u, this tinycl reads version %u",
                 h.version, IMAGE_FORMAT_VERSION);
        return false;
    }
    unsigned char id[32];
    size_t idlen = image_build_id(id);
    if (h.build_id_len != idlen || memcmp(h.build_id, id, idlen) != 0)
        return refuse(err, "the image was written by another build of tinycl (build ids differ)");
    if (h.payload_bytes != len - sizeof h) return refuse(err, "the image is truncated or has trailing bytes");
    if (h.nlinks > h.payload_bytes / 16) return refuse(err, "the image is corrupted (impossible sizes)");
    *hp = h;
    return true;
}

bool image_check_header(const unsigned char *buf, size_t len, char *err) {
    ImageHeader h;
    return check_header(buf, len, &h, err);
}

void image_seal(unsigned char *buf, size_t len) {
    ImageHeader h;
    if (len < sizeof h) return;
    memcpy(&h, buf, sizeof h);
    if (h.nlinks > (len - sizeof h) / 16) return;
    h.checksum = checksum(buf + sizeof h, len - sizeof h - h.nlinks * 16);
    h.links_checksum = checksum(buf + len - h.nlinks * 16, h.nlinks * 16);
    memcpy(buf, &h, sizeof h);
}

bool image_check(const unsigned char *buf, size_t len, char *err) {
    ImageHeader h;
    if (!check_header(buf, len, &h, err)) return false;
    if (checksum(buf + sizeof h, h.payload_bytes - h.nlinks * 16) != h.checksum ||
        checksum(buf + len - h.nlinks * 16, h.nlinks * 16) != h.links_checksum)
        return refuse(err, "the image is corrupted (checksum mismatch)");
    return true;
}

/* The bytes of a file image already checked, or vouched for (image_file_verified). */
static const unsigned char *verified;
static size_t verified_len;

void image_file_verified(const unsigned char *buf, size_t len) {
    verified_len = len;
    __atomic_store_n(&verified, buf, __ATOMIC_RELEASE);
}

/* An image read from a file part by part (image_read_gc_fd): BUF holds its head only (up to its
 * first part); the sections after the parts are read into TAIL, the parts straight into their
 * blocks. */
typedef struct PartFile { int fd; uint64_t offset; size_t headlen; unsigned char *tail; size_t tail_at; } PartFile;

/* Where the image's byte OFF is in memory: BUF, or past the parts, the tail a PartFile read. */
static const unsigned char *image_at(const unsigned char *buf, const PartFile *pf, size_t off) {
    return pf && off >= pf->tail_at ? pf->tail + (off - pf->tail_at) : buf + off;
}

/* N bytes of FD from OFF into TO; false when the file ends first (truncated meanwhile). */
static bool read_fully(int fd, unsigned char *to, size_t n, uint64_t off) {
    while (n) {
        ssize_t got = pread(fd, to, n, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        to += got;
        n -= (size_t)got;
        off += (uint64_t)got;
    }
    return true;
}

static bool read_image(Lisp *L, const unsigned char *buf, size_t len, int fd, uint64_t file_offset,
                       uintptr_t *roots_out, size_t nroots, const ImageRegion *externs, size_t nexterns,
                       ImageHeap *heap, bool into_gc, PartFile *pf, char *err) {
    ImageHeader h;
    if (!check_header(buf, len, &h, err)) return false;
    if (h.nroots != nroots || h.nexterns != nexterns)
        return refuse(err, "the image does not fit this caller (different roots or external regions)");
    size_t nbits_roots = (nroots + 63) / 64;
    if (h.scanned_bytes < REGION_GUARD || h.atomic_bytes < REGION_GUARD || (h.scanned_bytes & 7) ||
        h.scanned_bytes >= PART_LIMIT || h.atomic_bytes >= PART_LIMIT || h.scanned_hot > len || h.atomic_hot > len || h.ntables > len)
        return refuse(err, "the image is corrupted (impossible sizes)");
    size_t scanned_bits_words = (h.scanned_bytes / 8 + 63) / 64, atomic_bits_words = (h.atomic_bytes / 8 + 63) / 64;
    size_t head = sizeof h + nexterns * 8 + nroots * 8 + nbits_roots * 8;
    if (h.scanned_hot > h.scanned_bytes || h.atomic_hot > h.atomic_bytes || h.cold_bytes > len ||
        (h.scanned_hot < h.scanned_bytes && h.scanned_hot % PAGE) || (h.atomic_hot < h.atomic_bytes && h.atomic_hot % PAGE))
        return refuse(err, "the image is corrupted (impossible sizes)");
    Sections x = sections(&h);
    if (h.nlinks > len || h.scanned_at != ROUND_PAGE(head) || h.atomic_at != h.scanned_at + ROUND_PAGE(h.scanned_hot) ||
        h.cold_at != h.atomic_at + ROUND_PAGE(h.atomic_hot) || x.end != len ||
        (h.cold_bytes && h.cold_bytes < (x.ncold_s + x.ncold_a + 1) * 4) || (!h.cold_bytes && x.ncold_s + x.ncold_a))
        return refuse(err, "the image is corrupted (sizes do not add up)");
    if (pf) {       /* the head in BUF, the rest read from here on (no cold pages: image_read_gc_fd) */
        if (pf->headlen < h.scanned_at || x.ncold_s + x.ncold_a) return refuse(err, "the image is corrupted (sizes do not add up)");
        pf->tail_at = (size_t)h.cold_at;
        pf->tail = (unsigned char *)malloc(len - pf->tail_at + 1);
        if (!pf->tail) return refuse(err, "not enough memory to load the image");
        if (!read_fully(pf->fd, pf->tail, len - pf->tail_at, pf->offset + pf->tail_at))
            return refuse(err, "the image is truncated (its file ended before its end)");
    }
    if (x.ncold_s + x.ncold_a) {      /* the index of the cold pages: in order, inside the section */
        const unsigned char *ip = buf + h.cold_at;
        size_t room = h.cold_bytes - (x.ncold_s + x.ncold_a + 1) * 4;
        uint32_t prev = 0;
        for (size_t k = 0; k <= x.ncold_s + x.ncold_a; k++) {
            uint32_t o;
            memcpy(&o, ip + k * 4, 4);
            if (o < prev || o > room) return refuse(err, "the image is corrupted (its compressed pages)");
            prev = o;
        }
    }
    /* the pages of a file do not change under a private mapping: checked once per process */
    bool known = fd >= 0 && __atomic_load_n(&verified, __ATOMIC_ACQUIRE) == buf && verified_len == len;
    if (!known && !pf && checksum(buf + sizeof h, h.payload_bytes - h.nlinks * 16) != h.checksum)
        return refuse(err, "the image is corrupted (checksum mismatch)");
    if (!known && fd >= 0) {
        verified_len = len;
        __atomic_store_n(&verified, buf, __ATOMIC_RELEASE);
    }
    const unsigned char *p = buf + sizeof h;
    for (size_t i = 0; i < nexterns; i++) {
        uint64_t sz;
        memcpy(&sz, p + i * 8, 8);
        if (sz != externs[i].size) return refuse(err, "the image was written for external regions of other sizes");
    }
    p += nexterns * 8;
    const unsigned char *rootp = p; p += nroots * 8;
    const unsigned char *rootbits = p;
    const unsigned char *scanbits = image_at(buf, pf, x.relbits);
    const unsigned char *tablep = image_at(buf, pf, x.tables);
    for (size_t i = 0; i < h.ntables; i++) {
        uint64_t off;
        memcpy(&off, tablep + i * 8, 8);
        if (off < REGION_GUARD || off + sizeof(HashTable) > h.scanned_bytes || (off & 7))
            return refuse(err, "the image is corrupted (a hash table outside the image)");
    }
    /* C addresses: the writer's are right where the executable is where the writer's was (the same
     * build, linked at a fixed address: the usual case, which costs nothing); elsewhere each is
     * looked up by its key in the declared tables */
    Bases b = {0, 0, externs, nexterns, h.scanned_bytes, h.atomic_bytes,
               h.writer_exe != (uintptr_t)__executable_start || image_always_relink, NULL, NULL, 0};
    uint64_t *link_from = NULL;
    uintptr_t *link_to = NULL;
    if (b.relink && h.nlinks) {
        const ImageLinks *links = imagetab_links();
        if (h.names_hash != links->names_hash)
            return refuse(err, "the image names C functions in tables this tinycl declares otherwise (other primitives or evaluators)");
        const unsigned char *linkp = tablep + h.ntables * 8 + (scanned_bits_words + atomic_bits_words) * 8;
        if (checksum(linkp, h.nlinks * 16) != h.links_checksum) return refuse(err, "the image is corrupted (checksum mismatch in its links)");
        link_from = (uint64_t *)malloc(h.nlinks * 8);
        link_to = (uintptr_t *)malloc(h.nlinks * sizeof *link_to);
        if (!link_from || !link_to) { free(link_from); free(link_to); return refuse(err, "not enough memory to load the image"); }
        for (size_t i = 0; i < h.nlinks; i++) {
            uint64_t pair[2];
            memcpy(pair, linkp + i * 16, 16);
            link_from[i] = pair[0];
            bool ok = (i == 0 || pair[0] > link_from[i - 1]) || !refuse(err, "the image is corrupted (links out of order)");
            if (!ok || !imagetab_resolve(links, pair[1], &link_to[i], err, IMAGE_ERRLEN)) {
                free(link_from);
                free(link_to);
                return false;
            }
        }
        b.link_from = link_from;
        b.link_to = link_to;
        b.nlinks = h.nlinks;
    }

    /* everything checked that can be without allocating: now build it aside, mapped from the file
     * at the address it was written for when that is possible, else copied and relocated */
    size_t ss = ROUND_PAGE(h.scanned_bytes), as = ROUND_PAGE(h.atomic_bytes);
    /* cold pages: inflated on their first touch when the collector's write tracking (whose fault
     * handler brings them in) is on and no word is to be relocated, else all of them here */
    bool cold = x.ncold_s + x.ncold_a > 0, relocating = b.relink || h.extern_words;
    bool lazy = cold && !relocating && !into_gc && !imagecold_eager() && gcdirty_usable();
    bool fixed = fd >= 0 && !(file_offset % PAGE) &&
                 map_fixed(fd, file_offset, &h, buf, lazy ? PROT_READ : PROT_READ | PROT_WRITE);
    char *scanned, *atomic;
    if (fixed) {
        scanned = (char *)(uintptr_t)FIXED_BASE;
        atomic = (char *)(uintptr_t)(FIXED_BASE + ATOMIC_AT);
        if (cold && !lazy && !(imagecold_fill(scanned, ss) && imagecold_fill(atomic, as))) {
            free(link_from); free(link_to);
            ImageHeap gone = {scanned, h.scanned_bytes, ss, atomic, as, true, h.atomic_bytes, NULL, 0, false};
            image_release(&gone);
            return refuse(err, "the image is corrupted (a compressed page does not inflate)");
        }
        /* every page is in: no fault in these parts is a cold page's any more. (Left registered, a
         * writable range claims every fault in it, the write tracker's too, which then never
         * lets the write through: the process hung at its first write to a tracked page.) */
        if (cold && !lazy) {
            imagecold_forget(scanned, ss);
            imagecold_forget(atomic, as);
        }
    } else if (into_gc) {
        /* two blocks of the collector's heap: the objects live as long as something points into
         * them (the definitions made from them: usually for good), and the first word of the
         * scanned one (in its guard) keeps the other alive. The heap grows by their size first,
         * so that making room for them starts no collection. */
        GC_expand_hp(ss + as);
        scanned = (char *)gc_alloc_uncleared(ss);   /* copy_parts and the tail's clearing write it all */
        atomic = scanned ? (char *)GC_malloc_atomic(as) : NULL;
        if (!scanned || !atomic) { free(link_from); free(link_to); return refuse(err, "not enough memory to load the image"); }
        if (pf) {
            /* the parts straight from the file into their blocks (with their padding to a page,
             * which the file holds as zeros), then the checksum of the whole, part by part */
            /* the blocks are usually fresh pages: faulted in by one call, not one fault per page
             * in the copy (a kernel without it, or a block not page-aligned, refuses: no matter) */
            madvise(scanned, ss, MADV_POPULATE_WRITE);
            if (!((uintptr_t)atomic % PAGE)) madvise(atomic, as, MADV_POPULATE_WRITE);
            bool whole = read_fully(pf->fd, (unsigned char *)scanned, ss, pf->offset + h.scanned_at) &&
                         read_fully(pf->fd, (unsigned char *)atomic, as, pf->offset + h.atomic_at);
            Sum sum;
            sum_begin(&sum, h.payload_bytes - h.nlinks * 16);
            sum_add(&sum, buf + sizeof h, h.scanned_at - sizeof h);
            sum_add(&sum, (unsigned char *)scanned, ss);
            sum_add(&sum, (unsigned char *)atomic, as);
            sum_add(&sum, pf->tail, len - pf->tail_at - h.nlinks * 16);
            if (!whole || sum_end(&sum) != h.checksum) {
                free(link_from); free(link_to);
                return refuse(err, whole ? "the image is corrupted (checksum mismatch)"
                                         : "the image is truncated (its file ended before its end)");
            }
        } else {
            memset(scanned + h.scanned_hot, 0, ss - h.scanned_hot);
            if (!copy_parts(buf, &h, scanned, atomic)) {
                free(link_from); free(link_to);
                return refuse(err, "the image is corrupted (a compressed page does not inflate)");
            }
        }
        *(char **)scanned = atomic;
    } else {
        char *mem = (char *)mmap(NULL, ss + as, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (mem == MAP_FAILED) { free(link_from); free(link_to); return refuse(err, "not enough memory to load the image"); }
        scanned = mem;
        atomic = mem + ss;
        if (!copy_parts(buf, &h, scanned, atomic)) {
            munmap(mem, ss + as);
            free(link_from); free(link_to);
            return refuse(err, "the image is corrupted (a compressed page does not inflate)");
        }
    }
    ImageHeap made = {into_gc ? NULL : scanned, h.scanned_bytes, ss, atomic, as, fixed, h.atomic_bytes, NULL,
                      fixed && h.scanned_hot < h.scanned_bytes ? (size_t)h.scanned_hot : (size_t)h.scanned_bytes, false};
    b.scanned = (uintptr_t)scanned;
    b.atomic = (uintptr_t)atomic;
    bool needed = !fixed || b.relink || h.extern_words;
    /* the relocation bits of the scanned part only when it is relocated (not at a start) */
    uint64_t *rwords = (uint64_t *)malloc((nroots + 1) * 8), *rbits = (uint64_t *)malloc((nbits_roots + 1) * 8),
             *sbits = needed ? (uint64_t *)malloc((scanned_bits_words + 1) * 8) : NULL;
    /* the block starts, kept while the graph lives: image_write finds its blocks with them. An
     * image mapped from its file is read in place: BUF is then the caller's mapping of the file,
     * readable as long as the process (image_read_file) */
    made.starts = fixed ? (uint64_t *)(uintptr_t)(tablep + h.ntables * 8)
                        : (uint64_t *)malloc((scanned_bits_words + atomic_bits_words + 1) * 8);
    bool ok = rwords && rbits && (sbits || !needed) && made.starts;
    if (ok) {
        memcpy(rwords, rootp, nroots * 8);
        memcpy(rbits, rootbits, nbits_roots * 8);
        if (needed) memcpy(sbits, scanbits, scanned_bits_words * 8);
        if (!fixed) memcpy(made.starts, tablep + h.ntables * 8, (scanned_bits_words + atomic_bits_words) * 8);
    }
    size_t nrel = 0;
    ok = ok && (!needed || relocate((uint64_t *)scanned, h.scanned_bytes / 8, sbits, &b, !fixed, &nrel)) &&
         relocate(rwords, nroots, rbits, &b, true, &nrel);
    free(link_from);
    free(link_to);
    if (!ok) {
        free(rwords); free(rbits); free(sbits);
        image_release(&made);
        return refuse(err, rwords && rbits && (sbits || !needed) ? "the image is corrupted (a relocation points outside the image)"
                                                    : "not enough memory to load the image");
    }
    /* from here the objects are live: the collector must see what they point to. Cold pages that
     * come when touched are tracked from here, as the caller would track the others (gcdirty.h) */
    if (lazy && fixed) {
        made.tracked = gcdirty_track_mapped(scanned, h.scanned_bytes, ROUND_PAGE(h.scanned_hot));
        if (!made.tracked) {
            imagecold_fill(scanned, ss);
            imagecold_fill(atomic, as);
            mprotect(scanned, ss, PROT_READ | PROT_WRITE);
        }
    }
    if (!into_gc && !made.tracked) GC_add_roots(scanned, scanned + h.scanned_bytes);
    for (size_t i = 0; i < h.ntables; i++) {
        uint64_t off;
        memcpy(&off, tablep + i * 8, 8);
        hash_rehash_loaded(L, (Obj)(scanned + off));
    }
    memcpy(roots_out, rwords, nroots * 8);
    free(rwords); free(rbits); free(sbits);
    if (heap) *heap = made;
    else if (into_gc) {
        made.scanned = scanned;            /* its starts are kept for a writer that reaches its objects */
        if (!gc_parts_register(&made)) free(made.starts);
    } else if (!fixed) free(made.starts);  /* the caller keeps no handle: the graph cannot be written again */
    image_last_stats = (ImageStats){h.scanned_bytes, h.atomic_bytes, 0, nrel, h.ntables};
    return true;
}

bool image_read_file(Lisp *L, const unsigned char *buf, size_t len, int fd, uint64_t file_offset,
                     uintptr_t *roots_out, size_t nroots, const ImageRegion *externs, size_t nexterns,
                     ImageHeap *heap, char *err) {
    return read_image(L, buf, len, fd, file_offset, roots_out, nroots, externs, nexterns, heap, false, NULL, err);
}

bool image_read_gc(Lisp *L, const unsigned char *buf, size_t len, uintptr_t *roots_out, size_t nroots,
                   const ImageRegion *externs, size_t nexterns, char *err) {
    return read_image(L, buf, len, -1, 0, roots_out, nroots, externs, nexterns, NULL, true, NULL, err);
}

bool image_read_gc_fd(Lisp *L, int fd, uint64_t offset, size_t len, const unsigned char *head, size_t headlen,
                      uintptr_t *roots_out, size_t nroots, const ImageRegion *externs, size_t nexterns, char *err) {
    ImageHeader h;
    if (!check_header(head, len, &h, err)) return false;
    if (h.cold_bytes || h.scanned_hot != h.scanned_bytes || h.atomic_hot != h.atomic_bytes) {
        /* cold pages: inflated from the image in memory, read whole */
        unsigned char *buf = (unsigned char *)malloc(len ? len : 1);
        if (!buf) return refuse(err, "not enough memory to load the image");
        bool ok = read_fully(fd, buf, len, offset) ||
                  refuse(err, "the image is truncated (its file ended before its end)");
        ok = ok && read_image(L, buf, len, -1, 0, roots_out, nroots, externs, nexterns, NULL, true, NULL, err);
        free(buf);
        return ok;
    }
    PartFile pf = {fd, offset, headlen, NULL, 0};
    bool ok = read_image(L, head, len, -1, 0, roots_out, nroots, externs, nexterns, NULL, true, &pf, err);
    free(pf.tail);
    return ok;
}

size_t image_head_bytes(const unsigned char *buf, size_t len) {
    ImageHeader h;
    if (len < sizeof h) return sizeof h;
    memcpy(&h, buf, sizeof h);
    return h.scanned_at > sizeof h ? (size_t)h.scanned_at : sizeof h;
}

bool image_read(Lisp *L, const unsigned char *buf, size_t len, uintptr_t *roots_out, size_t nroots,
                const ImageRegion *externs, size_t nexterns, ImageHeap *heap, char *err) {
    return image_read_file(L, buf, len, -1, 0, roots_out, nroots, externs, nexterns, heap, err);
}

void image_release(ImageHeap *heap) {
    if (!heap->fixed) free(heap->starts);     /* a mapped image's are its file's (read_image) */
    heap->starts = NULL;
    if (!heap->scanned) return;
    if (!gcdirty_untrack(heap->scanned)) GC_remove_roots(heap->scanned, heap->scanned + heap->scanned_bytes);
    imagecold_forget(heap->scanned, heap->scanned_room);
    imagecold_forget(heap->atomic, heap->atomic_room);
    munmap(heap->scanned, heap->scanned_room);
    munmap(heap->atomic, heap->atomic_room);
    if (heap->fixed) {
        pthread_mutex_lock(&fixed_lock);
        fixed_busy = false;
        pthread_mutex_unlock(&fixed_lock);
    }
    heap->scanned = NULL;
}

size_t image_table_offsets(const unsigned char *buf, size_t len, uint64_t **out) {
    ImageHeader h;
    *out = NULL;
    if (len < sizeof h) return 0;
    memcpy(&h, buf, sizeof h);
    size_t at = sections(&h).tables;
    if (!h.ntables || at + h.ntables * 8 > len) return 0;
    *out = (uint64_t *)malloc(h.ntables * 8);
    if (!*out) return 0;
    memcpy(*out, buf + at, h.ntables * 8);
    return h.ntables;
}

size_t image_scanned_offset(const unsigned char *buf, size_t len) {
    ImageHeader h;
    if (len < sizeof h) return 0;
    memcpy(&h, buf, sizeof h);
    return h.scanned_at < len ? (size_t)h.scanned_at : 0;
}

/* The header of image BUF and its sections, when it has a cold part that lies within LEN. */
static bool cold_header(const unsigned char *buf, size_t len, ImageHeader *h, Sections *x) {
    if (len < sizeof *h) return false;
    memcpy(h, buf, sizeof *h);
    if (!h->cold_bytes || h->cold_at + h->cold_bytes > len) return false;
    *x = sections(h);
    return true;
}

bool image_cold_pages(const unsigned char *buf, size_t len, const uint32_t **offs, const unsigned char **data,
                      size_t *pages, uint64_t *sum) {
    ImageHeader h;
    Sections x;
    if (!cold_header(buf, len, &h, &x)) return false;
    *data = cold_data(buf, &h, &x, offs);
    *pages = x.ncold_s + x.ncold_a;
    *sum = h.checksum;
    return true;
}

uint64_t image_sum(const void *p, size_t n) { return checksum((const unsigned char *)p, n); }

bool image_cold_section(const unsigned char *buf, size_t len, size_t *at, size_t *bytes, size_t *pages) {
    ImageHeader h;
    Sections x;
    if (!cold_header(buf, len, &h, &x)) return false;
    *at = (size_t)h.cold_at;
    *bytes = (size_t)h.cold_bytes;
    *pages = x.ncold_s + x.ncold_a;
    return true;
}
