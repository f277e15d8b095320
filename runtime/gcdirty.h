/* gcdirty.h: root regions the collector scans only where they were written (gcdirty.c). */
#ifndef TINYCL_GCDIRTY_H
#define TINYCL_GCDIRTY_H

#include <stdbool.h>
#include <stddef.h>

/* Make the BYTES from START (page-aligned) a root of the collector that it scans only in the pages
 * written from now on: the caller guarantees that no word there points into the collector's heap
 * yet. The pages become read-only until their first write. False (nothing changed) when that is
 * not possible: the caller registers the region as an ordinary root range then. A root range
 * registered with GC_add_roots for exactly that region is removed. */
bool gcdirty_track(void *start, size_t bytes);
/* The same for a region of which only the first PROTECT bytes are made read-only here: the rest
 * are pages that come read-only when first touched (imagecold.h). */
bool gcdirty_track_part(void *start, size_t bytes, size_t protect);
/* The same for a region mapped privately from a file (nothing written since it was mapped), left
 * writable for now: it is protected at the first collection, or the first gcdirty_pages, and the
 * pages written until then, which the kernel tells (written.h), are recorded then. */
bool gcdirty_track_mapped(void *start, size_t bytes, size_t protect);
/* Whether the region at START is protected yet (false for a mapped one before its first
 * collection, and for one not tracked). */
bool gcdirty_armed(void *start);
/* Whether regions can be tracked at all (not when the image is scanned whole: TINYCL_GC_SCAN_IMAGE,
 * Valgrind): the fault handler, which also brings in cold pages, is installed. */
bool gcdirty_usable(void);
/* Forget the region at START (before it is unmapped: its pages are left as they are); false if it
 * was not tracked. */
bool gcdirty_untrack(void *start);
/* The BYTES from START are about to be written wholesale: record their pages at once instead of
 * taking a fault per page. Harmless outside tracked regions. */
void gcdirty_written(void *start, size_t bytes);
/* memcpy into a tracked region that writes only the pages whose contents change: the others stay
 * clean (a checkpoint restore puts back mostly what the image already holds). */
void gcdirty_copy(void *dst, const void *src, size_t bytes);
/* Pages of the region at START written so far (TOTAL: its pages); 0 when not tracked. */
size_t gcdirty_pages(void *start, size_t *total);
/* Write faults handled in this process. */
size_t gcdirty_faults(void);

#endif
