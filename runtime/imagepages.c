/* imagepages.c: the boot image's cold pages kept inflated in a file, checked, written and mapped (imagepages.h). */
#include "imagepages.h"
#include "image.h"
#include "imagecold.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGES_MAGIC "TCLPAGES"
#define PAGES_VERSION 1u
#define PAGE IMAGECOLD_PAGE
/* The pages are summed and read 64 at a time (256 KB): the checksum of the file is that of
 * each such chunk, folded in order, so that it can be computed while reading in pieces. */
#define CHUNK_PAGES 64

typedef struct PagesHeader {
    char magic[8];
    uint32_t version, page_size;
    uint64_t npages;
    uint64_t image_sum;          /* the image's checksum, as its header records it: whose pages */
    uint64_t build_id_len;
    uint8_t build_id[32];        /* the build that wrote them (image_build_id) */
    uint64_t pages_sum;          /* of the pages (fold, below) */
    uint64_t header_sum;         /* of the fields above */
} PagesHeader;

_Static_assert(sizeof(PagesHeader) <= PAGE, "the header fits its page");

static uint64_t fold(uint64_t sum, const unsigned char *chunk, size_t bytes) {
    return (sum ^ image_sum(chunk, bytes)) * 0x9E3779B97F4A7C15ull + 1;
}

/* The header BUF's file must have (its pages_sum left 0). */
static bool expected_header(const unsigned char *buf, size_t len, PagesHeader *h, const uint32_t **offs,
                            const unsigned char **data) {
    size_t npages;
    uint64_t sum;
    if (!image_cold_pages(buf, len, offs, data, &npages, &sum) || !npages) return false;
    memset(h, 0, sizeof *h);
    memcpy(h->magic, PAGES_MAGIC, 8);
    h->version = PAGES_VERSION;
    h->page_size = PAGE;
    h->npages = npages;
    h->image_sum = sum;
    h->build_id_len = image_build_id(h->build_id);
    return true;
}

static uint64_t header_sum(const PagesHeader *h) { return image_sum(h, offsetof(PagesHeader, header_sum)); }

/* The file's name, from the checksum of the image whose pages it holds. */
static void name_of(const PagesHeader *h, char *name) {
    snprintf(name, IMAGEPAGES_NAMELEN, "image-%016llx.pages", (unsigned long long)h->image_sum);
}

bool imagepages_name(const unsigned char *buf, size_t len, char *name) {
    PagesHeader h;
    const uint32_t *offs;
    const unsigned char *data;
    if (!expected_header(buf, len, &h, &offs, &data)) return false;
    name_of(&h, name);
    return true;
}

/* Read N bytes at OFF of FD into P; false on a short read (the file cut short) or an error. */
static bool read_at(int fd, void *p, size_t n, off_t off) {
    for (size_t got = 0; got < n;) {
        ssize_t r = pread(fd, (char *)p + got, n - got, off + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

static bool write_all(int fd, const void *p, size_t n) {
    for (size_t put = 0; put < n;) {
        ssize_t w = write(fd, (const char *)p + put, n - put);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        put += (size_t)w;
    }
    return true;
}

bool imagepages_valid(const unsigned char *buf, size_t len, int fd) {
    PagesHeader want, got;
    const uint32_t *offs;
    const unsigned char *data;
    struct stat st;
    if (!expected_header(buf, len, &want, &offs, &data) || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid() || (uint64_t)st.st_size != (want.npages + 1) * PAGE || !read_at(fd, &got, sizeof got, 0))
        return false;
    want.pages_sum = got.pages_sum;
    want.header_sum = got.header_sum;
    if (memcmp(&want, &got, sizeof got) != 0 || header_sum(&got) != got.header_sum) return false;
    unsigned char *chunk = (unsigned char *)malloc(CHUNK_PAGES * PAGE);
    if (!chunk) return false;
    uint64_t sum = 0;
    bool ok = true;
    for (uint64_t k = 0; ok && k < want.npages; k += CHUNK_PAGES) {
        size_t n = (size_t)(want.npages - k < CHUNK_PAGES ? want.npages - k : CHUNK_PAGES) * PAGE;
        ok = read_at(fd, chunk, n, (off_t)((k + 1) * PAGE));
        if (ok) sum = fold(sum, chunk, n);
    }
    free(chunk);
    return ok && sum == got.pages_sum;
}

/* Where page K of the buffer the pages are inflated into goes. */
static unsigned char *page_of(void *base, size_t k) { return (unsigned char *)base + k * PAGE; }

/* Remove from DIRFD the files of other images (NAME is this one's), and the temporary files of
 * writers that died more than an hour ago. */
static void remove_others(int dirfd, const char *name) {
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) { if (fd >= 0) close(fd); return; }
    rewinddir(d);     /* the copy shares its offset with DIRFD, which an earlier listing may have moved */
    size_t stem = strlen("image-") + 16;
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d));) {
        const char *n = e->d_name;
        size_t l = strlen(n);
        if (strncmp(n, "image-", 6) != 0 || l < stem + 6 || strncmp(n + stem, ".pages", 6) != 0 || strcmp(n, name) == 0)
            continue;
        struct stat st;
        if (l == stem + 6) unlinkat(dirfd, n, 0);
        else if (l > 4 && strcmp(n + l - 4, ".tmp") == 0 && fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                 st.st_mtime < now - 3600)
            unlinkat(dirfd, n, 0);
    }
    closedir(d);
}

int imagepages_write(const unsigned char *buf, size_t len, int dirfd) {
    PagesHeader h;
    const uint32_t *offs;
    const unsigned char *data;
    char name[IMAGEPAGES_NAMELEN], temp[IMAGEPAGES_NAMELEN + 48];
    if (!expected_header(buf, len, &h, &offs, &data)) return -1;
    name_of(&h, name);
    size_t bytes = (size_t)h.npages * PAGE;
    unsigned char *pages = (unsigned char *)mmap(NULL, PAGE + bytes, PROT_READ | PROT_WRITE,
                                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (pages == MAP_FAILED) return -1;
    bool ok = imagecold_unpack(data, offs, (size_t)h.npages, page_of, pages + PAGE);
    for (uint64_t k = 0; ok && k < h.npages; k += CHUNK_PAGES)
        h.pages_sum = fold(h.pages_sum, pages + PAGE + k * PAGE,
                           (size_t)(h.npages - k < CHUNK_PAGES ? h.npages - k : CHUNK_PAGES) * PAGE);
    h.header_sum = header_sum(&h);
    memcpy(pages, &h, sizeof h);
    static _Atomic unsigned serial;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(temp, sizeof temp, "%s.%ld.%u.%ld.tmp", name, (long)getpid(), (unsigned)serial++, (long)ts.tv_nsec);
    int fd = ok ? openat(dirfd, temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;
    ok = fd >= 0 && write_all(fd, pages, PAGE + bytes);
    munmap(pages, PAGE + bytes);
    if (ok && renameat(dirfd, temp, dirfd, name) == 0) {
        remove_others(dirfd, name);
        return fd;
    }
    if (fd >= 0) {
        unlinkat(dirfd, temp, 0);
        close(fd);
    }
    return -1;
}

/* DIR and its parents made where missing (as ensure-directories-exist would). */
static void make_dirs(const char *dir) {
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) return;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0) continue;
        char c = path[i];
        path[i] = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) return;
        path[i] = c;
    }
}

/* A file found valid stays open for the rest of the process: an interpreter that maps the image
 * again (a session made after the first was freed) maps its pages without checking them again. */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static int kept_fd = -1;
static const unsigned char *kept_for;     /* the compressed pages of the image whose pages it holds */
static uint64_t kept_sum;                 /* and that image's checksum */

ImagePagesResult imagepages_use(const unsigned char *buf, size_t len, const char *dir, bool may_write, size_t *mapped) {
    *mapped = 0;
    const char *off = getenv("TINYCL_IMAGE_PAGES");
    PagesHeader h;
    const uint32_t *offs;
    const unsigned char *data;
    if ((off && strcmp(off, "0") == 0) || !expected_header(buf, len, &h, &offs, &data) || !imagecold_absent(data))
        return IMAGEPAGES_NONE;
    pthread_mutex_lock(&kept_lock);
    ImagePagesResult r = IMAGEPAGES_NONE;
    int fd = kept_for == data && kept_sum == h.image_sum ? kept_fd : -1;
    if (fd >= 0) {
        r = IMAGEPAGES_MAPPED;
    } else {
        char name[IMAGEPAGES_NAMELEN];
        if (may_write) make_dirs(dir);
        name_of(&h, name);
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd >= 0) {
            /* not blocking: a FIFO of that name must not hang the process (it is then refused) */
            fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
            if (fd >= 0 && imagepages_valid(buf, len, fd)) {
                r = IMAGEPAGES_MAPPED;
            } else {
                if (fd >= 0) close(fd);
                fd = may_write ? imagepages_write(buf, len, dirfd) : -1;
                if (fd >= 0) r = IMAGEPAGES_WRITTEN;
            }
            close(dirfd);
        }
        if (fd >= 0) {
            if (kept_fd >= 0) close(kept_fd);
            kept_fd = fd;
            kept_for = data;
            kept_sum = h.image_sum;
        }
    }
    if (fd >= 0) *mapped = imagecold_adopt(data, fd, PAGE);
    pthread_mutex_unlock(&kept_lock);
    return r;
}
