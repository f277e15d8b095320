/* imagecold.c: the cold pages of an image, inflated one by one on their first touch (imagecold.h). */
#include "imagecold.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

/* Ranges at once: an image has two parts, and one image at a time is mapped at its address. */
#define MAX_RANGES 8

typedef struct Range {
    _Atomic(char *) lo;            /* NULL: a free slot */
    size_t npages;
    const uint32_t *offs;
    const unsigned char *data;
    int prot;
    _Atomic unsigned char *done;   /* a byte per page: inflated */
} Range;

static Range ranges[MAX_RANGES];
static atomic_flag busy = ATOMIC_FLAG_INIT;    /* the inflater and the pages being moved in */
static atomic_size_t inflated;
/* TINYCL_IMAGE_COLD_TRACE=1: each page inflated is named on stderr ("cold page 0x...", the address touched), to see
 * what a start or a program touches that the hot part lacks (bootlayout.c). */
static bool trace;

/* The inflater: made once, outside any handler, reused under the lock. Its memory comes from a
 * static arena, so that inflating in a signal handler never calls malloc. */
static z_stream inflater;
static bool inflater_ready;
static unsigned char arena[64 * 1024] __attribute__((aligned(16)));
static size_t arena_used;

static voidpf arena_alloc(voidpf opaque, uInt items, uInt size) {
    (void)opaque;
    size_t n = ((size_t)items * size + 15) & ~(size_t)15;
    if (n > sizeof arena - arena_used) return Z_NULL;
    void *p = arena + arena_used;
    arena_used += n;
    return p;
}
static void arena_free(voidpf opaque, voidpf p) { (void)opaque; (void)p; }

static void lock(sigset_t *old) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
    while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire)) {}
}
static void unlock(const sigset_t *old) {
    atomic_flag_clear_explicit(&busy, memory_order_release);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

bool imagecold_deflate(const unsigned char *page, unsigned char **buf, size_t *len, size_t *cap) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) return false;
    size_t bound = deflateBound(&z, IMAGECOLD_PAGE);
    if (*len + bound > *cap) {
        size_t c = *cap ? *cap * 2 : (size_t)1 << 20;
        while (c < *len + bound) c *= 2;
        unsigned char *b = (unsigned char *)realloc(*buf, c);
        if (!b) { deflateEnd(&z); return false; }
        *buf = b;
        *cap = c;
    }
    z.next_in = (Bytef *)page;
    z.avail_in = IMAGECOLD_PAGE;
    z.next_out = *buf + *len;
    z.avail_out = (uInt)bound;
    bool ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
    if (ok) *len += bound - z.avail_out;
    deflateEnd(&z);
    return ok;
}

/* Under the lock. */
static bool inflater_init_locked(void) {
    if (!inflater_ready) {
        inflater.zalloc = arena_alloc;
        inflater.zfree = arena_free;
        inflater_ready = inflateInit2(&inflater, -15) == Z_OK;
    }
    return inflater_ready;
}

/* Under the lock. The stream is static memory, which the collector scans as a root: its pointers
 * are cleared once the page is inflated. Left there, NEXT_OUT pointed just past the page, and the
 * address past a mapping is often the first byte of the one above it, where the kernel put that
 * mapping just below the lowest (the collector's newest heap section, say): after
 * reset-session {"systems": true} the new interpreter's image, copied with its cold pages inflated
 * in place, ended where the 800 MB array of the last evaluation began, and that word kept the
 * array alive for the rest of the process (tests/mcp/transcripts/heap-reuse.txt). */
static bool inflate_locked(const unsigned char *src, size_t srclen, unsigned char *dst) {
    if (!inflater_init_locked() || inflateReset(&inflater) != Z_OK) return false;
    inflater.next_in = (Bytef *)src;
    inflater.avail_in = (uInt)srclen;
    inflater.next_out = dst;
    inflater.avail_out = IMAGECOLD_PAGE;
    bool ok = inflate(&inflater, Z_FINISH) == Z_STREAM_END && inflater.avail_out == 0 && inflater.avail_in == 0;
    inflater.next_in = inflater.next_out = Z_NULL;
    return ok;
}

bool imagecold_inflate(const unsigned char *src, size_t srclen, unsigned char *dst) {
    sigset_t old;
    lock(&old);
    bool ok = inflate_locked(src, srclen, dst);
    unlock(&old);
    return ok;
}

/* How many pages a fault brings in: the aligned run around the page touched, whose length grows
 * with the pages the process has inflated so far. A plain start touches three and a small program
 * a few hundred, scattered (a page alone is cheapest for them); loading a system touches 1,200 of
 * the 1,405, close together, where a run of 32 costs a third less than a page per fault
 * (docs/performance.md, "cold pages in runs"). TINYCL_IMAGE_COLD_RUN=N fixes the run at N pages
 * (1: a page per fault, as under TINYCL_IMAGE_COLD_TRACE, whose trace is of the pages touched). */
#ifndef RUN_SMALL
#define RUN_SMALL 128
#endif
#ifndef RUN_MEDIUM
#define RUN_MEDIUM 512
#endif
static size_t run_fixed;
static size_t run_pages(size_t so_far) {
    if (run_fixed) return run_fixed;
    return so_far < RUN_SMALL ? 1 : so_far < RUN_MEDIUM ? 4 : 32;
}

bool imagecold_map(char *lo, size_t npages, const uint32_t *offs, const unsigned char *data, int prot) {
    if (!npages) return true;
    _Atomic unsigned char *done = (_Atomic unsigned char *)calloc(npages, 1);
    if (!done) return false;
    const char *t = getenv("TINYCL_IMAGE_COLD_TRACE");
    trace = t && *t && *t != '0';
    const char *run = getenv("TINYCL_IMAGE_COLD_RUN");
    run_fixed = run && *run ? (strtoul(run, NULL, 10) ? strtoul(run, NULL, 10) : 1) : 0;
    if (trace) run_fixed = 1;
    sigset_t old;
    lock(&old);
    bool ready = inflater_init_locked();
    unlock(&old);
    size_t i = 0;
    while (i < MAX_RANGES && atomic_load_explicit(&ranges[i].lo, memory_order_acquire)) i++;
    void *m = ready && i < MAX_RANGES ? mmap(lo, npages * IMAGECOLD_PAGE, PROT_NONE,
                                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0)
                                      : MAP_FAILED;
    if (m != (void *)lo) {
        if (m != MAP_FAILED) munmap(m, npages * IMAGECOLD_PAGE);
        free((void *)done);
        return false;
    }
    ranges[i].npages = npages;
    ranges[i].offs = offs;
    ranges[i].data = data;
    ranges[i].prot = prot;
    ranges[i].done = done;
    atomic_store_explicit(&ranges[i].lo, lo, memory_order_release);
    return true;
}


static void trace_page(const char *at) {
    char line[48] = "cold page 0x";
    size_t n = 12;
    for (int shift = 44; shift >= 0; shift -= 4) line[n++] = "0123456789abcdef"[((uintptr_t)at >> shift) & 15];
    line[n++] = '\n';
    ssize_t w = write(2, line, n);
    (void)w;
}

/* Pages P .. Q-1 of range R that are not there yet, in place; false when one does not inflate.
 * Each run of absent pages is inflated aside into one fresh mapping and moved in whole: no thread
 * sees a half-written page, and a run costs one mmap, mprotect and mremap instead of one per page
 * (those calls, not the inflating, were half of a cold page's cost). *NOW: the page at AT (if
 * any) was brought in here. */
static bool bring_in(Range *r, char *lo, size_t p, size_t q, bool *now, const char *at) {
    *now = false;
    sigset_t old;
    lock(&old);
    bool ok = true;
    while (ok && p < q) {
        if (atomic_load_explicit(&r->done[p], memory_order_relaxed)) { p++; continue; }
        size_t e = p + 1;
        while (e < q && !atomic_load_explicit(&r->done[e], memory_order_relaxed)) e++;
        size_t bytes = (e - p) * IMAGECOLD_PAGE;
        unsigned char *fresh = (unsigned char *)mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                                                     MAP_PRIVATE | MAP_ANONYMOUS | (e - p > 1 ? MAP_POPULATE : 0), -1, 0);
        ok = fresh != MAP_FAILED;
        for (size_t k = p; ok && k < e; k++)
            ok = r->offs[k] <= r->offs[k + 1] &&
                 inflate_locked(r->data + r->offs[k], r->offs[k + 1] - r->offs[k], fresh + (k - p) * IMAGECOLD_PAGE);
        ok = ok && (r->prot == (PROT_READ | PROT_WRITE) || mprotect(fresh, bytes, r->prot) == 0) &&
             mremap(fresh, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, lo + p * IMAGECOLD_PAGE) != MAP_FAILED;
        if (ok) {
            for (size_t k = p; k < e; k++) {
                if (trace) trace_page(at && (size_t)(at - lo) / IMAGECOLD_PAGE == k ? at : lo + k * IMAGECOLD_PAGE);
                atomic_store_explicit(&r->done[k], 1, memory_order_release);
            }
            atomic_fetch_add_explicit(&inflated, e - p, memory_order_relaxed);
            if (at && (size_t)(at - lo) / IMAGECOLD_PAGE - p < e - p) *now = true;
        } else if (fresh != MAP_FAILED) {
            munmap(fresh, bytes);
        }
        p = e;
    }
    unlock(&old);
    return ok;
}


bool imagecold_fault(void *addr) {
    char *a = (char *)addr;
    for (size_t i = 0; i < MAX_RANGES; i++) {
        char *lo = atomic_load_explicit(&ranges[i].lo, memory_order_acquire);
        if (!lo || a < lo || a >= lo + ranges[i].npages * IMAGECOLD_PAGE) continue;
        int saved = errno;
        bool now = false, ok = true;
        size_t p = (size_t)(a - lo) / IMAGECOLD_PAGE, q = p + 1;
        if (!atomic_load_explicit(&ranges[i].done[p], memory_order_acquire)) {
            size_t run = run_pages(atomic_load_explicit(&inflated, memory_order_relaxed));
            p -= p % run;
            q = p + run < ranges[i].npages ? p + run : ranges[i].npages;
            ok = bring_in(&ranges[i], lo, p, q, &now, a);
        }
        if (!ok) {
            static const char msg[] = "tinycl: a page of the boot image does not inflate (the executable is corrupted)\n";
            ssize_t w = write(2, msg, sizeof msg - 1);
            (void)w;
            abort();
        }
        errno = saved;
        /* a page already there faulted for a write to a page the collector tracks (gcdirty.c):
         * that fault is the tracker's; in a writable range, another thread brought it in */
        return now || ranges[i].prot == (PROT_READ | PROT_WRITE);
    }
    return false;
}

bool imagecold_fill(char *lo, size_t bytes) {
    char *hi = lo + bytes;
    for (size_t i = 0; i < MAX_RANGES; i++) {
        char *s = atomic_load_explicit(&ranges[i].lo, memory_order_acquire);
        if (!s || hi <= s || lo >= s + ranges[i].npages * IMAGECOLD_PAGE) continue;
        size_t p = lo > s ? (size_t)(lo - s) / IMAGECOLD_PAGE : 0;
        size_t q = (size_t)((hi < s + ranges[i].npages * IMAGECOLD_PAGE ? hi : s + ranges[i].npages * IMAGECOLD_PAGE) - s +
                            IMAGECOLD_PAGE - 1) / IMAGECOLD_PAGE;
        bool now;
        /* in runs of at most 64 pages, so that the lock (every signal blocked) is never held long */
        for (; p < q; p += 64)
            if (!bring_in(&ranges[i], s, p, q - p < 64 ? q : p + 64, &now, NULL)) return false;
    }
    return true;
}

void imagecold_forget(char *lo, size_t bytes) {
    for (size_t i = 0; i < MAX_RANGES; i++) {
        char *s = atomic_load_explicit(&ranges[i].lo, memory_order_acquire);
        if (!lo || !s || s < lo || s >= lo + bytes) continue;
        atomic_store_explicit(&ranges[i].lo, NULL, memory_order_release);
        free((void *)ranges[i].done);
        ranges[i].done = NULL;
    }
}

size_t imagecold_inflated(void) { return atomic_load_explicit(&inflated, memory_order_relaxed); }

bool imagecold_eager(void) {
    const char *e = getenv("TINYCL_IMAGE_EAGER"), *pre = getenv("LD_PRELOAD");
    return (e && *e && *e != '0') || (pre && strstr(pre, "vgpreload"));
}
