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

bool imagecold_map(char *lo, size_t npages, const uint32_t *offs, const unsigned char *data, int prot) {
    if (!npages) return true;
    _Atomic unsigned char *done = (_Atomic unsigned char *)calloc(npages, 1);
    if (!done) return false;
    const char *t = getenv("TINYCL_IMAGE_COLD_TRACE");
    trace = t && *t && *t != '0';
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

/* Page P of range R in place, unless it is already; false when it does not inflate. */
static bool bring_in(Range *r, char *lo, size_t p, bool *now, const char *at) {
    *now = false;
    if (atomic_load_explicit(&r->done[p], memory_order_acquire)) return true;
    sigset_t old;
    lock(&old);
    bool ok = true;
    if (!atomic_load_explicit(&r->done[p], memory_order_relaxed)) {
        /* inflated aside, then moved in whole: no thread sees a half-written page */
        void *fresh = mmap(NULL, IMAGECOLD_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ok = fresh != MAP_FAILED && r->offs[p] <= r->offs[p + 1] &&
             inflate_locked(r->data + r->offs[p], r->offs[p + 1] - r->offs[p], (unsigned char *)fresh) &&
             (r->prot == (PROT_READ | PROT_WRITE) || mprotect(fresh, IMAGECOLD_PAGE, r->prot) == 0) &&
             mremap(fresh, IMAGECOLD_PAGE, IMAGECOLD_PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, lo + p * IMAGECOLD_PAGE) !=
                 MAP_FAILED;
        if (ok) {
            if (trace) trace_page(at ? at : lo + p * IMAGECOLD_PAGE);
            atomic_store_explicit(&r->done[p], 1, memory_order_release);
            atomic_fetch_add_explicit(&inflated, 1, memory_order_relaxed);
            *now = true;
        } else if (fresh != MAP_FAILED) {
            munmap(fresh, IMAGECOLD_PAGE);
        }
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
        bool now;
        if (!bring_in(&ranges[i], lo, (size_t)(a - lo) / IMAGECOLD_PAGE, &now, a)) {
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
        for (; p < q; p++)
            if (!bring_in(&ranges[i], s, p, &now, NULL)) return false;
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
