/* written.h: which pages of a private file mapping this process has written since mapping it. */
#ifndef TINYCL_WRITTEN_H
#define TINYCL_WRITTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The pages of [START, START + LEN) (START page-aligned, mapped MAP_PRIVATE from a file): sets
 * bit i of OUT (LEN / page size bits, rounded up) when page i holds the process's own copy (it
 * was written, or could have been). PROBE is a word of the first page that may be written to
 * check that the kernel answers truthfully. False when it cannot tell (no /proc/self/pagemap, or
 * an answer that does not show a page just written): the caller must then assume every page was
 * written. */
bool written_pages(void *start, size_t len, volatile uintptr_t *probe, uint64_t *out);

#endif
