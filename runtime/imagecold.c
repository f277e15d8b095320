/* imagecold.c: the cold pages of an image, inflated on their first touch, alone or in runs (imagecold.h). */
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
#define ZSTD_STATIC_LINKING_ONLY     /* ZSTD_initStaticDCtx: a decompressor that never allocates */
#include <zdict.h>
#include <zstd.h>

/* Ranges at once: an image has two parts, and one image at a time is mapped at its address. */
#define MAX_RANGES 8

typedef struct Range {
    _Atomic(char *) lo;            /* NULL: a free slot */
    size_t npages;
    const uint32_t *offs;
    const unsigned char *data;
    ZSTD_DDict *dict;              /* the image's dictionary (its bytes before the first page's), or NULL */
    int prot;
    size_t first;                  /* the number of its first page among the image's cold pages */
    _Atomic unsigned char *done;   /* a byte per page: ABSENT, INFLATED or FROM_FILE */
} Range;

/* What a page of a range is. Any but ABSENT is there: a fault on it is the write tracker's. */
enum { ABSENT = 0, INFLATED = 1, FROM_FILE = 2 };

static Range ranges[MAX_RANGES];
static atomic_flag busy = ATOMIC_FLAG_INIT;    /* the inflater and the pages being moved in */
static atomic_size_t inflated;
static atomic_size_t from_file;     /* pages mapped from a file of inflated pages (imagecold_adopt) */
/* TINYCL_IMAGE_COLD_TRACE=1: each page inflated is named on stderr ("cold page 0x...", the address touched), to see
 * what a start or a program touches that the hot part lacks (bootlayout.c). */
static bool trace;

/* The decompressor: made once, outside any handler, reused under the lock. Its memory is a
 * mapping of its own, never malloc (the handler must not call it) and not static memory: the
 * collector scans static memory as a root, and the decompressor keeps pointers into the last page
 * it wrote and just past it, the first byte of the mapping above, often the collector's newest heap
 * section (after reset-session {"systems": true}, such a word kept the 800 MB array of the last
 * evaluation alive for the rest of the process: tests/mcp/transcripts/heap-reuse.txt). */
static ZSTD_DCtx *inflater;

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

/* A compressor for pages: zstd at its strongest level, frames without their magic number, content
 * size or checksum (the image's checksum covers them), with DICT (may be NULL) loaded. */
static ZSTD_CCtx *compressor(const ZSTD_CDict *dict) {
    ZSTD_CCtx *c = ZSTD_createCCtx();
    if (c && (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 19)) ||
              ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_format, ZSTD_f_zstd1_magicless)) ||
              ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)) ||
              ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0)) ||
              (dict && ZSTD_isError(ZSTD_CCtx_refCDict(c, dict))))) {
        ZSTD_freeCCtx(c);
        return NULL;
    }
    return c;
}

static bool grow(unsigned char **buf, size_t need, size_t *cap) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap * 2 : (size_t)1 << 20;
    while (c < need) c *= 2;
    unsigned char *b = (unsigned char *)realloc(*buf, c);
    if (!b) return false;
    *buf = b;
    *cap = c;
    return true;
}

static bool compress_onto(ZSTD_CCtx *c, const unsigned char *page, unsigned char **buf, size_t *len, size_t *cap) {
    size_t bound = ZSTD_compressBound(IMAGECOLD_PAGE);
    if (!grow(buf, *len + bound, cap)) return false;
    size_t n = ZSTD_compress2(c, *buf + *len, bound, page, IMAGECOLD_PAGE);
    if (ZSTD_isError(n)) return false;
    *len += n;
    return true;
}

bool imagecold_deflate(const unsigned char *page, unsigned char **buf, size_t *len, size_t *cap) {
    ZSTD_CCtx *c = compressor(NULL);
    bool ok = c && compress_onto(c, page, buf, len, cap);
    ZSTD_freeCCtx(c);
    return ok;
}

/* The dictionary: trained on the pages themselves (a 4 KB page alone is too short for a compressor
 * to learn much from; with it the boot image's 1,358 cold pages take 14% fewer bytes and inflate
 * a quarter faster). None when there are too few pages to train on. */
#define DICT_BYTES (64 * 1024)

bool imagecold_pack(const unsigned char *const *pages, size_t n, unsigned char **buf, size_t *len, uint32_t *offs) {
    size_t cap = 0;
    *buf = NULL;
    *len = 0;
    size_t dict_len = 0;
    if (n >= 64) {
        unsigned char *samples = (unsigned char *)malloc(n * IMAGECOLD_PAGE);
        size_t *sizes = (size_t *)malloc(n * sizeof *sizes);
        if (samples && sizes && grow(buf, DICT_BYTES, &cap)) {
            for (size_t k = 0; k < n; k++) {
                memcpy(samples + k * IMAGECOLD_PAGE, pages[k], IMAGECOLD_PAGE);
                sizes[k] = IMAGECOLD_PAGE;
            }
            size_t d = ZDICT_trainFromBuffer(*buf, DICT_BYTES, samples, sizes, (unsigned)n);
            dict_len = ZDICT_isError(d) ? 0 : d;
        }
        free(samples);
        free(sizes);
    }
    ZSTD_CDict *dict = dict_len ? ZSTD_createCDict(*buf, dict_len, 19) : NULL;
    ZSTD_CCtx *c = dict_len && !dict ? NULL : compressor(dict);
    bool ok = c != NULL;
    *len = dict_len;
    for (size_t k = 0; ok && k < n; k++) {
        offs[k] = (uint32_t)*len;
        ok = compress_onto(c, pages[k], buf, len, &cap) && *len < UINT32_MAX;
    }
    offs[n] = (uint32_t)*len;
    ZSTD_freeCCtx(c);
    ZSTD_freeCDict(dict);
    if (!ok) {
        free(*buf);
        *buf = NULL;
    }
    return ok;
}

/* Under the lock. */
static bool inflater_init_locked(void) {
    if (!inflater) {
        size_t room = ZSTD_estimateDCtxSize();
        void *m = mmap(NULL, room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return false;
        inflater = ZSTD_initStaticDCtx(m, room);
        if (!inflater || ZSTD_isError(ZSTD_DCtx_setParameter(inflater, ZSTD_d_format, ZSTD_f_zstd1_magicless))) {
            inflater = NULL;
            munmap(m, room);
        }
    }
    return inflater != NULL;
}

/* Under the lock: SRC (SRCLEN bytes, compressed with DICT, which may be NULL) into the page at DST. */
static bool inflate_locked(const unsigned char *src, size_t srclen, unsigned char *dst, const ZSTD_DDict *dict) {
    if (!inflater_init_locked()) return false;
    size_t n = dict ? ZSTD_decompress_usingDDict(inflater, dst, IMAGECOLD_PAGE, src, srclen, dict)
                    : ZSTD_decompressDCtx(inflater, dst, IMAGECOLD_PAGE, src, srclen);
    return !ZSTD_isError(n) && n == IMAGECOLD_PAGE;
}

bool imagecold_inflate(const unsigned char *src, size_t srclen, unsigned char *dst) {
    sigset_t old;
    lock(&old);
    bool ok = inflate_locked(src, srclen, dst, NULL);
    unlock(&old);
    return ok;
}

/* The dictionary of a packed section: its first LEN bytes, before its first page's (none: NULL,
 * *OK true). */
static ZSTD_DDict *dict_of(const unsigned char *data, size_t len, bool *ok) {
    ZSTD_DDict *d = len ? ZSTD_createDDict_byReference(data, len) : NULL;
    *ok = !len || d;
    return d;
}

/* Under the lock: page K of a packed section (DATA, OFFS, DICT) into DST; false when the index is
 * out of order or the page does not inflate. */
static bool inflate_page_locked(const unsigned char *data, const uint32_t *offs, size_t k, unsigned char *dst,
                                const ZSTD_DDict *dict) {
    return offs[k] <= offs[k + 1] && inflate_locked(data + offs[k], offs[k + 1] - offs[k], dst, dict);
}

bool imagecold_unpack(const unsigned char *data, const uint32_t *offs, size_t n, unsigned char *(*dst)(void *, size_t),
                      void *arg) {
    bool ok;
    ZSTD_DDict *dict = dict_of(data, offs[0], &ok);
    /* the lock (every signal blocked) held for 64 pages at most, as by the fills */
    for (size_t k = 0; ok && k < n;) {
        sigset_t old;
        lock(&old);
        for (size_t end = n - k < 64 ? n : k + 64; ok && k < end; k++) ok = inflate_page_locked(data, offs, k, dst(arg, k), dict);
        unlock(&old);
    }
    ZSTD_freeDDict(dict);
    return ok;
}

/* How many pages a fault brings in: the page touched alone while the process has inflated fewer
 * than RUN_AFTER (a plain start inflates none, and a small program a few), then the aligned run
 * of RUN_PAGES around it: a first DEFCLASS or LOOP touches 300 to 600 pages of the 1,405 and
 * loading a system 1,200, close together, and a run costs one fault and one mremap where each
 * page cost its own (docs/performance.md, "Cold pages by runs, zstd"). TINYCL_IMAGE_COLD_RUN=N
 * fixes the run at N pages (1: a page per fault, as under TINYCL_IMAGE_COLD_TRACE, whose trace is
 * of the pages touched). */
#define RUN_AFTER 64
#define RUN_PAGES 16
static size_t run_fixed;
/* Set while a file of the pages is about to be mapped (imagecold_expect): the pages touched
 * until then come alone, since the run around each would soon be mapped for less. */
static atomic_bool expecting;
static size_t run_pages(size_t so_far) {
    if (run_fixed) return run_fixed;
    if (atomic_load_explicit(&expecting, memory_order_relaxed)) return 1;
    return so_far < RUN_AFTER ? 1 : RUN_PAGES;
}

bool imagecold_map(char *lo, size_t npages, const uint32_t *offs, const unsigned char *data, size_t dict_len, int prot,
                   size_t first) {
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
    bool have_dict;
    ZSTD_DDict *dict = dict_of(data, dict_len, &have_dict);
    ready = ready && have_dict;
    size_t i = 0;
    while (i < MAX_RANGES && atomic_load_explicit(&ranges[i].lo, memory_order_acquire)) i++;
    void *m = ready && i < MAX_RANGES ? mmap(lo, npages * IMAGECOLD_PAGE, PROT_NONE,
                                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0)
                                      : MAP_FAILED;
    if (m != (void *)lo) {
        if (m != MAP_FAILED) munmap(m, npages * IMAGECOLD_PAGE);
        free((void *)done);
        ZSTD_freeDDict(dict);
        return false;
    }
    ranges[i].npages = npages;
    ranges[i].offs = offs;
    ranges[i].data = data;
    ranges[i].dict = dict;
    ranges[i].prot = prot;
    ranges[i].first = first;
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
        for (size_t k = p; ok && k < e; k++) ok = inflate_page_locked(r->data, r->offs, k, fresh + (k - p) * IMAGECOLD_PAGE, r->dict);
        ok = ok && (r->prot == (PROT_READ | PROT_WRITE) || mprotect(fresh, bytes, r->prot) == 0) &&
             mremap(fresh, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, lo + p * IMAGECOLD_PAGE) != MAP_FAILED;
        if (ok) {
            for (size_t k = p; k < e; k++) {
                if (trace) trace_page(at && (size_t)(at - lo) / IMAGECOLD_PAGE == k ? at : lo + k * IMAGECOLD_PAGE);
                atomic_store_explicit(&r->done[k], INFLATED, memory_order_release);
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
        ZSTD_freeDDict(ranges[i].dict);
        ranges[i].dict = NULL;
    }
}

/* ---- pages mapped from a file of the image's cold pages already inflated (imagepages.h) ---- */

/* A page mapped from such a file faults with SIGBUS when the file no longer holds it (someone
 * truncated it after it was checked): the page is then inflated from the image like any absent
 * page and moved over the file's, and the access is retried. Any other SIGBUS goes to the
 * handler installed before (the default action: the process ends). */
static struct sigaction bus_previous;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;
static bool bus_installed;

/* Page P of range R, mapped from a file, replaced by its inflated copy; false when it does not
 * inflate. Another thread may have replaced it first: then there is nothing to do. */
static bool rescue(Range *r, char *lo, size_t p) {
    sigset_t old;
    lock(&old);
    bool ok = true;
    if (atomic_load_explicit(&r->done[p], memory_order_relaxed) == FROM_FILE) {
        unsigned char *fresh = (unsigned char *)mmap(NULL, IMAGECOLD_PAGE, PROT_READ | PROT_WRITE,
                                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ok = fresh != MAP_FAILED && inflate_page_locked(r->data, r->offs, p, fresh, r->dict) &&
             (r->prot == (PROT_READ | PROT_WRITE) || mprotect(fresh, IMAGECOLD_PAGE, r->prot) == 0) &&
             mremap(fresh, IMAGECOLD_PAGE, IMAGECOLD_PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, lo + p * IMAGECOLD_PAGE) != MAP_FAILED;
        if (ok) {
            if (trace) trace_page(lo + p * IMAGECOLD_PAGE);
            atomic_store_explicit(&r->done[p], INFLATED, memory_order_release);
            atomic_fetch_add_explicit(&inflated, 1, memory_order_relaxed);
            atomic_fetch_sub_explicit(&from_file, 1, memory_order_relaxed);
        } else if (fresh != MAP_FAILED) {
            munmap(fresh, IMAGECOLD_PAGE);
        }
    }
    unlock(&old);
    return ok;
}

static void on_bus(int sig, siginfo_t *si, void *uc) {
    int saved = errno;
    char *a = (char *)si->si_addr;
    /* only a page past the end of its file (BUS_ADRERR; a memory error is not ours to mend) */
    for (size_t i = 0; si->si_code == BUS_ADRERR && i < MAX_RANGES; i++) {
        char *lo = atomic_load_explicit(&ranges[i].lo, memory_order_acquire);
        if (!lo || a < lo || a >= lo + ranges[i].npages * IMAGECOLD_PAGE) continue;
        size_t p = (size_t)(a - lo) / IMAGECOLD_PAGE;
        if (atomic_load_explicit(&ranges[i].done[p], memory_order_acquire) == ABSENT) break;
        if (!rescue(&ranges[i], lo, p)) {
            static const char msg[] = "tinycl: a page of the boot image does not inflate (the executable is corrupted)\n";
            ssize_t w = write(2, msg, sizeof msg - 1);
            (void)w;
            abort();
        }
        errno = saved;
        return;
    }
    errno = saved;
    if (bus_previous.sa_flags & SA_SIGINFO) {
        if (bus_previous.sa_sigaction) { bus_previous.sa_sigaction(sig, si, uc); return; }
    } else if (bus_previous.sa_handler != SIG_DFL && bus_previous.sa_handler != SIG_IGN) {
        bus_previous.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);     /* returning re-runs the access, which now ends the process */
}

static void install_bus(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    bus_installed = sigaction(SIGBUS, &sa, &bus_previous) == 0;
}

size_t imagecold_absent(const unsigned char *data) {
    size_t n = 0;
    for (size_t i = 0; i < MAX_RANGES; i++) {
        char *lo = atomic_load_explicit(&ranges[i].lo, memory_order_acquire);
        if (!lo || ranges[i].data != data) continue;
        for (size_t p = 0; p < ranges[i].npages; p++)
            n += atomic_load_explicit(&ranges[i].done[p], memory_order_acquire) == ABSENT;
    }
    return n;
}

/* Under the lock: pages P .. Q-1 of range R, absent, mapped from FD (page K of the image's cold
 * pages at AT + K pages) over their reservation, with the range's access. Mapping over a page
 * without access replaces it at once for every thread (the kernel changes a process's mappings
 * under its lock), so a thread sees the reservation or the file's page, never between. On
 * failure the run is reserved again (a failed MAP_FIXED may have removed what was there). */
static bool map_run_locked(Range *r, char *lo, size_t p, size_t q, int fd, uint64_t at) {
    char *to = lo + p * IMAGECOLD_PAGE;
    size_t bytes = (q - p) * IMAGECOLD_PAGE;
    void *m = mmap(to, bytes, r->prot, MAP_PRIVATE | MAP_FIXED, fd, (off_t)(at + (r->first + p) * IMAGECOLD_PAGE));
    if (m == (void *)to) {
        for (size_t k = p; k < q; k++) atomic_store_explicit(&r->done[k], FROM_FILE, memory_order_release);
        return true;
    }
    if (m != MAP_FAILED) munmap(m, bytes);
    mmap(to, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return false;
}

size_t imagecold_adopt(const unsigned char *data, int fd, uint64_t at) {
    pthread_once(&bus_once, install_bus);
    if (!bus_installed) return 0;
    size_t mapped = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < MAX_RANGES; i++) {
        Range *r = &ranges[i];
        char *lo = atomic_load_explicit(&r->lo, memory_order_acquire);
        if (!lo || r->data != data) continue;
        /* the lock (every signal blocked) held for 64 pages at a time, as by the fills */
        for (size_t p = 0; ok && p < r->npages; p += 64) {
            size_t end = r->npages - p < 64 ? r->npages : p + 64;
            sigset_t old;
            lock(&old);
            for (size_t s = p; ok && s < end;) {
                if (atomic_load_explicit(&r->done[s], memory_order_relaxed) != ABSENT) { s++; continue; }
                size_t e = s + 1;
                while (e < end && atomic_load_explicit(&r->done[e], memory_order_relaxed) == ABSENT) e++;
                ok = map_run_locked(r, lo, s, e, fd, at);
                if (ok) mapped += e - s;
                s = e;
            }
            unlock(&old);
        }
    }
    atomic_fetch_add_explicit(&from_file, mapped, memory_order_relaxed);
    if (trace) {
        char line[64];
        int n = snprintf(line, sizeof line, "cold pages mapped from a file: %zu\n", mapped);
        ssize_t w = write(2, line, (size_t)n);
        (void)w;
    }
    return mapped;
}

void imagecold_expect(bool on) { atomic_store_explicit(&expecting, on, memory_order_relaxed); }

size_t imagecold_from_file(void) { return atomic_load_explicit(&from_file, memory_order_relaxed); }

size_t imagecold_inflated(void) { return atomic_load_explicit(&inflated, memory_order_relaxed); }

bool imagecold_eager(void) {
    const char *e = getenv("TINYCL_IMAGE_EAGER"), *pre = getenv("LD_PRELOAD");
    return (e && *e && *e != '0') || (pre && strstr(pre, "vgpreload"));
}
