/* written.c: which pages of a private file mapping this process has written since mapping it.
 *
 * A private mapping of a file shares the page cache's pages until one is written: then the
 * process gets its own anonymous copy. /proc/self/pagemap tells the two apart for each page
 * (Documentation/admin-guide/mm/pagemap.rst): bit 63 present, bit 62 swapped (only anonymous
 * pages are swapped; a file page is dropped and read again), bit 61 a file page. A page that is
 * present and not a file page, or swapped, has been written; any other holds the file's bytes.
 * The answer is only used when it shows a page written a moment ago as written. */
#include "written.h"
#include <fcntl.h>
#include <unistd.h>

#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE (1ull << 61)

static bool entry_written(uint64_t e) {
    return (e & PM_SWAPPED) || ((e & PM_PRESENT) && !(e & PM_FILE));
}

/* Read in pieces on the stack, allocating nothing: the collector asks with the world stopped
 * (gcdirty.c), when a stopped thread may hold malloc's lock. */
#define CHUNK 2048

bool written_pages(void *start, size_t len, volatile uintptr_t *probe, uint64_t *out) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (!page || ((uintptr_t)start % page) || (uintptr_t)probe - (uintptr_t)start >= page) return false;
    size_t n = (len + page - 1) / page;
    *probe = *probe;     /* the process's own copy of the first page, whatever it held */
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    uint64_t e[CHUNK];
    off_t at = (off_t)((uintptr_t)start / page * sizeof *e);
    bool ok = true;
    for (size_t i = 0; i < (n + 63) / 64; i++) out[i] = 0;
    for (size_t done = 0; ok && done < n;) {
        size_t want = n - done < CHUNK ? n - done : CHUNK, got = 0;
        while (ok && got < want * sizeof *e) {
            ssize_t r = pread(fd, (char *)e + got, want * sizeof *e - got, at + (off_t)(done * sizeof *e + got));
            if (r <= 0) ok = false;
            else got += (size_t)r;
        }
        if (ok && done == 0) ok = entry_written(e[0]);
        for (size_t i = 0; ok && i < want; i++)
            if (entry_written(e[i])) out[(done + i) / 64] |= 1ull << ((done + i) % 64);
        done += want;
    }
    close(fd);
    return ok;
}
