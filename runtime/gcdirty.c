/* gcdirty.c: write-tracked roots: the boot image's pointer-holding part scanned by each collection
 * only where it was written since it was loaded.
 *
 * When the image is loaded its words point only into the image itself, the interpreter's struct
 * (never collected) and the executable: a page nobody has written since cannot hold the only
 * reference to an object of the collector's heap. So instead of registering the whole part (4 MB,
 * most of a small program's marking time) as one root range, the part is made read-only; the first
 * write to a page faults, the handler below records the page and makes it writable again, and a
 * collection pushes the recorded pages only. A page stays recorded for the life of the region: the
 * check is one byte per page and the fault happens once per page.
 *
 * The handler runs on any thread, at any point, also inside the collector (a disappearing link in
 * an image object is cleared by it): it takes no lock, only reads the table of regions and sets a
 * byte, and calls mprotect. Faults that are not ours go to the handler installed before ours (the
 * default action, or a sanitizer's report). The table is changed only under the collector's lock,
 * so a collection never sees half of a change.
 *
 * A region mapped privately from a file (the boot image mapped from the executable) is protected
 * later, at the first collection or the first count of its pages (gcdirty_track_mapped): until
 * then the kernel itself records which pages were written (they became the process's own copies,
 * written.h), so a start that never collects takes no fault, no mprotect and no split of the
 * mapping for the pages it writes (a start wrote 15 pages: a signal, an mprotect and a return
 * each). Arming protects the region's mapped part read-only first and only then asks which pages
 * were written, so that a write in between faults and is recorded as any later one. */
#include "gcdirty.h"
#include "imagecold.h"
#include "written.h"
#define GC_THREADS
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/mman.h>

/* Interpreters alive at once in one process, each with its boot image (an HTTP server's
 * sessions); a region past this many is registered as a plain root range instead. */
#define MAX_REGIONS 1024

typedef struct Region {
    _Atomic(char *) start;     /* NULL: a free slot */
    char *end;
    unsigned char *dirty;      /* a byte per page: written since loaded */
    size_t hot;                /* a mapped region not yet armed: the bytes to protect when armed */
    uint64_t *written;         /* room for the answer of written_pages when armed (a bit per page) */
    atomic_bool armed;         /* protected (always, unless tracked with gcdirty_track_mapped) */
} Region;

static Region regions[MAX_REGIONS];
static atomic_size_t nslots;           /* slots ever used: the handler looks no further */
static size_t page_size;
static struct sigaction previous;      /* the SIGSEGV action before ours */
static GC_push_other_roots_proc previous_push;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static bool installed;
static atomic_size_t faults;

/* Give a fault that is not ours to whoever handled SIGSEGV before us. */
static void pass_on(int sig, siginfo_t *si, void *uc) {
    if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction) { previous.sa_sigaction(sig, si, uc); return; }
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    /* the default action: returning re-runs the faulting instruction, which now kills */
    signal(sig, SIG_DFL);
}

/* Making one page writable splits the region's mapping, and the kernel caps a process's mappings
 * (vm.max_map_count): when it refuses, the whole region is recorded and made writable at once,
 * which needs no new mapping. */
static bool give_up(Region *r, char *s) {
    size_t pages = (size_t)(r->end - s + page_size - 1) / page_size;
    imagecold_fill(s, pages * page_size);     /* no page may become writable before it is there */
    for (size_t p = 0; p < pages; p++) __atomic_store_n(&r->dirty[p], 1, __ATOMIC_RELEASE);
    return mprotect(s, pages * page_size, PROT_READ | PROT_WRITE) == 0;
}

static void on_fault(int sig, siginfo_t *si, void *uc) {
    int saved = errno;
    char *a = (char *)si->si_addr;
    size_t n = atomic_load_explicit(&nslots, memory_order_acquire);
    /* a compressed page of the boot image touched for the first time (imagecold.h) */
    if (si->si_code == SEGV_ACCERR && imagecold_fault(a)) { errno = saved; return; }
    if (si->si_code == SEGV_ACCERR) {
        for (size_t i = 0; i < n; i++) {
            char *s = atomic_load_explicit(&regions[i].start, memory_order_acquire);
            if (!s || a < s || a >= regions[i].end) continue;
            size_t p = (size_t)(a - s) / page_size;
            /* recorded before the page becomes writable: a collection that stops this thread in
             * between scans the page once more, never once less */
            __atomic_store_n(&regions[i].dirty[p], 1, __ATOMIC_RELEASE);
            if (mprotect(s + p * page_size, page_size, PROT_READ | PROT_WRITE) == 0 || give_up(&regions[i], s)) {
                atomic_fetch_add_explicit(&faults, 1, memory_order_relaxed);
                errno = saved;
                return;
            }
            break;
        }
    }
    errno = saved;
    pass_on(sig, si, uc);
}

/* Protect a mapped region's pages now (the collector's lock held): read-only first, then the
 * pages the kernel shows written (their own copies) are recorded and made writable again. Written
 * before arming and not shown so (no /proc/self/pagemap): every page is recorded, and the region
 * is scanned whole, as it would be untracked. Takes no lock and allocates nothing (it may run with
 * the world stopped, where another thread may hold malloc's lock). */
static void arm_locked(Region *r) {
    if (atomic_load_explicit(&r->armed, memory_order_acquire)) return;
    char *s = atomic_load_explicit(&r->start, memory_order_relaxed);
    size_t pages = r->hot / page_size;
    atomic_store_explicit(&r->armed, true, memory_order_release);
    if (!pages) return;
    if (mprotect(s, pages * page_size, PROT_READ) != 0 ||
        !written_pages(s, pages * page_size, (volatile uintptr_t *)s, r->written)) {
        for (size_t p = 0; p < pages; p++) __atomic_store_n(&r->dirty[p], 1, __ATOMIC_RELEASE);
        mprotect(s, pages * page_size, PROT_READ | PROT_WRITE);
        return;
    }
    for (size_t p = 0; p < pages;) {
        if (!(r->written[p / 64] >> (p % 64) & 1)) { p++; continue; }
        size_t q = p + 1;
        while (q < pages && (r->written[q / 64] >> (q % 64) & 1)) q++;
        for (size_t k = p; k < q; k++) __atomic_store_n(&r->dirty[k], 1, __ATOMIC_RELEASE);
        if (mprotect(s + p * page_size, (q - p) * page_size, PROT_READ | PROT_WRITE) != 0) { give_up(r, s); return; }
        p = q;
    }
}

/* Called by the collector, world stopped, while it pushes its roots. */
static void push_dirty(void) {
    if (previous_push) previous_push();     /* the threads' stacks */
    size_t n = atomic_load_explicit(&nslots, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        char *s = atomic_load_explicit(&regions[i].start, memory_order_acquire);
        if (!s) continue;
        arm_locked(&regions[i]);
        size_t pages = (size_t)(regions[i].end - s + page_size - 1) / page_size;
        for (size_t p = 0; p < pages;) {
            if (!__atomic_load_n(&regions[i].dirty[p], __ATOMIC_ACQUIRE)) { p++; continue; }
            size_t q = p + 1;
            while (q < pages && __atomic_load_n(&regions[i].dirty[q], __ATOMIC_ACQUIRE)) q++;
            char *lo = s + p * page_size, *hi = s + q * page_size;
            /* marked now rather than queued: one queued range per run of pages could overflow
             * the collector's mark stack, which it does not expect of roots */
            GC_push_all_eager(lo, hi < regions[i].end ? hi : regions[i].end);
            p = q;
        }
    }
}

/* Valgrind's tools resume a write that faulted with registers that may be stale (unless run with
 * --vex-iropt-register-updates=allregs-at-mem-access): under it the image is scanned whole,
 * unless TINYCL_GC_TRACK=1 says that flag was given (bench/profile.sh). */
static bool under_valgrind(void) {
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload") && !getenv("TINYCL_GC_TRACK");
}

static void install(void) {
    if (getenv("TINYCL_GC_SCAN_IMAGE") || under_valgrind()) return;     /* the whole part, as before */
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &previous) != 0) return;
    GC_alloc_lock();
    previous_push = GC_get_push_other_roots();
    GC_set_push_other_roots(push_dirty);
    GC_alloc_unlock();
    installed = true;
}

typedef struct Change { char *start; size_t bytes; unsigned char *dirty; size_t hot; uint64_t *written; bool done; } Change;

static void *add_locked(void *arg) {
    Change *c = (Change *)arg;
    size_t n = atomic_load_explicit(&nslots, memory_order_relaxed), i = 0;
    while (i < n && atomic_load_explicit(&regions[i].start, memory_order_relaxed)) i++;
    if (i == MAX_REGIONS) return NULL;
    regions[i].end = c->start + c->bytes;
    regions[i].dirty = c->dirty;
    regions[i].hot = c->hot;
    regions[i].written = c->written;
    atomic_store_explicit(&regions[i].armed, c->written == NULL, memory_order_relaxed);
    atomic_store_explicit(&regions[i].start, c->start, memory_order_release);
    if (i == n) atomic_store_explicit(&nslots, n + 1, memory_order_release);
    c->done = true;
    return NULL;
}

bool gcdirty_usable(void) {
    pthread_once(&install_once, install);
    return installed;
}

bool gcdirty_track(void *start, size_t bytes) { return gcdirty_track_part(start, bytes, bytes); }

/* MAPPED: protected when armed (arm_locked), not now. */
static bool track(void *start, size_t bytes, size_t protect, bool mapped) {
    pthread_once(&install_once, install);
    if (!installed || !bytes || (uintptr_t)start % page_size || protect > bytes) return false;
    size_t pages = (bytes + page_size - 1) / page_size;
    size_t protect_pages = (protect + page_size - 1) / page_size;
    Change c = {(char *)start, bytes, (unsigned char *)calloc(pages, 1), protect_pages * page_size, NULL, false};
    if (!c.dirty) return false;
    if (mapped && !(c.written = (uint64_t *)calloc((protect_pages + 63) / 64 + 1, sizeof(uint64_t)))) { free(c.dirty); return false; }
    /* read-only first: once the region is in the table, a collection relies on its clean pages */
    if (!mapped && protect_pages && mprotect(start, protect_pages * page_size, PROT_READ) != 0) { free(c.dirty); return false; }
    GC_call_with_alloc_lock(add_locked, &c);
    if (!c.done) {
        if (!mapped && protect_pages) mprotect(start, protect_pages * page_size, PROT_READ | PROT_WRITE);
        free(c.dirty);
        free(c.written);
        return false;
    }
    GC_remove_roots(start, (char *)start + bytes);     /* if it was one, it is not scanned whole any more */
    return true;
}

bool gcdirty_track_part(void *start, size_t bytes, size_t protect) { return track(start, bytes, protect, false); }

bool gcdirty_track_mapped(void *start, size_t bytes, size_t protect) { return track(start, bytes, protect, true); }

/* The region tracked from START, or NULL. */
static Region *region_at(const void *start) {
    size_t n = atomic_load_explicit(&nslots, memory_order_acquire);
    for (size_t i = 0; i < n; i++)
        if (start && atomic_load_explicit(&regions[i].start, memory_order_acquire) == (const char *)start)
            return &regions[i];
    return NULL;
}

static void *remove_locked(void *arg) {
    Change *c = (Change *)arg;
    Region *r = region_at(c->start);
    if (!r) return NULL;
    atomic_store_explicit(&r->start, NULL, memory_order_release);
    c->dirty = r->dirty;
    c->written = r->written;
    c->bytes = (size_t)(r->end - c->start);
    r->dirty = NULL;
    r->written = NULL;
    c->done = true;
    return NULL;
}

bool gcdirty_untrack(void *start) {
    if (!installed || !start) return false;
    Change c = {(char *)start, 0, NULL, 0, NULL, false};
    GC_call_with_alloc_lock(remove_locked, &c);
    if (!c.done) return false;
    free(c.dirty);
    free(c.written);
    return true;
}

void gcdirty_written(void *start, size_t bytes) {
    if (!installed || !bytes) return;
    char *a = (char *)start, *b = a + bytes;
    size_t n = atomic_load_explicit(&nslots, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        char *s = atomic_load_explicit(&regions[i].start, memory_order_acquire);
        if (!s || b <= s || a >= regions[i].end) continue;
        char *lo = a > s ? a : s, *hi = b < regions[i].end ? b : regions[i].end;
        size_t p = (size_t)(lo - s) / page_size, q = (size_t)(hi - s + page_size - 1) / page_size;
        imagecold_fill(s + p * page_size, (q - p) * page_size);
        for (size_t k = p; k < q; k++) __atomic_store_n(&regions[i].dirty[k], 1, __ATOMIC_RELEASE);
        /* a region not armed yet is writable where it is mapped (its cold pages come read-only) */
        if (!atomic_load_explicit(&regions[i].armed, memory_order_acquire) && q * page_size <= regions[i].hot) continue;
        if (mprotect(s + p * page_size, (q - p) * page_size, PROT_READ | PROT_WRITE) != 0) give_up(&regions[i], s);
    }
}

void gcdirty_copy(void *dst, const void *src, size_t bytes) {
    if (!installed) { memcpy(dst, src, bytes); return; }
    char *d = (char *)dst;
    const char *s = (const char *)src;
    /* page by page from DST's page boundaries: an equal page is left alone (and clean) */
    for (size_t at = 0; at < bytes;) {
        size_t n = page_size - (uintptr_t)(d + at) % page_size;
        if (n > bytes - at) n = bytes - at;
        if (memcmp(d + at, s + at, n) != 0) {
            gcdirty_written(d + at, n);
            memcpy(d + at, s + at, n);
        }
        at += n;
    }
}

static void *arm_region_locked(void *start) {
    Region *r = region_at(start);
    if (r) arm_locked(r);
    return NULL;
}

size_t gcdirty_pages(void *start, size_t *total) {
    size_t dirty = 0;
    if (total) *total = 0;
    if (!installed) return 0;
    GC_call_with_alloc_lock(arm_region_locked, start);     /* the count is the recorded pages' */
    Region *r = region_at(start);
    if (!r) return 0;
    size_t pages = (size_t)(r->end - (char *)start + page_size - 1) / page_size;
    for (size_t p = 0; p < pages; p++) dirty += __atomic_load_n(&r->dirty[p], __ATOMIC_ACQUIRE);
    if (total) *total = pages;
    return dirty;
}

size_t gcdirty_faults(void) { return atomic_load_explicit(&faults, memory_order_relaxed); }

bool gcdirty_armed(void *start) {
    Region *r = region_at(start);
    return r && atomic_load_explicit(&r->armed, memory_order_acquire);
}
