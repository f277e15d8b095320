/* bootimage.c: the booted interpreter as an image: written at build time, loaded by lisp_new. */
#include "bootimage.h"
#include "image.h"
#include "bootlayout.h"
#include "gcdirty.h"
#include "eval.h"
#include "control.h"
#include "stream.h"
#include "pathname.h"
#include "package.h"
#include "error.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>

/*
 * The roots are the words of the Lisp structure itself (every object the interpreter reaches
 * hangs from it), written as a copy in which the fields below are cleared: they belong to one
 * interpreter instance and one thread (stacks, frames, the session's settings and callbacks),
 * and the fresh interpreter's own values are kept when the image is loaded into it. Pointers
 * into the structure (NIL's symbol data lives there) are an external region, so they point into
 * the new one. What depends on the machine or the process rather than on the stdlib (the
 * standard streams and whether they are terminals, the current directory, the home directory
 * the stdlib looked at) is made again after loading (bootimage_restart).
 */

typedef struct Field { size_t off, size; } Field;
#define INSTANCE_FIELD(f) {offsetof(Lisp, f), sizeof(((Lisp *)0)->f)}
static const Field instance_fields[] = {
    INSTANCE_FIELD(frames), INSTANCE_FIELD(calls), INSTANCE_FIELD(specials), INSTANCE_FIELD(special_sp),
    INSTANCE_FIELD(special_cap), INSTANCE_FIELD(exit_target), INSTANCE_FIELD(unwind_target),
    INSTANCE_FIELD(stack_limit), INSTANCE_FIELD(stack_soft_limit), INSTANCE_FIELD(stack_hard_limit),
    INSTANCE_FIELD(stack_low),
    INSTANCE_FIELD(interrupt_pending), INSTANCE_FIELD(interrupt_kind), INSTANCE_FIELD(poll_limit),
    INSTANCE_FIELD(deadline), INSTANCE_FIELD(in_cleanup), INSTANCE_FIELD(output_left),
    INSTANCE_FIELD(exit_unavailable), INSTANCE_FIELD(session), INSTANCE_FIELD(access), INSTANCE_FIELD(threads),
    INSTANCE_FIELD(read_line_hook), INSTANCE_FIELD(read_line_ctx), INSTANCE_FIELD(cfg),
    INSTANCE_FIELD(format_cache), INSTANCE_FIELD(error_depth), INSTANCE_FIELD(prof_stack),
    INSTANCE_FIELD(prof_sp), INSTANCE_FIELD(prof_cap), INSTANCE_FIELD(profiling),
    INSTANCE_FIELD(image_heap), INSTANCE_FIELD(heap_cap), INSTANCE_FIELD(heap_reserve_granted),
    INSTANCE_FIELD(heap_charge), INSTANCE_FIELD(heap_scale_seen), INSTANCE_FIELD(heap_unflushed),
    INSTANCE_FIELD(gc_free),
    INSTANCE_FIELD(restored_heaps), INSTANCE_FIELD(nrestored_heaps),
};
#define NFIELDS (sizeof instance_fields / sizeof *instance_fields)
#define NROOTS (sizeof(Lisp) / sizeof(uintptr_t))

_Static_assert(sizeof(Lisp) % sizeof(uintptr_t) == 0, "the Lisp structure is written as words");

static bool from_source;
void bootimage_set_source_boot(bool on) { from_source = on; }
/* TINYCL_BOOT=source boots every interpreter from the sources (the tests compare both boots);
 * TINYCL_BOOT=image makes a missing or refused image an error instead of a fallback. */
static bool boot_env_is(const char *what) {
    const char *e = getenv("TINYCL_BOOT");
    return e && strcmp(e, what) == 0;
}
bool bootimage_source_boot(void) { return from_source || boot_env_is("source"); }
bool bootimage_required(void) { return boot_env_is("image"); }

int bootimage_write(Lisp *L, const char *path, char *err) {
    /* the hot part first: what a start touches (with the snapshot a start uses, when
     * tcl_write_boot_image gave it one) */
    size_t nhot = 0;
    uintptr_t *hot = bootlayout_hot(L, (const uintptr_t *)L, NROOTS, &nhot);
    Lisp *copy = (Lisp *)malloc(sizeof *copy);
    if (!copy) { free(hot); snprintf(err, IMAGE_ERRLEN, "out of memory"); return -1; }
    memcpy(copy, L, sizeof *copy);
    for (size_t i = 0; i < NFIELDS; i++) memset((char *)copy + instance_fields[i].off, 0, instance_fields[i].size);
    ImageRegion ext[1] = {{L, sizeof *L}};
    size_t len = 0;
    unsigned char *img = image_write_layout(L, (const uintptr_t *)copy, NROOTS, ext, 1, hot, nhot, &len, err);
    free(hot);
    free(copy);
    if (!img) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) { snprintf(err, IMAGE_ERRLEN, "cannot open %s: %s", path, strerror(errno)); free(img); return -1; }
    bool ok = fwrite(img, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    free(img);
    if (!ok) { snprintf(err, IMAGE_ERRLEN, "cannot write %s", path); return -1; }
    return 0;
}

/* ---- finding the image: appended to the executable, after its ELF contents, with a trailer ---- */

#define TRAILER_MAGIC "TCLIMAGE"
typedef struct Trailer { char magic[8]; uint64_t offset, length; } Trailer;

static const unsigned char *image_bytes;
static size_t image_len;
static bool image_mapped;       /* image_bytes are pages of the executable's file, not the caller's memory */
static int image_fd = -1;       /* that file, kept open to map the image's parts from */
static uint64_t image_offset;   /* where the image starts in it */
static size_t image_scanned_at; /* where its pointer-bearing part starts in the image (once loaded) */
static const char *find_error;
static pthread_once_t find_once = PTHREAD_ONCE_INIT;

static void find_image(void) {
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) { find_error = "cannot open /proc/self/exe"; return; }
    struct stat st;
    Trailer t;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof t ||
        pread(fd, &t, sizeof t, st.st_size - (off_t)sizeof t) != (ssize_t)sizeof t ||
        memcmp(t.magic, TRAILER_MAGIC, 8) != 0) {
        find_error = "the executable carries no boot image";
        close(fd);
        return;
    }
    if (t.offset + t.length + sizeof t != (uint64_t)st.st_size) {
        find_error = "the executable's boot image trailer is corrupted";
        close(fd);
        return;
    }
    /* map the whole tail: offsets need not be page-aligned */
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) { close(fd); find_error = "cannot map the executable"; return; }
    image_bytes = (const unsigned char *)m + t.offset;
    image_len = (size_t)t.length;
    image_mapped = true;
    image_fd = fd;
    image_offset = t.offset;
    /* The image is part of the executable, like its code: the build checked its checksum (the
     * Makefile runs it with TINYCL_VERIFY_IMAGE=1), and its header (format, the build id of this
     * executable, sizes) is checked at every start. Summing its 5 MB at every start cost a sixth
     * of `tinycl -e nil`. TINYCL_VERIFY_IMAGE=1 checks it all the same. */
    const char *v = getenv("TINYCL_VERIFY_IMAGE");
    if (!(v && *v && strcmp(v, "0") != 0)) image_file_verified(image_bytes, image_len);
}

bool bootimage_available(void) {
    pthread_once(&find_once, find_image);
    return image_bytes != NULL;
}

void bootimage_use(const unsigned char *bytes, size_t len) {
    pthread_once(&find_once, find_image);
    image_bytes = bytes;
    image_len = len;
    image_mapped = false;
    image_fd = -1;
    if (!bytes) find_error = "no boot image";
}

/* Made again at every start: what depends on the process, not on the stdlib. */
static void bootimage_restart(Lisp *L) {
    stream_standard_init(L);
    pathname_default_init(L);
    /* generic function caches are keyed by addresses: a new epoch empties them all */
    Obj epoch = SYM(S(P_CLOS_EPOCH))->value;
    SYM(S(P_CLOS_EPOCH))->value = is_fixnum(epoch) ? FIX(FIXVAL(epoch) + 1) : FIX(0);
    /* the stdlib's own (home directories found at boot): functions listed in SYS:*IMAGE-RESTART-FUNCTIONS* */
    Obj var = intern_cstr(L, L->pkg_system, "*IMAGE-RESTART-FUNCTIONS*");
    for (Obj l = SYM(var)->value; is_cons(l); l = CDR(l)) funcall0(L, CAR(l));
}

static void restart_step(Lisp *L, void *ud) { (void)ud; bootimage_restart(L); }

bool bootimage_load(Lisp *L, char *err) {
    if (!bootimage_available()) { snprintf(err, IMAGE_ERRLEN, "%s", find_error); return false; }
    Lisp *loaded = (Lisp *)malloc(sizeof *loaded);
    if (!loaded) { snprintf(err, IMAGE_ERRLEN, "out of memory"); return false; }
    ImageRegion ext[1] = {{L, sizeof *L}};
    ImageHeap heap;
    if (!image_read_file(L, image_bytes, image_len, image_mapped ? image_fd : -1, image_offset,
                         (uintptr_t *)loaded, NROOTS, ext, 1, &heap, err)) {
        free(loaded);
        return false;
    }
    for (size_t i = 0; i < NFIELDS; i++)
        memcpy((char *)loaded + instance_fields[i].off, (char *)L + instance_fields[i].off, instance_fields[i].size);
    memcpy(L, loaded, sizeof *L);
    free(loaded);
    L->image_heap = heap;
    /* nothing in the loaded part points into the collector's heap yet: from here each collection
     * scans only the pages written since (gcdirty.c) instead of the whole part */
    if (!heap.tracked) gcdirty_track(heap.scanned, heap.scanned_bytes);
    /* the mapped pages were read once: give them back (they stay in the page cache for the next) */
    if (image_mapped) {
        __atomic_store_n(&image_scanned_at, image_scanned_offset(image_bytes, image_len), __ATOMIC_RELAXED);
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t lo = ((uintptr_t)image_bytes + page - 1) & ~(page - 1), hi = ((uintptr_t)image_bytes + image_len) & ~(page - 1);
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
    if (lisp_pcall(L, FR_TOPLEVEL, restart_step, NULL)) {
        image_release(&L->image_heap);
        snprintf(err, IMAGE_ERRLEN, "error while restarting the loaded image: %s",
                 error_describe_bootstrap(L, L->last_error));
        return false;
    }
    return true;
}

bool bootimage_original_bytes(size_t off, void *out, size_t n) {
    if (!bootimage_available() || !image_mapped || image_fd < 0) return false;
    size_t at = __atomic_load_n(&image_scanned_at, __ATOMIC_RELAXED);
    if (!at || off + n > image_len - at) return false;
    for (size_t got = 0; got < n;) {
        ssize_t r = pread(image_fd, (char *)out + got, n - got, (off_t)(image_offset + at + off + got));
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

const unsigned char *bootimage_bytes(size_t *len) {
    if (!bootimage_available()) { *len = 0; return NULL; }
    *len = image_len;
    return image_bytes;
}

void bootimage_strip_instance(Lisp *copy) {
    for (size_t i = 0; i < NFIELDS; i++) memset((char *)copy + instance_fields[i].off, 0, instance_fields[i].size);
}

void bootimage_keep_instance(Lisp *loaded, const Lisp *L) {
    for (size_t i = 0; i < NFIELDS; i++)
        memcpy((char *)loaded + instance_fields[i].off, (const char *)L + instance_fields[i].off, instance_fields[i].size);
}
